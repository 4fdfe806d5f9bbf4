#!/usr/bin/python3
"""edgetrain crosscheck and calibrate end to end (docs/explanation/fidelity.md): the quickstart's
three rounds replayed under ns-3 with causality honoured, a calibration fitted on a small platform
reproducing its own points within the goal and applied by network.calibration, and bad input (a
platform ns-3 cannot map, a malformed calibration, one made for another platform) as one line,
exit 2. Usage: cli_test.py EDGETRAIN"""
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

EDGETRAIN = sys.argv[1]
DATA = Path("tests/packet/data")


def edgetrain(*args, status=0):
    p = subprocess.run([EDGETRAIN, *map(str, args)], capture_output=True, text=True, timeout=240)
    if p.returncode != status:
        sys.exit(f"edgetrain {' '.join(map(str, args))}: exit {p.returncode}, wanted {status}\n{p.stdout}\n{p.stderr}")
    return p


def one_line_error(p, *needles):
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, f"wanted one line, got {lines}"
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"


def check_crosscheck(tmp):
    out = tmp / "qs"
    edgetrain("crosscheck", "scenarios/quickstart.json", "--quiet", "--out", out, "--set", "stop.rounds=3",
              "--set", "network.model=cm02")
    rows = list(csv.DictReader(open(out / "crosscheck.csv")))
    # 8 devices, 3 rounds: a download and an upload each.
    assert len(rows) == 48, len(rows)
    assert {int(r["round"]) for r in rows} == {1, 2, 3}
    report = json.load(open(out / "crosscheck.json"))
    assert report["transfers"] == 48 and report["tcp"]["initial_window_segments"] == 10
    # Linux's timers, and every round under several router queues with TCP's range around the default's.
    assert report["tcp"]["delayed_ack_s"] == 0.04 and len(report["queues"]) >= 3
    for rnd in report["rounds"]:
        lo, hi = rnd["queue_range_s"]
        assert lo <= rnd["packet_s"] <= hi, rnd
    assert report["reference_anomalies"] == [], report["reference_anomalies"]
    # The default model (slow start emulated) is nearer ns-3's rounds than CM02 on the quickstart.
    default = tmp / "qs-default"
    edgetrain("crosscheck", "scenarios/quickstart.json", "--quiet", "--out", default, "--set", "stop.rounds=3")
    tcp = json.load(open(default / "crosscheck.json"))
    assert tcp["round_error"]["max_abs_error"] < report["round_error"]["max_abs_error"], (tcp["rounds"], report["rounds"])
    for r in rows:
        flow, packet = float(r["flow_s"]), float(r["packet_s"])
        assert abs(float(r["error"]) - (flow / packet - 1)) < 1e-6
        # CM02 has no slow start: a transfer is never slower there than with TCP's.
        assert flow <= packet * 1.001, r
    # Causality in the replay: each device's upload starts after its download of the same round
    # has ended there, by the compute time the flow-level run spent between them.
    by = {(r["round"], r["source"], r["destination"]): r for r in rows}
    for (rnd, src, dst), up in by.items():
        if dst != "cloud":
            continue
        down = by[(rnd, "cloud", src)]
        flow_gap = float(up["flow_start_s"]) - (float(down["flow_start_s"]) + float(down["flow_s"]))
        packet_gap = float(up["packet_start_s"]) - (float(down["packet_start_s"]) + float(down["packet_s"]))
        assert flow_gap >= 0 and abs(packet_gap - flow_gap) < 1e-6, (up, down)


def check_calibration(tmp):
    cal = tmp / "two.json"
    # Messages up to 2 MB: ns-3's time grows with the bytes replayed.
    edgetrain("calibrate", DATA / "star.xml", "-o", cal, "--server", "server", "--quiet", "--max-bytes", 2e6)
    c = json.load(open(cal))
    assert c["format"] == "edgetrain calibration 2" and len(c["classes"]) == 2
    kinds = {p["kind"] for p in c["report"]["single"]}
    assert kinds == {"fitted", "held out", "random"}, kinds
    for point in c["report"]["single"]:
        assert point["bytes"] <= 2e6
        # The goal: calibrated lone transfers within 5% of ns-3, at fitted sizes and at sizes the fit never
        # saw (the checkpoints and sizes drawn at random between them).
        assert abs(point["calibrated_error"]) <= 0.05, point
    for r in c["report"]["concurrent"]:
        lo, hi = r["queue_range_s"]
        assert len(r["packet_round_s_by_queue"]) >= 3 and lo <= r["packet"]["round_s"] <= hi, r
    assert any(abs(p["flow_error"]) > 0.2 for p in c["report"]["single"]), "CM02 should be far off somewhere"
    # The default network model is the slow-start TCP model: slower than CM02 as it is; a calibration
    # names itself in the fidelity section.
    cm02, default, calibrated = tmp / "cm02", tmp / "default", tmp / "calibrated"
    edgetrain("run", DATA / "star.json", "--quiet", "--out", cm02, "--set", "network.model=cm02")
    edgetrain("run", DATA / "star.json", "--quiet", "--out", default)
    edgetrain("run", DATA / "star.json", "--quiet", "--out", calibrated, "--set", f"network.calibration={cal}")
    s_cm02, s_default, s_cal = (json.load(open(d / "summary.json")) for d in (cm02, default, calibrated))
    assert s_cm02["fidelity"]["network"]["model"] == "CM02" and s_default["fidelity"]["network"]["model"] == "tcp"
    assert s_default["fidelity"]["network"]["calibration"] is None
    assert s_cal["fidelity"]["network"]["calibration"]["route_classes"] == 2
    assert s_default["sim_time_s"] > s_cm02["sim_time_s"], (s_default["sim_time_s"], s_cm02["sim_time_s"])
    p = edgetrain("run", DATA / "star.json", "--quiet", "--out", tmp / "r", "--set", "network.model=cm02",
                  "--set", f"network.calibration={cal}", status=2)
    one_line_error(p, "not with network.model cm02")
    check_band_contains_measured(tmp, cal)
    return cal


def check_band_contains_measured(tmp, cal):
    """The band a calibrated run prints contains the error crosscheck measures on it; where the
    calibration's measurements do not reach the run (a message above its largest size), no band."""
    out = tmp / "star-cc"
    edgetrain("crosscheck", DATA / "star.json", "--quiet", "--out", out, "--set", f"network.calibration={cal}")
    band = json.load(open(out / "summary.json"))["fidelity"]["network"]["expected_transfer_error"]
    x = json.load(open(out / "crosscheck.json"))
    assert band["lone_max_abs"] is not None and band["round_max_abs"] is not None, band
    rows = list(csv.DictReader(open(out / "crosscheck.csv")))
    for r in rows:
        if int(r["flows_on_busiest_link"]) == 1 and r["anomaly"] == "0":
            assert abs(float(r["error"])) <= band["lone_max_abs"], (r, band)
    assert x["round_error_to_queue_range"]["max_abs_error"] <= band["round_max_abs"], (x["rounds"], band)
    big = tmp / "star-big"
    edgetrain("run", DATA / "star.json", "--quiet", "--out", big, "--set", f"network.calibration={cal}",
              "--set", "model.hidden=[2048]", "--set", "stop.rounds=1")
    band = json.load(open(big / "summary.json"))["fidelity"]["network"]["expected_transfer_error"]
    assert band["lone_max_abs"] is None and "outside the sizes" in band["lone_unknown"], band


def check_bad_input(tmp, cal):
    p = edgetrain("calibrate", "tests/packet/data/fatpipe.xml", "-o", tmp / "x.json", "--quiet", status=2)
    one_line_error(p, "link fat: FATPIPE")
    p = edgetrain("calibrate", DATA / "star.xml", "-o", tmp / "x.json", "--server", "nowhere", status=2)
    one_line_error(p, "--server", "nowhere")
    p = edgetrain("calibrate", DATA / "star.xml", "-o", tmp / "x.json", "--max-bytes", 10, status=2)
    assert "--max-bytes: must be from 100000" in p.stderr
    bad = tmp / "bad.json"
    bad.write_text('{"format": "edgetrain calibration 2", "platform": "x", "fingerprint": "0", "model": {}}')
    p = edgetrain("run", DATA / "star.json", "--quiet", "--out", tmp / "r", "--set",
                  f"network.calibration={bad}", status=2)
    one_line_error(p, str(bad), "malformed")
    bad.write_text("not json")
    p = edgetrain("run", DATA / "star.json", "--quiet", "--out", tmp / "r", "--set",
                  f"network.calibration={bad}", status=2)
    one_line_error(p, "not valid JSON")
    p = edgetrain("run", "scenarios/quickstart.json", "--quiet", "--out", tmp / "r", "--set", "stop.rounds=1",
                  "--set", f"network.calibration={cal}", status=2)
    one_line_error(p, "was made for star.xml")
    # A report nested 100,000 deep crashed the parser's caller; a report that is not calibrate's.
    good = json.loads(Path(cal).read_text())
    text = json.dumps(good)
    deep = tmp / "deep.json"
    deep.write_text(text[:text.rindex("}")] + ', "x": ' + "[" * 100000 + "]" * 100000 + "}")
    p = edgetrain("validate", DATA / "star.json", "--set", f"network.calibration={deep}", status=2)
    one_line_error(p, "nesting deeper than 64 levels")
    good["report"] = "a string"
    bad.write_text(json.dumps(good))
    p = edgetrain("validate", DATA / "star.json", "--set", f"network.calibration={bad}", status=2)
    one_line_error(p, '"report" must hold what calibrate measured')
    # Platforms run and validate refuse in one line: calibrate refuses them too, before SimGrid aborts.
    p = edgetrain("calibrate", "tests/sim/data/routing-none.xml", "-o", tmp / "x.json", "--quiet", status=2)
    one_line_error(p, 'routing="None"')
    vivaldi = tmp / "vivaldi-zone.xml"
    vivaldi.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n<platform version="4.1">\n'
        ' <zone id="top" routing="Vivaldi">\n'
        '  <peer id="server" speed="1Gf" bw_in="10Mbps" bw_out="10Mbps" coordinates="0 0 1"/>\n'
        '  <zone id="sub" routing="Full"><host id="dev" speed="1Gf" coordinates="1 1 1"/></zone>\n'
        ' </zone>\n</platform>\n')
    p = edgetrain("calibrate", vivaldi, "-o", tmp / "x.json", "--quiet", status=2)
    assert len(p.stderr.strip().splitlines()) == 1, p.stderr
    # Links packet-level TCP cannot carry: their route classes are left out and named (their routes take
    # the model fitted to every class, with no band); when no class is left, one line, not "transfer 0 ...
    # never ended".
    for attribute, value, needle in (("bandwidth", "1bps", "bit/s is below"), ("latency", "1000000s", "latency of")):
        slow = tmp / "slow.xml"
        xml = (DATA / "star.xml").read_text()
        old = 'id="a-link" bandwidth="2MBps" latency="10ms"'
        assert old in xml
        setting = 'bandwidth="2MBps"' if attribute == "bandwidth" else 'latency="10ms"'
        slow.write_text(xml.replace(old, old.replace(setting, f'{attribute}="{value}"')))
        out = tmp / "slow.json"
        edgetrain("calibrate", slow, "-o", out, "--quiet", "--max-bytes", 100000, "--server", "server")
        report = json.load(open(out))["report"]
        assert [s["example"] for s in report["skipped_classes"]] == ["dev-a -> server", "server -> dev-a"], report
        assert needle in report["skipped_classes"][0]["why"] and "a-link" in report["skipped_classes"][0]["why"]
        all_slow = tmp / "all-slow.xml"
        all_slow.write_text(xml.replace(old, old.replace(setting, f'{attribute}="{value}"'))
                            .replace('id="b-link" bandwidth="2MBps" latency="10ms"',
                                     f'id="b-link" {"bandwidth" if attribute == "bandwidth" else "latency"}="{value}" '
                                     + ('latency="10ms"' if attribute == "bandwidth" else 'bandwidth="2MBps"')))
        p = edgetrain("calibrate", all_slow, "-o", tmp / "x.json", "--quiet", "--max-bytes", 100000, status=2)
        one_line_error(p, needle)

with tempfile.TemporaryDirectory() as d:
    tmp = Path(d)
    check_crosscheck(tmp)
    cal = check_calibration(tmp)
    check_bad_input(tmp, cal)
print("crosscheck and calibrate: ok")

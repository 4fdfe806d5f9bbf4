#!/usr/bin/python3
"""Writes results/fidelity/README.md: the flow model against ns-3's packet-level TCP on every shipped
platform, before and after calibration, for CM02 and LV08; the quickstart's crosscheck; the compute
model's page (results/fidelity/compute.md, tools/docs/compute_fidelity.py) summarised; and the seeds at
their own settings (results/fidelity/seeds/, written by tools/adacomp/paper.py and tools/scadles/workers.py).

  --measure   runs `edgetrain calibrate` on each shipped platform and on the held-out platforms of
              results/fidelity/held-out/ (tools/docs/held_out_platforms.py), and `edgetrain crosscheck`
              on the quickstart (about half an hour), keeping what they wrote in results/fidelity/network/
  --check     renders the page from those files and fails when it differs from the one in the tree
              (the docs/fidelity-page test): the page cannot drift from its measurements

usage: tools/docs/fidelity_page.py [--measure] [--check] [--binary build/edgetrain]"""
import argparse
import concurrent.futures
import functools
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "results" / "fidelity"
NET = OUT / "network"
SEEDS = OUT / "seeds"
# Every shipped platform with the server its scenarios use.
PLATFORMS = [("platforms/quickstart.xml", "cloud"), ("platforms/adacomp16.xml", "ps"),
             ("platforms/gossip16.xml", "cloud"), ("platforms/scadles16.xml", "cloud"),
             ("platforms/fleets/factory.xml", "cloud"), ("platforms/fleets/home-iot.xml", "cloud"),
             ("platforms/fleets/phones.xml", "cloud")]
# Platforms nothing was fitted on (tools/docs/held_out_platforms.py writes them).
HELD_OUT = [("results/fidelity/held-out/lan.xml", "cloud"), ("results/fidelity/held-out/satellite.xml", "cloud"),
            ("results/fidelity/held-out/dsl.xml", "cloud"), ("results/fidelity/held-out/fleet3.xml", "cloud")]
# LV08 (SimGrid's default model): latency x 13.01, bandwidth x 0.97; a lone transfer in closed form.
LV08_LATENCY, LV08_BANDWIDTH, TCP_GAMMA = 13.01, 0.97, 4194304.0


def measure(binary):
    """Every calibration and the quickstart's crosschecks, two processes at a time (each is one thread)."""
    NET.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        jobs = [[binary, "calibrate", platform, "--server", server, "--quiet", "-o",
                 NET / f"{pathlib.Path(platform).stem}.calibration.json"] for platform, server in PLATFORMS + HELD_OUT]
        for model in ("tcp", "cm02"):
            jobs.append([binary, "crosscheck", "scenarios/quickstart.json", "--quiet", "--out", pathlib.Path(d) / model,
                         "--set", f"network.model={model}"])
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for job in pool.map(lambda j: subprocess.run(j, check=True, cwd=ROOT, stdout=subprocess.DEVNULL), jobs):
                print(" ".join(map(str, job.args[1:3])), "done", flush=True)
        for model in ("tcp", "cm02"):
            shutil.copy(pathlib.Path(d) / model / "crosscheck.json", NET / f"quickstart-{model}.crosscheck.json")


def pct(x):
    return "n/a" if x is None else f"{100 * x:+.0f}%"


def lv08_s(point, cls):
    one_way = sum(lat for _, lat in cls["links"])
    bottleneck = min(bw for bw, _ in cls["links"])
    rate = min(LV08_BANDWIDTH * bottleneck, TCP_GAMMA / (2 * one_way)) if one_way > 0 else LV08_BANDWIDTH * bottleneck
    return LV08_LATENCY * one_way + point["bytes"] / rate


@functools.lru_cache(maxsize=None)
def calibration(platform):
    """The calibration measured for a platform (results/fidelity/network/), read once per page."""
    return json.load(open(NET / f"{pathlib.Path(platform).stem}.calibration.json"))


def default_model_summary():
    """The default model's goals in measured words: lone transfers within 15% of ns-3, rounds never
    further from ns-3 than CM02 (issue 39)."""
    lone, within, rounds, worse, worst = 0, 0, 0, [], []
    for platform, _ in PLATFORMS + HELD_OUT:
        c = calibration(platform)
        for p in c["report"]["single"]:
            if p.get("reference_anomaly"):
                continue
            lone += 1
            within += abs(p["tcp_error"]) <= 0.15
            if abs(p["tcp_error"]) > 0.15:
                worst.append((abs(p["tcp_error"]), f"{platform} {p['class']} {size_label(p['bytes'])} "
                                                   f"{pct(p['tcp_error'])}"))
        for r in c["report"]["concurrent"]:
            rounds += 1
            if abs(r["tcp_error"]) > abs(r["flow_error"]) + 1e-9:
                worse.append(f"{platform} {size_label(r['bytes'])} {r['direction']}")
    worst.sort(reverse=True)
    text = (f"**The default model** (TCP model) is within 15% of ns-3 on {within} of {lone} lone transfers "
            f"({100 * within / lone:.0f}%)")
    text += (f"; the largest errors are where ns-3 lost packets at slow start's overshoot on fast paths, which it "
             f"does not emulate: {', '.join(w for _, w in worst[:4])}" if worst else "")
    text += f". On rounds it is never further from ns-3 than CM02" if not worse else (
        f". On rounds it is further from ns-3 than CM02 in {len(worse)} of {rounds}: {', '.join(worse)}")
    return text + f" ({rounds} rounds under the default queue)."


def size_label(b):
    return f"{b / 1e6:g} MB" if b >= 1e6 else f"{b / 1e3:g} KB"


def render():
    out = ["# Fidelity: edgetrain's times against packet-level TCP and published devices", "",
           "Written by `tools/docs/fidelity_page.py` from the measurements in `results/fidelity/network/` "
           "(`--measure` retakes them: `edgetrain calibrate` on every shipped platform, `edgetrain crosscheck` on "
           "the quickstart); the test `docs/fidelity-page` fails when this page differs from what they give. What "
           "each model is and when to trust it: [Fidelity](../../docs/explanation/fidelity.md).", "",
           "Errors are the model's time against ns-3's (TCP Cubic with PRR, initial window 10, Linux's 40 ms "
           "delayed ACK and RTO of at least srtt + 200 ms, 1,000-packet drop-tail queues): `model / ns-3 - 1`, so "
           "-40% means the model said 40% less time than TCP took. *Lone*: one transfer alone on its route, for "
           "every route class to and from the platform's server, 10 KB to 20 MB: the 11 fitted sizes, and sizes "
           "the fit never saw (4 checkpoints and 6 drawn at random between). *Rounds*: the first 40 devices "
           "sending 100 KB, 1 MB or 10 MB to the server at once, and the server to them, under four router queues "
           "(100 and 1,000 packets, one BDP, fq_codel); *outside range* is a model's distance outside TCP's range "
           "across them (0 inside). *TCP model*: the default network model (`network.model: tcp`), the slow-start "
           "model at Linux's parameters with nothing fitted (src/packet/tcp_model.hpp), timed by SimGrid as a run "
           "times it. *Calibrated*: the same model with the rate `edgetrain calibrate` fitted per route class. "
           "LV08 (SimGrid's own default, latency x 13.01, bandwidth x 0.97) is computed in closed form for lone "
           "transfers. *Reference anomalies*: transfers that spent "
           "over half their time in ns-3's timeout back-off, left out of the lone figures.", "",
           "## Lone transfers and rounds, by platform", "",
           "Held-out platforms (marked) were written after every model parameter was fixed "
           "(`tools/docs/held_out_platforms.py`): a LAN of 1 Gbit/s and 0.2 ms, a 600 ms satellite path, "
           "asymmetric DSL, and a 3-level fleet of 40 devices.", "",
           "| platform | route classes | lone, CM02 | lone, LV08 | lone, TCP model | lone, calibrated (fitted / never seen) | rounds, CM02 (outside range) | rounds, TCP model (outside range) | rounds, calibrated (outside range) | anomalies |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    per_size = {}
    for platform, _ in PLATFORMS + HELD_OUT:
        name = pathlib.Path(platform).stem
        c = calibration(platform)
        classes = {cls["example"]: cls for cls in c["classes"]}
        pts = [p for p in c["report"]["single"] if not p.get("reference_anomaly")]

        def span(key, points):
            vals = [p[key] for p in points]
            return f"{pct(min(vals))} to {pct(max(vals))}"

        for p in pts:
            p["lv08_error"] = lv08_s(p, classes[p["class"]]) / p["packet_s"] - 1
            if name == "quickstart":
                per_size.setdefault(p["bytes"], []).append(p)
        fitted = max(abs(p["calibrated_error"]) for p in pts if not p["held_out"])
        held = max(abs(p["calibrated_error"]) for p in pts if p["held_out"])
        rounds = c["report"]["concurrent"]

        def rounds_cell(key):
            if not rounds:
                return "n/a"
            worst = max(abs(r[f"{key}_error_to_queue_range"]) for r in rounds)
            return f"{span(f'{key}_error', rounds)} ({100 * worst:.0f}%)"

        label = f"{platform}{' (held out)' if (platform, 'cloud') in HELD_OUT else ''}"
        out.append(f"| {label} | {len(c['classes'])} | {span('flow_error', pts)} | {span('lv08_error', pts)} | "
                   f"{span('tcp_error', pts)} | within {100 * fitted:.1f}% / {100 * held:.1f}% | "
                   f"{rounds_cell('flow')} | {rounds_cell('tcp')} | {rounds_cell('calibrated')} | "
                   f"{len(c['report'].get('anomalies', []))} |")
    out += ["", default_model_summary(), "", "## Lone transfers by message size (quickstart, every route class)", "",
            "| size | ns-3 time | CM02 | LV08 | TCP model | calibrated |", "|---|---|---|---|---|---|"]
    for size in sorted(per_size):
        pts = per_size[size]
        times = [p["packet_s"] for p in pts]

        def rng(key):
            vals = [p[key] for p in pts]
            return pct(min(vals)) if len(vals) == 1 else f"{pct(min(vals))} to {pct(max(vals))}"

        kind = pts[0].get("kind", "fitted")
        out.append(f"| {size_label(size)}{'' if kind == 'fitted' else f' ({kind})'} | "
                   f"{min(times):.3g} to {max(times):.3g} s | {rng('flow_error')} | {rng('lv08_error')} | "
                   f"{rng('tcp_error')} | {rng('calibrated_error')} |")
    c = calibration("platforms/quickstart.xml")
    out += ["", "## Rounds: the quickstart's 8 devices at once", "",
            "| round | ns-3 time (finish spread) | TCP's range across queues | CM02 (spread) | TCP model (spread) | calibrated (spread) |",
            "|---|---|---|---|---|---|"]
    for r in c["report"]["concurrent"]:
        cell = lambda m, e=None: f"{r[m]['round_s']:.3g} s ({r[m]['spread_s']:.3g} s)" + ("" if e is None else f", {pct(r[e])}")
        lo, hi = r["queue_range_s"]
        out.append(f"| {size_label(r['bytes'])} {r['direction']} | {cell('packet')} | {lo:.3g} to {hi:.3g} s | "
                   f"{cell('flow', 'flow_error')} | {cell('tcp', 'tcp_error')} | {cell('calibrated', 'calibrated_error')} |")
    anomalies = []
    for platform, _ in PLATFORMS + HELD_OUT:
        c = calibration(platform)
        anomalies += [f"{platform}: {a['experiment']}, {a['source']} -> {a['destination']}, {size_label(a['bytes'])}: "
                      f"{a['packet_s']:.4g} s, {a['timeouts']} timeouts, {a['backoff_s']:.3g} s waiting for them"
                      for a in c["report"].get("anomalies", [])]
    out += ["", f"**Reference anomalies**: {len(anomalies)} transfers over every platform"
            + (":" if anomalies else " (none spent over half its time in timeout back-off).")]
    if anomalies:
        out += [""] + [f"- {line}" for line in anomalies]
    out += ["", "## A whole run: the quickstart crosschecked (5 rounds)", "",
            "`edgetrain crosscheck scenarios/quickstart.json`, under the default model and with "
            "`--set network.model=cm02`: every transfer replayed in causal order under the four router queues.", "",
            "| flow model | transfers | anomalies | transfer time, median (range) | round time, median | rounds inside TCP's range (outside by at most) | last transfer end |",
            "|---|---|---|---|---|---|---|"]
    for model, label in (("tcp", "TCP model (default)"), ("cm02", "CM02")):
        x = json.load(open(NET / f"quickstart-{model}.crosscheck.json"))
        t, rr, end = x["transfer_error"], x["round_error"], x["last_transfer_end"]
        out.append(f"| {label} | {x['transfers']} | {len(x['reference_anomalies'])} | {pct(t['median_error'])} "
                   f"({pct(t['min_error'])} to {pct(t['max_error'])}) | {pct(rr['median_error'])} | "
                   f"{x['rounds_inside_queue_range']} of {len(x['rounds'])} "
                   f"({100 * x['round_error_to_queue_range']['max_abs_error']:.0f}%) | {pct(end['error'])} "
                   f"({end['flow_s']:.3g} s against {end['packet_s']:.3g} s) |")
    out.append("")
    compute = (OUT / "compute.md").read_text().splitlines()
    start = compute.index("## Summary") + 1
    end = next((i for i in range(start, len(compute)) if compute[i].startswith("## ")), len(compute))
    out += ["## Compute: the roofline by layer kind against FLOPs / speed", "",
            "From [compute.md](compute.md) (every published step, fitted and held out, with its source):", ""]
    out += "\n".join(compute[start:end]).strip("\n").splitlines()
    out += ["", "## The seeds at their own settings", ""] + seeds()
    return "\n".join(out).rstrip("\n") + "\n"


def seeds():
    """The seeds' figures beside the papers', from results/fidelity/seeds/ (tools/adacomp/paper.py,
    tools/scadles/workers.py)."""
    a = json.load(open(SEEDS / "adacomp.json"))
    out = [f"AdaComp (Hardy et al. 2017) reports {a['paper']['reduction']}x fewer bytes at equal accuracy with "
           f"{a['paper']['workers']} workers on {a['paper']['dataset']}. Its setting here (its {a['params']:,}-parameter "
           f"CNN, batch 10, c = 1%, Fashion-MNIST; [the page](../adacomp/paper.md), `tools/adacomp/paper.py`), bytes "
           f"sent to the server until {a['target_accuracy']} test accuracy against plain async SGD:", "",
           "| workers | scenario | pushes | reduction vs plain async | best accuracy | staleness mean |",
           "|---|---|---|---|---|---|"]
    for r in a["rows"]:
        red = "baseline" if r["variant"] == "async-plain" else (
            "not reached" if r["reduction"] is None else f"{r['reduction']}x")
        if r["variant"] == "async-plain" and r["bytes_to_target"] is None:
            red = "baseline not reached"
        out.append(f"| {r['workers']} | {r['variant']} | {r['pushes']:,} | {red} | {r['best_accuracy']:.4f} | "
                   f"{r['staleness_mean']} |")
    c = json.load(open(SEEDS / "scadles.json"))
    out += ["", f"ScaDLES (Tyagi & Swany 2022) reports convergence up to {c['paper']['speedup']}x faster than "
            "synchronous SGD. At its rate sets here ([the page](../scadles/workers.md), `tools/scadles/workers.py`), "
            f"time to {c['target_accuracy']} test accuracy:", "",
            "| rate set | devices | slowest stream (samples/s) | speed-up |", "|---|---|---|---|"]
    for r in c["rows"]:
        out.append(f"| {r['rate_set']} | {r['devices']} | {r['slowest_rate']} | "
                   + ("not reached" if r["speedup"] is None else f"{r['speedup']:.2f}x") + " |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--binary", default=str(ROOT / "build" / "edgetrain"))
    a = ap.parse_args()
    if a.measure:
        measure(a.binary)
    page = render()
    target = OUT / "README.md"
    if a.check:
        if not target.exists() or target.read_text() != page:
            sys.exit(f"{target.relative_to(ROOT)} differs from its measurements: run tools/docs/fidelity_page.py")
        print("fidelity page: up to date")
        return
    target.write_text(page)
    print(f"wrote {target.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

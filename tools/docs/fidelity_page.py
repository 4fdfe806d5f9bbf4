#!/usr/bin/python3
"""Writes results/fidelity/README.md: the flow model against ns-3's packet-level TCP on every shipped
platform, before and after calibration, for CM02 and LV08; the quickstart's crosscheck; the compute
model's page (results/fidelity/compute.md, tools/docs/compute_fidelity.py) summarised; and the seeds at
their own settings (results/fidelity/seeds/, written by tools/adacomp/paper.py and tools/scadles/workers.py).

  --measure   runs `edgetrain calibrate` on each shipped platform and `edgetrain crosscheck` on the
              quickstart (about 10 minutes), keeping what they wrote in results/fidelity/network/
  --check     renders the page from those files and fails when it differs from the one in the tree
              (the docs/fidelity-page test): the page cannot drift from its measurements

usage: tools/docs/fidelity_page.py [--measure] [--check] [--binary build/edgetrain]"""
import argparse
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
# LV08 (SimGrid's default model): latency x 13.01, bandwidth x 0.97; a lone transfer in closed form.
LV08_LATENCY, LV08_BANDWIDTH, TCP_GAMMA = 13.01, 0.97, 4194304.0


def measure(binary):
    NET.mkdir(parents=True, exist_ok=True)
    for platform, server in PLATFORMS:
        name = pathlib.Path(platform).stem
        print(f"calibrating {platform}", flush=True)
        subprocess.run([binary, "calibrate", platform, "--server", server, "--quiet", "-o",
                        NET / f"{name}.calibration.json"], check=True, cwd=ROOT)
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([binary, "crosscheck", "scenarios/quickstart.json", "--quiet", "--out", d], check=True,
                       cwd=ROOT, stdout=subprocess.DEVNULL)
        shutil.copy(pathlib.Path(d) / "crosscheck.json", NET / "quickstart.crosscheck.json")


def pct(x):
    return "n/a" if x is None else f"{100 * x:+.0f}%"


def lv08_s(point, cls):
    one_way = sum(lat for _, lat in cls["links"])
    bottleneck = min(bw for bw, _ in cls["links"])
    rate = min(LV08_BANDWIDTH * bottleneck, TCP_GAMMA / (2 * one_way)) if one_way > 0 else LV08_BANDWIDTH * bottleneck
    return LV08_LATENCY * one_way + point["bytes"] / rate


def size_label(b):
    return f"{b / 1e6:g} MB" if b >= 1e6 else f"{b / 1e3:g} KB"


def render():
    out = ["# Fidelity: edgetrain's times against packet-level TCP and published devices", "",
           "Written by `tools/docs/fidelity_page.py` from the measurements in `results/fidelity/network/` "
           "(`--measure` retakes them: `edgetrain calibrate` on every shipped platform, `edgetrain crosscheck` on "
           "the quickstart); the test `docs/fidelity-page` fails when this page differs from what they give. What "
           "each model is and when to trust it: [Fidelity](../../docs/explanation/fidelity.md).", "",
           "Errors are the model's time against ns-3's (TCP Cubic, initial window 10): `model / ns-3 - 1`, so "
           "-40% means the model said 40% less time than TCP took. *Lone*: one transfer alone on its route, for "
           "every route class to and from the platform's server, sizes 12.8 KB to 14 MB (fitted sizes and sizes "
           "kept out of the fit). *Rounds*: the first 16 devices sending 100 KB, 1 MB or 10 MB to the server at "
           "once, and the server to them. LV08 (SimGrid's default, latency x 13.01, bandwidth x 0.97) is computed "
           "in closed form for lone transfers.", "",
           "## Lone transfers and rounds, by platform", "",
           "| platform | route classes | lone, CM02 | lone, LV08 | lone, calibrated (fitted / held out) | rounds, CM02 | rounds, calibrated |",
           "|---|---|---|---|---|---|---|"]
    per_size = {}
    for platform, _ in PLATFORMS:
        name = pathlib.Path(platform).stem
        c = json.load(open(NET / f"{name}.calibration.json"))
        classes = {cls["example"]: cls for cls in c["classes"]}
        pts = [p for p in c["report"]["single"] if 12800 <= p["bytes"] <= 1.4e7]

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
        r_cm = span("flow_error", rounds) if rounds else "n/a"
        r_cal = span("calibrated_error", rounds) if rounds else "n/a"
        out.append(f"| {platform} | {len(c['classes'])} | {span('flow_error', pts)} | {span('lv08_error', pts)} | "
                   f"within {100 * fitted:.1f}% / {100 * held:.1f}% | {r_cm} | {r_cal} |")
    out += ["", "## Lone transfers by message size (quickstart, every route class)", "",
            "| size | ns-3 time | CM02 | LV08 | calibrated |", "|---|---|---|---|---|"]
    for size in sorted(per_size):
        pts = per_size[size]
        times = [p["packet_s"] for p in pts]

        def rng(key):
            vals = [p[key] for p in pts]
            return pct(min(vals)) if len(vals) == 1 else f"{pct(min(vals))} to {pct(max(vals))}"

        out.append(f"| {size_label(size)}{' (held out)' if pts[0]['held_out'] else ''} | "
                   f"{min(times):.3g} to {max(times):.3g} s | {rng('flow_error')} | {rng('lv08_error')} | "
                   f"{rng('calibrated_error')} |")
    c = json.load(open(NET / "quickstart.calibration.json"))
    out += ["", "## Rounds: the quickstart's 8 devices at once", "",
            "| round | ns-3 time (finish spread) | CM02 (spread) | calibrated (spread) |", "|---|---|---|---|"]
    for r in c["report"]["concurrent"]:
        cell = lambda m, e=None: f"{r[m]['round_s']:.3g} s ({r[m]['spread_s']:.3g} s)" + ("" if e is None else f", {pct(r[e])}")
        out.append(f"| {size_label(r['bytes'])} {r['direction']} | {cell('packet')} | {cell('flow', 'flow_error')} | "
                   f"{cell('calibrated', 'calibrated_error')} |")
    stalls = []
    for platform, _ in PLATFORMS:
        c = json.load(open(NET / f"{pathlib.Path(platform).stem}.calibration.json"))
        stalls += [f"{platform}: {size_label(r['bytes'])} {r['direction']} ({r['flows']} flows) ends at "
                   f"{r['packet']['round_s']:.4g} s in ns-3, {r['calibrated']['round_s']:.3g} s calibrated"
                   for r in c["report"]["concurrent"] if r["packet"]["round_s"] > 20 * r["calibrated"]["round_s"]]
    if stalls:
        out += ["", "**Where the reference itself is in doubt.** In these rounds one of ns-3's flows stalled in "
                "retransmission back-off after heavy losses at the server's link (its finish spread is the stall), "
                "so their errors above say more about ns-3 3.37's loss recovery than about the flow model; they are "
                "left in the tables as measured:", ""] + [f"- {line}" for line in stalls]
    x = json.load(open(NET / "quickstart.crosscheck.json"))
    t, rr = x["transfer_error"], x["round_error"]
    out += ["", "## A whole run: the quickstart crosschecked (5 rounds, CM02 uncalibrated)", "",
            f"`edgetrain crosscheck scenarios/quickstart.json`: {x['transfers']} transfers replayed in causal order. "
            f"Transfer times: median {pct(t['median_error'])}, from {pct(t['min_error'])} to {pct(t['max_error'])}; "
            f"round times: median {pct(rr['median_error'])}; the last transfer ends "
            f"{pct(x['last_transfer_end']['error'])} off ({x['last_transfer_end']['flow_s']:.3g} s flow-level, "
            f"{x['last_transfer_end']['packet_s']:.3g} s packet-level).", ""]
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

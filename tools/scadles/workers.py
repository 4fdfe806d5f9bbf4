#!/usr/bin/python3
"""ScaDLES against synchronous SGD at the paper's rate sets, with 4, 16 and 64 devices: runs
scenarios/scadles/{s1,s10}-{sync,scadles}.json on platforms/fleets/scadles.json (scadles16.xml as a fleet
description) with platform.devices set to each count, then writes results/scadles/workers.md and
results/fidelity/seeds/scadles.json (the figures the fidelity page sets beside the paper's).

The global batch at which the learning rate is training.lr follows the fleet (64 per device), as the
scenarios' 1024 does for 16 devices. Usage: tools/scadles/workers.py [--report-only]
"""
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, load_run, time_to_accuracy, write_text  # noqa: E402

import subprocess  # noqa: E402

FLEET = os.path.join(ROOT, "platforms", "fleets", "scadles.json")
RUNS = os.path.join(ROOT, "results", "scadles", "workers-runs")
PAGE = os.path.join(ROOT, "results", "scadles", "workers.md")
SEEDS = os.path.join(ROOT, "results", "fidelity", "seeds", "scadles.json")
COUNTS = (4, 16, 64)
RATES = ("s1", "s10")
MODES = ("sync", "scadles")
TARGET = 0.85  # the scenarios' stop.target_accuracy
SIM_CAP_S = 20000  # the scenarios stop at 2,400 s; a slow stream among 64 devices makes sync rounds last 20 s
PAPER = 3.29  # Tyagi & Swany 2022: ScaDLES converges up to 3.29x faster than conventional distributed SGD


def name(rate, mode, n):
    return f"{rate}-{mode}-n{n}"


def run(rate, mode, n):
    out = os.path.join(RUNS, name(rate, mode, n))
    args = [os.path.join(ROOT, "build", "edgetrain"), "run", os.path.join(ROOT, "scenarios", "scadles", f"{rate}-{mode}.json"),
            "--quiet", "--out", out, "--set", "platform=" + json.dumps({"file": FLEET, "devices": n}),
            "--set", 'devices={"role": "device"}', "--set", "training.base_global_batch=null",
            "--set", f"stop.sim_time_s={SIM_CAP_S}"]
    with open(out + ".log", "w") as log:
        if subprocess.call(args, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT) != 0:
            print(f"workers: {name(rate, mode, n)} failed (see {out}.log)")


def main():
    os.makedirs(RUNS, exist_ok=True)
    plan = [(r, m, n) for r in RATES for n in COUNTS for m in MODES]
    if "--report-only" not in sys.argv[1:]:
        with ThreadPoolExecutor(max_workers=2) as pool:
            list(pool.map(lambda p: run(*p), plan))
    rows = []
    for rate in RATES:
        for n in COUNTS:
            runs = {m: load_run(os.path.join(RUNS, name(rate, m, n))) for m in MODES}
            if not all(runs.values()):
                sys.exit(f"workers: the {rate.upper()} runs with {n} devices are missing")
            t = {m: time_to_accuracy(runs[m], TARGET) for m in MODES}
            rates = [float(d["stream_rate_samples_per_s"]) for d in runs["sync"]["devices"]]
            rows.append({"rate_set": rate.upper(), "devices": n, "slowest_rate": round(min(rates), 2),
                         "sync_s": t["sync"], "scadles_s": t["scadles"],
                         "speedup": round(t["sync"] / t["scadles"], 2) if t["sync"] and t["scadles"] else None,
                         "sync_rounds": runs["sync"]["summary"]["rounds"],
                         "scadles_rounds": runs["scadles"]["summary"]["rounds"]})
    out = ["# ScaDLES with the number of devices", "",
           "Produced by `/usr/bin/python3 tools/scadles/workers.py` (12 runs, two at a time). The S1 and S10",
           "scenarios of `scenarios/scadles/` (the paper's rate sets; Fashion-MNIST, 784-128-10 MLP, sync with",
           "64 samples per device per step against ScaDLES with a 1 s window) on `platforms/fleets/scadles.json`",
           "(`scadles16.xml` as a fleet description) with 4, 16 and 64 devices; the learning rate is",
           "`training.lr` at a global batch of 64 per device. Time to target is the first evaluation (every 5",
           f"simulated seconds) at or above {TARGET} test accuracy; runs stop there, or at {SIM_CAP_S:,} simulated seconds.", "",
           "| rate set | devices | slowest stream (samples/s) | sync: time to target (s) | scadles: time to target (s) "
           "| speed-up | sync rounds | scadles rounds |",
           "|---|---|---|---|---|---|---|---|"]
    fmt = lambda v: "not reached" if v is None else f"{v:,.0f}"  # noqa: E731
    for r in rows:
        speedup = "-" if r["speedup"] is None else f"{r['speedup']:.2f}x"
        out.append(f"| {r['rate_set']} | {r['devices']} | {r['slowest_rate']} | {fmt(r['sync_s'])} | {fmt(r['scadles_s'])} "
                   f"| {speedup} | {r['sync_rounds']:,} | {r['scadles_rounds']:,} |")
    out += ["", "## What changes with the number of devices", "",
            "A synchronous round waits for the slowest stream to deliver its 64 samples, and the more devices draw a",
            "rate, the slower the slowest can be (the third column); a ScaDLES round lasts one window whatever the",
            "rates. Speed-ups by device count: " + speedup_text(rows) + f". The paper reports up to {PAPER}x.", ""]
    write_text(PAGE, "\n".join(out))
    write_text(SEEDS, json.dumps({"paper": {"speedup": PAPER}, "target_accuracy": TARGET, "rows": rows}, indent=1) + "\n")


def speedup_text(rows):
    parts = []
    for rate in RATES:
        cells = [("-" if r["speedup"] is None else f"{r['speedup']:.2f}x") + f" ({r['devices']})"
                 for r in rows if r["rate_set"] == rate.upper()]
        parts.append(f"{rate.upper()} " + ", ".join(cells))
    return "; ".join(parts)


if __name__ == "__main__":
    main()

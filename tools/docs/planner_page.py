#!/usr/bin/python3
"""Writes the figures of the capacity-planning how-to (docs/how-to/capacity-planning.md) into its
`<!-- figures:planner-* -->` blocks: what `validate` says of the depot-vans scenario, and the
planner's sweep (sweeps/planner-uplink.json) as a table of round times per option and uplink with the
90 s verdict and each run's limiting link. Timing-only runs: the figures are the code's, on any CPU.
With --check it rewrites nothing and fails (exit 1, with a diff) when a block no longer matches; the
test docs/planner runs it that way.

Usage: tools/docs/planner_page.py [--check] [--binary PATH] [NAME...]   (NAME: validate, sweep)
"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, figures_main  # noqa: E402

SCENARIO = "scenarios/planner/depot-vans.json"
SWEEP = "sweeps/planner-uplink.json"
TARGET_S = 90
# validate's lines a planner reads first, in the order it prints them.
VALIDATE_LINES = ("uplink ", "downlink ", "messages:", "a round:", "privacy:")


def runner(binary, scratch):
    def run(*args):
        done = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"tools/docs/planner_page.py: edgetrain {' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stderr}")
        return done.stdout
    run.scratch = scratch
    return run


def validate(run):
    sets = ["--set", "compression.kind=int8"]
    out = run("validate", SCENARIO, *sets)
    lines = [line for line in out.splitlines() if line.startswith(VALIDATE_LINES)]
    return (f"```\n$ build/edgetrain validate {SCENARIO} {' '.join(sets)}\n...\n" + "\n".join(lines) + "\n...\n```\n")


def sweep(run):
    out = os.path.join(run.scratch, "planner-uplink")
    run("sweep", SWEEP, "--out", out, "--jobs", "2")
    with open(os.path.join(out, "sweep.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    uplinks = list(dict.fromkeys(r["platform.link_classes.lte.up"] for r in rows))
    labels = list(dict.fromkeys(r["label"] for r in rows))
    cell = {(r["label"], r["platform.link_classes.lte.up"]): r for r in rows}

    def limiting(r):
        with open(os.path.join(out, r["folder"], "summary.json"), encoding="utf-8") as f:
            critical = json.load(f)["bottleneck"]["critical_path"]
        return "depot backhaul" if critical["link"].startswith("depot-") else "van LTE uplink"

    table = ["| option | " + " | ".join(f"LTE up {u}" for u in uplinks) + " |",
             "|---|" + "---|" * len(uplinks)]
    for label in labels:
        cells = []
        for u in uplinks:
            r = cell[(label, u)]
            seconds = float(r["round_max_s"])
            verdict = "meets" if seconds <= TARGET_S else "**misses**"
            cells.append(f"{seconds:.1f} s, {verdict} ({limiting(r)})")
        table.append(f"| {label} | " + " | ".join(cells) + " |")
    dense = [float(cell[(labels[0], u)]["round_max_s"]) for u in uplinks[1:]]
    return ("```sh\n"
            f"build/edgetrain sweep {SWEEP}\n"
            f"build/edgetrain plot results/planner-uplink --y round_max_s --target 'round_max_s<={TARGET_S}'\n"
            f"build/edgetrain report results/planner-uplink --y round_max_s --target 'round_max_s<={TARGET_S}'\n"
            "```\n\n"
            "The longest round of each option (`round_max_s`), its verdict against the 90 s target and the link "
            "that limited it (the report's limiting link, the critical path's):\n\n" + "\n".join(table) + "\n\n"
            f"Dense fp32 misses at every uplink: from {uplinks[1]} on its rounds stay between {min(dense):.1f} and "
            f"{max(dense):.1f} s because the depot's shared 100 Mbit/s backhaul, not the vans' LTE, limits them; a "
            "faster LTE uplink buys nothing there, a smaller message does.\n")


BLOCKS = {"validate": validate, "sweep": sweep}

if __name__ == "__main__":
    sys.exit(figures_main(sys.argv[1:], BLOCKS, runner, "tools/docs/planner_page.py", prefix="planner-"))

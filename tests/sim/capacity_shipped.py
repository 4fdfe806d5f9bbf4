#!/usr/bin/env python3
"""The capacity invariant on everything edgetrain ships: every scenario (scenarios/**/*.json), every
teaching exercise with its variants (docs/tutorials/teaching.md's commands) and every fleet (platforms/fleets,
one timing-only sync round of every device; plan-100k, which is plan-10k with 100 sites instead of
20, is left to plan-10k's scenario: SimGrid 3.32 takes 25 s to load its platform, a name lookup per
element through its zones, and the suite has 10 minutes), each run timing-only and shortened (stop.rounds 2) so that the whole check stays cheap.
Each run must exit 0 (3 for a run that diverges is impossible timing-only) and its summary.json must
report no link that carried more than its bandwidth (sim/capacity_check.hpp).

Usage: tests/sim/capacity_shipped.py EDGETRAIN scenarios|others [WORK_DIR]
(scenarios: scenarios/**; others: the teaching variants and the fleets; two halves of similar cost
that ctest runs side by side)."""
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHORT = ["--set", "training.compute=timing-only", "--set", "stop.rounds=2", "--set", "stop.target_accuracy=null"]


def teaching_variants():
    """The `build/edgetrain run scenarios/teaching/...` commands of docs/tutorials/teaching.md, without --out."""
    runs = []
    with open(os.path.join(ROOT, "docs/tutorials/teaching.md"), encoding="utf-8") as f:
        for line in f:
            if not line.startswith("build/edgetrain run scenarios/teaching/"):
                continue
            words = shlex.split(line)[2:]
            if "--out" in words:
                at = words.index("--out")
                del words[at:at + 2]
            if len(words) > 1:  # the plain scenario is run with the others
                runs.append(("teaching variant: " + " ".join(words), [os.path.join(ROOT, words[0])] + words[1:]))
    return runs


def shipped_scenarios():
    """scenarios/**/*.json but the files tools/byo/prepare.py writes under scenarios/byo/data/."""
    return sorted(p for p in glob.glob(os.path.join(ROOT, "scenarios/**/*.json"), recursive=True)
                  if os.sep + "data" + os.sep not in os.path.relpath(p, ROOT))


def fleet_scenarios(work):
    runs = []
    named = set()  # the fleets a shipped scenario names as its platform
    for p in shipped_scenarios():
        with open(p, encoding="utf-8") as f:
            named.update(re.findall(r"platforms/fleets/([\w.-]+)\.json", f.read()))
    for fleet in sorted(glob.glob(os.path.join(ROOT, "platforms/fleets/*.json"))):
        with open(fleet, encoding="utf-8") as f:
            spec = json.load(f)
        name = os.path.basename(fleet)[:-5]
        if name in named or name == "plan-100k":
            continue  # a shipped scenario runs it (plan-10k and adacomp-paper; plan-10k has plan-100k's structure)
        devices = {"role": "device"}
        scenario = {"name": "capacity-" + name, "seed": 1, "platform": fleet,
                    "server": spec.get("cloud", {}).get("host", "cloud"), "devices": devices,
                    "dataset": {"name": "fashion-mnist"}, "model": {"name": "mobilenet_v2"},
                    "training": {"compute": "timing-only", "mode": "sync", "batch_size": 32},
                    "stop": {"rounds": 1}}
        path = os.path.join(work, "fleet-" + name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(scenario, f)
        runs.append(("fleet " + name, [path]))
    return runs


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("scenarios", "others"):
        sys.exit(__doc__)
    binary = sys.argv[1]
    work = sys.argv[3] if len(sys.argv) > 3 else tempfile.mkdtemp(prefix="edgetrain-capacity-")
    os.makedirs(work, exist_ok=True)
    if sys.argv[2] == "scenarios":
        runs = [("scenario " + os.path.relpath(p, ROOT), [p])
                for p in shipped_scenarios()]
    else:
        runs = teaching_variants() + fleet_scenarios(work)
    failures = []
    for k, (label, args) in enumerate(runs):
        out = os.path.join(work, "run-%d" % k)
        cmd = [binary, "run"] + args + SHORT + ["--quiet", "--out", out]
        start = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode == 2 and "timing_ratio: required" in p.stderr:
            # A data-dependent message size: two real rounds instead (small models, cheap).
            cmd = [binary, "run"] + args + SHORT[2:] + ["--quiet", "--out", out]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        took = time.monotonic() - start
        if p.returncode != 0:
            failures.append("%s: exit %d: %s" % (label, p.returncode, p.stderr.strip().splitlines()[-1:]))
            continue
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
            capacity = json.load(f)["capacity"]
        if capacity["violations"]:
            failures.append("%s: %s" % (label, json.dumps(capacity["violations"])))
        print("%-80s %5.1f s  peak %.4f of %s" % (label[:80], took, capacity["peak_utilization"], capacity["peak_link"]))
    for f in failures:
        print("FAILED " + f)
    print("%d runs, %d failed" % (len(runs), len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

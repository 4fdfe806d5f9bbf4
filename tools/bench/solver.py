#!/usr/bin/python3
"""The cost of SimGrid's Full network solver (edgetrain's default) against Lazy (SimGrid 3.32's
default, which shares bandwidth wrongly: docs/explanation/time-model.md) on the benchmark
fleets: the generated cluster fleets of 10,000 devices x 100 rounds and 100,000 x 10
(tools/bench/fleet_platform.py, timing-only, as in results/bench/README.md section 4) and the
plan-100k fleet description (every device, timing-only MobileNetV2 sync rounds, as scenarios/plan-10k.json
on the larger fleet). Each run is a whole process under GNU time, one after the other; the page gives
medians, the load average at each start, the simulated time each solver computed and what the capacity
check found. Writes results/bench/solver.md. Never asserted in tests.

Usage: tools/bench/solver.py [--runs N] [--build DIR] [--work DIR] [--only NAME...]
  (NAME: fleet-10000, fleet-100000, plan-100k)"""
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from bench import machine  # the CPU, cores, commit and date of the page

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "tools", "bench")
PAGE = os.path.join(ROOT, "results", "bench", "solver.md")
PYTHON = "/usr/bin/python3"
SOLVERS = ("Full", "Lazy")


def option(argv, name, default):
    if name in argv:
        i = argv.index(name)
        value = argv[i + 1]
        del argv[i:i + 2]
        return value
    return default


def cases(work, only):
    """(name, scenario path, rounds, what it is) of each benchmark fleet."""
    out = []
    for devices, rounds in ((10000, 100), (100000, 10)):
        name = f"fleet-{devices}"
        if only and name not in only:
            continue
        path = subprocess.run([PYTHON, os.path.join(BENCH, "fleet_platform.py"), str(devices), "--out", work,
                               "--rounds", str(rounds), "--samples-per-device", "32"],
                              check=True, capture_output=True, text=True).stdout.strip()
        out.append((name, path, rounds, f"generated cluster fleet, {devices:,} devices, MLP sync"))
    if not only or "plan-100k" in only:
        scenario = {"name": "plan-100k", "seed": 1, "platform": os.path.join(ROOT, "platforms/fleets/plan-100k.json"),
                    "server": "cloud", "devices": {"role": "device"}, "dataset": {"name": "fashion-mnist"},
                    "model": {"name": "mobilenet_v2"},
                    "training": {"compute": "timing-only", "mode": "sync", "batch_size": 32}, "stop": {"rounds": 2}}
        path = os.path.join(work, "plan-100k.json")
        with open(path, "w") as f:
            json.dump(scenario, f)
        out.append(("plan-100k", path, 2, "platforms/fleets/plan-100k.json, 100,000 devices, MobileNetV2 sync"))
    return out


def timed(binary, scenario, rounds, solver, work, k):
    out = os.path.join(work, f"run-{k}")
    report = os.path.join(work, f"time-{k}.txt")
    cmd = [binary, "run", scenario, "--quiet", "--out", out, "--set", f"stop.rounds={rounds}",
           "--set", "training.compute=timing-only", f"--cfg=network/optim:{solver}"]
    load = os.getloadavg()[0]
    print("solver bench: " + " ".join(cmd), flush=True)
    r = subprocess.run(["/usr/bin/time", "-v", "-o", report] + cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"solver bench: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    text = open(report).read()
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return {"wall_s": int(wall[1] or 0) * 3600 + int(wall[2]) * 60 + float(wall[3]),
            "rss_bytes": int(rss[1]) * 1024, "load": load, "sim_time_s": summary["sim_time_s"],
            "violations": len(summary["capacity"]["violations"]),
            "peak_utilization": summary["capacity"]["peak_utilization"],
            "command": " ".join(cmd).replace(work, "$W").replace(ROOT + "/", "")}


def page(m, results, runs):
    lines = ["# Network solver: Full against Lazy", "",
             "Written by `tools/bench/solver.py` (never asserted in tests). edgetrain runs SimGrid's `Full` network "
             "solver by default because 3.32's `Lazy` lets a link carry up to twice its bandwidth (see "
             "docs/explanation/time-model.md); this page measures what that costs on the benchmark fleets. Each run "
             "is a whole timing-only process under `/usr/bin/time -v`, the runs one after the other, "
             f"{runs} per solver and fleet; wall times are medians.", "",
             "## Machine", "",
             f"- CPU: {m['cpu']}, {m['cores']} cores; edgetrain commit {m['commit']}; measured {m['date']}",
             f"- load average (1 min) at the starts: {min(r['load'] for c in results for s in SOLVERS for r in c['runs'][s]):.1f} "
             f"to {max(r['load'] for c in results for s in SOLVERS for r in c['runs'][s]):.1f}. The machine is shared "
             "(other engineers' builds and tests ran meanwhile): a load above the core count slows every run, so "
             "compare the two solvers within a row, whose runs alternate, rather than with the other pages.", "",
             "## Results", "",
             "| fleet | rounds | Full (median) | Lazy (median) | Full / Lazy | simulated time Full | simulated time Lazy "
             "| Lazy: links over capacity | peak RSS Full |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in results:
        full, lazy = c["runs"]["Full"], c["runs"]["Lazy"]
        fw, lw = statistics.median(r["wall_s"] for r in full), statistics.median(r["wall_s"] for r in lazy)
        lines.append(f"| {c['name']} ({c['about']}) | {c['rounds']} | {fw:.1f} s | {lw:.1f} s | {fw / lw:.2f}x "
                     f"| {full[0]['sim_time_s']:.3f} s | {lazy[0]['sim_time_s']:.3f} s "
                     f"| {lazy[0]['violations']} (peak {lazy[0]['peak_utilization']:.3f} of a bandwidth) "
                     f"| {max(r['rss_bytes'] for r in full) / 1e9:.2f} GB |")
    lines += ["", "Every run's wall time (s), in the order run:", ""]
    for c in results:
        for s in SOLVERS:
            lines.append(f"- {c['name']}, {s}: " + ", ".join(f"{r['wall_s']:.1f} (load {r['load']:.1f})"
                                                          for r in c["runs"][s]))
    lines += ["", "Commands (`$W` is a scratch folder where `/usr/bin/python3 tools/bench/fleet_platform.py N --out $W "
              "--rounds R --samples-per-device 32` wrote the generated fleets; plan-100k's scenario is "
              "scenarios/plan-10k.json on platforms/fleets/plan-100k.json):", "", "```"]
    for c in results:
        for s in SOLVERS:
            lines.append(c["runs"][s][0]["command"])
    lines += ["```", ""]
    return "\n".join(lines)


def main():
    argv = sys.argv[1:]
    runs = int(option(argv, "--runs", "3"))
    build = option(argv, "--build", os.path.join(ROOT, "build"))
    work = option(argv, "--work", None) or tempfile.mkdtemp(prefix="edgetrain-solver-")
    only = option(argv, "--only", None)
    only = only.split(",") if only else []
    binary = os.path.join(build, "edgetrain")
    m = machine()
    results, k = [], 0
    for name, scenario, rounds, about in cases(work, only):
        c = {"name": name, "about": about, "rounds": rounds, "runs": {s: [] for s in SOLVERS}}
        for _ in range(runs):
            for s in SOLVERS:  # alternated, so that a change of load hits both
                c["runs"][s].append(timed(binary, scenario, rounds, s, work, k))
                k += 1
        results.append(c)
    with open(PAGE, "w") as f:
        f.write(page(m, results, runs))
    with open(os.path.join(work, "solver.json"), "w") as f:
        json.dump({"machine": m, "results": results}, f, indent=1)
    print(f"solver bench: wrote {os.path.relpath(PAGE, ROOT)}")


if __name__ == "__main__":
    main()

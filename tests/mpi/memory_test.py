#!/usr/bin/python3
"""The memory estimate against the measured peak (the largest resident set, getrusage), on real training:
within 10% either way in one process and on each MPI rank (rank 0 simulates, the workers hold the devices'
training). Scenarios: benchmark 3's CNN (16 devices, Fashion-MNIST; also on a twentieth of the training
split), the quickstart, the smallest run (synthetic data, where the program's own libraries are nearly
all of it), and a 4.3-million parameter MLP with two threads (where each thread's network counts). Each rank
runs under a small Python parent that prints its child's peak; rank 0's EDGETRAIN_MPI_STATS file gives each
rank's estimate.

Usage: memory_test.py EDGETRAIN. Exit 77: mpirun is not installed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none"]
BAND = 0.10
# A rank's peak: its child's largest resident set (kB on Linux), printed with the rank's number.
PEAK = ("import os, resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
        "print('rank', os.environ.get('OMPI_COMM_WORLD_RANK', '0'), 'peak',"
        " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, flush=True)")

CNN = ["tools/bench/scenarios/cnn16-sync.json", "--set", "stop.rounds=4"]
BIG_MLP = ["tests/sim/data/two-devices.json", "--set", "model.hidden=[2048,2048]", "--set", "training.momentum=0.9",
           "--set", "stop.rounds=3"]
# name: (scenario and --set words, threads)
SCENARIOS = {
    "cnn16": (CNN, 1),
    "big-mlp-2-threads": (BIG_MLP, 2),
    # Fashion-MNIST's training split cut to a twentieth (read as it comes, not whole).
    "cnn16-3000-samples": (CNN + ["--set", "dataset.train_samples=3000"], 1),
    "quickstart": (["scenarios/quickstart.json", "--set", "stop.rounds=4"], 1),
    "smallest": (CNN[:1] + ["--set", "stop.rounds=1", "--set", "dataset.name=synthetic", "--set",
                            "dataset.train_samples=160", "--set", "model.name=mlp", "--set", "eval.test_samples=10"], 1),
}


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def estimate(edgetrain, args):
    out = subprocess.run([edgetrain, "validate", *args], capture_output=True, text=True, cwd=ROOT).stdout
    found = re.search(r"memory: needs about ([\d.]+) (kB|MB|GB)", out)
    if not found:
        fail("validate printed no memory estimate:\n" + out)
    return float(found[1]) * {"kB": 1e3, "MB": 1e6, "GB": 1e9}[found[2]]


def peaks(command, ranks=None, env=None):
    wrapped = [sys.executable, "-c", PEAK, *command]
    run = subprocess.run((MPIRUN + ["-np", str(ranks)] if ranks else []) + wrapped, capture_output=True, text=True,
                         cwd=ROOT, env=env or ENV)
    if run.returncode != 0:
        fail(f"{' '.join(command)} ended with {run.returncode}:\n{run.stderr}")
    found = {int(r): float(p) for r, p in re.findall(r"rank (\d+) peak (\d+)", run.stdout)}
    if len(found) != (ranks or 1):
        fail("not every rank printed its peak:\n" + run.stdout)
    return found


def check(label, estimated, peak):
    ratio = estimated / peak
    print(f"{label}: estimate {estimated / 1e6:.1f} MB, peak {peak / 1e6:.1f} MB, ratio {ratio:.3f}")
    return abs(ratio - 1) <= BAND


def main():
    edgetrain = sys.argv[1]
    if shutil.which("mpirun") is None:
        print("SKIP: mpirun is not installed (tools/setup.sh installs openmpi-bin)")
        sys.exit(77)
    ok = True
    with tempfile.TemporaryDirectory() as work:
        for name, (scenario, threads) in SCENARIOS.items():
            out = os.path.join(work, name)
            args = scenario + ["--threads", str(threads)]
            alone = peaks([edgetrain, "run", *args, "--out", out + "-alone", "--quiet"])[0]
            ok &= check(f"{name}, one process", estimate(edgetrain, args), alone)
            if name != "cnn16":
                continue
            stats = os.path.join(work, "stats.json")
            ranked = peaks([edgetrain, "run", *args, "--out", out + "-mpi", "--quiet"], ranks=3,
                           env=dict(ENV, EDGETRAIN_MPI_STATS=stats))
            with open(stats) as f:
                estimates = json.load(f)["memory_estimate_bytes"]
            if len(estimates) != 3:
                fail(f"{len(estimates)} estimates for 3 ranks")
            for rank, peak in sorted(ranked.items()):
                ok &= check(f"{name}, MPI rank {rank} of 3", estimates[rank], peak)
    if not ok:
        fail(f"an estimate is more than {BAND:.0%} from its peak")


main()

#!/usr/bin/python3
"""`mpirun -np N edgetrain run` against the plain run with --threads 1: every output file byte-identical
(summary.json and the other JSON files compared without their wall-time fields), for 2 and 3 ranks and 1
and 2 threads per rank (each case one of the four, every pair in several cases: the MPI set stays under a
minute), in each mode, topology and compressor, with DP, secure aggregation, SCAFFOLD and
splitfed; and the ways a run under MPI ends: a refusal and bad input (one line from rank 0, exit 2), a worker
that cannot set up (one line, exit 1), a timing-only run (the workers idle), SIGTERM (no hang).

Usage: runs_test.py EDGETRAIN CASE   (CASE: one of CASES, or `list`). Exit 77: mpirun is not installed."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "sim" / "data"
# Open MPI refuses root without these; --oversubscribe: more ranks than this machine's cores.
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
MPIRUN = ["mpirun", "--oversubscribe", "--bind-to", "none"]

TOPK_DOWN = "--set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.2}'"
CHURN = "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":0.05,\"mttr_s\":0.02}]}'"
# name: (scenario, --set words, [(ranks, threads per rank)])
CASES = {
    "sync-downlink": ("eight-devices.json", "--set training.momentum=0.9 --set compression.kind=powersgd " + TOPK_DOWN,
                      [(3, 2)]),
    "async-adacomp": ("eight-devices.json", "--set training.mode=async --set training.staleness_lr=adacomp "
                      "--set training.max_staleness=6 --set 'compression={\"kind\":\"adacomp\",\"ratio\":0.1}' "
                      "--set stop.rounds=60", [(2, 1)]),
    "local-sgd-churn": ("eight-devices.json", "--set training.mode=local-sgd --set training.local_steps=3 " + CHURN +
                        " --set training.round_timeout_s=0.05 --set compression.kind=qsgd --set stop.rounds=null "
                        "--set stop.sim_time_s=1", [(2, 2)]),
    "scadles-topk": ("eight-devices.json", "--set training.mode=scadles --set 'stream={\"rate\":{\"dist\":\"uniform\","
                     "\"mean\":40,\"spread\":30},\"arrivals\":\"poisson\",\"buffer\":{\"policy\":\"persistence\"}}' "
                     "--set 'training.injection={\"alpha\":0.25,\"beta\":0.25}' --set training.batch_min=8 "
                     "--set compression.kind=topk --set compression.ratio=0.1 --set 'compression.adaptive={\"delta\":0.5}' "
                     "--set stop.sim_time_s=2 --set stop.rounds=null", [(3, 1)]),
    "hierarchical": ("hier.json", "--set 'devices=[\"dev-c\",\"dev-d\"]' --set 'topology={\"kind\":\"hierarchical\","
                     "\"sites\":{\"site-1\":[\"dev-c\"],\"site-2\":{\"hosts\":\"dev-d\"}}}'", [(3, 1)]),
    "gossip": ("gossip4.json", "--set compression.kind=topk --set compression.ratio=0.2", [(2, 2)]),
    "dp-secagg": ("eight-devices.json", "--set 'privacy.dp={}' --set 'privacy.secure_aggregation={}'", [(3, 2)]),
    "scaffold-qsgd": ("eight-devices.json", "--set training.mode=local-sgd --set training.local_steps=2 --set strategy.kind=scaffold "
                      "--set compression.kind=qsgd", [(3, 1)]),
    "splitfed": ("eight-devices.json", "--set training.mode=local-sgd --set strategy.kind=splitfed --set stop.rounds=4",
                 [(2, 1)]),
    "timing-only": ("eight-devices.json", "--set training.compute=timing-only", [(2, 1)]),
    # A population on host slots: 2,000 devices, a few per round, learners made on first use on their workers.
    "population": ("../../../scenarios/population/train-1m.json", "--set platform.devices=2000 "
                   "--set training.selection.per_round=20 --set stop.rounds=3", [(3, 1)]),
}


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def without_wall_time(value):
    if isinstance(value, dict):
        return {k: without_wall_time(v) for k, v in value.items() if "wall" not in k}
    if isinstance(value, list):
        return [without_wall_time(v) for v in value]
    return value


def compare(plain, other, label):
    names = sorted(p.relative_to(plain) for p in plain.rglob("*") if p.is_file())
    if sorted(p.relative_to(other) for p in other.rglob("*") if p.is_file()) != names:
        fail(f"{label}: other files than the plain run's")
    for name in names:
        a, b = (plain / name).read_bytes(), (other / name).read_bytes()
        if name.suffix == ".json":
            a, b = without_wall_time(json.loads(a)), without_wall_time(json.loads(b))
        if a != b:
            fail(f"{label}: {name} differs from the plain run's")
    return len(names)


def run(command, timeout=120):
    return subprocess.run(command, shell=True, env=ENV, capture_output=True, text=True, timeout=timeout)


def same_results(binary, work, name):
    scenario, sets, configurations = CASES[name]
    base = f"{binary} run {DATA / scenario} --quiet {sets}"
    plain = work / "plain"
    r = run(f"{base} --threads 1 --out {plain}")
    if r.returncode != 0:
        fail(f"plain run: {r.stderr}")
    for ranks, threads in configurations:
        out = work / f"np{ranks}-t{threads}"
        start = time.monotonic()
        r = run(f"{' '.join(MPIRUN)} -np {ranks} {base} --threads {threads} --out {out}")
        if r.returncode != 0:
            fail(f"-np {ranks} --threads {threads}: exit {r.returncode}: {r.stdout}{r.stderr}")
        files = compare(plain, out, f"-np {ranks} --threads {threads}")
        print(f"{name}: -np {ranks} --threads {threads}: {files} files identical ({time.monotonic() - start:.1f} s)")
    summary = json.loads((plain / "summary.json").read_text())
    if name != "timing-only" and summary.get("status") not in ("completed", "target_reached"):
        fail(f"the plain run ended {summary.get('status')}")


def one_line(r, label, status, starts):
    lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
    ours = [l for l in lines if l.startswith("edgetrain:")]
    if r.returncode != status or len(ours) != 1 or not ours[0].startswith(starts):
        fail(f"{label}: expected exit {status} and one line starting {starts!r}, got exit {r.returncode}:\n" +
             "\n".join(lines))
    if any("backtrace" in l.lower() or "MPI_ABORT" in l for l in lines):
        fail(f"{label}: an MPI abort:\n" + "\n".join(lines))


def endings(binary, work):
    mpi2 = " ".join(MPIRUN) + " -np 2"
    scenario = DATA / "eight-devices.json"
    r = run(f"{mpi2} {binary} run {scenario} --quiet --out {work / 'r'} --set training.mode=local-sgd --set strategy.kind=fedper")
    one_line(r, "fedper", 2, "edgetrain: strategy.kind fedper is refused under MPI")
    r = run(f"{mpi2} {binary} run {scenario} --quiet --out {work / 'b'} --set training.lr=-1")
    one_line(r, "bad input", 2, "edgetrain: ")
    r = run(f"{mpi2} {binary} run {work / 'missing.json'} --quiet")
    one_line(r, "missing scenario", 2, "edgetrain: ")
    # Rank 1 given another data set (Open MPI's MPMD form): it cannot set up, rank 0 says so and fails.
    r = run(f"mpirun --oversubscribe -np 1 {binary} run {scenario} --quiet --out {work / 'w'} : "
            f"-np 1 {binary} run {scenario} --quiet --set dataset.name=idx --set dataset.path={work / 'nowhere'}")
    one_line(r, "worker set-up", 1, "edgetrain: learning worker (MPI rank 1) could not set up")
    # SIGTERM to mpirun in the middle of a run: every rank ends, nothing hangs.
    process = subprocess.Popen(f"exec {mpi2} {binary} run {scenario} --quiet --out {work / 't'} --set stop.rounds=100000",
                               shell=True, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)
    process.send_signal(signal.SIGTERM)
    try:
        process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        fail("SIGTERM: mpirun still running 30 s later")
    print("endings: refusal, bad input, worker set-up failure and SIGTERM end as expected")


def main():
    binary, name = sys.argv[1], sys.argv[2]
    if name == "list":
        print("\n".join(list(CASES) + ["endings"]))
        return
    if not shutil.which("mpirun"):
        print("SKIP: mpirun is not installed (apt-get install openmpi-bin libopenmpi-dev)")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="edgetrain-mpi-") as tmp:
        if name == "endings":
            endings(binary, Path(tmp))
        else:
            same_results(binary, Path(tmp), name)


if __name__ == "__main__":
    main()

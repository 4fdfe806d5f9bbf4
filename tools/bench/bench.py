#!/usr/bin/python3
"""The benchmarks of issue 10, as whole processes, with public tools: hyperfine for medians of
commands run side by side in one invocation, GNU time (`/usr/bin/time -v`) for peak RSS. Writes
results/bench/README.md (and the `bench` figures block of docs/reference/benchmarks.md) from the measured
figures.

  overhead  edgetrain run, real training, --threads 1, against tools/bench/bare_loop.cpp (plain
            LibTorch C++ loop doing the same SGD steps on the same data, no simulation)
  python    edgetrain --threads 1 and --threads 2 against tools/bench/bare_loop.py (plain PyTorch)
  parallel  16-device CNN sync run, --threads 2 over --threads 1
  scale     timing-only runs of generated cluster fleets (tools/bench/fleet_platform.py): wall time
            per round and peak RSS against the device count
  memory    peak RSS of real-training fleets (mlp, sync and async) against the device count
  fleet     `edgetrain fleet` generating the shipped planning fleets (10,000 and 100,000 devices), and
            `edgetrain validate` of a scenario on each (generation, SimGrid load, every route checked)
  sweep     `edgetrain sweep` of 8 real quickstart runs with --jobs 1 and --jobs 2
  mpi       `mpirun -np N edgetrain run` of the 16-device CNN (steps per second against ranks), the transfer
            overhead per step by model size (rank 0's EDGETRAIN_MPI_STATS), the projected speed-up on N nodes
  activities  all-active timing-only fleets with devices as activities (the default there) and, for the
            bytes per device, as actors (EDGETRAIN_DEVICE_ACTORS=1): wall time and peak RSS, and the peak RSS
            difference between two fleet sizes over the device difference
  policies  Python policies against the built-in ones: a round of 100 real CNN updates aggregated by
            scenarios/python/fedavg.py and by the built-in FedAvg; a timing-only round of a million-device
            population selected by scenarios/python/uniform.py and by the built-in kinds

Per-step figures are marginal: (median at the larger step count - median at the smaller) / (step
difference), which cancels start-up and data loading in every program alike.

Usage: bench.py [--quick | --smoke | --report-only] [--out DIR] [--build DIR] [--no-readme] [NAME...]
  --quick   fewer repeats and smaller sizes (a few minutes)
  --smoke   the smallest piece of each benchmark (seconds; the bench/smoke test): writes the page
            to --out and checks it is well formed, without judging any figure
  --report-only  measure nothing: rewrite the page from figures.json
Figures of benchmarks not run this time are kept from results/bench/figures.json."""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from results_lib import ROOT, figure_block  # noqa: E402

BENCH = os.path.join(ROOT, "tools", "bench")
BUILD = os.path.join(ROOT, "build")  # --build DIR: where edgetrain and bench_bare_loop were built
EDGETRAIN = os.path.join(BUILD, "edgetrain")
BARE_CPP = os.path.join(BUILD, "bench_bare_loop")
PLAIN = os.path.join(BUILD, "bench_plain_rounds")
PYTHON = "/usr/bin/python3"
DATA = "/usr/share/datasets/fashion-mnist"
NAMES = ["overhead", "python", "parallel", "scale", "memory", "fleet", "sweep", "fidelity", "population", "plain",
         "mpi", "activities", "policies"]

# Sizes per profile: (full, quick, smoke).
PROFILES = {
    "full": {"runs": 5, "mlp_rounds": (50, 250), "cnn_rounds": (8, 60), "train_samples": 0,
             "scale": [(1000, 100), (10000, 100), (100000, 10)], "memory": [100, 1000, 5000],
             "fleets": ["plan-10k", "plan-100k"], "sweep_runs": 3, "sweep_rounds": None,
             "fidelity": ("scenarios/quickstart.json", None, "platforms/quickstart.xml", "cloud", None, 1),
             "population": [("plan-1m", 1000000, 1000, 100), ("plan-1m", 1000000, 1000, 1),
                            ("plan-1m", 100000, 1000, 100), ("plan-1m", 10000000, 1000, 10),
                            ("train-1m", 1000000, 100, 100)],
             "plain": (10000, 20), "mpi": {"rounds": (10, 40), "ranks": [2, 3], "overhead_rounds": 40},
             # (devices, rounds, time limit s, devices per cluster zone) all active; the bytes per device from two
             # 1-round fleets, per path. SimGrid 3.32's loader looks every new link's name up zone by zone: a
             # million devices go in zones of 10,000 (a thousand zones of 1,000 take it a quarter of an hour).
             "activities": {"runs": [(262144, 10, 900, 1000), (1000000, 1, 1200, 10000), (10000, 100, 300, 1000)],
                            "per_device": {"activities": (131072, 262144), "actors": (20000, 40000)}},
             # (devices, rounds lo, hi): the CNN fleet's and the population's round counts.
             "policies": {"aggregate": (100, 2, 8), "select": (1000000, 2, 42)}},
    "quick": {"runs": 2, "mlp_rounds": (10, 50), "cnn_rounds": (5, 20), "train_samples": 0,
              "scale": [(1000, 10), (10000, 10)], "memory": [100, 1000],
              "fleets": ["plan-10k"], "sweep_runs": 1, "sweep_rounds": 20,
              "fidelity": ("scenarios/quickstart.json", 2, "platforms/quickstart.xml", "cloud", 1000000, 1),
              "population": [("plan-1m", 100000, 100, 10), ("plan-1m", 100000, 100, 1),
                             ("train-1m", 100000, 100, 10)],
              "plain": (1000, 20), "mpi": {"rounds": (5, 20), "ranks": [2, 3], "overhead_rounds": 20},
              "activities": {"runs": [(10000, 100, 300, 1000)],
                             "per_device": {"activities": (10000, 20000), "actors": (10000, 20000)}},
              "policies": {"aggregate": (100, 1, 4), "select": (1000000, 2, 12)}},
    "smoke": {"runs": 1, "mlp_rounds": (1, 2), "cnn_rounds": (1, 2), "train_samples": 1000,
              "scale": [(50, 2)], "memory": [20, 40], "fleets": ["home-iot"], "sweep_runs": 1, "sweep_rounds": 2,
              "fidelity": ("tests/packet/data/star.json", 1, "tests/packet/data/star.xml", "server", 100000, 1),
              "population": [("plan-1m", 2000, 20, 2), ("train-1m", 2000, 20, 2)], "plain": (50, 2),
              "mpi": {"rounds": (1, 2), "ranks": [2], "overhead_rounds": 2},
              "activities": {"runs": [(100, 2, 60, 1000)], "per_device": {"activities": (50, 100), "actors": (50, 100)}},
              "policies": {"aggregate": (4, 1, 2), "select": (2000, 1, 2)}},
}
# When a scale run is stopped (s): well above its goal, as the machine's load varies.
SCALE_LIMIT_S = {10000: 120, 100000: 600}
SCALE_GOALS = "10,000 devices x 100 rounds < 30 s, < 2 GB; 100,000 x 10 < 60 s, < 6 GB"
# Timing-only fleets declare a synthetic data set of one batch per device (Fashion-MNIST's 60,000 samples
# leave devices of a 100,000-device fleet without any); timing-only runs take only its size.
SCALE_DATA = ("--samples-per-device", "32")
MEMORY_LIMIT_S = 240  # a memory run stopped there still reports its peak RSS so far
# Open MPI's launcher on this machine: as root it wants both variables; more ranks than cores.
MPIRUN = ["env", "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "mpirun", "--oversubscribe",
          "--bind-to", "none"]
# The transfer overhead by model size: one device (no step waits behind another's on its worker), one worker
# rank: (label, scenario, --set values).
MPI_MODELS = [("mlp 784-128-10", "mlp8-sync.json", ['devices=["pi-1"]']),
              ("cnn", "cnn16-sync.json", ['devices=["dev-01"]']),
              ("mlp 784-2048-2048-10", "mlp8-sync.json", ['devices=["pi-1"]', "model.hidden=[2048,2048]"])]


WORK = "$W"  # how commands name the scratch folder on the page


def sh(cmd):
    return " ".join(cmd)


def shown(cmd, work):
    """A command as the page shows it: paths relative to the repository, the scratch folder as $W."""
    text = sh(cmd).replace(work, WORK).replace(ROOT + "/", "")
    return re.sub(r"--out \S+", f"--out {WORK}/run", text)


class Bench:
    def __init__(self, profile, work):
        self.p = PROFILES[profile]
        self.profile = profile
        self.work = work
        help_text = subprocess.run([EDGETRAIN, "run", "--help"], capture_output=True, text=True).stdout
        self.threads = "--threads" in help_text  # until the option exists, runs leave it out
        self.timing_only = None  # decided on the first scale scenario
        self.outs = 0

    # --- commands -------------------------------------------------------------------------------

    def out_dir(self):
        self.outs += 1
        return os.path.join(self.work, f"out-{self.outs}")

    def edgetrain(self, scenario, rounds, threads=None, sets=()):
        cmd = [EDGETRAIN, "run", scenario, "--quiet", "--out", self.out_dir(), "--set", f"stop.rounds={rounds}"]
        if self.p["train_samples"]:
            cmd += ["--set", f"dataset.train_samples={self.p['train_samples']}"]
        for s in sets:
            cmd += ["--set", s]
        if threads is not None and self.threads:
            cmd += ["--threads", str(threads)]
        return cmd

    def bare(self, program, model, steps):
        cmd = [BARE_CPP] if program == "cpp" else [PYTHON, os.path.join(BENCH, "bare_loop.py")]
        cmd += ["--data", DATA, "--model", model, "--steps", str(steps), "--batch", "32", "--threads", "1"]
        if self.p["train_samples"]:
            cmd += ["--train-samples", str(self.p["train_samples"])]
        return cmd

    # --- measurement ----------------------------------------------------------------------------

    def hyperfine(self, named):
        """Medians (s) of the named commands, run in one hyperfine invocation."""
        export = os.path.join(self.work, f"hyperfine-{self.outs}.json")
        self.outs += 1
        cmd = ["hyperfine", "-N", "--style", "basic", "--runs", str(self.p["runs"]), "--export-json", export]
        if self.profile == "full":
            cmd += ["--warmup", "1"]
        for name, c in named:
            cmd += ["-n", name, sh(c)]
        print("bench: " + " | ".join(n for n, _ in named), flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if self.profile == "smoke" else None)
        with open(export) as f:
            return {r["command"]: r["median"] for r in json.load(f)["results"]}

    def timed(self, cmd, limit_s=None):
        """One run under GNU time: exit status, wall s, peak RSS bytes, last stderr line."""
        report = os.path.join(self.work, f"time-{self.outs}.txt")
        self.outs += 1
        # timeout inside GNU time: the peak RSS it reports includes the reaped command's.
        full = ["/usr/bin/time", "-v", "-o", report] + (["timeout", "-k", "10", str(limit_s)] if limit_s else []) + cmd
        print("bench: " + sh(cmd), flush=True)
        r = subprocess.run(full, capture_output=True, text=True)
        text = open(report).read() if os.path.exists(report) else ""
        wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
        rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
        seconds = (int(wall[1] or 0) * 3600 + int(wall[2]) * 60 + float(wall[3])) if wall else None
        err = [line for line in r.stderr.splitlines() if line.strip() and not line.startswith("\t")]
        if r.returncode != 0 and self.profile == "smoke":  # the smoke test checks that every command works
            raise SystemExit(f"bench: {sh(cmd)} exited with {r.returncode}: {r.stderr.strip()[-300:]}")
        if limit_s and r.returncode in (124, 137):  # timeout stopped it (137: killed 10 s after it asked)
            err.append(f"stopped after the {limit_s} s limit")
        return {"status": r.returncode, "wall_s": seconds, "rss_bytes": int(rss[1]) * 1024 if rss else None,
                "stderr": err[-1] if err and r.returncode else "", "command": shown(cmd, self.work)}

    # --- benchmarks -----------------------------------------------------------------------------

    def steps(self, want_cpp, want_python):
        """Benchmarks 1 and 2: edgetrain (8 devices, sync mlp) and the bare loops at two step counts."""
        scenario = os.path.join(BENCH, "scenarios", "mlp8-sync.json")
        lo, hi = self.p["mlp_rounds"]
        named = []
        for r in (hi, lo):
            named.append((f"edgetrain-t1-{r}", self.edgetrain(scenario, r, threads=1)))
            if want_python:
                named.append((f"edgetrain-t2-{r}", self.edgetrain(scenario, r, threads=2)))
            if want_cpp:
                named.append((f"cpp-{r}", self.bare("cpp", "mlp", 8 * r)))
            if want_python:
                named.append((f"python-{r}", self.bare("python", "mlp", 8 * r)))
        return {"rounds": [lo, hi], "steps": [8 * lo, 8 * hi], "medians": self.hyperfine(named),
                "commands": {n: shown(c, self.work) for n, c in named}}

    def parallel(self):
        scenario = os.path.join(BENCH, "scenarios", "cnn16-sync.json")
        lo, hi = self.p["cnn_rounds"]
        named = [(f"edgetrain-t{t}-{r}", self.edgetrain(scenario, r, threads=t)) for r in (hi, lo) for t in (1, 2)]
        return {"rounds": [lo, hi], "steps": [16 * lo, 16 * hi], "medians": self.hyperfine(named),
                "commands": {n: shown(c, self.work) for n, c in named}}

    def fleet(self, devices, rounds, mode="sync", extra=()):
        out = subprocess.run([PYTHON, os.path.join(BENCH, "fleet_platform.py"), str(devices), "--out", self.work,
                              "--rounds", str(rounds), "--mode", mode, *extra], check=True, capture_output=True,
                             text=True)
        return out.stdout.strip()

    def scale(self):
        rows = []
        for devices, rounds in self.p["scale"]:
            scenario = self.fleet(devices, rounds, extra=SCALE_DATA)
            if self.timing_only is None:
                probe = subprocess.run([EDGETRAIN, "validate", scenario, "--set", "training.compute=timing-only"],
                                       capture_output=True, text=True)
                self.timing_only = probe.returncode == 0 or "training.compute" not in probe.stderr
            row = {"devices": devices, "rounds": rounds}
            if self.timing_only:
                limit = SCALE_LIMIT_S.get(devices, 600)
                row["run"] = self.timed(self.edgetrain(scenario, rounds, sets=["training.compute=timing-only"]), limit)
                if row["run"]["status"] == 0:  # the set-up cost, from a 1-round run (not after a stopped run)
                    row["one_round"] = self.timed(self.edgetrain(scenario, 1, sets=["training.compute=timing-only"]),
                                                  limit)
            else:
                row["validate"] = self.timed([EDGETRAIN, "validate", scenario])
                if devices == self.p["scale"][0][0]:  # the smallest fleet also trains for real, one round
                    row["real_one_round"] = self.timed(self.edgetrain(scenario, 1))
            rows.append(row)
        return {"timing_only": self.timing_only, "rows": rows}

    def memory(self):
        rows = []
        for mode in ("sync", "async"):
            for devices in self.p["memory"]:
                # async counts applied pushes: one per device (every device has pulled the model by then).
                rounds = 3 if mode == "sync" else devices
                scenario = self.fleet(devices, rounds, mode)
                rows.append({"mode": mode, "devices": devices, "rounds": rounds,
                             "run": self.timed(self.edgetrain(scenario, rounds), MEMORY_LIMIT_S)})
        return {"rows": rows}

    def fleets(self):
        rows = []
        for name in self.p["fleets"]:
            description = os.path.join(ROOT, "platforms", "fleets", name + ".json")
            generate = [EDGETRAIN, "fleet", description, "-o", os.path.join(self.work, name + ".xml")]
            with open(description) as f:
                devices = json.loads(re.sub(r"//[^\n]*", "", f.read())).get("devices")
            # A timing-only scenario of the whole fleet: the run generates the platform from the description.
            scenario = os.path.join(self.work, name + "-scenario.json")
            with open(scenario, "w") as f:
                json.dump({"name": name, "platform": description, "server": "cloud", "devices": {"role": "device"},
                           "dataset": {"name": "synthetic", "train_samples": 32 * (devices or 1000)},
                           "model": {"name": "mlp"}, "training": {"compute": "timing-only"},
                           "stop": {"rounds": 1}}, f)
            rows.append({"fleet": name, "devices": devices, "generate": self.hyperfine([(name, generate)])[name],
                         "generate_command": shown(generate, self.work),
                         "validate": self.timed([EDGETRAIN, "validate", scenario])})
        return {"rows": rows}

    def population(self):
        """Populations on host slots: a scenario of scenarios/population at a population size, devices per
        round and rounds; the run's wall time and peak RSS, and validate's memory estimate beside it."""
        rows = []
        for name, devices, per_round, rounds in self.p["population"]:
            scenario = os.path.join(ROOT, "scenarios", "population", name + ".json")
            sets = [f"platform.devices={devices}", f"training.selection.per_round={per_round}", f"stop.rounds={rounds}"]
            check = subprocess.run([EDGETRAIN, "validate", scenario] + [a for s in sets for a in ("--set", s)],
                                   capture_output=True, text=True)
            estimate = re.search(r"memory: needs about ([\d.]+) (bytes|kB|MB|GB|TB)", check.stdout)
            scale = {"bytes": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
            rows.append({"scenario": name, "devices": devices, "per_round": per_round, "rounds": rounds,
                         "estimate_bytes": float(estimate[1]) * scale[estimate[2]] if estimate else None,
                         "run": self.timed(self.edgetrain(scenario, rounds, sets=sets[:2]), 600)})
        return {"rows": rows}

    def plain(self):
        """edgetrain timing-only beside the obvious plain SimGrid program (tools/bench/plain_rounds.cpp) doing
        the same rounds on the same platform: the model's and the update's bytes and the update's FLOPs as
        `edgetrain validate` gives them; medians of both, and each one's simulated end from one more run."""
        devices, rounds = self.p["plain"]
        scenario = self.fleet(devices, rounds, extra=SCALE_DATA)
        sets = ["training.compute=timing-only"]
        check = subprocess.run([EDGETRAIN, "validate", scenario, "--set", sets[0]], capture_output=True, text=True,
                               check=True).stdout
        message = int(re.search(r"dense message size: (\d+) bytes", check)[1])
        flops = int(re.search(r"(\d+) training FLOPs per sample", check)[1])
        with open(scenario) as f:
            s = json.load(f)
        platform = os.path.join(os.path.dirname(scenario), s["platform"])
        plain = [PLAIN, platform, s["server"], str(rounds), str(message), str(message),
                 str(flops * s["training"]["batch_size"])]
        edgetrain = self.edgetrain(scenario, rounds, sets=sets)
        # The plain program on edgetrain's allocator too, so the ratio shows what the allocator alone gives.
        allocator = re.search(r"=> (\S*libmimalloc\S*)", subprocess.run(["ldd", EDGETRAIN], capture_output=True,
                                                                         text=True, check=True).stdout)[1]
        plain_mimalloc = ["env", "LD_PRELOAD=" + allocator] + plain
        medians = self.hyperfine([("edgetrain", edgetrain), ("plain", plain), ("plain-mimalloc", plain_mimalloc)])
        print("bench: " + sh(plain), flush=True)
        plain_end = float(re.search(r"simulated ([\d.]+) s", subprocess.run(plain, capture_output=True, text=True,
                                                                             check=True).stdout)[1])
        subprocess.run(edgetrain, check=True, capture_output=True)
        with open(os.path.join(edgetrain[edgetrain.index("--out") + 1], "summary.json")) as f:
            edgetrain_end = json.load(f)["sim_time_s"]
        return {"devices": devices, "rounds": rounds, "medians": medians, "runs": self.p["runs"],
                "simulated": {"edgetrain": edgetrain_end, "plain": plain_end},
                "commands": {"edgetrain": shown(edgetrain, self.work), "plain": shown(plain, self.work),
                             "plain-mimalloc": shown(plain_mimalloc, self.work)}}

    def mpi(self):
        """The 16-device CNN of benchmark 3 with --threads 1, plain and under mpirun at each rank count, and
        timing-only (rank 0's own share of a step: the simulation), at two round counts; then one run per model
        size with one worker rank and EDGETRAIN_MPI_STATS: rank 0's seconds in MPI beyond the worker's own
        waits for its steps, per step, against the worker's step."""
        p = self.p["mpi"]
        scenario = os.path.join(BENCH, "scenarios", "cnn16-sync.json")
        lo, hi = p["rounds"]
        named = []
        for r in (hi, lo):
            named.append((f"plain-{r}", self.edgetrain(scenario, r, threads=1)))
            named += [(f"np{n}-{r}", MPIRUN + ["-np", str(n)] + self.edgetrain(scenario, r, threads=1)) for n in p["ranks"]]
            named.append((f"timing-{r}", self.edgetrain(scenario, r, sets=["training.compute=timing-only"])))
        medians = self.hyperfine(named)
        overhead = []
        for label, name, sets in MPI_MODELS:
            stats = os.path.join(self.work, f"mpi-stats-{len(overhead)}.json")
            cmd = MPIRUN + ["-np", "2"] + self.edgetrain(os.path.join(BENCH, "scenarios", name), p["overhead_rounds"],
                                                         threads=1, sets=sets)
            print("bench: " + sh(cmd), flush=True)
            subprocess.run(["env", f"EDGETRAIN_MPI_STATS={stats}"] + cmd, check=True, capture_output=True)
            with open(stats) as f:
                overhead.append({"model": label, "stats": json.load(f), "command": shown(cmd, self.work)})
        return {"rounds": [lo, hi], "steps": [16 * lo, 16 * hi], "ranks": p["ranks"], "medians": medians,
                "commands": {n: shown(c, self.work) for n, c in named}, "overhead": overhead,
                "cores": os.cpu_count()}
    def activities(self):
        """All-active timing-only fleets (every device in every round) on the activity path, and the bytes each
        all-active device costs on either path: (peak RSS of the larger 1-round fleet - the smaller's) /
        (device difference)."""
        spec, sets = self.p["activities"], ["training.compute=timing-only"]
        rows = []
        for devices, rounds, limit, cluster in spec["runs"]:
            scenario = self.fleet(devices, rounds, extra=SCALE_DATA + ("--cluster-size", str(cluster)))
            rows.append({"devices": devices, "rounds": rounds, "limit_s": limit, "cluster_size": cluster,
                         "run": self.timed(self.edgetrain(scenario, rounds, sets=sets), limit)})
        per_device = {}
        for path, sizes in spec["per_device"].items():
            env = ["env", "EDGETRAIN_DEVICE_ACTORS=1"] if path == "actors" else []
            runs = [self.timed(env + self.edgetrain(self.fleet(n, 1, extra=SCALE_DATA), 1, sets=sets), 600)
                    for n in sizes]
            per_device[path] = {"devices": list(sizes), "runs": runs}
        return {"rows": rows, "per_device": per_device}

    def policies(self):
        """Python policies against the built-in ones, per round (marginal: the median at the larger round count
        minus the median at the smaller, over the round difference). Aggregation: a fleet of 100 devices, the
        CNN, one local step each (100 real updates a round), the built-in FedAvg against scenarios/python/fedavg.py
        (the same results, byte for byte). Selection: scenarios/population/plan-1m.json timing-only, 1,000 of the
        population a round among the available devices, built-in `available` against scenarios/python/uniform.py
        (the same candidates), with `random` (every device a candidate, no availability scan) beside them; the
        slots per site as `random` gets them by default, so every run loads the same platform."""
        p = self.p["policies"]
        devices, lo, hi = p["aggregate"]
        fleet = self.fleet(devices, hi)
        cnn = ["model.name=cnn", "training.mode=local-sgd", "training.local_steps=1"]
        python_fedavg = ["strategy.kind=python", f"strategy.python={ROOT}/scenarios/python/fedavg.py:FedAvg"]
        named = [(f"{n}-{r}", self.edgetrain(fleet, r, sets=cnn + extra))
                 for r in (hi, lo) for n, extra in (("built-in", []), ("python", python_fedavg))]
        aggregate = {"devices": devices, "rounds": [lo, hi], "medians": self.hyperfine(named),
                     "commands": {n: shown(c, self.work) for n, c in named}}
        population, lo, hi = p["select"]
        scenario = os.path.join(ROOT, "scenarios", "population", "plan-1m.json")
        base = [f"platform.devices={population}", "population.slots_per_site=39"]
        kinds = (("random", ["training.selection.kind=random"]), ("available", ["training.selection.kind=available"]),
                 ("python", ["training.selection.kind=python",
                             f"training.selection.python={ROOT}/scenarios/python/uniform.py:Uniform"]))
        named = [(f"{n}-{r}", self.edgetrain(scenario, r, sets=base + extra)) for r in (hi, lo) for n, extra in kinds]
        select = {"devices": population, "rounds": [lo, hi], "medians": self.hyperfine(named),
                  "commands": {n: shown(c, self.work) for n, c in named}}
        return {"aggregate": aggregate, "select": select, "runs": self.p["runs"]}

    def sweep(self):
        base = os.path.join(ROOT, "scenarios", "quickstart.json")
        sweep = os.path.join(self.work, "bench-sweep.json")
        # The smoke test only checks the section is written: two runs, not eight.
        runs = {"training.lr": [0.05], "seed": [1, 2]} if self.profile == "smoke" else \
            {"training.lr": [0.05, 0.1], "seed": [1, 2, 3, 4]}
        if self.p["sweep_rounds"]:
            runs["stop.rounds"] = [self.p["sweep_rounds"]]
        with open(sweep, "w") as f:
            json.dump({"base": base, "grid": runs}, f)
        out = os.path.join(self.work, "sweep-out")
        named = [(f"jobs-{j}", [EDGETRAIN, "sweep", sweep, "--out", out, "--jobs", str(j)]) for j in (1, 2)]
        export = os.path.join(self.work, "hyperfine-sweep.json")
        cmd = ["hyperfine", "-N", "--style", "basic", "--runs", str(self.p["sweep_runs"]), "--export-json", export,
               "--prepare", f"rm -rf {out}"]
        for n, c in named:
            cmd += ["-n", n, sh(c)]
        print("bench: sweep --jobs 1 | --jobs 2", flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if self.profile == "smoke" else None)
        with open(export) as f:
            medians = {r["command"]: r["median"] for r in json.load(f)["results"]}
        return {"grid": runs, "runs": self.p["sweep_runs"], "medians": medians,
                "commands": [shown(c, self.work).replace(out, WORK + "/sweep") for _, c in named]}

    def fidelity(self):
        """crosscheck (a whole scenario replayed under ns-3) and calibrate (lone flows and rounds under
        ns-3, fitted): (scenario, rounds or None for its own, platform, server, --max-bytes or None, runs)."""
        scenario, rounds, platform, server, max_bytes, calibrate_runs = self.p["fidelity"]
        cross = [EDGETRAIN, "crosscheck", os.path.join(ROOT, scenario), "--quiet", "--out", self.out_dir()]
        if rounds:
            cross += ["--set", f"stop.rounds={rounds}"]
        calibrate = [EDGETRAIN, "calibrate", os.path.join(ROOT, platform), "--server", server, "--quiet", "-o",
                     os.path.join(self.work, "calibration.json")]
        if max_bytes:
            calibrate += ["--max-bytes", str(max_bytes)]
        medians = self.hyperfine([("crosscheck", cross)])
        runs = self.p["runs"]
        self.p = dict(self.p, runs=calibrate_runs)  # calibrate takes about a minute: one run
        medians.update(self.hyperfine([("calibrate", calibrate)]))
        self.p = dict(self.p, runs=runs)
        return {"medians": medians, "runs": [runs, calibrate_runs], "scenario": scenario, "rounds": rounds,
                "platform": platform, "commands": [shown(cross, self.work), shown(calibrate, self.work)]}


# --- the page -------------------------------------------------------------------------------------


def machine():
    model = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return {"cpu": model, "cores": os.cpu_count(), "load": os.getloadavg()[0],
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit.stdout.strip()}


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "n/a"


def gb(b):
    return f"{b / 1e9:.2f} GB" if b else "n/a"


def marginal(m, name, lo, hi, steps):
    """Marginal ms per step between the two step counts."""
    a, b = m.get(f"{name}-{hi}"), m.get(f"{name}-{lo}")
    return 1e3 * (a - b) / (steps[1] - steps[0]) if a is not None and b is not None else None


def ms(v):
    return f"{v:.3f} ms" if v is not None else "n/a"


def steps_table(data, rows, note):
    lo, hi = data["rounds"]
    m, steps = data["medians"], data["steps"]
    base = rows[-1][1]
    lines = [f"| program | whole process, {steps[1]} steps (median) | ratio | per step (marginal, {steps[0]} "
             f"to {steps[1]} steps) | ratio |", "|---|---|---|---|---|"]
    base_step = marginal(m, base, lo, hi, steps)
    for label, name in rows:
        step = marginal(m, name, lo, hi, steps)
        whole = m.get(f"{name}-{hi}")
        lines.append(f"| {label} | {whole:.3f} s | {ratio(whole, m.get(f'{base}-{hi}'))} | {ms(step)} | "
                     f"{ratio(step, base_step)} |")
    lines += ["", note, "", "Commands (hyperfine medians of "
              f"{PROFILE['runs']} run(s) each, in one hyperfine invocation):", "", "```"]
    lines += [data["commands"][f"{name}-{r}"] for _, name in rows for r in (hi, lo)]
    return lines + ["```", ""]


def section_overhead(d, threads):
    m = d["medians"]
    hi = d["rounds"][1]
    lines = ["## 1. Overhead: edgetrain --threads 1 against a plain LibTorch C++ loop", "",
             "The quickstart fleet (8 devices, `tools/bench/scenarios/mlp8-sync.json`): sync SGD of the "
             "784-128-10 MLP at batch 32 on Fashion-MNIST, evaluation effectively off, against "
             "`build/bench_bare_loop` (tools/bench/bare_loop.cpp) doing as many SGD steps on the same data. "
             "Goal: at most 1.10x.", ""]
    lines += steps_table(d, [("edgetrain run --threads 1", "edgetrain-t1"), ("bare LibTorch C++ loop", "cpp")],
                         "" if threads else "This build has no `--threads`: edgetrain ran with its default (one thread).")
    lo, steps = d["rounds"][0], d["steps"]
    per = ratio(marginal(m, "edgetrain-t1", lo, hi, steps), marginal(m, "cpp", lo, hi, steps))
    return lines, (f"edgetrain `--threads 1` takes {ratio(m[f'edgetrain-t1-{hi}'], m[f'cpp-{hi}'])} the time of a plain "
                   f"LibTorch C++ loop doing the same {steps[1]:,} MLP steps as whole processes, {per} per step (goal "
                   "1.10x)")


def section_python(d, threads):
    m = d["medians"]
    hi = d["rounds"][1]
    lines = ["## 2. Against a plain Python PyTorch loop", "",
             "The same edgetrain runs against `/usr/bin/python3 tools/bench/bare_loop.py` (Debian's python3-torch, "
             "`torch.set_num_threads(1)`) doing as many SGD steps. Goal: edgetrain faster with one thread, at least 2x "
             "faster with `--threads 2` (a ratio below 1 is faster).", ""]
    lines += steps_table(d, [("edgetrain run --threads 1", "edgetrain-t1"), ("edgetrain run --threads 2", "edgetrain-t2"),
                             ("bare PyTorch loop", "python")],
                         "" if threads else "This build has no `--threads`: both edgetrain rows ran single-threaded.")
    lo, steps = d["rounds"][0], d["steps"]
    py = marginal(m, "python", lo, hi, steps)
    return lines, (f"{ratio(m[f'edgetrain-t1-{hi}'], m[f'python-{hi}'])} (one thread) and "
                   f"{ratio(m[f'edgetrain-t2-{hi}'], m[f'python-{hi}'])} (two) the time of a plain PyTorch loop, "
                   f"{ratio(marginal(m, 'edgetrain-t1', lo, hi, steps), py)} and "
                   f"{ratio(marginal(m, 'edgetrain-t2', lo, hi, steps), py)} per step (goal: 0.50x or less with two "
                   "threads)")


def section_parallel(d, threads):
    m, (lo, hi), steps = d["medians"], d["rounds"], d["steps"]
    t1, t2 = m[f"edgetrain-t1-{hi}"], m[f"edgetrain-t2-{hi}"]
    l1, l2 = m[f"edgetrain-t1-{lo}"], m[f"edgetrain-t2-{lo}"]
    s1, s2 = (marginal(m, f"edgetrain-t{t}", lo, hi, steps) for t in (1, 2))
    lines = ["## 3. Parallel speed-up: 16-device CNN sync run", "",
             "`tools/bench/scenarios/cnn16-sync.json` (the AdaComp fleet, 16 devices, the small CNN at batch 32, "
             f"evaluation effectively off), `--threads 2` over `--threads 1`, {hi} and {lo} rounds. Goals on 2 cores: "
             "at least 1.8x on 60 rounds and 1.6x on 8, whole processes.", "",
             f"| threads | whole process, {steps[1]} steps (median) | whole process, {steps[0]} steps (median) "
             "| per step (marginal) |", "|---|---|---|---|",
             f"| 1 | {t1:.3f} s | {l1:.3f} s | {ms(s1)} |", f"| 2 | {t2:.3f} s | {l2:.3f} s | {ms(s2)} |",
             f"| speed-up | {ratio(t1, t2)} | {ratio(l1, l2)} | {ratio(s1, s2)} |", "",
             "What does not shrink with threads is the start-up. Loading LibTorch overlaps decoding the data set and "
             "takes the same time with one thread or two: a bare `dlopen` of Debian's `libtorch_cpu.so` (linked "
             "`BIND_NOW`, its operator registrations at load) takes 0.38-0.43 s of one core here. That alone caps the "
             "short run's speed-up (docs/reference/limits.md).", ""]
    if not threads:
        lines += ["This build has no `--threads`: both rows ran single-threaded (the speed-up shows the noise).", ""]
    lines += ["```"] + [d["commands"][f"edgetrain-t{t}-{r}"] for r in (hi, lo) for t in (1, 2)] + ["```", ""]
    return lines, (f"the 16-device CNN run is {ratio(t1, t2)} faster with `--threads 2` on {hi} rounds and "
                   f"{ratio(l1, l2)} on {lo} (goals 1.8x and 1.6x), {ratio(s1, s2)} per step")


FLEET_NOTE = ("In the commands, `$W` is a scratch folder where `/usr/bin/python3 tools/bench/fleet_platform.py N "
              "--out $W [--mode async] [--samples-per-device 32]` wrote `fleet-N-MODE.json` and its platform "
              "(the scale fleets declare a synthetic data set of 32 samples per device, of which timing-only runs "
              "take only the size).")


def section_scale(d):
    lines = ["## 4. Timing-only scale", "",
             "Generated fleets (`tools/bench/fleet_platform.py N`: FLAT `<cluster>` zones of 1,000 devices under a "
             "Full top zone, one WAN link per cluster into the server's shared ingress), sync MLP scenario run with "
             "`--set training.compute=timing-only`. Goals: " + SCALE_GOALS + ". Single runs under `/usr/bin/time -v` "
             "(peak RSS). " + FLEET_NOTE, ""]
    if d["timing_only"]:
        lines += ["| devices | rounds | wall | peak RSS | wall per round (marginal over a 1-round run) | set-up + 1 round |",
                  "|---|---|---|---|---|---|"]
        for r in d["rows"]:
            run, one = r["run"], r.get("one_round", {"status": None})
            if run["status"] != 0 or one["status"] != 0:
                lines.append(f"| {r['devices']:,} | {r['rounds']} | not done (exit {run['status']}: {run['stderr']}) "
                             f"| {'n/a (killed)' if run['status'] == 137 else gb(run['rss_bytes'])} | | |")
                continue
            per = (run["wall_s"] - one["wall_s"]) / (r["rounds"] - 1) if r["rounds"] > 1 else None
            lines.append(f"| {r['devices']:,} | {r['rounds']} | {run['wall_s']:.2f} s | {gb(run['rss_bytes'])} | "
                         f"{f'{1e3 * per:.1f} ms' if per is not None else 'n/a'} | {one['wall_s']:.2f} s |")
        cmds = [r[k]["command"] for r in d["rows"] for k in ("run", "one_round") if k in r]
        summary = "; ".join(f"{r['devices']:,} x {r['rounds']} rounds "
                            + (f"{r['run']['wall_s']:.1f} s, {gb(r['run']['rss_bytes'])}" if r["run"]["status"] == 0
                               else f"not done ({r['run']['stderr']})")
                            for r in d["rows"]) + f" (goals {SCALE_GOALS})"
    else:
        lines += ["This build has no timing-only mode (`training.compute` is not a scenario key yet): the generated "
                  "platforms and scenarios are checked with `edgetrain validate` (platform check, SimGrid load, routes, "
                  "memory estimate for real training), and the smallest also trains for real for one round.", "",
                  "| devices | check | exit | wall | peak RSS | note |", "|---|---|---|---|---|---|"]
        cmds = []
        for r in d["rows"]:
            for key, label in (("validate", "validate"), ("real_one_round", "real training, 1 round")):
                if key in r:
                    t = r[key]
                    lines.append(f"| {r['devices']:,} | {label} | {t['status']} | {t['wall_s']:.2f} s | "
                                 f"{gb(t['rss_bytes'])} | {t['stderr']} |")
                    cmds.append(t["command"])
        summary = "not in this build yet"
    lines += ["", "```"] + cmds + ["```", ""]
    return lines, f"timing-only fleets: {summary}"


def section_memory(d):
    lines = ["## 5. Memory per device, real training", "",
             "The generated cluster fleets (as in 4) training the MLP for real: sync 3 rounds, async as many applied "
             f"pushes as devices (one each on average), each run stopped after {MEMORY_LIMIT_S} s. Single runs under `/usr/bin/time -v`; per device = the RSS difference between two fleet "
             "sizes over the device difference. Goal: 5,000 devices (mlp, sync) in < 2.5 GB.", "",
             "| mode | devices | wall | peak RSS | per device (marginal) |", "|---|---|---|---|---|"]
    prev = {}
    for r in d["rows"]:
        t = r["run"]
        if t["status"] != 0:
            lines.append(f"| {r['mode']} | {r['devices']:,} | {t['wall_s']:.2f} s, exit {t['status']} ({t['stderr']}) | "
                         f"{gb(t['rss_bytes'])} so far | |")
            continue
        per = ""
        if r["mode"] in prev:
            pd, prss = prev[r["mode"]]
            per = f"{(t['rss_bytes'] - prss) / (r['devices'] - pd) / 1e6:.2f} MB"
        prev[r["mode"]] = (r["devices"], t["rss_bytes"])
        lines.append(f"| {r['mode']} | {r['devices']:,} | {t['wall_s']:.2f} s | {gb(t['rss_bytes'])} | {per} |")
    lines += ["", "```"] + [r["run"]["command"] for r in d["rows"]] + ["```", ""]
    largest = [r for r in d["rows"] if r["mode"] == "sync" and r["run"]["status"] == 0]
    summary = (f"{largest[-1]['devices']:,} real-training devices (sync) peak at {gb(largest[-1]['run']['rss_bytes'])} "
               "(goal < 2.5 GB for 5,000)") if largest else "memory runs failed"
    return lines, summary


def section_fleet(d):
    lines = ["## 6. Fleet generation and loading", "",
             "`edgetrain fleet` on the shipped planning fleets (hyperfine median), and `edgetrain validate` of a "
             "timing-only scenario whose platform is the fleet description and whose devices are all of it (`{\"role\": "
             "\"device\"}`): it generates the fleet, loads it into SimGrid and checks every device's route to the cloud "
             "and back (one run under `/usr/bin/time -v`). Goals: 10,000 devices in seconds, 100,000 in under a minute.",
             "", "| fleet | devices | generate (median) | validate: generate + load + routes | peak RSS |", "|---|---|---|---|---|"]
    for r in d["rows"]:
        v = r["validate"]
        done = f"{v['wall_s']:.2f} s" if v["status"] == 0 else f"exit {v['status']} ({v['stderr']})"
        devices = f"{r['devices']:,}" if r["devices"] else "the counts"
        lines.append(f"| `{r['fleet']}` | {devices} | {r['generate']:.2f} s | {done} | "
                     f"{gb(v['rss_bytes'])} |")
    lines += ["", "```"] + [c for r in d["rows"] for c in (r["generate_command"], r["validate"]["command"])] + ["```", ""]
    summary = "; ".join(f"`{r['fleet']}` generated in {r['generate']:.2f} s, loaded and checked in "
                        + (f"{r['validate']['wall_s']:.1f} s" if r["validate"]["status"] == 0 else "(failed)")
                        for r in d["rows"])
    return lines, summary


def section_sweep(d):
    m = d["medians"]
    lines = ["## 7. A sweep with --jobs 1 and --jobs 2", "",
             f"`edgetrain sweep` of the quickstart over the grid `{json.dumps(d['grid'])}` "
             f"({len(d['grid']['training.lr']) * len(d['grid']['seed'])} real runs), emptied before each of "
             f"{d['runs']} hyperfine run(s) per setting. With --jobs 1 each run gets 2 training threads, with "
             "--jobs 2 one each.", "", "| --jobs | wall (median) |", "|---|---|",
             f"| 1 | {m['jobs-1']:.2f} s |", f"| 2 | {m['jobs-2']:.2f} s |",
             f"| speed-up | {ratio(m['jobs-1'], m['jobs-2'])} |", "", "```"] + d["commands"] + ["```", ""]
    return lines, (f"a sweep of 8 quickstart runs takes {m['jobs-1']:.1f} s with `--jobs 1` and "
                   f"{m['jobs-2']:.1f} s with `--jobs 2` ({ratio(m['jobs-1'], m['jobs-2'])})")


def section_fidelity(d):
    m = d["medians"]
    lines = ["## 8. Fidelity: crosscheck and calibrate", "",
             "`edgetrain crosscheck` runs the scenario flow-level while recording every transfer, then replays them "
             "in causal order under ns-3's packet-level TCP; `edgetrain calibrate` times lone flows and rounds of the "
             "platform's route classes under ns-3 and fits the flow model to them (docs/how-to/fidelity.md). "
             f"Medians of {d['runs'][0]} and {d['runs'][1]} run(s).", "",
             "| command | wall (median) |", "|---|---|",
             f"| crosscheck | {m['crosscheck']:.2f} s |", f"| calibrate | {m['calibrate']:.2f} s |", "",
             "```"] + d["commands"] + ["```", ""]
    rounds = f"{d['rounds']} round(s)" if d["rounds"] else "its own rounds"
    return lines, (f"crosscheck of `{d['scenario']}` ({rounds}) takes {m['crosscheck']:.1f} s and calibrating "
                   f"`{d['platform']}` {m['calibrate']:.1f} s")


def section_population(d):
    lines = ["## 9. Populations on host slots", "",
             "Scenarios of `scenarios/population` on plan-100k's classes and 100 metro sites, `population.hosts` "
             "`slots`, random selection, at the population and devices per round of each row "
             "(docs/how-to/populations.md): `plan-1m` trains MobileNetV2 with FedAvg timing-only, `train-1m` an MLP "
             "for real on Fashion-MNIST's 60,000 samples in 1,000 IID parts shared by the devices "
             "(`dataset.partition.parts`). Goals: 1,000,000 devices, 1,000 per round, 100 rounds timing-only in "
             "< 60 s and < 2 GB; 10,000,000 devices, 1,000 per round, 10 rounds in < 5 min and < 8 GB; 1,000,000 "
             "devices, 100 per round, 100 rounds of real training in < 2 min and < 3 GB; the memory estimate within "
             "10% of the peak. Single runs under `/usr/bin/time -v`; the "
             "estimate is `edgetrain validate`'s with the same settings.", "",
             "| scenario | population | per round | rounds | wall | peak RSS | estimate | estimate / peak |",
             "|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        t = r["run"]
        head = f"| {r.get('scenario', 'plan-1m')} | {r['devices']:,} | {r['per_round']:,} | {r['rounds']}"
        if t["status"] != 0:
            lines.append(f"{head} | exit {t['status']} ({t['stderr']}) | {gb(t['rss_bytes'])} | | |")
            continue
        est = r["estimate_bytes"]
        share = f"{est / t['rss_bytes']:.2f}" if est else "n/a"
        lines.append(f"{head} | {t['wall_s']:.2f} s | {gb(t['rss_bytes'])} | {gb(est) if est else 'n/a'} | {share} |")
    lines += ["", "```"] + [r["run"]["command"] for r in d["rows"]] + ["```", ""]

    def key(r):
        return r.get("scenario", "plan-1m"), r["devices"], r["per_round"], r["rounds"]

    goals = {("plan-1m", 1000000, 1000, 100): "goal < 60 s, < 2 GB", ("plan-1m", 10000000, 1000, 10):
             "goal < 5 min, < 8 GB", ("train-1m", 1000000, 100, 100): "goal < 2 min, < 3 GB"}

    def said(r):
        run = r["run"]
        figures = f"{run['wall_s']:.1f} s, {gb(run['rss_bytes'])}" if run["status"] == 0 else "not done"
        goal = goals.get(key(r))
        return (f"population {r['devices']:,}, {r['per_round']:,} per round, {r['rounds']} rounds "
                f"{'of real training ' if key(r)[0] == 'train-1m' else ''}{figures}" + (f" ({goal})" if goal else ""))

    # The rows with a goal (the full profile), else each scenario's first row.
    firsts = {}
    for r in d["rows"]:
        firsts.setdefault(key(r)[0], r)
    shown = [r for r in d["rows"] if key(r) in goals] or list(firsts.values())
    return lines, "; ".join(said(r) for r in shown)


def section_plain(d):
    m, sim = d["medians"], d["simulated"]
    ratio = m["edgetrain"] / m["plain"]
    ratio_mimalloc = m["edgetrain"] / m["plain-mimalloc"]  # the plain program on edgetrain's allocator
    lines = ["## 10. Against a plain SimGrid program", "",
             f"The fleet of section 4 at {d['devices']:,} devices, {d['rounds']} sync rounds of the MLP: edgetrain "
             "timing-only beside `tools/bench/plain_rounds.cpp`, the obvious SimGrid program for the same rounds "
             "(the server sends every device the model with `put_async` and waits for all; each device computes "
             "its update's FLOPs and sends it to the server's one mailbox, where a receive per device is posted; "
             "same network model, no accounting and no outputs). Goal: edgetrain in <= 0.25x the plain program's "
             f"time. Medians of {d['runs']} run{'s' if d['runs'] != 1 else ''} each (hyperfine).", "",
             "| program | wall (median) | simulated end |", "|---|---|---|",
             f"| edgetrain | {m['edgetrain']:.2f} s | {sim['edgetrain']:.3f} s |",
             f"| plain SimGrid | {m['plain']:.2f} s | {sim['plain']:.3f} s |",
             f"| plain SimGrid on mimalloc | {m['plain-mimalloc']:.2f} s | {sim['plain']:.3f} s |", "",
             f"edgetrain takes **{ratio:.2f}x** the plain program's time, and {ratio_mimalloc:.2f}x "
             "its time when the plain program runs on mimalloc as edgetrain does (`LD_PRELOAD`). The simulated ends "
             "differ by what the plain program leaves out (the server's update of the model between rounds, message "
             "headers).", "",
             "```", d["commands"]["edgetrain"], d["commands"]["plain"], d["commands"]["plain-mimalloc"], "```", ""]
    return lines, (f"timing-only rounds ({d['devices']:,} devices x {d['rounds']}) take {ratio:.2f}x the time of a "
                   f"plain SimGrid program doing them, {ratio_mimalloc:.2f}x with the plain program "
                   "on mimalloc too (goal <= 0.25x)")


def mpi_projection(s, r, o, nodes, cores):  # any one unit of time
    """The speed-up on `nodes` nodes of `cores` cores each: rank 0 simulates (r per step) and pays the transfers
    (o per step) alone; the rest of a step (s - r) spreads over every core."""
    return s / max((s - r) / (nodes * cores), r + o)


def section_mpi(d):
    m, (lo, hi), steps = d["medians"], d["rounds"], d["steps"]
    rows = [("plain, `--threads 1`", "plain")] + [(f"`mpirun -np {n}` ({n - 1} worker rank{'s' if n > 2 else ''}, "
                                                  "`--threads 1`)", f"np{n}") for n in d["ranks"]]
    plain_step = marginal(m, "plain", lo, hi, steps)
    lines = ["## 11. MPI learning workers", "",
             "`tools/bench/scenarios/cnn16-sync.json` (benchmark 3's 16-device CNN) with `--threads 1`, plain and under "
             "`mpirun --oversubscribe -np N` (rank 0 simulates, ranks 1 and up train; docs/how-to/mpi.md). On this "
             f"machine's {d['cores']} cores the ranks share the cores: the table shows what the transfers and the "
             "polling cost, not what more nodes give (the projection below does).", "",
             f"| configuration | whole process, {steps[1]} steps (median) | per step (marginal) | steps/s | "
             "speed-up per step |", "|---|---|---|---|---|"]
    for label, name in rows:
        step = marginal(m, name, lo, hi, steps)  # ms
        lines.append(f"| {label} | {m[f'{name}-{hi}']:.2f} s | {ms(step)} | {1e3 / step:.0f} | "
                     f"{ratio(plain_step, step)} |")
    lines += ["", "Transfer overhead by model size: one device, one worker rank (`mpirun -np 2`), rank 0's seconds in "
              "MPI sends and receives beyond the worker's own waits for its steps (`EDGETRAIN_MPI_STATS`), per step, "
              "against the worker's step.", "",
              "| model | bytes rank 0 sent per step | overhead per step | worker's step | overhead / step |",
              "|---|---|---|---|---|"]
    cnn_share = None
    for row in d["overhead"]:
        st = row["stats"]
        n = max(1, st["steps"])
        worker_step = st["worker_busy_s"] / n
        share = st["overhead_per_step_s"] / worker_step if worker_step > 0 else float("inf")
        if row["model"] == "cnn":
            cnn_share = share
        lines.append(f"| {row['model']} | {st['bytes_sent'] / n:,.0f} | {ms(1e3 * st['overhead_per_step_s'])} | "
                     f"{ms(1e3 * worker_step)} | {100 * share:.1f}% |")
    cnn = next(r["stats"] for r in d["overhead"] if r["model"] == "cnn")
    o = 1e3 * cnn["overhead_per_step_s"]  # ms, as the marginals
    r = max(0.0, marginal(m, "timing", lo, hi, steps))  # start-up noise can make it negative
    cores = d["cores"]
    projected = {n: mpi_projection(plain_step, r, o, n, cores) for n in (1, 2, 4, 8, 16)}
    lines += ["", "Projected speed-up on N nodes of " + f"{cores} cores each (the CNN run): with s the plain step "
              f"({ms(plain_step)}), r rank 0's own share of a step, the simulation ({ms(r)}: the timing-only run's "
              f"marginal step, at least 0) and o the transfer overhead per step ({ms(o)}, above),", "",
              "    S(N) = s / max((s - r) / (N x cores), r + o)", "",
              "rank 0 simulating and transferring alone while the steps spread over every core: "
              + ", ".join(f"{n} node{'s' if n > 1 else ''} {v:.1f}x" for n, v in projected.items())
              + f"; the limit is s / (r + o) = {plain_step / (r + o):.0f}x.", "",
              "```"] + [d["commands"][f"{name}-{rr}"] for rr in (hi, lo) for _, name in rows + [("", "timing")]]
    lines += [row["command"] for row in d["overhead"]] + ["```", ""]
    goal = "below" if cnn_share is not None and cnn_share < 0.05 else "above"
    return lines, (f"under `mpirun` the transfers cost {100 * (cnn_share or 0):.1f}% of a CNN step ({goal} the 5% goal); "
                   f"projected {projected[4]:.1f}x on 4 nodes and {projected[16]:.1f}x on 16 for the 16-device CNN")
def bytes_per_device(p):
    small, large = p["runs"]
    if small["status"] != 0 or large["status"] != 0:
        return None
    return (large["rss_bytes"] - small["rss_bytes"]) / (p["devices"][1] - p["devices"][0])


def section_activities(d):
    lines = ["## 12. A million devices active in one round: devices as activities", "",
             "The fleets of section 4 with every device in every round, timing-only: edgetrain runs such devices as "
             "SimGrid activities driven by a few actors per round (src/sim/core/activity_fleet.hpp), not as an actor "
             "and a courier each; `EDGETRAIN_DEVICE_ACTORS=1` forces the actors (same results, byte for byte: "
             "tests/sim/activity_path_test.py). Goals: 262,144 devices x 10 rounds < 60 s and < 8 GB; 1,000,000 x 1 "
             "< 10 min and < 16 GB; 10,000 x 100 < 30 s; bytes per all-active device <= 16 kB (52 kB as actors). "
             "Single runs under `/usr/bin/time -v` (peak RSS), each stopped at its time limit; the million-device "
             "fleet is generated with `--cluster-size 10000` (SimGrid 3.32's loader looks each new link's name up in "
             "every zone: a thousand zones of 1,000 hosts take it a quarter of an hour to load). " + FLEET_NOTE, "",
             "| devices | rounds | devices per cluster zone | wall | peak RSS | limit |", "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        t = r["run"]
        wall = f"{t['wall_s']:.1f} s" if t["status"] == 0 else f"not done (exit {t['status']}: {t['stderr']})"
        lines.append(f"| {r['devices']:,} | {r['rounds']} | {r.get('cluster_size', 1000):,} | {wall} | "
                     f"{gb(t['rss_bytes'])} | {r['limit_s']} s |")
    lines += ["", "Bytes per all-active device: the peak RSS difference between two 1-round fleets over their device "
              "difference.", "", "| devices as | fleets | peak RSS | bytes per device |", "|---|---|---|---|"]
    per = {}
    for path, p in d["per_device"].items():
        per[path] = bytes_per_device(p)
        rss = " and ".join(gb(r["rss_bytes"]) for r in p["runs"])
        lines.append(f"| {path} | {p['devices'][0]:,} and {p['devices'][1]:,} | {rss} | "
                     f"{f'{per[path] / 1e3:.1f} kB' if per[path] is not None else 'n/a'} |")
    cmds = [r["run"]["command"] for r in d["rows"]] + [t["command"] for p in d["per_device"].values() for t in p["runs"]]
    lines += ["", "```"] + cmds + ["```", ""]
    done = "; ".join(f"{r['devices']:,} x {r['rounds']} "
                     + (f"{r['run']['wall_s']:.1f} s, {gb(r['run']['rss_bytes'])}" if r["run"]["status"] == 0
                        else "not done") for r in d["rows"])
    kb = "; ".join(f"{v / 1e3:.1f} kB as {k}" for k, v in per.items() if v is not None)
    return lines, f"all-active fleets as activities: {done}; per all-active device {kb} (goal <= 16 kB)"


def section_policies(d):
    def per_round(part, name):
        lo, hi = part["rounds"]
        return marginal(part["medians"], name, lo, hi, [lo, hi])

    agg, sel = d["aggregate"], d["select"]
    built_in, python = per_round(agg, "built-in"), per_round(agg, "python")
    available, uniform, random = (per_round(sel, n) for n in ("available", "python", "random"))
    added = python / built_in - 1 if python and built_in else None
    added_select = uniform / available - 1 if uniform and available else None
    lines = ["## 13. Python policies on the simulated clock", "",
             "The round's wall time with a Python policy against the built-in one (docs/how-to/python-policies.md), "
             "per round: (median at the larger round count - median at the smaller) / (round difference), which "
             "leaves out the start-up (the interpreter and numpy load once, about half a second). Goals: a Python "
             "aggregation of 100 real CNN updates per round adds at most 20% to a round; a Python selection over a "
             f"population of a million adds at most 20% to a timing-only round. Medians of {d['runs']} run"
             f"{'s' if d['runs'] != 1 else ''} each (hyperfine).", "",
             f"| round | built-in | Python | added |", "|---|---|---|---|",
             f"| aggregate {agg['devices']} CNN updates (FedAvg; scenarios/python/fedavg.py) | {ms(built_in)} | "
             f"{ms(python)} | {f'{100 * added:+.0f}%' if added is not None else 'n/a'} |",
             f"| select 1,000 of {sel['devices']:,} available devices, timing-only (`available`; "
             f"scenarios/python/uniform.py) | {ms(available)} | {ms(uniform)} | "
             f"{f'{100 * added_select:+.0f}%' if added_select is not None else 'n/a'} |", "",
             f"Beside them, the built-in `random` kind, whose candidates are every device (no scan of who is "
             f"available), takes {ms(random)} a round: the Python selection "
             f"{f'{100 * (uniform / random - 1):+.0f}%' if uniform and random else 'n/a'} against it. The devices "
             "picked differ from kind to kind, and with them the host slots each round fills.", "", "```"] + list(agg["commands"].values()) + list(sel["commands"].values()) + ["```", ""]
    pct = (lambda v: f"{100 * v:+.0f}%" if v is not None else "n/a")
    return lines, (f"Python policies per round: aggregating {agg['devices']} CNN updates {pct(added)} against the "
                   f"built-in FedAvg, selecting among {sel['devices']:,} devices {pct(added_select)} against the "
                   "built-in `available` (goals <= +20%)")


def kept_sections(path):
    """The hand-written "## Where the time goes" sections of the existing page, kept as they are."""
    if not os.path.exists(path):
        return []
    text = open(path).read()
    return re.findall(r"^## Where the time goes.*?(?=^## |\Z)", text, flags=re.S | re.M)


def write_page(figures, out_dir, update_readme):
    global PROFILE
    PROFILE = PROFILES[figures["profile"]]
    m = figures["machine"]
    sections, summary = [], []
    threads = figures.get("threads", False)
    for name, make in (("overhead", lambda d: section_overhead(d, threads)),
                       ("python", lambda d: section_python(d, threads)),
                       ("parallel", lambda d: section_parallel(d, threads)),
                       ("scale", section_scale), ("memory", section_memory), ("fleet", section_fleet),
                       ("sweep", section_sweep), ("fidelity", section_fidelity), ("population", section_population),
                       ("plain", section_plain), ("mpi", section_mpi), ("activities", section_activities),
                       ("policies", section_policies)):
        if name in figures:
            lines, line = make(figures[name])
            stamp = figures[name].get("measured", m)
            lines[1:1] = ["", f"Measured {stamp['date']}, commit {stamp['commit']}, load average {stamp['load']:.2f} "
                          "at the start."]
            sections += lines
            summary.append(line)
    stamps = [figures[n].get("measured", m) for n in NAMES if n in figures]
    dates = sorted({s["date"][:10] for s in stamps})
    loads = [s["load"] for s in stamps]
    commits = list(dict.fromkeys(s["commit"] for s in stamps))
    block = (f"Measured with `tools/bench/run.sh` on {', '.join(dates)} (commit{'s' if len(commits) > 1 else ''} "
             f"{', '.join(commits)}), "
             f"{m['cores']} cores ({m['cpu']}), load average {min(loads):.1f} to {max(loads):.1f} at the starts: "
             + "; ".join(summary) + ". Whole processes, medians; details and commands in results/bench/README.md.")
    page = ["# Benchmarks", "",
            "Written by `tools/bench/run.sh` (tools/bench/bench.py); never asserted in tests. Each ratio compares "
            "commands measured side by side in one run of the script.", "",
            "## Machine", "",
            f"- CPU: {m['cpu']}, {m['cores']} cores (/proc/cpuinfo, os.cpu_count)",
            "- load average (1 min) when each benchmark started: in its section"
            + (" (a shared machine: timings are noisy; medians)" if max(loads) > 0.5 else ""),
            f"- edgetrain commit {m['commit']}; `--threads`: {'yes' if threads else 'not in this build'}; "
            f"bare loops and Python: one intra-op thread and one OpenBLAS thread (as edgetrain)",
            f"- last run of the script: {m['date']}, profile `{figures['profile']}`", "",
            "<!-- figures:bench -->", block, "<!-- /figures:bench -->", ""] + sections
    path = os.path.join(out_dir, "README.md")
    kept = kept_sections(os.path.join(ROOT, "results", "bench", "README.md"))
    os.makedirs(out_dir, exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(page) + ("\n" + "\n".join(s.rstrip() + "\n" for s in kept) if kept else ""))
    print(f"bench: wrote {path}")
    if update_readme:
        figure_block("bench", block)
    return path, len(summary)


def check_page(path, expected):
    """The smoke test's check: every benchmark has its section and figures, nothing is missing."""
    text = open(path).read()
    problems = [f"no section {n}" for n in (f"## {i}." for i in range(1, len(NAMES) + 1)) if n not in text]
    problems += ["a figure is nan"] if re.search(r"\bnan\b", text) else []
    problems += [] if re.search(r"<!-- figures:bench -->\n.+\n<!-- /figures:bench -->", text) else ["no figures block"]
    if expected != len(NAMES):
        problems.append(f"{expected} of {len(NAMES)} benchmarks reported")
    if problems:
        raise SystemExit("bench: malformed page: " + "; ".join(problems))
    print("bench: page well formed")


PROFILE = PROFILES["full"]


def option(argv, name, default):
    """The value of `name VALUE` in argv (both removed), or default."""
    if name not in argv:
        return default
    i = argv.index(name)
    if i + 1 >= len(argv):
        raise SystemExit(f"bench: {name} needs a value")
    value = argv[i + 1]
    del argv[i:i + 2]
    return os.path.abspath(value)


def main():
    global PROFILE, EDGETRAIN, BARE_CPP, PLAIN
    argv = sys.argv[1:]
    # One BLAS thread for every program, as edgetrain sets for itself: the bare loops' OpenBLAS would
    # otherwise split each product over both cores, and their time would depend on the machine's load.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    out_dir = option(argv, "--out", os.path.join(ROOT, "results", "bench"))
    build = option(argv, "--build", BUILD)
    EDGETRAIN, BARE_CPP = os.path.join(build, "edgetrain"), os.path.join(build, "bench_bare_loop")
    PLAIN = os.path.join(build, "bench_plain_rounds")
    profile = "smoke" if "--smoke" in argv else "quick" if "--quick" in argv else "full"
    PROFILE = PROFILES[profile]
    update_readme = "--no-readme" not in argv and profile != "smoke"
    names = [a for a in argv if not a.startswith("--")] or NAMES
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        raise SystemExit(f"bench: unknown benchmark {unknown[0]} (one of {', '.join(NAMES)})")
    # Only the programs the chosen benchmarks run (the bare loops for overhead and python, the plain SimGrid
    # program for plain).
    needed = [EDGETRAIN] + ([BARE_CPP] if {"overhead", "python"} & set(names) else []) + \
        ([PLAIN] if "plain" in names else [])
    for program in needed:
        if not os.access(program, os.X_OK):
            raise SystemExit(f"bench: {program} not built (cmake --build build)")
    figures_path = os.path.join(out_dir, "figures.json")
    figures = {}
    if profile != "smoke" and os.path.exists(figures_path):
        with open(figures_path) as f:
            figures = json.load(f)
    if "--report-only" in argv:
        write_page(figures, out_dir, update_readme)
        return
    figures["machine"] = machine()
    work = tempfile.mkdtemp(prefix="edgetrain-bench-")
    try:
        b = Bench(profile, work)
        figures["threads"] = b.threads
        figures["profile"] = profile
        if "overhead" in names or "python" in names:
            data = b.steps("overhead" in names, "python" in names)
            for n in ("overhead", "python"):
                if n in names:
                    figures[n] = dict(data, measured=machine())
        for n, measure in (("parallel", b.parallel), ("scale", b.scale), ("memory", b.memory), ("fleet", b.fleets),
                           ("sweep", b.sweep), ("fidelity", b.fidelity), ("population", b.population),
                           ("plain", b.plain), ("mpi", b.mpi), ("activities", b.activities),
                           ("policies", b.policies)):
            if n in names:
                stamp = machine()  # when this benchmark started: its section says so
                figures[n] = dict(measure(), measured=stamp)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(out_dir, exist_ok=True)
    with open(figures_path, "w") as f:
        json.dump(figures, f, indent=1)
        f.write("\n")
    path, reported = write_page(figures, out_dir, update_readme)
    if profile == "smoke":
        check_page(path, reported)


if __name__ == "__main__":
    main()

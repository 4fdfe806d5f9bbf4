#!/usr/bin/python3
"""Devices as activities give the results of devices as actors (ctest: sim/activity-path). Shipped scenarios
and fleets, timing-only and shortened, run twice: on the activity path edgetrain chooses for them
(src/sim/core/device_path.hpp; validate says so) and with EDGETRAIN_DEVICE_ACTORS=1 (one actor and one
courier per device). Every output file must be the same byte for byte, summary.json but for its wall-time
fields. A scenario the activity path does not serve (streams, deadlines, sites, populations) keeps its
actors, and validate names why."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv.pop(1)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
WALL_KEYS = {"wall_time_s"}

# (scenario, --set options): flat sync rounds of the shipped fleets, every device or a selection of them,
# one step or several (local-sgd), dense or compressed updates.
CASES = {
    "quickstart": ("scenarios/quickstart.json", ["stop.rounds=4"]),
    "topk-ef": ("scenarios/compression/topk-1pct-ef.json", ["stop.rounds=3"]),
    "stragglers": ("scenarios/teaching/stragglers.json", ["stop.rounds=3"]),
    "factory-local-sgd": ("scenarios/fl/flat.json", ["stop.rounds=3"]),
    "fl-1k-random": ("scenarios/fl/selection-random.json", ["stop.rounds=4"]),
    "fl-1k-oort": ("scenarios/fl/selection-oort.json", ["stop.rounds=4"]),
    "fl-1k-all": ("scenarios/fl/selection-all.json", ["stop.rounds=2"]),
    # A stop on simulated time ends the run with drivers in flight: SimGrid 3.32, killing them as daemons while
    # they waited on running Execs, aborted the process at this deadline (src/sim/core/actor_guard.hpp).
    "fl-1k-all-sim-time": ("scenarios/fl/selection-all.json", ["stop.rounds=null", "stop.sim_time_s=12.1"]),
    "gossip16-server": ("scenarios/fl/server.json", ["stop.rounds=3"]),
    "teaching-shop-energy": ("scenarios/teaching/site-uplink.json", ["stop.rounds=3"]),
    "plan-10k": ("scenarios/plan-10k.json", ["stop.rounds=2"]),
}
TIMING_ONLY = ["training.compute=timing-only", "stop.target_accuracy=null"]


def run(scenario, sets, out, actors):
    env = dict(os.environ)
    env.pop("EDGETRAIN_DEVICE_ACTORS", None)
    if actors:
        env["EDGETRAIN_DEVICE_ACTORS"] = "1"
    cmd = [BINARY, "run", scenario, "--quiet", "--out", out]
    for s in TIMING_ONLY + sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)


def path_line(scenario, sets):
    cmd = [BINARY, "validate", scenario]
    for s in TIMING_ONLY + sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, cwd=ROOT, capture_output=True, text=True).stdout
    return next(line for line in out.splitlines() if line.startswith("devices: "))


def outputs(folder):
    files = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if name == "summary.json":
            summary = json.loads(data)
            for key in WALL_KEYS:
                summary.pop(key, None)
            data = json.dumps(summary, sort_keys=True).encode()
        files[name] = data
    return files


class ActivityPath(unittest.TestCase):
    def compare(self, scenario, sets):
        self.assertIn("as activities", path_line(scenario, sets))
        with tempfile.TemporaryDirectory() as work:
            activities, actors = os.path.join(work, "activities"), os.path.join(work, "actors")
            run(scenario, sets, activities, actors=False)
            run(scenario, sets, actors, actors=True)
            a, b = outputs(activities), outputs(actors)
            self.assertEqual(sorted(a), sorted(b))
            for name in a:
                self.assertTrue(a[name] == b[name], f"{scenario}: {name} differs between activities and actors")

    def test_bench_fleet(self):
        # tools/bench's generated cluster fleet: three speed classes, shared backbones and WAN links.
        with tempfile.TemporaryDirectory() as work:
            scenario = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "bench", "fleet_platform.py"),
                                       "300", "--out", work, "--rounds", "3", "--cluster-size", "100",
                                       "--samples-per-device", "32"], check=True, capture_output=True,
                                      text=True).stdout.strip()
            self.compare(scenario, [])

    def test_kept_on_actors(self):
        # Streams, round deadlines, updates applied on arrival, sites, populations: the actors, with the reason.
        self.assertIn("streaming", path_line("scenarios/scadles/s10-sync.json", []))
        self.assertIn("deadlines", path_line("scenarios/planner/depot-vans.json", []))
        self.assertIn("on arrival", path_line("scenarios/fl/async.json", []))
        self.assertIn("topology hierarchical", path_line("scenarios/fl/hierarchical.json", []))
        self.assertIn("population", path_line("scenarios/population/phones.json", []))


def add_case(name, scenario, sets):
    setattr(ActivityPath, "test_" + name.replace("-", "_"), lambda self: self.compare(scenario, sets))


for case, (path, options) in CASES.items():
    add_case(case, path, options)

if __name__ == "__main__":
    unittest.main()

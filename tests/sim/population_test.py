#!/usr/bin/python3
"""Populations on host slots (ctest: sim/population). The shipped scenarios/population/phones.json and
its variants (modes, selection kinds, over-selection with round timeouts, availability and capacity
traces (the scenario's, and a fleet class's own), random churn, real training with error feedback and on parts shared by devices) run twice, with population.hosts "slots" and "per-device":
rounds, times, bytes and every device's figures must be the same, byte for byte. A device's learner state between its selections is
checked by the real run with error feedback (its memory must carry over for the figures to match).
The population's outputs add up to the run's totals, bad population settings are one line, exit 2, and a
population that does not fit is refused with the estimate before anything is loaded."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY = sys.argv.pop(1)
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "population", "phones.json")

# What a host per device has that slots cannot: each device's host (a slot's site instead), its
# energy (slots carry no wattage), and the lone-transfer band over every device's own route.
HOST_COLUMNS = {"host", "energy_j"}
ENERGY_COLUMNS = {"devices_energy_j", "energy_j"}
SUMMARY_KEYS = ["status", "rounds", "sim_time_s", "bytes_up", "bytes_down", "bytes_up_uncompressed",
                "samples_trained", "final_test_accuracy", "final_test_loss", "time_to_target_s", "round_s",
                "participation", "missing_updates", "late_pushes"]

# Seeded synthetic traces for the phones (tools/traces/synthetic.py), written once for the variants.
TRACES = tempfile.TemporaryDirectory()
subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "tools", "traces", "synthetic.py"), "--devices", "200",
                "--seed", "5", "--period-s", "60", "--availability-out", os.path.join(TRACES.name, "on.csv"),
                "--capacity-out", os.path.join(TRACES.name, "capacity.csv")], check=True)
TRACE_KEYS = json.dumps({"availability": os.path.join(TRACES.name, "on.csv"),
                         "capacity": os.path.join(TRACES.name, "capacity.csv"), "assign": "order"})

# phones.json whose midrange and budget classes follow the availability trace (a class's own trace).
with open(os.path.join(HERE, "..", "..", "platforms", "fleets", "phones.json")) as f:
    CLASS_TRACED = json.load(f)
for name in ("midrange", "budget"):
    CLASS_TRACED["classes"][name]["availability_trace"] = os.path.join(TRACES.name, "on.csv")
CLASS_TRACED_FLEET = os.path.join(TRACES.name, "phones-on.json")
with open(CLASS_TRACED_FLEET, "w") as f:
    json.dump(CLASS_TRACED, f)

VARIANTS = {
    "local-sgd-random": [],
    "sync-random": ["training.mode=sync"],
    "all": ['training.selection={"kind": "all"}', "stop.rounds=5"],
    "available-fraction": ['training.selection={"kind": "available", "fraction": 0.1}'],
    "oort-over-selection": ['training.selection={"kind": "oort", "per_round": 15, "over_selection": 0.4}',
                            "training.round_timeout_s=1.5"],
    # Slow traced devices outlive their rounds (2 s timeouts): a slot per device of a cell.
    "traces-available": ["traces=" + TRACE_KEYS, 'training.selection={"kind": "available", "per_round": 20}',
                         "training.round_timeout_s=2", "stop.rounds=null", "stop.sim_time_s=60",
                         "population.slots_per_site=50"],
    "traces-random": ["traces=" + TRACE_KEYS, "training.round_timeout_s=2", "stop.rounds=null",
                      "stop.sim_time_s=60", "population.slots_per_site=50"],
    "class-trace": ["platform.file=" + CLASS_TRACED_FLEET, 'training.selection={"kind": "available", "per_round": 20}',
                    "training.round_timeout_s=2", "stop.rounds=null", "stop.sim_time_s=60",
                    "population.slots_per_site=50"],
    # Random churn (mtbf/mttr) drawn per device, and an outage of a cell's uplink: a device cut on its slot
    # loses its update; one whose push fails waits faults.retry_s on its slot.
    "churn": ['faults={"devices": [{"device": "*", "mtbf_s": 20, "mttr_s": 8}], "links": [{"link": "cell-0-uplink-up", '
              '"off_s": [[10, 20]]}]}', "training.round_timeout_s=2",
              "stop.rounds=null", "stop.sim_time_s=60", "population.slots_per_site=50"],
    "real-error-feedback": ['dataset={"name": "fashion-mnist"}', "training.compute=real", "stop.rounds=4",
                            'compression={"kind": "topk", "ratio": 0.05, "error_feedback": true}',
                            "training.selection.per_round=10"],
    # 200 phones on 50 IID parts: device d trains on part d mod 50 (dataset.partition.parts).
    "real-shared-parts": ['dataset={"name": "fashion-mnist", "train_samples": 2000, "partition": {"parts": 50}}',
                          "training.compute=real", "stop.rounds=3", "training.selection.per_round=10"],
}


def without_links(value):
    """The bottleneck section without the names of links (a slot's, or the device's own)."""
    if isinstance(value, dict):
        return {k: without_links(v) for k, v in value.items() if "link" not in k}
    if isinstance(value, list):
        return [without_links(v) for v in value]
    return value


def run(out, *sets, command="run"):
    args = [BINARY, command, SCENARIO]
    for s in sets:
        args += ["--set", s]
    if command == "run":
        args += ["--out", out, "--quiet"]
    return subprocess.run(args, capture_output=True, text=True)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def rows(path, drop=()):
    with open(path) as f:
        return [{k: v for k, v in r.items() if k not in drop} for r in csv.DictReader(f)]


class SlotsEqualHosts(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def pair(self, name, sets):
        slots, hosts = (os.path.join(self.dir.name, name + suffix) for suffix in ("-slots", "-hosts"))
        for out, extra in ((slots, []), (hosts, ["population.hosts=per-device"])):
            done = run(out, *sets, *extra)
            self.assertEqual(done.returncode, 0, f"{name} {extra}: {done.stderr}")
        return slots, hosts

    def test_variants(self):
        for name, sets in VARIANTS.items():
            with self.subTest(variant=name):
                slots, hosts = self.pair(name, sets)
                for f in ("rounds.csv", "staleness.csv"):
                    with open(os.path.join(slots, f), "rb") as a, open(os.path.join(hosts, f), "rb") as b:
                        self.assertEqual(a.read(), b.read(), f"{name}: {f}")
                self.assertEqual(rows(os.path.join(slots, "metrics.csv"), ENERGY_COLUMNS),
                                 rows(os.path.join(hosts, "metrics.csv"), ENERGY_COLUMNS), name)
                took_part = [r for r in rows(os.path.join(hosts, "devices.csv"), HOST_COLUMNS)
                             if int(r["rounds_selected"]) > 0]
                self.assertEqual(rows(os.path.join(slots, "devices.csv"), HOST_COLUMNS), took_part, name)
                a, b = (load_json(os.path.join(d, "summary.json")) for d in (slots, hosts))
                for key in SUMMARY_KEYS:
                    self.assertEqual(a.get(key), b.get(key), f"{name}: summary {key}")
                self.assertEqual(without_links(a["bottleneck"]), without_links(b["bottleneck"]), name)
                self.assertEqual(a["capacity"]["violations"], [])
                self.assertGreater(a["rounds"], 0)

    def test_outputs_add_up(self):
        out = os.path.join(self.dir.name, "sums")
        done = run(out)
        self.assertEqual(done.returncode, 0, done.stderr)
        summary = load_json(os.path.join(out, "summary.json"))
        population = rows(os.path.join(out, "population.csv"))
        devices = rows(os.path.join(out, "devices.csv"))
        whole = [r for r in population if r["group"] == "all"]
        self.assertEqual(len(whole), 1)
        whole = whole[0]
        self.assertEqual(int(whole["devices"]), 200)
        counts = ["devices", "devices_took_part", "rounds_selected", "rounds_aggregated", "steps",
                  "samples_trained", "late_pushes", "bytes_up", "bytes_down"]
        for group in ("class", "site"):
            for key in counts:
                self.assertEqual(sum(int(r[key]) for r in population if r["group"] == group), int(whole[key]),
                                 f"{group} {key}")
        self.assertEqual(int(whole["bytes_up"]), summary["bytes_up"])
        self.assertEqual(int(whole["bytes_down"]), summary["bytes_down"])
        self.assertEqual(int(whole["samples_trained"]), summary["samples_trained"])
        self.assertEqual(len(devices), int(whole["devices_took_part"]))
        self.assertTrue(all(int(d["rounds_selected"]) > 0 for d in devices))
        for key in ("rounds_selected", "bytes_up", "steps"):
            self.assertEqual(sum(int(d[key]) for d in devices), int(whole[key]), key)
        self.assertEqual(int(whole["rounds_selected"]), 20 * summary["rounds"])
        # Each device's time adds up to the run's length, whether it took part or not.
        end = summary["sim_time_s"]
        total = sum(float(whole[k]) for k in ("compute_s", "comm_s", "wait_s"))
        self.assertAlmostEqual(total, 200 * end, delta=1e-6 * 200 * end)


class BadSettings(unittest.TestCase):
    CASES = {
        "training.selection.per_round=1000": "training.selection.per_round: 1000 is more than the 200 devices",
        "platform=../../platforms/quickstart.xml": "population.hosts: \"slots\" places the devices of a fleet",
        'platform={"file": "../../platforms/fleets/phones.json", "devices": 2}': "platform.classes.budget:",
        "topology.kind=hierarchical": "population.hosts",
        'stream={"rate": 10}': "stream: not with population.hosts",
        'devices={"class": "budget"}': "devices.class: with population.hosts",
        'training.selection={"kind": "random", "per_round": 20, "over_selection": 0}': None,
        "population.slots_per_site=0": "population.slots_per_site",
    }

    def test_one_line_exit_2(self):
        for setting, message in self.CASES.items():
            with self.subTest(setting=setting):
                done = run(None, setting, "training.selection.per_round=1" if "devices\": 2" in setting else
                           "stop.rounds=1", command="validate")
                if message is None:
                    self.assertEqual(done.returncode, 0, done.stderr)
                    continue
                self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
                self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
                self.assertIn(message, done.stderr)

    def test_fault_on_a_device_link_says_it_has_none(self):
        done = run(None, 'faults={"links": [{"link": "budget-0-up", "off_s": [[10, 20]]}]}',
                   "training.round_timeout_s=2", command="validate")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertIn("no link \"budget-0-up\"", done.stderr)
        self.assertIn("and 161 more); a population's devices have no links of their own", done.stderr)

    def test_memory_refused_before_loading_with_the_estimate(self):
        # A million phones keeping top-k error feedback (a model-sized vector each, once they took part):
        # without stop.rounds every device may take part (about 400 GB), with 4 rounds of 20 at most 80.
        sets = ['platform={"file": "../../platforms/fleets/phones.json", "devices": 1000000}',
                'dataset={"name": "fashion-mnist", "partition": {"parts": 1000}}', "training.compute=real",
                'compression={"kind": "topk", "ratio": 0.05, "error_feedback": true}']
        done = run(None, *sets, "stop.rounds=null", "stop.sim_time_s=60", "training.round_timeout_s=2",
                   command="validate")
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertEqual(done.stderr.count("\n"), 1, done.stderr)
        self.assertRegex(done.stderr, r"^edgetrain: scenario needs about \d+(\.\d+)? GB \(model ")
        done = run(None, *sets, "stop.rounds=4", command="validate")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("memory: needs about", done.stdout)

    def test_more_than_a_million_hosts_points_to_slots(self):
        done = run(None, 'platform={"file": "../../platforms/fleets/phones.json", "devices": 2000000}',
                   "population.hosts=per-device", command="validate")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertEqual(done.stderr, "edgetrain: platform: 2000000 devices with a host each; at most 1000000 (a "
                                      "larger platform takes SimGrid too long to load): give population.hosts "
                                      "\"slots\" to keep them as records\n")

    def test_too_few_slots_fails_saying_so(self):
        out = tempfile.mkdtemp(dir=self.dir_root())
        done = run(out, "population.slots_per_site=2")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("has no free host slot", done.stderr)
        self.assertIn("raise population.slots_per_site", done.stderr)
        self.assertEqual(load_json(os.path.join(out, "summary.json"))["status"], "failed")

    def dir_root(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        return d.name


if __name__ == "__main__":
    unittest.main()

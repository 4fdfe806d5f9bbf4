#!/usr/bin/python3
"""Python policies on the simulated clock (ctest: python/policies; docs/how-to/python-policies.md).

The shipped examples against the built-in rules they mirror, file for file: the Python FedAvg, FedAdam and
Krum give the built-in FedAvg's, FedAdam's and defence krum's results byte for byte (the issue asks FedAdam
within 1e-6; it is exact). A seeded Python selection and deadline give the same files whatever --threads.
What a strategy declares is charged: its FLOPs to the server's clock, its bytes to every message. A Python
exception is one line naming the file and line, with the results written and status failed; SIGINT stops
a policy stuck in Python within a second, results written; bad classes and bad answers are one line each."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

BINARY = sys.argv.pop(1)
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
BASE = os.path.join(ROOT, "scenarios", "python", "base.json")
PYTHON = ["strategy.kind=python"]
# Files that tell a run apart from the same run with another strategy's name: the scenario, the policies' own
# metrics, and the wall-time fields of the summary.
OWN = {"scenario.json", "policy_metrics.csv"}


def run(out, sets, scenario=BASE, threads=None, check=True):
    cmd = [BINARY, "run", scenario, "--quiet", "--out", out]
    if threads:
        cmd += ["--threads", str(threads)]
    for s in sets:
        cmd += ["--set", s]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return done


def outputs(folder):
    files = {}
    for name in sorted(os.listdir(folder)):
        if name in OWN:
            continue
        with open(os.path.join(folder, name), "rb") as f:
            data = f.read()
        if name == "summary.json":
            summary = json.loads(data)
            for key in ("wall_time_s", "scenario", "strategy", "defence"):
                summary.pop(key, None)
            data = json.dumps(summary, sort_keys=True).encode()
        files[name] = data
    return files


def policy_file(folder, text):
    path = os.path.join(folder, "policy.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


class Policies(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="edgetrain-policies-")
        self.work = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.work, name)

    def assertSameFiles(self, a, b):
        fa, fb = outputs(a), outputs(b)
        self.assertEqual(sorted(fa), sorted(fb))
        for name in fa:
            self.assertTrue(fa[name] == fb[name], f"{name} differs between {a} and {b}")

    def test_examples_equal_the_built_in_rules(self):
        pairs = {
            "fedavg": ([], PYTHON + ["strategy.python=fedavg.py:FedAvg"]),
            "fedadam": (["strategy.kind=fedadam"], PYTHON + ["strategy.python=fedadam.py:FedAdam"]),
            "krum": (["defence.kind=krum", "defence.byzantine=1"],
                     PYTHON + ["strategy.python=krum.py:Krum", "strategy.settings={\"byzantine\": 1}"]),
        }
        for name, (built_in, python) in pairs.items():
            with self.subTest(name):
                run(self.out(name + "-built-in"), built_in)
                run(self.out(name + "-python"), python)
                self.assertSameFiles(self.out(name + "-built-in"), self.out(name + "-python"))
        # The tutorial's port of Flower's FedAvg averages the trained models: FedAvg to float32 rounding.
        run(self.out("flower"), PYTHON + ["strategy.python=flower_fedavg.py:FedAvg"])
        with open(os.path.join(self.out("flower"), "summary.json")) as f, \
                open(os.path.join(self.out("fedavg-built-in"), "summary.json")) as g:
            flower, built_in = json.load(f), json.load(g)
        self.assertAlmostEqual(flower["final_test_accuracy"], built_in["final_test_accuracy"], delta=0.01)
        with open(os.path.join(self.out("krum-python"), "policy_metrics.csv")) as f:
            self.assertEqual(f.readline().strip(), "round,source,key,value")
            self.assertRegex(f.readline(), r'^0,aggregate_fit,"chosen_device",\d$')

    def test_from_the_python_package(self):
        # edgetrain.run's child engine embeds its own interpreter: the same files as the command line's.
        script = textwrap.dedent(f"""
            import edgetrain
            run = edgetrain.run({os.path.join(ROOT, "scenarios", "python", "fedavg.json")!r}, out={self.out("api")!r},
                                set={{"stop.rounds": 3}})
            print(run.summary["status"])
            """)
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(BINARY)), "python"),
                   EDGETRAIN_ENGINE=os.path.abspath(BINARY))
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=self.work)
        self.assertEqual(done.stdout.strip(), "completed", done.stderr)
        run(self.out("cli"), ["stop.rounds=3"], scenario=os.path.join(ROOT, "scenarios", "python", "fedavg.json"))
        self.assertSameFiles(self.out("api"), self.out("cli"))

    def test_selection_and_deadline_are_seeded(self):
        sets = PYTHON + ["strategy.python=fedavg.py:FedAvg", "training.selection.kind=python",
                         "training.selection.python=oort.py:OortLike", "training.selection.per_round=3",
                         "training.deadline=python", "training.deadline_python=deadline.py:MedianDeadline",
                         "training.round_timeout_s=30", "stop.rounds=8"]
        run(self.out("one"), sets)
        run(self.out("two"), sets, threads=2)
        self.assertSameFiles(self.out("one"), self.out("two"))
        with open(os.path.join(self.out("one"), "rounds.csv")) as f:
            rows = f.read().splitlines()[1:]
        self.assertEqual(len(rows), 8)
        self.assertTrue(all(r.split(",")[6] == "3" for r in rows), "every round selects per_round devices")
        with open(os.path.join(self.out("one"), "selections.csv")) as f:
            outcomes = {line.split(",")[4] for line in f.read().splitlines()[1:]}
        self.assertIn("timed-out", outcomes, "the median deadline cuts the slowest devices")

    def test_declared_costs_are_charged(self):
        flops, down, up = 3e9, 1000, 24
        path = policy_file(self.work, f"""
            import fedavg

            class Slow(fedavg.FedAvg):
                def server_flops(self, server_round, num_updates, num_params):
                    return {flops}

            class Heavy(fedavg.FedAvg):
                def message_bytes(self, num_params):
                    return {down}, {up}
            """)
        shutil.copy(os.path.join(ROOT, "scenarios", "python", "fedavg.py"), self.work)  # what policy.py imports
        summary = {}
        for name in ("plain", "slow", "heavy"):
            cls = "fedavg.py:FedAvg" if name == "plain" else f"{path}:{name.capitalize()}"
            run(self.out(name), PYTHON + [f"strategy.python={cls}", "stop.rounds=4"])
            with open(os.path.join(self.out(name), "summary.json")) as f:
                summary[name] = json.load(f)
        plain, slow, heavy = summary["plain"], summary["slow"], summary["heavy"]
        self.assertEqual(heavy["bytes_down"] - plain["bytes_down"], down * 8 * 4)  # 8 devices, 4 rounds
        self.assertEqual(heavy["bytes_up"] - plain["bytes_up"], up * 8 * 4)
        # validate prints the sizes the run charges: a round's bytes are the run's bytes over its rounds.
        validate = [BINARY, "validate", BASE, "--set", PYTHON[0], "--set", f"strategy.python={path}:Heavy"]
        checked = subprocess.run(validate, cwd=ROOT, capture_output=True, text=True, check=True).stdout
        declared = f"the Python strategy declares {down} bytes beside each model and {up} beside each update"
        self.assertIn(declared, checked)
        round_bytes = re.search(r"a round: 8 devices picked x \(uplink \+ downlink\) = (\d+) bytes", checked)
        per_round = int(round_bytes.group(1))
        self.assertEqual(per_round * 4, heavy["bytes_up"] + heavy["bytes_down"])
        self.assertGreater(heavy["sim_time_s"], plain["sim_time_s"])
        with open(os.path.join(ROOT, "platforms", "quickstart.xml")) as f:
            speed = float(re.search(r'id="cloud"[^>]*speed="([0-9.e]+)Gf', f.read()).group(1)) * 1e9
        # Each round's close waits for the server's declared FLOPs, on one core of its host.
        self.assertAlmostEqual(slow["sim_time_s"] - plain["sim_time_s"], 4 * flops / speed, delta=1e-9)
        self.assertEqual(slow["bytes_up"], plain["bytes_up"])

    def test_an_exception_is_one_line_and_the_results_are_written(self):
        path = policy_file(self.work, """
            from edgetrain.strategy import Strategy

            class Broken(Strategy):
                def aggregate_fit(self, server_round, results, failures):
                    if server_round == 3:
                        return 1 / 0
                    return None, {}
            """)
        done = run(self.out("broken"), PYTHON + [f"strategy.python={path}:Broken"], check=False)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
        self.assertIn(f"{path}:7: ZeroDivisionError: division by zero (in aggregate_fit)", done.stderr)
        summary = json.load(open(os.path.join(self.out("broken"), "summary.json")))
        self.assertEqual(summary["status"], "failed")
        self.assertEqual(summary["rounds"], 2)

    def test_a_signal_stops_python(self):
        path = policy_file(self.work, """
            from edgetrain.strategy import Strategy

            class Stuck(Strategy):
                def aggregate_fit(self, server_round, results, failures):
                    while server_round > 1:
                        pass
                    return None, {}
            """)
        cmd = [BINARY, "run", BASE, "--quiet", "--out", self.out("stuck"), "--set", PYTHON[0], "--set",
               f"strategy.python={path}:Stuck"]
        process = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(2)
            self.assertIsNone(process.poll(), "the run ended before it was stuck")
            sent = time.monotonic()
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
            self.assertLess(time.monotonic() - sent, 5)
        finally:
            process.kill()  # a run the signal did not stop must not outlive the test
            process.wait()
        self.assertEqual(process.returncode, 130, err)
        summary = json.load(open(os.path.join(self.out("stuck"), "summary.json")))
        self.assertEqual(summary["status"], "interrupted")

    def test_bad_classes_and_answers(self):
        good = policy_file(self.work, """
            from edgetrain.policies import SelectionPolicy
            from edgetrain.strategy import Strategy

            class NoAggregate:
                pass

            class NeedsArgument(Strategy):
                def __init__(self, trim):
                    self.trim = trim

            class Stranger(SelectionPolicy):
                def select(self, server_round, candidates, num_clients):
                    return [999]

            class Greedy(SelectionPolicy):
                def select(self, server_round, candidates, num_clients):
                    return list(candidates)

            class Shapeless(Strategy):
                def aggregate_fit(self, server_round, results, failures):
                    return [r.update[0] for _, r in results], {}
            """)
        syntax = os.path.join(self.work, "syntax.py")
        with open(syntax, "w") as f:
            f.write("class Oops(:\n")
        select = ["training.selection.kind=python", "training.selection.per_round=2"]
        cases = [
            (PYTHON + ["strategy.python=missing.py:X"], 2, "strategy.python: file not found: "),
            (PYTHON + [f"strategy.python={good}"], 2, 'expected "FILE.py:CLASS"'),
            (PYTHON + [f"strategy.python={syntax[:-3]}.txt:Oops"], 2, "is not a .py file"),
            (PYTHON + [f"strategy.python={good}:1st"], 2, "is not a Python class name"),
            (PYTHON, 2, "strategy.python: required when strategy.kind is python"),
            (PYTHON + [f"strategy.python={good}:Nowhere"], 2, "policy.py defines no Nowhere"),
            (PYTHON + [f"strategy.python={good}:NoAggregate"], 2, "NoAggregate has no method aggregate_fit"),
            (PYTHON + [f"strategy.python={good}:NeedsArgument"], 2, "TypeError"),
            (PYTHON + [f"strategy.python={good}:NeedsArgument", "strategy.settings=[1]"], 2,
             "strategy.settings: expected an object of keyword arguments"),
            (PYTHON + [f"strategy.python={syntax}:Oops"], 2, f"{syntax}:1: SyntaxError"),
            (PYTHON + [f"strategy.python={good}:Shapeless"], 1, "aggregate_fit gave"),
            (PYTHON + ["strategy.python=fedavg.py:FedAvg", "training.aggregation=async"], 2, "needs rounds"),
            (PYTHON + ["strategy.python=fedavg.py:FedAvg", "defence.kind=median"], 2, "not with a defence"),
            (select + [f"training.selection.python={good}:Stranger"], 1,
             "select returned device 999, which is not a candidate"),
            (select + [f"training.selection.python={good}:Greedy"], 1,
             "select returned 8 devices, more than num_clients 2"),
            (["training.deadline=python"], 2, "training.deadline_python: required when training.deadline is python"),
            (["training.selection.kind=python", "training.selection.per_round=2"], 2,
             "training.selection.python: required when training.selection.kind is python"),
        ]
        for sets, status, message in cases:
            with self.subTest(sets=sets):
                done = run(self.out("bad"), sets + ["stop.rounds=2"], check=False)
                self.assertEqual(done.returncode, status, done.stderr)
                self.assertIn(message, done.stderr)
                self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)
                self.assertNotIn("Traceback", done.stderr)

    def test_a_population_timing_only(self):
        scenario = os.path.join(ROOT, "scenarios", "population", "plan-1m.json")
        sets = ["platform.devices=5000", "stop.rounds=3", "training.selection.kind=python",
                "training.selection.python=../python/uniform.py:Uniform", "strategy.kind=python",
                "strategy.python=../python/krum.py:Krum"]
        run(self.out("one"), sets, scenario=scenario)
        run(self.out("two"), sets, scenario=scenario, threads=2)
        self.assertSameFiles(self.out("one"), self.out("two"))
        with open(os.path.join(self.out("one"), "rounds.csv")) as f:
            rows = [line.split(",") for line in f.read().splitlines()[1:]]
        self.assertEqual([r[6] for r in rows], ["1000"] * 3)  # selected


if __name__ == "__main__":
    unittest.main()

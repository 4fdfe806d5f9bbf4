#!/usr/bin/python3
"""tools/traces: the FedScale converter reads plain data only (a pickle that would run code, or build
any object, is refused before anything runs), turns the two traces into the CSVs edgetrain reads, and
the synthetic generator writes the same schema, seeded (ctest: tools/traces)."""
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools", "traces")
sys.path.insert(0, TOOLS)
from fedscale_to_csv import RefusedPickle, availability_rows, capacity_rows, load_plain, on_windows  # noqa: E402
import synthetic  # noqa: E402


class RunsCode:
    """Pickles as a call of os.system: loading it with pickle.load would create the marker file."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def run_converter(*args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), *args],
                          capture_output=True, text=True)


class Converter(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(self):
        marker = self.path("ran")
        evil = pickle.dumps({1: {"computation": 10.0, "communication": RunsCode(marker)}})
        # The premise: the standard unpickler would run it.
        pickle.loads(evil)
        self.assertTrue(os.path.exists(marker))
        os.remove(marker)
        with self.assertRaises(RefusedPickle) as e:
            load_plain(evil)
        self.assertIn("system", str(e.exception))
        self.assertFalse(os.path.exists(marker))
        with open(self.path("evil.pkl"), "wb") as f:
            f.write(evil)
        r = run_converter("--capacity", self.path("evil.pkl"), "--capacity-out", self.path("out.csv"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("fedscale_to_csv: the pickle asks for", r.stderr)
        self.assertFalse(os.path.exists(marker))
        self.assertFalse(os.path.exists(self.path("out.csv")))

    def test_objects_other_than_plain_data_are_refused(self):
        import collections
        for value in (collections.OrderedDict(a=1), {1: {2, 3}}, {1: b"bytes"}, {1: 2.5j}):
            with self.assertRaises(RefusedPickle, msg=repr(value)):
                load_plain(pickle.dumps(value, protocol=4))
        with self.assertRaises(RefusedPickle):
            load_plain(b"not a pickle")
        plain = {1: {"computation": 162.0, "communication": 5648.1, "tags": ["a", (1, None, True)]}}
        self.assertEqual(load_plain(pickle.dumps(plain, protocol=2)), plain)

    def test_capacity_rows_are_fedscale_fields(self):
        self.assertEqual(capacity_rows({7: {"computation": 162.0, "communication": 5648.1}}),
                         [("7", 162.0, 5648.1)])
        with self.assertRaises(ValueError):
            capacity_rows({7: {"computation": "fast", "communication": 1.0}})

    def test_behaviour_windows_repeat_every_period_sorted_clipped_and_merged(self):
        rec = {"active": [60, 10, 95], "inactive": [80, 30, 120], "finish_time": 100}
        # One period: [10, 30), [60, 80), [95, 100) (clipped to the period).
        self.assertEqual(on_windows(rec, None, 1), [(10, 30), (60, 80), (95, 100)])
        # Two and a half periods: the windows again at +100 and +200, the horizon cutting the last period.
        self.assertEqual(on_windows(rec, 250, 1),
                         [(10, 30), (60, 80), (95, 100), (110, 130), (160, 180), (195, 200), (210, 230)])
        # A window ending at the period meets the next one starting at 0: merged.
        self.assertEqual(on_windows({"active": [0, 50], "inactive": [10, 100], "finish_time": 100}, 200, 1),
                         [(0, 10), (50, 110), (150, 200)])
        # Empty and inverted windows are left out.
        self.assertEqual(on_windows({"active": [5, 9], "inactive": [5, 3], "finish_time": 10}, None, 1), [])
        self.assertEqual(availability_rows({4: rec}), [("4", 10, 30), ("4", 60, 80), ("4", 95, 100)])


class Synthetic(unittest.TestCase):
    def test_seeded_and_round_trips_through_fedscale_pickles(self):
        with tempfile.TemporaryDirectory() as d:
            def gen(seed, sub):
                os.makedirs(os.path.join(d, sub))
                cap, on = os.path.join(d, sub, "cap.csv"), os.path.join(d, sub, "on.csv")
                synthetic.main(["--devices", "20", "--seed", str(seed), "--capacity-out", cap, "--availability-out",
                                on, "--pickles", os.path.join(d, sub)])
                return cap, on
            a, b, c = gen(3, "a"), gen(3, "b"), gen(4, "c")
            def read(p):
                with open(p, encoding="utf-8") as f:
                    return f.read()
            self.assertEqual(read(a[0]), read(b[0]))
            self.assertEqual(read(a[1]), read(b[1]))
            self.assertNotEqual(read(a[0]), read(c[0]))
            cap2, on2 = os.path.join(d, "cap2.csv"), os.path.join(d, "on2.csv")
            r = run_converter("--capacity", os.path.join(d, "a", "client_device_capacity"), "--behaviour",
                              os.path.join(d, "a", "client_behave_trace"), "--capacity-out", cap2,
                              "--availability-out", on2)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(read(cap2), read(a[0]))
            self.assertEqual(read(on2), read(a[1]))
            lines = read(a[0]).splitlines()
            self.assertEqual(lines[0], "device,compute_ms_per_sample,bandwidth_kbps")
            self.assertEqual(len(lines), 21)

    def test_marginals_are_the_documented_ones(self):
        cap = synthetic.capacity(4000, 1)
        ms = [r["computation"] for r in cap.values()]
        kbps = [r["communication"] for r in cap.values()]
        self.assertAlmostEqual(statistics.median(ms) / 162.0, 1.0, delta=0.06)
        self.assertAlmostEqual(statistics.median(kbps) / 5648.1, 1.0, delta=0.1)
        self.assertTrue(all(5 <= m <= 5000 for m in ms))
        for rec in synthetic.behaviour(500, 1).values():
            self.assertEqual(rec["finish_time"], 518400)
            self.assertTrue(1 <= len(rec["active"]) <= 15)
            self.assertTrue(all(a < b for a, b in zip(rec["active"], rec["inactive"])))
            self.assertTrue(all(b <= a for b, a in zip(rec["inactive"], rec["active"][1:])))
            self.assertLessEqual(rec["inactive"][-1], 518400)


class AcceptedByEdgetrain(unittest.TestCase):
    """The generated CSVs are what `edgetrain validate` reads (given the binary: traces_test.py EDGETRAIN)."""

    def test_synthetic_traces_validate(self):
        if not BINARY:
            self.skipTest("no edgetrain binary given")
        source = os.path.join(HERE, "..", "sim", "data")
        with tempfile.TemporaryDirectory() as d:
            cap, on = os.path.join(d, "cap.csv"), os.path.join(d, "on.csv")
            synthetic.main(["--devices", "5", "--seed", "2", "--capacity-out", cap, "--availability-out", on])
            r = subprocess.run([BINARY, "validate", os.path.join(source, "two-devices.json"), "--set",
                                "training.round_timeout_s=1", "--set",
                                f'traces={{"availability":"{on}","capacity":"{cap}","assign":"most-data-fastest"}}'],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("assigned by most-data-fastest", r.stdout)


BINARY = None

if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = sys.argv.pop(1)
    unittest.main()

#!/usr/bin/python3
"""tools/traces: the FedScale converter reads plain data only (a pickle that would run code, or build
any object, is refused before anything runs), turns the two traces into the CSVs edgetrain reads, and
the synthetic generator writes the same schema, seeded (ctest: tools/traces)."""
import os
import pickle
import statistics
import subprocess
import sys
import re
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools", "traces")
sys.path.insert(0, TOOLS)
from fedscale_to_csv import availability_rows, capacity_rows, on_windows  # noqa: E402
from plain_pickle import RefusedPickle, check_plain, load_plain  # noqa: E402
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


def nested_tuples(levels):
    """A tuple holding the previous level twice, `levels` deep: a tree of 2^levels leaves in a pickle of
    a few hundred bytes (each level refers to the one before through the memo)."""
    t = ()
    for _ in range(levels):
        t = (t, t)
    return t


def self_holding_list():
    cycle = []
    cycle.append(cycle)
    return cycle


def deep_lists(depth):
    """A pickle of `depth` nested lists, written opcode by opcode (pickle.dumps would recurse)."""
    return b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."


CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class Hostile(unittest.TestCase):
    """Pickles that once looped for ever, took 2^100 steps or 10^306 periods, or ended in a traceback:
    each is refused with one line on stderr and exit status 2, in bounded time, and writes nothing."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def pickle_file(self, value, name="in.pkl", protocol=4):
        data = value if isinstance(value, bytes) else pickle.dumps(value, protocol=protocol)
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def converter(self, *args, seconds=20):
        start = time.monotonic()
        r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), *args,
                            "--capacity-out", self.path("cap.csv"), "--availability-out", self.path("on.csv")],
                           capture_output=True, text=True, errors="replace", timeout=120)
        self.assertLess(time.monotonic() - start, seconds, args)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def refused(self, value, trace, *expected, args=(), protocol=4, seconds=20):
        """Converts `value` (pickled, or bytes as they are) as the `trace` pickle: exit 2, one line holding
        every `expected` text, no control character in it, and no output file."""
        r = self.converter(f"--{trace}", self.pickle_file(value, protocol=protocol), *args, seconds=seconds)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("fedscale_to_csv: "), r.stderr)
        self.assertIsNone(CONTROL.search(r.stderr.rstrip("\n")), repr(r.stderr))
        for text in expected:
            self.assertIn(text, r.stderr)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["in.pkl"])
        return r.stderr

    def test_a_list_that_holds_itself_is_walked_once(self):
        cycle = self_holding_list()
        check_plain(cycle)  # returns: the walk keeps a visited set
        loaded = load_plain(pickle.dumps(cycle))
        self.assertIs(loaded[0], loaded)
        self.refused(cycle, "capacity", "expected a dict of client id -> record, got a list of 1 item")
        self.refused({1: {"active": cycle, "inactive": cycle, "finish_time": 10}}, "behaviour",
                     "client 1 active[0]: expected a number, got a list of 1 item")
        self.refused({1: {"computation": cycle, "communication": 1.0}}, "capacity", "expected a number")
        looped = {}
        looped[1] = looped  # a client whose record is the whole trace
        self.refused(looped, "behaviour", "client 1: expected a dict with active, inactive and finish_time")

    def test_shared_nested_tuples_cost_one_visit_per_distinct_tuple(self):
        tree = nested_tuples(100)
        data = pickle.dumps({1: {"computation": tree, "communication": 1.0, "model": tree}}, protocol=4)
        self.assertLess(len(data), 600)
        start = time.monotonic()
        check_plain(load_plain(data))  # 2^100 leaves, 101 distinct tuples
        self.assertLess(time.monotonic() - start, 1)
        self.refused(data, "capacity", "client 1 computation: expected a number, got a tuple of 2 items")
        self.refused({1: {"active": [tree], "inactive": [1], "finish_time": 10, "model": tree}}, "behaviour",
                     "active[0]: expected a number, got a tuple")
        self.refused(tree, "behaviour", "expected a dict of client id -> record, got a tuple of 2 items")
        # The tree as a dict key (the test cannot build that dict: hashing the key takes 2^100 steps).
        as_key = b"\x80\x02}" + pickle.dumps(tree, protocol=2)[2:-1] + b"K\x01s."
        self.refused(as_key, "capacity", "dict key that is a tuple", "keys are strings or integers")

    def test_periods_are_counted_not_looped(self):
        # finish_time 1e-300 up to 10^9 s was 10^309 periods; below the clock's resolution it is refused.
        self.refused({1: {"active": [0], "inactive": [1e-300], "finish_time": 1e-300}}, "behaviour",
                     "finish_time must be at least 1e-06 s", args=("--horizon-s", "1e9"), seconds=5)
        # 1us up to 10^9 s: 10^15 periods, counted before a row is made.
        self.refused({1: {"active": [0], "inactive": [5e-7], "finish_time": 1e-6}}, "behaviour",
                     "repeated 1,000,000,000,000,000 times", "more than the 1,000,000 a client may have",
                     args=("--horizon-s", "1e9"), seconds=5)
        # 11 clients of 10^6 rows each: past the 10^7 rows of one CSV, found before any row is made.
        rec = {"active": [0], "inactive": [1], "finish_time": 1000}
        self.refused({i: rec for i in range(11)}, "behaviour", "more than 10,000,000 rows in all",
                     "client number 11", args=("--horizon-s", "1e9"), seconds=5)
        # Always on: one interval, whatever the number of periods.
        self.assertEqual(on_windows({"active": [0], "inactive": [1e-6], "finish_time": 1e-6}, 1e9, 1), [(0, 1e9)])
        # The default horizon is one period, cut at 10^9 s (the longest time edgetrain simulates).
        self.assertEqual(on_windows({"active": [5, 10], "inactive": [7, 1e300], "finish_time": 1e300}, None, 1),
                         [(5, 7), (10, 1e9)])
        for horizon in ("inf", "nan", "-1", "0", "1e10"):
            r = self.converter("--behaviour", self.pickle_file({1: rec}), f"--horizon-s={horizon}", seconds=5)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)
            self.assertIn("--horizon-s", r.stderr)

    def test_numbers_that_are_not_finite_doubles(self):
        for bad, shown in ((10**10000, "an integer of 33220 bits"), (float("inf"), "inf"), (float("nan"), "nan"),
                           (True, "True"), ("fast", '"fast"'), (None, "None"), (-(10**400), "an integer of")):
            self.refused({7: {"computation": bad, "communication": 1.0}}, "capacity",
                         "client 7 computation", shown)
            self.refused({7: {"computation": 1.0, "communication": bad}}, "capacity",
                         "client 7 communication", shown)
            self.refused({7: {"active": [0], "inactive": [1], "finish_time": bad}}, "behaviour",
                         "client 7 finish_time", shown)
            self.refused({7: {"active": [bad], "inactive": [1], "finish_time": 10}}, "behaviour",
                         "client 7 active[0]", shown)
        # Out of the ranges edgetrain reads: refused here, naming the client, rather than later by line.
        self.refused({7: {"computation": 0, "communication": 1.0}}, "capacity", "ms per sample must be > 0")
        self.refused({7: {"computation": 1e8, "communication": 1.0}}, "capacity", "<= 1e+07")
        self.refused({7: {"computation": 1.0, "communication": -5}}, "capacity", "kbit/s must be >= 0.001")
        self.refused({7: {"computation": 1.0, "communication": 1e13}}, "capacity", "<= 1e+12")
        self.refused({7: {"active": [0], "inactive": [1], "finish_time": -10}}, "behaviour",
                     "finish_time must be at least 1e-06 s")
        # A number of 5,000 digits in protocol 0's text (LONG): refused as Python's int() refuses it.
        self.refused(b"(dI1\n(dVcomputation\nL" + b"9" * 5000 + b"L\nsss.", "capacity", "not a readable pickle")

    def test_deep_nesting_is_not_recursion(self):
        self.refused(deep_lists(500_000), "capacity", "expected a dict of client id -> record, got a list of 1 item")
        deep_record = (b"\x80\x02}K\x01}X\x06\x00\x00\x00active" + b"]" * 200_000 + b"a" * 199_999 +
                       b"X\x08\x00\x00\x00inactive]X\x0b\x00\x00\x00finish_timeK\x0au" + b"s.")
        deep_record = deep_record.replace(b"}X\x06", b"}(X\x06", 1)
        self.refused(deep_record, "behaviour", "active and inactive must be lists of one length")

    def test_what_a_pickle_may_ask_of_the_loader(self):
        # A memo slot 2^31: Python's C unpickler sizes its memo array by the index (16 GiB).
        self.refused(b"\x80\x02]r\xff\xff\xff\x7f.", "capacity", "got a list of 0 items")
        # Integer keys equal modulo 2^61 - 1 share one hash: quadratic dict inserts. Refused by size.
        colliding = b"\x80\x04}(" + b"".join(b"\x8a\x10" + (k * (2**61 - 1) + 5).to_bytes(16, "little", signed=True)
                                             + b"N" for k in range(1, 200)) + b"u."
        self.refused(colliding, "capacity", "dict key of 62 bits")
        self.refused(b"\x80\x04}(" + b"\x8a\x09" + (10**20).to_bytes(9, "little") + b"Nu.", "capacity",
                     "integer keys are read up to 2^61 - 2")
        for key in (1.5, None, True):
            self.refused({key: {"computation": 1.0, "communication": 1.0}}, "capacity", "keys are strings or integers")
        self.refused(b"", "capacity", "empty")
        self.refused(b"\x80\x04\x95", "capacity", "not a readable pickle")
        self.refused(b"\x80\x09N.", "capacity", "protocol 9")
        self.refused(b"\xff", "capacity", "opcode 0xff")
        # A GLOBAL naming a module with a newline and a terminal escape: refused, the name escaped.
        line = self.refused(b"\x80\x04\x8c\x0cos\x1b[31m\nevil\x94\x8c\x06system\x94\x93\x94.", "capacity",
                            "the pickle asks for os\\x1b[31m\\x0aevil.system")
        self.assertNotIn("\x1b", line)
        # Every prefix of a valid pickle: refused as unreadable, never anything else.
        data = pickle.dumps({1: {"computation": 162.0, "communication": [1, "x", (2.5, None)]}}, protocol=2)
        for n in range(len(data)):
            with self.assertRaises(RefusedPickle):
                load_plain(data[:n])

    def test_client_ids_are_device_names(self):
        rec = {"computation": 1.0, "communication": 1.0}
        line = self.refused({"evil\n1,0,5\x1b[31m": rec}, "capacity", 'client "evil\\x0a1,0,5\\x1b[31m"',
                            "printable ASCII")
        self.assertNotIn("\x1b", line)
        self.refused({1: rec, "1": rec}, "capacity", 'client 1 and client "1" are both device "1"')
        for name, why in (("a,b", "without , or"), ('a"b', "without , or"), ("#3", "starts with #"),
                          (" x", "a space at either end"), ("x" * 65, "1 to 64 characters"), ("", "1 to 64"),
                          ("caf\u00e9", "printable ASCII"), ("\u202ex", "printable ASCII")):
            self.refused({name: rec}, "capacity", why)
        self.assertEqual(capacity_rows({"pi-1": rec, -3: rec}), [("pi-1", 1.0, 1.0), ("-3", 1.0, 1.0)])

    def test_behaviour_records_of_other_shapes(self):
        self.refused({1: {"active": [0, 5], "inactive": [1], "finish_time": 10}}, "behaviour",
                     "lists of one length, got 2 and 1 entries")
        self.refused({1: {"active": 5, "inactive": [1], "finish_time": 10}}, "behaviour", "must be lists")
        self.refused({1: {"active": [0], "finish_time": 10}}, "behaviour", "expected a dict with active")
        self.refused({1: [0, 1]}, "behaviour", "got a list of 2 items")
        # Negative times and times past the period are clipped to [0, finish_time] (FedScale's wrap).
        self.assertEqual(on_windows({"active": [-5, -20, 8], "inactive": [3, -10, 50], "finish_time": 10}, None, 1),
                         [(0, 3), (8, 10)])
        # Lists shared by 3,000 clients are read once; the rows are what each client makes.
        shared = {"active": list(range(0, 2000, 2)), "inactive": list(range(1, 2001, 2)), "finish_time": 2000}
        start = time.monotonic()
        rows = availability_rows({i: shared for i in range(300)})
        self.assertEqual(len(rows), 300 * 1000)
        self.assertLess(time.monotonic() - start, 10)

    def test_inputs_and_outputs(self):
        good = self.pickle_file({1: {"computation": 1.0, "communication": 2.0}}, "good.pkl")
        r = self.converter("--capacity", "/dev/zero", seconds=30)
        self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)
        self.assertIn("more than the 256 MiB", r.stderr)
        r = self.converter("--capacity", self.dir.name)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is a folder", r.stderr)
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        r = self.converter("--capacity", fifo, seconds=10)  # nobody writes: empty, not a wait
        self.assertEqual(r.returncode, 2)
        self.assertIn("empty", r.stderr)
        os.unlink(fifo)
        # An output that is the input, or both outputs one file: refused, nothing written.
        r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), "--capacity", good,
                            "--capacity-out", good], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the input", r.stderr)
        r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), "--capacity", good,
                            "--behaviour", good, "--capacity-out", self.path("x.csv"), "--availability-out",
                            self.path("x.csv")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        # A bad behaviour trace: the good capacity trace is not written either.
        bad = self.pickle_file({1: {"active": [0], "inactive": [1], "finish_time": float("nan")}}, "bad.pkl")
        r = self.converter("--capacity", good, "--behaviour", bad)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(sorted(os.listdir(self.dir.name)), ["bad.pkl", "good.pkl"])
        # A device that refuses the write: one line, no temporary left.
        r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), "--capacity", good,
                            "--capacity-out", "/dev/full"], capture_output=True, text=True)
        self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)
        self.assertIn("/dev/full: cannot write", r.stderr)
        # /dev/stdout is written through (a shell's redirection to a file keeps its offset).
        r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), "--capacity", good,
                            "--capacity-out", "/dev/stdout"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "device,compute_ms_per_sample,bandwidth_kbps\n1,1,2\n")
        for out in ("", "x/", "."):  # no file name: refused before a temporary is made beside it
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), "--capacity", good,
                                "--capacity-out", out], capture_output=True, text=True, cwd=self.dir.name)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)
            self.assertIn("not a file name", r.stderr)
        for args in (["--limit", "0"], ["--limit", "x"], ["--bogus"], []):
            r = subprocess.run([sys.executable, os.path.join(TOOLS, "fedscale_to_csv.py"), *args],
                               capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr.count("\n")), (2, 1), r.stderr)

    def test_the_output_is_bounded_by_what_edgetrain_reads(self):
        import fedscale_to_csv
        rows = [("d", 0, 1)] * 100
        with self.assertRaises(ValueError) as e:
            fedscale_to_csv.write_csv(self.path("o.csv"), "device,start_s,end_s", rows, max_bytes=500)
        self.assertIn("larger than", str(e.exception))
        self.assertFalse(os.path.exists(self.path("o.csv")))
        self.assertEqual(os.listdir(self.dir.name), [])


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

#!/usr/bin/python3
"""tools/traces: a property test of the FedScale converter (ctest: tools/traces-fuzz). Random pickles
(random plain data in every protocol, FedScale-shaped traces with hostile numbers, containers shared
many times or holding themselves, huge numbers, truncations, flipped and inserted bytes, random bytes)
are converted; whatever they hold, the converter ends with exit status 0, or 2 and exactly one line on
stderr with no control character in it, never a traceback, within 5 s (plus 2 us a row written: a few
bytes may ask for the 10^7 rows a CSV may hold), writing nothing but its outputs.

Deterministic (derandomize=True, no example database written) and about 15 s in all; the in-process
part runs the same conversion steps on more examples, so that the subprocess part can stay small."""
import atexit
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

# Hypothesis keeps a cache (Unicode tables) in ./.hypothesis even without an example database: a
# temporary folder instead, so that the test writes nothing into the source tree it runs in.
_STORAGE = tempfile.mkdtemp(prefix="hypothesis-")
atexit.register(shutil.rmtree, _STORAGE, True)
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _STORAGE

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools", "traces")
CONVERTER = os.path.join(TOOLS, "fedscale_to_csv.py")
sys.path.insert(0, TOOLS)
import fedscale_to_csv  # noqa: E402

SECONDS = 5  # per conversion, plus the time of the rows written: a small pickle may ask for up to 10^7 (12 s)
PER_ROW = 2e-6  # seconds a row takes at most (10^7 rows: about 12 s)
HANG = 60  # a conversion still running after this is a hang


def allowed(rows):
    return SECONDS + PER_ROW * rows
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# Numbers that have broken converters: huge integers, non-finite floats, booleans, tiny and negative ones.
EDGE_NUMBERS = [0, -1, 1, True, False, 10**400, -(10**10000), 2**61 - 1, 2**63, float("inf"), float("-inf"),
                float("nan"), 1e-300, 5e-324, 1e308, -0.0, 1e-6, 1e9, 1e15]

# By index: hypothesis shows a sampled_from's elements with repr(), which refuses 10**10000.
def edge_number(i):
    return EDGE_NUMBERS[i]


edge_numbers = st.integers(0, len(EDGE_NUMBERS) - 1).map(edge_number)
scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(), edge_numbers,
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20), st.sampled_from(["active", "inactive", "finish_time", "computation", "communication",
                                           "evil\n1,0,5", "\x1b[31m", "#x", " x", "a,b", "x" * 70]),
)
# Mostly what FedScale holds (integer client ids, plausible numbers), so that conversions get far;
# hypothesis' one_of draws its branches evenly, so the usual ones are listed more than once.
client_ids = st.one_of(st.integers(0, 10**6), st.text("abcdefghij-_.0123456789", min_size=1, max_size=8))
keys = st.one_of(client_ids, client_ids, client_ids, st.integers(-5, 50), st.text(max_size=8), edge_numbers,
                 st.sampled_from(["1", "a,b", "\n"]))
plain = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.lists(inner, max_size=4).map(tuple),
                            st.dictionaries(keys, inner, max_size=4)),
    max_leaves=30,
)
usual = st.one_of(st.floats(0.001, 1e6), st.integers(1, 10**6))
numbers = st.one_of(usual, usual, usual, edge_numbers, st.floats(-10, 1e6), plain)
times = st.one_of(st.lists(usual, max_size=6).map(sorted), st.lists(numbers, max_size=6))
capacity_record = st.fixed_dictionaries({"computation": numbers, "communication": numbers})
behaviour_record = st.fixed_dictionaries({"active": times, "inactive": times, "finish_time": numbers},
                                         optional={"duration": numbers, "model": plain})


def as_record(windows, period):
    """FedScale's shape: windows [(start, length)] as active and inactive lists of one length."""
    return {"active": [a for a, _ in windows], "inactive": [a + n for a, n in windows], "finish_time": period}


fedscale_record = st.builds(as_record, st.lists(st.tuples(usual, usual), max_size=5), st.one_of(usual, numbers))
behaviour_record = st.one_of(behaviour_record, fedscale_record, fedscale_record)
fedscale = st.one_of(st.dictionaries(keys, capacity_record, max_size=6),
                     st.dictionaries(keys, behaviour_record, max_size=6),
                     st.dictionaries(keys, st.one_of(capacity_record, behaviour_record, plain), max_size=6))


def containers(value):
    """The lists and dicts reachable from value, each once."""
    found, seen, stack = [], set(), [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple, dict)) and id(v) not in seen:
            seen.add(id(v))
            if not isinstance(v, tuple):
                found.append(v)
            stack.extend(v.values() if isinstance(v, dict) else v)
    return found


@st.composite
def pickles(draw):
    """Bytes to convert: a pickle of random or FedScale-shaped data, with shared and self-holding
    containers wired in, maybe damaged; or random bytes."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.binary(max_size=200))
    value = draw(st.one_of(fedscale, fedscale, plain))
    boxes = containers(value)
    # Sharing and cycles: one container put inside another (or inside itself).
    for _ in range(draw(st.integers(0, 3)) if boxes and draw(st.booleans()) else 0):
        target, item = boxes[draw(st.integers(0, len(boxes) - 1))], boxes[draw(st.integers(0, len(boxes) - 1))]
        if isinstance(target, list):
            target.append(item)
        else:
            target[draw(keys)] = item
    if draw(st.integers(0, 3)) == 0:  # shared nested tuples: 2^depth leaves in a few hundred bytes
        tree = ()
        for _ in range(draw(st.integers(1, 80))):
            tree = (tree, tree)
        if boxes and isinstance(boxes[0], list):
            boxes[0].append(tree)
        elif boxes:
            boxes[0]["model"] = tree
    try:
        data = pickle.dumps(value, protocol=draw(st.integers(0, 5)))
    except (RecursionError, ValueError):
        data = pickle.dumps(None)
    damage = draw(st.sampled_from(["none"] * 6 + ["truncate", "flip", "insert"]))
    if damage == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "flip":
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + bytes([draw(st.integers(0, 255))]) + data[at + 1:]
    elif damage == "insert":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data


def options(draw_horizon):
    return [] if draw_horizon is None else ["--horizon-s", repr(draw_horizon)]


horizons = st.one_of(st.none(), st.sampled_from([1e-3, 1.0, 1e4, 1e6, 1e9]))


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout()


class Converter(unittest.TestCase):
    @settings(max_examples=400, deadline=HANG * 1000, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(pickles(), horizons)
    def test_in_process_only_refusals(self, data, horizon):
        """The conversion steps raise only RefusedPickle or ValueError (the one-line refusals), in bounded time."""
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(HANG)
        start, written = time.monotonic(), 0
        try:
            value = fedscale_to_csv.load_plain(data)
            for step in (lambda: fedscale_to_csv.capacity_rows(value),
                         lambda: list(fedscale_to_csv.iter_availability_rows(
                             fedscale_to_csv.availability_plans(value, horizon)))):
                try:
                    rows = step()
                    written += len(rows)
                except ValueError as e:
                    self.assertNotIn("\n", str(e))
                else:
                    text = "".join(fedscale_to_csv.csv_text("h", rows, fedscale_to_csv.MAX_OUTPUT_BYTES))
                    self.assertEqual(text.count("\n"), len(rows) + 1)  # one line per row: names are plain cells
        except fedscale_to_csv.RefusedPickle as e:
            self.assertNotIn("\n", str(e))
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        self.assertLess(time.monotonic() - start, allowed(written))

    @settings(max_examples=120, deadline=HANG * 1000, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(pickles(), st.sampled_from(["--capacity", "--behaviour"]), horizons)
    def test_command_exits_0_or_2_with_one_line(self, data, trace, horizon):
        with tempfile.TemporaryDirectory() as d:
            source = os.path.join(d, "in.pkl")
            with open(source, "wb") as f:
                f.write(data)
            start = time.monotonic()
            r = subprocess.run([sys.executable, CONVERTER, trace, source, "--capacity-out", os.path.join(d, "c.csv"),
                                "--availability-out", os.path.join(d, "a.csv"), *options(horizon)],
                               capture_output=True, timeout=HANG)
            elapsed = time.monotonic() - start
            stderr = r.stderr.decode("utf-8", "replace")
            written = re.match(r".*: (\d+) (devices|on intervals)\n$", stderr) if r.returncode == 0 else None
            self.assertLess(elapsed, allowed(int(written.group(1)) if written else 0), stderr)
            self.assertNotIn("Traceback", stderr)
            self.assertIn(r.returncode, (0, 2), stderr)
            self.assertEqual(stderr.count("\n"), 1, stderr)  # the refusal, or the count of rows written
            self.assertIsNone(CONTROL.search(stderr.rstrip("\n")), repr(stderr))
            written = sorted(os.listdir(d))
            if r.returncode == 2:
                self.assertEqual(written, ["in.pkl"])
            else:
                self.assertEqual(written, ["a.csv" if trace == "--behaviour" else "c.csv", "in.pkl"])


if __name__ == "__main__":
    unittest.main()

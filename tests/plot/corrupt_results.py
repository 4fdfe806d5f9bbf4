"""A seeded randomised corruption test of the report's and the plots' readers (it stands in for a
fuzz target: the readers are Python). Each case copies a real results folder (a run, a sweep),
damages one file it reads (truncated, bytes flipped, NUL or binary bytes inserted, a JSON value or a
CSV cell of another type, a column removed, nesting 100,000 deep, a 1 GB sparse file) and runs
`edgetrain report` (and every fourth case `edgetrain plot`) in this process: the answer must be exit 0,
or exit 2 with one line naming a file; never exit 1 (an internal error) nor an exception.
Usage: corrupt_results.py SEED CASES RUN_DIR SWEEP_DIR"""

import contextlib
import io
import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "plot"))
import edgetrain_plots  # noqa: E402


def files_of(folder):
    out = []
    for root, _, names in os.walk(folder):
        out += [os.path.join(root, n) for n in names if n.endswith((".csv", ".json"))]
    return sorted(out)


def other_value(rng):
    return rng.choice(["abc", "", 0, -1, 1e308, True, None, [], [1, "x"], {}, {"a": {"b": 1}}, "1,2", "\u00e9"])


def mutate_json(rng, value):
    """A random value somewhere inside `value` replaced by one of another type."""
    if not isinstance(value, (dict, list)) or not value or rng.random() < 0.2:
        return other_value(rng)
    if isinstance(value, dict):
        key = rng.choice(sorted(value))
        value[key] = mutate_json(rng, value[key])
    else:
        i = rng.randrange(len(value))
        value[i] = mutate_json(rng, value[i])
    return value


def mutate(rng, path):
    data = open(path, "rb").read()
    kind = rng.choice(["truncate", "flip", "nul", "binary", "type", "type", "column", "deep", "huge"])
    if kind == "truncate":
        data = data[: rng.randrange(len(data) + 1)]
    elif kind == "flip":
        data = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
    elif kind == "nul":
        at = rng.randrange(len(data) + 1)
        data = data[:at] + b"\0" * rng.randint(1, 3) + data[at:]
    elif kind == "binary":
        at = rng.randrange(len(data) + 1)
        data = data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 32))) + data[at:]
    elif kind == "type" and path.endswith(".json"):
        try:
            data = json.dumps(mutate_json(rng, json.loads(data))).encode()
        except ValueError:
            pass
    elif kind in ("type", "column") and path.endswith(".csv"):
        lines = data.decode("utf-8", "replace").split("\n")
        rows = [line.split(",") for line in lines]
        r = rng.randrange(len(rows))
        if kind == "column":
            c = rng.randrange(max(1, len(rows[0])))
            rows = [row[:c] + row[c + 1:] if r == 0 or rng.random() < 0.5 else row for row in rows]
        elif rows[r]:
            rows[r][rng.randrange(len(rows[r]))] = str(other_value(rng))
        data = "\n".join(",".join(row) for row in rows).encode()
    elif kind == "deep":
        data = b"[" * 100000 + b"]" * 100000 if path.endswith(".json") else b"a," * 1000000
    elif kind == "huge":
        with open(path, "wb") as f:
            f.write(data)
            f.truncate(1 << 30)  # sparse: 1 GB to the readers, nothing on disk
        return kind
    with open(path, "wb") as f:
        f.write(data)
    return kind


def run(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = edgetrain_plots.main(argv)
    return code, err.getvalue()


def main(seed, cases, sources):
    rng = random.Random(seed)
    counts = {0: 0, 2: 0}
    with tempfile.TemporaryDirectory(prefix="edgetrain-corrupt-") as tmp:
        for case in range(cases):
            source = rng.choice(sources)
            folder = os.path.join(tmp, f"case{case}")
            shutil.copytree(source, folder)
            target = rng.choice(files_of(folder))
            kind = mutate(rng, target)
            command = "plot" if case % 4 == 3 else "report"
            out = os.path.join(tmp, f"out{case}" + ("" if command == "plot" else ".html"))
            where = f"seed {seed} case {case}: {kind} of {os.path.relpath(target, folder)}, {command}"
            try:
                code, err = run([command, folder, "-o", out])
            except BaseException as e:  # noqa: BLE001 (what must never happen)
                print(f"FAIL {where}: {type(e).__name__}: {e}")
                return 1
            lines = err.splitlines()
            if code not in (0, 2) or (code == 2 and len(lines) != 1) or "internal error" in err:
                print(f"FAIL {where}: exit {code}: {err.strip()}")
                return 1
            counts[code] += 1
            shutil.rmtree(folder)
    print(f"{cases} corrupted folders: {counts[0]} drawn (exit 0), {counts[2]} refused with one line (exit 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]))

"""Reading the files of a results folder as untrusted input, the one reader of edgetrain's results: the
plots and the report (src/plot), the Python package (edgetrain._result_files, a link to this file, copied
into the package when it is built) and the results scripts (tools/results_lib.py) all read through it.
Standard library only, so that each imports it as it is.

Every file goes through read_text (a regular file, at most MAX_BYTES of its kind, UTF-8 without NUL
bytes), then load_json (at most MAX_DEPTH levels, the shape the readers rely on) or csv_rows (numeric
columns hold numbers). Anything else is an InputError naming the file and what is wrong (exit 2).
The (device, inode) of every file read is kept, so that an output never replaces an input."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import stat
from typing import Any, Union

PathLike = Union[str, "os.PathLike[str]"]  # a path as open() takes it

# Per kind of file; larger ones are refused with their size (documented in docs/reference/bad-input.md).
# A CSV takes about ten times its size in memory once read: 64 MB of text is some 650 MB.
MAX_BYTES = {"json": 16 << 20, "csv": 64 << 20}
MAX_DEPTH = 64  # as for scenarios
# The text columns of a run's CSV files; every other column holds numbers (or nothing).
TEXT_COLUMNS = {"device", "host", "class", "bound", "link", "slowest_device", "sharing",
                "secagg_failed_phase", "aggregator", "outcome"}
# The columns edgetrain always fills with a finite number, which the figures compute with.
REQUIRED = {
    "metrics.csv": ("sim_time_s", "round", "bytes_up", "bytes_down"),
    "devices.csv": ("host_speed_flops", "compute_s", "wait_s", "comm_s", "bytes_up", "bytes_down"),
    "links.csv": ("bandwidth_bps", "latency_s", "bytes", "messages", "mean_utilization", "busy_s", "busy_fraction",
                  "utilization_when_busy"),
    "buffers.csv": ("sim_time_s", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"),
    "buffers_fleet.csv": ("sim_time_s", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"),
    "rounds.csv": ("round", "applied", "start_s", "end_s", "duration_s", "selected", "updates", "missing", "late",
                   "bytes_up", "bytes_down"),
    "staleness.csv": ("sim_time_s", "staleness"),
    "selections.csv": ("round", "round_start_s"),
}

# A run folder holds these two files (docs/reference/outputs.md) and, when the run wrote them, these
# tables (NAME.csv).
RUN_FILES = ("summary.json", "scenario.json")
RUN_TABLES = ("metrics", "devices", "links", "buffers", "buffers_fleet", "rounds", "staleness", "selections")

read_files: set[tuple[int, int]] = set()  # (st_dev, st_ino) of every file read


class InputError(Exception):
    """Bad input: the command prints the message on one line and exits with status 2."""


def printable(text: object) -> str:
    """`text` with every character that is not printable (control characters, line and paragraph
    separators, bidirectional and other format characters) written as \\xNN, \\uNNNN or \\UNNNNNNNN: a
    message stays one line and drives no terminal. The commands pass every line they print through it."""
    text = str(text)
    if text.isprintable():
        return text
    out = []
    for c in text:
        n = ord(c)
        out.append(c if c.isprintable() else f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000
                   else f"\\U{n:08x}")
    return "".join(out)


def quoted(text: object, limit: int = 60) -> str:
    """A name from a results file as a message shows it: in double quotes (a quote or backslash in it
    escaped), printable, cut to `limit` characters."""
    text = str(text)
    body = printable(text[:limit].replace("\\", "\\\\").replace('"', '\\"'))
    return f'"{body}..." ({len(text)} characters)' if len(text) > limit else f'"{body}"'


def is_run(folder: PathLike) -> bool:
    """Whether `folder` holds a run's files (what is in them is read later)."""
    return all(os.path.isfile(os.path.join(folder, name)) for name in RUN_FILES)


def read_text(path: PathLike, kind: str) -> str:
    """The text of a results file of `kind` ("json" or "csv"), refused unless it is a regular file of at
    most MAX_BYTES[kind] holding UTF-8 text without NUL bytes."""
    limit = MAX_BYTES[kind]
    # O_NONBLOCK: a FIFO in a results folder is refused, not waited on.
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise InputError(f"{path}: {st.st_size} bytes, more than the {limit >> 20} MB edgetrain reads "
                             f"of a .{kind} file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{path}: more than the {limit >> 20} MB edgetrain reads of a .{kind} file")
    read_files.add((st.st_dev, st.st_ino))

    def line_of(at: int) -> int:
        return data.count(b"\n", 0, at) + 1

    if b"\0" in data:
        raise InputError(f"{path}:{line_of(data.index(0))}: holds a NUL byte (not a text file)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}:{line_of(e.start)}: not UTF-8 text (byte {e.start})") from None


def _depth(value: object) -> int:
    """The nesting depth of a JSON value, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


NUMBER = "number"
# What the readers rely on, key by key (absent keys and null values are fine): {"*": ...} is any key.
SHAPES: dict[str, Any] = {
    "summary.json": {
        **{k: NUMBER for k in ("sim_time_s", "time_to_target_s", "rounds", "final_test_accuracy",
                               "best_test_accuracy", "final_test_loss", "bytes_up", "bytes_down", "energy_j",
                               "wall_time_s", "devices")},
        "bottleneck": {
            "links": [{k: NUMBER for k in ("bandwidth_bps", "mean_utilization", "busy_fraction",
                                           "utilization_when_busy", "bytes")}],
            "devices": {"*": NUMBER},
            "by_class": {"*": {"*": NUMBER}},
            "critical_path": {"link_bandwidth_bps": NUMBER, "rounds_slowest": NUMBER, "share_of_rounds": NUMBER},
        },
        "energy": {"energy_to_target_j": NUMBER},
        "privacy": {"epsilon": NUMBER, "delta": NUMBER},
    },
    "scenario.json": {"stop": {"target_accuracy": NUMBER, "epsilon": NUMBER},
                      "privacy": {"dp": {"delta": NUMBER}}},
    "sweep.json": {"varied": [str], "runs": [{"folder": str}]},
}


def _check_shape(value: object, shape: Any, where: str) -> None:
    if value is None:
        return
    if shape == NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{where}: expected a number, got {json.dumps(value)[:40]}")
    elif shape is str:
        if not isinstance(value, str):
            raise InputError(f"{where}: expected a string, got {json.dumps(value)[:40]}")
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise InputError(f"{where}: expected a list")
        for i, item in enumerate(value):
            _check_shape(item, shape[0], f"{where}[{i}]")
    else:
        if not isinstance(value, dict):
            raise InputError(f"{where}: expected an object")
        for key, item in value.items():
            if key in shape or "*" in shape:
                _check_shape(item, shape.get(key, shape.get("*")), f"{where}.{printable(key[:60])}")


def load_json(path: PathLike) -> dict[str, Any]:
    """A results folder's JSON file, as an object of the shape SHAPES gives for its name."""
    text = read_text(path, "json")
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputError(f"{path}: nesting deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not valid JSON ({e.msg}, line {e.lineno})") from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise InputError(f"{path}: not valid JSON ({e})") from None
    if _depth(value) > MAX_DEPTH:
        raise InputError(f"{path}: nesting deeper than {MAX_DEPTH} levels")
    if not isinstance(value, dict):
        raise InputError(f"{path}: expected a JSON object, got {type(value).__name__.replace('dict', 'object')}")
    _check_shape(value, SHAPES.get(os.path.basename(path), {}), os.path.basename(path))
    return value


def _finite(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _number_or_none(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def csv_rows(path: PathLike, numeric: bool) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of a CSV file. `numeric`: every column but TEXT_COLUMNS must hold numbers."""
    text = read_text(path, "csv")
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    except csv.Error as e:
        raise InputError(f"{path}: not a CSV file ({e})") from None
    header = rows[0] if rows else []
    if len(set(header)) != len(header):
        raise InputError(f"{path}:1: a column named twice")
    if numeric:
        required = set(REQUIRED.get(os.path.basename(path), ()))
        for name in sorted(required - set(header)):
            raise InputError(f"{path}:1: no column \"{name}\"")
        for line, row in enumerate(rows[1:], start=2):
            if len(row) != len(header):
                raise InputError(f"{path}:{line}: {len(row)} cells, the header has {len(header)}")
            for name, cell in zip(header, row):
                if name in TEXT_COLUMNS or not (cell or name in required):
                    continue
                if (_finite(cell) if name in required else _number_or_none(cell)) is None:
                    what = "a finite number" if name in required else "a number"
                    raise InputError(f"{path}:{line}: column {printable(name[:60])}: {quoted(cell, 40)} is not {what}")
    return header, rows[1:]

"""Reads edgetrain results folders: a run (scenario.json, summary.json and the CSV files) or a
sweep (sweep.csv, sweep.json and one run folder per run). Files a run may lack (older runs,
modes without rounds) read as absent; a folder that is neither a run nor a sweep is an InputError.
Every file is read and checked by result_files (bounded, text, the shape the readers rely on)."""

import math
import os

# InputError: the commands catch it from here.
from result_files import RUN_TABLES, InputError, csv_rows, is_run, load_json, quoted  # noqa: F401


def _number(text):
    """A CSV cell as a float, None when empty or not a number."""
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


class Record(dict):
    """A CSV row by column name; a column the file lacks is an InputError naming the file."""

    def __init__(self, path, pairs):
        super().__init__(pairs)
        self.path = path

    def __missing__(self, column):
        raise InputError(f"{self.path}: no column {quoted(column)}")


class Table:
    """A CSV file: its header and its rows as lists of strings. A run's tables (`numeric`) hold numbers
    in every column but the text ones; sweep.csv's text cells lose the ' edgetrain sweep puts before
    those a spreadsheet would run as formulas."""

    def __init__(self, path, numeric=True):
        self.path = path
        self.header, self.rows = csv_rows(path, numeric)
        if not numeric:
            unquote = lambda cell: cell[1:] if cell.startswith("'") else cell  # noqa: E731
            self.header = [unquote(c) for c in self.header]
            self.rows = [[unquote(c) for c in row] for row in self.rows]
        self._index = {name: i for i, name in enumerate(self.header)}

    def has(self, column):
        return column in self._index

    def text(self, column):
        if column not in self._index:
            raise InputError(f"{self.path}: no column {quoted(column)}")
        i = self._index[column]
        return [row[i] if i < len(row) else "" for row in self.rows]

    def numbers(self, column):
        return [_number(cell) for cell in self.text(column)]

    def records(self):
        return [Record(self.path, zip(self.header, row)) for row in self.rows]


def _load_json(path):
    return load_json(path)


def _optional_table(folder, name):
    path = os.path.join(folder, name)
    return Table(path) if os.path.isfile(path) else None


class Run:
    """One run folder. Tables absent from the folder are None."""

    def __init__(self, folder):
        self.folder = folder
        self.summary = _load_json(os.path.join(folder, "summary.json"))
        self.scenario = _load_json(os.path.join(folder, "scenario.json"))
        for name in RUN_TABLES:
            setattr(self, name, _optional_table(folder, name + ".csv"))

    @property
    def name(self):
        return str(self.scenario.get("name") or os.path.basename(os.path.normpath(self.folder)))


class Sweep:
    """A sweep folder: sweep.csv (varied keys, status, summary figures, folder) and sweep.json."""

    def __init__(self, folder):
        self.folder = folder
        self.table = Table(os.path.join(folder, "sweep.csv"), numeric=False)
        json_path = os.path.join(folder, "sweep.json")
        self.description = _load_json(json_path) if os.path.isfile(json_path) else {}
        header = self.table.header
        if "folder" not in header:
            raise InputError(f"{self.table.path}: no \"folder\" column (not a sweep.csv written by edgetrain sweep)")
        varied = self.description.get("varied")
        if not isinstance(varied, list):  # the columns before `status` are the varied keys
            varied = header[: header.index("status")] if "status" in header else []
        self.varied = [key for key in varied if key in header]
        grid = self.description.get("grid_keys")
        # The grid's keys (every run has a value); the others come from `runs` entries. Older sweeps: all.
        self.grid_keys = [k for k in grid if k in self.varied] if isinstance(grid, list) else list(self.varied)
        self.labelled = "label" in header  # runs[].label: one line per label in the figures
        skip = set(self.varied) | {"status", "folder", "id", "label"}
        self.figures = [c for c in header if c not in skip and any(v is not None for v in self.table.numbers(c))]
        ids = {}
        for run in self.description.get("runs", []) if isinstance(self.description.get("runs"), list) else []:
            if isinstance(run, dict) and "folder" in run:
                ids[os.path.normpath(str(run["folder"]))] = str(run.get("id", ""))
        self.rows = []
        for i, record in enumerate(self.table.records()):
            rel = record.get("folder", "")
            if os.path.isabs(rel) or os.path.normpath(rel).split(os.sep)[0] == "..":
                raise InputError(f"{self.table.path}:{i + 2}: folder {quoted(rel)} is not inside the sweep folder")
            run_id = record.get("id") or ids.get(os.path.normpath(rel)) or str(i + 1)
            self.rows.append({"id": run_id, "record": record, "path": os.path.join(folder, rel)})

    def load_run(self, row):
        """The run of a sweep.csv row, or None when its folder holds no finished run."""
        path = row["path"]
        return Run(path) if is_run(path) else None


def open_folder(folder):
    """A Run or a Sweep, from what the folder holds."""
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: no such folder")
    if os.path.isfile(os.path.join(folder, "sweep.csv")):
        return Sweep(folder)
    if is_run(folder):
        return Run(folder)
    raise InputError(f"{folder}: not a run folder (no summary.json and scenario.json) "
                     "nor a sweep folder (no sweep.csv)")

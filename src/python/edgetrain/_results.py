"""A results folder as Python objects: the summary and scenario as dicts, the CSV files as pandas
DataFrames (read when first asked for). The files are read through _result_files, the reader the
plots and the report share: bounded, text, the shape they rely on."""
from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _result_files
from ._errors import InputError

if TYPE_CHECKING:
    import pandas

PathLike = _result_files.PathLike

# The tables every run folder may hold, as attributes of Run (docs/reference/outputs.md).
TABLES = _result_files.RUN_TABLES


class Run:
    """One run's results, from ``edgetrain.run`` or ``edgetrain.load``.

    Attributes: ``folder`` (a Path), ``summary`` (summary.json as a dict), ``scenario`` (the resolved
    scenario, scenario.json, as a dict), ``metrics``, ``devices``, ``links``, ``buffers``,
    ``buffers_fleet``, ``rounds``, ``staleness`` and ``selections`` (the CSV files as pandas DataFrames;
    empty when the run wrote no such file), ``output`` (what the engine printed, for runs made here).
    ``table(name)`` reads any other CSV file of the folder."""

    def __init__(self, folder: PathLike, output: str = "") -> None:
        self.folder = Path(folder)
        self.output = output
        self.summary: dict[str, Any] = _read_json(self.folder / "summary.json")
        self.scenario: dict[str, Any] = _read_json(self.folder / "scenario.json")
        self._tables: dict[str, pandas.DataFrame] = {}

    def table(self, name: str) -> pandas.DataFrame:
        """The folder's NAME.csv as a DataFrame (an empty one when the file is missing or empty)."""
        if name not in self._tables:
            import pandas

            path = self.folder / (name + ".csv")
            try:
                frame = pandas.read_csv(io.StringIO(_read_text(path)))
            except (FileNotFoundError, pandas.errors.EmptyDataError):
                frame = pandas.DataFrame()
            self._tables[name] = frame
        return self._tables[name]

    @property
    def status(self) -> str | None:
        """The run's status: "completed", "interrupted", "diverged", ... (summary.json)."""
        return self.summary.get("status")

    # The tables as attributes, read on first access by __getattr__, which type checkers do not see: a
    # misspelt attribute is an error to them.
    metrics: pandas.DataFrame
    devices: pandas.DataFrame
    links: pandas.DataFrame
    buffers: pandas.DataFrame
    buffers_fleet: pandas.DataFrame
    rounds: pandas.DataFrame
    staleness: pandas.DataFrame
    selections: pandas.DataFrame

    if not TYPE_CHECKING:
        def __getattr__(self, name: str) -> pandas.DataFrame:
            if name in TABLES:
                return self.table(name)
            raise AttributeError(name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(TABLES))

    def __repr__(self) -> str:
        s = self.summary
        parts = ["%s: %s" % (self.scenario.get("name", self.folder.name), s.get("status"))]
        if s.get("sim_time_s") is not None:
            parts.append("%.6g s simulated" % s["sim_time_s"])
        if s.get("final_test_accuracy") is not None:
            parts.append("test accuracy %.4f" % s["final_test_accuracy"])
        privacy = s.get("privacy") or {}
        if privacy.get("epsilon") is not None:
            delta = privacy.get("delta")
            parts.append("epsilon %.4g" % privacy["epsilon"] + ("" if delta is None else " at delta %.4g" % delta))
        return "<edgetrain.Run %s, in %s>" % (", ".join(parts), self.folder)


# The shared reader's refusals are raised as edgetrain.InputError.

def _read_text(path: Path) -> str:
    try:
        return _result_files.read_text(path, "csv")
    except _result_files.InputError as e:
        raise InputError(str(e)) from None


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return _result_files.load_json(path)
    except FileNotFoundError:
        raise InputError("%s: not a results folder (no %s)" % (path.parent, path.name)) from None
    except _result_files.InputError as e:
        raise InputError(str(e)) from None


def load(folder: PathLike) -> Run:
    """The ``Run`` of an existing results folder (from ``edgetrain run`` or this module).

    Raises InputError when the folder holds no summary.json and scenario.json."""
    if not Path(folder).is_dir():
        raise InputError("%s: no such results folder" % folder)
    return Run(folder)

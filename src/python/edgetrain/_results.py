"""A results folder as Python objects: the summary and scenario as dicts, the CSV files as pandas
DataFrames (read when first asked for)."""
import json
from pathlib import Path

from ._errors import InputError

# The tables every run folder may hold, as attributes of Run (docs/reference/outputs.md).
TABLES = ("metrics", "devices", "links", "rounds", "buffers", "staleness", "selections")


class Run:
    """One run's results, from ``edgetrain.run`` or ``edgetrain.load``.

    Attributes: ``folder`` (a Path), ``summary`` (summary.json as a dict), ``scenario`` (the resolved
    scenario, scenario.json, as a dict), ``metrics``, ``devices``, ``links``, ``rounds``, ``buffers``,
    ``staleness`` and ``selections`` (the CSV files as pandas DataFrames; empty when the run wrote no such file),
    ``output`` (what the engine printed, for runs made here). ``table(name)`` reads any other CSV
    file of the folder (``table("buffers_fleet")``)."""

    def __init__(self, folder, output=""):
        self.folder = Path(folder)
        self.output = output
        self.summary = _read_json(self.folder / "summary.json")
        self.scenario = _read_json(self.folder / "scenario.json")
        self._tables = {}

    def table(self, name):
        """The folder's NAME.csv as a DataFrame (an empty one when the file is missing or empty)."""
        if name not in self._tables:
            import pandas

            path = self.folder / (name + ".csv")
            try:
                frame = pandas.read_csv(path)
            except (FileNotFoundError, pandas.errors.EmptyDataError):
                frame = pandas.DataFrame()
            self._tables[name] = frame
        return self._tables[name]

    @property
    def status(self):
        """The run's status: "completed", "interrupted", "diverged", ... (summary.json)."""
        return self.summary.get("status")

    def __getattr__(self, name):
        if name in TABLES:
            return self.table(name)
        raise AttributeError(name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(TABLES))

    def __repr__(self):
        s = self.summary
        parts = ["%s: %s" % (self.scenario.get("name", self.folder.name), s.get("status"))]
        if s.get("sim_time_s") is not None:
            parts.append("%.6g s simulated" % s["sim_time_s"])
        if s.get("final_test_accuracy") is not None:
            parts.append("test accuracy %.4f" % s["final_test_accuracy"])
        privacy = s.get("privacy") or {}
        if privacy.get("epsilon") is not None:
            parts.append("epsilon %.4g at delta %.4g" % (privacy["epsilon"], privacy.get("delta")))
        return "<edgetrain.Run %s, in %s>" % (", ".join(parts), self.folder)


def _read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError("%s: not a results folder (no %s)" % (path.parent, path.name)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError("%s: not a results file (%s)" % (path, e)) from None


def load(folder):
    """The ``Run`` of an existing results folder (from ``edgetrain run`` or this module).

    Raises InputError when the folder holds no summary.json and scenario.json."""
    if not Path(folder).is_dir():
        raise InputError("%s: no such results folder" % folder)
    return Run(folder)

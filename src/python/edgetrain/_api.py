"""The functions of the edgetrain package: run, validate, sweep, fleet, compare and schema.

Runs, validations and sweeps execute in a child ``edgetrain`` process (_engine.py); resolving
scenarios, the schema, fleets and comparisons run in process (the _core extension)."""
from __future__ import annotations

import contextlib
import json
import os
import operator
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence, Union

# Absolute, so that mypy's ignore_missing_imports covers the extension where no stub of it is on MYPYPATH
# (the suite generates one: tests/python/static_checks.py).
import edgetrain._core as _core

from . import _engine, _progress
from ._errors import EngineError, InputError, interrupted
from ._results import PathLike, Run

if TYPE_CHECKING:
    import pandas

# What the functions take: a scenario is a file's path or a dict; overrides are a dict of dotted keys to
# values, a list of "key=value" or one such string.
Scenario = Union[PathLike, Mapping[str, Any]]
Overrides = Union[Mapping[str, Any], Sequence[str], str, None]


def _plain(value: Any) -> Any:
    """What json.dumps cannot write itself: numpy scalars and arrays (values taken from a DataFrame),
    paths; anything else is refused."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError("not a JSON value (a Python %s)" % type(value).__name__)


def _json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, default=_plain, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InputError("%s: %s" % (what, e)) from None


def _set_words(set: Overrides) -> list[str]:
    """--set words from a dict {"training.lr": 0.1} (values as JSON) or a list of "key=value"."""
    if set is None:
        return []
    if isinstance(set, Mapping):
        return ["%s=%s" % (k, _json(v, k)) for k, v in set.items()]
    if isinstance(set, str):
        return [set]
    try:
        return [str(s) for s in set]
    except TypeError:  # not iterable
        raise InputError(f"set: expected a dict of keys and values or a list of \"key=value\", "
                         f"got {type(set).__name__}") from None


def _source(scenario: Scenario) -> tuple[str, str | None]:
    """The scenario's file argument and the text for stdin: a path, or a dict sent as "-"."""
    if isinstance(scenario, Mapping):
        return "-", _json(dict(scenario), "scenario")
    if isinstance(scenario, (str, Path)):
        return str(scenario), None
    raise InputError("scenario: expected a path or a dict, got %s" % type(scenario).__name__)


def _count(value: Any, what: str, most: int = 256) -> str:
    """A whole number from 1 to `most` (threads, jobs), checked here so that the message names the
    argument, not the command line's option."""
    try:
        n = operator.index(value)
    except TypeError:
        n = None
    if n is None or not 1 <= n <= most:
        raise InputError("%s: expected a whole number from 1 to %d, got %r" % (what, most, value))
    return str(n)


def _seed(seed: Any) -> str:
    try:
        n = operator.index(seed)
    except TypeError:
        n = -1
    if n < 0:
        raise InputError("seed: expected a non-negative integer, got %r" % (seed,))
    return str(n)


def _out(out: Any) -> Path:
    """`out` as a Path; what is not a path (a number) or an empty one (it would name the current
    directory) is an InputError naming the argument."""
    if not isinstance(out, (str, os.PathLike)):
        raise InputError(f"out: expected a path, got {type(out).__name__}")
    if str(out) == "":
        raise InputError("out: an empty path")
    return Path(out)


def _scenario_args(scenario: Scenario, set: Overrides, seed: int | None) -> tuple[str | None, list[str]]:
    """The text for stdin (a dict's) and the words after the command: scenario, --set, --seed."""
    file, text = _source(scenario)
    words = [file]
    for s in _set_words(set):
        words += ["--set", s]
    if seed is not None:
        words += ["--seed", _seed(seed)]
    return text, words


def resolve(scenario: Scenario, set: Overrides = None, seed: int | None = None) -> dict[str, Any]:
    """The resolved scenario (every default filled in, paths absolute) as a dict, in process.

    ``scenario`` is a path or a dict (relative paths in a dict are from the current directory, and
    its default name is "scenario"); ``set`` overrides keys ({"training.lr": 0.1} or a list of
    "key=value"); ``seed`` overrides the seed. Raises InputError with the command line's message.
    It does not load the platform into the simulator or read the data: ``validate`` does."""
    file, text = _source(scenario)
    seed_text = None if seed is None else _seed(seed)
    resolved = _core.resolve(None if text is not None else file, text, _set_words(set), seed_text)
    value: dict[str, Any] = json.loads(resolved)
    return value


def run(scenario: Scenario, out: PathLike | None = None, set: Overrides = None, threads: int | None = None,
        quiet: bool = True, seed: int | None = None, progress: _progress.Progress = None) -> Run:
    """Simulates a scenario and returns its ``Run`` (summary, scenario and the CSV files as DataFrames).

    scenario: a scenario file's path, or a dict (relative paths from the current directory).
    out:      the results folder; None is the command line's default, results/<scenario name>.
    set:      key overrides, {"training.lr": 0.1} or ["training.lr=0.1"] (as --set).
    threads:  workers for the real training steps (results do not depend on it; default: the cores).
    quiet:    False prints what the command line prints (start line, warnings, summary) as it comes.
    seed:     overrides the scenario's seed.
    progress: True for a progress bar (tqdm), or a callable given each progress record (a dict:
              sim_time_s, updates, rounds, sim_time_limit_s, test_accuracy, wall_s, left_s).

    The run is an ``edgetrain run`` child process: its files are byte for byte the command line's.
    Raises InputError for a refused scenario, and KeyboardInterrupt on Ctrl-C once the run has
    written its results (its ``run`` attribute is the interrupted ``Run``). A run
    that diverged is returned (status "diverged"), as the command line writes it."""
    text, words = _scenario_args(scenario, set, seed)
    if out is not None:  # else the command line's default folder, which its summary names
        words += ["--out", str(_out(out))]
    if threads is not None:
        words += ["--threads", _count(threads, "threads")]
    if quiet:
        words.append("--quiet")
    report = _progress.reporter(progress)
    try:
        done = _engine.execute(["run"] + words, stdin_text=text, progress=report, echo=not quiet)
    finally:
        close = getattr(report, "close", None)  # a bar's or a line's; a callable of the caller has none
        if close is not None:
            close()
    # None when a signal came during set-up: the folder stays as it was (perhaps an earlier run's).
    folder = _engine.results_folder(done.stdout)
    if done.interrupted:
        raise interrupted(Run(folder, done.stdout + done.stderr) if folder else None)
    done.check()
    if folder is None:
        raise EngineError("edgetrain run: " + _engine.error_line(done.stderr))
    return Run(folder, done.stdout + done.stderr)


@dataclass
class Validation:
    """What ``validate`` found: the resolved scenario, the description ``edgetrain validate``
    prints (platform, devices, data, model, fidelity) and its warnings."""

    scenario: dict[str, Any]
    description: str
    warnings: list[str]


def validate(scenario: Scenario, set: Overrides = None, seed: int | None = None) -> Validation:
    """Checks a scenario as a run would (its platform loaded into the simulator, its data and model
    read) without simulating: returns a ``Validation``; raises InputError naming the key at fault."""
    text, words = _scenario_args(scenario, set, seed)
    done = _engine.execute(["validate"] + words, stdin_text=text).check()
    if done.interrupted:
        raise interrupted()
    lines = done.stderr.splitlines()
    found = [line[len("edgetrain: warning: "):] for line in lines if line.startswith("edgetrain: warning: ")]
    return Validation(resolve(scenario, set, seed), done.stdout, found)


def sweep(spec: PathLike | Mapping[str, Any], out: PathLike | None = None, jobs: int = 1, threads: int | None = None,
          quiet: bool = True) -> pandas.DataFrame:
    """Runs a sweep and returns its table (sweep.csv) as a DataFrame, one row per run.

    spec: a sweep file's path, or a dict {"base": scenario path or dict, "grid": {key: [values]},
          "runs": [{key: value}, ...]} (relative paths from the current directory).
    out:  the sweep's folder; None is the command line's default (results/<sweep file name>, or
          results/sweep for a dict). A sweep run again resumes: finished runs are kept.
    jobs: runs at a time, each its own process. threads: training threads of each run.
    The frame's ``attrs["folder"]`` is the sweep's folder; each run's folder is in its "folder"
    column (``edgetrain.load`` reads it). Raises InputError naming the bad run or key, and
    KeyboardInterrupt on Ctrl-C (run it again to resume)."""
    import pandas

    if not isinstance(spec, (Mapping, str, Path)):
        raise InputError("sweep: expected a sweep file's path or a dict, got %s" % type(spec).__name__)
    with contextlib.ExitStack() as scratch:
        if isinstance(spec, Mapping):
            file = _sweep_file(spec, scratch)
            folder = _out(out) if out is not None else Path("results") / "sweep"
        else:
            file = Path(spec)
            folder = _out(out) if out is not None else Path("results") / file.stem
        words = ["sweep", str(file), "--jobs", _count(jobs, "jobs"), "--out", str(folder)]
        if threads is not None:
            words += ["--threads", _count(threads, "threads")]
        done = _engine.execute(words, echo=not quiet)
    if done.interrupted:
        raise interrupted()
    if done.status == 1:
        if not (folder / "sweep.csv").exists():
            raise EngineError("edgetrain sweep failed: %s" % done.stderr.strip())
        warnings.warn("edgetrain sweep: some runs failed (see the status column): " + done.stderr.strip())
    else:
        done.check()
    table = pandas.read_csv(folder / "sweep.csv")
    table.attrs["folder"] = str(folder)
    return table


def _sweep_file(given: Mapping[str, Any], scratch: contextlib.ExitStack) -> Path:
    """A dict sweep written as a file (removed when `scratch`, an ExitStack, closes), its base path made
    absolute. A dict base is written as it is, not resolved (a sweep's overrides must meet the keys
    as given: a resolved default would stay when a varied key changes it), into the current directory,
    so that its relative paths mean what they mean in a dict, named "scenario" unless it says."""
    spec = dict(given)
    base = spec.get("base")
    if isinstance(base, Mapping):
        try:
            handle = tempfile.NamedTemporaryFile("w", dir=".", prefix=".edgetrain-sweep-base-", suffix=".json")
        except OSError as e:
            raise InputError("base: a dict base is written to the current directory, which refuses it (%s); "
                             "write the scenario to a file and give its path" % e.strerror) from None
        handle = scratch.enter_context(handle)
        handle.write(_json({"name": "scenario", **base}, "base"))
        handle.flush()
        spec["base"] = str(Path(handle.name).resolve())
    elif isinstance(base, (str, Path)):
        spec["base"] = str(Path(base).resolve())
    path = Path(scratch.enter_context(tempfile.TemporaryDirectory(prefix="edgetrain-sweep-"))) / "sweep.json"
    path.write_text(_json(spec, "sweep"))
    return path


@dataclass
class Fleet:
    """A platform drawn from a fleet description: ``xml`` (the SimGrid platform), ``devices`` (the
    device list as a DataFrame: name, class, site, speed, ...), ``text`` (the draw in words) and
    ``path`` (where it was written, or None)."""

    xml: str
    devices: pandas.DataFrame
    text: str
    path: Path | None


def fleet(description: PathLike | Mapping[str, Any], out: PathLike | None = None, seed: int | None = None) -> Fleet:
    """Draws a platform from a fleet description (a path or a dict), as ``edgetrain fleet``.

    out: the platform file to write (its device list goes beside it as PLATFORM.devices.csv; missing
         folders are made); None writes nothing. seed: the seed of the draws (default: the description's, else 1).
    Raises InputError naming the key at fault."""
    import io

    import pandas

    if isinstance(description, Mapping):
        file, text = None, _json(dict(description), "fleet")
    elif isinstance(description, (str, Path)):
        file, text = str(description), None
    else:
        raise InputError("fleet: expected a path or a dict, got %s" % type(description).__name__)
    written = None if out is None else _out(out)
    if written is not None:
        written.parent.mkdir(parents=True, exist_ok=True)  # as run and sweep make their folders
    drawn = _core.fleet(file, text, None if seed is None else _seed(seed), None if written is None else str(written))
    devices = pandas.read_csv(io.StringIO(drawn["devices_csv"]))
    return Fleet(drawn["xml"], devices, drawn["text"], written)


def compare(*runs: Run | PathLike) -> pandas.DataFrame:
    """Runs side by side, as ``edgetrain compare``: a DataFrame with a row per run (its folder)
    holding status, rounds, times, bytes and accuracies, and its "speedup" against the first.
    ``attrs["speedup_basis"]`` says what the speed-up compares (time_to_target_s or sim_time_s),
    ``attrs["differences"]`` the keys in which their resolved scenarios differ, by dotted path.
    Each run is a ``Run`` or a results folder; at least two."""
    import pandas

    folders = [str(r.folder) if isinstance(r, Run) else str(r) for r in runs]
    if len(folders) < 2:
        raise InputError("compare: expected at least two runs")
    c = json.loads(_core.compare(folders))
    table = pandas.DataFrame(c["figures"], index=c["runs"])
    table["speedup"] = c["speedup"]["values"]
    table.attrs["speedup_basis"] = c["speedup"]["basis"]
    table.attrs["differences"] = c["differences"]
    return table


def schema(markdown: bool = False) -> pandas.DataFrame | str:
    """The scenario keys as a DataFrame (key, type, default, range, description), one row per key,
    in the order the scenario is validated; ``markdown=True`` gives ``edgetrain schema``'s table."""
    if markdown:
        return _core.schema_markdown()
    import pandas

    return pandas.DataFrame(_core.schema_keys())

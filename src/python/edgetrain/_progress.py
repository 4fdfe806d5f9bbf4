"""Live progress of a run: the engine's records (``--progress-fd``) to a callback or a bar."""
from __future__ import annotations

import sys
from typing import Any, Callable, Union

Record = dict[str, Any]  # one progress record (see edgetrain.run)
Reporter = Callable[[Record], Any]
Progress = Union[bool, Reporter, None]  # what edgetrain.run's `progress` takes


def reporter(progress: Progress) -> Reporter | None:
    """A callable taking progress records, or None: ``progress`` is None/False (none), True (a
    tqdm bar, in a notebook too; a plain line on stderr without tqdm) or a callable of one dict."""
    if not progress:
        return None
    if callable(progress):
        return progress
    try:
        import tqdm
    except ImportError:
        return _Line()
    try:  # a notebook's widget when ipywidgets is there (python3-ipywidgets); tqdm.auto warns otherwise
        import ipywidgets  # noqa: F401
        import tqdm.auto
    except ImportError:
        return _Bar(tqdm.tqdm)
    return _Bar(tqdm.auto.tqdm)


def _measure(record: Record) -> tuple[Any, Any, str]:
    """What a record has done and out of what: rounds (or pushes) when stop.rounds bounds the run,
    else simulated seconds."""
    if record.get("rounds"):
        return record["updates"], record["rounds"], "push" if record.get("pushes") else "round"
    return round(record["sim_time_s"], 1), record.get("sim_time_limit_s"), "sim s"


class _Bar:
    def __init__(self, tqdm: Any) -> None:
        self.tqdm: Any = tqdm
        self.bar: Any = None

    def __call__(self, record: Record) -> None:
        done, total, unit = _measure(record)
        if self.bar is None:
            self.bar = self.tqdm(total=total, unit=unit, leave=False)
        self.bar.n = min(done, total) if total else done
        if record.get("test_accuracy") is not None:
            self.bar.set_postfix(test_acc="%.4f" % record["test_accuracy"], refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _Line:
    def __call__(self, record: Record) -> None:
        done, total, unit = _measure(record)
        sys.stderr.write("\r%s %s/%s" % (unit, done, total if total else "?"))
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")

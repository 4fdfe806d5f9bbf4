"""The exceptions of the edgetrain package."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._results import Run


class InputError(ValueError):
    """A scenario, sweep, fleet description or argument that edgetrain refuses.

    The message is the command line's one line, naming the JSON path at fault
    (``training.lr: must be > 0, got -1``)."""


class EngineError(RuntimeError):
    """The edgetrain engine failed for a reason other than its input (exit status 1)."""


def interrupted(run: Run | None = None) -> KeyboardInterrupt:
    """The KeyboardInterrupt raised when Ctrl-C (or a notebook's interrupt) stopped a run or a sweep.

    A plain KeyboardInterrupt, so that the interpreter and Jupyter treat it as their own; its
    ``run`` attribute holds what the run wrote before it stopped (status "interrupted"), or None
    for a sweep or a run stopped before it wrote anything."""
    e = KeyboardInterrupt("interrupted: the results written so far are in " + (str(run.folder) if run else "no folder"))
    e.run = run  # type: ignore[attr-defined]  # an attribute of this instance only
    return e

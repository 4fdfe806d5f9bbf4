"""The exceptions of the edgetrain package."""


class InputError(ValueError):
    """A scenario, sweep, fleet description or argument that edgetrain refuses.

    The message is the command line's one line, naming the JSON path at fault
    (``training.lr: must be > 0, got -1``)."""


class EngineError(RuntimeError):
    """The edgetrain engine failed for a reason other than its input (exit status 1)."""


class Interrupted(KeyboardInterrupt):
    """A run or sweep stopped by Ctrl-C (or a notebook's interrupt).

    It is a KeyboardInterrupt; ``run`` holds what the run wrote before it stopped (its status is
    "interrupted"), or None for a sweep or a run stopped before it wrote anything."""

    def __init__(self, run=None):
        super().__init__("interrupted: the results written so far are in " + (str(run.folder) if run else "no folder"))
        self.run = run

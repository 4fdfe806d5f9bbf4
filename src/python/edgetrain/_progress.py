"""Live progress of a run: the engine's records (``--progress-fd``) to a callback or a bar."""
import sys


def reporter(progress):
    """A callable taking progress records, or None: ``progress`` is None/False (none), True (a
    tqdm bar, in a notebook too; a plain line on stderr without tqdm) or a callable of one dict."""
    if not progress:
        return None
    if callable(progress):
        return progress
    try:
        from tqdm import tqdm
    except ImportError:
        return _Line()
    try:  # a notebook's widget when ipywidgets is there (python3-ipywidgets); tqdm.auto warns otherwise
        import ipywidgets  # noqa: F401
        from tqdm.auto import tqdm
    except ImportError:
        pass
    return _Bar(tqdm)


def _measure(record):
    """What a record has done and out of what: rounds (or pushes) when stop.rounds bounds the run,
    else simulated seconds."""
    if record.get("rounds"):
        return record["updates"], record["rounds"], "push" if record.get("pushes") else "round"
    return round(record["sim_time_s"], 1), record.get("sim_time_limit_s"), "sim s"


class _Bar:
    def __init__(self, tqdm):
        self.tqdm, self.bar = tqdm, None

    def __call__(self, record):
        done, total, unit = _measure(record)
        if self.bar is None:
            self.bar = self.tqdm(total=total, unit=unit, leave=False)
        self.bar.n = min(done, total) if total else done
        if record.get("test_accuracy") is not None:
            self.bar.set_postfix(test_acc="%.4f" % record["test_accuracy"], refresh=False)
        self.bar.refresh()

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _Line:
    def __call__(self, record):
        done, total, unit = _measure(record)
        sys.stderr.write("\r%s %s/%s" % (unit, done, total if total else "?"))
        sys.stderr.flush()

    def close(self):
        sys.stderr.write("\n")

"""Which sweep.csv columns a sweep figure draws (--y, --x, --by), checked before matplotlib loads so
that a misspelt name fails at once, with a did-you-mean. Defaults: time to target if any run
reached it, else final accuracy; the first varied key as x and the second as by."""

import difflib

from folders import InputError

PREFERRED_Y = ("time_to_target_s", "final_test_accuracy", "best_test_accuracy", "sim_time_s")


def _check_column(sweep, option, name, allowed):
    if name in allowed:
        return name
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean \"{close[0]}\"?)" if close else f" (one of: {', '.join(allowed)})"
    raise InputError(f"{option} {name}: not a column of {sweep.table.path}{hint}")


def default_y(sweep):
    for name in PREFERRED_Y:
        if name in sweep.figures:
            return name
    if not sweep.figures:
        raise InputError(f"{sweep.table.path}: no numeric summary column to plot")
    return sweep.figures[0]


def resolve(sweep, y, x, by):
    """The (y, x, by) columns to draw, defaults filled in and every name checked."""
    columns = [c for c in sweep.table.header if c != "folder"]
    y = _check_column(sweep, "--y", y, sweep.figures) if y else default_y(sweep)
    if x:
        x = _check_column(sweep, "--x", x, columns)
    else:
        x = sweep.varied[0] if sweep.varied else None
        if x is None:
            raise InputError(f"{sweep.table.path}: no varied key to plot against (give --x)")
    if by in ("none", ""):
        by = None
    elif by:
        by = _check_column(sweep, "--by", by, columns)
    else:
        by = next((k for k in sweep.varied if k != x), None)
    return y, x, by

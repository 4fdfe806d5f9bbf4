"""Which sweep.csv columns a sweep figure draws (--y, --x, --by, --target), checked before matplotlib
loads so that a misspelt name fails at once, with a did-you-mean. Defaults: time to target if any run
reached it, else final accuracy, else the mean round; the first varied key as x, and one line per
combination of the other varied keys (seeds excepted: runs that differ only in their seed are
replicates, averaged). The per-round figures come from sweep.csv's round_*_s columns; a sweep.csv
written before them gets round_mean_s derived as sim_time_s / rounds, and the chart says so."""

import difflib
import math

from result_files import InputError, printable, quoted

MAX_LISTED = 12  # columns a did-you-mean lists

PREFERRED_Y = ("time_to_target_s", "final_test_accuracy", "best_test_accuracy", "round_mean_s", "sim_time_s")
ROUND_COLUMNS = ("round_mean_s", "round_median_s", "round_p95_s", "round_max_s")
ROUND_ALIAS = "round_s"  # --target round_s=60: a line on every per-round figure drawn
REPLICATE_KEYS = ("seed",)  # varied keys averaged over rather than drawn as lines
DERIVED_NOTE = "derived as sim_time_s / rounds: this sweep.csv has no round_mean_s column"


def add_derived(sweep):
    """Gives an older sweep.csv a round_mean_s figure (sim_time_s / rounds), noted in sweep.derived."""
    sweep.derived = {}
    header = sweep.table.header
    if "round_mean_s" in header or "sim_time_s" not in header or "rounds" not in header:
        return
    any_value = False
    for row in sweep.rows:
        record = row["record"]
        total, rounds = _number(record.get("sim_time_s")), _number(record.get("rounds"))
        if total is not None and rounds:
            record["round_mean_s"] = repr(total / rounds)
            any_value = True
    if any_value:
        sweep.figures.append("round_mean_s")
        sweep.derived["round_mean_s"] = DERIVED_NOTE


def _number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _check_column(sweep, option, name, allowed):
    if name in allowed:
        return name
    close = difflib.get_close_matches(name, allowed, n=1)
    listed = ", ".join(printable(c[:60]) for c in allowed[:MAX_LISTED]) + (", ..." if len(allowed) > MAX_LISTED else "")
    hint = f" (did you mean {quoted(close[0])}?)" if close else f" (one of: {listed})"
    raise InputError(f"{option} {printable(name[:80])}: not a column of {sweep.table.path}{hint}")


def default_y(sweep):
    for name in PREFERRED_Y:
        if name in sweep.figures:
            return name
    if not sweep.figures:
        raise InputError(f"{sweep.table.path}: no numeric summary column to plot")
    return sweep.figures[0]


# Figures where more is better: a target on them is a floor, on every other figure a ceiling.
HIGHER_IS_BETTER = ("final_test_accuracy", "best_test_accuracy", "compression_ratio", "cnc_ratio")


class Target:
    """A target on a figure: `value`, met at or below it (`at_most`) or at or above it."""

    def __init__(self, value, at_most):
        self.value, self.at_most = value, at_most

    def met(self, v):
        return v <= self.value if self.at_most else v >= self.value

    @property
    def sign(self):
        return "\u2264" if self.at_most else "\u2265"


def _split_target(text):
    """COLUMN<=V, COLUMN>=V or COLUMN=V as (column, value text, at_most or None for the figure's default)."""
    for op, at_most in (("<=", True), (">=", False), ("=", None)):
        name, sep, value = text.partition(op)
        if sep:
            return name, value, at_most
    return text, "", None


def parse_targets(sweep, texts):
    """--target COLUMN=VALUE, COLUMN<=VALUE or COLUMN>=VALUE (repeatable) as {column: Target}; round_s
    names every round_*_s column. With '=' the target is a ceiling, a floor on an accuracy."""
    targets = {}
    for text in texts or []:
        name, value, at_most = _split_target(text)
        number = _number(value) if value else None
        if number is None:
            raise InputError(f"--target {text}: expected COLUMN=NUMBER, COLUMN<=NUMBER or COLUMN>=NUMBER "
                             "(e.g. round_s<=60)")
        if name == ROUND_ALIAS:
            columns = [c for c in ROUND_COLUMNS if c in sweep.figures]
            if not columns:
                raise InputError(f"--target {text}: {sweep.table.path} has no per-round figure "
                                 "(neither round_mean_s nor sim_time_s and rounds)")
        else:
            columns = [_check_column(sweep, "--target", name, sweep.figures + [ROUND_ALIAS])]
        for c in columns:
            targets[c] = Target(number, at_most if at_most is not None else c not in HIGHER_IS_BETTER)
    return targets


def resolve_ys(sweep, ys, targets):
    """The y columns to draw: --y, else the columns a --target names, else the default."""
    if ys:
        return [_check_column(sweep, "--y", y, sweep.figures) for y in ys]
    if targets:
        return list(targets)
    return [default_y(sweep)]


def resolve(sweep, y, x, by):
    """The (y, x, by) columns to draw, defaults filled in and every name checked; `by` is a list
    (one line per combination of its values; empty: one line)."""
    columns = [c for c in sweep.table.header if c != "folder"]
    y = _check_column(sweep, "--y", y, sweep.figures) if y else default_y(sweep)
    labelled = getattr(sweep, "labelled", False)
    if x:
        x = _check_column(sweep, "--x", x, columns)
    else:
        # Labelled runs are options drawn as lines against the grid's first key (or side by side).
        keys = sweep.grid_keys if labelled else sweep.varied
        x = keys[0] if keys else ("label" if labelled else None)
        if x is None:
            raise InputError(f"{sweep.table.path}: no varied key to plot against (give --x)")
    if by is None and labelled:
        # One line per label (the runs' own keys are what the label names), per other grid key.
        by = [k for k in sweep.grid_keys if k != x and k not in REPLICATE_KEYS] + (["label"] if x != "label" else [])
    elif by is None:
        by = [k for k in sweep.varied if k != x and k not in REPLICATE_KEYS]
    elif by in (["none"], [""]):
        by = []
    else:
        by = [_check_column(sweep, "--by", b, columns) for b in by]
    return y, x, by

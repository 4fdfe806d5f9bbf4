"""The figures of a sweep: a summary figure of sweep.csv (--y) against a swept value (--x), one line
per combination of the other swept keys (--by), or per run label (runs[].label). Runs that share x
and every by value (other seeds, say) are averaged, their range drawn as an error bar. Values are
shown as a reader writes them ({"kind":"topk","ratio":0.01} as "kind topk, ratio 0.01"); a --target is
a dashed line, each point marked as meeting it (a dot) or missing it (a cross). File names use the
keys' last two segments, so a slide's figure is sweep_round_max_s_vs_lte.up_by_label.png."""

import json
import re
from collections import OrderedDict

from matplotlib.ticker import MaxNLocator

from charts import COLORS, Chart, byte_scale, fmt_number
from sweep_columns import ROUND_COLUMNS, default_y, resolve

# The report's figures, those the sweep has: the figure per round first (planners read it, not the
# run's total time), then what a run reached and what it cost.
REPORT_Y = ("round_mean_s", "round_p95_s", "time_to_target_s", "final_test_accuracy", "bytes_up", "energy_j")
LABELS = {"round_mean_s": "mean round (s)", "round_median_s": "median round (s)", "round_p95_s": "p95 round (s)",
          "round_max_s": "longest round (s)"}
MAX_TICK_CHARACTERS = 14  # longer category labels are drawn slanted


def _as_number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


# The scenario's units (docs/reference/scenario-keys.md) a swept value may carry: "5Mbps", "20ms", "2Gf".
_UNITS = {"bps": 1, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12,
          "Bps": 8, "kBps": 8e3, "MBps": 8e6, "GBps": 8e9,
          "s": 1, "ms": 1e-3, "us": 1e-6, "min": 60, "h": 3600,
          "f": 1, "kf": 1e3, "Mf": 1e6, "Gf": 1e9, "Tf": 1e12,
          "B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9}
_QUANTITY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)\s*$")


def _quantity(text):
    """A swept value as a number: a plain number, or one with a unit ("5Mbps") in its unit's base."""
    number = _as_number(text)
    if number is not None:
        return number, ""
    m = _QUANTITY.match(text or "")
    if not m or m.group(2) not in _UNITS:
        return None, None
    unit = m.group(2)
    family = "bps" if unit.endswith("bps") else "Bps" if unit.endswith("Bps") else unit[-1] if unit[-1] in "fB" else "s"
    return float(m.group(1)) * _UNITS[unit], family


def readable(text):
    """A sweep.csv cell as a reader writes it: JSON objects and lists without braces and quotes."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return text
    return _words(value) if isinstance(value, (dict, list)) else text


def _words(value):
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(_words(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _group_label(values):
    """A line's legend entry: its values, in the order of the legend's title (the --by keys)."""
    return ", ".join(readable(v) for v in values)


_DOTTED = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$")


def _short(key):
    """A dotted scenario key for a file name: its last two segments (platform.link_classes.lte.up ->
    lte.up); any other column name as it is (safe_file_name makes it safe)."""
    return ".".join(key.split(".")[-2:]) if _DOTTED.match(key) else key


def sweep_chart(sweep, y, x, by, target=None):
    records = [row["record"] for row in sweep.rows]
    points = OrderedDict()  # (group, x) -> [y values]
    for r in records:
        value = _as_number(r.get(y, ""))
        if value is None:
            continue
        points.setdefault((tuple(r.get(b, "") for b in by), r.get(x, "")), []).append(value)
    xs = list(OrderedDict.fromkeys(k[1] for k in points))
    # Numbers, or quantities of one unit family ("2Mbps", "20Mbps"): a numeric axis, ticked as written.
    quantities = [_quantity(v) for v in xs]
    numeric = bool(xs) and all(q[0] is not None for q in quantities) and len({q[1] for q in quantities}) == 1
    position = {v: q[0] for v, q in zip(xs, quantities)} if numeric else {}
    if numeric:
        xs.sort(key=lambda v: position[v])
    groups = list(OrderedDict.fromkeys(k[0] for k in points))
    by_text = ", ".join(by)
    title = f"{y} against {x}" + (f", by {by_text}" if by else "")
    skipped = len(records) - sum(len(v) for v in points.values())
    caption = (f"Each point: the mean over the sweep's runs with that {x}" + (f" and {by_text}" if by else "") +
               "; bars: their range. Hover a point for its values." +
               (f" {skipped} {'run has' if skipped == 1 else 'runs have'} no {y} (not reached or failed)."
                if skipped else ""))
    derived = getattr(sweep, "derived", {}).get(y)
    if derived:
        caption += f" {y} is {derived}."
    if target is not None:
        caption += (f" Dashed: the target, {y} {target.sign} {fmt_number(target.value)}; a dot meets it, a cross "
                    "misses it.")
    divisor, unit = byte_scale(max((abs(v) for vs in points.values() for v in vs), default=0)) if "bytes" in y \
        else (1.0, "")
    if divisor != 1.0:
        points = OrderedDict((k, [v / divisor for v in vs]) for k, vs in points.items())
    chart = Chart(f"sweep_{y}_vs_{_short(x)}" + (f"_by_{'_'.join(_short(b) for b in by)}" if by else ""), title,
                  caption)
    ax = chart.figure.subplots()
    rows = []
    width = 0.6 / max(1, len(groups))
    for n, group in enumerate(groups):
        color = COLORS[n % len(COLORS)]
        label = _group_label(group) if by else None
        gx, gy = [], []
        for i, xv in enumerate(xs):
            values = points.get((group, xv))
            if not values:
                continue
            mean = sum(values) / len(values)
            pos = position[xv] if numeric else i + (n - (len(groups) - 1) / 2) * width
            gx.append(pos)
            gy.append(mean)
            lo, hi = min(values), max(values)
            if len(values) > 1:
                ax.errorbar([pos], [mean], yerr=[[mean - lo], [hi - mean]], color=color, capsize=3, lw=1)
            met = target.met(mean * divisor) if target is not None else None
            if met is False:
                (marker,) = ax.plot([pos], [mean], "X", ms=10, color=color, markeredgecolor="white", zorder=3)
            else:
                (marker,) = ax.plot([pos], [mean], "o", ms=7 if met else 5, color=color, zorder=3)
            where = ", ".join(f"{k} = {readable(v)}" for k, v in zip([x] + by, (xv,) + group))
            spread = f" (range {fmt_number(lo)} to {fmt_number(hi)} over {len(values)} runs)" if len(values) > 1 else ""
            verdict = "" if met is None else (": meets the target" if met else ": misses the target")
            chart.tip(marker, f"{where}: {y} = {fmt_number(mean)}{f' {unit}' if unit else ''}{spread}{verdict}")
            rows.append([readable(xv)] + [readable(g) for g in group] + [len(values), mean, lo, hi] +
                        ([] if met is None else ["meets" if met else "misses"]))
        ax.plot(gx, gy, "-", color=color, lw=1, label=label)
    if target is not None:
        line = target.value / divisor
        ax.axhline(line, ls="--", color="grey", lw=1)
        ax.annotate(f"target {target.sign} {fmt_number(target.value)}", (0.99, line),
                    xycoords=("axes fraction", "data"), va="bottom", ha="right", color="grey")
    labels = [readable(v) for v in xs]
    if not numeric:
        slanted = any(len(t) > MAX_TICK_CHARACTERS for t in labels)
        ax.set_xticks(range(len(xs)), labels, rotation=20 if slanted else 0, ha="right" if slanted else "center")
    else:
        values = [position[v] for v in xs]
        if min(values) > 0 and max(values) >= 8 * min(values):
            ax.set_xscale("log")  # a bandwidth doubled is a step, as a planner reads it
            ax.minorticks_off()
        if len(xs) <= 12:  # few swept values: a tick at each, as the sweep file spells them
            ax.set_xticks(values, labels)
    ax.set_xlabel(x)
    ax.set_ylabel(LABELS.get(y, y) + (f" ({unit})" if unit else "") + (", sim_time_s / rounds" if derived else ""))
    if y in ROUND_COLUMNS or target is not None:
        ax.set_ylim(bottom=0)  # a round time read against a target: from zero, so gaps are not magnified
    if y in ("rounds", "devices") or y.endswith(("_pushes", "_updates", "_drops", "restarts")):
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if by:
        title = None if by == ["label"] else by_text  # labels name themselves
        if len(groups) > 2:  # several lines: the legend beside the axes, not over the points
            ax.legend(fontsize=8, title=title, title_fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        else:
            ax.legend(fontsize=8, title=title, title_fontsize=7)
    chart.table = ([x] + list(by) + ["runs", f"mean {y}", "min", "max"] + ([] if target is None else ["target"]), rows)
    return chart


def report_charts(sweep, ys, x, by, targets):
    """The report's figures: the given --y columns, else the usual ones the sweep has."""
    if not ys:
        if not sweep.figures:  # no run finished yet: the page still lists the runs
            return []
        ys = [c for c in REPORT_Y if c in sweep.figures] or [default_y(sweep)]
        ys += [c for c in targets if c not in ys]
    charts = []
    for y in ys:
        ry, rx, rby = resolve(sweep, y, x, by)
        charts.append(sweep_chart(sweep, ry, rx, rby, targets.get(ry)))
    return charts

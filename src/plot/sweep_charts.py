"""The figures of a sweep: a summary figure of sweep.csv (--y) against a swept value (--x), one line
per value of another (--by). Runs that share x and by (other seeds, say) are averaged, their range
drawn as an error bar."""

from collections import OrderedDict

from charts import COLORS, Chart, fmt_number
from sweep_columns import default_y, resolve

REPORT_Y = ("time_to_target_s", "final_test_accuracy", "sim_time_s", "bytes_up", "energy_j")


def _as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def sweep_chart(sweep, y, x, by):
    records = [row["record"] for row in sweep.rows]
    points = OrderedDict()  # (group, x) -> [y values]
    for r in records:
        value = _as_number(r.get(y, ""))
        if value is None:
            continue
        points.setdefault((r.get(by, "") if by else "", r.get(x, "")), []).append(value)
    xs = list(OrderedDict.fromkeys(k[1] for k in points))
    numeric = all(_as_number(v) is not None for v in xs)
    if numeric:
        xs.sort(key=_as_number)
    groups = list(OrderedDict.fromkeys(k[0] for k in points))
    title = f"{y} against {x}" + (f", by {by}" if by else "")
    skipped = len(records) - sum(len(v) for v in points.values())
    caption = (f"Each point: the mean over the sweep's runs with that {x}" + (f" and {by}" if by else "") +
               "; bars: their range. Hover a point for its values." +
               (f" {skipped} {'run has' if skipped == 1 else 'runs have'} no {y} (not reached or failed)."
                if skipped else ""))
    chart = Chart(f"sweep_{y}_vs_{x}" + (f"_by_{by}" if by else ""), title, caption)
    ax = chart.figure.subplots()
    rows = []
    width = 0.6 / max(1, len(groups))
    for n, group in enumerate(groups):
        color = COLORS[n % len(COLORS)]
        gx, gy = [], []
        for i, xv in enumerate(xs):
            values = points.get((group, xv))
            if not values:
                continue
            mean = sum(values) / len(values)
            pos = _as_number(xv) if numeric else i + (n - (len(groups) - 1) / 2) * width
            gx.append(pos)
            gy.append(mean)
            lo, hi = min(values), max(values)
            if len(values) > 1:
                ax.errorbar([pos], [mean], yerr=[[mean - lo], [hi - mean]], color=color, capsize=3, lw=1)
            (marker,) = ax.plot([pos], [mean], "o", ms=5, color=color)
            where = f"{x} = {xv}" + (f", {by} = {group}" if by else "")
            spread = f" (range {fmt_number(lo)} to {fmt_number(hi)} over {len(values)} runs)" if len(values) > 1 else ""
            chart.tip(marker, f"{where}: {y} = {fmt_number(mean)}{spread}")
            rows.append([xv] + ([group] if by else []) + [len(values), mean, lo, hi])
        ax.plot(gx, gy, "-", color=color, lw=1, label=f"{by} = {group}" if by else None)
    if not numeric:
        ax.set_xticks(range(len(xs)), xs)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    if by:
        ax.legend(fontsize=7)
    chart.table = ([x] + ([by] if by else []) + ["runs", f"mean {y}", "min", "max"], rows)
    return chart


def report_charts(sweep, ys, x, by):
    """The report's figures: the given --y columns, else the usual ones the sweep has."""
    if not ys:
        if not sweep.figures:  # no run finished yet: the page still lists the runs
            return []
        ys = [c for c in REPORT_Y if c in sweep.figures] or [default_y(sweep)]
    charts = []
    for y in ys:
        ry, rx, rby = resolve(sweep, y, x, by)
        charts.append(sweep_chart(sweep, ry, rx, rby))
    return charts

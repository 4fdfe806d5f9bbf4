"""The figures of a run with privacy mechanisms: secure aggregation's phases round by round (time and
bytes, from rounds.csv's secagg_* columns) and, with differential privacy, the epsilon spent against
simulated time beside test accuracy against it. Each function returns a Chart, or None when the run
has no such mechanism (run_charts.py registers them)."""

import math

from matplotlib.ticker import MaxNLocator

from charts import COLORS, HIGHLIGHT, Chart, byte_scale, fmt_bytes, fmt_seconds, pct, spread, target_accuracy

# rounds.csv's phase names (Bonawitz et al.'s rounds 0 to 4), as the figure names them, and their colours.
PHASES = (
    ("advertise", "advertise keys", COLORS[0]),
    ("share_keys", "share keys", COLORS[1]),
    ("masked_input", "masked input (training)", COLORS[2]),
    ("consistency", "consistency check", COLORS[4]),
    ("unmasking", "unmasking", COLORS[5]),  # red is for failures
)
MAX_ROUND_BARS = 60  # above this, consecutive rounds share a bar (their mean): the page stays small


def _round_groups(count):
    """Lists of row indices, one per bar: every round its own up to MAX_ROUND_BARS, else runs of
    consecutive rounds of equal length (the last may be shorter)."""
    size = max(1, math.ceil(count / MAX_ROUND_BARS))
    return [list(range(i, min(i + size, count))) for i in range(0, count, size)], size


def _failed_text(failed, rows):
    counts = {}
    for i in rows:
        if failed[i]:
            counts[failed[i]] = counts.get(failed[i], 0) + 1
    return ", ".join(f"{n} at {phase.replace('_', ' ')}" for phase, n in counts.items())


def secagg_phases(run):
    r = run.rounds
    if r is None or not r.rows or not all(r.has(f"secagg_{p}_s") and r.has(f"secagg_{p}_bytes") for p, _, _ in PHASES):
        return None
    count = len(r.rows)
    index = r.numbers("round")
    seconds = {p: [v or 0.0 for v in r.numbers(f"secagg_{p}_s")] for p, _, _ in PHASES}
    sizes = {p: [v or 0.0 for v in r.numbers(f"secagg_{p}_bytes")] for p, _, _ in PHASES}
    failed = [f.strip() for f in r.text("secagg_failed_phase")] if r.has("secagg_failed_phase") else [""] * count
    per_round = [sum(seconds[p][i] for p, _, _ in PHASES) for i in range(count)]
    total_s = sum(per_round)
    protocol_s = total_s - sum(seconds["masked_input"])
    failures = sum(1 for f in failed if f)
    groups, size = _round_groups(count)

    caption = (f"Each round's time split into the secure aggregation's phases (rounds.csv's secagg_*_s: from the "
               f"round's start, the masked input including training), and the protocol's bytes per phase, both "
               f"ways, headers included (secagg_*_bytes). Outside the masked input the protocol took "
               f"{fmt_seconds(protocol_s)} of {fmt_seconds(total_s)} ({pct(protocol_s / total_s if total_s else 0)}).")
    if size > 1:
        caption += f" {count} rounds: each bar is the mean of {size} consecutive rounds."
    if failures:
        caption += (f" {failures} of {count} rounds failed ({_failed_text(failed, range(count))}): "
                    "a red cross above the bar.")
    caption += " Hover a bar for its values."
    chart = Chart("secagg_phases", "Secure aggregation: time and bytes per phase", caption, size=(8.5, 3.9))
    grid = chart.figure.add_gridspec(1, 2, width_ratios=(2.6, 1), wspace=0.45)
    ax, right = chart.figure.add_subplot(grid[0]), chart.figure.add_subplot(grid[1])

    for rows in groups:
        first, last = index[rows[0]], index[rows[-1]]  # `round` is a required, finite column
        x, width = (first + last) / 2, 0.8 * (last - first + 1)
        which = f"round {first:g}" if len(rows) == 1 else f"rounds {first:g} to {last:g} (mean per round)"
        mean = lambda values: sum(values[i] for i in rows) / len(rows)  # noqa: E731
        whole = mean(per_round)
        why = _failed_text(failed, rows)
        bottom = 0.0
        for phase, name, color in PHASES:
            height = mean(seconds[phase])
            if height > 0:
                text = (f"{which}: {name} {fmt_seconds(height)} ({pct(height / whole if whole else 0)} of "
                        f"{fmt_seconds(whole)}), {fmt_bytes(mean(sizes[phase]))}")
                if why:
                    text += f"; failed: {why}"
                chart.tip(ax.bar(x, height, width=width, bottom=bottom, color=color)[0], text)
            bottom += height
        if why:
            (cross,) = ax.plot([x], [bottom], "x", ms=6, mew=1.6, color=HIGHLIGHT, clip_on=False)
            chart.tip(cross, f"{which}: secure aggregation failed ({why})")
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("time (s)")
    ax.set_ylim(bottom=0)
    ax.set_title("time per round", fontsize=9)

    mean_bytes = {p: sum(sizes[p]) / count for p, _, _ in PHASES}
    divisor, unit = byte_scale(max(mean_bytes.values()))
    y = list(range(len(PHASES)))[::-1]
    for yi, (phase, name, color) in zip(y, PHASES):
        chart.tip(right.barh(yi, mean_bytes[phase] / divisor, color=color)[0],
                  f"{name}: {fmt_bytes(mean_bytes[phase])} per round, {fmt_bytes(sum(sizes[phase]))} over "
                  f"{count} rounds")
        right.annotate(fmt_bytes(mean_bytes[phase]), (mean_bytes[phase] / divisor, yi), xytext=(3, 0),
                       textcoords="offset points", va="center", fontsize=7)  # small phases' bars are slivers
    right.set_yticks(y, [name for _, name, _ in PHASES], fontsize=7)
    right.set_xlabel(f"bytes per round, mean ({unit})")
    right.set_title("protocol bytes per phase", fontsize=9)
    right.set_xlim(0, 1.3 * max(mean_bytes.values()) / divisor or 1)  # room for the labels
    handles = [ax.bar(0, 0, color=c) for _, _, c in PHASES]
    chart.figure.legend(handles, [n for _, n, _ in PHASES], fontsize=7, ncol=len(PHASES), loc="upper center",
                        bbox_to_anchor=(0.5, 0.0), frameon=False)
    chart.table = (["phase", "total_s", "mean_s_per_round", "share_of_time", "total_bytes", "mean_bytes_per_round",
                    "rounds_failed_here"],
                   [[phase, sum(seconds[phase]), sum(seconds[phase]) / count,
                     sum(seconds[phase]) / total_s if total_s else None, sum(sizes[phase]), mean_bytes[phase],
                     sum(1 for f in failed if f == phase)] for phase, _, _ in PHASES])
    return chart


def _delta(run):
    spent = run.summary.get("privacy")
    if isinstance(spent, dict) and spent.get("delta") is not None:
        return spent["delta"]
    dp = (run.scenario.get("privacy") or {}).get("dp")
    return dp.get("delta", 1e-5) if isinstance(dp, dict) else None  # the scenario's default


def epsilon(run):
    """Epsilon against simulated time (rounds.csv's, one step per round, else metrics.csv's) and, when
    the run evaluated, test accuracy against epsilon: what the privacy bought."""
    m, r = run.metrics, run.rounds
    m_eps = m.numbers("epsilon") if m is not None and m.has("epsilon") else []
    r_eps = r.numbers("epsilon") if r is not None and r.has("epsilon") else []
    if not any(v is not None for v in m_eps + r_eps):
        return None
    if any(v is not None for v in r_eps):
        start = next((v for v in r.numbers("start_s") if v is not None), 0.0)
        times, values = [start] + r.numbers("end_s"), [0.0] + r_eps  # nothing spent before the first round
        labels = ["before the first round"] + [f"round {v:g}" for v in r.numbers("round")]
        source = "rounds.csv, at each round's end"
    else:
        times, values, source = m.numbers("sim_time_s"), m_eps, "metrics.csv, at each evaluation"
        labels = [f"after {v:g} rounds" for v in m.numbers("round")]
    points = [(t, v, label) for t, v, label in zip(times, values, labels) if t is not None and v is not None]
    accuracy = []
    if m_eps and m.has("test_accuracy"):
        accuracy = [(e, a, t) for e, a, t in zip(m_eps, m.numbers("test_accuracy"), m.numbers("sim_time_s"))
                    if e is not None and a is not None]
    delta = _delta(run)
    at = f" at delta {delta:g}" if isinstance(delta, (int, float)) else ""
    budget = (run.scenario.get("stop") or {}).get("epsilon")
    caption = f"The epsilon{at} the rounds applied so far have spent ({source})"
    caption += "; beside it, test accuracy against it (metrics.csv)." if accuracy else "."
    if budget is not None:
        caption += f" Dashed: the budget stop.epsilon = {budget:g}."
    chart = Chart("epsilon", "Privacy spent: epsilon", caption, size=(8.5, 3.4) if accuracy else (7.5, 3.4))
    if accuracy:
        ax, right = chart.figure.subplots(1, 2, gridspec_kw={"wspace": 0.3})
    else:
        ax, right = chart.figure.subplots(), None
    t, v = [p[0] for p in points], [p[1] for p in points]
    (line,) = ax.step(t, v, where="post", color=COLORS[4], lw=1.4)
    if points:
        chart.tip(line, f"epsilon{at}: {v[-1]:.4g} after {fmt_seconds(t[-1])}")
    for i in spread(len(points)):
        (marker,) = ax.plot([t[i]], [v[i]], "o", ms=3, color=COLORS[4])
        chart.tip(marker, f"{points[i][2]}, {t[i]:g} s: epsilon {v[i]:.4g}")
    if budget is not None:
        ax.axhline(budget, ls="--", color="grey", lw=1)
        ax.annotate(f"budget {budget:g}", (0.01, budget), xycoords=("axes fraction", "data"), va="bottom", color="grey")
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(f"epsilon{at}")
    ax.set_ylim(bottom=0)
    if right is not None:
        right.plot([a[0] for a in accuracy], [a[1] for a in accuracy], "-", color=COLORS[0], lw=1.2)
        for i in spread(len(accuracy)):
            e, a, when = accuracy[i]
            (marker,) = right.plot([e], [a], "o", ms=3, color=COLORS[0])
            chart.tip(marker, f"{when:g} s: accuracy {a:.4f} at epsilon {e:.4g}")
        target = target_accuracy(run)
        if target is not None:
            right.axhline(target, ls="--", color="grey", lw=1)
        right.set_xlabel(f"epsilon{at}")
        right.set_ylabel("test accuracy")
    if accuracy:
        chart.table = (["sim_time_s", "epsilon", "test_accuracy"], [[w, e, a] for e, a, w in accuracy])
    else:
        chart.table = (["where", "sim_time_s", "epsilon"], [[label, when, value] for when, value, label in points])
    return chart

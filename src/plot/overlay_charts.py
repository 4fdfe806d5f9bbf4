"""`edgetrain plot RUN RUN ...`: several runs on one figure, for comparisons such as IID against
non-IID or sync against async: test accuracy against simulated time and against the bytes on the
wire (up + down), one line per run, each run's target and time to target marked in its colour."""

from charts import COLORS, Chart, byte_scale, spread


def labels(runs, given):
    """One legend label per run: --label when given, else the run's name; runs of one name (one
    scenario rerun with --set into several folders) are told apart by their folder."""
    if given:
        return list(given)
    names = [run.name for run in runs]
    return names if len(set(names)) == len(names) else [run.folder for run in runs]


def _curve(run, bytes_axis):
    m = run.metrics
    if m is None or not m.rows:
        return None
    acc = m.numbers("test_accuracy")
    if all(a is None for a in acc):
        return None
    if bytes_axis:
        x = [(u or 0) + (d or 0) for u, d in zip(m.numbers("bytes_up"), m.numbers("bytes_down"))]
    else:
        x = m.numbers("sim_time_s")
    return x, acc


def overlay(runs, names, bytes_axis):
    """The accuracy of every run against time (or bytes); None when no run has evaluations."""
    curves = [_curve(run, bytes_axis) for run in runs]
    drawn = [(run, name, c) for run, name, c in zip(runs, names, curves) if c is not None]
    if not drawn:
        return None
    key = "overlay_accuracy_bytes" if bytes_axis else "overlay_accuracy_time"
    divisor, unit = byte_scale(max((max(c[0], default=0) for _, _, c in drawn), default=0)) if bytes_axis else (1, "s")
    xlabel = f"bytes on the wire so far, up + down ({unit})" if bytes_axis else "simulated time (s)"
    title = "Test accuracy against " + ("bytes on the wire" if bytes_axis else "simulated time")
    caption = (f"{len(drawn)} runs, one line each (metrics.csv); dashed: a run's target accuracy"
               + ("" if bytes_axis else ", dotted: its time to target") + ".")
    left_out = [name for name, c in zip(names, curves) if c is None]
    if left_out:
        caption += f" Not drawn (no evaluations): {', '.join(left_out)}."
    chart = Chart(key, title, caption)
    ax = chart.figure.subplots()
    for n, (run, name, (x, acc)) in enumerate(drawn):
        color = COLORS[n % len(COLORS)]
        xs = [v / divisor for v in x]
        (line,) = ax.plot(xs, acc, "-", color=color, lw=1.4, label=name)
        best = max(range(len(acc)), key=lambda i: acc[i] if acc[i] is not None else -1)
        chart.tip(line, f"{name}: best accuracy {acc[best]:.4f} at {xs[best]:g} {unit}")
        for i in spread(len(xs), limit=40, keep=(best,)):
            if acc[i] is not None:
                (marker,) = ax.plot([xs[i]], [acc[i]], "o", ms=2.5, color=color)
                chart.tip(marker, f"{name}: accuracy {acc[i]:.4f} at {xs[i]:g} {unit}")
        target = (run.scenario.get("stop") or {}).get("target_accuracy")
        if isinstance(target, (int, float)):
            ax.axhline(target, ls="--", color=color, lw=0.8, alpha=0.7)
        ttt = run.summary.get("time_to_target_s")
        if not bytes_axis and isinstance(ttt, (int, float)):
            chart.tip(ax.axvline(ttt, ls=":", color=color, lw=1), f"{name}: time to target {ttt:g} s")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=7)
    chart.table = (["run", "evaluations", "final_test_accuracy", "best_test_accuracy"],
                   [[name, len(c[1]), run.summary.get("final_test_accuracy"), run.summary.get("best_test_accuracy")]
                    for run, name, c in drawn])
    return chart


def overlay_charts(runs, given_labels):
    """(charts, notes) for several runs."""
    names = labels(runs, given_labels)
    charts = [c for c in (overlay(runs, names, False), overlay(runs, names, True)) if c is not None]
    notes = [] if charts else ["no run has evaluations in metrics.csv (timing-only runs)"]
    return charts, notes

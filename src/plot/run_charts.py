"""The figures of one run: accuracy against simulated time and against bytes, buffer occupancy over
time, bytes per device and per link (the bottleneck in red), each device's time split, and, when
the run wrote them, round durations, staleness, energy per device and accuracy against energy; with
privacy mechanisms, the figures of privacy_charts.py (epsilon spent, secure aggregation's phases).
Each function returns a Chart, or None when the run holds nothing to draw (then `missing` says why)."""

import re
from collections import defaultdict

from matplotlib.ticker import MaxNLocator

from charts import COLORS, HIGHLIGHT, Chart, byte_scale, fmt_bytes, fmt_seconds, pct, spread, target_accuracy
from privacy_charts import epsilon, secagg_phases

MANY_DEVICES = 8  # above this, buffers show the fleet total and the top few
TOP_DEVICES = 5
MAX_BARS = 20  # devices or links shown one by one
SPLIT_PER_DEVICE = 24  # above this, time splits are grouped by device class


def _accuracy(run, key, xlabel, x_of):
    m = run.metrics
    if m is None or not m.rows or all(a is None for a in m.numbers("test_accuracy")):
        return None
    t, rounds = m.numbers("sim_time_s"), m.numbers("round")
    acc, loss = m.numbers("test_accuracy"), m.numbers("test_loss")
    x, unit = x_of(m)
    title = "Test accuracy against " + xlabel.split(" (")[0]
    chart = Chart(key, title, "One point per evaluation (metrics.csv); hover a point for its values.")
    ax = chart.figure.subplots()
    ax.plot(x, acc, "-", color=COLORS[0], lw=1.4)
    best = max(range(len(acc)), key=lambda i: acc[i] if acc[i] is not None else -1)
    for i in spread(len(x), keep=(best,)):
        if acc[i] is None:
            continue
        (marker,) = ax.plot([x[i]], [acc[i]], "o", ms=3.5, color=COLORS[0])
        shown_loss = "not finite" if loss[i] is None else f"{loss[i]:.4g}"  # a diverged run's NaN
        chart.tip(marker, f"{t[i]:g} s, round {rounds[i]:g}: accuracy {acc[i]:.4f}, loss {shown_loss}, "
                          f"{unit(i)} on the wire")
    target = target_accuracy(run)
    if target is not None:
        ax.axhline(target, ls="--", color="grey", lw=1)
        ax.annotate(f"target {target:g}", (0.01, target), xycoords=("axes fraction", "data"), va="bottom", color="grey")
    ttt = run.summary.get("time_to_target_s")
    if ttt is not None and key == "accuracy_time":
        chart.tip(ax.axvline(ttt, ls=":", color=HIGHLIGHT, lw=1.2), f"time to target: {ttt:g} s")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("test accuracy")
    chart.table = (
        ["sim_time_s", "round", "test_accuracy", "test_loss", "bytes_up", "bytes_down"],
        [list(r) for r in zip(t, rounds, acc, loss, m.numbers("bytes_up"), m.numbers("bytes_down"))],
    )
    return chart


def accuracy_time(run):
    return _accuracy(run, "accuracy_time", "simulated time (s)",
                     lambda m: (m.numbers("sim_time_s"), lambda i: _wire(m, i)))


def accuracy_bytes(run):
    m = run.metrics
    total = [] if m is None else [(u or 0) + (d or 0) for u, d in zip(m.numbers("bytes_up"), m.numbers("bytes_down"))]
    divisor, unit = byte_scale(max(total, default=0))
    return _accuracy(run, "accuracy_bytes", f"bytes on the wire so far, up + down ({unit})",
                     lambda m: ([v / divisor for v in total], lambda i: _wire(m, i)))


def accuracy_energy(run):
    m = run.metrics
    if m is None or "energy_j" not in m.header or all(e is None for e in m.numbers("energy_j")):
        return None
    chart = _accuracy(run, "accuracy_energy", "energy consumed so far (J)",
                      lambda m: ([e or 0 for e in m.numbers("energy_j")],
                                 lambda i: _wire(m, i) + f", {m.numbers('energy_j')[i] or 0:.4g} J so far"))
    to_target = (run.summary.get("energy") or {}).get("energy_to_target_j")
    if chart is not None and to_target is not None:
        ax = chart.figure.axes[0]
        chart.tip(ax.axvline(to_target, ls=":", color=HIGHLIGHT, lw=1.2), f"energy to target: {to_target:.4g} J")
    if chart is not None:
        chart.caption = ("One point per evaluation (metrics.csv): everything metered (devices, aggregators, links) "
                         "so far; hover a point for its values.")
        chart.table[0].append("energy_j")
        for row, e in zip(chart.table[1], m.numbers("energy_j")):
            row.append(e)
    return chart


def _wire(m, i):
    return f"{fmt_bytes(m.numbers('bytes_up')[i])} up + {fmt_bytes(m.numbers('bytes_down')[i])} down"


def _device_series(buffers):
    """device -> ([times], [buffered samples]) in file order."""
    series = defaultdict(lambda: ([], []))
    rows = zip(buffers.numbers("sim_time_s"), buffers.text("device"), buffers.numbers("buffered_samples"))
    for t, device, held in rows:
        series[device][0].append(t)
        series[device][1].append(held)
    return series


def _fleet_total(run, series):
    """The fleet's buffered samples over time: buffers_fleet.csv when the run wrote it, else the sum
    of every device's last known occupancy at each time any device reported."""
    fleet = run.buffers_fleet
    if fleet is not None and fleet.rows:
        return fleet.numbers("sim_time_s"), fleet.numbers("buffered_samples")
    events = sorted((t, device, held) for device, (ts, hs) in series.items() for t, held in zip(ts, hs))
    last, total, times, totals = {}, 0.0, [], []
    for t, device, held in events:
        total += held - last.get(device, 0.0)
        last[device] = held
        if times and times[-1] == t:
            totals[-1] = total
        else:
            times.append(t)
            totals.append(total)
    return times, totals


def buffers(run):
    b = run.buffers
    if b is None or not b.rows:
        return None
    series = _device_series(b)
    many = len(series) > MANY_DEVICES
    shown = sorted(series, key=lambda d: (-max(series[d][1]), d))[:TOP_DEVICES] if many else sorted(series)
    caption = (f"Samples waiting in each device's stream buffer (buffers.csv). {len(series)} devices: the fleet total "
               f"and the {len(shown)} devices with the highest peaks." if many else
               "Samples waiting in each device's stream buffer (buffers.csv); hover a line for its peak.")
    chart = Chart("buffers", "Buffer occupancy over time", caption, size=(7.5, 5.4) if many else (7.5, 3.6))
    table_rows = []
    if many:  # the total on its own axes: at fleet scale it dwarfs any one device
        top, ax = chart.figure.subplots(2, 1, sharex=True)
        times, totals = _fleet_total(run, series)
        (line,) = top.step(times, totals, where="post", color="black", lw=1.6)
        top.set_ylabel("fleet total (samples)")
        chart.tip(line, f"fleet total: peak {max(totals):,.0f} samples, final {totals[-1]:,.0f}")
        for i in spread(len(times), limit=60):
            (marker,) = top.plot([times[i]], [totals[i]], "o", ms=2.5, color="black")
            chart.tip(marker, f"fleet total at {times[i]:g} s: {totals[i]:,.0f} samples")
    else:
        ax = chart.figure.subplots()
    for n, device in enumerate(shown):
        ts, hs = series[device]
        color = COLORS[n % len(COLORS)]
        (line,) = ax.step(ts, hs, where="post", color=color, lw=1.1, label=device)
        peak = max(range(len(hs)), key=lambda i: hs[i])
        chart.tip(line, f"{device}: peak {hs[peak]:,.0f} samples at {ts[peak]:g} s, final {hs[-1]:,.0f}")
        (marker,) = ax.plot([ts[peak]], [hs[peak]], "o", ms=4, color=color)
        chart.tip(marker, f"{device}: peak {hs[peak]:,.0f} samples at {ts[peak]:g} s")
        table_rows.append([device, hs[peak], ts[peak], hs[-1]])
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("buffered samples")
    ax.legend(fontsize=7, ncol=2 if len(shown) > 4 else 1, loc="best")
    chart.table = (["device", "peak_samples", "peak_at_s", "final_samples"], table_rows)
    return chart


def _bottleneck_link(run, links):
    """The summary's busiest link (by mean utilisation), else the links.csv row with the highest one."""
    listed = (run.summary.get("bottleneck") or {}).get("links") or []
    if listed and isinstance(listed[0], dict) and listed[0].get("link"):
        return listed[0]["link"]
    values = [v if v is not None else -1 for v in links.numbers("mean_utilization")]
    return links.text("link")[max(range(len(values)), key=lambda i: values[i])] if values else None


def _optional(table, column):
    return table.numbers(column) if table.has(column) else [None] * len(table.rows)


def links(run):
    """Bytes and mean utilisation (the share of the link's capacity over the run) per link; busy
    fraction and utilisation while busy, when links.csv has them, in the hover texts."""
    links_csv = run.links
    if links_csv is None or not links_csv.rows:
        return None
    rows = [r for r in zip(links_csv.text("link"), links_csv.numbers("bytes"), links_csv.numbers("mean_utilization"),
                           links_csv.numbers("messages"), links_csv.numbers("bandwidth_bps"),
                           _optional(links_csv, "busy_fraction"), _optional(links_csv, "utilization_when_busy"))
            if (r[1] or 0) > 0]
    if not rows:
        return None
    busiest = sorted(rows, key=lambda r: (-(r[2] or 0), r[0]))
    heaviest = sorted(rows, key=lambda r: (-(r[1] or 0), r[0]))
    names = {r[0] for r in busiest[: MAX_BARS * 3 // 5]} | {r[0] for r in heaviest[: MAX_BARS * 2 // 5]}
    shown = [r for r in busiest if r[0] in names]
    bottleneck = _bottleneck_link(run, links_csv)
    peak = next((r[2] for r in rows if r[0] == bottleneck), None) or 0
    # Links as busy as the bottleneck are red too, unless the network idles (then ties mean nothing).
    tied = {r[0] for r in rows if peak >= 0.05 and abs((r[2] or 0) - peak) <= 1e-3 * peak} | {bottleneck}
    others = {0: "", 1: " and the link as busy"}.get(len(tied) - 1, f" and the {len(tied) - 1} links as busy")
    caption = (f"Bytes each link carried and its mean utilisation (links.csv), busiest first; the bottleneck "
               f"link ({bottleneck}){others} in red.")
    critical = (run.summary.get("bottleneck") or {}).get("critical_path")
    if isinstance(critical, dict) and critical.get("link"):
        caption += f" The critical path's link: {critical['link']}."
    if len(shown) < len(rows):
        caption += f" {len(shown)} of {len(rows)} links that carried bytes."
    chart = Chart("links", "Bytes and load per link", caption, size=(7.5, 0.9 + 0.24 * len(shown)))
    left, right = chart.figure.subplots(1, 2, sharey=True)
    divisor, unit = byte_scale(max(r[1] for r in shown))
    y = list(range(len(shown)))[::-1]
    for yi, (name, nbytes, load, messages, bandwidth, busy, when_busy) in zip(y, shown):
        color = HIGHLIGHT if name in tied else COLORS[0]
        text = (f"{name}: {fmt_bytes(nbytes)} in {messages:,.0f} messages, mean utilisation {pct(load)}"
                + (f", busy {pct(busy)} of the run at {pct(when_busy)} of capacity" if busy is not None else "")
                + f", bandwidth {bandwidth / 1e6:g} Mbit/s" + (" (bottleneck)" if name in tied else ""))
        chart.tip(left.barh(yi, nbytes / divisor, color=color)[0], text)
        chart.tip(right.barh(yi, 100 * (load or 0), color=color)[0], text)
    left.set_yticks(y, [r[0] for r in shown], fontsize=7)
    left.set_xlabel(f"bytes carried ({unit})")
    right.set_xlabel("mean utilisation (%)")
    right.set_xlim(0, 100)
    chart.table = (["link", "bytes", "mean_utilization", "messages", "bandwidth_bps", "busy_fraction",
                    "utilization_when_busy"], [list(r) for r in shown])
    return chart


def devices_bytes(run):
    d = run.devices
    if d is None or not d.rows:
        return None
    rows = sorted(zip(d.text("device"), d.numbers("bytes_up"), d.numbers("bytes_down")),
                  key=lambda r: (-((r[1] or 0) + (r[2] or 0)), r[0]))
    shown, rest = rows[:MAX_BARS], rows[MAX_BARS:]
    caption = "Bytes each device sent (up) and received (down), headers included (devices.csv)."
    if rest:
        caption += (f" The {len(shown)} devices with the most bytes; the other {len(rest)} sent "
                    f"{fmt_bytes(sum(r[1] or 0 for r in rest))} and received "
                    f"{fmt_bytes(sum(r[2] or 0 for r in rest))}.")
    chart = Chart("devices_bytes", "Bytes per device", caption, size=(7.5, 0.9 + 0.26 * len(shown)))
    ax = chart.figure.subplots()
    divisor, unit = byte_scale(max(max(r[1] or 0, r[2] or 0) for r in shown))
    y = list(range(len(shown)))[::-1]
    for yi, (name, up, down) in zip(y, shown):
        chart.tip(ax.barh(yi + 0.2, (up or 0) / divisor, height=0.4, color=COLORS[0])[0], f"{name}: {fmt_bytes(up)} up")
        chart.tip(ax.barh(yi - 0.2, (down or 0) / divisor, height=0.4, color=COLORS[1])[0],
                  f"{name}: {fmt_bytes(down)} down")
    ax.set_yticks(y, [r[0] for r in shown], fontsize=7)
    ax.set_xlabel(f"bytes ({unit})")
    ax.legend(["up", "down"], fontsize=7, loc="lower right")
    chart.table = (["device", "bytes_up", "bytes_down"], [list(r) for r in shown])
    return chart


SPLIT = (("compute_s", "compute", COLORS[2]), ("comm_s", "communicate", COLORS[0]),
         ("data_wait_s", "wait for data", COLORS[1]), ("other_wait_s", "wait (other)", "#bbbbbb"),
         ("offline_s", "offline", "#444444"))


def device_class(record):
    """A device's class: the `class` column when the run wrote one, else its name without a trailing
    number and its host's speed (devices of one name but several speeds are several classes)."""
    cls = (record.get("class") or "").strip()
    if cls:
        return cls
    name = re.sub(r"[-_.]?\d+$", "", record["device"]) or record["device"]
    speed = float(record.get("host_speed_flops") or 0)
    return f"{name} {speed / 1e9:g} GF/s" if speed else name


def _split_of(record):
    value = lambda k: float(record.get(k) or 0)  # noqa: E731
    wait, data_wait = value("wait_s"), value("data_wait_s")
    parts = {"compute_s": value("compute_s"), "comm_s": value("comm_s"), "data_wait_s": data_wait,
             "other_wait_s": max(0.0, wait - data_wait), "offline_s": value("offline_s")}
    return parts


def time_split(run):
    d = run.devices
    if d is None or not d.rows:
        return None
    records = d.records()
    total_s = run.summary.get("sim_time_s") or max(sum(_split_of(r).values()) for r in records) or 1.0
    grouped = len(records) > SPLIT_PER_DEVICE
    bars = []  # (label, {part: seconds, mean per device}, count, bound)
    if grouped:
        classes = defaultdict(list)
        for r in records:
            classes[device_class(r)].append(r)
        for cls in sorted(classes):
            members = classes[cls]
            mean = {k: sum(_split_of(r)[k] for r in members) / len(members) for k, _, _ in SPLIT}
            bounds = defaultdict(int)
            for r in members:
                if r.get("bound"):
                    bounds[r["bound"]] += 1
            bound = ", ".join(f"{n} {b}-bound" for b, n in sorted(bounds.items()))
            bars.append((f"{cls} ({len(members)})", mean, len(members), bound))
        caption = (f"Mean share of the run's {fmt_seconds(total_s)} of simulated time per device, by device class "
                   f"({len(records)} devices in {len(bars)} classes; devices.csv).")
    else:
        bars = [(r["device"], _split_of(r), 1, (r.get("bound") or "") and r["bound"] + "-bound") for r in records]
        caption = f"How each device spent the run's {fmt_seconds(total_s)} of simulated time (devices.csv)."
    chart = Chart("time_split", "Compute, communication, wait and offline time per device", caption,
                  size=(7.5, 1.1 + 0.26 * len(bars)))
    ax = chart.figure.subplots()
    y = list(range(len(bars)))[::-1]
    for yi, (label, parts, count, bound) in zip(y, bars):
        left = 0.0
        for key, name, color in SPLIT:
            share = parts[key] / total_s
            if share > 0:
                who = f"{label}" + (" (mean per device)" if grouped else "")
                text = f"{who}: {name} {fmt_seconds(parts[key])} ({pct(share)})" + (f"; {bound}" if bound else "")
                chart.tip(ax.barh(yi, 100 * share, left=100 * left, color=color, label=name)[0], text)
            left += share
    ax.set_yticks(y, [b[0] for b in bars], fontsize=7)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of simulated time (%)")
    handles = [ax.barh(0, 0, color=c, label=n) for _, n, c in SPLIT]
    ax.legend(handles, [n for _, n, _ in SPLIT], fontsize=7, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.0),
              frameon=False)
    chart.table = (["device" if not grouped else "class (devices)"] + [k for k, _, _ in SPLIT] + ["bound"],
                   [[label] + [parts[k] for k, _, _ in SPLIT] + [bound] for label, parts, _, bound in bars])
    return chart


def energy_devices(run):
    d = run.devices
    if d is None or not d.rows or "energy_j" not in d.header:
        return None
    records = [r for r in d.records() if (r.get("energy_j") or "").strip()]
    if not records:
        return None
    energy = lambda r: float(r["energy_j"])  # noqa: E731
    unmetered = len(d.rows) - len(records)
    grouped = len(records) > SPLIT_PER_DEVICE
    if grouped:
        classes = defaultdict(list)
        for r in records:
            classes[device_class(r)].append(energy(r))
        bars = sorted(((f"{c} ({len(v)})", sum(v) / len(v), sum(v)) for c, v in classes.items()),
                      key=lambda b: (-b[1], b[0]))
        caption = (f"Mean energy per device, by device class ({len(records)} devices in {len(bars)} classes; "
                   "devices.csv); hover a bar for the class's total.")
    else:
        bars = sorted(((r["device"], energy(r), energy(r)) for r in records), key=lambda b: (-b[1], b[0]))
        caption = "Energy each device's host consumed over the run (devices.csv)."
    shown, rest = bars[:MAX_BARS], bars[MAX_BARS:]
    if rest:
        caption += f" The {len(shown)} largest; the other {len(rest)} consumed {sum(b[2] for b in rest):.4g} J."
    if unmetered:
        caption += f" {unmetered} devices have no wattage in the platform and are not shown."
    chart = Chart("energy_devices", "Energy per device", caption, size=(7.5, 0.9 + 0.26 * len(shown)))
    ax = chart.figure.subplots()
    y = list(range(len(shown)))[::-1]
    for yi, (label, value, total) in zip(y, shown):
        text = f"{label}: {value:.4g} J" + (f" per device, {total:.4g} J in all" if grouped else "")
        chart.tip(ax.barh(yi, value, height=0.6, color=COLORS[3])[0], text)
    ax.set_yticks(y, [b[0] for b in shown], fontsize=7)
    ax.set_xlabel("energy (J)" + (", mean per device" if grouped else ""))
    chart.table = (["class (devices)" if grouped else "device", "energy_j", "total_energy_j"],
                   [list(b) for b in shown])
    return chart


def rounds(run):
    r = run.rounds
    if r is None or not r.rows:
        return None
    index, duration, slowest = r.numbers("round"), r.numbers("duration_s"), r.text("slowest_device")
    counts = defaultdict(int)
    for s in slowest:
        counts[s] += 1
    top = [s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6]]
    chart = Chart("rounds", "Round durations and the slowest device",
                  "Each synchronous round's duration (rounds.csv), coloured by the device that closed it; "
                  "hover a point.")
    ax = chart.figure.subplots()
    ax.plot(index, duration, "-", color="#999999", lw=0.8)
    for i in spread(len(index)):
        color = COLORS[top.index(slowest[i]) % len(COLORS)] if slowest[i] in top else "#777777"
        (marker,) = ax.plot([index[i]], [duration[i]], "o", ms=3, color=color)
        chart.tip(marker, f"round {index[i]:g}: {fmt_seconds(duration[i])}, slowest {slowest[i]}")
    for n, s in enumerate(top):
        ax.plot([], [], "o", color=COLORS[n % len(COLORS)], label=f"{s} ({counts[s]} rounds)")
    ax.legend(fontsize=7, title="slowest device", title_fontsize=7)
    ax.set_xlabel("round")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("duration (s)")
    ax.set_ylim(bottom=0)
    by_count = sorted(counts, key=lambda s: (-counts[s], s))
    chart.table = (["slowest_device", "rounds"], [[s, counts[s]] for s in by_count])
    return chart


def staleness(run):
    s = run.staleness
    if s is None or not s.rows:
        return None
    values = [int(v) for v in s.numbers("staleness") if v is not None]
    counts = defaultdict(int)
    for v in values:
        counts[v] += 1
    chart = Chart("staleness", "Staleness of applied updates",
                  "Updates applied since each push's model was sent (staleness.csv).")
    ax = chart.figure.subplots()
    for v in sorted(counts):
        chart.tip(ax.bar(v, counts[v], color=COLORS[4])[0],
                  f"staleness {v}: {counts[v]:,} pushes ({pct(counts[v] / len(values))})")
    ax.set_xlabel("staleness (updates)")
    ax.set_ylabel("pushes")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # counts: no tick at 1.5 updates
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    chart.table = (["staleness", "pushes"], [[v, counts[v]] for v in sorted(counts)])
    return chart


# In the order the report shows them; each with what its absence means.
RUN_CHARTS = (
    (accuracy_time, "no evaluations in metrics.csv (a timing-only run)"),
    (accuracy_bytes, None),
    (accuracy_energy, None),
    (epsilon, None),
    (time_split, "no devices.csv"),
    (energy_devices, None),
    (links, "no link carried bytes"),
    (devices_bytes, None),
    (buffers, "no device streams (buffers.csv is empty)"),
    (rounds, None),
    (secagg_phases, None),
    (staleness, None),
)


def run_charts(run):
    """(charts, notes): the figures this run supports, and a line for each it does not."""
    charts, notes = [], []
    for make, missing in RUN_CHARTS:
        chart = make(run)
        if chart is not None:
            charts.append(chart)
        elif missing:
            notes.append(missing)
    return charts, notes

"""report.html: one self-contained page (figures as inline SVG with hover tooltips, tables beside
them, no script, no file or network fetch) for a run or a sweep. A sweep's page holds its figures,
the table of runs linking to each run's section, and every run's section."""

import html
import json
import os

from charts import fmt_bytes, fmt_number, fmt_seconds, pct
from run_charts import run_charts
from sweep_charts import readable, report_charts

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 1100px; margin: 0 auto; padding: 1em 1.5em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { margin-top: 1.3em; } nav a { margin-right: 1em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; } th { background: #f4f4f4; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1em 0; } figcaption { color: #555; font-size: 13px; }
svg { max-width: 100%; height: auto; } pre { background: #f7f7f7; padding: 0.6em; overflow: auto; font-size: 12px; }
.scroll { overflow-x: auto; } .bad { color: #d62728; } .note { color: #666; font-style: italic; }
details { margin: 0.3em 0 0.8em; }
"""

HEADLINE = (
    ("status", None), ("status_reason", None), ("mode", None), ("devices", None), ("rounds", None),
    ("sim_time_s", fmt_seconds), ("time_to_target_s", fmt_seconds), ("time_to_target_exact_to", None),
    ("time_to_target_bracket_s", None), ("final_test_accuracy", None),
    ("best_test_accuracy", None), ("bytes_up", fmt_bytes), ("bytes_down", fmt_bytes), ("energy_j", None),
    ("wall_time_s", fmt_seconds),
)


def esc(value):
    return html.escape(str(value), quote=True)


def table(header, rows):
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def cell(value):
    if isinstance(value, (dict, list)):
        return f"<code>{esc(json.dumps(value, sort_keys=True))}</code>"
    return esc(fmt_number(value))


class Page:
    def __init__(self):
        self.parts = []
        self.figures = 0

    def add(self, text):
        self.parts.append(text)

    def chart(self, chart, anchor):
        """A figure: its SVG, caption and, folded, the numbers it shows."""
        self.figures += 1
        svg = chart.svg(f"f{self.figures}")
        self.add(f'<figure id="{esc(anchor)}"><h3>{esc(chart.title)}</h3>{svg}'
                 f"<figcaption>{esc(chart.caption)}</figcaption>")
        if chart.table:
            header, rows = chart.table
            self.add(f"<details><summary>the numbers ({len(rows)} rows)</summary>"
                     + table(header, [[cell(v) for v in row] for row in rows]) + "</details>")
        self.add("</figure>")
        chart.close()


def summary_section(page, run, prefix):
    s = run.summary
    rows = []
    for key, fmt in HEADLINE:
        if key in s:
            value = s[key]
            shown = fmt(value) if fmt and value is not None else fmt_number(value)
            if key == "time_to_target_s" and value is None:
                shown = "not reached"
            exact = f" <small>({esc(fmt_number(value))})</small>" if fmt and value is not None else ""
            rows.append([esc(key), esc(shown) + exact])
    page.add(f'<h3 id="{prefix}summary">Summary</h3>' + table(["figure", "value"], rows))
    every = [[esc(k), cell(v)] for k, v in sorted(s.items()) if k != "bottleneck"]
    page.add(f"<details><summary>every figure of summary.json ({len(every)})</summary>"
             f"{table(['key', 'value'], every)}</details>")


def bottleneck_section(page, run, prefix):
    page.add(f'<h3 id="{prefix}bottleneck">Bottleneck</h3>')
    b = run.summary.get("bottleneck")
    if isinstance(b, dict):
        links = [l for l in b.get("links") or [] if isinstance(l, dict)]
        if links:
            page.add("<p>The busiest links (summary.json):</p>" +
                     table(["link", "bandwidth", "mean utilisation", "busy fraction", "utilisation when busy", "bytes"],
                           [[esc(l.get("link")), esc(_mbps(l.get("bandwidth_bps"))),
                             esc(pct(l.get("mean_utilization"))), esc(pct(l.get("busy_fraction"))),
                             esc(pct(l.get("utilization_when_busy"))), esc(fmt_bytes(l.get("bytes")))] for l in links]))
        counts = b.get("devices")
        if isinstance(counts, dict):
            kinds = sorted(counts)
            rows = [["<b>all devices</b>"] + [cell(counts[k]) for k in kinds]]
            for cls, c in sorted((b.get("by_class") or {}).items()):
                if isinstance(c, dict):
                    rows.append([esc(cls)] + [cell(c.get(k, 0)) for k in kinds])
            page.add("<p>Devices by what bounds them:</p>" + table(["class"] + [f"{k}-bound" for k in kinds], rows))
        path = b.get("critical_path")
        if isinstance(path, dict) and path.get("device"):
            rounds = path.get("rounds_slowest")
            share = path.get("share_of_rounds")
            page.add(f"<p>Critical path: <b>{esc(path['device'])}</b> was the round's slowest device"
                     + (f" in {esc(fmt_number(rounds))} rounds" if rounds is not None else "")
                     + (f" ({esc(pct(share))})" if share is not None else "")
                     + (f"; the busiest link of its route: <b>{esc(path['link'])}</b>" if path.get("link") else "")
                     + (f" ({esc(_mbps(path.get('link_bandwidth_bps')))})" if path.get("link_bandwidth_bps") else "")
                     + ".</p>")
        return
    l = run.links
    if l is None or not l.rows:
        page.add('<p class="note">No link data.</p>')
        return
    rows = sorted(zip(l.text("link"), l.numbers("mean_utilization"), l.numbers("bytes")),
                  key=lambda r: (-(r[1] or 0), r[0]))
    page.add('<p class="note">This run\'s summary.json has no bottleneck section; the busiest links by mean '
             "utilisation (links.csv):</p>" +
             table(["link", "mean utilisation", "bytes"],
                   [[esc(n), esc(pct(u)), esc(fmt_bytes(b))] for n, u, b in rows[:5]]))


def _mbps(bps):
    return "-" if bps is None else f"{bps / 1e6:g} Mbit/s"


DEVICE_COLUMNS = ("device", "class", "host", "bound", "batch_size", "steps", "samples_trained", "compute_s", "comm_s",
                  "wait_s", "data_wait_s", "offline_s", "bytes_up", "bytes_down", "buffer_peak_samples")
MAX_DEVICE_ROWS = 50


def tables_section(page, run, prefix):
    d = run.devices
    if d is not None and d.rows:
        columns = [c for c in DEVICE_COLUMNS if d.has(c)]
        records = d.records()
        many = len(records) > MAX_DEVICE_ROWS
        note = f" (the first {MAX_DEVICE_ROWS} of {len(records)}; all in devices.csv)" if many else ""
        rows = [[cell(_typed(r.get(c, ""))) for c in columns] for r in records[:MAX_DEVICE_ROWS]]
        page.add(f'<h3 id="{prefix}devices">Devices{esc(note)}</h3>' + table(columns, rows))
    r = run.rounds
    if r is not None and r.rows:
        durations = [v for v in r.numbers("duration_s") if v is not None]
        page.add(f'<h3 id="{prefix}rounds">Rounds</h3><p>{len(r.rows)} rounds (rounds.csv), duration mean '
                 f"{esc(fmt_seconds(sum(durations) / len(durations)) if durations else '-')}, longest "
                 f"{esc(fmt_seconds(max(durations)) if durations else '-')}.</p>")


def _typed(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def run_body(page, run, prefix=""):
    summary_section(page, run, prefix)
    bottleneck_section(page, run, prefix)
    charts, notes = run_charts(run)
    for chart in charts:
        page.chart(chart, f"{prefix}fig-{chart.key}")
    for note in notes:
        page.add(f'<p class="note">Not drawn: {esc(note)}.</p>')
    tables_section(page, run, prefix)
    page.add(f'<h3 id="{prefix}scenario">Resolved scenario</h3><details><summary>scenario.json</summary><pre>'
             + esc(json.dumps(run.scenario, indent=2, sort_keys=True)) + "</pre></details>")


def _document(title, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>\n")


def run_report(run):
    page = Page()
    status = run.summary.get("status", "")
    page.add(f"<h1>edgetrain run {esc(run.name)}</h1><p>Status: <b>{esc(status)}</b>"
             f" ({esc(run.summary.get('status_reason', ''))}). Results folder: <code>{esc(run.folder)}</code>.</p>")
    page.add('<nav><a href="#summary">summary</a><a href="#bottleneck">bottleneck</a><a href="#devices">devices</a>'
             '<a href="#scenario">scenario</a></nav>')
    run_body(page, run)
    return _document(f"edgetrain report: {run.name}", "".join(page.parts))


# The runs table's figures (those sweep.csv has); every column is in the folded table below it.
RUN_COLUMNS = ("round_mean_s", "round_p95_s", "time_to_target_s", "final_test_accuracy", "rounds", "sim_time_s",
               "bytes_up", "energy_j")


def limiting_link(summary):
    """The run's busiest link (summary.json's bottleneck.links[0]) and its mean utilisation, as text."""
    links = ((summary or {}).get("bottleneck") or {}).get("links") if isinstance(summary, dict) else None
    first = links[0] if isinstance(links, list) and links and isinstance(links[0], dict) else {}
    if not first.get("link"):
        return "-"
    load = first.get("mean_utilization")
    return str(first["link"]) + (f" ({pct(load)})" if isinstance(load, (int, float)) else "")


def runs_table(sweep, figures, runs=None):
    """One row per run: its id linking to its section, the varied values, status, then `figures`
    (None: every column) and, given the loaded runs, the link that limited each."""
    text = set(sweep.varied) | {"status", "status_reason"}
    if figures is None:
        columns = [c for c in sweep.table.header if c not in ("folder", "id")]
    else:
        columns = [c for c in sweep.varied + ["status"] if c in sweep.table.header]  # a failure's reason beside it
        columns += [c for c in figures if c in sweep.figures]
    rows = []
    for row in sweep.rows:
        record = row["record"]
        cells = [f'<a href="#run-{esc(row["id"])}">{esc(row["id"])}</a>']
        for c in columns:
            value = record.get(c, "")
            number = _typed(value) if value else None
            if c in text:
                shown = esc(readable(value))
            elif c.startswith("bytes_") and figures is not None and isinstance(number, (int, float)):
                shown = esc(fmt_bytes(number))  # the exact count is in the table of every column
            else:
                shown = cell(number)
            failed = c == "status" and value not in ("completed", "target_reached")
            if failed and figures is not None and record.get("status_reason"):
                shown += f" ({esc(record['status_reason'])})"
            cells.append(f'<span class="bad">{shown}</span>' if failed else shown)
        if runs is not None:
            run = runs.get(row["id"])
            cells.append(esc(limiting_link(run.summary if run else None)))
        rows.append(cells)
    # A dotted or long key may break after its dots and underscores, so the table fits the page.
    header = [c.replace(".", ".\u200b").replace("_", "_\u200b") for c in columns]
    return table(["run"] + header + (["limiting link"] if runs is not None else []), rows)


def sweep_report(sweep, ys, x, by, targets, run_figures):
    page = Page()
    name = os.path.basename(os.path.normpath(sweep.folder))
    page.add(f"<h1>edgetrain sweep {esc(name)}</h1>"
             f"<p>{len(sweep.rows)} runs; varied: {esc(', '.join(sweep.varied) or 'nothing')}. "
             f"Sweep folder: <code>{esc(sweep.folder)}</code>.</p>")
    page.add('<nav><a href="#figures">figures</a><a href="#runs">runs</a></nav><h2 id="figures">Figures</h2>')
    charts = report_charts(sweep, ys, x, by, targets)
    for chart in charts:
        page.chart(chart, f"fig-{chart.key}")
    if not charts:
        page.add('<p class="note">No figures: no run of the sweep has summary figures yet.</p>')
    runs = {row["id"]: sweep.load_run(row) for row in sweep.rows}
    page.add('<h2 id="runs">Runs</h2>' + runs_table(sweep, RUN_COLUMNS, runs))
    notes = [f"{c}: {why}." for c, why in sorted(getattr(sweep, "derived", {}).items())]
    notes.append("Limiting link: the busiest link of the run (summary.json's bottleneck), with its mean utilisation.")
    page.add('<p class="note">' + esc(" ".join(notes)) + "</p>")
    page.add(f"<details><summary>every column of sweep.csv</summary>{runs_table(sweep, None)}</details>")
    for row in sweep.rows:
        anchor = f"run-{row['id']}"
        overrides = ", ".join(f"{k} = {readable(row['record'].get(k, ''))}" for k in sweep.varied)
        page.add(f'<section id="{esc(anchor)}"><h2>Run {esc(row["id"])}: {esc(overrides)}</h2>'
                 f'<p><code>{esc(row["record"].get("folder", ""))}</code> · <a href="#runs">back to the runs</a></p>')
        run = runs[row["id"]]
        if run is None:
            status = row["record"].get("status", "unknown")
            page.add(f'<p class="bad">No finished run in this folder (status: {esc(status)}).</p>')
        elif run_figures:
            run_body(page, run, prefix=f"{anchor}-")
        else:  # the figures of 32 runs would make a page of megabytes: each run has its own
            summary_section(page, run, f"{anchor}-")
            bottleneck_section(page, run, f"{anchor}-")
            page.add(f'<p class="note">This run\'s figures and tables: <code>edgetrain report '
                     f'{esc(os.path.join(sweep.folder, row["record"].get("folder", "")))}</code> '
                     "(or this page with --run-figures).</p>")
        page.add("</section>")
    return _document(f"edgetrain report: sweep {name}", "".join(page.parts))

"""report.html: one self-contained page (figures as inline SVG with hover tooltips, tables beside
them, no script, no file or network fetch) for a run or a sweep. A sweep's page holds its figures,
the table of runs linking to each run's section, and every run's section. Every element is built by
html_build.element (escaped by construction), and a Content-Security-Policy forbids script, fetches
and forms: a name from a results folder is text, whatever it holds."""

import json
import os
from collections import Counter

from charts import fmt_bytes, fmt_number, fmt_seconds, pct
from html_build import Markup, anchor_id, element, join, text
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

# No script, no fetch of any kind (images only as data: URIs), no form, no <base>: the page's
# promise, enforced by the browser. Styles are inline (the <style> element, SVG style attributes).
CSP = ("default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")

HEADLINE = (
    ("status", None), ("status_reason", None), ("mode", None), ("devices", None), ("rounds", None),
    ("sim_time_s", fmt_seconds), ("time_to_target_s", fmt_seconds), ("time_to_target_exact_to", None),
    ("time_to_target_bracket_s", None), ("final_test_accuracy", None),
    ("best_test_accuracy", None), ("bytes_up", fmt_bytes), ("bytes_down", fmt_bytes), ("energy_j", None),
    ("wall_time_s", fmt_seconds),
)


def e(tag, *children, **attrs):
    """element() with attributes as keywords (class_ for class)."""
    return element(tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}, *children)


def table(header, rows):
    head = e("tr", *[e("th", h) for h in header])
    body = join(*[e("tr", *[e("td", c) for c in row]) for row in rows])
    return e("div", e("table", e("thead", head), e("tbody", body)), class_="scroll")


def cell(value):
    if isinstance(value, (dict, list)):
        return e("code", json.dumps(value, sort_keys=True))
    return text(fmt_number(value))


class Page:
    def __init__(self):
        self.parts = []
        self.figures = 0

    def add(self, *parts):
        self.parts.append(join(*parts))

    def chart(self, chart, anchor):
        """A figure: its SVG, caption and, folded, the numbers it shows."""
        self.figures += 1
        svg = Markup(chart.svg(f"f{self.figures}"))  # matplotlib's SVG, its text escaped by matplotlib
        numbers = ""
        if chart.table:
            header, rows = chart.table
            numbers = e("details", e("summary", f"the numbers ({len(rows)} rows)"),
                        table(header, [[cell(v) for v in row] for row in rows]))
        self.add(e("figure", e("h3", chart.title), svg, e("figcaption", chart.caption), numbers, id=anchor))
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
            exact = join(" ", e("small", f"({fmt_number(value)})")) if fmt and value is not None else ""
            rows.append([key, join(shown, exact)])
    page.add(e("h3", "Summary", id=prefix + "summary"), table(["figure", "value"], rows))
    every = [[k, cell(v)] for k, v in sorted(s.items()) if k != "bottleneck"]
    page.add(e("details", e("summary", f"every figure of summary.json ({len(every)})"), table(["key", "value"], every)))


def bottleneck_section(page, run, prefix):
    page.add(e("h3", "Bottleneck", id=prefix + "bottleneck"))
    b = run.summary.get("bottleneck")
    if isinstance(b, dict):
        links = [link for link in b.get("links") or [] if isinstance(link, dict)]
        if links:
            page.add(e("p", "The busiest links (summary.json):"),
                     table(["link", "bandwidth", "mean utilisation", "busy fraction", "utilisation when busy", "bytes"],
                           [[link.get("link"), _mbps(link.get("bandwidth_bps")), pct(link.get("mean_utilization")),
                             pct(link.get("busy_fraction")), pct(link.get("utilization_when_busy")),
                             fmt_bytes(link.get("bytes"))] for link in links]))
        counts = b.get("devices")
        if isinstance(counts, dict):
            kinds = sorted(counts)
            rows = [[e("b", "all devices")] + [cell(counts[k]) for k in kinds]]
            for cls, c in sorted((b.get("by_class") or {}).items()):
                if isinstance(c, dict):
                    rows.append([cls] + [cell(c.get(k, 0)) for k in kinds])
            page.add(e("p", "Devices by what bounds them:"), table(["class"] + [f"{k}-bound" for k in kinds], rows))
        path = b.get("critical_path")
        if isinstance(path, dict) and path.get("device"):
            rounds = path.get("rounds_slowest")
            share = path.get("share_of_rounds")
            page.add(e("p", "Critical path: ", e("b", path["device"]), " was the round's slowest device",
                       f" in {fmt_number(rounds)} rounds" if rounds is not None else "",
                       f" ({pct(share)})" if share is not None else "",
                       join("; the busiest link of its route: ", e("b", path["link"])) if path.get("link") else "",
                       f" ({_mbps(path.get('link_bandwidth_bps'))})" if path.get("link_bandwidth_bps") else "",
                       "."))
        return
    links_csv = run.links
    if links_csv is None or not links_csv.rows:
        page.add(e("p", "No link data.", class_="note"))
        return
    rows = sorted(zip(links_csv.text("link"), links_csv.numbers("mean_utilization"), links_csv.numbers("bytes")),
                  key=lambda r: (-(r[1] or 0), r[0]))
    page.add(e("p", "This run's summary.json has no bottleneck section; the busiest links by mean "
                    "utilisation (links.csv):", class_="note"),
             table(["link", "mean utilisation", "bytes"], [[n, pct(u), fmt_bytes(b)] for n, u, b in rows[:5]]))


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
        page.add(e("h3", f"Devices{note}", id=prefix + "devices"), table(columns, rows))
    r = run.rounds
    if r is not None and r.rows:
        durations = [v for v in r.numbers("duration_s") if v is not None]
        page.add(e("h3", "Rounds", id=prefix + "rounds"),
                 e("p", f"{len(r.rows)} rounds (rounds.csv), duration mean "
                        f"{fmt_seconds(sum(durations) / len(durations)) if durations else '-'}, longest "
                        f"{fmt_seconds(max(durations)) if durations else '-'}."))
        selections_section(page, run, prefix)


# selections.csv's outcomes, in the order the table shows them; those that left a round short are named.
OUTCOMES = ("aggregated", "straggler", "discarded", "cut", "timed-out", "failed", "off", "busy", "abandoned")
SHORT = ("timed-out", "cut", "failed", "off", "busy", "discarded")
SLOWEST_ROUNDS = 10
NAMED_DEVICES = 8


def selections_section(page, run, prefix):
    """The slowest rounds with who each one picked and what became of them (selections.csv)."""
    s, r = run.selections, run.rounds
    if s is None or not s.rows:
        return
    by_round = {}
    totals = Counter()
    for rec in s.records():  # a population's file holds a row per pick of every round: read once
        by_round.setdefault((rec["round"], rec["round_start_s"]), []).append(rec)
        totals[rec["outcome"]] += 1
    rows = []
    for rec in sorted(r.records(), key=lambda x: -(_typed(x["duration_s"]) or 0))[:SLOWEST_ROUNDS]:
        picks = by_round.get((rec["round"], rec["start_s"]), [])
        counts = [sum(1 for p in picks if p["outcome"] == o) for o in OUTCOMES]
        short = [f"{p['device']} ({p['outcome']})" for p in picks if p["outcome"] in SHORT]
        more = len(short) - NAMED_DEVICES
        named = ", ".join(short[:NAMED_DEVICES]) + (f" and {more} more" if more > 0 else "")
        rows.append([cell(_typed(rec["round"])), fmt_seconds(_typed(rec["start_s"])),
                     fmt_seconds(_typed(rec["duration_s"])), *[cell(c) for c in counts], named or "-"])
    page.add(e("h3", "Selections", id=prefix + "selections"),
             e("p", f"What became of every device a round picked (selections.csv, {len(s.rows)} rows): " +
               ", ".join(f"{totals[o]} {o}" for o in OUTCOMES if totals[o]) +
               f". The {min(SLOWEST_ROUNDS, len(r.rows))} slowest rounds, with the devices each went on without or "
               "waited for:"),
             table(["round", "start", "duration", *OUTCOMES, "devices short of the round"], rows))


def _typed(value):
    try:
        return int(value)
    except ValueError:
        try:
            return float(value)
        except ValueError:
            return value


def run_body(page, run, prefix=""):
    summary_section(page, run, prefix)
    bottleneck_section(page, run, prefix)
    charts, notes = run_charts(run)
    for chart in charts:
        page.chart(chart, f"{prefix}fig-{chart.key}")
    for note in notes:
        page.add(e("p", f"Not drawn: {note}.", class_="note"))
    tables_section(page, run, prefix)
    page.add(e("h3", "Resolved scenario", id=prefix + "scenario"),
             e("details", e("summary", "scenario.json"), e("pre", json.dumps(run.scenario, indent=2, sort_keys=True))))


def _document(title, parts):
    head = join(e("meta", charset="utf-8"), e("meta", http_equiv="Content-Security-Policy", content=CSP),
                e("meta", name="viewport", content="width=device-width, initial-scale=1"),
                e("title", title), e("style", Markup(STYLE)))
    return "<!DOCTYPE html>\n" + e("html", e("head", head), e("body", *parts), lang="en") + "\n"


def fidelity_line(f):
    """summary.json's fidelity section in one line (docs/explanation/fidelity.md); empty for older runs."""
    if not isinstance(f, dict) or not isinstance(f.get("network"), dict):
        return ""
    n, c = f["network"], f.get("compute") or {}
    err = n.get("expected_transfer_error") or {}
    if isinstance(n.get("calibration"), dict):
        def band(key, what):
            value = err.get(key)
            return f"{what} unknown ({err.get(key.split('_')[0] + '_unknown', 'not measured')})" if value is None \
                else f"{what} within {pct(value)}"
        net = (f"transfers {n.get('model')} calibrated by {n['calibration'].get('file')}: "
               f"{band('lone_max_abs', 'alone')} of ns-3, {band('round_max_abs', 'rounds')} of TCP's range")
    elif isinstance(err.get("lone"), dict):
        net = (f"transfers {n.get('model')} uncalibrated, a lone message {pct(err['lone'].get('min'))} to "
               f"{pct(err['lone'].get('max'))} against slow-start TCP")
    else:
        net = f"transfers {n.get('model')}"
    band = c.get("expected_step_error")
    within = f", within {pct(band)} of published steps" if band is not None else ", step error unknown"
    step = f"steps {c.get('model')}" + within
    return f"{net}; {step}."


def run_report(run):
    page = Page()
    status = run.summary.get("status", "")
    page.add(e("h1", f"edgetrain run {run.name}"),
             e("p", "Status: ", e("b", status), f" ({run.summary.get('status_reason', '')}). Results folder: ",
               e("code", run.folder), "."))
    line = fidelity_line(run.summary.get("fidelity"))
    if line:
        page.add(e("p", "Fidelity: ", line))
    selections = ("selections",) if run.selections is not None and run.selections.rows else ()
    links = ("summary", "bottleneck", "devices") + selections + ("scenario",)
    page.add(e("nav", *[e("a", name, href="#" + name) for name in links]))
    run_body(page, run)
    return _document(f"edgetrain report: {run.name}", page.parts)


# The runs table's figures (those sweep.csv has); every column is in the folded table below it.
RUN_COLUMNS = ("round_mean_s", "round_p95_s", "time_to_target_s", "final_test_accuracy", "rounds", "sim_time_s",
               "bytes_up", "energy_j")


def _run_anchor(row):
    return anchor_id("run", row["id"])


def limiting_link(summary):
    """The link that limited the run's rounds (summary.json's bottleneck.critical_path: the link on the
    route of the device that most often closed a round) and the share of rounds it did, as text; without
    rounds, the busiest link (bottleneck.links[0]) and its mean utilisation."""
    bottleneck = (summary.get("bottleneck") or {}) if isinstance(summary, dict) else {}
    critical = bottleneck.get("critical_path") if isinstance(bottleneck, dict) else None
    if isinstance(critical, dict) and critical.get("link"):
        share = critical.get("share_of_rounds")
        return str(critical["link"]) + (f" (slowest in {pct(share)} of rounds)" if isinstance(share, (int, float))
                                        else "")
    links = bottleneck.get("links") if isinstance(bottleneck, dict) else None
    first = links[0] if isinstance(links, list) and links and isinstance(links[0], dict) else {}
    if not first.get("link"):
        return "-"
    load = first.get("mean_utilization")
    return str(first["link"]) + (f" (busiest, {pct(load)} mean load)" if isinstance(load, (int, float)) else "")


def runs_table(sweep, figures, runs=None, targets=None):
    """One row per run: its id linking to its section, its label, the varied values, status, then
    `figures` (None: every column), whether it meets each of `targets` ({column: Target}) and, given the
    loaded runs, the link that limited each."""
    targets = targets or {}
    plain = set(sweep.varied) | {"status", "status_reason", "label"}
    if figures is None:
        columns = [c for c in sweep.table.header if c not in ("folder", "id")]
    else:
        labels = ["label"] if getattr(sweep, "labelled", False) else []
        # The status: a failure's reason beside it.
        columns = [c for c in labels + sweep.varied + ["status"] if c in sweep.table.header]
        columns += [c for c in figures if c in sweep.figures]
    rows = []
    for row in sweep.rows:
        record = row["record"]
        cells = [e("a", row["id"], href="#" + _run_anchor(row))]
        for c in columns:
            value = record.get(c, "")
            number = _typed(value) if value else None
            if c in plain:
                shown = text(readable(value))
            elif c.startswith("bytes_") and figures is not None and isinstance(number, (int, float)):
                shown = text(fmt_bytes(number))  # the exact count is in the table of every column
            else:
                shown = cell(number)
            failed = c == "status" and value not in ("completed", "target_reached")
            if failed and figures is not None and record.get("status_reason"):
                shown = join(shown, text(f" ({record['status_reason']})"))
            cells.append(e("span", shown, class_="bad") if failed else shown)
        for column, target in targets.items():
            value = _typed(record.get(column, "")) if record.get(column, "") else None
            verdict = "-" if not isinstance(value, (int, float)) else "meets" if target.met(value) else "misses"
            cells.append(e("span", verdict, class_="bad") if verdict == "misses" else text(verdict))
        if runs is not None:
            run = runs.get(row["id"])
            cells.append(text(limiting_link(run.summary if run else None)))
        rows.append(cells)
    # A dotted or long key may break after its dots and underscores, so the table fits the page.
    header = [c.replace(".", ".\u200b").replace("_", "_\u200b") for c in columns]
    header += [f"{c} {t.sign} {fmt_number(t.value)}".replace("_", "_\u200b") for c, t in targets.items()]
    return table(["run"] + header + (["limiting link"] if runs is not None else []), rows)


def sweep_report(sweep, ys, x, by, targets, run_figures):
    page = Page()
    name = os.path.basename(os.path.normpath(sweep.folder))
    page.add(e("h1", f"edgetrain sweep {name}"),
             e("p", f"{len(sweep.rows)} runs; varied: {', '.join(sweep.varied) or 'nothing'}. Sweep folder: ",
               e("code", sweep.folder), "."))
    page.add(e("nav", e("a", "figures", href="#figures"), e("a", "runs", href="#runs")),
             e("h2", "Figures", id="figures"))
    charts = report_charts(sweep, ys, x, by, targets)
    for chart in charts:
        page.chart(chart, f"fig-{chart.key}")
    if not charts:
        page.add(e("p", "No figures: no run of the sweep has summary figures yet.", class_="note"))
    runs = {row["id"]: sweep.load_run(row) for row in sweep.rows}
    # The figures a target was set on come first, each run's verdict beside them.
    figures = list(targets) + [c for c in RUN_COLUMNS if c not in targets]
    page.add(e("h2", "Runs", id="runs"), runs_table(sweep, figures, runs, targets))
    notes = [f"{c}: {why}." for c, why in sorted(getattr(sweep, "derived", {}).items())]
    notes.append("Limiting link: the link on the route of the device that most often closed the run's rounds "
                 "(summary.json's bottleneck.critical_path), with the share of rounds it did; in a run without "
                 "rounds, its busiest link and mean utilisation.")
    page.add(e("p", " ".join(notes), class_="note"))
    page.add(e("details", e("summary", "every column of sweep.csv"), runs_table(sweep, None)))
    for row in sweep.rows:
        anchor = _run_anchor(row)
        overrides = ", ".join(f"{k} = {readable(row['record'].get(k, ''))}" for k in sweep.varied)
        section = Page()
        section.figures = page.figures  # figure ids stay unique over the page
        section.add(e("h2", f"Run {row['id']}: {overrides}"),
                    e("p", e("code", row["record"].get("folder", "")), " · ",
                      e("a", "back to the runs", href="#runs")))
        run = runs[row["id"]]
        if run is None:
            status = row["record"].get("status", "unknown")
            section.add(e("p", f"No finished run in this folder (status: {status}).", class_="bad"))
        elif run_figures:
            run_body(section, run, prefix=f"{anchor}-")
        else:  # the figures of 32 runs would make a page of megabytes: each run has its own
            summary_section(section, run, f"{anchor}-")
            bottleneck_section(section, run, f"{anchor}-")
            command = "edgetrain report " + os.path.join(sweep.folder, row["record"].get("folder", ""))
            section.add(e("p", "This run's figures and tables: ", e("code", command),
                          " (or this page with --run-figures).", class_="note"))
        page.figures = section.figures
        page.add(e("section", *section.parts, id=anchor))
    return _document(f"edgetrain report: sweep {name}", page.parts)

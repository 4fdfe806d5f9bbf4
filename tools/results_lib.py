"""Shared helpers of the results scripts (tools/*/report.py, tools/readme/examples.py,
tools/notebooks/answers.py): load a run folder written by `edgetrain run`, run a list of scenarios two at a
time, and write the pages and the paragraphs of the README, docs/ and the notebooks' Markdown cells whose
figures come from those runs."""
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from concurrent.futures import ThreadPoolExecutor

from tolerance import mismatches, plain

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
# The results reader that the plots and the Python package share (src/plot/result_files.py).
sys.path.insert(0, os.path.join(ROOT, "src", "plot"))
from result_files import RUN_TABLES, csv_rows, is_run, load_json  # noqa: E402


def load_run(folder):
    """summary.json, scenario.json (resolved: every default filled in) and the CSV files of one run (each a
    list of rows, a dict by column), or None if the run did not finish."""
    if not is_run(folder):
        return None
    run = {"name": os.path.basename(folder)}
    run["summary"] = load_json(os.path.join(folder, "summary.json"))
    run["scenario"] = load_json(os.path.join(folder, "scenario.json"))
    for table in RUN_TABLES:
        path = os.path.join(folder, table + ".csv")
        if os.path.exists(path):
            header, rows = csv_rows(path, numeric=True)
            run[table] = [dict(zip(header, row)) for row in rows]
    return run


def device(run, name):
    """The devices.csv row of device `name` of a loaded run."""
    return next(d for d in run["devices"] if d["device"] == name)


def link(run, name):
    """The links.csv row of link `name` of a loaded run."""
    return next(row for row in run["links"] if row["link"] == name)


def load_runs(runs_dir):
    runs = {}
    if os.path.isdir(runs_dir):
        for name in sorted(os.listdir(runs_dir)):
            run = load_run(os.path.join(runs_dir, name))
            if run:
                runs[name] = run
    return runs


def first_at_accuracy(run, target, column="test_accuracy"):
    """The first metrics.csv row (evaluation) whose `column` (test accuracy) reached `target`, or None (an empty
    cell has not)."""
    return next((row for row in run["metrics"] if row[column] and float(row[column]) >= target), None)


def time_to_accuracy(run, target):
    """First evaluation time at which the test accuracy reached `target`, or None."""
    row = first_at_accuracy(run, target)
    return float(row["sim_time_s"]) if row else None


def describe(scenario_dir, name):
    """The scenario's one-line description: its first line when that is a // comment, else ""."""
    with open(os.path.join(scenario_dir, name + ".json")) as f:
        first = f.readline()
    return first[2:].strip() if first.startswith("//") else ""


class CachedRuns:
    """Runs `edgetrain run SCENARIO ARGS` (SCENARIO relative to the repository) once per distinct
    (SCENARIO, ARGS), each into its own scratch folder, and returns the loaded run with the printed
    summary (`stdout`) and the folder (`out`); a run that fails stops the script with its stderr."""

    def __init__(self, binary, scratch, script):
        self.binary, self.scratch, self.script, self.cache = binary, scratch, script, {}

    def __call__(self, scenario, *args):
        key = (scenario, args)
        if key not in self.cache:
            out = os.path.join(self.scratch, f"run{len(self.cache)}")
            done = subprocess.run([self.binary, "run", scenario, "--quiet", "--out", out, *args], cwd=ROOT,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{self.script}: edgetrain run {scenario} {' '.join(args)} exited "
                                 f"{done.returncode}:\n{done.stderr}")
            self.cache[key] = dict(load_run(out), stdout=done.stdout, out=out)
        return self.cache[key]


def run_scenarios(scenario_dir, names, runs_dir, jobs=2, extra=()):
    """Runs scenario_dir/<name>.json into runs_dir/<name>/ (log next to it), `jobs` at a time,
    with `extra` arguments for edgetrain run (--set overrides)."""
    os.makedirs(runs_dir, exist_ok=True)

    def one(name):
        out = os.path.join(runs_dir, name)
        with open(out + ".log", "w") as log:
            code = subprocess.call([os.path.join(ROOT, "build", "edgetrain"), "run",
                                    os.path.join(scenario_dir, name + ".json"), "--quiet", "--out", out, *extra],
                                   stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        if code != 0:
            print(f"{name}: exit {code} (see {out}.log)")

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, names))


def pyplot():
    """matplotlib.pyplot with the file-only backend, or None (with a note) when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing, no plots", file=sys.stderr)
        return None
    return plt


def run_and_load(scenario_dir, runs_dir, argv, extra=()):
    """The results scripts' command line: [--report-only] [NAME...]. Runs the named scenarios (all
    of scenario_dir by default, with `extra` edgetrain arguments) unless --report-only, then loads
    every run of runs_dir."""
    names = [a for a in argv if a != "--report-only"]
    if "--report-only" not in argv:
        names = names or sorted(f[:-5] for f in os.listdir(scenario_dir) if f.endswith(".json"))
        run_scenarios(scenario_dir, names, runs_dir, extra=extra)
    return load_runs(runs_dir)


def write_page(results_dir, lines):
    """Writes the study's page, results_dir/README.md, from its lines."""
    write_text(os.path.join(results_dir, "README.md"), "\n".join(lines))


def write_text(path, text):
    """Writes one generated file (its folder made if missing) and says so."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print(f"report: wrote {os.path.relpath(path, ROOT)}")


README = os.path.join(ROOT, "README.md")
DOCS = os.path.join(ROOT, "docs")
NOTEBOOKS = os.path.join(ROOT, "notebooks")


def pages():
    """The pages that may hold figure blocks: README.md, every Markdown page under docs/ and the notebooks
    of notebooks/ (a block there lives in one Markdown cell)."""
    found = [README]
    for folder, subfolders, names in os.walk(DOCS):
        subfolders.sort()
        found += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".md")]
    if os.path.isdir(NOTEBOOKS):
        found += [os.path.join(NOTEBOOKS, n) for n in sorted(os.listdir(NOTEBOOKS)) if n.endswith(".ipynb")]
    return found


def _filled(para):
    """One paragraph filled to the pages' width; a numbered or bulleted list (the paragraph's first line
    starts with "1. " or "- ") fills each item on its own, its lines indented under the item's text, and no
    line of an item starting with what would read as a list marker ("8. ", "- ")."""
    fill = lambda text, indent="": textwrap.fill(text, 105, subsequent_indent=indent, break_long_words=False,
                                                 break_on_hyphens=False)
    item = re.compile(r"^(?:[0-9]+\.|-) ", re.M)
    if not item.match(para):
        return fill(para)
    starts = [m.start() for m in item.finditer(para)] + [len(para)]
    glued = lambda text: re.sub(r" (?=(?:[0-9]+[.)]|[-+*]) )", "\0", text)  # a marker-like word kept on its line
    return "\n".join(fill(glued(para[a:b]), " " * len(item.match(para, a).group(0))).replace("\0", " ")
                     for a, b in zip(starts, starts[1:]))


def wrapped(text):
    """Prose paragraphs filled to the pages' width (list items each with its hanging indent); fenced code
    and tables stay as they are."""
    parts = re.split(r"(```.*?```)", text, flags=re.S)
    return "".join(p if p.startswith("```") else "\n\n".join(
        _filled(para) if para.strip() and not para.lstrip().startswith("|") else para  # tables stay as they are
        for para in p.split("\n\n")) for p in parts)


def block_markers(name):
    return f"<!-- figures:{name} -->\n", f"<!-- /figures:{name} -->"


def _notebook_cell(notebook, begin):
    """The Markdown cell of a notebook (its JSON, loaded) whose source holds `begin`, or None."""
    return next((cell for cell in notebook["cells"]
                 if cell["cell_type"] == "markdown" and begin in "".join(cell["source"])), None)


def _page_text(path, begin):
    """The text a block is looked for in: a Markdown page's, or the source of the notebook cell holding
    `begin` ("" when none does)."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    if not path.endswith(".ipynb"):
        return page
    cell = _notebook_cell(json.loads(page), begin)
    return "".join(cell["source"]) if cell else ""


def _write_page_text(path, begin, text):
    """Writes back what _page_text read: the page, or the notebook with only that cell's source changed
    (the notebooks' own JSON layout kept: indent 1, UTF-8 as is, a final newline; a rewrite that changes no
    figure changes no byte)."""
    if not path.endswith(".ipynb"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    _notebook_cell(notebook, begin)["source"] = text.splitlines(keepends=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def block_pages(name):
    """The pages holding block `name` (a block may be quoted on several pages: the quickstart's summary
    is on the README and in the quickstart tutorial); none is an error naming where it was looked for."""
    begin, end = block_markers(name)
    found = [path for path in pages() if begin in _page_text(path, begin)]
    if not found:
        raise SystemExit(f"no page holds the block {begin.strip()} ... {end} (looked in README.md, docs/ and "
                         f"notebooks/)")
    return found


def page_block(name, page_path, text=None):
    """The block `name` of one page (between `<!-- figures:name -->` and `<!-- /figures:name -->`, each on
    its own line; in a notebook, within one Markdown cell): returns its current text, or replaces it with
    `text` (its prose refilled)."""
    begin, end = block_markers(name)
    page = _page_text(page_path, begin)
    start = page.find(begin)
    stop = page.find(end, start)
    if start < 0 or stop < 0:
        raise SystemExit(f"{os.path.relpath(page_path, ROOT)} has no block {begin.strip()} ... {end}")
    start += len(begin)
    if text is None:
        return page[start:stop]
    _write_page_text(page_path, begin, page[:start] + wrapped(text).rstrip("\n") + "\n" + page[stop:])
    print(f"report: wrote the {name} figures of {os.path.relpath(page_path, ROOT)}")
    return text


def figure_block(name, text):
    """Writes `text` into block `name` on every page that holds it (README.md, docs/). The figures a page
    quotes live in such blocks so that the script that measured them rewrites them."""
    for path in block_pages(name):
        page_block(name, path, text)
    return text


def figures_main(argv, blocks, make_runner, script, comparable=lambda text: text, prefix=""):
    """The command line of the scripts that write figure blocks (tools/readme/examples.py,
    tools/teaching/report.py, tools/notebooks/answers.py): [--check] [--binary PATH] [NAME...]. Each block
    function takes the runner make_runner(binary, scratch folder) and returns the block's text, its training
    figures marked (tools/tolerance.py). NAME's block is `prefix`NAME, found on whichever pages hold it
    (README.md, docs/, notebooks/).
    Without --check the blocks are rewritten; with it nothing is, and the exit status is 1 (with a
    diff) when a block no longer matches what the code gives (compared through `comparable`, marked
    figures within their tolerance)."""
    check = "--check" in argv
    binary = os.path.join(ROOT, "build", "edgetrain")
    if "--binary" in argv:
        binary = argv[argv.index("--binary") + 1]
    names = [a for a in argv if a in blocks] or list(blocks)
    unknown = [a for a in argv if a not in blocks and a not in ("--check", "--binary", binary)]
    if unknown:
        raise SystemExit(f"{script}: unknown argument {unknown[0]} (blocks: {', '.join(blocks)})")
    stale = 0
    with tempfile.TemporaryDirectory(prefix="edgetrain-figures-") as scratch:
        run = make_runner(binary, scratch)
        for short in names:
            marked = blocks[short](run)
            name = prefix + short
            text = wrapped(plain(marked)) + "\n"
            for page_path in block_pages(name):
                if not check:
                    page_block(name, page_path, text)
                    continue
                page = os.path.relpath(page_path, ROOT)
                have = page_block(name, page_path)
                wrong = mismatches(comparable(have), comparable(marked))
                if wrong:
                    stale += 1
                    diff = difflib.unified_diff(have.splitlines(), text.splitlines(), page, "the code gives",
                                                lineterm="")
                    print(f"{page} block {name} does not match the code (rerun {script}):")
                    print("\n".join(["  " + w for w in wrong] + list(diff)))
                else:
                    exact = comparable(have) == comparable(text)
                    print(f"{page} block {name}: matches" + ("" if exact else " (within tolerances)"))
    return 1 if stale else 0

"""Entry point of `edgetrain plot` and `edgetrain report` (the edgetrain command runs this script with
Debian's /usr/bin/python3: `edgetrain_plots.py plot|report ARGS...`). Bad input: one line on stderr,
exit status 2. matplotlib is imported only after the arguments are read, so that --help works without it."""

import argparse
import importlib.util
import io
import os
import signal
import sys

import folders  # these two load no matplotlib: bad folders and columns fail fast
from output_file import inside_folder, safe_file_name, untrusted_default, write_output
from result_files import printable
from sweep_columns import add_derived, parse_targets, resolve, resolve_ys

DPI = 110  # image files; --dpi changes it


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every edgetrain command
        sys.stderr.write(f"{self.prog}: {printable(message)} (see {self.prog} --help)\n")
        sys.exit(2)


def parser(command):
    if command == "plot":
        p = Parser(prog="edgetrain plot", description="Draws a run's or a sweep's figures as image files; several "
                   "runs: their accuracy against time and against bytes on one figure each (one line per run).")
        p.add_argument("folder", metavar="RUN_OR_SWEEP_DIR", nargs="+")
        p.add_argument("--out", "-o", metavar="DIR",
                       help="where the images go (default: RUN_OR_SWEEP_DIR/plots; several runs: ./plots)")
        p.add_argument("--format", choices=("png", "svg", "pdf"), default="png", help="image format (default: png)")
        p.add_argument("--dpi", type=_dpi, default=DPI,
                       help=f"resolution of PNG images (default: {DPI}; 200 for slides)")
        p.add_argument("--size", type=_size, metavar="WIDTHxHEIGHT",
                       help="every figure's size in inches, e.g. 10x5 (default: each figure's own)")
        p.add_argument("--label", action="append", metavar="TEXT",
                       help="several runs: the legend's name of each run, in order (default: the runs' names)")
    else:
        p = Parser(prog="edgetrain report", description="Writes one self-contained HTML page of a run or a sweep.")
        p.add_argument("folder", metavar="RUN_OR_SWEEP_DIR")
        p.add_argument("-o", "--out", metavar="FILE", help="the page (default: RUN_OR_SWEEP_DIR/report.html)")
        p.add_argument("--run-figures", action="store_true",
                       help="sweeps: every run's figures and tables in its section (default: its summary and "
                            "bottleneck only; the page grows by about 150 kB per run)")
    p.add_argument("--y", action="append", metavar="COLUMN",
                   help="sweeps: a summary figure of sweep.csv to draw (repeatable; default: time_to_target_s if any "
                        "run reached its target, else final_test_accuracy, else round_mean_s)")
    p.add_argument("--x", metavar="COLUMN",
                   help="sweeps: the swept value on the x axis (default: the first varied key; with labelled "
                        "runs the grid's first key)")
    p.add_argument("--by", action="append", metavar="COLUMN",
                   help="sweeps: one line per value of this column (repeatable: per combination; default: the "
                        "other varied keys but seed, whose runs are averaged, or with labelled runs one line per "
                        "label; 'none' for one line)")
    p.add_argument("--target", action="append", metavar="COLUMN<=VALUE",
                   help="sweeps: a dashed target line on that figure, each point marked as meeting or missing it, "
                        "drawn even without --y (repeatable; COLUMN>=VALUE for a floor, COLUMN=VALUE a ceiling but "
                        "on accuracies; round_s<=60 marks every per-round figure)")
    return p


def _dpi(text):
    value = int(text) if text.isdigit() else 0
    if not 30 <= value <= 1200:
        raise argparse.ArgumentTypeError(f"expected a whole number from 30 to 1200, got {text!r}")
    return value


def _size(text):
    width, sep, height = text.lower().partition("x")
    try:
        size = (float(width), float(height)) if sep else None
    except ValueError:
        size = None
    if size is None or not all(1 <= v <= 50 for v in size):
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT in inches from 1 to 50, e.g. 10x5, got {text!r}")
    return size


def heading(item, chart):
    """An image's title names what it shows, so it can go on a slide alone."""
    if isinstance(item, folders.Sweep):
        return f"sweep {os.path.basename(os.path.normpath(item.folder))}: {chart.title}"
    if isinstance(item, list):
        return chart.title
    return f"{item.name}: {chart.title}"


def plot(args, item):
    from overlay_charts import overlay_charts
    from run_charts import run_charts
    from sweep_charts import sweep_chart

    out = args.out or ("plots" if isinstance(item, list) else os.path.join(args.folder[0], "plots"))
    if not args.out and not isinstance(item, list):
        untrusted_default(out, "--out")  # the results folder's own plots/: no symlink out of it
    if os.path.exists(out) and not os.path.isdir(out):
        raise folders.InputError(f"{out}: not a folder (--out names the folder of the images)")
    if isinstance(item, list):
        charts, notes = overlay_charts(item, args.label)
    elif isinstance(item, folders.Sweep):
        charts = [sweep_chart(item, *resolve(item, y, args.x, args.by), args.targets.get(y))
                  for y in resolve_ys(item, args.y, args.targets)]
        notes = []
    else:
        charts, notes = run_charts(item)
    # A figure's file name comes from its key, which names sweep.csv's columns: a slug (output_file.py),
    # one per figure, and every image inside the folder once symlinks are resolved, before any is written.
    taken = set()
    paths = [os.path.join(out, safe_file_name(chart.key, f".{args.format}", taken)) for chart in charts]
    os.makedirs(out, exist_ok=True)
    for path in paths:
        inside_folder(path, out)
    for chart, path in zip(charts, paths):
        image = io.BytesIO()
        chart.save(image, args.format, heading(item, chart), args.dpi, args.size)
        chart.close()
        write_output(path, image.getvalue())
        print(printable(path))
    for note in notes:
        print(f"not drawn: {printable(note)}")


def report(args, item):
    import html_report

    page = (html_report.sweep_report(item, args.y, args.x, args.by, args.targets, args.run_figures)
            if isinstance(item, folders.Sweep) else html_report.run_report(item))
    out = args.out or os.path.join(args.folder, "report.html")
    if not args.out:
        untrusted_default(out, "-o")  # the results folder's own report.html: no symlink out of it
    write_output(out, page.encode("utf-8"))
    print(printable(out))


def open_items(args):
    """A Run, a Sweep, or (plot with several folders) a list of Runs."""
    if args.command == "plot" and args.label and len(args.folder) == 1:
        raise folders.InputError("--label applies to several runs only")
    if args.command == "report" or len(args.folder) == 1:
        item = folders.open_folder(args.folder if args.command == "report" else args.folder[0])
        if isinstance(item, folders.Sweep):
            add_derived(item)
        return item
    runs = [folders.open_folder(f) for f in args.folder]
    for f, run in zip(args.folder, runs):
        if not isinstance(run, folders.Run):
            raise folders.InputError(f"{f}: a sweep folder; several folders are overlaid as runs "
                                     "(plot one sweep alone)")
    if args.label and len(args.label) != len(runs):
        raise folders.InputError(f"--label given {len(args.label)} times for {len(runs)} runs")
    return runs


def check_columns(args, item):
    args.targets = {}
    if not isinstance(item, folders.Sweep):
        if args.y or args.x or args.by or args.target:
            raise folders.InputError("--x, --y, --by and --target apply to sweep folders only")
        return
    args.targets = parse_targets(item, args.target)
    if args.y or args.targets or item.figures or args.command == "plot":  # a sweep without figures lists its runs
        for y in resolve_ys(item, args.y, args.targets):
            resolve(item, y, args.x, args.by)


def main(argv):
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends the script at once, without a traceback
    if len(argv) < 1 or argv[0] not in ("plot", "report"):
        sys.stderr.write("edgetrain_plots.py: expected plot or report\n")
        return 2
    command = argv[0]
    args = parser(command).parse_args(argv[1:])
    args.command = command
    prog = f"edgetrain {command}"
    try:
        item = open_items(args)
        check_columns(args, item)
        if importlib.util.find_spec("matplotlib") is None:
            raise folders.InputError(f"matplotlib is not available to {sys.executable} "
                                     "(on Debian: apt-get install python3-matplotlib)")
        (plot if command == "plot" else report)(args, item)
    # Every line is printable (result_files.printable): a name from a results file holding a newline or
    # a terminal escape is shown escaped, on the one line.
    except folders.InputError as e:
        sys.stderr.write(f"{prog}: {printable(e)}\n")
        return 2
    except OSError as e:
        folder = " ".join(args.folder) if isinstance(args.folder, list) else args.folder
        sys.stderr.write(f"{prog}: {printable(e.filename or folder)}: {printable(e.strerror)}\n")
        return 2
    except Exception as e:  # a bug here, not bad input: still one line, exit 1 like edgetrain's own
        sys.stderr.write(f"{prog}: internal error: {type(e).__name__}: {printable(e)}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

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
from output_file import write_output
from sweep_columns import resolve


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every edgetrain command
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def parser(command):
    if command == "plot":
        p = Parser(prog="edgetrain plot", description="Draws a run's or a sweep's figures as image files.")
        p.add_argument("folder", metavar="RUN_OR_SWEEP_DIR")
        p.add_argument("--out", "-o", metavar="DIR", help="where the images go (default: RUN_OR_SWEEP_DIR/plots)")
        p.add_argument("--format", choices=("png", "svg", "pdf"), default="png", help="image format (default: png)")
    else:
        p = Parser(prog="edgetrain report", description="Writes one self-contained HTML page of a run or a sweep.")
        p.add_argument("folder", metavar="RUN_OR_SWEEP_DIR")
        p.add_argument("-o", "--out", metavar="FILE", help="the page (default: RUN_OR_SWEEP_DIR/report.html)")
    p.add_argument("--y", action="append", metavar="COLUMN",
                   help="sweeps: a summary figure of sweep.csv to draw (repeatable; default: time_to_target_s if any "
                        "run reached its target, else final_test_accuracy)")
    p.add_argument("--x", metavar="COLUMN",
                   help="sweeps: the swept value on the x axis (default: the first varied key)")
    p.add_argument("--by", metavar="COLUMN",
                   help="sweeps: one line per value of this column "
                        "(default: the second varied key; 'none' for one line)")
    return p


def plot(args, item):
    from run_charts import run_charts
    from sweep_charts import sweep_chart

    out = args.out or os.path.join(args.folder, "plots")
    if isinstance(item, folders.Sweep):
        charts = [sweep_chart(item, *resolve(item, y, args.x, args.by)) for y in (args.y or [None])]
        notes = []
    else:
        charts, notes = run_charts(item)
    if os.path.exists(out) and not os.path.isdir(out):
        raise folders.InputError(f"{out}: not a folder (--out names the folder of the images)")
    os.makedirs(out, exist_ok=True)
    for chart in charts:
        path = os.path.join(out, f"{chart.key}.{args.format}")
        image = io.BytesIO()
        chart.save(image, args.format)
        chart.close()
        write_output(path, image.getvalue())
        print(path)
    for note in notes:
        print(f"not drawn: {note}")


def report(args, item):
    import html_report

    page = (html_report.sweep_report(item, args.y, args.x, args.by) if isinstance(item, folders.Sweep)
            else html_report.run_report(item))
    out = args.out or os.path.join(args.folder, "report.html")
    write_output(out, page.encode("utf-8"))
    print(out)


def check_columns(args, item):
    if not isinstance(item, folders.Sweep):
        if args.y or args.x or args.by:
            raise folders.InputError("--x, --y and --by apply to sweep folders only")
        return
    if args.y or item.figures or args.command == "plot":  # a report of a sweep without figures lists its runs
        for y in args.y or [None]:
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
        item = folders.open_folder(args.folder)
        check_columns(args, item)
        if importlib.util.find_spec("matplotlib") is None:
            raise folders.InputError(f"matplotlib is not available to {sys.executable} "
                                     "(on Debian: apt-get install python3-matplotlib)")
        (plot if command == "plot" else report)(args, item)
    except folders.InputError as e:
        sys.stderr.write(f"{prog}: {e}\n")
        return 2
    except OSError as e:
        sys.stderr.write(f"{prog}: {e.filename or args.folder}: {e.strerror}\n")
        return 2
    except Exception as e:  # a bug here, not bad input: still one line, exit 1 like edgetrain's own
        sys.stderr.write(f"{prog}: internal error: {type(e).__name__}: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

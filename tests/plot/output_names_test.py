#!/usr/bin/python3
"""plot/output-names: a results folder is untrusted input, and `edgetrain plot` and `report` write
nothing outside the folder of their outputs whatever its files hold (ctest: plot/output-names). A sweep
whose varied column is named a/../../../../x wrote x.png four folders up; names of columns that are
no file names ('..', '', a newline, 300 characters) each give one safe, distinct file; a plots/ folder,
an image or a report.html that is a symlink out of the results folder is refused, as is an image
resolving out of --out; and the one line of a refusal shows names from the files escaped.

Runs this tree's src/plot/edgetrain_plots.py as `edgetrain plot` and `report` run it (python3 -s -E -B),
so it tests these scripts whichever edgetrain binary is given (output_names_test.py [EDGETRAIN]: the
binary only writes a real sweep folder)."""
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "src", "plot", "edgetrain_plots.py")
SAFE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}\.(png|svg|pdf)")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HOSTILE = "a/../../../../x"


def command(*args, cwd):
    return subprocess.run(["/usr/bin/python3", "-s", "-E", "-B", SCRIPT, *args], cwd=cwd, capture_output=True,
                          text=True, errors="replace", timeout=300)


def snapshot(root):
    """Every entry under root: its kind and, for a file, a hash of its content (links not followed)."""
    seen = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                seen[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                seen[path] = ("folder",)
            else:
                with open(path, "rb") as f:
                    seen[path] = ("file", hashlib.sha256(f.read()).hexdigest())
    return seen


def fake_sweep(folder, varied, figures=("final_test_accuracy",), rows=3, folder_cells=None):
    """A sweep folder as `edgetrain sweep` writes it (sweep.csv: the varied keys, status, the summary
    figures, the run's folder; sweep.json: the varied keys and the runs), its runs not run."""
    os.makedirs(folder)
    header = list(varied) + ["status", "status_reason"] + list(figures) + ["folder"]
    runs = []
    with open(os.path.join(folder, "sweep.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for i in range(rows):
            cell = folder_cells[i] if folder_cells else f"runs/{i + 1}"
            w.writerow([str(i + 1) for _ in varied] + ["completed", ""] + [str(0.5 + i / 10) for _ in figures] +
                       [cell])
            runs.append({"id": str(i + 1), "folder": cell})
    with open(os.path.join(folder, "sweep.json"), "w", encoding="utf-8") as f:
        json.dump({"varied": list(varied), "runs": runs}, f)
    return folder


class OutputNames(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.root = self.dir.name
        # Deep enough that a/../../../../x climbs out of the sweep and stays inside the sandbox.
        self.cwd = os.path.join(self.root, "a", "b", "c", "d")
        os.makedirs(self.cwd)

    def written(self, before):
        after = snapshot(self.root)
        return {p: after[p] for p in after if before.get(p) != after[p]}

    def assert_refused(self, r, *expected):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertIsNone(CONTROL.search(r.stderr.rstrip("\n")), repr(r.stderr))
        for text in expected:
            self.assertIn(text, r.stderr)

    def assert_images_inside(self, changed, plots, count):
        """The entries written are `plots` and `count` images in it, each with a safe name."""
        images = [p for p in changed if p != plots]
        self.assertEqual(len(images), count, sorted(changed))
        for p in images:
            self.assertEqual(os.path.dirname(p), plots, p)
            self.assertRegex(os.path.basename(p), SAFE)

    def test_a_column_naming_a_path_is_drawn_inside_the_plots_folder(self):
        sweep = fake_sweep(os.path.join(self.cwd, "sweep"), [HOSTILE])
        for fmt in ("png", "svg"):
            before = snapshot(self.root)
            r = command("plot", "sweep", "--format", fmt, cwd=self.cwd)
            self.assertEqual(r.returncode, 0, r.stderr)
            changed = self.written(before)
            plots = os.path.join(sweep, "plots")
            self.assert_images_inside({p: v for p, v in changed.items() if p != plots}, plots, 1)
            self.assertFalse(os.path.exists(os.path.join(self.root, "a", "x." + fmt)))
            self.assertEqual(r.stdout, f"sweep/plots/sweep_final_test_accuracy_vs_a_x.{fmt}\n")
        # As the --x, --y and --by columns, in a sweep whose figure columns are paths too.
        sweep2 = fake_sweep(os.path.join(self.cwd, "sweep2"), [HOSTILE, "/etc/passwd"],
                            figures=("../../y", "final_test_accuracy"))
        before = snapshot(self.root)
        r = command("plot", "sweep2", "--y", "../../y", "--y", "final_test_accuracy", "--x", "/etc/passwd",
                    "--by", HOSTILE, cwd=self.cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_images_inside(self.written(before), os.path.join(sweep2, "plots"), 2)
        # report: the page goes where it always goes; the figures' anchors are attribute text.
        before = snapshot(self.root)
        r = command("report", "sweep", cwd=self.cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(list(self.written(before)), [os.path.join(sweep, "report.html")])

    def test_names_that_are_no_file_names_give_distinct_safe_files(self):
        figures = ["..", ".", "-rf", "a/b", "a:b", "x" * 300, "x" * 300 + "y", "line\nbreak\x1b[31m", "\u202ertl",
                   "caf\u00e9", " "]
        sweep = fake_sweep(os.path.join(self.cwd, "sweep"), ["k"], figures=figures)
        before = snapshot(self.root)
        args = ["plot", "sweep"] + [f"--y={f}" for f in figures]
        r = command(*args, cwd=self.cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_images_inside(self.written(before), os.path.join(sweep, "plots"), len(figures))
        self.assertIsNone(CONTROL.search(r.stdout), repr(r.stdout))
        self.assertEqual(len(r.stdout.splitlines()), len(figures))

    def test_symlinks_out_of_the_results_folder_are_not_written_through(self):
        outside = os.path.join(self.root, "outside")
        os.makedirs(outside)
        victim = os.path.join(outside, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        sweep = fake_sweep(os.path.join(self.cwd, "sweep"), ["k"])
        plots = os.path.join(sweep, "plots")
        # plots/ itself a symlink out of the results folder.
        os.symlink(outside, plots)
        before = snapshot(self.root)
        self.assert_refused(command("plot", "sweep", cwd=self.cwd), "sweep/plots: is a symlink", "--out")
        self.assertEqual(self.written(before), {})
        os.unlink(plots)
        # An image that is a symlink to a file out of the folder, then a dangling one.
        os.makedirs(plots)
        image = os.path.join(plots, "sweep_final_test_accuracy_vs_k.png")
        for target in (victim, os.path.join(outside, "new-file")):
            os.symlink(target, image)
            before = snapshot(self.root)
            self.assert_refused(command("plot", "sweep", cwd=self.cwd), "outside the folder of the images")
            self.assertEqual(self.written(before), {})
            os.unlink(image)
        # report.html a symlink out of the folder.
        os.symlink(victim, os.path.join(sweep, "report.html"))
        before = snapshot(self.root)
        self.assert_refused(command("report", "sweep", cwd=self.cwd), "report.html: is a symlink", "-o")
        self.assertEqual(self.written(before), {})
        # Named by the user, an output is theirs: --out elsewhere, -o elsewhere are written.
        r = command("plot", "sweep", "--out", os.path.join(self.root, "mine"), cwd=self.cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = command("report", "sweep", "-o", os.path.join(self.root, "mine", "page.html"), cwd=self.cwd)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")

    def test_refusals_show_names_from_the_files_escaped(self):
        # A run folder cell climbing out of the sweep, holding a newline and a terminal escape.
        fake_sweep(os.path.join(self.cwd, "s1"), ["k"], folder_cells=["runs/1", "../\n\x1b[31mx", "runs/3"])
        r = command("report", "s1", cwd=self.cwd)
        self.assert_refused(r, 'folder "../\\x0a\\x1b[31mx" is not inside the sweep folder')
        # A did-you-mean naming a column that holds an escape; the list of columns, escaped too.
        fake_sweep(os.path.join(self.cwd, "s2"), ["k"], figures=("final_test_\x1b[2Jaccuracy",))
        self.assert_refused(command("plot", "s2", "--y", "final_test_accuracy", cwd=self.cwd),
                            'did you mean "final_test_\\x1b[2Jaccuracy"?')
        self.assert_refused(command("plot", "s2", "--y", "zzz", cwd=self.cwd), "one of: final_test_\\x1b[2Jaccuracy")
        # A run whose metrics.csv holds a cell with an escape in a numeric column.
        run = os.path.join(self.cwd, "run")
        os.makedirs(run)
        for name, value in (("summary.json", {"status": "completed"}), ("scenario.json", {"name": "r"})):
            with open(os.path.join(run, name), "w") as f:
                json.dump(value, f)
        with open(os.path.join(run, "metrics.csv"), "w") as f:
            f.write("sim_time_s,round,bytes_up,bytes_down,test_accuracy\n0,0,0,0,\x1b[31m\u2028x\n")
        self.assert_refused(command("plot", "run", cwd=self.cwd),
                            'column test_accuracy: "\\x1b[31m\\u2028x" is not a number')
        # A JSON key with a newline on the path to a value of the wrong type.
        with open(os.path.join(run, "summary.json"), "w") as f:
            json.dump({"bottleneck": {"devices": {"a\nb": "x"}}}, f)
        self.assert_refused(command("report", "run", cwd=self.cwd), "summary.json.bottleneck.devices.a\\x0ab")


class RealSweep(unittest.TestCase):
    """The same on a sweep folder `edgetrain sweep` wrote (given the binary: output_names_test.py EDGETRAIN),
    its varied column renamed a/../../../../x in sweep.csv and sweep.json; report draws every run's figures."""

    def test_a_real_sweep_with_a_hostile_column(self):
        if not BINARY:
            self.skipTest("no edgetrain binary given")
        with tempfile.TemporaryDirectory() as root:
            cwd = os.path.join(root, "a", "b", "c", "d")
            os.makedirs(cwd)
            plan = os.path.join(root, "sweep-plan.json")
            with open(plan, "w") as f:
                json.dump({"base": os.path.join(HERE, "..", "sweep", "data", "tiny.json"),
                           "grid": {"training.mode": ["sync", "async"], "seed": [1, 2]}}, f)
            r = subprocess.run([BINARY, "sweep", plan, "--out", os.path.join(cwd, "sweep"), "--jobs", "2"],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            sweep = os.path.join(cwd, "sweep")
            for name in ("sweep.csv", "sweep.json"):
                with open(os.path.join(sweep, name), encoding="utf-8") as f:
                    text = f.read()
                self.assertIn("training.mode", text)
                with open(os.path.join(sweep, name), "w", encoding="utf-8") as f:  # sweep.csv: its header only
                    f.write(text.replace("training.mode", HOSTILE, 1 if name == "sweep.csv" else -1))
            before = snapshot(root)
            r = command("plot", "sweep", "--y", "round_mean_s", "--y", "sim_time_s", cwd=cwd)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = command("report", "sweep", "--run-figures", cwd=cwd)
            self.assertEqual(r.returncode, 0, r.stderr)
            after = snapshot(root)
            changed = sorted(p for p in after if before.get(p) != after[p])
            plots = os.path.join(sweep, "plots")
            self.assertEqual(changed, sorted([plots, os.path.join(sweep, "report.html"),
                                              os.path.join(plots, "sweep_round_mean_s_vs_a_x.png"),
                                              os.path.join(plots, "sweep_sim_time_s_vs_a_x.png")]))


BINARY = None


class SafeFileName(unittest.TestCase):
    def test_the_slug(self):
        sys.path.insert(0, os.path.dirname(SCRIPT))
        from output_file import safe_file_name
        cases = {HOSTILE: "a_x.png", "..": "_.png", ".": "figure.png", "": "figure.png", ".hidden": "hidden.png",
                 "-rf": "rf.png", "sweep_round_mean_s_vs_training.mode": "sweep_round_mean_s_vs_training.mode.png",
                 "a b/c": "a_b_c.png"}
        for text, name in cases.items():
            self.assertEqual(safe_file_name(text, ".png"), name, text)
        long = safe_file_name("x" * 300, ".png")
        self.assertEqual(len(long), 100 + 4)
        self.assertNotEqual(long, safe_file_name("x" * 299 + "y", ".png"))
        taken = set()
        self.assertEqual([safe_file_name(t, ".svg", taken) for t in ("a/b", "a:b", "a_b")],
                         ["a_b.svg", "a_b-2.svg", "a_b-3.svg"])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = sys.argv.pop(1)
    unittest.main()

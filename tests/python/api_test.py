#!/usr/bin/python3
"""The Python module against the command line (ctest: python/api): a run from Python writes the
files `edgetrain run` writes, byte for byte (summary.json's wall time aside), from a path and from a
dict; load() of a CLI folder; bad input raises InputError naming the key; two runs in one
interpreter; a sweep with jobs=2; fleet, compare, schema and validate; SIGINT to a child interpreter
or a notebook kernel during a run ends it promptly with its results written, and a killed
interpreter leaves no engine running. Usage: api_test.py BUILD_DIR."""
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
import unittest.mock
from pathlib import Path

BUILD = Path(sys.argv.pop(1)).resolve()
SOURCE = Path(__file__).resolve().parents[2]
ENGINE = BUILD / "edgetrain"
sys.path.insert(0, str(BUILD / "python"))
import edgetrain  # noqa: E402

QUICKSTART = SOURCE / "scenarios" / "quickstart.json"
SHORT = {"stop.rounds": 4, "eval.test_samples": 500}  # real training, a few seconds
TIMING = {"stop.rounds": 30, "training.compute": "timing-only", "stop.target_accuracy": None}


def set_words(overrides):
    words = []
    for key, value in overrides.items():
        words += ["--set", "%s=%s" % (key, json.dumps(value))]
    return words


def cli_run(scenario, out, overrides, *extra):
    done = subprocess.run([str(ENGINE), "run", str(scenario), "--out", str(out), "--quiet", *set_words(overrides),
                           *extra], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return out


def files_of(folder):
    """Every file of a results folder, summary.json without its wall time (which no two runs share)."""
    out = {}
    for path in sorted(Path(folder).iterdir()):
        data = path.read_bytes()
        if path.name == "summary.json":
            summary = json.loads(data)
            summary.pop("wall_time_s")
            data = json.dumps(summary, sort_keys=True).encode()
        out[path.name] = data
    return out


class Case(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="edgetrain-py-"))
        self.addCleanup(subprocess.run, ["rm", "-rf", str(self.dir)])

    def assertSameFiles(self, a, b):
        fa, fb = files_of(a), files_of(b)
        self.assertEqual(sorted(fa), sorted(fb))
        for name in fa:
            self.assertEqual(fa[name], fb[name], "%s differs between %s and %s" % (name, a, b))


class SameAsCommandLine(Case):
    def test_real_training_from_a_path_and_from_a_dict(self):
        cli = cli_run(QUICKSTART, self.dir / "cli", SHORT)
        run = edgetrain.run(QUICKSTART, out=self.dir / "py", set=SHORT, threads=1)
        self.assertEqual(run.status, "completed")
        self.assertSameFiles(cli, run.folder)
        # A dict stands for no file: its relative paths are from the current directory.
        doc = json.loads(QUICKSTART.read_text())
        doc["platform"] = str(SOURCE / "platforms" / "quickstart.xml")
        from_dict = edgetrain.run(doc, out=self.dir / "dict", set=SHORT)
        self.assertSameFiles(cli, from_dict.folder)
        self.assertEqual(len(run.rounds), 4)
        self.assertEqual(run.scenario["name"], "quickstart")

    def test_two_runs_in_one_interpreter(self):
        # SimGrid in one process would carry the first engine's clock into the second.
        first = edgetrain.run(QUICKSTART, out=self.dir / "one", set=TIMING)
        second = edgetrain.run(QUICKSTART, out=self.dir / "two", set=TIMING)
        cli = cli_run(QUICKSTART, self.dir / "cli", TIMING)
        self.assertSameFiles(cli, first.folder)
        self.assertSameFiles(cli, second.folder)
        self.assertEqual(first.rounds["start_s"].iloc[0], 0.0)
        self.assertEqual(second.rounds["start_s"].iloc[0], 0.0)

    def test_load_of_a_command_line_folder(self):
        cli = cli_run(QUICKSTART, self.dir / "cli", TIMING)
        run = edgetrain.load(cli)
        self.assertEqual(run.summary, json.loads((cli / "summary.json").read_text()))
        self.assertEqual(run.scenario, json.loads((cli / "scenario.json").read_text()))
        import pandas

        for name in ("metrics", "devices", "links", "rounds", "buffers", "staleness", "selections"):
            pandas.testing.assert_frame_equal(getattr(run, name), pandas.read_csv(cli / (name + ".csv")))
        self.assertEqual(len(run.rounds), 30)
        self.assertEqual(len(run.selections), 30 * 8)  # every device every round
        with self.assertRaises(edgetrain.InputError):
            edgetrain.load(self.dir / "nothing")

    def test_a_failing_progress_callback_ends_the_run(self):
        def fails(record):
            raise ZeroDivisionError("in the callback")

        with self.assertRaises(ZeroDivisionError):
            edgetrain.run(QUICKSTART, out=self.dir / "p", threads=1, progress=fails)
        self.assertEqual(edgetrain.load(self.dir / "p").status, "interrupted")

    def test_a_progress_reader_that_goes_away(self):
        # --progress-fd to a pipe nobody reads: the run ends as it would, not on SIGPIPE.
        read_end, write_end = os.pipe()
        os.close(read_end)
        words = [str(ENGINE), "run", str(QUICKSTART), "--out", str(self.dir / "gone"), "--quiet", *set_words(TIMING),
                 "--progress-fd", str(write_end)]
        done = subprocess.run(words, pass_fds=(write_end,), capture_output=True, text=True)
        os.close(write_end)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(edgetrain.load(self.dir / "gone").status, "completed")

    def test_progress_records(self):
        seen = []
        edgetrain.run(QUICKSTART, out=self.dir / "p", set=TIMING, progress=seen.append)
        self.assertTrue(seen)
        self.assertEqual(seen[0]["rounds"], 30)
        self.assertTrue(all(r["updates"] <= 30 for r in seen))


class BadInput(Case):
    def test_a_bad_key_names_itself(self):
        doc = json.loads(QUICKSTART.read_text())
        doc["platform"] = str(SOURCE / "platforms" / "quickstart.xml")
        for scenario in (QUICKSTART, doc):
            with self.assertRaises(edgetrain.InputError) as caught:
                edgetrain.run(scenario, out=self.dir / "x", set={"training.lr": -1})
            self.assertIsInstance(caught.exception, ValueError)
            self.assertTrue(str(caught.exception).startswith("training.lr: "), str(caught.exception))
        self.assertFalse((self.dir / "x").exists())

    def test_refused_by_the_engine_not_by_the_resolver(self):
        # The server host is checked against the platform only when it is loaded: the child's line.
        with self.assertRaises(edgetrain.InputError) as caught:
            edgetrain.run(QUICKSTART, out=self.dir / "x", set={"server": "nowhere"})
        self.assertIn("nowhere", str(caught.exception))
        self.assertNotIn("\n", str(caught.exception))
        with self.assertRaises(edgetrain.InputError) as caught:
            edgetrain.validate(QUICKSTART, set={"server": "nowhere"})
        self.assertIn("nowhere", str(caught.exception))

    def test_other_entry_points(self):
        cases = [
            lambda: edgetrain.run(self.dir / "missing.json"),
            lambda: edgetrain.run({"name": "x"}, out=self.dir / "x"),
            lambda: edgetrain.run(QUICKSTART, seed=-1, out=self.dir / "x"),
            lambda: edgetrain.resolve(QUICKSTART, set=["training.mode=nonsense"]),
            lambda: edgetrain.fleet({"devices": 0}),
            lambda: edgetrain.sweep({"base": str(QUICKSTART), "grid": {"training.lr": []}}, out=self.dir / "s"),
            lambda: edgetrain.compare(self.dir, self.dir / "other"),
            lambda: edgetrain.run(QUICKSTART, out=""),
            lambda: edgetrain.run(QUICKSTART, out=self.dir / "x", threads=0),
            lambda: edgetrain.sweep(str(QUICKSTART), out=self.dir / "s", jobs="2"),
            lambda: edgetrain.fleet([1]),
            # Types that are no path or no list of settings: InputError naming the argument, not TypeError.
            lambda: edgetrain.run(QUICKSTART, out=5),
            lambda: edgetrain.sweep(str(QUICKSTART), out=5),
            lambda: edgetrain.fleet({"devices": 10}, out=5),
            lambda: edgetrain.validate(QUICKSTART, set=5),
        ]
        for case in cases:
            with self.assertRaises(edgetrain.InputError):
                case()
        with self.assertRaises(edgetrain.InputError) as caught:
            edgetrain.run({"name": "x"}, out=self.dir / "x")
        self.assertIn("platform", str(caught.exception))
        with self.assertRaises(edgetrain.InputError) as caught:
            edgetrain.run(QUICKSTART, set={"training.lr": object()})
        self.assertTrue(str(caught.exception).startswith("training.lr: not a JSON value (a Python object)"))
        with self.assertRaises(edgetrain.InputError) as caught:
            edgetrain.run(QUICKSTART, set={"training.lr": float("nan")})
        self.assertTrue(str(caught.exception).startswith("training.lr: "))

    def test_values_from_a_data_frame(self):
        # numpy's scalars, as a sweep table's cells are, pass as the numbers they hold.
        import numpy

        numbers = {"stop.rounds": numpy.int64(5), "training.lr": numpy.float64(0.1)}
        run = edgetrain.run(QUICKSTART, out=self.dir / "np", set={**TIMING, **numbers})
        self.assertEqual(run.scenario["stop"]["rounds"], 5)
        self.assertEqual(run.scenario["training"]["lr"], 0.1)


class OtherFunctions(Case):
    def test_sweep_with_two_jobs(self):
        spec = {"base": str(QUICKSTART), "grid": {"training.batch_size": [16, 64], "stop.rounds": [5, 10]}}
        fixed = {"training.compute": "timing-only", "stop.target_accuracy": None}
        spec["runs"] = [fixed]
        table = edgetrain.sweep(spec, out=self.dir / "sweep", jobs=2)
        self.assertEqual(len(table), 4)
        self.assertEqual(list(table["status"]), ["completed"] * 4)
        # Each run's folder holds what `edgetrain run` writes for its overrides.
        first = table.iloc[0]
        cli = cli_run(QUICKSTART, self.dir / "cli", {"training.batch_size": 16, "stop.rounds": 5, **fixed})
        folder = Path(table.attrs["folder"]) / first["folder"]
        self.assertEqual(edgetrain.load(folder).summary["sim_time_s"], edgetrain.load(cli).summary["sim_time_s"])

    def test_sweep_of_a_dict_base(self):
        # The base as given, not resolved: its device selector still matches the fleet each run draws.
        shop = SOURCE / "scenarios" / "teaching" / "site-uplink.json"
        doc = json.loads(shop.read_text())
        doc["platform"] = str((shop.parent / doc["platform"]).resolve())
        grid = {"platform.classes.camera.count": [2, 5]}
        from_dict = edgetrain.sweep({"base": doc, "grid": grid}, out=self.dir / "dict")
        from_file = edgetrain.sweep({"base": str(shop), "grid": grid}, out=self.dir / "file")
        self.assertEqual(list(from_dict["sim_time_s"]), list(from_file["sim_time_s"]))
        self.assertEqual(list(from_dict["status"]), ["completed"] * 2)
        self.assertEqual(list(Path(".").glob(".edgetrain-sweep-base-*")), [])  # the scratch file is gone

    def test_fleet_as_the_command_line_draws_it(self):
        description = SOURCE / "platforms" / "fleets" / "teaching-shop.json"
        drawn = edgetrain.fleet(description, out=self.dir / "py.xml", seed=3)
        done = subprocess.run([str(ENGINE), "fleet", str(description), "-o", str(self.dir / "cli.xml"), "--seed", "3"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual((self.dir / "py.xml").read_bytes(), (self.dir / "cli.xml").read_bytes())
        self.assertEqual((self.dir / "py.devices.csv").read_bytes(), (self.dir / "cli.devices.csv").read_bytes())
        self.assertEqual(drawn.xml, (self.dir / "cli.xml").read_text())
        self.assertEqual(len(drawn.devices), len((self.dir / "cli.devices.csv").read_text().splitlines()) - 1)

    def test_compare_schema_validate(self):
        a = edgetrain.run(QUICKSTART, out=self.dir / "a", set=TIMING)
        b = edgetrain.run(QUICKSTART, out=self.dir / "b", set={**TIMING, "training.batch_size": 64})
        table = edgetrain.compare(a, b)
        self.assertEqual(list(table.index), [str(a.folder), str(b.folder)])
        self.assertEqual(table["speedup"].iloc[0], 1.0)
        self.assertIn("training.batch_size", table.attrs["differences"])
        keys = edgetrain.schema()
        self.assertIn("training.lr", set(keys["key"]))
        markdown = subprocess.run([str(ENGINE), "schema"], capture_output=True, text=True).stdout
        self.assertEqual(edgetrain.schema(markdown=True), markdown)
        checked = edgetrain.validate(QUICKSTART)
        self.assertIn("scenario is valid", checked.description)
        self.assertEqual(checked.scenario["name"], "quickstart")

    def test_help_and_annotations(self):
        # Every public name documented; every function's parameters and result annotated in the code (mypy
        # checks the types: python/mypy).
        for name in edgetrain.__all__:
            public = getattr(edgetrain, name)
            self.assertTrue(public.__doc__, name)
            if inspect.isfunction(public):
                signature = inspect.signature(public)
                self.assertIsNot(signature.return_annotation, signature.empty, name)
                for p in signature.parameters.values():
                    self.assertIsNot(p.annotation, p.empty, f"{name}({p.name})")


class Interrupt(Case):
    def test_sigint_in_a_child_interpreter(self):
        # A whole quickstart takes far longer than the wait below: the run must stop on the signal.
        script = textwrap.dedent("""
            import sys
            sys.path.insert(0, %r)
            import edgetrain
            def started(record):
                print("started", flush=True)
            try:
                edgetrain.run(%r, out=%r, threads=1, progress=started)
            except KeyboardInterrupt as e:
                print("interrupted", e.run.status, flush=True)
                raise
        """ % (str(BUILD / "python"), str(QUICKSTART), str(self.dir / "run")))
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        self.assertEqual(child.stdout.readline().strip(), "started")
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        took = time.monotonic() - sent
        self.assertIn("interrupted interrupted", out)
        self.assertIn("KeyboardInterrupt: interrupted: the results written so far are in", err)
        self.assertEqual(child.returncode, -signal.SIGINT)  # the interpreter's end on a KeyboardInterrupt
        summary = json.loads((self.dir / "run" / "summary.json").read_text())
        self.assertEqual(summary["status"], "interrupted")
        self.assertLess(took, 20, "the run took %.1f s to stop" % took)
        # No engine left behind.
        left = subprocess.run(["pgrep", "-f", str(self.dir / "run")], capture_output=True, text=True).stdout
        self.assertEqual(left, "")

    def test_an_interrupt_before_the_run_started(self):
        # The engine waits on a FIFO nobody writes; the folder holds an earlier run, which is not
        # the interrupted one: the KeyboardInterrupt carries no run.
        cli_run(QUICKSTART, self.dir / "run", TIMING)
        fifo = self.dir / "scenario.json"
        os.mkfifo(fifo)
        script = textwrap.dedent("""
            import sys
            sys.path.insert(0, %r)
            import edgetrain
            try:
                edgetrain.run(%r, out=%r)
            except KeyboardInterrupt as e:
                print("run", e.run, flush=True)
        """ % (str(BUILD / "python"), str(fifo), str(self.dir / "run")))
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 30  # until the engine waits on the FIFO
        while subprocess.run(["pgrep", "-f", "edgetrain run %s" % fifo], capture_output=True).returncode != 0:
            self.assertLess(time.monotonic(), deadline, "the engine did not start")
            time.sleep(0.05)
        time.sleep(0.3)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
        self.assertEqual(out.strip(), "run None")

    def test_the_engine_ends_with_its_interpreter(self):
        # A killed interpreter (a notebook kernel restarted) leaves no engine running unwatched: the
        # engine gets SIGTERM and ends as on any signal, its results written.
        script = textwrap.dedent("""
            import sys
            sys.path.insert(0, %r)
            import edgetrain
            edgetrain.run(%r, out=%r, threads=1, progress=lambda record: print("started", flush=True))
        """ % (str(BUILD / "python"), str(QUICKSTART), str(self.dir / "run")))
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        self.assertEqual(child.stdout.readline().strip(), "started")
        child.kill()
        child.wait()
        child.stdout.close()
        summary = self.dir / "run" / "summary.json"
        deadline = time.monotonic() + 20
        while not summary.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # written by rename: whole once it exists
        self.assertEqual(json.loads(summary.read_text())["status"], "interrupted")

    def test_interrupting_a_notebook_kernel(self):
        from jupyter_client.manager import start_new_kernel

        # (ipykernel's debugger warns about frozen modules on every start unless told not to check.)
        env = dict(os.environ, PYTHONPATH=str(BUILD / "python"), PYDEVD_DISABLE_FILE_VALIDATION="1",
                   IPYTHONDIR=str(self.dir / "ipython"), JUPYTER_RUNTIME_DIR=str(self.dir / "runtime"))
        # The connection file is written from here: in the scratch folder too (a CI home may be read-only).
        with unittest.mock.patch.dict(os.environ, JUPYTER_RUNTIME_DIR=str(self.dir / "runtime")):
            km, kc = start_new_kernel(kernel_name="python3", env=env, startup_timeout=60)
        self.addCleanup(km.shutdown_kernel, now=True)
        self.addCleanup(kc.stop_channels)
        # No target and 300 rounds: the run lasts long enough for the interrupt to find it going, however
        # late a loaded machine delivers the kernel's first output.
        code = ("import edgetrain\nrun = edgetrain.run(%r, out=%r, threads=1, progress=lambda r: print('started'), "
                "set={'stop.target_accuracy': None, 'stop.rounds': 300})" % (str(QUICKSTART), str(self.dir / "run")))
        # (stop_on_error=False: else the kernel aborts the request that follows the interrupted one.)
        msg_id = kc.execute(code, stop_on_error=False)
        while True:  # the cell's output, until the run reports progress
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                if "started" in msg["content"]["text"]:
                    break
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=60)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "KeyboardInterrupt")
        self.assertEqual(json.loads((self.dir / "run" / "summary.json").read_text())["status"], "interrupted")
        # The kernel lives on, and the interrupted run is at hand.
        msg_id = kc.execute("import sys; print(sys.last_value.run.status)")
        output = ""
        while True:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "stream":
                output += msg["content"]["text"]
            if msg["msg_type"] == "error":
                output += "\n".join(msg["content"]["traceback"])
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
        self.assertEqual(output.strip(), "interrupted")


if __name__ == "__main__":
    unittest.main(verbosity=2)

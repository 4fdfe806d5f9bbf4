#!/usr/bin/python3
"""A notebook of notebooks/ executed top to bottom by nbconvert, with this build's module (ctest:
notebooks/NAME): an error in any cell fails. Also its form: stored without outputs, a kernel of
python3, questions for students and then an answer key in a separate, collapsed cell.
Usage: notebook_test.py BUILD_DIR NOTEBOOK. Exit 77 when nbconvert or ipykernel is missing."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

build, notebook = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
try:
    import ipykernel  # noqa: F401  the kernel nbconvert starts
except ImportError:
    print("SKIP: python3-ipykernel is not installed")
    sys.exit(77)
if not shutil.which("jupyter-nbconvert"):
    print("SKIP: jupyter-nbconvert is not installed")
    sys.exit(77)

cells = json.loads(notebook.read_text())["cells"]
problems = []
if any(c.get("outputs") or c.get("execution_count") for c in cells if c["cell_type"] == "code"):
    problems.append("stored with outputs (clear them: the repository keeps notebooks clean)")
key = cells[-1]
source = "".join(key["source"])
if not (key["cell_type"] == "markdown" and "<details>" in source and
        key.get("metadata", {}).get("jupyter", {}).get("source_hidden")):
    problems.append("the last cell is not a collapsed answer key (<details> and metadata jupyter.source_hidden)")
if "question" not in "".join(cells[-2]["source"]).lower():
    problems.append("the cell before the answer key does not hold the questions for students")
if problems:
    sys.exit("FAIL: %s: %s" % (notebook.name, "; ".join(problems)))

with tempfile.TemporaryDirectory(prefix="edgetrain-notebook-") as scratch:
    # Jupyter's, IPython's and matplotlib's own files in the scratch folder too: a CI home may be read-only.
    env = dict(os.environ, PYTHONPATH=str(build / "python"), EDGETRAIN_NOTEBOOK_RESULTS=str(Path(scratch) / "results"),
               PYDEVD_DISABLE_FILE_VALIDATION="1", MPLBACKEND="Agg", JUPYTER_RUNTIME_DIR=str(Path(scratch) / "runtime"),
               IPYTHONDIR=str(Path(scratch) / "ipython"), MPLCONFIGDIR=str(Path(scratch) / "matplotlib"))
    done = subprocess.run(["jupyter-nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=120",
                           "--output-dir", scratch, str(notebook)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("FAIL: %s did not run top to bottom:\n%s" % (notebook.name, done.stderr[-4000:]))
print("ok: %s ran top to bottom" % notebook.name)

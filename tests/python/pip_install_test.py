"""The package as a Python user installs it: `python3 -m pip install .` into a virtual environment made with
--system-site-packages, offline (--no-index --no-build-isolation: Debian's setuptools, wheel and pandas),
the extension taken from this build (EDGETRAIN_BUILD_DIR). Then, from outside the source tree, the
installed package (not the sources) is imported, finds the engine on the PATH, lists the schema and
validates the quickstart, and mypy sees its types (py.typed).

    pip_install_test.py BUILD_DIR      (run from the source tree)

Exit 77 (skipped) when a Debian package it needs is missing: python3-venv, python3-setuptools,
python3-wheel, python3-pandas; mypy for the types check alone."""
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path.cwd()

USE = """
import sys
from pathlib import Path

import edgetrain

where = Path(edgetrain.__file__).parent
assert where.is_relative_to(sys.prefix), f"imported {where}, not the venv's"
assert (where / "py.typed").is_file() and not (where / "_result_files.py").is_symlink()
assert "training.lr" in set(edgetrain.schema()["key"])
checked = edgetrain.validate(sys.argv[1])
assert "scenario is valid" in checked.description, checked.description
print(f"edgetrain {edgetrain.__version__} from {where}, engine {edgetrain.engine_path()}")
"""

# A user's code with a type error mypy must find through the installed package's annotations.
TYPED = """
import edgetrain

summary: str = edgetrain.load("results/quickstart").summary
status: int = edgetrain.load("results/quickstart").status
"""


def missing():
    """The first Debian package this test needs that is not installed, or None."""
    for module, package in (("ensurepip", "python3-venv"), ("setuptools", "python3-setuptools"),
                            ("wheel", "python3-wheel"), ("pandas", "python3-pandas")):
        if importlib.util.find_spec(module) is None:
            return package
    return None


def run(words, **kwargs):
    print("$ " + " ".join(map(str, words)), flush=True)
    return subprocess.run(list(map(str, words)), check=True, **kwargs)


def main(build):
    package = missing()
    if package:
        print(f"{package} is not installed (apt-get install {package}): not tested")
        return 77
    build = Path(build).resolve()
    with tempfile.TemporaryDirectory(prefix="edgetrain-pip-") as scratch:
        scratch = Path(scratch)
        venv = scratch / "venv"
        run([sys.executable, "-m", "venv", "--system-site-packages", venv])
        python = venv / "bin" / "python"
        env = dict(os.environ, EDGETRAIN_BUILD_DIR=str(build), PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONPATH", None)
        run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--quiet", ROOT], env=env)
        # The engine on the PATH, as an installed edgetrain is: the venv has no bin/edgetrain of its own.
        tools = scratch / "bin"
        tools.mkdir()
        (tools / "edgetrain").symlink_to(build / "edgetrain")
        env["PATH"] = f"{tools}{os.pathsep}{env['PATH']}"
        env.pop("EDGETRAIN_ENGINE", None)
        (scratch / "use.py").write_text(USE)
        run([python, scratch / "use.py", ROOT / "scenarios" / "quickstart.json"], cwd=scratch, env=env)
        if importlib.util.find_spec("mypy") is None:
            print("mypy is not installed (apt-get install mypy): the types are not checked")
            return 0
        (scratch / "typed.py").write_text(TYPED)
        checked = subprocess.run([python, "-m", "mypy", "--no-incremental", "typed.py"], cwd=scratch, env=env,
                                 capture_output=True, text=True)
        print(checked.stdout, end="")
        for wanted in ('typed.py:4: error: Incompatible types in assignment (expression has type "Dict[str, Any]"',
                       'typed.py:5: error: Incompatible types in assignment (expression has type "Optional[str]"'):
            if wanted not in checked.stdout:
                print(f"mypy did not report: {wanted} (the installed package's types are not seen)")
                return 1
    print("installed with pip, imported, typed")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

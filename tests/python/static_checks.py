"""The static checks of the Python code, as the suite runs them (run from the source tree):

    static_checks.py mypy BUILD_DIR   every module of the package (src/python/edgetrain) fully annotated and
                                      type-correct (pyproject.toml's [tool.mypy]), its calls into the
                                      extension checked against the types mypy's stubgen reads from the
                                      build's edgetrain._core (pybind11's signatures); the plotting scripts
                                      (src/plot) type-correct where they are annotated
                                      and the Python policies shipped as examples (scenarios/python), fully
                                      annotated against the package
    static_checks.py flake8           the package, the plotting scripts, the example policies, these tests and
                                      setup.py (setup.cfg's [flake8])

The folders are given whole, so a new module is checked without a change here. Exit 77 (skipped) when
Debian's package of the tool is not installed."""
import importlib.util
import os
import subprocess
import sys

PACKAGE, PLOTS, TESTS, SETUP = "src/python/edgetrain", "src/plot", "tests/python", "setup.py"
POLICIES = "scenarios/python"  # users' kind of code: what the tutorial shows


def main(tool, *args):
    if importlib.util.find_spec(tool) is None:
        print(f"{tool} is not installed (apt-get install {tool}): not checked")
        return 77
    env = dict(os.environ)
    if tool == "mypy":
        build = args[0]
        stubs = os.path.join(build, "mypy-stubs")
        stubgen = "from mypy.stubgen import main; main()"  # mypyc-compiled: no `python3 -m mypy.stubgen`
        subprocess.run([sys.executable, "-c", stubgen, "--quiet", "-m", "edgetrain._core", "-o", stubs],
                       env=dict(env, PYTHONPATH=os.path.join(build, "python")), check=True)
        env["MYPYPATH"] = os.pathsep.join([stubs, "src/python"])
        cache = ["--cache-dir", os.path.join(build, "mypy-cache")]
        runs = [[PACKAGE, *cache], ["--allow-untyped-defs", "--allow-incomplete-defs", PLOTS, *cache],
                [POLICIES, *cache]]
    else:
        runs = [[PACKAGE, PLOTS, POLICIES, TESTS, SETUP]]
    failed = 0
    for words in runs:
        print(f"{tool} {' '.join(words)}", flush=True)
        failed |= subprocess.run([sys.executable, "-m", tool, *words], env=env).returncode
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

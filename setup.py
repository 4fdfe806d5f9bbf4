"""The extension of `python3 -m pip install .` (pyproject.toml holds the rest): edgetrain._core is CMake's
target edgetrain_python, built in the CMake build folder (EDGETRAIN_BUILD_DIR, default build/, configured
here as tools/setup.sh does when it is not yet) and copied into the wheel. pip's own build files go to
that folder's pip/ (the sources stay as they are)."""
from __future__ import annotations

import os
import subprocess
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
BUILD = Path(os.environ.get("EDGETRAIN_BUILD_DIR") or ROOT / "build").resolve()


class CMakeBuild(build_ext):
    """Builds the extension with CMake instead of compiling sources itself."""

    def build_extension(self, ext: Extension) -> None:
        if not (BUILD / "CMakeCache.txt").is_file():
            self._cmake("-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=RelWithDebInfo")
        parallel = [] if os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") else ["--parallel", str(os.cpu_count() or 1)]
        self._cmake("--build", str(BUILD), "--target", "edgetrain_python", *parallel)
        # The extension is built for CMake's Python (Debian's /usr/bin/python3): its file name says which.
        built = BUILD / "python" / "edgetrain" / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.is_file():
            found = ", ".join(p.name for p in built.parent.glob("_core*")) or "none"
            raise SystemExit(f"edgetrain: no {built} for this Python (found: {found}); pip must run the Python "
                             "that CMake built the extension for (Debian's /usr/bin/python3, or a venv of it)")
        self.copy_file(str(built), self.get_ext_fullpath(ext.name))

    def _cmake(self, *args: str) -> None:
        print("edgetrain: cmake " + " ".join(args), flush=True)
        subprocess.run(["cmake", *args], check=True)


BUILD_FILES = BUILD / "pip"
BUILD_FILES.mkdir(parents=True, exist_ok=True)
setup(ext_modules=[Extension("edgetrain._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": str(BUILD_FILES)}, "egg_info": {"egg_base": str(BUILD_FILES)}})

#!/usr/bin/env bash
# Installs what edgetrain needs from Debian 12's packages (only what is missing; with sudo
# when not root), then configures build/ and builds what the quickstart needs: the edgetrain command,
# its LibTorch module and the Python package. tools/test.sh builds the rest (the tests, the man page,
# the docs, the fuzz targets). Safe to run again: a rebuild after a one-file change is incremental
# (ccache + a precompiled LibTorch header).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config ccache
  # A fresh Debian 12 (minbase) has neither: the tests read the commit (git: bench/smoke, dated docs)
  # and cpack -G DEB's dpkg-shlibdeps calls `file`.
  git file
  libsimgrid-dev libtorch-dev nlohmann-json3-dev libboost-program-options-dev doctest-dev zlib1g-dev
  libdeflate-dev  # a gzipped data file decompressed whole, three times zlib's speed (src/learn/dataset.cpp)
  libpugixml-dev  # reads platform files before SimGrid does (src/platform)
  libmimalloc-dev  # the process's malloc: SimGrid's per-transfer allocations run faster on it (CMakeLists.txt)
  libns3-dev  # the packet-level reference (src/packet: ns-3 TCP) for crosscheck and calibrate
  # LibTorch calls BLAS for every linear layer; Debian's default reference BLAS is about ten
  # times slower than OpenBLAS. The serial build keeps one thread (deterministic results).
  libopenblas0-pthread
  dataset-fashion-mnist
  libstb-dev  # image decoding (stb_image) for dataset.name images and fedscale (src/learn/image_file.cpp)
  python3 python3-matplotlib  # edgetrain plot and report (src/plot), and the results scripts
  # The browser test of report.html (tests/plot/browser_test.cpp): headless Chromium.
  chromium
  # Benchmarks (tools/bench): hyperfine for medians, GNU time for peak RSS, the plain PyTorch
  # baseline, and perf for the profile (tools/bench/profile.sh).
  hyperfine time python3-torch linux-perf
  # docs/how-to/your-model.md exports torchvision's ResNet-18 and MobileNetV2 (tools/torchscript/export.py).
  python3-torchvision
  # The fuzz targets (tools/fuzz.sh): clang with libFuzzer and the sanitizers (compiler-rt).
  clang libclang-rt-14-dev
  # Instruction counts of the codec benchmark (tools/bench/codecs.sh --callgrind).
  valgrind
  # Sweeps: run identity by SHA-256 (libcrypto); the tests of emitted jobs run them with GNU
  # parallel and as a job array on a single-node SLURM cluster (tests/sweep/); the package test
  # builds a .deb (cpack, dpkg-shlibdeps from dpkg-dev).
  libssl-dev parallel slurm-wlm munge dpkg-dev
  # The man page is generated from `edgetrain --help` by the build (packaging/edgetrain.h2m adds its
  # FILES section); the package test reads it with man-db's `man -l`.
  help2man man-db
  # The docs site (mkdocs.yml): the build turns docs/ into HTML, which the package installs, and the
  # docs/site test builds it with --strict (no broken link or anchor, every page in the nav).
  mkdocs
  # The Python module (src/python): pybind11 against Debian's python3, results as pandas DataFrames, a
  # progress bar (tqdm); the suite executes the notebooks (notebooks/) with nbconvert and ipykernel.
  pybind11-dev python3-dev python3-pandas python3-tqdm jupyter-nbconvert python3-ipykernel
  # `python3 -m pip install .` into a venv, offline (pyproject.toml: setuptools and wheel as the build), and the
  # suite's checks of the Python code: mypy and flake8 (tests/python/).
  python3-venv python3-pip python3-setuptools python3-wheel mypy flake8
  # MPI learning workers (src/mpi, docs/how-to/mpi.md): Debian's Open MPI, its headers and mpirun; the suite runs
  # them with mpirun --oversubscribe and under the SLURM daemons (tests/mpi/).
  libopenmpi-dev openmpi-bin
  python3-hypothesis  # property tests of hostile input: random pickles for the FedScale converter (tools/traces-fuzz)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# ccache with a precompiled header needs these relaxations to get cache hits.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target edgetrain edgetrain_torch edgetrain_python

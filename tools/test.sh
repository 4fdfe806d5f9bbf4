#!/usr/bin/env bash
# The whole test suite: set-up (tools/setup.sh), the rest of the build, then every doctest case as its
# own ctest entry (simulation tests need one process each: one SimGrid engine per process),
# and each fuzz target for 2 s (fuzz/<target>: tools/fuzz.sh; any crash fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
# Everything else: the tests, the man page, the docs; then the fuzz targets, so that the timed fuzz
# tests do not compile (skipped without clang: the tests then report themselves skipped).
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
cmake --build build -j"$(nproc)"
tools/fuzz.sh --build-only || [[ $? -eq 77 ]]
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 300

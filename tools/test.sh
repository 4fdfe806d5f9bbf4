#!/usr/bin/env bash
# The whole test suite: set-up and build (tools/setup.sh), then every doctest case as its
# own ctest entry (simulation tests need one process each: one SimGrid engine per process),
# and each fuzz target for 2 s (fuzz/<target>: tools/fuzz.sh; any crash fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 300

#!/usr/bin/env bash
# The benchmarks (never asserted in tests): edgetrain against a plain LibTorch C++ loop and a plain
# PyTorch loop, the --threads speed-up, timing-only scale, real-training memory, fleet generation
# and loading, a sweep's --jobs, crosscheck and calibrate, populations, and timing-only rounds against a
# plain SimGrid program, and MPI learning workers (mpirun) against ranks, as whole
# processes (hyperfine medians, GNU time peak RSS). Writes results/bench/README.md and the `bench`
# figures block of docs/reference/benchmarks.md. About 15 minutes on a 2-core machine; --quick a few, --smoke seconds.
# Usage: tools/bench/run.sh [--quick | --smoke] [--out DIR] [--build DIR] [--no-readme]
#                          [overhead python parallel scale memory fleet sweep fidelity population plain mpi]
# Exit status 77 (the bench/smoke test shows it as skipped) when hyperfine or GNU time is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in hyperfine /usr/bin/time; do
  command -v "$tool" > /dev/null || { echo "run.sh: $tool missing (tools/setup.sh installs it)" >&2; exit 77; }
done
[[ " $* " == *" --build "* || (-x build/edgetrain && -x build/bench_bare_loop && -x build/bench_plain_rounds) ]] ||
  cmake --build build -j2 --target edgetrain bench_bare_loop bench_plain_rounds
exec /usr/bin/python3 tools/bench/bench.py "$@"

#!/usr/bin/env bash
# Cost of each compressor, of ScaDLES's norm gap and of the server's SGD step on the MLP and CNN
# layouts (tools/bench/codecs.cpp); never asserted anywhere. Two measures:
#   tools/bench/codecs.sh [REPS]        median wall time per call in microseconds (default 51 reps)
#   tools/bench/codecs.sh --callgrind   thousands of instructions per call, counted by callgrind:
#                                       repeatable whatever the load of the machine
# BENCH=path/to/bench_codecs measures another build's driver (the code before a change).
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=${BENCH:-build/bench_codecs}
[[ -n ${BENCH:-} ]] || cmake --build build --target bench_codecs > /dev/null
if [[ ${1:-} != --callgrind ]]; then exec "$bench" --reps "${1:-51}"; fi
command -v valgrind > /dev/null || { echo "codecs.sh: --callgrind needs valgrind (apt-get install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
reps=3
kinds=(none fp16 topk-1% topk-10% topk-1%-global topk-1%-packed randomk-1% threshold-0.01 adacomp-1% adacomp-bins-50
  qsgd-16 terngrad signsgd onebit powersgd-2 norm-gap sgd)
# Thousands of instructions per call of the driver's function op_$1, from the last profile.
count() {
  callgrind_annotate --inclusive=yes "$tmp/cg" 2> /dev/null | awk -v op="(anonymous namespace)::op_$1(" -v reps=$reps '
    index($0, "codecs.cpp:" op) { gsub(",", "", $1); printf "%.0f", $1 / 1000 / reps; found = 1; exit }
    END { if (!found) printf "-" }'
}
printf '%-6s %-16s %12s %12s %14s\n' model kind encode_kIr decode_kIr feedback_kIr
for model in mlp cnn; do
  for kind in "${kinds[@]}"; do
    valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*::op_*' --callgrind-out-file="$tmp/cg" \
      "$bench" --reps $reps --only "$kind" --layout $model > /dev/null 2>&1
    case $kind in
      norm-gap) printf '%-6s %-16s %12s %12s %14s\n' $model norm-gap-10% "$(count norm_gap)" - - ;;
      sgd) printf '%-6s %-16s %12s %12s %14s\n' $model sgd-step "$(count sgd)" - - ;;
      *) printf '%-6s %-16s %12s %12s %14s\n' $model "$kind" "$(count encode)" "$(count decode)" "$(count feedback_round)" ;;
    esac
  done
done

#!/usr/bin/env bash
# Where the wall time of a real run goes: records edgetrain runs with perf (cpu-clock samples,
# DWARF call stacks, inline frames included) and prints each run's breakdown by category (step:
# forward, backward, parameter copies, batch tensors; encoding; decoding; aggregation + SGD;
# evaluation; SimGrid; start-up), grouped by tools/bench/profile_categories.py. Writes
# results/bench/profile/NAME.txt (or --out DIR).
#   mlp8     tools/bench/scenarios/mlp8-sync.json (8 devices, sync MLP, 250 rounds, evaluation off)
#   topk     scenarios/compression/topk-1pct-ef.json (top-k 1% + error feedback, 600 rounds, its evaluation)
#   adacomp  scenarios/adacomp/adacomp-1pct.json, the first 3,000 of its 15,000 pushes (async CNN)
# Usage: tools/bench/profile.sh [--smoke] [--out DIR] [mlp8 topk adacomp]
#   --smoke: a 2-round mlp8 run on 1,000 samples, to check the pipeline (seconds)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/bench/profile
smoke=0
names=()
while (($#)); do
  case "$1" in
    --smoke) smoke=1 ;;
    --out) out=$2; shift ;;
    mlp8 | topk | adacomp) names+=("$1") ;;
    *) echo "profile.sh: unknown argument $1 (mlp8, topk, adacomp, --smoke, --out DIR)" >&2; exit 2 ;;
  esac
  shift
done
((${#names[@]})) || names=(mlp8 topk adacomp)
command -v perf > /dev/null || { echo "profile.sh: perf missing (Debian's linux-perf)" >&2; exit 2; }
[[ -x build/edgetrain ]] || cmake --build build -j2 --target edgetrain
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for name in "${names[@]}"; do
  case "$name" in
    mlp8) args=(tools/bench/scenarios/mlp8-sync.json) ;;
    topk) args=(scenarios/compression/topk-1pct-ef.json) ;;
    adacomp) args=(scenarios/adacomp/adacomp-1pct.json --set stop.rounds=3000) ;;
  esac
  ((smoke)) && args+=(--set stop.rounds=2 --set dataset.train_samples=1000)
  cmd=(build/edgetrain run "${args[@]}" --quiet --out "$work/run-$name")
  echo "profile: perf record -e cpu-clock -F 499 --call-graph dwarf,32768 -- ${cmd[*]//$work/\$W}" >&2
  perf record -q -e cpu-clock -F 499 --call-graph dwarf,32768 -o "$work/$name.data" -- "${cmd[@]}" > "$work/$name.log"
  wall=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_time_s"])' "$work/run-$name/summary.json")
  {
    echo "command: ${cmd[*]//$work/\$W}"
    echo "perf: perf record -e cpu-clock -F 499 --call-graph dwarf,32768; summary.json wall_time_s $wall (under perf)"
    perf script -i "$work/$name.data" -F period,ip,sym,dso 2> /dev/null |
      /usr/bin/python3 tools/bench/profile_categories.py --title "$name"
  } | tee "$out/$name.txt"
  echo
done

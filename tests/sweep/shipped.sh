#!/usr/bin/env bash
# Every shipped sweep (sweeps/*.json) expands and every one of its runs passes load_scenario's checks
# (edgetrain sweep checks them all before anything runs; --emit-jobs then runs nothing). Usage: shipped.sh EDGETRAIN
set -euo pipefail
edgetrain=$1
cd "$(dirname "$0")/../.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for sweep in sweeps/*.json; do
  name=$(basename "$sweep" .json)
  "$edgetrain" sweep "$sweep" --out "$scratch/$name" --emit-jobs "$scratch/$name.jobs" >"$scratch/$name.log" 2>&1 ||
    { echo "shipped: $sweep failed:"; cat "$scratch/$name.log"; exit 1; }
  runs=$(wc -l <"$scratch/$name.jobs")
  [[ $runs -gt 0 ]] || { echo "shipped: $sweep has no runs"; exit 1; }
  echo "shipped: $sweep: $runs runs, all valid"
done

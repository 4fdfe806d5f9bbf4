#!/usr/bin/env bash
# Wall-time benchmark (never asserted in tests): runs a few representative scenarios N times
# and prints wall seconds per run and per simulated round, from each run's summary.json.
# Usage: tools/bench/run.sh [N]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -x build/edgetrain ]] || tools/setup.sh
n=${1:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-44s %8s %10s %12s\n' scenario run wall_s wall_ms/round
for s in scenarios/quickstart.json scenarios/scadles/s10-scadles.json scenarios/compression/topk-1pct-ef.json \
  scenarios/adacomp/adacomp-1pct.json scenarios/adacomp/adacomp-1pct-churn.json; do
  for i in $(seq 1 "$n"); do
    build/edgetrain run "$s" --quiet --out "$out/r" > /dev/null
    /usr/bin/python3 - "$s" "$i" "$out/r/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[3]))
print(f"{sys.argv[1]:<44} {sys.argv[2]:>8} {s['wall_time_s']:>10.2f} {1000 * s['wall_time_s'] / max(1, s['rounds']):>12.1f}")
PY
  done
done

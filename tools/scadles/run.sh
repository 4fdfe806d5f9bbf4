#!/usr/bin/env bash
# Runs every scenario of scenarios/scadles/ (two at a time) into results/scadles/runs/<name>/,
# then writes results/scadles/README.md and its plots with tools/scadles/report.py.
# Usage: tools/scadles/run.sh [NAME...]   (default: all scenarios)
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ -x build/edgetrain ]] || tools/setup.sh
names=("$@")
if ((${#names[@]} == 0)); then
  for f in scenarios/scadles/*.json; do names+=("$(basename "$f" .json)"); done
fi
mkdir -p results/scadles/runs
printf '%s\n' "${names[@]}" | xargs -P 2 -I{} sh -c \
  'build/edgetrain run scenarios/scadles/{}.json --quiet --out results/scadles/runs/{} > results/scadles/runs/{}.log 2>&1 || echo "{}: exit $?"'
# Debian's Python, where python3-matplotlib is installed (tools/setup.sh).
/usr/bin/python3 tools/scadles/report.py

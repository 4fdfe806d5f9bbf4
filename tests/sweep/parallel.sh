#!/usr/bin/env bash
# --emit-jobs with GNU parallel: the sweep writes one complete command line per pending run and
# runs nothing; GNU parallel runs them (in reverse order, from another folder); the sweep then
# finds them all finished, runs nothing and writes sweep.csv. Half the lines run first: only the
# other half is pending then. Usage: parallel.sh EDGETRAIN
set -euo pipefail
bin=$(realpath "$1")
base=$(cd "$(dirname "$0")" && pwd)/data/tiny.json
command -v parallel >/dev/null || { echo "SKIP: GNU parallel is not installed (apt-get install parallel)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
column() { /usr/bin/python3 -c 'import csv,sys; print(" ".join(r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))))' "$@"; }

mkdir sweeps
cat > sweeps/p.json <<JSON
{"base": "$base", "grid": {"training.mode": ["sync", "async"], "stop.rounds": [3, 4]}}
JSON
"$bin" sweep sweeps/p.json --out 'out dir' --threads 1 --emit-jobs jobs.txt > emit.out || fail "emit failed"
grep -q "4 pending runs of 4 written to $tmp/jobs.txt" emit.out || { cat emit.out; fail "emit message"; }
[ "$(wc -l < jobs.txt)" = 4 ] || fail "expected 4 lines"
[ -z "$(ls 'out dir/runs')" ] || fail "--emit-jobs ran something"
grep -q "^$bin run $base --set 'training.mode=\"sync\"' --set stop.rounds=3 --out '$tmp/out dir/runs/[0-9a-f]\{12\}' --quiet --threads 1\$" jobs.txt ||
  { cat jobs.txt; fail "unexpected command line"; }

# Two lines first: the other two are what is pending now.
mkdir elsewhere
(cd elsewhere && head -2 ../jobs.txt | parallel --will-cite -j 2) > /dev/null || fail "parallel (first half)"
"$bin" sweep sweeps/p.json --out 'out dir' --threads 1 --emit-jobs pending.txt > /dev/null
[ "$(wc -l < pending.txt)" = 2 ] || fail "expected 2 pending lines"
cmp -s <(tail -2 jobs.txt) pending.txt || fail "pending lines differ from the last two"
# Straight into parallel: --emit-jobs - writes the lines to stdout (its messages to stderr).
"$bin" sweep sweeps/p.json --out 'out dir' --threads 1 --emit-jobs - 2> emit.err | tac | (cd elsewhere && parallel --will-cite -j 2) > /dev/null ||
  fail "parallel (second half)"
grep -q "2 pending runs of 4 written to stdout" emit.err || { cat emit.err; fail "message of --emit-jobs -"; }

"$bin" sweep sweeps/p.json --out 'out dir' > gather.out 2>&1 || { cat gather.out; fail "gathering sweep failed"; }
grep -q "4 runs, 4 finished earlier, 0 to run" gather.out || { cat gather.out; fail "the sweep ran something"; }
[ "$(column 'out dir/sweep.csv' status)" = "completed completed completed completed" ] || fail "statuses"
[ "$(column 'out dir/sweep.csv' training.mode)" = "sync sync async async" ] || fail "mode column"
[ "$(column 'out dir/sweep.csv' rounds)" = "3 4 3 4" ] || fail "rounds column"
"$bin" sweep sweeps/p.json --out 'out dir' --emit-jobs none.txt > /dev/null
[ ! -s none.txt ] || fail "finished runs emitted again"
echo "parallel: ok"

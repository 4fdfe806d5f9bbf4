#!/usr/bin/env bash
# Resume after an interruption: a sweep stopped by SIGTERM mid-way keeps its finished runs (the next
# sweep skips them, their files untouched), reruns the one it interrupted and runs the rest; a run
# killed with SIGKILL (its lock and temporary folder left behind) is reported failed in its row and
# runs again from the start next time. Usage: resume.sh EDGETRAIN
set -euo pipefail
bin=$(realpath "$1")
base=$(cd "$(dirname "$0")" && pwd)/data/tiny.json
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Waits (at most 60 s) until the command succeeds.
wait_for() { for _ in $(seq 600); do if eval "$1"; then return 0; fi; sleep 0.1; done; fail "timed out waiting for: $1"; }
column() { /usr/bin/python3 -c 'import csv,sys; print(" ".join(r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))))' "$@"; }

# Four runs, one at a time; the third lasts a few seconds.
cat > s.json <<JSON
{"base": "$base", "runs": [{"stop.rounds": 5}, {"stop.rounds": 6}, {"stop.rounds": 30000}, {"stop.rounds": 7}]}
JSON
"$bin" sweep s.json --jobs 1 --threads 1 > first.out 2>&1 &
sweep=$!
wait_for 'grep -q "^\[2/4\]" first.out'
slow=$(/usr/bin/python3 -c 'import json; print(json.load(open("results/s/sweep.json"))["runs"][2]["id"])')
wait_for "test -s results/s/runs/.$slow.lock"
sleep 0.5
kill -TERM $sweep
status=0; wait $sweep || status=$?
[ $status = 130 ] || { cat first.out; fail "interrupted sweep: exit $status, expected 130"; }
grep -q "sweep interrupted" first.out || fail "no interruption message"
[ "$(column results/s/sweep.csv status)" = "completed completed interrupted pending" ] ||
  fail "after the interruption: $(column results/s/sweep.csv status)"
first=$(column results/s/sweep.csv folder | cut -d' ' -f1)
cp "results/s/$first/summary.json" first-summary.json

"$bin" sweep s.json --jobs 1 --threads 1 > second.out 2>&1 || { cat second.out; fail "resumed sweep failed"; }
grep -q "4 runs, 2 finished earlier, 2 to run" second.out || { cat second.out; fail "resume did not skip the 2 finished runs"; }
[ "$(grep -c '^\[' second.out)" = 2 ] || fail "expected 2 runs in the resumed sweep"
grep -q "^\[3/4\] $slow completed" second.out || { cat second.out; fail "the interrupted run was not run again"; }
cmp -s first-summary.json "results/s/$first/summary.json" || fail "a finished run was run again"
[ "$(column results/s/sweep.csv status)" = "completed completed completed completed" ] || fail "after resuming"
[ "$(column results/s/sweep.csv rounds)" = "5 6 30000 7" ] || fail "rounds: $(column results/s/sweep.csv rounds)"

# A run killed outright: lock and temporary folder left behind, row failed, run again next time.
cat > k.json <<JSON
{"base": "$base", "grid": {"stop.rounds": [30000], "seed": [2]}}
JSON
"$bin" sweep k.json --jobs 1 --threads 1 > k1.out 2>&1 &
sweep=$!
id=$(wait_for 'test -s results/k/sweep.json' && /usr/bin/python3 -c 'import json; print(json.load(open("results/k/sweep.json"))["runs"][0]["id"])')
wait_for "test -s results/k/runs/.$id.lock"
sleep 0.5
kill -KILL "$(cat results/k/runs/.$id.lock)"
status=0; wait $sweep || status=$?
[ $status = 1 ] || { cat k1.out; fail "sweep with a killed run: exit $status, expected 1"; }
grep -q "$id failed: killed by signal 9 (SIGKILL)" k1.out || { cat k1.out; fail "killed run not reported"; }
[ "$(column results/k/sweep.csv status)" = failed ] || fail "killed run's row"
[ "$(column results/k/sweep.csv status_reason)" = "killed by signal 9 (SIGKILL)" ] || fail "killed run's reason"
test -e "results/k/runs/.$id.lock" || fail "expected the killed run's lock file to be left behind"
"$bin" sweep k.json --jobs 1 --threads 1 > k2.out 2>&1 || { cat k2.out; fail "rerun after a kill failed"; }
grep -q "1 runs, 0 finished earlier, 1 to run" k2.out || { cat k2.out; fail "the killed run counted as finished"; }
[ "$(column results/k/sweep.csv status)" = completed ] || fail "after the rerun"
ls -a results/k/runs | grep -q 'tmp-' && fail "temporary folder of the killed run left behind"
echo "resume: ok"

#!/usr/bin/env bash
# --emit-slurm on a real, single-node SLURM cluster started here: a munge key and a slurm.conf in a
# temporary folder, munged, slurmctld and slurmd on localhost (ports picked free), the emitted job
# array submitted with `sbatch --wait`; the sweep then finds every run finished and writes
# sweep.csv. The sweep file's name and --out hold quotes, # and % (sbatch reads the
# #SBATCH lines with its own parser, and expands % in --output). A daemon that cannot start makes the test print why and exit 77 (skipped); the daemons
# are stopped at the end. Usage: slurm.sh EDGETRAIN
set -euo pipefail
bin=$(realpath "$1")
base=$(cd "$(dirname "$0")" && pwd)/data/tiny.json
source "$(dirname "$0")/../slurm/cluster.sh"  # the daemons; we are in their temporary folder

sweep='s "q" #1.json'
out='res "dq" #h 100%'
cat > "$sweep" <<JSON
{"base": "$base", "grid": {"training.mode": ["sync", "async"], "seed": [1, 2]}}
JSON
"$bin" sweep "$sweep" --out "$out" --threads 1 --emit-slurm array.sbatch > emit.out || { cat emit.out; fail "emit failed"; }
grep -q "#SBATCH --array=1-4" array.sbatch || fail "array size"
grep -q "#SBATCH --cpus-per-task=1" array.sbatch || fail "cpus per task"
[ "$(wc -l < array.jobs)" = 4 ] || fail "expected 4 lines in array.jobs"
timeout -k 5 240 sbatch --wait array.sbatch > sbatch.out 2>&1 || {
  cat sbatch.out; for f in "$out"/logs/slurm-*; do daemon_log "$f"; done; daemon_log logs/slurmd.log
  fail "the job array failed"
}
ls "$out"/logs/slurm-*_[1-4].log > /dev/null || { ls -R; fail "no task logs in $out/logs"; }
"$bin" sweep "$sweep" --out "$out" > gather.out 2>&1 || { cat gather.out; fail "gathering sweep failed"; }
grep -q "4 runs, 4 finished earlier, 0 to run" gather.out || { cat gather.out; fail "the sweep ran something"; }
[ "$(column "$out/sweep.csv" status)" = "completed completed completed completed" ] || fail "statuses"
[ "$(column "$out/sweep.csv" seed)" = "1 2 1 2" ] || fail "seed column"
echo "slurm: ok"

#!/usr/bin/env bash
# Emitted jobs against hostile paths and names (--emit-jobs, --emit-slurm). A control character in
# --out, the sweep file's name or an output path is refused with one line naming the field, exit 2,
# and nothing is written (not even sweep.json). Names that are legal but full of shell syntax
# ($(...), backticks, ;, quotes, \, #, %, spaces) are quoted so that the emitted SLURM script, run by
# bash as a task would run it, and each emitted line, run by GNU parallel, put the results in the
# folder named, and no command hidden in a name runs (no PWNED file anywhere). Usage: hostile.sh EDGETRAIN
set -euo pipefail
bin=$(realpath "$1")
base=$(cd "$(dirname "$0")" && pwd)/data/tiny.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
grid='{"base": "'"$base"'", "grid": {"seed": [1, 2]}}'
mkdir sweeps
echo "$grid" > sweeps/s.json

# Refused: exit 2, one line naming the field, nothing written.
refused() {  # refused FIELD ARGS...
  local field=$1
  shift
  set +e
  "$bin" sweep "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  [ "$rc" = 2 ] || { cat err.txt; fail "exit $rc for $field"; }
  [ "$(wc -l < err.txt)" = 1 ] || { cat err.txt; fail "not one line for $field"; }
  grep -q "^edgetrain: $field: \".*\" holds a control character" err.txt || { cat err.txt; fail "message for $field"; }
  [ -z "$(ls -A out 2>/dev/null)" ] || { ls -laR out; fail "something written for $field"; }
  [ -z "$(ls -- *.jobs *.sbatch *.txt 2>/dev/null | grep -v -e '^out.txt$' -e '^err.txt$')" ] || fail "a job file written for $field"
}
for c in $'\n' $'\r' $'\x01' $'\x1b' $'\x7f' $'\t'; do
  name="x${c}touch PWNED${c}"
  refused --out sweeps/s.json --out "out/$name" --emit-slurm x.sbatch
  refused --out sweeps/s.json --out "out/$name" --emit-jobs -
  cp sweeps/s.json "sweeps/$name.json"
  refused "the sweep file" "sweeps/$name.json" --out out/ok --emit-jobs j.txt
  rm "sweeps/$name.json"
  refused --emit-jobs sweeps/s.json --out out/ok --emit-jobs "j$name.txt"
  refused --emit-slurm sweeps/s.json --out out/ok --emit-slurm "x$name.sbatch"
done
[ ! -e PWNED ] || fail "a command ran"

# Legal names full of shell syntax, each field quoted for whoever reads it. A backslash cannot be
# in a SLURM --output path (it turns %A and %a off): refused for --emit-slurm, fine for --emit-jobs.
weird='a b$(touch PWNED)`touch PWNED`;touch PWNED '"'"'q'"'"' "dq" #hash %A 100%'
echo "$grid" > "sweeps/$weird.json"
"$bin" sweep "sweeps/$weird.json" --out "out/$weird" --threads 1 --emit-slurm "$weird.sbatch" > emit.out ||
  { cat emit.out; fail "emit failed"; }
[ "$(wc -l < "$weird.jobs")" = 2 ] || fail "expected 2 lines"
# bash runs task 1 of the array as SLURM would, from another folder.
mkdir task
(cd task && SLURM_ARRAY_TASK_ID=1 SLURM_CPUS_PER_TASK=1 bash "../$weird.sbatch") > task.out 2>&1 ||
  { cat task.out; fail "the SLURM script failed"; }
[ "$(ls "out/$weird/runs" | wc -l)" = 1 ] || { ls -R out; fail "results not in the folder named"; }
# What sbatch reads of the #SBATCH lines (tests/sweep/slurm.sh submits such a script for real).
grep -qF '#SBATCH --job-name="edgetrain-a b$(touch PWNED)`touch PWNED`;touch PWNED '"'"'q'"'"' \"dq\" #hash %A 100%"' "$weird.sbatch" ||
  { grep SBATCH "$weird.sbatch"; fail "job name line"; }
grep -qF '100%%/logs/slurm-%A_%a.log"' "$weird.sbatch" || { grep SBATCH "$weird.sbatch"; fail "output line"; }

slashed="$weird \\back"
set +e
"$bin" sweep sweeps/s.json --out "out/$slashed" --emit-slurm b.sbatch > out.txt 2> err.txt
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l < err.txt)" = 1 ] && grep -q "^edgetrain: --out: .* holds a backslash" err.txt ||
  { cat err.txt; fail "a backslash in --out for --emit-slurm"; }
[ ! -e b.sbatch ] && [ ! -e b.jobs ] || fail "written despite the backslash"
if command -v parallel > /dev/null; then
  "$bin" sweep sweeps/s.json --out "out/$slashed" --threads 1 --emit-jobs b.jobs > /dev/null
  (cd task && parallel --will-cite -j 2 < ../b.jobs) > parallel.out 2>&1 || { cat parallel.out; fail "parallel failed"; }
  for run in "out/$slashed/runs"/*; do [ -f "$run/summary.json" ] || fail "no results in $run"; done
  [ "$(ls "out/$slashed/runs" | wc -l)" = 2 ] || { ls -R out; fail "parallel: results not in the folder named"; }
fi
find . -name PWNED | grep -q . && fail "a command hidden in a name ran"
echo "hostile: ok"

#!/usr/bin/env bash
# MPI learning workers under SLURM: the single-node cluster of tests/slurm/cluster.sh, one job of 3 tasks
# (--overcommit: this machine may have fewer cores) whose script runs `srun --mpi=pmix edgetrain run`
# (`mpirun` inside the allocation when SLURM has no PMIx plugin), submitted with `sbatch --wait`; its
# results must be those of the plain run with --threads 1, byte for byte (wall time aside). Then a sweep's
# --emit-slurm --ranks 3 array (3 tasks per array task, each line under srun), as docs/how-to/mpi.md shows. Exit 77 when
# the daemons cannot start or mpirun is missing. Usage: slurm.sh EDGETRAIN
set -euo pipefail
bin=$(realpath "$1")
scenario=$(cd "$(dirname "$0")/.." && pwd)/sim/data/eight-devices.json
runs_test=$(cd "$(dirname "$0")" && pwd)/runs_test.py
command -v mpirun >/dev/null || { echo "SKIP: mpirun is not installed (apt-get install openmpi-bin)"; exit 77; }
source "$(dirname "$0")/../slurm/cluster.sh"  # the daemons; we are in their temporary folder

sets="--set compression.kind=topk --set compression.ratio=0.1 --set stop.rounds=6"
"$bin" run "$scenario" --quiet --threads 1 --out plain $sets || fail "the plain run failed"
if srun --mpi=list 2>&1 | grep -q pmix; then
  launch="srun --mpi=pmix --overcommit -n 3"
else
  launch="mpirun --oversubscribe -np 3"
fi
cat > mpi.sbatch <<JOB
#!/bin/bash
#SBATCH --job-name=edgetrain-mpi
#SBATCH --ntasks=3
#SBATCH --overcommit
#SBATCH --output=$tmp/job.log
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd $tmp
$launch "$bin" run "$scenario" --quiet --threads 1 --out mpi $sets
JOB
timeout -k 5 240 sbatch --wait mpi.sbatch > sbatch.out 2>&1 || {
  cat sbatch.out; daemon_log job.log; daemon_log logs/slurmd.log; fail "the MPI job failed ($launch)"
}
/usr/bin/python3 - "$runs_test" plain mpi <<'PY' || { daemon_log job.log; fail "results differ ($launch)"; }
import importlib.util, pathlib, sys
spec = importlib.util.spec_from_file_location("runs_test", sys.argv[1])
runs_test = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runs_test)
print(runs_test.compare(pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), "under SLURM"), "files identical")
PY

# docs/how-to/mpi.md's recipe: a sweep's emitted job array (--ranks 3), each task one MPI run under srun.
if [[ $launch == srun* ]]; then
  echo "{\"base\": \"$scenario\", \"grid\": {\"seed\": [1, 2], \"stop.rounds\": [3]}}" > sweep.json
  "$bin" sweep sweep.json --out swept --threads 1 --emit-slurm array.sbatch --ranks 3 > emit.out ||
    { cat emit.out; fail "emit failed"; }
  grep -q '^#SBATCH --ntasks=3$' array.sbatch || fail "the emitted script does not ask for 3 tasks"
  grep -q '^eval "srun --mpi=pmix ' array.sbatch || fail "the emitted script does not start its line under srun"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # --overcommit: this machine may have fewer cores than the array's tasks ask for.
  timeout -k 5 240 sbatch --wait --overcommit array.sbatch > array.out 2>&1 || {
    cat array.out; for f in swept/logs/slurm-*; do daemon_log "$f"; done; fail "the array of MPI runs failed"
  }
  "$bin" sweep sweep.json --out swept > gather.out 2>&1 || { cat gather.out; fail "gathering the sweep failed"; }
  grep -q "2 runs, 2 finished earlier, 0 to run" gather.out || { cat gather.out; fail "the sweep ran something"; }
  if grep -q "MPI" swept/logs/slurm-*_1.log; then cat swept/logs/slurm-*_1.log; fail "an MPI message in a task's log"; fi
fi
echo "mpi/slurm: ok ($launch)"

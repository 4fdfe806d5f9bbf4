# A single-node SLURM cluster for a test, started in a temporary folder: a munge key and a slurm.conf,
# munged, slurmctld and slurmd on localhost (ports picked free). Sourced by a test script (set -euo
# pipefail); leaves it in that folder ($tmp) with SLURM_CONF exported, and defines skip (exit 77), fail,
# wait_for and daemon_log. The daemons are stopped and the folder removed at exit. A daemon that cannot
# start makes the test print why and exit 77 (skipped). Used by tests/sweep/slurm.sh and tests/mpi/slurm.sh.
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install slurm-wlm munge)"
done
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done; done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp"
column() { /usr/bin/python3 -c 'import csv,sys; print(" ".join(r[sys.argv[2]] for r in csv.DictReader(open(sys.argv[1]))))' "$@"; }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits up to $2 tenths of a second for command $1; false when it never succeeded.
wait_for() { for _ in $(seq "$2"); do if eval "$1"; then return 0; fi; sleep 0.1; done; return 1; }
daemon_log() { echo "--- $1 (last lines)"; tail -n 15 "$1" 2>/dev/null || true; }

# munge: its own key, socket and files.
mkdir -m 700 munge
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 status=none
chmod 400 munge/munge.key
munged -F -f --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.sock" --pid-file="$tmp/munge/munged.pid" \
  --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" > munge/out.log 2>&1 &
pids+=($!)
wait_for "test -S '$tmp/munge/munge.sock'" 100 || { cat munge/out.log; daemon_log munge/munged.log; skip "munged did not start"; }

node=$(hostname -s)
mkdir -p state spool logs
cat > slurm.conf <<CONF
ClusterName=edgetrain-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/logs/slurmctld.log
SlurmdLogFile=$tmp/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -c -f "$SLURM_CONF" > logs/slurmctld.out 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" > logs/slurmd.out 2>&1 &
pids+=($!)
if ! wait_for '[ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ]' 300; then
  for f in logs/slurmctld.out logs/slurmctld.log logs/slurmd.out logs/slurmd.log; do daemon_log "$f"; done
  skip "the single-node SLURM cluster did not come up (node state: $(sinfo -h -N -o %T 2>&1 | head -1))"
fi

#!/usr/bin/env bash
# slurm-cluster.sh - a one-node Slurm cluster on localhost for the sweep
# tests: munged, slurmctld and slurmd with a generated slurm.conf, all state
# in one temporary folder, ports chosen from the caller's pid so that
# several test runs on one machine do not meet.
#   slurm-cluster.sh start DIR   starts it; prints SLURM_CONF=DIR/slurm.conf
#                                on success, or "SKIP: why" and exits 77 when
#                                the daemons cannot start here
#   slurm-cluster.sh stop DIR    stops the daemons it started (by pid file)
set -u
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
    for d in slurmd slurmctld munged; do
        f="$dir/$d.pid"
        [ -s "$f" ] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
    # the short folder of the sockets and spool (see below)
    if [ -s "$dir/short" ]; then
        rm -rf "$(cat "$dir/short")"
        rm -f "$dir/short"
    fi
}

skip() { echo "SKIP: $*"; [ -f "$dir/daemons.log" ] && tail -n 20 "$dir/daemons.log"; stop; exit 77; }

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

for p in munged mungekey slurmctld slurmd sbatch squeue sinfo; do
    command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
        skip "'$p' is not installed (Debian packages munge and slurm-wlm; scripts/deps.sh installs them)"
done
PATH=$PATH:/usr/sbin
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs as their user (running as uid $(id -u))"

# Unix sockets live in the spool and munge folders, and their paths must fit
# in 108 bytes (slurmstepd refuses longer ones): those folders go under a
# short temporary path, whatever DIR's length; stop removes it.
mkdir -p "$dir"
short=$(mktemp -d /tmp/stc.XXXXXX) || skip "cannot make a temporary folder in /tmp"
echo "$short" >"$dir/short"
mkdir -p "$dir/state" "$short/spool" "$short/munge" "$dir/log"
chmod 700 "$short/munge"
# munge: a fresh key and a private socket
mungekey -c -k "$short/munge/munge.key" -f >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$short/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$short/munge/munge.key"
sock="$short/munge/munge.socket"
munged --force --key-file="$short/munge/munge.key" --socket="$sock" \
       --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" \
       --seed-file="$short/munge/seed" >>"$dir/daemons.log" 2>&1 ||
    skip "munged does not start: $(tail -n 1 "$dir/daemons.log")"

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 / 2 }' /proc/meminfo)
base=$((20000 + ($$ % 2000) * 4))
cat >"$dir/slurm.conf" <<CONF
ClusterName=settee-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$short/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,sched_min_interval=0,batch_sched_delay=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MaxArraySize=10000
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" >>"$dir/daemons.log" 2>&1 ||
    skip "slurmctld does not start: $(tail -n 3 "$dir/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" >>"$dir/daemons.log" 2>&1 ||
    skip "slurmd does not start: $(tail -n 3 "$dir/log/slurmd.log" 2>/dev/null)"
# wait until the node takes jobs
for _ in $(seq 150); do
    state=$(sinfo -h -N -o %t 2>/dev/null | head -n 1)
    case "$state" in idle*|mix*|alloc*) echo "SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
    sleep 0.2
done
skip "the node did not become idle within 30 s (state '${state:-none}'): $(tail -n 3 "$dir/log/slurmd.log" 2>/dev/null)"

#!/bin/sh
# make sweep ENGINE=slurm on a Slurm of our own: munged, slurmctld and
# slurmd on this machine, configured, logging and keeping state in the
# test's folder, on ports of its own.  The job array's table, plans and
# networks must be byte for byte those of make -j2.  Skipped (exit 77)
# where Slurm and munge are not installed or we are not root (slurmd starts
# every job as its user); make check installs them as root
# (tools/deps.sh --check).  Only with the release tools (BIN=bin).
set -u
[ "$BIN" = bin ] || exit 0
for c in munged slurmctld slurmd sbatch sinfo scontrol; do
	command -v "$c" >/dev/null 2>&1 || {
		echo "skipped: no $c (Debian: slurmctld slurmd slurm-client munge)"
		exit 77
	}
done
[ "$(id -u)" = 0 ] || { echo "skipped: slurmd needs root"; exit 77; }
. tests/sweep/lib.inc
top=$(pwd)
tmp=$(mktemp -d)
s=$tmp/slurm
mkdir -p "$s/state" "$s/spool"
stop() {
	SLURM_CONF=$s/slurm.conf scontrol shutdown >/dev/null 2>&1
	munged -s --socket="$s/munge.sock" >/dev/null 2>&1
	sleep 1
	for p in "$s"/*.pid; do
		[ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
	done
	cd "$top" && rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM

# munge: a key of our own, its socket in our folder
dd if=/dev/urandom of="$s/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$s/munge.key"
munged -f --socket="$s/munge.sock" --key-file="$s/munge.key" \
    --log-file="$s/munged.log" --pid-file="$s/munged.pid" \
    --seed-file="$s/munged.seed" || { echo "munged did not start"; exit 1; }

# ports of our own, from the process id (two runs at once differ), below
# Linux's ephemeral range (32768-60999);
# addresses given, so that nothing depends on name resolution
port=$((12000 + ($$ % 10000) * 2))
cat > "$s/slurm.conf" <<CONF
ClusterName=nestplan-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$s/munge.sock
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
# No cgroups for jobs (proctrack/linuxproc, task/none); slurmd still
# initializes a cgroup plugin, and autodetection fails where
# /sys/fs/cgroup is not mounted (a chroot): name v1 and a mount point of
# our own, which nothing then uses
mkdir -p "$s/cgroup"
cat > "$s/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
CgroupMountpoint=$s/cgroup
CONF
export SLURM_CONF=$s/slurm.conf
slurmctld -i || { echo "slurmctld did not start"; exit 1; }
slurmd -N localhost || { echo "slurmd did not start"; tail -n 5 "$s/slurmd.log"; exit 1; }
i=0
until [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; do
	i=$((i + 1))
	[ $i -gt 30 ] && { echo "the node never became idle:"; sinfo; tail -n 5 "$s/slurmctld.log"; exit 1; }
	sleep 1
done

# 8 points in tasks of 3 (the last task has 2)
sweep_make "$tmp/slurm-run" ENGINE=slurm SWEEP_BLOCK=3 sweep \
    > "$tmp/slurm.log" 2>&1 || { cat "$tmp/slurm.log"; exit 1; }
grep -q '^sweep tiny: 8 points in 3 Slurm tasks' "$tmp/slurm.log" ||
    { echo "not 3 tasks:"; cat "$tmp/slurm.log"; exit 1; }
[ "$(grep -c '^\[[0-9]*/8\] sweep ' "$tmp/slurm.log")" -eq 8 ] ||
    { echo "not 8 progress lines:"; cat "$tmp/slurm.log"; exit 1; }
sweep_make "$tmp/local" -j2 sweep > "$tmp/local.log" 2>&1 ||
    { cat "$tmp/local.log"; exit 1; }
sweep_same "$tmp/local" "$tmp/slurm-run" || exit 1
exit 0

#!/usr/bin/env bash
# A one-host Slurm cluster on this machine, for trying the deploy/slurm/ job scripts without a
# real cluster. Runs munged, slurmctld and slurmd as root without systemd; every file they
# write (config, munge key and socket, state, spool, logs, pid files) lives under DIR.
#
#   scripts/slurm-local.sh start DIR   install Slurm and MUNGE if missing (Debian packages),
#                                      write DIR/slurm.conf, start the daemons, wait until the
#                                      node is idle
#   scripts/slurm-local.sh env DIR     print `export SLURM_CONF=DIR/slurm.conf`, for eval: the
#                                      client commands (sbatch, squeue, sinfo) need it
#   scripts/slurm-local.sh stop DIR    cancel every job, stop the three daemons, wait for them
#
# The daemons listen on 127.0.0.1 only (slurmctld 6817, slurmd 6818). The node is this machine
# with its real CPUs and memory, in one partition `local`; it has no GPU (no GRES), so a job that
# asks for --gres=gpu:1 is refused here.
set -euo pipefail

usage() { echo "usage: $0 start|stop|env DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd="$1"
dir="$(realpath -m "$2")"
conf="$dir/slurm.conf"
munge_socket="$dir/munge/munge.socket.2"
ctld_port=6817
slurmd_port=6818

# alive and stop_process.
source "$(dirname "${BASH_SOURCE[0]}")/lib/processes.sh"

# Stops the daemon whose pid is in file $1 (command name $2): SIGTERM, then SIGKILL after 30 s.
stop_pidfile() {
  local pidfile="$1" name="$2" pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  # Only a live process of the expected name: a stale pid file may name a reused pid.
  if [ -n "$pid" ] && alive "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
    stop_process "$pid" "slurm-local: $name"
  fi
  rm -f "$pidfile"
}

install_if_missing() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null \
     && command -v sbatch >/dev/null && command -v munged >/dev/null; then
    return 0
  fi
  echo "slurm-local: installing slurmctld slurmd slurm-client munge (Debian packages)" >&2
  # The packages' scripts try to start the services: this machine has no init system for
  # them, and invoke-rc.d is told no (policy-rc.d) where the image says so; we start our own.
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >&2
}

write_conf() {
  local node cpus sockets cores threads mem
  node="$(hostname -s)"
  # The node's real hardware, as slurmd measures it (slurmd -C prints a NodeName= line).
  local hw
  hw="$(slurmd -C | head -n 1)"
  cpus="$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$hw")"
  sockets="$(sed -n 's/.* SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$hw")"
  cores="$(sed -n 's/.* CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$hw")"
  threads="$(sed -n 's/.* ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$hw")"
  mem="$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")"
  cat >"$conf" <<EOF
# Written by scripts/slurm-local.sh: a one-host Slurm, every file under $dir.
ClusterName=shogi-zero-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
# Bind every daemon to the configured address (127.0.0.1), not to all interfaces.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups (no systemd here): processes are tracked through /proc, tasks are not bound.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# A node that went down (daemon restarted) comes back by itself.
ReturnToService=2
# Short timeouts: this is a test cluster.
SlurmdTimeout=60
InactiveLimit=0
KillWait=10
MinJobAge=60
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

start() {
  install_if_missing
  mkdir -p "$dir"/{state,spool,log,run,munge}
  chmod 700 "$dir/munge"
  export SLURM_CONF="$conf"

  # MUNGE: our own key and socket under DIR, so a system munged (if any) is left alone.
  if [ ! -s "$dir/munge/munge.key" ]; then
    mungekey --create --keyfile="$dir/munge/munge.key"
    chmod 600 "$dir/munge/munge.key"
  fi
  if ! { [ -f "$dir/munge/munged.pid" ] && alive "$(cat "$dir/munge/munged.pid")"; }; then
    # --force: munged refuses a key or socket under a world-writable folder such as /tmp.
    munged --force --socket="$munge_socket" --key-file="$dir/munge/munge.key" \
      --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
      --seed-file="$dir/munge/munged.seed"
  fi
  munge -n -S "$munge_socket" | unmunge -S "$munge_socket" >/dev/null \
    || { echo "slurm-local: munged does not answer; see $dir/log/munged.log" >&2; exit 1; }

  write_conf
  if ! { [ -f "$dir/run/slurmctld.pid" ] && alive "$(cat "$dir/run/slurmctld.pid")"; }; then
    slurmctld -f "$conf"       # forks into the background, writes SlurmctldPidFile
  fi
  if ! { [ -f "$dir/run/slurmd.pid" ] && alive "$(cat "$dir/run/slurmd.pid")"; }; then
    slurmd -f "$conf"          # likewise
  fi

  # Wait for the node to register and turn idle (60 s at most).
  local node state i
  node="$(hostname -s)"
  for i in $(seq 1 120); do
    state="$(sinfo -h -N -n "$node" -o %T 2>/dev/null || true)"
    case "$state" in
      idle|mixed|allocated) break ;;
      down*|drain*) scontrol update nodename="$node" state=resume 2>/dev/null || true ;;
    esac
    sleep 0.5
  done
  case "$state" in
    idle|mixed|allocated) ;;
    *) echo "slurm-local: node $node is '${state:-unknown}' after 60 s; see $dir/log/" >&2; exit 1 ;;
  esac
  echo "slurm-local: up (node $node $state, partition local); export SLURM_CONF=$conf" >&2
}

stop() {
  export SLURM_CONF="$conf"
  # Jobs first: slurmstepd and the job's processes outlive slurmd otherwise.
  if [ -f "$dir/run/slurmctld.pid" ] && alive "$(cat "$dir/run/slurmctld.pid")"; then
    local jobs i
    jobs="$(squeue -h -o %A 2>/dev/null || true)"
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null || true
      for i in $(seq 1 60); do
        [ -z "$(squeue -h -o %A 2>/dev/null || true)" ] && break
        sleep 0.5
      done
    fi
  fi
  stop_pidfile "$dir/run/slurmd.pid" slurmd
  stop_pidfile "$dir/run/slurmctld.pid" slurmctld
  stop_pidfile "$dir/munge/munged.pid" munged
  echo "slurm-local: stopped" >&2
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=\"$conf\"" ;;
  *) usage ;;
esac

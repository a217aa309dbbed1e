# Process helpers of the scripts that start and stop servers, daemons and jobs. Source it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/processes.sh"
# Needs /proc (Linux).

# alive PID: true while the process runs (a zombie, exited but not yet reaped, counts as gone).
alive() {
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop_process PID NAME [SECONDS]: sends SIGTERM, then SIGKILL when the process still runs after
# SECONDS (default 30), saying so on standard error under NAME; returns once it is gone, or 5 s
# after the SIGKILL. A process that is not running is left alone.
stop_process() {
  local pid="$1" name="$2" seconds="${3:-30}" i
  alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < seconds * 10; i++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
  echo "$name ($pid) ignored SIGTERM for $seconds s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    alive "$pid" || return 0
    sleep 0.1
  done
}

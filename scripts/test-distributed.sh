#!/usr/bin/env bash
# End-to-end test of the distributed mode on this host, against a real S3 server (SeaweedFS):
#
#   scripts/test-distributed.sh [all|store|slurm]      (default: all)
#
# store: the cluster recipe, a GPU trainer and CPU workers: the run's configuration says
#        `device = "cuda"`; without a GPU the trainer must refuse it with a clear message and
#        then train with --device cpu, while the workers, given no device, play on their CPUs.
#        A trainer (train --trainer-only) and two self-play workers on one S3 run (a second
#        trainer started meanwhile is refused, status 2, naming the first); one worker
#        is killed with SIGKILL after its first upload and restarted, the other stopped with
#        SIGTERM (exit status 143) after the first checkpoint and restarted, the trainer killed
#        with SIGKILL after it too; the run must reach two checkpoints, and both workers must
#        then stop by themselves (status 0) on seeing that the run has ended. Then the store is
#        checked:
#        every game object once (no two with the same content), every file valid through the
#        rules, the trainer's count of ingested games, and a worker with a wrong
#        secret key, or an unknown key id, must fail with an error about access or
#        credentials that shows neither the key id nor the secret.
# slurm: after the store part, on the same run: the one-host Slurm (scripts/slurm-local.sh)
#        runs deploy/slurm/selfplay-workers.sbatch as a 2-task array, 2 games each, credentials
#        from an env file, on a new run (the store part's has ended); both tasks must upload
#        games. Needs root (apt-get, the daemons).
#
# Everything runs in a temporary folder and on 127.0.0.1; whatever the test started is
# stopped on exit, failure included. KEEP=1 keeps the folder (it is kept on failure anyway).
# SHOGI_ZERO=<binary> uses that binary; by default scripts/shogi-zero builds it on first use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# alive and stop_process.
source "$root/scripts/lib/processes.sh"
mode="${1:-all}"
case "$mode" in all|store|slurm) ;; *) echo "usage: $0 [all|store|slurm]" >&2; exit 2 ;; esac

checkpoint_every=10
bucket="shogi-zero"
filer="http://127.0.0.1:8888/buckets/$bucket"

tmp="$(mktemp -d /tmp/shogi-zero-dist.XXXXXX)"
run="test-$(basename "$tmp" | cut -d. -f2 | tr 'A-Z' 'a-z')"
store="s3://$bucket/$run"
pids=()            # every shogi-zero process this script started (still to be stopped)
slurm_started=0
seaweed_started=0
ok=0

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

# --- Cleanup: stop everything we started, in reverse order ---------------------------------
cleanup() {
  local rc=$? pid
  set +e
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    stop_process "$pid" shogi-zero 10
    wait "$pid" 2>/dev/null
  done
  [ "$slurm_started" = 1 ] && "$root/scripts/slurm-local.sh" stop "$tmp/slurm"
  [ "$seaweed_started" = 1 ] && "$root/scripts/seaweedfs.sh" stop "$tmp/s3"
  if [ "$ok" = 1 ] && [ -z "${KEEP:-}" ]; then
    rm -rf "$tmp"
  else
    log "logs and data kept in $tmp"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts a shogi-zero process in the background with its output in $tmp/<name>.log; sets
# $started to its pid and remembers it for the cleanup.
start_bg() {
  local name="$1"; shift
  # Workers run with the workers' key.
  if [ "$1" = selfplay ]; then
    AWS_ACCESS_KEY_ID="$worker_key" AWS_SECRET_ACCESS_KEY="$worker_secret" "$bin" "$@" >"$tmp/$name.log" 2>&1 &
  else
    "$bin" "$@" >"$tmp/$name.log" 2>&1 &
  fi
  started=$!
  pids+=("$started")
  log "started $name (pid $started): shogi-zero $*"
}

# Forgets a pid (after it has been waited for).
forget() {
  local keep=() p
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}

# Kills process $1 with SIGKILL and reaps it.
kill9() {
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  forget "$1"
}

# Fails when process $1 (named $2) has exited: it should still be running.
expect_running() {
  if ! kill -0 "$1" 2>/dev/null; then
    local rc=0
    wait "$1" || rc=$?
    forget "$1"
    tail -n 30 "$tmp/$2.log" >&2 || true
    fail "$2 exited early (status $rc); its log: $tmp/$2.log"
  fi
}

# --- The store, read from the shell through the SeaweedFS filer (no credentials there) -------
# An object of the run, on standard output; fails quietly when it is missing.
store_get() { curl -sf "$filer/$run/$1"; }

# The objects under a folder of the run, one `name<TAB>size<TAB>md5` line each (paged).
store_list() {
  python3 - "$filer/$run/$1/" <<'EOF'
import base64, json, sys, urllib.error, urllib.parse, urllib.request
url, last = sys.argv[1], ""
while True:
    query = urllib.parse.urlencode({"limit": 1000, "lastFileName": last})
    request = urllib.request.Request(url + "?" + query, headers={"Accept": "application/json"})
    try:
        page = json.load(urllib.request.urlopen(request))
    except urllib.error.HTTPError as e:
        if e.code == 404:
            break          # no such folder yet: nothing listed
        raise
    entries = page.get("Entries") or []
    for e in entries:
        name = e["FullPath"].rsplit("/", 1)[1]
        md5 = base64.b64decode(e.get("Md5") or "").hex()
        print(f"{name}\t{e.get('FileSize', 0)}\t{md5}")
    if not page.get("ShouldDisplayLoadMore") or not entries:
        break
    last = page["LastFileName"]
EOF
}

# Every game object, one `m<step>/<name><TAB>size<TAB>md5` line each (one folder per model).
game_list() {
  local folder
  store_list games | cut -f1 | { grep -E '^m[0-9]{10}$' || true; } | while read -r folder; do
    store_list "games/$folder" | sed "s|^|$folder/|"
  done
}

# The step of latest.json, or -1 while there is none.
latest_step() {
  local json
  json="$(store_get latest.json 2>/dev/null)" || { echo -1; return; }
  python3 -c '
import json, sys
try:
    print(int(json.loads(sys.argv[1])["step"]))
except Exception:
    print(-1)   # being rewritten, or malformed: the callers wait on
' "$json"
}

# Game objects uploaded by worker $1 so far.
worker_uploads() { game_list | cut -f1 | grep -c -- "-$1-m" || true; }

# Waits (at most $2 seconds) until the command $1 succeeds, checking that the processes named
# in $3 ("pid:name ...") are still running meanwhile.
wait_until() {
  local what="$1" limit="$2" watch="${3:-}" start=$SECONDS entry
  until eval "$what"; do
    for entry in $watch; do expect_running "${entry%%:*}" "${entry#*:}"; done
    [ $((SECONDS - start)) -lt "$limit" ] || fail "timed out after ${limit}s waiting for: $what"
    sleep 2
  done
}

# --- Set-up ---------------------------------------------------------------------------------
log "working folder $tmp, store $store"
if [ -n "${SHOGI_ZERO:-}" ]; then
  bin="$SHOGI_ZERO"
else
  "$root/scripts/shogi-zero" --help >/dev/null   # installs LibTorch and builds on first use
  bin="$root/target/release/shogi-zero"
fi

"$root/scripts/seaweedfs.sh" start "$tmp/s3"
seaweed_started=1
eval "$("$root/scripts/seaweedfs.sh" env "$tmp/s3")"
# The workers' own key: it reads the run and writes under games/ only.
worker_key="$("$root/scripts/seaweedfs.sh" worker-env "$tmp/s3" | sed -n 's/^export AWS_ACCESS_KEY_ID=//p')"
worker_secret="$("$root/scripts/seaweedfs.sh" worker-env "$tmp/s3" | sed -n 's/^export AWS_SECRET_ACCESS_KEY=//p')"

# A tiny run: the tiny recipe for shogi, two checkpoints within a few minutes on two cores.
config="$tmp/tiny.toml"
python3 - "$root/configs/recipes/tiny.toml" "$config" "$checkpoint_every" <<'EOF'
import re, sys
source, target, every = sys.argv[1], sys.argv[2], int(sys.argv[3])
values = {
    "train": {"checkpoint_every": every, "total_steps": 2 * every, "warmup_steps": 5,
              "min_window_positions": 300, "max_minutes": 15.0},
    # Few games in flight, so that the first files come soon.
    "selfplay": {"games_per_file": 4, "games_per_worker": 8},
    # The trainer's device, as in the GPU recipes: workers choose their own.
    "inference": {"device": '"cuda"'},
}
table, seen, out = None, set(), ['variant = "shogi"\n']
for line in open(source):
    m = re.match(r"\s*\[(\w+)\]", line)
    if m:
        table = m.group(1)
    m = re.match(r"(\s*)(\w+)\s*=", line)
    if m and table in values and m.group(2) in values[table]:
        key = m.group(2)
        line = f"{m.group(1)}{key} = {values[table][key]}\n"
        seen.add((table, key))
    out.append(line)
missing = [f"[{t}] {k}" for t in values for k in values[t] if (t, k) not in seen]
if missing:
    sys.exit(f"configs/recipes/tiny.toml has no {', '.join(missing)}")
open(target, "w").write("".join(out))
EOF
log "config $config: checkpoint_every $checkpoint_every, total_steps $((2 * checkpoint_every))"

# Without a GPU the trainer is told to use the CPU (the workers need no flag: CPU is theirs).
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  trainer_device=()
else
  trainer_device=(--device cpu)
fi
# Sets trainer_args to the trainer's command line for the run in $store.
set_trainer_args() {
  trainer_args=(train --variant shogi --store "$store" --trainer-only --config "$config" --models "$tmp/models-$run" "${trainer_device[@]}")
}
set_trainer_args
# Sets wargs to the command line of worker $1 (each worker keeps its own cache folder).
worker_argv() { wargs=(selfplay --variant shogi --store "$store" --worker-id "$1" --cache "$tmp/cache-$1"); }

# Waits (at most $3 seconds) for worker $1 (pid $2) to stop by itself, and checks that it
# exited with status 0 saying that the run has ended.
expect_run_ended() {
  local name="$1" pid="$2" limit="$3" rc=0
  wait_until '! kill -0 '"$pid"' 2>/dev/null' "$limit"
  wait "$pid" || rc=$?
  forget "$pid"
  [ "$rc" -eq 0 ] || { tail -n 20 "$tmp/$name.log" >&2; fail "$name exited with status $rc after the run's end"; }
  grep -q "the run has ended" "$tmp/$name.log" || { tail -n 20 "$tmp/$name.log" >&2; fail "$name did not say that the run has ended"; }
  log "$name stopped by itself at the run's end (status 0)"
}

run_store_part() {
  # --- A configuration for a GPU, and no GPU: the trainer refuses it, saying what to do -------
  if [ "${#trainer_device[@]}" -gt 0 ]; then
    rc=0
    timeout 120 "$bin" train --variant shogi --store "$store" --trainer-only --config "$config" \
      --models "$tmp/models-refused" >"$tmp/trainer-cuda.log" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "a trainer told to use a GPU that is absent exited with status $rc"
    grep -q -- "--device cpu" "$tmp/trainer-cuda.log" \
      || { cat "$tmp/trainer-cuda.log" >&2; fail "the trainer's error does not say to give --device cpu"; }
    log "no GPU: the trainer refuses the cuda configuration: $(grep -m 1 -- '--device cpu' "$tmp/trainer-cuda.log")"
  fi

  # --- Trainer, then two workers --------------------------------------------------------------
  start_bg trainer-1 "${trainer_args[@]}"; trainer=$started
  # Workers need the run's config and a model: wait until the trainer has published both.
  wait_until 'store_get config.toml >/dev/null && [ "$(latest_step)" -ge 0 ]' 300 "$trainer:trainer-1"
  log "run is in the store: config.toml, latest.json at step $(latest_step)"
  # A second trainer on the same run (another local folder: another machine) is refused while
  # the first holds the run's lease, with a message naming the holder.
  rc=0
  timeout 120 "$bin" train --variant shogi --store "$store" --trainer-only --config "$config" \
    --models "$tmp/models-second" "${trainer_device[@]}" >"$tmp/trainer-second.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { cat "$tmp/trainer-second.log" >&2; fail "a second trainer on a held run exited with status $rc, not 2"; }
  grep -q -F "the run is held by the trainer on $(hostname)" "$tmp/trainer-second.log" \
    || { cat "$tmp/trainer-second.log" >&2; fail "the second trainer's refusal does not name the holder"; }
  log "a second trainer is refused: $(grep -m 1 -o 'the run is held by[^:]*' "$tmp/trainer-second.log")"

  worker_argv w1; start_bg worker-w1 "${wargs[@]}"; w1=$started
  worker_argv w2; start_bg worker-w2 "${wargs[@]}"; w2=$started

  # --- SIGKILL a worker after its first upload, and restart it --------------------------------
  wait_until '[ "$(worker_uploads w1)" -ge 1 ]' 600 "$trainer:trainer-1 $w1:worker-w1 $w2:worker-w2"
  log "w1 uploaded its first batch; killing it with SIGKILL"
  kill9 "$w1"
  w1_before="$(worker_uploads w1)"
  worker_argv w1; start_bg worker-w1-restarted "${wargs[@]}"; w1=$started

  # --- After the first checkpoint: SIGTERM a worker (exit status 143), SIGKILL the trainer ----
  wait_until '[ "$(latest_step)" -ge '"$checkpoint_every"' ]' 900 "$trainer:trainer-1 $w1:worker-w1-restarted $w2:worker-w2"
  kill -TERM "$w2"
  rc=0
  wait "$w2" || rc=$?
  forget "$w2"
  [ "$rc" -eq 143 ] || { tail -n 20 "$tmp/worker-w2.log" >&2; fail "worker w2 stopped by SIGTERM exited with status $rc, not 143"; }
  log "worker w2 stopped by SIGTERM: status 143; restarting it"
  worker_argv w2; start_bg worker-w2-restarted "${wargs[@]}"; w2=$started
  step_at_kill="$(latest_step)"
  log "first checkpoint: latest.json at step $step_at_kill; killing the trainer with SIGKILL"
  kill9 "$trainer"
  start_bg trainer-2 "${trainer_args[@]}"; trainer=$started

  # --- Until the second checkpoint; the trainer then ends by itself at total_steps -------------
  # (latest.json must never go back: the restarted trainer resumes, it does not start over)
  max_step="$step_at_kill"
  wait_until '
    s="$(latest_step)"
    [ "$s" -ge "$max_step" ] || fail "latest.json went back from step $max_step to $s"
    max_step="$s"
    [ "$s" -ge '"$((2 * checkpoint_every))"' ] || ! kill -0 '"$trainer"' 2>/dev/null' \
    900 "$w1:worker-w1-restarted $w2:worker-w2-restarted"
  trainer_rc=0
  wait_until '! kill -0 '"$trainer"' 2>/dev/null' 120
  wait "$trainer" || trainer_rc=$?
  forget "$trainer"
  [ "$trainer_rc" -eq 0 ] || { tail -n 30 "$tmp/trainer-2.log" >&2; fail "the restarted trainer exited with status $trainer_rc"; }
  [ "$(latest_step)" -ge $((2 * checkpoint_every)) ] \
    || fail "the restarted trainer ended at step $(latest_step), before step $((2 * checkpoint_every))"
  log "second checkpoint: latest.json at step $(latest_step); the restarted trainer ended by itself (status 0)"
  # The games the trainer could have seen: those in the store when it ended.
  game_list >"$tmp/games-at-trainer-end.tsv"
  # --- The workers see that the run has ended and stop by themselves ---------------------------
  expect_run_ended worker-w1-restarted "$w1" 120
  expect_run_ended worker-w2-restarted "$w2" 120
  # The restarted worker joined the run again. (Whether it finished a batch of its own before
  # the end depends on the games' lengths; that a killed worker's spooled batch is uploaded
  # when it starts again is for tests/distributed.rs to check.)
  grep -q "worker w1 of the run" "$tmp/worker-w1-restarted.log" \
    || { tail -n 20 "$tmp/worker-w1-restarted.log" >&2; fail "the restarted worker w1 did not join the run"; }
  log "the restarted worker w1 joined the run and uploaded $(( $(worker_uploads w1) - w1_before )) batches before its end"

  # --- Checks on the store ---------------------------------------------------------------------
  game_list >"$tmp/games.tsv"
  objects="$(wc -l <"$tmp/games.tsv")"
  [ "$objects" -ge 3 ] || fail "only $objects game objects in the store"
  # Names: m<model step>/<unix ms>-<worker>-m<model step>-...-<hash16>.replay, in the folder
  # of the model that played them.
  bad_names="$(cut -f1 "$tmp/games.tsv" | grep -v -E '^m([0-9]{10})/[0-9]+-.+-m\1-.*[0-9a-f]{16}\.replay$' || true)"
  [ -z "$bad_names" ] || fail "game objects with unexpected names: $bad_names"
  duplicate_hashes="$(cut -f1 "$tmp/games.tsv" | sed -E 's/.*-([0-9a-f]{16})\.replay$/\1/' | sort | uniq -d)"
  [ -z "$duplicate_hashes" ] || fail "game objects sharing a content hash in their names: $duplicate_hashes"
  duplicate_md5="$(cut -f3 "$tmp/games.tsv" | sort | uniq -d)"
  [ -z "$duplicate_md5" ] || fail "game objects with identical content (MD5 $duplicate_md5)"
  for w in w1 w2; do
    [ "$(grep -c -- "-$w-m" "$tmp/games.tsv")" -ge 1 ] || fail "no game object from worker $w"
  done
  log "$objects game objects, each listed once with its own content (w1 $(grep -c -- '-w1-m' "$tmp/games.tsv"), w2 $(grep -c -- '-w2-m' "$tmp/games.tsv"))"

  # Every game file valid through the rules, and the number of games they hold.
  mkdir -p "$tmp/games"
  while IFS=$'\t' read -r name _ _; do
    store_get "games/$name" >"$tmp/games/${name#*/}" || fail "cannot read games/$name back"
  done <"$tmp/games.tsv"
  "$bin" replay check "$tmp/games" >"$tmp/replay-check.txt" 2>&1 \
    || { cat "$tmp/replay-check.txt" >&2; fail "replay check refused a game object"; }
  games_in_store="$(sed -n 's/^games: \([0-9]*\)$/\1/p' "$tmp/replay-check.txt")"
  log "replay check: $games_in_store games in $objects objects, all valid"
  # The same count for the objects that were there when the trainer ended.
  mkdir -p "$tmp/games-at-trainer-end"
  cut -f1 "$tmp/games-at-trainer-end.tsv" | while read -r name; do
    ln "$tmp/games/${name#*/}" "$tmp/games-at-trainer-end/${name#*/}"
  done
  games_at_trainer_end="$("$bin" replay check "$tmp/games-at-trainer-end" | sed -n 's/^games: \([0-9]*\)$/\1/p')"
  rejected="$(store_list rejected | wc -l)"
  [ "$rejected" -eq 0 ] || fail "$rejected objects under rejected/"

  # The trainer's count of the games it ingested (metrics/metrics.jsonl, last line), against
  # the games in the store when it ended: at least one, and never more (a game ingested twice,
  # say after the trainer's SIGKILL, would push it over). It can be fewer: games uploaded after
  # the trainer's last look are not ingested.
  # The field is `selfplay_games`: with a store, the games that reached the trainer, counted
  # across its restart.
  store_get metrics/metrics.jsonl >"$tmp/metrics.jsonl" || fail "no metrics/metrics.jsonl in the store"
  ingested="$(tail -n 1 "$tmp/metrics.jsonl" | python3 -c '
import json, sys
print(json.loads(sys.stdin.read()).get("selfplay_games", ""))')"
  [ -n "$ingested" ] || fail "the last line of metrics/metrics.jsonl has no selfplay_games"
  [ "$ingested" -ge 1 ] && [ "$ingested" -le "$games_at_trainer_end" ] \
    || fail "the trainer counts $ingested ingested games; the store held $games_at_trainer_end when it ended"
  log "the trainer ingested $ingested games; the store held $games_at_trainer_end when it ended ($games_in_store now)"

  # --- The workers' key cannot replace the run's record, and writes only under games/ ----------
  local object status
  for object in latest.json checkpoints/forged/model.safetensors rejected/forged.replay; do
    status="$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary forged --aws-sigv4 "aws:amz:us-east-1:s3" \
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" --user "$worker_key:$worker_secret" "$AWS_ENDPOINT_URL/${store#s3://}/$object")"
    [ "$status" = 403 ] || fail "the workers' key could write $object (HTTP $status)"
  done
  log "the workers' key is refused outside games/ (latest.json, checkpoints/, rejected/: HTTP 403)"

  # --- A wrong secret, and an unknown key id, must be refused with a message that says so and
  # shows neither the key id nor the secret -----------------------------------------------------
  local key_id secret
  for key_id in "$AWS_ACCESS_KEY_ID" "AKIDUNKNOWN$RANDOM$RANDOM"; do
    secret="wrong-secret-$RANDOM$RANDOM"
    rc=0
    AWS_ACCESS_KEY_ID="$key_id" AWS_SECRET_ACCESS_KEY="$secret" timeout 120 "$bin" selfplay --variant shogi --store "$store" \
      --worker-id badkey --games 1 --cache "$tmp/cache-badkey" >"$tmp/badkey.log" 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || fail "a worker with a wrong key exited 0"
    [ "$rc" -ne 124 ] || fail "a worker with a wrong key hung (killed after 120 s)"
    grep -q -i -E "access|credential" "$tmp/badkey.log" \
      || { cat "$tmp/badkey.log" >&2; fail "the wrong-key error does not mention access or credentials"; }
    if grep -q -F -e "$key_id" -e "$secret" "$tmp/badkey.log"; then
      cat "$tmp/badkey.log" >&2; fail "the wrong-key error shows the key id or the secret"
    fi
    log "wrong key refused (status $rc), no key in the text: $(grep -i -m 1 -E 'access|credential' "$tmp/badkey.log")"
  done
}

run_slurm_part() {
  [ "$(id -u)" = 0 ] || fail "the Slurm part needs root (apt-get and the Slurm daemons)"
  if [ "$(latest_step)" -ge 0 ]; then
    # The store part's run has ended (its workers stop at once): the array serves a new one.
    run="$run-slurm"
    store="s3://$bucket/$run"
    set_trainer_args
  fi
  if [ "$(latest_step)" -lt 0 ]; then
    # Only the Slurm part: the workers need a run in the store. A trainer makes one.
    start_bg trainer-for-slurm "${trainer_args[@]}"; trainer=$started
    wait_until 'store_get config.toml >/dev/null && [ "$(latest_step)" -ge 0 ]' 300 "$trainer:trainer-for-slurm"
  fi
  "$root/scripts/slurm-local.sh" start "$tmp/slurm"
  slurm_started=1
  eval "$("$root/scripts/slurm-local.sh" env "$tmp/slurm")"

  # The job reads STORE, VARIANT and the credentials from a private env file; the submitting
  # environment holds no credentials.
  (umask 077; {
    echo "STORE=$store"
    echo "VARIANT=shogi"
    "$root/scripts/seaweedfs.sh" worker-env "$tmp/s3" | sed 's/^export //'
  } >"$tmp/store.env")
  mkdir -p "$tmp/slurm-out"
  log "sbatch --array=0-1 deploy/slurm/selfplay-workers.sbatch (2 games a task)"
  rc=0
  (cd "$tmp/slurm-out" && env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u STORE \
     SHOGI_ZERO="$bin" SHOGI_ZERO_ENV="$tmp/store.env" SELFPLAY_GAMES=2 SHOGI_ZERO_CACHE="$tmp/cache-slurm" \
     timeout 900 sbatch --wait --parsable --array=0-1 --cpus-per-task=1 --mem=1G \
       "$root/deploy/slurm/selfplay-workers.sbatch" >"$tmp/slurm-jobid") || rc=$?
  job="$(cut -d';' -f1 "$tmp/slurm-jobid")"
  for f in "$tmp"/slurm-out/*.out; do log "--- $f"; tail -n 5 "$f" >&2; done
  [ "$rc" -eq 0 ] || fail "the array job $job failed (sbatch --wait status $rc)"
  for task in 0 1; do
    n="$(worker_uploads "$job-$task")"
    [ "$n" -ge 1 ] || fail "Slurm task $job-$task uploaded no games"
    log "Slurm task $job-$task uploaded $n game objects"
  done
}

case "$mode" in
  all) run_store_part; run_slurm_part ;;
  store) run_store_part ;;
  slurm) run_slurm_part ;;
esac
ok=1
log "PASS ($mode)"

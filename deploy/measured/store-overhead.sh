#!/usr/bin/env bash
# What a store costs a self-play worker: the same games played three ways, alternated over
# rounds on an otherwise idle machine:
#   local  `selfplay --model` writing replay files to a local folder (no store)
#   file   `selfplay --store file://...`, a worker of a run in a local folder
#   s3     `selfplay --store s3://...`, a worker of a run in SeaweedFS on 127.0.0.1
#          (scripts/seaweedfs.sh), with the workers' key
# Same model and configuration (models/shogi/default and the copy of its recipe, the shogi CPU
# recipe, beside it), G games an arm (default 160). Prints one line an arm: round, arm, games
# per hour, and the selfplay summary line; the lines also go to WORK/results.txt.
#   deploy/measured/store-overhead.sh [WORK]     (ROUNDS="1 2 3", G=160 by default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${SHOGI_ZERO:-$root/target/release/shogi-zero}"
model="$root/models/shogi/default"
config="$model/config.toml"
games="${G:-160}"
work="$(realpath -m "${1:-$(mktemp -d /tmp/store-overhead.XXXXXX)}")"
mkdir -p "$work"
cd "$work"

metadata="$(cat "$model/latest")"
step="$((10#$(echo "$metadata" | sed -E 's/^step-0*([0-9]+)\.json$/\1/')))"
hash="$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['weights_fnv1a64'])" "$model/$metadata")"
checkpoint="checkpoints/step-$(printf %010d "$step")-$hash"
weights="${metadata%.json}.safetensors"
latest="{\"step\":$step,\"checkpoint\":\"$checkpoint\",\"weights_fnv1a64\":\"$hash\",\"published_unix\":0}"

# The run as a trainer would have published it: its configuration, the checkpoint, latest.json.
mkdir -p "file-store/$checkpoint"
cp "$config" file-store/config.toml
cp "$model/$metadata" "$model/$weights" "file-store/$checkpoint/"
echo "$latest" >file-store/latest.json

"$root/scripts/seaweedfs.sh" start "$work/s3"
trap '"$root/scripts/seaweedfs.sh" stop "$work/s3"' EXIT
eval "$("$root/scripts/seaweedfs.sh" env "$work/s3")"
run="overhead-$(date +%s)"
upload() {
  curl -sf -o /dev/null -X PUT --data-binary "@$1" --aws-sigv4 "aws:amz:us-east-1:s3" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" "$AWS_ENDPOINT_URL/shogi-zero/$run/$2"
}
for file in config.toml latest.json "$checkpoint/$metadata" "$checkpoint/$weights"; do
  upload "file-store/$file" "$file"
done
eval "$("$root/scripts/seaweedfs.sh" worker-env "$work/s3")"

for round in ${ROUNDS:-1 2 3}; do
  # Each round in another order, so that no arm always runs first.
  case $((round % 3)) in
    1) arms="local file s3" ;;
    2) arms="file s3 local" ;;
    *) arms="s3 local file" ;;
  esac
  for arm in $arms; do
    case $arm in
      local) args=(--model "$model" --config "$config" --out "$work/local-$round") ;;
      # A worker's machine settings are its own: those of the recipe's [inference], as the
      # local arm plays.
      file) args=(--store "file://$work/file-store" --worker-id "file-$round" --cache "$work/cache" --precision f32) ;;
      s3) args=(--store "s3://shogi-zero/$run" --worker-id "s3-$round" --cache "$work/cache" --precision f32) ;;
    esac
    start=$(date +%s.%N)
    "$bin" selfplay --variant shogi --games "$games" "${args[@]}" >"$arm-$round.out" 2>/dev/null
    end=$(date +%s.%N)
    rate="$(python3 -c "print(f'{$games * 3600 / ($end - $start):.0f}')")"
    echo "$round $arm $rate games/h; $(grep positions/s "$arm-$round.out")" | tee -a results.txt
  done
done

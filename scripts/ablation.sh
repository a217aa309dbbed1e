#!/usr/bin/env bash
# One arm of a training comparison (issue 22): trains run <arm> of <variant> with <config> to
# its end, then scores its last checkpoint against the fixed anchors at fixed settings (40
# games in colour-swapped pairs, 64 simulations for the model, 4 random opening plies, the
# variant's ply cap) and, when given, against a reference model. Every match's results.json
# stays under models/<variant>/<arm>/anchors/<opponent>/, and a summary in
# models/<variant>/<arm>/ablation.json. Run the arms one after another on an idle machine.
#   scripts/ablation.sh <variant> <arm> <config.toml> [reference-model-folder]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 3 ]]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
variant="$1" arm="$2" config="$3" reference="${4:-}"
run="$root/models/$variant/$arm"
"$root/scripts/shogi-zero" train --variant "$variant" --run "$arm" --config "$config"
opponents=("alphabeta:1" "alphabeta:2")
[[ -n "$reference" ]] && opponents+=("$reference")
summary="{\"variant\": \"$variant\", \"arm\": \"$arm\", \"config\": \"$(basename "$config")\", \"matches\": ["
separator=""
for opponent in "${opponents[@]}"; do
    folder="$run/anchors/$(basename "$opponent" | tr ':' '_')"
    "$root/target/release/shogi-zero" arena --variant "$variant" --player "$run" --player "$opponent" \
        --games 40 --sims 64 --random-opening-plies 4 --concurrency 2 --out "$folder" >&2
    summary+="$separator{\"opponent\": \"$opponent\", \"results\": $(cat "$folder/results.json")}"
    separator=", "
done
summary+="]}"
printf '%s\n' "$summary" > "$run/ablation.json.tmp"
mv "$run/ablation.json.tmp" "$run/ablation.json"
python3 - "$run/ablation.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
for match in summary["matches"]:
    r = match["results"]
    print(f"{summary['arm']} vs {match['opponent']}: score {r['elo']['score']:.3f} over {r['games']} games")
PY

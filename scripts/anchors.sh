#!/usr/bin/env bash
# Scores a model against fixed opponents at the settings of issue 22: 40 games a match in
# colour-swapped pairs, 64 simulations a move for the model, 4 random opening plies, the
# variant's own ply cap. Each match's results.json stays in <model>/anchors/<opponent>/ (the
# opponent's program or folder name), and a summary of them all in <model>/anchors.json.
#   scripts/anchors.sh <variant> <model-folder> <opponent>...
# Opponents are arena players: alphabeta:2, a model folder, 'usi:fairy-stockfish?depth=1'...
# GAMES (default 40) and SIMS (default 64) in the environment change the settings; THREADS
# sets the checkpoint players' LibTorch threads (`arena --threads`; 1 when other work shares
# the cores, which otherwise slows every match several-fold). Matches are played with
# `arena --resume`: one a kill cut short goes on from the games it recorded, and a finished
# one plays nothing more.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 3 ]]; then
    sed -n '2,12p' "$0" >&2
    exit 2
fi
variant="$1" model="$2"
shift 2
summary="{\"variant\": \"$variant\", \"model\": \"$model\", \"matches\": ["
separator=""
for opponent in "$@"; do
    name="${opponent#usi:}"
    name="${name#xboard:}"
    name="${name%%\?*}"
    name="$(basename "${name%% *}" | tr ':' '_')"
    folder="$model/anchors/$name"
    "$root/scripts/shogi-zero" arena --variant "$variant" --player "$model" --player "$opponent" \
        --games "${GAMES:-40}" --sims "${SIMS:-64}" --random-opening-plies 4 --concurrency 2 --out "$folder" --resume \
        ${THREADS:+--threads "$THREADS"} >&2
    summary+="$separator{\"opponent\": \"$opponent\", \"results\": $(cat "$folder/results.json")}"
    separator=", "
done
summary+="]}"
printf '%s\n' "$summary" > "$model/anchors.json.tmp"
mv "$model/anchors.json.tmp" "$model/anchors.json"
python3 - "$model/anchors.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
for match in summary["matches"]:
    r = match["results"]
    print(f"{summary['model']} vs {match['opponent']}: score {r['elo']['score']:.3f} over {r['games']} games")
PY

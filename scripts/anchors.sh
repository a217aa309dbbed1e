#!/usr/bin/env bash
# Scores a model against fixed opponents with `shogi-zero anchors`: 40 games a match in
# colour-swapped pairs, 64 simulations a move for the model, 4 random opening plies, the
# variant's own ply cap. Each match's results.json stays in <model>/anchors/<opponent>/ (the
# opponent's program or folder name), and a summary of them all in <model>/anchors.json.
#   scripts/anchors.sh <variant> <model-folder> <opponent>...
# Opponents are arena players: alphabeta:2, a model folder, 'usi:fairy-stockfish?depth=1'...
# GAMES (default 40) and SIMS (default 64) in the environment change the settings; THREADS
# sets the checkpoint players' LibTorch threads (1 when other work shares the cores, which
# otherwise slows every match several-fold). A match a kill cut short goes on from the games it
# recorded, and a finished one plays nothing more.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 3 ]]; then
    sed -n '2,11p' "$0" >&2
    exit 2
fi
variant="$1" model="$2"
shift 2
opponents=()
for opponent in "$@"; do
    opponents+=(--opponent "$opponent")
done
exec "$root/scripts/shogi-zero" anchors --variant "$variant" --model "$model" "${opponents[@]}" \
    --games "${GAMES:-40}" --sims "${SIMS:-64}" ${THREADS:+--threads "$THREADS"}

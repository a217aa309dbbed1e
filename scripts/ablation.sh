#!/usr/bin/env bash
# Reproduces one training row of docs/experiments.md: trains the recipe to its end as run
# models/<variant>/experiments/<arm>/ (the arm is the recipe's file name without .toml), then
# scores its last checkpoint against alphabeta:1, alphabeta:2 and, when given, a reference
# model folder: 40 games a match in colour-swapped pairs, 64 simulations a move, 4 random
# opening plies, openings seed 0, the variant's ply cap. The model (and the reference, unless
# it carries its own ?spec) plays the network's own search, no capture utility, material guard
# or pursuit, as the rows were measured; SEARCH in the environment gives another player spec
# (SEARCH= for a player's default search). Each match lands in <arm>/matches/<opponent>/
# (results.json, games.jsonl). Run again, the command resumes a run or a match cut short.
#   scripts/ablation.sh <variant> <recipe.toml> [reference-model-folder]
# Example: scripts/ablation.sh shogi docs/experiments/recipes/shogi/no-teacher.toml models/shogi/default
# Run one arm at a time on an otherwise idle machine. GAMES and SIMS change the match
# settings; THREADS sets the matches' LibTorch threads (1 when other work shares the cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 2 || $# -gt 3 ]]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
variant="$1" recipe="$2" reference="${3:-}"
if [[ ! -f "$recipe" ]]; then
    echo "ablation.sh: recipe $recipe: no such file" >&2
    exit 2
fi
arm="$(basename "$recipe" .toml)"
search="${SEARCH-capture_utility=0&material_guard=off&pursuit_utility=0}"
experiments="$root/models/$variant/experiments"
# `train` keeps a run in <models>/<variant>/<run>; this link makes that the experiments folder.
runs="$experiments/.runs"
mkdir -p "$runs"
ln -sfn .. "$runs/$variant"
"$root/scripts/shogi-zero" train --variant "$variant" --models "$runs" --run "$arm" --config "$recipe"
opponents=("alphabeta:1" "alphabeta:2")
if [[ -n "$reference" && "$reference" == *\?* ]]; then
    opponents+=("$reference")
elif [[ -n "$reference" ]]; then
    opponents+=("$reference${search:+?$search}")
fi
for opponent in "${opponents[@]}"; do
    name="$(basename "${opponent%%\?*}" | tr ':' '_')"
    "$root/scripts/shogi-zero" arena --variant "$variant" \
        --player "$experiments/$arm${search:+?$search}" --player "$opponent" \
        --games "${GAMES:-40}" --sims "${SIMS:-64}" --random-opening-plies 4 --seed 0 \
        --concurrency 2 --out "$experiments/$arm/matches/$name" --resume ${THREADS:+--threads "$THREADS"}
done

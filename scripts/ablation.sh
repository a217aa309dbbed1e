#!/usr/bin/env bash
# Reproduces one training row of docs/experiments.md: trains the recipe to its end as run
# models/<variant>/experiments/<arm>/ (the arm is the recipe's file name without .toml), then
# scores its last checkpoint with scripts/anchors.sh against alphabeta:1, alphabeta:2 and, when
# given, a reference model (40 games each, 64 simulations, 4 random opening plies,
# colour-swapped pairs, the variant's ply cap). The matches land in the arm's anchors/ and
# anchors.json. A run cut short resumes where it stopped when the command is run again.
#   scripts/ablation.sh <variant> <recipe.toml> [reference-model-folder]
# Example: scripts/ablation.sh shogi docs/experiments/recipes/shogi/no-teacher.toml models/shogi/default
# Run one arm at a time on an otherwise idle machine; GAMES, SIMS and THREADS in the
# environment reach scripts/anchors.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 2 || $# -gt 3 ]]; then
    sed -n '2,11p' "$0" >&2
    exit 2
fi
variant="$1" recipe="$2" reference="${3:-}"
if [[ ! -f "$recipe" ]]; then
    echo "ablation.sh: recipe $recipe: no such file" >&2
    exit 2
fi
arm="$(basename "$recipe" .toml)"
experiments="$root/models/$variant/experiments"
# `train` keeps a run in <models>/<variant>/<run>; this link makes that the experiments folder.
runs="$experiments/.runs"
mkdir -p "$runs"
ln -sfn .. "$runs/$variant"
"$root/scripts/shogi-zero" train --variant "$variant" --models "$runs" --run "$arm" --config "$recipe"
opponents=("alphabeta:1" "alphabeta:2")
if [[ -n "$reference" ]]; then
    opponents+=("$reference")
fi
exec "$root/scripts/anchors.sh" "$variant" "$experiments/$arm" "${opponents[@]}"

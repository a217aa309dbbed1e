#!/usr/bin/env bash
# One arm of a training comparison (issue 22): trains run <arm> of <variant> with <config> to
# its end, then scores its last checkpoint with scripts/anchors.sh against alphabeta:1,
# alphabeta:2 and, when given, a reference model (40 games each, 64 simulations, 4 random
# opening plies, colour-swapped pairs, the variant's ply cap). The results stay in
# models/<variant>/<arm>/anchors/ and anchors.json. Run the arms one after another on an idle
# machine.
#   scripts/ablation.sh <variant> <arm> <config.toml> [reference-model-folder]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ $# -lt 3 ]]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
variant="$1" arm="$2" config="$3" reference="${4:-}"
"$root/scripts/shogi-zero" train --variant "$variant" --run "$arm" --config "$config"
opponents=("alphabeta:1" "alphabeta:2")
[[ -n "$reference" ]] && opponents+=("$reference")
exec "$root/scripts/anchors.sh" "$variant" "$root/models/$variant/$arm" "${opponents[@]}"

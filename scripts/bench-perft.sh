#!/usr/bin/env bash
# Move generation speed of shogi-zero next to cshogi (C++ generator driven from Python), both
# measured in this run on the same walk: make every move and generate the legal moves of every
# position reached. cshogi walks the shogi positions of `shogi-zero bench perft` to the depths
# that the bench walked.
# Usage: scripts/bench-perft.sh [plies to subtract from the bench depths, default 1: a couple
# of minutes; 0 for the full depths]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
shallower="${1:-1}"
eval "$("$root/scripts/setup.sh")"
"$root/.venv/bin/python" -c "import cshogi" 2>/dev/null || "$root/.venv/bin/python" -m pip install --quiet "cshogi==1.1.0"
ours="$("$root/scripts/shogi-zero" bench perft --variants shogi --shallower "$shallower")"
echo "$ours"
echo
echo "baseline: cshogi on the same positions and depths"
# Position names are the first column up to the depth, the first number of each table line.
walked=()
while IFS=$'\t' read -r name depth; do
  walked+=("$name=$depth")
done < <(awk '/^shogi / { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) { name = $1; for (j = 2; j < i; j++) name = name " " $j; print name "\t" $i; break } }' <<<"$ours")
[ "${#walked[@]}" -gt 0 ] || { echo "bench-perft: no shogi positions in the bench output" >&2; exit 1; }
theirs="$("$root/.venv/bin/python" "$root/scripts/cshogi_baseline.py" "${walked[@]}")"
printf '%-16s %5s %12s %14s %14s %8s\n' position depth nodes "cshogi n/s" "shogi-zero n/s" ratio
while IFS=$'\t' read -r name depth nodes seconds rate; do
  line="$(grep -F "$name " <<<"$ours" | head -n 1)"
  our_nodes="$(awk '{print $(NF-5)}' <<<"$line")"
  our_rate="$(awk '{print $(NF-3)}' <<<"$line")"
  [ "$our_nodes" = "$nodes" ] || { echo "node counts differ for $name at depth $depth: $our_nodes vs $nodes" >&2; exit 1; }
  printf '%-16s %5s %12s %14s %14s %7.2fx\n' "$name" "$depth" "$nodes" "$rate" "$our_rate" "$(awk -v a="$our_rate" -v b="$rate" 'BEGIN{print a/b}')"
done <<<"$theirs"

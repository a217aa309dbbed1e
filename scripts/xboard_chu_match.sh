#!/usr/bin/env bash
# Plays one game of chu shogi between `shogi-zero xboard` and HaChu inside a real XBoard (4.8
# or later) on a virtual X display: XBoard checks every move against its own chu rules and
# adjudicates mates. Needs xboard, xvfb and hachu (Debian: apt-get install xboard xvfb hachu)
# and a release build (cargo build --release).
#
# Usage: scripts/xboard_chu_match.sh <chu checkpoint> [seconds per move, default 1]
# Prints the game (PGN) and the match line; exits 1 when the game did not finish or our engine
# said something XBoard counts as an error (Illegal move, Error, tellusererror).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
model="$(realpath "${1:?usage: $0 <chu checkpoint> [seconds per move]}")"
per_move="${2:-1}"
engine="$root/target/release/shogi-zero"
xboard="$(command -v xboard || echo /usr/games/xboard)"
hachu="$(command -v hachu || echo /usr/games/hachu)"
out="$(mktemp -d)"
log="$out/match.log"
xvfb-run -a "$xboard" -variant chu \
  -fcp "$engine xboard --variant chu --model $model" -fd "$out" \
  -scp "$hachu" -sd "$out" \
  -matchMode true -matchGames 1 -searchTime "0:$(printf %02d "$per_move")" -adjudicateDrawMoves 60 \
  -debug -nameOfDebugFile "$out/xboard.debug" -saveGameFile "$out/game.pgn" -popupExitMessage false \
  >"$log" 2>&1 || true
cat "$out/game.pgn" 2>/dev/null || { echo "no game was saved; see $log" >&2; exit 1; }
grep "final score" "$log" || { echo "the match did not finish; see $log" >&2; exit 1; }
if grep -E "<first *: *(Illegal move|Error|tellusererror)" "$out/xboard.debug"; then
  echo "shogi-zero reported errors to XBoard; see $out/xboard.debug" >&2
  exit 1
fi
echo "XBoard's log: $out/xboard.debug"

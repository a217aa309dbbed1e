#!/usr/bin/env bash
# Runs the test suite, installing and building what is missing first. Extra arguments go to
# `cargo test`, e.g. `scripts/test.sh -- --ignored` for the slow suite.
# Suites that need something outside the repository are cargo features, turned on here when
# it is there and reported either way (their tests show as ignored when off):
#   outside-engines: fairy-stockfish and hachu on PATH (apt-get install fairy-stockfish hachu);
#   shared-perft:    the project's shared reference tables in ../shared/perft;
#   chart-font:      the charts' font, DejaVu Sans (apt-get install fonts-dejavu-core).
# The feature failpoints (kill tests of the distributed mode) is always on here.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
eval "$("$root/scripts/setup.sh")"
cd "$root"
# Debian installs the engines (fairy-stockfish, hachu) in /usr/games.
[ -d /usr/games ] && export PATH="$PATH:/usr/games"
# failpoints: injection points for the tests that kill a process at a chosen moment.
features=(failpoints)
if command -v fairy-stockfish >/dev/null && command -v hachu >/dev/null; then
  features+=(outside-engines)
  echo "test.sh: outside engines found: their matches run (feature outside-engines)" >&2
else
  echo "test.sh: fairy-stockfish or hachu not installed: their matches are ignored (apt-get install fairy-stockfish hachu)" >&2
fi
if [ -d "$root/../shared/perft" ]; then
  features+=(shared-perft)
  echo "test.sh: ../shared/perft found: tests/perft is compared with it (feature shared-perft)" >&2
else
  echo "test.sh: ../shared/perft not found: the comparison with the shared tables is ignored" >&2
fi
font=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
if [ -f "$font" ]; then
  features+=(chart-font)
  echo "test.sh: $font found: charts are tested with text (feature chart-font)" >&2
else
  echo "test.sh: $font not found: the chart with text is ignored (apt-get install fonts-dejavu-core)" >&2
fi
feature_args=()
if [ "${#features[@]}" -gt 0 ]; then
  feature_args=(--features "$(IFS=,; echo "${features[*]}")")
fi
cargo test --release "${feature_args[@]}" "$@"

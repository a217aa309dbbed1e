#!/usr/bin/env bash
# The layers of the library as the code states them: one edge A -> B for every top-level module
# A (src/A.rs or src/A/) that names `crate::B` outside a comment. Prints the edges, then the
# modules from the lowest layer up; fails, naming the modules of the loop, when the edges form
# a cycle.
#   scripts/module-graph.sh [--quiet]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../src"
edges="$(mktemp)"
trap 'rm -f "$edges"' EXIT
for entry in *; do
  module="${entry%.rs}"
  case "$module" in lib | main) continue ;; esac
  if [ -d "$entry" ]; then
    mapfile -t files < <(find "$entry" -name '*.rs' | sort)
  else
    files=("$entry")
  fi
  # Lines that start with a comment are skipped; `crate::{a::X, b::Y}` groups name each module.
  grep -hv '^\s*//' "${files[@]}" \
    | grep -oE 'crate::([a-z_]+|\{[^}]*\})' \
    | sed -E 's/^crate:://; s/[{}]//g; s/,/\n/g' \
    | sed -E 's/^\s+//; s/::.*//; s/[^a-z_].*//' \
    | grep -v -e '^$' -e "^$module\$" \
    | sort -u | sed "s/^/$module /" >>"$edges" || true
done
[ "${1:-}" = --quiet ] || cat "$edges"
if ! order="$(tsort "$edges" 2>&1 >/dev/null)"; then :; fi
if [ -n "$order" ]; then
  echo "module-graph: the modules' dependencies form a cycle:" >&2
  # tsort prints each loop it breaks as a header line and then its modules, one a line.
  echo "$order" | awk '/input contains a loop/ { if (loop) print "  " loop; loop = ""; next }
                       { sub(/^tsort: /, ""); loop = loop (loop ? " -> " : "") $0 }
                       END { if (loop) print "  " loop }' >&2
  exit 1
fi
[ "${1:-}" = --quiet ] || { echo "layers, lowest first:"; tsort "$edges" | tac | tr '\n' ' '; echo; }

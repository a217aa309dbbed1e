#!/usr/bin/env bash
# Runs the test suite, installing and building what is missing first. Extra arguments go to
# `cargo test`, e.g. `scripts/test.sh -- --ignored` for the slow suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
eval "$("$root/scripts/setup.sh")"
cd "$root"
cargo test --release "$@"

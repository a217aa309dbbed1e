#!/bin/bash
# Samples a self-play worker's resident memory every 10 s while it plays 10,000 games.
# The run: `shogi-zero train --variant shogi --trainer-only --store file://$PWD/store
# --config worker-rss-config.toml`, stopped once it had published step 0 (the shogi CPU
# recipe's 3x32 network, with 4 and 2 simulations and a 60-ply cap so that 10,000 games take
# minutes). Output: worker-rss.tsv.
B="${SHOGI_ZERO:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/shogi-zero}"
$B selfplay --variant shogi --store file://$PWD/store --worker-id rss --cache $PWD/cache --games 10000 > worker.out 2> worker.err &
pid=$!
start=$(date +%s)
while kill -0 $pid 2>/dev/null; do
  rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
  games=$(find $PWD/store/games -name '*.replay' 2>/dev/null | wc -l)
  echo "$(( $(date +%s) - start )) $rss $games" >> rss.tsv
  sleep 10
done
wait $pid; echo "exit $?" >> rss.tsv

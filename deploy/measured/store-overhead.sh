#!/bin/bash
# Store overhead: one self-play worker process through a file:// store against the same
# selfplay in-process on local files; same config (configs/shogi-cpu.toml), same model
# (models/shogi/default), alternated, two rounds.
set -euo pipefail
B=/work/main/target/release/shogi-zero
M=/work/main/models/shogi/default
G=${G:-160}
step=13056
hash=$(python3 -c "import json;print(json.load(open('$M/step-0000013056.json'))['weights_fnv1a64'])")
mkdir -p store/checkpoints/step-0000013056-$hash
cp /work/main/configs/shogi-cpu.toml store/config.toml
cp $M/step-0000013056.json $M/step-0000013056.safetensors store/checkpoints/step-0000013056-$hash/
printf '{"step":%d,"checkpoint":"checkpoints/step-0000013056-%s","weights_fnv1a64":"%s","published_unix":0}\n' $step $hash $hash > store/latest.json
for round in ${ROUNDS:-1 2}; do
  for arm in ${ARMS:-local store}; do
    start=$(date +%s.%N)
    if [ $arm = local ]; then
      $B selfplay --variant shogi --model $M --config /work/main/configs/shogi-cpu.toml --games $G --out local-$round > $arm-$round.out 2>/dev/null
    else
      $B selfplay --variant shogi --store file://$PWD/store --worker-id ov-$round --cache $PWD/cache --games $G > $arm-$round.out 2>/dev/null
    fi
    end=$(date +%s.%N)
    echo "$round $arm $(python3 -c "print(f'{$G*3600/($end-$start):.0f}')") games/h; $(grep positions/s $arm-$round.out)" | tee -a results.txt
  done
done

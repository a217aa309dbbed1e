#!/usr/bin/env bash
# Device check (stop 37): our binary, built against torch 2.11 (the device's), on an
# AVX512-BF16 CPU and an H100. Everything lands in $OUT.
set -u
B=.device/shogi-zero
TL=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib
export LD_LIBRARY_PATH=$TL
log=$OUT/log.txt
{ lscpu | grep 'Model name'; nvidia-smi -L; ldd $B | grep -E 'not found|torch'; } >> $log 2>&1
$B --help > /dev/null 2>> $log || { echo "binary does not start" >> $log; exit 1; }
# The CPU runs of both precisions side by side, 2 cores each; the GPU run on the rest.
M=/tmp/m
for p in f32 bf16; do
  cores=$([ $p = f32 ] && echo 0,1 || echo 2,3)
  OMP_NUM_THREADS=2 timeout 300 taskset -c $cores $B train --variant shogi --run cpu-$p --models $M --config .device/cpu-$p.toml > $OUT/train-cpu-$p.txt 2>&1 &
done
timeout 300 taskset -c 4-15 $B train --variant shogi --run gpu --models $M --config .device/gpu.toml > $OUT/train-gpu.txt 2>&1
wait
for r in cpu-f32 cpu-bf16 gpu; do cp $M/shogi/$r/metrics.jsonl $OUT/metrics-$r.jsonl 2>> $log; done
# Raw forward passes next to the server: CPU (2 cores) in both precisions, then the GPU.
OMP_NUM_THREADS=2 taskset -c 0,1 $B bench nn --variants shogi,chu-shogi,tenjiku-shogi --precisions f32,bf16 --threads 2 --rounds 3 > $OUT/bench-cpu.txt 2>&1
$B bench nn --device cuda --variants shogi,chu-shogi --blocks 10 --channels 128 --batch 256 --precisions f32,f16,bf16 --rounds 3 > $OUT/bench-cuda.txt 2>&1
echo finished >> $log

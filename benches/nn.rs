//! Criterion benchmarks of the network layer: input encoding (encoding version 2 beside the
//! current one, whose attack planes cost the most in chu shogi, where lion moves come from the
//! move generator) and policy indices per position, and forward passes of a 6x64 network on a batch of 64 real positions (float32 and bfloat16)
//! for shogi and Heian dai shogi. `shogi-zero bench nn` adds the inference server's throughput.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use shogi_zero::nn::bench::Workload;
use shogi_zero::nn::encoding::ENCODING_VERSION;
use shogi_zero::nn::{Encoder, Network, NetworkConfig, PolicyMap, Precision};
use shogi_zero::rules::VariantId;
use tch::Device;

const VARIANTS: [VariantId; 2] = [VariantId::SHOGI, VariantId::HEIAN_DAI_SHOGI];
const BATCH: usize = 64;
const ENCODED: [VariantId; 3] = [VariantId::SHOGI, VariantId::CHU_SHOGI, VariantId::HEIAN_DAI_SHOGI];

fn bench_encoding(c: &mut Criterion) {
    let mut group = c.benchmark_group("encoding");
    for id in ENCODED {
        let workload = Workload::new(id, 256, 1);
        group.throughput(Throughput::Elements(workload.len() as u64));
        for version in [2, ENCODING_VERSION] {
            let encoder = Encoder::with_version(id.variant(), version).expect("a known version");
            let mut out = vec![0.0; encoder.len()];
            group.bench_function(format!("{id} encode v{version}"), |b| {
                b.iter(|| {
                    for game in &workload.games {
                        encoder.encode_game(black_box(game), &mut out);
                    }
                })
            });
        }
        let map = PolicyMap::new(id.variant());
        let moves: Vec<_> = workload.games.iter().map(|g| (g.legal_moves(), g.position().side_to_move())).collect();
        let mut indices = Vec::new();
        group.bench_function(format!("{id} policy indices"), |b| {
            b.iter(|| {
                for (legal, mover) in &moves {
                    map.indices_into(black_box(legal), *mover, &mut indices).unwrap();
                }
            })
        });
    }
    group.finish();
}

fn bench_forward(c: &mut Criterion) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    tch::set_num_threads(threads as i32);
    let mut group = c.benchmark_group("forward 6x64");
    group.sample_size(10);
    group.throughput(Throughput::Elements(BATCH as u64));
    for id in VARIANTS {
        let workload = Workload::new(id, BATCH, 2);
        for precision in [Precision::F32, Precision::Bf16] {
            tch::manual_seed(1);
            let mut net = Network::new(id, &NetworkConfig::scaled(6, 64), Device::Cpu).unwrap();
            net.set_precision(precision).unwrap();
            let input = workload.input(&net, BATCH);
            let _guard = tch::no_grad_guard();
            group.bench_function(format!("{id} {precision} batch {BATCH}"), |b| b.iter(|| net.forward(black_box(&input), false)));
        }
    }
    group.finish();
}

criterion_group!(benches, bench_encoding, bench_forward);
criterion_main!(benches);

//! Criterion benchmark of move generation: make every move and generate the moves of every
//! position reached, on the positions the project reports speed on (one ply shallower than
//! `shogi-zero bench perft`, to keep criterion's repeated runs short).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use shogi_zero::rules::perft::{make_and_generate, BENCH_POSITIONS};

fn bench_movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("make_and_generate");
    group.sample_size(10);
    for b in BENCH_POSITIONS {
        let pos = b.position();
        let depth = b.depth - 1;
        group.throughput(Throughput::Elements(make_and_generate(&pos, depth)));
        group.bench_function(format!("{} depth {depth}", b.name), |bencher| bencher.iter(|| make_and_generate(&pos, depth)));
    }
    group.finish();
}

criterion_group!(benches, bench_movegen);
criterion_main!(benches);

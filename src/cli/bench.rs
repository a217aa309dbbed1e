//! `shogi-zero bench`: speed figures for the report.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand};

use crate::rules::perft::{make_and_generate, perft, BENCH_POSITIONS};

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Debug, Subcommand)]
enum BenchWhat {
    /// Move generation speed on the benchmark positions.
    Perft {
        /// Subtract this many plies from every benchmark depth (for a quick run).
        #[arg(long, default_value_t = 0)]
        shallower: u32,
    },
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.what {
        BenchWhat::Perft { shallower } => bench_perft(shallower),
    }
}

fn bench_perft(shallower: u32) -> anyhow::Result<ExitCode> {
    println!(
        "{:<24} {:>5} {:>14} {:>9} {:>12} {:>14} {:>9} {:>14}",
        "position", "depth", "nodes made", "seconds", "nodes/s", "perft", "seconds", "perft/s"
    );
    let (mut all_nodes, mut all_seconds) = (0u64, 0f64);
    for b in BENCH_POSITIONS {
        let pos = b.position();
        let depth = b.depth.saturating_sub(shallower).max(1);
        let started = Instant::now();
        let nodes = make_and_generate(&pos, depth);
        let walk_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let leaves = perft(&pos, depth);
        let perft_seconds = started.elapsed().as_secs_f64();
        println!(
            "{:<24} {:>5} {:>14} {:>9.3} {:>12.0} {:>14} {:>9.3} {:>14.0}",
            b.name,
            depth,
            nodes,
            walk_seconds,
            nodes as f64 / walk_seconds,
            leaves,
            perft_seconds,
            leaves as f64 / perft_seconds
        );
        all_nodes += nodes;
        all_seconds += walk_seconds;
    }
    println!("nodes made: every move played and the moves of every position reached generated, leaves included");
    println!("perft: leaves counted, the last ply counted from the move list");
    println!("total: {all_nodes} nodes made in {all_seconds:.3} s = {:.0} nodes/s", all_nodes as f64 / all_seconds);
    Ok(ExitCode::SUCCESS)
}

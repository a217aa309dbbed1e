//! `shogi-zero perft`.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::ensure;
use clap::Args;

use super::PositionArgs;
use crate::rules::notation::coord;
use crate::rules::perft;

/// Deepest perft the command accepts.
const MAX_DEPTH: u32 = 10;

#[derive(Debug, Args)]
pub struct PerftArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// Number of plies.
    #[arg(long)]
    depth: u32,
    /// List every first move with its count before the total.
    #[arg(long)]
    divide: bool,
}

pub fn run(args: PerftArgs) -> anyhow::Result<ExitCode> {
    ensure!(args.depth <= MAX_DEPTH, "--depth {} is above the limit of {MAX_DEPTH}", args.depth);
    let game = args.position.game()?;
    let pos = game.position();
    let started = Instant::now();
    let mut out = std::io::stdout().lock();
    let total = if args.divide && args.depth > 0 {
        let mut total = 0;
        for (mv, n) in perft::divide(pos, args.depth) {
            writeln!(out, "{} {n}", coord::write(pos.variant(), mv))?;
            total += n;
        }
        total
    } else {
        perft::perft(pos, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("{total} nodes in {seconds:.3} s ({:.0} nodes/s)", total as f64 / seconds.max(1e-9));
    writeln!(out, "{total}")?;
    Ok(ExitCode::SUCCESS)
}

//! `shogi-zero selfcheck`: perft of every implemented variant against the reference counts
//! that ship with the project (`tests/perft/*.tsv`, counts from independent engines).

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::rules::notation::sfen;
use crate::rules::perft::{perft, perft_with_pawn_drop_mates};
use crate::rules::{Position, VariantId};

const START_POSITIONS: &str = include_str!("../../tests/perft/startpos.tsv");
const SHOGI_POSITIONS: &str = include_str!("../../tests/perft/shogi.tsv");
const FAIRY_POSITIONS: &str = include_str!("../../tests/perft/fairy-stockfish.tsv");

#[derive(Debug, Args)]
pub struct SelfcheckArgs {
    /// Skip reference rows with more nodes than this.
    #[arg(long, default_value_t = 30_000_000)]
    max_nodes: u64,
}

/// One reference count.
struct Row {
    variant: VariantId,
    sfen: Option<String>,
    depth: u32,
    nodes: u64,
    name: String,
    /// Counted as Fairy-Stockfish counts, the mating pawn drops included.
    fairy: bool,
}

fn rows() -> anyhow::Result<(Vec<Row>, usize)> {
    let mut rows = Vec::new();
    let mut unimplemented = 0;
    for line in START_POSITIONS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let Ok(variant) = f[0].parse::<VariantId>() else {
            unimplemented += 1;
            continue;
        };
        let name = format!("{} start", f[0]);
        rows.push(Row { variant, sfen: None, depth: f[1].parse()?, nodes: f[2].parse()?, name, fairy: false });
    }
    for line in SHOGI_POSITIONS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (depth, nodes) = (f[1].parse()?, f[2].parse()?);
        rows.push(Row { variant: VariantId::SHOGI, sfen: Some(f[0].to_string()), depth, nodes, name: f[3].to_string(), fairy: false });
    }
    for line in FAIRY_POSITIONS.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let (variant, depth, nodes) = (f[0].parse()?, f[2].parse()?, f[3].parse()?);
        let name = format!("{} {}", f[0], f[4]);
        rows.push(Row { variant, sfen: Some(f[1].to_string()), depth, nodes, name, fairy: true });
    }
    Ok((rows, unimplemented))
}

pub fn run(args: SelfcheckArgs) -> anyhow::Result<ExitCode> {
    let (rows, unimplemented) = rows().context("reading the built-in perft tables")?;
    let (selected, skipped): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| r.nodes <= args.max_nodes);
    let total_nodes: u64 = selected.iter().map(|r| r.nodes).sum();
    let bar = ProgressBar::new(total_nodes).with_style(
        ProgressStyle::with_template("{bar:40} {percent:>3}% {msg} [{elapsed_precise}, eta {eta}]").expect("valid progress template"),
    );
    let started = Instant::now();
    let (mut passed, mut failed) = (0, 0);
    for row in &selected {
        bar.set_message(format!("{} depth {}", row.name, row.depth));
        let pos = match &row.sfen {
            None => Position::start(row.variant),
            Some(text) => sfen::parse(row.variant.variant(), text)?,
        };
        let got = if row.fairy { perft_with_pawn_drop_mates(&pos, row.depth) } else { perft(&pos, row.depth) };
        if got == row.nodes {
            passed += 1;
        } else {
            failed += 1;
            bar.println(format!("FAIL {} depth {}: expected {}, got {got}", row.name, row.depth, row.nodes));
        }
        bar.inc(row.nodes);
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "selfcheck: {passed} passed, {failed} failed ({} rows above --max-nodes {} and {unimplemented} of variants not yet implemented skipped; {total_nodes} nodes in {seconds:.1} s)",
        skipped.len(),
        args.max_nodes
    );
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

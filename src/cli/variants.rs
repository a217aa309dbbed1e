//! `shogi-zero variants`: the built-in variants and variant files, one line each.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::rules::{Position, VariantId};

#[derive(Debug, Args)]
pub struct VariantsArgs {
    /// Variant files (TOML, docs/variants.md) to check and list after the built-ins.
    files: Vec<PathBuf>,
}

/// One line of the table: name, board, piece types, pieces at the start, drops, source.
fn row(id: VariantId) -> [String; 7] {
    let spec = id.spec();
    let pieces = Position::start(id).pieces().count();
    [
        id.name().to_string(),
        spec.title.to_string(),
        format!("{0}x{0}", spec.size),
        spec.pieces.len().to_string(),
        pieces.to_string(),
        if spec.drops { "yes" } else { "no" }.to_string(),
        if id.is_embedded() { "built-in".to_string() } else { id.source() },
    ]
}

pub fn run(args: VariantsArgs) -> anyhow::Result<ExitCode> {
    let mut ids = VariantId::embedded();
    for path in &args.files {
        let id = VariantId::load(path)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    let header = ["variant", "title", "board", "piece types", "pieces", "drops", "source"].map(str::to_string);
    let rows: Vec<[String; 7]> = std::iter::once(header).chain(ids.into_iter().map(row)).collect();
    let widths: Vec<usize> = (0..7).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = std::io::stdout().lock();
    for r in &rows {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(cell, &w)| format!("{cell:<w$}")).collect();
        writeln!(out, "{}", cells.join("  ").trim_end())?;
    }
    Ok(ExitCode::SUCCESS)
}

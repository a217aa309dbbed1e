//! `shogi-zero show`.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::PositionArgs;
use crate::rules::notation::diagram::PieceStyle;
use crate::rules::notation::{coord, diagram, hodges, sfen};

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    position: PositionArgs,
}

pub fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = game.position();
    let mut out = std::io::stdout().lock();
    write!(out, "{}", diagram::draw(pos, &[], PieceStyle::Letters))?;
    writeln!(out, "Position: {}", sfen::write(pos))?;
    if let Some(outcome) = game.outcome() {
        match outcome.winner {
            Some(winner) => writeln!(out, "Game over: {winner} wins ({:?})", outcome.reason)?,
            None => writeln!(out, "Game over: draw ({:?})", outcome.reason)?,
        }
    }
    let legal = game.legal_moves();
    writeln!(out, "Legal moves ({}):", legal.len())?;
    for &mv in &legal {
        writeln!(out, "  {:<10} {}", coord::write(pos.variant(), mv), hodges::write(pos, &legal, mv))?;
    }
    Ok(ExitCode::SUCCESS)
}

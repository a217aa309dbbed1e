//! `shogi-zero show`.

use std::process::ExitCode;

use clap::Args;

use super::PositionArgs;
use crate::rules::notation::{coord, diagram, hodges, sfen};

#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    position: PositionArgs,
}

pub fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let pos = game.position();
    print!("{}", diagram::draw(pos));
    println!("Position: {}", sfen::write(pos));
    if let Some(outcome) = game.outcome() {
        match outcome.winner {
            Some(winner) => println!("Game over: {winner} wins ({:?})", outcome.reason),
            None => println!("Game over: draw ({:?})", outcome.reason),
        }
    }
    let legal = game.legal_moves();
    println!("Legal moves ({}):", legal.len());
    for &mv in &legal {
        println!("  {:<10} {}", coord::write(pos.variant(), mv), hodges::write(pos, &legal, mv));
    }
    Ok(ExitCode::SUCCESS)
}

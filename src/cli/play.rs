//! `shogi-zero play`: a game against the engine in the terminal.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;

use super::{parse_device, PlayerSearchArgs, PositionArgs};
use crate::mcts::Limits;
use crate::nn::DeviceChoice;
use crate::protocol::model;
use crate::protocol::play::{self, PlayConfig};
use crate::rules::notation::diagram::{has_kanji, PieceStyle};
use crate::rules::Color;

#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    position: PositionArgs,
    /// The engine's checkpoint (a step-N.json file or a run folder); default: the variant's
    /// default model, models/<variant>/default under the current directory or the source tree.
    #[arg(long)]
    model: Option<PathBuf>,
    /// The side you play: black (sente), who moves first, or white (gote).
    #[arg(long, default_value = "black", value_parser = side_parser())]
    side: Color,
    /// Simulations per engine move (default 800).
    #[arg(long, conflicts_with = "time")]
    sims: Option<u32>,
    /// Seconds per engine move, instead of a number of simulations.
    #[arg(long)]
    time: Option<f64>,
    /// Draw the pieces as kanji (standard shogi).
    #[arg(long)]
    kanji: bool,
    /// Where the network runs: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    device: DeviceChoice,
    /// The engine resigns when its expected score falls below this percentage (0: never).
    #[arg(long, default_value_t = 2)]
    resign_percent: u32,
    #[command(flatten)]
    search: PlayerSearchArgs,
}

pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let game = args.position.game()?;
    let variant = game.start().variant().id;
    let limits = match (args.sims, args.time) {
        (Some(0), _) => bail!("--sims must be at least 1"),
        (Some(n), _) => Limits::simulations(n),
        (None, Some(seconds)) => match Duration::try_from_secs_f64(seconds) {
            Ok(time) if !time.is_zero() => Limits::time(time),
            _ => bail!("--time must be a positive number of seconds, not {seconds}"),
        },
        (None, None) => Limits::default(),
    };
    let path = model::resolve(args.model.as_deref(), variant)?;
    let model = model::load(&path, Some(variant), args.device).with_context(|| format!("cannot load the model {}", path.display()))?;
    let search = args.search.search_config()?;
    let mut engine = model::engine(&model, search, 0);
    if args.kanji && !has_kanji(variant) {
        eprintln!("note: kanji are drawn for standard shogi only; {variant} is drawn with letters");
    }
    let config = PlayConfig {
        user: args.side,
        limits,
        style: if args.kanji { PieceStyle::Kanji } else { PieceStyle::Letters },
        engine_name: model.id(),
        resign_percent: args.resign_percent,
    };
    play::run(game, &mut engine, &config, &mut io::stdin().lock(), &mut io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

/// `--side`: black or white, listed in the help.
fn side_parser() -> impl TypedValueParser<Value = Color> {
    PossibleValuesParser::new(["black", "white"]).map(|name| if name == "black" { Color::Black } else { Color::White })
}

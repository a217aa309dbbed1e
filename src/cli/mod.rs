//! The command line: one module per command (the two engine protocols share [`engines`]). Every command turns its raw arguments into
//! validated values first; any error ends the program with exit code 2.

mod anchors;
mod arena;
mod bench;
mod engines;
mod perft;
mod play;
mod replay;
mod selfcheck;
mod selfplay;
mod show;
mod train;
mod variants;

use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::mcts::config::{PLAY_CAPTURE_UTILITY, PLAY_PURSUIT_UTILITY};
use crate::mcts::SearchConfig;
use crate::nn::device::{DeviceChoice, DeviceError, Precision};
use crate::rules::{Game, GameRules, Position, VariantId};

/// Self-play reinforcement learning for shogi, its large historical variants and variants from files.
#[derive(Debug, Parser)]
#[command(name = "shogi-zero", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Train a variant's network by self-play (resumes an existing run).
    Train(train::TrainArgs),
    /// Count legal move sequences to a depth (the last line of output is the total).
    Perft(perft::PerftArgs),
    /// Print a position: board, side to move, hands and legal moves.
    Show(show::ShowArgs),
    /// Run a benchmark.
    Bench(bench::BenchArgs),
    /// Check the move generator of every variant against the reference perft counts.
    Selfcheck(selfcheck::SelfcheckArgs),
    /// Play games of a checkpoint against itself and write them to replay files.
    Selfplay(selfplay::SelfplayArgs),
    /// Work with replay files (self-play games): `replay check` validates them and prints totals.
    Replay(replay::ReplayArgs),
    /// Play a match between two players (Elo, SPRT), or `arena ladder` over a training run.
    Arena(arena::ArenaArgs),
    /// Score a model against fixed opponents (a match each) into <model>/anchors.json.
    Anchors(anchors::AnchorsArgs),
    /// Play a game against a model in the terminal.
    Play(play::PlayArgs),
    /// Run as a USI engine for shogi and the other variants with drops (on standard input and output).
    Usi(engines::UsiArgs),
    /// Run as an XBoard (CECP) engine for the large variants (on standard input and output).
    Xboard(engines::XboardArgs),
    /// List the built-in variants and check and list variant files: board, pieces, drops.
    Variants(variants::VariantsArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Train(args) => train::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Show(args) => show::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Selfcheck(args) => selfcheck::run(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Arena(args) => arena::run(args),
        Command::Anchors(args) => anchors::run(args),
        Command::Play(args) => play::run(args),
        Command::Usi(args) => engines::run_usi(args),
        Command::Xboard(args) => engines::run_xboard(args),
        Command::Variants(args) => variants::run(args),
    }
}

/// A flag raised by SIGTERM (a scheduler stopping a job) or SIGINT (Ctrl-C), so that long runs
/// end cleanly; a second signal ends the process at once.
fn stop_on_signals() -> anyhow::Result<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [SIGTERM, SIGINT] {
        // Exits (status 1) on a signal that comes while the flag is already up.
        signal_hook::flag::register_conditional_shutdown(signal, 1, stop.clone()).context("cannot handle signals")?;
        signal_hook::flag::register(signal, stop.clone()).context("cannot handle signals")?;
    }
    Ok(stop)
}

/// Selects a position: a variant, an optional start position and moves played from it.
#[derive(Debug, Args)]
pub struct PositionArgs {
    /// A built-in variant (shogi, minishogi, judkins-shogi, heian-dai-shogi, chu-shogi, dai-shogi,
    /// tenjiku-shogi; `shogi-zero variants` lists them) or the path of a variant file.
    #[arg(long)]
    pub variant: String,
    /// Start position in (generalised) SFEN instead of the variant's start position.
    #[arg(long)]
    pub sfen: Option<String>,
    /// Moves in coordinate notation, separated by spaces, played from the start position.
    #[arg(long, default_value = "")]
    pub moves: String,
}

impl PositionArgs {
    /// The game reached by playing the moves from the start position.
    pub fn game(&self) -> anyhow::Result<Game> {
        let id: VariantId = self.variant.parse()?;
        let start = match &self.sfen {
            None => Position::start(id),
            Some(text) => {
                crate::rules::notation::sfen::parse(id.variant(), text).with_context(|| format!("cannot read --sfen '{text}'"))?
            }
        };
        let mut game = Game::new(start, GameRules::default_for(id.variant()));
        for (i, text) in self.moves.split_whitespace().enumerate() {
            if let Err(e) = game.play_text(text) {
                bail!("move {} of --moves ('{text}'): {e}", i + 1);
            }
        }
        Ok(game)
    }
}

/// A search aid turned on or off on the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// The hand-written aids of a player's search ([`SearchConfig::for_play`]) as `play`, `usi`
/// and `xboard` take them; all three off is the network's own search.
#[derive(Debug, Args)]
pub struct PlayerSearchArgs {
    /// The weight of what a line wins by captures beside the network's value (for `usi` and
    /// `xboard` the CaptureUtility option's default, in hundredths there); 0 turns it off.
    #[arg(long, default_value_t = PLAY_CAPTURE_UTILITY)]
    pub capture_utility: f32,
    /// Rule out the root moves that lose material another move keeps.
    #[arg(long, value_enum, default_value_t = Switch::On)]
    pub material_guard: Switch,
    /// How far, 0 to 1, a side far ahead values its pieces closing in on the enemy king as a
    /// win; 0 turns it off.
    #[arg(long, default_value_t = PLAY_PURSUIT_UTILITY)]
    pub pursuit_utility: f32,
}

impl PlayerSearchArgs {
    /// A player's search with these aids, or the flag whose value is out of range.
    pub fn search_config(&self) -> anyhow::Result<SearchConfig> {
        let search = SearchConfig {
            capture_utility: self.capture_utility,
            material_guard: self.material_guard == Switch::On,
            pursuit_utility: self.pursuit_utility,
            ..SearchConfig::for_play()
        };
        search.validate().map_err(|e| {
            let flag = e.field.trim_start_matches("search.").replace('_', "-");
            anyhow!("--{flag}: {}", e.message)
        })?;
        Ok(search)
    }
}

/// The value parser of every command's `--device`: `cpu`, `cuda` or `cuda:N`.
pub fn parse_device(text: &str) -> Result<DeviceChoice, DeviceError> {
    text.parse()
}

/// The value parser of every command's `--precision`: `f32`, `bf16`, `f16` or `auto`.
pub fn parse_precision(text: &str) -> Result<Precision, DeviceError> {
    text.parse()
}

/// The exit status of `train` and `selfplay --store` stopped by a signal (SIGTERM, SIGINT)
/// before their end: 128 + SIGTERM, as a shell reports a process killed by it, so that a
/// scheduler sees an interrupted job as failed (and requeues or reschedules it), not done.
pub const INTERRUPTED: u8 = 143;

//! The evaluation arena: players, paired matches, Elo with confidence, SPRT, ladders.
//!
//! - [`player`]: the [`Player`] trait, budgets, player specs and factories;
//!   [`random`], [`alphabeta`], checkpoints ([`network_player`]), and outside engines ([`engine`]) as a client of their USI ([`usi_client`]) or XBoard ([`xboard_client`]) side.
//! - [`runner`]: the match; [`records`]: results files,
//!   game records and CSA; [`stats`]: Elo, confidence, LOS and SPRT; [`ladder`]: Elo over a
//!   training run and gating.

pub mod alphabeta;
pub mod engine;
pub mod ladder;
pub mod network_player;
pub mod player;
pub mod probe;
pub mod random;
pub mod records;
pub mod runner;
pub mod stats;
pub mod strength;
pub mod usi_client;
pub mod xboard_client;

use std::path::PathBuf;

pub use crate::openings::{Opening, Openings};
pub use ladder::{gate, run_ladder, GateConfig, GateDecision, LadderConfig, LadderRow};
pub use player::{factory, Budget, Player, PlayerError, PlayerFactory, PlayerSpec, SpecError};
pub use runner::{run_match, MatchConfig, MatchReport};
pub use stats::{EloEstimate, Sprt, Wdl};

/// Why a match or ladder could not be played to its end.
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error("player '{name}': {error}")]
    Player { name: String, error: PlayerError },
    #[error("cannot write {path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    #[error(transparent)]
    Openings(#[from] crate::openings::OpeningError),
    #[error("no checkpoints (step-*.json) in {0}")]
    NoCheckpoints(PathBuf),
    #[error("a ladder needs an anchor, predecessor matches, or both")]
    NoLadderOpponent,
    #[error("cannot resume the match in {path}: {reason}")]
    Resume { path: PathBuf, reason: String },
    #[error("a match needs at least one game")]
    NoGames,
    #[error(transparent)]
    Plot(#[from] crate::plot::PlotError),
}

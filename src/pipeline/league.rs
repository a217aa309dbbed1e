//! League games in training (`selfplay.league_fraction`): the learner plays a share of its
//! self-play games against a checkpoint of its own run, drawn anew at every checkpoint.

use std::path::{Path, PathBuf};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::nn::checkpoint;

/// Why no league opponent could be drawn.
#[derive(Debug, thiserror::Error)]
pub enum LeagueError {
    #[error("cannot list the checkpoints of {path}: {source}")]
    List { path: PathBuf, source: std::io::Error },
    #[error("no checkpoint up to step {step} in {path} for the league opponent")]
    NoCheckpoint { path: PathBuf, step: u64 },
}

/// The opponent of league games from checkpoint `step` on: a checkpoint of the run in
/// `run_dir` up to that step, each as likely (opponent sampling over the run's history), drawn
/// from the run's seed and the step. Returns its step and metadata file.
pub fn draw_opponent(run_dir: &Path, seed: u64, step: u64) -> Result<(u64, PathBuf), LeagueError> {
    let found = checkpoint::list(run_dir).map_err(|source| LeagueError::List { path: run_dir.to_path_buf(), source })?;
    let earlier: Vec<(u64, PathBuf)> = found.into_iter().filter(|(s, _)| *s <= step).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(crate::splitmix::mix(seed ^ step.rotate_left(17)));
    let index = rng.random_range(0..earlier.len().max(1));
    earlier.into_iter().nth(index).ok_or_else(|| LeagueError::NoCheckpoint { path: run_dir.to_path_buf(), step })
}

//! Training: minibatches from the replay window, the losses, the optimiser and its schedule,
//! and the trainer's saved state. The loop that runs self-play and
//! training together is [`crate::pipeline`].
//!
//! - [`bench`]: the trainer's throughput next to steps on a prepared batch.
//! - [`config`]: the `[train]` settings.
//! - [`batch`]: samples to tensors (sparse policy targets).
//! - [`optimizer`]: SGD with Nesterov momentum or AdamW, with savable state.
//! - [`trainer`]: losses and one optimisation step; saving the trainer's state.
//! - [`state`]: what is kept beside each checkpoint to resume exactly there.
//! - [`teacher`]: the optional bootstrap teacher (material search labels early minibatches).

use std::path::PathBuf;

pub mod batch;
pub mod bench;
pub mod config;
pub mod optimizer;
pub mod state;
pub mod teacher;
pub mod trainer;

pub use config::{Optimizer as OptimizerKind, TrainConfig};
pub use state::{state_path, TrainerState};
pub use trainer::{Losses, Trainer};

/// Why a training step, or saving or loading the trainer, failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Checkpoint(#[from] crate::nn::CheckpointError),
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    #[error(transparent)]
    Window(#[from] crate::replay::WindowError),
    #[error("training data: {0}")]
    Unmapped(#[from] crate::nn::UnmappedMove),
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    #[error("trainer state {path}: {message}")]
    State { path: PathBuf, message: String },
    #[error(transparent)]
    Config(#[from] crate::invalid_field::InvalidField),
}

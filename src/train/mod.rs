//! Training: minibatches from the replay window, the losses, the optimiser and its schedule,
//! and the loop that runs self-play and training together with checkpoints and resume.

pub mod config;

pub use config::{Optimizer, TrainConfig};

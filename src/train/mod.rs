//! Training: minibatches from the replay window, the losses, the optimiser and its schedule,
//! and the loop that runs self-play and training together with checkpoints and resume.
//!
//! - [`bench`]: the trainer's throughput next to steps on a prepared batch.
//! - [`config`]: the `[train]` settings.
//! - [`batch`]: samples to tensors (sparse policy targets).
//! - [`optimizer`]: SGD with Nesterov momentum or AdamW, with savable state.
//! - [`trainer`]: losses and one optimisation step; saving the trainer's state.
//! - [`gating`]: new checkpoints against the self-play network (optional).
//! - [`metrics`]: the JSON-lines metrics of a run and its PNG charts.
//! - [`run`]: the loop: self-play and training together, checkpoints, resume.

pub mod batch;
pub mod bench;
pub mod config;
pub mod gating;
pub mod metrics;
pub mod optimizer;
pub mod run;
pub mod trainer;

pub use config::{Optimizer as OptimizerKind, TrainConfig};
pub use run::{train, TrainError, TrainRun, TrainSummary};
pub use trainer::{Losses, Trainer};

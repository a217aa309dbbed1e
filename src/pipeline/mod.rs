//! The top layer: runs that tie self-play, training and the arena together (KataGo's "command"
//! layer in spirit). Everything below it is a library it drives.
//!
//! - [`run`]: the training loop: self-play and training together, checkpoints, resume.
//! - [`gating`]: new checkpoints against the self-play network (optional).
//! - [`league`]: the earlier checkpoint that league games are played against.
//! - [`metrics`]: the JSON-lines metrics of a run and its PNG charts.
//! - [`worker`]: a stateless self-play worker of a run kept in a store.

pub mod gating;
pub mod league;
pub mod metrics;
pub mod run;
pub mod worker;

pub use run::{train, PipelineError, TrainRun, TrainSummary, PROGRESS_SCALE, RUN_CONFIG};

//! Self-play: games of the network against itself, many at once per worker thread, their
//! leaves evaluated in batches, written to replay files for the trainer.
//!
//! - [`config`]: the `[selfplay]` settings.
//! - [`game`]: one game: full and fast searches, temperature, resignation, its record.
//! - [`batch`]: evaluation in batches, through the inference server or a worker's own network.
//! - [`runner`]: worker threads, the collector writing replay files, counters and summary.
//! - [`bench`](mod@bench): self-play evaluations per second against raw forward passes.

pub mod batch;
pub mod bench;
pub mod config;
pub mod game;
pub mod runner;

pub use config::SelfplayConfig;
pub use runner::{Counters, Evaluators, SelfplayError, SelfplayRun, Summary};

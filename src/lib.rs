//! shogi-zero: self-play reinforcement learning for shogi and its large historical variants.
//!
//! Layers, each depending only on the ones before it:
//! - [`rules`]: board geometry, variant data, positions, legal moves, notation, game results, perft.
//! - [`nn`]: input encoding, policy map, the network, checkpoints and the batching inference server.
//! - [`mcts`]: the tree search (PUCT and Gumbel root), over any evaluator.
//! - [`material_search`]: alpha-beta on material, for the anchor player and the bootstrap teacher.
//! - [`selfplay`]: games of the network against itself, written to replay files.
//! - [`replay`]: self-play games on disk and the trainer's window over them.
//! - [`train`]: the trainer, its optimiser, batches, saved state and metrics.
//! - [`openings`]: start positions and opening lines of self-play and matches (files, random).
//! - [`config`]: run configurations (`configs/*.toml`), one table per layer.
//! - [`arena`]: matches between players, Elo and SPRT.
//! - [`protocol`]: playing against a model: the terminal game, the USI and XBoard engines.
//! - [`pipeline`]: the training run: self-play and training together, gating, league games.
//! - [`store`]: a run in object storage (S3, a shared filesystem) for self-play on many machines.
//! - [`plot`]: PNG charts.
//! - [`files`]: atomic file writes.
//! - [`splitmix`]: the SplitMix64 mixer behind seeds and hash keys.
//! - [`cli`]: the `shogi-zero` command line, a thin layer over the library.

pub mod arena;
pub mod cli;
pub mod config;
pub mod files;
pub mod material_search;
pub mod mcts;
pub mod nn;
pub mod openings;
pub mod pipeline;
pub mod plot;
pub mod protocol;
pub mod replay;
pub mod rules;
pub mod selfplay;
pub mod splitmix;
pub mod store;
pub mod train;

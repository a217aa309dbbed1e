//! shogi-zero: self-play reinforcement learning for shogi and its large historical variants.
//!
//! Layers, each depending only on the ones before it (`scripts/module-graph.sh` checks that the
//! modules' `use crate::` edges have no cycle):
//! - Leaves that any layer may use: [`invalid_field`] (the error of a setting out of range),
//!   [`files`] (atomic file writes), [`fnv`] (the FNV-1a hash of layouts, rules and weights),
//!   [`lines`] (lines read on a thread of their own),
//!   [`splitmix`] (the SplitMix64 mixer behind seeds and hash keys), [`plot`] (PNG charts).
//! - [`rules`]: board geometry, variant data, positions, legal moves, notation, game results, perft.
//! - [`nn`]: input encoding, policy map, the network, checkpoints and the batching inference server.
//! - [`material_search`]: alpha-beta on material, for the anchor player and the bootstrap teacher.
//! - [`mcts`]: the tree search (PUCT and Gumbel root), over any evaluator.
//! - [`openings`]: start positions and opening lines of self-play and matches (files, random).
//! - [`replay`]: self-play games on disk and the trainer's window over them.
//! - [`selfplay`]: games of the network against itself, written to replay files.
//! - [`train`]: the trainer, its optimiser, batches and saved state.
//! - [`arena`]: matches between players, Elo and SPRT, and the anchors of a run.
//! - [`config`]: run configurations (`configs/*.toml`), one table per layer.
//! - [`store`]: a run in object storage (S3, a shared filesystem) for self-play on many machines.
//! - [`pipeline`]: the training run: self-play and training together, gating, league games,
//!   metrics.
//! - [`protocol`]: playing against a model: the terminal game, the USI and XBoard engines.
//! - [`cli`]: the `shogi-zero` command line, a thin layer over the library.

pub mod arena;
pub mod cli;
pub mod config;
pub mod files;
pub mod fnv;
pub mod invalid_field;
pub mod lines;
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

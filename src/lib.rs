//! shogi-zero: self-play reinforcement learning for shogi and its large historical variants.
//!
//! Layers, each depending only on the ones before it:
//! - [`rules`]: board geometry, variant data, positions, legal moves, notation, game results, perft.
//! - [`nn`]: input encoding, policy map, the network, checkpoints and the batching inference server.
//! - [`cli`]: the `shogi-zero` command line, a thin layer over the library.

pub mod cli;
pub mod nn;
pub mod rules;

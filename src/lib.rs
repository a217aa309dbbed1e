//! shogi-zero: self-play reinforcement learning for shogi and its large historical variants.
//!
//! Layers, each depending only on the ones before it:
//! - [`rules`]: board geometry, variant data, positions, legal moves, notation, game results, perft.
//! - [`cli`]: the `shogi-zero` command line, a thin layer over the library.

pub mod cli;
pub mod rules;

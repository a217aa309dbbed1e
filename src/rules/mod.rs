//! The rules core: variants as data, positions, legal moves, notation, game results and perft.
//! Depends on nothing else in the crate.

pub mod attacks;
pub mod context;
mod faces;
pub mod game;
pub mod geometry;
pub mod material;
mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod position;
pub mod royal_zone;
pub mod shapes;
mod special;
pub mod variant;
pub mod variant_file;
mod zobrist;

pub use context::GameContext;
pub use game::{EndReason, Game, GameRules, Outcome};
pub use geometry::{Color, Square};
pub use moves::{Move, MoveList};
pub use piece::{Piece, PieceType};
pub use position::Position;
pub use variant::{Variant, VariantId};

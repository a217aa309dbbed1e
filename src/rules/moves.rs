//! Moves: small `Copy` values, meaningful together with the position they are played in.

use super::geometry::Square;
use super::piece::PieceType;

/// A move, identified by its effect (rules README section 4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece moves from `from` to `to`, capturing what stands there, promoting if `promote`.
    Normal { from: Square, to: Square, promote: bool },
    /// A piece of type `piece` is taken from the hand and put on the empty square `to`.
    Drop { piece: PieceType, to: Square },
    /// A lion-type move in two legs: `from` to the adjacent square `mid` (capturing what stands
    /// there, if anything), then on to `to`, capturing what stands there. `to == from` is igui
    /// (capture and stay) or, in tenjiku, a step out and back that burns.
    TwoLeg { from: Square, mid: Square, to: Square, promote: bool },
    /// Passing the turn, leaving the board unchanged (pieces with lion power or area moves).
    Pass,
    /// The 27-point impasse declaration (shogi, §8.4); offered by the game layer only.
    Declare,
}

/// A reusable list of moves.
pub type MoveList = Vec<Move>;

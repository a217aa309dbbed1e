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
    /// The 27-point impasse declaration (shogi, §8.4); offered by the game layer only.
    Declare,
}

impl Move {
    /// The square the moving piece ends on, if any.
    pub fn to(self) -> Option<Square> {
        match self {
            Move::Normal { to, .. } | Move::Drop { to, .. } => Some(to),
            Move::Declare => None,
        }
    }
}

/// A reusable list of moves.
pub type MoveList = Vec<Move>;

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

impl Move {
    /// The square the moving piece leaves; `None` for a drop, a pass or a declaration.
    pub fn origin(self) -> Option<Square> {
        match self {
            Move::Normal { from, .. } | Move::TwoLeg { from, .. } => Some(from),
            Move::Drop { .. } | Move::Pass | Move::Declare => None,
        }
    }

    /// The squares where this move takes whatever stands there: its destination, and for a
    /// two-leg move its first leg's square too (the destination only when the move does not
    /// come back home). Empty for drops (which land on empty squares), passes and declarations;
    /// burns beside the destination are not included.
    pub fn capture_squares(self) -> impl Iterator<Item = Square> {
        let squares = match self {
            Move::Normal { to, .. } => [Some(to), None],
            Move::TwoLeg { from, mid, to, .. } => [Some(mid), (to != from).then_some(to)],
            Move::Drop { .. } | Move::Pass | Move::Declare => [None, None],
        };
        squares.into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(i: usize) -> Square {
        Square::from_index(i)
    }

    #[test]
    fn capture_squares_follow_each_kind_of_move() {
        let normal = Move::Normal { from: sq(1), to: sq(2), promote: false };
        assert_eq!(normal.capture_squares().collect::<Vec<_>>(), [sq(2)]);
        let two_leg = Move::TwoLeg { from: sq(1), mid: sq(2), to: sq(3), promote: false };
        assert_eq!(two_leg.capture_squares().collect::<Vec<_>>(), [sq(2), sq(3)]);
        let igui = Move::TwoLeg { from: sq(1), mid: sq(2), to: sq(1), promote: false };
        assert_eq!(igui.capture_squares().collect::<Vec<_>>(), [sq(2)]);
        let drop = Move::Drop { piece: PieceType::new(0), to: sq(4) };
        assert_eq!(drop.capture_squares().count(), 0);
        assert_eq!(Move::Pass.capture_squares().count(), 0);
        assert_eq!(Move::Declare.capture_squares().count(), 0);
    }

    #[test]
    fn origin_is_the_square_left() {
        assert_eq!(Move::Normal { from: sq(5), to: sq(2), promote: true }.origin(), Some(sq(5)));
        assert_eq!(Move::TwoLeg { from: sq(5), mid: sq(6), to: sq(5), promote: false }.origin(), Some(sq(5)));
        assert_eq!(Move::Drop { piece: PieceType::new(0), to: sq(4) }.origin(), None);
        assert_eq!(Move::Pass.origin(), None);
    }
}

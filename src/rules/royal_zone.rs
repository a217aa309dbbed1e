//! The squares that decide whether a royal piece can be taken. A piece reaches a square by a
//! ride along one of the eight lines through it, or from within [`NEAR_REACH`] king steps of it
//! (steps, jumps, lion and area moves), and the squares such a move passes lie on the same line
//! or within the same block. So whether the royal can be taken depends on what stands on its
//! lines and in that block alone, and a move that neither starts, passes nor lands there leaves
//! it as it was. Fire demons burn from the end of a ride that may pass neither, so in the
//! variants with them there is no zone.

use super::geometry::{Geometry, NEAR_REACH};
use super::{Color, Move, Position, Square};

/// The lines through one royal's square and the block within [`NEAR_REACH`] king steps of it.
pub struct RoyalZone {
    geometry: &'static Geometry,
    color: Color,
    square: Square,
    centre: (isize, isize),
}

impl RoyalZone {
    /// The zone of `color`'s only royal piece in `pos`; None where it has none or several, or
    /// where pieces burn (tenjiku).
    pub fn of(pos: &Position, color: Color) -> Option<RoyalZone> {
        let variant = pos.variant();
        if variant.faces.has_burners() {
            return None;
        }
        let square = pos.royal_square(color)?;
        let (x, y) = variant.geometry.xy(square);
        Some(RoyalZone { geometry: &variant.geometry, color, square, centre: (x as isize, y as isize) })
    }

    /// How far `sq` lies from the royal along each axis.
    fn distance(&self, sq: Square) -> (isize, isize) {
        let (x, y) = self.geometry.xy(sq);
        ((x as isize - self.centre.0).abs(), (y as isize - self.centre.1).abs())
    }

    /// Whether `sq` lies within [`NEAR_REACH`] king steps of the royal.
    fn near(&self, sq: Square) -> bool {
        let (dx, dy) = self.distance(sq);
        dx <= NEAR_REACH as isize && dy <= NEAR_REACH as isize
    }

    /// Whether `sq` lies on one of the royal's lines or within [`NEAR_REACH`] king steps of it.
    pub fn contains(&self, sq: Square) -> bool {
        let (dx, dy) = self.distance(sq);
        self.near(sq) || dx == 0 || dy == 0 || dx == dy
    }

    /// The squares `mv` starts on, passes and lands on (none for a pass).
    fn squares(mv: Move) -> impl Iterator<Item = Square> {
        let squares = match mv {
            Move::Normal { from, to, .. } => [Some(from), None, Some(to)],
            Move::TwoLeg { from, mid, to, .. } => [Some(from), Some(mid), Some(to)],
            Move::Drop { to, .. } => [None, None, Some(to)],
            Move::Pass | Move::Declare => [None, None, None],
        };
        squares.into_iter().flatten()
    }

    /// Whether `mv` starts, passes or lands on a square of the zone.
    pub fn touched_by(&self, mv: Move) -> bool {
        Self::squares(mv).any(|sq| self.contains(sq))
    }

    /// Whether the royal, which could not be taken before `mv`, can be taken in `after`, the
    /// position `mv` leads to. A move that leaves the zone as it was leaves the royal safe; one
    /// that changes only its lines beyond the near block can open only a ride along them, which
    /// the ray test [`Position::attacked_by`] sees; any other is tried with the opponent's moves.
    pub fn exposed_after(&self, mv: Move, after: &Position) -> bool {
        if !self.touched_by(mv) {
            return false;
        }
        if !Self::squares(mv).any(|sq| self.near(sq)) {
            return after.attacked_by(self.square, self.color.opponent());
        }
        after.only_royal_en_prise(self.color)
    }
}

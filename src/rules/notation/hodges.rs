//! Hodges notation for display (rules README section 5): `P-7f`, `Nx7c=`, `+Rx2b`, `G6i-5h`
//! (origin added when two pieces of the same kind could go there), `P*5e` (drop).

use super::super::moves::{Move, MoveList};
use super::super::position::Position;

/// Writes `mv`, a legal move of `pos`, in Hodges notation. `legal` are the legal moves of `pos`
/// (for disambiguation and the `=` of a declined promotion).
pub fn write(pos: &Position, legal: &MoveList, mv: Move) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    match mv {
        Move::Drop { piece, to } => format!("{}*{}", v.piece_spec(piece).abbr, g.square_name(to)),
        Move::Declare => "declare".to_string(),
        Move::Normal { from, to, promote } => {
            let Some(piece) = pos.piece_at(from) else {
                return super::coord::write(v, mv);
            };
            let ambiguous = legal.iter().any(|&other| match other {
                Move::Normal { from: f, to: t, .. } => t == to && f != from && pos.piece_at(f) == Some(piece),
                _ => false,
            });
            let origin = if ambiguous { g.square_name(from) } else { String::new() };
            let action = if pos.piece_at(to).is_some() { 'x' } else { '-' };
            let suffix = if promote {
                "+"
            } else if legal.contains(&Move::Normal { from, to, promote: true }) {
                "="
            } else {
                ""
            };
            format!("{}{origin}{action}{}{suffix}", pos.piece_name(piece), g.square_name(to))
        }
    }
}

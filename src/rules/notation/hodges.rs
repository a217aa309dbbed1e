//! Hodges notation for display (rules README section 5): `P-7f`, `Nx7c=`, `+Rx2b`, `G6i-5h`
//! (origin added when another piece of the same kind could make the same move), `P*5e` (drop);
//! lion moves: `Lnx!9d` (igui), `Lnx3hx2i` (double capture), `Lnx3h-2i` (hit and run); in
//! tenjiku a `!` and the square of each piece the move burns (`FD-8h!7g!9g`).

use super::super::geometry::Square;
use super::super::moves::{Move, MoveList};
use super::super::position::Position;

/// Writes `mv`, a legal move of `pos`, in Hodges notation. `legal` are the legal moves of `pos`
/// (for disambiguation and the `=` of a declined promotion).
pub fn write(pos: &Position, legal: &MoveList, mv: Move) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let (from, mid, to, promote) = match mv {
        Move::Drop { piece, to } => return format!("{}*{}", v.piece_spec(piece).abbr, g.square_name(to)),
        Move::Pass => return "pass".to_string(),
        Move::Declare => return "declare".to_string(),
        Move::Normal { from, to, promote } => (from, None, to, promote),
        Move::TwoLeg { from, mid, to, promote } => (from, Some(mid), to, promote),
    };
    let Some(piece) = pos.piece_at(from) else {
        return super::coord::write(v, mv);
    };
    // The squares a move visits after its origin, which another piece might visit too.
    let route = |m: Move| -> Option<(Square, Option<Square>, Square)> {
        match m {
            Move::Normal { from, to, .. } => Some((from, None, to)),
            Move::TwoLeg { from, mid, to, .. } => Some((from, Some(mid), to)),
            _ => None,
        }
    };
    let ambiguous = legal
        .iter()
        .filter_map(|&m| route(m))
        .any(|(f, m, t)| f != from && m == mid && (t == to || (mid.is_some() && t == f && to == from)) && pos.piece_at(f) == Some(piece));
    let mut text = pos.piece_name(piece);
    if ambiguous {
        text.push_str(&g.square_name(from));
    }
    let action = |sq: Square| if pos.piece_at(sq).is_some() { 'x' } else { '-' };
    match mid {
        None => text.push_str(&format!("{}{}", action(to), g.square_name(to))),
        Some(mid) if to == from && pos.piece_at(mid).is_some() => text.push_str(&format!("x!{}", g.square_name(mid))),
        Some(mid) => {
            let to_action = if to == from { '-' } else { action(to) };
            text.push_str(&format!("{}{}{to_action}{}", action(mid), g.square_name(mid), g.square_name(to)));
        }
    }
    if v.faces.has_burners() {
        text.push_str(&burned_squares(pos, from, mid, to, mv));
    }
    if promote {
        text.push('+');
    } else {
        let promoting = match mv {
            Move::Normal { from, to, .. } => Move::Normal { from, to, promote: true },
            Move::TwoLeg { from, mid, to, .. } => Move::TwoLeg { from, mid, to, promote: true },
            other => other,
        };
        if promoting != mv && legal.contains(&promoting) {
            text.push('=');
        }
    }
    text
}

/// `!` and the square of every piece that `mv` burns: pieces next to its final square (or the
/// mover itself) that are gone after it without being among its captures.
fn burned_squares(pos: &Position, from: Square, mid: Option<Square>, to: Square, mv: Move) -> String {
    let v = pos.variant();
    let after = pos.after_unchecked(mv);
    let around = v.geometry.king_dirs.iter().map(|&d| to.offset(d));
    let mut text = String::new();
    if after.piece_at(to).is_none() {
        text.push_str(&format!("!{}", v.geometry.square_name(to)));
    }
    for sq in around {
        if sq != from && Some(sq) != mid && pos.piece_at(sq).is_some() && after.piece_at(sq).is_none() {
            text.push_str(&format!("!{}", v.geometry.square_name(sq)));
        }
    }
    text
}

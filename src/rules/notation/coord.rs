//! Coordinate move notation, a generalisation of USI: `7g7f`, `7g7f+` (promoting), `P*5e`
//! (drop), `13m12l` (large boards), `8c9d8c` (two legs: origin, first square, final square),
//! `pass`, and `declare` (the 27-point declaration).

use super::super::moves::Move;
use super::super::position::Position;
use super::super::variant::Variant;

/// Why a move string was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("'{text}' is not a move in coordinate notation: {reason}")]
    Syntax { text: String, reason: String },
    #[error("'{text}' is not a legal move in this position")]
    Illegal { text: String },
}

/// Writes a move in coordinate notation.
pub fn write(v: &Variant, mv: Move) -> String {
    let g = &v.geometry;
    match mv {
        Move::Normal { from, to, promote } => {
            format!("{}{}{}", g.square_name(from), g.square_name(to), if promote { "+" } else { "" })
        }
        Move::Drop { piece, to } => format!("{}*{}", v.piece_spec(piece).abbr, g.square_name(to)),
        Move::TwoLeg { from, mid, to, promote } => {
            format!("{}{}{}{}", g.square_name(from), g.square_name(mid), g.square_name(to), if promote { "+" } else { "" })
        }
        Move::Pass => "pass".to_string(),
        Move::Declare => "declare".to_string(),
    }
}

/// Reads a move without checking that it is legal anywhere.
pub fn parse_unchecked(v: &Variant, text: &str) -> Result<Move, MoveError> {
    let syntax = |reason: &str| MoveError::Syntax { text: text.to_string(), reason: reason.to_string() };
    match text {
        "declare" => return Ok(Move::Declare),
        "pass" => return Ok(Move::Pass),
        _ => {}
    }
    if let Some((piece, square)) = text.split_once('*') {
        let upper = piece.to_ascii_uppercase();
        let ptype = v
            .hand_types
            .iter()
            .copied()
            .find(|&t| v.piece_spec(t).abbr.eq_ignore_ascii_case(&upper) && piece == upper)
            .ok_or_else(|| syntax(&format!("'{piece}' is not a piece that can be dropped in {}", v.name())))?;
        let to = v.geometry.parse_square(square).ok_or_else(|| syntax(&format!("'{square}' is not a square")))?;
        return Ok(Move::Drop { piece: ptype, to });
    }
    let (body, promote) = match text.strip_suffix('+') {
        Some(body) => (body, true),
        None => (text, false),
    };
    // Squares end with their rank letter.
    let mut squares = Vec::new();
    let mut start = 0;
    for (i, c) in body.char_indices() {
        if !c.is_ascii_digit() {
            let end = i + c.len_utf8();
            let name = &body[start..end];
            squares.push(v.geometry.parse_square(name).ok_or_else(|| syntax(&format!("'{name}' is not a square")))?);
            start = end;
        }
    }
    match (squares.as_slice(), start == body.len()) {
        (&[from, to], true) => Ok(Move::Normal { from, to, promote }),
        (&[from, mid, to], true) => Ok(Move::TwoLeg { from, mid, to, promote }),
        _ => Err(syntax("expected two squares such as 7g7f, three for a two-leg move, or a drop such as P*5e")),
    }
}

/// Reads a move and checks that it is legal in `pos`. A two-leg move whose first leg steps
/// onto an empty square is read as the one-leg move it equals; one that steps out and back is
/// read as that piece's own step out and back where it burns (tenjiku, whichever empty square
/// it names), else as the pass (rules README section 4).
pub fn parse(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let mv = parse_unchecked(pos.variant(), text)?;
    let legal = pos.legal_moves();
    let found = match mv {
        Move::TwoLeg { from, mid, to, promote } if pos.piece_at(mid).is_none() => {
            if to != from {
                Some(Move::Normal { from, to, promote }).filter(|m| legal.contains(m))
            } else if pos.can_step_out_via(from, mid) {
                let own = legal.iter().copied().find(
                    |m| matches!(*m, Move::TwoLeg { from: f, mid: m2, to: t, .. } if f == from && t == from && pos.piece_at(m2).is_none()),
                );
                own.or(Some(Move::Pass).filter(|m| legal.contains(m)))
            } else {
                None
            }
        }
        _ => Some(mv).filter(|m| legal.contains(m)),
    };
    found.ok_or_else(|| MoveError::Illegal { text: text.to_string() })
}

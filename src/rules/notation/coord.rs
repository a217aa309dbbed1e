//! Coordinate move notation, a generalisation of USI: `7g7f`, `7g7f+` (promoting), `P*5e`
//! (drop), `13m12l` (large boards), `declare` (the 27-point declaration).

use super::super::moves::Move;
use super::super::piece::PieceType;
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
        Move::Declare => "declare".to_string(),
    }
}

/// Reads a move without checking that it is legal anywhere.
pub fn parse_unchecked(v: &Variant, text: &str) -> Result<Move, MoveError> {
    let syntax = |reason: &str| MoveError::Syntax { text: text.to_string(), reason: reason.to_string() };
    if text == "declare" {
        return Ok(Move::Declare);
    }
    if let Some((piece, square)) = text.split_once('*') {
        let upper = piece.to_ascii_uppercase();
        let index = v
            .hand_types
            .iter()
            .find(|t| v.piece_spec(**t).abbr == upper && piece == upper)
            .ok_or_else(|| syntax(&format!("'{piece}' is not a piece that can be dropped in {}", v.name())))?;
        let to = v.geometry.parse_square(square).ok_or_else(|| syntax(&format!("'{square}' is not a square")))?;
        return Ok(Move::Drop { piece: PieceType(index.0), to });
    }
    let (body, promote) = match text.strip_suffix('+') {
        Some(body) => (body, true),
        None => (text, false),
    };
    // Split after the rank letter of the first square.
    let split = body
        .char_indices()
        .find(|(_, c)| c.is_ascii_lowercase())
        .map(|(i, _)| i + 1)
        .ok_or_else(|| syntax("expected two squares such as 7g7f, or a drop such as P*5e"))?;
    let (from_text, to_text) = body.split_at(split);
    let from = v.geometry.parse_square(from_text).ok_or_else(|| syntax(&format!("'{from_text}' is not a square")))?;
    let to = v.geometry.parse_square(to_text).ok_or_else(|| syntax(&format!("'{to_text}' is not a square")))?;
    Ok(Move::Normal { from, to, promote })
}

/// Reads a move and checks that it is legal in `pos`.
pub fn parse(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let mv = parse_unchecked(pos.variant(), text)?;
    if mv != Move::Declare && pos.is_legal(mv) {
        Ok(mv)
    } else {
        Err(MoveError::Illegal { text: text.to_string() })
    }
}

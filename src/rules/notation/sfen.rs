//! The position format: SFEN for shogi, generalised to every board size.
//!
//! `<board> <side> <hands> [<move number>]`, fields separated by spaces:
//! - board: ranks from rank a (White's side) to the last, separated by `/`; each rank lists
//!   files from N (Black's left) to 1. A run of empty squares is its length in decimal (it may
//!   have two digits on the large boards, e.g. `13`). A piece is its abbreviation, upper case
//!   for Black (as the rules file writes it: `P`, `FD`, `Ln`) and lower case for White,
//!   preceded by `+` when promoted; abbreviations longer than one letter are put in
//!   parentheses: `(FD)`, `+(fd)`, `(Ln)`. Reading accepts any case for Black (`(LN)`).
//! - side: `b` (Black) or `w` (White).
//! - hands: `-`, or for each piece held an optional count (2 or more) and its letter, Black's
//!   (upper case) before White's (lower case), e.g. `RG2Pb3p`. Only standard shogi has hands.
//!   In chu shogi this field holds the counter-strike square instead (chu-shogi.md §6.2): the
//!   square where the last move captured a lion with a non-lion, or `-`.
//! - move number: a positive integer, 1 if omitted.

use super::super::geometry::{Color, Square};
use super::super::piece::{Piece, PieceType};
use super::super::position::{InvalidPosition, Position, MAX_HAND_TYPES};
use super::super::variant::Variant;

/// Why a position string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SfenError {
    #[error("expected '<board> <side> <hands> [<move number>]', found {found} field(s)")]
    FieldCount { found: usize },
    #[error("the board has {found} rank(s); {variant} needs {expected}")]
    RankCount { variant: &'static str, expected: usize, found: usize },
    #[error("rank {rank} covers {found} square(s); {variant} needs {expected}")]
    RankWidth { variant: &'static str, rank: char, expected: usize, found: usize },
    #[error("unknown piece '{token}' in rank {rank} (pieces of {variant}: {known})")]
    UnknownPiece { variant: &'static str, rank: char, token: String, known: String },
    #[error("'+{token}' in rank {rank}: that piece does not promote")]
    CannotPromote { rank: char, token: String },
    #[error("bad empty-square count '{token}' in rank {rank}")]
    BadEmptyCount { rank: char, token: String },
    #[error("side to move must be 'b' or 'w', found '{found}'")]
    BadSide { found: String },
    #[error("bad hand '{hand}': {reason}")]
    BadHand { hand: String, reason: String },
    #[error("the counter-strike field must be '-' or a square, found '{found}'")]
    BadCounterStrike { found: String },
    #[error("move number must be a positive integer, found '{found}'")]
    BadMoveNumber { found: String },
    #[error("invalid position: {0}")]
    Invalid(#[from] InvalidPosition),
}

/// Reads a position of `variant`.
pub fn parse(variant: &'static Variant, text: &str) -> Result<Position, SfenError> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(3..=4).contains(&fields.len()) {
        return Err(SfenError::FieldCount { found: fields.len() });
    }
    let pieces = parse_board(variant, fields[0])?;
    let side = match fields[1] {
        "b" => Color::Black,
        "w" => Color::White,
        other => return Err(SfenError::BadSide { found: other.to_string() }),
    };
    let (hands, counter_strike) = if variant.spec.lion_trading {
        let square = match fields[2] {
            "-" => None,
            text => Some(variant.geometry.parse_square(text).ok_or_else(|| SfenError::BadCounterStrike { found: text.to_string() })?),
        };
        ([[0; MAX_HAND_TYPES]; 2], square)
    } else {
        (parse_hands(variant, fields[2])?, None)
    };
    let move_number = match fields.get(3) {
        None => 1,
        Some(n) => {
            n.parse::<u32>().ok().filter(|&n| n > 0 && n < u32::MAX / 2).ok_or_else(|| SfenError::BadMoveNumber { found: n.to_string() })?
        }
    };
    Ok(Position::from_parts(variant, &pieces, side, hands, counter_strike, move_number)?)
}

fn parse_board(variant: &'static Variant, board: &str) -> Result<Vec<(Square, Piece)>, SfenError> {
    let g = &variant.geometry;
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != g.size {
        return Err(SfenError::RankCount { variant: variant.name(), expected: g.size, found: ranks.len() });
    }
    let mut pieces = Vec::new();
    for (y, rank_text) in ranks.iter().enumerate() {
        let rank = (b'a' + y as u8) as char;
        let mut x = 0usize;
        let mut promoted = false;
        let mut chars = rank_text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let token: &str = if c.is_ascii_digit() {
                let mut end = i + 1;
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                let digits = &rank_text[i..end];
                match digits.parse::<usize>() {
                    Ok(n) if n > 0 && !promoted && !digits.starts_with('0') => x = x.saturating_add(n),
                    _ => return Err(SfenError::BadEmptyCount { rank, token: digits.to_string() }),
                }
                continue;
            } else if c == '+' {
                if promoted {
                    return Err(unknown_piece(variant, rank, "++"));
                }
                promoted = true;
                continue;
            } else if c == '(' {
                let close = rank_text[i..].find(')').map(|j| i + j);
                let Some(close) = close else {
                    return Err(unknown_piece(variant, rank, &rank_text[i..]));
                };
                while chars.peek().is_some_and(|&(j, _)| j <= close) {
                    chars.next();
                }
                &rank_text[i + 1..close]
            } else {
                &rank_text[i..i + c.len_utf8()]
            };
            let multi_letter_bare = token.len() > 1 && c != '(';
            let piece = match (multi_letter_bare, lookup_piece(variant, token)) {
                (false, Some((color, ptype))) => Piece { color, ptype, promoted },
                _ => {
                    let shown = if c == '(' { format!("({token})") } else { token.to_string() };
                    return Err(unknown_piece(variant, rank, &shown));
                }
            };
            if promoted && variant.piece_spec(piece.ptype).promotion.is_none() {
                return Err(SfenError::CannotPromote { rank, token: token.to_string() });
            }
            if x < g.size {
                pieces.push((g.square(x, y), piece));
            }
            x += 1;
            promoted = false;
        }
        if promoted {
            return Err(unknown_piece(variant, rank, "+"));
        }
        if x != g.size {
            return Err(SfenError::RankWidth { variant: variant.name(), rank, expected: g.size, found: x });
        }
    }
    Ok(pieces)
}

/// The colour and type written as `token` (upper case Black, lower case White).
fn lookup_piece(variant: &Variant, token: &str) -> Option<(Color, PieceType)> {
    let color = if token.chars().all(|c| c.is_ascii_lowercase()) {
        Color::White
    } else if token.chars().next().is_some_and(|c| c.is_ascii_uppercase()) && token.chars().all(|c| c.is_ascii_alphabetic()) {
        Color::Black
    } else {
        return None;
    };
    let upper = token.to_ascii_uppercase();
    let index = variant.spec.pieces.iter().position(|p| p.abbr.eq_ignore_ascii_case(&upper))?;
    Some((color, PieceType::new(index)))
}

fn unknown_piece(variant: &Variant, rank: char, token: &str) -> SfenError {
    let known = variant.spec.pieces.iter().map(|p| p.abbr).collect::<Vec<_>>().join(" ");
    SfenError::UnknownPiece { variant: variant.name(), rank, token: token.to_string(), known }
}

fn parse_hands(variant: &Variant, text: &str) -> Result<[[u32; MAX_HAND_TYPES]; 2], SfenError> {
    let mut hands = [[0u32; MAX_HAND_TYPES]; 2];
    if text == "-" {
        return Ok(hands);
    }
    let bad = |reason: String| SfenError::BadHand { hand: text.to_string(), reason };
    if !variant.spec.drops {
        return Err(bad(format!("{} has no pieces in hand; write '-'", variant.name())));
    }
    let mut count: Option<u32> = None;
    for c in text.chars() {
        if let Some(d) = c.to_digit(10) {
            let n = count.unwrap_or(0) * 10 + d;
            if n == 0 || n > 99 {
                return Err(bad("counts run from 1 to 99".to_string()));
            }
            count = Some(n);
            continue;
        }
        let Some((color, ptype)) = lookup_piece(variant, &c.to_string()) else {
            return Err(bad(format!("'{c}' is not a piece")));
        };
        if !variant.hand_types.contains(&ptype) {
            return Err(bad(format!("'{c}' cannot be held in hand")));
        }
        let slot = &mut hands[color.index()][ptype.index()];
        if *slot != 0 {
            return Err(bad(format!("'{c}' is listed twice")));
        }
        *slot = count.take().unwrap_or(1);
    }
    if count.is_some() {
        return Err(bad("a count must be followed by a piece letter".to_string()));
    }
    Ok(hands)
}

/// Writes `pos` in the position format.
pub fn write(pos: &Position) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let mut out = String::new();
    for y in 0..g.size {
        if y > 0 {
            out.push('/');
        }
        let mut empty = 0;
        for x in 0..g.size {
            match pos.piece_at(g.square(x, y)) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push_str(&piece_token(v, p));
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
    }
    out.push_str(match pos.side_to_move() {
        Color::Black => " b ",
        Color::White => " w ",
    });
    let mut hands = String::new();
    for color in Color::ALL {
        for &t in &v.hand_types {
            let n = pos.hand(color, t);
            if n > 1 {
                hands.push_str(&n.to_string());
            }
            if n > 0 {
                hands.push_str(&cased(v.piece_spec(t).abbr, color));
            }
        }
    }
    if let Some(sq) = pos.counter_strike() {
        hands = g.square_name(sq);
    }
    out.push_str(if hands.is_empty() { "-" } else { &hands });
    out.push(' ');
    out.push_str(&pos.move_number().to_string());
    out
}

/// A piece as written on the board field: `+(fd)`, `P`.
pub fn piece_token(v: &Variant, p: Piece) -> String {
    let abbr = cased(v.piece_spec(p.ptype).abbr, p.color);
    let body = if abbr.len() > 1 { format!("({abbr})") } else { abbr };
    if p.promoted {
        format!("+{body}")
    } else {
        body
    }
}

/// An abbreviation in the case of `color`: as the rules file writes it for Black (`P`, `Ln`),
/// lower case for White (`p`, `ln`).
pub fn cased(abbr: &str, color: Color) -> String {
    match color {
        Color::Black => abbr.to_string(),
        Color::White => abbr.to_ascii_lowercase(),
    }
}

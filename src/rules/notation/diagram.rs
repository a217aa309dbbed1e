//! A board diagram for people, in the style of the rules files: files numbered across the top
//! from N down to 1, ranks lettered down the side, Black's pieces as the rules files write them
//! and White's in lower case, `+` before a promoted piece, `.` for an empty square, the hands
//! around the board and chosen squares (the last move's) in brackets.
//!
//! In standard shogi the pieces can be drawn as kanji instead, two columns wide, White's marked
//! with a `v` before them (as in the common BOD diagrams), promoted pieces by their own kanji.

use super::super::geometry::{rank_letter, Color, Square};
use super::super::position::Position;
use super::super::{Move, Piece, VariantId};
use super::sfen::cased;

/// How pieces are drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PieceStyle {
    /// Abbreviations: `P`, `+R`, `FD`, `ln`.
    Letters,
    /// Kanji where the variant has them here (standard shogi), else abbreviations.
    Kanji,
}

/// Whether pieces of `variant` can be drawn as kanji.
pub fn has_kanji(variant: VariantId) -> bool {
    variant == VariantId::SHOGI
}

/// The kanji of a standard shogi piece, by abbreviation and promotion.
fn kanji(abbr: &str, promoted: bool) -> &'static str {
    match (abbr, promoted) {
        ("K", _) => "玉",
        ("R", false) => "飛",
        ("R", true) => "龍",
        ("B", false) => "角",
        ("B", true) => "馬",
        ("G", _) => "金",
        ("S", false) => "銀",
        ("S", true) => "全",
        ("N", false) => "桂",
        ("N", true) => "圭",
        ("L", false) => "香",
        ("L", true) => "杏",
        ("P", false) => "歩",
        ("P", true) => "と",
        _ => "？",
    }
}

/// Draws `pos`: White's hand, the board, Black's hand and the side to move, with the `marked`
/// squares in brackets.
pub fn draw(pos: &Position, marked: &[Square], style: PieceStyle) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let use_kanji = style == PieceStyle::Kanji && has_kanji(v.id);
    // Letters: a column per character, the widest token decides. Kanji: side mark plus two columns.
    let width =
        if use_kanji { 3 } else { v.spec.pieces.iter().map(|p| p.abbr.len() + usize::from(p.promotion.is_some())).max().unwrap_or(1) };
    let mut out = String::new();
    out.push_str(&hand_line(pos, Color::White, use_kanji));
    out.push_str("   ");
    for x in 0..g.size {
        out.push_str(&format!(" {:>width$} ", g.size - x));
    }
    out.push('\n');
    for y in 0..g.size {
        out.push_str(&format!(" {} ", rank_letter(y)));
        for x in 0..g.size {
            let sq = g.square(x, y);
            let (open, close) = if marked.contains(&sq) { ('[', ']') } else { (' ', ' ') };
            let cell = match pos.piece_at(sq) {
                None if use_kanji => " ・".to_string(),
                None => format!("{:>width$}", "."),
                Some(p) if use_kanji => {
                    format!("{}{}", if p.color == Color::White { 'v' } else { ' ' }, piece_kanji(pos, p))
                }
                Some(p) => format!("{:>width$}", letters(pos, p)),
            };
            out.push_str(&format!("{open}{cell}{close}"));
        }
        out.push('\n');
    }
    out.push_str(&hand_line(pos, Color::Black, use_kanji));
    out.push_str(&format!("{} to move\n", pos.side_to_move()));
    out
}

/// The squares a move touches, to mark it: origin, first-leg square and destination.
pub fn move_squares(mv: Move) -> Vec<Square> {
    match mv {
        Move::Normal { from, to, .. } => vec![from, to],
        Move::TwoLeg { from, mid, to, .. } => vec![from, mid, to],
        Move::Drop { to, .. } => vec![to],
        Move::Pass | Move::Declare => Vec::new(),
    }
}

/// A piece in letters: `+R` for Black, `+r` for White.
fn letters(pos: &Position, p: Piece) -> String {
    let abbr = cased(pos.variant().piece_spec(p.ptype).abbr, p.color);
    if p.promoted {
        format!("+{abbr}")
    } else {
        abbr
    }
}

fn piece_kanji(pos: &Position, p: Piece) -> &'static str {
    kanji(pos.variant().piece_spec(p.ptype).abbr, p.promoted)
}

/// "Black in hand: R P x3" (variants with drops only).
fn hand_line(pos: &Position, color: Color, use_kanji: bool) -> String {
    let v = pos.variant();
    if !v.spec.drops {
        return String::new();
    }
    let held: Vec<String> = v
        .hand_types
        .iter()
        .filter(|&&t| pos.hand(color, t) > 0)
        .map(|&t| {
            let abbr = v.piece_spec(t).abbr;
            let name = if use_kanji { kanji(abbr, false).to_string() } else { abbr.to_string() };
            match pos.hand(color, t) {
                1 => name,
                n => format!("{name}x{n}"),
            }
        })
        .collect();
    format!("{color} in hand: {}\n", if held.is_empty() { "-".to_string() } else { held.join(" ") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::{coord, sfen};

    #[test]
    fn letters_mark_the_last_move_and_the_sides() {
        let start = Position::start(VariantId::SHOGI);
        let mv = coord::parse(&start, "7g7f").unwrap();
        let after = start.after_unchecked(mv);
        let text = draw(&after, &move_squares(mv), PieceStyle::Letters);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "White in hand: -");
        assert_eq!(lines[1], "     9   8   7   6   5   4   3   2   1 ");
        assert_eq!(lines[2], " a   l   n   s   g   k   g   s   n   l ");
        assert_eq!(lines[7], " f   .   . [ P]  .   .   .   .   .   . ");
        assert_eq!(lines[8], " g   P   P [ .]  P   P   P   P   P   P ");
        assert_eq!(lines[11], "Black in hand: -");
        assert_eq!(lines[12], "White to move");
    }

    #[test]
    fn kanji_for_shogi_with_white_marked() {
        let pos = sfen::parse(VariantId::SHOGI.variant(), "4k4/9/4+P4/9/9/9/9/9/4K4 b G2Pr 1").unwrap();
        let text = draw(&pos, &[], PieceStyle::Kanji);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "White in hand: 飛");
        let empty = "  ・ ".repeat(4);
        assert_eq!(lines[2], format!(" a {empty} v玉 {empty}"));
        assert_eq!(lines[4], format!(" c {empty}  と {empty}"));
        assert_eq!(lines[11], "Black in hand: 金 歩x2");
    }

    #[test]
    fn large_boards_have_no_hands_and_fall_back_to_letters() {
        let start = Position::start(VariantId::CHU_SHOGI);
        let text = draw(&start, &[], PieceStyle::Kanji);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("     12   11   10    9"), "{}", lines[0]);
        assert!(lines[10].starts_with(" j   SM   VM    R   DH   DK   Ln    Q"), "{}", lines[10]);
        assert_eq!(lines.last(), Some(&"Black to move"));
    }
}

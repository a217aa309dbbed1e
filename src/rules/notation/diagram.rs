//! A board diagram for people, in the style of the rules files: files numbered across the top
//! from N down to 1, ranks lettered down the side, Black's pieces in upper case and White's in
//! lower case, promoted pieces with `+`, empty squares as `.`.

use super::super::geometry::{rank_letter, Color};
use super::super::position::Position;
use super::sfen::cased;

/// Draws the board, the side to move and both hands.
pub fn draw(pos: &Position) -> String {
    let v = pos.variant();
    let g = &v.geometry;
    let width = 1 + v.spec.pieces.iter().map(|p| p.abbr.len() + usize::from(p.promotion.is_some())).max().unwrap_or(1);
    let mut out = String::from("    ");
    for x in 0..g.size {
        out.push_str(&format!("{:>width$}", g.size - x));
    }
    out.push('\n');
    for y in 0..g.size {
        out.push_str(&format!("  {} ", rank_letter(y)));
        for x in 0..g.size {
            let text = match pos.piece_at(g.square(x, y)) {
                None => ".".to_string(),
                Some(p) => {
                    let abbr = cased(v.piece_spec(p.ptype).abbr, p.color);
                    if p.promoted {
                        format!("+{abbr}")
                    } else {
                        abbr
                    }
                }
            };
            out.push_str(&format!("{text:>width$}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("Side to move: {}\n", pos.side_to_move()));
    if v.spec.drops {
        for color in Color::ALL {
            let held: Vec<String> = v
                .hand_types
                .iter()
                .filter(|&&t| pos.hand(color, t) > 0)
                .map(|&t| match pos.hand(color, t) {
                    1 => v.piece_spec(t).abbr.to_string(),
                    n => format!("{}x{n}", v.piece_spec(t).abbr),
                })
                .collect();
            let held = if held.is_empty() { "-".to_string() } else { held.join(" ") };
            out.push_str(&format!("{color} in hand: {held}\n"));
        }
    }
    out
}

//! CSA format version 2.2 for standard shogi games, which shogi viewers and databases read:
//! player names, the start position (`PI` for the standard start, else `P1`..`P9`, hands and
//! side to move), the moves (`+7776FU`, drops `+0055FU`), a comment line and the end marker
//! ([`CsaEnd`]).

use super::super::geometry::Color;
use super::super::moves::Move;
use super::super::position::Position;
use super::super::variant::VariantId;

/// How a CSA game record ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CsaEnd {
    /// `%TSUMI`: the side to move is mated (or has no move).
    Tsumi,
    /// `%TORYO`: the side to move resigned.
    Toryo,
    /// `%SENNICHITE`: fourfold repetition.
    Sennichite,
    /// `%KACHI`: a won declaration.
    Kachi,
    /// `%HIKIWAKE`: a draw.
    Hikiwake,
    /// `%TIME_UP`: the side to move ran out of time.
    TimeUp,
    /// `%ILLEGAL_MOVE`: the side to move made an illegal move.
    IllegalMove,
    /// `%+ILLEGAL_ACTION` or `%-ILLEGAL_ACTION`: `loser` lost by another rule or failure.
    IllegalAction { loser: Color },
}

impl CsaEnd {
    /// The end marker line, without the newline.
    pub fn marker(self) -> String {
        match self {
            CsaEnd::Tsumi => "%TSUMI".to_string(),
            CsaEnd::Toryo => "%TORYO".to_string(),
            CsaEnd::Sennichite => "%SENNICHITE".to_string(),
            CsaEnd::Kachi => "%KACHI".to_string(),
            CsaEnd::Hikiwake => "%HIKIWAKE".to_string(),
            CsaEnd::TimeUp => "%TIME_UP".to_string(),
            CsaEnd::IllegalMove => "%ILLEGAL_MOVE".to_string(),
            CsaEnd::IllegalAction { loser } => format!("%{}ILLEGAL_ACTION", sign(loser)),
        }
    }
}

/// The sign of a colour in CSA (`+` Black, `-` White).
pub fn sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

/// CSA piece names of the shogi piece letters, unpromoted and promoted.
fn piece(abbr: &str, promoted: bool) -> Option<&'static str> {
    Some(match (abbr, promoted) {
        ("P", false) => "FU",
        ("L", false) => "KY",
        ("N", false) => "KE",
        ("S", false) => "GI",
        ("G", false) => "KI",
        ("B", false) => "KA",
        ("R", false) => "HI",
        ("K", false) => "OU",
        ("P", true) => "TO",
        ("L", true) => "NY",
        ("N", true) => "NK",
        ("S", true) => "NG",
        ("B", true) => "UM",
        ("R", true) => "RY",
        _ => return None,
    })
}

/// A shogi game from `start` through `moves` (a declaration last if any) between `names`
/// (Black, White), then `comment` as a comment line and the end that `end` names for the side
/// to move after the moves. `None` for other variants, for moves CSA cannot write and for an
/// illegal move.
pub fn write(start: &Position, moves: &[Move], names: [&str; 2], comment: &str, end: impl FnOnce(Color) -> CsaEnd) -> Option<String> {
    let v = start.variant();
    if v.id != VariantId::SHOGI {
        return None;
    }
    let g = &v.geometry;
    let mut out = String::from("V2.2\n");
    out.push_str(&format!("N+{}\nN-{}\n$EVENT:shogi-zero arena\n", names[0], names[1]));
    if *start == Position::start(VariantId::SHOGI) {
        out.push_str("PI\n+\n");
    } else {
        for y in 0..g.size {
            out.push_str(&format!("P{}", y + 1));
            for x in 0..g.size {
                match start.piece_at(g.square(x, y)) {
                    Some(p) => out.push_str(&format!("{}{}", sign(p.color), piece(v.piece_spec(p.ptype).abbr, p.promoted)?)),
                    None => out.push_str(" * "),
                }
            }
            out.push('\n');
        }
        for color in Color::ALL {
            let mut hand = String::new();
            for &t in &v.hand_types {
                for _ in 0..start.hand(color, t) {
                    hand.push_str(&format!("00{}", piece(v.piece_spec(t).abbr, false)?));
                }
            }
            if !hand.is_empty() {
                out.push_str(&format!("P{}{hand}\n", sign(color)));
            }
        }
        out.push_str(&format!("{}\n", sign(start.side_to_move())));
    }
    let square = |sq| format!("{}{}", g.file(sq), g.rank(sq) + 1);
    let mut pos = start.clone();
    for &mv in moves {
        let mover = sign(pos.side_to_move());
        let text = match mv {
            Move::Normal { from, to, promote } => {
                let p = pos.piece_at(from)?;
                format!("{mover}{}{}{}", square(from), square(to), piece(v.piece_spec(p.ptype).abbr, p.promoted || promote)?)
            }
            Move::Drop { piece: t, to } => format!("{mover}00{}{}", square(to), piece(v.piece_spec(t).abbr, false)?),
            Move::Declare => break,
            Move::TwoLeg { .. } | Move::Pass => return None,
        };
        out.push_str(&text);
        out.push('\n');
        pos.play(mv).ok()?;
    }
    out.push_str(&format!("'{comment}\n{}\n", end(pos.side_to_move()).marker()));
    Some(out)
}

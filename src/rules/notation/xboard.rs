//! Move text of the XBoard engine protocol (CECP, XBoard 4.8 and later, as XBoard and HaChu
//! write it for chu, dai and tenjiku shogi).
//!
//! Squares are named from the first player's lower-left corner: the first player is our Black
//! (XBoard calls it "white"), files are letters `a`, `b`, … from Black's left (our file N) and
//! ranks are numbers `1`, `2`, … from Black's side (our last rank), two digits from 10 on. In chu
//! shogi our `7l` (Black's king) is `f1` and our `1a` is `l12`. (XBoard counts ranks from 0 on
//! boards of exactly 10 ranks; no variant here has 10.)
//!
//! - a move: origin and destination, `f3f4`; `+` appended when it promotes (`=` or nothing when
//!   it does not);
//! - a two-leg move: its legs separated by a comma, `f3g4,g4h5` (igui `f3g4,g4f3`); the
//!   promotion mark goes at the end. Engines send the legs on separate `move` lines, every leg
//!   but the last ending in a comma (see [`legs`]);
//! - the pass: `@@@@`, the protocol's null move; a step out and back (`f3g4,g4f3` through an
//!   empty square) is read as the pass too, or as tenjiku's burning step (see [`coord::parse`]);
//! - a drop (standard shogi only): `P@e5`.
//!
//! The 27-point declaration has no XBoard form; [`write()`] writes it as `declare`, which
//! [`parse`] refuses.
//!
//! Variant names: XBoard's and HaChu's where they have one ([`standard_variant_name`]), else
//! ours ([`variant_name`]).

use super::super::geometry::{Geometry, Square};
use super::super::moves::Move;
use super::super::position::Position;
use super::super::variant::{Variant, VariantId};
use super::coord::{self, MoveError};

/// The XBoard name of a variant as XBoard programs spell it (its file's `xboard_variant`), if
/// it has one.
pub fn standard_variant_name(variant: VariantId) -> Option<&'static str> {
    variant.spec().xboard_variant
}

/// The XBoard name of a variant: the standard one, else its name without `-shogi` and dashes
/// (`heiandai`).
pub fn variant_name(variant: VariantId) -> String {
    match standard_variant_name(variant) {
        Some(name) => name.to_string(),
        None => variant.name().trim_end_matches("-shogi").replace('-', ""),
    }
}

/// The variant without drops (the ones the XBoard engine plays) that an XBoard name or our own
/// name stands for.
pub fn large_variant(name: &str) -> Option<VariantId> {
    VariantId::embedded().into_iter().filter(|&v| !v.spec().drops).find(|&v| variant_name(v) == name || v.name() == name)
}

/// The XBoard name of a square (`f1`, `l12`).
pub fn square_name(g: &Geometry, sq: Square) -> String {
    let (x, y) = g.xy(sq);
    format!("{}{}", (b'a' + x as u8) as char, g.size - y)
}

/// Reads an XBoard square name; `None` when it is not one of the board's squares.
pub fn parse_square(g: &Geometry, text: &str) -> Option<Square> {
    let mut chars = text.chars();
    let letter = chars.next().filter(char::is_ascii_lowercase)?;
    let digits = chars.as_str();
    let valid_digits = (1..=2).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0');
    if !valid_digits {
        return None;
    }
    let x = (letter as u8 - b'a') as usize;
    let rank: usize = digits.parse().ok()?;
    (x < g.size && (1..=g.size).contains(&rank)).then(|| g.square(x, g.size - rank))
}

/// Writes `mv` in XBoard notation, the legs of a two-leg move joined by a comma.
pub fn write(v: &Variant, mv: Move) -> String {
    let g = &v.geometry;
    let promotion = |promote: bool| if promote { "+" } else { "" };
    match mv {
        Move::Normal { from, to, promote } => {
            format!("{}{}{}", square_name(g, from), square_name(g, to), promotion(promote))
        }
        Move::TwoLeg { from, mid, to, promote } => {
            format!("{}{},{}{}{}", square_name(g, from), square_name(g, mid), square_name(g, mid), square_name(g, to), promotion(promote))
        }
        Move::Drop { piece, to } => format!("{}@{}", v.piece_spec(piece).abbr, square_name(g, to)),
        Move::Pass => "@@@@".to_string(),
        Move::Declare => "declare".to_string(),
    }
}

/// The legs of a move text as an engine sends them, one `move` line each: every leg but the
/// last keeps its comma (`f3g4,g4h5` gives `f3g4,` and `g4h5`).
pub fn legs(text: &str) -> Vec<&str> {
    text.split_inclusive(',').collect()
}

/// Reads a move in XBoard notation and checks that it is legal in `pos`. Errors quote `text`.
pub fn parse(pos: &Position, text: &str) -> Result<Move, MoveError> {
    let coordinate = to_coordinate(pos.variant(), text)?;
    coord::parse(pos, &coordinate).map_err(|e| match e {
        MoveError::Illegal { .. } => MoveError::Illegal { text: text.to_string() },
        MoveError::Syntax { reason, .. } => MoveError::Syntax { text: text.to_string(), reason },
    })
}

/// The coordinate-notation text of an XBoard move text.
fn to_coordinate(v: &Variant, text: &str) -> Result<String, MoveError> {
    let syntax = |reason: &str| MoveError::Syntax { text: text.to_string(), reason: reason.to_string() };
    let g = &v.geometry;
    let square = |name: &str| parse_square(g, name).map(|sq| g.square_name(sq)).ok_or_else(|| syntax(&format!("'{name}' is not a square")));
    if text == "@@@@" {
        return Ok("pass".to_string());
    }
    if let Some((piece, to)) = text.split_once('@') {
        return Ok(format!("{piece}*{}", square(to)?));
    }
    let (body, promote) = match text.strip_suffix('+') {
        Some(body) => (body, "+"),
        None => (text.strip_suffix('=').unwrap_or(text), ""),
    };
    let mut squares = Vec::new();
    for leg in body.split(',') {
        // A leg is two squares, each a letter and one or two digits.
        let second = leg.char_indices().skip(1).find(|(_, c)| c.is_ascii_lowercase()).map(|(i, _)| i);
        let Some(split) = second else {
            return Err(syntax("a leg is two squares such as f3f4"));
        };
        squares.push((square(&leg[..split])?, square(&leg[split..])?));
    }
    match squares.as_slice() {
        [(from, to)] => Ok(format!("{from}{to}{promote}")),
        [(from, mid), (again, to)] if again == mid => Ok(format!("{from}{mid}{to}{promote}")),
        [_, _] => Err(syntax("the second leg must start where the first ends")),
        _ => Err(syntax("at most two legs")),
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::rules::notation::sfen;
    use crate::rules::{Game, GameRules, VariantId};

    fn chu(text: &str) -> Position {
        sfen::parse(VariantId::CHU_SHOGI.variant(), text).unwrap()
    }

    fn coordinate(pos: &Position, text: &str) -> Move {
        coord::parse(pos, text).unwrap()
    }

    #[test]
    fn squares_follow_xboard_chu() {
        let v = VariantId::CHU_SHOGI.variant();
        let g = &v.geometry;
        let name = |ours: &str| square_name(g, g.parse_square(ours).unwrap());
        // XBoard's chu setup: the first player's king on f1, lion on f3; the second's on g12, g10.
        assert_eq!(name("7l"), "f1");
        assert_eq!(name("7j"), "f3");
        assert_eq!(name("6a"), "g12");
        assert_eq!(name("1a"), "l12");
        assert_eq!(name("12l"), "a1");
        let start = Position::start(VariantId::CHU_SHOGI);
        let king = |sq: &str| start.piece_at(parse_square(g, sq).unwrap()).map(|p| v.piece_spec(p.ptype).abbr);
        assert_eq!(king("f1"), Some("K"));
        assert_eq!(king("g12"), Some("K"));
        for bad in ["", "f", "f0", "f13", "m1", "F1", "f01", "f1x", "é1"] {
            assert_eq!(parse_square(g, bad), None, "{bad}");
        }
    }

    #[test]
    fn tenjiku_ranks_take_two_digits() {
        let g = &VariantId::TENJIKU_SHOGI.variant().geometry;
        assert_eq!(square_name(g, g.parse_square("16a").unwrap()), "a16");
        assert_eq!(square_name(g, g.parse_square("1p").unwrap()), "p1");
        assert_eq!(parse_square(g, "p16"), g.parse_square("1a"));
        assert_eq!(parse_square(g, "q1"), None);
    }

    #[test]
    fn plain_and_promoting_moves() {
        let start = Position::start(VariantId::CHU_SHOGI);
        let v = start.variant();
        let pawn = coordinate(&start, "7i7h");
        assert_eq!(write(v, pawn), "f4f5");
        assert_eq!(parse(&start, "f4f5"), Ok(pawn));
        assert_eq!(parse(&start, "f4f5="), Ok(pawn));
        // A pawn that may promote on entering the zone.
        let p = chu("k11/12/12/12/7P4/12/12/12/12/12/12/11K b - 1");
        let promoting = coordinate(&p, "5e5d+");
        assert_eq!(write(v, promoting), "h8h9+");
        assert_eq!(parse(&p, "h8h9+"), Ok(promoting));
        assert_eq!(parse(&p, "h8h9"), Ok(coordinate(&p, "5e5d")));
    }

    #[test]
    fn lion_moves_have_two_legs_and_the_pass_is_the_null_move() {
        // Black lion on 6f with White pawns on 6e and 6d: igui, double capture, hit and run.
        let p = chu("k11/12/12/6p5/6p5/6(Ln)5/12/12/12/12/12/11K b - 1");
        let v = p.variant();
        let igui = coordinate(&p, "6f6e6f");
        assert_eq!(write(v, igui), "g7g8,g8g7");
        assert_eq!(parse(&p, "g7g8,g8g7"), Ok(igui));
        let double = coordinate(&p, "6f6e6d");
        assert_eq!(write(v, double), "g7g8,g8g9");
        assert_eq!(parse(&p, "g7g8,g8g9"), Ok(double));
        assert_eq!(legs("g7g8,g8g9"), ["g7g8,", "g8g9"]);
        assert_eq!(legs("g7g8"), ["g7g8"]);
        assert_eq!(write(v, Move::Pass), "@@@@");
        assert_eq!(parse(&p, "@@@@"), Ok(Move::Pass));
        // Out to an empty square and back is the pass; on through it, the plain jump.
        assert_eq!(parse(&p, "g7f7,f7g7"), Ok(Move::Pass));
        assert_eq!(parse(&p, "g7f7,f7e7"), Ok(coordinate(&p, "6f8f")));
    }

    #[test]
    fn drops_in_shogi() {
        let p = sfen::parse(VariantId::SHOGI.variant(), "4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        let drop = coordinate(&p, "G*5b");
        assert_eq!(write(p.variant(), drop), "G@e8");
        assert_eq!(parse(&p, "G@e8"), Ok(drop));
        assert_eq!(parse(&p, "R@e8"), Err(MoveError::Illegal { text: "R@e8".to_string() }));
        assert!(matches!(parse(&p, "X@e8"), Err(MoveError::Syntax { .. })));
    }

    #[test]
    fn errors_quote_the_text() {
        let start = Position::start(VariantId::CHU_SHOGI);
        for bad in ["", "f4", "f4f", "f4f5,", "f4f5,f6f7", "f4f5,f5f6,f6f7", "z4f5", "f4f5x", "f4f5++", "é", "@@@"] {
            match parse(&start, bad) {
                Err(MoveError::Syntax { text, .. }) => assert_eq!(text, bad),
                other => panic!("'{bad}' read as {other:?}"),
            }
        }
        assert_eq!(parse(&start, "f4f6"), Err(MoveError::Illegal { text: "f4f6".to_string() }));
        assert_eq!(parse(&start, "@@@@"), Err(MoveError::Illegal { text: "@@@@".to_string() }));
        assert!(matches!(parse(&start, "declare"), Err(MoveError::Syntax { .. })));
    }

    /// Every legal move of positions reached by random play reads back from its own text.
    #[test]
    fn every_legal_move_round_trips() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for id in VariantId::ALL {
            let mut game = Game::new(Position::start(id), GameRules::default_for(id.variant()));
            for _ in 0..60 {
                let pos = game.position().clone();
                let legal = game.legal_moves();
                for &mv in legal.iter().filter(|&&m| m != Move::Declare) {
                    let text = write(pos.variant(), mv);
                    assert_eq!(parse(&pos, &text), Ok(mv), "{id}: '{text}' in {pos}");
                }
                if legal.is_empty() {
                    break;
                }
                game.play(legal[rng.random_range(0..legal.len())]).unwrap();
            }
        }
    }

    #[test]
    fn variant_names() {
        assert_eq!(large_variant("chu"), Some(VariantId::CHU_SHOGI));
        assert_eq!(large_variant("tenjiku-shogi"), Some(VariantId::TENJIKU_SHOGI));
        assert_eq!(large_variant("heiandai"), Some(VariantId::HEIAN_DAI_SHOGI));
        assert_eq!(large_variant("shogi"), None);
        assert_eq!(large_variant("normal"), None);
    }
}

//! Helpers for the large-variant rules tests (tests/large_chu.rs, large_dai.rs, large_tenjiku.rs,
//! large_common.rs): building positions from (square, piece) lists, naming moves, plain board
//! geometry to write expected move lists with (rays, rings), a deterministic random number
//! generator, and the consistency checks run on positions reached by random play.
//!
//! The geometry helpers know nothing about pieces: they list squares along a direction or at a
//! king distance, so that expected move sets can be written from the rules text without
//! reusing the engine's move tables.
#![allow(dead_code, unused_imports)]

use std::collections::{BTreeMap, BTreeSet};

use shogi_zero::rules::notation::{coord, sfen};

pub use crate::common::{board as board3, legal, moves_from, play_all, pos, set, sq, text, SplitMix64 as Rng};
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::{Game, GameRules, Move, Position, Square, VariantId};

pub const CHU: VariantId = VariantId::CHU_SHOGI;
pub const DAI: VariantId = VariantId::DAI_SHOGI;
pub const TENJIKU: VariantId = VariantId::TENJIKU_SHOGI;
pub const LARGE: [VariantId; 3] = [CHU, DAI, TENJIKU];

/// The name of a square.
pub fn name(id: VariantId, s: Square) -> String {
    id.variant().geometry.square_name(s)
}

/// Position text from `(square, token)` pairs with third field `-`.
pub fn board(id: VariantId, pieces: &[(&str, &str)], side: &str) -> String {
    board3(id, pieces, side, "-")
}

/// A position from `(square, token)` pairs.
pub fn position(id: VariantId, pieces: &[(&str, &str)], side: &str) -> Position {
    pos(id, &board(id, pieces, side))
}

/// A game from `(square, token)` pairs under the variant's default rules.
pub fn game(id: VariantId, pieces: &[(&str, &str)], side: &str) -> Game {
    Game::new(position(id, pieces, side), GameRules::default_for(id.variant()))
}

/// The position after the coordinate move `text`, which must be legal.
pub fn after(p: &Position, text: &str) -> Position {
    let m = coord::parse(p, text).unwrap_or_else(|e| panic!("'{text}' in {p}: {e}"));
    p.after(m).unwrap()
}

/// Whether the pass is among the legal moves.
pub fn has_pass(p: &Position) -> bool {
    p.legal_moves().contains(&Move::Pass)
}

/// `"{from}{to}"` for each destination: the one-leg moves of a piece on `from`.
pub fn to_moves(from: &str, dests: &[String]) -> BTreeSet<String> {
    dests.iter().map(|d| format!("{from}{d}")).collect()
}

/// Both the plain and the promoting version of `from`-`to`.
pub fn both(from: &str, to: &str) -> [String; 2] {
    [format!("{from}{to}"), format!("{from}{to}+")]
}

/// Set difference helper for messages: (missing from `actual`, unexpected in `actual`).
pub fn diff(expected: &BTreeSet<String>, actual: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (expected.difference(actual).cloned().collect(), actual.difference(expected).cloned().collect())
}

/// Asserts two move sets are equal, printing what is missing and what is extra.
#[track_caller]
pub fn assert_moves(actual: &BTreeSet<String>, expected: &BTreeSet<String>, what: &str) {
    let (missing, extra) = diff(expected, actual);
    assert!(missing.is_empty() && extra.is_empty(), "{what}: missing {missing:?}, unexpected {extra:?}");
}

// ---------------------------------------------------------------------------------------------
// Plain board geometry (file numbers and rank letters only)
// ---------------------------------------------------------------------------------------------

/// File number and rank index (0 = rank a) of a square name.
pub fn file_rank(id: VariantId, s: &str) -> (i32, i32) {
    let g = &id.variant().geometry;
    let square = sq(id, s);
    (g.file(square) as i32, g.rank(square) as i32)
}

/// The square `dfile` files and `drank` ranks away from `s` (a higher file is to Black's
/// left; a higher rank index is towards Black's side, so Black's forward is `drank = -1`).
pub fn shift(id: VariantId, s: &str, dfile: i32, drank: i32) -> Option<String> {
    let n = id.variant().geometry.size as i32;
    let (f, r) = file_rank(id, s);
    let (f, r) = (f + dfile, r + drank);
    ((1..=n).contains(&f) && (0..n).contains(&r)).then(|| format!("{f}{}", (b'a' + r as u8) as char))
}

/// The squares from `s` (exclusive) along direction (`dfile`, `drank`) to the board edge.
pub fn ray(id: VariantId, s: &str, dfile: i32, drank: i32) -> Vec<String> {
    (1..).map_while(|k| shift(id, s, k * dfile, k * drank)).collect()
}

/// The squares at exactly king distance `d` from `s`.
pub fn ring(id: VariantId, s: &str, d: i32) -> Vec<String> {
    let mut out = Vec::new();
    for df in -d..=d {
        for dr in -d..=d {
            if df.abs().max(dr.abs()) == d {
                out.extend(shift(id, s, df, dr));
            }
        }
    }
    out
}

/// The squares at king distance 1 to `d` from `s`.
pub fn within(id: VariantId, s: &str, d: i32) -> Vec<String> {
    (1..=d).flat_map(|k| ring(id, s, k)).collect()
}

/// King distance between two squares.
pub fn distance(id: VariantId, a: &str, b: &str) -> i32 {
    let ((fa, ra), (fb, rb)) = (file_rank(id, a), file_rank(id, b));
    (fa - fb).abs().max((ra - rb).abs())
}

pub const ORTHOGONAL: [(i32, i32); 4] = [(0, -1), (0, 1), (1, 0), (-1, 0)];
pub const DIAGONAL: [(i32, i32); 4] = [(1, -1), (-1, -1), (1, 1), (-1, 1)];
pub const SIDEWAYS: [(i32, i32); 2] = [(1, 0), (-1, 0)];

/// The squares along several directions from `s`, each to the board edge.
pub fn rays(id: VariantId, s: &str, dirs: &[(i32, i32)]) -> Vec<String> {
    dirs.iter().flat_map(|&(df, dr)| ray(id, s, df, dr)).collect()
}

// ---------------------------------------------------------------------------------------------
// Random play and consistency checks
// ---------------------------------------------------------------------------------------------

/// The positions of one random game from `start`: the start position first, then the position
/// after each move, for at most `plies` moves or until the side to move has no move. Captures
/// are preferred with probability `capture_bias` / 4 so that games reach open, varied
/// positions (promoted pieces, lone pieces) within a few hundred plies.
pub fn random_game(start: &Position, seed: u64, plies: usize, capture_bias: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut p = start.clone();
    let mut out = vec![p.clone()];
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let captures: Vec<Move> = moves.iter().copied().filter(|&m| captures_something(&p, m)).collect();
        let m = if !captures.is_empty() && rng.next_u64() % 4 < capture_bias {
            captures[rng.below(captures.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        p.play_unchecked(m);
        out.push(p.clone());
    }
    out
}

/// Whether `m` captures a piece by displacement, igui or on its first leg.
pub fn captures_something(p: &Position, m: Move) -> bool {
    match m {
        Move::Normal { to, .. } => p.piece_at(to).is_some(),
        Move::TwoLeg { mid, to, from, .. } => p.piece_at(mid).is_some() || (to != from && p.piece_at(to).is_some()),
        _ => false,
    }
}

/// The effect of a move (rules README §4): origin, final square, the squares of the pieces it
/// captures, and the promotion flag. The pass is `None`.
pub type Effect = (Square, Square, Vec<Square>, bool);

pub fn effect(p: &Position, m: Move) -> Option<Effect> {
    match m {
        Move::Normal { from, to, promote } => {
            let captured = p.piece_at(to).map(|_| vec![to]).unwrap_or_default();
            Some((from, to, captured, promote))
        }
        Move::TwoLeg { from, mid, to, promote } => {
            let mut captured: Vec<Square> = p.piece_at(mid).map(|_| vec![mid]).unwrap_or_default();
            if to != from && p.piece_at(to).is_some() {
                captured.push(to);
            }
            captured.sort();
            Some((from, to, captured, promote))
        }
        _ => None,
    }
}

/// A move rotated by 180 degrees (for the colour-flipped position).
pub fn rotate_move(id: VariantId, m: Move) -> Move {
    let g = &id.variant().geometry;
    match m {
        Move::Normal { from, to, promote } => Move::Normal { from: g.rotate(from), to: g.rotate(to), promote },
        Move::TwoLeg { from, mid, to, promote } => Move::TwoLeg { from: g.rotate(from), mid: g.rotate(mid), to: g.rotate(to), promote },
        other => other,
    }
}

/// A move's name independent of the free choice a generator has (README §4): a step out and
/// back over an empty square is named by its origin only, whichever empty square it names.
pub fn canonical(p: &Position, m: Move) -> String {
    match m {
        Move::TwoLeg { from, mid, to, promote } if to == from && p.piece_at(mid).is_none() => {
            format!("{}(out-and-back){}", name(p.variant().id, from), if promote { "+" } else { "" })
        }
        _ => text(p, m),
    }
}

/// Checks that every legal move of `p` has its own effect (no two moves with the same origin,
/// final square, captured squares and promotion; a two-leg move whose first leg lands on an
/// empty square is a step out and back), that making and unmaking each restores `p` exactly,
/// that the derived state stays consistent, and that every move's coordinate text reads back
/// to the same move when `parse_back` is set.
pub fn check_moves(p: &Position, parse_back: bool) {
    p.verify_derived_state().unwrap_or_else(|e| panic!("derived state of {p}: {e}"));
    let moves = p.legal_moves();
    let mut effects: BTreeMap<Effect, Move> = BTreeMap::new();
    let mut passes = 0;
    let mut scratch = p.clone();
    for &m in &moves {
        match effect(p, m) {
            None => passes += 1,
            Some(e) => {
                if let Move::TwoLeg { from, mid, to, .. } = m {
                    assert!(
                        p.piece_at(mid).is_some() || to == from,
                        "{}: a two-leg move over an empty first square must be a step out and back (README §4) in {p}",
                        text(p, m)
                    );
                }
                if let Some(old) = effects.insert(e, m) {
                    panic!("{} and {} have the same effect (README §4) in {p}", text(p, old), text(p, m));
                }
            }
        }
        let undo = scratch.play_unchecked(m);
        scratch.verify_derived_state().unwrap_or_else(|e| panic!("derived state after {} in {p}: {e}", text(p, m)));
        scratch.unmake(m, undo);
        assert!(scratch == *p && scratch.hash() == p.hash(), "make/unmake of {} changed {p} into {scratch}", text(p, m));
        if parse_back {
            assert_eq!(coord::parse(p, &text(p, m)), Ok(m), "'{}' does not read back in {p}", text(p, m));
        }
    }
    assert!(passes <= 1, "the pass is listed {passes} times in {p}");
}

/// SFEN written and read back gives the same position, and writes the same text again.
pub fn check_sfen_round_trip(p: &Position) {
    let written = sfen::write(p);
    let again = sfen::parse(p.variant(), &written).unwrap_or_else(|e| panic!("'{written}' does not read back: {e}"));
    assert!(again == *p && again.hash() == p.hash(), "'{written}' reads back as {again}");
    assert_eq!(sfen::write(&again), written);
}

/// The colour-flipped position has the rotated moves (compared by canonical name), flips back
/// to the same position, and, with `depth` > 0, the same perft count.
pub fn check_flip(p: &Position, depth: u32) {
    let id = p.variant().id;
    let f = p.flipped();
    f.verify_derived_state().unwrap();
    let back = f.flipped();
    assert!(back == *p && back.hash() == p.hash(), "flipping {p} twice gives {back}");
    let ours: BTreeSet<String> = p.legal_moves().into_iter().map(|m| canonical(&f, rotate_move(id, m))).collect();
    let theirs: BTreeSet<String> = f.legal_moves().into_iter().map(|m| canonical(&f, m)).collect();
    assert_moves(&theirs, &ours, &format!("moves of the flip of {p}"));
    if depth > 0 {
        assert_eq!(perft(p, depth), perft(&f, depth), "perft {depth} of {p} and of its flip {f}");
    }
}

/// The square name rotated by 180 degrees (White's view of a Black square).
pub fn rot(id: VariantId, s: &str) -> String {
    let g = &id.variant().geometry;
    name(id, g.rotate(sq(id, s)))
}

/// A coordinate move text with every square rotated by 180 degrees (`8h7g+` → its mirror).
pub fn rot_move(id: VariantId, m: &str) -> String {
    let promote = m.ends_with('+');
    let body = m.trim_end_matches('+');
    let mut out = String::new();
    let mut start = 0;
    for (i, c) in body.char_indices() {
        if c.is_ascii_lowercase() {
            out.push_str(&rot(id, &body[start..=i]));
            start = i + 1;
        }
    }
    if promote {
        out.push('+');
    }
    out
}

/// Every move text of a set rotated by 180 degrees.
pub fn rot_set(id: VariantId, moves: &BTreeSet<String>) -> BTreeSet<String> {
    moves.iter().map(|m| rot_move(id, m)).collect()
}

//! Chu shogi rules, tested against the text of shared/rules/chu-shogi.md (section numbers "§"
//! refer to it) and shared/rules/README.md (move types §2, move identity §4). Every expected
//! move list below is derived by hand from the rules text; the geometry helpers of
//! `large_support` (rays, rings) only list squares, they know nothing about pieces.
//!
//! Squares: files 12..1 from Black's left to right, ranks a (White's side) to l; Black moves
//! towards rank a. Unless a test says otherwise Black's king stands on 1l and White's on 12a,
//! far from the pieces under test; moves are filtered by origin square.

mod common;
mod large_support;

use std::collections::BTreeSet;

use large_support::*;
use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::{Color, EndReason, Move, Outcome, Position};

const KINGS: [(&str, &str); 2] = [("1l", "K"), ("12a", "k")];

/// A chu position with the two kings of [`KINGS`] plus `extra`.
fn chu(extra: &[(&str, &str)], side: &str) -> Position {
    let mut pieces = KINGS.to_vec();
    pieces.extend_from_slice(extra);
    position(CHU, &pieces, side)
}

fn ring1(s: &str) -> Vec<String> {
    ring(CHU, s, 1)
}

fn ring2(s: &str) -> Vec<String> {
    ring(CHU, s, 2)
}

/// The plain lion steps and jumps from `s` (§4.1 items 1 and 2) to every square of the 5×5
/// block except those in `except`.
fn lion_steps_and_jumps(s: &str, except: &[&str]) -> BTreeSet<String> {
    let mut d: Vec<String> = ring1(s);
    d.extend(ring2(s));
    d.retain(|x| !except.contains(&x.as_str()));
    to_moves(s, &d)
}

// ---------------------------------------------------------------------------------------------
// §9 worked counts
// ---------------------------------------------------------------------------------------------

/// §9: White king 12a, White gold 11a, Black king 1l, one Black piece on 7g, Black to move.
fn worked_count_position(piece: &str) -> Position {
    position(CHU, &[("12a", "k"), ("11a", "g"), ("1l", "K"), ("7g", piece)], "b")
}

/// §9 / §4.1: lion on 7g: 28 = 8 steps + 16 jumps + 1 pass + 3 king moves (1l to 2l, 1k, 2k).
/// Exact list: every square of the 5×5 block around 7g, plus the pass.
#[test]
fn worked_count_lion_28() {
    for piece in ["(Ln)", "+(Kr)"] {
        let p = worked_count_position(piece);
        assert_moves(&moves_from(&p, "7g"), &lion_steps_and_jumps("7g", &[]), piece);
        assert!(has_pass(&p));
        assert_moves(&moves_from(&p, "1l"), &set(&["1l2l", "1l1k", "1l2k"]), "king");
        assert_eq!(p.legal_moves().len(), 28, "{piece}");
        // §1: White's setup is Black's rotated; the flipped position has the same count.
        assert_eq!(p.flipped().legal_moves().len(), 28);
    }
}

/// §9 / §4.2: horned falcon (+DH) on 7g: 43 = 37 slides (sideways 5 + 6, backward 5, diagonals
/// 5 + 6 + 5 + 5) + step 7f, jump 7e and the pass forward + 3 king moves. Nothing beyond 7e.
#[test]
fn worked_count_horned_falcon_43() {
    let p = worked_count_position("+(DH)");
    let mut expected = to_moves("7g", &rays(CHU, "7g", &[(1, 0), (-1, 0), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]));
    assert_eq!(expected.len(), 37);
    expected.extend(set(&["7g7f", "7g7e"]));
    assert_moves(&moves_from(&p, "7g"), &expected, "horned falcon");
    assert!(has_pass(&p));
    assert_eq!(p.legal_moves().len(), 43);
    assert_eq!(p.flipped().legal_moves().len(), 43);
}

/// §9 / §4.2: soaring eagle (+DK) on 7g: 40 = 32 slides (forward 6, backward 5, sideways 5 + 6,
/// backward diagonals 5 + 5) + steps 8f, 6f + jumps 9e, 5e + pass + 3 king moves.
#[test]
fn worked_count_soaring_eagle_40() {
    let p = worked_count_position("+(DK)");
    let mut expected = to_moves("7g", &rays(CHU, "7g", &[(0, -1), (0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)]));
    assert_eq!(expected.len(), 32);
    expected.extend(set(&["7g8f", "7g6f", "7g9e", "7g5e"]));
    assert_moves(&moves_from(&p, "7g"), &expected, "soaring eagle");
    assert!(has_pass(&p));
    assert_eq!(p.legal_moves().len(), 40);
    assert_eq!(p.flipped().legal_moves().len(), 40);
}

// ---------------------------------------------------------------------------------------------
// §4.1 lion power
// ---------------------------------------------------------------------------------------------

/// §4.1 on a hand-built position. Black lion 7g; White pawn 7f (adjacent), White silver 6e
/// (two away, next to 7f); Black gold 8f (adjacent) and Black pawn 9e (two away).
/// 1. steps: the 8 adjacent squares but 8f (friend): 7f (capture), 6f, 8g, 6g, 8h, 7h, 6h;
/// 2. jumps: the 16 squares two away but 9e (friend), 6e is a capture;
/// 3. igui on 7f: 7g7f7g;
/// 4. double capture 7f then 6e: 7g7f6e;
/// 5. hit-and-run: 7f, then an empty square next to 7f other than 7g: 8e, 7e, 6f, 8g, 6g;
/// 6. pass (empty neighbours exist).
#[test]
fn lion_igui_double_capture_hit_and_run_pass() {
    let p = chu(&[("7g", "(Ln)"), ("7f", "p"), ("6e", "s"), ("8f", "G"), ("9e", "P")], "b");
    let mut expected = lion_steps_and_jumps("7g", &["8f", "9e"]);
    assert_eq!(expected.len(), 22);
    expected.extend(set(&["7g7f7g", "7g7f6e", "7g7f8e", "7g7f7e", "7g7f6f", "7g7f8g", "7g7f6g"]));
    assert_moves(&moves_from(&p, "7g"), &expected, "lion");
    assert!(has_pass(&p));

    // The effects: igui removes 7f and leaves the lion on 7g; the double capture removes both.
    let igui = after(&p, "7g7f7g");
    assert!(igui.piece_at(sq(CHU, "7f")).is_none());
    assert_eq!(igui.piece_at(sq(CHU, "7g")), p.piece_at(sq(CHU, "7g")));
    let double = after(&p, "7g7f6e");
    assert!(double.piece_at(sq(CHU, "7f")).is_none() && double.piece_at(sq(CHU, "7g")).is_none());
    assert_eq!(double.piece_at(sq(CHU, "6e")), p.piece_at(sq(CHU, "7g")));
    assert_eq!(double.non_royal_count(Color::White), 0);

    // README §4: a route over an empty first square has the effect of the plain step or jump to
    // its end, and a route out and back over an empty square is the pass; a parser may accept
    // such routes (then it must read them as that move) or refuse them.
    for (route, plain) in [("7g6f5e", "7g5e"), ("7g6g6f", "7g6f"), ("7g6g7g", "pass")] {
        let read = coord::parse(&p, route);
        assert!(read.is_err() || read == coord::parse(&p, plain), "{route} read as {read:?}");
    }
    // Never as a capture: 7g7f7g is igui (7f holds a pawn), not the pass.
    assert_ne!(coord::parse(&p, "7g7f7g"), Ok(Move::Pass));
}

/// §4.1 item 6: no pass when no adjacent square is empty. Lion in the corner 1a with all three
/// neighbours occupied (Black gold 2a, Black silver 2b, White pawn 1b): igui and capture on 1b
/// remain, no pass.
#[test]
fn lion_without_empty_neighbour_cannot_pass() {
    let p = position(CHU, &[("1l", "K"), ("12a", "k"), ("1a", "(Ln)"), ("2a", "G"), ("2b", "S"), ("1b", "p")], "b");
    assert!(!has_pass(&p));
    assert!(!legal(&p).contains("pass"));
    let mut expected = lion_steps_and_jumps("1a", &["2a", "2b"]);
    // Via 1b (captured): on to 1c, 2c (empty) or back (igui); 2a, 2b are friends.
    expected.extend(set(&["1a1b1a", "1a1b1c", "1a1b2c"]));
    assert_moves(&moves_from(&p, "1a"), &expected, "cornered lion");
}

// ---------------------------------------------------------------------------------------------
// §4.2 horned falcon and soaring eagle
// ---------------------------------------------------------------------------------------------

/// The falcon's slides from 7g on an otherwise empty line set (sideways, backward, diagonals).
fn falcon_slides() -> BTreeSet<String> {
    to_moves("7g", &rays(CHU, "7g", &[(1, 0), (-1, 0), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]))
}

/// A line-lion case: the pieces placed (square, token), the moves expected along the line, and
/// whether the piece may pass.
type LineCase = (&'static [(&'static str, &'static str)], &'static [&'static str], bool);

/// §4.2 for the horned falcon on 7g (X1 = 7f, X2 = 7e, 7d beyond):
/// * X1 enemy pawn, X2 enemy silver, 7d enemy gold: step-capture 7f, jump-capture 7e, igui 7f,
///   double capture 7f+7e; never 7d; no pass (X1 occupied).
/// * X1 enemy, X2 empty: 7f, 7e, igui, capture 7f then on to 7e; not 7d; no pass.
/// * X1 empty, X2 enemy: 7f, jump-capture 7e; pass.
/// * X1 friend, X2 empty: jump 7e only; no pass.
#[test]
fn horned_falcon_forward_line() {
    let falcon = ("7g", "+(DH)");
    let cases: [LineCase; 4] = [
        (&[("7f", "p"), ("7e", "s"), ("7d", "g")], &["7g7f", "7g7e", "7g7f7g", "7g7f7e"], false),
        (&[("7f", "p"), ("7d", "g")], &["7g7f", "7g7e", "7g7f7g", "7g7f7e"], false),
        (&[("7e", "s"), ("7d", "g")], &["7g7f", "7g7e"], true),
        (&[("7f", "P"), ("7d", "g")], &["7g7e"], false),
    ];
    for (pieces, forward, pass) in cases {
        let mut all = vec![falcon];
        all.extend_from_slice(pieces);
        let p = chu(&all, "b");
        let mut expected = falcon_slides();
        expected.extend(set(forward));
        assert_moves(&moves_from(&p, "7g"), &expected, &format!("falcon with {pieces:?}"));
        assert_eq!(has_pass(&p), pass, "pass with {pieces:?}");
    }
}

/// The eagle's slides from 7g on empty lines (orthogonal, backward diagonals).
fn eagle_slides() -> BTreeSet<String> {
    to_moves("7g", &rays(CHU, "7g", &[(0, -1), (0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1)]))
}

/// §4.2 for the soaring eagle on 7g, forward diagonals 8f→9e→10d and 6f→5e→4d:
/// * 8f enemy pawn, 9e enemy silver, 10d enemy gold; 6f, 5e empty: 8f, 9e, igui 8f, 8f then 9e,
///   6f, 5e; never 10d or 4d; pass (6f empty) — and no turning (8f then 8e is not a move).
/// * 8f enemy, 9e friend: 8f, igui 8f; no 9e; the other line 6f, 5e; pass.
/// * 8f enemy, 6f friend: both X1 occupied: no pass (igui 8f, 8f, 8f→9e, 9e, jump 5e remain).
#[test]
fn soaring_eagle_forward_diagonals() {
    let eagle = ("7g", "+(DK)");
    let cases: [LineCase; 3] = [
        (&[("8f", "p"), ("9e", "s"), ("10d", "g")], &["7g8f", "7g9e", "7g8f7g", "7g8f9e", "7g6f", "7g5e"], true),
        (&[("8f", "p"), ("9e", "S")], &["7g8f", "7g8f7g", "7g6f", "7g5e"], true),
        (&[("8f", "p"), ("6f", "P")], &["7g8f", "7g8f7g", "7g8f9e", "7g9e", "7g5e"], false),
    ];
    for (pieces, forward, pass) in cases {
        let mut all = vec![eagle];
        all.extend_from_slice(pieces);
        let p = chu(&all, "b");
        let mut expected = eagle_slides();
        expected.extend(set(forward));
        assert_moves(&moves_from(&p, "7g"), &expected, &format!("eagle with {pieces:?}"));
        assert_eq!(has_pass(&p), pass, "pass with {pieces:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// §7 promotion
// ---------------------------------------------------------------------------------------------

/// §7 rule 1: entering the zone (ranks a–d) may promote. Silver on 7e: 7d, 8d, 6d enter (both
/// versions); 8f, 6f (backward diagonals) stay outside (plain only).
#[test]
fn promotion_on_entering() {
    let p = chu(&[("7e", "S")], "b");
    let mut expected = BTreeSet::new();
    for to in ["7d", "8d", "6d"] {
        expected.extend(both("7e", to));
    }
    expected.extend(set(&["7e8f", "7e6f"]));
    assert_moves(&moves_from(&p, "7e"), &expected, "silver entering");
}

/// §7 rule 2 and O6: inside the zone a move without capture may not promote; a capture inside
/// the zone may. Silver on 7c, White pawn on 8b: 7b, 6b, 8d, 6d plain only; 8b (capture) both.
#[test]
fn promotion_inside_zone_only_with_capture() {
    let p = chu(&[("7c", "S"), ("8b", "p")], "b");
    let mut expected = set(&["7c7b", "7c6b", "7c8d", "7c6d"]);
    expected.extend(both("7c", "8b"));
    assert_moves(&moves_from(&p, "7c"), &expected, "silver in the zone");
}

/// §7 rule 2: a capture leaving the zone may promote; leaving without capture may not. Silver on
/// 7d, White pawn on 8e: 8e both; 6e plain; 7c, 8c, 6c (inside, no capture) plain.
#[test]
fn promotion_on_capture_leaving_zone() {
    let p = chu(&[("7d", "S"), ("8e", "p")], "b");
    let mut expected = set(&["7d7c", "7d8c", "7d6c", "7d6e"]);
    expected.extend(both("7d", "8e"));
    assert_moves(&moves_from(&p, "7d"), &expected, "silver leaving");
}

/// §7 rule 3 and O3: an unpromoted pawn or lance reaching the last rank may promote (even
/// without capture, inside the zone) but need not. Pawn 7b: 7a both. Pawn 5c: 5b plain only
/// (inside, no capture, not the last rank). Lance 3c: 3b plain, 3a both. Lance 10f (outside):
/// 10e plain (rank e is outside), 10d, 10c, 10b (entering) both, 10a both.
#[test]
fn pawn_and_lance_second_chance() {
    let p = chu(&[("7b", "P"), ("5c", "P"), ("3c", "L"), ("10f", "L")], "b");
    assert_moves(&moves_from(&p, "7b"), &set(&["7b7a", "7b7a+"]), "pawn 7b");
    assert_moves(&moves_from(&p, "5c"), &set(&["5c5b"]), "pawn 5c");
    assert_moves(&moves_from(&p, "3c"), &set(&["3c3b", "3c3a", "3c3a+"]), "lance 3c");
    let mut expected = set(&["10f10e"]);
    for to in ["10d", "10c", "10b", "10a"] {
        expected.extend(both("10f", to));
    }
    assert_moves(&moves_from(&p, "10f"), &expected, "lance 10f");
}

/// §3 / §7: promoted pieces, the queen, the lion (and the king) never promote. Tokin (+P) on 10e:
/// gold moves 10d, 11d, 9d, 11e, 9e, 10f, all plain. Queen on 5e into the zone: plain only.
#[test]
fn promoted_pieces_queen_and_lion_never_promote() {
    let p = chu(&[("10e", "+P"), ("5e", "Q"), ("3f", "(Ln)")], "b");
    assert_moves(&moves_from(&p, "10e"), &set(&["10e10d", "10e11d", "10e9d", "10e11e", "10e9e", "10e10f"]), "tokin");
    assert!(legal(&p).iter().all(|m| !m.ends_with('+')), "{:?}", legal(&p));
    // §3: a drunk elephant that is a promoted go-between can never become a crown prince, and
    // is no royal piece (README §3).
    let p = chu(&[("7e", "+(GB)")], "b");
    assert_moves(&moves_from(&p, "7e"), &set(&["7e7d", "7e8d", "7e6d", "7e8e", "7e6e", "7e8f", "7e6f"]), "+GB");
    assert_eq!(p.royal_count(Color::Black), 1);
}

/// §7: "Promotion is never compulsory. A pawn ... that declines becomes a dead piece: it stays on
/// the board, can be captured, and never moves again." Black pawn 7b to 7a unpromoted; it has no
/// moves afterwards, and White's silver on 6b can take it (backward diagonal).
#[test]
fn declined_last_rank_promotion_leaves_a_dead_piece() {
    let mut g = game(CHU, &[("1l", "K"), ("10k", "G"), ("12a", "k"), ("7b", "P"), ("6b", "s")], "b");
    play_all(&mut g, "7b7a");
    assert_eq!(g.outcome(), None);
    let p = g.position().clone();
    assert_eq!(p.piece_at(sq(CHU, "7a")).map(|x| x.promoted), Some(false));
    play_all(&mut g, "12a12b 1l1k");
    assert!(moves_from(g.position(), "7a").is_empty(), "a dead pawn cannot move");
    assert!(legal(&p).contains("6b7a"), "the dead pawn can be captured: {:?}", legal(&p));
    // A position with a dead pawn is a valid chu position (its SFEN reads back).
    check_sfen_round_trip(&p);
}

// ---------------------------------------------------------------------------------------------
// §6.1 lion captures a lion
// ---------------------------------------------------------------------------------------------

/// §6.1: a lion may always capture an adjacent enemy lion, by any lion move, even protected.
/// Black lion 7g, White lion 7f protected by White gold 7e (its forward step). Expected: all 24
/// steps and jumps (7f and 7e captures), igui 7f, and via 7f: 7e (double capture) and the empty
/// squares next to 7f: 8e, 6e, 8f, 6f, 8g, 6g.
#[test]
fn lion_takes_adjacent_lion_even_protected() {
    let p = chu(&[("7g", "(Ln)"), ("7f", "(ln)"), ("7e", "g")], "b");
    let mut expected = lion_steps_and_jumps("7g", &[]);
    expected.extend(set(&["7g7f7g", "7g7f7e", "7g7f8e", "7g7f6e", "7g7f8f", "7g7f6f", "7g7f8g", "7g7f6g"]));
    assert_moves(&moves_from(&p, "7g"), &expected, "adjacent lion");
}

/// §6.1: a non-adjacent protected lion may not be taken by a lion: Black lion 7g, White lion 7e,
/// White gold 7d protecting it: no 7g7e (the route over the empty 7f is the same move). Without
/// the gold the lion is unprotected and 7g7e is legal. A promoted kirin counts as a lion.
#[test]
fn lion_may_not_take_protected_distant_lion() {
    for lion in ["(ln)", "+(kr)"] {
        let protected = chu(&[("7g", "(Ln)"), ("7e", lion), ("7d", "g")], "b");
        assert_moves(&moves_from(&protected, "7g"), &lion_steps_and_jumps("7g", &["7e"]), &format!("protected {lion}"));
        assert!(coord::parse(&protected, "7g7f7e").is_err());
        let unprotected = chu(&[("7g", "(Ln)"), ("7e", lion)], "b");
        assert_moves(&moves_from(&unprotected, "7g"), &lion_steps_and_jumps("7g", &[]), &format!("unprotected {lion}"));
    }
}

/// §6.1 hidden protector: protection is judged with the capturing lion's square empty, so a White
/// rook on 7j, lined up behind the Black lion on 7g, protects the White lion on 7e: no 7g7e. With a
/// Black pawn on 7i blocking the rook, 7g7e is legal again (and the jump to 7i is gone).
#[test]
fn hidden_protector_behind_the_capturing_lion() {
    let hidden = chu(&[("7g", "(Ln)"), ("7e", "(ln)"), ("7j", "r")], "b");
    assert_moves(&moves_from(&hidden, "7g"), &lion_steps_and_jumps("7g", &["7e"]), "hidden rook");
    let blocked = chu(&[("7g", "(Ln)"), ("7e", "(ln)"), ("7j", "r"), ("7i", "P")], "b");
    assert_moves(&moves_from(&blocked, "7g"), &lion_steps_and_jumps("7g", &["7i"]), "rook blocked");
}

/// §6.1 bridge exception: a double capture whose first victim is neither a pawn nor a go-between
/// may take a protected lion. Black lion 7g, White silver 7f, White lion 7e protected by White
/// gold 7d: 7g7f7e is legal while the jump 7g7e is not.
#[test]
fn bridge_exception_with_a_silver() {
    let p = chu(&[("7g", "(Ln)"), ("7f", "s"), ("7e", "(ln)"), ("7d", "g")], "b");
    let mut expected = lion_steps_and_jumps("7g", &["7e"]);
    expected.extend(set(&["7g7f7g", "7g7f7e", "7g7f8e", "7g7f6e", "7g7f8f", "7g7f6f", "7g7f8g", "7g7f6g"]));
    assert_moves(&moves_from(&p, "7g"), &expected, "bridge");
}

/// §6.1 and O2: a pawn as first victim is no bridge and still counts as a protector. Black lion
/// 7e, White pawn 7f, White lion 7g; the pawn (forward step to 7g) is the lion's only protector.
/// Expected: no jump 7e7g and no double capture 7e7f7g; the pawn can be taken (step, igui,
/// hit-and-run to 8e, 6e, 8f, 6f, 8g, 6g). With a silver on 7f instead (also protecting 7g),
/// 7e7f7g is legal (bridge) but 7e7g is not; a go-between behaves like the pawn.
#[test]
fn pawn_first_victim_is_no_bridge_and_still_protects() {
    let hit_and_run = ["7e7f7e", "7e7f8e", "7e7f6e", "7e7f8f", "7e7f6f", "7e7f8g", "7e7f6g"];
    for (victim, bridge) in [("p", false), ("(gb)", false), ("s", true)] {
        let p = chu(&[("7e", "(Ln)"), ("7f", victim), ("7g", "(ln)")], "b");
        let mut expected = lion_steps_and_jumps("7e", &["7g"]);
        expected.extend(set(&hit_and_run));
        if bridge {
            expected.insert("7e7f7g".to_string());
        }
        assert_moves(&moves_from(&p, "7e"), &expected, &format!("first victim {victim}"));
    }
}

/// §6.1 "for a double move, its intermediate square treated as empty": Black lion 7g, White pawn
/// 8f, White lion 9e (two away). A White bishop on 6h is lined up through 7g and 8f onto 9e.
/// * The double capture 7g8f9e: with 7g and 8f taken as empty the bishop protects 9e, and the pawn
///   is no bridge: illegal.
/// * The plain jump 7g9e: only 7g is taken as empty; the pawn on 8f (which attacks 8g, not 9e)
///   still blocks the bishop, so 9e is unprotected: legal.
///
/// Without the bishop both are legal: a pawn as first victim does not forbid the capture of an
/// unprotected lion, it only fails to bridge.
#[test]
fn protection_through_the_intermediate_square() {
    let with_bishop = chu(&[("7g", "(Ln)"), ("8f", "p"), ("9e", "(ln)"), ("6h", "b")], "b");
    let moves = moves_from(&with_bishop, "7g");
    assert!(!moves.contains("7g8f9e"), "{moves:?}");
    assert!(moves.contains("7g9e"), "{moves:?}");
    assert!(moves.contains("7g8f") && moves.contains("7g8f7g") && moves.contains("7g6h"), "{moves:?}");
    let without = chu(&[("7g", "(Ln)"), ("8f", "p"), ("9e", "(ln)")], "b");
    let moves = moves_from(&without, "7g");
    assert!(moves.contains("7g8f9e") && moves.contains("7g9e"), "{moves:?}");
}

/// §6.1 applies to lions only: a non-lion may take a protected lion (no counter-strike pending).
/// Black gold 7h next to the White lion on 7g (protected by White gold 7f): 7h7g legal.
#[test]
fn non_lion_may_take_protected_lion() {
    let p = chu(&[("7h", "G"), ("7g", "(ln)"), ("7f", "g")], "b");
    assert!(moves_from(&p, "7h").contains("7h7g"));
}

// ---------------------------------------------------------------------------------------------
// §6.2 counter-strike
// ---------------------------------------------------------------------------------------------

/// Black: king 1l, gold 7h, lion 3g. White: king 12a, promoted kirin (a lion) 7g, gold 6f, silver
/// 2f (attacks 3g diagonally), lion 4f (next to 3g), horned falcon 3f (its forward line is 3g, 3h).
fn counter_strike_position() -> Position {
    chu(&[("7h", "G"), ("3g", "(Ln)"), ("7g", "+(kr)"), ("6f", "g"), ("2f", "s"), ("4f", "(ln)"), ("3f", "+(dh)")], "b")
}

/// §6.2: after Black's gold (not a lion) takes White's lion on 7g, White's next move may not take
/// a lion with a non-lion: silver 2f×3g and the falcon's 3f×3g, igui 3f3g3f and 3f3g3h (a
/// capture on the first step of a falcon move) are banned; White's lion may still take the
/// adjacent lion (4f3g, igui 4f3g4f); other captures (6f×7g, a gold) are unaffected. The ban is
/// part of the position: the SFEN third field is "7g", and without it exactly those 4 moves come
/// back (perft 1 differs by 4, perft 2 differs too).
#[test]
fn counter_strike_ban() {
    let p = after(&counter_strike_position(), "7h7g");
    assert_eq!(p.counter_strike(), Some(sq(CHU, "7g")));
    let text = sfen::write(&p);
    assert_eq!(text.split(' ').nth(2), Some("7g"), "{text}");
    let moves = legal(&p);
    for banned in ["2f3g", "3f3g", "3f3g3f", "3f3g3h"] {
        assert!(!moves.contains(banned), "{banned} must be banned");
    }
    for allowed in ["4f3g", "4f3g4f", "6f7g", "3f3h"] {
        assert!(moves.contains(allowed), "{allowed} must stay legal");
    }
    // The same board without the counter-strike square.
    let no_ban_text = text.replacen(" 7g ", " - ", 1);
    let no_ban = pos(CHU, &no_ban_text);
    let freed: BTreeSet<String> = legal(&no_ban).difference(&moves).cloned().collect();
    assert_eq!(freed, set(&["2f3g", "3f3g", "3f3g3f", "3f3g3h"]));
    assert!(moves.is_subset(&legal(&no_ban)));
    assert_ne!(p.hash(), no_ban.hash());
    assert_eq!(perft(&p, 1) + 4, perft(&no_ban, 1));
    assert_ne!(perft(&p, 2), perft(&no_ban, 2));
    // The SFEN with the square reads back to the same position.
    check_sfen_round_trip(&p);
    assert_eq!(pos(CHU, &text), p);
}

/// §6.2: "The ban covers every capture of a lion by a non-lion, including one made on the first
/// step of a horned falcon or soaring eagle double move", and README §3: the counter-strike state
/// is part of the position. Black horned falcon 7g takes the White lion on 7f (X1) and goes on
/// to 7e (taking a White pawn there, or not). The position reached by this legal move must be a
/// valid position: White's silver 2f may not take Black's lion on 3g (the ban), its SFEN reads
/// back to the same position, and it can be colour-flipped (and flipped back).
#[test]
fn counter_strike_after_falcon_double_move_is_a_valid_position() {
    for x2 in [Some("p"), None] {
        let mut pieces = vec![("7g", "+(DH)"), ("7f", "(ln)"), ("3g", "(Ln)"), ("2f", "s")];
        pieces.extend(x2.map(|t| ("7e", t)));
        let p = chu(&pieces, "b");
        let q = after(&p, "7g7f7e");
        assert!(!legal(&q).contains("2f3g"), "the ban applies after the falcon's capture");
        let text = sfen::write(&q);
        let reread = sfen::parse(q.variant(), &text);
        assert_eq!(reread.as_ref().ok(), Some(&q), "'{text}' reads back as {reread:?}");
        let flipped = std::panic::catch_unwind(|| q.flipped());
        assert!(flipped.as_ref().is_ok_and(|f| f.flipped() == q), "the flip of {text}");
    }
}

/// §6.2: the ban lasts one move. After 7h7g, White 12a12b, Black 1l1k, White's silver and falcon
/// may take the lion on 3g again, and the third field is "-".
#[test]
fn counter_strike_lasts_one_move() {
    let mut p = after(&counter_strike_position(), "7h7g");
    p = after(&p, "12a12b");
    assert_eq!(p.counter_strike(), None);
    p = after(&p, "1l1k");
    assert_eq!(sfen::write(&p).split(' ').nth(2), Some("-"));
    let moves = legal(&p);
    for m in ["2f3g", "3f3g", "3f3g3f", "3f3g3h"] {
        assert!(moves.contains(m), "{m} legal again");
    }
}

/// §6.2: "A capture of a lion by a lion never creates the ban." Black's lion 3g takes White's
/// adjacent lion on 4f: no counter-strike square.
#[test]
fn lion_takes_lion_creates_no_ban() {
    let p = after(&counter_strike_position(), "3g4f");
    assert_eq!(p.counter_strike(), None);
    assert_eq!(sfen::write(&p).split(' ').nth(2), Some("-"));
}

/// §6.2 exception: a kirin that takes a lion and promotes counts as a non-lion, so the ban is set,
/// but the new lion may be taken back on the capture square. Black kirin 7e jumps to 7c taking the
/// White lion and promotes; White's gold 7b may take it back on 7c; White's silver 2f may not take
/// the Black lion on 3g.
#[test]
fn counter_strike_recapture_on_capture_square() {
    let p = chu(&[("7e", "(Kr)"), ("3g", "(Ln)"), ("7c", "(ln)"), ("7b", "g"), ("2f", "s")], "b");
    for promote in ["7e7c+", "7e7c"] {
        let q = after(&p, promote);
        assert_eq!(q.counter_strike(), Some(sq(CHU, "7c")), "{promote}");
        let moves = legal(&q);
        assert!(moves.contains("7b7c"), "{promote}: recapture on the capture square");
        assert!(!moves.contains("2f3g"), "{promote}: the silver may not take the lion on 3g");
    }
}

// ---------------------------------------------------------------------------------------------
// §8 end of the game
// ---------------------------------------------------------------------------------------------

/// §8.1: promoting the drunk elephant gives a second royal (crown prince); losing the king then
/// does not end the game, losing the prince too does. Black king 1l, drunk elephant 7e, silver 10k;
/// White king 12a, rook 1a (on the king's file), gold 6b. 7e7d+ (prince), 1a1l (king taken: play
/// goes on), 7d6c, 6b6c (prince taken: White wins). Without the promotion 1a1l wins at once.
#[test]
fn crown_prince_is_a_second_royal() {
    let pieces = [("1l", "K"), ("7e", "(DE)"), ("10k", "S"), ("12a", "k"), ("1a", "r"), ("6b", "g")];
    let mut g = game(CHU, &pieces, "b");
    play_all(&mut g, "7e7d+ 1a1l");
    assert_eq!(g.outcome(), None, "the crown prince is left");
    assert_eq!(g.position().royal_count(Color::Black), 1);
    play_all(&mut g, "7d6c 6b6c");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));

    let mut g = game(CHU, &pieces, "b");
    play_all(&mut g, "7e7d 1a1l");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));
}

/// §8.1 / README §3: after 7e7d+ Black has two royal pieces, king and crown prince; the position's
/// derived state (royal count) agrees with the board, and equals the same board read from SFEN.
#[test]
fn crown_prince_promotion_keeps_derived_state() {
    let p = chu(&[("7e", "(DE)")], "b");
    let q = after(&p, "7e7d+");
    assert_eq!(q.verify_derived_state(), Ok(()));
    assert_eq!(q.royal_count(Color::Black), 2);
    let reread = pos(CHU, &sfen::write(&q));
    assert_eq!(reread.royal_count(Color::Black), 2);
    // Taking the move back restores the position with one royal.
    let m = coord::parse(&p, "7e7d+").unwrap();
    let mut s = p.clone();
    let undo = s.play_unchecked(m);
    s.unmake(m, undo);
    assert!(s == p && s.hash() == p.hash() && s.verify_derived_state().is_ok());
    assert_eq!(s.royal_count(Color::Black), 1);
}

/// §8.2 bare king, a win: Black king 1l and gold 5e; White king 12a and pawn 5d. 5e5d leaves
/// White a lone king; Black has king + gold, is not in check, and neither stands next to 12a:
/// Black wins.
#[test]
fn bare_king_win() {
    let mut g = game(CHU, &[("1l", "K"), ("5e", "G"), ("12a", "k"), ("5d", "p")], "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
}

/// §8.2 bare king, no win: (a) the lone White king (4c) stands next to Black's only other piece
/// (the gold, on 5d after the capture); (b) Black's only other piece is an unpromoted pawn; the
/// same capture promoting (5e5d+, a tokin) does win.
#[test]
fn bare_king_no_win_cases() {
    let mut g = game(CHU, &[("1l", "K"), ("5e", "G"), ("4c", "k"), ("5d", "p")], "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), None, "the bare king stands next to the gold");

    let pawn = [("1l", "K"), ("5e", "P"), ("12a", "k"), ("5d", "p")];
    let mut g = game(CHU, &pawn, "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), None, "king + pawn does not bare");
    let mut g = game(CHU, &pawn, "b");
    play_all(&mut g, "5e5d+");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
}

/// §8.2 item 4, lone royals: White's king 12a takes Black's last piece (gold 11b) next to it, so
/// only the two kings are left, neither in check: a draw. A dead Black pawn on 5a (unpromoted, on
/// Black's last rank) is discarded and changes nothing.
#[test]
fn lone_royals_draw() {
    for extra in [None, Some(("5a", "P"))] {
        let mut pieces = vec![("1l", "K"), ("11b", "G"), ("12a", "k")];
        pieces.extend(extra);
        let mut g = game(CHU, &pieces, "w");
        play_all(&mut g, "12a11b");
        assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::BareKing }), "{extra:?}");
    }
}

/// §8.3: the fourth occurrence of a position (no checks) is a draw. Kings shuffle 1l-1k and
/// 12a-12b (both sides keep a gold); the start position recurs after plies 4, 8 and 12.
#[test]
fn fourth_repetition_is_a_draw() {
    let mut g = game(CHU, &[("1l", "K"), ("3l", "G"), ("12a", "k"), ("10a", "g")], "b");
    play_all(&mut g, "1l1k 12a12b 1k1l 12b12a 1l1k 12a12b 1k1l 12b12a 1l1k 12a12b 1k1l");
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "12b12a");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::Repetition }));
}

/// §8.3: at the fourth occurrence, a player who gave check with every move since the first
/// occurrence loses. Black's rook checks White's king along file 12 or 11 with every move
/// (11k12k, 12k11k, ...), White's king steps 12a-11a. The start position (Black to move) recurs
/// at plies 4, 8 and 12: after ply 12, White wins by perpetual check.
#[test]
fn perpetual_check_loses() {
    let mut g = game(CHU, &[("1l", "K"), ("3l", "G"), ("11k", "R"), ("12a", "k"), ("9a", "g")], "b");
    let cycle = "11k12k 12a11a 12k11k 11a12a ";
    play_all(&mut g, &cycle.repeat(3));
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::PerpetualCheck }));
}

/// §8.2 item 2 / O5: a side with no legal move loses. White to move: king 12l and golds on the
/// rest of rank l (sideways and backward blocked by own pieces), pawns on all of rank k (each
/// blocked by the gold or king in front): no White move at all, so Black has won.
#[test]
fn stalemate_loses() {
    let mut squares: Vec<(String, &str)> = Vec::new();
    for f in 1..=12 {
        squares.push((format!("{f}l"), if f == 12 { "k" } else { "g" }));
        squares.push((format!("{f}k"), "p"));
    }
    squares.push(("1a".to_string(), "K"));
    squares.push(("5c".to_string(), "G"));
    let pieces: Vec<(&str, &str)> = squares.iter().map(|(s, t)| (s.as_str(), *t)).collect();
    let g = game(CHU, &pieces, "w");
    assert!(g.position().legal_moves().is_empty());
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::NoLegalMove }));
}

// ---------------------------------------------------------------------------------------------
// Random play consistency (README §4 move identity, make/unmake, SFEN, colour symmetry)
// ---------------------------------------------------------------------------------------------

/// Positions reached by seeded random play from the chu start: every legal move has its own
/// effect, make/unmake restores the position, derived state stays consistent, SFEN round-trips,
/// and the colour-flipped position has the rotated moves and the same perft 2 (perft 3 for a few).
#[test]
fn random_play_consistency() {
    let start = Position::start(CHU);
    for seed in 0..6u64 {
        let game = random_game(&start, 0xC0FFEE + seed, 400, seed % 3);
        for (i, p) in game.iter().enumerate() {
            check_moves(p, i % 50 == 0);
            check_sfen_round_trip(p);
            if i % 10 == 0 {
                check_flip(p, if i % 100 == 50 { 3 } else { 2 });
            } else {
                check_flip(p, 0);
            }
        }
    }
}

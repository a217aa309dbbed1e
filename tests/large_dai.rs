//! Dai shogi rules, tested against the text of shared/rules/dai-shogi.md (section numbers "§"
//! refer to it) and shared/rules/README.md (move types §2, move identity §4). Expected move lists
//! are derived by hand from the rules text.
//!
//! Squares: files 15..1 from Black's left to right, ranks a (White's side) to o; Black moves
//! towards rank a; the promotion zone is ranks a–e for Black. Unless a test says otherwise
//! Black's king stands on 2o and White's on 14a, off every line through the test squares.

mod common;
mod large_support;

use std::collections::BTreeSet;

use large_support::*;
use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::{Color, EndReason, Move, Outcome, Position};

const KINGS: [(&str, &str); 2] = [("2o", "K"), ("14a", "k")];

fn dai(extra: &[(&str, &str)], side: &str) -> Position {
    let mut pieces = KINGS.to_vec();
    pieces.extend_from_slice(extra);
    position(DAI, &pieces, side)
}

/// The same pieces rotated by 180 degrees with colours swapped.
fn mirrored(extra: &[(&str, &str)]) -> Vec<(String, String)> {
    extra
        .iter()
        .map(|&(s, t)| {
            let token = if t.chars().any(|c| c.is_ascii_uppercase()) { t.to_ascii_lowercase() } else { t.to_ascii_uppercase() };
            (rot(DAI, s), token)
        })
        .collect()
}

/// Checks the moves from `from` for Black, and the mirrored moves for White in the mirrored
/// position (§3: movements are written for Black and mirrored for White).
#[track_caller]
fn check_both_colours(extra: &[(&str, &str)], from: &str, expected: &BTreeSet<String>, what: &str) {
    let p = dai(extra, "b");
    assert_moves(&moves_from(&p, from), expected, &format!("Black {what}"));
    let mirror = mirrored(extra);
    let mut pieces: Vec<(&str, &str)> = mirror.iter().map(|(s, t)| (s.as_str(), t.as_str())).collect();
    // The kings of KINGS are their own mirror image (2o <-> 14a).
    pieces.extend_from_slice(&KINGS);
    let w = position(DAI, &pieces, "w");
    assert_moves(&moves_from(&w, &rot(DAI, from)), &rot_set(DAI, expected), &format!("White {what}"));
}

// ---------------------------------------------------------------------------------------------
// §3 pieces unique to dai
// ---------------------------------------------------------------------------------------------

/// §3 / §5 violent ox (R2): one or two squares orthogonally, the second only if the first is
/// empty, stopping where it captures. On 8h with a Black pawn on 8g (forward blocked: no 8g, no
/// 8f), a White pawn on 10h (9h, then 10h capture), a White gold on 8i (capture, stop: no 8j):
/// 9h, 10h, 7h, 6h, 8i. Unobstructed: 8g, 8f, 8i, 8j, 9h, 10h, 7h, 6h.
#[test]
fn violent_ox() {
    check_both_colours(
        &[("8h", "(VO)"), ("8g", "P"), ("10h", "p"), ("8i", "g")],
        "8h",
        &set(&["8h9h", "8h10h", "8h7h", "8h6h", "8h8i"]),
        "blocked ox",
    );
    check_both_colours(&[("8h", "(VO)")], "8h", &set(&["8h8g", "8h8f", "8h8i", "8h8j", "8h9h", "8h10h", "8h7h", "8h6h"]), "free ox");
}

/// §3 / §5 flying dragon (B2): one or two squares diagonally. On 8h with a Black pawn on 9g
/// (nothing that way), a White pawn on 6f (7g, then 6f capture), a Black pawn on 7i (nothing that
/// way): 7g, 6f, 9i, 10j. The pawn on 9g is not jumped (no 10f).
#[test]
fn flying_dragon() {
    check_both_colours(
        &[("8h", "(FD)"), ("9g", "P"), ("6f", "p"), ("7i", "P")],
        "8h",
        &set(&["8h7g", "8h6f", "8h9i", "8h10j"]),
        "blocked dragon",
    );
    check_both_colours(
        &[("8h", "(FD)"), ("7g", "p")],
        "8h",
        &set(&["8h7g", "8h9g", "8h10f", "8h9i", "8h10j", "8h7i", "8h6j"]),
        "dragon capturing on 7g",
    );
}

/// §3 step pieces on 8h (with a White pawn on 7g to show captures are steps too):
/// evil wolf (fKsW): 8g, 9g, 7g, 9h, 7h; iron general (fK): 8g, 9g, 7g; stone general (fF): 9g,
/// 7g; angry boar (W): 8g, 8i, 9h, 7h; cat sword (F): 9g, 7g, 9i, 7i.
#[test]
fn step_pieces() {
    let cases: [(&str, &[&str]); 5] = [
        ("(EW)", &["8h8g", "8h9g", "8h7g", "8h9h", "8h7h"]),
        ("I", &["8h8g", "8h9g", "8h7g"]),
        ("(SG)", &["8h9g", "8h7g"]),
        ("(AB)", &["8h8g", "8h8i", "8h9h", "8h7h"]),
        ("(CS)", &["8h9g", "8h7g", "8h9i", "8h7i"]),
    ];
    for (token, expected) in cases {
        check_both_colours(&[("8h", token), ("7g", "p")], "8h", &set(expected), token);
    }
}

/// §3 knight (ffN): jumps to the two squares two ranks forward and one file aside, over anything:
/// on 8h with a Black pawn on 8g, a White pawn on 7g and a White pawn on 7f: 9f, 7f (capture).
#[test]
fn knight() {
    check_both_colours(&[("8h", "N"), ("8g", "P"), ("7g", "p"), ("7f", "p")], "8h", &set(&["8h9f", "8h7f"]), "knight");
}

/// §4.2: the soaring eagle passes only if one of its X1 squares is empty, "there is no pass when
/// X1 is off the board": a Black soaring eagle (+DK) on 8a (both forward diagonals off the board)
/// has its slides (sideways 7 + 7, backward 14, backward diagonals 7 + 7) and no pass; a horned
/// falcon (+DH) on 3a likewise (sideways, backward, backward diagonals) and no pass. (White's
/// king stands on 14c here, off rank a.)
#[test]
fn eagle_and_falcon_on_the_last_rank_cannot_pass() {
    let dai = |extra: &[(&str, &str)], side: &str| {
        let mut pieces = vec![("2o", "K"), ("14c", "k")];
        pieces.extend_from_slice(extra);
        position(DAI, &pieces, side)
    };
    let p = dai(&[("8a", "+(DK)")], "b");
    assert_moves(&moves_from(&p, "8a"), &to_moves("8a", &rays(DAI, "8a", &[(1, 0), (-1, 0), (0, 1), (1, 1), (-1, 1)])), "eagle");
    assert!(!has_pass(&p));
    let p = dai(&[("3a", "+(DH)")], "b");
    assert_moves(&moves_from(&p, "3a"), &to_moves("3a", &rays(DAI, "3a", &[(1, 0), (-1, 0), (0, 1), (1, 1), (-1, 1)])), "falcon");
    assert!(!has_pass(&p));
}

// ---------------------------------------------------------------------------------------------
// §6 promotion, compulsory promotion (O3)
// ---------------------------------------------------------------------------------------------

/// §6 / O3: a move putting an unpromoted pawn, lance, iron or stone general on the last rank, or a
/// knight on the last two ranks, must promote (only the promoting move exists, even without a
/// capture inside the zone); other moves follow rules 1–2:
/// * pawn 8b: 8a+ only; pawn 1c: 1b plain (inside, no capture, not last rank);
/// * lance 6c: 6b plain, 6a+ only; lance 4g: 4f plain (rank f is outside), 4e, 4d, 4c, 4b both,
///   4a+ only;
/// * iron 10b: 10a+, 11a+, 9a+; stone 12b: 13a+, 11a+;
/// * knight 8d: 9b+, 7b+; knight 5c: 6a+, 4a+; knight 12f: 13d, 11d both (entering); knight 3e
///   (inside): 4c, 2c plain.
#[test]
fn compulsory_promotion() {
    let pieces = [
        ("8b", "P"),
        ("1c", "P"),
        ("6c", "L"),
        ("4g", "L"),
        ("10b", "I"),
        ("12b", "(SG)"),
        ("8d", "N"),
        ("5c", "N"),
        ("12f", "N"),
        ("3e", "N"),
    ];
    let mut lance = set(&["4g4f", "4g4a+"]);
    for to in ["4e", "4d", "4c", "4b"] {
        lance.extend(both("4g", to));
    }
    let expected: [(&str, BTreeSet<String>); 10] = [
        ("8b", set(&["8b8a+"])),
        ("1c", set(&["1c1b"])),
        ("6c", set(&["6c6b", "6c6a+"])),
        ("4g", lance),
        ("10b", set(&["10b10a+", "10b11a+", "10b9a+"])),
        ("12b", set(&["12b13a+", "12b11a+"])),
        ("8d", set(&["8d9b+", "8d7b+"])),
        ("5c", set(&["5c6a+", "5c4a+"])),
        ("12f", set(&["12f13d", "12f13d+", "12f11d", "12f11d+"])),
        ("3e", set(&["3e4c", "3e2c"])),
    ];
    for (from, moves) in expected {
        check_both_colours(&pieces, from, &moves, from);
    }
}

// ---------------------------------------------------------------------------------------------
// §4.3 no lion-trading rules
// ---------------------------------------------------------------------------------------------

/// §4.3 / O1: no counter-strike. Black's gold 8i takes White's lion on 8h; White's silver 4g may
/// then take Black's lion on 4h at once, and the position has no counter-strike square (third
/// SFEN field "-").
#[test]
fn non_lion_capturing_lion_creates_no_ban() {
    let p = dai(&[("8i", "G"), ("4h", "(Ln)"), ("8h", "(ln)"), ("4g", "s")], "b");
    let q = after(&p, "8i8h");
    assert_eq!(q.counter_strike(), None);
    assert_eq!(sfen::write(&q).split(' ').nth(2), Some("-"));
    assert!(legal(&q).contains("4g4h"));
}

/// §4.3 / O1: a lion may take a protected, non-adjacent lion. Black lion 8h, White lion 8f
/// protected by White gold 8e: all 24 steps and jumps, 8f (capture) included.
#[test]
fn lion_may_take_protected_distant_lion() {
    let p = dai(&[("8h", "(Ln)"), ("8f", "(ln)"), ("8e", "g")], "b");
    let mut dests = ring(DAI, "8h", 1);
    dests.extend(ring(DAI, "8h", 2));
    assert_moves(&moves_from(&p, "8h"), &to_moves("8h", &dests), "lion");
}

/// §4.3: no pawn rule either. Black lion 8f, White pawn 8g, White lion 8h protected by the pawn:
/// the jump 8f8h and the double capture 8f8g8h are both legal, with igui on 8g and hit-and-run
/// over 8g to 9f, 7f, 9g, 7g, 9h, 7h.
#[test]
fn lion_may_take_lion_behind_a_pawn() {
    let p = dai(&[("8f", "(Ln)"), ("8g", "p"), ("8h", "(ln)")], "b");
    let mut dests = ring(DAI, "8f", 1);
    dests.extend(ring(DAI, "8f", 2));
    let mut expected = to_moves("8f", &dests);
    expected.extend(set(&["8f8g8f", "8f8g8h", "8f8g9f", "8f8g7f", "8f8g9g", "8f8g7g", "8f8g9h", "8f8g7h"]));
    assert_moves(&moves_from(&p, "8f"), &expected, "lion");
}

// ---------------------------------------------------------------------------------------------
// §7 end of the game
// ---------------------------------------------------------------------------------------------

/// §7.2: a move may not recreate an earlier position (unless the mover is in check). Black lion 8h,
/// White lion 8b. After Black passes, White's pass would recreate the start position: it is not
/// in the game's legal moves (though the position itself offers it, and perft counts it) and
/// playing it fails. A White lion step and step back is refused the same way: after "pass 8b8c
/// pass", 8c8b would recreate the start position.
#[test]
fn second_pass_in_a_row_is_illegal() {
    let mut g = game(DAI, &[("2o", "K"), ("8h", "(Ln)"), ("14a", "k"), ("8b", "(ln)")], "b");
    play_all(&mut g, "pass");
    assert!(g.position().legal_moves().contains(&Move::Pass));
    assert!(!g.legal_moves().contains(&Move::Pass));
    assert!(g.play_text("pass").is_err());
    assert!(!g.legal_moves().is_empty());

    let mut g = game(DAI, &[("2o", "K"), ("8h", "(Ln)"), ("14a", "k"), ("8b", "(ln)")], "b");
    play_all(&mut g, "pass 8b8c pass");
    let back = shogi_zero::rules::notation::coord::parse(g.position(), "8c8b").unwrap();
    assert!(g.position().legal_moves().contains(&back));
    assert!(!g.legal_moves().contains(&back));
    assert!(g.play_text("8c8b").is_err());
}

/// §7.2 check exception: with a Black rook on 14h attacking White's king on 14a along file 14,
/// White is in check after Black's pass, so White's pass (recreating the start position) is legal.
#[test]
fn second_pass_allowed_in_check() {
    let mut g = game(DAI, &[("2o", "K"), ("8h", "(Ln)"), ("14h", "R"), ("14a", "k"), ("8b", "(ln)")], "b");
    play_all(&mut g, "pass");
    assert!(g.position().in_check(Color::White));
    assert!(g.legal_moves().contains(&Move::Pass));
    play_all(&mut g, "pass");
    assert_eq!(g.outcome(), None);
}

/// §7.2 after irreversible moves: a capture or a promotion makes every earlier position
/// unreachable, but the positions since then can still be recreated, however far back the
/// capture was. Black lion 8h, rook 5h, pawn 4f; White lion 8b, pawn 5f. After 5h5f (capture) and
/// White's pass, Black's pass would recreate the position after the capture; after 5h5f 8b8c
/// 8h8g 8c8b, 8g8h would. The same after the promotion 4f4e+. Right after the capture White may
/// pass (nothing since the capture has Black to move).
#[test]
fn recreation_refused_after_capture_and_promotion() {
    let pieces = [("2o", "K"), ("8h", "(Ln)"), ("5h", "R"), ("4f", "P"), ("14a", "k"), ("8b", "(ln)"), ("5f", "p")];
    let mut g = game(DAI, &pieces, "b");
    play_all(&mut g, "5h5f");
    assert!(g.legal_moves().contains(&Move::Pass), "no earlier position with Black to move has this board");
    play_all(&mut g, "pass");
    assert!(g.position().legal_moves().contains(&Move::Pass));
    assert!(!g.legal_moves().contains(&Move::Pass), "the pass recreates the position after the capture");
    assert!(g.play_text("pass").is_err());

    for irreversible in ["5h5f", "4f4e+"] {
        let mut g = game(DAI, &pieces, "b");
        play_all(&mut g, &format!("{irreversible} 8b8c 8h8g 8c8b"));
        let back = shogi_zero::rules::notation::coord::parse(g.position(), "8g8h").unwrap();
        assert!(g.position().legal_moves().contains(&back));
        assert!(!g.legal_moves().contains(&back), "8g8h recreates the position after {irreversible}");
        assert!(g.play_text("8g8h").is_err());
        // Another way back to the same board with the other side to move is no recreation.
        play_all(&mut g, "pass 8b8c 8g8h");
        assert_eq!(g.outcome(), None);
    }
}

/// §7.2 last bullet and §7.1: a player whose every move is forbidden by the repetition rule loses.
/// White: king 15o, golds on the rest of rank o, iron generals on all of rank n (all immobile:
/// irons step forward onto rank o, golds sideways or back onto own pieces), and a go-between on
/// 8l. Black: king 1a, lion 3c. Black passes, White 8l8m, Black passes: White's only move is now
/// 8m8l (8n holds an iron), which recreates the start position; White is not in check, so White
/// has no legal move and loses.
#[test]
fn every_move_forbidden_loses() {
    let files: Vec<String> = (1..=15).map(|f| f.to_string()).collect();
    let mut squares: Vec<(String, &str)> = Vec::new();
    for f in &files {
        squares.push((format!("{f}o"), if f == "15" { "k" } else { "g" }));
        squares.push((format!("{f}n"), "i"));
    }
    squares.push(("8l".to_string(), "(gb)"));
    squares.push(("1a".to_string(), "K"));
    squares.push(("3c".to_string(), "(Ln)"));
    let pieces: Vec<(&str, &str)> = squares.iter().map(|(s, t)| (s.as_str(), *t)).collect();
    let mut g = game(DAI, &pieces, "b");
    play_all(&mut g, "pass 8l8m");
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "pass");
    assert_eq!(legal(g.position()), set(&["8m8l"]), "the position offers one move");
    assert!(!g.position().in_check(Color::White));
    assert!(g.legal_moves().is_empty());
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::NoLegalMove }));
}

/// §7.1: the crown prince (promoted drunk elephant) is a second royal; losing the king alone does
/// not end the game. Black king 2o, drunk elephant 8f, White king 14a, rook 2a (on the king's
/// file), gold 7c. 8f8e+ (entering the zone), 2a2o (king taken: play goes on), 8e7d, 7c7d (prince
/// taken: White wins).
#[test]
fn crown_prince_is_a_second_royal() {
    let mut g = game(DAI, &[("2o", "K"), ("8f", "(DE)"), ("14a", "k"), ("2a", "r"), ("7c", "g")], "b");
    play_all(&mut g, "8f8e+ 2a2o");
    assert_eq!(g.outcome(), None, "the crown prince is left");
    play_all(&mut g, "8e7d 7c7d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));
}

// ---------------------------------------------------------------------------------------------
// Random play consistency (README §4 move identity, make/unmake, SFEN, colour symmetry)
// ---------------------------------------------------------------------------------------------

/// Positions reached by seeded random play from the dai start: every legal move has its own
/// effect, make/unmake restores the position, derived state stays consistent, SFEN round-trips,
/// and the colour-flipped position has the rotated moves and the same perft 2 (3 for a few).
#[test]
fn random_play_consistency() {
    let start = Position::start(DAI);
    for seed in 0..6u64 {
        let game = random_game(&start, 0xDA1 + seed, 400, seed % 3);
        for (i, p) in game.iter().enumerate() {
            check_moves(p, i % 50 == 0);
            check_sfen_round_trip(p);
            let depth = match i % 100 {
                50 => 3,
                k if k % 10 == 0 => 2,
                _ => 0,
            };
            check_flip(p, depth);
        }
    }
}

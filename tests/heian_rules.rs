//! Heian dai shogi rules, one test per rule. Section numbers refer to
//! shared/rules/heian-dai-shogi.md. Positions are built with `common::board` from (square, piece)
//! pairs: Black upper case, White lower case, two-letter pieces in parentheses (`(FD)`).

mod common;

use std::collections::BTreeSet;

use common::{board, destinations, game, legal, moves_from, mv, play_all, pos, set, HEIAN};
use shogi_zero::rules::notation::coord;
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::{Color, EndReason, Game, GameRules, Outcome, Position};

/// Kings out of the way of the test pieces on 7g: Black's on 12m, White's on 2a.
const KINGS: [(&str, &str); 2] = [("12m", "K"), ("2a", "k")];

/// A position with the two kings of [`KINGS`], `extra` pieces, and `side` to move.
fn with_kings(extra: &[(&str, &str)], side: &str) -> Position {
    let mut pieces = KINGS.to_vec();
    pieces.extend_from_slice(extra);
    pos(HEIAN, &board(HEIAN, &pieces, side, "-"))
}

fn heian(pieces: &[(&str, &str)], side: &str) -> Position {
    pos(HEIAN, &board(HEIAN, pieces, side, "-"))
}

fn heian_game(pieces: &[(&str, &str)], side: &str) -> Game {
    game(HEIAN, &board(HEIAN, pieces, side, "-"))
}

fn squares(names: &[&str]) -> BTreeSet<String> {
    set(names)
}

// ---------------------------------------------------------------------------------------------
// Promotion (section 5, Open choices O1 and O2)
// ---------------------------------------------------------------------------------------------

/// §5 / O1: only a move that starts outside the zone (ranks a–c for Black) and ends inside it may
/// promote. Silver on 5d: 5c, 4c, 6c enter (both versions); 4e, 6e stay outside (no promotion).
#[test]
fn promotion_on_entering_the_zone() {
    let p = with_kings(&[("5d", "S")], "b");
    assert_eq!(moves_from(&p, "5d"), set(&["5d5c", "5d5c+", "5d4c", "5d4c+", "5d6c", "5d6c+", "5d4e", "5d6e"]));
}

/// §5: a move inside the zone, or leaving it, has no promoting version, capture or not. Silver on
/// 5c: 5b, 4b, 6b (inside; 6b captures a White pawn) and 4d, 6d (leaving): unpromoted only.
#[test]
fn no_promotion_inside_or_leaving_the_zone() {
    let p = with_kings(&[("5c", "S"), ("6b", "p")], "b");
    assert_eq!(moves_from(&p, "5c"), set(&["5c5b", "5c4b", "5c6b", "5c4d", "5c6d"]));
    // Free chariot on 3b: up to 3a (inside) and down out of the zone: no promotion at all.
    let p = with_kings(&[("3b", "(FC)")], "b");
    let moves = moves_from(&p, "3b");
    assert!(moves.contains("3b3a") && moves.contains("3b3l"), "{moves:?}");
    assert!(moves.iter().all(|m| !m.ends_with('+')), "{moves:?}");
    // The same free chariot entering from 3h: every destination in a–c may promote, including 3a
    // (a free chariot can always move back, so it is never forced).
    let p = with_kings(&[("3h", "(FC)")], "b");
    let moves = moves_from(&p, "3h");
    for m in ["3h3c", "3h3c+", "3h3b", "3h3b+", "3h3a", "3h3a+", "3h3d", "3h3m"] {
        assert!(moves.contains(m), "{m} missing from {moves:?}");
    }
    assert!(!moves.contains("3h3d+"), "3d is outside the zone");
}

/// §5: a piece that entered without promoting can promote later only by leaving the zone and
/// entering it again. Silver 5d enters unpromoted, cannot promote inside, leaves, re-enters with +.
#[test]
fn promotion_after_leaving_and_re_entering() {
    let mut g = game(HEIAN, &board(HEIAN, &[("12m", "K"), ("2a", "k"), ("5d", "S"), ("13f", "(gb)")], "b", "-"));
    play_all(&mut g, "5d5c 13f13g");
    assert!(moves_from(g.position(), "5c").iter().all(|m| !m.ends_with('+')), "no promotion from inside");
    play_all(&mut g, "5c4d 13g13f");
    assert!(moves_from(g.position(), "4d").contains("4d4c+"), "entering again may promote");
}

/// §5 compulsory promotion: a pawn already in the zone stepping to the last rank must promote
/// although the move does not enter the zone; its step inside the zone (3c -> 3b) cannot promote.
#[test]
fn compulsory_promotion_of_a_pawn_inside_the_zone() {
    let p = with_kings(&[("3b", "P")], "b");
    assert_eq!(moves_from(&p, "3b"), set(&["3b3a+"]));
    let p = with_kings(&[("3c", "P")], "b");
    assert_eq!(moves_from(&p, "3c"), set(&["3c3b"]));
    let p = with_kings(&[("3d", "P")], "b");
    assert_eq!(moves_from(&p, "3d"), set(&["3d3c", "3d3c+"]));
    // White: the last rank is m.
    let p = with_kings(&[("3l", "p")], "w");
    assert_eq!(moves_from(&p, "3l"), set(&["3l3m+"]));
}

/// §5 and O2: a knight landing on either of the last two ranks must promote, whether it enters the
/// zone (7d -> 6b) or is already inside (7c -> 6a). Landing on rank c from outside is optional;
/// landing outside the zone cannot promote.
#[test]
fn compulsory_promotion_of_a_knight_on_the_last_two_ranks() {
    let p = with_kings(&[("7d", "N")], "b");
    assert_eq!(moves_from(&p, "7d"), set(&["7d6b+", "7d8b+"]));
    let p = with_kings(&[("7c", "N")], "b");
    assert_eq!(moves_from(&p, "7c"), set(&["7c6a+", "7c8a+"]));
    let p = with_kings(&[("7e", "N")], "b");
    assert_eq!(moves_from(&p, "7e"), set(&["7e6c", "7e6c+", "7e8c", "7e8c+"]));
    let p = with_kings(&[("7f", "N")], "b");
    assert_eq!(moves_from(&p, "7f"), set(&["7f6d", "7f8d"]));
    // White: last two ranks l and m.
    let p = with_kings(&[("7j", "n")], "w");
    assert_eq!(moves_from(&p, "7j"), set(&["7j6l+", "7j8l+"]));
}

/// §5: a lance reaching the last rank must promote, from outside or inside the zone.
#[test]
fn compulsory_promotion_of_a_lance() {
    let p = with_kings(&[("9e", "L")], "b");
    assert_eq!(moves_from(&p, "9e"), set(&["9e9d", "9e9c", "9e9c+", "9e9b", "9e9b+", "9e9a+"]));
    let p = with_kings(&[("9c", "L")], "b");
    assert_eq!(moves_from(&p, "9c"), set(&["9c9b", "9c9a+"]));
}

/// §5: pieces that can move sideways or backward are never forced: a go between or side mover
/// stepping to the last rank from inside the zone stays unpromoted (no promotion is possible).
#[test]
fn other_pieces_are_never_forced_to_promote() {
    let p = with_kings(&[("5b", "(GB)")], "b");
    assert_eq!(moves_from(&p, "5b"), set(&["5b5a", "5b5c"]));
    let p = with_kings(&[("9b", "(SM)"), ("6b", "P")], "b");
    assert_eq!(moves_from(&p, "9b"), set(&["9b9a", "9b8b", "9b7b", "9b10b", "9b11b", "9b12b", "9b13b"]));
}

/// §5: king and gold never promote; promoted pieces never promote again.
#[test]
fn king_gold_and_promoted_pieces_never_promote() {
    let p = heian(&[("7d", "K"), ("5d", "G"), ("3d", "+S"), ("9d", "+(FD)"), ("13a", "k")], "b");
    for from in ["7d", "5d", "3d", "9d"] {
        let moves = moves_from(&p, from);
        assert!(destinations(&p, from).iter().any(|d| d.ends_with('c')), "{from} can enter the zone: {moves:?}");
        assert!(moves.iter().all(|m| !m.ends_with('+')), "{from}: {moves:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Pieces (section 3): move sets on an open board, from 7g (the centre)
// ---------------------------------------------------------------------------------------------

/// Destinations of a single Black piece on 7g, kings on 12m and 2a (on no line through 7g).
fn black_on_7g(token: &str) -> BTreeSet<String> {
    destinations(&with_kings(&[("7g", token)], "b"), "7g")
}

/// The same for a White piece on 7g, White to move (forward = towards rank m).
fn white_on_7g(token: &str) -> BTreeSet<String> {
    destinations(&with_kings(&[("7g", token)], "w"), "7g")
}

const GOLD_FROM_7G: [&str; 6] = ["7f", "6f", "8f", "6g", "8g", "7h"];

#[test]
fn king_steps_in_all_eight_directions() {
    let p = heian(&[("7g", "K"), ("2a", "k")], "b");
    assert_eq!(destinations(&p, "7g"), squares(&["6f", "7f", "8f", "6g", "8g", "6h", "7h", "8h"]));
}

#[test]
fn gold_silver_copper_iron() {
    assert_eq!(black_on_7g("G"), squares(&GOLD_FROM_7G), "gold: WfF, 6 squares");
    assert_eq!(black_on_7g("S"), squares(&["7f", "6f", "8f", "6h", "8h"]), "silver: FfW, 5 squares");
    assert_eq!(black_on_7g("C"), squares(&["7f", "7h", "6g", "8g"]), "copper: W, 4 squares");
    assert_eq!(black_on_7g("I"), squares(&["7f", "6f", "8f", "6g", "8g"]), "iron: fKsW, never backward");
    // White's pieces face the other way.
    assert_eq!(white_on_7g("i"), squares(&["7h", "6h", "8h", "6g", "8g"]), "White iron");
    assert_eq!(white_on_7g("s"), squares(&["7h", "6h", "8h", "6f", "8f"]), "White silver");
    assert_eq!(white_on_7g("g"), squares(&["7h", "6h", "8h", "6g", "8g", "7f"]), "White gold");
}

#[test]
fn knight_lance_pawn() {
    assert_eq!(black_on_7g("N"), squares(&["6e", "8e"]), "knight: two forward jumps");
    assert_eq!(black_on_7g("L"), squares(&["7f", "7e", "7d", "7c", "7b", "7a"]), "lance: forward slide");
    assert_eq!(black_on_7g("P"), squares(&["7f"]), "pawn: one step forward");
    assert_eq!(white_on_7g("n"), squares(&["6i", "8i"]));
    assert_eq!(white_on_7g("l"), squares(&["7h", "7i", "7j", "7k", "7l", "7m"]));
    assert_eq!(white_on_7g("p"), squares(&["7h"]));
    // The knight jumps over pieces in between.
    let p = with_kings(&[("7g", "N"), ("7f", "P"), ("6f", "p"), ("8f", "p")], "b");
    assert_eq!(destinations(&p, "7g"), squares(&["6e", "8e"]));
}

/// Side mover: any distance sideways, one step forward, not backward (sRfW). 6 + 6 + 1 = 13.
#[test]
fn side_mover() {
    let expected: Vec<String> = (1..=13).filter(|&f| f != 7).map(|f| format!("{f}g")).chain(["7f".to_string()]).collect();
    let expected: BTreeSet<String> = expected.into_iter().collect();
    assert_eq!(black_on_7g("(SM)"), expected);
    assert_eq!(expected.len(), 13);
    // Blocked by a friendly piece, stopped by capturing an enemy.
    let p = with_kings(&[("7g", "(SM)"), ("4g", "P"), ("10g", "p"), ("7f", "P")], "b");
    assert_eq!(destinations(&p, "7g"), squares(&["6g", "5g", "8g", "9g", "10g"]));
    assert_eq!(white_on_7g("(sm)").iter().filter(|s| !s.ends_with('g')).cloned().collect::<Vec<_>>(), vec!["7h"]);
}

/// Fierce tiger: one diagonal step, no range (F).
#[test]
fn fierce_tiger() {
    assert_eq!(black_on_7g("(FT)"), squares(&["6f", "8f", "6h", "8h"]));
}

/// Flying dragon: a bishop (B), 6 squares along each diagonal from 7g: 24.
#[test]
fn flying_dragon() {
    let d = black_on_7g("(FD)");
    assert_eq!(d.len(), 24, "{d:?}");
    for s in ["1a", "13a", "1m", "13m", "6f", "8h"] {
        assert!(d.contains(s), "{s} missing");
    }
    assert!(!d.contains("7f") && !d.contains("6g"), "no orthogonal step");
    // Blocked by its own piece, capturing the first enemy.
    let p = with_kings(&[("7g", "(FD)"), ("5e", "P"), ("9e", "p")], "b");
    let d = destinations(&p, "7g");
    assert!(d.contains("6f") && !d.contains("5e") && !d.contains("4d"));
    assert!(d.contains("8f") && d.contains("9e") && !d.contains("10d"));
}

/// +FD: the bishop slide plus one orthogonal step, the dragon-horse move (BW): 24 + 4 = 28.
#[test]
fn promoted_flying_dragon_moves_as_a_dragon_horse() {
    let d = black_on_7g("+(FD)");
    assert_eq!(d.len(), 28, "{d:?}");
    for s in ["7f", "7h", "6g", "8g", "1a", "13m"] {
        assert!(d.contains(s), "{s} missing");
    }
    assert!(!d.contains("7e") && !d.contains("5g"), "the orthogonal move is a single step");
    // A flying dragon promoting on entering the zone becomes that piece.
    let mut g = game(HEIAN, &board(HEIAN, &[("12m", "K"), ("2a", "k"), ("7d", "(FD)"), ("13k", "p")], "b", "-"));
    play_all(&mut g, "7d6c+ 13k13l");
    // From 6c: diagonals 5b 4a | 7b 8a | 5d..1h (5) | 7d..13j (7) = 16, plus 6b 6d 5c 7c.
    assert_eq!(destinations(g.position(), "6c").len(), 20, "horse on 6c: {:?}", destinations(g.position(), "6c"));
}

/// Free chariot: any distance straight forward or backward (vR): 6 + 6 = 12 from 7g.
#[test]
fn free_chariot() {
    let expected: BTreeSet<String> = "abcdefhijklm".chars().map(|r| format!("7{r}")).collect();
    assert_eq!(black_on_7g("(FC)"), expected);
    assert_eq!(expected.len(), 12);
}

/// Go between: one step straight forward or backward (vW).
#[test]
fn go_between() {
    assert_eq!(black_on_7g("(GB)"), squares(&["7f", "7h"]));
}

/// Every promoted piece other than the flying dragon moves exactly as a gold general (WfF).
#[test]
fn promoted_pieces_move_as_gold() {
    for token in ["+S", "+C", "+I", "+N", "+L", "+(SM)", "+(FT)", "+(FC)", "+(GB)", "+P"] {
        assert_eq!(black_on_7g(token), squares(&GOLD_FROM_7G), "{token}");
    }
}

// ---------------------------------------------------------------------------------------------
// Check is not a legality condition (section 4, O3)
// ---------------------------------------------------------------------------------------------

/// §4: moving the king onto an attacked square is legal. Black king 7k, White free chariot 6a on
/// an open file 6: the king may still step to 6j, 6k, 6l.
#[test]
fn moving_into_attack_is_legal() {
    let p = heian(&[("7k", "K"), ("6a", "(fc)"), ("13a", "k")], "b");
    let moves = moves_from(&p, "7k");
    assert_eq!(moves.len(), 8, "every king step is legal: {moves:?}");
    let after = p.after(mv(HEIAN, "7k6k")).unwrap();
    assert!(after.in_check(Color::Black), "6k is attacked by the free chariot");
}

/// §4: leaving one's king attacked is legal too: a pinned piece may leave the line, and a side
/// whose king is attacked may make any move.
#[test]
fn pinned_pieces_and_ignored_checks_are_legal() {
    // Black gold 7j on the file between its king 7m and White's free chariot 7a.
    let p = heian(&[("7m", "K"), ("7j", "G"), ("7a", "(fc)"), ("1a", "k")], "b");
    assert_eq!(moves_from(&p, "7j").len(), 6, "the pinned gold moves freely");
    // Black king attacked by the free chariot on 7a along the open file: a quiet gold move is legal.
    let p = heian(&[("7m", "K"), ("1j", "G"), ("7a", "(fc)"), ("1a", "k")], "b");
    assert!(p.in_check(Color::Black));
    assert!(legal(&p).contains("1j1i"));
}

// ---------------------------------------------------------------------------------------------
// End of the game (section 6)
// ---------------------------------------------------------------------------------------------

/// §6.1: capturing the king wins at once.
#[test]
fn capturing_the_king_wins() {
    let mut g = heian_game(&[("12m", "K"), ("7g", "(FC)"), ("7d", "k"), ("13a", "p")], "b");
    play_all(&mut g, "7g7d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::RoyalCaptured }));
    assert!(g.legal_moves().is_empty());
    // And for White.
    let mut g = heian_game(&[("7j", "K"), ("7d", "(fc)"), ("1a", "k"), ("13m", "P")], "w");
    play_all(&mut g, "7d7j");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));
}

/// A side without a king has no legal move (it has lost; README section 2 "Royal piece").
#[test]
fn a_side_without_king_has_no_moves() {
    let p = heian(&[("7m", "K"), ("7c", "p"), ("5c", "(fd)")], "w");
    assert!(p.legal_moves().is_empty());
    assert_eq!(perft(&p, 1), 0);
    let g = Game::new(p, GameRules::default_for(HEIAN.variant()));
    let outcome = g.outcome().expect("the game is over");
    assert_eq!(outcome.winner, Some(Color::Black));
}

/// §6.2: baring the opponent's king wins. White has king 2a and pawn 5d; Black's gold 5e takes the
/// pawn. Black keeps two pieces (gold and silver): win.
#[test]
fn bare_king_wins() {
    let mut g = heian_game(&[("12m", "K"), ("5e", "G"), ("9i", "S"), ("2a", "k"), ("5d", "p")], "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
}

/// §6.2 rule 1: when the capture leaves both sides with a bare king, the game is drawn. Black's
/// king takes White's last piece.
#[test]
fn bare_king_both_bare_is_a_draw() {
    let mut g = heian_game(&[("5e", "K"), ("2a", "k"), ("5d", "p")], "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::BareKing }));
}

/// §6.2 rule 2 / O4: the winner's only piece stands next to the bared king (which could take it
/// and bare the winner back): draw. Black's gold 2c takes the pawn on 2b, next to White's king 2a.
#[test]
fn bare_king_with_single_adjacent_piece_is_a_draw() {
    let mut g = heian_game(&[("12m", "K"), ("2c", "G"), ("2a", "k"), ("2b", "p")], "b");
    play_all(&mut g, "2c2b");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::BareKing }));
    // Diagonally adjacent counts as adjacent too: gold 3c takes a pawn on 3b, king on 2a.
    let mut g = heian_game(&[("12m", "K"), ("3c", "G"), ("2a", "k"), ("3b", "p")], "b");
    play_all(&mut g, "3c3b");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::BareKing }));
}

/// §6.2 rule 3: a single remaining piece that is not adjacent to the bared king wins.
#[test]
fn bare_king_with_single_distant_piece_wins() {
    let mut g = heian_game(&[("12m", "K"), ("5e", "G"), ("2a", "k"), ("5d", "p")], "b");
    play_all(&mut g, "5e5d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
    // Two squares away is not adjacent: gold 2d takes the pawn on 2c, the king is on 2a.
    let mut g = heian_game(&[("12m", "K"), ("2d", "G"), ("2a", "k"), ("2c", "p")], "b");
    play_all(&mut g, "2d2c");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
}

/// §6.2 rule 3: with two pieces left the winner wins even when one stands next to the bared king.
#[test]
fn bare_king_with_two_pieces_wins_even_if_adjacent() {
    let mut g = heian_game(&[("12m", "K"), ("2c", "G"), ("9i", "S"), ("2a", "k"), ("2b", "p")], "b");
    play_all(&mut g, "2c2b");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::BareKing }));
}

/// §6.2 for White as the mover (the rotated positions).
#[test]
fn bare_king_for_white() {
    let black_moves = heian(&[("12m", "K"), ("5e", "G"), ("2a", "k"), ("5d", "p")], "b");
    let mut g = Game::new(black_moves.flipped(), GameRules::default_for(HEIAN.variant()));
    play_all(&mut g, "9i9j");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::BareKing }));
    let adjacent = heian(&[("12m", "K"), ("2c", "G"), ("2a", "k"), ("2b", "p")], "b");
    let mut g = Game::new(adjacent.flipped(), GameRules::default_for(HEIAN.variant()));
    play_all(&mut g, "12k12l");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::BareKing }));
}

/// §6.2 is about the opponent of the mover only: a side that is itself bare while the opponent
/// keeps pieces plays on.
#[test]
fn own_bare_king_does_not_end_the_game() {
    let mut g = heian_game(&[("7m", "K"), ("2a", "k"), ("5d", "p"), ("13a", "p")], "b");
    play_all(&mut g, "7m7l");
    assert_eq!(g.outcome(), None);
}

/// §6.3: fourth occurrence of a position is a draw (go betweens step out and back).
#[test]
fn fourth_repetition_is_a_draw() {
    let mut g = Game::new(Position::start(HEIAN), GameRules::default_for(HEIAN.variant()));
    let cycle = "7j7i 7d7e 7i7j 7e7d";
    play_all(&mut g, &format!("{cycle} {cycle} 7j7i 7d7e 7i7j"));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "7e7d");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::Repetition }));
}

/// §6.3: perpetual check loses. Black's flying dragon shuttles between 5e and 4d, attacking White's
/// king on 1a from both (check does not have to be answered in this game, §4); White's go between
/// steps back and forth. Every Black move of the cycle leaves White's king attacked: Black loses.
#[test]
fn perpetual_check_loses() {
    let mut g = heian_game(&[("13m", "K"), ("5e", "(FD)"), ("1a", "k"), ("13d", "(gb)")], "b");
    let cycle = "5e4d 13d13e 4d5e 13e13d";
    let mut p = g.position().clone();
    for (i, m) in cycle.split(' ').enumerate() {
        p = p.after(mv(HEIAN, m)).unwrap();
        if i % 2 == 0 {
            assert!(p.in_check(Color::White), "{m} attacks the king");
        } else {
            assert!(!p.in_check(Color::Black), "{m} is quiet");
        }
    }
    play_all(&mut g, &format!("{cycle} {cycle} 5e4d 13d13e 4d5e"));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "13e13d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::PerpetualCheck }));
}

/// §1: there is no pass and there are no drops.
#[test]
fn no_pass_and_no_drops() {
    let start = Position::start(HEIAN);
    assert!(coord::parse(&start, "pass").is_err());
    assert!(coord::parse(&start, "P*7f").is_err());
    assert_eq!(legal(&start).len(), 29);
}

/// O6: the default ply cap is a draw after 1000 plies.
#[test]
fn default_ply_cap() {
    assert_eq!(GameRules::default_for(HEIAN.variant()).ply_cap, 1000);
    assert!(!GameRules::default_for(HEIAN.variant()).declaration, "no declaration in Heian dai");
}

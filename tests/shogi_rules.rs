//! Standard shogi rules, one test per rule, on hand-built positions. Section numbers refer to
//! shared/rules/shogi.md. Boards are written in the position format: ranks a (top, White's side)
//! to i, each from file 9 to file 1; Black upper case, White lower case.

mod common;

use common::{destinations, drops_of, game, legal, moves_from, mv, play_all, pos, set, sq, SHOGI};
use shogi_zero::rules::{Color, EndReason, Game, GameRules, Move, Outcome, Position};

fn squares_where(p: &Position, mut keep: impl FnMut(usize, char) -> bool, letter: &str) -> std::collections::BTreeSet<String> {
    let v = p.variant();
    let mut out = std::collections::BTreeSet::new();
    for file in 1..=9 {
        for (rank_index, rank) in ('a'..='i').enumerate() {
            let s = v.geometry.from_file_rank(file, rank_index).unwrap();
            if p.piece_at(s).is_none() && keep(file, rank) {
                out.insert(format!("{letter}*{file}{rank}"));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Drops (section 7)
// ---------------------------------------------------------------------------------------------

/// §7.2 nifu: no pawn drop on a file holding an unpromoted pawn of the dropper. Black has a pawn
/// on 7g and a tokin on 3d; White has a pawn on 2c. Expected pawn drops: every empty square of
/// ranks b–i (§7.1 forbids rank a) on every file except 7. The tokin (file 3) and the enemy
/// pawn (file 2) do not block.
#[test]
fn nifu_forbids_a_second_unpromoted_pawn_on_a_file() {
    let p = pos(SHOGI, "4k4/9/7p1/6+P2/9/9/2P6/9/4K4 b P 1");
    let expected = squares_where(&p, |file, rank| file != 7 && rank != 'a', "P");
    assert_eq!(drops_of(&p, "P"), expected);
    assert!(drops_of(&p, "P").contains("P*3e"), "a tokin on file 3 does not count as a pawn");
    assert!(drops_of(&p, "P").contains("P*2e"), "White's pawn on file 2 does not block Black");
    assert!(!drops_of(&p, "P").iter().any(|d| d.starts_with("P*7")), "file 7 holds Black's pawn");
}

/// §7.2 seen from White: White's pawn on 3c blocks file 3 for White, not Black's pawn on 7g.
#[test]
fn nifu_for_white() {
    let p = pos(SHOGI, "4k4/9/6p2/9/9/9/2P6/9/4K4 w p 1");
    let expected = squares_where(&p, |file, rank| file != 3 && rank != 'i', "P");
    assert_eq!(drops_of(&p, "P"), expected);
}

/// §7.1: a pawn or lance may not be dropped on the last rank, a knight not on the last two; a
/// gold may be dropped anywhere. Black: pawn and lance on ranks b–i, knight on c–i.
#[test]
fn no_drop_where_the_piece_could_never_move_black() {
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b GNLP 1");
    assert_eq!(drops_of(&p, "P"), squares_where(&p, |_, r| r != 'a', "P"));
    assert_eq!(drops_of(&p, "L"), squares_where(&p, |_, r| r != 'a', "L"));
    assert_eq!(drops_of(&p, "N"), squares_where(&p, |_, r| r != 'a' && r != 'b', "N"));
    assert_eq!(drops_of(&p, "G"), squares_where(&p, |_, _| true, "G"));
    assert_eq!(drops_of(&p, "G").len(), 79);
}

/// §7.1 for White: the last rank is i, the last two h and i.
#[test]
fn no_drop_where_the_piece_could_never_move_white() {
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 w gnlp 1");
    assert_eq!(drops_of(&p, "P"), squares_where(&p, |_, r| r != 'i', "P"));
    assert_eq!(drops_of(&p, "L"), squares_where(&p, |_, r| r != 'i', "L"));
    assert_eq!(drops_of(&p, "N"), squares_where(&p, |_, r| r != 'h' && r != 'i', "N"));
    assert_eq!(drops_of(&p, "G"), squares_where(&p, |_, _| true, "G"));
}

/// §5 last point / §7: a dropped piece is unpromoted even in the zone, and may promote on its
/// next move, which starts in the zone.
#[test]
fn dropped_piece_is_unpromoted_and_promotes_later() {
    let mut g = game(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b S 1");
    play_all(&mut g, "S*2c 5a4a");
    let silver = g.position().piece_at(sq(SHOGI, "2c")).unwrap();
    assert!(!silver.promoted);
    // 2c -> 2b, 1b, 3b stay in the zone, 1d and 3d leave it: all may promote (§5).
    assert_eq!(moves_from(g.position(), "2c"), set(&["2c2b", "2c2b+", "2c1b", "2c1b+", "2c3b", "2c3b+", "2c1d", "2c1d+", "2c3d", "2c3d+"]));
}

// ---------------------------------------------------------------------------------------------
// Uchifuzume (section 7.3)
// ---------------------------------------------------------------------------------------------

/// White king 1a with its own lance on 2a and pawn on 2b; Black gold on 1c guards 1b. P*1b would
/// check the king with no escape (2a, 2b occupied, the pawn defended): pawn-drop mate, illegal.
/// A gold dropped on 1b mates the same way and is legal (only pawn drops are restricted).
#[test]
fn pawn_drop_mate_is_illegal() {
    let text = "7lk/7p1/8G/9/9/9/9/9/4K4 b GP 1";
    let p = pos(SHOGI, text);
    let moves = legal(&p);
    assert!(!moves.contains("P*1b"), "P*1b is pawn-drop mate (§7.3)");
    assert!(moves.contains("P*3b"), "other pawn drops stay legal");
    assert!(moves.contains("G*1b"), "a gold drop that mates is legal (§7.3)");
    // The gold drop does mate: the game ends by checkmate.
    let mut g = game(SHOGI, text);
    play_all(&mut g, "G*1b");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::Checkmate }));
}

/// Same position without the guarding gold: P*1b checks, but the king takes the pawn, so the
/// drop is legal (§7.3: a pawn-drop check that is not mate).
#[test]
fn pawn_drop_check_that_is_not_mate_is_legal() {
    let p = pos(SHOGI, "7lk/7p1/9/9/9/9/9/9/4K4 b P 1");
    assert!(legal(&p).contains("P*1b"));
    let after = p.after(mv(SHOGI, "P*1b")).unwrap();
    assert!(after.in_check(Color::White));
    assert_eq!(legal(&after), set(&["1a1b"]), "the king's only answer is to take the pawn");
}

/// A pawn-drop check with an escape square is legal too (§7.3): White king 1a, own lance 2a,
/// 2b empty; Black knight 2d guards 1b (and 3b), not 2b. After P*1b the king escapes to 2b.
#[test]
fn pawn_drop_check_with_an_escape_is_legal() {
    let p = pos(SHOGI, "7lk/9/9/7N1/9/9/9/9/4K4 b P 1");
    assert!(legal(&p).contains("P*1b"), "the king escapes to 2b: not mate");
    let after = p.after(mv(SHOGI, "P*1b")).unwrap();
    assert_eq!(legal(&after), set(&["1a2b"]));
}

/// §7.3: a pawn *moved* (not dropped) that mates is legal. Black pawn 1c, gold 2c guarding 1b;
/// White king 1a boxed in by its lance 2a and pawn 2b. 1c1b (and 1c1b+, optional in the zone)
/// mate and are legal; playing 1c1b ends the game by checkmate.
#[test]
fn pawn_move_that_mates_is_legal() {
    let text = "7lk/7p1/7GP/9/9/9/9/9/4K4 b - 1";
    let p = pos(SHOGI, text);
    assert_eq!(moves_from(&p, "1c"), set(&["1c1b", "1c1b+"]));
    let mut g = game(SHOGI, text);
    play_all(&mut g, "1c1b");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::Checkmate }));
}

/// §7.3 with a pin: White king 1a, White gold 2a (which could take on 1b) pinned along rank a by
/// Black's rook on 5a; White pawn 2b; Black knight 2d guards 1b. After P*1b White's only
/// capturer is pinned and the king cannot take a guarded pawn: mate, so the drop is illegal.
/// Without the rook the gold takes the pawn and the same drop is legal.
#[test]
fn pawn_drop_mate_when_the_only_capturer_is_pinned_is_illegal() {
    let pinned = pos(SHOGI, "4R2gk/7p1/9/7N1/9/9/9/9/4K4 b P 1");
    assert!(!legal(&pinned).contains("P*1b"), "the gold on 2a is pinned: P*1b is pawn-drop mate");
    let free = pos(SHOGI, "7gk/7p1/9/7N1/9/9/9/9/4K4 b RP 1");
    assert!(legal(&free).contains("P*1b"), "the gold can take on 1b: P*1b is not mate");
    let after = free.after(mv(SHOGI, "P*1b")).unwrap();
    assert_eq!(legal(&after), set(&["2a1b"]), "White's only answer is the gold capture");
}

/// §7.3 restricts only pawn drops that give check: P*1c (no check) next to the boxed-in king on
/// 1a is legal.
#[test]
fn pawn_drop_without_check_is_not_restricted() {
    let p = pos(SHOGI, "7lk/7p1/9/9/9/9/9/9/4K4 b P 1");
    assert!(legal(&p).contains("P*1c"));
}

// ---------------------------------------------------------------------------------------------
// Promotion (section 5)
// ---------------------------------------------------------------------------------------------

/// §5: a pawn or lance moving to the last rank must promote; a knight landing on the last two
/// ranks must promote. Only the `+` move exists there.
#[test]
fn forced_promotion_black() {
    // Pawn 3b -> 3a: only 3b3a+.
    let p = pos(SHOGI, "k8/6P2/9/9/9/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "3b"), set(&["3b3a+"]));
    // Lance 9e: 9d (outside the zone, no promotion), 9c and 9b (entering: optional), 9a (forced).
    let p = pos(SHOGI, "4k4/9/9/9/L8/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "9e"), set(&["9e9d", "9e9c", "9e9c+", "9e9b", "9e9b+", "9e9a+"]));
    // Knight 7d -> 6b, 8b: last two ranks, forced.
    let p = pos(SHOGI, "4k4/9/9/2N6/9/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "7d"), set(&["7d6b+", "7d8b+"]));
    // Knight 7c -> 6a, 8a: forced as well (the move starts in the zone).
    let p = pos(SHOGI, "4k4/9/2N6/9/9/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "7c"), set(&["7c6a+", "7c8a+"]));
    // Knight 7e -> 6c, 8c: rank c is in the zone but not among the last two: optional.
    let p = pos(SHOGI, "4k4/9/9/9/2N6/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "7e"), set(&["7e6c", "7e6c+", "7e8c", "7e8c+"]));
    // Knight 7f -> 6d, 8d: outside the zone, no promotion.
    let p = pos(SHOGI, "4k4/9/9/9/9/2N6/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "7f"), set(&["7f6d", "7f8d"]));
}

/// §5 for White: last rank i, last two ranks h and i.
#[test]
fn forced_promotion_white() {
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/2p6/K8 w - 1");
    assert_eq!(moves_from(&p, "7h"), set(&["7h7i+"]));
    let p = pos(SHOGI, "4k4/9/9/9/8l/9/9/9/4K4 w - 1");
    assert_eq!(moves_from(&p, "1e"), set(&["1e1f", "1e1g", "1e1g+", "1e1h", "1e1h+", "1e1i+"]));
    let p = pos(SHOGI, "4k4/9/9/9/9/6n2/9/9/4K4 w - 1");
    assert_eq!(moves_from(&p, "3f"), set(&["3f2h+", "3f4h+"]));
}

/// §5: promotion is optional on a move that enters the zone, moves inside it, or leaves it, capture
/// or not; a move entirely outside the zone cannot promote.
#[test]
fn optional_promotion_entering_inside_and_leaving_the_zone() {
    // Silver on 5d (outside): 5c, 4c, 6c enter the zone (both versions); 4e, 6e stay out.
    let p = pos(SHOGI, "k8/9/9/4S4/9/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "5d"), set(&["5d5c", "5d5c+", "5d4c", "5d4c+", "5d6c", "5d6c+", "5d4e", "5d6e"]));
    // Silver on 5b (inside): every move starts in the zone, so every move may promote: 5a, 4a,
    // the capture of the White gold on 6a, and the retreats to 4c and 6c.
    let p = pos(SHOGI, "k2g5/4S4/9/9/9/9/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "5b"), set(&["5b5a", "5b5a+", "5b4a", "5b4a+", "5b6a", "5b6a+", "5b4c", "5b4c+", "5b6c", "5b6c+"]));
    // Silver on 5c leaving the zone backwards to 4d and 6d may promote (the move starts inside).
    let p = pos(SHOGI, "k8/9/4S4/9/9/9/9/9/4K4 b - 1");
    let moves = moves_from(&p, "5c");
    for m in ["5c4d", "5c4d+", "5c6d", "5c6d+", "5c5b", "5c5b+"] {
        assert!(moves.contains(m), "{m} missing from {moves:?}");
    }
    // A bishop on 3c leaving the zone far away (3c -> 7g) may promote; capture or not.
    let p = pos(SHOGI, "k8/9/6B2/9/9/9/2p6/9/4K4 b - 1");
    let moves = moves_from(&p, "3c");
    assert!(moves.contains("3c7g") && moves.contains("3c7g+"), "{moves:?}");
    assert!(moves.contains("3c5e") && moves.contains("3c5e+"), "{moves:?}");
    // A rook entering the zone from 2h: 2c, 2b, 2a may promote, 2d..2g may not.
    let p = pos(SHOGI, "k8/9/9/9/9/9/9/7R1/4K4 b - 1");
    let moves = moves_from(&p, "2h");
    for m in ["2h2c", "2h2c+", "2h2b", "2h2b+", "2h2a", "2h2a+", "2h2d", "2h2g"] {
        assert!(moves.contains(m), "{m} missing");
    }
    for m in ["2h2d+", "2h2g+", "2h5h+", "2h2i+"] {
        assert!(!moves.contains(m), "{m} must not exist");
    }
}

/// §5: a piece that declined promotion may promote on a later move starting or ending in the zone
/// ("no entering-only restriction"). Unpromoted silver on 5b steps 5b -> 5a with promotion.
#[test]
fn declined_promotion_can_be_taken_later() {
    let mut g = game(SHOGI, "k8/9/9/4S4/9/9/9/9/4K4 b - 1");
    play_all(&mut g, "5d5c 9a9b");
    assert!(moves_from(g.position(), "5c").contains("5c5b+"), "moving inside the zone may promote");
    play_all(&mut g, "5c5b 9b9a");
    assert!(moves_from(g.position(), "5b").contains("5b4c+"), "moving inside the zone may promote");
}

/// §5: king and gold never promote, promoted pieces never promote again.
#[test]
fn king_gold_and_promoted_pieces_never_promote() {
    let p = pos(SHOGI, "k8/9/2G1+R1+P2/9/4K4/9/9/9/9 b - 1");
    for from in ["7c", "5c", "3c", "5e"] {
        let moves = moves_from(&p, from);
        assert!(!moves.is_empty(), "{from} has moves");
        assert!(moves.iter().all(|m| !m.ends_with('+')), "{from}: {moves:?}");
    }
    // A king inside the zone does not promote either.
    let p = pos(SHOGI, "k8/9/4K4/9/9/9/9/9/9 b - 1");
    assert!(moves_from(&p, "5c").iter().all(|m| !m.ends_with('+')));
}

// ---------------------------------------------------------------------------------------------
// Check and legality (section 6)
// ---------------------------------------------------------------------------------------------

/// §6: a pinned piece may only move along the pin line. Silver 5h pinned on file 5 by the rook on
/// 5a: only 5h5g stays on the line. Gold 4h pinned diagonally by the bishop on 1e: only 4h3g.
/// Rook 5f pinned on file 5 by the lance on 5a: it moves along the file (capturing the lance
/// included), never sideways.
#[test]
fn pinned_pieces_stay_on_the_line() {
    let p = pos(SHOGI, "k3r4/9/9/9/9/9/9/4S4/4K4 b - 1");
    assert_eq!(moves_from(&p, "5h"), set(&["5h5g"]));
    let p = pos(SHOGI, "k8/9/9/9/8b/9/9/5G3/4K4 b - 1");
    assert_eq!(moves_from(&p, "4h"), set(&["4h3g"]));
    let p = pos(SHOGI, "k3l4/9/9/9/9/4R4/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "5f"), set(&["5f5e", "5f5d", "5f5c", "5f5c+", "5f5b", "5f5b+", "5f5a", "5f5a+", "5f5g", "5f5h"]));
}

/// §6: the king may not move onto an attacked square. King 5i; White rook 4a covers file 4 (4h,
/// 4i), White knight 7f covers 6h and 8h. Legal king moves: 5h and 6i only.
#[test]
fn king_cannot_move_into_check() {
    let p = pos(SHOGI, "k4r3/9/9/9/9/2n6/9/9/4K4 b - 1");
    assert_eq!(moves_from(&p, "5i"), set(&["5i5h", "5i6i"]));
}

/// §6: in check from a rook on the file, the king may not step back along that file (the square
/// behind it is attacked through the king's own square), and a defended checker cannot be taken
/// by the king. King 5h, White rook 5a checks; Black has nothing else.
#[test]
fn king_cannot_retreat_along_the_checking_line() {
    let p = pos(SHOGI, "k3r4/9/9/9/9/9/9/4K4/9 b - 1");
    assert!(p.in_check(Color::Black));
    assert_eq!(legal(&p), set(&["5h4g", "5h4h", "5h4i", "5h6g", "5h6h", "5h6i"]));
    // A defended checker next to the king: White pawn 5h checks the king on 5i and is guarded by
    // the White gold on 5g, which also covers 4h and 6h. Only 4i and 6i remain.
    let p = pos(SHOGI, "k8/9/9/9/9/9/4g4/4p4/4K4 b - 1");
    assert!(p.in_check(Color::Black), "the pawn on 5h checks the king on 5i");
    assert_eq!(destinations(&p, "5i"), set(&["4i", "6i"]));
}

/// §6: a check must be answered; moves that ignore it are illegal. White rook 5a checks the king on
/// 5i along the open file; Black may move the king off the file or drop its gold in between; the
/// lance on 1i has no answer to the check.
#[test]
fn check_must_be_answered() {
    let p = pos(SHOGI, "k3r4/9/9/9/9/9/9/9/4K3L b G 1");
    let moves = legal(&p);
    // The lance on 1i does nothing against the check.
    assert!(moves.iter().all(|m| !m.starts_with("1i")), "{moves:?}");
    // Gold drops must land between the rook and the king: 5b..5h.
    let drops = drops_of(&p, "G");
    assert_eq!(drops, set(&["G*5b", "G*5c", "G*5d", "G*5e", "G*5f", "G*5g", "G*5h"]));
    assert_eq!(moves.len(), 7 + 4, "7 interpositions and the king steps to 4h, 4i, 6h, 6i: {moves:?}");
}

// ---------------------------------------------------------------------------------------------
// End of the game (section 8)
// ---------------------------------------------------------------------------------------------

/// §6 / §8.1: the checkmated side loses; the game offers no more moves and refuses to play on.
#[test]
fn checkmate_ends_the_game() {
    let mut g = game(SHOGI, "7lk/7p1/8G/9/9/9/9/9/4K4 b G 1");
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "G*1b");
    let outcome = Some(Outcome { winner: Some(Color::Black), reason: EndReason::Checkmate });
    assert_eq!(g.outcome(), outcome);
    assert!(g.legal_moves().is_empty());
    assert!(g.position().legal_moves().is_empty());
    assert!(g.position().in_check(Color::White));
    assert!(g.play_text("1a2b").is_err(), "no move after the end");
    // A game started from the mated position is over at once.
    let g = Game::new(g.position().clone(), GameRules::default_for(SHOGI.variant()));
    assert_eq!(g.outcome(), outcome);
}

/// §6 and Open choice O1: no legal move without being in check also loses. White king 1a; Black
/// gold 2c covers 1b and 2b, Black knight 3c covers 2a; the king is not in check and White has
/// nothing else.
#[test]
fn no_legal_move_without_check_loses() {
    let p = pos(SHOGI, "8k/9/6NG1/9/9/9/9/9/K8 w - 1");
    assert!(!p.in_check(Color::White));
    assert!(p.legal_moves().is_empty());
    let g = Game::new(p, GameRules::default_for(SHOGI.variant()));
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::NoLegalMove }));
}

/// §8.2: the fourth occurrence of the same position (same pieces, hands and side to move) is a
/// draw. Both rooks step aside and back: the start position recurs after plies 4, 8 and 12.
#[test]
fn fourth_repetition_is_a_draw() {
    let mut g = game(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    play_all(&mut g, "2h1h 8b9b 1h2h 9b8b 2h1h 8b9b 1h2h 9b8b 2h1h 8b9b 1h2h");
    assert_eq!(g.outcome(), None, "third occurrence only so far (11 plies)");
    play_all(&mut g, "9b8b");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::Repetition }));
    assert!(g.legal_moves().is_empty());
}

/// §8.2: a position is the same only with the same hands. The kings shuffle until the start
/// position has occurred three times (plies 0, 4, 8). Then Black drops its pawn with check, White's
/// king takes it, and the kings come back: at ply 14 the board and side to move are those of the
/// start, but the pawn is now in White's hand, so this is a new position, not a fourth occurrence.
/// It becomes a draw only after it has itself occurred four times (plies 14, 18, 22, 26).
#[test]
fn repetition_needs_the_same_hands() {
    let start = "4k4/9/9/9/9/9/9/9/4K4 b P 1";
    let shuffle = "5i5h 5a5b 5h5i 5b5a";
    let mut g = game(SHOGI, start);
    play_all(&mut g, &format!("{shuffle} {shuffle} P*5b 5a5b 5i5h 5b4a 5h5i 4a5a"));
    assert_eq!(g.moves().len(), 14);
    let board = |p: &Position| p.to_string().split(' ').next().unwrap().to_string();
    assert_eq!(board(g.position()), board(&pos(SHOGI, start)), "the board of the start is back");
    assert_eq!(g.outcome(), None, "different hands: not a repetition of the start position");
    play_all(&mut g, &format!("{shuffle} {shuffle} 5i5h 5a5b 5h5i"));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "5b5a");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::Repetition }));
}

/// §8.2 / Open choice O4: perpetual check loses. White king 1a can only shuttle between 1a and 1b;
/// Black's rook checks it along rank a from 9a and along rank b from 9b. Black knight 1c covers
/// 2a, silver 3c covers 2b, gold 2d covers 2c and 1c. After 12 plies the start position occurs the
/// fourth time with every Black move a check: Black, the checker, loses.
#[test]
fn perpetual_check_loses_for_the_checker() {
    let text = "8k/R8/6S1N/7G1/9/9/9/9/K8 b - 1";
    let mut g = game(SHOGI, text);
    let cycle = "9b9a 1a1b 9a9b 1b1a";
    // Every Black move of the cycle checks; White's replies are forced.
    let mut p = g.position().clone();
    for (i, m) in cycle.split(' ').enumerate() {
        p = p.after(mv(SHOGI, m)).unwrap();
        if i % 2 == 0 {
            assert!(p.in_check(Color::White), "{m} gives check");
            assert_eq!(p.legal_moves().len(), 1, "after {m} White has exactly one reply");
        } else {
            assert!(!p.in_check(Color::Black));
        }
    }
    play_all(&mut g, &format!("{cycle} {cycle} 9b9a 1a1b 9a9b"));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "1b1a");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::PerpetualCheck }));
}

/// The same with colours reversed (the position rotated): White checks perpetually and loses.
#[test]
fn perpetual_check_by_white_loses_for_white() {
    let black_checks = pos(SHOGI, "8k/R8/6S1N/7G1/9/9/9/9/K8 b - 1");
    let mut g = Game::new(black_checks.flipped(), GameRules::default_for(SHOGI.variant()));
    let cycle = "1h1i 9i9h 1i1h 9h9i";
    play_all(&mut g, &format!("{cycle} {cycle} {cycle}"));
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::PerpetualCheck }));
}

/// §8.2: a repetition in which neither side checked on every move is a plain draw. Black's rook
/// alternates between 9c (quiet) and 9a (check along rank a); White's king steps between 5a and 5b.
#[test]
fn repetition_with_checks_on_some_moves_only_is_a_draw() {
    let mut g = game(SHOGI, "4k4/9/R8/9/9/9/9/9/4K4 b - 1");
    assert!(g.position().after(mv(SHOGI, "9c9a")).unwrap().in_check(Color::White), "9c9a checks");
    let cycle = "9c9a 5a5b 9a9c 5b5a";
    play_all(&mut g, &format!("{cycle} {cycle} 9c9a 5a5b 9a9c"));
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "5b5a");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::Repetition }));
}

// ---------------------------------------------------------------------------------------------
// 27-point declaration (section 8.4, Open choice O2)
// ---------------------------------------------------------------------------------------------

/// Black king 5b in the camp with 10 pieces there: dragon (+R, counts 5) 9b, bishop 1b, and the
/// eight minor pieces on rank c (8 points): 18 points on the board. `hand` adds pawns (1 each).
/// White's remaining pieces are in White's hand; White's king stands on 5h.
fn declaration_position(black_pawns: u32, side: char) -> String {
    let white_pawns = 18 - black_pawns;
    format!("9/+R3K3B/LNSG1GSNL/9/9/9/9/4k4/9 {side} {black_pawns}Prb2g2s2n2l{white_pawns}p 1")
}

fn declaration_game(text: &str) -> Game {
    game(SHOGI, text)
}

/// §8.4: 18 points in the camp + 10 pawns in hand = 28 for Black: a valid declaration, offered
/// among the legal moves; playing it wins.
#[test]
fn declaration_valid_for_black_with_28_points() {
    let mut g = declaration_game(&declaration_position(10, 'b'));
    assert!(g.can_declare());
    assert!(g.legal_moves().contains(&Move::Declare));
    g.play(Move::Declare).expect("a valid declaration can be played");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::Black), reason: EndReason::Declaration }));
}

/// §8.4: Black needs 28; with 27 points the declaration is not valid and not offered.
#[test]
fn declaration_with_27_points_is_invalid_for_black() {
    let mut g = declaration_game(&declaration_position(9, 'b'));
    assert!(!g.can_declare());
    assert!(!g.legal_moves().contains(&Move::Declare));
    assert!(g.play(Move::Declare).is_err(), "an invalid declaration is refused");
    assert_eq!(g.outcome(), None);
}

/// §8.4: White needs only 27. The 27-point position rotated, White to move: valid.
#[test]
fn declaration_with_27_points_is_valid_for_white() {
    let black = pos(SHOGI, &declaration_position(9, 'b'));
    let mut g = Game::new(black.flipped(), GameRules::default_for(SHOGI.variant()));
    assert_eq!(g.position().side_to_move(), Color::White);
    assert!(g.can_declare());
    assert!(g.legal_moves().contains(&Move::Declare));
    g.play(Move::Declare).unwrap();
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::Declaration }));
    // And 26 points is too few for White.
    let black = pos(SHOGI, &declaration_position(8, 'b'));
    let g = Game::new(black.flipped(), GameRules::default_for(SHOGI.variant()));
    assert!(!g.can_declare());
}

/// §8.4 condition 2: at least 10 pieces besides the king in the camp. Move the lance from 1c to
/// 1d (9 pieces in the camp) and give Black 13 pawns in hand (17 + 13 = 30 points): invalid.
#[test]
fn declaration_needs_ten_pieces_in_the_camp() {
    let text = "9/+R3K3B/LNSG1GSN1/8L/9/9/9/4k4/9 b 13Prb2g2s2n2l5p 1";
    let g = declaration_game(text);
    assert!(!g.can_declare());
    assert!(!g.legal_moves().contains(&Move::Declare));
    // Back in the camp (1d -> 1c), it is valid again.
    let g = declaration_game("9/+R3K3B/LNSG1GSNL/9/9/9/9/4k4/9 b 13Prb2g2s2n2l5p 1");
    assert!(g.can_declare());
}

/// §8.4 condition 4: the king must not be in check. A White pawn on 5a checks the king on 5b.
#[test]
fn declaration_invalid_in_check() {
    let g = declaration_game("4p4/+R3K3B/LNSG1GSNL/9/9/9/9/4k4/9 b 10Prb2g2s2n2l7p 1");
    assert!(g.position().in_check(Color::Black));
    assert!(!g.can_declare());
    assert!(!g.legal_moves().contains(&Move::Declare));
}

/// §8.4 condition 1: the king must stand in the enemy camp. King on 5d instead of 5b: invalid.
#[test]
fn declaration_needs_the_king_in_the_camp() {
    let g = declaration_game("9/+R7B/LNSG1GSNL/4K4/9/9/9/4k4/9 b 10Prb2g2s2n2l8p 1");
    assert!(!g.can_declare());
}

/// §8.4 / O2: the declaration is an option of the game rules; switched off, it is never offered.
#[test]
fn declaration_can_be_switched_off() {
    let p = pos(SHOGI, &declaration_position(10, 'b'));
    let g = Game::new(p, GameRules { declaration: false, ..GameRules::default_for(SHOGI.variant()) });
    assert!(!g.can_declare());
    assert!(!g.legal_moves().contains(&Move::Declare));
}

// ---------------------------------------------------------------------------------------------
// Game length (section 8.5, Open choice O3)
// ---------------------------------------------------------------------------------------------

/// §8.1: an illegal move is never played: the game refuses it and stays as it was (forced
/// promotion declined, nifu, a move into check, a pawn-drop mate).
#[test]
fn illegal_moves_are_refused() {
    let mut g = game(SHOGI, "4k4/6P2/9/9/9/9/2P6/9/4K4 b P 1");
    let before = g.position().clone();
    for text in ["3b3a", "P*7e", "7g7e", "5i5g"] {
        assert!(g.play_text(text).is_err(), "{text} must be refused");
        assert_eq!(g.position(), &before);
        assert!(g.moves().is_empty());
    }
    let mut g = game(SHOGI, "7lk/7p1/8G/9/9/9/9/9/4K4 b P 1");
    assert!(g.play_text("P*1b").is_err(), "pawn-drop mate is refused");
    assert_eq!(g.outcome(), None);
}

/// O3: a configurable ply cap; reaching it is a draw.
#[test]
fn ply_cap_draw() {
    let rules = GameRules { ply_cap: 4, declaration: true };
    let mut g = Game::new(Position::start(SHOGI), rules);
    play_all(&mut g, "7g7f 3c3d 2g2f");
    assert_eq!(g.outcome(), None);
    play_all(&mut g, "8c8d");
    assert_eq!(g.outcome(), Some(Outcome { winner: None, reason: EndReason::PlyCap }));
    assert!(g.play_text("2f2e").is_err());
}

/// O3 suggests 512 plies for shogi self-play by default; the declaration is on by default (O2).
#[test]
fn default_rules() {
    let rules = GameRules::default_for(SHOGI.variant());
    assert_eq!(rules, GameRules { ply_cap: 512, declaration: true });
}

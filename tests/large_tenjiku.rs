//! Tenjiku shogi rules, tested against the text of shared/rules/tenjiku-shogi.md (section numbers
//! "§" refer to it) and shared/rules/README.md (move types §2, move identity §4). Expected move
//! lists are derived by hand from the rules text; the geometry helpers of `large_support` (rays,
//! rings) only list squares.
//!
//! Squares: files 16..1 from Black's left to right, ranks a (White's side) to p; Black moves
//! towards rank a; the promotion zone is ranks a–e for Black. Abbreviations: FD = fire demon,
//! CS = chariot soldier (+CS = heavenly tetrarch). Unless a test says otherwise Black's king
//! stands on 1p and White's on 16a: off every line through 8h (the diagonals from 8h end on 15a
//! and 1o) and far from the pieces under test.

mod common;
mod large_support;

use std::collections::BTreeSet;

use large_support::*;
use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::{Color, EndReason, Move, Outcome, Position};

const KINGS: [(&str, &str); 2] = [("1p", "K"), ("16a", "k")];

fn tenjiku(extra: &[(&str, &str)], side: &str) -> Position {
    let mut pieces = KINGS.to_vec();
    pieces.extend_from_slice(extra);
    position(TENJIKU, &pieces, side)
}

fn rays_t(s: &str, dirs: &[(i32, i32)]) -> Vec<String> {
    rays(TENJIKU, s, dirs)
}

const ALL_LINES: [(i32, i32); 8] = [(0, -1), (0, 1), (1, 0), (-1, 0), (1, -1), (-1, -1), (1, 1), (-1, 1)];

/// The board field and side to move of a position (its SFEN less the move number).
fn board_and_side(p: &Position) -> String {
    let text = sfen::write(p);
    text.rsplit_once(' ').unwrap().0.to_string()
}

/// What `board_and_side` gives for a position with `pieces` (kings added) and `side` to move.
fn expected_board(pieces: &[(&str, &str)], side: &str) -> String {
    board_and_side(&tenjiku(pieces, side))
}

fn has(p: &Position, s: &str, token: &str) -> bool {
    p.piece_at(sq(TENJIKU, s)).map(|x| sfen::piece_token(p.variant(), x)) == Some(token.to_string())
}

// ---------------------------------------------------------------------------------------------
// §5.6 worked counts
// ---------------------------------------------------------------------------------------------

/// Moves of the piece on 8h (from 8h) plus one if the pass is legal.
fn count_from_8h(p: &Position) -> usize {
    moves_from(p, "8h").len() + usize::from(has_pass(p))
}

/// §5.6 (a single Black piece on 8h, each effect once):
/// * fire demon 75 = 48 area squares (the 7×7 block) + 26 further slide squares sideways and
///   diagonally + pass;
/// * vice general 66 = 48 + 17 further diagonal squares + pass;
/// * heavenly tetrarch 42 = forward 6 and backward 7 (skipping the first square), sideways 2 + 2
///   (2nd and 3rd squares), diagonals 6 + 6 + 7 + 6, no pass;
/// * free eagle 59 queen squares, no pass;
/// * lion hawk 46 = 24 squares of the 5×5 block + 21 further diagonal squares + pass;
/// * great general 59 queen squares.
///
/// Each also as the promoted form that moves the same (+WB, +BG, +Q, +Ln, +RG; §3.2 list).
#[test]
fn worked_counts() {
    let diagonal = DIAGONAL.to_vec();
    let demon_lines = [DIAGONAL.to_vec(), SIDEWAYS.to_vec()].concat();
    let union = |a: Vec<String>, b: Vec<String>| -> BTreeSet<String> { to_moves("8h", &[a, b].concat()) };
    let tetrarch: Vec<String> = [(0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]
        .iter()
        .flat_map(|&(df, dr)| ray(TENJIKU, "8h", df, dr).into_iter().skip(1))
        .chain(SIDEWAYS.iter().flat_map(|&(df, dr)| ray(TENJIKU, "8h", df, dr).into_iter().skip(1).take(2)))
        .collect();
    let cases: Vec<(&str, BTreeSet<String>, bool, usize)> = vec![
        ("(FD)", union(within(TENJIKU, "8h", 3), rays_t("8h", &demon_lines)), true, 75),
        ("+(WB)", union(within(TENJIKU, "8h", 3), rays_t("8h", &demon_lines)), true, 75),
        ("(VG)", union(within(TENJIKU, "8h", 3), rays_t("8h", &diagonal)), true, 66),
        ("+(BG)", union(within(TENJIKU, "8h", 3), rays_t("8h", &diagonal)), true, 66),
        ("+(CS)", to_moves("8h", &tetrarch), false, 42),
        ("(FE)", to_moves("8h", &rays_t("8h", &ALL_LINES)), false, 59),
        ("+Q", to_moves("8h", &rays_t("8h", &ALL_LINES)), false, 59),
        ("(LH)", union(within(TENJIKU, "8h", 2), rays_t("8h", &diagonal)), true, 46),
        ("+(Ln)", union(within(TENJIKU, "8h", 2), rays_t("8h", &diagonal)), true, 46),
        ("(GG)", to_moves("8h", &rays_t("8h", &ALL_LINES)), false, 59),
        ("+(RG)", to_moves("8h", &rays_t("8h", &ALL_LINES)), false, 59),
    ];
    for (token, expected, pass, count) in cases {
        let p = tenjiku(&[("8h", token)], "b");
        assert_eq!(expected.len() + usize::from(pass), count, "{token}: the hand-made list");
        assert_moves(&moves_from(&p, "8h"), &expected, token);
        assert_eq!(has_pass(&p), pass, "{token} pass");
        assert_eq!(count_from_8h(&p), count, "{token}");
        // The same for White: the flipped position, from the rotated square (8i).
        let f = p.flipped();
        assert_eq!(moves_from(&f, &rot(TENJIKU, "8h")).len() + usize::from(has_pass(&f)), count, "{token} as White");
    }
}

/// §3.1 / §3.2 pieces that only tenjiku has, on 8h of an empty board (each with the kings only).
/// A promotable piece entering the zone (ranks a–e) from 8h may promote: those moves come in
/// pairs. Water buffalo: sideways and diagonal slides, 8g, 8f, 8i, 8j (range 2 vertically).
/// Chariot soldier: vertical and diagonal slides, 9h, 10h, 7h, 6h (range 2 sideways). Vertical
/// soldier: forward slide, 8i (one back), 9h, 10h, 7h, 6h. Side soldier: sideways slides, 8g, 8f
/// (range 2 forward), 8i. Dog: 8g, 9i, 7i. Multi general (+D, does not promote): forward slide
/// and backward diagonal slides.
#[test]
fn tenjiku_only_pieces() {
    let promo = |dests: Vec<String>, promotable: bool| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for d in dests {
            if promotable && file_rank(TENJIKU, &d).1 <= 4 {
                out.insert(format!("8h{d}+"));
            }
            out.insert(format!("8h{d}"));
        }
        out
    };
    let list = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    let cases: Vec<(&str, Vec<String>, bool)> = vec![
        ("(WB)", [rays_t("8h", &[(1, 0), (-1, 0)]), rays_t("8h", &DIAGONAL), list(&["8g", "8f", "8i", "8j"])].concat(), true),
        ("(CS)", [rays_t("8h", &[(0, -1), (0, 1)]), rays_t("8h", &DIAGONAL), list(&["9h", "10h", "7h", "6h"])].concat(), true),
        ("(VS)", [rays_t("8h", &[(0, -1)]), list(&["8i", "9h", "10h", "7h", "6h"])].concat(), true),
        ("(SS)", [rays_t("8h", &[(1, 0), (-1, 0)]), list(&["8g", "8f", "8i"])].concat(), true),
        ("D", list(&["8g", "9i", "7i"]), true),
        ("+D", [rays_t("8h", &[(0, -1), (1, 1), (-1, 1)])].concat(), false),
    ];
    for (token, dests, promotable) in cases {
        let p = tenjiku(&[("8h", token)], "b");
        assert_moves(&moves_from(&p, "8h"), &promo(dests, promotable), token);
    }
}

// ---------------------------------------------------------------------------------------------
// §5.3 range-jumping generals
// ---------------------------------------------------------------------------------------------

/// §5.3 rook general (rank 1) on 8m:
/// * forward: White pawn 8l (ordinary capture), 8k empty (a range-jump never ends on an empty
///   square), Black pawn 8j, 8i empty, White silver 8h (captured by jumping 8l and 8j, rank 0, of
///   either side), White rook general 8g (equal rank, captured: the victim's rank does not
///   matter), White gold 8f (not reachable: it would jump the rook general, equal rank);
/// * left: 9m empty, White king 10m (a royal may be captured as the first piece), White gold 11m
///   (not reachable over the king);
/// * right: Black pawn 7m, White crown prince 6m (royal: never captured by jumping), White gold
///   5m (not over the prince): nothing;
/// * backward: 8n empty, White pawn 8o (capture), White gold 8p (over the pawn).
///
/// Expected: 8l, 8h, 8g, 9m, 10m, 8n, 8o, 8p (none in the zone).
#[test]
fn rook_general_range_jumps() {
    let p = position(
        TENJIKU,
        &[
            ("1p", "K"),
            ("8m", "(RG)"),
            ("8j", "P"),
            ("7m", "P"),
            ("10m", "k"),
            ("6m", "+(de)"),
            ("8l", "p"),
            ("8h", "s"),
            ("8g", "(rg)"),
            ("8f", "g"),
            ("5m", "g"),
            ("11m", "g"),
            ("8o", "p"),
            ("8p", "g"),
        ],
        "b",
    );
    assert_moves(&moves_from(&p, "8m"), &set(&["8m8l", "8m8h", "8m8g", "8m9m", "8m10m", "8m8n", "8m8o", "8m8p"]), "rook general");
}

/// §5.3 great general (rank 3) on 8m, forward file: Black vice general 8l (rank 2, own piece),
/// White pawn 8k (captured over the vice general), White great general 8j (captured over 8l and
/// 8k), White gold 8i (not reachable: it would jump a great general, equal rank).
#[test]
fn great_general_jumps_a_vice_general() {
    let p = tenjiku(&[("8m", "(GG)"), ("8l", "(VG)"), ("8k", "p"), ("8j", "(gg)"), ("8i", "g")], "b");
    let forward: BTreeSet<String> = moves_from(&p, "8m")
        .into_iter()
        .filter(|m| {
            let (f, r) = file_rank(TENJIKU, &m[2..]);
            f == 8 && r < file_rank(TENJIKU, "8m").1
        })
        .collect();
    assert_moves(&forward, &set(&["8m8k", "8m8j"]), "great general forward");
}

/// §5.3 vice general (rank 2) on 8m, up-left diagonal 9l, 10k, 11j, 12i, 13h, 14g, 15f, 16e:
/// Black pawn 9l, White rook general 12i (captured over the pawn), White gold 13h (over the pawn
/// and the rook general, rank 1 < 2), White great general 14g (captured over lower pieces),
/// White pawn 15f (not reachable: it would jump the great general, rank 3), 16e empty. Beyond the
/// area-move range (king distance 4 or more) the diagonal offers exactly 12i, 13h, 14g. The area
/// move is no range-jump and may take a royal: White crown prince on 6l (off the lines, two
/// away): 8m6l is legal. Whole move list: every square within king distance 3 (the area move,
/// 6l included) except 9l (own pawn) and 11j (three diagonal steps away: its only 3-step path
/// runs through 9l), plus the diagonal squares beyond the area: 4i, 3h, 2g, 1f (slide, up-right)
/// and 12i, 13h, 14g (range-jumps, up-left).
#[test]
fn vice_general_jumps_a_rook_general_not_a_great_general() {
    let p = tenjiku(&[("8m", "(VG)"), ("9l", "P"), ("12i", "(rg)"), ("13h", "g"), ("14g", "(gg)"), ("15f", "p"), ("6l", "+(de)")], "b");
    let moves = moves_from(&p, "8m");
    let far_up_left: BTreeSet<String> = moves
        .iter()
        .filter(|m| {
            let to = &m[2..];
            ray(TENJIKU, "8m", 1, -1).contains(&to.to_string()) && distance(TENJIKU, "8m", to) >= 4
        })
        .cloned()
        .collect();
    assert_moves(&far_up_left, &set(&["8m12i", "8m13h", "8m14g"]), "vice general far diagonal");
    assert!(moves.contains("8m6l"), "area move captures the prince: {moves:?}");
    let mut area = within(TENJIKU, "8m", 3);
    area.retain(|s| s != "9l" && s != "11j");
    let mut expected = to_moves("8m", &area);
    expected.extend(set(&["8m4i", "8m3h", "8m2g", "8m1f", "8m12i", "8m13h", "8m14g"]));
    assert_moves(&moves, &expected, "vice general");
}

// ---------------------------------------------------------------------------------------------
// §5.2 area moves
// ---------------------------------------------------------------------------------------------

/// The cluttered neighbourhood of 8h used by the area-move test: Black pieces on 9g, 7g, 9h, 7h,
/// 9i, 8i (all neighbours of 8h but 8g and 7i), 8f and 6f; White pawn 7i, silver 9f, gold 7e.
const CLUTTER: [(&str, &str); 11] = [
    ("9g", "P"),
    ("7g", "G"),
    ("9h", "G"),
    ("7h", "G"),
    ("9i", "G"),
    ("8i", "G"),
    ("8f", "G"),
    ("6f", "G"),
    ("7i", "p"),
    ("9f", "s"),
    ("7e", "g"),
];

/// §5.2 exact reachable set of an area move in a cluttered position (8h):
/// step 1: 8g (empty), 7i (capture: the move ends); step 2 from 8g: 9f (capture), 7f (empty; 8f
/// is a friend); step 3 from 7f: 8e, 6e, 6g (empty), 7e (capture). 6h and 9e, though within
/// distance 2 and 3, have no path. The vice general's diagonals are blocked by friends or end on
/// 7i, and no enemy stands behind them to range-jump to; it can step out through 8g and back: the
/// pass. The fire demon (sideways blocked by 9h, 7h) reaches the same squares, but with the
/// enemy pawn on 7i next to it its step out and back burns: it is its own move 8h8g8h, not the
/// pass.
#[test]
fn area_move_in_cluttered_position() {
    let area = set(&["8h8g", "8h7i", "8h9f", "8h7f", "8h8e", "8h7e", "8h6e", "8h6g"]);
    let mut pieces = CLUTTER.to_vec();
    pieces.push(("8h", "(VG)"));
    let p = tenjiku(&pieces, "b");
    assert_moves(&moves_from(&p, "8h"), &area, "vice general");
    assert!(has_pass(&p));

    let mut pieces = CLUTTER.to_vec();
    pieces.push(("8h", "(FD)"));
    let p = tenjiku(&pieces, "b");
    let mut expected = area.clone();
    expected.insert("8h8g8h".to_string());
    assert_moves(&moves_from(&p, "8h"), &expected, "fire demon");
    assert!(!has_pass(&p));
}

// ---------------------------------------------------------------------------------------------
// §5.4 burning
// ---------------------------------------------------------------------------------------------

/// §5.4 step 2, active burn: Black fire demon 8k moves to 8i (area move over 8j); White pawn 9h,
/// gold 7h and silver 7j stand next to 8i and are all removed; Black's pawn 9i (a friend) and
/// White's gold 8g (two away) stay.
#[test]
fn active_burn_of_several_enemies() {
    let p = tenjiku(&[("8k", "(FD)"), ("9h", "p"), ("7h", "g"), ("7j", "s"), ("9i", "P"), ("8g", "g")], "b");
    let q = after(&p, "8k8i");
    assert_eq!(board_and_side(&q), expected_board(&[("8i", "(FD)"), ("9i", "P"), ("8g", "g")], "w"));
    q.verify_derived_state().unwrap();
    assert_eq!(q.non_royal_count(Color::White), 1);
}

/// §5.4 step 1, passive burn: a Black gold stepping from 5g to 5f, next to the White fire demon on
/// 5e, is removed; a Black gold on 4g taking the White pawn on 4f (also next to 5e) captures it and
/// is removed too. Friendly pieces never burn: a Black gold stepping from 12m to 12l next to the
/// Black fire demon on 12k stays.
#[test]
fn passive_burn_and_friends_never_burn() {
    let p = tenjiku(&[("5e", "(fd)"), ("5g", "G"), ("4g", "G"), ("4f", "p"), ("12k", "(FD)"), ("12m", "G")], "b");
    let q = after(&p, "5g5f");
    assert!(q.piece_at(sq(TENJIKU, "5f")).is_none() && q.piece_at(sq(TENJIKU, "5g")).is_none());
    assert!(has(&q, "5e", "(fd)"));
    let q = after(&p, "4g4f");
    assert!(q.piece_at(sq(TENJIKU, "4f")).is_none() && q.piece_at(sq(TENJIKU, "4g")).is_none());
    assert_eq!(q.non_royal_count(Color::White), 1, "the pawn was captured");
    let q = after(&p, "12m12l");
    assert!(has(&q, "12l", "G") && has(&q, "12k", "(FD)"));
}

/// §5.4 step 3 and §7.1: a king that ends its move next to an enemy fire demon is burned, and a
/// player who loses his last royal piece, burned included, loses: Black's king 1p steps to 2o,
/// next to the White fire demon on 3n; White has won.
#[test]
fn king_burned_passively_loses() {
    let mut g = game(TENJIKU, &[("1p", "K"), ("10p", "G"), ("16a", "k"), ("3n", "(fd)")], "b");
    play_all(&mut g, "1p2o");
    assert_eq!(g.position().royal_count(Color::Black), 0, "the king was burned");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));
}

/// The burned king's position itself: no Black royal left and the king's square empty (the board
/// effect of the suicide move, independently of the game layer).
#[test]
fn king_burned_passively_is_removed() {
    let p = tenjiku(&[("10p", "G"), ("3n", "(fd)")], "b");
    let q = after(&p, "1p2o");
    assert_eq!(q.royal_count(Color::Black), 0);
    assert!(q.piece_at(sq(TENJIKU, "2o")).is_none() && q.piece_at(sq(TENJIKU, "1p")).is_none());
}

/// §5.4 / O8: a fire demon ending next to an enemy fire demon burns itself and burns nothing:
/// Black demon 8k to 8h (three steps 8j, 8i, 8h), next to the White demon 8g; the White pawns 9h
/// and 7i, also next to 8h, stay. And a demon may capture an enemy demon by moving onto it, then
/// burning the neighbours of that square: Black demon 8j takes the White demon on 8g (three steps)
/// and burns the White pawn on 9f.
#[test]
fn demon_next_to_enemy_demon_burns_itself() {
    let p = tenjiku(&[("8k", "(FD)"), ("8g", "(fd)"), ("9h", "p"), ("7i", "p")], "b");
    let q = after(&p, "8k8h");
    assert_eq!(board_and_side(&q), expected_board(&[("8g", "(fd)"), ("9h", "p"), ("7i", "p")], "w"));

    let p = tenjiku(&[("8j", "(FD)"), ("8g", "(fd)"), ("9f", "p")], "b");
    let q = after(&p, "8j8g");
    assert_eq!(board_and_side(&q), expected_board(&[("8g", "(FD)")], "w"));
}

/// §5.4 / O9: a water buffalo promoting to a fire demon does not burn on that move: Black buffalo
/// 8g to 8e promoting (entering the zone), next to the White pawn 7d and gold 9e, which stay. On
/// its next move the new demon burns: its step out and back (a two-leg move from 8e to 8e over an
/// empty neighbour) removes both.
#[test]
fn promoting_water_buffalo_does_not_burn_that_move() {
    let p = tenjiku(&[("8g", "(WB)"), ("7d", "p"), ("9e", "g")], "b");
    let q = after(&p, "8g8e+");
    assert!(has(&q, "8e", "+(WB)"));
    assert!(has(&q, "7d", "p") && has(&q, "9e", "g"), "nothing burned on the promoting move: {q}");
    let r = after(&q, "16a16b");
    let out_and_back = coord::parse(&r, "8e8f8e").expect("the new demon's step out and back");
    assert!(matches!(out_and_back, Move::TwoLeg { from, to, .. } if from == to && from == sq(TENJIKU, "8e")));
    let s = r.after(out_and_back).unwrap();
    assert!(s.piece_at(sq(TENJIKU, "7d")).is_none() && s.piece_at(sq(TENJIKU, "9e")).is_none());
    assert!(has(&s, "8e", "+(WB)"));
    // ... and from then on it burns passively: White's gold stepping 9e9f (still next to 8e) is
    // removed.
    let t = after(&q, "9e9f");
    assert!(t.piece_at(sq(TENJIKU, "9e")).is_none() && t.piece_at(sq(TENJIKU, "9f")).is_none(), "{t}");
}

/// README §4 counting examples: (a) a piece that may promote on a square next to an enemy fire
/// demon is burned whether it promotes or not: still two moves. Black silver 5f to 5e (entering)
/// next to the White demon on 4d: 5f5e and 5f5e+ both listed, both leave the same board.
/// (b) A lion whose square and an adjacent enemy's square both touch an enemy demon is burned
/// after taking that enemy by igui or by stepping onto it: still two moves. Black lion 8h, White
/// pawn 8g, White demon 9g (next to both): 8h8g8h and 8h8g both listed, both burn the lion.
#[test]
fn moves_with_the_same_burned_result_stay_distinct() {
    let p = tenjiku(&[("5f", "S"), ("4d", "(fd)")], "b");
    let moves = moves_from(&p, "5f");
    assert!(moves.contains("5f5e") && moves.contains("5f5e+"), "{moves:?}");
    assert_eq!(board_and_side(&after(&p, "5f5e")), board_and_side(&after(&p, "5f5e+")));
    assert!(after(&p, "5f5e").piece_at(sq(TENJIKU, "5e")).is_none());

    let p = tenjiku(&[("8h", "(Ln)"), ("8g", "p"), ("9g", "(fd)")], "b");
    let moves = moves_from(&p, "8h");
    assert!(moves.contains("8h8g8h") && moves.contains("8h8g"), "{moves:?}");
    let (igui, step) = (after(&p, "8h8g8h"), after(&p, "8h8g"));
    assert_eq!(board_and_side(&igui), board_and_side(&step));
    assert_eq!(igui.non_royal_count(Color::Black), 0, "the lion is burned: {igui}");
}

/// §5.4 "Only the final square matters": Black lion 8h takes the White pawn on 8g, which stands
/// next to the White demon on 9f (two from the lion). Stepping onto 8g burns the lion; igui
/// (8h8g8h) and the hit-and-run 8h8g7h end two from the demon: the lion survives.
#[test]
fn burning_only_at_the_final_square() {
    let p = tenjiku(&[("8h", "(Ln)"), ("8g", "p"), ("9f", "(fd)")], "b");
    assert!(after(&p, "8h8g").piece_at(sq(TENJIKU, "8g")).is_none(), "burned on 8g");
    assert!(has(&after(&p, "8h8g8h"), "8h", "(Ln)"));
    let q = after(&p, "8h8g7h");
    assert!(has(&q, "7h", "(Ln)") && q.piece_at(sq(TENJIKU, "8g")).is_none());
}

/// §5.1.1 / O10: no lion-trading rules in tenjiku: Black lion 8h may jump to take the White lion
/// on 8f although the White gold on 8e protects it, and may take it by a double capture whose
/// first victim is a pawn (White pawn on 8g: 8h8g8f).
#[test]
fn no_lion_trading_rules() {
    let p = tenjiku(&[("8h", "(Ln)"), ("8f", "(ln)"), ("8e", "g")], "b");
    assert!(moves_from(&p, "8h").contains("8h8f"));
    let p = tenjiku(&[("8h", "(Ln)"), ("8g", "p"), ("8f", "(ln)"), ("8e", "g")], "b");
    let moves = moves_from(&p, "8h");
    assert!(moves.contains("8h8g8f") && moves.contains("8h8f"), "{moves:?}");
}

// ---------------------------------------------------------------------------------------------
// README §4 / §5.4: the step out and back that burns
// ---------------------------------------------------------------------------------------------

/// README §4 and §5.4: Black fire demon 8h next to a White pawn on 9g; Black lion 12l next to the
/// White fire demon 13k; Black horned falcon 3m with 3l empty.
/// * The demon's step out and back burns 9g: one move, a two-leg move 8h→(empty neighbour)→8h
///   printed with one such square; every empty neighbour route (8h7h8h, 8h8i8h, ...) reads as
///   that same move; 8h9g8h (an igui, which the demon does not have) and 8h6h8h (not a
///   neighbour) are refused.
/// * The lion's step out and back burns the lion itself: also its own move, distinct from the
///   pass; its igui on the demon (12l13k12l) is a plain capture that leaves it alive.
/// * The falcon's step out and back changes nothing: the pass, which exists alongside.
#[test]
fn step_out_and_back_that_burns_is_not_the_pass() {
    let p = tenjiku(&[("8h", "(FD)"), ("9g", "p"), ("12l", "(Ln)"), ("13k", "(fd)"), ("3m", "(HF)")], "b");
    let moves = p.legal_moves();
    assert!(moves.contains(&Move::Pass));
    let out_and_back = |from: &str| -> Vec<Move> {
        let s = sq(TENJIKU, from);
        moves
            .iter()
            .copied()
            .filter(|m| matches!(*m, Move::TwoLeg { from: f, mid, to, .. } if f == s && to == s && p.piece_at(mid).is_none()))
            .collect()
    };
    let demon = out_and_back("8h");
    assert_eq!(demon.len(), 1, "one move per piece: {demon:?}");
    let demon = demon[0];
    let written = text(&p, demon);
    let mid = &written[2..written.len() - 2];
    assert!(written.starts_with("8h") && written.ends_with("8h") && ring(TENJIKU, "8h", 1).contains(&mid.to_string()), "{written}");
    for route in ["8h7h8h", "8h8i8h", "8h7g8h", "8h9i8h", "8h8g8h", "8h9h8h", "8h7i8h"] {
        assert_eq!(coord::parse(&p, route), Ok(demon), "{route}");
    }
    assert!(coord::parse(&p, "8h9g8h").is_err(), "the demon has no igui");
    assert!(coord::parse(&p, "8h6h8h").is_err());
    assert_ne!(coord::parse(&p, "pass"), Ok(demon));
    let burned = p.after(demon).unwrap();
    assert!(burned.piece_at(sq(TENJIKU, "9g")).is_none() && has(&burned, "8h", "(FD)"));

    let lion = out_and_back("12l");
    assert_eq!(lion.len(), 1, "{lion:?}");
    assert_eq!(coord::parse(&p, "12l11l12l"), Ok(lion[0]));
    let suicide = p.after(lion[0]).unwrap();
    assert!(suicide.piece_at(sq(TENJIKU, "12l")).is_none() && has(&suicide, "13k", "(fd)"));
    let igui = after(&p, "12l13k12l");
    assert!(has(&igui, "12l", "(Ln)") && igui.piece_at(sq(TENJIKU, "13k")).is_none());

    assert!(out_and_back("3m").is_empty(), "the falcon's step out and back is the pass");
    assert_eq!(coord::parse(&p, "pass"), Ok(Move::Pass));
}

// ---------------------------------------------------------------------------------------------
// §5.1.3 free eagle, §5.5 heavenly tetrarch
// ---------------------------------------------------------------------------------------------

/// §5.1.3: the free eagle slides like a queen and jumps to the second square of each line, with no
/// igui, no double capture, no pass. On 8h: White pawn 8g (capture; jump over it to 8f, taking the
/// White gold: no igui 8h8g8h, no 8h8g8f), Black pawn 9h (jump to 10h, nothing beyond), White
/// silver 7i (capture; jump over it to the empty 6j); the other five lines slide to the edge.
#[test]
fn free_eagle_jumps_but_has_no_lion_power() {
    let p = tenjiku(&[("8h", "(FE)"), ("8g", "p"), ("8f", "g"), ("9h", "P"), ("7i", "s")], "b");
    let mut expected = to_moves("8h", &rays_t("8h", &[(-1, 0), (0, 1), (1, -1), (-1, -1), (1, 1)]));
    expected.extend(set(&["8h8g", "8h8f", "8h10h", "8h7i", "8h6j"]));
    assert_moves(&moves_from(&p, "8h"), &expected, "free eagle");
    assert!(!has_pass(&p));
}

/// §5.5 heavenly tetrarch (+CS) on 8h; neighbours: White pawn 8g, Black gold 7g, White gold 7h,
/// White pawn 7i, Black pawn 8i; 9g, 9h, 9i empty.
/// * igui on each adjacent enemy: 8g, 7h, 7i; never a move to an adjacent square;
/// * forward (over 8g): 8f, 8e, stopping before the Black pawn 8d;
/// * backward (over 8i): 8j, then 8k (White silver, capture);
/// * left: 10h, 11h (2nd and 3rd squares only); right (over 7h): 6h (White pawn, capture);
/// * diagonals: up-left 10f ... 15a; up-right (over 7g) 6f (White pawn, capture); down-left
///   10j ... 16p; down-right (over 7i) blocked by the Black pawn 6j;
/// * no pass.
#[test]
fn heavenly_tetrarch() {
    let p = tenjiku(
        &[
            ("8h", "+(CS)"),
            ("8g", "p"),
            ("7g", "G"),
            ("7h", "g"),
            ("7i", "p"),
            ("8i", "P"),
            ("8d", "P"),
            ("8k", "s"),
            ("6h", "p"),
            ("6f", "p"),
            ("6j", "P"),
        ],
        "b",
    );
    let mut expected = set(&["8h8f", "8h8e", "8h8j", "8h8k", "8h10h", "8h11h", "8h6h", "8h6f", "8h8g8h", "8h7h8h", "8h7i8h"]);
    expected.extend(to_moves("8h", &ray(TENJIKU, "8h", 1, -1)[1..]));
    expected.extend(to_moves("8h", &ray(TENJIKU, "8h", 1, 1)[1..]));
    assert_eq!(expected.len(), 24);
    assert_moves(&moves_from(&p, "8h"), &expected, "heavenly tetrarch");
    assert!(!has_pass(&p));
    // Igui leaves the tetrarch in place and removes the victim.
    let q = after(&p, "8h7h8h");
    assert!(has(&q, "8h", "+(CS)") && q.piece_at(sq(TENJIKU, "7h")).is_none());
}

// ---------------------------------------------------------------------------------------------
// §6 promotion
// ---------------------------------------------------------------------------------------------

/// §6 / O11: only the start and final squares count. Black lion 8f (outside the zone), White pawn
/// 8e (inside), White silver 9f (outside). Every move starts outside, so it may promote exactly
/// when it ends inside (ranks a–e): steps and jumps into ranks d–e, double captures and
/// hit-and-runs ending there (8f8e9d, 8f9f8e, ...). The double capture 8f8e9f (first victim inside
/// the zone, ending outside), the hit-and-run 8f8e7f and the igui moves 8f8e8f, 8f9f8f cannot
/// promote.
#[test]
fn lion_promotion_counts_only_start_and_end() {
    let p = tenjiku(&[("8f", "(Ln)"), ("8e", "p"), ("9f", "s")], "b");
    let in_zone = |s: &str| file_rank(TENJIKU, s).1 <= 4;
    let mut expected = BTreeSet::new();
    let mut add = |m: String, end: &str| {
        if in_zone(end) {
            expected.insert(format!("{m}+"));
        }
        expected.insert(m);
    };
    for d in ring(TENJIKU, "8f", 1).into_iter().chain(ring(TENJIKU, "8f", 2)) {
        add(format!("8f{d}"), &d);
    }
    add("8f8e8f".into(), "8f");
    add("8f9f8f".into(), "8f");
    for c in ["9d", "8d", "7d", "9e", "7e", "9f", "7f"] {
        add(format!("8f8e{c}"), c);
    }
    for c in ["10e", "9e", "8e", "10f", "10g", "9g", "8g"] {
        add(format!("8f9f{c}"), c);
    }
    let actual = moves_from(&p, "8f");
    assert_moves(&actual, &expected, "lion 8f");
    for m in ["8f8e9f+", "8f8e7f+", "8f8e8f+", "8f9f8f+"] {
        assert!(!actual.contains(m), "{m}");
    }
    assert!(actual.contains("8f8e8d+") && actual.contains("8f9f8e+"));
}

/// §6: igui inside the zone captures and starts and ends there: it may promote. Black lion 8e,
/// White pawn 8d: 8e8d8e both ways, 8e8d both, hit-and-run 8e8d9e both; a quiet step inside the
/// zone (8e9e) or a jump within it (8e8c) plain only; leaving without capture (8e8f, 8e8g) plain.
#[test]
fn igui_inside_zone_may_promote() {
    let p = tenjiku(&[("8e", "(Ln)"), ("8d", "p")], "b");
    let moves = moves_from(&p, "8e");
    for m in ["8e8d8e", "8e8d8e+", "8e8d", "8e8d+", "8e8d9e", "8e8d9e+", "8e9e", "8e8c", "8e8f", "8e8g"] {
        assert!(moves.contains(m), "{m} missing: {moves:?}");
    }
    for m in ["8e9e+", "8e8c+", "8e8f+", "8e8g+"] {
        assert!(!moves.contains(m), "{m} present");
    }
}

/// §6 / O12: compulsory promotion on the last rank(s): pawn 8b: 8a+ only; iron general 10b: 10a+,
/// 11a+, 9a+; knight 5d: 6b+, 4b+ (last two ranks); lance 3c: 3b plain (inside, no capture), 3a+.
#[test]
fn compulsory_promotion() {
    let p = tenjiku(&[("8b", "P"), ("10b", "I"), ("5d", "N"), ("3c", "L")], "b");
    assert_moves(&moves_from(&p, "8b"), &set(&["8b8a+"]), "pawn");
    assert_moves(&moves_from(&p, "10b"), &set(&["10b10a+", "10b11a+", "10b9a+"]), "iron");
    assert_moves(&moves_from(&p, "5d"), &set(&["5d6b+", "5d4b+"]), "knight");
    assert_moves(&moves_from(&p, "3c"), &set(&["3c3b", "3c3a+"]), "lance");
}

// ---------------------------------------------------------------------------------------------
// §7 end of the game
// ---------------------------------------------------------------------------------------------

/// §7.1: the crown prince is a second royal. Black king 1p, drunk elephant 8f; White king 16a,
/// rook 1a (on the king's file), gold 7c. 8f8e+, 1a1p (king taken: play goes on), 8e7d, 7c7d
/// (prince taken: White wins).
#[test]
fn crown_prince_is_a_second_royal() {
    let mut g = game(TENJIKU, &[("1p", "K"), ("8f", "(DE)"), ("16a", "k"), ("1a", "r"), ("7c", "g")], "b");
    play_all(&mut g, "8f8e+ 1a1p");
    assert_eq!(g.outcome(), None, "the crown prince is left");
    play_all(&mut g, "8e7d 7c7d");
    assert_eq!(g.outcome(), Some(Outcome { winner: Some(Color::White), reason: EndReason::RoyalCaptured }));
}

/// §7.2: two passes in a row recreate a position; the second is illegal (the mover is not in
/// check). Black lion 8h, White lion 8b.
#[test]
fn second_pass_in_a_row_is_illegal() {
    let mut g = game(TENJIKU, &[("1p", "K"), ("8h", "(Ln)"), ("16a", "k"), ("8b", "(ln)")], "b");
    play_all(&mut g, "pass");
    assert!(g.position().legal_moves().contains(&Move::Pass));
    assert!(!g.legal_moves().contains(&Move::Pass));
    assert!(g.play_text("pass").is_err());
}

/// §7.2 after a burn: the burn makes every earlier position unreachable, but the positions since
/// then can still be recreated. Black fire demon 8k moves to 8i and burns the White pawn on 9h;
/// after White's pass, Black's lion pass would recreate the position after the burn; after 8k8i
/// 12c12d 3m3n 12d12c, 3n3m would.
#[test]
fn recreation_refused_after_a_burn() {
    let pieces = [("1p", "K"), ("8k", "(FD)"), ("3m", "(Ln)"), ("16a", "k"), ("9h", "p"), ("12c", "(ln)")];
    let mut g = game(TENJIKU, &pieces, "b");
    play_all(&mut g, "8k8i");
    assert_eq!(g.position().non_royal_count(Color::White), 1, "the pawn was burned");
    play_all(&mut g, "pass");
    assert!(g.position().legal_moves().contains(&Move::Pass));
    assert!(!g.legal_moves().contains(&Move::Pass), "the pass recreates the position after the burn");

    let mut g = game(TENJIKU, &pieces, "b");
    play_all(&mut g, "8k8i 12c12d 3m3n 12d12c");
    let back = shogi_zero::rules::notation::coord::parse(g.position(), "3n3m").unwrap();
    assert!(g.position().legal_moves().contains(&back));
    assert!(!g.legal_moves().contains(&back), "3n3m recreates the position after the burn");
    assert!(g.play_text("3n3m").is_err());
}

// ---------------------------------------------------------------------------------------------
// Random play consistency (README §4 move identity, make/unmake, SFEN, colour symmetry)
// ---------------------------------------------------------------------------------------------

/// Positions reached by seeded random play from the tenjiku start: every legal move has its own
/// effect, make/unmake restores the position, derived state stays consistent, SFEN round-trips,
/// and the colour-flipped position has the rotated moves (a burning step out and back compared by
/// origin only, README §4) and the same perft 2 (3 for a few).
#[test]
fn random_play_consistency() {
    let start = Position::start(TENJIKU);
    for seed in 0..6u64 {
        let game = random_game(&start, 0x7E4 + seed, 400, seed % 3);
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

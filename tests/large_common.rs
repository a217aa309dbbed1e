//! Properties shared by chu, dai and tenjiku shogi: malformed position and move text never makes
//! the readers panic, and whatever reads back is consistent (rules README §3: what a position
//! holds; §4: move identity, the pass and the step out and back). The per-variant rule tests are
//! in large_chu.rs, large_dai.rs and large_tenjiku.rs; each also runs random-play consistency
//! checks (make/unmake, SFEN round trip, perft of the colour-flipped position).

mod common;
mod large_support;

use common::{check_move_text, mutate};
use large_support::*;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::perft::perft;
use std::collections::{BTreeSet, HashMap};

use shogi_zero::rules::{Color, Move, Position, VariantId};

/// Valid positions of the three variants to mutate and to read moves in: the start positions,
/// positions with the special states (chu counter-strike square, tenjiku burning moves and a
/// tetrarch, dai compulsory promotions), and positions from seeded random play.
fn seeds() -> Vec<(VariantId, String)> {
    let mut out = Vec::new();
    for id in LARGE {
        let start = Position::start(id);
        out.push((id, sfen::write(&start)));
        for (seed, ply) in [(1u64, 40usize), (2, 120)] {
            let game = random_game(&start, seed, ply, 1);
            out.push((id, sfen::write(game.last().unwrap())));
        }
    }
    // Chu: a counter-strike square in the third field.
    let cs = pos(
        CHU,
        &board(CHU, &[("1l", "K"), ("12a", "k"), ("7h", "G"), ("3g", "(Ln)"), ("7g", "+(kr)"), ("2f", "s"), ("3f", "+(dh)")], "b"),
    );
    out.push((CHU, sfen::write(&after(&cs, "7h7g"))));
    // Tenjiku: burning step out and back, a lion next to an enemy demon, a tetrarch, generals.
    out.push((
        TENJIKU,
        board(
            TENJIKU,
            &[
                ("1p", "K"),
                ("16a", "k"),
                ("8h", "(FD)"),
                ("9g", "p"),
                ("12l", "(Ln)"),
                ("13k", "(fd)"),
                ("3m", "(HF)"),
                ("5e", "+(CS)"),
                ("5c", "(gg)"),
                ("10c", "(VG)"),
            ],
            "b",
        ),
    ));
    // Dai: pieces about to promote compulsorily.
    out.push((
        DAI,
        board(
            DAI,
            &[("2o", "K"), ("14a", "k"), ("8b", "P"), ("8d", "N"), ("10b", "I"), ("12b", "(SG)"), ("5c", "(ln)"), ("6f", "(Ln)")],
            "b",
        ),
    ));
    out
}

/// Seeds as positions.
fn seed_positions() -> Vec<Position> {
    seeds().into_iter().map(|(id, t)| pos(id, &t)).collect()
}

/// A step of (file, rank) squares.
type Step = (i32, i32);

const SFEN_ALPHABET: &str = "abcdefghiklmnopqrsuvwABCDEFGHIKLMNOPQRSVW+()0123456789/ -";
const MOVE_ALPHABET: &str = "0123456789abcdefghijklmnop+ps";

/// Reads `text` as a position of every large variant; whatever reads must be consistent: derived
/// state, SFEN round trip, legal moves, make/unmake restoring the position, and the flip.
fn check_position_text(text: &str) {
    for id in LARGE {
        let Ok(p) = sfen::parse(id.variant(), text) else { continue };
        p.verify_derived_state().unwrap_or_else(|e| panic!("'{text}' read as {p}: {e}"));
        check_sfen_round_trip(&p);
        let mut scratch = p.clone();
        for m in p.legal_moves() {
            let undo = scratch.play_unchecked(m);
            scratch.unmake(m, undo);
            assert!(scratch == p && scratch.hash() == p.hash(), "make/unmake of {} in {p}", text_of(&p, m));
        }
        let f = p.flipped();
        assert!(f.flipped() == p);
    }
}

fn text_of(p: &Position, m: Move) -> String {
    coord::write(p.variant(), m)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 256, failure_persistence: None, rng_seed: RngSeed::Fixed(0x1A2_6E5), ..ProptestConfig::default() }
}

fn alphabet(chars: &str) -> impl Strategy<Value = char> {
    prop::sample::select(chars.chars().collect::<Vec<_>>())
}

proptest! {
    #![proptest_config(config())]

    /// Arbitrary text (any Unicode) never makes the position reader panic.
    #[test]
    fn sfen_never_panics_on_arbitrary_text(text in ".{0,300}") {
        check_position_text(&text);
    }

    /// Text over the position alphabet (pieces, parentheses, digits, '/', '+', sides).
    #[test]
    fn sfen_never_panics_on_the_sfen_alphabet(text in "[abcdefghiklmnopqrsuvwABCDEFGHIKLMNOPQRSVW+()0-9/ -]{0,400}") {
        check_position_text(&text);
    }

    /// Valid positions with 1 to 6 characters replaced, inserted or deleted.
    #[test]
    fn sfen_never_panics_on_mutated_positions(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<usize>(), 0u8..3, alphabet(SFEN_ALPHABET)), 1..7),
    ) {
        let all = seeds();
        let (_, base) = &all[which.index(all.len())];
        let mut text = base.clone();
        for (at, op, c) in edits {
            text = mutate(&text, at, op, c);
        }
        check_position_text(&text);
    }

    /// Text over the coordinate alphabet, in positions of the three variants.
    #[test]
    fn coord_never_panics_on_the_move_alphabet(text in "[0-9a-p+]{0,14}") {
        for p in seed_positions() {
            check_move_text(&p, &text);
        }
    }

    /// Legal moves' texts (two-leg moves, the pass, promotions included) with one to three
    /// characters replaced, inserted or deleted.
    #[test]
    fn coord_never_panics_on_mutated_moves(
        which in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<usize>(), 0u8..3, alphabet(MOVE_ALPHABET)), 1..4),
    ) {
        let positions = seed_positions();
        let p = &positions[which.index(positions.len())];
        let legal = p.legal_moves();
        prop_assume!(!legal.is_empty());
        let mut text = coord::write(p.variant(), legal[pick.index(legal.len())]);
        for (at, op, c) in edits {
            text = mutate(&text, at, op, c);
        }
        check_move_text(p, &text);
    }

    /// Arbitrary text (any Unicode) never makes the move reader panic.
    #[test]
    fn coord_never_panics_on_arbitrary_text(text in ".{0,30}") {
        for p in seed_positions() {
            check_move_text(&p, &text);
        }
    }
}

/// Every seed position reads back, and every legal move's text reads back to that move.
#[test]
fn seeds_are_valid_and_moves_read_back() {
    for p in seed_positions() {
        check_moves(&p, true);
        check_sfen_round_trip(&p);
    }
}

/// README §4 move identity at depth 2 for the seeds: the flipped position gives the same perft.
#[test]
fn seed_flip_perft() {
    for p in seed_positions() {
        check_flip(&p, 2);
    }
    // And the three start positions, as White to move (their flips), at depth 2.
    for id in LARGE {
        let s = Position::start(id);
        assert_eq!(perft(&s, 2), perft(&s.flipped(), 2), "{id}");
    }
}

/// A move text holding characters outside ASCII is an error like any other, not a panic.
#[test]
fn coord_non_ascii_text_is_an_error() {
    for id in LARGE {
        let p = Position::start(id);
        for t in ["8h7é8h", "é", "7g7f¡", "１a２b", "8h8g+é"] {
            assert!(coord::parse(&p, t).is_err(), "{id}: {t}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Spec oracles: the moves of lion-type and area-moving pieces written straight from the rules
// text, compared with the engine on positions from random play
// ---------------------------------------------------------------------------------------------

/// A position seen through square names only: owner and token (`(Ln)`, `+(kr)`) per square.
struct Board {
    id: VariantId,
    us: Color,
    cells: HashMap<String, (Color, String)>,
}

impl Board {
    fn new(p: &Position) -> Board {
        let id = p.variant().id;
        let cells = p.pieces().map(|(s, x)| (name(id, s), (x.color, sfen::piece_token(p.variant(), x).to_ascii_uppercase()))).collect();
        Board { id, us: p.side_to_move(), cells }
    }
    fn owner(&self, s: &str) -> Option<Color> {
        self.cells.get(s).map(|c| c.0)
    }
    fn token(&self, s: &str) -> Option<&str> {
        self.cells.get(s).map(|c| c.1.as_str())
    }
    fn enemy(&self, s: &str) -> bool {
        self.owner(s).is_some_and(|c| c != self.us)
    }
    fn empty(&self, s: &str) -> bool {
        self.owner(s).is_none()
    }
    fn in_zone(&self, s: &str) -> bool {
        let depth = match self.id {
            VariantId::CHU_SHOGI => 4,
            _ => 5,
        };
        let n = self.id.variant().geometry.size as i32;
        let r = file_rank(self.id, s).1;
        match self.us {
            Color::Black => r < depth,
            Color::White => r >= n - depth,
        }
    }
    /// An enemy fire demon (tenjiku; also a promoted water buffalo) next to `s`.
    fn enemy_demon_next_to(&self, s: &str) -> bool {
        self.id == TENJIKU && ring(self.id, s, 1).iter().any(|n| self.enemy(n) && matches!(self.token(n), Some("(FD)" | "+(WB)")))
    }
    /// Range-jump rank (tenjiku-shogi.md §5.3): royals 4, great general 3, vice general 2, rook and
    /// bishop generals 1 (promoted forms by their new type), others 0.
    fn rank(&self, s: &str) -> u8 {
        match self.token(s).unwrap_or("") {
            "K" | "+(DE)" => 4,
            "(GG)" | "+(RG)" => 3,
            "(VG)" | "+(BG)" => 2,
            "(RG)" | "(BG)" | "+(SE)" | "+(HF)" => 1,
            _ => 0,
        }
    }
}

/// Adds the move `text` from `s` to `end`, and its promoting version where tenjiku §6 allows it
/// (entering the zone, or a capture starting or ending in it; start and end squares only).
fn add_with_promotion(out: &mut BTreeSet<String>, b: &Board, s: &str, end: &str, captures: bool, promotable: bool, text: String) {
    let entering = !b.in_zone(s) && b.in_zone(end);
    if promotable && (entering || (captures && (b.in_zone(s) || b.in_zone(end)))) {
        out.insert(format!("{text}+"));
    }
    out.insert(text);
}

/// §4.1 / §5.1.1 lion power from `s`: steps and jumps onto empty or enemy squares, igui, double
/// capture and hit-and-run; with `promotable`, the promotion rule of tenjiku §6 (start and end
/// squares only). Returned as move texts; the pass is not listed.
fn lion_oracle(b: &Board, s: &str, promotable: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |text: String, end: &str, captures: bool| add_with_promotion(&mut out, b, s, end, captures, promotable, text);
    for d in ring(b.id, s, 1).into_iter().chain(ring(b.id, s, 2)) {
        if b.owner(&d) != Some(b.us) {
            add(format!("{s}{d}"), &d, b.enemy(&d));
        }
    }
    for a in ring(b.id, s, 1).into_iter().filter(|a| b.enemy(a)) {
        add(format!("{s}{a}{s}"), s, true);
        for c in ring(b.id, &a, 1) {
            if c != s && (b.empty(&c) || b.enemy(&c)) {
                add(format!("{s}{a}{c}"), &c, true);
            }
        }
    }
    out
}

/// §5.2 area move: squares within three king steps over empty squares, ending on an empty or
/// enemy square (breadth first: a square is reached in the fewest steps).
fn area_oracle(b: &Board, s: &str) -> BTreeSet<String> {
    let mut reached = BTreeSet::new();
    let mut seen: BTreeSet<String> = [s.to_string()].into();
    let mut frontier = vec![s.to_string()];
    for _ in 0..3 {
        let mut next = Vec::new();
        for f in &frontier {
            for n in ring(b.id, f, 1) {
                if !seen.insert(n.clone()) {
                    continue;
                }
                if b.empty(&n) {
                    next.push(n.clone());
                    reached.insert(format!("{s}{n}"));
                } else if b.enemy(&n) {
                    reached.insert(format!("{s}{n}"));
                }
            }
        }
        frontier = next;
    }
    reached
}

/// Plain slides from `s` along `dirs` (for the side to move).
fn slide_oracle(b: &Board, s: &str, dirs: &[(i32, i32)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for &(df, dr) in dirs {
        for t in ray(b.id, s, df, dr) {
            if b.owner(&t) == Some(b.us) {
                break;
            }
            out.insert(format!("{s}{t}"));
            if b.enemy(&t) {
                break;
            }
        }
    }
    out
}

/// §5.3 range-jump captures from `s` along `dirs` by a general of rank `rank`.
fn range_jump_oracle(b: &Board, s: &str, dirs: &[(i32, i32)], rank: u8) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for &(df, dr) in dirs {
        let occupied: Vec<String> = ray(b.id, s, df, dr).into_iter().filter(|t| !b.empty(t)).collect();
        for k in 1..occupied.len() {
            if b.rank(&occupied[k - 1]) >= rank {
                break;
            }
            let t = &occupied[k];
            if b.enemy(t) && b.rank(t) < 4 {
                out.insert(format!("{s}{t}"));
            }
        }
    }
    out
}

/// README §4: a piece that can step out to an empty neighbour and back makes its own move (named
/// by origin only) when that burns: it is next to an enemy demon, or it is a demon with an enemy
/// neighbour.
/// `step_squares` are the squares the piece may step out to (all neighbours for a lion or an area
/// mover, the X1 squares for a falcon or eagle).
fn out_and_back_oracle(b: &Board, s: &str, demon: bool, step_squares: &[String]) -> BTreeSet<String> {
    let burns = b.enemy_demon_next_to(s) || (demon && ring(b.id, s, 1).iter().any(|n| b.enemy(n)));
    let mut out = BTreeSet::new();
    if b.id == TENJIKU && burns && step_squares.iter().any(|n| b.empty(n)) {
        out.insert(format!("{s}(out-and-back)"));
    }
    out
}

/// §4.2 / §5.1.2 horned falcon and soaring eagle: plain slides along `slides`, and along each of
/// `lines` (S → X1 → X2): step to X1, jump to X2, igui on X1, capture on X1 and go on to X2; with
/// `promotable`, tenjiku's promotion rule (start and end squares only).
fn line_lion_oracle(b: &Board, s: &str, slides: &[(i32, i32)], lines: &[(i32, i32)], promotable: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut add = |text: String, end: &str, captures: bool| add_with_promotion(&mut out, b, s, end, captures, promotable, text);
    for &(df, dr) in slides {
        for t in ray(b.id, s, df, dr) {
            if b.owner(&t) == Some(b.us) {
                break;
            }
            add(format!("{s}{t}"), &t, b.enemy(&t));
            if b.enemy(&t) {
                break;
            }
        }
    }
    for &(df, dr) in lines {
        let Some(x1) = shift(b.id, s, df, dr) else { continue };
        let x2 = shift(b.id, s, 2 * df, 2 * dr);
        if b.owner(&x1) != Some(b.us) {
            add(format!("{s}{x1}"), &x1, b.enemy(&x1));
        }
        if let Some(x2) = x2.as_deref().filter(|x2| b.owner(x2) != Some(b.us)) {
            add(format!("{s}{x2}"), x2, b.enemy(x2));
        }
        if b.enemy(&x1) {
            add(format!("{s}{x1}{s}"), s, true);
            if let Some(x2) = x2.as_deref().filter(|x2| b.owner(x2) != Some(b.us)) {
                add(format!("{s}{x1}{x2}"), x2, true);
            }
        }
    }
    out
}

/// The engine's moves from `s`, named canonically (a step out and back by origin only).
fn engine_moves_from(p: &Position, s: &str) -> BTreeSet<String> {
    let from = sq(p.variant().id, s);
    p.legal_moves()
        .into_iter()
        .filter(|m| matches!(*m, Move::Normal { from: f, .. } | Move::TwoLeg { from: f, .. } if f == from))
        .map(|m| canonical(p, m))
        .collect()
}

/// The oracle's moves for the piece on `s`, if it is one the oracles cover.
fn oracle_moves(p: &Position, b: &Board, s: &str) -> Option<BTreeSet<String>> {
    let token = b.token(s)?;
    let id = b.id;
    let lion = matches!(token, "(LN)" | "+(KR)");
    // Black's forward is towards rank a (rank index down), White's towards the last rank.
    let fwd = if b.us == Color::Black { -1 } else { 1 };
    let eagle = token == "+(DK)" || (id == TENJIKU && token == "(SE)");
    let falcon = token == "+(DH)" || (id == TENJIKU && token == "(HF)");
    if (eagle || falcon) && p.counter_strike().is_some() {
        return None; // chu §6.2 restricts their captures of lions for one move
    }
    if eagle || falcon {
        let (slides, lines): (Vec<Step>, Vec<Step>) = if eagle {
            (vec![(0, -1), (0, 1), (1, 0), (-1, 0), (1, -fwd), (-1, -fwd)], vec![(1, fwd), (-1, fwd)])
        } else {
            (vec![(1, 1), (-1, 1), (1, -1), (-1, -1), (1, 0), (-1, 0), (0, -fwd)], vec![(0, fwd)])
        };
        let promotable = id == TENJIKU && !token.starts_with('+');
        let mut out = line_lion_oracle(b, s, &slides, &lines, promotable);
        let x1: Vec<String> = lines.iter().filter_map(|&(df, dr)| shift(id, s, df, dr)).collect();
        out.extend(out_and_back_oracle(b, s, false, &x1));
        return Some(out);
    }
    let mut out = match (id, token) {
        (VariantId::CHU_SHOGI, _) if lion => {
            // Chu's lion-trading rules (§6) only restrict captures of lions: compare where the
            // opponent has none.
            if b.cells.values().any(|(c, t)| *c != b.us && matches!(t.as_str(), "(LN)" | "+(KR)")) {
                return None;
            }
            lion_oracle(b, s, false)
        }
        (VariantId::DAI_SHOGI, _) if lion => lion_oracle(b, s, false),
        (VariantId::TENJIKU_SHOGI, "(LN)") => lion_oracle(b, s, true),
        (VariantId::TENJIKU_SHOGI, "+(KR)") => lion_oracle(b, s, false),
        (VariantId::TENJIKU_SHOGI, "(LH)" | "+(LN)") => {
            let mut m = lion_oracle(b, s, false);
            m.extend(slide_oracle(b, s, &DIAGONAL));
            m
        }
        (VariantId::TENJIKU_SHOGI, "(FD)" | "+(WB)") => {
            let mut m = area_oracle(b, s);
            m.extend(slide_oracle(b, s, &[DIAGONAL.to_vec(), SIDEWAYS.to_vec()].concat()));
            m
        }
        (VariantId::TENJIKU_SHOGI, "(VG)" | "+(BG)") => {
            let mut m = area_oracle(b, s);
            m.extend(slide_oracle(b, s, &DIAGONAL));
            m.extend(range_jump_oracle(b, s, &DIAGONAL, 2));
            m
        }
        _ => return None,
    };
    let demon = matches!(token, "(FD)" | "+(WB)");
    out.extend(out_and_back_oracle(b, s, demon, &ring(id, s, 1)));
    Some(out)
}

/// The oracles above against the engine, for every lion (chu where the opponent has no lion,
/// dai, tenjiku), lion hawk, fire demon, vice general, horned falcon and soaring eagle of the side
/// to move, in every position of a few seeded random games per variant.
#[test]
fn lion_area_and_range_jump_moves_match_the_rules_text() {
    let mut compared = HashMap::new();
    for id in LARGE {
        for seed in 0..8u64 {
            for p in random_game(&Position::start(id), 0x0AC1E + seed, 400, seed % 4) {
                if p.royal_count(p.side_to_move()) == 0 {
                    continue; // the game is over: no moves at all (chu §8.2 item 1)
                }
                let b = Board::new(&p);
                let mine: Vec<String> = b.cells.iter().filter(|(_, (c, _))| *c == b.us).map(|(s, _)| s.clone()).collect();
                for s in mine {
                    if let Some(expected) = oracle_moves(&p, &b, &s) {
                        let actual = engine_moves_from(&p, &s);
                        assert_moves(&actual, &expected, &format!("{} on {s} in {p}", b.token(&s).unwrap()));
                        *compared.entry((id, b.token(&s).unwrap().to_string())).or_insert(0) += 1;
                    }
                }
            }
        }
    }
    // The comparison must have covered each kind of piece many times.
    for (id, token) in [
        (CHU, "(LN)"),
        (DAI, "(LN)"),
        (TENJIKU, "(LN)"),
        (TENJIKU, "(LH)"),
        (TENJIKU, "(FD)"),
        (TENJIKU, "(VG)"),
        (TENJIKU, "(SE)"),
        (TENJIKU, "(HF)"),
    ] {
        let n = compared.get(&(id, token.to_string())).copied().unwrap_or(0);
        assert!(n >= 100, "{id} {token}: only {n} comparisons");
    }
    let promoted: usize = compared.iter().filter(|((id, t), _)| *id != TENJIKU && (t == "+(DK)" || t == "+(DH)")).map(|(_, n)| n).sum();
    println!("comparisons: {compared:?}");
    assert!(promoted >= 20, "chu/dai eagles and falcons compared only {promoted} times");
}

/// The royal zone (`rules::royal_zone`) against the opponent's moves themselves, in positions
/// from seeded random play. Where the defender's only royal could not be taken, every move of
/// the side to move exposes it exactly when [`RoyalZone::exposed_after`] says so. Where it
/// could, every move of the defender that leaves the zone untouched (and does not take the
/// attacker's last royal) leaves it en prise. Tenjiku, whose fire demons burn, has no zone.
#[test]
fn the_royal_zone_agrees_with_the_opponents_moves() {
    use shogi_zero::rules::royal_zone::RoyalZone;
    for id in [CHU, DAI, VariantId::HEIAN_DAI_SHOGI] {
        // Exposing moves, moves that keep the royal safe, untouched replies left in check.
        let (mut exposing, mut safe, mut still_in_check) = (0, 0, 0);
        for seed in 0..6u64 {
            let game = random_game(&Position::start(id), 0x2035 + seed, 300, 2);
            for p in game.iter().step_by(3) {
                let attacker = p.side_to_move();
                let defender = attacker.opponent();
                if let Some(zone) = RoyalZone::of(p, defender).filter(|_| !p.only_royal_en_prise(defender)) {
                    for mv in p.legal_moves() {
                        let after = p.after(mv).unwrap();
                        let exposed = after.only_royal_en_prise(defender);
                        assert_eq!(zone.exposed_after(mv, &after), exposed, "{id:?} {} {}", sfen::write(p), coord::write(id.variant(), mv));
                        *(if exposed { &mut exposing } else { &mut safe }) += 1;
                    }
                }
                // The attacker's own royal, where the defender (to move next) could take it.
                let Some(zone) = RoyalZone::of(p, attacker).filter(|_| p.only_royal_en_prise(attacker)) else { continue };
                let last_royal = p.royal_square(defender);
                for mv in p.legal_moves().into_iter().filter(|&mv| !zone.touched_by(mv)) {
                    if last_royal.is_some_and(|royal| mv.capture_squares().any(|sq| sq == royal)) {
                        continue;
                    }
                    let after = p.after(mv).unwrap();
                    assert!(after.only_royal_en_prise(attacker), "{id:?} {} {}", sfen::write(p), coord::write(id.variant(), mv));
                    still_in_check += 1;
                }
            }
        }
        assert!(exposing > 0 && safe > 0 && still_in_check > 0, "{id:?}: {exposing} {safe} {still_in_check}");
    }
    let tenjiku = Position::start(TENJIKU);
    assert!(RoyalZone::of(&tenjiku, Color::Black).is_none());
    assert!(RoyalZone::of(&Position::start(CHU), Color::Black).is_some());
}

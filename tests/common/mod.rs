//! Helpers shared by the integration tests: building positions from text, naming moves, a
//! small deterministic random number generator (no extra crates), scratch folders and a quick
//! training recipe.
#![allow(dead_code)]

use std::collections::BTreeSet;

use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::{Color, Game, GameRules, Move, Position, Square, VariantId};

pub const SHOGI: VariantId = VariantId::SHOGI;
pub const HEIAN: VariantId = VariantId::HEIAN_DAI_SHOGI;

/// A chu position for [`board`]: White's king on 1a, boxed in by its own pawns on 2a, 1b and 2b;
/// Black's lion on 4d, three squares away. A lion step to 3b or 3c puts the king within the
/// lion's reach, and nothing White can do takes the lion or frees the king.
pub const CHU_LION_MATE: [(&str, &str); 6] = [("1a", "k"), ("2a", "p"), ("1b", "p"), ("2b", "p"), ("4d", "(Ln)"), ("12l", "K")];

/// Parses a position, panicking with the error message when it does not parse.
pub fn pos(id: VariantId, text: &str) -> Position {
    sfen::parse(id.variant(), text).unwrap_or_else(|e| panic!("test position '{text}' does not parse: {e}"))
}

/// The square named `name` (`7g`, `13m`) in variant `id`.
pub fn sq(id: VariantId, name: &str) -> Square {
    id.variant().geometry.parse_square(name).unwrap_or_else(|| panic!("'{name}' is not a square of {id}"))
}

/// A move from its coordinate text, without checking legality.
pub fn mv(id: VariantId, text: &str) -> Move {
    coord::parse_unchecked(id.variant(), text).unwrap_or_else(|e| panic!("'{text}': {e}"))
}

/// Coordinate text of a move.
pub fn text(pos: &Position, m: Move) -> String {
    coord::write(pos.variant(), m)
}

/// The legal moves of `pos` as a set of coordinate texts.
pub fn legal(pos: &Position) -> BTreeSet<String> {
    let moves = pos.legal_moves();
    let set: BTreeSet<String> = moves.iter().map(|&m| text(pos, m)).collect();
    assert_eq!(set.len(), moves.len(), "duplicate moves in the legal move list of {pos}");
    set
}

/// The legal board moves (one- and two-leg) starting on square `from` (coordinate texts).
pub fn moves_from(pos: &Position, from: &str) -> BTreeSet<String> {
    let from = sq(pos.variant().id, from);
    pos.legal_moves()
        .into_iter()
        .filter(|m| match *m {
            Move::Normal { from: f, .. } | Move::TwoLeg { from: f, .. } => f == from,
            _ => false,
        })
        .map(|m| text(pos, m))
        .collect()
}

/// The legal drops (coordinate texts such as `P*5e`) of piece letter `letter`.
pub fn drops_of(pos: &Position, letter: &str) -> BTreeSet<String> {
    let prefix = format!("{letter}*");
    legal(pos).into_iter().filter(|t| t.starts_with(&prefix)).collect()
}

/// The distinct destination squares of the legal moves from `from`.
pub fn destinations(pos: &Position, from: &str) -> BTreeSet<String> {
    let g = &pos.variant().geometry;
    let from = sq(pos.variant().id, from);
    pos.legal_moves()
        .into_iter()
        .filter_map(|m| match m {
            Move::Normal { from: f, to, .. } if f == from => Some(g.square_name(to)),
            _ => None,
        })
        .collect()
}

/// A set of strings from a list, for comparing with [`legal`] and friends.
pub fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Every square name of variant `id`.
pub fn all_square_names(id: VariantId) -> Vec<String> {
    let v = id.variant();
    v.geometry.squares().iter().map(|&s| v.geometry.square_name(s)).collect()
}

/// A game from `text` under the variant's default rules.
pub fn game(id: VariantId, text: &str) -> Game {
    Game::new(pos(id, text), GameRules::default_for(id.variant()))
}

/// Plays coordinate moves separated by spaces, panicking on the first that fails.
pub fn play_all(game: &mut Game, moves: &str) {
    for (i, m) in moves.split_whitespace().enumerate() {
        if let Err(e) = game.play_text(m) {
            panic!("move {} ('{m}') of '{moves}' failed in {}: {e}", i + 1, game.position());
        }
    }
}

/// The other colour's name, for messages.
pub fn color_name(c: Color) -> &'static str {
    c.name()
}

/// splitmix64: a tiny, fast, deterministic generator, good enough to pick random moves.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform-enough index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Builds a position text from `(square, token)` pairs, tokens as in the position format
/// (`K`, `p`, `+(FD)`, `(sm)`); `side` is `b` or `w`, `hands` the third field (`-` for none,
/// shogi's hands, or chu's counter-strike square). Panics on a square named twice or off the
/// board.
pub fn board(id: VariantId, pieces: &[(&str, &str)], side: &str, hands: &str) -> String {
    let v = id.variant();
    let n = v.geometry.size;
    let mut seen = BTreeSet::new();
    for (s, _) in pieces {
        assert!(seen.insert(*s), "square {s} named twice");
    }
    let mut ranks = Vec::new();
    for y in 0..n {
        let mut rank = String::new();
        let mut empty = 0;
        for x in 0..n {
            let name = v.geometry.square_name(v.geometry.square(x, y));
            match pieces.iter().find(|(s, _)| *s == name) {
                Some((_, token)) => {
                    if empty > 0 {
                        rank.push_str(&empty.to_string());
                        empty = 0;
                    }
                    rank.push_str(token);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            rank.push_str(&empty.to_string());
        }
        ranks.push(rank);
    }
    for (s, _) in pieces {
        sq(id, s);
    }
    format!("{} {side} {hands} 1", ranks.join("/"))
}

/// Whatever move text `coord::parse` reads in `p` is a legal move, and its own text reads back
/// to it; `coord::parse_unchecked` never panics on the text.
pub fn check_move_text(p: &Position, text: &str) {
    let _ = coord::parse_unchecked(p.variant(), text);
    if let Ok(m) = coord::parse(p, text) {
        assert!(p.legal_moves().contains(&m), "'{text}' read as the illegal {m:?} in {p}");
        let written = coord::write(p.variant(), m);
        assert_eq!(coord::parse(p, &written), Ok(m), "'{text}' -> '{written}' in {p}");
    }
}

/// `text` with one character replaced (`op % 3 == 0`), inserted (1) or deleted (2) at `at`
/// (modulo the length); past the end, `c` is appended.
pub fn mutate(text: &str, at: usize, op: u8, c: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let i = at % (chars.len() + 1);
    match op % 3 {
        0 if i < chars.len() => chars[i] = c,
        1 => chars.insert(i, c),
        _ if i < chars.len() => {
            chars.remove(i);
        }
        _ => chars.push(c),
    }
    chars.into_iter().collect()
}

/// An empty scratch folder unique to a test name and process, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("shogi-zero-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The whole text of the reference recipe `configs/recipes/<size>.toml` for `variant` (a name
/// or a variant file's path), every key of the recipe in one file.
pub fn recipe(variant: &str, size: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("configs/recipes/{size}.toml"));
    let variant = toml::Value::String(variant.to_string());
    format!("variant = {variant}\n{}", std::fs::read_to_string(path).expect("a reference recipe"))
}

/// The tiny recipe for `variant`, edited for a training run of a few seconds: `total_steps`
/// steps, a checkpoint every 5, short games and few simulations.
pub fn quick_recipe(variant: &str, total_steps: u64) -> String {
    recipe(variant, "tiny")
        .replace("total_steps = 100000", &format!("total_steps = {total_steps}"))
        .replace("checkpoint_every = 50", "checkpoint_every = 5")
        .replace("min_window_positions = 500", "min_window_positions = 128")
        .replace("ply_cap = 150", "ply_cap = 40")
        .replace("simulations = 16", "simulations = 8")
        .replace("fast_simulations = 8", "fast_simulations = 4")
}

//! Openings: where games start, for self-play (`[selfplay] openings`) and for each pair of an
//! arena match.
//!
//! A match's pair `i` starts from line `i` of an openings file (from the first line again when
//! the match has more pairs than the file has lines), or from the variant's start position
//! without a file, followed by `K` random plies (uniform over the legal moves, from a generator
//! seeded by the match seed and the pair number, so a pair's opening does not depend on thread
//! timing).
//!
//! Openings file: one opening per line; empty lines and lines starting with `#` are skipped. A
//! line is written like the argument of USI's `position` command, or as bare moves:
//! - `startpos [moves 7g7f 3c3d]`: the start position, then the moves;
//! - `sfen <board> <side> <hands> [<move number>] [moves ...]`: a position in (generalised)
//!   SFEN, then the moves;
//! - `7g7f 3c3d`: moves in coordinate notation from the start position.
//!
//! Every move must be legal and the game must not be over at the end of the line.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::rules::notation::sfen;
use crate::rules::{Game, GameRules, Move, Position, VariantId};

/// Why an openings file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OpeningError {
    #[error("cannot read openings file {path}: {error}")]
    Io { path: String, error: std::io::Error },
    #[error("openings line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("the openings file has no opening")]
    Empty,
}

/// The start of a pair of games: a position and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    pub start: Position,
    pub moves: Vec<Move>,
}

impl Opening {
    /// The game after the opening, under `rules`.
    pub fn game(&self, rules: GameRules) -> Game {
        let mut game = Game::new(self.start.clone(), rules);
        for &mv in &self.moves {
            // Checked when the opening was made; a move the game refuses is skipped.
            let _ = game.play(mv);
        }
        game
    }

    /// The variant's start position, no moves.
    pub fn start(variant: VariantId) -> Opening {
        Opening { start: Position::start(variant), moves: Vec::new() }
    }
}

/// Where the openings of a match come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Openings {
    /// The lines of an openings file, in order; none: the variant's start position.
    pub lines: Vec<Opening>,
    /// Random legal moves played after the line.
    pub random_plies: u32,
}

impl Openings {
    /// `plies` random plies from the start position.
    pub fn random(plies: u32) -> Openings {
        Openings { lines: Vec::new(), random_plies: plies }
    }

    /// The opening of pair `pair` (0-based) of a match seeded `seed`.
    pub fn for_pair(&self, variant: VariantId, rules: GameRules, seed: u64, pair: u32) -> Opening {
        let line = match self.lines.len() {
            0 => Opening::start(variant),
            n => self.lines[pair as usize % n].clone(),
        };
        if self.random_plies == 0 {
            return line;
        }
        random_opening(&line, rules, self.random_plies, seed ^ (pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

/// Attempts at a random opening that does not end the game, before settling for fewer plies.
const RANDOM_OPENING_TRIES: u32 = 64;

/// `line` followed by `plies` uniformly random legal moves, drawn from a generator seeded
/// `seed`; a line that ends the game is drawn again (and after [`RANDOM_OPENING_TRIES`]
/// failures cut short before its end).
pub fn random_opening(line: &Opening, rules: GameRules, plies: u32, seed: u64) -> Opening {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = line.start.clone();
    let mut last = line.moves.clone();
    for _ in 0..RANDOM_OPENING_TRIES {
        let mut game = line.game(rules);
        for _ in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            if game.play(mv).is_err() {
                break;
            }
        }
        if game.outcome().is_none() {
            return Opening { start, moves: game.moves().to_vec() };
        }
        last = game.moves().to_vec();
    }
    last.pop();
    Opening { start, moves: last }
}

/// Reads openings in the file format of this module.
pub fn parse_openings(variant: VariantId, text: &str, rules: GameRules) -> Result<Vec<Opening>, OpeningError> {
    let mut openings = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let error = |message: String| OpeningError::Line { line: i + 1, message };
        let words: Vec<&str> = line.split_whitespace().collect();
        let (start, move_words) = match words[0] {
            keyword @ ("startpos" | "sfen") => {
                let end = words.iter().position(|&w| w == "moves").unwrap_or(words.len());
                let start = if keyword == "startpos" {
                    if end != 1 {
                        return Err(error(format!("expected 'moves' after 'startpos', found '{}'", words[1])));
                    }
                    Position::start(variant)
                } else {
                    let text = words[1..end].join(" ");
                    sfen::parse(variant.variant(), &text).map_err(|e| error(format!("bad SFEN '{text}': {e}")))?
                };
                (start, &words[(end + 1).min(words.len())..])
            }
            _ => (Position::start(variant), &words[..]),
        };
        let mut game = Game::new(start.clone(), rules);
        for (n, text) in move_words.iter().enumerate() {
            game.play_text(text).map_err(|e| error(format!("move {} ('{text}'): {e}", n + 1)))?;
        }
        if let Some(outcome) = game.outcome() {
            return Err(error(format!("the game is already over ({:?})", outcome.reason)));
        }
        openings.push(Opening { start, moves: game.moves().to_vec() });
    }
    if openings.is_empty() {
        return Err(OpeningError::Empty);
    }
    Ok(openings)
}

/// Reads an openings file.
pub fn read_openings(variant: VariantId, path: &Path, rules: GameRules) -> Result<Vec<Opening>, OpeningError> {
    let text = std::fs::read_to_string(path).map_err(|error| OpeningError::Io { path: path.display().to_string(), error })?;
    parse_openings(variant, &text, rules)
}

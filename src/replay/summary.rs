//! Totals over checked replay files, as `shogi-zero replay check` prints them.

use std::collections::BTreeMap;
use std::fmt;

use super::format::ReplayFile;

/// Counts over a set of replay files.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Files added.
    pub files: usize,
    /// Games in them.
    pub games: usize,
    /// Positions with a move played (every ply of every game).
    pub positions: usize,
    /// Positions that got a full search (training targets).
    pub full_search_positions: usize,
    /// Games per result, by winner and reason (`"black wins by checkmate"`).
    pub results: BTreeMap<String, usize>,
}

impl Summary {
    /// Adds a file's games to the totals.
    pub fn add(&mut self, file: &ReplayFile) {
        self.files += 1;
        for game in &file.games {
            self.games += 1;
            self.positions += game.moves.len();
            self.full_search_positions += game.moves.iter().filter(|m| !m.policy.is_empty()).count();
            *self.results.entry(game.result.to_string()).or_default() += 1;
        }
    }

    /// Average game length in plies (0 without games).
    pub fn average_length(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.positions as f64 / self.games as f64
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "files: {}", self.files)?;
        writeln!(f, "games: {}", self.games)?;
        writeln!(f, "positions: {}", self.positions)?;
        writeln!(f, "full-search positions: {}", self.full_search_positions)?;
        writeln!(f, "average length: {:.1} plies", self.average_length())?;
        writeln!(f, "results:")?;
        for (result, count) in &self.results {
            writeln!(f, "  {result}: {count}")?;
        }
        Ok(())
    }
}

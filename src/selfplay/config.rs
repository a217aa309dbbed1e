//! Self-play settings: the `[selfplay]` table of a run configuration.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::invalid_field::InvalidField;

/// How self-play games are played and recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Simulations of a full search, whose result is recorded as a policy target.
    pub simulations: u32,
    /// Simulations of a fast search (playout-cap randomisation, KataGo): not recorded as a
    /// target, no noise. Equal to `simulations` with `full_search_fraction = 1` to disable.
    pub fast_simulations: u32,
    /// Share of moves that get a full search (the rest get a fast one).
    pub full_search_fraction: f32,
    /// Move-selection temperature (PUCT roots) at the first ply ...
    pub temperature_start: f32,
    /// ... decaying towards this value ...
    pub temperature_end: f32,
    /// ... halving the distance every this many plies.
    pub temperature_half_life: f32,
    /// A player resigns when the search's win probability (draws counting half) stays below
    /// this for `resign_consecutive` of his moves in a row. 0 disables resignation.
    pub resign_threshold: f32,
    /// See `resign_threshold`.
    pub resign_consecutive: u32,
    /// Share of games played to the end regardless, to measure how often a resignation would
    /// have been wrong (reported as the false-resignation rate).
    pub resign_audit_fraction: f32,
    /// Adjudication of won positions: a side that leads by this much material (in mean pieces
    /// of the start position, hands included) for `adjudicate_plies` plies in a row wins the
    /// game there. 0 disables it. Audited games (`resign_audit_fraction`) are played out to
    /// measure how often the side judged won did not win.
    pub adjudicate_lead: f32,
    /// See `adjudicate_lead`.
    pub adjudicate_plies: u32,
    /// Plies after which a game is drawn; 0 takes the variant's default.
    pub ply_cap: u32,
    /// Worker threads, each playing `games_per_worker` games at once.
    pub workers: usize,
    /// Games each worker keeps in flight, so that the network gets full batches.
    pub games_per_worker: usize,
    /// Games written together in one replay file.
    pub games_per_file: usize,
    /// An openings file (the format of [`crate::openings`]): game `i` starts from the position
    /// at the end of line `i` (cycling through the file). A relative path is read from the
    /// configuration file's folder. Left out: every game starts from the variant's start.
    pub openings: Option<PathBuf>,
    /// Share of games (in `train`) in which one side, drawn at random, is played by an
    /// earlier checkpoint of the run (drawn anew at every checkpoint): opponent sampling, so
    /// that the network keeps meeting play unlike its own. Only the other side's moves are
    /// training targets; these games are never resigned. 0: pure self-play.
    pub league_fraction: f32,
    /// Share of games in which one side, drawn at random, is played by the material searcher
    /// of the `alphabeta` anchors ([`crate::material_search`]) at `searcher_depth`, so that
    /// the network meets a searcher's play in training. Only the other side's moves are
    /// training targets; these games are never resigned. 0: none. With `league_fraction`, at
    /// most 1 in all.
    pub searcher_fraction: f32,
    /// The depth in plies of the searcher of `searcher_fraction`'s games (1 to 4).
    pub searcher_depth: u32,
}

impl Default for SelfplayConfig {
    fn default() -> SelfplayConfig {
        SelfplayConfig {
            simulations: 64,
            fast_simulations: 16,
            full_search_fraction: 0.25,
            temperature_start: 0.8,
            temperature_end: 0.2,
            temperature_half_life: 20.0,
            resign_threshold: 0.02,
            resign_consecutive: 3,
            resign_audit_fraction: 0.1,
            adjudicate_lead: 0.0,
            adjudicate_plies: 20,
            ply_cap: 0,
            workers: 1,
            games_per_worker: 32,
            games_per_file: 16,
            openings: None,
            league_fraction: 0.0,
            searcher_fraction: 0.0,
            searcher_depth: 1,
        }
    }
}

impl SelfplayConfig {
    /// Checks the values, naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("selfplay.{name}"), message });
        let fraction = |name: &str, v: f32| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                fail(name, format!("{v} is not between 0 and 1"))
            }
        };
        if !(1..=1_000_000).contains(&self.simulations) {
            return fail("simulations", format!("{} is not between 1 and 1000000", self.simulations));
        }
        if !(1..=self.simulations).contains(&self.fast_simulations) {
            return fail("fast_simulations", format!("{} is not between 1 and simulations ({})", self.fast_simulations, self.simulations));
        }
        fraction("full_search_fraction", self.full_search_fraction)?;
        for (name, v) in [("temperature_start", self.temperature_start), ("temperature_end", self.temperature_end)] {
            if !(0.0..=10.0).contains(&v) {
                return fail(name, format!("{v} is not between 0 and 10"));
            }
        }
        if !(self.temperature_half_life.is_finite() && self.temperature_half_life > 0.0) {
            return fail("temperature_half_life", format!("{} is not a positive number of plies", self.temperature_half_life));
        }
        fraction("resign_threshold", self.resign_threshold)?;
        fraction("resign_audit_fraction", self.resign_audit_fraction)?;
        fraction("league_fraction", self.league_fraction)?;
        fraction("searcher_fraction", self.searcher_fraction)?;
        if self.league_fraction + self.searcher_fraction > 1.0 {
            return fail(
                "searcher_fraction",
                format!("{} and league_fraction {} make more than all games", self.searcher_fraction, self.league_fraction),
            );
        }
        if !(1..=4).contains(&self.searcher_depth) {
            return fail("searcher_depth", format!("{} is not between 1 and 4", self.searcher_depth));
        }
        if !(0.0..=1000.0).contains(&self.adjudicate_lead) {
            return fail("adjudicate_lead", format!("{} is not between 0 and 1000 mean start pieces", self.adjudicate_lead));
        }
        if self.adjudicate_plies == 0 {
            return fail("adjudicate_plies", "0 is not a number of plies (at least 1)".to_string());
        }
        if self.resign_consecutive == 0 {
            return fail("resign_consecutive", "0 is not a number of moves (at least 1)".to_string());
        }
        if !(1..=256).contains(&self.workers) {
            return fail("workers", format!("{} is not between 1 and 256", self.workers));
        }
        if !(1..=4096).contains(&self.games_per_worker) {
            return fail("games_per_worker", format!("{} is not between 1 and 4096", self.games_per_worker));
        }
        if !(1..=100_000).contains(&self.games_per_file) {
            return fail("games_per_file", format!("{} is not between 1 and 100000", self.games_per_file));
        }
        Ok(())
    }

    /// The move-selection temperature at `ply`.
    pub fn temperature(&self, ply: usize) -> f32 {
        let decay = 0.5f32.powf(ply as f32 / self.temperature_half_life);
        self.temperature_end + (self.temperature_start - self.temperature_end) * decay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searcher_games_are_checked_against_the_league_share_and_their_depth() {
        let field = |config: SelfplayConfig| config.validate().err().map(|e| e.field);
        let base = SelfplayConfig { searcher_fraction: 0.5, league_fraction: 0.5, searcher_depth: 2, ..SelfplayConfig::default() };
        assert_eq!(field(base.clone()), None);
        assert_eq!(field(SelfplayConfig { league_fraction: 0.6, ..base.clone() }).as_deref(), Some("selfplay.searcher_fraction"));
        assert_eq!(field(SelfplayConfig { searcher_fraction: -0.1, ..base.clone() }).as_deref(), Some("selfplay.searcher_fraction"));
        for depth in [0, 5] {
            assert_eq!(field(SelfplayConfig { searcher_depth: depth, ..base.clone() }).as_deref(), Some("selfplay.searcher_depth"));
        }
    }
}

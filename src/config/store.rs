//! `[store]`: what the trainer of a distributed run accepts from its workers, and what it keeps.
//! Game batches come from machines the trainer does not control; the limits keep a broken or
//! hostile upload from taking it down (it is set aside under `rejected/` instead). Retention
//! keeps a long run's store from growing without bound.

use serde::{Deserialize, Serialize};

use crate::invalid_field::InvalidField;

/// The `[store]` table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// The largest game batch the trainer reads, in MiB: a larger one is set aside unread.
    pub max_batch_mib: u64,
    /// The longest line of a game batch (one game with its search targets), in KiB.
    pub max_line_kib: u64,
    /// The trainer deletes the game batches (and those set aside) of models more than this
    /// many checkpoints older than its newest; 0 keeps them all. At least `[train]
    /// max_game_age`, so that nothing it still trains on is deleted.
    pub keep_games_models: u64,
    /// The trainer deletes the optimiser state of all but this many newest checkpoints (their
    /// weights stay); 0 keeps them all.
    pub keep_optimizer_states: u64,
    /// A trainer that stops renewing its hold on the run (killed, its machine lost) keeps
    /// another from taking over for this many seconds; one that stops cleanly lets go at once.
    pub lease_seconds: u64,
}

impl Default for StoreConfig {
    fn default() -> StoreConfig {
        StoreConfig { max_batch_mib: 64, max_line_kib: 16 * 1024, keep_games_models: 0, keep_optimizer_states: 0, lease_seconds: 120 }
    }
}

impl StoreConfig {
    /// Checks the limits' ranges.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("store.{name}"), message });
        if !(1..=4096).contains(&self.max_batch_mib) {
            return fail("max_batch_mib", format!("{} is not between 1 and 4096", self.max_batch_mib));
        }
        if !(1..=self.max_batch_mib * 1024).contains(&self.max_line_kib) {
            return fail("max_line_kib", format!("{} is not between 1 and max_batch_mib * 1024", self.max_line_kib));
        }
        if !(1..=86_400).contains(&self.lease_seconds) {
            return fail("lease_seconds", format!("{} is not between 1 and 86400", self.lease_seconds));
        }
        Ok(())
    }

    /// Checks that retention keeps every batch a trainer reading games of models up to
    /// `max_game_age` checkpoints old (0: any age) still wants.
    pub fn check_game_age(&self, max_game_age: u64) -> Result<(), InvalidField> {
        if self.keep_games_models > 0 && (max_game_age == 0 || self.keep_games_models < max_game_age) {
            return Err(InvalidField {
                field: "store.keep_games_models".to_string(),
                message: format!(
                    "{} would delete games the trainer still reads: make it 0 or at least [train] max_game_age ({})",
                    self.keep_games_models, max_game_age
                ),
            });
        }
        Ok(())
    }

    /// [`StoreConfig::max_batch_mib`] in bytes.
    pub fn max_batch_bytes(&self) -> u64 {
        self.max_batch_mib * 1024 * 1024
    }

    /// [`StoreConfig::max_line_kib`] in bytes.
    pub fn max_line_bytes(&self) -> u64 {
        self.max_line_kib * 1024
    }
}

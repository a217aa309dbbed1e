//! `[store]`: what the trainer of a distributed run accepts from its workers. Game batches come
//! from machines the trainer does not control; these limits keep a broken or hostile upload
//! from taking it down (it is set aside under `rejected/` instead).

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
}

impl Default for StoreConfig {
    fn default() -> StoreConfig {
        StoreConfig { max_batch_mib: 64, max_line_kib: 16 * 1024 }
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

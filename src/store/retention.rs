//! What the trainer deletes from the store after each checkpoint, so that a long run does not
//! grow it without bound (`[store] keep_games_models` and `keep_optimizer_states`): the game
//! batches (and batches set aside) of models too old to train on, and the optimiser state of
//! all but the newest checkpoints. The weights and metadata of every checkpoint stay.

use super::layout::{self, GameName};
use super::{Store, StoreError};
use crate::config::store::StoreConfig;

/// What one [`prune`] deleted.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Game batches deleted (from `games/` and `rejected/`).
    pub batches: usize,
    /// Optimiser states deleted.
    pub optimizer_states: usize,
}

/// Deletes what `limits` says not to keep, now that checkpoint `newest_step` is published and
/// checkpoints come every `checkpoint_every` steps.
pub fn prune(store: &Store, limits: &StoreConfig, newest_step: u64, checkpoint_every: u64) -> Result<Pruned, StoreError> {
    let mut pruned = Pruned::default();
    if limits.keep_games_models > 0 {
        let oldest_kept = newest_step.saturating_sub(limits.keep_games_models.saturating_mul(checkpoint_every));
        pruned.batches = prune_games(store, oldest_kept)?;
    }
    if limits.keep_optimizer_states > 0 {
        pruned.optimizer_states = prune_optimizer_states(store, limits.keep_optimizer_states)?;
    }
    Ok(pruned)
}

/// Deletes the batches of models older than step `oldest_kept`: their folders under `games/`,
/// batches of earlier versions straight under it, and their copies under `rejected/`.
fn prune_games(store: &Store, oldest_kept: u64) -> Result<usize, StoreError> {
    let (loose, folders) = store.list_level(layout::GAMES)?;
    let mut doomed: Vec<String> = Vec::new();
    for folder in folders {
        if layout::parse_games_folder(&folder).is_some_and(|step| step < oldest_kept) {
            doomed.extend(store.list(&folder)?);
        }
    }
    let old =
        |object: &str| GameName::parse(object.rsplit('/').next().unwrap_or_default()).is_some_and(|name| name.model_step < oldest_kept);
    doomed.extend(loose.into_iter().map(|entry| entry.name).filter(|name| old(name)));
    doomed.extend(store.list(layout::REJECTED)?.into_iter().filter(|name| old(name)));
    for object in &doomed {
        store.delete(object)?;
    }
    Ok(doomed.len())
}

/// Deletes the optimiser state of every checkpoint but the newest `keep` (by step).
fn prune_optimizer_states(store: &Store, keep: u64) -> Result<usize, StoreError> {
    let (_, folders) = store.list_level(layout::CHECKPOINTS)?;
    let mut steps: Vec<(u64, String)> =
        folders.into_iter().filter_map(|folder| Some((layout::parse_checkpoint_folder(&folder)?, folder))).collect();
    steps.sort();
    let old = steps.len().saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
    let mut deleted = 0;
    for (step, folder) in &steps[..old] {
        let object = format!("{folder}/{}", layout::optimizer_file(*step));
        if store.modified_ms(&object)?.is_some() {
            store.delete(&object)?;
            deleted += 1;
        }
    }
    Ok(deleted)
}

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

/// Deletes the optimiser state of every checkpoint but the newest `keep` (by step). One listing
/// finds the checkpoints and the states still there, so that those deleted before cost nothing.
fn prune_optimizer_states(store: &Store, keep: u64) -> Result<usize, StoreError> {
    // Each object's checkpoint step and file name.
    let objects: Vec<(u64, String, String)> = store
        .list(layout::CHECKPOINTS)?
        .into_iter()
        .filter_map(|object| {
            let (folder, file) = object.rsplit_once('/')?;
            Some((layout::parse_checkpoint_folder(folder)?, file.to_string(), object.clone()))
        })
        .collect();
    let mut steps: Vec<u64> = objects.iter().map(|(step, ..)| *step).collect();
    steps.sort_unstable();
    steps.dedup();
    let old = steps.len().saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
    let Some(&newest_old) = steps[..old].last() else { return Ok(0) };
    let doomed: Vec<&String> = objects
        .iter()
        .filter(|(step, file, _)| *step <= newest_old && *file == layout::optimizer_file(*step))
        .map(|(.., object)| object)
        .collect();
    for object in &doomed {
        store.delete(object)?;
    }
    Ok(doomed.len())
}

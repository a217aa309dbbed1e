//! Checkpoints in the store: the trainer publishes each one (every file under a folder named by
//! step and weights checksum, then `latest.json`), workers fetch the newest into a local cache
//! and check it against its checksum, and a trainer on a fresh machine fetches all it needs to
//! resume.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::layout::{self, LatestRecord};
use super::lease::{self, Lease, LeaseError};
use super::{Store, StoreError};
use crate::fnv;
use crate::nn::checkpoint;

/// The files of checkpoint `step` in a run folder, in upload order (the metadata last: a
/// checkpoint folder with metadata is complete).
fn files(step: u64) -> [String; 4] {
    let stem = format!("step-{step:010}");
    [format!("{stem}.safetensors"), layout::optimizer_file(step), format!("{stem}.trainer.json"), format!("{stem}.json")]
}

/// Uploads checkpoint `step` of the run folder `run_dir` (weights, metadata, optimiser and
/// trainer state), then points `latest.json` at it, unless `lease`'s trainer has been fenced
/// off (then nothing points at the upload).
pub fn publish(store: &Store, run_dir: &Path, step: u64, lease: &Lease) -> Result<LatestRecord, LeaseError> {
    let (_, metadata) = checkpoint::read_metadata(&checkpoint::metadata_file(run_dir, step)).map_err(local)?;
    let folder = layout::checkpoint_folder(step, &metadata.weights_fnv1a64);
    for file in files(step) {
        let path = run_dir.join(&file);
        let bytes = std::fs::read(&path).map_err(|e| local(format!("cannot read {}: {e}", path.display())))?;
        store.put_new(&format!("{folder}/{file}"), bytes)?;
    }
    let record = LatestRecord {
        step,
        checkpoint: folder,
        weights_fnv1a64: metadata.weights_fnv1a64,
        published_unix: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        run_ended: false,
        epoch: lease.epoch(),
    };
    // Test builds can hold a trainer here, between its last check of the lease and its
    // write of `latest.json`: `FAILPOINTS=publish-latest=1*off->sleep(20000)`.
    #[cfg(feature = "failpoints")]
    fail::fail_point!("publish-latest");
    lease.write_latest(store, &record)?;
    Ok(record)
}

/// Marks the newest checkpoint as the run's last: workers that see it stop.
pub fn end_run(store: &Store, lease: &Lease) -> Result<(), LeaseError> {
    match latest(store)? {
        Some(record) => lease.write_latest(store, &LatestRecord { run_ended: true, ..record }),
        None => Ok(()),
    }
}

/// The newest published checkpoint, if any.
pub fn latest(store: &Store) -> Result<Option<LatestRecord>, StoreError> {
    Ok(lease::read_latest(store)?.map(|(record, _)| record))
}

/// The network of checkpoint `record` in the local cache `cache` (fetched unless a copy with
/// the right checksum is there); returns its metadata file for [`crate::mcts::Model::load`].
pub fn fetch_model(store: &Store, record: &LatestRecord, cache: &Path) -> Result<PathBuf, StoreError> {
    let dir = cache.join(&record.checkpoint);
    let [weights, _, _, metadata] = files(record.step);
    let cached = std::fs::read(dir.join(&weights)).is_ok_and(|bytes| format!("{:016x}", fnv::hash(&bytes)) == record.weights_fnv1a64);
    if !cached || !dir.join(&metadata).is_file() {
        std::fs::create_dir_all(&dir).map_err(|e| local(format!("cannot create {}: {e}", dir.display())))?;
        for file in [&weights, &metadata] {
            fetch_file(store, &format!("{}/{file}", record.checkpoint), &dir.join(file))?;
        }
        let bytes = std::fs::read(dir.join(&weights)).map_err(local)?;
        let found = format!("{:016x}", fnv::hash(&bytes));
        if found != record.weights_fnv1a64 {
            return Err(StoreError::Malformed {
                url: store.url().to_string(),
                name: format!("{}/{weights}", record.checkpoint),
                message: format!("checksum {found}, latest.json says {}", record.weights_fnv1a64),
            });
        }
    }
    Ok(dir.join(metadata))
}

/// Fetches everything the trainer resumes from into its run folder: checkpoint `record`'s
/// files, pointed at by the folder's `latest`.
pub fn fetch_for_resume(store: &Store, record: &LatestRecord, run_dir: &Path) -> Result<(), StoreError> {
    for file in files(record.step) {
        fetch_file(store, &format!("{}/{file}", record.checkpoint), &run_dir.join(&file))?;
    }
    let [.., metadata] = files(record.step);
    crate::files::write_atomic(&run_dir.join(checkpoint::LATEST), format!("{metadata}\n").as_bytes())
        .map_err(|e| local(format!("cannot write {}: {e}", run_dir.join(checkpoint::LATEST).display())))
}

/// Copies object `name` to the local file `path` (atomically); a missing object is an error.
pub fn fetch_file(store: &Store, name: &str, path: &Path) -> Result<(), StoreError> {
    let bytes = store.get(name)?.ok_or_else(|| StoreError::Failed {
        url: store.url().to_string(),
        action: "read",
        name: name.to_string(),
        message: "no such object".to_string(),
    })?;
    crate::files::write_atomic(path, &bytes).map_err(|e| local(format!("cannot write {}: {e}", path.display())))
}

/// A local file problem met while moving data to or from the store.
fn local(error: impl std::fmt::Display) -> StoreError {
    StoreError::Local(error.to_string())
}

//! Game batches in the store. A worker writes each batch to a local spool folder, renames it to
//! its object name (upload time, worker, model step, checksum) and uploads it create-only, then
//! removes the local file: killed at any moment, it loses at most the batch it was playing, and
//! a batch left in the spool is uploaded when the worker starts again, under the same name.
//! The trainer copies the batches it has not seen into its replay folder, where its window
//! reads and checks them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::layout::{self, GameName};
use super::{Created, Store, StoreError};
use crate::fnv;
use crate::replay::format::is_replay_name;

/// Renames a replay file just written by [`crate::replay::write_games`] (`games-<ms>-<pid>-<seq>`)
/// in the spool folder to its object name, for games of `worker` played by the model of
/// `model_step`. Returns the new path.
pub fn name_for_upload(file: &Path, worker: &str, model_step: u64) -> Result<PathBuf, StoreError> {
    let local = |message: String| StoreError::Local(format!("{}: {message}", file.display()));
    let file_name = file.file_name().and_then(|n| n.to_str()).ok_or_else(|| local("not a file name".to_string()))?;
    let numbers: Vec<u64> = file_name
        .strip_prefix("games-")
        .and_then(|n| n.strip_suffix(".replay"))
        .map(|n| n.split('-').filter_map(|part| part.parse().ok()).collect())
        .unwrap_or_default();
    let [created_ms, pid, sequence] = numbers[..] else {
        return Err(local("not a replay file name of this program".to_string()));
    };
    let bytes = std::fs::read(file).map_err(|e| local(e.to_string()))?;
    let name = GameName { created_ms, worker: worker.to_string(), model_step, pid, sequence, hash: format!("{:016x}", fnv::hash(&bytes)) };
    let target = file.with_file_name(name.file_name());
    std::fs::rename(file, &target).map_err(|e| local(format!("cannot rename to {}: {e}", target.display())))?;
    Ok(target)
}

/// Uploads a spooled batch (named by [`name_for_upload`]) and removes the local file. Returns
/// the object's name and whether it was new (a retried upload finds it there).
pub fn upload(store: &Store, file: &Path) -> Result<(String, Created), StoreError> {
    let local = |message: String| StoreError::Local(format!("{}: {message}", file.display()));
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(GameName::parse)
        .ok_or_else(|| local("not a game object name".to_string()))?
        .object();
    let bytes = std::fs::read(file).map_err(|e| local(e.to_string()))?;
    #[cfg(feature = "failpoints")]
    fail::fail_point!("upload-games");
    let created = store.put_new(&name, bytes)?;
    std::fs::remove_file(file).map_err(|e| local(format!("uploaded, but cannot remove it: {e}")))?;
    Ok((name, created))
}

/// The batches a previous run of `worker` left in its spool folder, ready to upload. A batch
/// written but not yet named (the worker was killed in between) is named with model step 0,
/// since its model is unknown: the trainer treats it as old. Temporary files, cut by the
/// kill, are removed.
pub fn leftovers(spool: &Path, worker: &str) -> Result<Vec<PathBuf>, StoreError> {
    let local = |e: std::io::Error| StoreError::Local(format!("{}: {e}", spool.display()));
    let mut named = Vec::new();
    for entry in std::fs::read_dir(spool).map_err(local)? {
        let path = entry.map_err(local)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if GameName::parse(&name).is_some() {
            named.push(path);
        } else if name.starts_with("games-") && is_replay_name(&name) {
            named.push(name_for_upload(&path, worker, 0)?);
        } else if name.starts_with('.') {
            std::fs::remove_file(&path).map_err(local)?;
        }
    }
    named.sort();
    Ok(named)
}

/// What one [`GameSync::sync`] did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Batches copied into the replay folder.
    pub fetched: usize,
    /// New batches passed over because their model is too old.
    pub stale: usize,
    /// Objects under `games/` whose names this program does not make.
    pub unnamed: Vec<String>,
}

/// How far back, in milliseconds of upload time, each listing looks again for batches that
/// arrived late (a worker's clock behind, an upload that took long).
const LATE_ARRIVALS_MS: u64 = 10 * 60 * 1000;

/// The trainer's copy of the store's game batches in its replay folder.
pub struct GameSync {
    dir: PathBuf,
    /// Names fetched, passed over or set aside, among those the next listing may return.
    seen: HashSet<String>,
    /// The newest upload time seen; listings start [`LATE_ARRIVALS_MS`] before it.
    newest_ms: Option<u64>,
    listed_rejected: bool,
}

impl GameSync {
    /// A sync into the replay folder `dir`.
    pub fn new(dir: &Path) -> GameSync {
        GameSync { dir: dir.to_path_buf(), seen: HashSet::new(), newest_ms: None, listed_rejected: false }
    }

    /// Copies the batches not seen yet whose model step is at least `min_model_step`, and
    /// removes from the replay folder the batches of older models.
    pub fn sync(&mut self, store: &Store, min_model_step: u64) -> Result<SyncReport, StoreError> {
        if !self.listed_rejected {
            for name in store.list(layout::REJECTED, None)? {
                self.seen.insert(name.rsplit('/').next().unwrap_or_default().to_string());
            }
            self.listed_rejected = true;
        }
        let after = self.newest_ms.map(|ms| format!("{}/{:015}", layout::GAMES, ms.saturating_sub(LATE_ARRIVALS_MS)));
        let mut report = SyncReport::default();
        for object in store.list(layout::GAMES, after.as_deref())? {
            let file_name = object.rsplit('/').next().unwrap_or_default().to_string();
            if self.seen.contains(&file_name) {
                continue;
            }
            let Some(name) = GameName::parse(&file_name) else {
                report.unnamed.push(object);
                self.seen.insert(file_name);
                continue;
            };
            self.newest_ms = self.newest_ms.max(Some(name.created_ms));
            if name.model_step < min_model_step {
                report.stale += 1;
            } else {
                super::checkpoints::fetch_file(store, &object, &self.dir.join(&file_name))?;
                report.fetched += 1;
            }
            self.seen.insert(file_name);
        }
        // Names older than the next listing's start are never listed again.
        if let Some(newest) = self.newest_ms {
            let oldest_listed = newest.saturating_sub(LATE_ARRIVALS_MS);
            self.seen.retain(|name| GameName::parse(name).is_none_or(|n| n.created_ms >= oldest_listed));
        }
        self.prune(min_model_step)?;
        Ok(report)
    }

    /// Removes the local copies of batches played by models older than `min_model_step`.
    fn prune(&self, min_model_step: u64) -> Result<(), StoreError> {
        let local = |e: std::io::Error| StoreError::Local(format!("{}: {e}", self.dir.display()));
        for entry in std::fs::read_dir(&self.dir).map_err(local)? {
            let path = entry.map_err(local)?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if is_replay_name(name) && GameName::parse(name).is_some_and(|n| n.model_step < min_model_step) {
                std::fs::remove_file(&path).map_err(local)?;
            }
        }
        Ok(())
    }

    /// Sets aside a batch the window refused: a copy goes to `rejected/` in the store, the
    /// local copy is removed, and it is not fetched again. Returns the copy's object name.
    pub fn set_aside(&mut self, store: &Store, file: &Path) -> Result<String, StoreError> {
        let file_name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        let bytes = std::fs::read(file).map_err(|e| StoreError::Local(format!("{}: {e}", file.display())))?;
        let object = format!("{}/{file_name}", layout::REJECTED);
        store.put_new(&object, bytes)?;
        std::fs::remove_file(file).map_err(|e| StoreError::Local(format!("{}: {e}", file.display())))?;
        self.seen.insert(file_name);
        Ok(object)
    }
}

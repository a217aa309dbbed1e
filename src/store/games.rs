//! Game batches in the store. A worker writes each batch to a local spool folder, renames it to
//! its object name (time, worker, model step, checksum) and uploads it create-only into its
//! model's folder, then removes the local file: killed at any moment, it loses at most the
//! batch it was playing, and a batch left in the spool is uploaded when the worker starts
//! again, under the same name.
//!
//! The trainer lists the folders of the models recent enough to train on and copies the
//! batches it has not seen into its replay folder, where its window reads and checks them.
//! It reads no more of a batch than the `[store]` limits allow, and sets aside (under
//! `rejected/`) a batch over them or played under other rules than the run's ([`BatchRules`]):
//! an upload cannot take the trainer down.
//! Nothing it does depends on a worker's clock: a worker names its batches by the store's
//! clock (measured against its record, [`clock_offset`]), and a batch named more than a minute
//! ahead of the trainer's clock is set aside, never waited for.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::layout::{self, GameName};
use super::{Bounded, Created, Listed, Store, StoreError};
use crate::config::store::StoreConfig;
use crate::fnv;
use crate::replay::format::{is_replay_name, Header};
use crate::rules::GameRules;

/// How many batches the trainer reads from the store at the same time.
const PARALLEL_READS: usize = 8;

/// How far ahead of the trainer's clock a batch's name may be (a worker's measurement of the
/// store's clock is good to a second or two; more is a broken or dishonest worker).
pub const FUTURE_TOLERANCE_MS: u64 = 60 * 1000;

/// What a worker's record (`games/workers/<worker>.json`) says.
#[derive(Debug, Serialize)]
struct WorkerRecord<'a> {
    worker: &'a str,
    host: String,
    pid: u32,
    /// This machine's clock when it wrote the record, milliseconds since 1970.
    local_clock_ms: i64,
    version: &'static str,
}

/// Writes `worker`'s record and returns how far the store's clock is ahead of this machine's,
/// in milliseconds (negative when behind), from the record's modification time. Batches are
/// named by this machine's clock plus the offset, so that a machine whose clock is wrong names
/// them as well as any other.
pub fn clock_offset(store: &Store, worker: &str) -> Result<i64, StoreError> {
    let before = local_clock_ms();
    let record = WorkerRecord {
        worker,
        host: super::host_name(),
        pid: std::process::id(),
        local_clock_ms: before,
        version: env!("CARGO_PKG_VERSION"),
    };
    let name = format!("{}/{worker}.json", layout::WORKERS);
    let modified = store.put_timed(&name, super::record_json(&record))?;
    let after = local_clock_ms();
    Ok(i64::try_from(modified).unwrap_or(i64::MAX) - (before + after) / 2)
}

/// This machine's clock, milliseconds since 1970. Test builds can set it wrong:
/// `FAILPOINTS=clock-skew-ms=return(3600000)` puts it an hour ahead.
fn local_clock_ms() -> i64 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    #[cfg(feature = "failpoints")]
    fail::fail_point!("clock-skew-ms", |skew: Option<String>| now + skew.and_then(|s| s.parse::<i64>().ok()).unwrap_or(0));
    now
}

/// Milliseconds since 1970 by the trainer's clock.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Renames a replay file just written by [`crate::replay::write_games`] (`games-<ms>-<pid>-<seq>`)
/// in the spool folder to its object name, for games of `worker` played by the model of
/// `model_step`, timed now by the store's clock (`clock_offset`, from [`clock_offset`]).
/// Returns the new path.
pub fn name_for_upload(file: &Path, worker: &str, model_step: u64, clock_offset: i64) -> Result<PathBuf, StoreError> {
    let local = |message: String| StoreError::Local(format!("{}: {message}", file.display()));
    let file_name = file.file_name().and_then(|n| n.to_str()).ok_or_else(|| local("not a file name".to_string()))?;
    let numbers: Vec<u64> = file_name
        .strip_prefix("games-")
        .and_then(|n| n.strip_suffix(".replay"))
        .map(|n| n.split('-').filter_map(|part| part.parse().ok()).collect())
        .unwrap_or_default();
    let [_, pid, sequence] = numbers[..] else {
        return Err(local("not a replay file name of this program".to_string()));
    };
    let bytes = std::fs::read(file).map_err(|e| local(e.to_string()))?;
    let created_ms = u64::try_from(local_clock_ms().saturating_add(clock_offset)).unwrap_or(0);
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
/// written but not yet named (the worker was killed in between) is named now, with model step
/// 0, since its model is unknown: the trainer treats it as old. Temporary files, cut by the
/// kill, are removed.
pub fn leftovers(spool: &Path, worker: &str, clock_offset: i64) -> Result<Vec<PathBuf>, StoreError> {
    let local = |e: std::io::Error| StoreError::Local(format!("{}: {e}", spool.display()));
    let mut named = Vec::new();
    for entry in std::fs::read_dir(spool).map_err(local)? {
        let path = entry.map_err(local)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if GameName::parse(&name).is_some() {
            named.push(path);
        } else if name.starts_with("games-") && is_replay_name(&name) {
            named.push(name_for_upload(&path, worker, 0, clock_offset)?);
        } else if name.starts_with('.') {
            std::fs::remove_file(&path).map_err(local)?;
        }
    }
    named.sort();
    Ok(named)
}

/// What the trainer accepts in a game batch: the run's variant, rules and start positions,
/// within the `[store]` limits. Anything else is set aside unread by the window.
#[derive(Clone, Debug)]
pub struct BatchRules {
    /// The variant's name, as a replay header gives it.
    pub variant: String,
    /// The rules self-play plays under.
    pub rules: GameRules,
    /// The SFEN of every position a game may start from.
    pub starts: HashSet<String>,
    /// The size limits.
    pub limits: StoreConfig,
}

/// A game line's start position (the rest is read by the window).
#[derive(Deserialize)]
struct GameStart {
    start: String,
}

impl BatchRules {
    /// Why a batch of `bytes` cannot be taken, if it cannot: a line over the length limit, or
    /// a header or a game start that is not the run's. A batch that is malformed in another way
    /// passes here, for the window's checks to name what is wrong.
    fn screen(&self, bytes: &[u8]) -> Option<String> {
        let max_line = self.limits.max_line_bytes();
        for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.len() as u64 > max_line {
                return Some(format!(
                    "line {} holds {} bytes, over [store] max_line_kib = {}",
                    index + 1,
                    line.len(),
                    self.limits.max_line_kib
                ));
            }
            if index == 0 {
                let Ok(header) = serde_json::from_slice::<Header>(line) else { return None };
                if header.variant != self.variant {
                    return Some(format!("games of {}, not of this run's {}", header.variant, self.variant));
                }
                if header.rules() != self.rules {
                    let (theirs, ours) = (header.rules(), self.rules);
                    return Some(format!(
                        "played with ply cap {} and declaration {}, not this run's {} and {}",
                        theirs.ply_cap, theirs.declaration, ours.ply_cap, ours.declaration
                    ));
                }
            } else if let Ok(game) = serde_json::from_slice::<GameStart>(line) {
                if !self.starts.contains(&game.start) {
                    return Some(format!("game {index} starts from {}, not from a start position of this run", game.start));
                }
            }
        }
        None
    }
}

/// A batch the trainer set aside before its window read it.
#[derive(Debug)]
pub struct SetAside {
    /// The copy's name under `rejected/`.
    pub copy: String,
    /// The worker named in the batch's name.
    pub worker: String,
    /// Why.
    pub reason: String,
}

/// What one [`GameSync::sync`] did.
#[derive(Debug, Default)]
pub struct SyncReport {
    /// Batches copied into the replay folder.
    pub fetched: usize,
    /// Objects under `games/` whose names this program does not make, or that sit in another
    /// model's folder than their name says.
    pub unnamed: Vec<String>,
    /// Batches set aside: named more than [`FUTURE_TOLERANCE_MS`] ahead of the trainer's
    /// clock, over a [`BatchRules`] limit, or not played under the run's rules.
    pub set_aside: Vec<SetAside>,
    /// Listed objects gone by the time they were read.
    pub vanished: Vec<String>,
}

/// The trainer's copy of the store's game batches in its replay folder.
pub struct GameSync {
    dir: PathBuf,
    rules: BatchRules,
    /// The file names fetched, passed over or set aside, by the step of their model; models
    /// too old to train on are forgotten, as their folders are not listed again.
    seen: BTreeMap<u64, HashSet<String>>,
    /// Objects passed over because their names are not game batch names.
    unnamed: HashSet<String>,
    listed_rejected: bool,
}

impl GameSync {
    /// A sync into the replay folder `dir` of the batches that `rules` accepts.
    pub fn new(dir: &Path, rules: BatchRules) -> GameSync {
        GameSync { dir: dir.to_path_buf(), rules, seen: BTreeMap::new(), unnamed: HashSet::new(), listed_rejected: false }
    }

    /// Copies the batches not seen yet of the models of step `min_model_step` and later.
    /// `now_ms` is the trainer's clock ([`now_ms`]).
    pub fn sync(&mut self, store: &Store, min_model_step: u64, now_ms: u64) -> Result<SyncReport, StoreError> {
        if !self.listed_rejected {
            for object in store.list(layout::REJECTED)? {
                let file_name = object.rsplit('/').next().unwrap_or_default();
                if let Some(name) = GameName::parse(file_name) {
                    self.seen.entry(name.model_step).or_default().insert(file_name.to_string());
                }
            }
            self.listed_rejected = true;
        }
        self.seen = self.seen.split_off(&min_model_step);
        // Batches straight under games/ were written by earlier versions, which kept no folders.
        let (mut objects, folders) = store.list_level(layout::GAMES)?;
        for folder in folders {
            if layout::parse_games_folder(&folder).is_some_and(|step| step >= min_model_step) {
                objects.extend(store.list_entries(&folder)?);
            }
        }
        let mut report = SyncReport::default();
        let limit = self.rules.limits.max_batch_bytes();
        let oversized = format!("over [store] max_batch_mib = {} MiB", self.rules.limits.max_batch_mib);
        let mut wanted: Vec<(String, String, GameName)> = Vec::new();
        for Listed { name: object, size } in objects {
            let file_name = object.rsplit('/').next().unwrap_or_default().to_string();
            let name =
                GameName::parse(&file_name).filter(|name| object == name.object() || object == format!("{}/{file_name}", layout::GAMES));
            let Some(name) = name else {
                if self.unnamed.insert(object.clone()) {
                    report.unnamed.push(object);
                }
                continue;
            };
            if name.model_step < min_model_step || self.seen.get(&name.model_step).is_some_and(|seen| seen.contains(&file_name)) {
                continue;
            }
            self.seen.entry(name.model_step).or_default().insert(file_name.clone());
            // What the listing alone shows is set aside without reading it: the copy is made
            // inside the store.
            let refused = if size > limit {
                Some(format!("{size} bytes, {oversized}"))
            } else if name.created_ms > now_ms.saturating_add(FUTURE_TOLERANCE_MS) {
                Some(format!("named {} s ahead of this machine's clock", (name.created_ms - now_ms) / 1000))
            } else {
                None
            };
            match refused {
                Some(reason) => {
                    let copy = layout::rejected_object(&file_name);
                    store.copy(&object, &copy)?;
                    report.set_aside.push(SetAside { copy, worker: name.worker, reason });
                }
                None => wanted.push((object, file_name, name)),
            }
        }
        // A few batches at a time: read together, then kept or set aside, so that at most
        // PARALLEL_READS batches are in memory.
        for chunk in wanted.chunks(PARALLEL_READS) {
            let objects: Vec<String> = chunk.iter().map(|(object, ..)| object.clone()).collect();
            for ((object, file_name, name), fetched) in chunk.iter().zip(store.get_many_at_most(&objects, limit)) {
                let copy = layout::rejected_object(file_name);
                let set_aside = |reason: String| SetAside { copy: copy.clone(), worker: name.worker.clone(), reason };
                let bytes = match fetched? {
                    Bounded::Whole(bytes) => bytes,
                    Bounded::TooLarge => {
                        store.copy(object, &copy)?;
                        report.set_aside.push(set_aside(format!("grown since it was listed, {oversized}")));
                        continue;
                    }
                    Bounded::Missing => {
                        // Deleted since the listing (a lifecycle rule, an operator): nothing to train on.
                        report.vanished.push(object.clone());
                        continue;
                    }
                };
                if let Some(reason) = self.rules.screen(&bytes) {
                    store.put_new(&copy, bytes)?;
                    report.set_aside.push(set_aside(reason));
                } else {
                    let path = self.dir.join(file_name);
                    crate::files::write_atomic(&path, &bytes)
                        .map_err(|e| StoreError::Local(format!("cannot write {}: {e}", path.display())))?;
                    report.fetched += 1;
                }
            }
        }
        Ok(report)
    }

    /// Removes the local copies of batches played by models older than `min_model_step`.
    pub fn prune(&self, min_model_step: u64) -> Result<(), StoreError> {
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
        let object = layout::rejected_object(&file_name);
        store.put_new(&object, bytes)?;
        std::fs::remove_file(file).map_err(|e| StoreError::Local(format!("{}: {e}", file.display())))?;
        if let Some(name) = GameName::parse(&file_name) {
            self.seen.entry(name.model_step).or_default().insert(file_name);
        }
        Ok(object)
    }
}

//! Where a run's objects live in its store, relative to the run's root:
//!
//! ```text
//! config.toml                          the run's configuration (written once, by the trainer)
//! openings/<file>                      the self-play openings file, when the config names one
//! latest.json                          the newest complete checkpoint (LatestRecord)
//! checkpoints/step-<step>-<hash>/      one checkpoint, never changed once written:
//!     step-<step>.json                 metadata (network shape, layout, weights size and checksum)
//!     step-<step>.safetensors          weights
//!     step-<step>.optimizer.safetensors, step-<step>.trainer.json   what the trainer resumes from
//! games/m<step>/<ms>-<worker>-m<step>-<pid>-<seq>-<hash>.replay
//!                                      a batch of self-play games played by the model of
//!                                      <step>, created once, never replaced
//! games/workers/<worker>.json          each worker's record, rewritten when it starts
//! rejected/<file name>                 a copy of each game object that failed validation
//! metrics/metrics.jsonl, *.png         the trainer's metrics and charts (replaced at each checkpoint)
//! ```
//!
//! `<step>` is zero-padded to 10 digits and `<hash>` is the FNV-1a 64 checksum of the weights
//! (of a game batch, for game objects) in 16 hex digits. Game batches sit in one folder per
//! model, so that the trainer lists only the folders of models recent enough to train on. Their
//! names start with the time they were written in milliseconds (15 digits), by the store's clock
//! as the worker measured it against its record, then the worker's id and the step of the model
//! that played them. `latest.json` is written only after every file of the checkpoint it names.

use serde::{Deserialize, Serialize};

/// The run's configuration.
pub const CONFIG: &str = "config.toml";
/// The record of the newest checkpoint.
pub const LATEST: &str = "latest.json";
/// The folder of checkpoints.
pub const CHECKPOINTS: &str = "checkpoints";
/// The folder of game batches.
pub const GAMES: &str = "games";
/// The folder of the workers' records, under [`GAMES`] (workers write nothing else).
pub const WORKERS: &str = "games/workers";
/// The folder of game batches set aside by the trainer.
pub const REJECTED: &str = "rejected";
/// The folder of the trainer's metrics and charts.
pub const METRICS: &str = "metrics";
/// The folder of the openings file.
pub const OPENINGS: &str = "openings";

/// What `latest.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatestRecord {
    /// Training step of the checkpoint.
    pub step: u64,
    /// Its folder, `checkpoints/step-<step>-<hash>`.
    pub checkpoint: String,
    /// Checksum of its weights (FNV-1a 64, 16 hex digits), as in its metadata.
    pub weights_fnv1a64: String,
    /// When it was published, seconds since 1970.
    pub published_unix: u64,
    /// Whether the run has reached its end (`total_steps` or `max_minutes`) with this
    /// checkpoint: its workers then stop, with success. A resumed run's next checkpoint clears it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_ended: bool,
    /// The lease epoch of the trainer that published it ([`super::lease`]); workers never go
    /// back to a lower one.
    #[serde(default)]
    pub epoch: u64,
}

impl LatestRecord {
    /// Reads `latest.json`; the error says what is wrong with it.
    pub fn from_json(bytes: &[u8]) -> Result<LatestRecord, String> {
        let record: LatestRecord = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if !record.checkpoint.starts_with(&format!("{CHECKPOINTS}/")) || record.checkpoint.contains("..") {
            return Err(format!("'{}' is not a checkpoint folder", record.checkpoint));
        }
        Ok(record)
    }
}

/// The folder of the checkpoint of `step` whose weights have checksum `hash`.
pub fn checkpoint_folder(step: u64, hash: &str) -> String {
    format!("{CHECKPOINTS}/step-{step:010}-{hash}")
}

/// The step of a folder made by [`checkpoint_folder`] (its last part).
pub fn parse_checkpoint_folder(folder: &str) -> Option<u64> {
    let last = folder.rsplit('/').next()?;
    let (digits, _hash) = last.strip_prefix("step-")?.split_once('-')?;
    (digits.len() == 10 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok()).flatten()
}

/// The file name of checkpoint `step`'s optimiser state, in its folder.
pub fn optimizer_file(step: u64) -> String {
    format!("step-{step:010}.optimizer.safetensors")
}

/// The object under which the trainer keeps a copy of the game batch `file_name` it set aside.
pub fn rejected_object(file_name: &str) -> String {
    format!("{REJECTED}/{file_name}")
}

/// The folder of the game batches played by the model of `step`.
pub fn games_folder(step: u64) -> String {
    format!("{GAMES}/m{step:010}")
}

/// The model step of a folder made by [`games_folder`] (its last part).
pub fn parse_games_folder(folder: &str) -> Option<u64> {
    let last = folder.rsplit('/').next()?;
    let digits = last.strip_prefix('m')?;
    (digits.len() == 10 && digits.bytes().all(|b| b.is_ascii_digit())).then(|| digits.parse().ok()).flatten()
}

/// A worker's id is letters, digits, `.`, `_` and `-` (at most 64): it is part of object names.
pub fn check_worker_id(id: &str) -> Result<(), String> {
    let valid = !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if valid {
        Ok(())
    } else {
        Err(format!("'{id}' is not a worker id (1 to 64 letters, digits, '.', '_' or '-')"))
    }
}

/// What a game object's name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameName {
    /// When the batch was written, milliseconds since 1970.
    pub created_ms: u64,
    pub worker: String,
    /// The step of the model that played it.
    pub model_step: u64,
    /// The batch's sequence in its process and the process's id.
    pub pid: u64,
    pub sequence: u64,
    /// Checksum of its bytes.
    pub hash: String,
}

impl GameName {
    /// The file name (without its folder).
    pub fn file_name(&self) -> String {
        format!(
            "{:015}-{}-m{:010}-{:010}-{:08}-{}.replay",
            self.created_ms, self.worker, self.model_step, self.pid, self.sequence, self.hash
        )
    }

    /// The object's name, in the folder of its model.
    pub fn object(&self) -> String {
        format!("{}/{}", games_folder(self.model_step), self.file_name())
    }

    /// Reads a file name made by [`GameName::file_name`].
    pub fn parse(file_name: &str) -> Option<GameName> {
        let stem = file_name.strip_suffix(".replay")?;
        let (created, rest) = stem.split_once('-')?;
        let mut tail = rest.rsplitn(5, '-');
        let hash = tail.next()?;
        let sequence = tail.next()?.parse().ok()?;
        let pid = tail.next()?.parse().ok()?;
        let model_step = tail.next()?.strip_prefix('m')?.parse().ok()?;
        let worker = tail.next()?;
        let valid_hash = hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        let created_ms = created.parse().ok()?;
        (valid_hash && check_worker_id(worker).is_ok()).then(|| GameName {
            created_ms,
            worker: worker.to_string(),
            model_step,
            pid,
            sequence,
            hash: hash.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_names_read_back_with_dashes_in_the_worker_id() {
        let name = GameName {
            created_ms: 1_764_000_000_123,
            worker: "job-17-3".to_string(),
            model_step: 400,
            pid: 4242,
            sequence: 7,
            hash: "00ff00ff00ff00ff".to_string(),
        };
        assert_eq!(name.file_name(), "001764000000123-job-17-3-m0000000400-0000004242-00000007-00ff00ff00ff00ff.replay");
        assert_eq!(GameName::parse(&name.file_name()), Some(name));
        assert_eq!(GameName::parse("games-000001764000000-0000004242-00000007.replay"), None);
        assert_eq!(GameName::parse("001764000000123-w-m0000000400-0000004242-00000007-xyz.replay"), None);
    }

    #[test]
    fn game_objects_sit_in_their_models_folder() {
        let name =
            GameName { created_ms: 5, worker: "w".to_string(), model_step: 30, pid: 1, sequence: 2, hash: "0123456789abcdef".to_string() };
        assert_eq!(name.object(), format!("games/m0000000030/{}", name.file_name()));
        assert_eq!(parse_games_folder("games/m0000000030"), Some(30));
        assert_eq!(parse_games_folder("games/m0000000030/"), None);
        for bad in ["games/workers", "games/m30", "games/m00000000x0"] {
            assert_eq!(parse_games_folder(bad), None, "{bad}");
        }
    }

    #[test]
    fn worker_ids_that_would_break_names_are_refused() {
        assert!(check_worker_id("node-3.cluster_a").is_ok());
        for bad in ["", "a/b", "a b", &"x".repeat(65)] {
            assert!(check_worker_id(bad).is_err(), "{bad:?}");
        }
    }
}

//! One trainer per run. A trainer holds the run's lease while it trains: `lease/epoch-<N>.json`,
//! created with a create-only write (so that of two trainers starting at once exactly one gets
//! epoch N), and `lease/heartbeat-<N>.json`, which it rewrites as it goes. Another trainer
//! refuses to start while the heartbeat is fresh by the store's clock, naming the holder; it
//! takes over (epoch N + 1) once the holder has let the lease go (it does when it stops), once
//! the heartbeat is older than the holder's `[store] lease_seconds`, or at once when it is the
//! same trainer started again (same host, same local run folder). A trainer checks before every
//! write to the run that no later epoch exists; one that finds it has been fenced off and stops
//! before writing anything.
//!
//! `latest.json` has one writer: the holder writes it only with a conditional write on the
//! version it last wrote or read ([`Store::put_if_unchanged`]: `If-Match` on the ETag in S3).
//! A trainer that takes over rewrites it at once with its epoch, so that the trainer before it,
//! even one frozen between its last check and its write, finds `latest.json` changed and stops
//! without moving it. A store that does not enforce conditional writes is refused.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::layout::{self, LatestRecord};
use super::{record_json, Created, Store, StoreError, Swap, Version};

/// How often taking over `latest.json` is tried while the trainer before keeps publishing.
const CLAIM_TRIES: usize = 5;

/// The lease's folder in the store.
const FOLDER: &str = "lease";

/// What `lease/epoch-<N>.json` says of the trainer that took epoch N.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// `<host>:<local run folder>`: the same trainer started again has the same id.
    pub id: String,
    pub host: String,
    pub pid: u32,
    /// How long the lease lasts without a heartbeat.
    pub lease_seconds: u64,
}

impl Holder {
    /// This process, training into the local run folder `run_dir`.
    pub fn this_process(run_dir: &std::path::Path, lease_seconds: u64) -> Holder {
        let host = super::host_name();
        let folder = std::path::absolute(run_dir).unwrap_or_else(|_| run_dir.to_path_buf());
        Holder { id: format!("{host}:{}", folder.display()), host, pid: std::process::id(), lease_seconds }
    }
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the trainer on {} (pid {}, run folder {})", self.host, self.pid, self.id.split_once(':').map_or("?", |(_, dir)| dir))
    }
}

/// What `lease/heartbeat-<N>.json` says.
#[derive(Debug, Serialize, Deserialize)]
struct Heartbeat {
    epoch: u64,
    /// Set when the holder stopped and let the lease go.
    released: bool,
}

/// Why a trainer may not write to the run.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error(
        "store {url}: the run is held by {holder} (epoch {epoch}), whose lease was renewed {age_s} s ago: stop that trainer first; \
         this one may take over when it has stopped, or {lease_seconds} s after its last renewal"
    )]
    Held { url: String, holder: Holder, epoch: u64, age_s: u64, lease_seconds: u64 },
    #[error("store {url}: fenced off: {holder} took the run over (epoch {epoch}); this trainer stops without writing anything more")]
    Fenced { url: String, holder: Holder, epoch: u64 },
    #[error(
        "store {url}: latest.json was rewritten by another writer (no trainer holds a later lease); \
         this trainer stops without writing anything more"
    )]
    Overwritten { url: String },
    #[error(
        "store {url}: the store does not enforce conditional writes (a write that should have been refused \
         succeeded), so two trainers could both move latest.json: use a store that honours If-Match \
         (AWS S3, MinIO, SeaweedFS 3.97 or later, Google Cloud Storage, Azure, a shared filesystem)"
    )]
    Unenforced { url: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The run's lease, held by this trainer.
#[derive(Debug)]
pub struct Lease {
    epoch: u64,
    renew_every: Duration,
    last_renewal: Mutex<Instant>,
    /// The version of `latest.json` this trainer last wrote or read (`None`: there was none).
    latest: Mutex<Option<Version>>,
}

fn epoch_object(epoch: u64) -> String {
    format!("{FOLDER}/epoch-{epoch:010}.json")
}

fn heartbeat_object(epoch: u64) -> String {
    format!("{FOLDER}/heartbeat-{epoch:010}.json")
}

fn read_json<T: for<'de> Deserialize<'de>>(store: &Store, name: &str) -> Result<Option<T>, StoreError> {
    let Some(bytes) = store.get(name)? else { return Ok(None) };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| StoreError::Malformed {
        url: store.url().to_string(),
        name: name.to_string(),
        message: e.to_string(),
    })
}

/// The record of `latest.json` and its version, if there is one.
pub fn read_latest(store: &Store) -> Result<Option<(LatestRecord, Version)>, StoreError> {
    let Some((bytes, version)) = store.get_versioned(layout::LATEST)? else { return Ok(None) };
    let record = LatestRecord::from_json(&bytes).map_err(|message| StoreError::Malformed {
        url: store.url().to_string(),
        name: layout::LATEST.to_string(),
        message,
    })?;
    Ok(Some((record, version)))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// An object of `me`'s own, for probing the store.
fn probe_object(me: &Holder) -> String {
    format!("{FOLDER}/probe-{:016x}.json", crate::fnv::hash(me.id.as_bytes()))
}

/// Fails unless the store refuses a conditional write on a version that is no longer current
/// (a server that ignores `If-Match` would let two trainers both move `latest.json`).
fn check_conditional_writes(store: &Store, me: &Holder) -> Result<(), LeaseError> {
    let probe = probe_object(me);
    store.put(&probe, record_json(me))?;
    let stale = store.get_versioned(&probe)?.map(|(_, version)| version);
    // Other bytes, so that the new version differs whatever the store's versions are made of.
    store.put(&probe, [record_json(me), b"\n".to_vec()].concat())?;
    match store.put_if_unchanged(&probe, record_json(me), stale.as_ref())? {
        Swap::Changed => Ok(()),
        Swap::Written(_) => Err(LeaseError::Unenforced { url: store.url().to_string() }),
    }
}

impl Lease {
    /// Takes the run's lease for `me`, or says who holds it.
    pub fn acquire(store: &Store, me: &Holder) -> Result<Lease, LeaseError> {
        check_conditional_writes(store, me)?;
        let current = store
            .list(FOLDER)?
            .iter()
            .filter_map(|name| name.rsplit('/').next()?.strip_prefix("epoch-")?.strip_suffix(".json")?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        if current > 0 {
            check_free(store, me, current)?;
        }
        let epoch = current + 1;
        if store.put_new(&epoch_object(epoch), record_json(me))? == Created::AlreadyThere {
            // Another trainer took the same epoch a moment earlier.
            let holder = read_json::<Holder>(store, &epoch_object(epoch))?.unwrap_or_else(|| me.clone());
            return Err(LeaseError::Held { url: store.url().to_string(), holder, epoch, age_s: 0, lease_seconds: me.lease_seconds });
        }
        let lease = Lease {
            epoch,
            renew_every: Duration::from_secs((me.lease_seconds / 4).clamp(1, 30)),
            last_renewal: Mutex::new(Instant::now()),
            latest: Mutex::new(None),
        };
        lease.beat(store, false)?;
        lease.claim_latest(store)?;
        Ok(lease)
    }

    /// Rewrites `latest.json` (when there is one) with this lease's epoch, so that the trainer
    /// before can no longer write it.
    fn claim_latest(&self, store: &Store) -> Result<(), LeaseError> {
        for _ in 0..CLAIM_TRIES {
            self.check_not_fenced(store)?;
            let Some((record, version)) = read_latest(store)? else {
                *lock(&self.latest) = None;
                return Ok(());
            };
            let claimed = LatestRecord { epoch: self.epoch, ..record };
            // The trainer before may publish meanwhile: read again and retry.
            if let Swap::Written(version) = store.put_if_unchanged(layout::LATEST, record_json(&claimed), Some(&version))? {
                *lock(&self.latest) = Some(version);
                return Ok(());
            }
        }
        self.check_not_fenced(store)?;
        Err(LeaseError::Overwritten { url: store.url().to_string() })
    }

    /// Points `latest.json` at `record` (with this lease's epoch), unless another writer has
    /// written it since this trainer did: then this trainer has been fenced off.
    pub fn write_latest(&self, store: &Store, record: &LatestRecord) -> Result<(), LeaseError> {
        let record = LatestRecord { epoch: self.epoch, ..record.clone() };
        let mut latest = lock(&self.latest);
        match store.put_if_unchanged(layout::LATEST, record_json(&record), latest.as_ref())? {
            Swap::Written(version) => {
                *latest = Some(version);
                Ok(())
            }
            Swap::Changed => {
                self.check_not_fenced(store)?;
                Err(LeaseError::Overwritten { url: store.url().to_string() })
            }
        }
    }

    /// The epoch this trainer holds (recorded in `latest.json`).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Checks that no trainer has taken over and renews the heartbeat: call before every write
    /// to the run.
    pub fn renew(&self, store: &Store) -> Result<(), LeaseError> {
        self.check_not_fenced(store)?;
        self.beat(store, false)?;
        *lock(&self.last_renewal) = Instant::now();
        Ok(())
    }

    /// Fails when a later epoch exists.
    fn check_not_fenced(&self, store: &Store) -> Result<(), LeaseError> {
        match read_json::<Holder>(store, &epoch_object(self.epoch + 1))? {
            Some(holder) => Err(LeaseError::Fenced { url: store.url().to_string(), holder, epoch: self.epoch + 1 }),
            None => Ok(()),
        }
    }

    /// [`Lease::renew`] when the last renewal is older than a quarter of the lease.
    pub fn renew_if_due(&self, store: &Store) -> Result<(), LeaseError> {
        let last = *lock(&self.last_renewal);
        if last.elapsed() >= self.renew_every {
            self.renew(store)?;
        }
        Ok(())
    }

    /// Lets the lease go, so that another trainer may take over at once (unless this one has
    /// been fenced off, when the lease is not its own any more).
    pub fn release(&self, store: &Store) -> Result<(), StoreError> {
        if store.modified_ms(&epoch_object(self.epoch + 1))?.is_none() {
            self.beat(store, true)?;
        }
        Ok(())
    }

    fn beat(&self, store: &Store, released: bool) -> Result<(), StoreError> {
        store.put(&heartbeat_object(self.epoch), record_json(&Heartbeat { epoch: self.epoch, released }))
    }
}

/// Fails unless the holder of `epoch` has let the lease go, is `me` started again, or has not
/// renewed it within its lease time by the store's clock.
fn check_free(store: &Store, me: &Holder, epoch: u64) -> Result<(), LeaseError> {
    let Some(holder) = read_json::<Holder>(store, &epoch_object(epoch))? else { return Ok(()) };
    if holder.id == me.id {
        return Ok(());
    }
    let heartbeat = heartbeat_object(epoch);
    if read_json::<Heartbeat>(store, &heartbeat)?.is_some_and(|beat| beat.released) {
        return Ok(());
    }
    let renewed = match store.modified_ms(&heartbeat)? {
        Some(ms) => ms,
        None => store.modified_ms(&epoch_object(epoch))?.unwrap_or(0),
    };
    // The store's clock now: the modification time of an object written now.
    let now = store.put_timed(&probe_object(me), record_json(me))?;
    let age_s = now.saturating_sub(renewed) / 1000;
    if age_s < holder.lease_seconds {
        return Err(LeaseError::Held { url: store.url().to_string(), lease_seconds: holder.lease_seconds, holder, epoch, age_s });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Holder, Lease, LeaseError};
    use crate::store::layout::{self, LatestRecord};
    use crate::store::{Store, Swap};

    /// A memory store and a file store in a folder that lives as long as the test.
    fn stores() -> (Vec<Store>, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let file = Store::open(&format!("file://{}", dir.path().display())).unwrap();
        (vec![Store::open("memory://").unwrap(), file], dir)
    }

    fn holder(id: &str, pid: u32) -> Holder {
        Holder { id: id.to_string(), host: "here".to_string(), pid, lease_seconds: 600 }
    }

    fn record(step: u64) -> LatestRecord {
        LatestRecord {
            step,
            checkpoint: layout::checkpoint_folder(step, "0123456789abcdef"),
            weights_fnv1a64: "0123456789abcdef".to_string(),
            published_unix: 1,
            run_ended: false,
            epoch: 0,
        }
    }

    fn latest(store: &Store) -> LatestRecord {
        super::read_latest(store).unwrap().unwrap().0
    }

    #[test]
    fn a_conditional_write_refuses_a_version_that_is_no_longer_current() {
        let (stores, _dir) = stores();
        for store in &stores {
            assert!(matches!(store.put_if_unchanged("a.json", b"1".to_vec(), None).unwrap(), Swap::Written(_)), "{store:?}");
            assert_eq!(store.put_if_unchanged("a.json", b"2".to_vec(), None).unwrap(), Swap::Changed, "{store:?}: it exists");
            let (_, first) = store.get_versioned("a.json").unwrap().unwrap();
            let Swap::Written(second) = store.put_if_unchanged("a.json", b"3".to_vec(), Some(&first)).unwrap() else {
                panic!("{store:?}: the current version was refused")
            };
            assert_eq!(store.put_if_unchanged("a.json", b"4".to_vec(), Some(&first)).unwrap(), Swap::Changed, "{store:?}");
            assert_eq!(store.get("a.json").unwrap().unwrap(), b"3");
            // What a write returns is the version a later read sees.
            assert_eq!(store.get_versioned("a.json").unwrap().unwrap().1, second, "{store:?}");
            store.put("a.json", b"5".to_vec()).unwrap();
            assert_eq!(store.put_if_unchanged("a.json", b"6".to_vec(), Some(&second)).unwrap(), Swap::Changed, "{store:?}");
            assert_eq!(store.get("a.json").unwrap().unwrap(), b"5");
        }
    }

    #[test]
    fn a_trainer_taken_over_from_cannot_move_latest_even_after_its_last_check() {
        let (stores, _dir) = stores();
        for store in &stores {
            let first = Lease::acquire(store, &holder("here:/run", 1)).unwrap();
            first.write_latest(store, &record(0)).unwrap();
            first.write_latest(store, &record(10)).unwrap();
            assert_eq!((latest(store).step, latest(store).epoch), (10, 1));
            // The same trainer started again takes over at once, and claims latest.json.
            let second = Lease::acquire(store, &holder("here:/run", 2)).unwrap();
            assert_eq!((latest(store).step, latest(store).epoch), (10, 2), "{store:?}");
            // The first one, past its check of the lease, writes: refused, nothing moves.
            let refused = first.write_latest(store, &record(20)).unwrap_err();
            assert!(matches!(refused, LeaseError::Fenced { epoch: 2, .. }), "{store:?}: {refused}");
            assert!(matches!(first.renew(store), Err(LeaseError::Fenced { .. })));
            assert_eq!((latest(store).step, latest(store).epoch), (10, 2), "{store:?}");
            second.write_latest(store, &record(20)).unwrap();
            assert_eq!((latest(store).step, latest(store).epoch), (20, 2), "{store:?}");
        }
    }

    #[test]
    fn latest_rewritten_by_anyone_else_stops_the_holder() {
        let (stores, _dir) = stores();
        for store in &stores {
            let lease = Lease::acquire(store, &holder("here:/run", 1)).unwrap();
            lease.write_latest(store, &record(0)).unwrap();
            store.put(layout::LATEST, super::record_json(&record(5))).unwrap();
            let refused = lease.write_latest(store, &record(10)).unwrap_err();
            assert!(matches!(refused, LeaseError::Overwritten { .. }), "{store:?}: {refused}");
            assert!(refused.to_string().contains("latest.json was rewritten by another writer"), "{refused}");
            assert_eq!(latest(store).step, 5);
        }
    }
}

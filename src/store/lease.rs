//! One trainer per run. A trainer holds the run's lease while it trains: `lease/epoch-<N>.json`,
//! created with a create-only write (so that of two trainers starting at once exactly one gets
//! epoch N), and `lease/heartbeat-<N>.json`, which it rewrites as it goes. Another trainer
//! refuses to start while the heartbeat is fresh by the store's clock, naming the holder; it
//! takes over (epoch N + 1) once the holder has let the lease go (it does when it stops), once
//! the heartbeat is older than the holder's `[store] lease_seconds`, or at once when it is the
//! same trainer started again (same host, same local run folder). A trainer checks before every
//! write to the run that no later epoch exists; one that finds it has been fenced off and stops
//! before writing anything. Create-only writes are all this needs, which every store has.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Created, Store, StoreError};

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
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The run's lease, held by this trainer.
#[derive(Debug)]
pub struct Lease {
    epoch: u64,
    renew_every: Duration,
    last_renewal: std::sync::Mutex<Instant>,
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

fn write_json(value: &impl Serialize) -> Vec<u8> {
    format!("{}\n", serde_json::to_string_pretty(value).expect("the record serialises")).into_bytes()
}

impl Lease {
    /// Takes the run's lease for `me`, or says who holds it.
    pub fn acquire(store: &Store, me: &Holder) -> Result<Lease, LeaseError> {
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
        if store.put_new(&epoch_object(epoch), write_json(me))? == Created::AlreadyThere {
            // Another trainer took the same epoch a moment earlier.
            let holder = read_json::<Holder>(store, &epoch_object(epoch))?.unwrap_or_else(|| me.clone());
            return Err(LeaseError::Held { url: store.url().to_string(), holder, epoch, age_s: 0, lease_seconds: me.lease_seconds });
        }
        let lease = Lease {
            epoch,
            renew_every: Duration::from_secs((me.lease_seconds / 4).clamp(1, 30)),
            last_renewal: std::sync::Mutex::new(Instant::now()),
        };
        lease.beat(store, false)?;
        Ok(lease)
    }

    /// The epoch this trainer holds (recorded in `latest.json`).
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Checks that no trainer has taken over and renews the heartbeat: call before every write
    /// to the run.
    pub fn renew(&self, store: &Store) -> Result<(), LeaseError> {
        if let Some(holder) = read_json::<Holder>(store, &epoch_object(self.epoch + 1))? {
            return Err(LeaseError::Fenced { url: store.url().to_string(), holder, epoch: self.epoch + 1 });
        }
        self.beat(store, false)?;
        *self.last_renewal.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
        Ok(())
    }

    /// [`Lease::renew`] when the last renewal is older than a quarter of the lease.
    pub fn renew_if_due(&self, store: &Store) -> Result<(), LeaseError> {
        let last = *self.last_renewal.lock().unwrap_or_else(|e| e.into_inner());
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
        store.put(&heartbeat_object(self.epoch), write_json(&Heartbeat { epoch: self.epoch, released }))
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
    let probe = format!("{FOLDER}/probe-{:016x}.json", crate::fnv::hash(me.id.as_bytes()));
    let now = store.put_timed(&probe, write_json(me))?;
    let age_s = now.saturating_sub(renewed) / 1000;
    if age_s < holder.lease_seconds {
        return Err(LeaseError::Held { url: store.url().to_string(), lease_seconds: holder.lease_seconds, holder, epoch, age_s });
    }
    Ok(())
}

//! The trainer's ingestion of game batches in a thread of its own: a [`GameSync`] every couple
//! of seconds, while the training loop goes on, which collects the reports (and the first
//! error) when it refreshes its window.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::games::{self, GameSync, SyncReport};
use super::{Store, StoreError};

/// A [`GameSync`] shared by the ingestion thread ([`Ingest::run`]) and the training loop.
pub struct Ingest {
    sync: Mutex<GameSync>,
    min_model_step: AtomicU64,
    reports: Mutex<Vec<SyncReport>>,
    failure: Mutex<Option<StoreError>>,
}

impl Ingest {
    /// Ingestion through `sync`, of the games of models of step `min_model_step` and later.
    pub fn new(sync: GameSync, min_model_step: u64) -> Ingest {
        Ingest {
            sync: Mutex::new(sync),
            min_model_step: AtomicU64::new(min_model_step),
            reports: Mutex::default(),
            failure: Mutex::default(),
        }
    }

    /// Syncs every `every` until `stop` is set or a sync fails (the error is kept for
    /// [`Ingest::take_reports`]).
    pub fn run(&self, store: &Store, stop: &AtomicBool, every: Duration) {
        while !stop.load(Ordering::Relaxed) {
            let started = Instant::now();
            let min_model_step = self.min_model_step.load(Ordering::Relaxed);
            match lock(&self.sync).sync(store, min_model_step, games::now_ms()) {
                Ok(report) => lock(&self.reports).push(report),
                Err(error) => {
                    *lock(&self.failure) = Some(error);
                    return;
                }
            }
            while started.elapsed() < every && !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }

    /// From now on, leaves out the games of models older than `step`, and removes those already
    /// copied (call it from the thread that reads the replay folder).
    pub fn keep_models_from(&self, step: u64) -> Result<(), StoreError> {
        self.min_model_step.store(step, Ordering::Relaxed);
        lock(&self.sync).prune(step)
    }

    /// The reports of the syncs since the last call, or the error that stopped ingestion.
    pub fn take_reports(&self) -> Result<Vec<SyncReport>, StoreError> {
        if let Some(error) = lock(&self.failure).take() {
            return Err(error);
        }
        Ok(std::mem::take(&mut *lock(&self.reports)))
    }

    /// [`GameSync::set_aside`].
    pub fn set_aside(&self, store: &Store, file: &Path) -> Result<String, StoreError> {
        lock(&self.sync).set_aside(store, file)
    }
}

/// A lock that a panicked holder does not poison for the others (what it guards stays usable).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

//! A stateless self-play worker of a run kept in a store ([`crate::store`]): it reads the run's
//! configuration and newest checkpoint from the store, plays, uploads its games a batch at a
//! time, and switches to each newer checkpoint as `latest.json` moves. Everything local (the
//! configuration, cached checkpoints, the spool of batches not yet uploaded) lives in a cache
//! folder it may lose: killed at any moment, it loses at most the batch it was playing.
//!
//! The run's configuration governs the search, the self-play rules and the network's shape;
//! where and how fast the network runs is the worker's own ([`WorkerMachine`]), so that CPU
//! workers serve a run whose trainer is on a GPU.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::PipelineError;
use crate::config::RunConfig;
use crate::mcts::Model;
use crate::nn::config::InferenceConfig;
use crate::nn::device::{DeviceChoice, Precision};
use crate::rules::VariantId;
use crate::selfplay::config::SelfplayConfig;
use crate::selfplay::runner::{self, Counters, Evaluators, SelfplayRun};
use crate::store::layout::LatestRecord;
use crate::store::{checkpoints, games, layout, run_config, Store, StoreError};

/// How often a worker looks for a newer checkpoint.
const POLL: Duration = Duration::from_secs(5);

/// A worker's settings.
#[derive(Clone, Debug)]
pub struct WorkerRun {
    /// The variant the worker expects the run to be of.
    pub variant: VariantId,
    /// The worker's id in its objects' names.
    pub worker_id: String,
    /// Games to play; `None`: until `minutes` pass or the stop flag is set.
    pub games: Option<u64>,
    /// Minutes to play; unfinished games are dropped at the end.
    pub minutes: Option<f64>,
    /// The worker's local folder: the run's configuration, cached checkpoints, the spool.
    pub cache: PathBuf,
    /// Seed of the games' random choices.
    pub seed: u64,
    /// Where and how the worker runs the network.
    pub machine: WorkerMachine,
}

/// A worker's own machine settings, given on its command line, never by the run: the run's
/// `[inference]` table and `selfplay.workers` / `selfplay.games_per_worker` describe the
/// trainer's machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WorkerMachine {
    /// Device, precision and batching of the network's evaluations.
    pub inference: InferenceConfig,
    /// Self-play threads.
    pub search_threads: usize,
    /// Games each self-play thread keeps in flight (they fill the network's batches).
    pub games_per_thread: usize,
}

impl Default for WorkerMachine {
    /// The CPU, at the precision it computes fastest, one self-play thread with 32 games in
    /// flight, batches of up to 32 positions: the CPU recipe's settings.
    fn default() -> WorkerMachine {
        WorkerMachine {
            inference: InferenceConfig { device: DeviceChoice::Cpu, precision: Precision::Auto, batch_size: 32, max_wait_us: 500 },
            search_threads: 1,
            games_per_thread: 32,
        }
    }
}

impl WorkerMachine {
    /// The machine the run's configuration describes: a trainer's own self-play uses it.
    pub fn of_run(config: &RunConfig) -> WorkerMachine {
        WorkerMachine {
            inference: config.inference,
            search_threads: config.selfplay.workers,
            games_per_thread: config.selfplay.games_per_worker,
        }
    }

    /// The run's self-play settings with this machine's threads and games in flight.
    fn selfplay_settings(&self, config: &RunConfig) -> SelfplayConfig {
        SelfplayConfig { workers: self.search_threads, games_per_worker: self.games_per_thread, ..config.selfplay.clone() }
    }
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerSummary {
    pub games: runner::Summary,
    /// Batches uploaded (those left by an earlier run included).
    pub uploaded: u64,
    /// Steps of the checkpoints it played with, in order.
    pub models: Vec<u64>,
    /// Whether it was stopped (a signal) before its games or minutes were done.
    pub interrupted: bool,
    /// Whether it stopped because the run has ended.
    pub run_ended: bool,
}

/// The cache folder of `store`'s run under `cache_root` (one per store URL).
pub fn cache_folder(cache_root: &Path, store: &Store) -> PathBuf {
    cache_root.join(store.cache_key())
}

/// Plays the run's games with its newest checkpoints and uploads them, until `run.games` or
/// `run.minutes` or `stop`. `progress` counts finished games.
pub fn run(store: &Store, run: &WorkerRun, stop: &AtomicBool, progress: &ProgressBar) -> Result<WorkerSummary, PipelineError> {
    layout::check_worker_id(&run.worker_id).map_err(StoreError::Local)?;
    let started = Instant::now();
    let deadline = run.minutes.map(|m| started + Duration::from_secs_f64(m * 60.0));
    let time_up = || deadline.is_some_and(|d| Instant::now() >= d);
    // Workers may start before the trainer has created the run: they wait for it.
    let mut waiting = false;
    let interrupted = || stop.load(Ordering::Relaxed) && !time_up();
    let config = loop {
        match run_config::fetch(store, &run.cache.join("run")) {
            Ok(config) => break config,
            Err(StoreError::NoRun { .. }) if interrupted() => return Ok(WorkerSummary { interrupted: true, ..WorkerSummary::default() }),
            Err(StoreError::NoRun { .. }) if !time_up() => {
                if !waiting {
                    progress.suspend(|| eprintln!("waiting for a trainer to create the run in {}", store.url()));
                    waiting = true;
                }
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(error) => return Err(error.into()),
        }
    };
    if config.variant != run.variant {
        return Err(PipelineError::Unsupported(format!(
            "the run in {} is of {}, not {}",
            store.url(),
            config.variant.name(),
            run.variant.name()
        )));
    }
    let spool = run.cache.join("spool").join(&run.worker_id);
    std::fs::create_dir_all(&spool).map_err(|e| StoreError::Local(format!("cannot create {}: {e}", spool.display())))?;
    let mut summary = WorkerSummary::default();
    let clock_offset = games::clock_offset(store, &run.worker_id)?;
    if clock_offset.abs() > 2000 {
        let (seconds, direction) = (clock_offset.unsigned_abs() as f64 / 1000.0, if clock_offset > 0 { "behind" } else { "ahead of" });
        progress
            .suspend(|| eprintln!("this machine's clock is {seconds:.1} s {direction} the store's: game batches are named by the store's"));
    }
    for file in games::leftovers(&spool, &run.worker_id, clock_offset)? {
        games::upload(store, &file)?;
        summary.uploaded += 1;
    }
    let Some(mut latest) = wait_for_checkpoint(store, stop, &time_up)? else {
        summary.interrupted = interrupted();
        return Ok(summary);
    };
    if latest.run_ended {
        summary.run_ended = true;
        return Ok(summary);
    }
    let model = Model::load(&checkpoints::fetch_model(store, &latest, &run.cache)?, Some(config.variant), &run.machine.inference)?;
    summary.models.push(latest.step);
    // The step of the model being played, and the oldest that played any game of the batch
    // being written.
    let model_step = AtomicU64::new(latest.step);
    let batch_step = AtomicU64::new(latest.step);
    let selfplay = SelfplayRun {
        variant: config.variant,
        search: config.search,
        selfplay: run.machine.selfplay_settings(&config),
        games: run.games,
        seed: run.seed,
        out: spool.clone(),
    };
    let counters = Counters::default();
    let selfplay_stop = AtomicBool::new(false);
    let uploaded = AtomicU64::new(0);
    let played = std::thread::scope(|scope| -> Result<runner::Summary, PipelineError> {
        let playing = scope.spawn(|| {
            let mut on_file = |path: &Path| -> Result<(), String> {
                let step = batch_step.load(Ordering::Relaxed);
                let named = games::name_for_upload(path, &run.worker_id, step, clock_offset).map_err(|e| e.to_string())?;
                games::upload(store, &named).map_err(|e| e.to_string())?;
                uploaded.fetch_add(1, Ordering::Relaxed);
                batch_step.store(model_step.load(Ordering::Relaxed), Ordering::Relaxed);
                Ok(())
            };
            runner::run(Evaluators::Shared(&model), &selfplay, &selfplay_stop, progress, &counters, &mut on_file)
        });
        let mut last_poll = Instant::now();
        let watched = loop {
            if playing.is_finished() {
                break Ok(());
            }
            if stop.load(Ordering::Relaxed) || time_up() {
                break Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
            if last_poll.elapsed() < POLL {
                continue;
            }
            last_poll = Instant::now();
            let newest = match checkpoints::latest(store) {
                Ok(Some(newest)) => newest,
                Ok(None) => continue,
                Err(error) => break Err(error.into()),
            };
            if newest.run_ended {
                summary.run_ended = true;
                break Ok(());
            }
            // A record of a trainer that another has taken over from is never followed.
            if newest.step <= latest.step || newest.epoch < latest.epoch {
                continue;
            }
            if let Err(error) = switch_model(store, &config, run, &model, &newest) {
                break Err(error);
            }
            model_step.store(newest.step, Ordering::Relaxed);
            summary.models.push(newest.step);
            latest = newest;
        };
        selfplay_stop.store(true, Ordering::Relaxed);
        let games = playing.join().expect("the self-play thread panicked");
        watched?;
        Ok(games?)
    })?;
    summary.interrupted = interrupted() && run.games.is_none_or(|games| played.games < games);
    summary.games = played;
    summary.uploaded += uploaded.load(Ordering::Relaxed);
    Ok(summary)
}

/// Waits until the store has a checkpoint; `None` if stopped first.
fn wait_for_checkpoint(store: &Store, stop: &AtomicBool, time_up: &dyn Fn() -> bool) -> Result<Option<LatestRecord>, StoreError> {
    loop {
        if let Some(latest) = checkpoints::latest(store)? {
            return Ok(Some(latest));
        }
        if stop.load(Ordering::Relaxed) || time_up() {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Swaps in the checkpoint of `latest`.
fn switch_model(store: &Store, config: &RunConfig, run: &WorkerRun, model: &Model, latest: &LatestRecord) -> Result<(), PipelineError> {
    let path = checkpoints::fetch_model(store, latest, &run.cache)?;
    let (network, id) = Model::load_network(&path, config.variant, &run.machine.inference)?;
    // The self-play thread has stopped only if it failed; its error is reported.
    let _ = model.swap(network, id);
    Ok(())
}

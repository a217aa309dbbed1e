//! The training loop: self-play and training at once on one machine (continuous, as KataGo
//! and lc0 run it: the trainer never waits for a generation to end, and self-play always uses
//! the newest checkpoint). A run lives in `models/<variant>/<run>/`: its configuration, the
//! checkpoints (weights, optimiser state, trainer state), `replay/` and the metrics and charts.
//! Starting `train` on an existing run resumes from its latest checkpoint; a kill loses at
//! most the work since that checkpoint.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::metrics::{self, MetricsLine};
use super::worker::{self, WorkerMachine, WorkerRun};
use super::{gating, league};
use crate::arena::probe::{probe_pairs, run_probe, ProbePair, ProbeResult, PROBE_SEED};
use crate::arena::strength;
use crate::arena::strength::AnchorScore;
use crate::config::RunConfig;
use crate::mcts::{Model, ModelError};
use crate::nn::checkpoint::{self, CheckpointError};
use crate::nn::device::on_fresh_thread;
use crate::nn::{Network, NetworkError, UnmappedMove};
use crate::replay::{ReplayError, ReplayWindow, WindowConfig, WindowError};
use crate::rules::notation::sfen;
use crate::selfplay::runner::{self, Counters, Evaluators, SelfplayRun};
use crate::selfplay::SelfplayError;
use crate::store::games::{BatchRules, GameSync, SetAside};
use crate::store::ingest::Ingest;
use crate::store::lease::{Holder, Lease, LeaseError};
use crate::store::retention::{self, Pruned};
use crate::store::{checkpoints, layout, Store};
use crate::train::batch::BatchBuilder;
use crate::train::optimizer::Optimizer;
use crate::train::state::{self, TrainerState};
use crate::train::teacher::Teacher;
use crate::train::{Losses, TrainConfig, TrainError, Trainer};

/// The copy of the configuration kept in a run folder.
pub const RUN_CONFIG: &str = "config.toml";

/// Why training stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Train(#[from] TrainError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Network(#[from] NetworkError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error(transparent)]
    Window(#[from] WindowError),
    #[error(transparent)]
    Selfplay(#[from] SelfplayError),
    #[error("training data: {0}")]
    Unmapped(#[from] UnmappedMove),
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    #[error("cannot draw the charts: {0}")]
    Plot(#[from] crate::plot::PlotError),
    #[error("gating: {0}")]
    Gating(#[from] crate::arena::ArenaError),
    #[error("league games: {0}")]
    League(#[from] league::LeagueError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Lease(#[from] LeaseError),
    #[error("{0}")]
    Unsupported(String),
}

/// A training run to start or resume.
#[derive(Clone, Debug)]
pub struct TrainRun {
    pub config: RunConfig,
    /// `models/<variant>/<run>`; with a store, the trainer's local copy of the run.
    pub run_dir: PathBuf,
    /// Seed of the initial weights, the sampling and self-play.
    pub seed: u64,
    /// Where the run lives when it is shared with self-play workers; its configuration must
    /// already be there ([`crate::store::run_config`]).
    pub store: Option<Arc<Store>>,
    /// With a store: only train; self-play comes from workers.
    pub trainer_only: bool,
}

/// What a finished (or stopped) session did.
#[derive(Clone, Debug, Default)]
pub struct TrainSummary {
    /// Training steps at the start and the end of this session.
    pub first_step: u64,
    pub last_step: u64,
    pub selfplay_games: u64,
    pub selfplay_positions: u64,
    pub elapsed: Duration,
    /// The latest checkpoint's metadata file.
    pub checkpoint: PathBuf,
    pub metrics: PathBuf,
    pub charts: Vec<PathBuf>,
    pub resumed: bool,
    /// Whether the session ended on the stop flag (a signal) before the run's end.
    pub interrupted: bool,
}

/// Runs (or resumes) training until `total_steps`, `max_minutes` or `stop`; `progress` shows
/// the training step. With a store, the run resumes from the store's latest checkpoint, games
/// come from the store and every checkpoint is published there.
///
/// With a store, the trainer holds the run's lease ([`crate::store::lease`]) while it trains:
/// it refuses to start while another trainer holds it, and stops without writing when another
/// has taken over.
pub fn train(run: &TrainRun, stop: &AtomicBool, progress: &ProgressBar) -> Result<TrainSummary, PipelineError> {
    let config = &run.config;
    let Some(store) = run.store.as_deref() else { return train_holding(run, None, stop, progress) };
    if config.gating.enabled || config.selfplay.league_fraction > 0.0 {
        return Err(PipelineError::Unsupported("gating and league games are not available with a store yet".to_string()));
    }
    let lease = Lease::acquire(store, &Holder::this_process(&run.run_dir, config.store.lease_seconds))?;
    let trained = train_holding(run, Some(&lease), stop, progress);
    match trained {
        // The lease is another trainer's now.
        Err(PipelineError::Lease(LeaseError::Fenced { .. } | LeaseError::Overwritten { .. })) => {}
        // Letting go matters less than the error that ended training.
        Err(_) => {
            let _ = lease.release(store);
        }
        Ok(_) => lease.release(store)?,
    }
    trained
}

/// [`train`] once the lease, if any, is held.
fn train_holding(run: &TrainRun, lease: Option<&Lease>, stop: &AtomicBool, progress: &ProgressBar) -> Result<TrainSummary, PipelineError> {
    let config = &run.config;
    let variant = config.variant;
    let run_dir = &run.run_dir;
    let store = run.store.as_deref();
    // A store's games are copied to a folder of their own, one per store.
    let replay_dir = match store {
        Some(store) => run_dir.join(format!("replay-{}", store.cache_key())),
        None => run_dir.join("replay"),
    };
    std::fs::create_dir_all(&replay_dir).map_err(io("create", &replay_dir))?;
    let device = config.inference.device.resolve().map_err(ModelError::from)?;
    let resumed = match store {
        Some(store) => fetch_run(store, run_dir)?,
        None => run_dir.join(checkpoint::LATEST).exists(),
    };
    let (trainer, state) = if resumed {
        state::resume(run_dir, variant, &config.network, config.train, device)?
    } else {
        if store.is_none() {
            write_atomically(&run_dir.join(RUN_CONFIG), &run_config_text(config))?;
        }
        if !variant.is_embedded() {
            // The run's checkpoints name the variant; this copy of its rules lets them be read
            // where the original file is not.
            let source = std::path::PathBuf::from(variant.source());
            let text = std::fs::read_to_string(&source).map_err(io("read", &source))?;
            write_atomically(&run_dir.join(checkpoint::VARIANT_FILE), &text)?;
        }
        tch::manual_seed(run.seed as i64);
        let network = on_fresh_thread(|| Network::new(variant, &config.network, device))?;
        let trainer = Trainer::new(network, Optimizer::new(&config.train), config.train, 0).map_err(TrainError::from)?;
        let state = TrainerState::default();
        state::save(&trainer, &state, run_dir)?;
        if let (Some(store), Some(lease)) = (store, lease) {
            checkpoints::publish(store, run_dir, 0, lease)?;
        }
        (trainer, state)
    };
    let mut trainer = trainer;
    let first_step = trainer.step_count();
    // Self-play in this process: the models it plays with (without a store).
    let local_models = match store {
        Some(_) => None,
        None => Some(local_selfplay_models(run, state.incumbent, first_step)?),
    };
    // With gating on, self-play goes on with the network that last passed its gate.
    let incumbent = state.incumbent.filter(|_| config.gating.enabled).unwrap_or(first_step);
    let window_config = WindowConfig {
        max_positions: config.train.window_positions,
        max_reuse: config.train.max_sample_reuse,
        targets: config.train.targets(),
    };
    let mut window = ReplayWindow::resume(&replay_dir, variant, window_config, state.window.clone())?;
    let selfplay = SelfplayRun {
        variant,
        search: config.search,
        selfplay: config.selfplay.clone(),
        games: None,
        // A resumed session plays new games, not those of the first session again.
        seed: run.seed.wrapping_add(first_step.wrapping_mul(0x5851_F42D_4C95_7F2D)),
        out: replay_dir.clone(),
    };
    // Games and positions count from the start of the run, across sessions.
    let counters = Counters::default();
    counters.games.store(state.selfplay_games, Ordering::Relaxed);
    counters.plies.store(state.selfplay_positions, Ordering::Relaxed);
    let selfplay_stop = AtomicBool::new(false);
    // With a store, games come in through a thread of their own.
    let ingest = match store {
        Some(_) => Some(Ingest::new(GameSync::new(&replay_dir, accepted_batches(config)?), oldest_model(&config.train, first_step))),
        None => None,
    };
    let ingest_stop = AtomicBool::new(false);
    let session_start = Instant::now();
    let mut summary = TrainSummary {
        first_step,
        last_step: first_step,
        resumed,
        metrics: run_dir.join(metrics::METRICS_FILE),
        ..TrainSummary::default()
    };
    progress.set_length(PROGRESS_SCALE);
    progress.set_position(budget_used(&config.train, first_step, state.elapsed_s));
    let outcome = std::thread::scope(|scope| {
        let selfplay_stop = &selfplay_stop;
        let ingest_stop = &ingest_stop;
        let ingest_thread = match (store, &ingest) {
            (Some(store), Some(ingest)) => Some(scope.spawn(move || ingest.run(store, ingest_stop, INGEST_EVERY))),
            _ => None,
        };
        let selfplay_thread = match (&local_models, store) {
            (Some((model, opponent)), _) => Some(scope.spawn(|| {
                let evaluators = match opponent {
                    Some((opponent, _)) => Evaluators::League { learner: model, opponent },
                    None => Evaluators::Shared(model),
                };
                runner::run(evaluators, &selfplay, selfplay_stop, &ProgressBar::hidden(), &counters, &mut |_| Ok(()))
                    .map(|_| ())
                    .map_err(PipelineError::from)
            })),
            (None, Some(store)) if !run.trainer_only => {
                let worker = WorkerRun {
                    variant,
                    worker_id: format!("trainer-{}", std::process::id()),
                    games: None,
                    minutes: None,
                    cache: run_dir.join("worker"),
                    seed: selfplay.seed,
                    machine: WorkerMachine::of_run(config),
                };
                Some(scope.spawn(move || worker::run(store, &worker, selfplay_stop, &ProgressBar::hidden()).map(|_| ())))
            }
            _ => None,
        };
        let looped = Loop {
            run,
            trainer: &mut trainer,
            window: &mut window,
            ingest: store.zip(ingest.as_ref()),
            lease,
            model: local_models.as_ref().map(|(model, _)| model),
            incumbent,
            opponent: local_models.as_ref().and_then(|(_, opponent)| opponent.as_ref().map(|(model, step)| (model, *step))),
            counters: &counters,
            progress,
            stop,
            probe: probe_pairs(variant, config.eval.probe_pairs, PROBE_SEED),
            strength: Strength::default(),
        }
        .run(state.elapsed_s, session_start, &|| selfplay_thread.as_ref().is_some_and(|t| t.is_finished()));
        selfplay_stop.store(true, Ordering::Relaxed);
        ingest_stop.store(true, Ordering::Relaxed);
        if let Some(thread) = ingest_thread {
            thread.join().expect("the ingestion thread panicked");
        }
        let played = selfplay_thread.map_or(Ok(()), |t| t.join().expect("the self-play thread panicked"));
        looped.and_then(|checkpoint| {
            played?;
            Ok(checkpoint)
        })
    });
    summary.checkpoint = outcome?;
    summary.last_step = trainer.step_count();
    summary.selfplay_games = counters.games.load(Ordering::Relaxed) - state.selfplay_games;
    summary.selfplay_positions = counters.plies.load(Ordering::Relaxed) - state.selfplay_positions;
    summary.elapsed = session_start.elapsed();
    let run_elapsed_s = state.elapsed_s + summary.elapsed.as_secs_f64();
    let ended = budget_used(&config.train, summary.last_step, run_elapsed_s) >= PROGRESS_SCALE;
    summary.interrupted = stop.load(Ordering::Relaxed) && !ended;
    if let (Some(store), Some(lease), true) = (store, lease, ended) {
        lease.renew(store)?;
        checkpoints::end_run(store, lease)?;
    }
    summary.charts = metrics::plot(run_dir, &format!("{} {}", variant.name(), run_name(run_dir)))?;
    Ok(summary)
}

/// The served model self-play uses in this process, and with league games the opponent's
/// model and the step of its checkpoint.
type LocalModels = (Model, Option<(Model, u64)>);

/// Loads the models of self-play in this process: the incumbent's checkpoint (with gating) or
/// the latest, and the league opponent when league games are on.
fn local_selfplay_models(run: &TrainRun, incumbent: Option<u64>, first_step: u64) -> Result<LocalModels, PipelineError> {
    let config = &run.config;
    let step = incumbent.filter(|_| config.gating.enabled).unwrap_or(first_step);
    let model = Model::load(&checkpoint::metadata_file(&run.run_dir, step), Some(config.variant), &config.inference)?;
    let opponent = if config.selfplay.league_fraction > 0.0 {
        let (step, path) = league::draw_opponent(&run.run_dir, run.seed, first_step)?;
        Some((Model::load(&path, Some(config.variant), &config.inference)?, step))
    } else {
        None
    };
    Ok((model, opponent))
}

/// Brings the store's latest checkpoint (with its optimiser and trainer state) and metrics into
/// the run folder; returns whether the store had one (the run resumes) or not (a new run).
/// Metrics lines past the checkpoint (written by a trainer killed before it moved
/// `latest.json`) are dropped: those steps are trained again.
fn fetch_run(store: &Store, run_dir: &Path) -> Result<bool, PipelineError> {
    let Some(latest) = checkpoints::latest(store)? else { return Ok(false) };
    checkpoints::fetch_for_resume(store, &latest, run_dir)?;
    let metrics_object = format!("{}/{}", layout::METRICS, metrics::METRICS_FILE);
    if let Some(bytes) = store.get(&metrics_object)? {
        let text = String::from_utf8_lossy(&bytes);
        let step_of = |line: &str| serde_json::from_str::<serde_json::Value>(line).ok().and_then(|v| v["step"].as_u64());
        let kept: String =
            text.lines().filter(|line| step_of(line).is_some_and(|step| step <= latest.step)).map(|line| format!("{line}\n")).collect();
        let path = run_dir.join(metrics::METRICS_FILE);
        crate::files::write_atomic(&path, kept.as_bytes()).map_err(io("write", &path))?;
    }
    Ok(true)
}

/// The state of the main loop.
struct Loop<'a> {
    run: &'a TrainRun,
    trainer: &'a mut Trainer,
    window: &'a mut ReplayWindow,
    /// With a store: where checkpoints go, and the ingestion of its games.
    ingest: Option<(&'a Store, &'a Ingest)>,
    /// With a store: the run's lease, renewed as training goes and checked before each write.
    lease: Option<&'a Lease>,
    /// Self-play's model in this process (without a store).
    model: Option<&'a Model>,
    /// The step of the checkpoint self-play uses (the latest, unless gating kept an older one).
    incumbent: u64,
    /// With league games: the opponent's model and the step of the checkpoint it holds.
    opponent: Option<(&'a Model, u64)>,
    counters: &'a Counters,
    progress: &'a ProgressBar,
    stop: &'a AtomicBool,
    /// The value probe's positions (none when `[eval] probe_pairs` is 0).
    probe: Vec<ProbePair>,
    /// The latest anchor scores and probe share, for the progress line.
    strength: Strength,
}

/// The latest strength figures, as the progress line shows them.
#[derive(Default)]
struct Strength {
    anchors: String,
    probe: String,
}

impl std::fmt::Display for Strength {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for part in [&self.anchors, &self.probe] {
            if !part.is_empty() {
                write!(f, "; {part}")?;
            }
        }
        Ok(())
    }
}

/// Sums of the losses since the last checkpoint.
#[derive(Default)]
struct Interval {
    steps: u64,
    losses: Losses,
    training: Duration,
    started: Option<Instant>,
    games: u64,
    plies: u64,
    /// Games drawn at the ply cap, and games adjudicated.
    capped: u64,
    adjudicated: u64,
    evaluations: u64,
    /// Replay files refused by the window's checks.
    rejected: u64,
    /// With a store: the same, by the worker named in the batches' names.
    rejected_by_worker: BTreeMap<String, u64>,
    /// Samples the bootstrap teacher labelled.
    taught: u64,
    /// Steps skipped for a loss or gradient that was not finite.
    skipped: u64,
}

impl Interval {
    /// Counts a batch refused by the window or set aside before it, with the worker named in
    /// its name where it has one.
    fn reject(&mut self, worker: Option<String>) {
        self.rejected += 1;
        if let Some(worker) = worker {
            *self.rejected_by_worker.entry(worker).or_default() += 1;
        }
    }
}

impl Loop<'_> {
    /// Trains until the run's end; returns the last checkpoint's metadata path.
    fn run(mut self, elapsed_before: f64, session_start: Instant, selfplay_ended: &dyn Fn() -> bool) -> Result<PathBuf, PipelineError> {
        let train = self.run.config.train;
        let run_dir = &self.run.run_dir;
        let mut rng = ChaCha8Rng::seed_from_u64(self.run.seed ^ self.trainer.step_count().rotate_left(32));
        let builder = BatchBuilder::new(self.trainer.network().encoder());
        let teacher = Teacher::new(self.run.config.variant, self.run.config.bootstrap);
        let games = self.counters.games.load(Ordering::Relaxed);
        let plies = self.counters.game_plies.load(Ordering::Relaxed);
        let capped = self.counters.capped_games.load(Ordering::Relaxed);
        let adjudicated = self.counters.adjudicated_games.load(Ordering::Relaxed);
        let mut interval = Interval { started: Some(Instant::now()), games, plies, capped, adjudicated, ..Interval::default() };
        let mut last_refresh = Instant::now() - Duration::from_secs(60);
        let mut checkpoint = checkpoint::read_metadata(run_dir)?.0;
        let elapsed = |session_start: Instant| elapsed_before + session_start.elapsed().as_secs_f64();
        let time_up = |session_start: Instant| train.max_minutes > 0.0 && elapsed(session_start) >= train.max_minutes * 60.0;
        while self.trainer.step_count() < train.total_steps && !time_up(session_start) && !self.stop.load(Ordering::Relaxed) {
            if selfplay_ended() {
                // Self-play ended early: only an error does that; it is reported after the loop.
                break;
            }
            let starved =
                |window: &ReplayWindow| window.len() < train.min_window_positions || window.samples_remaining() < train.batch_size as u64;
            if starved(self.window) || last_refresh.elapsed() > Duration::from_secs(5) {
                self.refresh(&mut interval)?;
                last_refresh = Instant::now();
            }
            if starved(self.window) {
                self.progress.set_message(format!(
                    "{}; waiting for self-play: {} games, window {} positions",
                    budget_text(&train, self.trainer.step_count(), elapsed(session_start)),
                    self.counters.games.load(Ordering::Relaxed),
                    self.window.len()
                ));
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
            let step_start = Instant::now();
            let mut samples = self.window.sample(&mut rng, train.batch_size)?;
            interval.taught += teacher.relabel(&mut samples, self.trainer.step_count()) as u64;
            let batch = builder.build(&samples)?;
            let losses = self.trainer.train_step(&batch, elapsed(session_start));
            interval.training += step_start.elapsed();
            if losses.skipped {
                interval.skipped += 1;
                let step = self.trainer.step_count();
                log(self.progress, &format!("step {step}: a batch gave a loss or gradient that is not finite; its step was skipped"));
                continue;
            }
            interval.steps += 1;
            for (sum, value) in [
                (&mut interval.losses.policy, losses.policy),
                (&mut interval.losses.value, losses.value),
                (&mut interval.losses.moves_left, losses.moves_left),
                (&mut interval.losses.opponent_policy, losses.opponent_policy),
                (&mut interval.losses.material, losses.material),
                (&mut interval.losses.short_term_value, losses.short_term_value),
                (&mut interval.losses.total, losses.total),
                (&mut interval.losses.gradient_norm, losses.gradient_norm),
            ] {
                *sum += value;
            }
            let step = self.trainer.step_count();
            self.progress.set_position(budget_used(&train, step, elapsed(session_start)));
            self.progress.set_message(format!(
                "{}; games {}, window {}, {:.0} samples/s, loss policy {:.3} value {:.3}{}",
                budget_text(&train, step, elapsed(session_start)),
                self.counters.games.load(Ordering::Relaxed),
                self.window.len(),
                (interval.steps * train.batch_size as u64) as f64 / interval.training.as_secs_f64().max(1e-9),
                losses.policy,
                losses.value,
                self.strength
            ));
            if step.is_multiple_of(train.checkpoint_every) || step == train.total_steps {
                checkpoint = self.checkpoint(&mut interval, elapsed(session_start))?;
            }
        }
        if interval.steps > 0 {
            checkpoint = self.checkpoint(&mut interval, elapsed(session_start))?;
        }
        Ok(checkpoint)
    }

    /// The value probe on checkpoint `step` (at `path`), and its anchor matches when they are
    /// due; self-play goes on meanwhile. Updates the progress line's strength part.
    fn measure_strength(&mut self, step: u64, path: &Path) -> Result<(Option<ProbeResult>, Vec<AnchorScore>), PipelineError> {
        let config = &self.run.config;
        // The trainer's network holds the weights just saved: no need to read them back.
        let value_probe = if self.probe.is_empty() { None } else { Some(run_probe(self.trainer.network(), &self.probe)?) };
        let anchors = if config.eval.due(step, config.train.checkpoint_every) {
            self.progress.set_message(format!("step {step}: playing the anchors {}", config.eval.anchors.join(", ")));
            let rules = runner::game_rules(config.variant, &config.selfplay);
            strength::play_anchors(&config.eval, config.variant, rules, path, step, &self.run.run_dir)?
        } else {
            Vec::new()
        };
        if let Some(probe) = value_probe {
            self.strength.probe = format!("value probe {:.0}% (drop {:.2})", 100.0 * probe.share(), probe.mean_drop);
        }
        if !anchors.is_empty() {
            let scores: Vec<String> = anchors.iter().map(AnchorScore::summary).collect();
            self.strength.anchors = scores.join(", ");
            let detailed: Vec<String> = anchors
                .iter()
                .map(|a| match (a.elo, a.elo_margin) {
                    (Some(elo), Some(margin)) => format!("{}, Elo {elo:+.0} +/- {margin:.0}", a.summary()),
                    _ => a.summary(),
                })
                .collect();
            log(self.progress, &format!("step {step}: {}", detailed.join("; ")));
        }
        Ok((value_probe, anchors))
    }

    /// Brings new games into the window: with a store, those its ingestion thread has copied
    /// (games of models older than `max_game_age` checkpoints stay out), and reports what that
    /// thread passed over or set aside. Batches the window refuses are logged, counted, and
    /// with a store set aside, so that one bad worker never stops training.
    fn refresh(&mut self, interval: &mut Interval) -> Result<(), PipelineError> {
        if let Some((store, ingest)) = self.ingest {
            if let Some(lease) = self.lease {
                lease.renew_if_due(store)?;
            }
            ingest.keep_models_from(oldest_model(&self.run.config.train, self.trainer.step_count()))?;
            for report in ingest.take_reports()? {
                for object in report.unnamed {
                    log(
                        self.progress,
                        &format!("passed over {object}: not a game batch name of this program, or in another model's folder"),
                    );
                }
                for object in report.vanished {
                    log(self.progress, &format!("warning: {object} was listed but is gone (deleted since): passed over"));
                }
                for SetAside { copy, worker, reason } in report.set_aside {
                    interval.reject(Some(worker));
                    log(self.progress, &format!("set aside {copy}: {reason}"));
                }
            }
        }
        let refresh = self.window.refresh()?;
        for error in &refresh.rejected {
            match self.ingest {
                Some((store, ingest)) => {
                    let object = ingest.set_aside(store, error.path())?;
                    let file_name = error.path().file_name().and_then(|n| n.to_str()).unwrap_or_default();
                    interval.reject(layout::GameName::parse(file_name).map(|name| name.worker));
                    log(self.progress, &format!("set aside {object}: {error}"));
                }
                None => {
                    interval.reject(None);
                    log(self.progress, &format!("skipped a replay file: {error}"));
                }
            }
        }
        if self.ingest.is_some() {
            // Self-play happens elsewhere: count what reaches the trainer.
            self.counters.games.fetch_add(refresh.new_games as u64, Ordering::Relaxed);
            self.counters.game_plies.fetch_add(refresh.new_plies as u64, Ordering::Relaxed);
            self.counters.capped_games.fetch_add(refresh.new_capped as u64, Ordering::Relaxed);
            self.counters.adjudicated_games.fetch_add(refresh.new_adjudicated as u64, Ordering::Relaxed);
            self.counters.plies.fetch_add(refresh.new_plies as u64, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Saves a checkpoint with the trainer state, gates it when gating is on, logs the
    /// interval's metrics, redraws the charts and hands the new network to self-play (unless
    /// it failed its gate).
    fn checkpoint(&mut self, interval: &mut Interval, elapsed_s: f64) -> Result<PathBuf, PipelineError> {
        let config = &self.run.config;
        let run_dir = &self.run.run_dir;
        let step = self.trainer.step_count();
        let gating = config.gating.enabled;
        // The interval's games, their plies and those at the cap, read together: games go on
        // finishing while the checkpoint is saved and measured.
        let games = self.counters.games.load(Ordering::Relaxed);
        let plies = self.counters.game_plies.load(Ordering::Relaxed);
        let capped = self.counters.capped_games.load(Ordering::Relaxed);
        let adjudicated = self.counters.adjudicated_games.load(Ordering::Relaxed);
        let positions = self.counters.plies.load(Ordering::Relaxed);
        let mut state = TrainerState {
            step,
            elapsed_s,
            window: self.window.counters(),
            incumbent: gating.then_some(self.incumbent),
            selfplay_games: games,
            selfplay_positions: positions,
        };
        let path = state::save(self.trainer, &state, run_dir)?;
        let (value_probe, anchors) = self.measure_strength(step, &path)?;
        let seconds = interval.started.map_or(1.0, |t| t.elapsed().as_secs_f64().max(1e-9));
        let evaluations = self.counters.evaluations.load(Ordering::Relaxed);
        let decision = if gating && step != self.incumbent {
            self.progress.set_message(format!("gating: step {step} against step {}", self.incumbent));
            Some(gating::judge(config, run_dir, step, self.incumbent)?)
        } else {
            None
        };
        let promoted = decision.as_ref().is_none_or(|d| d.accepted);
        if promoted {
            self.incumbent = step;
            if gating {
                state.incumbent = Some(step);
                state::write_state(run_dir, &state)?;
            }
        }
        if let Some((opponent, held)) = &mut self.opponent {
            let (drawn, opponent_path) = league::draw_opponent(&self.run.run_dir, self.run.seed, step)?;
            let (network, id) = Model::load_network(&opponent_path, config.variant, &config.inference)?;
            // As for the learner's model: only a failed self-play has stopped it.
            let _ = opponent.swap(network, id);
            *held = drawn;
        }
        let n = interval.steps.max(1) as f64;
        let auxiliary = |weight: f64, sum: f64| (weight > 0.0).then_some(sum / n);
        // A count over the interval's finished games: a mean or a share (0 when none finished).
        let finished = games.saturating_sub(interval.games);
        let per_game = |count: u64| if finished > 0 { count as f64 / finished as f64 } else { 0.0 };
        let line = MetricsLine {
            step,
            elapsed_s,
            learning_rate: self.trainer.learning_rate(elapsed_s),
            policy_loss: interval.losses.policy / n,
            value_loss: interval.losses.value / n,
            moves_left_loss: interval.losses.moves_left / n,
            opponent_policy_loss: auxiliary(config.train.opponent_policy_weight, interval.losses.opponent_policy),
            material_loss: auxiliary(config.train.material_weight, interval.losses.material),
            short_term_value_loss: auxiliary(config.train.short_term_value_weight, interval.losses.short_term_value),
            total_loss: interval.losses.total / n,
            gradient_norm: interval.losses.gradient_norm / n,
            samples_per_s: (interval.steps * config.train.batch_size as u64) as f64 / interval.training.as_secs_f64().max(1e-9),
            selfplay_games: games,
            selfplay_positions: positions,
            game_length: per_game(plies - interval.plies),
            capped_share: per_game(capped - interval.capped),
            adjudicated_share: per_game(adjudicated - interval.adjudicated),
            evaluations_per_s: (evaluations - interval.evaluations) as f64 / seconds,
            window_positions: self.window.len(),
            gate_score: decision.as_ref().and_then(|d| d.score),
            selfplay_step: self.incumbent,
            league_opponent: self.opponent.map(|(_, step)| step),
            rejected_files: interval.rejected,
            rejected_by_worker: interval.rejected_by_worker.clone(),
            skipped_steps: interval.skipped,
            teacher_share: (interval.taught > 0)
                .then(|| interval.taught as f64 / (interval.steps * config.train.batch_size as u64).max(1) as f64),
            value_probe: value_probe.map(|probe| probe.share()),
            value_probe_drop: value_probe.map(|probe| probe.mean_drop),
            anchors,
        };
        metrics::append(run_dir, &line).map_err(io("append to", &run_dir.join(metrics::METRICS_FILE)))?;
        let title = format!("{} {}", config.variant.name(), run_name(run_dir));
        let charts = metrics::plot(run_dir, &title)?;
        if let (Some((store, _)), Some(lease)) = (self.ingest, self.lease) {
            lease.renew(store)?;
            // The metrics go first: a trainer killed before `latest.json` moves resumes from the
            // checkpoint before, and drops the lines past it ([`fetch_run`]).
            for file in std::iter::once(run_dir.join(metrics::METRICS_FILE)).chain(charts) {
                let name = file.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                let bytes = std::fs::read(&file).map_err(io("read", &file))?;
                store.put(&format!("{}/{name}", layout::METRICS), bytes)?;
            }
            checkpoints::publish(store, run_dir, step, lease)?;
            let pruned = retention::prune(store, &config.store, step, config.train.checkpoint_every)?;
            if pruned != Pruned::default() {
                let message = format!(
                    "step {step}: deleted {} game batches of older models and {} older optimiser states from the store",
                    pruned.batches, pruned.optimizer_states
                );
                log(self.progress, &message);
            }
        }
        *interval = Interval { started: Some(Instant::now()), games, plies, capped, adjudicated, evaluations, ..Interval::default() };
        if let (true, Some(model)) = (promoted, self.model) {
            let (network, id) = Model::load_network(&path, config.variant, &config.inference)?;
            // Self-play has stopped only if it failed; its error is reported by `train`.
            let _ = model.swap(network, id);
        }
        Ok(path)
    }
}

/// Prints a line on standard error above the progress bar (also when the bar is hidden, as
/// under a batch scheduler).
fn log(progress: &ProgressBar, line: &str) {
    progress.suspend(|| eprintln!("{line}"));
}

/// The length of the progress bar: the run's budget in thousandths.
pub const PROGRESS_SCALE: u64 = 1000;

/// How much of the run's budget is used, in thousandths: the share of `total_steps` done or of
/// `max_minutes` gone, whichever is further along, since the run stops at the first of the two.
pub fn budget_used(train: &TrainConfig, step: u64, elapsed_s: f64) -> u64 {
    let by_steps = step as f64 / train.total_steps.max(1) as f64;
    let by_time = if train.max_minutes > 0.0 { elapsed_s / (train.max_minutes * 60.0) } else { 0.0 };
    (by_steps.max(by_time).clamp(0.0, 1.0) * PROGRESS_SCALE as f64).round() as u64
}

/// The step and what ends the run, for the progress line: `step 306 of 100000, 12 of 25 min`.
pub fn budget_text(train: &TrainConfig, step: u64, elapsed_s: f64) -> String {
    let steps = format!("step {step} of {}", train.total_steps);
    if train.max_minutes > 0.0 {
        format!("{steps}, {:.0} of {} min", elapsed_s / 60.0, train.max_minutes)
    } else {
        steps
    }
}

/// The configuration as the run folder keeps it.
fn run_config_text(config: &RunConfig) -> String {
    crate::config::to_toml(config)
}

/// The run's name: its folder's.
fn run_name(run_dir: &Path) -> String {
    run_dir.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// How often the trainer looks for new game batches in a store.
const INGEST_EVERY: Duration = Duration::from_secs(2);

/// The step of the oldest model whose games the trainer at `step` trains on (`[train]
/// max_game_age` checkpoints back; 0 keeps every model's).
fn oldest_model(train: &TrainConfig, step: u64) -> u64 {
    match train.max_game_age {
        0 => 0,
        age => step.saturating_sub(age.saturating_mul(train.checkpoint_every)),
    }
}

/// The game batches the trainer takes from a store's workers: those played under the run's
/// variant, rules and start positions, within its `[store]` limits.
fn accepted_batches(config: &RunConfig) -> Result<BatchRules, PipelineError> {
    let starts = runner::start_positions(config.variant, &config.selfplay)?;
    Ok(BatchRules {
        variant: config.variant.name().to_string(),
        rules: runner::game_rules(config.variant, &config.selfplay),
        starts: starts.iter().map(sfen::write).collect::<HashSet<String>>(),
        limits: config.store,
    })
}

/// Writes `text` to `path` atomically ([`crate::files::write_atomic`]).
fn write_atomically(path: &Path, text: &str) -> Result<(), PipelineError> {
    crate::files::write_atomic(path, text.as_bytes()).map_err(io("write", path))
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> PipelineError {
    let path = path.to_path_buf();
    move |source| PipelineError::Io { action, path, source }
}

#[cfg(test)]
mod tests {
    use super::{budget_text, budget_used};
    use crate::train::TrainConfig;

    /// A run capped at 25 minutes shows the minutes when they come first, the steps otherwise.
    #[test]
    fn the_progress_shows_whichever_budget_ends_the_run() {
        let timed = TrainConfig { total_steps: 100_000, max_minutes: 25.0, ..TrainConfig::default() };
        assert_eq!(budget_used(&timed, 306, 12.5 * 60.0), 500);
        assert_eq!(budget_used(&timed, 90_000, 60.0), 900);
        assert_eq!(budget_used(&timed, 306, 40.0 * 60.0), 1000);
        assert_eq!(budget_text(&timed, 306, 12.5 * 60.0), "step 306 of 100000, 12 of 25 min");
        let by_steps = TrainConfig { total_steps: 2_000, max_minutes: 0.0, ..TrainConfig::default() };
        assert_eq!(budget_used(&by_steps, 500, 1e6), 250);
        assert_eq!(budget_text(&by_steps, 500, 1e6), "step 500 of 2000");
    }
}

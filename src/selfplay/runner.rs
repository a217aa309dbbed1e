//! Runs self-play: worker threads each keep many games in flight and send their leaves to one
//! evaluator in batches; finished games are gathered here and written to replay files, a batch
//! of games per file, each file written atomically.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use indicatif::ProgressBar;

use super::batch::{BatchEvaluator, DirectBatch, ServerBatch};
use super::config::SelfplayConfig;
use super::game::{FinishedGame, SelfplayGame, Step};
use crate::mcts::{EvaluatorError, Model, SearchConfig};
use crate::nn::Network;
use crate::openings::{read_openings, OpeningError};
use crate::replay::{self, ReplayEnding, ReplayError, ReplayGame};
use crate::rules::{Color, Game, GameRules, Position, VariantId};
use crate::splitmix;

/// Why self-play stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SelfplayError {
    #[error("self-play evaluation failed: {0}")]
    Evaluator(#[from] EvaluatorError),
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("self-play openings {path}: {error}")]
    Openings { path: PathBuf, error: OpeningError },
    #[error("replay file {path} written, but not handed on: {message}")]
    HandOn { path: PathBuf, message: String },
}

/// What evaluates the games' positions.
pub enum Evaluators<'a> {
    /// A served model shared by every worker (and possibly by others, e.g. a trainer that swaps
    /// in new networks).
    Shared(&'a Model),
    /// The learner's served model and an opponent's, for runs with league games
    /// (`league_fraction`); without an opponent no game is a league game.
    League { learner: &'a Model, opponent: &'a Model },
    /// One worker with a network of its own, in lockstep batches: a seeded run repeats exactly.
    Deterministic { network: Box<Network>, model_id: String },
}

/// What to play.
#[derive(Clone, Debug)]
pub struct SelfplayRun {
    pub variant: VariantId,
    pub search: SearchConfig,
    pub selfplay: SelfplayConfig,
    /// Games to play; `None`: until the stop flag is set.
    pub games: Option<u64>,
    /// Seed of the run; game `i` is seeded from it and `i`.
    pub seed: u64,
    /// Folder of the replay files.
    pub out: PathBuf,
}

/// Counters of a run, shared with the workers and readable while it runs.
#[derive(Debug, Default)]
pub struct Counters {
    /// Games finished, and their plies.
    pub games: AtomicU64,
    pub game_plies: AtomicU64,
    /// Finished games drawn at the ply cap.
    pub capped_games: AtomicU64,
    /// Finished games adjudicated ([`SelfplayConfig::adjudicate_lead`]).
    pub adjudicated_games: AtomicU64,
    /// Plies played, unfinished games included.
    pub plies: AtomicU64,
    pub evaluations: AtomicU64,
}

/// The totals of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: u64,
    pub plies: u64,
    pub evaluations: u64,
    pub elapsed: Duration,
    /// Wins of Black, of White, draws.
    pub black_wins: u64,
    pub white_wins: u64,
    pub draws: u64,
    /// Games per ending.
    pub endings: BTreeMap<String, u64>,
    /// Audited games (resignation off) in which a side would have resigned, and how many of
    /// those that side did not lose.
    pub audited_resignations: u64,
    pub false_resignations: u64,
    /// Audited games (played out) in which a side would have been adjudicated the winner, by
    /// how that side did: won, drawn, lost.
    pub audited_adjudications: [u64; 3],
    /// Replay files written.
    pub files: u64,
}

impl Summary {
    fn add(&mut self, finished: &FinishedGame) {
        let record = &finished.record;
        self.games += 1;
        self.plies += record.moves.len() as u64;
        match record.result.winner {
            Some(Color::Black) => self.black_wins += 1,
            Some(Color::White) => self.white_wins += 1,
            None => self.draws += 1,
        }
        *self.endings.entry(record.result.reason.name().to_string()).or_default() += 1;
        if let Some(wrong) = finished.false_resignation {
            self.audited_resignations += 1;
            self.false_resignations += wrong as u64;
        }
        if let Some(audit) = finished.adjudication_audit {
            self.audited_adjudications[audit as usize] += 1;
        }
    }

    /// Mean plies per game.
    pub fn average_length(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }

    /// Share of audited would-be resignations that were wrong, if any were audited.
    pub fn false_resignation_rate(&self) -> Option<f64> {
        (self.audited_resignations > 0).then(|| self.false_resignations as f64 / self.audited_resignations as f64)
    }
}

/// The rules self-play games are played under.
pub fn game_rules(variant: VariantId, config: &SelfplayConfig) -> GameRules {
    let mut rules = GameRules::default_for(variant.variant());
    if config.ply_cap > 0 {
        rules.ply_cap = config.ply_cap;
    }
    rules
}

/// Where a run's games start: the positions at the ends of the lines of its openings file, or
/// the variant's start position.
pub fn start_positions(variant: VariantId, selfplay: &SelfplayConfig) -> Result<Vec<Position>, SelfplayError> {
    let Some(path) = &selfplay.openings else {
        return Ok(vec![Position::start(variant)]);
    };
    let rules = game_rules(variant, selfplay);
    let openings = read_openings(variant, path, rules).map_err(|error| SelfplayError::Openings { path: path.clone(), error })?;
    Ok(openings.iter().map(|opening| opening.game(rules).position().clone()).collect())
}

/// What is done with each replay file once written (e.g. uploaded); an error stops the run.
pub type OnFile<'a> = dyn FnMut(&Path) -> Result<(), String> + 'a;

/// Plays the run's games (or until `stop`), writing replay files as games finish; `progress`
/// counts finished games. `on_file` is handed every replay file written.
pub fn run(
    evaluators: Evaluators<'_>,
    run: &SelfplayRun,
    stop: &AtomicBool,
    progress: &ProgressBar,
    counters: &Counters,
    on_file: &mut OnFile<'_>,
) -> Result<Summary, SelfplayError> {
    let started = Instant::now();
    let next_game = AtomicU64::new(0);
    let (finished_tx, finished_rx) = crossbeam_channel::unbounded();
    let starts = start_positions(run.variant, &run.selfplay)?;
    // Served models (the learner's, maybe an opponent's) for many workers, or one network of
    // one worker's own.
    let (served, own) = match evaluators {
        Evaluators::Shared(model) => (Some((model, None)), None),
        Evaluators::League { learner, opponent } => (Some((learner, Some(opponent))), None),
        Evaluators::Deterministic { network, model_id } => (None, Some((*network, model_id))),
    };
    let league = matches!(served, Some((_, Some(_))));
    let shared = Shared { run, starts: &starts, league, stop, next_game: &next_game, counters };
    let mut summary = Summary::default();
    let outcome = std::thread::scope(|scope| {
        let mut workers = Vec::new();
        if let Some((model, opponent)) = served {
            for _ in 0..run.selfplay.workers {
                let tx = finished_tx.clone();
                let batch = ServerBatch::new(model, opponent);
                let shared = &shared;
                workers.push(scope.spawn(move || shared.work(batch, &tx, || model.id())));
            }
        }
        if let Some((network, model_id)) = own {
            let tx = finished_tx.clone();
            let shared = &shared;
            workers.push(scope.spawn(move || shared.work(DirectBatch::new(network), &tx, || model_id.clone())));
        }
        drop(finished_tx);
        let collected = collect(&finished_rx, run, progress, counters, &mut summary, on_file);
        if collected.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        let worked = workers.into_iter().try_for_each(|w| w.join().expect("self-play worker panicked"));
        collected.and(worked)
    });
    summary.evaluations = counters.evaluations.load(Ordering::Relaxed);
    summary.elapsed = started.elapsed();
    outcome.map(|()| summary)
}

/// Gathers finished games and writes them, `games_per_file` to a file, the rest at the end.
fn collect(
    finished: &Receiver<FinishedGame>,
    run: &SelfplayRun,
    progress: &ProgressBar,
    counters: &Counters,
    summary: &mut Summary,
    on_file: &mut OnFile<'_>,
) -> Result<(), SelfplayError> {
    let rules = game_rules(run.variant, &run.selfplay);
    let mut pending: Vec<ReplayGame> = Vec::new();
    let mut write = |pending: &mut Vec<ReplayGame>, summary: &mut Summary| -> Result<(), SelfplayError> {
        if !pending.is_empty() {
            let path = replay::write_games(&run.out, run.variant, rules, pending)?;
            summary.files += 1;
            on_file(&path).map_err(|message| SelfplayError::HandOn { path, message })?;
            pending.clear();
        }
        Ok(())
    };
    for game in finished {
        summary.add(&game);
        pending.push(game.record);
        progress.inc(1);
        let seconds = progress.elapsed().as_secs_f64().max(1e-9);
        progress.set_message(format!(
            "{:.0} positions/s, {:.0} evals/s, {:.0} plies/game",
            counters.plies.load(Ordering::Relaxed) as f64 / seconds,
            counters.evaluations.load(Ordering::Relaxed) as f64 / seconds,
            summary.average_length()
        ));
        if pending.len() >= run.selfplay.games_per_file {
            write(&mut pending, summary)?;
        }
    }
    write(&mut pending, summary)
}

/// What the workers share.
struct Shared<'a> {
    run: &'a SelfplayRun,
    /// Game `i` starts from position `i` modulo their number.
    starts: &'a [Position],
    /// Whether an opponent's network is at hand for league games.
    league: bool,
    stop: &'a AtomicBool,
    next_game: &'a AtomicU64,
    counters: &'a Counters,
}

impl Shared<'_> {
    /// A new game if the run wants more.
    fn new_game(&self) -> Option<SelfplayGame> {
        if self.stop.load(Ordering::Relaxed) {
            return None;
        }
        let index = self.next_game.fetch_add(1, Ordering::Relaxed);
        if self.run.games.is_some_and(|n| index >= n) {
            return None;
        }
        let start = self.starts[(index % self.starts.len() as u64) as usize].clone();
        let game = Game::new(start, game_rules(self.run.variant, &self.run.selfplay));
        let mut config = self.run.selfplay.clone();
        if !self.league {
            config.league_fraction = 0.0;
        }
        Some(SelfplayGame::new(game, self.run.search, config, game_seed(self.run.seed, index)))
    }

    /// One worker: keeps `games_per_worker` games going, evaluating their leaves in batches.
    fn work(
        &self,
        mut batch: impl BatchEvaluator,
        finished: &Sender<FinishedGame>,
        model_id: impl Fn() -> String,
    ) -> Result<(), SelfplayError> {
        let mut slots: Vec<Option<SelfplayGame>> = (0..self.run.selfplay.games_per_worker).map(|_| self.new_game()).collect();
        let mut in_flight = vec![false; slots.len()];
        let mut answers = Vec::new();
        loop {
            for (tag, slot) in slots.iter_mut().enumerate() {
                if in_flight[tag] {
                    continue;
                }
                while let Some(game) = slot {
                    let plies = game.ply();
                    let step = game.step();
                    self.counters.plies.fetch_add((game.ply() - plies) as u64, Ordering::Relaxed);
                    match step {
                        Step::Evaluate => {
                            let (leaf, moves) = game.leaf();
                            batch.submit(tag, leaf, moves, game.opponent_to_move())?;
                            in_flight[tag] = true;
                            break;
                        }
                        Step::Finished => {
                            let done = slot.take().expect("the slot holds a game").finish(model_id());
                            self.counters.games.fetch_add(1, Ordering::Relaxed);
                            self.counters.game_plies.fetch_add(done.record.moves.len() as u64, Ordering::Relaxed);
                            if done.record.result.at_ply_cap() {
                                self.counters.capped_games.fetch_add(1, Ordering::Relaxed);
                            }
                            if done.record.result.reason == ReplayEnding::Adjudication {
                                self.counters.adjudicated_games.fetch_add(1, Ordering::Relaxed);
                            }
                            // The collector has gone only if it failed; its error is reported.
                            let _ = finished.send(done);
                            *slot = self.new_game();
                        }
                    }
                }
            }
            if !in_flight.contains(&true) {
                return Ok(());
            }
            if self.stop.load(Ordering::Relaxed) && self.run.games.is_none() {
                // Unfinished games of an open-ended run are dropped; no partial record is kept.
                return Ok(());
            }
            // Games go on as soon as their answers come: the network works on the next batch
            // while this thread searches.
            answers.clear();
            batch.collect(&mut answers)?;
            self.counters.evaluations.fetch_add(answers.len() as u64, Ordering::Relaxed);
            for (tag, evaluation) in &answers {
                slots[*tag].as_mut().expect("answers come for games in flight").expand(evaluation);
                in_flight[*tag] = false;
            }
        }
    }
}

/// The seed of game `index` of a run seeded with `seed` (splitmix64 of their sum).
fn game_seed(seed: u64, index: u64) -> u64 {
    splitmix::mix(seed.wrapping_add(index.wrapping_mul(splitmix::GAMMA)))
}

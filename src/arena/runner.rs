//! The match runner: games in pairs from the same opening with colours swapped, several at a
//! time on threads, every game played to its end by the rules or decided by a player's failure.
//!
//! Game `2k` of a match (0-based) has the first player as Black and game `2k + 1` the second,
//! both from the opening of pair `k`. Each worker thread keeps its own two players for the games
//! it plays (made by the factories, re-made after a failure); with one worker and in-process
//! players a seed reproduces a match exactly. With an SPRT the match stops once a bound is
//! reached: games other workers have already started are finished and counted. Progress (games,
//! score, Elo) is shown on standard error; files go to the output folder (see [`super::records`]).
//! A match cut short (a kill, a lost machine) resumes from its folder: the games recorded there
//! are kept once their settings and openings are checked to be this match's, and only the others
//! are played.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use super::records::{self, FailureKind, MatchEnding, MatchGame, MatchSummary, PlayerSummary, RecordedSettings, SprtReport};
use super::stats::{EloEstimate, Sprt, SprtDecision, Wdl};
use super::ArenaError;
use crate::openings::Openings;
use crate::rules::notation::coord;
use crate::rules::{Color, Game, GameRules, VariantId};
use crate::splitmix;

/// Time between two snapshots of the results files during a match.
const SNAPSHOT_INTERVAL: Duration = Duration::from_secs(10);

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub variant: VariantId,
    /// Games to play; played in pairs, so an odd number is rounded up.
    pub games: u32,
    /// Games played at the same time.
    pub concurrency: usize,
    pub budget: Budget,
    pub openings: Openings,
    /// Ply cap and declaration setting of every game.
    pub rules: GameRules,
    pub seed: u64,
    pub sprt: Option<Sprt>,
    /// Folder for `results.json`, `games.jsonl` and CSA files; nothing is written without one.
    pub out: Option<std::path::PathBuf>,
    /// Whether to draw a progress bar on standard error.
    pub progress: bool,
    /// Keep the games an earlier run of the same match recorded in `out` and play only the rest.
    pub resume: bool,
}

impl MatchConfig {
    /// Two games from the start position of `variant`, one at a time, default budget and rules,
    /// seed 0, no SPRT, no files, no progress bar.
    pub fn new(variant: VariantId) -> MatchConfig {
        MatchConfig {
            variant,
            games: 2,
            concurrency: 1,
            budget: Budget::Default,
            openings: Openings::random(0),
            rules: GameRules::default_for(variant.variant()),
            seed: 0,
            sprt: None,
            out: None,
            progress: false,
            resume: false,
        }
    }
}

/// What a match produced: the summary and every game, in game order.
#[derive(Clone, Debug)]
pub struct MatchReport {
    pub summary: MatchSummary,
    pub records: Vec<MatchGame>,
}

/// Text of a budget for summaries.
fn budget_text(budget: Budget) -> String {
    match budget {
        Budget::Default => "default".to_string(),
        Budget::Sims(n) => format!("sims {n}"),
        Budget::Time(t) => format!("time-ms {}", t.as_millis()),
    }
}

/// Text of an openings source for summaries.
fn openings_text(openings: &Openings) -> String {
    match (openings.lines.len(), openings.random_plies) {
        (0, plies) => format!("{plies} random plies"),
        (lines, 0) => format!("{lines} openings from a file"),
        (lines, plies) => format!("{lines} openings from a file, then {plies} random plies"),
    }
}

/// A finished game on its way from a worker to the collector.
struct Finished {
    record: MatchGame,
    /// The CSA text, for shogi.
    csa: Option<String>,
}

/// Plays a match between `players[0]` and `players[1]`.
pub fn run_match(config: &MatchConfig, players: [Arc<dyn PlayerFactory>; 2]) -> Result<MatchReport, ArenaError> {
    if config.games == 0 {
        return Err(ArenaError::NoGames);
    }
    let total = config.games.div_ceil(2) * 2;
    let names = [players[0].name().to_string(), players[1].name().to_string()];
    let mut summary = MatchSummary {
        variant: config.variant.name().to_string(),
        games: 0,
        planned_games: total,
        players: names.clone().map(|name| PlayerSummary { name, ..PlayerSummary::default() }),
        elo: None,
        sprt: None,
        stopped_early: false,
        adjudicated: 0,
        at_ply_cap: 0,
        seed: config.seed,
        ply_cap: config.rules.ply_cap,
        budget: budget_text(config.budget),
        openings: openings_text(&config.openings),
    };
    let earlier = match (&config.out, config.resume) {
        (Some(dir), true) => earlier_games(config, dir, &summary)?,
        _ => Vec::new(),
    };
    for record in &earlier {
        tally(&mut summary, record, config.sprt);
    }
    let decided = summary.sprt.as_ref().is_some_and(|s| s.status.decision != SprtDecision::Continue);
    let pending = (0..total).filter(|index| !earlier.iter().any(|r| r.game == index + 1)).collect();
    if let Some(dir) = &config.out {
        std::fs::create_dir_all(dir).map_err(|error| ArenaError::Io { path: dir.clone(), error })?;
    }
    let progress = if config.progress { ProgressBar::new(total as u64) } else { ProgressBar::hidden() };
    progress.set_position(summary.games as u64);
    progress.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta}]").expect("the template is valid"),
    );
    let collector = Collector {
        config,
        pending,
        next: 0,
        stop: decided,
        summary,
        records: earlier,
        error: None,
        last_snapshot: Instant::now(),
        progress,
    };
    let shared = Mutex::new(collector);
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    thread::scope(|scope| {
        for worker in 0..config.concurrency.clamp(1, total as usize) {
            let (players, names, lock) = (&players, &names, &lock);
            scope.spawn(move || {
                let mut seats: [Option<Box<dyn Player>>; 2] = [None, None];
                loop {
                    // The lock is released before the game: a `while let` would hold it.
                    let next = lock().next_game();
                    let Some(index) = next else { break };
                    let finished = play_indexed_game(config, players, names, &mut seats, worker, index);
                    lock().collect(finished);
                }
            });
        }
    });
    let Collector { mut summary, mut records, error, progress, .. } = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
    progress.finish_and_clear();
    summary.stopped_early = summary.games < total;
    save(config.out.as_deref(), &summary, &mut records)?;
    match error {
        Some(e) => Err(e),
        None => Ok(MatchReport { summary, records }),
    }
}

/// What the worker threads share: the games handed out and everything collected so far. A
/// worker takes its next game only after its last one was counted, so an SPRT decision stops
/// every game not yet started.
struct Collector<'a> {
    config: &'a MatchConfig,
    /// Indices of the games to play, in order; `next` is the first not yet handed out.
    pending: Vec<u32>,
    next: usize,
    stop: bool,
    summary: MatchSummary,
    records: Vec<MatchGame>,
    error: Option<ArenaError>,
    last_snapshot: Instant,
    progress: ProgressBar,
}

impl Collector<'_> {
    /// The index of the next game to play, or `None` when the match is over.
    fn next_game(&mut self) -> Option<u32> {
        let index = *self.pending.get(self.next).filter(|_| !self.stop)?;
        self.next += 1;
        Some(index)
    }

    /// Counts a finished game (writing its CSA file), or keeps a worker's error and stops.
    fn collect(&mut self, finished: Result<Finished, ArenaError>) {
        let finished = match finished {
            Ok(finished) => finished,
            Err(e) => return self.fail(e),
        };
        if let (Some(dir), Some(csa)) = (&self.config.out, &finished.csa) {
            let path = records::csa_path(dir, finished.record.game);
            let written =
                path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| crate::files::write_atomic(&path, csa.as_bytes()));
            if let Err(error) = written {
                self.fail(ArenaError::Io { path, error });
            }
        }
        tally(&mut self.summary, &finished.record, self.config.sprt);
        self.records.push(finished.record);
        if self.summary.sprt.as_ref().is_some_and(|s| s.status.decision != SprtDecision::Continue) {
            self.stop = true;
        }
        self.progress.set_position(self.summary.games as u64);
        self.progress.set_message(progress_message(&self.summary));
        if self.config.out.is_some() && self.last_snapshot.elapsed() >= SNAPSHOT_INTERVAL {
            self.last_snapshot = Instant::now();
            if let Err(e) = save(self.config.out.as_deref(), &self.summary, &mut self.records) {
                self.fail(e);
            }
        }
    }

    /// Keeps the first error and stops handing out games.
    fn fail(&mut self, error: ArenaError) {
        self.stop = true;
        self.error.get_or_insert(error);
    }
}

/// The games recorded in `dir` by an earlier run of this match, checked against its settings
/// (`summary`, before any game) and openings; none when `dir` holds no results.
fn earlier_games(config: &MatchConfig, dir: &Path, summary: &MatchSummary) -> Result<Vec<MatchGame>, ArenaError> {
    let Some((recorded, games)) = records::read_match_files(dir)? else { return Ok(Vec::new()) };
    let mismatch = |reason: String| ArenaError::Resume { path: dir.to_path_buf(), reason };
    let names = summary.players.clone().map(|p| p.name);
    let expected = RecordedSettings::of(summary);
    if recorded != expected {
        return Err(mismatch(format!("its results.json was played with other settings ({recorded:?}; this match: {expected:?})")));
    }
    let variant = config.variant.variant();
    let mut seen = vec![false; summary.planned_games as usize];
    for record in &games {
        let index = record.game.wrapping_sub(1);
        let wrong = |what: &str| mismatch(format!("game {} in games.jsonl has {what}", record.game));
        if index >= summary.planned_games || std::mem::replace(&mut seen[index as usize], true) {
            return Err(wrong("a number out of range or seen before"));
        }
        let black_player = (index % 2) as usize;
        if (record.pair, record.black_player) != (index / 2 + 1, black_player)
            || (record.black.as_str(), record.white.as_str()) != (names[black_player].as_str(), names[1 - black_player].as_str())
        {
            return Err(wrong("another pairing or other players"));
        }
        let opening = config.openings.for_pair(config.variant, config.rules, config.seed, index / 2);
        let opening_moves = opening.moves.iter().map(|&m| coord::write(variant, m)).collect::<Vec<_>>();
        let recorded_moves = record.moves.split_whitespace().take(record.opening_plies).collect::<Vec<_>>();
        if record.start != opening.start.to_string() || recorded_moves != opening_moves {
            return Err(wrong("another opening"));
        }
    }
    Ok(games)
}

/// Writes the results files when there is an output folder (records sorted by game first).
fn save(out: Option<&Path>, summary: &MatchSummary, records: &mut [MatchGame]) -> Result<(), ArenaError> {
    records.sort_by_key(|r| r.game);
    let Some(dir) = out else { return Ok(()) };
    records::write_match_files(dir, summary, records).map_err(|error| ArenaError::Io { path: dir.to_path_buf(), error })
}

/// Counts a finished game into the summary.
fn tally(summary: &mut MatchSummary, record: &MatchGame, sprt: Option<Sprt>) {
    let winner = record.winner();
    for (player, entry) in summary.players.iter_mut().enumerate() {
        let color = if player == record.black_player { Color::Black } else { Color::White };
        let won = winner.map(|w| w == color);
        entry.total.add(won);
        if !record.adjudicated {
            entry.by_play.add(won);
        }
        match color {
            Color::Black => entry.as_black.add(won),
            Color::White => entry.as_white.add(won),
        }
        entry.points = entry.total.points();
        let ahead = record.lead_of(color).is_some_and(|lead| lead >= records::AHEAD_AT_PLY_CAP);
        entry.ahead_at_ply_cap += (record.reached_ply_cap() && ahead) as u32;
    }
    summary.games += 1;
    summary.adjudicated += record.adjudicated as u32;
    summary.at_ply_cap += record.reached_ply_cap() as u32;
    let first: Wdl = summary.players[0].total;
    summary.elo = EloEstimate::of(first);
    summary.sprt = sprt.map(|test| SprtReport { test, status: test.status(first) });
}

/// The progress bar's message: the first player's score and Elo so far.
fn progress_message(summary: &MatchSummary) -> String {
    let first = &summary.players[0];
    let mut message = format!("{} {} ({}/{})", first.name, first.total, first.points, first.total.games());
    if let Some(elo) = &summary.elo {
        message.push_str(&format!("  Elo {:+.0} +/- {:.0}", elo.elo, elo.margin));
    }
    if let Some(sprt) = &summary.sprt {
        message.push_str(&format!("  LLR {:.2} [{:.2}, {:.2}]", sprt.status.llr, sprt.status.lower_bound, sprt.status.upper_bound));
    }
    message
}

/// Mixes the match seed with numbers into a player seed (SplitMix64 finaliser).
fn mix_seed(seed: u64, parts: &[u64]) -> u64 {
    parts.iter().fold(seed, |acc, &p| splitmix::mix(acc ^ p.wrapping_add(splitmix::GAMMA).wrapping_mul(0xBF58_476D_1CE4_E5B9)))
}

/// Plays game `index` of the match with the worker's players (making those it lacks).
fn play_indexed_game(
    config: &MatchConfig,
    factories: &[Arc<dyn PlayerFactory>; 2],
    names: &[String; 2],
    seats: &mut [Option<Box<dyn Player>>; 2],
    worker: usize,
    index: u32,
) -> Result<Finished, ArenaError> {
    let pair = index / 2;
    let black_player = (index % 2) as usize;
    let player_of = |color: Color| if color == Color::Black { black_player } else { 1 - black_player };
    let make = |p: usize| {
        let seed = mix_seed(config.seed, &[worker as u64, index as u64, p as u64]);
        factories[p].new_player(seed).map_err(|error| ArenaError::Player { name: names[p].clone(), error })
    };
    let opening = config.openings.for_pair(config.variant, config.rules, config.seed, pair);
    let mut game = opening.game(config.rules);
    let [first, second] = &mut *seats;
    let first = match first.take() {
        Some(player) => first.insert(player),
        None => first.insert(make(0)?),
    };
    let second = match second.take() {
        Some(player) => second.insert(player),
        None => second.insert(make(1)?),
    };
    let (black, white) = if black_player == 0 { (first, second) } else { (second, first) };
    let ending = play_game(&mut game, [black.as_mut(), white.as_mut()], config.budget)
        .map_err(|(color, error)| ArenaError::Player { name: names[player_of(color)].clone(), error })?;
    if let MatchEnding::Failure { loser, kind, .. } = &ending {
        if *kind != FailureKind::Resigned {
            // A failed player (timed out, crashed, out of step) is made afresh for the next game.
            seats[player_of(*loser)] = None;
        }
    }
    let (black, white) = (names[black_player].clone(), names[1 - black_player].clone());
    let csa = ending.csa_text(game.start(), game.moves(), [&black, &white]);
    let variant = config.variant.variant();
    let record = MatchGame {
        game: index + 1,
        pair: pair + 1,
        black_player,
        black,
        white,
        start: game.start().to_string(),
        opening_plies: opening.moves.len(),
        moves: game.moves().iter().map(|&m| coord::write(variant, m)).collect::<Vec<_>>().join(" "),
        result: ending.result_text().to_string(),
        reason: ending.reason_text(),
        adjudicated: matches!(ending, MatchEnding::Failure { .. }),
        black_lead: Some(records::final_black_lead(&game)),
    };
    Ok(Finished { record, csa })
}

/// Plays `game` to its end between `players` (Black first). A player's failure loses the game
/// for it, except a fatal one ([`PlayerError::is_fatal`]), which is returned with its colour.
pub fn play_game(game: &mut Game, mut players: [&mut dyn Player; 2], budget: Budget) -> Result<MatchEnding, (Color, PlayerError)> {
    let fail = |loser: Color, error: PlayerError| -> Result<MatchEnding, (Color, PlayerError)> {
        if error.is_fatal() {
            return Err((loser, error));
        }
        let kind = match error {
            PlayerError::Resigned => FailureKind::Resigned,
            PlayerError::Timeout { .. } => FailureKind::TimeUp,
            PlayerError::IllegalMove { .. } => FailureKind::IllegalMove,
            _ => FailureKind::Other,
        };
        Ok(MatchEnding::Failure { loser, kind, error: error.to_string() })
    };
    let mut ending = None;
    for color in Color::ALL {
        if let Err(e) = players[color.index()].new_game(game, color) {
            ending = Some(fail(color, e)?);
            break;
        }
    }
    let ending = match ending {
        Some(ending) => ending,
        None => loop {
            if let Some(outcome) = game.outcome() {
                break MatchEnding::Rules { winner: outcome.winner, reason: outcome.reason };
            }
            let side = game.position().side_to_move();
            match players[side.index()].choose(game, budget) {
                Ok(mv) => {
                    if game.play(mv).is_err() {
                        let text = coord::write(game.position().variant(), mv);
                        break MatchEnding::Failure {
                            loser: side,
                            kind: FailureKind::IllegalMove,
                            error: format!("illegal move '{text}'"),
                        };
                    }
                }
                Err(PlayerError::Resigned) => break MatchEnding::resignation(side, game.position()),
                Err(e) => break fail(side, e)?,
            }
        },
    };
    for player in players.iter_mut() {
        player.game_over(ending.winner());
    }
    Ok(ending)
}

//! The trainer's sliding window over the replay files of one folder.
//!
//! [`ReplayWindow::refresh`] loads the replay files it has not seen yet, newest names first,
//! checking every game through the rules, and keeps the training positions (the plies that got
//! a full search; fast-search plies are only played through) of the newest games: when the
//! window holds more than [`WindowConfig::max_positions`] it drops whole games, oldest loaded
//! first. [`ReplayWindow::sample`] draws uniformly from the window, at most
//! [`WindowConfig::max_reuse`] times as many samples in total as training positions ever
//! entered it; past that the trainer waits for new games.
//!
//! Beyond the policy and the game's result, a sample carries the auxiliary targets of
//! [`TargetConfig`]: the opponent's reply policy (the next ply's search, when it had a full
//! one), the material balance a few plies ahead and at the game's end, a short-term value (the
//! search's root values of the next plies, exponentially weighted), and the search's root value
//! to mix into the WDL target. The window keeps for that, per game, the material balance of
//! every position and the root value of every ply (8 bytes a ply).
//!
//! Memory: a position is kept as a full [`Position`] (a fixed-size mailbox of
//! `size_of::<Position>()` = 568 bytes for every variant), with its [`GameContext`], its root
//! value and its policy target, about 650 bytes plus 12 bytes per policy entry in all. A window
//! of 100,000 shogi positions with 30-entry policies takes about 100 MB. Keeping whole
//! positions makes sampling a copy, with no parsing and no failure path; a packed form (an
//! SFEN of about 80 bytes for shogi) would save roughly 500 bytes per position at the price of
//! reading it back on every sample. [`ReplayWindow::approx_bytes`] reports the actual figure.
//!
//! Restarts: the trainer saves [`ReplayWindow::counters`] in its checkpoint and starts again
//! with [`ReplayWindow::resume`]. The first refresh then refills the window from the newest
//! files; only files named after [`WindowCounters::newest_file`] add to the positions counted
//! for the reuse cap, as the others were counted before the restart.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::rules::material::Material;
use crate::rules::GameContext;
use crate::rules::{Color, Move, Position, VariantId};

use super::format::{list_files, read_file_with, PlyTargets, ReplayError};
use super::record::{GameResult, ReplayEnding};

/// The window's settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct WindowConfig {
    /// The most training positions the window holds.
    pub max_positions: usize,
    /// The most samples drawn per training position that entered the window, on average.
    pub max_reuse: f64,
    /// How the samples' targets are made.
    pub targets: TargetConfig,
}

/// How a sample's targets beyond the policy are made from its game.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TargetConfig {
    /// The material target looks this many plies ahead (at most to the game's final position).
    pub material_horizon: usize,
    /// The short-term value weighs the root value of the ply `k` plies ahead in proportion to
    /// `(1 - 1 / short_term_horizon)^k`.
    pub short_term_horizon: usize,
    /// The share of the search's root value in the WDL target, 0 to 1; the game's result has
    /// the rest.
    pub value_root_mix: f32,
    /// A game ended by its ply cap is scored by the material balance of its final position
    /// instead of as a plain draw: `tanh(balance / ply_cap_material_scale)` for Black, the
    /// balance in units of the strongest piece. 0 (the default) keeps the draw.
    pub ply_cap_material_scale: f32,
}

impl Default for TargetConfig {
    fn default() -> TargetConfig {
        TargetConfig { material_horizon: 6, short_term_horizon: 6, value_root_mix: 0.0, ply_cap_material_scale: 0.0 }
    }
}

/// What the trainer saves to resume the window after a restart.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowCounters {
    /// Samples drawn in total.
    pub samples_drawn: u64,
    /// Training positions that ever entered the window.
    pub positions_added: u64,
    /// The newest (by name) replay file whose positions are in `positions_added`.
    pub newest_file: Option<String>,
}

/// Where a sample comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleSource {
    /// The replay file's name.
    pub file: Arc<str>,
    /// The game's number in the file, from 1.
    pub game: usize,
}

/// One training example.
#[derive(Clone, Debug)]
pub struct TrainingSample {
    /// The position before the move.
    pub position: Position,
    /// What the encoder needs of the game's history at this position.
    pub context: GameContext,
    /// The search's policy target over legal moves, weights summing to 1.
    pub policy: Vec<(Move, f32)>,
    /// The value target for the side to move (win, draw, loss, summing to 1): the game's
    /// result (one-hot, or for a game cut off by the ply cap and scored by material, the draw
    /// moved toward a win or a loss, [`TargetConfig::ply_cap_material_scale`]), mixed with the
    /// search's root value by [`TargetConfig::value_root_mix`].
    pub wdl: [f32; 3],
    /// Plies from this position to the end of the game; none in a game cut off by the ply cap,
    /// whose length is not known.
    pub moves_left: Option<f32>,
    /// The policy target of the opponent's reply: the next ply's, when it got a full search.
    pub opponent_policy: Option<OpponentPolicy>,
    /// The material balance for the side to move, in units of the strongest piece
    /// ([`Material::strongest`]): [`TargetConfig::material_horizon`] plies ahead (at most at
    /// the game's final position), and at the game's final position.
    pub material: [f32; 2],
    /// The short-term value for the side to move, -1 to 1: the average of the search's root
    /// values (win minus loss) of this ply and the next ones, weighted as
    /// [`TargetConfig::short_term_horizon`] says, with the game's result for the plies past its end.
    pub short_term_value: f32,
    /// The game it comes from.
    pub source: SampleSource,
}

/// The policy target of the ply after a sample's, played by the opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct OpponentPolicy {
    /// The side to move at the next ply (whose policy map orientation the moves take).
    pub side: Color,
    /// The next ply's policy target, weights summing to 1.
    pub policy: Vec<(Move, f32)>,
}

/// Why the window was not created or refused to draw samples.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WindowError {
    #[error("bad window setting: {0}")]
    Config(String),
    #[error("the window holds no positions yet")]
    Empty,
    #[error("drawing {requested} samples would pass the reuse cap ({remaining} left until new games arrive)")]
    ReuseCap { requested: usize, remaining: u64 },
}

/// What one [`ReplayWindow::refresh`] did.
#[derive(Debug, Default)]
pub struct Refresh {
    /// Files read into the window.
    pub files_loaded: usize,
    /// New files passed over because newer files filled the window.
    pub files_skipped: usize,
    /// Training positions that entered the window.
    pub positions_loaded: usize,
    /// Games, and their plies, of the files loaded that were not counted before a restart
    /// (those that add to the reuse cap's positions).
    pub new_games: usize,
    pub new_plies: usize,
    /// Of those games, the ones drawn at the ply cap, and the ones adjudicated.
    pub new_capped: usize,
    pub new_adjudicated: usize,
    /// Training positions dropped, oldest games first, to keep the window's size.
    pub positions_dropped: usize,
    /// Files refused as invalid; they are not tried again.
    pub rejected: Vec<ReplayError>,
}

/// A game with positions in the window.
struct WindowGame {
    source: SampleSource,
    result: GameResult,
    /// Plies in the whole game.
    length: usize,
    /// Its training positions in the window.
    positions: usize,
    /// The material balance for Black of every position, from the start to the final one
    /// (`length + 1` values).
    material: Box<[i32]>,
    /// The search's root value (win minus loss) for Black at every ply (`length` values).
    root_value: Box<[f32]>,
}

impl WindowGame {
    /// The game's result for Black, -1 to 1: 1 or -1 for a win or a loss, 0 for a draw, and
    /// for a game cut off by the ply cap when `ply_cap_material_scale` is above 0, the material
    /// balance at its end (in units of `strongest`) over that scale, through a `tanh`.
    fn outcome_for_black(&self, ply_cap_material_scale: f32, strongest: f32) -> f32 {
        match self.result.winner {
            Some(winner) => sign(winner),
            None if self.result.at_ply_cap() && ply_cap_material_scale > 0.0 => {
                (self.material[self.length] as f32 / strongest / ply_cap_material_scale).tanh()
            }
            None => 0.0,
        }
    }
}

/// A training position as the window keeps it.
struct Entry {
    position: Position,
    context: GameContext,
    policy: Box<[(Move, f32)]>,
    /// The search's root value: win, draw, loss for the side to move.
    root_wdl: [f32; 3],
}

/// What the window gathers of one game while its file is read.
#[derive(Default)]
struct GameTrace {
    material: Vec<i32>,
    root_value: Vec<f32>,
    entries: Vec<Entry>,
}

/// `1` for Black, `-1` for White: turns a value for Black into one for `color`, and back.
fn sign(color: Color) -> f32 {
    match color {
        Color::Black => 1.0,
        Color::White => -1.0,
    }
}

/// A file read and ready to enter the window: its games, each with its training positions.
struct LoadedFile {
    name: String,
    games: Vec<(WindowGame, Vec<Entry>)>,
}

impl LoadedFile {
    fn positions(&self) -> usize {
        self.games.iter().map(|(_, entries)| entries.len()).sum()
    }
}

/// The newest training positions of the replay files in one folder.
pub struct ReplayWindow {
    dir: PathBuf,
    variant: VariantId,
    config: WindowConfig,
    /// Files loaded, skipped or rejected, by name.
    seen: HashSet<String>,
    /// Files up to this name were counted before a restart.
    counted_before: Option<String>,
    games: VecDeque<WindowGame>,
    /// Sequence number of the front game; games are numbered in the order they enter.
    first_game: u64,
    /// Training positions, oldest first, each with its game's sequence number.
    entries: VecDeque<(u64, Entry)>,
    counters: WindowCounters,
}

impl ReplayWindow {
    /// An empty window over the replay files of `dir`, for games of `variant`.
    pub fn new(dir: &Path, variant: VariantId, config: WindowConfig) -> Result<ReplayWindow, WindowError> {
        ReplayWindow::resume(dir, variant, config, WindowCounters::default())
    }

    /// An empty window that continues from the counters a trainer saved before a restart.
    pub fn resume(dir: &Path, variant: VariantId, config: WindowConfig, counters: WindowCounters) -> Result<ReplayWindow, WindowError> {
        if config.max_positions == 0 {
            return Err(WindowError::Config("max_positions must be at least 1".to_string()));
        }
        if !(config.max_reuse.is_finite() && config.max_reuse > 0.0) {
            return Err(WindowError::Config(format!("max_reuse must be a positive number, not {}", config.max_reuse)));
        }
        let targets = &config.targets;
        if targets.material_horizon == 0 || targets.short_term_horizon == 0 {
            return Err(WindowError::Config("the material and short-term horizons must be at least 1 ply".to_string()));
        }
        if !(0.0..=1.0).contains(&targets.value_root_mix) {
            return Err(WindowError::Config(format!("value_root_mix must be between 0 and 1, not {}", targets.value_root_mix)));
        }
        if !(0.0..=100.0).contains(&targets.ply_cap_material_scale) {
            return Err(WindowError::Config(format!(
                "ply_cap_material_scale must be between 0 (off) and 100, not {}",
                targets.ply_cap_material_scale
            )));
        }
        Ok(ReplayWindow {
            dir: dir.to_path_buf(),
            variant,
            config,
            seen: HashSet::new(),
            counted_before: counters.newest_file.clone(),
            games: VecDeque::new(),
            first_game: 0,
            entries: VecDeque::new(),
            counters,
        })
    }

    /// Loads the replay files not seen before, newest first, until the window is full; drops
    /// the oldest games beyond [`WindowConfig::max_positions`]. Invalid files are reported in
    /// [`Refresh::rejected`] and skipped; only an unreadable folder is an error.
    pub fn refresh(&mut self) -> Result<Refresh, ReplayError> {
        let files = list_files(&self.dir)?;
        let names: Vec<(PathBuf, String)> =
            files.into_iter().filter_map(|path| Some((path.clone(), path.file_name()?.to_str()?.to_string()))).collect();
        // Forget files that are gone, so that `seen` does not grow without bound.
        let present: HashSet<&str> = names.iter().map(|(_, name)| name.as_str()).collect();
        self.seen.retain(|name| present.contains(name.as_str()));

        let mut report = Refresh::default();
        let mut loaded = Vec::new();
        let mut staged = 0;
        for (path, name) in names.iter().rev() {
            if !self.seen.insert(name.clone()) {
                continue;
            }
            if staged >= self.config.max_positions {
                report.files_skipped += 1;
                continue;
            }
            match self.load(path, name) {
                Ok(file) => {
                    staged += file.positions();
                    loaded.push(file);
                }
                Err(error) => report.rejected.push(error),
            }
        }
        report.files_loaded = loaded.len();
        for file in loaded.into_iter().rev() {
            if self.counts(&file.name) {
                report.new_games += file.games.len();
                report.new_plies += file.games.iter().map(|(game, _)| game.length).sum::<usize>();
                report.new_capped += file.games.iter().filter(|(game, _)| game.result.at_ply_cap()).count();
                report.new_adjudicated += file.games.iter().filter(|(game, _)| game.result.reason == ReplayEnding::Adjudication).count();
            }
            report.positions_loaded += self.append(file);
        }
        report.positions_dropped = self.trim();
        Ok(report)
    }

    /// Reads one file and keeps its training positions, with the material balance of every
    /// position and the root value of every ply of their games.
    fn load(&self, path: &Path, name: &str) -> Result<LoadedFile, ReplayError> {
        let mut per_game: Vec<GameTrace> = Vec::new();
        let file = read_file_with(path, |game_index, game, targets| {
            per_game.resize_with(per_game.len().max(game_index + 1), GameTrace::default);
            let trace = &mut per_game[game_index];
            let position = game.position();
            trace.material.push(Material::of(position.variant().id).balance(position, Color::Black));
            let Some(PlyTargets { policy, root_wdl }) = targets else { return };
            trace.root_value.push(sign(position.side_to_move()) * (root_wdl[0] - root_wdl[2]));
            if !policy.is_empty() {
                trace.entries.push(Entry { position: position.clone(), context: GameContext::of(game), policy: policy.into(), root_wdl });
            }
        })?;
        if file.variant != self.variant {
            return Err(ReplayError::OtherVariant { path: path.to_path_buf(), expected: self.variant.name(), found: file.header.variant });
        }
        per_game.resize_with(file.games.len(), GameTrace::default);
        let file_name: Arc<str> = name.into();
        let games = file
            .games
            .iter()
            .zip(per_game)
            .enumerate()
            .filter(|(_, (_, trace))| !trace.entries.is_empty())
            .map(|(index, (record, trace))| {
                let game = WindowGame {
                    source: SampleSource { file: file_name.clone(), game: index + 1 },
                    result: record.result,
                    length: record.moves.len(),
                    positions: trace.entries.len(),
                    material: trace.material.into(),
                    root_value: trace.root_value.into(),
                };
                (game, trace.entries)
            })
            .collect();
        Ok(LoadedFile { name: name.to_string(), games })
    }

    /// Whether the file `name` was not counted before a restart.
    fn counts(&self, name: &str) -> bool {
        self.counted_before.as_deref().is_none_or(|before| name > before)
    }

    /// Puts a loaded file's games at the new end of the window; returns its position count.
    fn append(&mut self, file: LoadedFile) -> usize {
        let positions = file.positions();
        if self.counts(&file.name) {
            self.counters.positions_added += positions as u64;
        }
        if self.counters.newest_file.as_deref().is_none_or(|newest| file.name.as_str() > newest) {
            self.counters.newest_file = Some(file.name);
        }
        for (game, entries) in file.games {
            let sequence = self.first_game + self.games.len() as u64;
            self.games.push_back(game);
            self.entries.extend(entries.into_iter().map(|entry| (sequence, entry)));
        }
        positions
    }

    /// Drops the oldest games while the window is over its size; returns the positions dropped.
    fn trim(&mut self) -> usize {
        let mut dropped = 0;
        while self.entries.len() > self.config.max_positions {
            let Some(game) = self.games.pop_front() else { break };
            self.entries.drain(..game.positions);
            self.first_game += 1;
            dropped += game.positions;
        }
        dropped
    }

    /// Training positions in the window.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the window holds no position.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Games with positions in the window.
    pub fn games(&self) -> usize {
        self.games.len()
    }

    /// The counters to save for [`ReplayWindow::resume`].
    pub fn counters(&self) -> WindowCounters {
        self.counters.clone()
    }

    /// Samples drawn so far (restarts included).
    pub fn samples_drawn(&self) -> u64 {
        self.counters.samples_drawn
    }

    /// The most samples the reuse cap allows in total, given the positions added so far.
    pub fn samples_allowed(&self) -> u64 {
        (self.config.max_reuse * self.counters.positions_added as f64) as u64
    }

    /// Samples that may still be drawn before new games must arrive.
    pub fn samples_remaining(&self) -> u64 {
        self.samples_allowed().saturating_sub(self.counters.samples_drawn)
    }

    /// Approximate memory taken by the window's positions, in bytes.
    pub fn approx_bytes(&self) -> usize {
        let policies: usize = self.entries.iter().map(|(_, entry)| entry.policy.len()).sum();
        let plies: usize = self.games.iter().map(|game| game.material.len() + game.root_value.len()).sum();
        self.entries.len() * size_of::<(u64, Entry)>()
            + policies * size_of::<(Move, f32)>()
            + self.games.len() * size_of::<WindowGame>()
            + plies * size_of::<f32>()
    }

    /// Draws `n` samples uniformly (with replacement) from the window. Refused when the window
    /// is empty or when the draw would pass the reuse cap.
    pub fn sample(&mut self, rng: &mut impl Rng, n: usize) -> Result<Vec<TrainingSample>, WindowError> {
        if self.entries.is_empty() {
            return Err(WindowError::Empty);
        }
        let remaining = self.samples_remaining();
        if n as u64 > remaining {
            return Err(WindowError::ReuseCap { requested: n, remaining });
        }
        let samples = (0..n).map(|_| self.sample_at(rng.random_range(0..self.entries.len()))).collect();
        self.counters.samples_drawn += n as u64;
        Ok(samples)
    }

    /// The training sample of the window's `index`-th position.
    fn sample_at(&self, index: usize) -> TrainingSample {
        let (sequence, entry) = &self.entries[index];
        let game = &self.games[(sequence - self.first_game) as usize];
        let targets = &self.config.targets;
        let mover = entry.position.side_to_move();
        let ply = entry.context.ply;
        let strongest = Material::of(self.variant).strongest() as f32;
        let outcome = game.outcome_for_black(targets.ply_cap_material_scale, strongest);
        let value = sign(mover) * outcome;
        let result = [value.max(0.0), 1.0 - value.abs(), (-value).max(0.0)];
        let mix = targets.value_root_mix;
        let wdl = std::array::from_fn(|k| (1.0 - mix) * result[k] + mix * entry.root_wdl[k]);
        // The entries of a game are in the window in ply order: the next one is the reply's
        // when that ply got a full search.
        let opponent_policy = self
            .entries
            .get(index + 1)
            .filter(|(next_sequence, next)| next_sequence == sequence && next.context.ply == ply + 1)
            .map(|(_, next)| OpponentPolicy { side: next.position.side_to_move(), policy: next.policy.to_vec() });
        let ahead = game.material[(ply + targets.material_horizon).min(game.length)];
        let material = [ahead, game.material[game.length]].map(|balance| sign(mover) * balance as f32 / strongest);
        let short_term_value = sign(mover) * discounted_average(&game.root_value[ply..], outcome, targets.short_term_horizon);
        TrainingSample {
            position: entry.position.clone(),
            context: entry.context,
            policy: entry.policy.to_vec(),
            wdl,
            moves_left: (!game.result.at_ply_cap()).then(|| (game.length - ply) as f32),
            opponent_policy,
            material,
            short_term_value,
            source: game.source.clone(),
        }
    }
}

/// The average of `values` (one a ply, from the current one on) followed by `tail` for ever,
/// the value `k` plies ahead weighted in proportion to `(1 - 1 / horizon)^k`.
fn discounted_average(values: &[f32], tail: f32, horizon: usize) -> f32 {
    let decay = 1.0 - 1.0 / horizon as f32;
    // The weight not yet given out: the ply ahead gets `(1 - decay)` of it.
    let mut remaining = 1.0;
    let mut sum = 0.0;
    for &value in values {
        sum += remaining * (1.0 - decay) * value;
        remaining *= decay;
    }
    sum + remaining * tail
}

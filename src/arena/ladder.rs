//! Ladders and gating.
//!
//! A ladder plays every checkpoint of a training run (`step-*.json` in the run folder, in step
//! order) against a fixed anchor and/or against the checkpoint before it, and writes the Elo
//! over training steps as `ladder.csv` and `ladder.png`. Against the anchor a checkpoint's
//! rating is its Elo difference to the anchor; against predecessors the ratings are chained:
//! the first checkpoint starts at 0 (or at its anchor rating when there is an anchor) and each
//! next one adds its Elo difference to the one before. For the table and chart a perfect (or
//! nil) score counts as half a game less (or more), so that ratings stay finite.
//!
//! [`gate`] decides whether a candidate network replaces the incumbent during training: it plays
//! a match and asks for at least a given score. Gating is off by default ([`GateConfig`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::player::{Budget, FactoryResult, PlayerFactory, PlayerSpec};
use super::runner::{run_match, MatchConfig, MatchReport};
use super::stats::{elo_from_score, EloEstimate, Wdl};
use super::ArenaError;
use crate::files::write_atomic;
use crate::invalid_field::InvalidField;
use crate::mcts::SearchConfig;
use crate::plot::LineChart;

/// The checkpoints of a run folder: `(step, path)` of every `step-<N>.json`, by step.
pub fn checkpoints(run: &Path) -> Result<Vec<(u64, PathBuf)>, ArenaError> {
    let found = crate::nn::checkpoint::list(run).map_err(|error| ArenaError::Io { path: run.to_path_buf(), error })?;
    if found.is_empty() {
        return Err(ArenaError::NoCheckpoints(run.to_path_buf()));
    }
    Ok(found)
}

/// A ladder run.
#[derive(Clone, Debug)]
pub struct LadderConfig {
    /// The run folder.
    pub run: PathBuf,
    /// The fixed opponent, if any.
    pub anchor: Option<PlayerSpec>,
    /// Whether each checkpoint also plays the one before it.
    pub predecessor: bool,
    /// Games, concurrency, budget, openings, seed of every match (its `out` is ignored: each
    /// match writes into a folder of its own under `out`).
    pub matches: MatchConfig,
    /// Where `ladder.csv`, `ladder.png` and the matches go.
    pub out: PathBuf,
}

/// One match of a ladder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LadderRow {
    pub step: u64,
    pub checkpoint: PathBuf,
    pub opponent: String,
    /// Whether the opponent is the anchor (else the checkpoint before).
    pub vs_anchor: bool,
    /// The checkpoint's results.
    pub wdl: Wdl,
    /// Elo difference to the opponent, finite (see the module notes).
    pub elo: f64,
    /// The 95% interval, as computed (possibly infinite).
    pub lower: f64,
    pub upper: f64,
    /// The rating on the ladder's scale: `elo` against the anchor, chained against predecessors.
    pub rating: f64,
}

/// The Elo difference for `wdl` with a perfect or nil score moved half a game inwards.
pub fn finite_elo(wdl: Wdl) -> f64 {
    let n = wdl.games() as f64;
    match wdl.score() {
        Some(score) => elo_from_score(score.clamp(0.5 / n, 1.0 - 0.5 / n)),
        None => 0.0,
    }
}

/// Plays the ladder of `config.run`. `make` turns a spec into a player factory (normally
/// [`super::player::factory`]; tests give others).
pub fn run_ladder(config: &LadderConfig, make: &dyn Fn(&PlayerSpec) -> FactoryResult) -> Result<Vec<LadderRow>, ArenaError> {
    if config.anchor.is_none() && !config.predecessor {
        return Err(ArenaError::NoLadderOpponent);
    }
    let steps = checkpoints(&config.run)?;
    let build = |spec: &PlayerSpec| make(spec).map_err(|error| ArenaError::Player { name: spec.to_string(), error });
    let anchor = config.anchor.as_ref().map(&build).transpose()?;
    let mut rows = Vec::new();
    let mut previous: Option<(Arc<dyn PlayerFactory>, f64)> = None;
    for (i, (step, path)) in steps.iter().enumerate() {
        let candidate = build(&PlayerSpec::Checkpoint { path: path.clone(), search: SearchConfig::for_play() })?;
        let mut anchor_rating = None;
        if let Some(anchor) = &anchor {
            let report = ladder_match(config, &format!("step-{step}-vs-anchor"), i, [candidate.clone(), anchor.clone()])?;
            let row = row(*step, path, anchor.name(), true, &report, |elo| elo);
            anchor_rating = Some(row.rating);
            rows.push(row);
        }
        let rating = match previous.take() {
            Some((before, before_rating)) if config.predecessor => {
                let report = ladder_match(config, &format!("step-{step}-vs-previous"), i, [candidate.clone(), before.clone()])?;
                let row = row(*step, path, before.name(), false, &report, |elo| before_rating + elo);
                let rating = row.rating;
                rows.push(row);
                rating
            }
            _ => anchor_rating.unwrap_or(0.0),
        };
        previous = Some((candidate, rating));
    }
    write_ladder(&config.out, &rows)?;
    Ok(rows)
}

/// Plays one match of a ladder into its own folder.
fn ladder_match(config: &LadderConfig, name: &str, index: usize, players: [Arc<dyn PlayerFactory>; 2]) -> Result<MatchReport, ArenaError> {
    let mut matches = config.matches.clone();
    matches.out = Some(config.out.join(name));
    matches.seed = config.matches.seed.wrapping_add(index as u64);
    run_match(&matches, players)
}

/// The ladder row of a checkpoint's match; `rate` turns its Elo into a ladder rating.
fn row(step: u64, path: &Path, opponent: &str, vs_anchor: bool, report: &MatchReport, rate: impl Fn(f64) -> f64) -> LadderRow {
    let wdl = report.summary.players[0].total;
    let elo = finite_elo(wdl);
    let estimate = EloEstimate::of(wdl);
    LadderRow {
        step,
        checkpoint: path.to_path_buf(),
        opponent: opponent.to_string(),
        vs_anchor,
        wdl,
        elo,
        lower: estimate.map_or(f64::NAN, |e| e.lower),
        upper: estimate.map_or(f64::NAN, |e| e.upper),
        rating: rate(elo),
    }
}

/// Writes `ladder.csv` and `ladder.png` (one series per opponent) into `out`.
pub fn write_ladder(out: &Path, rows: &[LadderRow]) -> Result<(), ArenaError> {
    std::fs::create_dir_all(out).map_err(|error| ArenaError::Io { path: out.to_path_buf(), error })?;
    let mut csv = String::from("step,checkpoint,opponent,wins,draws,losses,elo,lower,upper,rating\n");
    for r in rows {
        csv.push_str(&format!(
            "{},{},{},{},{},{},{:.1},{:.1},{:.1},{:.1}\n",
            r.step,
            csv_field(&r.checkpoint.display().to_string()),
            csv_field(&r.opponent),
            r.wdl.wins,
            r.wdl.draws,
            r.wdl.losses,
            r.elo,
            r.lower,
            r.upper,
            r.rating
        ));
    }
    let path = out.join("ladder.csv");
    write_atomic(&path, csv.as_bytes()).map_err(|error| ArenaError::Io { path, error })?;
    let mut chart = LineChart::new("Elo over training", "training step", "Elo");
    let anchor = rows.iter().find(|r| r.vs_anchor).map(|r| format!("vs {}", r.opponent));
    for (vs_anchor, name) in [(true, anchor), (false, Some("chained vs previous checkpoint".to_string()))] {
        let points: Vec<(f64, f64)> = rows.iter().filter(|r| r.vs_anchor == vs_anchor).map(|r| (r.step as f64, r.rating)).collect();
        if let (Some(name), false) = (name, points.is_empty()) {
            chart = chart.series(name, points);
        }
    }
    chart.write_png(&out.join("ladder.png"))?;
    Ok(())
}

/// A CSV field, quoted when it holds a comma, quote or line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Whether and how candidates are gated during training (`[gating]` of a run configuration).
/// Off by default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateConfig {
    pub enabled: bool,
    /// Games of each gating match.
    pub games: u32,
    /// The score (points per game) the candidate needs to replace the incumbent.
    pub threshold: f64,
    /// Search simulations a move in gating games.
    pub simulations: u32,
    /// Random plies played after each opening, so that pairs differ.
    pub random_plies: u32,
}

impl Default for GateConfig {
    fn default() -> GateConfig {
        GateConfig { enabled: false, games: 40, threshold: 0.55, simulations: 16, random_plies: 4 }
    }
}

impl GateConfig {
    /// Checks the ranges, naming the first field out of range (`gating.<key>`).
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("gating.{name}"), message });
        if !(2..=100_000).contains(&self.games) {
            return fail("games", format!("{} is not between 2 and 100000", self.games));
        }
        if !(self.threshold.is_finite() && (0.0..=1.0).contains(&self.threshold)) {
            return fail("threshold", format!("{} is not between 0 and 1", self.threshold));
        }
        if !(1..=1_000_000).contains(&self.simulations) {
            return fail("simulations", format!("{} is not between 1 and 1000000", self.simulations));
        }
        if self.random_plies > 200 {
            return fail("random_plies", format!("{} is more than 200", self.random_plies));
        }
        Ok(())
    }
}

/// The outcome of gating.
#[derive(Clone, Debug)]
pub struct GateDecision {
    /// Whether the candidate replaces the incumbent.
    pub accepted: bool,
    /// The candidate's score, `None` when gating is off.
    pub score: Option<f64>,
    /// The match played, `None` when gating is off.
    pub report: Option<MatchReport>,
}

/// Plays `candidate` against `incumbent` (`gate.games` games of `gate.simulations` simulations
/// a move under `matches`, whose game count and budget are replaced) and accepts the candidate
/// when it scores at least `gate.threshold`. With gating off every candidate is accepted
/// without a game.
pub fn gate(
    candidate: Arc<dyn PlayerFactory>,
    incumbent: Arc<dyn PlayerFactory>,
    gate: &GateConfig,
    matches: &MatchConfig,
) -> Result<GateDecision, ArenaError> {
    if !gate.enabled {
        return Ok(GateDecision { accepted: true, score: None, report: None });
    }
    let mut config = matches.clone();
    config.games = gate.games;
    config.budget = Budget::Sims(gate.simulations);
    let report = run_match(&config, [candidate, incumbent])?;
    let score = report.summary.players[0].total.score().unwrap_or(0.0);
    Ok(GateDecision { accepted: score >= gate.threshold, score: Some(score), report: Some(report) })
}

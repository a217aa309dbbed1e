//! Training metrics: one JSON line per checkpoint in `metrics.jsonl` of the run folder, and PNG
//! charts drawn from them (losses, self-play game length and gating scores) beside it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::arena::strength::AnchorScore;
use crate::plot::{LineChart, PlotError};

/// File name of the metrics in a run folder.
pub const METRICS_FILE: &str = "metrics.jsonl";

/// What the run looked like at one checkpoint; losses are means since the previous one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricsLine {
    pub step: u64,
    /// Seconds of training so far (over every session of the run).
    pub elapsed_s: f64,
    pub learning_rate: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub moves_left_loss: f64,
    /// The auxiliary losses, written for the runs that give them weight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_policy_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material_loss: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_term_value_loss: Option<f64>,
    pub total_loss: f64,
    pub gradient_norm: f64,
    /// Training samples per second of this interval.
    pub samples_per_s: f64,
    /// Self-play games finished and positions played since the run began.
    pub selfplay_games: u64,
    pub selfplay_positions: u64,
    /// Mean plies of this interval's self-play games (0 when none finished).
    pub game_length: f64,
    /// The share of this interval's self-play games drawn at the ply cap (0 when none
    /// finished): games that no side converted.
    #[serde(default)]
    pub capped_share: f64,
    /// The share of this interval's self-play games adjudicated to the side with a decisive
    /// material lead (`[selfplay] adjudicate_lead`; 0 when none finished).
    #[serde(default)]
    pub adjudicated_share: f64,
    /// Network evaluations per second of self-play in this interval.
    pub evaluations_per_s: f64,
    /// Training positions in the replay window.
    pub window_positions: usize,
    /// With gating on: this checkpoint's score against the self-play network it challenged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_score: Option<f64>,
    /// The step of the checkpoint self-play uses from here on.
    #[serde(default)]
    pub selfplay_step: u64,
    /// With league games: the step of the checkpoint that plays their opponent from here on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league_opponent: Option<u64>,
    /// Replay files (game batches) refused by the window's checks in this interval, set aside.
    #[serde(default)]
    pub rejected_files: u64,
    /// With a store: the same by the worker named in the batches' names (none when no batch
    /// was refused).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rejected_by_worker: BTreeMap<String, u64>,
    /// Training steps skipped for a loss or gradient that was not finite (none before they
    /// were counted).
    #[serde(default)]
    pub skipped_steps: u64,
    /// With the bootstrap teacher on: the share of this interval's samples it labelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teacher_share: Option<f64>,
    /// With `[eval]` probe pairs: the share of value-probe pairs in which the value head
    /// prefers the side with the extra piece.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_probe: Option<f64>,
    /// With `[eval]` probe pairs: how much the side that loses the piece loses by it, the
    /// mean fall of its expected score (win + draw / 2, 0 to 1) over the pairs. The share says
    /// whether the value head knows material matters; this says how much it thinks it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_probe_drop: Option<f64>,
    /// With `[eval]` on, at the checkpoints that play them: the scores against the anchors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<AnchorScore>,
}

/// Appends `line` to the run's metrics file (one write of a whole line).
pub fn append(run_dir: &Path, line: &MetricsLine) -> std::io::Result<()> {
    let mut text = serde_json::to_string(line).map_err(std::io::Error::other)?;
    text.push('\n');
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(run_dir.join(METRICS_FILE))?;
    file.write_all(text.as_bytes())?;
    file.sync_data()
}

/// Reads the run's metrics; a line cut short by a kill is skipped.
pub fn read(run_dir: &Path) -> std::io::Result<Vec<MetricsLine>> {
    let text = match std::fs::read_to_string(run_dir.join(METRICS_FILE)) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect())
}

/// Draws `losses.png` and `selfplay.png` in the run folder from its metrics, and `gating.png`
/// when checkpoints were gated; returns their paths.
pub fn plot(run_dir: &Path, title: &str) -> Result<Vec<PathBuf>, PlotError> {
    let lines = read(run_dir).map_err(|source| PlotError::Io { path: run_dir.join(METRICS_FILE), source })?;
    let losses = run_dir.join("losses.png");
    losses_chart(&lines, title).write_png(&losses)?;
    let selfplay = run_dir.join("selfplay.png");
    let finished: Vec<&MetricsLine> = lines.iter().filter(|l| l.game_length > 0.0).collect();
    let played = finished.iter().map(|l| (l.step as f64, l.game_length)).collect();
    let capped = finished.iter().map(|l| (l.step as f64, 100.0 * l.capped_share)).collect();
    let mut chart = LineChart::new(format!("{title}: self-play"), "training step", "plies per game; % of games")
        .series("game length", played)
        .series("games drawn at the ply cap, %", capped);
    if finished.iter().any(|l| l.adjudicated_share > 0.0) {
        let adjudicated = finished.iter().map(|l| (l.step as f64, 100.0 * l.adjudicated_share)).collect();
        chart = chart.series("games adjudicated, %", adjudicated);
    }
    chart.write_png(&selfplay)?;
    let mut charts = vec![losses, selfplay];
    let gated: Vec<(f64, f64)> = lines.iter().filter_map(|l| Some((l.step as f64, l.gate_score?))).collect();
    if !gated.is_empty() {
        let gating = run_dir.join("gating.png");
        LineChart::new(format!("{title}: gating"), "training step", "score against the self-play network")
            .series("candidate's score", gated)
            .write_png(&gating)?;
        charts.push(gating);
    }
    charts.extend(plot_strength(&lines, run_dir, title)?);
    Ok(charts)
}

/// The chart of the losses: policy, value and moves left, and the auxiliary losses the run
/// logged.
fn losses_chart(lines: &[MetricsLine], title: &str) -> LineChart {
    let series = |f: fn(&MetricsLine) -> f64| lines.iter().map(|l| (l.step as f64, f(l))).collect::<Vec<_>>();
    let mut chart = LineChart::new(format!("{title}: training losses"), "training step", "loss")
        .series("policy", series(|l| l.policy_loss))
        .series("value (WDL)", series(|l| l.value_loss))
        .series("moves left", series(|l| l.moves_left_loss));
    for (name, loss) in [
        ("opponent's policy", (|l| l.opponent_policy_loss) as fn(&MetricsLine) -> Option<f64>),
        ("material", |l| l.material_loss),
        ("short-term value", |l| l.short_term_value_loss),
    ] {
        let points: Vec<(f64, f64)> = lines.iter().filter_map(|l| Some((l.step as f64, loss(l)?))).collect();
        if !points.is_empty() {
            chart = chart.series(name, points);
        }
    }
    chart
}

/// `strength.png` (over training steps) and `strength-minutes.png` (over minutes of training):
/// the anchors' scores and the value probe, when the run measures them.
fn plot_strength(lines: &[MetricsLine], run_dir: &Path, title: &str) -> Result<Vec<PathBuf>, PlotError> {
    let mut anchors: Vec<String> = Vec::new();
    for line in lines {
        for score in &line.anchors {
            if !anchors.contains(&score.label()) {
                anchors.push(score.label());
            }
        }
    }
    if anchors.is_empty() && lines.iter().all(|l| l.value_probe.is_none()) {
        return Ok(Vec::new());
    }
    let mut charts = Vec::new();
    for (file, x_label, x) in [
        ("strength.png", "training step", (|l: &MetricsLine| l.step as f64) as fn(&MetricsLine) -> f64),
        ("strength-minutes.png", "minutes of training", |l: &MetricsLine| l.elapsed_s / 60.0),
    ] {
        let mut chart = LineChart::new(format!("{title}: strength"), x_label, "score against the anchor; probe share and drop");
        for anchor in &anchors {
            let points = lines.iter().filter_map(|l| Some((x(l), l.anchors.iter().find(|s| s.label() == *anchor)?.score))).collect();
            chart = chart.series(format!("vs {anchor}"), points);
        }
        let probe: Vec<(f64, f64)> = lines.iter().filter_map(|l| Some((x(l), l.value_probe?))).collect();
        if !probe.is_empty() {
            chart = chart.series("value probe", probe);
        }
        let drop: Vec<(f64, f64)> = lines.iter().filter_map(|l| Some((x(l), l.value_probe_drop?))).collect();
        if !drop.is_empty() {
            chart = chart.series("value probe: score lost with the piece", drop);
        }
        let path = run_dir.join(file);
        chart.write_png(&path)?;
        charts.push(path);
    }
    Ok(charts)
}

#[cfg(test)]
mod tests {
    use super::{losses_chart, read, MetricsLine};
    use std::path::Path;

    /// The metrics of a run from before the auxiliary losses read with none of them, and the
    /// losses chart shows only the losses a run logged.
    #[test]
    fn auxiliary_losses_are_optional_in_metrics_and_charts() {
        let old = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/old-checkpoints/shogi-v2")).unwrap();
        assert!(!old.is_empty());
        assert!(old.iter().all(|l| l.opponent_policy_loss.is_none() && l.material_loss.is_none() && l.short_term_value_loss.is_none()));
        let names = |lines: &[MetricsLine]| losses_chart(lines, "t").series.into_iter().map(|s| s.name).collect::<Vec<_>>();
        assert_eq!(names(&old), ["policy", "value (WDL)", "moves left"]);
        let plain = serde_json::to_string(&old[0]).unwrap();
        assert!(!plain.contains("material_loss"), "{plain}");
        let line = MetricsLine { step: 5, material_loss: Some(0.25), ..MetricsLine::default() };
        let text = serde_json::to_string(&line).unwrap();
        assert!(text.contains("\"material_loss\":0.25") && !text.contains("opponent_policy_loss"), "{text}");
        assert_eq!(serde_json::from_str::<MetricsLine>(&text).unwrap(), line);
        assert_eq!(names(&[line]), ["policy", "value (WDL)", "moves left", "material"]);
    }
}

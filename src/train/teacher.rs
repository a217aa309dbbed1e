//! The bootstrap teacher (the `[bootstrap]` table, off by default): early in a run, a share of
//! each minibatch gets its targets from the material searcher of [`crate::material_search`]
//! instead of from self-play, so that a fresh network meets material and simple tactics before
//! its own games can show them.
//!
//! For a sampled position the teacher scores every legal move with alpha-beta `depth` plies
//! deep. The policy target is a softmax of the scores at `policy_temperature`; the value target
//! is the best score through a logistic, `P(win) = 1 / (1 + exp(-score / value_scale))`, with no
//! draw (a forced win or loss is a certain one). Both scales are in units of the variant's
//! strongest piece ([`Material::strongest`]). The relabelled share starts at `share` and falls
//! linearly to `final_share` (0 by default) at `anneal_steps`, where it stays; pure self-play
//! (the default) never calls the teacher.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::invalid_field::InvalidField;
use crate::material_search::{is_mate_score, MaterialSearch};
use crate::replay::TrainingSample;
use crate::rules::material::Material;
use crate::rules::{Move, Position, VariantId};

/// The teacher's settings.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BootstrapConfig {
    /// Whether the teacher labels part of the early minibatches.
    pub enabled: bool,
    /// Plies the teacher searches.
    pub depth: u32,
    /// Capture-only plies searched past `depth` (0: none), so that a capture met by a
    /// recapture is not labelled a clean gain.
    pub quiescence_plies: u32,
    /// Share of each minibatch the teacher labels at step 0 ...
    pub share: f64,
    /// ... falling linearly to `final_share` at this step ...
    pub anneal_steps: u64,
    /// ... and staying there for the rest of the run (0: pure self-play from then on).
    pub final_share: f64,
    /// Score, in strongest pieces, at which the teacher's win probability is 1 / (1 + e^-1).
    pub value_scale: f64,
    /// Softmax temperature of the policy target, in strongest pieces.
    pub policy_temperature: f64,
}

impl Default for BootstrapConfig {
    fn default() -> BootstrapConfig {
        BootstrapConfig {
            enabled: false,
            depth: 1,
            quiescence_plies: 0,
            share: 0.5,
            anneal_steps: 2000,
            final_share: 0.0,
            value_scale: 0.5,
            policy_temperature: 0.05,
        }
    }
}

impl BootstrapConfig {
    /// Checks the values, naming the first field out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("bootstrap.{name}"), message });
        if !(1..=4).contains(&self.depth) {
            return fail("depth", format!("{} is not between 1 and 4", self.depth));
        }
        if self.quiescence_plies > 16 {
            return fail("quiescence_plies", format!("{} is more than 16", self.quiescence_plies));
        }
        if !(self.share.is_finite() && (0.0..=1.0).contains(&self.share)) {
            return fail("share", format!("{} is not between 0 and 1", self.share));
        }
        if !(self.final_share.is_finite() && (0.0..=self.share).contains(&self.final_share)) {
            return fail("final_share", format!("{} is not between 0 and share ({})", self.final_share, self.share));
        }
        if self.anneal_steps == 0 {
            return fail("anneal_steps", "0 is not a number of steps (at least 1)".to_string());
        }
        for (name, value) in [("value_scale", self.value_scale), ("policy_temperature", self.policy_temperature)] {
            if !(value.is_finite() && value > 0.0 && value <= 100.0) {
                return fail(name, format!("{value} is not in (0, 100]"));
            }
        }
        Ok(())
    }

    /// Share of a minibatch the teacher labels at training step `step`.
    pub fn share_at(&self, step: u64) -> f64 {
        if !self.enabled {
            return 0.0;
        }
        if step >= self.anneal_steps {
            return self.final_share;
        }
        self.share + (self.final_share - self.share) * (step as f64 / self.anneal_steps as f64)
    }
}

/// Targets from the material searcher.
#[derive(Clone, Debug, PartialEq)]
pub struct TeacherLabel {
    /// Weights over every legal move, summing to 1.
    pub policy: Vec<(Move, f32)>,
    /// Win, draw, loss for the side to move.
    pub wdl: [f32; 3],
}

/// Labels positions of one variant.
#[derive(Clone, Debug)]
pub struct Teacher {
    config: BootstrapConfig,
    variant: VariantId,
    /// [`Material::strongest`], the unit of the scales.
    unit: f64,
}

impl Teacher {
    /// The teacher of `variant` with `config`.
    pub fn new(variant: VariantId, config: BootstrapConfig) -> Teacher {
        Teacher { config, variant, unit: Material::of(variant).strongest() as f64 }
    }

    /// A material searcher set up as the teacher searches (quiescence included).
    pub fn searcher(&self) -> MaterialSearch {
        MaterialSearch::new(self.variant).with_quiescence(self.config.quiescence_plies)
    }

    /// The teacher's targets for `pos`, searched with `search` (one of [`Teacher::searcher`]);
    /// `None` when it has no legal move.
    pub fn label(&self, search: &mut MaterialSearch, pos: &Position) -> Option<TeacherLabel> {
        let moves = pos.legal_moves().to_vec();
        if moves.is_empty() {
            return None;
        }
        let scores = search.move_scores(&mut pos.clone(), &moves, self.config.depth);
        let best = *scores.iter().max().expect("there are moves");
        let win = if is_mate_score(best) { (best > 0) as u8 as f64 } else { logistic(best as f64 / (self.config.value_scale * self.unit)) };
        let weights = softmax_of_scores(&scores, self.config.policy_temperature * self.unit, 10.0 * self.unit);
        let policy = moves.iter().zip(&weights).map(|(&mv, &w)| (mv, w as f32)).collect();
        Some(TeacherLabel { policy, wdl: [win as f32, 0.0, (1.0 - win) as f32] })
    }

    /// Replaces the targets of the first [`BootstrapConfig::share_at`]`(step)` of `samples`
    /// (drawn at random, so any part of them is a random part) by the teacher's, in parallel;
    /// returns how many it labelled.
    pub fn relabel(&self, samples: &mut [TrainingSample], step: u64) -> usize {
        let count = (self.config.share_at(step) * samples.len() as f64).round() as usize;
        samples[..count].par_iter_mut().for_each_init(
            || self.searcher(),
            |search, sample| {
                if let Some(label) = self.label(search, &sample.position) {
                    sample.policy = label.policy;
                    sample.wdl = label.wdl;
                }
            },
        );
        count
    }
}

/// The softmax of move `scores` at `temperature`, each score first clamped to `±cap` (forced
/// wins and losses count as `cap`), so the weights are finite even when every move loses.
fn softmax_of_scores(scores: &[i32], temperature: f64, cap: f64) -> Vec<f64> {
    let clamped: Vec<f64> = scores.iter().map(|&s| (s as f64).clamp(-cap, cap)).collect();
    let best = clamped.iter().copied().fold(-cap, f64::max);
    let weights: Vec<f64> = clamped.iter().map(|s| ((s - best) / temperature).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.into_iter().map(|w| w / total).collect()
}

fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material_search::MATE;
    use crate::rules::notation::{coord, sfen};

    fn teacher(depth: u32, quiescence_plies: u32) -> Teacher {
        Teacher::new(VariantId::SHOGI, BootstrapConfig { enabled: true, depth, quiescence_plies, ..BootstrapConfig::default() })
    }

    fn label_with(depth: u32, quiescence_plies: u32, text: &str) -> TeacherLabel {
        let pos = sfen::parse(VariantId::SHOGI.variant(), text).unwrap();
        let teacher = teacher(depth, quiescence_plies);
        teacher.label(&mut teacher.searcher(), &pos).unwrap()
    }

    fn label(depth: u32, text: &str) -> TeacherLabel {
        label_with(depth, 0, text)
    }

    fn weight(label: &TeacherLabel, mv: &str) -> f32 {
        let v = VariantId::SHOGI.variant();
        label.policy.iter().find(|&&(m, _)| coord::write(v, m) == mv).map_or(0.0, |&(_, w)| w)
    }

    #[test]
    fn the_teacher_takes_a_hanging_rook_and_values_the_extra_material() {
        // Black's bishop on 5e can take White's rook on 2b (not defended).
        let label = label(1, "4k4/7r1/9/9/4B4/9/9/9/4K4 b - 1");
        let sum: f32 = label.policy.iter().map(|&(_, w)| w).sum();
        assert!((sum - 1.0).abs() < 1e-4, "weights sum to {sum}");
        let (capture, promoting) = (weight(&label, "5e2b"), weight(&label, "5e2b+"));
        assert!(capture + promoting > 0.9, "the capture gets the weight: {capture} + {promoting}");
        assert!(label.wdl[0] > 0.9, "a rook and a bishop up is nearly won: {:?}", label.wdl);
        assert_eq!(label.wdl[1], 0.0);
    }

    /// Every move losing by force (common at depth 2 in the royal-capture variants) gives
    /// them equal finite weights; the unclamped best once made every weight infinite and the
    /// target NaN, which turned a chu run's network into NaN at step 1,700.
    #[test]
    fn the_policy_is_finite_when_every_move_loses_or_wins() {
        let unit = Material::of(VariantId::CHU_SHOGI).strongest() as f64;
        let losing = [-(MATE - 2), -(MATE - 2), -(MATE - 4)];
        let weights = softmax_of_scores(&losing, 0.05 * unit, 10.0 * unit);
        assert!(weights.iter().all(|w| w.is_finite()), "{weights:?}");
        assert!(weights.iter().all(|&w| (w - 1.0 / 3.0).abs() < 1e-9), "all lose alike: {weights:?}");
        let winning = softmax_of_scores(&[MATE - 1, 0, -(MATE - 2)], 0.05 * unit, 10.0 * unit);
        assert!(winning[0] > 0.999 && winning.iter().sum::<f64>() > 0.999_999, "{winning:?}");
    }

    #[test]
    fn deeper_search_sees_the_recapture() {
        // The rook on 2b is defended by the silver on 3a: taking it with the bishop loses the
        // bishop back, which depth 1 does not see and depth 2 does.
        let text = "4k1s2/7r1/9/9/4B4/9/9/9/4K4 b - 1";
        let (shallow, deep) = (label(1, text), label(2, text));
        assert!(shallow.wdl[0] > deep.wdl[0], "depth 2 is less sure: {:?} vs {:?}", shallow.wdl, deep.wdl);
    }

    /// Quiescence at depth 1 sees the recapture that depth 2 sees, and still takes a piece
    /// that nothing defends.
    #[test]
    fn quiescence_sees_the_recapture_at_depth_one() {
        let defended = "4k1s2/7r1/9/9/4B4/9/9/9/4K4 b - 1";
        let (plain, quiet, deep) = (label(1, defended), label_with(1, 4, defended), label(2, defended));
        assert!(quiet.wdl[0] < plain.wdl[0] - 0.2, "the recapture lowers the value: {:?} vs {:?}", quiet.wdl, plain.wdl);
        assert!((quiet.wdl[0] - deep.wdl[0]).abs() < 1e-6, "as depth 2 scores it: {:?} vs {:?}", quiet.wdl, deep.wdl);
        let hanging = label_with(1, 4, "4k4/7r1/9/9/4B4/9/9/9/4K4 b - 1");
        assert!(weight(&hanging, "5e2b") + weight(&hanging, "5e2b+") > 0.9);
        assert!(hanging.wdl[0] > 0.9, "{:?}", hanging.wdl);
    }

    #[test]
    fn the_share_anneals_to_its_final_value_and_relabels_that_many() {
        let config = BootstrapConfig { enabled: true, share: 0.5, anneal_steps: 100, ..BootstrapConfig::default() };
        assert_eq!(config.share_at(0), 0.5);
        assert_eq!(config.share_at(50), 0.25);
        assert_eq!(config.share_at(100), 0.0);
        assert_eq!(config.share_at(1000), 0.0);
        assert_eq!(BootstrapConfig { enabled: false, ..config }.share_at(0), 0.0);
        let floored = BootstrapConfig { final_share: 0.1, ..config };
        assert_eq!(floored.share_at(0), 0.5);
        assert!((floored.share_at(50) - 0.3).abs() < 1e-12);
        assert_eq!(floored.share_at(100), 0.1);
        assert_eq!(floored.share_at(100_000), 0.1);
        assert!(BootstrapConfig { depth: 0, ..config }.validate().unwrap_err().field.contains("bootstrap.depth"));
        assert!(BootstrapConfig { quiescence_plies: 17, ..config }.validate().unwrap_err().field.contains("bootstrap.quiescence_plies"));
        assert!(BootstrapConfig { share: 1.5, ..config }.validate().unwrap_err().field.contains("bootstrap.share"));
        assert!(BootstrapConfig { final_share: 0.6, ..config }.validate().unwrap_err().field.contains("bootstrap.final_share"));
        assert!(floored.validate().is_ok());
    }
}

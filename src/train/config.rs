//! Training settings: the `[train]` table of a run configuration.

use serde::{Deserialize, Serialize};

use crate::invalid_field::InvalidField;
use crate::nn::NetworkConfig;
use crate::replay::TargetConfig;

/// The longest horizon, in plies, of the material and short-term value targets.
const MAX_HORIZON: usize = 1000;

/// The optimiser.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// SGD with Nesterov momentum (AlphaZero, KataGo, lc0).
    Sgd,
    /// AdamW (decoupled weight decay).
    Adamw,
}

/// How the trainer learns from the replay window.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Positions per minibatch.
    pub batch_size: usize,
    /// `sgd` or `adamw`.
    pub optimizer: Optimizer,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// Steps of linear warm-up from 0 to the peak.
    pub warmup_steps: u64,
    /// After warm-up the rate follows a cosine from the peak down to `peak * final_lr_fraction`
    /// at `total_steps` or at `max_minutes`, whichever comes first.
    pub final_lr_fraction: f64,
    /// SGD momentum (ignored by AdamW).
    pub momentum: f64,
    /// Weight decay (L2 for SGD, decoupled for AdamW).
    pub weight_decay: f64,
    /// Gradients are clipped to this global norm; 0 disables clipping.
    pub gradient_clip: f64,
    /// Loss weights: policy cross-entropy, WDL cross-entropy, moves-left Huber loss.
    pub policy_weight: f64,
    pub value_weight: f64,
    pub moves_left_weight: f64,
    /// Weight of the opponent's reply policy loss: cross-entropy against the next ply's search
    /// (the opponent's, at the position after the move), over the samples whose next ply got a
    /// full search. 0: off; above 0 it needs `network.auxiliary_heads`.
    pub opponent_policy_weight: f64,
    /// Weight of the material loss: a Huber loss on the material balance for the side to move,
    /// in units of the strongest piece, `material_horizon` plies ahead and at the game's end.
    /// 0: off; above 0 it needs `network.auxiliary_heads`.
    pub material_weight: f64,
    /// Plies ahead of the first material target (at most to the game's final position).
    pub material_horizon: usize,
    /// Weight of the short-term value loss: the squared error of a value in -1 to 1 against the
    /// search's root values (win minus loss) of the next plies, exponentially weighted. 0: off;
    /// above 0 it needs `network.auxiliary_heads`.
    pub short_term_value_weight: f64,
    /// The short-term value weighs the root value `k` plies ahead in proportion to
    /// `(1 - 1 / short_term_horizon)^k`, and the game's result past its end.
    pub short_term_horizon: usize,
    /// The WDL target is `(1 - value_root_mix) * result + value_root_mix * root value` of the
    /// ply's search, 0 to 1.
    pub value_root_mix: f64,
    /// A self-play game cut off by its ply cap is scored by the material balance at its end,
    /// `tanh(balance / ply_cap_material_scale)` with the balance in strongest pieces, instead
    /// of as a plain draw. 0 (the default): the draw.
    pub ply_cap_material_scale: f64,
    /// The window: the newest this many training positions.
    pub window_positions: usize,
    /// Each position added to the window may be drawn this many times on average; the trainer
    /// waits for new games beyond that.
    pub max_sample_reuse: f64,
    /// Training starts once the window holds this many positions.
    pub min_window_positions: usize,
    /// A checkpoint every this many steps (self-play picks it up).
    pub checkpoint_every: u64,
    /// The run ends after this many steps ...
    pub total_steps: u64,
    /// ... or after this many minutes of training, whichever comes first (0: no time limit).
    pub max_minutes: f64,
    /// Mixed precision (bfloat16 autocast) on CUDA; the CPU always trains in float32.
    pub mixed_precision: bool,
    /// With a store: game batches played by a model more than this many checkpoints older than
    /// the trainer's newest are not loaded (0: all are).
    pub max_game_age: u64,
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            batch_size: 256,
            optimizer: Optimizer::Sgd,
            learning_rate: 0.02,
            warmup_steps: 100,
            final_lr_fraction: 0.1,
            momentum: 0.9,
            weight_decay: 1e-4,
            gradient_clip: 5.0,
            policy_weight: 1.0,
            value_weight: 1.0,
            moves_left_weight: 0.05,
            opponent_policy_weight: 0.0,
            material_weight: 0.0,
            material_horizon: 6,
            short_term_value_weight: 0.0,
            short_term_horizon: 6,
            value_root_mix: 0.0,
            ply_cap_material_scale: 0.0,
            window_positions: 100_000,
            max_sample_reuse: 4.0,
            min_window_positions: 2_000,
            checkpoint_every: 100,
            total_steps: 10_000,
            max_minutes: 0.0,
            mixed_precision: true,
            max_game_age: 10,
        }
    }
}

impl TrainConfig {
    /// Checks the values, naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("train.{name}"), message });
        let range = |name: &str, v: f64, lo: f64, hi: f64| {
            if v.is_finite() && (lo..=hi).contains(&v) {
                Ok(())
            } else {
                fail(name, format!("{v} is not between {lo} and {hi}"))
            }
        };
        if !(1..=65536).contains(&self.batch_size) {
            return fail("batch_size", format!("{} is not between 1 and 65536", self.batch_size));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0 && self.learning_rate <= 10.0) {
            return fail("learning_rate", format!("{} is not in (0, 10]", self.learning_rate));
        }
        range("final_lr_fraction", self.final_lr_fraction, 0.0, 1.0)?;
        range("momentum", self.momentum, 0.0, 0.999)?;
        range("weight_decay", self.weight_decay, 0.0, 1.0)?;
        range("gradient_clip", self.gradient_clip, 0.0, 1e6)?;
        range("policy_weight", self.policy_weight, 0.0, 100.0)?;
        range("value_weight", self.value_weight, 0.0, 100.0)?;
        range("moves_left_weight", self.moves_left_weight, 0.0, 100.0)?;
        for (name, weight) in self.auxiliary_weights() {
            range(name, weight, 0.0, 100.0)?;
        }
        range("value_root_mix", self.value_root_mix, 0.0, 1.0)?;
        range("ply_cap_material_scale", self.ply_cap_material_scale, 0.0, 100.0)?;
        for (name, horizon) in [("material_horizon", self.material_horizon), ("short_term_horizon", self.short_term_horizon)] {
            if !(1..=MAX_HORIZON).contains(&horizon) {
                return fail(name, format!("{horizon} is not between 1 and {MAX_HORIZON} plies"));
            }
        }
        range("max_sample_reuse", self.max_sample_reuse, 0.01, 1000.0)?;
        range("max_minutes", self.max_minutes, 0.0, 1e7)?;
        if self.window_positions < self.batch_size {
            return fail("window_positions", format!("{} is smaller than batch_size ({})", self.window_positions, self.batch_size));
        }
        if !(self.batch_size..=self.window_positions).contains(&self.min_window_positions) {
            return fail(
                "min_window_positions",
                format!(
                    "{} is not between batch_size ({}) and window_positions ({})",
                    self.min_window_positions, self.batch_size, self.window_positions
                ),
            );
        }
        if self.checkpoint_every == 0 {
            return fail("checkpoint_every", "0 is not a number of steps (at least 1)".to_string());
        }
        if self.total_steps == 0 {
            return fail("total_steps", "0 is not a number of steps (at least 1)".to_string());
        }
        Ok(())
    }

    /// The weights of the losses on the auxiliary heads, by field name.
    fn auxiliary_weights(&self) -> [(&'static str, f64); 3] {
        [
            ("opponent_policy_weight", self.opponent_policy_weight),
            ("material_weight", self.material_weight),
            ("short_term_value_weight", self.short_term_value_weight),
        ]
    }

    /// Whether a loss on the auxiliary heads has weight.
    pub fn uses_auxiliary_heads(&self) -> bool {
        self.auxiliary_weights().iter().any(|&(_, weight)| weight > 0.0)
    }

    /// Checks that a network of shape `network` has the heads these losses train: a weighted
    /// auxiliary loss needs `network.auxiliary_heads`. The error names the first such weight.
    pub fn check_network(&self, network: &NetworkConfig) -> Result<(), InvalidField> {
        match self.auxiliary_weights().into_iter().find(|&(_, weight)| weight > 0.0) {
            Some((name, weight)) if !network.auxiliary_heads => Err(InvalidField {
                field: format!("train.{name}"),
                message: format!("a weight of {weight} needs network.auxiliary_heads = true"),
            }),
            _ => Ok(()),
        }
    }

    /// How the replay window makes the samples' targets.
    pub fn targets(&self) -> TargetConfig {
        TargetConfig {
            material_horizon: self.material_horizon,
            short_term_horizon: self.short_term_horizon,
            value_root_mix: self.value_root_mix as f32,
            ply_cap_material_scale: self.ply_cap_material_scale as f32,
        }
    }

    /// The learning rate at `step`, `elapsed_s` seconds into training: linear warm-up over the
    /// first steps, then a cosine down to the final fraction. The cosine follows whichever end
    /// comes sooner, `total_steps` or `max_minutes`, so a time-limited run still anneals.
    pub fn learning_rate_at(&self, step: u64, elapsed_s: f64) -> f64 {
        if step < self.warmup_steps {
            return self.learning_rate * (step + 1) as f64 / self.warmup_steps as f64;
        }
        let span = self.total_steps.saturating_sub(self.warmup_steps).max(1) as f64;
        let by_steps = (step - self.warmup_steps) as f64 / span;
        let by_time = if self.max_minutes > 0.0 { elapsed_s / (self.max_minutes * 60.0) } else { 0.0 };
        let progress = by_steps.max(by_time).clamp(0.0, 1.0);
        let floor = self.learning_rate * self.final_lr_fraction;
        floor + (self.learning_rate - floor) * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos())
    }
}

//! The trainer: a float32 network in training mode, its optimiser and learning-rate schedule,
//! and the losses — policy cross-entropy against the search's targets, win/draw/loss
//! cross-entropy against the game's result (mixed with the search's value), and a Huber loss
//! on the plies left; with auxiliary heads, KataGo's auxiliary targets as well: cross-entropy
//! against the opponent's reply policy (over the samples that have one), a Huber loss on the
//! material balance ahead and a squared error on the short-term value. A loss of weight 0 is
//! not computed.

use std::path::{Path, PathBuf};

use tch::{Device, Kind, Reduction, Tensor};

use super::batch::Batch;
use super::config::TrainConfig;
use super::optimizer::Optimizer;
use crate::invalid_field::InvalidField;
use crate::nn::checkpoint::{self, CheckpointError};
use crate::nn::Network;

/// Plies per unit of the moves-left loss (the Huber loss is taken on plies / this).
const MOVES_LEFT_UNIT: f64 = 20.0;

/// The losses of one step (weighted total included) and the gradient norm before clipping.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Losses {
    pub policy: f64,
    pub value: f64,
    pub moves_left: f64,
    /// The auxiliary losses, each 0 when its weight is 0 (and it is not computed).
    pub opponent_policy: f64,
    pub material: f64,
    pub short_term_value: f64,
    pub total: f64,
    pub gradient_norm: f64,
    /// Whether the step was skipped, its weights and optimiser state untouched, because its
    /// loss or gradient was not finite (a bad target would otherwise turn every weight NaN).
    pub skipped: bool,
}

/// The losses of a batch, means over its positions (the opponent's policy: over those that
/// have that target); the auxiliary ones only where they have weight.
struct LossTerms {
    policy: Tensor,
    value: Tensor,
    moves_left: Tensor,
    opponent_policy: Option<Tensor>,
    material: Option<Tensor>,
    short_term_value: Option<Tensor>,
}

/// The cross-entropy of sparse policy targets (flat `index` into `logits` `[B, policy size]`,
/// with their `weight`), summed over the batch.
fn sparse_cross_entropy(logits: &Tensor, index: &Tensor, weight: &Tensor, device: Device) -> Tensor {
    let log_policy = logits.to_kind(Kind::Float).log_softmax(-1, Kind::Float).reshape([-1]);
    -(log_policy.index_select(0, &index.to_device(device)) * weight.to_device(device)).sum(Kind::Float)
}

/// A network being trained.
pub struct Trainer {
    network: Network,
    optimizer: Optimizer,
    config: TrainConfig,
    params: Vec<(String, Tensor)>,
    step: u64,
}

/// The optimiser state file saved beside checkpoint `step`.
pub fn optimizer_path(run_dir: &Path, step: u64) -> PathBuf {
    run_dir.join(format!("step-{step:010}.optimizer.safetensors"))
}

impl Trainer {
    /// Trains `network` (float32) from training step `step` with `optimizer`. Refused when a
    /// loss of `config` needs heads the network does not have ([`TrainConfig::check_network`]).
    pub fn new(network: Network, optimizer: Optimizer, config: TrainConfig, step: u64) -> Result<Trainer, InvalidField> {
        config.check_network(network.config())?;
        let mut params: Vec<(String, Tensor)> = network.var_store().variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Trainer { network, optimizer, config, params, step })
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Training steps taken (the resumed ones included).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// The learning rate of the next step, taken `elapsed_s` seconds into training.
    pub fn learning_rate(&self, elapsed_s: f64) -> f64 {
        self.config.learning_rate_at(self.step, elapsed_s)
    }

    /// One optimisation step on `batch`, `elapsed_s` seconds into training (for the schedule).
    pub fn train_step(&mut self, batch: &Batch, elapsed_s: f64) -> Losses {
        let device = self.network.device();
        let mixed = self.config.mixed_precision && device != Device::Cpu;
        let terms = tch::autocast(mixed, || self.losses(batch, device));
        let config = &self.config;
        let main = &terms.policy * config.policy_weight + &terms.value * config.value_weight + &terms.moves_left * config.moves_left_weight;
        let total = [
            (&terms.opponent_policy, config.opponent_policy_weight),
            (&terms.material, config.material_weight),
            (&terms.short_term_value, config.short_term_value_weight),
        ]
        .into_iter()
        .filter_map(|(term, weight)| term.as_ref().map(|term| term * weight))
        .fold(main, |total, term| total + term);
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
        total.backward();
        let gradient_norm = Optimizer::clip_gradients(&self.params, self.config.gradient_clip);
        let total_value = total.double_value(&[]);
        let skipped = !(total_value.is_finite() && gradient_norm.is_finite());
        if !skipped {
            let lr = self.learning_rate(elapsed_s);
            self.optimizer.step(&self.params, lr);
            self.step += 1;
        }
        let value_of = |term: &Option<Tensor>| term.as_ref().map_or(0.0, |t| t.double_value(&[]));
        Losses {
            policy: terms.policy.double_value(&[]),
            value: terms.value.double_value(&[]),
            moves_left: terms.moves_left.double_value(&[]),
            opponent_policy: value_of(&terms.opponent_policy),
            material: value_of(&terms.material),
            short_term_value: value_of(&terms.short_term_value),
            total: total_value,
            gradient_norm,
            skipped,
        }
    }

    /// The losses of `batch`: the auxiliary heads run only when a loss on them has weight.
    fn losses(&self, batch: &Batch, device: Device) -> LossTerms {
        let config = &self.config;
        let input = batch.input.to_device(device);
        let (output, auxiliary) = if config.uses_auxiliary_heads() {
            self.network.forward_with_auxiliary(&input, true)
        } else {
            (self.network.forward(&input, true), None)
        };
        let b = batch.size as f64;
        let policy = sparse_cross_entropy(&output.policy, &batch.policy_index, &batch.policy_weight, device) / b;
        let log_wdl = output.wdl.to_kind(Kind::Float).log_softmax(-1, Kind::Float);
        let value = -(log_wdl * batch.wdl.to_device(device)).sum(Kind::Float) / b;
        let predicted = output.moves_left.to_kind(Kind::Float) / MOVES_LEFT_UNIT;
        let target = batch.moves_left.to_device(device) / MOVES_LEFT_UNIT;
        // Only the samples of games that ended count: a game cut off by the ply cap says
        // nothing about how long it would have lasted.
        let mask = batch.moves_left_mask.to_device(device);
        let moves_left =
            (predicted.huber_loss(&target, Reduction::None, 1.0) * &mask).sum(Kind::Float) / mask.sum(Kind::Float).clamp_min(1.0);
        let weighted = |weight: f64| auxiliary.as_ref().filter(|_| weight > 0.0);
        let opponent_policy = weighted(config.opponent_policy_weight).map(|aux| {
            let samples = batch.opponent_policy_mask.to_device(device).sum(Kind::Float).clamp_min(1.0);
            sparse_cross_entropy(&aux.opponent_policy, &batch.opponent_policy_index, &batch.opponent_policy_weight, device) / samples
        });
        let material = weighted(config.material_weight)
            .and(output.material.as_ref())
            .map(|material| material.to_kind(Kind::Float).huber_loss(&batch.material.to_device(device), Reduction::Mean, 1.0));
        let short_term_value = weighted(config.short_term_value_weight)
            .map(|aux| aux.short_term_value.to_kind(Kind::Float).mse_loss(&batch.short_term_value.to_device(device), Reduction::Mean));
        LossTerms { policy, value, moves_left, opponent_policy, material, short_term_value }
    }

    /// Saves the optimiser state, then the checkpoint of the current step (which moves the
    /// run's `latest` pointer last); returns the checkpoint's metadata path.
    pub fn save(&self, run_dir: &Path) -> Result<PathBuf, CheckpointError> {
        std::fs::create_dir_all(run_dir).map_err(|source| CheckpointError::Io { action: "create", path: run_dir.to_path_buf(), source })?;
        self.optimizer.save(&optimizer_path(run_dir, self.step))?;
        checkpoint::save(&self.network, run_dir, self.step)
    }

    /// Checks that a loaded optimiser state fits this network's parameters.
    pub fn check_optimizer(&self) -> Result<(), String> {
        self.optimizer.check(&self.params)
    }
}

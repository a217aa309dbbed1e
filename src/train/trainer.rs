//! The trainer: a float32 network in training mode, its optimiser and learning-rate schedule,
//! and the losses — policy cross-entropy against the search's targets, win/draw/loss
//! cross-entropy against the game's result, and a Huber loss on the plies left.

use std::path::{Path, PathBuf};

use tch::{Device, Kind, Reduction, Tensor};

use super::batch::Batch;
use super::config::TrainConfig;
use super::optimizer::Optimizer;
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
    pub total: f64,
    pub gradient_norm: f64,
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
    /// Trains `network` (float32) from training step `step` with `optimizer`.
    pub fn new(network: Network, optimizer: Optimizer, config: TrainConfig, step: u64) -> Trainer {
        let mut params: Vec<(String, Tensor)> = network.var_store().variables().into_iter().filter(|(_, t)| t.requires_grad()).collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        Trainer { network, optimizer, config, params, step }
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
        let (policy, value, moves_left) = tch::autocast(mixed, || self.losses(batch, device));
        let total = &policy * self.config.policy_weight + &value * self.config.value_weight + &moves_left * self.config.moves_left_weight;
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
        total.backward();
        let gradient_norm = Optimizer::clip_gradients(&self.params, self.config.gradient_clip);
        let lr = self.learning_rate(elapsed_s);
        self.optimizer.step(&self.params, lr);
        self.step += 1;
        Losses {
            policy: policy.double_value(&[]),
            value: value.double_value(&[]),
            moves_left: moves_left.double_value(&[]),
            total: total.double_value(&[]),
            gradient_norm,
        }
    }

    /// Policy, value and moves-left losses of `batch`, means over its positions.
    fn losses(&self, batch: &Batch, device: Device) -> (Tensor, Tensor, Tensor) {
        let output = self.network.forward(&batch.input.to_device(device), true);
        let b = batch.size as f64;
        let log_policy = output.policy.to_kind(Kind::Float).log_softmax(-1, Kind::Float).reshape([-1]);
        let picked = log_policy.index_select(0, &batch.policy_index.to_device(device));
        let policy = -(picked * batch.policy_weight.to_device(device)).sum(Kind::Float) / b;
        let log_wdl = output.wdl.to_kind(Kind::Float).log_softmax(-1, Kind::Float);
        let value = -(log_wdl * batch.wdl.to_device(device)).sum(Kind::Float) / b;
        let predicted = output.moves_left.to_kind(Kind::Float) / MOVES_LEFT_UNIT;
        let target = batch.moves_left.to_device(device) / MOVES_LEFT_UNIT;
        let moves_left = predicted.huber_loss(&target, Reduction::Mean, 1.0);
        (policy, value, moves_left)
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

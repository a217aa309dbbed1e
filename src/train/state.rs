//! What the trainer keeps beside each checkpoint to resume exactly there ([`TrainerState`]),
//! and saving and loading a checkpoint together with its optimiser and trainer state.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::config::TrainConfig;
use super::optimizer::Optimizer;
use super::trainer::{optimizer_path, Trainer};
use super::TrainError;
use crate::nn::checkpoint;
use crate::nn::config::NetworkConfig;
use crate::nn::device::on_fresh_thread;
use crate::replay::WindowCounters;
use crate::rules::VariantId;

/// What the trainer keeps beside each checkpoint to resume exactly there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainerState {
    pub step: u64,
    /// Seconds of training so far.
    pub elapsed_s: f64,
    /// The replay window's counters (samples drawn, positions added, newest counted file).
    pub window: WindowCounters,
    /// With gating on: the step of the checkpoint self-play uses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incumbent: Option<u64>,
    /// Self-play games finished and positions played since the run began (0 in the state
    /// files of older runs).
    #[serde(default)]
    pub selfplay_games: u64,
    #[serde(default)]
    pub selfplay_positions: u64,
}

/// The trainer state file of checkpoint `step`.
pub fn state_path(run_dir: &Path, step: u64) -> PathBuf {
    run_dir.join(format!("step-{step:010}.trainer.json"))
}

/// Saves the trainer state, then the optimiser state and the checkpoint (`latest` moves last).
pub fn save(trainer: &Trainer, state: &TrainerState, run_dir: &Path) -> Result<PathBuf, TrainError> {
    write_state(run_dir, state)?;
    Ok(trainer.save(run_dir)?)
}

/// Writes the trainer state file of `state.step` atomically.
pub fn write_state(run_dir: &Path, state: &TrainerState) -> Result<(), TrainError> {
    let path = state_path(run_dir, state.step);
    let text = serde_json::to_string_pretty(state).expect("the trainer state serialises");
    crate::files::write_atomic(&path, text.as_bytes()).map_err(|source| TrainError::Io { action: "write", path, source })
}

/// Loads the latest checkpoint in `run_dir` (a network of `variant` and shape `network`) with
/// its optimiser and trainer state.
pub fn resume(
    run_dir: &Path,
    variant: VariantId,
    network: &NetworkConfig,
    train: TrainConfig,
    device: tch::Device,
) -> Result<(Trainer, TrainerState), TrainError> {
    let (path, metadata) = checkpoint::read_metadata(run_dir)?;
    let (weights, _) = on_fresh_thread(|| checkpoint::load(&path, variant, Some(network), device))?;
    let step = metadata.step;
    let optimizer = Optimizer::load(&train, &optimizer_path(run_dir, step), device)?;
    let state_file = state_path(run_dir, step);
    let text =
        std::fs::read_to_string(&state_file).map_err(|source| TrainError::Io { action: "read", path: state_file.clone(), source })?;
    let state: TrainerState =
        serde_json::from_str(&text).map_err(|e| TrainError::State { path: state_file.clone(), message: e.to_string() })?;
    if state.step != step {
        return Err(TrainError::State { path: state_file, message: format!("step {} does not match checkpoint step {step}", state.step) });
    }
    let trainer = Trainer::new(weights, optimizer, train, step)?;
    trainer.check_optimizer().map_err(|message| TrainError::State { path: optimizer_path(run_dir, step), message })?;
    Ok((trainer, state))
}

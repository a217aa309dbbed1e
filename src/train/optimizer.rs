//! The optimisers, written over tch tensors so that their state (momentum, Adam moments) can
//! be saved beside a checkpoint and a run resumed exactly: SGD with Nesterov momentum and L2
//! weight decay, or AdamW.

use std::collections::BTreeMap;
use std::path::Path;

use tch::{Device, Kind, Tensor};

use super::config::{Optimizer as Kind_, TrainConfig};
use crate::nn::checkpoint::CheckpointError;

/// An optimiser over named parameters.
pub struct Optimizer {
    kind: Kind_,
    momentum: f64,
    weight_decay: f64,
    /// Steps taken (AdamW's bias correction).
    steps: i64,
    /// Per parameter: SGD's velocity, or AdamW's first and second moments.
    state: BTreeMap<String, Vec<Tensor>>,
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

impl Optimizer {
    /// An optimiser as `config` sets it, with empty state.
    pub fn new(config: &TrainConfig) -> Optimizer {
        Optimizer { kind: config.optimizer, momentum: config.momentum, weight_decay: config.weight_decay, steps: 0, state: BTreeMap::new() }
    }

    /// Scales the gradients so their global norm is at most `max_norm` (0: no clipping);
    /// returns the norm before clipping.
    pub fn clip_gradients(params: &[(String, Tensor)], max_norm: f64) -> f64 {
        let _guard = tch::no_grad_guard();
        let grads: Vec<Tensor> = params.iter().map(|(_, p)| p.grad()).filter(|g| g.defined()).collect();
        if grads.is_empty() {
            return 0.0;
        }
        let squares: Vec<Tensor> = grads.iter().map(|g| g.to_kind(Kind::Float).square().sum(Kind::Float)).collect();
        let norm = Tensor::stack(&squares, 0).sum(Kind::Float).sqrt().double_value(&[]);
        if max_norm > 0.0 && norm > max_norm {
            let scale = max_norm / (norm + 1e-6);
            for g in &grads {
                let mut g = g.shallow_clone();
                let _ = g.g_mul_scalar_(scale);
            }
        }
        norm
    }

    /// One update of every parameter with a gradient, at learning rate `lr`.
    pub fn step(&mut self, params: &[(String, Tensor)], lr: f64) {
        let _guard = tch::no_grad_guard();
        self.steps += 1;
        for (name, param) in params {
            let grad = param.grad();
            if !grad.defined() {
                continue;
            }
            let mut param = param.shallow_clone();
            match self.kind {
                Kind_::Sgd => {
                    let g = &grad + &param * self.weight_decay;
                    let velocity = self.state.entry(name.clone()).or_insert_with(|| vec![param.zeros_like()]);
                    let v = &mut velocity[0];
                    let _ = v.g_mul_scalar_(self.momentum);
                    let _ = v.g_add_(&g);
                    // Nesterov: step along the gradient plus the momentum-scaled velocity.
                    let update = &g + &*v * self.momentum;
                    let _ = param.g_sub_(&(update * lr));
                }
                Kind_::Adamw => {
                    let moments = self.state.entry(name.clone()).or_insert_with(|| vec![param.zeros_like(), param.zeros_like()]);
                    let _ = moments[0].g_mul_scalar_(BETA1);
                    let _ = moments[0].g_add_(&(&grad * (1.0 - BETA1)));
                    let _ = moments[1].g_mul_scalar_(BETA2);
                    let _ = moments[1].g_add_(&(grad.square() * (1.0 - BETA2)));
                    let m_hat = &moments[0] / (1.0 - BETA1.powi(self.steps as i32));
                    let v_hat = &moments[1] / (1.0 - BETA2.powi(self.steps as i32));
                    let _ = param.g_mul_scalar_(1.0 - lr * self.weight_decay);
                    let _ = param.g_sub_(&(m_hat / (v_hat.sqrt() + EPSILON) * lr));
                }
            }
        }
    }

    /// Checks that the state has the shape of `params` (a state of another network is refused).
    pub fn check(&self, params: &[(String, Tensor)]) -> Result<(), String> {
        for (name, tensors) in &self.state {
            let Some((_, param)) = params.iter().find(|(n, _)| n == name) else {
                return Err(format!("state for '{name}', which the network does not have"));
            };
            if let Some(t) = tensors.iter().find(|t| t.size() != param.size()) {
                return Err(format!("state of '{name}' has shape {:?}, the parameter {:?}", t.size(), param.size()));
            }
        }
        Ok(())
    }

    /// Saves the state as safetensors (written to a temporary name, then renamed).
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let mut named: Vec<(String, Tensor)> = vec![("steps".to_string(), Tensor::from_slice(&[self.steps]))];
        for (name, tensors) in &self.state {
            for (i, t) in tensors.iter().enumerate() {
                named.push((format!("{name}#{i}"), t.to_device(Device::Cpu).to_kind(Kind::Float).contiguous()));
            }
        }
        let temp = path.with_extension("tmp");
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| CheckpointError::Io { action, path, source }
        };
        Tensor::write_safetensors(&named, &temp)
            .map_err(|e| CheckpointError::CorruptWeights { path: temp.clone(), message: e.to_string() })?;
        std::fs::File::open(&temp).and_then(|f| f.sync_all()).map_err(io("sync", &temp))?;
        std::fs::rename(&temp, path).map_err(io("rename", path))
    }

    /// Loads a state saved by [`Optimizer::save`] onto `device`.
    pub fn load(config: &TrainConfig, path: &Path, device: Device) -> Result<Optimizer, CheckpointError> {
        let corrupt = |message: String| CheckpointError::CorruptWeights { path: path.to_path_buf(), message };
        let tensors = Tensor::read_safetensors(path).map_err(|e| corrupt(e.to_string()))?;
        let mut optimizer = Optimizer::new(config);
        let mut parts: BTreeMap<String, BTreeMap<usize, Tensor>> = BTreeMap::new();
        for (name, tensor) in tensors {
            if name == "steps" {
                optimizer.steps = tensor.int64_value(&[0]);
                continue;
            }
            let (param, index) = name.rsplit_once('#').ok_or_else(|| corrupt(format!("unexpected tensor '{name}'")))?;
            let index: usize = index.parse().map_err(|_| corrupt(format!("unexpected tensor '{name}'")))?;
            parts.entry(param.to_string()).or_default().insert(index, tensor.to_device(device));
        }
        let wanted = match config.optimizer {
            Kind_::Sgd => 1,
            Kind_::Adamw => 2,
        };
        for (param, tensors) in parts {
            if tensors.len() != wanted || tensors.keys().copied().ne(0..wanted) {
                return Err(corrupt(format!(
                    "'{param}' has {} state tensors, the {:?} optimiser keeps {wanted}",
                    tensors.len(),
                    config.optimizer
                )));
            }
            optimizer.state.insert(param, tensors.into_values().collect());
        }
        Ok(optimizer)
    }
}

//! The network layer: from a game to tensors, through a LibTorch network, back to move priors
//! and a value. Uses [`crate::rules`]; nothing in `rules` uses it.
//!
//! - [`frame`]: squares seen from the side to move (the board turned 180 degrees for White).
//! - [`encoding`]: input planes of a position, written into a caller's buffer.
//! - [`policy_map`]: the injective map between moves and indices of the policy output.
//! - [`config`]: the network's shape and the inference settings (tables of [`crate::config`]).
//! - [`device`]: device and precision choice, with clear errors for what the machine lacks.
//! - [`network`]: the residual network (tch) with its policy, value and moves-left heads.
//! - [`checkpoint`]: safetensors weights plus a JSON metadata sidecar, saved atomically.
//! - [`server`]: the batching inference server that owns the model on one thread.
//! - [`bench`](mod@bench): benchmark workloads and throughput measurements (`bench nn`, `benches/nn.rs`).

pub mod bench;
pub mod checkpoint;
pub mod config;
pub mod device;
pub mod encoding;
pub mod frame;
pub mod network;
pub mod policy_map;
pub mod server;

pub use checkpoint::{CheckpointError, Metadata};
pub use config::{InferenceConfig, NetworkConfig};
pub use device::{DeviceChoice, DeviceError, Precision};
pub use encoding::{Encoder, InputPlane, Side};
pub use network::{AuxiliaryOutput, Evaluation, Inference, IoLayout, Network, NetworkError, NetworkOutput};
pub use policy_map::{PolicyMap, PolicyPlane, UnmappedMove};
pub use server::{InferenceServer, ServerClient, ServerError};

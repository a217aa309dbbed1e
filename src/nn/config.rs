//! The network's shape and the inference settings: the `[network]` and `[inference]` tables of
//! the run configurations in `configs/` (see [`crate::config`]).

use serde::{Deserialize, Serialize};

use super::device::{DeviceChoice, Precision};
use super::encoding::{ENCODING_VERSION, ENCODING_VERSIONS};
use crate::invalid_field::InvalidField;
use crate::rules::context::RECENT_MOVES;

/// Upper bounds that keep a typing mistake from allocating the whole memory.
const MAX_BLOCKS: usize = 256;
const MAX_CHANNELS: usize = 4096;

/// The shape of the residual network.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkConfig {
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of every tower convolution.
    pub channels: usize,
    /// Block `i` (counted from 1) pools globally when `i` is a multiple of this; 0: no block does.
    pub global_pool_every: usize,
    /// Channels that a global-pooling block (and the policy head) pools, fewer than `channels`.
    pub global_pool_channels: usize,
    /// Channels of the policy head's hidden convolution.
    pub policy_channels: usize,
    /// Channels of the value head's convolution.
    pub value_channels: usize,
    /// Width of the value head's hidden layer.
    pub value_hidden: usize,
    /// The input encoding of a new network (to compare against an earlier one); unset: the
    /// current [`ENCODING_VERSION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding_version: Option<u32>,
    /// How many of the last moves the input planes show, 0 to [`RECENT_MOVES`] (1: the
    /// opponent's last move only, not the mover's own); unset: all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent_moves: Option<usize>,
    /// Whether the network has the auxiliary heads that only training uses: the opponent's
    /// reply policy (beside the policy output) and the material and short-term value outputs
    /// (beside the value outputs). Off when left out, as in older checkpoints and configurations,
    /// and then not written, so that such metadata reads as before.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auxiliary_heads: bool,
}

impl NetworkConfig {
    /// A tower of `blocks` x `channels` with the proportions of the presets in `configs/`:
    /// global pooling in every third block (every second below six blocks) over a quarter of the
    /// channels, heads of half the channels, a value hidden layer as wide as the tower.
    pub fn scaled(blocks: usize, channels: usize) -> NetworkConfig {
        NetworkConfig {
            blocks,
            channels,
            global_pool_every: if blocks < 6 { 2 } else { 3 },
            global_pool_channels: (channels / 4).max(2),
            policy_channels: (channels / 2).max(8),
            value_channels: (channels / 2).max(8),
            value_hidden: channels.max(16),
            encoding_version: None,
            recent_moves: None,
            auxiliary_heads: false,
        }
    }

    /// Whether block `i` (counted from 0) pools globally.
    pub fn pools(&self, i: usize) -> bool {
        self.global_pool_every > 0 && (i + 1).is_multiple_of(self.global_pool_every)
    }

    /// Checks the values, naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let field = |name: &str, message: String| Err(InvalidField { field: format!("network.{name}"), message });
        if !(1..=MAX_BLOCKS).contains(&self.blocks) {
            return field("blocks", format!("{} is not between 1 and {MAX_BLOCKS}", self.blocks));
        }
        if !(2..=MAX_CHANNELS).contains(&self.channels) {
            return field("channels", format!("{} is not between 2 and {MAX_CHANNELS}", self.channels));
        }
        if !(1..self.channels).contains(&self.global_pool_channels) {
            return field(
                "global_pool_channels",
                format!("{} is not between 1 and channels - 1 = {}", self.global_pool_channels, self.channels - 1),
            );
        }
        if let Some(version) = self.encoding_version.filter(|v| !ENCODING_VERSIONS.contains(v)) {
            return field("encoding_version", format!("{version} is not a known encoding version (1 to {ENCODING_VERSION})"));
        }
        if let Some(recent) = self.recent_moves.filter(|&r| r > RECENT_MOVES) {
            return field("recent_moves", format!("{recent} is more than the {RECENT_MOVES} moves a game context keeps"));
        }
        for (name, value) in
            [("policy_channels", self.policy_channels), ("value_channels", self.value_channels), ("value_hidden", self.value_hidden)]
        {
            if !(1..=MAX_CHANNELS).contains(&value) {
                return field(name, format!("{value} is not between 1 and {MAX_CHANNELS}"));
            }
        }
        Ok(())
    }
}

/// How the network is evaluated.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InferenceConfig {
    /// `cpu`, `cuda` or `cuda:N`.
    pub device: DeviceChoice,
    /// `f32`, `bf16` (CPU or CUDA), `f16` (CUDA) or `auto` (bf16 on CPUs with AVX512-BF16, f32
    /// on other CPUs, f16 on CUDA).
    pub precision: Precision,
    /// Most positions the inference server evaluates in one forward pass.
    pub batch_size: usize,
    /// Longest time in microseconds the server waits for a batch to fill once it has one position.
    pub max_wait_us: u64,
}

impl InferenceConfig {
    /// Checks the values, naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        if !(1..=65536).contains(&self.batch_size) {
            let message = format!("{} is not between 1 and 65536", self.batch_size);
            return Err(InvalidField { field: "inference.batch_size".to_string(), message });
        }
        Ok(())
    }
}

impl std::fmt::Display for NetworkConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}x{} (global pooling every {} blocks over {} channels, policy {}, value {}/{})",
            self.blocks,
            self.channels,
            self.global_pool_every,
            self.global_pool_channels,
            self.policy_channels,
            self.value_channels,
            self.value_hidden
        )?;
        if self.auxiliary_heads {
            write!(f, " with auxiliary heads")?;
        }
        if let Some(version) = self.encoding_version {
            write!(f, ", encoding v{version}")?;
        }
        match self.recent_moves {
            Some(recent) => write!(f, ", last {recent} moves shown"),
            None => Ok(()),
        }
    }
}

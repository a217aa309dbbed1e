//! [`RunConfig`]: one run's configuration file, its tables read and checked together. A file
//! may build on another with `base = "<path>"` ([`layers`]).

mod layers;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::store::StoreConfig;
use crate::arena::strength::EvalConfig;
use crate::arena::GateConfig;
use crate::invalid_field::InvalidField;
use crate::mcts::SearchConfig;
use crate::nn::config::{InferenceConfig, NetworkConfig};
use crate::openings::read_openings;
use crate::rules::{GameRules, VariantId};
use crate::selfplay::SelfplayConfig;
use crate::train::teacher::BootstrapConfig;
use crate::train::TrainConfig;

/// A run configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    /// The variant: a built-in's name (`shogi`, `chu-shogi`, `minishogi`...) or the path of a
    /// variant file, taken from the working directory.
    #[serde(deserialize_with = "variant_by_name", serialize_with = "variant_name")]
    pub variant: VariantId,
    /// The network's shape.
    pub network: NetworkConfig,
    /// Inference settings.
    pub inference: InferenceConfig,
    /// Tree search settings.
    #[serde(default)]
    pub search: SearchConfig,
    /// Self-play settings.
    #[serde(default)]
    pub selfplay: SelfplayConfig,
    /// Training settings.
    #[serde(default)]
    pub train: TrainConfig,
    /// Gating of new checkpoints during training (off by default).
    #[serde(default)]
    pub gating: GateConfig,
    /// Strength measured during training: anchor matches and the value probe.
    #[serde(default)]
    pub eval: EvalConfig,
    /// The bootstrap teacher (off by default).
    #[serde(default)]
    pub bootstrap: BootstrapConfig,
    /// Limits on the game batches a distributed run's trainer reads.
    #[serde(default)]
    pub store: StoreConfig,
}

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {error}")]
    Read { path: PathBuf, error: std::io::Error },
    #[error("config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("config file {path}: {field}")]
    Invalid { path: PathBuf, field: InvalidField },
    #[error("config file {path}: key `base`: {message}")]
    Base { path: PathBuf, message: String },
}

impl RunConfig {
    /// Reads and checks a configuration file.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read { path: path.to_path_buf(), error })?;
        RunConfig::parse(&text, path)
    }

    /// Parses and checks configuration text; `path` names it in errors, and its `base`, if it
    /// names one, is read from its folder. A relative openings path is taken from the folder of
    /// the file that sets it (and made absolute, so a run folder's copy of the configuration
    /// still finds the file).
    pub fn parse(text: &str, path: &Path) -> Result<RunConfig, ConfigError> {
        let layers = layers::Layers::read(text, path)?;
        let mut config: RunConfig = layers.deserialize()?;
        let invalid = |field| ConfigError::Invalid { path: path.to_path_buf(), field };
        config.validate().map_err(invalid)?;
        if let Some(openings) = &mut config.selfplay.openings {
            let folder = layers.folder_setting("selfplay", "openings").unwrap_or(Path::new(""));
            *openings = std::path::absolute(folder.join(&*openings)).unwrap_or_else(|_| folder.join(&*openings));
            let rules = GameRules::default_for(config.variant.variant());
            read_openings(config.variant, openings, rules).map_err(|e| {
                invalid(InvalidField { field: "selfplay.openings".to_string(), message: format!("{}: {e}", openings.display()) })
            })?;
        }
        Ok(config)
    }

    /// Checks every table, naming the first field out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        self.network.validate()?;
        self.inference.validate()?;
        self.search.validate()?;
        self.selfplay.validate()?;
        self.train.validate()?;
        self.train.check_network(&self.network)?;
        self.gating.validate()?;
        self.eval.validate()?;
        self.bootstrap.validate()?;
        self.store.validate()?;
        self.store.check_game_age(self.train.max_game_age)
    }

    /// The default configuration file of a variant: `configs/<variant>-cpu.toml`, the CPU recipe.
    pub fn default_path(variant: VariantId) -> PathBuf {
        PathBuf::from("configs").join(format!("{}-cpu.toml", variant.name()))
    }

    /// Reads the configuration at `path`, or without one the variant's default: its CPU recipe
    /// ([`RunConfig::default_path`]) or, for a variant without one (a variant file), the
    /// reference CPU recipe `configs/recipes/cpu.toml` at the variant's ply cap. Returns the
    /// file it was read from.
    pub fn load_or_default(path: Option<&Path>, variant: VariantId) -> Result<(RunConfig, PathBuf), ConfigError> {
        if let Some(path) = path {
            return Ok((RunConfig::load(path)?, path.to_path_buf()));
        }
        let own = RunConfig::default_path(variant);
        let reference = PathBuf::from("configs").join("recipes").join("cpu.toml");
        if own.exists() || !reference.exists() {
            return Ok((RunConfig::load(&own)?, own));
        }
        let variant_value = if variant.is_embedded() { variant.name().to_string() } else { variant.source() };
        let text = format!(
            "base = \"recipes/cpu.toml\"\nvariant = {}\n\n[selfplay]\nply_cap = {}\n",
            toml::Value::String(variant_value),
            variant.spec().default_ply_cap
        );
        // Read as if it were the variant's own recipe, so that the base is found beside it.
        Ok((RunConfig::parse(&text, &own)?, reference))
    }
}

/// The configuration as TOML text (every key written out, no `base`), as a run folder and a
/// store keep it.
pub fn to_toml(config: &RunConfig) -> String {
    toml::to_string_pretty(config).expect("a run configuration serialises")
}

/// A built-in variant by name, a variant read from a file by its (absolute) path.
fn variant_name<S: Serializer>(variant: &VariantId, serializer: S) -> Result<S::Ok, S::Error> {
    match variant.is_embedded() {
        true => serializer.serialize_str(variant.name()),
        false => serializer.serialize_str(&variant.source()),
    }
}

fn variant_by_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<VariantId, D::Error> {
    let name = String::deserialize(deserializer)?;
    name.parse().map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests;

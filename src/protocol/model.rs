//! Which checkpoint to play with, and loading it for a single engine.
//!
//! Without a checkpoint named on the command line, a variant is played with its default model,
//! the run folder `models/<variant>/default` (followed through its `latest` file). It is looked
//! for under the current directory first, then under the source tree this program was built
//! from, so that `cargo run` and the built binary find the repository's models from anywhere.

use std::path::{Path, PathBuf};

use crate::mcts::{Engine, Model, ModelError, SearchConfig};
use crate::nn::{DeviceChoice, InferenceConfig, Precision};
use crate::rules::VariantId;

/// The run name of a variant's default model.
pub const DEFAULT_RUN: &str = "default";

/// No checkpoint was given and the variant has no default model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "no model for {variant}: none was given and there is no default model (looked for {}); \
     pass a checkpoint with --model (a step-N.json file or a run folder), or train one first",
    looked.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" and ")
)]
pub struct NoModel {
    pub variant: VariantId,
    pub looked: Vec<PathBuf>,
}

/// The places where the default model of `variant` may be: `models/<variant>/default` under the
/// current directory, then under the source tree.
pub fn default_locations(variant: VariantId) -> Vec<PathBuf> {
    let relative = Path::new("models").join(variant.name()).join(DEFAULT_RUN);
    let mut places = vec![relative.clone()];
    let in_tree = Path::new(env!("CARGO_MANIFEST_DIR")).join(&relative);
    if std::env::current_dir().map_or(true, |cwd| cwd.join(&relative) != in_tree) {
        places.push(in_tree);
    }
    places
}

/// The default model of `variant`: the first of [`default_locations`] that is a run folder with
/// a `latest` file.
pub fn default_model(variant: VariantId) -> Option<PathBuf> {
    default_locations(variant).into_iter().find(|dir| dir.join("latest").is_file())
}

/// The checkpoint to play `variant` with: `given`, else the default model.
pub fn resolve(given: Option<&Path>, variant: VariantId) -> Result<PathBuf, NoModel> {
    match given {
        Some(path) => Ok(path.to_path_buf()),
        None => default_model(variant).ok_or_else(|| NoModel { variant, looked: default_locations(variant) }),
    }
}

/// Inference settings for one engine searching one position at a time: batches of one, no
/// waiting, float32.
pub fn inference(device: DeviceChoice) -> InferenceConfig {
    InferenceConfig { device, precision: Precision::F32, batch_size: 1, max_wait_us: 0 }
}

/// Loads the checkpoint at `path` for `variant` (any variant when `None`) on `device`.
pub fn load(path: &Path, variant: Option<VariantId>, device: DeviceChoice) -> Result<Model, ModelError> {
    Model::load(path, variant, &inference(device))
}

/// The largest value of the protocols' `CaptureUtility` option, which gives the search's
/// capture utility in hundredths.
pub const MAX_CAPTURE_UTILITY: u32 = 10_000;

/// `search` with its capture utility given in the hundredths of the protocols'
/// `CaptureUtility` option (0 turns it off).
pub fn with_capture_utility_in_hundredths(search: SearchConfig, capture_utility: u32) -> SearchConfig {
    SearchConfig { capture_utility: capture_utility as f32 / 100.0, ..search }
}

/// `capture_utility` in the hundredths of the protocols' `CaptureUtility` option, or what is
/// wrong with it.
pub fn capture_utility_hundredths(capture_utility: f32) -> Result<u32, String> {
    let hundredths = (capture_utility * 100.0).round();
    if (0.0..=MAX_CAPTURE_UTILITY as f32).contains(&hundredths) {
        Ok(hundredths as u32)
    } else {
        Err(format!("the capture utility must be from 0 to {}, not {capture_utility}", MAX_CAPTURE_UTILITY / 100))
    }
}

/// An engine over `model` searching with `config` (a player's search:
/// [`SearchConfig::for_play`]); `seed` drives its random choices.
pub fn engine(model: &Model, config: SearchConfig, seed: u64) -> Engine {
    Engine::new(Box::new(model.evaluator()), config, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_checkpoint_wins_and_a_missing_default_is_explained() {
        let given = Path::new("some/run");
        assert_eq!(resolve(Some(given), VariantId::CHU_SHOGI), Ok(given.to_path_buf()));
        let places = default_locations(VariantId::DAI_SHOGI);
        assert_eq!(places[0], Path::new("models/dai-shogi/default"));
        assert!(places.iter().all(|p| p.ends_with("models/dai-shogi/default")));
        let error = NoModel { variant: VariantId::DAI_SHOGI, looked: places }.to_string();
        assert!(error.contains("no model for dai-shogi") && error.contains("--model"), "{error}");
        assert!(error.contains("models/dai-shogi/default"), "{error}");
    }
}

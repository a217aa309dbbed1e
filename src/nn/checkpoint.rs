//! Checkpoints: `models/<variant>/<run>/step-<step>.safetensors` (float32 weights) with a JSON
//! metadata sidecar `step-<step>.json` (variant, input encoding, policy map, network shape,
//! training step, time, size and checksum of the weights), and `latest`, a text file naming the
//! newest metadata file. Every file is written to a temporary name and renamed into place, the
//! metadata after the weights and `latest` last, so a crash never leaves a half-written file
//! under a final name.
//!
//! Loading reads the metadata first and refuses, with a [`CheckpointError`] and without
//! touching the weights, a checkpoint of another variant, input encoding, policy map or network
//! shape; then it checks the weights' size and checksum before reading them.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tch::{Device, Kind, Tensor};

use super::config::NetworkConfig;
use super::network::{IoLayout, Network, NetworkError};
use crate::fnv;
use crate::rules::VariantId;

/// Version of the metadata format.
pub const METADATA_FORMAT: u32 = 1;

/// Name of the pointer file in a run folder.
pub const LATEST: &str = "latest";

/// The metadata sidecar of a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// [`METADATA_FORMAT`].
    pub format: u32,
    /// Variant, input encoding and policy map the network was trained for.
    pub layout: IoLayout,
    /// The network's shape.
    pub network: NetworkConfig,
    /// Training steps behind these weights.
    pub step: u64,
    /// When the checkpoint was written, in seconds since 1970 (UTC).
    pub saved_at_unix: u64,
    /// The weights file, in the same folder.
    pub weights_file: String,
    /// Its size in bytes.
    pub weights_bytes: u64,
    /// Its FNV-1a 64 checksum, 16 hex digits.
    pub weights_fnv1a64: String,
}

/// Why a checkpoint could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot {action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
    #[error("'{0}' is not a run name (use letters, digits, '-', '_' and '.', not starting with '.')")]
    InvalidRunName(String),
    #[error("no checkpoint metadata at {path}")]
    MissingMetadata { path: PathBuf },
    #[error("checkpoint metadata {path} is corrupted: {message}")]
    CorruptMetadata { path: PathBuf, message: String },
    #[error("checkpoint {path} is for variant '{name}', which is not built in and has no {kept} beside it; give the variant file with --variant")]
    UnknownVariant { path: PathBuf, name: String, kept: PathBuf },
    #[error("checkpoint {path}: {message}")]
    Variant { path: PathBuf, message: String },
    #[error("checkpoint {path} is for {found}, not {expected}")]
    WrongVariant { path: PathBuf, expected: String, found: String },
    #[error(
        "checkpoint {path} uses input encoding version {found_version} (layout {found_hash}) but this program \
         encodes version {expected_version} (layout {expected_hash}) for {variant}"
    )]
    EncodingChanged { path: PathBuf, variant: String, expected_version: u32, expected_hash: String, found_version: u32, found_hash: String },
    #[error(
        "checkpoint {path} uses a policy map of {found_size} indices (layout {found_hash}) but this program's \
         {variant} policy map has {expected_size} (layout {expected_hash})"
    )]
    PolicyMapChanged { path: PathBuf, variant: String, expected_size: usize, expected_hash: String, found_size: usize, found_hash: String },
    #[error(
        "checkpoint {path} was trained on other rules of {variant} (rules hash {found_hash}, the variant file \
         now hashes to {expected_hash}): {rules_file} changed since; train a new network or restore that file"
    )]
    RulesChanged { path: PathBuf, variant: String, rules_file: String, expected_hash: String, found_hash: String },
    #[error("checkpoint {path} holds a network of shape {found} but {expected} was asked for")]
    WrongShape { path: PathBuf, expected: String, found: String },
    #[error("checkpoint weights {path} are missing")]
    MissingWeights { path: PathBuf },
    #[error("checkpoint weights {path} are truncated: {found} bytes, the metadata says {expected}")]
    Truncated { path: PathBuf, expected: u64, found: u64 },
    #[error("checkpoint weights {path} are corrupted: {message}")]
    CorruptWeights { path: PathBuf, message: String },
    #[error("checkpoint {path}: {source}")]
    Network { path: PathBuf, source: NetworkError },
}

/// The folder of run `run` of `variant` under the models folder `models`.
pub fn run_dir(models: &Path, variant: VariantId, run: &str) -> Result<PathBuf, CheckpointError> {
    let valid = !run.is_empty() && !run.starts_with('.') && run.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(CheckpointError::InvalidRunName(run.to_string()));
    }
    Ok(models.join(variant.name()).join(run))
}

/// The metadata file of the checkpoint of training step `step` in the run folder `dir`.
pub fn metadata_file(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("step-{step:010}.json"))
}

/// The checkpoints in the run folder `dir`: `(step, metadata file)` of every `step-<N>.json`,
/// by step.
pub fn list(dir: &Path) -> std::io::Result<Vec<(u64, PathBuf)>> {
    let mut found: Vec<(u64, PathBuf)> = fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?;
            let step = name.strip_prefix("step-")?.strip_suffix(".json")?.parse().ok()?;
            Some((step, path))
        })
        .collect();
    found.sort();
    Ok(found)
}

/// Saves `network` as the checkpoint of training step `step` in the run folder `dir` (created
/// if needed) and points `latest` at it. Returns the metadata file's path.
pub fn save(network: &Network, dir: &Path, step: u64) -> Result<PathBuf, CheckpointError> {
    fs::create_dir_all(dir).map_err(io_error("create", dir))?;
    let stem = format!("step-{step:010}");
    let weights_file = format!("{stem}.safetensors");
    let weights_path = dir.join(&weights_file);
    let temp = crate::files::temp_path(&weights_path, "tmp");
    let mut named: Vec<(String, Tensor)> = network
        .var_store()
        .variables()
        .into_iter()
        .map(|(name, t)| (name, t.detach().to_device(Device::Cpu).to_kind(Kind::Float).contiguous()))
        .collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    Tensor::write_safetensors(&named, &temp).map_err(|e| CheckpointError::Io {
        action: "write",
        path: temp.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let bytes = fs::read(&temp).map_err(io_error("read back", &temp))?;
    fs::File::open(&temp).and_then(|f| f.sync_all()).map_err(io_error("sync", &temp))?;
    fs::rename(&temp, &weights_path).map_err(io_error("rename into", &weights_path))?;
    let saved_at_unix = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let metadata = Metadata {
        format: METADATA_FORMAT,
        layout: network.layout().clone(),
        network: *network.config(),
        step,
        saved_at_unix,
        weights_file,
        weights_bytes: bytes.len() as u64,
        weights_fnv1a64: format!("{:016x}", fnv::hash(&bytes)),
    };
    let metadata_path = metadata_file(dir, step);
    let json = serde_json::to_string_pretty(&metadata).expect("metadata serialises");
    write_atomic(&metadata_path, format!("{json}\n").as_bytes())?;
    let name = metadata_path.file_name().expect("a file name").to_string_lossy();
    write_atomic(&dir.join(LATEST), format!("{name}\n").as_bytes())?;
    Ok(metadata_path)
}

/// Wraps an I/O error with what was being done to which file.
fn io_error<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> CheckpointError + 'a {
    move |source| CheckpointError::Io { action, path: path.to_path_buf(), source }
}

/// Writes `bytes` to `path` atomically ([`crate::files::write_atomic`]).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    crate::files::write_atomic(path, bytes).map_err(io_error("write", path))
}

/// The metadata file a path designates: a run folder's `latest`, or the path itself.
fn metadata_path(path: &Path) -> Result<PathBuf, CheckpointError> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let pointer = path.join(LATEST);
    let name = fs::read_to_string(&pointer).map_err(|_| CheckpointError::MissingMetadata { path: pointer.clone() })?;
    let name = name.trim();
    if name.is_empty() || name.contains(['/', '\\']) {
        return Err(CheckpointError::CorruptMetadata { path: pointer, message: format!("'{name}' is not a file name") });
    }
    Ok(path.join(name))
}

/// Reads the metadata of the checkpoint at `path` (a run folder or a metadata file). Returns
/// the metadata file's path with it.
pub fn read_metadata(path: &Path) -> Result<(PathBuf, Metadata), CheckpointError> {
    let path = metadata_path(path)?;
    let text = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CheckpointError::MissingMetadata { path }),
        Err(source) => return Err(CheckpointError::Io { action: "read", path, source }),
    };
    let corrupt = |message: String| CheckpointError::CorruptMetadata { path: path.clone(), message };
    let metadata: Metadata = serde_json::from_slice(&text).map_err(|e| corrupt(e.to_string()))?;
    if metadata.format != METADATA_FORMAT {
        return Err(corrupt(format!("metadata format {} (this program reads {METADATA_FORMAT})", metadata.format)));
    }
    if metadata.weights_file.contains(['/', '\\']) || metadata.weights_file.starts_with('.') {
        return Err(corrupt(format!("'{}' is not a weights file name", metadata.weights_file)));
    }
    Ok((path, metadata))
}

/// The copy of a variant file kept in the run folder of a variant that is not built in.
pub const VARIANT_FILE: &str = "variant.toml";

/// The variant of the checkpoint at `path` (a run folder or a metadata file): the known
/// variant its metadata names, else the variant file kept beside it ([`VARIANT_FILE`]).
pub fn variant_of(path: &Path) -> Result<VariantId, CheckpointError> {
    let (path, metadata) = read_metadata(path)?;
    variant_of_metadata(&path, &metadata)
}

/// The same for metadata already read from the file `path`.
pub fn variant_of_metadata(path: &Path, metadata: &Metadata) -> Result<VariantId, CheckpointError> {
    let name = &metadata.layout.variant;
    if let Some(id) = VariantId::known().into_iter().find(|id| id.name() == name) {
        return Ok(id);
    }
    let kept = path.with_file_name(VARIANT_FILE);
    if !kept.is_file() {
        return Err(CheckpointError::UnknownVariant { path: path.to_path_buf(), name: name.clone(), kept });
    }
    let id = VariantId::load(&kept).map_err(|e| CheckpointError::Variant { path: path.to_path_buf(), message: e.to_string() })?;
    match id.name() == name {
        true => Ok(id),
        false => Err(CheckpointError::WrongVariant { path: path.to_path_buf(), expected: name.clone(), found: id.name().to_string() }),
    }
}

/// Checks that a checkpoint's metadata fits `variant` as this program encodes it, and the
/// network shape `shape` when one is asked for.
pub fn check_metadata(path: &Path, metadata: &Metadata, variant: VariantId, shape: Option<&NetworkConfig>) -> Result<(), CheckpointError> {
    let path = path.to_path_buf();
    let found = &metadata.layout;
    // A checkpoint of an earlier encoding version, or of a shorter move history, is read with
    // that encoding's layout.
    let expected = IoLayout::with_history(variant, found.encoding_version, found.recent_moves).unwrap_or_else(|| IoLayout::of(variant));
    if found.variant != expected.variant {
        return Err(CheckpointError::WrongVariant { path, expected: expected.variant, found: found.variant.clone() });
    }
    if (found.encoding_version, found.recent_moves, &found.encoding_hash, found.input_planes, found.board_size)
        != (expected.encoding_version, expected.recent_moves, &expected.encoding_hash, expected.input_planes, expected.board_size)
    {
        return Err(CheckpointError::EncodingChanged {
            path,
            variant: expected.variant,
            expected_version: expected.encoding_version,
            expected_hash: expected.encoding_hash,
            found_version: found.encoding_version,
            found_hash: found.encoding_hash.clone(),
        });
    }
    if (found.policy_size, &found.policy_hash, found.policy_planes) != (expected.policy_size, &expected.policy_hash, expected.policy_planes)
    {
        return Err(CheckpointError::PolicyMapChanged {
            path,
            variant: expected.variant,
            expected_size: expected.policy_size,
            expected_hash: expected.policy_hash,
            found_size: found.policy_size,
            found_hash: found.policy_hash.clone(),
        });
    }
    if let (Some(found_hash), Some(expected_hash)) = (&found.rules_hash, expected.rules_hash) {
        if *found_hash != expected_hash {
            return Err(CheckpointError::RulesChanged {
                path,
                variant: expected.variant,
                rules_file: variant.source(),
                expected_hash,
                found_hash: found_hash.clone(),
            });
        }
    }
    match shape {
        Some(shape) if *shape != metadata.network => {
            Err(CheckpointError::WrongShape { path, expected: shape.to_string(), found: metadata.network.to_string() })
        }
        _ => Ok(()),
    }
}

/// Loads the checkpoint at `path` (a run folder, whose `latest` is followed, or a metadata
/// file) as a float32 network of `variant` on `device`. With `shape`, the checkpoint must hold
/// a network of that shape.
pub fn load(
    path: &Path,
    variant: VariantId,
    shape: Option<&NetworkConfig>,
    device: Device,
) -> Result<(Network, Metadata), CheckpointError> {
    let (path, metadata) = read_metadata(path)?;
    check_metadata(&path, &metadata, variant, shape)?;
    let weights_path = path.with_file_name(&metadata.weights_file);
    let bytes = match fs::read(&weights_path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CheckpointError::MissingWeights { path: weights_path });
        }
        Err(source) => return Err(CheckpointError::Io { action: "read", path: weights_path, source }),
    };
    let corrupt = |message: String| CheckpointError::CorruptWeights { path: weights_path.clone(), message };
    let found = bytes.len() as u64;
    if found < metadata.weights_bytes {
        return Err(CheckpointError::Truncated { path: weights_path, expected: metadata.weights_bytes, found });
    }
    if found > metadata.weights_bytes {
        return Err(corrupt(format!("{found} bytes, the metadata says {}", metadata.weights_bytes)));
    }
    let checksum = format!("{:016x}", fnv::hash(&bytes));
    if checksum != metadata.weights_fnv1a64 {
        return Err(corrupt(format!("checksum {checksum}, the metadata says {}", metadata.weights_fnv1a64)));
    }
    let tensors = Tensor::read_safetensors(&weights_path).map_err(|e| corrupt(e.to_string()))?;
    // check_metadata has matched the rules (or found none recorded): the network is of these.
    let layout = IoLayout { rules_hash: IoLayout::of(variant).rules_hash, ..metadata.layout.clone() };
    let network = Network::with_layout(variant, layout, &metadata.network, device)
        .map_err(|source| CheckpointError::Network { path: path.clone(), source })?;
    let variables = network.var_store().variables();
    if tensors.len() != variables.len() {
        return Err(corrupt(format!("{} tensors, the network has {}", tensors.len(), variables.len())));
    }
    let _guard = tch::no_grad_guard();
    for (name, source) in tensors {
        let Some(mut target) = variables.get(&name).map(Tensor::shallow_clone) else {
            return Err(corrupt(format!("unexpected tensor '{name}'")));
        };
        if source.size() != target.size() {
            return Err(corrupt(format!("tensor '{name}' has shape {:?}, the network {:?}", source.size(), target.size())));
        }
        target.f_copy_(&source.to_kind(target.kind()).to_device(device)).map_err(|e| corrupt(format!("tensor '{name}': {e}")))?;
    }
    Ok((network, metadata))
}

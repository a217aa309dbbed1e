//! Checkpoints: save then load gives a network with identical outputs; `latest` follows the
//! newest save; and each kind of bad checkpoint gives its own error, never a panic.

mod common;
mod nn_support;

use std::fs;
use std::path::{Path, PathBuf};

use nn_support::{encode_batch, sample_games, tiny_config, Scratch};
use shogi_zero::mcts::{Evaluator, Model};
use shogi_zero::nn::checkpoint::{self, LATEST};
use shogi_zero::nn::encoding::ENCODING_VERSION;
use shogi_zero::nn::{CheckpointError, DeviceChoice, InferenceConfig, IoLayout, Network, NetworkConfig, Precision};
use shogi_zero::rules::VariantId;
use tch::{Device, Tensor};

const SHOGI: VariantId = VariantId::SHOGI;

/// Outputs of `net` on a few real shogi positions: every policy logit, WDL logits, moves left.
fn outputs(net: &Network) -> Vec<f32> {
    let batch = encode_batch(&sample_games(SHOGI, 6, 4));
    let input = Tensor::from_slice(&batch.planes).view([6, net.layout().input_planes as i64, 9, 9]);
    let out = tch::no_grad(|| net.forward(&input, false));
    let flat = Tensor::cat(&[out.policy.reshape([-1]), out.wdl.reshape([-1]), out.moves_left], 0);
    Vec::<f32>::try_from(&flat).unwrap()
}

/// A saved checkpoint: the network, its run folder and metadata file, and the scratch folder
/// holding them.
struct Saved {
    net: Network,
    dir: PathBuf,
    metadata: PathBuf,
    _scratch: Scratch,
}

/// A tiny shogi network with trained-looking (random, non-default) normalisation statistics,
/// saved at step 12 in a fresh run folder.
fn saved(name: &str) -> Saved {
    tch::manual_seed(5);
    let net = Network::new(SHOGI, &tiny_config(), Device::Cpu).unwrap();
    tch::no_grad(|| {
        for (name, mut t) in net.var_store().variables() {
            if name.ends_with("running_var") {
                t.copy_(&(t.rand_like() + 0.5));
            } else if name.ends_with("running_mean") {
                t.copy_(&t.randn_like());
            }
        }
    });
    let scratch = Scratch::new(name);
    let dir = checkpoint::run_dir(&scratch.0, SHOGI, "test-run").unwrap();
    let metadata = checkpoint::save(&net, &dir, 12).unwrap();
    Saved { net, dir, metadata, _scratch: scratch }
}

#[test]
fn save_then_load_gives_identical_outputs() {
    let ckpt = saved("round-trip");
    let net = &ckpt.net;
    let dir = &ckpt.dir;
    let metadata_path = &ckpt.metadata;
    assert_eq!(*metadata_path, dir.join("step-0000000012.json"));
    assert!(dir.ends_with("shogi/test-run"));
    let (loaded, metadata) = checkpoint::load(dir, SHOGI, Some(&tiny_config()), Device::Cpu).unwrap();
    assert_eq!(metadata.step, 12);
    assert_eq!(metadata.network, tiny_config());
    assert_eq!(&metadata.layout, net.layout());
    assert_eq!(outputs(&loaded), outputs(net), "loaded network computes the same");
    // Without an expected shape the metadata's is used.
    let (loaded, _) = checkpoint::load(metadata_path, SHOGI, None, Device::Cpu).unwrap();
    assert_eq!(outputs(&loaded), outputs(net));
    let names: Vec<String> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "no temporary file left behind: {names:?}");
}

#[test]
fn latest_follows_the_newest_save() {
    let ckpt = saved("latest");
    let net = &ckpt.net;
    let dir = &ckpt.dir;
    checkpoint::save(net, dir, 40).unwrap();
    assert_eq!(fs::read_to_string(dir.join(LATEST)).unwrap().trim(), "step-0000000040.json");
    let (_, metadata) = checkpoint::load(dir, SHOGI, None, Device::Cpu).unwrap();
    assert_eq!(metadata.step, 40);
    let (_, metadata) = checkpoint::load(&dir.join("step-0000000012.json"), SHOGI, None, Device::Cpu).unwrap();
    assert_eq!(metadata.step, 12);
}

fn load(path: &Path) -> CheckpointError {
    checkpoint::load(path, SHOGI, Some(&tiny_config()), Device::Cpu).map(|_| ()).expect_err("the load fails")
}

/// Rewrites the metadata file with `edit` applied to its JSON text.
fn edit_metadata(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "metadata contains {from}");
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_checkpoint_of_another_variant_is_refused() {
    let ckpt = saved("wrong-variant");
    let dir = &ckpt.dir;
    let error = checkpoint::load(dir, VariantId::HEIAN_DAI_SHOGI, None, Device::Cpu).map(|_| ()).unwrap_err();
    assert!(matches!(error, CheckpointError::WrongVariant { .. }), "{error}");
    assert!(error.to_string().contains("is for shogi, not heian-dai-shogi"), "{error}");
}

#[test]
fn a_changed_encoding_is_refused() {
    let ckpt = saved("encoding");
    let net = &ckpt.net;
    let metadata = &ckpt.metadata;
    edit_metadata(metadata, &format!("\"encoding_hash\": \"{}\"", net.layout().encoding_hash), "\"encoding_hash\": \"0000000000000000\"");
    let error = load(metadata);
    assert!(matches!(error, CheckpointError::EncodingChanged { .. }), "{error}");

    let ckpt = saved("encoding-version");
    let metadata = &ckpt.metadata;
    edit_metadata(metadata, &format!("\"encoding_version\": {ENCODING_VERSION}"), "\"encoding_version\": 0");
    assert!(matches!(load(metadata), CheckpointError::EncodingChanged { .. }));

    let ckpt = saved("policy-map");
    let net = &ckpt.net;
    let metadata = &ckpt.metadata;
    edit_metadata(metadata, &format!("\"policy_hash\": \"{}\"", net.layout().policy_hash), "\"policy_hash\": \"0000000000000001\"");
    let error = load(metadata);
    assert!(matches!(error, CheckpointError::PolicyMapChanged { .. }), "{error}");
}

/// A checkpoint records the hash of its variant's rules: one of other rules is refused, naming
/// the variant file; one that records none (saved before the hash was kept) loads.
#[test]
fn a_checkpoint_of_other_rules_is_refused() {
    let ckpt = saved("rules");
    let hash = ckpt.net.layout().rules_hash.clone().expect("a checkpoint records its rules' hash");
    let recorded = format!("\"policy_hash\": \"{}\",\n    \"rules_hash\": \"{hash}\"", ckpt.net.layout().policy_hash);
    edit_metadata(&ckpt.metadata, &recorded, &recorded.replace(&hash, "0000000000000002"));
    let error = load(&ckpt.metadata);
    assert!(matches!(error, CheckpointError::RulesChanged { .. }), "{error}");
    let text = error.to_string();
    assert!(text.contains("variants/shogi.toml") && text.contains("0000000000000002") && text.contains(&hash), "{text}");
    let without = format!("\"policy_hash\": \"{}\"", ckpt.net.layout().policy_hash);
    edit_metadata(&ckpt.metadata, &recorded.replace(&hash, "0000000000000002"), &without);
    checkpoint::load(&ckpt.metadata, SHOGI, Some(&tiny_config()), Device::Cpu).expect("a checkpoint without a rules hash loads");
}

#[test]
fn a_checkpoint_of_an_earlier_encoding_version_is_read_with_that_version() {
    let chu = VariantId::CHU_SHOGI;
    let old_layout = IoLayout::with_version(chu, 1).unwrap();
    assert_ne!(old_layout.input_planes, IoLayout::of(chu).input_planes, "version 2 adds a chu plane");
    let net = Network::with_layout(chu, old_layout.clone(), &tiny_config(), Device::Cpu).unwrap();
    let scratch = Scratch::new("encoding-v1");
    let dir = checkpoint::run_dir(&scratch.0, chu, "old").unwrap();
    checkpoint::save(&net, &dir, 3).unwrap();
    let (loaded, metadata) = checkpoint::load(&dir, chu, None, Device::Cpu).unwrap();
    assert_eq!(metadata.layout, old_layout);
    assert_eq!(loaded.encoder().version(), 1);
    assert_eq!(loaded.encoder().plane_count(), old_layout.input_planes);
    // Served, it is fed the version-1 planes of a position and answers for its moves.
    let model = Model::load(
        &dir,
        Some(chu),
        &InferenceConfig { device: DeviceChoice::Cpu, precision: Precision::F32, batch_size: 8, max_wait_us: 100 },
    )
    .unwrap();
    let game = sample_games(chu, 1, 6).remove(0);
    let moves = game.legal_moves();
    let evaluation = model.evaluator().evaluate(&game, &moves).unwrap();
    assert_eq!(evaluation.priors.len(), moves.len());
    assert!(evaluation.priors.iter().chain(&evaluation.wdl).all(|p| p.is_finite()));
    // A default model saved before version 2 still loads.
    let dai = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/old-checkpoints/dai-shogi-v1");
    let (_, metadata) = checkpoint::load(&dai, VariantId::DAI_SHOGI, None, Device::Cpu).unwrap();
    // It was saved before checkpoints recorded the rules' hash: it records none.
    let current = IoLayout::with_version(VariantId::DAI_SHOGI, metadata.layout.encoding_version).unwrap();
    assert_eq!(metadata.layout, IoLayout { rules_hash: None, ..current });
}

/// A network showing fewer recent moves records that in its metadata and is fed those planes
/// when loaded; a default network's metadata does not name the key, so that it reads as before.
#[test]
fn a_checkpoint_records_a_shorter_move_history() {
    let ckpt = saved("full-history");
    assert!(!fs::read_to_string(&ckpt.metadata).unwrap().contains("recent_moves"));
    let config = NetworkConfig { recent_moves: Some(0), ..tiny_config() };
    let net = Network::new(SHOGI, &config, Device::Cpu).unwrap();
    let scratch = Scratch::new("short-history");
    let dir = checkpoint::run_dir(&scratch.0, SHOGI, "short").unwrap();
    let metadata_path = checkpoint::save(&net, &dir, 3).unwrap();
    let (loaded, metadata) = checkpoint::load(&dir, SHOGI, None, Device::Cpu).unwrap();
    assert_eq!(metadata.layout, IoLayout::with_history(SHOGI, ENCODING_VERSION, 0).unwrap());
    assert_eq!((loaded.encoder().recent_moves(), loaded.encoder().plane_count()), (0, 63));
    // A history the hash does not describe, or one this program cannot build, is refused.
    for edited in ["\"recent_moves\": 1", "\"recent_moves\": 9"] {
        let text = fs::read_to_string(&metadata_path).unwrap();
        fs::write(&metadata_path, text.replacen("\"recent_moves\": 0", edited, 1)).unwrap();
        let error = checkpoint::load(&dir, SHOGI, None, Device::Cpu).map(|_| ()).unwrap_err();
        assert!(matches!(error, CheckpointError::EncodingChanged { .. }), "{edited}: {error}");
        fs::write(&metadata_path, text).unwrap();
    }
    // A default checkpoint whose layout names a history no encoding has is refused too.
    edit_metadata(
        &ckpt.metadata,
        &format!("\"encoding_version\": {ENCODING_VERSION},"),
        &format!("\"encoding_version\": {ENCODING_VERSION}, \"recent_moves\": 9,"),
    );
    assert!(matches!(load(&ckpt.metadata), CheckpointError::EncodingChanged { .. }));
}

/// A network with the auxiliary heads saves and loads them; its plain outputs are those of
/// `forward`, and a network without the heads has no auxiliary outputs at all.
#[test]
fn auxiliary_heads_round_trip_and_stay_out_of_plain_outputs() {
    let config = NetworkConfig { auxiliary_heads: true, ..tiny_config() };
    tch::manual_seed(9);
    let net = Network::new(SHOGI, &config, Device::Cpu).unwrap();
    let plain = Network::new(SHOGI, &tiny_config(), Device::Cpu).unwrap();
    let plain_names = plain.var_store().variables();
    let mut extra: Vec<String> = net.var_store().variables().into_keys().filter(|name| !plain_names.contains_key(name)).collect();
    extra.sort();
    let layers = ["policy.reply_extras", "policy.reply_planes", "value.material", "value.short_term_value"];
    let expected: Vec<String> = layers.iter().flat_map(|layer| [format!("{layer}.bias"), format!("{layer}.weight")]).collect();
    assert_eq!(extra, expected, "only the auxiliary layers are added");
    let batch = encode_batch(&sample_games(SHOGI, 4, 4));
    let input = Tensor::from_slice(&batch.planes).view([4, net.layout().input_planes as i64, 9, 9]);
    let (output, auxiliary) = tch::no_grad(|| net.forward_with_auxiliary(&input, false));
    let auxiliary = auxiliary.expect("a network with the heads gives their outputs");
    assert_eq!(auxiliary.opponent_policy.size(), [4, net.layout().policy_size as i64]);
    let material = output.material.as_ref().expect("a network with the heads predicts the material");
    assert_eq!(material.size(), [4, 2]);
    assert_eq!(auxiliary.short_term_value.size(), [4]);
    assert!(Vec::<f32>::try_from(&auxiliary.short_term_value).unwrap().iter().all(|v| v.abs() <= 1.0));
    let plain_pass = tch::no_grad(|| net.forward(&input, false));
    for (a, b) in [(&plain_pass.policy, &output.policy), (&plain_pass.wdl, &output.wdl), (&plain_pass.moves_left, &output.moves_left)] {
        assert!(a.equal(b), "the auxiliary heads leave the other outputs as they are");
    }
    let (plain_output, plain_auxiliary) = tch::no_grad(|| plain.forward_with_auxiliary(&input, false));
    assert!(plain_auxiliary.is_none() && plain_output.material.is_none());

    let scratch = Scratch::new("auxiliary-heads");
    let dir = checkpoint::run_dir(&scratch.0, SHOGI, "aux").unwrap();
    let metadata_path = checkpoint::save(&net, &dir, 5).unwrap();
    assert!(fs::read_to_string(&metadata_path).unwrap().contains("\"auxiliary_heads\": true"));
    let (loaded, metadata) = checkpoint::load(&dir, SHOGI, Some(&config), Device::Cpu).unwrap();
    assert!(metadata.network.auxiliary_heads);
    let (reloaded_output, reloaded) = tch::no_grad(|| loaded.forward_with_auxiliary(&input, false));
    let reloaded = reloaded.unwrap();
    for (a, b) in [
        (&auxiliary.opponent_policy, &reloaded.opponent_policy),
        (material, reloaded_output.material.as_ref().unwrap()),
        (&auxiliary.short_term_value, &reloaded.short_term_value),
    ] {
        assert!(a.equal(b), "the auxiliary heads' weights are saved and loaded");
    }
    // Asked for a network without the heads, the checkpoint is another shape.
    let error = checkpoint::load(&dir, SHOGI, Some(&tiny_config()), Device::Cpu).map(|_| ()).unwrap_err();
    assert!(matches!(error, CheckpointError::WrongShape { .. }) && error.to_string().contains("auxiliary heads"), "{error}");
}

/// Checkpoints saved before the auxiliary heads existed (no `auxiliary_heads` in their
/// metadata) still load and play, and a network without the heads is saved as they were.
#[test]
fn checkpoints_without_auxiliary_heads_load_as_before() {
    let old: NetworkConfig = serde_json::from_str(
        r#"{"blocks": 3, "channels": 32, "global_pool_every": 2, "global_pool_channels": 8, "policy_channels": 16, "value_channels": 16, "value_hidden": 32}"#,
    )
    .unwrap();
    assert!(!old.auxiliary_heads);
    let ckpt = saved("no-auxiliary-heads");
    assert!(!fs::read_to_string(&ckpt.metadata).unwrap().contains("auxiliary_heads"), "the metadata reads as before");
    // A default model saved before the heads existed loads and evaluates.
    let default = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/old-checkpoints/shogi-v2");
    let (network, metadata) = checkpoint::load(&default, SHOGI, None, Device::Cpu).unwrap();
    assert!(!metadata.network.auxiliary_heads);
    assert!(tch::no_grad(|| network
        .forward_with_auxiliary(&Tensor::zeros([1, network.layout().input_planes as i64, 9, 9], (tch::Kind::Float, Device::Cpu)), false))
    .1
    .is_none());
    let inference = InferenceConfig { device: DeviceChoice::Cpu, precision: Precision::F32, batch_size: 8, max_wait_us: 100 };
    let model = Model::load(&default, Some(SHOGI), &inference).unwrap();
    let game = sample_games(SHOGI, 1, 6).remove(0);
    let moves = game.legal_moves();
    let evaluation = model.evaluator().evaluate(&game, &moves).unwrap();
    assert_eq!(evaluation.priors.len(), moves.len());
    assert!((evaluation.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    assert!((evaluation.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
}

#[test]
fn a_network_of_another_shape_is_refused() {
    let ckpt = saved("shape");
    let dir = &ckpt.dir;
    let other = NetworkConfig::scaled(3, 16);
    let error = checkpoint::load(dir, SHOGI, Some(&other), Device::Cpu).map(|_| ()).unwrap_err();
    assert!(matches!(error, CheckpointError::WrongShape { .. }), "{error}");
    assert!(error.to_string().contains("2x16") && error.to_string().contains("3x16"), "{error}");
}

/// The weights file of the checkpoint whose metadata is at `metadata`.
fn weights(metadata: &Path) -> PathBuf {
    metadata.with_extension("safetensors")
}

#[test]
fn truncated_weights_are_refused() {
    let ckpt = saved("truncated");
    let metadata = &ckpt.metadata;
    let bytes = fs::read(weights(metadata)).unwrap();
    fs::write(weights(metadata), &bytes[..bytes.len() / 2]).unwrap();
    let error = load(metadata);
    assert!(matches!(error, CheckpointError::Truncated { .. }), "{error}");
}

#[test]
fn corrupted_weights_are_refused() {
    for (name, offset) in [("corrupt-header", 20), ("corrupt-data", usize::MAX)] {
        let ckpt = saved(name);
        let metadata = &ckpt.metadata;
        let mut bytes = fs::read(weights(metadata)).unwrap();
        let at = offset.min(bytes.len() - 3);
        bytes[at] ^= 0x5a;
        fs::write(weights(metadata), &bytes).unwrap();
        let error = load(metadata);
        assert!(matches!(error, CheckpointError::CorruptWeights { .. }), "{name}: {error}");
    }
    // A file whose checksum was recomputed, so only the format check can catch it.
    let ckpt = saved("corrupt-recomputed");
    let metadata = &ckpt.metadata;
    let garbage = vec![7u8; 1000];
    fs::write(weights(metadata), &garbage).unwrap();
    let text = fs::read_to_string(metadata).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["weights_bytes"] = 1000.into();
    json["weights_fnv1a64"] = format!("{:016x}", shogi_zero::fnv::hash(&garbage)).into();
    fs::write(metadata, json.to_string()).unwrap();
    let error = load(metadata);
    assert!(matches!(error, CheckpointError::CorruptWeights { .. }), "{error}");
}

#[test]
fn missing_or_corrupted_metadata_is_refused() {
    let ckpt = saved("metadata");
    let dir = &ckpt.dir;
    let metadata = &ckpt.metadata;
    fs::write(metadata, "{\"format\": 1, \"layout\":").unwrap();
    let error = load(dir);
    assert!(matches!(error, CheckpointError::CorruptMetadata { .. }), "{error}");
    fs::remove_file(metadata).unwrap();
    let error = load(dir);
    assert!(matches!(error, CheckpointError::MissingMetadata { .. }), "{error}");
    let empty = Scratch::new("empty-run");
    assert!(matches!(load(&empty.0), CheckpointError::MissingMetadata { .. }));
    assert!(matches!(load(&empty.0.join("nothing.json")), CheckpointError::MissingMetadata { .. }));

    let ckpt = saved("missing-weights");
    let metadata = &ckpt.metadata;
    fs::remove_file(weights(metadata)).unwrap();
    assert!(matches!(load(metadata), CheckpointError::MissingWeights { .. }));

    let ckpt = saved("unknown-field");
    let metadata = &ckpt.metadata;
    edit_metadata(metadata, "\"step\": 12", "\"step\": 12, \"steps\": 3");
    let error = load(metadata);
    assert!(matches!(&error, CheckpointError::CorruptMetadata { message, .. } if message.contains("steps")), "{error}");
}

#[test]
fn run_names_cannot_leave_the_models_folder() {
    for bad in ["", "..", "../x", "a/b", ".hidden"] {
        assert!(matches!(checkpoint::run_dir(Path::new("models"), SHOGI, bad), Err(CheckpointError::InvalidRunName(_))), "'{bad}'");
    }
}

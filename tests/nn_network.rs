//! The network: a tiny one runs forward on a batch of real positions of every variant with the
//! documented output shapes; reduced precision stays close to float32; the configuration files
//! load, and bad ones give errors naming the file and the field.

mod common;
mod nn_support;

use std::path::{Path, PathBuf};

use nn_support::{encode_batch, sample_games, tiny_config};
use shogi_zero::config::{ConfigError, RunConfig};
use shogi_zero::nn::{DeviceChoice, DeviceError, Inference, Network, NetworkConfig, Precision};
use shogi_zero::rules::VariantId;
use tch::{Device, Kind, Tensor};

#[test]
fn a_tiny_network_runs_on_real_positions_of_every_variant() {
    tch::manual_seed(1);
    for id in VariantId::ALL {
        let games = sample_games(id, 5, 3);
        let batch = encode_batch(&games);
        let net = Network::new(id, &tiny_config(), Device::Cpu).unwrap();
        let layout = net.layout().clone();
        let n = layout.board_size as i64;
        let input = Tensor::from_slice(&batch.planes).view([5, layout.input_planes as i64, n, n]);
        let out = tch::no_grad(|| net.forward(&input, false));
        assert_eq!(out.policy.size(), [5, layout.policy_size as i64], "{id}");
        assert_eq!(out.wdl.size(), [5, 3], "{id}");
        assert_eq!(out.moves_left.size(), [5], "{id}");
        assert_eq!(out.policy.kind(), Kind::Float);
        assert!(out.moves_left.min().double_value(&[]) >= 0.0, "{id}: moves left are never negative");

        let mut inference = Inference::default();
        net.infer_into(&batch.planes, &batch.legal, &mut inference);
        assert_eq!(inference.batch(), 5);
        for (i, legal) in batch.legal.iter().enumerate() {
            let e = inference.evaluation(i);
            assert_eq!(e.priors.len(), legal.len());
            assert!((e.priors.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{id}: priors sum to 1");
            assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{id}: WDL sums to 1");
            assert!(e.priors.iter().chain(&e.wdl).all(|p| p.is_finite() && *p >= 0.0));
        }
    }
}

/// Inference computes the policy only at the moves asked for; those logits are the ones the
/// full forward pass gives there, for plane indices anywhere on the board and for the extra
/// indices outside the planes, in the order asked, with and without auxiliary heads.
#[test]
fn inference_logits_are_the_forward_pass_logits_at_the_moves_asked_for() {
    tch::manual_seed(4);
    for (id, auxiliary_heads) in VariantId::ALL.into_iter().zip([false, true].into_iter().cycle()) {
        let games = sample_games(id, 3, 5);
        let batch = encode_batch(&games);
        let net = Network::new(id, &NetworkConfig { auxiliary_heads, ..tiny_config() }, Device::Cpu).unwrap();
        let layout = net.layout().clone();
        let (size, planes_end) = (layout.policy_size as u32, (layout.policy_planes * layout.board_size * layout.board_size) as u32);
        // Each position asks for its legal moves, then the first and last plane indices, a
        // spread of others, and every extra index, last first.
        let asked: Vec<Vec<u32>> = batch
            .legal
            .iter()
            .enumerate()
            .map(|(i, legal)| {
                let mut moves = legal.clone();
                moves.extend([0, planes_end - 1]);
                moves.extend((0..planes_end).step_by(997 + i));
                moves.extend((planes_end..size).rev());
                moves
            })
            .collect();
        let n = layout.board_size as i64;
        let input = Tensor::from_slice(&batch.planes).view([3, layout.input_planes as i64, n, n]);
        let policy = tch::no_grad(|| net.forward(&input, false)).policy;
        let mut inference = Inference::default();
        net.infer_into(&batch.planes, &asked, &mut inference);
        for (i, moves) in asked.iter().enumerate() {
            let logits = inference.legal_logits(i);
            assert_eq!(logits.len(), moves.len(), "{id}");
            for (&k, &logit) in moves.iter().zip(logits) {
                let expected = policy.double_value(&[i as i64, k as i64]) as f32;
                assert!((logit - expected).abs() < 1e-4, "{id}, position {i}, index {k}: {logit} against {expected}");
            }
        }
    }
}

/// A network with auxiliary heads predicts the material balance in every forward pass: a few
/// plies ahead and at the game's end, for each position.
#[test]
fn the_material_head_of_a_network_with_auxiliary_heads_runs_in_every_pass() {
    tch::manual_seed(3);
    let games = sample_games(VariantId::CHU_SHOGI, 4, 2);
    let batch = encode_batch(&games);
    let net = Network::new(VariantId::CHU_SHOGI, &NetworkConfig { auxiliary_heads: true, ..tiny_config() }, Device::Cpu).unwrap();
    let n = net.layout().board_size as i64;
    let input = Tensor::from_slice(&batch.planes).view([4, net.layout().input_planes as i64, n, n]);
    let material = tch::no_grad(|| net.forward(&input, false)).material.expect("the material head runs in every pass");
    assert_eq!(material.size(), [4, 2]);
    assert!(Vec::<f32>::try_from(material.flatten(0, -1)).unwrap().iter().all(|m| m.is_finite()));
}

#[test]
fn training_mode_backpropagates_into_every_weight() {
    tch::manual_seed(2);
    let games = sample_games(VariantId::SHOGI, 4, 1);
    let batch = encode_batch(&games);
    let net = Network::new(VariantId::SHOGI, &tiny_config(), Device::Cpu).unwrap();
    let input = Tensor::from_slice(&batch.planes).view([4, net.layout().input_planes as i64, 9, 9]);
    let out = net.forward(&input, true);
    let loss = out.policy.square().mean(Kind::Float) + out.wdl.square().mean(Kind::Float) + out.moves_left.mean(Kind::Float);
    loss.backward();
    for (name, t) in net.var_store().trainable_variables().iter().enumerate() {
        assert!(t.grad().defined(), "variable {name} gets no gradient");
    }
}

#[test]
fn bfloat16_inference_stays_close_to_float32() {
    tch::manual_seed(3);
    let games = sample_games(VariantId::SHOGI, 4, 2);
    let batch = encode_batch(&games);
    let mut net = Network::new(VariantId::SHOGI, &tiny_config(), Device::Cpu).unwrap();
    let (mut full, mut half) = (Inference::default(), Inference::default());
    net.infer_into(&batch.planes, &batch.legal, &mut full);
    net.set_precision(Precision::Bf16).unwrap();
    assert_eq!(net.precision(), Precision::Bf16);
    net.infer_into(&batch.planes, &batch.legal, &mut half);
    for i in 0..4 {
        let (a, b) = (full.evaluation(i), half.evaluation(i));
        let prior_error = a.priors.iter().zip(&b.priors).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        let wdl_error = a.wdl.iter().zip(&b.wdl).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(prior_error < 0.05 && wdl_error < 0.05, "bf16 differs by {prior_error} (priors), {wdl_error} (WDL)");
    }
    assert_eq!(net.set_precision(Precision::F16), Err(DeviceError::Unsupported { precision: Precision::F16, device: DeviceChoice::Cpu }));
    net.set_precision(Precision::Auto).unwrap();
    assert_eq!(net.precision(), Precision::Auto.resolve(Device::Cpu), "auto is resolved for the device");
    assert_ne!(net.precision(), Precision::Auto);
}

#[test]
fn a_shape_can_ask_for_an_earlier_encoding() {
    let config = NetworkConfig { encoding_version: Some(2), ..tiny_config() };
    let net = Network::new(VariantId::SHOGI, &config, Device::Cpu).unwrap();
    assert_eq!(net.layout().encoding_version, 2);
    assert_eq!(net.encoder().plane_count(), 55);
    assert_eq!(Network::new(VariantId::SHOGI, &tiny_config(), Device::Cpu).unwrap().encoder().plane_count(), 67);
    let error = Network::new(VariantId::SHOGI, &NetworkConfig { encoding_version: Some(0), ..tiny_config() }, Device::Cpu).unwrap_err();
    assert!(error.to_string().contains("network.encoding_version"), "{error}");
}

#[test]
fn a_shape_can_show_fewer_recent_moves() {
    let config = NetworkConfig { recent_moves: Some(1), ..tiny_config() };
    let net = Network::new(VariantId::SHOGI, &config, Device::Cpu).unwrap();
    assert_eq!(net.layout().recent_moves, 1);
    assert_eq!((net.encoder().recent_moves(), net.encoder().plane_count()), (1, 65), "the two planes of the mover's own move go");
    assert_eq!(net.layout().input_planes, 65);
    assert!(net.layout().to_string().ends_with("last 1 moves shown"), "{}", net.layout());
    let default = Network::new(VariantId::SHOGI, &tiny_config(), Device::Cpu).unwrap();
    assert_eq!(default.layout().recent_moves, 2);
    assert_ne!(default.layout().encoding_hash, net.layout().encoding_hash);
    let error = Network::new(VariantId::SHOGI, &NetworkConfig { recent_moves: Some(3), ..tiny_config() }, Device::Cpu).unwrap_err();
    assert!(error.to_string().contains("network.recent_moves"), "{error}");
}

#[test]
fn cuda_is_an_error_where_there_is_none() {
    if tch::Cuda::is_available() {
        assert_eq!(DeviceChoice::Cuda(0).resolve(), Ok(Device::Cuda(0)));
    } else {
        let error = DeviceChoice::Cuda(0).resolve().unwrap_err();
        assert!(error.to_string().contains("no CUDA device"), "{error}");
    }
}

fn configs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs")
}

/// The `[network]` table of the reference recipe `configs/recipes/<size>.toml`.
fn reference_network(size: &str) -> NetworkConfig {
    let path = configs().join("recipes").join(format!("{size}.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    RunConfig::parse(&format!("variant = \"shogi\"\n{text}"), &path).unwrap_or_else(|e| panic!("{e}")).network
}

#[test]
fn every_preset_loads_and_builds() {
    let mut presets = 0;
    for entry in std::fs::read_dir(configs()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            let config = RunConfig::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            assert!(name.starts_with(config.variant.name()), "{name} names its variant first");
            let n = config.network;
            // The heads are those of NetworkConfig::scaled for the tower, or, for a preset that
            // only deepens or widens the tower, those of its size's reference recipe.
            let scaled = NetworkConfig { auxiliary_heads: n.auxiliary_heads, ..NetworkConfig::scaled(n.blocks, n.channels) };
            let size = name.rsplit('-').next().unwrap();
            let reference = reference_network(size);
            let heads =
                |c: &NetworkConfig| (c.global_pool_every, c.global_pool_channels, c.policy_channels, c.value_channels, c.value_hidden);
            assert!(
                n == scaled || heads(&n) == heads(&reference),
                "{name}: heads {:?} are neither scaled {:?} nor recipes/{size}.toml's {:?}",
                heads(&n),
                heads(&scaled),
                heads(&reference)
            );
            match Network::for_inference(config.variant, &config.network, &config.inference) {
                Ok(net) => {
                    assert_eq!(net.precision(), config.inference.precision);
                    assert_eq!(net.config(), &n);
                }
                Err(e) => {
                    let cpu = config.inference.device == DeviceChoice::Cpu;
                    assert!(!cpu && !tch::Cuda::is_available(), "{name}: {e}");
                    assert!(e.to_string().contains("no CUDA device"), "{name}: {e}");
                }
            }
            presets += 1;
        }
    }
    assert!(presets >= 8);
    let small = RunConfig::load(&configs().join("shogi-small.toml")).unwrap();
    assert_eq!((small.network.blocks, small.network.channels), (6, 64));
    assert_eq!(small.inference.device, DeviceChoice::Cpu);
    assert_eq!(small.inference.precision, Precision::F32);
}

/// The tiny reference recipe for shogi (every key in one file) with `from` replaced by `to`,
/// parsed as the file `shogi-tiny.toml`.
fn edited(from: &str, to: &str) -> Result<RunConfig, ConfigError> {
    let path = configs().join("shogi-tiny.toml");
    let recipe = std::fs::read_to_string(configs().join("recipes/tiny.toml")).unwrap();
    let text = format!("variant = \"shogi\"\n{recipe}");
    assert!(text.contains(from), "the preset contains '{from}'");
    RunConfig::parse(&text.replacen(from, to, 1), &path)
}

#[test]
fn bad_configs_are_refused_naming_the_file_and_field() {
    let cases = [
        ("blocks = 2", "blocks = 2\nblokcs = 3", "blokcs"),
        ("blocks = 2", "", "blocks"),
        ("blocks = 2", "blocks = \"two\"", "blocks"),
        ("blocks = 2", "blocks = 0", "network.blocks"),
        ("global_pool_channels = 4", "global_pool_channels = 16", "network.global_pool_channels"),
        ("variant = \"shogi\"", "variant = \"chess\"", "chess"),
        ("device = \"cpu\"", "device = \"gpu\"", "gpu"),
        ("precision = \"f32\"", "precision = \"f8\"", "f8"),
        ("batch_size = 32", "batch_size = 0", "inference.batch_size"),
        ("blocks = 2", "blocks = 2\nencoding_version = 9", "network.encoding_version"),
        ("blocks = 2", "blocks = 2\nrecent_moves = 3", "network.recent_moves"),
        ("\n[inference]", "\n[inferences]", "inferences"),
    ];
    for (from, to, named) in cases {
        let error = edited(from, to).expect_err(to).to_string();
        assert!(error.contains("shogi-tiny.toml"), "'{to}': the error names the file: {error}");
        assert!(error.contains(named), "'{to}': the error names '{named}': {error}");
    }
    let missing = RunConfig::load(Path::new("/nonexistent/shogi.toml")).unwrap_err();
    assert!(matches!(missing, ConfigError::Read { .. }), "{missing}");
}

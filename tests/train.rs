//! The trainer and the training loop: batches carry every target (the auxiliary ones of a
//! hand-built game included), losses fall on data they can fit, a resumed trainer continues
//! exactly, a killed `train` resumes from its last checkpoint with nothing corrupted, and
//! configuration errors name their key.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shogi_zero::arena::probe::{probe_pairs, run_probe, PROBE_SEED};
use shogi_zero::config::RunConfig;
use shogi_zero::nn::{checkpoint, Encoder, Network, NetworkConfig, PolicyMap};
use shogi_zero::replay::{self, GameResult, MoveRecord, OpponentPolicy, ReplayEnding, ReplayGame, ReplayWindow, TrainingSample};
use shogi_zero::rules::material::Material;
use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::GameContext;
use shogi_zero::rules::{Color, Game, GameRules, Position, VariantId};
use shogi_zero::train::batch::BatchBuilder;
use shogi_zero::train::optimizer::Optimizer;
use shogi_zero::train::trainer::optimizer_path;
use shogi_zero::train::{state_path, TrainerState};
use shogi_zero::train::{OptimizerKind, TrainConfig, Trainer};
use tch::Device;

use common::{Scratch, SplitMix64};

const SHOGI: VariantId = VariantId::SHOGI;

/// Samples from seeded random games: each position's target is its first legal move, and the
/// result alternates, so a network can fit them. The auxiliary targets follow the result: every
/// other sample has the opponent's first legal reply as its reply target, and material and
/// short-term value take the result's sign.
fn samples(count: usize) -> Vec<TrainingSample> {
    let mut rng = SplitMix64(5);
    let mut out = Vec::new();
    let mut game = Game::new(Position::start(SHOGI), GameRules::default_for(SHOGI.variant()));
    while out.len() < count {
        if game.outcome().is_some() || game.ply() > 60 {
            game = Game::new(Position::start(SHOGI), GameRules::default_for(SHOGI.variant()));
        }
        let moves = game.legal_moves();
        let played = moves[rng.below(moves.len())];
        let mut next = game.clone();
        next.play(played).unwrap();
        let replies = next.legal_moves();
        let won = out.len() % 2 == 0;
        let sign = if won { 1.0 } else { -1.0 };
        out.push(TrainingSample {
            position: game.position().clone(),
            context: GameContext::of(&game),
            policy: vec![(moves[0], 0.75), (moves[moves.len() - 1], 0.25)],
            wdl: if won { [1.0, 0.0, 0.0] } else { [0.0, 0.0, 1.0] },
            // Every third sample's game was cut off by the ply cap.
            moves_left: (out.len() % 3 != 0).then_some(30.0),
            opponent_policy: (won && !replies.is_empty())
                .then(|| OpponentPolicy { side: next.position().side_to_move(), policy: vec![(replies[0], 1.0)] }),
            material: [0.5 * sign, sign],
            short_term_value: 0.5 * sign,
            source: replay::SampleSource { file: "test".into(), game: 1 },
        });
        game = next;
    }
    out
}

fn tiny_network() -> Network {
    tch::manual_seed(3);
    Network::new(SHOGI, &NetworkConfig::scaled(1, 16), Device::Cpu).unwrap()
}

/// [`tiny_network`] with the auxiliary heads.
fn tiny_auxiliary_network() -> Network {
    tch::manual_seed(3);
    Network::new(SHOGI, &NetworkConfig { auxiliary_heads: true, ..NetworkConfig::scaled(1, 16) }, Device::Cpu).unwrap()
}

fn train_config(optimizer: OptimizerKind) -> TrainConfig {
    TrainConfig { optimizer, learning_rate: 0.02, warmup_steps: 1, batch_size: 32, min_window_positions: 32, ..TrainConfig::default() }
}

/// A batch holds, row by row, each sample's planes as the encoder writes them alone, its policy
/// moves as flat indices with their weights, its result and its plies left.
#[test]
fn a_batch_holds_each_sample_as_encoded_alone() {
    let samples = samples(40);
    let encoder = Encoder::new(SHOGI.variant());
    let batch = BatchBuilder::new(encoder.clone()).build(&samples).unwrap();
    let map = PolicyMap::new(SHOGI.variant());
    let n = encoder.board_size() as i64;
    assert_eq!(batch.input.size(), [40, encoder.plane_count() as i64, n, n]);
    let input = Vec::<f32>::try_from(batch.input.flatten(0, -1)).unwrap();
    let index = Vec::<i64>::try_from(&batch.policy_index).unwrap();
    let weight = Vec::<f32>::try_from(&batch.policy_weight).unwrap();
    let wdl = Vec::<f32>::try_from(batch.wdl.flatten(0, -1)).unwrap();
    let moves_left = Vec::<f32>::try_from(&batch.moves_left).unwrap();
    let moves_left_mask = Vec::<f32>::try_from(&batch.moves_left_mask).unwrap();
    let mut alone = vec![0.0; encoder.len()];
    let (mut expected_index, mut expected_weight) = (Vec::new(), Vec::new());
    for (i, sample) in samples.iter().enumerate() {
        encoder.encode(&sample.position, &sample.context, &mut alone);
        assert_eq!(&input[i * alone.len()..(i + 1) * alone.len()], &alone[..], "planes of sample {i}");
        for &(mv, w) in &sample.policy {
            let k = map.index(mv, sample.position.side_to_move()).unwrap();
            expected_index.push(i as i64 * map.len() as i64 + k as i64);
            expected_weight.push(w);
        }
        assert_eq!(&wdl[3 * i..3 * i + 3], &sample.wdl[..]);
        assert_eq!((moves_left[i], moves_left_mask[i]), sample.moves_left.map_or((0.0, 0.0), |plies| (plies, 1.0)));
    }
    assert_eq!((index, weight), (expected_index, expected_weight));
    assert_eq!(batch.size, 40);
}

/// A replay game with known targets: Black trades bishops into a horse, White does not take it
/// back, and White resigns. Plies 0, 1, 3 and 4 were searched in full (ply 2 fast), with root
/// values in binary fractions so that every mixed and averaged target is exact.
fn hand_built_game() -> ReplayGame {
    let ply = |mv: &str, policy: &[(&str, f32)], root_wdl: [f32; 3]| MoveRecord {
        mv: mv.to_string(),
        policy: policy.iter().map(|&(m, w)| (m.to_string(), w)).collect(),
        root_wdl,
    };
    ReplayGame {
        variant: "shogi".to_string(),
        start: sfen::write(&Position::start(SHOGI)),
        moves: vec![
            ply("7g7f", &[("7g7f", 0.75), ("2g2f", 0.25)], [0.5, 0.25, 0.25]),
            ply("3c3d", &[("3c3d", 0.5), ("8c8d", 0.5)], [0.25, 0.5, 0.25]),
            ply("8h2b+", &[], [0.5, 0.25, 0.25]),
            ply("4a3b", &[("3a2b", 0.625), ("4a3b", 0.375)], [0.125, 0.375, 0.5]),
            ply("2g2f", &[("2g2f", 0.5), ("7i7h", 0.5)], [0.75, 0.125, 0.125]),
        ],
        result: GameResult { winner: Some(Color::Black), reason: ReplayEnding::Resignation },
        model: "hand-built".to_string(),
        seed: 0,
        resignation_disabled: false,
    }
}

/// The batch of the hand-built game's positions with horizons of 2 plies and a root-value mix
/// of 1/4: row by row, the opponent's reply policy (indexed for the replying side) and its
/// mask, the material balance after the capture (2 plies ahead, clamped at the end, and at the
/// end), the short-term value and the mixed WDL target, each as worked out by hand.
#[test]
fn a_batch_holds_the_auxiliary_targets_of_a_hand_built_game() {
    let scratch = Scratch::new("train-auxiliary-targets");
    let game = hand_built_game();
    replay::write_games(&scratch.0, SHOGI, GameRules::default_for(SHOGI.variant()), std::slice::from_ref(&game)).unwrap();
    let config = TrainConfig { material_horizon: 2, short_term_horizon: 2, value_root_mix: 0.25, ..TrainConfig::default() };
    let window_config = replay::WindowConfig { max_positions: 100, max_reuse: 100.0, targets: config.targets() };
    let mut window = ReplayWindow::new(&scratch.0, SHOGI, window_config).unwrap();
    window.refresh().unwrap();
    assert_eq!(window.len(), 4, "plies 0, 1, 3 and 4");
    let samples = window.sample(&mut ChaCha8Rng::seed_from_u64(1), 64).unwrap();
    let batch = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples).unwrap();

    // Black's lead once the bishop is taken and promoted: a horse and a bishop in hand.
    let mut played = Game::new(Position::start(SHOGI), GameRules::default_for(SHOGI.variant()));
    for m in ["7g7f", "3c3d", "8h2b+"] {
        played.play_text(m).unwrap();
    }
    let material = Material::of(SHOGI);
    let lead = material.balance(played.position(), Color::Black) as f32 / material.strongest() as f32;
    assert!(lead > 0.0);
    let map = PolicyMap::new(SHOGI.variant());
    // Per ply: the reply's moves and side, material ahead and at the end, short-term value, WDL.
    type Expected = (Option<(&'static [(&'static str, f32)], Color)>, [f32; 2], f32, [f32; 3]);
    let expected = |ply: usize| -> Expected {
        match ply {
            0 => (Some((&[("3c3d", 0.5), ("8c8d", 0.5)], Color::White)), [0.0, lead], 0.23046875, [0.875, 0.0625, 0.0625]),
            1 => (None, [-lead, -lead], -0.2109375, [0.0625, 0.125, 0.8125]),
            3 => (Some((&[("2g2f", 0.5), ("7i7h", 0.5)], Color::Black)), [-lead, -lead], -0.59375, [0.03125, 0.09375, 0.875]),
            4 => (None, [lead, lead], 0.8125, [0.9375, 0.03125, 0.03125]),
            _ => panic!("ply {ply} is not a training position"),
        }
    };
    let index = Vec::<i64>::try_from(&batch.opponent_policy_index).unwrap();
    let weight = Vec::<f32>::try_from(&batch.opponent_policy_weight).unwrap();
    let mask = Vec::<f32>::try_from(&batch.opponent_policy_mask).unwrap();
    let material_rows = Vec::<f32>::try_from(batch.material.flatten(0, -1)).unwrap();
    let short_term = Vec::<f32>::try_from(&batch.short_term_value).unwrap();
    let wdl = Vec::<f32>::try_from(batch.wdl.flatten(0, -1)).unwrap();
    let (mut expected_index, mut expected_weight) = (Vec::new(), Vec::new());
    let mut seen = [false; 5];
    for (i, sample) in samples.iter().enumerate() {
        let ply = sample.context.ply;
        seen[ply] = true;
        let (reply, material, value, target) = expected(ply);
        assert_eq!(mask[i], if reply.is_some() { 1.0 } else { 0.0 }, "ply {ply}");
        for &(text, w) in reply.map_or(&[][..], |(moves, _)| moves) {
            let side = reply.unwrap().1;
            expected_index.push(i as i64 * map.len() as i64 + map.index(common::mv(SHOGI, text), side).unwrap() as i64);
            expected_weight.push(w);
        }
        assert_eq!(&material_rows[2 * i..2 * i + 2], &material[..], "ply {ply}");
        assert_eq!(short_term[i], value, "ply {ply}");
        assert_eq!(&wdl[3 * i..3 * i + 3], &target[..], "ply {ply}");
    }
    assert_eq!(seen, [true, true, false, true, true]);
    assert_eq!((index, weight), (expected_index, expected_weight));
}

/// A few steps with every auxiliary loss on: all losses stay finite, and the auxiliary ones
/// fall on a repeated batch. A network without the heads is refused for such a configuration.
#[test]
fn auxiliary_losses_fall_on_a_batch_the_network_can_fit() {
    let batch = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples(32)).unwrap();
    let config = TrainConfig {
        opponent_policy_weight: 1.0,
        material_weight: 1.0,
        short_term_value_weight: 1.0,
        learning_rate: 0.05,
        ..train_config(OptimizerKind::Sgd)
    };
    let error = Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).err().unwrap();
    assert_eq!(error.field, "train.opponent_policy_weight");
    assert!(error.message.contains("network.auxiliary_heads = true"), "{error}");
    let mut trainer = Trainer::new(tiny_auxiliary_network(), Optimizer::new(&config), config, 0).unwrap();
    let first = trainer.train_step(&batch, 0.0);
    let mut last = first;
    for _ in 0..40 {
        last = trainer.train_step(&batch, 0.0);
        for loss in [last.policy, last.value, last.moves_left, last.opponent_policy, last.material, last.short_term_value, last.total] {
            assert!(loss.is_finite(), "{last:?}");
        }
    }
    assert!(first.opponent_policy > 0.0 && first.material > 0.0 && first.short_term_value > 0.0, "{first:?}");
    assert!(last.opponent_policy < first.opponent_policy - 2.0, "opponent's policy {} -> {}", first.opponent_policy, last.opponent_policy);
    assert!(last.material < 0.5 * first.material, "material {} -> {}", first.material, last.material);
    assert!(
        last.short_term_value < 0.5 * first.short_term_value,
        "short-term value {} -> {}",
        first.short_term_value,
        last.short_term_value
    );
    // Without weight the auxiliary losses are not computed, heads or not.
    let plain = train_config(OptimizerKind::Sgd);
    let losses = Trainer::new(tiny_auxiliary_network(), Optimizer::new(&plain), plain, 0).unwrap().train_step(&batch, 0.0);
    assert_eq!((losses.opponent_policy, losses.material, losses.short_term_value), (0.0, 0.0, 0.0));
}

#[test]
fn losses_fall_on_a_batch_the_network_can_fit() {
    let batch = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples(32)).unwrap();
    for kind in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
        let config = TrainConfig { learning_rate: if kind == OptimizerKind::Sgd { 0.05 } else { 0.005 }, ..train_config(kind) };
        let mut trainer = Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).unwrap();
        let first = trainer.train_step(&batch, 0.0);
        let mut last = first;
        for _ in 0..60 {
            last = trainer.train_step(&batch, 0.0);
        }
        assert_eq!(trainer.step_count(), 61);
        // The policy target's entropy is 0.56 nats; a fit network gets near it from ln(11260) = 9.3.
        assert!(last.policy < first.policy - 3.0, "{kind:?}: policy {} -> {}", first.policy, last.policy);
        assert!(last.value < first.value, "{kind:?}: value {} -> {}", first.value, last.value);
        assert!(last.moves_left < first.moves_left, "{kind:?}: moves left {} -> {}", first.moves_left, last.moves_left);
        assert!(first.gradient_norm > 0.0 && last.total.is_finite());
    }
}

/// The moves-left loss is the mean over the samples whose game ended: samples of games cut off
/// by the ply cap, whatever their position, change nothing, and a batch of them alone has none.
#[test]
fn the_moves_left_loss_leaves_out_games_cut_off_by_the_ply_cap() {
    // Each position twice, so that the same predictions meet the targets of both copies.
    let positions: Vec<TrainingSample> = samples(16).into_iter().flat_map(|s| [s.clone(), s]).collect();
    let with_second = |moves_left: Option<f32>| -> Vec<TrainingSample> {
        let mut out = positions.clone();
        for (i, sample) in out.iter_mut().enumerate() {
            sample.moves_left = if i % 2 == 0 { Some(30.0) } else { moves_left };
        }
        out
    };
    let first_loss = |samples: &[TrainingSample]| {
        let batch = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(samples).unwrap();
        let config = train_config(OptimizerKind::Sgd);
        Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).unwrap().train_step(&batch, 0.0).moves_left
    };
    let all_ended = first_loss(&with_second(Some(30.0)));
    let half_capped = first_loss(&with_second(None));
    let half_long = first_loss(&with_second(Some(1000.0)));
    assert!(all_ended > 0.0 && (half_capped - all_ended).abs() < 1e-6 * all_ended, "{half_capped} against {all_ended}");
    assert!(half_long > 2.0 * all_ended, "a counted target changes the loss: {half_long} against {all_ended}");
    let all_capped: Vec<TrainingSample> = positions.iter().map(|s| TrainingSample { moves_left: None, ..s.clone() }).collect();
    assert_eq!(first_loss(&all_capped), 0.0);
}

/// A batch whose target is not finite (as a teacher bug once made) is skipped: the trained
/// weights (batch-norm statistics still follow the batch's finite inputs), the optimiser and
/// the step count stay as they were, and the next good batch trains.
#[test]
fn a_step_with_a_loss_that_is_not_finite_is_skipped() {
    let good = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples(8)).unwrap();
    let mut bad = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples(8)).unwrap();
    let _ = bad.policy_weight.fill_(f64::NAN);
    let config = train_config(OptimizerKind::Sgd);
    let mut trainer = Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).unwrap();
    let trained =
        |trainer: &Trainer| weights(trainer.network()).into_iter().filter(|(name, _)| !name.contains("running_")).collect::<Vec<_>>();
    // The optimiser's state (step count, momentum) as the trainer saves it.
    let scratch = Scratch::new("train-skipped-step");
    let optimizer_state = |trainer: &Trainer| {
        trainer.save(&scratch.0).unwrap();
        let mut state = tch::Tensor::read_safetensors(optimizer_path(&scratch.0, trainer.step_count())).unwrap();
        state.sort_by(|a, b| a.0.cmp(&b.0));
        state
            .into_iter()
            .map(|(name, t)| (name, Vec::<f64>::try_from(t.to_kind(tch::Kind::Double).flatten(0, -1)).unwrap()))
            .collect::<Vec<_>>()
    };
    trainer.train_step(&good, 0.0);
    let before = trained(&trainer);
    let momentum_before = optimizer_state(&trainer);
    assert!(momentum_before.iter().any(|(name, v)| name.contains('#') && v.iter().any(|&x| x != 0.0)), "the good step left no momentum");
    let losses = trainer.train_step(&bad, 0.0);
    assert!(losses.skipped && losses.policy.is_nan(), "{losses:?}");
    assert_eq!(trainer.step_count(), 1);
    assert!(trained(&trainer) == before, "a skipped step changed the weights");
    assert!(optimizer_state(&trainer) == momentum_before, "a skipped step changed the optimiser's state");
    let next = trainer.train_step(&good, 0.0);
    assert!(!next.skipped && next.total.is_finite() && trainer.step_count() == 2, "{next:?}");
    assert!(trained(&trainer) != before, "the next good step did not train");
}

#[test]
fn the_schedule_warms_up_then_anneals_by_steps_or_by_time_whichever_ends_first() {
    let config = TrainConfig {
        learning_rate: 0.1,
        warmup_steps: 10,
        final_lr_fraction: 0.1,
        total_steps: 110,
        max_minutes: 0.0,
        ..TrainConfig::default()
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(config.learning_rate_at(0, 0.0), 0.01));
    assert!(close(config.learning_rate_at(9, 0.0), 0.1));
    assert!(close(config.learning_rate_at(10, 0.0), 0.1));
    // Half way through the cosine: the mean of peak and floor; at the end: the floor.
    assert!(close(config.learning_rate_at(60, 1e9), 0.055), "no time limit: time must not count");
    assert!(close(config.learning_rate_at(110, 0.0), 0.01));
    assert!(close(config.learning_rate_at(500, 0.0), 0.01));
    // A 10-minute limit reached long before total_steps anneals by the clock.
    let timed = TrainConfig { total_steps: 1_000_000, max_minutes: 10.0, ..config };
    assert!(close(timed.learning_rate_at(20, 300.0), 0.055));
    assert!(close(timed.learning_rate_at(20, 600.0), 0.01));
    assert!(timed.learning_rate_at(20, 60.0) < 0.1 && timed.learning_rate_at(20, 60.0) > 0.09);
    // Steps still count when they come first.
    assert!(close(timed.learning_rate_at(1_000_000, 1.0), 0.01));
}

fn weights(network: &Network) -> Vec<(String, Vec<f32>)> {
    let mut all: Vec<(String, Vec<f32>)> = network
        .var_store()
        .variables()
        .into_iter()
        .map(|(name, t)| {
            let t = t.to_kind(tch::Kind::Float).flatten(0, -1);
            let mut v = vec![0f32; t.numel()];
            t.copy_data(&mut v, t.numel());
            (name, v)
        })
        .collect();
    all.sort_by(|a, b| a.0.cmp(&b.0));
    all
}

#[test]
fn a_resumed_trainer_continues_exactly() {
    let scratch = Scratch::new("train-resume-exact");
    let batches: Vec<_> = samples(96).chunks(32).map(|c| BatchBuilder::new(Encoder::new(SHOGI.variant())).build(c).unwrap()).collect();
    for kind in [OptimizerKind::Sgd, OptimizerKind::Adamw] {
        let config = train_config(kind);
        let dir = scratch.0.join(format!("{kind:?}"));
        let mut straight = Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).unwrap();
        straight.train_step(&batches[0], 0.0);
        straight.train_step(&batches[1], 0.0);
        let saved = straight.save(&dir).unwrap();
        straight.train_step(&batches[2], 0.0);
        let (network, metadata) = checkpoint::load(&saved, SHOGI, None, Device::Cpu).unwrap();
        assert_eq!(metadata.step, 2);
        let optimizer = Optimizer::load(&config, &optimizer_path(&dir, 2), Device::Cpu).unwrap();
        let mut resumed = Trainer::new(network, optimizer, config, 2).unwrap();
        resumed.check_optimizer().unwrap();
        resumed.train_step(&batches[2], 0.0);
        let (a, b) = (weights(straight.network()), weights(resumed.network()));
        assert_eq!(a.len(), b.len());
        for ((name, x), (_, y)) in a.iter().zip(&b) {
            let diff = x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0f32, f32::max);
            assert!(diff < 1e-5, "{kind:?}: {name} differs by {diff}");
        }
        // A fresh optimiser would have given other weights: the state matters.
        let (network, _) = checkpoint::load(&saved, SHOGI, None, Device::Cpu).unwrap();
        let mut forgetful = Trainer::new(network, Optimizer::new(&config), config, 2).unwrap();
        forgetful.train_step(&batches[2], 0.0);
        assert_ne!(weights(forgetful.network()), a, "{kind:?}");
    }
}

#[test]
fn an_optimizer_state_of_another_network_is_refused() {
    let scratch = Scratch::new("train-optimizer-mismatch");
    let config = train_config(OptimizerKind::Sgd);
    let batch = BatchBuilder::new(Encoder::new(SHOGI.variant())).build(&samples(32)).unwrap();
    let mut trainer = Trainer::new(tiny_network(), Optimizer::new(&config), config, 0).unwrap();
    trainer.train_step(&batch, 0.0);
    trainer.save(&scratch.0).unwrap();
    let optimizer = Optimizer::load(&config, &optimizer_path(&scratch.0, 1), Device::Cpu).unwrap();
    let other = Network::new(SHOGI, &NetworkConfig::scaled(1, 8), Device::Cpu).unwrap();
    let error = Trainer::new(other, optimizer, config, 1).unwrap().check_optimizer().unwrap_err();
    assert!(error.contains("shape"), "{error}");
    std::fs::write(optimizer_path(&scratch.0, 1), b"not safetensors").unwrap();
    assert!(Optimizer::load(&config, &optimizer_path(&scratch.0, 1), Device::Cpu).is_err());
}

/// A configuration for a training run of a few seconds.
fn quick_config(dir: &Path, total_steps: u64) -> PathBuf {
    let path = dir.join("quick.toml");
    std::fs::write(&path, common::quick_recipe("shogi", total_steps)).unwrap();
    RunConfig::load(&path).unwrap();
    path
}

/// Trains a quick run of `total_steps` steps to its end, its configuration changed by `edit`
/// (which must change it); returns the scratch folder (kept while it lives) and the run folder.
fn train_edited(name: &str, total_steps: u64, edit: impl FnOnce(&str) -> String) -> (Scratch, PathBuf) {
    let scratch = Scratch::new(name);
    let models = scratch.0.join("models");
    let config = quick_config(&scratch.0, total_steps);
    let text = std::fs::read_to_string(&config).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text);
    std::fs::write(&config, edited).unwrap();
    let output = train_command(&models, &config).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    (scratch, models.join("shogi").join("resume-test"))
}

fn train_command(models: &Path, config: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_shogi-zero"));
    command.args(["train", "--variant", "shogi", "--run", "resume-test", "--models"]).arg(models).arg("--config").arg(config);
    command
}

#[test]
fn a_killed_training_run_resumes_from_its_last_checkpoint() {
    let scratch = Scratch::new("train-kill");
    let models = scratch.0.join("models");
    let run_dir = models.join("shogi").join("resume-test");
    let config = quick_config(&scratch.0, 30);
    let mut child = train_command(&models, &config).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    // Kill -9 once a checkpoint beyond the initial one exists.
    let deadline = Instant::now() + Duration::from_secs(180);
    let step_of = |dir: &Path| checkpoint::read_metadata(dir).map(|(_, m)| m.step).unwrap_or(0);
    while step_of(&run_dir) < 10 {
        assert!(Instant::now() < deadline, "no checkpoint of step 10 within 3 minutes");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed_at = step_of(&run_dir);
    assert!(killed_at < 30, "the run had finished before the kill ({killed_at})");
    // Every checkpoint and replay file left behind is whole.
    for entry in std::fs::read_dir(&run_dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") && name.starts_with("step-") && !name.contains("trainer") {
            checkpoint::load(&path, SHOGI, None, Device::Cpu).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    for path in replay::list_files(&run_dir.join("replay")).unwrap() {
        replay::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
    }
    let state: TrainerState = serde_json::from_str(&std::fs::read_to_string(state_path(&run_dir, killed_at)).unwrap()).unwrap();
    assert_eq!(state.step, killed_at);
    // Resume: it continues from that checkpoint to the end.
    let output = train_command(&models, &config).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains(&format!("resumed: steps {killed_at} to 30")), "{stdout}");
    assert_eq!(step_of(&run_dir), 30);
    assert!(run_dir.join("losses.png").exists() && run_dir.join("selfplay.png").exists());
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    assert_eq!(metrics.last().unwrap().step, 30);
    assert!(metrics.windows(2).all(|w| w[0].step <= w[1].step || w[1].step <= killed_at + 5));
    // Self-play counts go on from the checkpoint's totals, not from zero.
    let resumed = metrics.iter().find(|m| m.step > killed_at).unwrap();
    assert!(resumed.selfplay_games >= state.selfplay_games && resumed.selfplay_positions > state.selfplay_positions);
    assert!(state.selfplay_positions > 0, "the checkpoint counted no self-play");
}

#[test]
fn configuration_errors_name_their_key() {
    let scratch = Scratch::new("train-config-errors");
    let base = common::recipe("shogi", "cpu");
    for (from, to, key) in [
        ("batch_size = 128", "batch_size = 0", "train.batch_size"),
        ("max_sample_reuse = 4.0", "max_sample_reuse = -1.0", "train.max_sample_reuse"),
        ("full_search_fraction = 0.5", "full_search_fraction = 1.5", "selfplay.full_search_fraction"),
        ("gumbel_considered = 8", "gumbel_considered = 0", "search.gumbel_considered"),
        ("max_minutes = 25.0", "max_minutes = 25.0\nlearning_rat = 0.1", "learning_rat"),
        ("root = \"gumbel\"", "root = \"minimax\"", "minimax"),
        ("threshold = 0.55", "threshold = 2.0", "gating.threshold"),
        ("value_root_mix = 0.25", "value_root_mix = 1.5", "train.value_root_mix"),
        ("max_minutes = 25.0", "max_minutes = 25.0\nmaterial_horizon = 0", "train.material_horizon"),
        ("max_minutes = 25.0", "max_minutes = 25.0\nply_cap_material_scale = -1.0", "train.ply_cap_material_scale"),
        ("max_minutes = 25.0", "max_minutes = 25.0\nshort_term_horizon = 1001", "train.short_term_horizon"),
        ("material_weight = 0.1", "material_weight = 101.0", "train.material_weight"),
        ("auxiliary_heads = true", "auxiliary_heads = false", "network.auxiliary_heads = true"),
        ("short_term_value_weight = 0.25", "short_term_value_weight = -1.0", "train.short_term_value_weight"),
        ("anneal_steps = 3000", "anneal_steps = 0", "bootstrap.anneal_steps"),
    ] {
        assert!(base.contains(from), "{from}");
        let path = scratch.0.join("edited.toml");
        std::fs::write(&path, base.replacen(from, to, 1)).unwrap();
        let error = RunConfig::load(&path).unwrap_err().to_string();
        assert!(error.contains(key) && error.contains("edited.toml"), "{to}: {error}");
    }
    // An openings file is read from the configuration's folder, and checked.
    let with_openings = base.replacen("[selfplay]\n", "[selfplay]\nopenings = \"openings.txt\"\n", 1);
    assert_ne!(with_openings, base);
    let path = scratch.0.join("edited.toml");
    std::fs::write(&path, &with_openings).unwrap();
    let error = RunConfig::load(&path).unwrap_err().to_string();
    assert!(error.contains("selfplay.openings") && error.contains("openings.txt"), "{error}");
    std::fs::write(scratch.0.join("openings.txt"), "startpos moves 7g7f\nstartpos moves 7g7f 7g7f\n").unwrap();
    let error = RunConfig::load(&path).unwrap_err().to_string();
    assert!(error.contains("selfplay.openings") && error.contains("line 2"), "{error}");
    std::fs::write(scratch.0.join("openings.txt"), "startpos moves 7g7f\n").unwrap();
    let loaded = RunConfig::load(&path).unwrap();
    assert_eq!(loaded.selfplay.openings, Some(std::path::absolute(scratch.0.join("openings.txt")).unwrap()));
    // The auxiliary losses are accepted with the heads, and the configuration without the
    // new keys reads as before: heads off, auxiliary losses off, the result as the WDL target.
    let keys = ["auxiliary_heads", "opponent_policy_weight", "material_weight", "short_term_value_weight", "value_root_mix"];
    let base: String = base.lines().filter(|line| !keys.iter().any(|k| line.starts_with(k))).map(|line| format!("{line}\n")).collect();
    let auxiliary = base.replacen("value_hidden = 32\n", "value_hidden = 32\nauxiliary_heads = true\n", 1).replacen(
        "max_minutes = 25.0",
        "max_minutes = 25.0\nopponent_policy_weight = 0.5\nmaterial_weight = 0.25",
        1,
    );
    assert!(auxiliary.contains("auxiliary_heads = true") && auxiliary.contains("material_weight"));
    std::fs::write(&path, &auxiliary).unwrap();
    let loaded = RunConfig::load(&path).unwrap();
    assert!(loaded.network.auxiliary_heads);
    assert_eq!((loaded.train.opponent_policy_weight, loaded.train.material_weight), (0.5, 0.25));
    let plain = RunConfig::parse(&base, Path::new("plain.toml")).unwrap();
    assert!(!plain.network.auxiliary_heads && !plain.train.uses_auxiliary_heads());
    assert_eq!((plain.train.material_horizon, plain.train.short_term_horizon, plain.train.value_root_mix), (6, 6, 0.0));
    assert_eq!(plain.train.ply_cap_material_scale, 0.0, "a capped game is a draw unless asked");
    // A run folder's copy of a configuration without the heads does not name them.
    assert!(!shogi_zero::config::to_toml(&plain).contains("auxiliary_heads"));
}

/// With a ply cap of 12, no game of a random network ends otherwise: the metrics give the
/// share of games drawn at the cap, as the replay files record them.
#[test]
fn the_metrics_give_the_share_of_self_play_games_drawn_at_the_ply_cap() {
    let (_scratch, run_dir) = train_edited("train-ply-cap-share", 10, |text| text.replace("ply_cap = 40", "ply_cap = 12"));
    let mut games = 0;
    let mut capped = 0;
    for path in replay::list_files(&run_dir.join("replay")).unwrap() {
        for game in replay::read_file(&path).unwrap().games {
            games += 1;
            capped += usize::from(game.result.at_ply_cap());
        }
    }
    assert!(games > 0 && capped * 10 >= games * 9, "{capped} of {games} games at the cap");
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    let finished: Vec<_> = metrics.iter().filter(|l| l.game_length > 0.0).collect();
    assert!(!finished.is_empty());
    for line in finished {
        assert!(line.game_length <= 12.0 && (0.9..=1.0).contains(&line.capped_share), "{line:?}");
    }
}

/// Games that start with White two major pieces down are adjudicated to Black two plies in:
/// the metrics give the share of adjudicated games, as the replay files record them.
#[test]
fn the_metrics_give_the_share_of_self_play_games_adjudicated() {
    let openings = Scratch::new("train-adjudication-openings");
    let path = openings.0.join("openings.txt");
    std::fs::write(&path, "sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n").unwrap();
    let (_scratch, run_dir) = train_edited("train-adjudicated-share", 10, |text| {
        text.replace("resign_audit_fraction = 0.1", "resign_audit_fraction = 0.0").replace(
            "ply_cap = 40",
            &format!("ply_cap = 40\nadjudicate_lead = 3.0\nadjudicate_plies = 2\nopenings = {:?}", path.display().to_string()),
        )
    });
    let games: Vec<_> =
        replay::list_files(&run_dir.join("replay")).unwrap().iter().flat_map(|p| replay::read_file(p).unwrap().games).collect();
    assert!(!games.is_empty());
    for game in &games {
        assert_eq!((game.result.reason, game.result.winner, game.moves.len()), (ReplayEnding::Adjudication, Some(Color::Black), 2));
    }
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    let finished: Vec<_> = metrics.iter().filter(|l| l.game_length > 0.0).collect();
    assert!(!finished.is_empty());
    for line in finished {
        assert!(line.adjudicated_share == 1.0 && line.capped_share == 0.0, "{line:?}");
    }
}

#[test]
fn with_gating_on_self_play_uses_only_checkpoints_that_passed_their_gate() {
    let (_scratch, run_dir) = train_edited("train-gating", 20, |text| {
        let gated = text
            .replace("enabled = false", "enabled = true")
            .replace("games = 40", "games = 2")
            .replace("threshold = 0.55", "threshold = 0.75")
            .replace("simulations = 8\nrandom_plies", "simulations = 4\nrandom_plies");
        assert!(gated.contains("enabled = true") && gated.contains("games = 2") && gated.contains("simulations = 4\n"));
        gated
    });
    // Every checkpoint after the first was gated: its match is on disk, and self-play moved
    // to it exactly when it scored at least 0.75 against the network self-play was using.
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    assert_eq!(metrics.iter().map(|l| l.step).collect::<Vec<_>>(), [5, 10, 15, 20]);
    let mut incumbent = 0;
    for line in &metrics {
        let score = line.gate_score.unwrap_or_else(|| panic!("step {} was not gated", line.step));
        assert!(run_dir.join(format!("gating/step-{:010}/results.json", line.step)).exists());
        if score >= 0.75 {
            incumbent = line.step;
        }
        assert_eq!(line.selfplay_step, incumbent, "step {} scored {score}", line.step);
    }
    let state: TrainerState = serde_json::from_str(&std::fs::read_to_string(state_path(&run_dir, 20)).unwrap()).unwrap();
    assert_eq!(state.incumbent, Some(incumbent));
    assert!(run_dir.join("gating.png").exists());
    // The games came from promoted networks only.
    let promoted: Vec<u64> = std::iter::once(0).chain(metrics.iter().map(|l| l.selfplay_step)).collect();
    for path in replay::list_files(&run_dir.join("replay")).unwrap() {
        for game in replay::read_file(&path).unwrap().games {
            let step: u64 = game.model.rsplit('@').next().unwrap().parse().unwrap();
            assert!(promoted.contains(&step), "a game of step {step}, promoted: {promoted:?}");
        }
    }
}

#[test]
fn league_runs_draw_their_opponent_from_the_run_s_own_checkpoints() {
    let (_scratch, run_dir) =
        train_edited("train-league", 20, |text| text.replacen("[selfplay]\n", "[selfplay]\nleague_fraction = 0.5\n", 1));
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    assert_eq!(metrics.last().unwrap().step, 20);
    for line in &metrics {
        let opponent = line.league_opponent.unwrap_or_else(|| panic!("step {} names no opponent", line.step));
        assert!(opponent <= line.step && opponent % 5 == 0, "step {}: opponent {opponent}", line.step);
        assert!(checkpoint::metadata_file(&run_dir, opponent).exists());
    }
    // The draw is not stuck on one checkpoint.
    let mut drawn: Vec<u64> = metrics.iter().filter_map(|l| l.league_opponent).collect();
    drawn.dedup();
    assert!(drawn.len() > 1, "{drawn:?}");
    // Some games were league games: their opponent's moves carry no target, and they were
    // played out; plain games are there too.
    let (mut league_games, mut plain_games) = (0, 0);
    for path in replay::list_files(&run_dir.join("replay")).unwrap() {
        for game in replay::read_file(&path).unwrap().games {
            let targets: Vec<usize> = (0..game.moves.len()).filter(|&i| !game.moves[i].policy.is_empty()).collect();
            let one_side = targets.windows(2).all(|w| (w[1] - w[0]) % 2 == 0);
            if game.resignation_disabled && one_side && targets.len() >= 3 {
                league_games += 1;
            } else if targets.windows(2).any(|w| (w[1] - w[0]) % 2 == 1) {
                plain_games += 1;
            }
        }
    }
    assert!(league_games > 0 && plain_games > 0, "league {league_games}, plain {plain_games}");
}

/// A run with the auxiliary heads and every auxiliary target on trains, logs the auxiliary
/// losses it weighs (and only those) and charts them; self-play plays with its checkpoints.
#[test]
fn with_auxiliary_targets_on_the_run_logs_their_losses() {
    let (_scratch, run_dir) = train_edited("train-auxiliary", 10, |text| {
        text.replacen("value_hidden = 16\n", "value_hidden = 16\nauxiliary_heads = true\n", 1).replacen(
            "max_minutes = 4.0",
            "max_minutes = 4.0\nopponent_policy_weight = 0.5\nmaterial_weight = 0.5\nvalue_root_mix = 0.25",
            1,
        )
    });
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    assert_eq!(metrics.iter().map(|l| l.step).collect::<Vec<_>>(), [5, 10]);
    for line in &metrics {
        let (reply, material) = (line.opponent_policy_loss.unwrap(), line.material_loss.unwrap());
        assert!(reply.is_finite() && reply > 0.0 && material.is_finite() && material >= 0.0, "{line:?}");
        assert!(line.short_term_value_loss.is_none(), "a loss without weight is not logged");
    }
    let (_, metadata) = checkpoint::read_metadata(&run_dir).unwrap();
    assert!(metadata.network.auxiliary_heads);
    assert!(run_dir.join("losses.png").exists());
}

#[test]
fn with_eval_on_checkpoints_play_the_anchors_and_the_value_probe_is_logged() {
    let (_scratch, run_dir) = train_edited("train-eval", 10, |text| {
        format!("{text}\n[eval]\nenabled = true\nevery = 2\ngames = 2\nsimulations = 4\nrandom_plies = 2\nanchors = [\"random\", \"alphabeta:1\"]\nsearches = [\"own\", \"player\"]\nprobe_pairs = 8\n")
    });
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    assert_eq!(metrics.iter().map(|l| l.step).collect::<Vec<_>>(), [5, 10]);
    // Every checkpoint runs the probe, and the line holds what the probe finds on that
    // checkpoint; the second (every = 2) plays each anchor.
    let pairs = probe_pairs(VariantId::SHOGI, 8, PROBE_SEED);
    for line in &metrics {
        let share = line.value_probe.unwrap_or_else(|| panic!("step {}: no probe", line.step));
        let drop = line.value_probe_drop.unwrap_or_else(|| panic!("step {}: no probe drop", line.step));
        let checkpoint = checkpoint::metadata_file(&run_dir, line.step);
        let (network, _) = checkpoint::load(&checkpoint, VariantId::SHOGI, None, Device::Cpu).unwrap();
        let again = run_probe(&network, &pairs).unwrap();
        assert_eq!(share, again.share(), "step {}", line.step);
        assert!((drop - again.mean_drop).abs() < 1e-4, "step {}: {drop} logged, {} found", line.step, again.mean_drop);
    }
    assert!(metrics[0].anchors.is_empty());
    // Each anchor with the network's own search, then with a player's search.
    let anchors: Vec<String> = metrics[1].anchors.iter().map(|a| a.label()).collect();
    assert_eq!(anchors, ["random", "alphabeta:1", "random (player's search)", "alphabeta:1 (player's search)"]);
    let folders = ["random", "alphabeta_1", "player-search/random", "player-search/alphabeta_1"];
    for (score, folder) in metrics[1].anchors.iter().zip(folders) {
        assert_eq!(score.games, 2);
        assert!((0.0..=1.0).contains(&score.score));
        let results = run_dir.join(format!("eval/step-0000000010/{folder}/results.json"));
        let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
        assert_eq!(summary["games"], 2, "{}", results.display());
        assert_eq!(summary["players"][1]["name"], score.anchor);
        let total = &summary["players"][0]["total"];
        assert_eq!([score.wins, score.draws, score.losses].map(u64::from), ["wins", "draws", "losses"].map(|k| total[k].as_u64().unwrap()));
        assert_eq!(score.score, (score.wins as f64 + 0.5 * score.draws as f64) / 2.0);
    }
    assert!(run_dir.join("strength.png").exists() && run_dir.join("strength-minutes.png").exists());
}

#[test]
fn the_bootstrap_teacher_labels_an_annealing_share_of_the_early_batches() {
    let (_scratch, run_dir) = train_edited("train-teacher", 10, |text| {
        format!("{text}\n[bootstrap]\nenabled = true\ndepth = 1\nshare = 1.0\nanneal_steps = 8\n")
    });
    let metrics = shogi_zero::pipeline::metrics::read(&run_dir).unwrap();
    let shares: Vec<Option<f64>> = metrics.iter().map(|l| l.teacher_share).collect();
    // Steps 0-4 label 1, 7/8, ..., 1/2 of a batch (mean 3/4); steps 5-9 label 3/8, 2/8, 1/8, 0, 0.
    let (first, second) = (shares[0].expect("the teacher labelled"), shares[1].expect("the teacher labelled"));
    assert!((first - 0.75).abs() < 0.01, "{first}");
    assert!((second - 0.15).abs() < 0.01, "{second}");
}

//! The trainer benchmark: training samples per second of the trainer's whole step (drawing
//! samples from the replay window, encoding the batch, forward, backward and the optimiser
//! update) next to the same step on one batch already encoded in memory, with the same network
//! and batch size, measured in the same run. The gap between the two is what loading and
//! encoding cost.

use std::path::Path;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::batch::BatchBuilder;
use super::optimizer::Optimizer;
use super::{TrainConfig, TrainError, Trainer};
use crate::nn::Network;
use crate::replay::{self, GameResult, MoveRecord, ReplayGame, ReplayWindow, WindowConfig};
use crate::rules::notation::{coord, sfen};
use crate::rules::{Game, GameRules, Position, VariantId};

/// One measurement, in training samples per second.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct TrainRate {
    /// The trainer's step from the replay window.
    pub trainer: f64,
    /// The step on a batch already encoded.
    pub prepared: f64,
}

/// Writes `games` seeded random games of `variant` (with a ply cap of `ply_cap`) as one replay
/// file in `dir`; every position's policy target spreads evenly over its legal moves
/// (a denser target than a search's, so encoding is not flattered).
pub fn write_random_games(variant: VariantId, games: usize, ply_cap: u32, seed: u64, dir: &Path) -> Result<(), TrainError> {
    let rules = GameRules { ply_cap, ..GameRules::default_for(variant.variant()) };
    let v = variant.variant();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let records: Vec<ReplayGame> = (0..games)
        .map(|g| {
            let start = Position::start(variant);
            let mut game = Game::new(start.clone(), rules);
            let mut moves = Vec::new();
            while game.outcome().is_none() {
                let legal = game.legal_moves().to_vec();
                let weight = 1.0 / legal.len() as f32;
                let policy = legal.iter().map(|&mv| (coord::write(v, mv), weight)).collect();
                let mv = legal[rng.random_range(0..legal.len())];
                moves.push(MoveRecord { mv: coord::write(v, mv), policy, root_wdl: [0.3, 0.4, 0.3] });
                game.play(mv).expect("a legal move plays");
            }
            let outcome = game.outcome().expect("the ply cap ends every game");
            ReplayGame {
                variant: variant.name().to_string(),
                start: sfen::write(&start),
                moves,
                result: GameResult { winner: outcome.winner, reason: outcome.reason.into() },
                model: "random".to_string(),
                seed: seed.wrapping_add(g as u64),
                resignation_disabled: false,
            }
        })
        .collect();
    replay::write_games(dir, variant, rules, &records)?;
    Ok(())
}

/// Measures the trainer on the replay files in `dir` and on one prepared batch, `duration`
/// each after a warm-up of a few steps. `make_network` builds the same network for both.
pub fn measure(make_network: &dyn Fn() -> Network, config: TrainConfig, dir: &Path, duration: Duration) -> Result<TrainRate, TrainError> {
    let network = make_network();
    let variant = network.variant();
    let mut window = ReplayWindow::new(
        dir,
        variant,
        WindowConfig { max_positions: config.window_positions, max_reuse: 1e9, targets: config.targets() },
    )?;
    window.refresh()?;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let builder = BatchBuilder::new(network.encoder());
    let batch_size = config.batch_size;
    let mut trainer = Trainer::new(network, Optimizer::new(&config), config, 0)?;
    let trainer_rate = steps_per_second(duration, &mut || {
        let samples = window.sample(&mut rng, batch_size)?;
        let batch = builder.build(&samples)?;
        trainer.train_step(&batch, 0.0);
        Ok(())
    })? * batch_size as f64;

    let batch = builder.build(&window.sample(&mut rng, batch_size)?)?;
    let mut trainer = Trainer::new(make_network(), Optimizer::new(&config), config, 0)?;
    let prepared_rate = steps_per_second(duration, &mut || {
        trainer.train_step(&batch, 0.0);
        Ok(())
    })? * batch_size as f64;
    Ok(TrainRate { trainer: trainer_rate, prepared: prepared_rate })
}

/// Steps per second of `step` over `duration`, after three steps of warm-up.
fn steps_per_second(duration: Duration, step: &mut dyn FnMut() -> Result<(), TrainError>) -> Result<f64, TrainError> {
    for _ in 0..3 {
        step()?;
    }
    let started = Instant::now();
    let mut steps = 0u64;
    while started.elapsed() < duration {
        step()?;
        steps += 1;
    }
    Ok(steps as f64 / started.elapsed().as_secs_f64())
}

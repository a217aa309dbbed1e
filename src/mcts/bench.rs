//! The search benchmark: simulations per second on one thread with a free evaluator (uniform
//! priors, an even value), so that only the search's own work is timed.

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Evaluator, Search, SearchConfig, UniformEvaluator};
use crate::rules::{Game, GameRules, Position, VariantId};

/// One variant's figures.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SearchRate {
    /// Simulations per second.
    pub simulations_per_s: f64,
    /// Mean depth of the simulations' leaves.
    pub mean_depth: f64,
}

/// Plies of random play before each benchmark position: the start position, an opening, a
/// middle game.
const BENCH_PLIES: [usize; 3] = [0, 30, 60];

/// The benchmark positions of `variant`: games after [`BENCH_PLIES`] seeded random plies (a game
/// that ends early is replayed with the next seed).
pub fn bench_games(variant: VariantId) -> Vec<Game> {
    let v = variant.variant();
    let mut games = Vec::new();
    let mut seed = 0u64;
    for plies in BENCH_PLIES {
        loop {
            let mut rng = crate::splitmix::SplitMix64::new(seed);
            seed += 1;
            let mut game = Game::new(Position::start(variant), GameRules::default_for(v));
            while game.ply() < plies && game.outcome().is_none() {
                let moves = game.legal_moves();
                game.play(moves[(rng.next_u64() % moves.len() as u64) as usize]).expect("legal moves play");
            }
            if game.outcome().is_none() {
                games.push(game);
                break;
            }
        }
    }
    games
}

/// Searches each of `games` with `simulations` simulations (self-play's exploring search, seed
/// 1), round after round until `duration` has passed (one round at least).
pub fn measure(games: &[Game], config: SearchConfig, simulations: u32, duration: Duration) -> SearchRate {
    let (mut done, mut depth_sum, mut seconds) = (0u64, 0f64, 0f64);
    while seconds == 0.0 || seconds < duration.as_secs_f64() {
        for game in games {
            let mut search = Search::new(game.clone(), config);
            let started = Instant::now();
            run(&mut search, simulations);
            seconds += started.elapsed().as_secs_f64();
            done += search.simulations() as u64;
            depth_sum += search.depth().1 as f64 * search.simulations() as f64;
        }
    }
    SearchRate { simulations_per_s: done as f64 / seconds, mean_depth: depth_sum / done.max(1) as f64 }
}

/// One exploring search of `simulations` simulations with the uniform evaluator.
fn run(search: &mut Search, simulations: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut evaluator = UniformEvaluator;
    search.start(simulations, true);
    while search.select(&mut rng) {
        let (leaf, moves) = search.leaf();
        let evaluation = evaluator.evaluate(leaf, moves).expect("the uniform evaluator does not fail");
        search.expand(&evaluation);
    }
}

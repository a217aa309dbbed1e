//! The search benchmark: simulations per second on one thread with a free evaluator (uniform
//! priors, an even value), so that only the search's own work is timed; next to it, in the same
//! run, the rate the search would have with a checked walk down (the root game copied and each
//! leaf's line replayed with [`Game::play`], which generates legal moves and decides the outcome
//! at every ply).

use std::hint::black_box;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{Evaluator, Search, SearchConfig, UniformEvaluator};
use crate::rules::{Game, GameRules, Move, Position, VariantId};

/// One variant's figures.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SearchRate {
    /// Simulations per second.
    pub simulations_per_s: f64,
    /// Simulations per second with the checked walk down: the search's time with its walks
    /// down to the evaluated leaves replaced by checked ones over the same lines (walks that end
    /// at a finished game are left as they are, which flatters the checked figure).
    pub checked_per_s: f64,
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
/// 1), round after round until `duration` has passed (one round at least). Each search is then
/// run again untimed to collect its leaves' lines, and both walks down are timed over them.
pub fn measure(games: &[Game], config: SearchConfig, simulations: u32, duration: Duration) -> SearchRate {
    let (mut done, mut depth_sum, mut seconds) = (0u64, 0f64, 0f64);
    let (mut unchecked_seconds, mut checked_seconds) = (0f64, 0f64);
    while seconds == 0.0 || seconds < duration.as_secs_f64() {
        for game in games {
            let mut search = Search::new(game.clone(), config);
            let started = Instant::now();
            run(&mut search, simulations, |_| {});
            seconds += started.elapsed().as_secs_f64();
            done += search.simulations() as u64;
            depth_sum += search.depth().1 as f64 * search.simulations() as f64;
            let mut lines = Vec::new();
            run(&mut Search::new(game.clone(), config), simulations, |leaf| lines.push(leaf.moves()[game.ply()..].to_vec()));
            unchecked_seconds += time_walks(game, &lines, unchecked_walk);
            checked_seconds += time_walks(game, &lines, checked_walk);
        }
    }
    SearchRate {
        simulations_per_s: done as f64 / seconds,
        checked_per_s: done as f64 / (seconds - unchecked_seconds + checked_seconds),
        mean_depth: depth_sum / done.max(1) as f64,
    }
}

/// One exploring search of `simulations` simulations with the uniform evaluator; `leaf` sees
/// every leaf evaluated.
fn run(search: &mut Search, simulations: u32, mut leaf: impl FnMut(&Game)) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut evaluator = UniformEvaluator;
    search.start(simulations, true);
    while search.select(&mut rng) {
        let (game, moves) = search.leaf();
        leaf(game);
        let evaluation = evaluator.evaluate(game, moves).expect("the uniform evaluator does not fail");
        search.expand(&evaluation);
    }
}

/// Seconds to walk from `root` down every one of `lines` with `walk`, and take the leaf's moves.
fn time_walks(root: &Game, lines: &[Vec<Move>], walk: fn(&mut Game, &[Move])) -> f64 {
    let mut leaf = root.clone();
    let started = Instant::now();
    for line in lines {
        leaf.clone_from(root);
        walk(&mut leaf, line);
        black_box(leaf.legal_moves());
    }
    started.elapsed().as_secs_f64()
}

/// The search's walk down: unchecked moves, the leaf settled.
fn unchecked_walk(game: &mut Game, line: &[Move]) {
    for &mv in line {
        game.play_unchecked(mv);
    }
    if !line.is_empty() {
        game.settle();
    }
}

/// The checked walk down: every move played with [`Game::play`].
fn checked_walk(game: &mut Game, line: &[Move]) {
    for &mv in line {
        game.play(mv).expect("the search's moves are legal");
    }
}

//! Helpers shared by the `nn_*` integration tests: a seeded random number generator, seeded
//! random games, tiny network settings and scratch folders.
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;

pub use crate::common::Scratch;
pub use crate::common::SplitMix64 as Rng;
use shogi_zero::nn::NetworkConfig;
use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::{Game, GameRules, Move, Position, VariantId};

/// A game of `id` from its start position under the default rules.
pub fn new_game(id: VariantId) -> Game {
    Game::new(Position::start(id), GameRules::default_for(id.variant()))
}

/// A game from a position text.
pub fn game_from(id: VariantId, text: &str) -> Game {
    let pos = sfen::parse(id.variant(), text).unwrap_or_else(|e| panic!("'{text}' does not parse: {e}"));
    Game::new(pos, GameRules::default_for(id.variant()))
}

/// Plays a seeded random game of at most `max_plies` plies and calls `visit` on the game before
/// every move and once at the end. Odd seeds prefer captures (fuller hands, more promotions).
pub fn random_game(id: VariantId, seed: u64, max_plies: usize, mut visit: impl FnMut(&Game)) {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ id.index() as u64);
    let mut game = new_game(id);
    for _ in 0..max_plies {
        visit(&game);
        let moves = game.legal_moves();
        if moves.is_empty() {
            return;
        }
        let pos = game.position();
        let captures: Vec<Move> =
            moves.iter().copied().filter(|m| matches!(m, Move::Normal { to, .. } if pos.piece_at(*to).is_some())).collect();
        let mv = if seed % 2 == 1 && !captures.is_empty() { captures[rng.below(captures.len())] } else { moves[rng.below(moves.len())] };
        game.play(mv).expect("a legal move plays");
    }
    visit(&game);
}

/// Up to `count` games in progress, sampled from seeded random games of `id`.
pub fn sample_games(id: VariantId, count: usize, seed: u64) -> Vec<Game> {
    let mut games = Vec::new();
    let mut s = seed;
    while games.len() < count {
        let mut ply = 0;
        random_game(id, s, 120, |g| {
            if g.outcome().is_none() && ply % 13 == (s as usize) % 13 && games.len() < count {
                games.push(g.clone());
            }
            ply += 1;
        });
        s += 1;
    }
    games
}

/// The network the tests use: two blocks of 16 channels, one with global pooling.
pub fn tiny_config() -> NetworkConfig {
    NetworkConfig::scaled(2, 16)
}

/// Encoded positions, one after another, with the policy indices of each one's legal moves.
pub struct Batch {
    pub planes: Vec<f32>,
    pub legal: Vec<Vec<u32>>,
}

/// Encodes `games` of one variant.
pub fn encode_batch(games: &[Game]) -> Batch {
    let v = games[0].position().variant();
    let (encoder, map) = (shogi_zero::nn::Encoder::new(v), shogi_zero::nn::PolicyMap::new(v));
    let mut planes = vec![0.0; games.len() * encoder.len()];
    let mut legal = Vec::new();
    for (game, out) in games.iter().zip(planes.chunks_mut(encoder.len())) {
        encoder.encode_game(game, out);
        let mut indices = Vec::new();
        map.indices_into(&game.legal_moves(), game.position().side_to_move(), &mut indices).expect("legal moves map");
        legal.push(indices);
    }
    Batch { planes, legal }
}

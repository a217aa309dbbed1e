//! The `random` player: a uniformly random legal move, from a seeded generator.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use crate::rules::{Color, Game, Move};

/// Makes [`RandomPlayer`]s.
pub struct RandomFactory {
    name: String,
}

impl RandomFactory {
    /// A factory whose players are called `name`.
    pub fn new(name: String) -> RandomFactory {
        RandomFactory { name }
    }
}

impl PlayerFactory for RandomFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_player(&self, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        Ok(Box::new(RandomPlayer { name: self.name.clone(), rng: ChaCha8Rng::seed_from_u64(seed) }))
    }
}

/// Plays a uniformly random legal move.
pub struct RandomPlayer {
    name: String,
    rng: ChaCha8Rng,
}

impl Player for RandomPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, _color: Color) -> Result<(), PlayerError> {
        Ok(())
    }

    fn choose(&mut self, game: &Game, _budget: Budget) -> Result<Move, PlayerError> {
        let moves = game.legal_moves();
        if moves.is_empty() {
            return Err(PlayerError::GameOver);
        }
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

//! The `alphabeta:<depth>` player: negamax with alpha-beta pruning on material
//! ([`MaterialSearch`]), for every variant.
//!
//! - The root moves come from the [`Game`], so history rules apply to the move actually played;
//!   a legal declaration is played at once.
//! - Root moves are shuffled by the player's seed before the search orders them, so that equal
//!   moves vary between games.
//! - Budget: [`Budget::Time`] makes the search iterative (depth 1, 2, ... up to the player's
//!   depth) and stops it when the time is up, playing the best move of the last finished depth;
//!   other budgets search to the player's depth.

use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use crate::material_search::MaterialSearch;
use crate::rules::{Color, Game, Move, VariantId};

/// Makes [`AlphaBetaPlayer`]s.
pub struct AlphaBetaFactory {
    name: String,
    variant: VariantId,
    depth: u32,
}

impl AlphaBetaFactory {
    /// A factory of players searching `depth` plies in games of `variant`.
    pub fn new(name: String, variant: VariantId, depth: u32) -> AlphaBetaFactory {
        AlphaBetaFactory { name, variant, depth }
    }
}

impl PlayerFactory for AlphaBetaFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_player(&self, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        Ok(Box::new(AlphaBetaPlayer::new(self.name.clone(), self.variant, self.depth, seed)))
    }
}

/// Alpha-beta search on material to a fixed depth ([`MaterialSearch`]).
pub struct AlphaBetaPlayer {
    name: String,
    depth: u32,
    rng: ChaCha8Rng,
    search: MaterialSearch,
}

impl AlphaBetaPlayer {
    /// A player searching `depth` plies in games of `variant`.
    pub fn new(name: String, variant: VariantId, depth: u32, seed: u64) -> AlphaBetaPlayer {
        AlphaBetaPlayer { name, depth, rng: ChaCha8Rng::seed_from_u64(seed), search: MaterialSearch::new(variant) }
    }
}

impl Player for AlphaBetaPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, _color: Color) -> Result<(), PlayerError> {
        Ok(())
    }

    fn choose(&mut self, game: &Game, budget: Budget) -> Result<Move, PlayerError> {
        let deadline = match budget {
            Budget::Time(t) => Some(Instant::now() + t),
            _ => None,
        };
        self.search.choose(game, self.depth, deadline, &mut self.rng).ok_or(PlayerError::GameOver)
    }
}

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

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use crate::material_search::{is_mate_score, MaterialSearch};
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
        AlphaBetaPlayer { name, depth: depth.max(1), rng: ChaCha8Rng::seed_from_u64(seed), search: MaterialSearch::new(variant) }
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
        let mut moves = game.legal_moves();
        if moves.contains(&Move::Declare) {
            return Ok(Move::Declare);
        }
        moves.shuffle(&mut self.rng);
        let mut pos = game.position().clone();
        let mut list = self.search.ordered(&pos, moves);
        let Some(&(_, mut best)) = list.first() else { return Err(PlayerError::GameOver) };
        let deadline = match budget {
            Budget::Time(t) => Some(Instant::now() + t),
            _ => None,
        };
        let first_depth = if deadline.is_some() { 1 } else { self.depth };
        for depth in first_depth..=self.depth {
            let Some((mv, score)) = self.search.best_move(&mut pos, &list, depth, deadline) else { break };
            best = mv;
            // Search the best move first at the next depth.
            if let Some(i) = list.iter().position(|&(_, m)| m == mv) {
                list[..=i].rotate_right(1);
            }
            if is_mate_score(score) {
                break;
            }
        }
        Ok(best)
    }
}

//! The `alphabeta:<depth>` player: negamax with alpha-beta pruning on material, for every variant.
//!
//! - Evaluation: the material balance of [`Material`] (the rules core's table). The king is left
//!   out: its loss ends the game, which the search scores directly.
//! - Terminal scores: a side with no legal move has lost (checkmate or stalemate, as the rules
//!   say), and in the royal-capture variants a move that removes the last enemy royal wins (one
//!   that burns the mover's own last royal loses); faster wins score higher. Repetition,
//!   bare-king and declaration rules are left to the game, except that a legal declaration is
//!   played at once.
//! - Inside the tree positions are searched with [`Position::play_unchecked`]/[`Position::unmake`] and
//!   [`Position::legal_moves`]; the root moves come from the [`Game`], so history rules apply to
//!   the move actually played.
//! - Ordering: captures first (most valuable victims first), then promotions, then the rest;
//!   root moves are shuffled by the player's seed first, so that equal moves vary between games.
//! - Budget: [`Budget::Time`] makes the search iterative (depth 1, 2, ... up to the player's
//!   depth) and stops it when the time is up, playing the best move of the last finished depth;
//!   other budgets search to the player's depth.

use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use crate::rules::material::Material;
use crate::rules::variant::Legality;
use crate::rules::{Color, Game, Move, Piece, Position, VariantId};

/// Score of a won game at the root; a win `n` plies away scores `MATE - n`.
const MATE: i32 = 1_000_000;
/// Above any score.
const INFINITY: i32 = MATE + 1;
/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 256;

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

/// Alpha-beta search on material to a fixed depth.
pub struct AlphaBetaPlayer {
    name: String,
    depth: u32,
    material: &'static Material,
    legality: Legality,
    rng: ChaCha8Rng,
    /// Move lists per ply, reused between nodes.
    lists: Vec<Vec<(i32, Move)>>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl AlphaBetaPlayer {
    /// A player searching `depth` plies in games of `variant`.
    pub fn new(name: String, variant: VariantId, depth: u32, seed: u64) -> AlphaBetaPlayer {
        AlphaBetaPlayer {
            name,
            depth: depth.max(1),
            material: Material::of(variant),
            legality: variant.spec().legality,
            rng: ChaCha8Rng::seed_from_u64(seed),
            lists: Vec::new(),
            nodes: 0,
            deadline: None,
            aborted: false,
        }
    }

    /// The ordering key of `mv` in `pos`: the value of what it captures, plus what promotion gains.
    fn order_key(&self, pos: &Position, mv: Move) -> i32 {
        let victim = |sq| pos.piece_at(sq).map_or(0, |p| self.material.value(p));
        let gain = |from, promote: bool| match pos.piece_at(from) {
            Some(p) if promote => self.material.value(Piece { promoted: true, ..p }) - self.material.value(p),
            _ => 0,
        };
        match mv {
            Move::Normal { from, to, promote } => victim(to) + gain(from, promote),
            Move::TwoLeg { from, mid, to, promote } => victim(mid) + if to == from { 0 } else { victim(to) } + gain(from, promote),
            _ => 0,
        }
    }

    /// Fills the move list of `ply` with the moves of `pos`, best-looking first.
    fn ordered(&mut self, pos: &Position, moves: impl IntoIterator<Item = Move>, ply: usize) -> Vec<(i32, Move)> {
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        list.extend(moves.into_iter().map(|mv| (self.order_key(pos, mv), mv)));
        // Stable, so that equal keys keep the (shuffled) order they came in.
        list.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
        list
    }

    /// The score for the side that just played a move, if the move ended the game by capturing
    /// (or burning) the last royal of a side.
    fn royal_loss(&self, pos: &Position, ply: usize) -> Option<i32> {
        if self.legality != Legality::RoyalCapture {
            return None;
        }
        let mover = pos.side_to_move().opponent();
        if pos.royal_count(mover.opponent()) == 0 {
            Some(MATE - ply as i32)
        } else if pos.royal_count(mover) == 0 {
            Some(-(MATE - ply as i32))
        } else {
            None
        }
    }

    /// Whether the time is up (looked at every [`CLOCK_INTERVAL`] nodes).
    fn out_of_time(&mut self) -> bool {
        self.nodes += 1;
        if !self.aborted && self.nodes.is_multiple_of(CLOCK_INTERVAL) {
            self.aborted = self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        self.aborted
    }

    /// Negamax value of `pos` for its side to move, searched `depth` plies deep.
    fn negamax(&mut self, pos: &mut Position, depth: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.out_of_time() {
            return 0;
        }
        if depth == 0 {
            return self.material.evaluate(pos);
        }
        let list = self.ordered(pos, pos.legal_moves(), ply);
        let mut best = -(MATE - ply as i32);
        for &(_, mv) in &list {
            let undo = pos.play_unchecked(mv);
            let score = match self.royal_loss(pos, ply + 1) {
                Some(score) => score,
                None => -self.negamax(pos, depth - 1, -beta, -alpha, ply + 1),
            };
            pos.unmake(mv, undo);
            if self.aborted {
                break;
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        self.lists[ply] = list;
        best
    }

    /// Searches the root moves `list` to `depth`; returns the best move and its score, or `None`
    /// when the time ran out first.
    fn search_root(&mut self, pos: &mut Position, list: &[(i32, Move)], depth: u32) -> Option<(Move, i32)> {
        let mut best: Option<(Move, i32)> = None;
        for &(_, mv) in list {
            let alpha = best.map_or(-INFINITY, |(_, s)| s);
            let undo = pos.play_unchecked(mv);
            let score = match self.royal_loss(pos, 1) {
                Some(score) => score,
                None => -self.negamax(pos, depth - 1, -INFINITY, -alpha, 1),
            };
            pos.unmake(mv, undo);
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((mv, score));
            }
        }
        best
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
        let mut list = self.ordered(&pos, moves, 0);
        let Some(&(_, mut best)) = list.first() else { return Err(PlayerError::GameOver) };
        self.nodes = 0;
        self.aborted = false;
        self.deadline = match budget {
            Budget::Time(t) => Some(Instant::now() + t),
            _ => None,
        };
        let first_depth = if self.deadline.is_some() { 1 } else { self.depth };
        for depth in first_depth..=self.depth {
            let Some((mv, score)) = self.search_root(&mut pos, &list, depth) else { break };
            best = mv;
            // Search the best move first at the next depth.
            if let Some(i) = list.iter().position(|&(_, m)| m == mv) {
                list[..=i].rotate_right(1);
            }
            if score.abs() > MATE - 1000 {
                break;
            }
        }
        Ok(best)
    }
}

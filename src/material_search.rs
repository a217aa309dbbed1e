//! Alpha-beta search on material, for every variant: the engine of the `alphabeta:<depth>`
//! anchor player ([`crate::arena::alphabeta`]), of self-play's searcher games
//! ([`crate::selfplay::SelfplayConfig::searcher_fraction`]) and of the trainer's bootstrap
//! teacher ([`crate::train::teacher`]).
//!
//! - Evaluation: the material balance of [`Material`] (the rules core's table). The king is left
//!   out: its loss ends the game, which the search scores directly.
//! - Terminal scores: a side with no legal move has lost (checkmate or stalemate, as the rules
//!   say), and in the royal-capture variants a move that removes the last enemy royal wins (one
//!   that burns the mover's own last royal loses); faster wins score higher ([`MATE`] less the
//!   plies to it). Repetition, bare-king and declaration rules are left to the game.
//! - Positions are searched with [`Position::play_unchecked`]/[`Position::unmake`] and
//!   [`Position::legal_moves`]; callers pass the root moves, so history rules (which only the
//!   game knows) apply at the root.
//! - Ordering: captures first (most valuable victims first), then promotions, then the rest, in
//!   a stable sort that keeps the callers' order among equals.
//! - Quiescence (off unless asked for, [`MaterialSearch::with_quiescence`]): past the nominal
//!   depth, captures only (the side to move may stand on the material balance instead), up to a
//!   number of plies, so that a capture met by a recapture is not scored as a clean gain. A
//!   fire demon's move that burns counts as a capture there.

use std::time::Instant;

use rand::seq::SliceRandom;
use rand::Rng;

use crate::rules::material::Material;
use crate::rules::variant::Legality;
use crate::rules::{Game, Move, Piece, Position, VariantId};

/// Score of a won game at the root; a win `n` plies away scores `MATE - n`.
pub const MATE: i32 = 1_000_000;
/// Above any score.
const INFINITY: i32 = MATE + 1;
/// Nodes between two looks at the clock.
const CLOCK_INTERVAL: u64 = 256;

/// Whether `score` announces a forced win or loss rather than a material balance.
pub fn is_mate_score(score: i32) -> bool {
    score.abs() > MATE - 1000
}

/// A negamax searcher with alpha-beta pruning on the material of one variant. Reuses its move
/// lists from search to search.
#[derive(Clone, Debug)]
pub struct MaterialSearch {
    material: &'static Material,
    legality: Legality,
    /// Move lists per ply, reused between nodes.
    lists: Vec<Vec<(i32, Move)>>,
    /// Capture-only plies searched past the nominal depth (0: none).
    quiescence_plies: u32,
    /// Nodes after which no capture is searched any more: every side stands on its balance.
    node_limit: u64,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl MaterialSearch {
    /// A searcher of positions of `variant`.
    pub fn new(variant: VariantId) -> MaterialSearch {
        MaterialSearch {
            material: Material::of(variant),
            legality: variant.spec().legality,
            lists: Vec::new(),
            quiescence_plies: 0,
            node_limit: u64::MAX,
            nodes: 0,
            deadline: None,
            aborted: false,
        }
    }

    /// The same searcher, extending every line by up to `plies` capture-only plies past its
    /// nominal depth (0: no quiescence search).
    pub fn with_quiescence(self, plies: u32) -> MaterialSearch {
        MaterialSearch { quiescence_plies: plies, ..self }
    }

    /// The same searcher, searching no capture once a search has visited `nodes` nodes: the
    /// side to move at every later node stands on its balance. Bounds the cost of a search where
    /// captures abound; the first captures searched are the most valuable ones.
    pub fn with_node_limit(self, nodes: u64) -> MaterialSearch {
        MaterialSearch { node_limit: nodes, ..self }
    }

    /// `moves` best-looking first (a stable sort: equal keys keep the order they came in), each
    /// with its ordering key.
    pub fn ordered(&mut self, pos: &Position, moves: impl IntoIterator<Item = Move>) -> Vec<(i32, Move)> {
        self.ordered_at(pos, moves, 0)
    }

    /// Searches the root moves `list` of `pos` (as [`MaterialSearch::ordered`] gives them) to
    /// `depth` plies; returns the best move and its score for the side to move, or `None` when
    /// `deadline` passed first.
    pub fn best_move(&mut self, pos: &mut Position, list: &[(i32, Move)], depth: u32, deadline: Option<Instant>) -> Option<(Move, i32)> {
        self.start(deadline);
        let mut best: Option<(Move, i32)> = None;
        for &(_, mv) in list {
            let alpha = best.map_or(-INFINITY, |(_, s)| s);
            let score = self.score_move(pos, mv, depth, alpha, INFINITY);
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, s)| score > s) {
                best = Some((mv, score));
            }
        }
        best
    }

    /// The move to play in `game` after a search `depth` plies deep: a legal declaration at once,
    /// else the best move, equal moves in an order shuffled by `rng` (so that games vary). With a
    /// `deadline` the search deepens one ply at a time (1, 2, ... `depth`) and the best move of
    /// the last depth finished in time is played. `None`: the game has no legal move.
    pub fn choose(&mut self, game: &Game, depth: u32, deadline: Option<Instant>, rng: &mut impl Rng) -> Option<Move> {
        let mut moves = game.legal_moves();
        if moves.contains(&Move::Declare) {
            return Some(Move::Declare);
        }
        moves.shuffle(rng);
        let mut pos = game.position().clone();
        let mut list = self.ordered(&pos, moves);
        let mut best = list.first()?.1;
        let depth = depth.max(1);
        let first_depth = if deadline.is_some() { 1 } else { depth };
        for depth in first_depth..=depth {
            let Some((mv, score)) = self.best_move(&mut pos, &list, depth, deadline) else { break };
            best = mv;
            // Search the best move first at the next depth.
            if let Some(i) = list.iter().position(|&(_, m)| m == mv) {
                list[..=i].rotate_right(1);
            }
            if is_mate_score(score) {
                break;
            }
        }
        Some(best)
    }

    /// The exact score of every move of `moves` in `pos`, each searched `depth` plies deep with a
    /// full window, for the side to move.
    pub fn move_scores(&mut self, pos: &mut Position, moves: &[Move], depth: u32) -> Vec<i32> {
        self.start(None);
        moves.iter().map(|&mv| self.score_move(pos, mv, depth, -INFINITY, INFINITY)).collect()
    }

    /// The material balance of `pos` for its side to move once the captures are played out: the
    /// quiescence search's score (captures only, up to the searcher's quiescence plies, either
    /// side standing on the balance where that scores more). Never below the balance itself.
    pub fn quiescence_score(&mut self, pos: &mut Position) -> i32 {
        self.start(None);
        self.negamax(pos, 0, self.quiescence_plies, -INFINITY, INFINITY, 0)
    }

    fn start(&mut self, deadline: Option<Instant>) {
        self.nodes = 0;
        self.aborted = false;
        self.deadline = deadline;
    }

    /// The score of playing `mv` in `pos`, searched `depth` plies deep (the move included).
    fn score_move(&mut self, pos: &mut Position, mv: Move, depth: u32, alpha: i32, beta: i32) -> i32 {
        let undo = pos.play_unchecked(mv);
        let score = match self.royal_loss(pos, 1) {
            Some(score) => score,
            None => -self.negamax(pos, depth.max(1) - 1, self.quiescence_plies, -beta, -alpha, 1),
        };
        pos.unmake(mv, undo);
        score
    }

    /// The ordering key of `mv` in `pos`: the value of what it captures, plus what promotion gains.
    fn order_key(&self, pos: &Position, mv: Move) -> i32 {
        let victims: i32 = mv.capture_squares().filter_map(|sq| pos.piece_at(sq)).map(|p| self.material.value(p)).sum();
        let gain = match mv {
            Move::Normal { from, promote: true, .. } | Move::TwoLeg { from, promote: true, .. } => {
                pos.piece_at(from).map_or(0, |p| self.material.value(Piece { promoted: true, ..p }) - self.material.value(p))
            }
            _ => 0,
        };
        victims + gain
    }

    /// Fills the move list of `ply` with `moves`, best-looking first.
    fn ordered_at(&mut self, pos: &Position, moves: impl IntoIterator<Item = Move>, ply: usize) -> Vec<(i32, Move)> {
        if self.lists.len() <= ply {
            self.lists.resize_with(ply + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        list.extend(moves.into_iter().map(|mv| (self.order_key(pos, mv), mv)));
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

    /// Negamax value of `pos` for its side to move, searched `depth` plies deep, then `quiet`
    /// plies over captures only, where the side to move takes the material balance or the best
    /// capture, whichever scores more.
    fn negamax(&mut self, pos: &mut Position, depth: u32, quiet: u32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.out_of_time() {
            return 0;
        }
        let (moves, mut best, depth, quiet) = if depth > 0 {
            (pos.legal_moves(), -(MATE - ply as i32), depth - 1, quiet)
        } else {
            let stand = self.material.evaluate(pos);
            if quiet == 0 || stand >= beta || self.nodes >= self.node_limit {
                return stand;
            }
            alpha = alpha.max(stand);
            let captures = pos.legal_moves().into_iter().filter(|&mv| is_capture(pos, mv)).collect();
            (captures, stand, 0, quiet - 1)
        };
        let list = self.ordered_at(pos, moves, ply);
        for &(_, mv) in &list {
            let undo = pos.play_unchecked(mv);
            let score = match self.royal_loss(pos, ply + 1) {
                Some(score) => score,
                None => -self.negamax(pos, depth, quiet, -beta, -alpha, ply + 1),
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
}

/// Whether `mv` takes a piece off the board: captures one, or burns one once it has landed
/// (tenjiku's fire demons burn enemies, and a piece landing next to an enemy fire demon burns).
fn is_capture(pos: &Position, mv: Move) -> bool {
    mv.capture_squares().any(|sq| pos.piece_at(sq).is_some()) || pos.burns(mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::{coord, sfen};

    const SHOGI: VariantId = VariantId::SHOGI;

    fn position(id: VariantId, text: &str) -> Position {
        sfen::parse(id.variant(), text).unwrap()
    }

    /// The material balance for Black after `moves` are played from `text`, less before.
    fn swing(id: VariantId, text: &str, moves: &[&str]) -> i32 {
        let material = Material::of(id);
        let mut pos = position(id, text);
        let before = material.balance(&pos, crate::rules::Color::Black);
        for text in moves {
            let mv = coord::parse(&pos, text).unwrap();
            pos.play_unchecked(mv);
        }
        material.balance(&pos, crate::rules::Color::Black) - before
    }

    /// What the side to move wins by captures alone: the quiescence score less the balance.
    fn gain(id: VariantId, text: &str) -> i32 {
        let mut pos = position(id, text);
        let balance = Material::of(id).evaluate(&pos);
        MaterialSearch::new(id).with_quiescence(6).quiescence_score(&mut pos) - balance
    }

    #[test]
    fn the_quiescence_score_takes_what_hangs_and_counts_the_recapture() {
        // White's rook on 2b hangs to Black's bishop (taking with promotion).
        let hanging = "4k4/7r1/9/9/4B4/9/9/9/4K4 b - 1";
        assert_eq!(gain(SHOGI, hanging), swing(SHOGI, hanging, &["5e2b+"]));
        // The silver on 3a defends it: the bishop is taken back, unpromoted (a horse is worth
        // more).
        let defended = "4k1s2/7r1/9/9/4B4/9/9/9/4K4 b - 1";
        assert_eq!(gain(SHOGI, defended), swing(SHOGI, defended, &["5e2b", "3a2b"]));
        assert!(gain(SHOGI, defended) < gain(SHOGI, hanging));
        // Nothing to take: no gain; a piece worth taking only with loss is left alone.
        assert_eq!(gain(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b R 1"), 0);
        assert_eq!(gain(SHOGI, "4k4/9/9/3g5/2p6/3S5/9/9/4K4 b - 1"), 0);
        // Out of nodes at once: the side to move stands on the balance, the rook left hanging.
        let mut pos = position(SHOGI, hanging);
        let balance = Material::of(SHOGI).evaluate(&pos);
        assert_eq!(MaterialSearch::new(SHOGI).with_quiescence(6).with_node_limit(1).quiescence_score(&mut pos), balance);
    }

    /// Burning counts as taking: Black's fire demon on 8k moves to 8i and burns White's pawn,
    /// gold and silver next to it (tenjiku-shogi.md §5.4), which nothing can avenge.
    #[test]
    fn the_quiescence_score_counts_what_a_fire_demon_burns() {
        let burn = "k15/16/16/16/16/16/16/7p1g6/16/9s6/8(FD)7/16/16/16/16/15K b - 1";
        let id = VariantId::TENJIKU_SHOGI;
        assert!(swing(id, burn, &["8k8i"]) > 0);
        assert_eq!(gain(id, burn), swing(id, burn, &["8k8i"]));
    }
}

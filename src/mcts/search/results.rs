//! Results: what a search tells its caller. The move to play, the policy target for training,
//! the root's value, the principal variation and the root moves' statistics.

use rand::Rng;

use super::selection::{exploration, forced_playouts, Gumbel, Puct, Selection};
use super::Search;
use crate::mcts::tree::{NodeId, ROOT};
use crate::rules::Move;

impl Search {
    /// The move the search recommends: the most visited (PUCT; ties to the higher value, then to
    /// the higher prior, so that a search too short to visit a child plays the network's
    /// favourite), or the winner of sequential halving (Gumbel).
    pub fn best_move(&self) -> Option<Move> {
        let root = self.tree.node(ROOT);
        if root.child_count == 0 {
            return None;
        }
        if let Some(id) = self.winning {
            return Some(self.tree.node(id).mv);
        }
        let halving_winner = match &self.selection {
            Selection::Gumbel(gumbel) => gumbel.winner(&self.tree, &self.config),
            Selection::Puct(_) => None,
        };
        let best = halving_winner.or_else(|| {
            root.children().max_by(|&a, &b| {
                let (a, b) = (self.tree.node(a), self.tree.node(b));
                a.visits.cmp(&b.visits).then(a.q().unwrap_or(-2.0).total_cmp(&b.q().unwrap_or(-2.0))).then(a.prior.total_cmp(&b.prior))
            })
        });
        best.map(|c| self.tree.node(c).mv)
    }

    /// The move to play: with PUCT, sampled in proportion to visits^(1/temperature) (the best
    /// move when the temperature is 0); with Gumbel the halving winner (its sampling happened in
    /// the search through the Gumbel noise).
    pub fn choose_move(&self, temperature: f32, rng: &mut impl Rng) -> Option<Move> {
        if matches!(self.selection, Selection::Gumbel(_)) || temperature <= 1e-3 || self.winning.is_some() {
            return self.best_move();
        }
        let root = self.tree.node(ROOT);
        let max = root.children().map(|c| self.tree.node(c).visits).max()?;
        if max == 0 {
            return self.best_move();
        }
        let weights: Vec<f64> =
            root.children().map(|c| (self.tree.node(c).visits as f64 / max as f64).powf(1.0 / temperature as f64)).collect();
        let total: f64 = weights.iter().sum();
        let mut x = rng.random::<f64>() * total;
        for (c, w) in root.children().zip(&weights) {
            x -= w;
            if x <= 0.0 && *w > 0.0 {
                return Some(self.tree.node(c).mv);
            }
        }
        self.best_move()
    }

    /// The policy target of this search over the root's legal moves (weights sum to 1): the
    /// improved policy (Gumbel), or the visit distribution with forced playouts pruned (PUCT;
    /// pruning only after an exploring search).
    pub fn policy_target(&self) -> Vec<(Move, f32)> {
        if let Some(id) = self.winning {
            return vec![(self.tree.node(id).mv, 1.0)];
        }
        let root = self.tree.node(ROOT);
        let moves = root.children().map(|c| self.tree.node(c).mv);
        let weights: Vec<f32> = match &self.selection {
            Selection::Gumbel(_) => Gumbel::improved_policy(&self.tree, &self.config, ROOT),
            Selection::Puct(puct) => self.pruned_visits(puct),
        };
        let total: f32 = weights.iter().sum();
        if total <= 0.0 {
            return Vec::new();
        }
        moves.zip(weights).filter(|&(_, w)| w > 0.0).map(|(mv, w)| (mv, w / total)).collect()
    }

    /// Root visits less the forced playouts that PUCT alone would not have given (KataGo's
    /// policy target pruning): a child other than the best loses visits, up to its forced
    /// number, while its PUCT score stays below the best child's; one visit left is dropped.
    fn pruned_visits(&self, puct: &Puct) -> Vec<f32> {
        let root = self.tree.node(ROOT);
        let visits: Vec<f32> = root.children().map(|c| self.tree.node(c).visits as f32).collect();
        if !puct.forces_playouts(&self.config) {
            return visits;
        }
        let total: u32 = root.children().map(|c| self.tree.node(c).visits).sum();
        let c = exploration(&self.config, total);
        let sqrt_total = (total.max(1) as f32).sqrt();
        let Some(best) = root.children().max_by_key(|&c| self.tree.node(c).visits) else { return visits };
        let score = |id: NodeId, n: f32| {
            let node = self.tree.node(id);
            node.q().unwrap_or(-1.0) + c * node.prior * sqrt_total / (1.0 + n)
        };
        let best_score = score(best, self.tree.node(best).visits as f32);
        root.children()
            .zip(visits)
            .map(|(id, n)| {
                if id == best || n == 0.0 {
                    return n;
                }
                let floor = (n - forced_playouts(&self.config, self.tree.node(id).prior, total).floor()).max(0.0);
                let mut kept = n;
                while kept > floor && score(id, kept - 1.0) < best_score {
                    kept -= 1.0;
                }
                if kept <= 1.0 {
                    0.0
                } else {
                    kept
                }
            })
            .collect()
    }

    /// The root's value for its side to move: win, draw, loss probabilities. Their win minus
    /// loss is the root's value; where the aids of the search (capture, pursuit) moved that value
    /// further from even than the evaluator's draw probability allows, the draw probability gives
    /// way, so that the three stay a distribution (self-play records them).
    pub fn root_wdl(&self) -> [f32; 3] {
        if self.winning.is_some() {
            return [1.0, 0.0, 0.0];
        }
        let root = self.tree.node(ROOT);
        if root.visits == 0 {
            return [0.0, 1.0, 0.0];
        }
        let q = (-root.value_sum / root.visits as f32).clamp(-1.0, 1.0);
        let draw = (root.draw_sum / root.visits as f32).clamp(0.0, 1.0 - q.abs());
        // Clamped: at a value of exactly -(1 - draw) rounding can leave the win at -1e-8.
        let win = ((1.0 - draw + q) / 2.0).clamp(0.0, 1.0 - draw);
        [win, draw, 1.0 - draw - win]
    }

    /// The principal variation: the winning move (and the line of a forced mate) when one was
    /// found at the root, else the most-visited children from the root down.
    pub fn principal_variation(&self) -> Vec<Move> {
        if let Some(id) = self.winning {
            return if self.mate_line.is_empty() { vec![self.tree.node(id).mv] } else { self.mate_line.clone() };
        }
        let mut pv = Vec::new();
        let mut id = ROOT;
        while let Some(best) =
            self.tree.node(id).children().filter(|&c| self.tree.node(c).visits > 0).max_by_key(|&c| self.tree.node(c).visits)
        {
            pv.push(self.tree.node(best).mv);
            id = best;
        }
        pv
    }

    /// Every root move with its visits and value for the side to move (None if unvisited).
    pub fn root_moves(&self) -> Vec<(Move, u32, Option<f32>)> {
        let root = self.tree.node(ROOT);
        root.children().map(|c| self.tree.node(c)).map(|n| (n.mv, n.visits, n.q())).collect()
    }
}

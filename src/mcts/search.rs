//! One search: a tree over a game's future, grown one simulation at a time. The caller drives
//! it (so that many searches can share a batching evaluator): [`Search::select`] walks down to
//! a position that needs an evaluation, [`Search::expand`] takes the evaluation in and backs the
//! value up. Positions where the game is over, or where the side to move takes the last royal
//! piece at once, are scored by the rules on the way down, never by the evaluator. Values are
//! win 1, draw 0, loss -1, with the draw probability tracked beside.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};

use super::config::{RootSelection, SearchConfig};
use super::mate;
use super::tree::{NodeId, NodeState, Tree, ROOT};
use crate::nn::Evaluation;
use crate::rules::variant::Legality;
use crate::rules::{Color, Game, Move, MoveList};

/// A search over the future of one game.
#[derive(Clone, Debug)]
pub struct Search {
    config: SearchConfig,
    tree: Tree,
    root_game: Game,
    /// The game at the leaf waiting for an evaluation (valid while `pending`).
    leaf: Game,
    /// Its legal moves, in the order the evaluation's priors must follow.
    leaf_moves: MoveList,
    /// Nodes from the root to that leaf.
    path: Vec<NodeId>,
    pending: bool,
    /// Simulations asked for and done since [`Search::start`].
    budget: u32,
    done: u32,
    /// Whether this search explores for self-play: Dirichlet noise and forced playouts (PUCT),
    /// Gumbel noise (Gumbel).
    explore: bool,
    /// Whether the root's children have been prepared for this search (noise mixed in).
    root_prepared: bool,
    /// Gumbel root: the noise of each root child and the visit schedule of sequential halving.
    gumbel: Vec<f32>,
    schedule: Vec<u32>,
    /// A root child whose move wins the game at once or mates by force (found when the root is
    /// prepared); the search then stops and plays it.
    winning: Option<NodeId>,
    /// The line of the forced mate that `winning` starts, when the mate search found it.
    mate_line: Vec<Move>,
    /// Deepest leaf reached and the sum of leaf depths, for reports.
    max_depth: usize,
    depth_sum: u64,
}

impl Search {
    /// A search of `game`'s current position with an empty tree.
    pub fn new(game: Game, config: SearchConfig) -> Search {
        Search {
            config,
            tree: Tree::new(),
            leaf: game.clone(),
            root_game: game,
            leaf_moves: MoveList::new(),
            path: Vec::new(),
            pending: false,
            budget: 0,
            done: 0,
            explore: false,
            root_prepared: false,
            gumbel: Vec::new(),
            schedule: Vec::new(),
            winning: None,
            mate_line: Vec::new(),
            max_depth: 0,
            depth_sum: 0,
        }
    }

    /// The settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// The game at the root.
    pub fn game(&self) -> &Game {
        &self.root_game
    }

    /// The tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Begins a search of `simulations` more simulations; `explore` adds the self-play noise.
    pub fn start(&mut self, simulations: u32, explore: bool) {
        self.budget = simulations;
        self.done = 0;
        self.explore = explore;
        self.root_prepared = false;
        self.winning = None;
        self.mate_line.clear();
        self.max_depth = 0;
        self.depth_sum = 0;
    }

    /// Simulations done since [`Search::start`].
    pub fn simulations(&self) -> u32 {
        self.done
    }

    /// Whether the simulations asked for are done (or the game is over, or a move wins at once).
    pub fn is_done(&self) -> bool {
        self.done >= self.budget || self.root_game.outcome().is_some() || self.winning.is_some()
    }

    /// Walks down the tree to a position the evaluator must evaluate ([`Search::leaf`]) and
    /// returns true; false once the simulations are done. Leaves where the game is over are
    /// backed up on the way, each counting as a simulation.
    pub fn select(&mut self, rng: &mut impl Rng) -> bool {
        assert!(!self.pending, "select called twice without expand");
        loop {
            // The root is prepared once it is expanded, before the budget is checked: a winning
            // capture found there ends even a one-simulation search.
            if self.tree.node(ROOT).state == NodeState::Expanded && !self.root_prepared {
                self.prepare_root(rng);
            }
            if self.is_done() {
                return false;
            }
            self.leaf.clone_from(&self.root_game);
            self.path.clear();
            self.path.push(ROOT);
            let mut id = ROOT;
            loop {
                match self.tree.node(id).state {
                    NodeState::Expanded => {
                        id = self.pick_child(id);
                        self.leaf.play(self.tree.node(id).mv).expect("moves in the tree are legal");
                        self.path.push(id);
                    }
                    NodeState::Terminal(value) => {
                        self.finish_simulation(value, if value == 0.0 { 1.0 } else { 0.0 });
                        break;
                    }
                    NodeState::New => match self.leaf.outcome() {
                        Some(outcome) => {
                            let mover = self.leaf.position().side_to_move().opponent();
                            let value = match outcome.winner {
                                None => 0.0,
                                Some(winner) if winner == mover => 1.0,
                                Some(_) => -1.0,
                            };
                            self.tree.node_mut(id).state = NodeState::Terminal(value);
                        }
                        None if id != ROOT && self.leaf_royal_hangs() => {
                            self.tree.node_mut(id).state = NodeState::Terminal(-1.0);
                        }
                        None => {
                            self.leaf_moves = self.leaf.legal_moves();
                            self.pending = true;
                            return true;
                        }
                    },
                }
            }
        }
    }

    /// The game at the leaf that [`Search::select`] found, and its legal moves.
    pub fn leaf(&self) -> (&Game, &[Move]) {
        (&self.leaf, &self.leaf_moves)
    }

    /// Whether the move into the leaf left its maker's only royal piece where the side to move
    /// takes it at once (variants where check does not matter; with
    /// [`SearchConfig::royal_capture_leaves`]): the side to move wins, so the leaf is scored as
    /// lost for the maker by the rules rather than by the evaluator.
    fn leaf_royal_hangs(&self) -> bool {
        let position = self.leaf.position();
        self.config.royal_capture_leaves && position.only_royal_en_prise(position.side_to_move().opponent())
    }

    /// Takes in the evaluation of the pending leaf: priors in the order of
    /// the moves of [`Search::leaf`], WDL for its side to move.
    pub fn expand(&mut self, evaluation: &Evaluation) {
        assert!(self.pending, "expand called without a pending leaf");
        assert_eq!(evaluation.priors.len(), self.leaf_moves.len(), "one prior per legal move");
        self.pending = false;
        let id = *self.path.last().expect("the path starts at the root");
        let [win, draw, loss] = evaluation.wdl;
        self.tree.node_mut(id).raw_value = win - loss;
        self.tree.expand(id, self.leaf_moves.iter().copied().zip(evaluation.priors.iter().copied()));
        self.finish_simulation(loss - win, draw);
    }

    /// Backs up `value` (for the player who made the leaf's move) and `draw` along the path.
    fn finish_simulation(&mut self, value: f32, draw: f32) {
        let mut value = value;
        for &id in self.path.iter().rev() {
            let node = self.tree.node_mut(id);
            node.visits += 1;
            node.value_sum += value;
            node.draw_sum += draw;
            value = -value;
        }
        self.done += 1;
        let depth = self.path.len() - 1;
        self.max_depth = self.max_depth.max(depth);
        self.depth_sum += depth as u64;
    }

    /// Mixes Dirichlet noise into the root priors (PUCT, exploring), or draws the Gumbel noise
    /// and plans sequential halving (Gumbel).
    fn prepare_root(&mut self, rng: &mut impl Rng) {
        self.root_prepared = true;
        self.winning = self.winning_capture().or_else(|| self.mating_move());
        if self.winning.is_some() {
            return;
        }
        if self.config.royal_guard {
            self.rule_out_hanging_royal();
        }
        let children = self.tree.node(ROOT).children();
        let n = children.len();
        match self.config.root {
            RootSelection::Puct => {
                let fraction = self.config.dirichlet_fraction;
                if !self.explore || fraction == 0.0 || n < 2 {
                    return;
                }
                let gamma = Gamma::new(self.config.dirichlet_total_alpha / n as f32, 1.0).expect("alpha is positive");
                let noise: Vec<f32> = (0..n).map(|_| gamma.sample(rng)).collect();
                let sum: f32 = noise.iter().sum();
                if sum <= 0.0 || !sum.is_finite() {
                    return;
                }
                for (id, eta) in children.zip(noise) {
                    let node = self.tree.node_mut(id);
                    node.prior = (1.0 - fraction) * node.prior + fraction * eta / sum;
                }
            }
            RootSelection::Gumbel => {
                let gumbel = Gumbel::new(0.0f32, 1.0).expect("valid Gumbel");
                self.gumbel = (0..n).map(|_| if self.explore { gumbel.sample(rng) } else { 0.0 }).collect();
                let considered = self.config.gumbel_considered.min(n);
                self.schedule = halving_schedule(considered, self.budget as usize);
            }
        }
    }

    /// A root child whose move captures and ends the game with the mover's win (taking the
    /// last royal, baring the king): a win no search budget should miss. Only captures and
    /// fire demon moves (which burn) are tried, which keeps the check cheap; a checkmate by a
    /// quiet move is left to the search.
    fn winning_capture(&self) -> Option<NodeId> {
        let position = self.root_game.position();
        let mover = position.side_to_move();
        let enemy_at = |sq| position.piece_at(sq).is_some_and(|p| p.color != mover);
        self.tree.node(ROOT).children().find(|&id| {
            let mv = self.tree.node(id).mv;
            let captures = match mv {
                Move::Normal { from, to, .. } => enemy_at(to) || position.is_burner_at(from),
                Move::TwoLeg { from, mid, to, .. } => enemy_at(mid) || enemy_at(to) || position.is_burner_at(from),
                Move::Drop { .. } | Move::Pass | Move::Declare => false,
            };
            if !captures {
                return false;
            }
            let mut game = self.root_game.clone();
            game.play(mv).is_ok() && game.outcome().is_some_and(|o| o.winner == Some(mover))
        })
    }

    /// The root child that starts a forced mate (shogi, [`mate::find_mate`]), unless playing it
    /// would end the game otherwise (a fourth repetition by perpetual check); the mate's line is
    /// kept for the principal variation.
    fn mating_move(&mut self) -> Option<NodeId> {
        let line = mate::find_mate(self.root_game.position(), self.config.mate_search_plies)?;
        let mut game = self.root_game.clone();
        game.play(line[0]).ok()?;
        if game.outcome().is_some_and(|o| o.winner != Some(self.side_to_move())) {
            return None;
        }
        let child = self.tree.child(ROOT, line[0]);
        self.mate_line = line;
        child
    }

    /// Marks lost, with no prior, the root children whose move leaves the mover's only royal
    /// piece where the opponent can take it at once (legal in the variants where check does not
    /// matter), unless every move does.
    fn rule_out_hanging_royal(&mut self) {
        let position = self.root_game.position();
        if position.variant().spec.legality != Legality::RoyalCapture {
            return;
        }
        let mover = position.side_to_move();
        let hanging: Vec<NodeId> = self
            .tree
            .node(ROOT)
            .children()
            .filter(|&id| position.after_unchecked(self.tree.node(id).mv).only_royal_en_prise(mover))
            .collect();
        if hanging.len() == self.tree.node(ROOT).child_count as usize {
            return;
        }
        for id in hanging {
            let node = self.tree.node_mut(id);
            node.prior = 0.0;
            node.state = NodeState::Terminal(-1.0);
        }
    }

    /// The child the next simulation goes through.
    fn pick_child(&self, id: NodeId) -> NodeId {
        match (self.config.root, id == ROOT) {
            (RootSelection::Gumbel, true) => self.gumbel_root_child(),
            (RootSelection::Gumbel, false) => self.gumbel_interior_child(id),
            (RootSelection::Puct, is_root) => self.puct_child(id, is_root),
        }
    }

    /// PUCT with first-play urgency; forced playouts at an exploring root.
    fn puct_child(&self, id: NodeId, is_root: bool) -> NodeId {
        let node = self.tree.node(id);
        let children = node.children();
        let total: u32 = children.clone().map(|c| self.tree.node(c).visits).sum();
        let c = self.exploration(total);
        let sqrt_total = (total.max(1) as f32).sqrt();
        let parent_q = -node.q().unwrap_or(0.0);
        let visited_mass: f32 = children.clone().map(|c| self.tree.node(c)).filter(|n| n.visits > 0).map(|n| n.prior).sum();
        let reduction = if is_root { self.config.root_fpu_reduction } else { self.config.fpu_reduction };
        let fpu = parent_q - reduction * visited_mass.sqrt();
        let forcing = is_root && self.explore && self.config.forced_playouts_k > 0.0;
        let mut best = (f32::NEG_INFINITY, children.start);
        for child in children {
            let n = self.tree.node(child);
            let q = n.q().unwrap_or(fpu);
            let mut score = q + c * n.prior * sqrt_total / (1.0 + n.visits as f32);
            if forcing && (n.visits as f32) < self.forced_playouts(n.prior, total) {
                score += 1e6;
            }
            if score > best.0 {
                best = (score, child);
            }
        }
        best.1
    }

    /// The exploration constant after `visits` visits.
    fn exploration(&self, visits: u32) -> f32 {
        let base = self.config.c_puct_base;
        self.config.c_puct + ((visits as f32 + base + 1.0) / base).ln()
    }

    /// Visits forced on a root child of prior `prior` after `total` visits.
    fn forced_playouts(&self, prior: f32, total: u32) -> f32 {
        (self.config.forced_playouts_k * prior * total as f32).sqrt()
    }

    /// Gumbel root: among the children with the visit count the halving schedule asks for now,
    /// the one with the highest g + logit + sigma(q).
    fn gumbel_root_child(&self) -> NodeId {
        let children = self.tree.node(ROOT).children();
        let total: u32 = children.clone().map(|c| self.tree.node(c).visits).sum();
        let wanted = self.schedule.get(total as usize).copied();
        let sigma = self.sigma_q(ROOT);
        let scores = self.gumbel_scores(&sigma);
        let pick = |restrict: bool| {
            children
                .clone()
                .zip(&scores)
                .filter(|&(c, _)| !restrict || Some(self.tree.node(c).visits) == wanted)
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(c, _)| c)
        };
        // Terminal children and reused trees can leave no child at the scheduled count.
        pick(true).or_else(|| pick(false)).expect("an expanded node has children")
    }

    /// g + logit + sigma(q) of every root child.
    fn gumbel_scores(&self, sigma: &[f32]) -> Vec<f32> {
        let children = self.tree.node(ROOT).children();
        children
            .zip(sigma)
            .enumerate()
            .map(|(i, (c, s))| self.gumbel.get(i).copied().unwrap_or(0.0) + logit(self.tree.node(c).prior) + s)
            .collect()
    }

    /// Gumbel interior rule: the child maximising improved policy minus its visit share.
    fn gumbel_interior_child(&self, id: NodeId) -> NodeId {
        let node = self.tree.node(id);
        let improved = self.improved_policy(id);
        let total: u32 = node.children().map(|c| self.tree.node(c).visits).sum();
        node.children()
            .zip(improved)
            .map(|(c, p)| (c, p - self.tree.node(c).visits as f32 / (1.0 + total as f32)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| c)
            .expect("an expanded node has children")
    }

    /// softmax(logit + sigma(completed q)) over the children of `id`.
    fn improved_policy(&self, id: NodeId) -> Vec<f32> {
        let sigma = self.sigma_q(id);
        let mut policy: Vec<f32> =
            self.tree.node(id).children().zip(sigma).map(|(c, s)| logit(self.tree.node(c).prior) + s).collect();
        softmax(&mut policy);
        policy
    }

    /// sigma(completed q) of the children of `id`: visited children's q, the mixed value for the
    /// others, rescaled to [0, 1] and scaled by (c_visit + max visits) * c_scale.
    fn sigma_q(&self, id: NodeId) -> Vec<f32> {
        let node = self.tree.node(id);
        let children: Vec<_> = node.children().map(|c| self.tree.node(c)).collect();
        let total: u32 = children.iter().map(|c| c.visits).sum();
        let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
        let visited_prior: f32 = children.iter().filter(|c| c.visits > 0).map(|c| c.prior.max(f32::MIN_POSITIVE)).sum();
        let weighted_q: f32 = children
            .iter()
            .filter_map(|c| c.q().map(|q| c.prior.max(f32::MIN_POSITIVE) * q))
            .sum::<f32>()
            / visited_prior.max(f32::MIN_POSITIVE);
        let mixed = (node.raw_value + total as f32 * weighted_q) / (total as f32 + 1.0);
        let completed: Vec<f32> = children.iter().map(|c| c.q().unwrap_or(mixed)).collect();
        let (lo, hi) = completed.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &q| (lo.min(q), hi.max(q)));
        let scale = (self.config.gumbel_c_visit + max_visits as f32) * self.config.gumbel_c_scale;
        completed.iter().map(|q| scale * (q - lo) / (hi - lo).max(1e-8)).collect()
    }

    /// The move the search recommends: the most visited (PUCT; ties to the higher value), or the
    /// winner of sequential halving (Gumbel).
    pub fn best_move(&self) -> Option<Move> {
        let root = self.tree.node(ROOT);
        if root.child_count == 0 {
            return None;
        }
        if let Some(id) = self.winning {
            return Some(self.tree.node(id).mv);
        }
        let best = match self.config.root {
            RootSelection::Gumbel if !self.gumbel.is_empty() => {
                let scores = self.gumbel_scores(&self.sigma_q(ROOT));
                let max_visits = root.children().map(|c| self.tree.node(c).visits).max().unwrap_or(0);
                root.children()
                    .zip(scores)
                    .filter(|&(c, _)| self.tree.node(c).visits == max_visits)
                    .max_by(|a, b| a.1.total_cmp(&b.1))
                    .map(|(c, _)| c)
            }
            _ => root.children().max_by(|&a, &b| {
                let (a, b) = (self.tree.node(a), self.tree.node(b));
                a.visits.cmp(&b.visits).then(a.q().unwrap_or(-2.0).total_cmp(&b.q().unwrap_or(-2.0)))
            }),
        };
        best.map(|c| self.tree.node(c).mv)
    }

    /// The move to play: with PUCT, sampled in proportion to visits^(1/temperature) (the best
    /// move when the temperature is 0); with Gumbel the halving winner (its sampling happened in
    /// the search through the Gumbel noise).
    pub fn choose_move(&self, temperature: f32, rng: &mut impl Rng) -> Option<Move> {
        if self.config.root == RootSelection::Gumbel || temperature <= 1e-3 || self.winning.is_some() {
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
        let weights: Vec<f32> = match self.config.root {
            RootSelection::Gumbel => self.improved_policy(ROOT),
            RootSelection::Puct => self.pruned_visits(),
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
    fn pruned_visits(&self) -> Vec<f32> {
        let root = self.tree.node(ROOT);
        let visits: Vec<f32> = root.children().map(|c| self.tree.node(c).visits as f32).collect();
        if !(self.explore && self.config.forced_playouts_k > 0.0) {
            return visits;
        }
        let total: u32 = root.children().map(|c| self.tree.node(c).visits).sum();
        let c = self.exploration(total);
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
                let floor = (n - self.forced_playouts(self.tree.node(id).prior, total).floor()).max(0.0);
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

    /// The root's value for its side to move: win, draw, loss probabilities.
    pub fn root_wdl(&self) -> [f32; 3] {
        if self.winning.is_some() {
            return [1.0, 0.0, 0.0];
        }
        let root = self.tree.node(ROOT);
        if root.visits == 0 {
            return [0.0, 1.0, 0.0];
        }
        let q = -root.value_sum / root.visits as f32;
        let draw = (root.draw_sum / root.visits as f32).clamp(0.0, 1.0);
        let win = ((1.0 - draw + q) / 2.0).clamp(0.0, 1.0);
        let loss = (1.0 - draw - win).max(0.0);
        [win, draw, loss]
    }

    /// The principal variation: the winning move (and the line of a forced mate) when one was
    /// found at the root, else the most-visited children from the root down.
    pub fn principal_variation(&self) -> Vec<Move> {
        if let Some(id) = self.winning {
            return if self.mate_line.is_empty() { vec![self.tree.node(id).mv] } else { self.mate_line.clone() };
        }
        let mut pv = Vec::new();
        let mut id = ROOT;
        while let Some(best) = self.tree.node(id).children().filter(|&c| self.tree.node(c).visits > 0).max_by_key(|&c| self.tree.node(c).visits) {
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

    /// The deepest leaf and the mean leaf depth of this search's simulations.
    pub fn depth(&self) -> (usize, f32) {
        (self.max_depth, if self.done == 0 { 0.0 } else { self.depth_sum as f32 / self.done as f32 })
    }

    /// The side to move at the root.
    pub fn side_to_move(&self) -> Color {
        self.root_game.position().side_to_move()
    }

    /// Plays `mv` at the root and keeps the subtree under it (PUCT), or starts afresh (Gumbel:
    /// sequential halving plans its visits from an empty root). `mv` must be legal.
    pub fn advance(&mut self, mv: Move) -> Result<(), crate::rules::game::PlayError> {
        assert!(!self.pending, "advance during a simulation");
        self.root_game.play(mv)?;
        let child = self.tree.child(ROOT, mv);
        self.tree = match (self.config.root, child) {
            (RootSelection::Puct, Some(child)) if self.tree.node(child).state == NodeState::Expanded => self.tree.subtree(child),
            _ => Tree::new(),
        };
        self.root_prepared = false;
        self.winning = None;
        self.mate_line.clear();
        self.gumbel.clear();
        Ok(())
    }
}

/// The visit count each simulation of a Gumbel root considers (mctx's schedule): sequential
/// halving over `considered` moves spread over `simulations`.
fn halving_schedule(considered: usize, simulations: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..simulations as u32).collect();
    }
    let phases = (considered as f64).log2().ceil() as usize;
    let mut schedule = Vec::with_capacity(simulations);
    let mut visits = vec![0u32; considered];
    let mut count = considered;
    while schedule.len() < simulations {
        let extra = (simulations / (phases * count)).max(1);
        for _ in 0..extra {
            schedule.extend_from_slice(&visits[..count]);
            for v in &mut visits[..count] {
                *v += 1;
            }
        }
        count = (count / 2).max(2);
    }
    schedule.truncate(simulations);
    schedule
}

/// The log of a prior, bounded below.
fn logit(prior: f32) -> f32 {
    prior.max(1e-30).ln()
}

/// Softmax in place.
fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in values.iter_mut() {
        *v /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::halving_schedule;

    /// mctx's `get_sequence_of_considered_visits(4, 12)`: log2(4) = 2 phases; 12 / (2 * 4) = 1
    /// round of 4 visits, then 12 / (2 * 2) = 3 rounds over the best 2.
    #[test]
    fn halving_schedule_matches_the_reference_sequence() {
        assert_eq!(halving_schedule(4, 12), vec![0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(halving_schedule(1, 3), vec![0, 1, 2]);
    }
}

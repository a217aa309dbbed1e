//! One search: a tree over a game's future, grown one simulation at a time. The caller drives
//! it (so that many searches can share a batching evaluator): [`Search::select`] walks down to
//! a position that needs an evaluation, [`Search::expand`] takes the evaluation in and backs the
//! value up. Positions where the game is over, or where the side to move takes the last royal
//! piece at once, are scored by the rules on the way down, never by the evaluator. Values are
//! win 1, draw 0, loss -1, with the draw probability tracked beside.
//!
//! The walk down plays the tree's moves unchecked ([`Game::play_unchecked`]): they were legal
//! when their parent was expanded, and a node's line from the root never changes. Only the
//! position it reaches is settled (legal moves generated, outcome decided).
//!
//! - [`selection`]: the rule that picks each simulation's child (PUCT, Gumbel root).
//! - [`root`]: root aids (a winning capture, a forced mate, the royal guard).
//! - [`results`]: the move to play, the policy target, values and lines for the caller.

mod results;
mod root;
mod selection;

use rand::Rng;

use self::selection::Selection;
use super::config::{RootSelection, SearchConfig, QUIESCENCE_NODES, QUIESCENCE_PLIES};
use super::tree::{NodeId, NodeState, Tree, ROOT};
use crate::material_search::MaterialSearch;
use crate::nn::Evaluation;
use crate::rules::material::Material;
use crate::rules::variant::RepetitionRule;
use crate::rules::{Color, Game, Move, MoveList, Position};

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
    /// The rule that picks each simulation's child, with its state.
    selection: Selection,
    /// Whether the root's children have been prepared for this search (noise mixed in).
    root_prepared: bool,
    /// A root child whose move wins the game at once or mates by force (found when the root is
    /// prepared); the search then stops and plays it.
    winning: Option<NodeId>,
    /// The line of the forced mate that `winning` starts, when the mate search found it.
    mate_line: Vec<Move>,
    /// Deepest leaf reached and the sum of leaf depths, for reports.
    max_depth: usize,
    depth_sum: u64,
    /// The quiescence searcher behind [`SearchConfig::capture_utility`], its move lists reused
    /// from leaf to leaf.
    captures: MaterialSearch,
    /// The root's material balance for its side to move, what a leaf's gain is measured from.
    root_balance: i32,
}

impl Search {
    /// A search of `game`'s current position with an empty tree.
    pub fn new(game: Game, config: SearchConfig) -> Search {
        let variant = game.position().variant().id;
        let root_balance = material_balance(&game);
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
            selection: Selection::new(&config),
            root_prepared: false,
            winning: None,
            mate_line: Vec::new(),
            max_depth: 0,
            depth_sum: 0,
            captures: MaterialSearch::new(variant).with_quiescence(QUIESCENCE_PLIES).with_node_limit(QUIESCENCE_NODES),
            root_balance,
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
        self.selection.set_explore(explore);
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
                        id = self.selection.child(&self.tree, &self.config, id);
                        self.leaf.play_unchecked(self.tree.node(id).mv);
                        self.path.push(id);
                    }
                    NodeState::Terminal(value) => {
                        self.finish_simulation(value, terminal_draw(value));
                        break;
                    }
                    NodeState::New => match self.settled_leaf().outcome() {
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
                        None if id != ROOT && self.leaf_repeats() => {
                            self.tree.node_mut(id).state = NodeState::Terminal(0.0);
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

    /// The leaf game settled after the walk down (the root game is settled already).
    fn settled_leaf(&mut self) -> &Game {
        if self.path.len() > 1 {
            self.leaf.settle();
        }
        &self.leaf
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

    /// Whether the leaf repeats an earlier position of the game, reached by a move that gave
    /// no check (with [`SearchConfig::two_fold_draws`], where a fourth occurrence ends the
    /// game): scored as a draw by the rules rather than by the evaluator. Its line from the
    /// game's start is fixed, so the score holds when the tree is reused.
    fn leaf_repeats(&self) -> bool {
        let position = self.leaf.position();
        self.config.two_fold_draws
            && position.variant().spec.repetition == RepetitionRule::FourthOccurrence
            && self.leaf.repetitions() > 0
            && !position.in_check(position.side_to_move())
    }

    /// Takes in the evaluation of the pending leaf: priors in the order of
    /// the moves of [`Search::leaf`], WDL for its side to move.
    pub fn expand(&mut self, evaluation: &Evaluation) {
        assert!(self.pending, "expand called without a pending leaf");
        assert_eq!(evaluation.priors.len(), self.leaf_moves.len(), "one prior per legal move");
        self.pending = false;
        let id = *self.path.last().expect("the path starts at the root");
        let net_value = self.config.with_pursuit(self.config.leaf_value(evaluation), self.leaf_pursuit());
        let material = self.leaf_material();
        let value = self.value_from_root(net_value, material, self.path.len() - 1);
        let node = self.tree.node_mut(id);
        (node.raw_value, node.net_value, node.draw, node.material) = (value, net_value, evaluation.wdl[1], material);
        self.tree.expand(id, self.leaf_moves.iter().copied().zip(evaluation.priors.iter().copied()));
        self.finish_simulation(-value, evaluation.wdl[1]);
    }

    /// The pursuit score of the leaf's side to move (0 unless
    /// [`SearchConfig::pursuit_utility`] asks for it).
    fn leaf_pursuit(&self) -> f32 {
        if self.config.pursuit_utility <= 0.0 {
            return 0.0;
        }
        super::pursuit::pursuit(self.leaf.position())
    }

    /// The material of the leaf's side to move, counting what it still wins there by captures
    /// alone (0 unless [`SearchConfig::capture_utility`] asks for it).
    fn leaf_material(&mut self) -> i32 {
        if self.config.capture_utility <= 0.0 {
            return 0;
        }
        // The searcher makes and unmakes moves; a copy of the leaf (plain data) lends it one.
        let mut position = self.leaf.position().clone();
        self.captures_played_out(&mut position)
    }

    /// The material of `position`'s side to move once the captures are played out: the
    /// quiescence search of the capture utility, with the unmet threats where they are counted.
    fn captures_played_out(&mut self, position: &mut Position) -> i32 {
        if self.config.unmet_threats {
            self.captures.quiescence_score_under_threats(position)
        } else {
            self.captures.quiescence_score(position)
        }
    }

    /// The value of a position `depth` plies below the root for its side to move: the
    /// evaluator's `net_value` with what its `material` gains over the root's balance weighed
    /// in (in mean pieces of the start position; [`SearchConfig::with_capture_gain`]).
    fn value_from_root(&self, net_value: f32, material: i32, depth: usize) -> f32 {
        if self.config.capture_utility <= 0.0 {
            return net_value;
        }
        let root_balance = if depth.is_multiple_of(2) { self.root_balance } else { -self.root_balance };
        let unit = Material::of(self.root_game.position().variant().id).mean_start_piece();
        self.config.with_capture_gain(net_value, (material - root_balance) as f32 / unit)
    }

    /// Measures the kept tree's values again from the current root (after the root moved
    /// through a move that changed the material): each expanded node's value from its stored
    /// evaluation, and every visit count's sum of values rebuilt from the leaves up, as
    /// [`Search::finish_simulation`] backs them up.
    fn revalue(&mut self) {
        let mut depth = vec![0usize; self.tree.len()];
        for id in self.tree.ids() {
            let node = self.tree.node(id);
            for child in node.children() {
                depth[child as usize] = depth[id as usize] + 1;
            }
        }
        // Children come after their parent: walking backwards meets every child first.
        let mut sums = vec![0.0f32; self.tree.len()];
        for id in self.tree.ids().rev() {
            let d = depth[id as usize];
            let contempt = self.leaf_contempt(d);
            let node = self.tree.node(id);
            let sum = match node.state {
                NodeState::New => 0.0,
                NodeState::Terminal(value) => node.visits as f32 * (value + contempt * terminal_draw(value)),
                NodeState::Expanded => {
                    let value = self.value_from_root(node.net_value, node.material, d);
                    let below: f32 = node.children().map(|c| sums[c as usize]).sum();
                    self.tree.node_mut(id).raw_value = value;
                    -value + contempt * self.tree.node(id).draw - below
                }
            };
            sums[id as usize] = sum;
            self.tree.node_mut(id).value_sum = sum;
        }
    }

    /// The weight of a draw for the player who made the move into a leaf `depth` plies below
    /// the root: -[`SearchConfig::contempt`] when that is the root's side (an odd depth), +it
    /// for the opponent.
    fn leaf_contempt(&self, depth: usize) -> f32 {
        if depth % 2 == 1 {
            -self.config.contempt
        } else {
            self.config.contempt
        }
    }

    /// Backs up `value` (for the player who made the leaf's move) and `draw` along the path,
    /// with the [`SearchConfig::contempt`] of the root's side for the draw.
    fn finish_simulation(&mut self, value: f32, draw: f32) {
        let mut value = value + self.leaf_contempt(self.path.len() - 1) * draw;
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

    /// The deepest leaf and the mean leaf depth of this search's simulations.
    pub fn depth(&self) -> (usize, f32) {
        (self.max_depth, if self.done == 0 { 0.0 } else { self.depth_sum as f32 / self.done as f32 })
    }

    /// The side to move at the root.
    pub fn side_to_move(&self) -> Color {
        self.root_game.position().side_to_move()
    }

    /// Plays `mv` at the root and keeps the subtree under it (PUCT), or starts afresh (Gumbel:
    /// sequential halving plans its visits from an empty root). With the capture utility, a
    /// move that changes the material has the kept values measured again from the new root.
    /// `mv` must be legal.
    pub fn advance(&mut self, mv: Move) -> Result<(), crate::rules::game::PlayError> {
        assert!(!self.pending, "advance during a simulation");
        self.root_game.play(mv)?;
        // Leaves weigh in what they win since the root: when the move changed the material (a
        // capture, a promotion), the kept values are measured again from the new balance.
        let balance = material_balance(&self.root_game);
        let values_hold = self.config.capture_utility <= 0.0 || balance == -self.root_balance;
        self.root_balance = balance;
        let child = self.tree.child(ROOT, mv);
        self.tree = match (self.config.root, child) {
            (RootSelection::Puct, Some(child)) if self.tree.node(child).state == NodeState::Expanded => self.tree.subtree(child),
            _ => Tree::new(),
        };
        if !values_hold {
            self.revalue();
        }
        self.root_prepared = false;
        self.winning = None;
        self.mate_line.clear();
        self.selection.root_moved();
        Ok(())
    }
}

/// The draw probability of a position the rules decided, from its `value` (win, draw or loss).
fn terminal_draw(value: f32) -> f32 {
    if value == 0.0 {
        1.0
    } else {
        0.0
    }
}

/// The material balance of `game`'s position for its side to move.
fn material_balance(game: &Game) -> i32 {
    let position = game.position();
    Material::of(position.variant().id).evaluate(position)
}

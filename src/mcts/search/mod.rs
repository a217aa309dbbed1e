//! One search: a tree over a game's future, grown one simulation at a time. The caller drives
//! it (so that many searches can share a batching evaluator): [`Search::select`] walks down to
//! a position that needs an evaluation, [`Search::expand`] takes the evaluation in and backs the
//! value up. Positions where the game is over are scored by the rules on the way down, never by
//! the evaluator. Values are win 1, draw 0, loss -1, with the draw probability tracked beside.
//!
//! The walk down plays the tree's moves unchecked ([`Game::play_unchecked`]): they were legal
//! when their parent was expanded, and a node's line from the root never changes. Only the
//! position it reaches is settled (legal moves generated, outcome decided).
//!
//! - [`selection`]: the rule that picks each simulation's child (PUCT with the moves-left
//!   utility, Gumbel root).
//! - [`leaf`]: the value backed up for an evaluated leaf, with the leaf aids (capture utility,
//!   pursuit utility).
//! - [`root`]: root aids (a winning capture, a forced mate, the royal, material and repetition
//!   guards).
//! - [`results`]: the move to play, the policy target, values and lines for the caller.

pub mod leaf;
mod results;
mod root;
mod selection;

use rand::Rng;

use self::leaf::LeafValue;
use self::selection::Selection;
use super::config::{RootSelection, SearchConfig};
use super::tree::{NodeId, NodeState, Tree, ROOT};
use crate::nn::Evaluation;
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
    /// What values the leaves: the leaf aids' state.
    leaf_value: LeafValue,
}

impl Search {
    /// A search of `game`'s current position with an empty tree.
    pub fn new(game: Game, config: SearchConfig) -> Search {
        Search {
            leaf_value: LeafValue::new(&game),
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
                        self.finish_simulation(value, terminal_draw(value), 0.0);
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

    /// Takes in the evaluation of the pending leaf: priors in the order of
    /// the moves of [`Search::leaf`], WDL for its side to move.
    pub fn expand(&mut self, evaluation: &Evaluation) {
        assert!(self.pending, "expand called without a pending leaf");
        assert_eq!(evaluation.priors.len(), self.leaf_moves.len(), "one prior per legal move");
        self.pending = false;
        let id = *self.path.last().expect("the path starts at the root");
        let (net_value, material) = self.leaf_value.evaluate(&self.config, self.leaf.position(), evaluation);
        let value = self.leaf_value.backed_up(&self.config, net_value, material, self.path.len() - 1);
        let node = self.tree.node_mut(id);
        (node.raw_value, node.net_value, node.material) = (value, net_value, material);
        self.tree.expand(id, self.leaf_moves.iter().copied().zip(evaluation.priors.iter().copied()));
        self.finish_simulation(-value, evaluation.wdl[1], evaluation.moves_left);
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
            let node = self.tree.node(id);
            let sum = match node.state {
                NodeState::New => 0.0,
                NodeState::Terminal(value) => node.visits as f32 * value,
                NodeState::Expanded => {
                    let value = self.leaf_value.backed_up(&self.config, node.net_value, node.material, depth[id as usize]);
                    let below: f32 = node.children().map(|c| sums[c as usize]).sum();
                    self.tree.node_mut(id).raw_value = value;
                    -value - below
                }
            };
            sums[id as usize] = sum;
            self.tree.node_mut(id).value_sum = sum;
        }
    }

    /// Backs up `value` (for the player who made the leaf's move), `draw` and the leaf's
    /// `moves_left` (one ply more at each step up) along the path.
    fn finish_simulation(&mut self, value: f32, draw: f32, moves_left: f32) {
        let (mut value, mut moves_left) = (value, moves_left);
        for &id in self.path.iter().rev() {
            let node = self.tree.node_mut(id);
            node.visits += 1;
            node.value_sum += value;
            node.draw_sum += draw;
            node.moves_left_sum += moves_left;
            value = -value;
            moves_left += 1.0;
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
        let values_hold = self.leaf_value.root_moved(&self.config, &self.root_game);
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

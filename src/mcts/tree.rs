//! The search tree: nodes in one vector, each node's children stored side by side. A node is a
//! move and the statistics of the position it leads to; children exist only for legal moves.

use crate::rules::Move;

/// Index of a node in its [`Tree`]; the root is 0.
pub type NodeId = u32;

/// The root's id.
pub const ROOT: NodeId = 0;

/// What is known of a node's position.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum NodeState {
    /// Not evaluated yet.
    New,
    /// Evaluated, children created (one per legal move).
    Expanded,
    /// The game is over after the node's move (or a root aid ruled the move out): its value for
    /// the player who made the move.
    Terminal(f32),
}

/// One node.
#[derive(Clone, Debug)]
pub struct Node {
    /// The move leading here (a placeholder at the root).
    pub mv: Move,
    /// The prior of `mv` in the parent's evaluation (the root's noised prior at the root's children).
    pub prior: f32,
    /// Simulations through this node.
    pub visits: u32,
    /// Sum of the values of those simulations for the player who made `mv`: win 1, draw 0, loss -1.
    pub value_sum: f32,
    /// Sum of their draw probabilities.
    pub draw_sum: f32,
    /// Sum of their plies left in the game from this node's position: the leaf's estimate
    /// (the network's moves-left head, 0 where the game is over) plus the plies down to it.
    pub moves_left_sum: f32,
    /// The value the search took for this node's position, for the side to move there: the
    /// leaf value with every leaf aid ([`super::search::leaf`]).
    pub raw_value: f32,
    /// That value before the capture gain, kept so that it can be measured again from another
    /// root.
    pub net_value: f32,
    /// The quiescence score for the side to move here that the capture gain is measured from
    /// (0 without the capture utility).
    pub material: i32,
    pub state: NodeState,
    /// Children: `first_child .. first_child + child_count`.
    pub first_child: NodeId,
    pub child_count: u32,
}

impl Node {
    fn new(mv: Move, prior: f32) -> Node {
        Node {
            mv,
            prior,
            visits: 0,
            value_sum: 0.0,
            draw_sum: 0.0,
            moves_left_sum: 0.0,
            raw_value: 0.0,
            net_value: 0.0,
            material: 0,
            state: NodeState::New,
            first_child: 0,
            child_count: 0,
        }
    }

    /// The mean value for the player who made the node's move, if visited.
    pub fn q(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.value_sum / self.visits as f32)
    }

    /// The mean plies left in the game from the node's position, if visited.
    pub fn moves_left(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.moves_left_sum / self.visits as f32)
    }

    /// The ids of the children.
    pub fn children(&self) -> std::ops::Range<NodeId> {
        self.first_child..self.first_child + self.child_count
    }
}

/// The tree.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::new()
    }
}

impl Tree {
    /// A tree with an unevaluated root.
    pub fn new() -> Tree {
        Tree { nodes: vec![Node::new(Move::Pass, 1.0)] }
    }

    /// A node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// A node, to update.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: the root exists.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The ids of the nodes, each node's children after it (a parent is always created first).
    pub fn ids(&self) -> std::ops::Range<NodeId> {
        0..self.nodes.len() as NodeId
    }

    /// Creates the children of `id`, one per `(move, prior)`, and marks it expanded.
    pub fn expand(&mut self, id: NodeId, children: impl Iterator<Item = (Move, f32)>) {
        let first = self.nodes.len() as NodeId;
        self.nodes.extend(children.map(|(mv, prior)| Node::new(mv, prior)));
        let count = self.nodes.len() as NodeId - first;
        let node = &mut self.nodes[id as usize];
        node.first_child = first;
        node.child_count = count;
        node.state = NodeState::Expanded;
    }

    /// The child of `id` reached by `mv`.
    pub fn child(&self, id: NodeId, mv: Move) -> Option<NodeId> {
        self.node(id).children().find(|&c| self.node(c).mv == mv)
    }

    /// The subtree under `id` as a new tree whose root is `id`'s copy (tree reuse after a move).
    pub fn subtree(&self, id: NodeId) -> Tree {
        let mut nodes = vec![self.node(id).clone()];
        // Breadth first: copy a node's children side by side, then fix the copy's child index.
        let mut next = 0;
        while next < nodes.len() {
            let children = nodes[next].children();
            nodes[next].first_child = nodes.len() as NodeId;
            nodes.extend(children.map(|c| self.node(c).clone()));
            next += 1;
        }
        Tree { nodes }
    }
}

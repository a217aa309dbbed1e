//! The leaf value: what the search backs up for a position the evaluator scored. The one place
//! where a search aid changes a leaf's value (docs/search.md):
//!
//! 1. the network's win minus loss for the leaf's side to move;
//! 2. moved toward the bound of the side far ahead by the pursuit utility
//!    ([`SearchConfig::pursuit_utility`], [`SearchConfig::with_pursuit`]);
//! 3. with the material won since the root, captures still to make counted, weighed in by the
//!    capture utility ([`SearchConfig::capture_utility`], [`SearchConfig::with_capture_gain`]).
//!
//! The value after step 2 and the leaf's material are kept in its node, so that step 3 can be
//! measured again from a new root when the game moves on through a capture.

use super::super::config::{SearchConfig, QUIESCENCE_NODES, QUIESCENCE_PLIES};
use super::super::pursuit::pursuit;
use crate::material_search::MaterialSearch;
use crate::nn::Evaluation;
use crate::rules::material::Material;
use crate::rules::{Game, Position};

impl SearchConfig {
    /// `value` of a leaf's side to move with its pursuit score `pursuit` (from -1 to 1, see
    /// [`super::super::pursuit::pursuit`]) weighed in by [`SearchConfig::pursuit_utility`]:
    /// moved that share of the way toward 1 (toward -1 for a negative score), so that it stays
    /// within both.
    pub fn with_pursuit(&self, value: f32, pursuit: f32) -> f32 {
        let share = self.pursuit_utility * pursuit;
        if share >= 0.0 {
            value + share * (1.0 - value)
        } else {
            value + share * (1.0 + value)
        }
    }

    /// `value` with the capture gain `gain` of the leaf's side to move (in mean pieces of the
    /// start position) weighed in by [`SearchConfig::capture_utility`].
    pub fn with_capture_gain(&self, value: f32, gain: f32) -> f32 {
        if self.capture_utility > 0.0 {
            (value + self.capture_utility * gain.tanh()) / (1.0 + self.capture_utility)
        } else {
            value
        }
    }
}

/// What a search needs to value its leaves: the quiescence searcher of the capture utility and
/// the root's material balance its gains are measured from.
#[derive(Clone, Debug)]
pub(super) struct LeafValue {
    /// The quiescence searcher, its move lists reused from leaf to leaf.
    captures: MaterialSearch,
    /// The root's material balance for its side to move.
    root_balance: i32,
    /// The unit of a gain: the variant's mean piece of the start position.
    unit: f32,
}

impl LeafValue {
    /// The leaf values of a search whose root is `game`'s current position.
    pub(super) fn new(game: &Game) -> LeafValue {
        let variant = game.position().variant().id;
        LeafValue {
            captures: MaterialSearch::new(variant).with_quiescence(QUIESCENCE_PLIES).with_node_limit(QUIESCENCE_NODES),
            root_balance: material_balance(game),
            unit: Material::of(variant).mean_start_piece(),
        }
    }

    /// The leaf `position`'s value for its side to move before the capture gain (steps 1 and 2),
    /// and its material once the captures are played out (0 without the capture utility): what
    /// its node keeps.
    pub(super) fn evaluate(&mut self, config: &SearchConfig, position: &Position, evaluation: &Evaluation) -> (f32, i32) {
        let [win, _, loss] = evaluation.wdl;
        let pursuit = if config.pursuit_utility > 0.0 { pursuit(position, config.pursuit_lead) } else { 0.0 };
        let value = config.with_pursuit(win - loss, pursuit);
        let material = if config.capture_utility > 0.0 {
            // The searcher makes and unmakes moves; a copy of the leaf (plain data) lends it one.
            self.captures_played_out(&mut position.clone())
        } else {
            0
        };
        (value, material)
    }

    /// The value the search backs up for a position `depth` plies below the root, for its side
    /// to move: `value` (from [`LeafValue::evaluate`]) with what its `material` gains over the
    /// root's balance weighed in (step 3).
    pub(super) fn backed_up(&self, config: &SearchConfig, value: f32, material: i32, depth: usize) -> f32 {
        if config.capture_utility <= 0.0 {
            return value;
        }
        let root_balance = if depth.is_multiple_of(2) { self.root_balance } else { -self.root_balance };
        config.with_capture_gain(value, (material - root_balance) as f32 / self.unit)
    }

    /// The material of `position`'s side to move once the captures are played out: the
    /// capture utility's quiescence search, which the material guard also scores root moves with.
    pub(super) fn captures_played_out(&mut self, position: &mut Position) -> i32 {
        self.captures.quiescence_score(position)
    }

    /// Takes in the new root `game` after a move: whether the values kept in the tree still
    /// hold (no capture utility, or a move that left the material as it was).
    pub(super) fn root_moved(&mut self, config: &SearchConfig, game: &Game) -> bool {
        let balance = material_balance(game);
        let values_hold = config.capture_utility <= 0.0 || balance == -self.root_balance;
        self.root_balance = balance;
        values_hold
    }
}

/// The material balance of `game`'s position for its side to move.
fn material_balance(game: &Game) -> i32 {
    let position = game.position();
    Material::of(position.variant().id).evaluate(position)
}

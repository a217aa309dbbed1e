//! Root aids: what the rules decide at the root before any simulation relies on the
//! evaluator. A capture that wins at once, a forced mate (shogi, [`mate::find_mate`]), and the
//! royal guard, which rules out moves that leave the only royal piece to be taken, the
//! material guard, which rules out moves that lose material another move keeps, and the
//! repetition guard, which rules out moves that recreate an earlier position.

use rand::Rng;

use super::Search;
use crate::mcts::config::MATERIAL_GUARD_MARGIN;
use crate::mcts::mate;
use crate::mcts::tree::{NodeId, NodeState, ROOT};
use crate::rules::material::Material;
use crate::rules::variant::Legality;

impl Search {
    /// Prepares the expanded root for this search: looks for a winning move (which ends the
    /// search), applies the royal, material and repetition guards, then lets the selection rule
    /// prepare its root.
    pub(super) fn prepare_root(&mut self, rng: &mut impl Rng) {
        self.root_prepared = true;
        self.winning = self.winning_capture().or_else(|| self.mating_move());
        if self.winning.is_some() {
            return;
        }
        if self.config.royal_guard {
            self.rule_out_hanging_royal();
        }
        if self.config.material_guard {
            self.rule_out_material_losses();
        }
        if self.config.repetition_guard {
            self.rule_out_repetitions();
        }
        self.selection.prepare_root(&mut self.tree, &self.config, self.budget, rng);
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
            let captures = mv.capture_squares().any(enemy_at);
            if !captures && !mv.origin().is_some_and(|from| position.is_burner_at(from)) {
                return false;
            }
            let mut game = self.root_game.clone();
            game.play(mv).is_ok() && game.outcome().is_some_and(|o| o.winner == Some(mover))
        })
    }

    /// The root child that starts a forced mate ([`mate::find_mate`]), unless playing it would
    /// end the game otherwise (a fourth repetition by perpetual check); the mate's line is kept
    /// for the principal variation.
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
            self.rule_out(id);
        }
    }

    /// Takes root child `id` out of the search: no prior, and scored lost.
    fn rule_out(&mut self, id: NodeId) {
        let node = self.tree.node_mut(id);
        node.prior = 0.0;
        node.state = NodeState::Terminal(-1.0);
    }

    /// Marks lost, with no prior, the root children whose move recreates an earlier position
    /// of the game ([`crate::mcts::SearchConfig::repetition_guard`]), unless every move still
    /// open does.
    fn rule_out_repetitions(&mut self) {
        let open: Vec<NodeId> =
            self.tree.node(ROOT).children().filter(|&id| !matches!(self.tree.node(id).state, NodeState::Terminal(_))).collect();
        let moves: Vec<_> = open.iter().map(|&id| self.tree.node(id).mv).collect();
        let recreating = self.root_game.recreating(&moves);
        if recreating.iter().all(|&r| r) {
            return;
        }
        for (&id, _) in open.iter().zip(&recreating).filter(|(_, &r)| r) {
            self.rule_out(id);
        }
    }

    /// Marks lost, with no prior, the root children whose move loses material that another
    /// move keeps ([`crate::mcts::SearchConfig::material_guard`]). Moves that end the game are
    /// left to the rules' scores.
    fn rule_out_material_losses(&mut self) {
        let position = self.root_game.position().clone();
        let open: Vec<NodeId> =
            self.tree.node(ROOT).children().filter(|&id| !matches!(self.tree.node(id).state, NodeState::Terminal(_))).collect();
        // The opponent moves next: what it keeps is what the mover loses.
        let kept: Vec<i32> = open
            .iter()
            .map(|&id| {
                let mut after = position.after_unchecked(self.tree.node(id).mv);
                -self.leaf_value.captures_played_out(&mut after)
            })
            .collect();
        let Some(&best) = kept.iter().max() else { return };
        let margin = MATERIAL_GUARD_MARGIN * Material::of(position.variant().id).mean_start_piece();
        for (&id, &score) in open.iter().zip(&kept) {
            if ((best - score) as f32) > margin {
                self.rule_out(id);
            }
        }
    }
}

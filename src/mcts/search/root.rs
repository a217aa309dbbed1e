//! Root aids: what the rules decide at the root before any simulation relies on the
//! evaluator. A capture that wins at once, a forced mate ([`mate::find_mate`]), and the
//! royal guard, which rules out moves that leave the only royal piece to be taken at once or
//! after a check no reply escapes, the material guard, which rules out moves that lose
//! material another move keeps, and the repetition guard, which rules out moves that recreate
//! an earlier position.

use rand::Rng;

use super::Search;
use crate::mcts::config::MATERIAL_GUARD_MARGIN;
use crate::mcts::mate;
use crate::mcts::tree::{NodeId, NodeState, ROOT};
use crate::rules::material::Material;
use crate::rules::royal_zone::RoyalZone;
use crate::rules::variant::Legality;
use crate::rules::Position;

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
            self.rule_out_royal_losses();
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
    /// for the principal variation. In the variants where royals are captured it goes with the
    /// royal guard, which reads the same threats, so that self-play there keeps learning them.
    fn mating_move(&mut self) -> Option<NodeId> {
        let legality = self.root_game.position().variant().spec.legality;
        if legality == Legality::RoyalCapture && !self.config.royal_guard {
            return None;
        }
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
    /// piece where the opponent can take it at once, unless every move does (then none); then,
    /// of those left, the ones after which the opponent has a check that no reply escapes (a
    /// mate in one, [`mate::find_mate`]), unless every one of them does. Only in the variants
    /// where a move may leave the royal en prise.
    fn rule_out_royal_losses(&mut self) {
        let position = self.root_game.position().clone();
        if position.variant().spec.legality != Legality::RoyalCapture {
            return;
        }
        let mover = position.side_to_move();
        let open = self.open_root_children();
        let afters: Vec<Position> = open.iter().map(|&id| position.after_unchecked(self.tree.node(id).mv)).collect();
        // Where the royal cannot be taken now, its zone tells cheaply which moves expose it.
        let zone = (!position.only_royal_en_prise(mover)).then(|| RoyalZone::of(&position, mover)).flatten();
        let hanging: Vec<bool> = open
            .iter()
            .zip(&afters)
            .map(|(&id, after)| match &zone {
                Some(zone) => zone.exposed_after(self.tree.node(id).mv, after),
                None => after.only_royal_en_prise(mover),
            })
            .collect();
        if hanging.iter().all(|&h| h) {
            return;
        }
        let kept = self.rule_out_unless_all(&open, &hanging);
        let safe: Vec<NodeId> = kept.iter().map(|&i| open[i]).collect();
        let mated: Vec<bool> = kept.iter().map(|&i| mate::find_mate(&afters[i], 1).is_some()).collect();
        self.rule_out_unless_all(&safe, &mated);
    }

    /// Rules out the root children `ids` flagged in `flags`, unless every one is; returns the
    /// indices (into `ids`) of those that stay in.
    fn rule_out_unless_all(&mut self, ids: &[NodeId], flags: &[bool]) -> Vec<usize> {
        if flags.iter().all(|&f| f) {
            return (0..ids.len()).collect();
        }
        let mut kept = Vec::new();
        for (i, (&id, &flag)) in ids.iter().zip(flags).enumerate() {
            if flag {
                self.rule_out(id);
            } else {
                kept.push(i);
            }
        }
        kept
    }

    /// The root children not yet decided (not terminal).
    fn open_root_children(&self) -> Vec<NodeId> {
        self.tree.node(ROOT).children().filter(|&id| !matches!(self.tree.node(id).state, NodeState::Terminal(_))).collect()
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
        let open = self.open_root_children();
        let moves: Vec<_> = open.iter().map(|&id| self.tree.node(id).mv).collect();
        let recreating = self.root_game.recreating(&moves);
        self.rule_out_unless_all(&open, &recreating);
    }

    /// Marks lost, with no prior, the root children whose move loses material that another
    /// move keeps ([`crate::mcts::SearchConfig::material_guard`]). Moves that end the game are
    /// left to the rules' scores.
    fn rule_out_material_losses(&mut self) {
        let position = self.root_game.position().clone();
        let open = self.open_root_children();
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

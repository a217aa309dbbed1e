//! One self-play game: searches move after move (full or fast, playout-cap randomisation),
//! picks moves with the temperature schedule, resigns lost games and adjudicates won ones
//! (except in audited games) and keeps the record the trainer will read. In a league game one
//! side is an earlier network of the run: its moves are played from searches of their own and
//! are not training targets. In a searcher game one side is the material searcher
//! ([`MaterialSearch`]): its moves are not targets either, and the network evaluates only the
//! position it moves from (for the root values the trainer's short-term targets read).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::config::SelfplayConfig;
use crate::material_search::MaterialSearch;
use crate::mcts::{Search, SearchConfig};
use crate::nn::Evaluation;
use crate::replay::{GameResult, MoveRecord, ReplayEnding, ReplayGame};
use crate::rules::material::Material;
use crate::rules::notation::{coord, sfen};
use crate::rules::{Color, Game};

/// What a game needs next.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// An evaluation of the search's leaf ([`SelfplayGame::leaf`]).
    Evaluate,
    /// Nothing: the game is over.
    Finished,
}

/// A self-play game in progress.
pub struct SelfplayGame {
    config: SelfplayConfig,
    search: Search,
    rng: ChaCha8Rng,
    seed: u64,
    moves: Vec<MoveRecord>,
    /// Whether the search in progress is a full one (recorded as a policy target).
    full: bool,
    /// In a league or searcher game: the side the opponent plays, and who it is.
    opponent: Option<(Color, Opponent)>,
    /// Whether the game is played out: no resignation or adjudication ends it early.
    resignation_disabled: bool,
    /// Moves in a row each side has judged lost, Black first.
    hopeless: [u32; 2],
    /// In an audited game: the first side that would have resigned.
    would_have_resigned: Option<Color>,
    /// The side that has led by `adjudicate_lead` or more, and for how many plies in a row.
    lead: Option<(Color, u32)>,
    /// In an audited game: the first side that would have been adjudicated the winner.
    would_have_won: Option<Color>,
    result: Option<GameResult>,
}

/// Who plays one side of a game that is not pure self-play.
enum Opponent {
    /// An earlier network of the run (league games): its leaves go to that network.
    Network,
    /// The material searcher, `depth` plies deep.
    Searcher { search: Box<MaterialSearch>, depth: u32 },
}

/// A finished game: its record and, for audited games, whether a resignation would have been
/// wrong (`Some(true)`: the side that would have resigned did not lose) and how an
/// adjudication would have compared with the game played out.
pub struct FinishedGame {
    pub record: ReplayGame,
    pub false_resignation: Option<bool>,
    pub adjudication_audit: Option<AdjudicationAudit>,
}

/// How an audited game, played out, ended for the side that would have been adjudicated the
/// winner (in this order, the index of [`crate::selfplay::Summary::audited_adjudications`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AdjudicationAudit {
    Won,
    Drawn,
    Lost,
}

impl SelfplayGame {
    /// A game from `start`, its random choices drawn from `seed`.
    pub fn new(start: Game, search: SearchConfig, config: SelfplayConfig, seed: u64) -> SelfplayGame {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let early_endings = config.resign_threshold > 0.0 || config.adjudicate_lead > 0.0;
        let resignation_disabled = !early_endings || rng.random::<f32>() < config.resign_audit_fraction;
        let opponent = Self::draw_opponent(&start, &config, &mut rng);
        // League and searcher games are played out: the opponent's values say little.
        let resignation_disabled = resignation_disabled || opponent.is_some();
        let mut game = SelfplayGame {
            config,
            search: Search::new(start, search.for_selfplay()),
            rng,
            seed,
            moves: Vec::new(),
            full: false,
            opponent,
            resignation_disabled,
            hopeless: [0; 2],
            would_have_resigned: None,
            lead: None,
            would_have_won: None,
            result: None,
        };
        game.begin_search();
        game
    }

    /// Draws whether the game is a league game (`league_fraction`), a searcher game
    /// (`searcher_fraction`) or self-play, and the side the opponent plays. Pure self-play
    /// draws nothing.
    fn draw_opponent(start: &Game, config: &SelfplayConfig, rng: &mut ChaCha8Rng) -> Option<(Color, Opponent)> {
        if config.league_fraction + config.searcher_fraction <= 0.0 {
            return None;
        }
        let draw = rng.random::<f32>();
        let opponent = if draw < config.league_fraction {
            Opponent::Network
        } else if draw < config.league_fraction + config.searcher_fraction {
            let search = Box::new(MaterialSearch::new(start.position().variant().id));
            Opponent::Searcher { search, depth: config.searcher_depth }
        } else {
            return None;
        };
        let side = if rng.random::<bool>() { Color::Black } else { Color::White };
        Some((side, opponent))
    }

    /// Starts the search of the next move: full with probability `full_search_fraction`. Only
    /// the learner's full searches are recorded as targets; a network opponent searches alike,
    /// and before the searcher's moves the learner's network evaluates the position once.
    fn begin_search(&mut self) {
        let full = self.rng.random::<f32>() < self.config.full_search_fraction;
        let simulations = if self.searcher_to_move() {
            1
        } else if full {
            self.config.simulations
        } else {
            self.config.fast_simulations
        };
        self.full = full && self.opponent_side() != Some(self.search.side_to_move());
        self.search.start(simulations, full);
    }

    /// The side the opponent plays, in a league or searcher game.
    fn opponent_side(&self) -> Option<Color> {
        self.opponent.as_ref().map(|(side, _)| *side)
    }

    /// Whether the search in progress is the opponent network's (in a league game): its
    /// leaves go to that network.
    pub fn opponent_to_move(&self) -> bool {
        matches!(&self.opponent, Some((side, Opponent::Network)) if *side == self.search.side_to_move())
    }

    /// Whether the material searcher plays the next move (in a searcher game).
    fn searcher_to_move(&self) -> bool {
        matches!(&self.opponent, Some((side, Opponent::Searcher { .. })) if *side == self.search.side_to_move())
    }

    /// Runs the game on until it needs an evaluation or is over.
    pub fn step(&mut self) -> Step {
        loop {
            if self.result.is_some() {
                return Step::Finished;
            }
            if self.search.select(&mut self.rng) {
                return Step::Evaluate;
            }
            self.play_searched_move();
        }
    }

    /// The position to evaluate and its legal moves.
    pub fn leaf(&self) -> (&Game, &[crate::rules::Move]) {
        self.search.leaf()
    }

    /// Takes in the evaluation asked for by [`SelfplayGame::step`].
    pub fn expand(&mut self, evaluation: &Evaluation) {
        self.search.expand(evaluation);
    }

    /// Plies played so far.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// The search is done: resign or play its move, record it, and go on or finish.
    fn play_searched_move(&mut self) {
        let variant = self.search.game().position().variant();
        let mover = self.search.side_to_move();
        let ply = self.search.game().ply();
        let wdl = self.search.root_wdl();
        if self.opponent.is_none() && self.judged_lost(mover, wdl) {
            if self.resignation_disabled {
                self.would_have_resigned.get_or_insert(mover);
            } else {
                self.result = Some(GameResult { winner: Some(mover.opponent()), reason: ReplayEnding::Resignation });
                return;
            }
        }
        let mv = match &mut self.opponent {
            Some((side, Opponent::Searcher { search, depth })) if *side == mover => {
                search.choose(self.search.game(), *depth, None, &mut self.rng)
            }
            _ => self.search.choose_move(self.config.temperature(ply), &mut self.rng),
        };
        let mv = mv.expect("a game in progress has legal moves");
        let policy = if self.full {
            self.search.policy_target().into_iter().map(|(m, w)| (coord::write(variant, m), w)).collect()
        } else {
            Vec::new()
        };
        self.moves.push(MoveRecord { mv: coord::write(variant, mv), policy, root_wdl: wdl });
        self.search.advance(mv).expect("the search chose a legal move");
        if matches!(self.opponent, Some((_, Opponent::Network))) {
            // The other side's network searches next: the tree of this one's values goes.
            self.search = Search::new(self.search.game().clone(), *self.search.config());
        }
        match self.search.game().outcome() {
            Some(outcome) => self.result = Some(GameResult { winner: outcome.winner, reason: outcome.reason.into() }),
            None => match self.adjudicated_winner() {
                Some(winner) if !self.resignation_disabled => {
                    self.result = Some(GameResult { winner: Some(winner), reason: ReplayEnding::Adjudication })
                }
                winner => {
                    if let Some(winner) = winner {
                        self.would_have_won.get_or_insert(winner);
                    }
                    self.begin_search()
                }
            },
        }
    }

    /// Follows the material lead after a move; the side that has now held `adjudicate_lead`
    /// for `adjudicate_plies` plies in a row, if any.
    fn adjudicated_winner(&mut self) -> Option<Color> {
        if self.config.adjudicate_lead <= 0.0 {
            return None;
        }
        let position = self.search.game().position();
        let lead = Material::of(position.variant().id).lead(position, Color::Black);
        let ahead = if lead >= self.config.adjudicate_lead {
            Some(Color::Black)
        } else if -lead >= self.config.adjudicate_lead {
            Some(Color::White)
        } else {
            None
        };
        self.lead = ahead.map(|side| match self.lead {
            Some((held, plies)) if held == side => (side, plies + 1),
            _ => (side, 1),
        });
        self.lead.filter(|&(_, plies)| plies >= self.config.adjudicate_plies).map(|(side, _)| side)
    }

    /// Counts the mover's hopeless evaluations in a row; true once there are enough to resign.
    fn judged_lost(&mut self, mover: Color, wdl: [f32; 3]) -> bool {
        let streak = &mut self.hopeless[mover as usize];
        if self.config.resign_threshold > 0.0 && wdl[0] + wdl[1] / 2.0 < self.config.resign_threshold {
            *streak += 1;
        } else {
            *streak = 0;
        }
        *streak >= self.config.resign_consecutive
    }

    /// The record of the finished game, naming `model`.
    pub fn finish(self, model: String) -> FinishedGame {
        let result = self.result.expect("finish is called on finished games");
        let game = self.search.game();
        let false_resignation = self.would_have_resigned.map(|side| result.winner != Some(side.opponent()));
        let adjudication_audit = self.would_have_won.map(|side| match result.winner {
            Some(winner) if winner == side => AdjudicationAudit::Won,
            Some(_) => AdjudicationAudit::Lost,
            None => AdjudicationAudit::Drawn,
        });
        let record = ReplayGame {
            variant: game.position().variant().name().to_string(),
            start: sfen::write(game.start()),
            moves: self.moves,
            result,
            model,
            seed: self.seed,
            resignation_disabled: self.resignation_disabled,
        };
        FinishedGame { record, false_resignation, adjudication_audit }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{GameRules, Position, VariantId};

    #[test]
    fn self_play_searches_without_the_royal_guard() {
        let id = VariantId::CHU_SHOGI;
        let start = Game::new(Position::start(id), GameRules::default_for(id.variant()));
        let search = SearchConfig { capture_utility: 0.5, ..SearchConfig::default() };
        let game = SelfplayGame::new(start, search, SelfplayConfig::default(), 1);
        assert!(search.royal_guard);
        assert_eq!(*game.search.config(), SearchConfig { royal_guard: false, ..search });
    }
}

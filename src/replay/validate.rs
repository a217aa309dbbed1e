//! Replaying a recorded game through the rules, checking everything the record claims: the
//! start position, every move, every policy target and root value, and the result.
//!
//! Moves and policy entries must be written as [`coord::write`] writes them (one canonical text
//! per move). Plies are numbered from 1: ply `n` is the `n`-th move of the record, and its
//! policy and root value belong to the position before that move.
//!
//! A resignation is recorded after the last move: by convention the side to move in the final
//! position resigns, so the recorded winner must be the other side, and the game must not have
//! ended by rule. An adjudication is recorded after the last move too: its winner must lead in
//! material in the final position, and the game must not have ended by rule.

use std::fmt;

use crate::rules::material::Material;
use crate::rules::notation::coord::{self, MoveError};
use crate::rules::notation::sfen::{self, SfenError};
use crate::rules::{Color, Game, GameRules, Move, MoveList, Outcome, VariantId};

use super::record::{color_name, GameResult, MoveRecord, ReplayEnding, ReplayGame};

/// How far a probability distribution's sum may be from 1.
pub const SUM_TOLERANCE: f32 = 1e-3;

/// What is wrong with one recorded game.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameError {
    #[error("the game is of variant '{found}' but the file holds {expected} games")]
    Variant { expected: &'static str, found: String },
    #[error("bad start position '{sfen}': {source}")]
    Start { sfen: String, source: Box<SfenError> },
    #[error("ply {ply}: move '{text}' comes after the game ended ({result})")]
    MoveAfterEnd { ply: usize, text: String, result: GameResult },
    #[error("ply {ply}: {source}")]
    Move { ply: usize, source: MoveError },
    #[error("ply {ply}: policy entry '{text}' is not a legal move of the position")]
    PolicyMove { ply: usize, text: String },
    #[error("ply {ply}: the policy names '{text}' twice")]
    PolicyDuplicate { ply: usize, text: String },
    #[error("ply {ply}: policy weight {weight} of '{text}' is not a finite number >= 0")]
    PolicyWeight { ply: usize, text: String, weight: f32 },
    #[error("ply {ply}: the policy weights sum to {sum}, not 1")]
    PolicySum { ply: usize, sum: f32 },
    #[error("ply {ply}: root value {wdl:?} is not three probabilities in [0, 1] summing to 1")]
    RootWdl { ply: usize, wdl: [f32; 3] },
    #[error("the record says {recorded} but by the rules {actual} after ply {plies}")]
    WrongResult { recorded: GameResult, actual: GameResult, plies: usize },
    #[error(
        "the record says {recorded} but the game is not over after ply {plies} (only a resignation or an adjudication ends a game early)"
    )]
    NotOver { recorded: GameResult, plies: usize },
    #[error("a {} is recorded but the game had already ended by rule ({actual}) after ply {plies}", recorded.reason.name())]
    EndedEarlyAfterTheEnd { recorded: GameResult, actual: GameResult, plies: usize },
    #[error("a resignation after ply {plies} must be won by {} (the side to move, {}, resigns), but the record says {recorded}", color_name(*expected), color_name(*resigner))]
    ResignationWinner { recorded: GameResult, resigner: Color, expected: Color, plies: usize },
    #[error("a {} is recorded but the game was to be played out", ending.name())]
    PlayedOutGameEndedEarly { ending: ReplayEnding },
    #[error("an adjudication after ply {plies} must be won by the side ahead in material, but the record says {recorded} and {} leads by {lead}", color_name(Color::Black))]
    AdjudicationWinner { recorded: GameResult, lead: i32, plies: usize },
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(color) => write!(f, "{} wins by {}", color_name(color), self.reason.name()),
            None => write!(f, "draw by {}", self.reason.name()),
        }
    }
}

impl From<Outcome> for GameResult {
    fn from(outcome: Outcome) -> GameResult {
        GameResult { winner: outcome.winner, reason: outcome.reason.into() }
    }
}

/// The move that `text` names among `legal`, if it is one of them.
fn find_legal(variant: VariantId, legal: &MoveList, text: &str) -> Option<Move> {
    coord::parse_unchecked(variant.variant(), text).ok().filter(|mv| legal.contains(mv))
}

/// Checks a policy target against the position's legal moves and returns it as moves.
fn check_policy(variant: VariantId, legal: &MoveList, ply: usize, policy: &[(String, f32)]) -> Result<Vec<(Move, f32)>, GameError> {
    let mut moves: Vec<(Move, f32)> = Vec::with_capacity(policy.len());
    for (text, weight) in policy {
        let mv = find_legal(variant, legal, text).ok_or_else(|| GameError::PolicyMove { ply, text: text.clone() })?;
        if moves.iter().any(|&(seen, _)| seen == mv) {
            return Err(GameError::PolicyDuplicate { ply, text: text.clone() });
        }
        if !weight.is_finite() || *weight < 0.0 {
            return Err(GameError::PolicyWeight { ply, text: text.clone(), weight: *weight });
        }
        moves.push((mv, *weight));
    }
    let sum: f32 = moves.iter().map(|&(_, w)| w).sum();
    if !moves.is_empty() && (sum - 1.0).abs() > SUM_TOLERANCE {
        return Err(GameError::PolicySum { ply, sum });
    }
    Ok(moves)
}

/// Whether `wdl` is a probability distribution.
fn is_distribution(wdl: &[f32; 3]) -> bool {
    wdl.iter().all(|p| p.is_finite() && (0.0..=1.0).contains(p)) && (wdl.iter().sum::<f32>() - 1.0).abs() <= SUM_TOLERANCE
}

/// Checks one ply before its move is played and returns its policy as moves (empty for a fast
/// search).
fn check_ply(game: &Game, variant: VariantId, ply: usize, record: &MoveRecord) -> Result<Vec<(Move, f32)>, GameError> {
    if let Some(outcome) = game.outcome() {
        return Err(GameError::MoveAfterEnd { ply, text: record.mv.clone(), result: outcome.into() });
    }
    if !is_distribution(&record.root_wdl) {
        return Err(GameError::RootWdl { ply, wdl: record.root_wdl });
    }
    check_policy(variant, &game.legal_moves(), ply, &record.policy)
}

/// Checks that the recorded result is what the rules say of the final game.
fn check_result(game: &Game, record: &ReplayGame) -> Result<(), GameError> {
    let recorded = record.result;
    let plies = game.ply();
    match (game.outcome(), recorded.reason) {
        (Some(outcome), ReplayEnding::Resignation | ReplayEnding::Adjudication) => {
            Err(GameError::EndedEarlyAfterTheEnd { recorded, actual: outcome.into(), plies })
        }
        (Some(outcome), _) if GameResult::from(outcome) != recorded => {
            Err(GameError::WrongResult { recorded, actual: outcome.into(), plies })
        }
        (Some(_), _) => Ok(()),
        (None, ending @ (ReplayEnding::Resignation | ReplayEnding::Adjudication)) if record.resignation_disabled => {
            Err(GameError::PlayedOutGameEndedEarly { ending })
        }
        (None, ReplayEnding::Adjudication) => {
            let lead = Material::of(game.position().variant().id).balance(game.position(), Color::Black);
            let ahead = match lead.signum() {
                1 => Some(Color::Black),
                -1 => Some(Color::White),
                _ => None,
            };
            if ahead.is_some() && recorded.winner == ahead {
                Ok(())
            } else {
                Err(GameError::AdjudicationWinner { recorded, lead, plies })
            }
        }
        (None, ReplayEnding::Resignation) => {
            let resigner: Color = game.position().side_to_move();
            let expected = resigner.opponent();
            if recorded.winner == Some(expected) {
                Ok(())
            } else {
                Err(GameError::ResignationWinner { recorded, resigner, expected, plies })
            }
        }
        (None, _) => Err(GameError::NotOver { recorded, plies }),
    }
}

/// Replays `record` as a game of `variant` under `rules`, checking everything it claims (see
/// the module documentation). `visit` sees the game before each ply's move, with the ply's
/// policy target as legal moves (empty when the ply got only a fast search). Returns the final
/// game.
pub fn replay_game(
    record: &ReplayGame,
    variant: VariantId,
    rules: GameRules,
    mut visit: impl FnMut(&Game, Vec<(Move, f32)>),
) -> Result<Game, GameError> {
    if record.variant != variant.name() {
        return Err(GameError::Variant { expected: variant.name(), found: record.variant.clone() });
    }
    let start =
        sfen::parse(variant.variant(), &record.start).map_err(|e| GameError::Start { sfen: record.start.clone(), source: Box::new(e) })?;
    let mut game = Game::new(start, rules);
    for (index, ply_record) in record.moves.iter().enumerate() {
        let ply = index + 1;
        let policy = check_ply(&game, variant, ply, ply_record)?;
        visit(&game, policy);
        let text = &ply_record.mv;
        let played = coord::parse_unchecked(variant.variant(), text)
            .and_then(|mv| game.play(mv).map_err(|_| MoveError::Illegal { text: text.clone() }));
        played.map_err(|source| GameError::Move { ply, source })?;
    }
    check_result(&game, record)?;
    Ok(game)
}

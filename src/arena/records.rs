//! What a match leaves on disk, every file written to a temporary name and renamed into place:
//! - `results.json`: the [`MatchSummary`];
//! - `games.jsonl`: one [`MatchGame`] per line (start SFEN, coordinate moves, result);
//! - `csa/game-NNNN.csa` (shogi only): each game in CSA format ([`csa`]).
//!
//! [`read_match_files`] reads the first two back, so that a match cut short can be resumed.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::player::PlayerError;
use super::stats::{EloEstimate, Sprt, SprtStatus, Wdl};
use super::ArenaError;
use crate::files::write_atomic;
use crate::mcts::mate::is_mated;
use crate::rules::material::Material;
use crate::rules::notation::csa::{self, CsaEnd};
use crate::rules::{Color, EndReason, Game, Move, Position};

/// How a game ended: by the rules, by a resignation when mated, or by a player's failure
/// (resignation, illegal move, time out, crash, protocol error), which loses the game for that
/// player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatchEnding {
    Rules {
        winner: Option<Color>,
        reason: EndReason,
    },
    /// The side to move resigned in a mated position (every move it had left its only royal
    /// piece to be taken): a win by play, like the capture that would have followed.
    Mated {
        loser: Color,
    },
    Failure {
        loser: Color,
        kind: FailureKind,
        error: String,
    },
}

/// The kinds of player failure that records tell apart.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    Resigned,
    TimeUp,
    IllegalMove,
    /// A crash, a protocol error or a result claim.
    Other,
}

impl MatchEnding {
    /// The ending of a game that `loser` resigned in `position`: [`MatchEnding::Mated`] when
    /// `loser` is to move there and mated ([`is_mated`]), a win by play; otherwise a resignation
    /// that adjudicates the game.
    pub fn resignation(loser: Color, position: &Position) -> MatchEnding {
        if position.side_to_move() == loser && is_mated(position) {
            MatchEnding::Mated { loser }
        } else {
            MatchEnding::Failure { loser, kind: FailureKind::Resigned, error: PlayerError::Resigned.to_string() }
        }
    }

    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match self {
            MatchEnding::Rules { winner, .. } => *winner,
            MatchEnding::Mated { loser } | MatchEnding::Failure { loser, .. } => Some(loser.opponent()),
        }
    }

    /// The result as PGN/CSA-style text, Black first: `1-0`, `0-1`, `1/2-1/2`.
    pub fn result_text(&self) -> &'static str {
        match self.winner() {
            Some(Color::Black) => "1-0",
            Some(Color::White) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// Why the game ended, in words.
    pub fn reason_text(&self) -> String {
        match self {
            MatchEnding::Rules { reason, .. } => rules_reason_text(*reason),
            MatchEnding::Mated { loser } => format!("{loser} resigned when mated"),
            MatchEnding::Failure { loser, error, .. } => format!("{loser} lost by adjudication: {error}"),
        }
    }

    /// The CSA end of this ending, `mover` being the side to move when the game ended.
    pub fn csa_end(&self, mover: Color) -> CsaEnd {
        match self {
            MatchEnding::Rules { reason, winner } => match reason {
                EndReason::Checkmate | EndReason::NoLegalMove => CsaEnd::Tsumi,
                EndReason::Repetition => CsaEnd::Sennichite,
                EndReason::PerpetualCheck => CsaEnd::IllegalAction { loser: winner.map_or(mover, Color::opponent) },
                EndReason::Declaration => CsaEnd::Kachi,
                _ => CsaEnd::Hikiwake,
            },
            MatchEnding::Mated { .. } => CsaEnd::Toryo,
            MatchEnding::Failure { loser, kind, .. } => match kind {
                FailureKind::Resigned if *loser == mover => CsaEnd::Toryo,
                FailureKind::TimeUp if *loser == mover => CsaEnd::TimeUp,
                FailureKind::IllegalMove if *loser == mover => CsaEnd::IllegalMove,
                _ => CsaEnd::IllegalAction { loser: *loser },
            },
        }
    }

    /// A shogi game from `start` through `moves` that ended so, in CSA format
    /// ([`csa::write`]), with the result and reason as the comment; `None` for other variants.
    pub fn csa_text(&self, start: &Position, moves: &[Move], names: [&str; 2]) -> Option<String> {
        let comment = format!("{} {}", self.result_text(), self.reason_text());
        csa::write(start, moves, names, &comment, |mover| self.csa_end(mover))
    }
}

/// The words `games.jsonl` gives for a game the rules ended with `reason`: `ply cap`, ...
fn rules_reason_text(reason: EndReason) -> String {
    reason.name().replace('-', " ")
}

/// One game of a match, as a line of `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchGame {
    /// Game number, from 1.
    pub game: u32,
    /// Pair number, from 1: the two games of a pair share the opening, colours swapped.
    pub pair: u32,
    /// Which of the match's players (0 or 1) had Black.
    pub black_player: usize,
    pub black: String,
    pub white: String,
    /// The start position in SFEN.
    pub start: String,
    /// How many of the moves were the opening.
    pub opening_plies: usize,
    /// The moves in coordinate notation, separated by spaces.
    pub moves: String,
    /// `1-0` (Black won), `0-1` or `1/2-1/2`.
    pub result: String,
    pub reason: String,
    /// Whether a player's failure decided the game rather than the rules (a resignation when
    /// mated is no failure).
    pub adjudicated: bool,
    /// Black's material lead over White in the last position (negative when White leads), in
    /// mean pieces of the start position, board and hands ([`final_black_lead`]); absent from
    /// records written without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub black_lead: Option<f64>,
}

impl MatchGame {
    /// Whether the game was drawn because it reached the ply cap, neither side having won it.
    pub fn reached_ply_cap(&self) -> bool {
        !self.adjudicated && self.reason == rules_reason_text(EndReason::PlyCap)
    }

    /// The winner's colour, from [`MatchGame::result`].
    pub fn winner(&self) -> Option<Color> {
        winner_of_result(&self.result)
    }

    /// The material lead of the player who had `color`, from [`MatchGame::black_lead`].
    pub fn lead_of(&self, color: Color) -> Option<f64> {
        self.black_lead.map(|lead| if color == Color::Black { lead } else { -lead })
    }
}

/// Black's material lead in the current position of `game`, in mean pieces of the start
/// position ([`Material::lead`]), to two decimals.
pub fn final_black_lead(game: &Game) -> f64 {
    let position = game.position();
    let lead = Material::of(position.variant().id).lead(position, Color::Black);
    (f64::from(lead) * 100.0).round() / 100.0
}

/// The winner named by a result text, Black first (`1-0`, `0-1`); none for a draw or anything
/// else.
pub fn winner_of_result(text: &str) -> Option<Color> {
    match text {
        "1-0" => Some(Color::Black),
        "0-1" => Some(Color::White),
        _ => None,
    }
}

/// One player's results in a match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayerSummary {
    pub name: String,
    pub total: Wdl,
    pub as_black: Wdl,
    pub as_white: Wdl,
    /// The games the rules decided (checkmate, a captured royal, bare king, repetition, the
    /// ply cap...) and those resigned when mated; those decided by a player's failure left out.
    pub by_play: Wdl,
    /// Points: wins plus half the draws.
    pub points: f64,
    /// Games drawn at the ply cap that this player ended ahead by [`AHEAD_AT_PLY_CAP`] mean
    /// start pieces or more ([`MatchGame::black_lead`]): leads it did not convert.
    pub ahead_at_ply_cap: u32,
}

/// The material lead, in mean start pieces, at which a game drawn at the ply cap counts as
/// one a player ended ahead ([`PlayerSummary::ahead_at_ply_cap`]).
pub const AHEAD_AT_PLY_CAP: f64 = 1.0;

/// An SPRT with where it stood at the end.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    pub test: Sprt,
    pub status: SprtStatus,
}

/// The content of `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchSummary {
    pub variant: String,
    /// Games played.
    pub games: u32,
    /// Games the match was to have (the asked number rounded up to whole pairs).
    pub planned_games: u32,
    pub players: [PlayerSummary; 2],
    /// The first player's Elo difference against the second; `None` before the first game.
    pub elo: Option<EloEstimate>,
    pub sprt: Option<SprtReport>,
    /// Whether the SPRT (or an error) ended the match before all games were played.
    pub stopped_early: bool,
    /// Games decided by a player's failure.
    pub adjudicated: u32,
    /// Games drawn at the ply cap.
    pub at_ply_cap: u32,
    pub seed: u64,
    pub ply_cap: u32,
    /// The search budget (`default`, `sims N`, `time-ms T`).
    pub budget: String,
    /// Where the openings came from.
    pub openings: String,
}

/// Writes a match's files into `dir` (created if needed): `results.json` and `games.jsonl`.
pub fn write_match_files(dir: &Path, summary: &MatchSummary, records: &[MatchGame]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let json = serde_json::to_string_pretty(summary).map_err(std::io::Error::other)?;
    let mut lines = String::new();
    for record in records {
        lines.push_str(&serde_json::to_string(record).map_err(std::io::Error::other)?);
        lines.push('\n');
    }
    write_atomic(&dir.join("games.jsonl"), lines.as_bytes())?;
    write_atomic(&dir.join("results.json"), format!("{json}\n").as_bytes())
}

/// The path of game `game`'s CSA file under `dir`.
pub fn csa_path(dir: &Path, game: u32) -> PathBuf {
    dir.join("csa").join(format!("game-{game:04}.csa"))
}

/// The settings a `results.json` records: what a resumed match must repeat.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RecordedSettings {
    pub variant: String,
    pub planned_games: u32,
    pub players: [RecordedPlayer; 2],
    pub seed: u64,
    pub ply_cap: u32,
    pub budget: String,
    pub openings: String,
}

impl RecordedSettings {
    /// The settings `summary` records.
    pub fn of(summary: &MatchSummary) -> RecordedSettings {
        RecordedSettings {
            variant: summary.variant.clone(),
            planned_games: summary.planned_games,
            players: summary.players.clone().map(|p| RecordedPlayer { name: p.name }),
            seed: summary.seed,
            ply_cap: summary.ply_cap,
            budget: summary.budget.clone(),
            openings: summary.openings.clone(),
        }
    }
}

/// A player as `results.json` names it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RecordedPlayer {
    pub name: String,
}

/// The settings and games of the match files in `dir`; `None` when it holds no `results.json`.
pub fn read_match_files(dir: &Path) -> Result<Option<(RecordedSettings, Vec<MatchGame>)>, ArenaError> {
    let unreadable = |reason: String| ArenaError::Resume { path: dir.to_path_buf(), reason };
    let results = dir.join("results.json");
    let text = match fs::read_to_string(&results) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(unreadable(format!("cannot read results.json: {error}"))),
    };
    let settings = serde_json::from_str(&text).map_err(|error| unreadable(format!("results.json: {error}")))?;
    let lines = fs::read_to_string(dir.join("games.jsonl")).map_err(|error| unreadable(format!("cannot read games.jsonl: {error}")))?;
    let games = lines
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(number, line)| serde_json::from_str(line).map_err(|error| unreadable(format!("games.jsonl line {}: {error}", number + 1))))
        .collect::<Result<Vec<MatchGame>, _>>()?;
    Ok(Some((settings, games)))
}

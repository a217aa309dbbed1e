//! What a match leaves on disk, every file written to a temporary name and renamed into place:
//! - `results.json`: the [`MatchSummary`];
//! - `games.jsonl`: one [`GameRecord`] per line (start SFEN, coordinate moves, result);
//! - `csa/game-NNNN.csa` (shogi only): each game in CSA format version 2.2, which shogi viewers
//!   and databases read.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::stats::{EloEstimate, Sprt, SprtStatus, Wdl};
use crate::files::write_atomic;
use crate::rules::{Color, EndReason, Move, Position, VariantId};

/// How a game ended: by the rules, or by a player's failure (resignation, illegal move, time
/// out, crash, protocol error), which loses the game for that player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Rules { winner: Option<Color>, reason: EndReason },
    Failure { loser: Color, kind: FailureKind, error: String },
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

impl Ending {
    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Ending::Rules { winner, .. } => *winner,
            Ending::Failure { loser, .. } => Some(loser.opponent()),
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
            Ending::Rules { reason, .. } => reason.name().replace('-', " "),
            Ending::Failure { loser, error, .. } => format!("{loser} lost by adjudication: {error}"),
        }
    }
}

/// One game of a match, as a line of `games.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
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
    /// Whether a player's failure decided the game rather than the rules.
    pub adjudicated: bool,
}

impl GameRecord {
    /// The winner's colour, from [`GameRecord::result`].
    pub fn winner(&self) -> Option<Color> {
        match self.result.as_str() {
            "1-0" => Some(Color::Black),
            "0-1" => Some(Color::White),
            _ => None,
        }
    }
}

/// One player's results in a match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PlayerSummary {
    pub name: String,
    pub total: Wdl,
    pub as_black: Wdl,
    pub as_white: Wdl,
    /// Points: wins plus half the draws.
    pub points: f64,
}

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
    pub seed: u64,
    pub ply_cap: u32,
    /// The search budget (`default`, `sims N`, `time-ms T`).
    pub budget: String,
    /// Where the openings came from.
    pub openings: String,
}

/// Writes a match's files into `dir` (created if needed): `results.json` and `games.jsonl`.
pub fn write_match_files(dir: &Path, summary: &MatchSummary, records: &[GameRecord]) -> std::io::Result<()> {
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

/// CSA piece names of the shogi piece letters, unpromoted and promoted.
fn csa_piece(abbr: &str, promoted: bool) -> Option<&'static str> {
    Some(match (abbr, promoted) {
        ("P", false) => "FU",
        ("L", false) => "KY",
        ("N", false) => "KE",
        ("S", false) => "GI",
        ("G", false) => "KI",
        ("B", false) => "KA",
        ("R", false) => "HI",
        ("K", false) => "OU",
        ("P", true) => "TO",
        ("L", true) => "NY",
        ("N", true) => "NK",
        ("S", true) => "NG",
        ("B", true) => "UM",
        ("R", true) => "RY",
        _ => return None,
    })
}

/// The sign of a colour in CSA (`+` Black, `-` White).
fn csa_sign(color: Color) -> char {
    match color {
        Color::Black => '+',
        Color::White => '-',
    }
}

/// A shogi game in CSA format version 2.2: names, start position (`PI` for the standard start,
/// else `P1`..`P9`, hands and side to move), the moves (`+7776FU`, drops `+0055FU`) and the end
/// (`%TSUMI`, `%TORYO`, `%SENNICHITE`, `%KACHI`, `%HIKIWAKE`, `%TIME_UP`, `%ILLEGAL_MOVE`, or
/// `%+ILLEGAL_ACTION`/`%-ILLEGAL_ACTION` for other failures and perpetual check), with the
/// reason as a comment. `None` for other variants.
pub fn csa_text(start: &Position, moves: &[Move], names: [&str; 2], ending: &Ending) -> Option<String> {
    let v = start.variant();
    if v.id != VariantId::Shogi {
        return None;
    }
    let g = &v.geometry;
    let mut out = String::from("V2.2\n");
    out.push_str(&format!("N+{}\nN-{}\n$EVENT:shogi-zero arena\n", names[0], names[1]));
    if *start == Position::start(VariantId::Shogi) {
        out.push_str("PI\n+\n");
    } else {
        for y in 0..g.size {
            out.push_str(&format!("P{}", y + 1));
            for x in 0..g.size {
                match start.piece_at(g.square(x, y)) {
                    Some(p) => out.push_str(&format!("{}{}", csa_sign(p.color), csa_piece(v.piece_spec(p.ptype).abbr, p.promoted)?)),
                    None => out.push_str(" * "),
                }
            }
            out.push('\n');
        }
        for color in Color::ALL {
            let mut hand = String::new();
            for &t in &v.hand_types {
                for _ in 0..start.hand(color, t) {
                    hand.push_str(&format!("00{}", csa_piece(v.piece_spec(t).abbr, false)?));
                }
            }
            if !hand.is_empty() {
                out.push_str(&format!("P{}{hand}\n", csa_sign(color)));
            }
        }
        out.push_str(&format!("{}\n", csa_sign(start.side_to_move())));
    }
    let square = |sq| format!("{}{}", g.file(sq), g.rank(sq) + 1);
    let mut pos = start.clone();
    for &mv in moves {
        let sign = csa_sign(pos.side_to_move());
        let text = match mv {
            Move::Normal { from, to, promote } => {
                let p = pos.piece_at(from)?;
                format!("{sign}{}{}{}", square(from), square(to), csa_piece(v.piece_spec(p.ptype).abbr, p.promoted || promote)?)
            }
            Move::Drop { piece, to } => format!("{sign}00{}{}", square(to), csa_piece(v.piece_spec(piece).abbr, false)?),
            Move::Declare => break,
            Move::TwoLeg { .. } | Move::Pass => return None,
        };
        out.push_str(&text);
        out.push('\n');
        pos.play_unchecked(mv);
    }
    out.push_str(&format!("'{} {}\n", ending.result_text(), ending.reason_text()));
    let mover = pos.side_to_move();
    let end = match ending {
        Ending::Rules { reason, winner } => match reason {
            EndReason::Checkmate | EndReason::NoLegalMove => "%TSUMI".to_string(),
            EndReason::Repetition => "%SENNICHITE".to_string(),
            EndReason::PerpetualCheck => format!("%{}ILLEGAL_ACTION", csa_sign(winner.map_or(mover, Color::opponent))),
            EndReason::Declaration => "%KACHI".to_string(),
            _ => "%HIKIWAKE".to_string(),
        },
        Ending::Failure { loser, kind, .. } => match kind {
            FailureKind::Resigned if *loser == mover => "%TORYO".to_string(),
            FailureKind::TimeUp if *loser == mover => "%TIME_UP".to_string(),
            FailureKind::IllegalMove if *loser == mover => "%ILLEGAL_MOVE".to_string(),
            _ => format!("%{}ILLEGAL_ACTION", csa_sign(*loser)),
        },
    };
    out.push_str(&end);
    out.push('\n');
    Some(out)
}

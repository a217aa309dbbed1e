//! Game records as `play`'s `save` writes them, in the arena's formats
//! ([`crate::arena::records`]):
//!
//! - by default one line of JSON, the record of the arena's `games.jsonl`: players, `start`
//!   (SFEN), `moves` (coordinate notation, separated by spaces), `result` (`1-0` when Black, the
//!   first player, wins; `0-1`; `1/2-1/2`; `*` while the game is unfinished) and `reason`;
//! - for a file name ending in `.csa`, CSA format version 2.2 (standard shogi, finished games).

use std::path::Path;

use crate::arena::records::{self, MatchEnding, MatchGame};
use crate::files::write_atomic;
use crate::rules::notation::coord;
use crate::rules::Game;

/// An ending in words: "Black wins (checkmate)", "draw (repetition)", "White resigns".
pub fn describe(ending: &MatchEnding) -> String {
    match (ending, ending.winner()) {
        (MatchEnding::Failure { loser, .. }, _) => format!("{loser} resigns"),
        (MatchEnding::Mated { loser }, _) => format!("{loser} resigns when mated"),
        (MatchEnding::Rules { .. }, Some(winner)) => format!("{winner} wins ({})", ending.reason_text()),
        (MatchEnding::Rules { .. }, None) => format!("draw ({})", ending.reason_text()),
    }
}

/// The format a file gets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// The arena's JSON line.
    Json,
    /// CSA, for a `.csa` name.
    Csa,
}

impl Format {
    /// The format for a file name.
    pub fn for_path(path: &Path) -> Format {
        match path.extension() {
            Some(ext) if ext.eq_ignore_ascii_case("csa") => Format::Csa,
            _ => Format::Json,
        }
    }
}

/// Why a record could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("CSA records are written for finished games of standard shogi; use another file name for a JSON record")]
    NoCsa,
    #[error("cannot write {path}: {source}")]
    Io { path: String, source: std::io::Error },
}

/// The JSON record of `game` between `names` (Black's first), ended by `ending` if it has ended.
pub fn json(game: &Game, names: [&str; 2], ending: Option<&MatchEnding>) -> String {
    let v = game.start().variant();
    let record = MatchGame {
        game: 1,
        pair: 1,
        black_player: 0,
        black: names[0].to_string(),
        white: names[1].to_string(),
        start: game.start().to_string(),
        opening_plies: 0,
        moves: game.moves().iter().map(|&m| coord::write(v, m)).collect::<Vec<_>>().join(" "),
        result: ending.map_or("*", MatchEnding::result_text).to_string(),
        reason: ending.map_or_else(|| "unfinished".to_string(), MatchEnding::reason_text),
        adjudicated: matches!(ending, Some(MatchEnding::Failure { .. })),
        black_lead: ending.map(|_| records::final_black_lead(game)),
    };
    format!("{}\n", serde_json::to_string(&record).expect("a game record serialises"))
}

/// Writes the record of `game` to `path`, in the format its name asks for.
pub fn save(game: &Game, names: [&str; 2], ending: Option<&MatchEnding>, path: &Path) -> Result<Format, SaveError> {
    let format = Format::for_path(path);
    let text = match format {
        Format::Json => json(game, names, ending),
        Format::Csa => ending.and_then(|e| e.csa_text(game.start(), game.moves(), names)).ok_or(SaveError::NoCsa)?,
    };
    write_atomic(path, text.as_bytes()).map_err(|source| SaveError::Io { path: path.display().to_string(), source })?;
    Ok(format)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::sfen;
    use crate::rules::{Color, GameRules, Position, VariantId};

    fn shogi_game(moves: &str) -> Game {
        let v = VariantId::SHOGI.variant();
        let mut game = Game::new(Position::start(VariantId::SHOGI), GameRules::default_for(v));
        for m in moves.split_whitespace() {
            game.play_text(m).unwrap();
        }
        game
    }

    #[test]
    fn json_keeps_start_moves_and_result() {
        let game = shogi_game("7g7f 3c3d");
        let line = json(&game, ["you", "engine"], Some(&MatchEnding::resignation(Color::White, game.position())));
        let record: MatchGame = serde_json::from_str(&line).unwrap();
        assert_eq!((record.black.as_str(), record.white.as_str()), ("you", "engine"));
        assert_eq!(sfen::parse(VariantId::SHOGI.variant(), &record.start).unwrap(), Position::start(VariantId::SHOGI));
        assert_eq!((record.moves.as_str(), record.result.as_str()), ("7g7f 3c3d", "1-0"));
        let unfinished: MatchGame = serde_json::from_str(&json(&game, ["a", "b"], None)).unwrap();
        assert_eq!((unfinished.result.as_str(), unfinished.reason.as_str()), ("*", "unfinished"));
    }

    #[test]
    fn descriptions_and_formats() {
        let outcome = MatchEnding::Rules { winner: Some(Color::Black), reason: crate::rules::EndReason::Checkmate };
        assert_eq!(describe(&outcome), "Black wins (checkmate)");
        assert_eq!(describe(&MatchEnding::Rules { winner: None, reason: crate::rules::EndReason::Repetition }), "draw (repetition)");
        let start = Position::start(VariantId::SHOGI);
        assert_eq!(describe(&MatchEnding::resignation(Color::White, &start)), "White resigns");
        assert_eq!(Format::for_path(Path::new("game.CSA")), Format::Csa);
        assert_eq!(Format::for_path(Path::new("game.json")), Format::Json);
    }

    #[test]
    fn a_resignation_is_mated_only_by_the_mated_side_to_move() {
        // White's king on 1a, mated by the gold on 1b that the pawn on 1c guards.
        let mated = sfen::parse(VariantId::SHOGI.variant(), "8k/8G/8P/9/9/9/9/9/4K4 w - 1").unwrap();
        assert_eq!(MatchEnding::resignation(Color::White, &mated), MatchEnding::Mated { loser: Color::White });
        assert_eq!(describe(&MatchEnding::resignation(Color::White, &mated)), "White resigns when mated");
        let black_resigns = MatchEnding::resignation(Color::Black, &mated);
        assert!(matches!(black_resigns, MatchEnding::Failure { loser: Color::Black, .. }), "{black_resigns:?}");
        let record: MatchGame = serde_json::from_str(&json(&shogi_game(""), ["a", "b"], Some(&black_resigns))).unwrap();
        assert!(record.adjudicated);
    }
}

//! One self-play game as it is stored: everything the trainer needs to rebuild and re-encode
//! every position through the rules (start position, moves), the search's targets for the
//! moves that got a full search, and how the game ended.

use serde::{Deserialize, Serialize};

use crate::rules::{Color, EndReason};

/// A whole game. Moves are in coordinate notation and positions in (generalised) SFEN, so a
/// record stays readable by a person and independent of the policy map's layout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayGame {
    /// Variant name (`shogi`, `chu-shogi`, ...).
    pub variant: String,
    /// Start position, SFEN.
    pub start: String,
    /// The moves played, in order.
    pub moves: Vec<MoveRecord>,
    /// How the game ended.
    pub result: GameResult,
    /// Id of the model that played (its checkpoint's file name and step).
    pub model: String,
    /// Seed of the game's random choices.
    pub seed: u64,
    /// Whether the game was played out: no resignation or adjudication ended it early (to audit
    /// how often they would have been wrong).
    pub resignation_disabled: bool,
}

/// One ply of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRecord {
    /// The move played, coordinate notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// The policy target of a full search: (move, weight) pairs over the legal moves that got
    /// weight (visit counts after pruning, or the improved policy of a Gumbel search), weights
    /// summing to 1. Empty for a move that got only a fast search, which is not a training target.
    pub policy: Vec<(String, f32)>,
    /// The root's value after the search: win, draw, loss probabilities for the side to move.
    pub root_wdl: [f32; 3],
}

/// The end of a game: the winner (`None` for a draw) and why.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameResult {
    /// Stored as `"black"`, `"white"` or `null`.
    #[serde(with = "winner_name")]
    pub winner: Option<Color>,
    pub reason: ReplayEnding,
}

impl GameResult {
    /// Whether the game was drawn because it reached the ply cap.
    pub fn at_ply_cap(&self) -> bool {
        self.reason == ReplayEnding::Rules(EndReason::PlyCap)
    }
}

/// A colour's name in files and messages: `black` or `white`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The winner of a [`GameResult`] as its [`color_name`], `null` for a draw.
mod winner_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::color_name;
    use crate::rules::Color;

    pub fn serialize<S: Serializer>(winner: &Option<Color>, serializer: S) -> Result<S::Ok, S::Error> {
        match winner {
            Some(color) => serializer.serialize_some(color_name(*color)),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Color>, D::Error> {
        let name: Option<String> = Option::deserialize(deserializer)?;
        name.map(|name| {
            Color::ALL
                .into_iter()
                .find(|&color| color_name(color) == name)
                .ok_or_else(|| serde::de::Error::custom(format!("unknown winner '{name}' (expected black, white or null)")))
        })
        .transpose()
    }
}

/// Why a recorded game ended: a rule of the game, or a resignation. Stored as the name
/// ([`ReplayEnding::name`]): `checkmate`, `ply-cap`, `resignation`, ...
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum ReplayEnding {
    /// A rule ended the game.
    Rules(EndReason),
    /// The loser resigned because the search judged the game lost.
    Resignation,
    /// Self-play adjudicated the game to the side that held a decisive material lead
    /// ([`crate::selfplay::SelfplayConfig::adjudicate_lead`]).
    Adjudication,
}

impl ReplayEnding {
    /// The name used in files and messages: the rule's name, or `resignation`.
    pub fn name(self) -> &'static str {
        match self {
            ReplayEnding::Rules(reason) => reason.name(),
            ReplayEnding::Resignation => "resignation",
            ReplayEnding::Adjudication => "adjudication",
        }
    }
}

impl From<ReplayEnding> for String {
    fn from(ending: ReplayEnding) -> String {
        ending.name().to_string()
    }
}

impl TryFrom<String> for ReplayEnding {
    type Error = String;

    fn try_from(name: String) -> Result<ReplayEnding, String> {
        let rule = EndReason::ALL.into_iter().find(|r| r.name() == name);
        match rule {
            Some(reason) => Ok(ReplayEnding::Rules(reason)),
            None if name == "resignation" => Ok(ReplayEnding::Resignation),
            None if name == "adjudication" => Ok(ReplayEnding::Adjudication),
            None => Err(format!("unknown ending '{name}'")),
        }
    }
}

impl From<EndReason> for ReplayEnding {
    fn from(reason: EndReason) -> ReplayEnding {
        ReplayEnding::Rules(reason)
    }
}

#[cfg(test)]
mod tests {
    use super::GameResult;
    use crate::rules::Color;

    /// The winner is stored by its lowercase name, `null` for a draw, and reads back the same.
    #[test]
    fn results_keep_the_stored_winner_names() {
        for (text, winner) in [
            (r#"{"winner":"black","reason":"resignation"}"#, Some(Color::Black)),
            (r#"{"winner":"white","reason":"checkmate"}"#, Some(Color::White)),
            (r#"{"winner":null,"reason":"ply-cap"}"#, None),
        ] {
            let result: GameResult = serde_json::from_str(text).unwrap();
            assert_eq!(result.winner, winner);
            assert_eq!(serde_json::to_string(&result).unwrap(), text);
        }
        let error = serde_json::from_str::<GameResult>(r#"{"winner":"Black","reason":"checkmate"}"#).unwrap_err();
        assert!(error.to_string().contains("unknown winner 'Black'"), "{error}");
    }
}

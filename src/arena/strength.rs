//! Strength measured while training (`[eval]`): every few checkpoints the newest network plays
//! a short colour-swapped match against fixed anchors (`alphabeta:1`, `alphabeta:2`, any player
//! the arena takes), and the value probe ([`super::probe`]) runs on every checkpoint, so that a
//! user sees within minutes whether a run learns the game. The network plays with its own
//! search, a player's search or both (`searches`). Matches are written to
//! `<run>/eval/step-<N>/<anchor>/` (results.json, games.jsonl), a player's search's to
//! `<run>/eval/step-<N>/player-search/<anchor>/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::network_player::NetworkFactory;
use super::player::{factory, Budget, PlayerSpec};
use super::{run_match, ArenaError, MatchConfig, Openings, PlayerFactory};
use crate::invalid_field::InvalidField;
use crate::mcts::SearchConfig;
use crate::rules::{GameRules, VariantId};

/// Games of an anchor match played at once.
const CONCURRENT_GAMES: usize = 8;

/// The search a network plays its anchor matches with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvalSearch {
    /// The network's own search, the search of self-play, without the hand-written aids
    /// ([`SearchConfig::default`]): what the network learned.
    #[default]
    Own,
    /// A player's search, the default of `play`, `usi`, `xboard` and `arena`
    /// ([`SearchConfig::for_play`]): the network with the aids.
    Player,
}

impl EvalSearch {
    /// The search's settings.
    pub fn search_config(self) -> SearchConfig {
        match self {
            EvalSearch::Own => SearchConfig::default(),
            EvalSearch::Player => SearchConfig::for_play(),
        }
    }

    fn is_own(&self) -> bool {
        *self == EvalSearch::Own
    }
}

/// The `[eval]` table of a run configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvalConfig {
    /// Anchor matches during training (off by default; on in the CPU recipes).
    pub enabled: bool,
    /// A match against each anchor every this many checkpoints.
    pub every: u64,
    /// Games per anchor (colour-swapped pairs, so an odd number is rounded up).
    pub games: u32,
    /// Simulations per move of the network.
    pub simulations: u32,
    /// Random plies from the start position before each pair of games.
    pub random_plies: u32,
    /// The anchors, as the arena's `--player` takes them.
    pub anchors: Vec<String>,
    /// The searches the network plays each anchor with: `own`, `player` or both.
    pub searches: Vec<EvalSearch>,
    /// Pairs of the value probe, run at every checkpoint (0: none).
    pub probe_pairs: usize,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig {
            enabled: false,
            every: 5,
            games: 10,
            simulations: 16,
            random_plies: 4,
            anchors: vec!["alphabeta:1".to_string(), "alphabeta:2".to_string()],
            searches: vec![EvalSearch::Own],
            probe_pairs: 64,
        }
    }
}

impl EvalConfig {
    /// Checks every field, naming the first one out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let fail = |name: &str, message: String| Err(InvalidField { field: format!("eval.{name}"), message });
        if self.every == 0 {
            return fail("every", "0 is not a number of checkpoints (at least 1)".to_string());
        }
        if !(1..=10_000).contains(&self.games) {
            return fail("games", format!("{} is not between 1 and 10000", self.games));
        }
        if !(1..=1_000_000).contains(&self.simulations) {
            return fail("simulations", format!("{} is not between 1 and 1000000", self.simulations));
        }
        if self.random_plies > 200 {
            return fail("random_plies", format!("{} is more than 200", self.random_plies));
        }
        if self.probe_pairs > 4096 {
            return fail("probe_pairs", format!("{} is more than 4096", self.probe_pairs));
        }
        for anchor in &self.anchors {
            if let Err(error) = anchor.parse::<PlayerSpec>() {
                return fail("anchors", format!("'{anchor}': {error}"));
            }
        }
        let repeated = self.searches.iter().enumerate().any(|(i, search)| self.searches[..i].contains(search));
        if self.searches.is_empty() || repeated {
            return fail("searches", "give \"own\", \"player\" or both, each once".to_string());
        }
        Ok(())
    }

    /// Whether the checkpoint of `step` plays the anchors (every `every`-th checkpoint).
    pub fn due(&self, step: u64, checkpoint_every: u64) -> bool {
        self.enabled && !self.anchors.is_empty() && step > 0 && (step / checkpoint_every.max(1)).is_multiple_of(self.every)
    }
}

/// The folder of the anchor matches of checkpoint `step`.
pub fn eval_dir(run_dir: &Path, step: u64) -> PathBuf {
    run_dir.join("eval").join(format!("step-{step:010}"))
}

/// A checkpoint's result against one anchor (`[eval]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnchorScore {
    /// The anchor, as the arena names it (`alphabeta:2`).
    pub anchor: String,
    /// The network's search (own in metrics written before a player's search was measured).
    #[serde(default, skip_serializing_if = "EvalSearch::is_own")]
    pub search: EvalSearch,
    pub games: u32,
    /// The network's wins, draws and losses (0 in metrics written before they were kept).
    #[serde(default)]
    pub wins: u32,
    #[serde(default)]
    pub draws: u32,
    #[serde(default)]
    pub losses: u32,
    /// Points per game of the network, 0 to 1.
    pub score: f64,
    /// Elo difference and half its 95% interval; `None` when the score is 0 or 1.
    pub elo: Option<f64>,
    pub elo_margin: Option<f64>,
}

impl AnchorScore {
    /// `alphabeta:2 50% (+0 =10 -0)`: the score with the games behind it, since a score of half
    /// may be all draws (at the self-play ply cap) or as many wins as losses.
    pub fn summary(&self) -> String {
        format!("{} {:.0}% (+{} ={} -{})", self.label(), 100.0 * self.score, self.wins, self.draws, self.losses)
    }

    /// The anchor, and the search when it is a player's: `alphabeta:2 (player's search)`.
    pub fn label(&self) -> String {
        match self.search {
            EvalSearch::Own => self.anchor.clone(),
            EvalSearch::Player => format!("{} (player's search)", self.anchor),
        }
    }
}

/// Plays the checkpoint at `metadata` (of training step `step`) against every anchor of
/// `config` with each of its searches, under `rules`; writes each match under [`eval_dir`] and
/// returns the scores.
pub fn play_anchors(
    config: &EvalConfig,
    variant: VariantId,
    rules: GameRules,
    metadata: &Path,
    step: u64,
    run_dir: &Path,
) -> Result<Vec<AnchorScore>, ArenaError> {
    let mut scores = Vec::new();
    for &search in &config.searches {
        let name = format!("step-{step}");
        let network: Arc<dyn PlayerFactory> = Arc::new(
            NetworkFactory::load(name.clone(), metadata, variant, search.search_config())
                .map_err(|error| ArenaError::Player { name: name.clone(), error })?,
        );
        let folder = match search {
            EvalSearch::Own => eval_dir(run_dir, step),
            EvalSearch::Player => eval_dir(run_dir, step).join("player-search"),
        };
        scores.extend(play_search_matches(config, variant, rules, &network, search, step, &folder)?);
    }
    Ok(scores)
}

/// The matches of one search: `network` against every anchor, written under `folder`.
fn play_search_matches(
    config: &EvalConfig,
    variant: VariantId,
    rules: GameRules,
    network: &Arc<dyn PlayerFactory>,
    search: EvalSearch,
    step: u64,
    folder: &Path,
) -> Result<Vec<AnchorScore>, ArenaError> {
    let mut scores = Vec::new();
    for anchor in &config.anchors {
        let spec: PlayerSpec = anchor
            .parse()
            .map_err(|e| ArenaError::Player { name: anchor.clone(), error: super::PlayerError::Unavailable(format!("{e}")) })?;
        let opponent = factory(&spec, variant).map_err(|error| ArenaError::Player { name: anchor.clone(), error })?;
        let anchor_folder =
            anchor.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect::<String>();
        let matches = MatchConfig {
            games: config.games,
            concurrency: CONCURRENT_GAMES,
            budget: Budget::Sims(config.simulations),
            openings: Openings { lines: Vec::new(), random_plies: config.random_plies },
            rules,
            seed: step,
            out: Some(folder.join(anchor_folder)),
            ..MatchConfig::new(variant)
        };
        let report = run_match(&matches, [network.clone(), opponent])?;
        let elo = report.summary.elo;
        let record = report.summary.players[0].total;
        scores.push(AnchorScore {
            anchor: anchor.clone(),
            search,
            games: report.summary.games,
            wins: record.wins,
            draws: record.draws,
            losses: record.losses,
            score: elo.map_or(0.0, |e| e.score),
            elo: elo.map(|e| e.elo).filter(|e| e.is_finite()),
            elo_margin: elo.map(|e| e.margin).filter(|m| m.is_finite()),
        });
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::{AnchorScore, EvalConfig, EvalSearch};

    /// An anchor score logged before wins, draws and losses were kept reads with none; the
    /// summary shows the games behind the score.
    #[test]
    fn anchor_scores_show_their_games() {
        let old: AnchorScore =
            serde_json::from_str(r#"{"anchor":"alphabeta:2","games":10,"score":0.5,"elo":0.0,"elo_margin":0.0}"#).unwrap();
        assert_eq!((old.wins, old.draws, old.losses), (0, 0, 0));
        let drawn = AnchorScore { draws: 10, ..old.clone() };
        assert_eq!(drawn.summary(), "alphabeta:2 50% (+0 =10 -0)");
        let split = AnchorScore { wins: 5, losses: 5, ..old };
        assert_eq!(split.summary(), "alphabeta:2 50% (+5 =0 -5)");
        assert!(serde_json::to_string(&split).unwrap().contains(r#""wins":5,"draws":0,"losses":5"#));
        // An old line's score is of the network's own search, which is not written out.
        assert_eq!(split.search, EvalSearch::Own);
        assert!(!serde_json::to_string(&split).unwrap().contains("search"));
        let player = AnchorScore { search: EvalSearch::Player, ..split };
        assert_eq!(player.summary(), "alphabeta:2 (player's search) 50% (+5 =0 -5)");
        let text = serde_json::to_string(&player).unwrap();
        assert!(text.contains(r#""search":"player""#), "{text}");
        assert_eq!(serde_json::from_str::<AnchorScore>(&text).unwrap(), player);
    }

    #[test]
    fn anchors_are_due_every_nth_checkpoint_and_checked() {
        let config = EvalConfig { enabled: true, every: 3, ..EvalConfig::default() };
        let due: Vec<u64> = (0..=1000).step_by(100).filter(|&s| config.due(s, 100)).collect();
        assert_eq!(due, vec![300, 600, 900]);
        assert!(!EvalConfig { enabled: false, ..config.clone() }.due(300, 100));
        let bad = EvalConfig { anchors: vec!["alphabeta:x".to_string()], ..EvalConfig::default() };
        assert_eq!(bad.validate().unwrap_err().field, "eval.anchors");
        assert_eq!(EvalConfig { every: 0, ..EvalConfig::default() }.validate().unwrap_err().field, "eval.every");
        for searches in [vec![], vec![EvalSearch::Player, EvalSearch::Player]] {
            assert_eq!(EvalConfig { searches, ..EvalConfig::default() }.validate().unwrap_err().field, "eval.searches");
        }
        assert!(EvalConfig { searches: vec![EvalSearch::Own, EvalSearch::Player], ..EvalConfig::default() }.validate().is_ok());
        assert!(EvalConfig::default().validate().is_ok());
    }
}

//! Gating during training (`[gating]`, off by default): each new checkpoint plays the network
//! self-play is using and replaces it only when it scores at least the threshold, as in
//! AlphaGo Zero. The trainer itself always goes on from its newest weights; gating decides only
//! which network generates the games. Each match's results and records are kept in
//! `<run>/gating/step-<N>/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::arena::network_player::NetworkFactory;
use crate::arena::{gate, ArenaError, GateDecision, MatchConfig, Openings, PlayerFactory};
use crate::config::RunConfig;
use crate::mcts::SearchConfig;
use crate::nn::checkpoint;
use crate::openings::read_openings;
use crate::selfplay::runner::game_rules;

/// Games of a gating match played at once (they share each network's batches).
const CONCURRENT_GAMES: usize = 8;

/// The folder of the gating match of checkpoint `step`.
pub fn match_dir(run_dir: &Path, step: u64) -> PathBuf {
    run_dir.join("gating").join(format!("step-{step:010}"))
}

/// Plays checkpoint `candidate` against checkpoint `incumbent` of the run in `run_dir` under
/// the run's `[gating]` settings, from the self-play openings (or the start position) followed
/// by random plies, with the self-play ply cap.
pub fn judge(config: &RunConfig, run_dir: &Path, candidate: u64, incumbent: u64) -> Result<GateDecision, ArenaError> {
    let variant = config.variant;
    let player = |step: u64| -> Result<Arc<dyn PlayerFactory>, ArenaError> {
        let name = format!("step-{step}");
        let path = checkpoint::metadata_file(run_dir, step);
        NetworkFactory::load(name.clone(), &path, variant, SearchConfig::default())
            .map(|factory| Arc::new(factory) as Arc<dyn PlayerFactory>)
            .map_err(|error| ArenaError::Player { name, error })
    };
    let rules = game_rules(variant, &config.selfplay);
    let lines = match &config.selfplay.openings {
        Some(path) => read_openings(variant, path, rules)?,
        None => Vec::new(),
    };
    let matches = MatchConfig {
        concurrency: CONCURRENT_GAMES,
        openings: Openings { lines, random_plies: config.gating.random_plies },
        rules,
        seed: candidate,
        out: Some(match_dir(run_dir, candidate)),
        ..MatchConfig::new(variant)
    };
    gate(player(candidate)?, player(incumbent)?, &config.gating, &matches)
}

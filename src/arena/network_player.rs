//! Checkpoint players: a trained network searching with MCTS. One [`Model`] (one batched
//! inference server) per checkpoint spec serves every game of a match, so concurrent games
//! fill the network's batches.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use super::player::{Budget, Player, PlayerError, PlayerFactory};
use crate::mcts::{Engine, Limits, Model, SearchConfig};
use crate::nn::InferenceConfig;
use crate::rules::{Color, Game, Move, VariantId};

/// Simulations per move when the match sets no budget.
pub const DEFAULT_SIMULATIONS: u32 = 64;

/// Inference settings of arena models: the CPU, batches as large as a match's concurrent games
/// usually make them.
const ARENA_INFERENCE: InferenceConfig =
    InferenceConfig { device: crate::nn::DeviceChoice::Cpu, precision: crate::nn::Precision::F32, batch_size: 32, max_wait_us: 500 };

/// Makes [`NetworkPlayer`]s of one checkpoint.
pub struct NetworkFactory {
    name: String,
    model: Arc<Model>,
    search: SearchConfig,
}

impl NetworkFactory {
    /// Loads the checkpoint at `path` (a metadata file or run folder) for `variant`; its players
    /// search with `search` (no exploration noise).
    pub fn load(name: String, path: &Path, variant: VariantId, search: SearchConfig) -> Result<NetworkFactory, PlayerError> {
        let model = Model::load(path, Some(variant), &ARENA_INFERENCE)
            .map_err(|e| PlayerError::Unavailable(format!("cannot load checkpoint {}: {e}", path.display())))?;
        Ok(NetworkFactory { name, model: Arc::new(model), search })
    }
}

impl PlayerFactory for NetworkFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_player(&self, seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        let engine = Engine::new(Box::new(self.model.evaluator()), self.search, seed);
        // The player holds the model too, so the server lives as long as any of its players.
        Ok(Box::new(NetworkPlayer { name: self.name.clone(), engine, _model: self.model.clone() }))
    }
}

/// Plays the most visited move of a search of its network.
pub struct NetworkPlayer {
    name: String,
    engine: Engine,
    _model: Arc<Model>,
}

impl Player for NetworkPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _game: &Game, _color: Color) -> Result<(), PlayerError> {
        self.engine.clear();
        Ok(())
    }

    fn choose(&mut self, game: &Game, budget: Budget) -> Result<Move, PlayerError> {
        let limits = match budget {
            Budget::Default => Limits::simulations(DEFAULT_SIMULATIONS),
            Budget::Sims(n) => Limits::simulations(n.max(1)),
            Budget::Time(t) => Limits::time(t.max(Duration::from_millis(1))),
        };
        let info = self
            .engine
            .think(game, &limits, &AtomicBool::new(false), &mut |_| {})
            .map_err(|e| PlayerError::Unavailable(format!("network evaluation failed: {e}")))?;
        info.best.ok_or(PlayerError::GameOver)
    }
}

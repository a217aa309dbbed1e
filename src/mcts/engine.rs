//! A searching player for one game at a time: [`Model`] (a checkpoint served by a batching
//! inference server, shared by any number of engines) and [`Engine`] (search limits, stop
//! flag, progress reports, tree reuse from move to move). Play, the protocols and the arena
//! use it.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::config::SearchConfig;
use super::evaluator::{Evaluator, EvaluatorError, NetInput, NetworkEvaluator};
use super::search::Search;
use crate::nn::checkpoint::{self, CheckpointError};
use crate::nn::device::on_fresh_thread;
use crate::nn::{DeviceError, Encoder, InferenceConfig, InferenceServer, Network, ServerClient, ServerError};
use crate::rules::{Game, Move, VariantId};

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// A network served by a batching inference server.
pub struct Model {
    server: InferenceServer,
    /// The served network's encoder (which names the variant).
    encoder: Encoder,
    id: Mutex<String>,
}

impl Model {
    /// Loads the checkpoint at `path` (a metadata file, or a run folder whose `latest` is
    /// followed); its variant comes from its metadata and must be `expected` when given.
    pub fn load(path: &Path, expected: Option<VariantId>, inference: &InferenceConfig) -> Result<Model, ModelError> {
        let (meta_path, metadata) = checkpoint::read_metadata(path)?;
        let variant = match expected {
            Some(variant) => variant,
            None => checkpoint::variant_of_metadata(&meta_path, &metadata)?,
        };
        let (network, id) = Model::load_network(&meta_path, variant, inference)?;
        Ok(Model::serve(network, inference, id))
    }

    /// Loads the network of the checkpoint metadata file `path` for `variant`, on the device and
    /// in the precision of `inference`, with its id for records (`<path>@<step>`).
    pub fn load_network(path: &Path, variant: VariantId, inference: &InferenceConfig) -> Result<(Network, String), ModelError> {
        let device = inference.device.resolve()?;
        // Built on a thread of its own so that no OpenMP team stays behind (see nn::bench).
        on_fresh_thread(|| {
            let (mut network, metadata) = checkpoint::load(path, variant, None, device)?;
            network.set_precision(inference.precision)?;
            Ok((network, format!("{}@{}", path.display(), metadata.step)))
        })
    }

    /// Serves `network` (already on its device and precision) under the name `id`.
    pub fn serve(network: Network, inference: &InferenceConfig, id: String) -> Model {
        let encoder = network.encoder();
        let server = InferenceServer::start(network, inference.batch_size, Duration::from_micros(inference.max_wait_us));
        Model { server, encoder, id: Mutex::new(id) }
    }

    /// The variant the model plays.
    pub fn variant(&self) -> VariantId {
        self.encoder.variant().id
    }

    /// A name for records: the checkpoint's metadata path and training step.
    pub fn id(&self) -> String {
        self.id.lock().expect("the id lock is never poisoned").clone()
    }

    /// A client of the model's inference server.
    pub fn client(&self) -> ServerClient {
        self.server.client()
    }

    /// Input buffers for this model's network (its encoding and policy map).
    pub fn input(&self) -> NetInput {
        NetInput::new(self.encoder.clone())
    }

    /// An evaluator over this model.
    pub fn evaluator(&self) -> NetworkEvaluator {
        NetworkEvaluator::new(self.client(), self.input())
    }

    /// Replaces the served network (same variant and encoding) under a new name.
    pub fn swap(&self, network: Network, id: String) -> Result<(), ServerError> {
        self.server.swap(network)?;
        *self.id.lock().expect("the id lock is never poisoned") = id;
        Ok(())
    }

    /// Positions evaluated and batches run so far.
    pub fn counts(&self) -> (u64, u64) {
        self.server.counts()
    }
}

/// When a search stops: after `simulations`, after `time`, whichever comes first (at least
/// one must be set; with neither, [`Limits::DEFAULT_SIMULATIONS`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub simulations: Option<u32>,
    pub time: Option<Duration>,
}

impl Limits {
    /// Simulations of a search with no limit given.
    pub const DEFAULT_SIMULATIONS: u32 = 800;
    /// The budget planned for a search limited by time only (Gumbel plans its halving on it).
    const TIME_ONLY_BUDGET: u32 = 1_000_000;

    /// A search of `n` simulations.
    pub fn simulations(n: u32) -> Limits {
        Limits { simulations: Some(n), time: None }
    }

    /// A search of at most `time`.
    pub fn time(time: Duration) -> Limits {
        Limits { simulations: None, time: Some(time) }
    }

    fn budget(&self) -> u32 {
        match (self.simulations, self.time) {
            (Some(n), _) => n,
            (None, Some(_)) => Self::TIME_ONLY_BUDGET,
            (None, None) => Self::DEFAULT_SIMULATIONS,
        }
    }
}

/// What a search found so far.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// The recommended move (None only when the game is over).
    pub best: Option<Move>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// Principal variation, the best move first.
    pub pv: Vec<Move>,
    /// Simulations of this search, and nodes in the tree (reused ones included).
    pub simulations: u32,
    pub nodes: usize,
    /// Deepest leaf and mean leaf depth.
    pub max_depth: usize,
    pub mean_depth: f32,
    pub elapsed: Duration,
}

impl SearchInfo {
    /// The value for the side to move, win 1 .. loss -1.
    pub fn value(&self) -> f32 {
        self.wdl[0] - self.wdl[2]
    }
}

/// How often a running search reports its progress.
const REPORT_EVERY: Duration = Duration::from_millis(500);

/// A player that searches: an evaluator, the search settings and the tree kept between moves.
pub struct Engine {
    evaluator: Box<dyn Evaluator + Send>,
    config: SearchConfig,
    search: Option<Search>,
    rng: ChaCha8Rng,
}

impl Engine {
    /// An engine searching with `evaluator` and `config`; `seed` drives its random choices.
    pub fn new(evaluator: Box<dyn Evaluator + Send>, config: SearchConfig, seed: u64) -> Engine {
        Engine { evaluator, config, search: None, rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The search settings.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Forgets the tree (a new game).
    pub fn clear(&mut self) {
        self.search = None;
    }

    /// Searches with `config` from now on; the tree kept between moves goes with the old
    /// settings, unless they are the same.
    pub fn set_config(&mut self, config: SearchConfig) {
        if config != self.config {
            self.config = config;
            self.search = None;
        }
    }

    /// Searches `game`'s current position within `limits` or until `stop` is set, calling
    /// `report` about twice a second; returns the final result. The tree of the previous
    /// search is reused when `game` continues the game searched before.
    pub fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        stop: &AtomicBool,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Result<SearchInfo, EvaluatorError> {
        let started = Instant::now();
        let search = search_for(&mut self.search, game, self.config);
        search.start(limits.budget(), false);
        let mut last_report = started;
        while search.select(&mut self.rng) {
            let (leaf, moves) = search.leaf();
            let evaluation = self.evaluator.evaluate(leaf, moves)?;
            search.expand(&evaluation);
            let now = Instant::now();
            if stop.load(Ordering::Relaxed) || limits.time.is_some_and(|t| now - started >= t) {
                break;
            }
            if now - last_report >= REPORT_EVERY {
                last_report = now;
                report(&info(search, started));
            }
        }
        Ok(info(search, started))
    }
}

/// The search for `game`: the previous one advanced through the moves played since, or a new one.
fn search_for<'a>(previous: &'a mut Option<Search>, game: &Game, config: SearchConfig) -> &'a mut Search {
    let reusable = previous.take().and_then(|mut search| {
        let known = search.game().moves().len();
        let same_line = search.game().start().hash() == game.start().hash()
            && game.moves().len() >= known
            && game.moves()[..known] == *search.game().moves();
        if !same_line {
            return None;
        }
        for &mv in &game.moves()[known..] {
            search.advance(mv).ok()?;
        }
        Some(search)
    });
    previous.insert(reusable.unwrap_or_else(|| Search::new(game.clone(), config)))
}

/// The report of `search` now.
fn info(search: &Search, started: Instant) -> SearchInfo {
    let (max_depth, mean_depth) = search.depth();
    SearchInfo {
        best: search.best_move(),
        wdl: search.root_wdl(),
        pv: search.principal_variation(),
        simulations: search.simulations(),
        nodes: search.tree().len(),
        max_depth,
        mean_depth,
        elapsed: started.elapsed(),
    }
}

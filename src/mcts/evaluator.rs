//! Evaluators: what gives a search its priors and values. The network, through the batching
//! inference server; or uniform priors and a drawn value, for tests of the search itself.

use crate::nn::{Encoder, Evaluation, PolicyMap, ServerClient, ServerError, UnmappedMove};
use crate::rules::{Game, Move};

/// Why an evaluation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvaluatorError {
    #[error("inference: {0}")]
    Server(#[from] ServerError),
    #[error(transparent)]
    Unmapped(#[from] UnmappedMove),
    #[error("a league game asked for the opponent's network, and this self-play has none")]
    NoOpponent,
}

/// Priors over a position's legal moves and its value.
pub trait Evaluator {
    /// Evaluates the current position of `game`, whose legal moves are `moves`: one prior per
    /// move, in that order, and win/draw/loss for the side to move.
    fn evaluate(&mut self, game: &Game, moves: &[Move]) -> Result<Evaluation, EvaluatorError>;
}

/// Equal priors and an even value: the search alone decides (tests, baselines).
#[derive(Copy, Clone, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, _game: &Game, moves: &[Move]) -> Result<Evaluation, EvaluatorError> {
        let prior = 1.0 / moves.len().max(1) as f32;
        Ok(Evaluation { priors: vec![prior; moves.len()], wdl: [0.0, 1.0, 0.0], moves_left: 0.0 })
    }
}

/// Turns a game into the network's inputs: its planes and its legal moves' policy indices,
/// in buffers reused from position to position.
#[derive(Clone, Debug)]
pub struct NetInput {
    encoder: Encoder,
    map: PolicyMap,
    planes: Vec<f32>,
    indices: Vec<u32>,
}

impl NetInput {
    /// Inputs written by `encoder` (the network's: [`crate::nn::Network::encoder`]).
    pub fn new(encoder: Encoder) -> NetInput {
        let planes = vec![0.0; encoder.len()];
        NetInput { map: PolicyMap::new(encoder.variant()), encoder, planes, indices: Vec::new() }
    }

    /// Encodes `game`'s current position and maps `moves`; read them with
    /// [`NetInput::planes`] and [`NetInput::indices`].
    pub fn prepare(&mut self, game: &Game, moves: &[Move]) -> Result<(), UnmappedMove> {
        self.encoder.encode_game(game, &mut self.planes);
        self.map.indices_into(moves, game.position().side_to_move(), &mut self.indices)
    }

    /// The planes of the last prepared position.
    pub fn planes(&self) -> &[f32] {
        &self.planes
    }

    /// The policy indices of its moves.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The policy map.
    pub fn policy_map(&self) -> &PolicyMap {
        &self.map
    }
}

/// The network, through a client of an inference server.
pub struct NetworkEvaluator {
    client: ServerClient,
    input: NetInput,
}

impl NetworkEvaluator {
    /// An evaluator sending positions prepared by `input` through `client`.
    pub fn new(client: ServerClient, input: NetInput) -> NetworkEvaluator {
        NetworkEvaluator { client, input }
    }
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&mut self, game: &Game, moves: &[Move]) -> Result<Evaluation, EvaluatorError> {
        self.input.prepare(game, moves)?;
        Ok(self.client.evaluate(self.input.planes(), self.input.indices())?)
    }
}

//! How a self-play worker gets its positions evaluated in batches: through the shared
//! inference server (many workers, one network thread), or with its own network in lockstep
//! rounds (one worker; the same batches every run, so seeded runs repeat exactly).

use crate::mcts::{EvaluatorError, Model, NetInput};
use crate::nn::{Evaluation, Inference, Network, ServerClient};
use crate::rules::{Game, Move};

/// Evaluates positions submitted with tags; answers come back in batches.
pub trait BatchEvaluator {
    /// Queues the evaluation of `game`'s position, whose legal moves are `moves`, by the
    /// learner's network or (`opponent`, league games) by the opponent's.
    fn submit(&mut self, tag: usize, game: &Game, moves: &[Move], opponent: bool) -> Result<(), EvaluatorError>;
    /// Waits for at least one answer and appends every answer available to `out`.
    fn collect(&mut self, out: &mut Vec<(usize, Evaluation)>) -> Result<(), EvaluatorError>;
}

/// Through the inference server: the learner's, and in league runs the opponent's.
pub struct ServerBatch {
    /// The learner's client, then the opponent's if there is one ...
    clients: Vec<ServerClient>,
    /// ... and the input buffers of each one's network.
    inputs: Vec<NetInput>,
}

impl ServerBatch {
    /// Submits positions to the `learner` model, and those of the opponent's searches to
    /// `opponent`.
    pub fn new(learner: &Model, opponent: Option<&Model>) -> ServerBatch {
        let models = || std::iter::once(learner).chain(opponent);
        ServerBatch { clients: models().map(Model::client).collect(), inputs: models().map(Model::input).collect() }
    }
}

impl BatchEvaluator for ServerBatch {
    fn submit(&mut self, tag: usize, game: &Game, moves: &[Move], opponent: bool) -> Result<(), EvaluatorError> {
        let side = opponent as usize;
        let (Some(client), Some(input)) = (self.clients.get_mut(side), self.inputs.get_mut(side)) else {
            return Err(EvaluatorError::NoOpponent);
        };
        input.prepare(game, moves)?;
        Ok(client.submit(tag as u64, input.planes(), input.indices())?)
    }

    fn collect(&mut self, out: &mut Vec<(usize, Evaluation)>) -> Result<(), EvaluatorError> {
        let (_, tag, evaluation) = ServerClient::receive_any(&mut self.clients)?;
        out.push((tag as usize, evaluation));
        for client in &mut self.clients {
            while let Some((tag, evaluation)) = client.try_receive()? {
                out.push((tag as usize, evaluation));
            }
        }
        Ok(())
    }
}

/// With a network of its own: everything submitted since the last collect is one batch.
pub struct DirectBatch {
    network: Network,
    input: NetInput,
    planes: Vec<f32>,
    legal: Vec<Vec<u32>>,
    tags: Vec<usize>,
    output: Inference,
}

impl DirectBatch {
    /// Evaluates with `network`.
    pub fn new(network: Network) -> DirectBatch {
        let input = NetInput::new(network.encoder());
        DirectBatch { network, input, planes: Vec::new(), legal: Vec::new(), tags: Vec::new(), output: Inference::default() }
    }
}

impl BatchEvaluator for DirectBatch {
    fn submit(&mut self, tag: usize, game: &Game, moves: &[Move], opponent: bool) -> Result<(), EvaluatorError> {
        if opponent {
            return Err(EvaluatorError::NoOpponent);
        }
        self.input.prepare(game, moves)?;
        self.planes.extend_from_slice(self.input.planes());
        self.legal.push(self.input.indices().to_vec());
        self.tags.push(tag);
        Ok(())
    }

    fn collect(&mut self, out: &mut Vec<(usize, Evaluation)>) -> Result<(), EvaluatorError> {
        if self.tags.is_empty() {
            return Err(crate::nn::ServerError::NothingOutstanding.into());
        }
        self.network.infer_into(&self.planes, &self.legal, &mut self.output);
        out.extend(self.tags.drain(..).enumerate().map(|(i, tag)| (tag, self.output.evaluation(i))));
        self.planes.clear();
        self.legal.clear();
        Ok(())
    }
}

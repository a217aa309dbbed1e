//! Minibatches: training samples from the replay window turned into tensors. The policy target
//! stays sparse (flat indices into `[B, policy size]` with their weights), so the batch costs
//! the same for tenjiku's 106,497 policy indices as for shogi's.

use tch::{Kind, Tensor};

use crate::nn::{Encoder, PolicyMap, UnmappedMove};
use crate::replay::TrainingSample;

/// One minibatch, on the CPU.
#[derive(Debug)]
pub struct Batch {
    /// `[B, planes, n, n]` inputs.
    pub input: Tensor,
    /// Flat indices `b * policy_size + move index` of the policy targets' moves ...
    pub policy_index: Tensor,
    /// ... and their weights (each sample's sum to 1).
    pub policy_weight: Tensor,
    /// `[B, 3]` win/draw/loss targets for the side to move.
    pub wdl: Tensor,
    /// `[B]` plies left in the game.
    pub moves_left: Tensor,
    /// Positions in the batch.
    pub size: usize,
}

/// Builds batches of one variant, reusing its buffers.
pub struct BatchBuilder {
    encoder: Encoder,
    map: PolicyMap,
    planes: Vec<f32>,
    moves: Vec<crate::rules::Move>,
    indices: Vec<u32>,
}

impl BatchBuilder {
    /// A builder of the inputs that `encoder` writes (the trained network's).
    pub fn new(encoder: Encoder) -> BatchBuilder {
        BatchBuilder {
            map: PolicyMap::new(encoder.variant()),
            encoder,
            planes: Vec::new(),
            moves: Vec::new(),
            indices: Vec::new(),
        }
    }

    /// The batch of `samples`.
    pub fn build(&mut self, samples: &[TrainingSample]) -> Result<Batch, UnmappedMove> {
        let b = samples.len();
        let len = self.encoder.len();
        self.planes.resize(b * len, 0.0);
        let policy_size = self.map.len() as i64;
        let mut flat = Vec::new();
        let mut weights = Vec::new();
        let mut wdl = Vec::with_capacity(3 * b);
        let mut moves_left = Vec::with_capacity(b);
        for (i, sample) in samples.iter().enumerate() {
            self.encoder.encode(&sample.position, &sample.context, &mut self.planes[i * len..(i + 1) * len]);
            self.moves.clear();
            self.moves.extend(sample.policy.iter().map(|&(mv, _)| mv));
            self.map.indices_into(&self.moves, sample.position.side_to_move(), &mut self.indices)?;
            flat.extend(self.indices.iter().map(|&k| i as i64 * policy_size + k as i64));
            weights.extend(sample.policy.iter().map(|&(_, w)| w));
            wdl.extend_from_slice(&sample.wdl);
            moves_left.push(sample.moves_left);
        }
        let n = self.encoder.board_size() as i64;
        Ok(Batch {
            input: Tensor::from_slice(&self.planes).view([b as i64, self.encoder.plane_count() as i64, n, n]),
            policy_index: Tensor::from_slice(&flat),
            policy_weight: Tensor::from_slice(&weights),
            wdl: Tensor::from_slice(&wdl).view([b as i64, 3]),
            moves_left: Tensor::from_slice(&moves_left).to_kind(Kind::Float),
            size: b,
        })
    }
}

//! Minibatches: training samples from the replay window turned into tensors. The policy targets
//! (the move's and the opponent's reply) stay sparse (flat indices into `[B, policy size]` with
//! their weights), so the batch costs the same for tenjiku's 106,497 policy indices as for
//! shogi's.

use ndarray::{Array1, Array2, Array4, Axis};
use rayon::prelude::*;
use tch::Tensor;

use crate::nn::{Encoder, PolicyMap, UnmappedMove};
use crate::replay::TrainingSample;
use crate::rules::{Color, Move};

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
    /// `[B]` plies left in the game (0 where the sample has no such target) ...
    pub moves_left: Tensor,
    /// ... and `[B]` 1 for the samples that have one, 0 for those of games cut off by the ply cap.
    pub moves_left_mask: Tensor,
    /// Flat indices `b * policy_size + move index` of the opponent's reply targets' moves
    /// (indexed for the side that replies) ...
    pub opponent_policy_index: Tensor,
    /// ... and their weights (the sum of each sample that has such a target is 1) ...
    pub opponent_policy_weight: Tensor,
    /// ... and `[B]` 1 for the samples that have one, 0 for the others.
    pub opponent_policy_mask: Tensor,
    /// `[B, 2]` material balance for the side to move, a few plies ahead and at the game's end.
    pub material: Tensor,
    /// `[B]` short-term value for the side to move.
    pub short_term_value: Tensor,
    /// Positions in the batch.
    pub size: usize,
}

/// Builds batches of one variant, encoding the samples in parallel.
pub struct BatchBuilder {
    encoder: Encoder,
    map: PolicyMap,
}

impl BatchBuilder {
    /// A builder of the inputs that `encoder` writes (the trained network's).
    pub fn new(encoder: Encoder) -> BatchBuilder {
        BatchBuilder { map: PolicyMap::new(encoder.variant()), encoder }
    }

    /// The batch of `samples`.
    pub fn build(&self, samples: &[TrainingSample]) -> Result<Batch, UnmappedMove> {
        let b = samples.len();
        let n = self.encoder.board_size();
        let mut planes = Array4::<f32>::zeros((b, self.encoder.plane_count(), n, n));
        // One pass over the samples: each one's planes, and the moves of its policy and its
        // opponent's reply policy as flat indices `b * policy size + move index`.
        let flat: Vec<(Vec<i64>, Vec<i64>)> = planes
            .axis_iter_mut(Axis(0))
            .into_par_iter()
            .zip(samples)
            .enumerate()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(moves, indices), (i, (mut sample_planes, sample))| {
                    let out = sample_planes.as_slice_mut().expect("a sample's planes are contiguous");
                    self.encoder.encode(&sample.position, &sample.context, out);
                    let policy = self.flat_indices(i, &sample.policy, sample.position.side_to_move(), moves, indices)?;
                    let reply = match &sample.opponent_policy {
                        Some(reply) => self.flat_indices(i, &reply.policy, reply.side, moves, indices)?,
                        None => Vec::new(),
                    };
                    Ok((policy, reply))
                },
            )
            .collect::<Result<_, UnmappedMove>>()?;
        let (policy_index, reply_index): (Vec<Vec<i64>>, Vec<Vec<i64>>) = flat.into_iter().unzip();
        let weights: Vec<f32> = samples.iter().flat_map(|s| s.policy.iter().map(|&(_, w)| w)).collect();
        let replies = samples.iter().filter_map(|s| s.opponent_policy.as_ref());
        let reply_weights: Vec<f32> = replies.flat_map(|reply| reply.policy.iter().map(|&(_, w)| w)).collect();
        let reply_mask = Array1::from_iter(samples.iter().map(|s| if s.opponent_policy.is_some() { 1.0f32 } else { 0.0 }));
        let wdl = Array2::from_shape_fn((b, 3), |(i, k)| samples[i].wdl[k]);
        let moves_left = Array1::from_iter(samples.iter().map(|s| s.moves_left.unwrap_or(0.0)));
        let moves_left_mask = Array1::from_iter(samples.iter().map(|s| if s.moves_left.is_some() { 1.0f32 } else { 0.0 }));
        let material = Array2::from_shape_fn((b, 2), |(i, k)| samples[i].material[k]);
        let short_term_value = Array1::from_iter(samples.iter().map(|s| s.short_term_value));
        Ok(Batch {
            input: tensor(&planes),
            policy_index: Tensor::from_slice(&policy_index.concat()),
            policy_weight: Tensor::from_slice(&weights),
            wdl: tensor(&wdl),
            moves_left: tensor(&moves_left),
            moves_left_mask: tensor(&moves_left_mask),
            opponent_policy_index: Tensor::from_slice(&reply_index.concat()),
            opponent_policy_weight: Tensor::from_slice(&reply_weights),
            opponent_policy_mask: tensor(&reply_mask),
            material: tensor(&material),
            short_term_value: tensor(&short_term_value),
            size: b,
        })
    }

    /// The moves of `policy`, played by `mover`, as flat indices `row * policy size + move
    /// index` (`moves` and `indices` are reused buffers).
    fn flat_indices(
        &self,
        row: usize,
        policy: &[(Move, f32)],
        mover: Color,
        moves: &mut Vec<Move>,
        indices: &mut Vec<u32>,
    ) -> Result<Vec<i64>, UnmappedMove> {
        let policy_size = self.map.len() as i64;
        moves.clear();
        moves.extend(policy.iter().map(|&(mv, _)| mv));
        self.map.indices_into(moves, mover, indices)?;
        Ok(indices.iter().map(|&k| row as i64 * policy_size + k as i64).collect())
    }
}

/// A tensor of the same shape and contents as `array` (in standard layout).
fn tensor<D: ndarray::Dimension, T: tch::kind::Element>(array: &ndarray::Array<T, D>) -> Tensor {
    Tensor::try_from(array).expect("an array in standard layout converts")
}

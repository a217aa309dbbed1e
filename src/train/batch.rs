//! Minibatches: training samples from the replay window turned into tensors. The policy target
//! stays sparse (flat indices into `[B, policy size]` with their weights), so the batch costs
//! the same for tenjiku's 106,497 policy indices as for shogi's.

use ndarray::{Array1, Array2, Array4, Axis};
use rayon::prelude::*;
use tch::Tensor;

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
        // One pass over the samples: each one's planes, and its policy moves as flat indices
        // `b * policy size + move index`.
        let policy_size = self.map.len() as i64;
        let flat: Vec<Vec<i64>> = planes
            .axis_iter_mut(Axis(0))
            .into_par_iter()
            .zip(samples)
            .enumerate()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(moves, indices), (i, (mut sample_planes, sample))| {
                    let out = sample_planes.as_slice_mut().expect("a sample's planes are contiguous");
                    self.encoder.encode(&sample.position, &sample.context, out);
                    moves.clear();
                    moves.extend(sample.policy.iter().map(|&(mv, _)| mv));
                    self.map.indices_into(moves, sample.position.side_to_move(), indices)?;
                    Ok(indices.iter().map(|&k| i as i64 * policy_size + k as i64).collect())
                },
            )
            .collect::<Result<_, UnmappedMove>>()?;
        let weights: Vec<f32> = samples.iter().flat_map(|s| s.policy.iter().map(|&(_, w)| w)).collect();
        let wdl = Array2::from_shape_fn((b, 3), |(i, k)| samples[i].wdl[k]);
        let moves_left = Array1::from_iter(samples.iter().map(|s| s.moves_left));
        Ok(Batch {
            input: tensor(&planes),
            policy_index: Tensor::from_slice(&flat.concat()),
            policy_weight: Tensor::from_slice(&weights),
            wdl: tensor(&wdl),
            moves_left: tensor(&moves_left),
            size: b,
        })
    }
}

/// A tensor of the same shape and contents as `array` (in standard layout).
fn tensor<D: ndarray::Dimension, T: tch::kind::Element>(array: &ndarray::Array<T, D>) -> Tensor {
    Tensor::try_from(array).expect("an array in standard layout converts")
}

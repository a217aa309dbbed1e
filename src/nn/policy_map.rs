//! The policy map of a variant: an injective map between the moves the rules can generate and
//! indices of a fixed-size policy output, derived from the variant's move shapes
//! ([`crate::rules::shapes::MoveShapes`]) and drop rules alone.
//!
//! Layout, AlphaZero style. Squares are indices in the mover's frame ([`super::frame`]); a
//! plane is `size * size` consecutive indices, so the network's policy convolution writes the
//! planes directly:
//!
//! 1. per one-leg displacement `(dx, forward)` of [`MoveShapes::one_leg`], two planes (without,
//!    then with promotion), indexed by the origin square;
//! 2. per droppable type of [`Variant::hand_types`], one plane indexed by the target square;
//! 3. per two-leg shape of [`MoveShapes::two_leg`], two planes (without, then with promotion),
//!    indexed by the origin square;
//! 4. after the planes, one index for [`Move::Pass`] if the variant has it and one for
//!    [`Move::Declare`] if the variant has the declaration.
//!
//! Shogi: 66 displacements, 7 drops: 139 planes of 81 squares plus the declaration, 11260
//! indices. Heian dai shogi: 98 displacements: 196 planes of 169 squares, 33124 indices.

use super::frame::Frame;
use crate::fnv::Fnv1a;
use crate::rules::shapes::MoveShapes;
use crate::rules::{Color, Move, PieceType, Variant};

/// Version of the layout rules, hashed into [`PolicyMap::hash`].
const POLICY_MAP_VERSION: u32 = 1;

/// Marks an unused slot of a lookup table.
const NONE: u16 = u16::MAX;

/// What one plane of the policy output stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PolicyPlane {
    /// A board move of displacement `(dx, forward)` from the plane's square.
    Step { dx: i8, forward: i8, promote: bool },
    /// A drop of `piece` on the plane's square.
    Drop { piece: PieceType },
    /// A two-leg move from the plane's square: first leg `first`, second leg `second`.
    TwoLeg { first: (i8, i8), second: (i8, i8), promote: bool },
}

/// A move that has no index in the policy map (not a move of this variant).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the move '{mv}' has no index in the {variant} policy map")]
pub struct UnmappedMove {
    /// The move in coordinate notation.
    pub mv: String,
    /// The variant name.
    pub variant: &'static str,
}

/// The policy map of one variant.
#[derive(Clone, Debug)]
pub struct PolicyMap {
    variant: &'static Variant,
    frame: Frame,
    planes: Vec<PolicyPlane>,
    /// `[(dx + n - 1) * (2n - 1) + forward + n - 1]`: index into [`MoveShapes::one_leg`].
    step_shape: Vec<u16>,
    /// First drop plane.
    drop_base: usize,
    /// `[piece type]`: position in [`Variant::hand_types`].
    drop_slot: Vec<u16>,
    /// The two-leg shapes, sorted, and the first two-leg plane.
    two_leg: Vec<((i8, i8), (i8, i8))>,
    two_leg_base: usize,
    pass: Option<usize>,
    declare: Option<usize>,
    len: usize,
    hash: u64,
}

impl PolicyMap {
    /// The policy map of `variant`.
    pub fn new(variant: &'static Variant) -> PolicyMap {
        let frame = Frame::new(variant);
        let n = frame.size() as i8;
        let span = 2 * frame.size() - 1;
        let MoveShapes { one_leg, two_leg, pass } = &variant.move_shapes;
        let mut planes = Vec::new();
        let mut step_shape = vec![NONE; span * span];
        for (i, &(dx, forward)) in one_leg.iter().enumerate() {
            assert!(dx.abs() < n && forward.abs() < n, "displacement ({dx}, {forward}) longer than the board");
            step_shape[(dx + n - 1) as usize * span + (forward + n - 1) as usize] = i as u16;
            planes.extend([false, true].map(|promote| PolicyPlane::Step { dx, forward, promote }));
        }
        let drop_base = planes.len();
        let mut drop_slot = vec![NONE; variant.spec.pieces.len()];
        for (slot, &piece) in variant.hand_types.iter().enumerate() {
            drop_slot[piece.index()] = slot as u16;
            planes.push(PolicyPlane::Drop { piece });
        }
        let two_leg_base = planes.len();
        let mut sorted_two_leg = two_leg.clone();
        sorted_two_leg.sort_unstable();
        sorted_two_leg.dedup();
        for &(first, second) in &sorted_two_leg {
            planes.extend([false, true].map(|promote| PolicyPlane::TwoLeg { first, second, promote }));
        }
        let mut len = planes.len() * frame.squares();
        let mut extra = |present: bool| {
            present.then(|| {
                len += 1;
                len - 1
            })
        };
        let pass = extra(*pass);
        let declare = extra(variant.spec.declaration);
        let mut map = PolicyMap {
            variant,
            frame,
            planes,
            step_shape,
            drop_base,
            drop_slot,
            two_leg: sorted_two_leg,
            two_leg_base,
            pass,
            declare,
            len,
            hash: 0,
        };
        map.hash = map.compute_hash();
        map
    }

    fn compute_hash(&self) -> u64 {
        let mut h = Fnv1a::default();
        h.write_str(&format!("policy map v{POLICY_MAP_VERSION} {} {}x{}", self.variant.name(), self.frame.size(), self.frame.size()));
        for plane in &self.planes {
            let text = match *plane {
                PolicyPlane::Step { dx, forward, promote } => format!("step {dx} {forward} {promote}"),
                PolicyPlane::Drop { piece } => format!("drop {}", self.variant.piece_spec(piece).abbr),
                PolicyPlane::TwoLeg { first, second, promote } => format!("two-leg {first:?} {second:?} {promote}"),
            };
            h.write_str(&text);
        }
        h.write_str(&format!("pass {:?} declare {:?} len {}", self.pass, self.declare, self.len));
        h.finish()
    }

    /// The variant.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// Size of the policy output.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: every variant has moves. (For the `len` convention.)
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The planes in order.
    pub fn planes(&self) -> &[PolicyPlane] {
        &self.planes
    }

    /// Indices outside the planes: pass and declaration, where the variant has them.
    pub fn extras(&self) -> usize {
        self.len - self.planes.len() * self.frame.squares()
    }

    /// Identifies the layout (stored in checkpoints).
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The index of `mv` played by `mover`, or `None` for a move the variant cannot generate.
    #[inline]
    pub fn index(&self, mv: Move, mover: Color) -> Option<usize> {
        let area = self.frame.squares();
        match mv {
            Move::Normal { from, to, promote } => {
                let (f, t) = (self.frame.index(mover, from), self.frame.index(mover, to));
                let shape = self.step_shape(self.frame.displacement(f, t))?;
                Some((2 * shape + promote as usize) * area + f)
            }
            Move::Drop { piece, to } => {
                let slot = *self.drop_slot.get(piece.index())?;
                (slot != NONE).then(|| (self.drop_base + slot as usize) * area + self.frame.index(mover, to))
            }
            Move::TwoLeg { from, mid, to, promote } => {
                let (f, m, t) = (self.frame.index(mover, from), self.frame.index(mover, mid), self.frame.index(mover, to));
                let shape = (self.frame.displacement(f, m), self.frame.displacement(m, t));
                let j = self.two_leg.binary_search(&shape).ok()?;
                Some((self.two_leg_base + 2 * j + promote as usize) * area + f)
            }
            Move::Pass => self.pass,
            Move::Declare => self.declare,
        }
    }

    /// The move of `mover` at `index`, or `None` where the index stands for no move (a
    /// displacement leading off the board, an index past the end).
    pub fn decode(&self, index: usize, mover: Color) -> Option<Move> {
        let area = self.frame.squares();
        if index >= self.planes.len() * area {
            return [(self.pass, Move::Pass), (self.declare, Move::Declare)]
                .into_iter()
                .find_map(|(at, mv)| (at == Some(index)).then_some(mv));
        }
        let (plane, sq) = (index / area, index % area);
        let square = |i| self.frame.square(mover, i);
        Some(match self.planes[plane] {
            PolicyPlane::Step { dx, forward, promote } => {
                let to = self.frame.step(sq, (dx, forward))?;
                Move::Normal { from: square(sq), to: square(to), promote }
            }
            PolicyPlane::Drop { piece } => Move::Drop { piece, to: square(sq) },
            PolicyPlane::TwoLeg { first, second, promote } => {
                let mid = self.frame.step(sq, first)?;
                let to = self.frame.step(mid, second)?;
                Move::TwoLeg { from: square(sq), mid: square(mid), to: square(to), promote }
            }
        })
    }

    /// Writes the indices of `moves` (played by `mover`) into `out`, replacing its contents.
    pub fn indices_into(&self, moves: &[Move], mover: Color, out: &mut Vec<u32>) -> Result<(), UnmappedMove> {
        out.clear();
        for &mv in moves {
            let index = self
                .index(mv, mover)
                .ok_or_else(|| UnmappedMove { mv: crate::rules::notation::coord::write(self.variant, mv), variant: self.variant.name() })?;
            out.push(index as u32);
        }
        Ok(())
    }

    #[inline]
    fn step_shape(&self, (dx, forward): (i8, i8)) -> Option<usize> {
        let n = self.frame.size() as isize;
        let span = 2 * n - 1;
        let shape = self.step_shape[((dx as isize + n - 1) * span + forward as isize + n - 1) as usize];
        (shape != NONE).then_some(shape as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::VariantId;

    #[test]
    fn sizes_follow_the_variant_data() {
        let shogi = PolicyMap::new(VariantId::SHOGI.variant());
        assert_eq!(shogi.planes().len(), 139);
        assert_eq!(shogi.len(), 139 * 81 + 1);
        assert_eq!(shogi.extras(), 1);
        let heian = PolicyMap::new(VariantId::HEIAN_DAI_SHOGI.variant());
        assert_eq!(heian.planes().len(), 196);
        assert_eq!(heian.len(), 196 * 169);
        assert_ne!(shogi.hash(), heian.hash());
        assert_eq!(shogi.hash(), PolicyMap::new(VariantId::SHOGI.variant()).hash());
    }
}

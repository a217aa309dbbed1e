//! Zobrist keys: one random 64-bit key per piece on a square, hand count, side to move and
//! counter-strike square, whose exclusive or is a position's hash. The keys of a variant are
//! the same on every run (checkpoints and replays may hold hashes).

use super::geometry::{Color, Square, MAX_CELLS};
use super::piece::{Cell, PieceType};
use crate::fnv;
use crate::splitmix::{self, SplitMix64};

/// Hand counts get keys for 0..MAX_HAND_KEYS pieces.
pub(crate) const MAX_HAND_KEYS: usize = 40;

/// The Zobrist keys of one variant.
#[derive(Debug)]
pub(crate) struct Zobrist {
    /// `[(colour * faces + face) * MAX_CELLS + cell]`.
    pieces: Vec<u64>,
    /// Number of piece faces (two per piece type).
    faces: usize,
    /// `[(colour * piece types + type) * MAX_HAND_KEYS + count]`; count 0 has key 0, so that an
    /// empty hand contributes nothing.
    hands: Vec<u64>,
    /// Number of piece types.
    piece_types: usize,
    /// White to move.
    side: u64,
    /// `[cell]`: chu's counter-strike square.
    counter_strike: Vec<u64>,
}

impl Zobrist {
    /// The keys of the variant called `name`, whose piece table has `piece_types` rows, drawn
    /// from a generator seeded with the name.
    pub(crate) fn new(name: &str, piece_types: usize) -> Zobrist {
        let mut keys = SplitMix64::new(0x5EED_0F5E_0000_0000 ^ fnv::hash(name.as_bytes()).wrapping_mul(splitmix::GAMMA));
        let faces = 2 * piece_types;
        let pieces = (0..2 * faces * MAX_CELLS).map(|_| keys.next_u64()).collect();
        let hands = (0..2 * piece_types * MAX_HAND_KEYS).map(|i| if i % MAX_HAND_KEYS == 0 { 0 } else { keys.next_u64() }).collect();
        let side = keys.next_u64();
        let counter_strike = (0..MAX_CELLS).map(|_| keys.next_u64()).collect();
        Zobrist { pieces, faces, hands, piece_types, side, counter_strike }
    }

    /// The key of `cell` (a piece) on `sq`.
    #[inline]
    pub(crate) fn piece(&self, cell: Cell, sq: Square) -> u64 {
        let code = cell.color().index() * self.faces + cell.face().index();
        self.pieces[code * MAX_CELLS + sq.index()]
    }

    /// The key of `color` holding `count` pieces of `ptype` in hand.
    #[inline]
    pub(crate) fn hand(&self, color: Color, ptype: PieceType, count: u8) -> u64 {
        self.hands[(color.index() * self.piece_types + ptype.index()) * MAX_HAND_KEYS + count as usize]
    }

    /// The key of chu's counter-strike square being `sq`.
    #[inline]
    pub(crate) fn counter_strike(&self, sq: Square) -> u64 {
        self.counter_strike[sq.index()]
    }

    /// The key of White to move.
    #[inline]
    pub(crate) fn side(&self) -> u64 {
        self.side
    }
}

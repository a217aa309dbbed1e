//! The board as the side to move sees it. Every tensor layout in [`super`] uses this frame:
//! square `row * size + column`, row 0 the mover's far side (its forward direction is towards
//! row 0), column 0 the mover's left. For Black that is the board as diagrams print it; for
//! White it is the board turned 180 degrees.

use crate::rules::geometry::MAX_CELLS;
use crate::rules::{Color, Square, Variant};

/// Marks a mailbox cell that is not on the board.
const OFF_BOARD: u16 = u16::MAX;

/// Square tables of one variant's board in both players' frames.
#[derive(Clone, Debug)]
pub struct Frame {
    size: usize,
    /// `[colour][mailbox cell]`: index in that colour's frame, or [`OFF_BOARD`].
    index: [[u16; MAX_CELLS]; 2],
    /// `[colour][frame index]`: the mailbox square.
    square: [Vec<Square>; 2],
}

impl Frame {
    /// The frame tables of `variant`'s board.
    pub fn new(variant: &Variant) -> Frame {
        let g = &variant.geometry;
        let n = g.size;
        let mut index = [[OFF_BOARD; MAX_CELLS]; 2];
        let mut square = [vec![Square::from_index(0); n * n], vec![Square::from_index(0); n * n]];
        for &sq in g.squares() {
            let (x, y) = g.xy(sq);
            for color in Color::ALL {
                let i = match color {
                    Color::Black => y * n + x,
                    Color::White => (n - 1 - y) * n + (n - 1 - x),
                };
                index[color.index()][sq.index()] = i as u16;
                square[color.index()][i] = sq;
            }
        }
        Frame { size: n, index, square }
    }

    /// Files (and ranks) of the board.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of squares, `size * size`.
    #[inline]
    pub fn squares(&self) -> usize {
        self.size * self.size
    }

    /// The index of the on-board square `sq` in `mover`'s frame.
    #[inline]
    pub fn index(&self, mover: Color, sq: Square) -> usize {
        let i = self.index[mover.index()][sq.index()];
        debug_assert!(i != OFF_BOARD, "square {sq:?} is not on the board");
        i as usize
    }

    /// The square at `index` of `mover`'s frame.
    #[inline]
    pub fn square(&self, mover: Color, index: usize) -> Square {
        self.square[mover.index()][index]
    }

    /// The square `(dx, forward)` away from frame square `index`, as `mover` counts them, if on
    /// the board.
    #[inline]
    pub fn step(&self, index: usize, (dx, forward): (i8, i8)) -> Option<usize> {
        let n = self.size as isize;
        let (x, y) = ((index % self.size) as isize + dx as isize, (index / self.size) as isize - forward as isize);
        ((0..n).contains(&x) && (0..n).contains(&y)).then_some((y * n + x) as usize)
    }

    /// The displacement `(dx, forward)` from frame square `from` to frame square `to`.
    #[inline]
    pub fn displacement(&self, from: usize, to: usize) -> (i8, i8) {
        let n = self.size;
        ((to % n) as i8 - (from % n) as i8, (from / n) as i8 - (to / n) as i8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::VariantId;

    #[test]
    fn frames_agree_with_the_rules_displacement() {
        for id in VariantId::ALL {
            let v = id.variant();
            let frame = Frame::new(v);
            for color in Color::ALL {
                for (i, &sq) in frame.square[color.index()].iter().enumerate() {
                    assert_eq!(frame.index(color, sq), i);
                }
                for &a in v.geometry.squares() {
                    for &b in v.geometry.squares() {
                        let (fa, fb) = (frame.index(color, a), frame.index(color, b));
                        let d = frame.displacement(fa, fb);
                        assert_eq!(d, v.geometry.displacement(color, a, b));
                        assert_eq!(frame.step(fa, d), Some(fb));
                    }
                }
            }
        }
    }

    #[test]
    fn white_sees_the_board_turned_round() {
        let v = VariantId::SHOGI.variant();
        let frame = Frame::new(v);
        let g = &v.geometry;
        let name = |color, i| g.square_name(frame.square(color, i));
        assert_eq!(name(Color::Black, 0), "9a");
        assert_eq!(name(Color::White, 0), "1i");
        assert_eq!(name(Color::White, 80), "9a");
        assert_eq!(frame.step(40, (0, 5)), None);
    }
}

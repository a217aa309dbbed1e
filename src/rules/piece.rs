//! Pieces and how piece movement is described as data.
//!
//! A variant's piece table lists piece *types*; each type has an unpromoted face and, when it
//! promotes, a promoted face. A face's movement is a [`Movement`]: rides (steps, limited-range
//! and unlimited slides along directions) plus leaps (jumps to a fixed offset). Directions are
//! written for Black as `(dx, forward)` and mirrored for White; every piece is left-right
//! symmetric, so the sign of `dx` never matters.

use super::geometry::Color;

/// Index of a piece type in its variant's piece table.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceType(u8);

impl PieceType {
    /// The piece type of row `index` of a piece table. Panics unless a [`Cell`] can hold it
    /// (`index < MAX_FACES / 2`); whether the variant's table has that row is checked where
    /// pieces enter a position ([`super::Position::from_parts`]).
    #[inline]
    pub fn new(index: usize) -> PieceType {
        assert!(index < MAX_FACES / 2, "piece type {index} out of range");
        PieceType(index as u8)
    }

    /// The index into the variant's piece table.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One face of a piece type, unpromoted or promoted: index `2 * type + promoted`. Each face
/// has its own movement and properties (royal, lion, fire demon).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Face(u8);

impl Face {
    /// The unpromoted (`promoted == false`) or promoted face of `ptype`.
    #[inline]
    pub fn new(ptype: PieceType, promoted: bool) -> Face {
        Face(ptype.0 << 1 | u8::from(promoted))
    }

    /// The face with index `index`, which must be below [`MAX_FACES`].
    #[inline]
    pub(crate) fn from_index(index: usize) -> Face {
        debug_assert!(index < MAX_FACES);
        Face(index as u8)
    }

    /// `2 * type + promoted`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The piece type this is a face of.
    #[inline]
    pub fn ptype(self) -> PieceType {
        PieceType(self.0 >> 1)
    }

    /// Whether this is the promoted face.
    #[inline]
    pub fn is_promoted(self) -> bool {
        self.0 & 1 == 1
    }
}

/// A set of [`Face`]s.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FaceSet(u128);

const _: () = assert!(MAX_FACES <= u128::BITS as usize, "a FaceSet holds every face");

impl FaceSet {
    /// The empty set.
    pub const EMPTY: FaceSet = FaceSet(0);

    /// Adds `face`.
    #[inline]
    pub fn insert(&mut self, face: Face) {
        self.0 |= 1 << face.0;
    }

    /// Whether `face` is in the set.
    #[inline]
    pub fn contains(self, face: Face) -> bool {
        self.0 & (1 << face.0) != 0
    }

    /// Whether the set has no face.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl FromIterator<Face> for FaceSet {
    fn from_iter<I: IntoIterator<Item = Face>>(faces: I) -> FaceSet {
        let mut set = FaceSet::EMPTY;
        faces.into_iter().for_each(|face| set.insert(face));
        set
    }
}

/// A piece as it stands on a square: owner, type and whether it is promoted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub color: Color,
    pub ptype: PieceType,
    pub promoted: bool,
}

/// The content of one mailbox cell, packed into a byte: [`Cell::EMPTY`], [`Cell::WALL`] or a
/// piece (`1 + face + 128 * colour`, where `face = 2 * type + promoted`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Cell(u8);

impl Cell {
    /// An empty square.
    pub const EMPTY: Cell = Cell(0);
    /// A cell off the board.
    pub const WALL: Cell = Cell(255);

    /// The cell holding `piece`.
    #[inline]
    pub fn from_piece(piece: Piece) -> Cell {
        Cell(1 + Face::new(piece.ptype, piece.promoted).0 + ((piece.color as u8) << 7))
    }

    /// Whether the cell holds a piece.
    #[inline]
    pub fn is_piece(self) -> bool {
        self.0 != 0 && self.0 != 255
    }

    /// Owner of the piece in this cell (only meaningful for pieces).
    #[inline]
    pub fn color(self) -> Color {
        if self.0 & 128 != 0 {
            Color::White
        } else {
            Color::Black
        }
    }

    /// Whether the cell holds a piece of `color`'s opponent: one range test, as Black's pieces
    /// are the values 1 to 127 and White's 128 to 254.
    #[inline]
    pub fn is_enemy_of(self, color: Color) -> bool {
        let first = match color {
            Color::Black => 128,
            Color::White => 1,
        };
        self.0.wrapping_sub(first) < 127
    }

    /// The face of the piece in this cell (only meaningful for pieces).
    #[inline]
    pub fn face(self) -> Face {
        Face((self.0 - 1) & 127)
    }

    /// The piece in this cell, if any.
    #[inline]
    pub fn piece(self) -> Option<Piece> {
        self.is_piece().then(|| Piece { color: self.color(), ptype: self.face().ptype(), promoted: self.face().is_promoted() })
    }

    /// The same piece turned over to its promoted face.
    #[inline]
    pub fn promoted(self) -> Cell {
        Cell(self.0 + (1 - ((self.0 - 1) & 1)))
    }

    /// The same piece turned back to its unpromoted face.
    #[inline]
    pub fn unpromoted(self) -> Cell {
        Cell(self.0 - ((self.0 - 1) & 1))
    }
}

/// How many faces a [`Cell`] can tell apart (its face has seven bits).
pub const MAX_FACES: usize = 128;

/// A direction for Black: `(dx, forward)`.
pub type Dir = (i8, i8);

/// Sliding or stepping along directions for at most `range` squares (1 = a step), each square
/// on the way empty except possibly the last, which may hold an enemy piece to capture.
#[derive(Copy, Clone, Debug)]
pub struct Ride {
    pub dirs: &'static [Dir],
    pub range: u8,
}

/// Range of an unlimited slide.
pub const UNLIMITED: u8 = u8::MAX;

/// How one face of a piece moves: ordinary rides and leaps plus the special move kinds of the
/// large variants, each implemented once in the move generator.
#[derive(Copy, Clone, Debug)]
pub struct Movement {
    pub rides: &'static [Ride],
    /// Jumps to `(dx, forward)` whatever stands in between.
    pub leaps: &'static [Dir],
    /// Lion power (rules README section 2), beyond the steps and jumps listed in `rides` and
    /// `leaps`: igui, double capture, hit-and-run and the pass.
    pub lion: Option<LionPower>,
    /// Rides that pass over their first square whatever stands there and go on from the second
    /// (the heavenly tetrarch); `range` counts from the origin.
    pub skip_rides: &'static [Ride],
    /// Area move of up to this many king steps through empty squares (0: none).
    pub area: u8,
    /// Range-jumping rank (0: none): captures by flying over lower-ranked pieces along the
    /// piece's unlimited rides (tenjiku-shogi.md §5.3).
    pub jump_rank: u8,
    /// Fire demon burning (tenjiku-shogi.md §5.4).
    pub burns: bool,
}

impl Movement {
    /// No movement at all; the base for struct-update syntax.
    pub const NONE: Movement = Movement { rides: &[], leaps: &[], lion: None, skip_rides: &[], area: 0, jump_rank: 0, burns: false };

    /// The number `n` of last ranks on which a piece with this movement could never move
    /// again: the smallest forward distance of its moves when all of them go forward, else 0.
    /// (Pawn and lance: 1, knight: 2.)
    pub fn dead_ranks(&self) -> usize {
        let forwards = self.rides.iter().flat_map(|r| r.dirs.iter()).chain(self.leaps.iter()).map(|&(_, f)| f);
        forwards.map(|f| f.max(0) as usize).min().unwrap_or(0)
    }

    /// Every displacement a one-leg move of this movement can have on a board of `size`, once
    /// per move kind that reaches it (rides, leaps, skipping rides, area moves).
    pub fn one_leg_displacements(&self, size: usize) -> Vec<Dir> {
        let longest = size as i8 - 1;
        let mut out = Vec::new();
        let mut ride = |dirs: &[Dir], first: i8, range: u8| {
            for &(dx, f) in dirs {
                for k in first..=longest.min(range.min(i8::MAX as u8) as i8) {
                    out.push((dx * k, f * k));
                }
            }
        };
        for r in self.rides {
            ride(r.dirs, 1, r.range);
        }
        for r in self.skip_rides {
            ride(r.dirs, 2, r.range);
        }
        out.extend_from_slice(self.leaps);
        let area = self.area as i8;
        for dx in -area..=area {
            for f in -area..=area {
                if (dx, f) != (0, 0) {
                    out.push((dx, f));
                }
            }
        }
        out
    }
}

/// Which two-step lion moves a piece has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LionPower {
    /// The full lion: a first step in any direction, a second step in any direction.
    Full,
    /// Lion power restricted to lines (horned falcon forward, soaring eagle forward
    /// diagonals): a first step along the line, then only on along the same line or back.
    Lines(&'static [Dir]),
    /// Capture on any adjacent square without moving, and nothing else (heavenly tetrarch).
    Igui,
}

/// The promoted face of a piece.
#[derive(Copy, Clone, Debug)]
pub struct Promotion {
    /// English name (`Dragon`, `Crown prince`).
    pub name: &'static str,
    pub movement: Movement,
    /// Whether the promoted piece is royal (chu's crown prince).
    pub royal: bool,
}

/// A non-royal promoted face.
pub const fn promotes_to(name: &'static str, movement: Movement) -> Option<Promotion> {
    Some(Promotion { name, movement, royal: false })
}

/// One row of a variant's piece table.
#[derive(Copy, Clone, Debug)]
pub struct PieceSpec {
    /// English name of the unpromoted piece.
    pub name: &'static str,
    /// Abbreviation of the unpromoted piece (`R`, `FD`); a promoted piece is written `+` and this.
    pub abbr: &'static str,
    /// Movement of the unpromoted face.
    pub movement: Movement,
    /// The promoted face, if the piece promotes.
    pub promotion: Option<Promotion>,
    /// Losing every royal piece loses the game.
    pub royal: bool,
    /// Points in the 27-point declaration count (shogi; 0 where unused).
    pub points: u8,
}

/// Direction sets, for Black.
pub mod dirs {
    use super::Dir;
    pub const FORWARD: &[Dir] = &[(0, 1)];
    pub const VERTICAL: &[Dir] = &[(0, 1), (0, -1)];
    pub const SIDEWAYS: &[Dir] = &[(1, 0), (-1, 0)];
    pub const ORTHOGONAL: &[Dir] = &[(0, 1), (0, -1), (1, 0), (-1, 0)];
    pub const DIAGONAL: &[Dir] = &[(1, 1), (-1, 1), (1, -1), (-1, -1)];
    pub const FORWARD_DIAGONAL: &[Dir] = &[(1, 1), (-1, 1)];
    pub const ALL: &[Dir] = &[(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    /// Orthogonal steps plus the two forward diagonals: the gold general.
    pub const GOLD: &[Dir] = &[(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1)];
    /// Diagonal steps plus straight forward: the silver general.
    pub const SILVER: &[Dir] = &[(1, 1), (-1, 1), (1, -1), (-1, -1), (0, 1)];
    /// Forward, forward diagonals and sideways: the Heian iron general.
    pub const IRON: &[Dir] = &[(0, 1), (1, 1), (-1, 1), (1, 0), (-1, 0)];
    /// The two knight jumps.
    pub const KNIGHT: &[Dir] = &[(1, 2), (-1, 2)];
    /// The 16 squares two king steps away: the lion's jumps.
    pub const LION_JUMPS: &[Dir] = &[
        (-2, -2),
        (-1, -2),
        (0, -2),
        (1, -2),
        (2, -2),
        (-2, -1),
        (2, -1),
        (-2, 0),
        (2, 0),
        (-2, 1),
        (2, 1),
        (-2, 2),
        (-1, 2),
        (0, 2),
        (1, 2),
        (2, 2),
    ];
    /// Jumps to the second square orthogonally (dabbaba).
    pub const ORTHOGONAL_TWO: &[Dir] = &[(0, 2), (0, -2), (2, 0), (-2, 0)];
    /// Jumps to the second square diagonally (alfil).
    pub const DIAGONAL_TWO: &[Dir] = &[(2, 2), (-2, 2), (2, -2), (-2, -2)];
    /// Straight backward.
    pub const BACKWARD: &[Dir] = &[(0, -1)];
    /// The two backward diagonals.
    pub const BACKWARD_DIAGONAL: &[Dir] = &[(1, -1), (-1, -1)];
    /// Every direction but straight backward: the drunk elephant.
    pub const ELEPHANT: &[Dir] = &[(0, 1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    /// Every direction but straight forward: the blind tiger.
    pub const TIGER: &[Dir] = &[(0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    /// Every direction but sideways: the ferocious leopard.
    pub const LEOPARD: &[Dir] = &[(0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];
    /// Forward, backward and forward diagonals: the chu copper general.
    pub const COPPER: &[Dir] = &[(0, 1), (0, -1), (1, 1), (-1, 1)];
    /// Forward and forward diagonals: the dai iron general.
    pub const FORWARD_THREE: &[Dir] = &[(0, 1), (1, 1), (-1, 1)];
}

/// Movement builders shared by several variants.
pub mod moves {
    use super::{dirs, Movement, Ride, UNLIMITED};

    /// One step in any direction.
    pub const KING: Movement = Movement { rides: &[Ride { dirs: dirs::ALL, range: 1 }], leaps: &[], ..Movement::NONE };
    /// Gold general (and most promoted minor pieces).
    pub const GOLD: Movement = Movement { rides: &[Ride { dirs: dirs::GOLD, range: 1 }], leaps: &[], ..Movement::NONE };
    /// Silver general.
    pub const SILVER: Movement = Movement { rides: &[Ride { dirs: dirs::SILVER, range: 1 }], leaps: &[], ..Movement::NONE };
    /// Knight: the two forward jumps.
    pub const KNIGHT: Movement = Movement { rides: &[], leaps: dirs::KNIGHT, ..Movement::NONE };
    /// Lance: unlimited forward slide.
    pub const LANCE: Movement = Movement { rides: &[Ride { dirs: dirs::FORWARD, range: UNLIMITED }], leaps: &[], ..Movement::NONE };
    /// Pawn: one step forward.
    pub const PAWN: Movement = Movement { rides: &[Ride { dirs: dirs::FORWARD, range: 1 }], leaps: &[], ..Movement::NONE };
    /// Rook.
    pub const ROOK: Movement = Movement { rides: &[Ride { dirs: dirs::ORTHOGONAL, range: UNLIMITED }], leaps: &[], ..Movement::NONE };
    /// Bishop.
    pub const BISHOP: Movement = Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }], leaps: &[], ..Movement::NONE };
    /// Dragon king: rook plus diagonal steps.
    pub const DRAGON: Movement = Movement {
        rides: &[Ride { dirs: dirs::ORTHOGONAL, range: UNLIMITED }, Ride { dirs: dirs::DIAGONAL, range: 1 }],
        leaps: &[],
        ..Movement::NONE
    };
    /// Dragon horse: bishop plus orthogonal steps.
    pub const HORSE: Movement = Movement {
        rides: &[Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }, Ride { dirs: dirs::ORTHOGONAL, range: 1 }],
        leaps: &[],
        ..Movement::NONE
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_pack_and_unpack_every_piece() {
        for color in Color::ALL {
            for t in 0..MAX_FACES / 2 - 1 {
                for promoted in [false, true] {
                    let piece = Piece { color, ptype: PieceType::new(t), promoted };
                    let cell = Cell::from_piece(piece);
                    assert!(cell.is_piece());
                    assert_eq!(cell.piece(), Some(piece));
                    let up = Cell::from_piece(Piece { promoted: true, ..piece });
                    assert_eq!(cell.promoted(), up);
                    assert_eq!(up.unpromoted(), Cell::from_piece(Piece { promoted: false, ..piece }));
                    assert_eq!(cell.face(), Face::new(piece.ptype, promoted));
                }
            }
        }
        assert_eq!(Cell::EMPTY.piece(), None);
        assert_eq!(Cell::WALL.piece(), None);
    }

    #[test]
    fn faces_name_their_type_and_side() {
        let (gold, dragon) = (Face::new(PieceType::new(3), false), Face::new(PieceType::new(5), true));
        assert_eq!((gold.index(), gold.ptype(), gold.is_promoted()), (6, PieceType::new(3), false));
        assert_eq!((dragon.index(), dragon.ptype(), dragon.is_promoted()), (11, PieceType::new(5), true));
        let last = Face::new(PieceType::new(MAX_FACES / 2 - 1), true);
        assert_eq!(last.index(), MAX_FACES - 1);
    }

    #[test]
    fn face_sets_hold_exactly_what_was_inserted() {
        let faces = [0, 1, 63, 64, 127].map(Face::from_index);
        let set: FaceSet = faces.into_iter().collect();
        assert!(faces.iter().all(|&f| set.contains(f)));
        assert!(!set.contains(Face::from_index(2)) && !set.contains(Face::from_index(126)));
        assert!(!set.is_empty() && FaceSet::EMPTY.is_empty() && FaceSet::default() == FaceSet::EMPTY);
        let mut one = FaceSet::EMPTY;
        one.insert(Face::from_index(127));
        assert!(one.contains(Face::from_index(127)) && !one.contains(Face::from_index(0)));
    }
}

//! Colours, squares and the board geometry of one board size ([`Geometry`]): the mailbox
//! layout and the tables derived from it (squares, walls, king directions, relative ranks,
//! alignment and the blocks of near squares the move generator tells apart).
//!
//! Every board is stored as a mailbox: a grid of [`STRIDE`] columns and rows, the same for
//! every board size, with the board in its top left corner behind a `PAD` wide ring of walls
//! and walls everywhere else, so that steps and two-square jumps off the board land on a wall
//! instead of wrapping around. A [`Square`] is an index into that grid; converting it to file
//! and rank needs the board size, which the variant knows. One row length for every board
//! makes every mailbox offset a constant of the piece's move, not of the board.

use std::fmt;

use super::piece::Cell;

/// Width of the wall border around the board (the longest jump in any variant is two squares).
pub const PAD: usize = 2;
/// Largest board side supported (tenjiku shogi).
pub const MAX_SIZE: usize = 16;
/// Mailbox row length of every board: the largest board and its walls.
pub const STRIDE: usize = MAX_SIZE + 2 * PAD;
/// Number of cells in the mailbox grid.
pub const MAX_CELLS: usize = STRIDE * STRIDE;
/// Length of the per-cell arrays the move generator reads most: [`MAX_CELLS`] rounded up to a
/// power of two, so that an index taken modulo it needs no bounds check.
pub const BOARD_CELLS: usize = MAX_CELLS.next_power_of_two();
/// Words of a bit set over the mailbox cells (all [`BOARD_CELLS`] of them).
pub(crate) const CELL_WORDS: usize = BOARD_CELLS / 64;

/// How far (in king steps) two parts of one piece's move may reach the same square, and how far
/// area moves go, at most: the move generator tells such squares apart in a [`NearSet`].
///
/// [`NearSet`]: super::movegen::NearSet
pub(crate) const NEAR_REACH: usize = 3;
/// Rows and columns of the block of squares within [`NEAR_REACH`] king steps of one square.
pub(crate) const NEAR_SPAN: usize = 2 * NEAR_REACH + 1;

/// The 8 king directions as `(dx, forward)` for Black, in a fixed order; index `d ^ 1` is the
/// opposite of direction `d`.
const KING_DIRS: [(i8, i8); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)];

const _: () = assert!(PAD >= 2, "jumps go two squares");

/// The bit of mailbox offset `offset` (at most `reach` king steps) in the block of squares
/// within `reach` king steps of the origin: bit `span * row + column`, rows and columns counted
/// from the lowest cell index, where `span = 2 * reach + 1`.
pub(crate) fn block_bit(offset: isize, reach: usize) -> usize {
    let (reach, stride) = (reach as isize, STRIDE as isize);
    let shifted = offset + reach * (stride + 1);
    ((2 * reach + 1) * shifted.div_euclid(stride) + shifted.rem_euclid(stride)) as usize
}

/// The mailbox offset of bit `bit` of such a block (the inverse of [`block_bit`]).
fn block_offset(bit: usize, reach: usize) -> isize {
    let span = 2 * reach + 1;
    let (row, column) = ((bit / span) as isize, (bit % span) as isize);
    (row - reach as isize) * STRIDE as isize + column - reach as isize
}

/// The two players. Black (sente) moves first and starts at the bottom.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other player.
    #[inline]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// English name.
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An index into a variant's mailbox grid. Only meaningful together with the board size:
/// [`Geometry`] makes the squares of a board and tells whether one lies on it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u16);

impl Square {
    /// The square of mailbox cell `index` (on the board or not).
    #[inline]
    pub(crate) const fn from_index(index: usize) -> Square {
        Square(index as u16)
    }

    /// The cell index in the mailbox grid.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `offset` mailbox cells away (a wall if that leaves the board).
    #[inline]
    pub(crate) fn offset(self, offset: isize) -> Square {
        Square((self.0 as isize + offset) as u16)
    }
}

/// Board geometry of one board size: side length, the mailbox layout and the tables derived
/// from them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Files and ranks on the board.
    pub size: usize,
    /// The on-board squares, rank a first, each rank from file N down to file 1.
    squares: Vec<Square>,
    /// The mailbox of an empty board: walls around empty squares.
    pub(crate) empty_board: [Cell; BOARD_CELLS],
    /// The walls around the board, as bits over the mailbox cells.
    pub(crate) wall_bits: [u64; CELL_WORDS],
    /// `[jump]`: the mailbox offset of bit `jump` of the 5x5 block around a square (see
    /// [`block_bit`]).
    pub(crate) jump_offsets: [isize; 32],
    /// Mailbox offsets of the 8 king directions, as [`KING_DIRS`] for Black.
    pub(crate) king_dirs: [isize; 8],
    /// King direction index by `3 * (sign(dx) + 1) + sign(dy) + 1` of a mailbox step.
    dir_by_sign: [u8; 9],
    /// `[colour][cell]`: rank index counted from that colour's far side (0 = its last rank).
    relative_ranks: [[u8; BOARD_CELLS]; 2],
    /// `[cell]`: column and row of on-board cells.
    cell_xy: Vec<(u8, u8)>,
    /// `[to - from + near_origin]`: the bit of `to` in a [`NearSet`] around `from` when `to`
    /// lies within [`NEAR_REACH`] king steps of `from`, else `u8::MAX`.
    ///
    /// [`NearSet`]: super::movegen::NearSet
    near_bits: Vec<u8>,
    near_origin: usize,
    /// `[bit]`: the mailbox offset from the origin of a [`NearSet`] bit's square.
    ///
    /// [`NearSet`]: super::movegen::NearSet
    near_offsets: [i16; NEAR_SPAN * NEAR_SPAN],
}

impl Geometry {
    /// Geometry of a `size` x `size` board.
    pub fn new(size: usize) -> Geometry {
        assert!((1..=MAX_SIZE).contains(&size), "board size {size} out of range");
        let near_origin = NEAR_REACH * (STRIDE + 1);
        let mut g = Geometry {
            size,
            squares: Vec::with_capacity(size * size),
            empty_board: [Cell::WALL; BOARD_CELLS],
            wall_bits: [0; CELL_WORDS],
            jump_offsets: std::array::from_fn(|bit| if bit < 25 { block_offset(bit, 2) } else { 0 }),
            king_dirs: [0; 8],
            dir_by_sign: [u8::MAX; 9],
            relative_ranks: [[u8::MAX; BOARD_CELLS]; 2],
            cell_xy: vec![(u8::MAX, u8::MAX); MAX_CELLS],
            near_bits: vec![u8::MAX; 2 * near_origin + 1],
            near_origin,
            near_offsets: std::array::from_fn(|bit| block_offset(bit, NEAR_REACH) as i16),
        };
        for y in 0..size {
            for x in 0..size {
                let sq = g.square(x, y);
                g.squares.push(sq);
                g.empty_board[sq.index()] = Cell::EMPTY;
                g.cell_xy[sq.index()] = (x as u8, y as u8);
                g.relative_ranks[Color::Black.index()][sq.index()] = y as u8;
                g.relative_ranks[Color::White.index()][sq.index()] = (size - 1 - y) as u8;
            }
        }
        for (i, &cell) in g.empty_board.iter().enumerate() {
            if cell == Cell::WALL {
                g.wall_bits[i / 64] |= 1 << (i % 64);
            }
        }
        g.king_dirs = KING_DIRS.map(|(dx, f)| g.offset(Color::Black, dx, f));
        for (d, &(dx, f)) in KING_DIRS.iter().enumerate() {
            // Board rows grow towards Black, so Black's forward is a negative row step.
            g.dir_by_sign[(3 * (dx + 1) + (-f + 1)) as usize] = d as u8;
        }
        for bit in 0..NEAR_SPAN * NEAR_SPAN {
            g.near_bits[(near_origin as isize + block_offset(bit, NEAR_REACH)) as usize] = bit as u8;
        }
        g
    }

    /// The on-board squares, rank a first, each rank from file N down to file 1.
    #[inline]
    pub fn squares(&self) -> &[Square] {
        &self.squares
    }

    /// Number of mailbox cells, walls included.
    pub fn cells(&self) -> usize {
        MAX_CELLS
    }

    /// The square at column `x` (0 = Black's left edge, i.e. file `size`) and row `y` (0 = rank a).
    #[inline]
    pub fn square(&self, x: usize, y: usize) -> Square {
        debug_assert!(x < self.size && y < self.size);
        Square(((y + PAD) * STRIDE + x + PAD) as u16)
    }

    /// Column and row of an on-board square.
    #[inline]
    pub fn xy(&self, sq: Square) -> (usize, usize) {
        let i = sq.index();
        (i % STRIDE - PAD, i / STRIDE - PAD)
    }

    /// Whether a cell index lies on the board.
    pub fn on_board(&self, index: usize) -> bool {
        let (x, y) = (index % STRIDE, index / STRIDE);
        (PAD..PAD + self.size).contains(&x) && (PAD..PAD + self.size).contains(&y)
    }

    /// The file number (1 = Black's right edge) of a square.
    pub fn file(&self, sq: Square) -> usize {
        self.size - self.xy(sq).0
    }

    /// The rank index (0 = rank a) of a square.
    pub fn rank(&self, sq: Square) -> usize {
        self.xy(sq).1
    }

    /// The square with file number `file` (1-based) and rank index `rank` (0 = a), if on the board.
    pub fn from_file_rank(&self, file: usize, rank: usize) -> Option<Square> {
        (file >= 1 && file <= self.size && rank < self.size).then(|| self.square(self.size - file, rank))
    }

    /// Rank index of an on-board square counted from `color`'s far side: 0 is the last rank
    /// for that player.
    #[inline]
    pub fn relative_rank(&self, sq: Square, color: Color) -> usize {
        usize::from(self.relative_ranks[color.index()][sq.index()])
    }

    /// `[cell]`: the rank of each cell counted from `color`'s far side.
    #[inline]
    pub(crate) fn relative_ranks(&self, color: Color) -> &[u8; BOARD_CELLS] {
        &self.relative_ranks[color.index()]
    }

    /// The king direction `d` such that `to` lies from `from` along `king_dirs[d]`, if the
    /// two squares are distinct and share a rank, file or diagonal.
    #[inline]
    pub(crate) fn direction(&self, from: Square, to: Square) -> Option<usize> {
        let ((fx, fy), (tx, ty)) = (self.cell_xy[from.index()], self.cell_xy[to.index()]);
        if from == to || !(fx == tx || fy == ty || fx.abs_diff(tx) == fy.abs_diff(ty)) {
            return None;
        }
        let sign = |a: u8, b: u8| (b as i32 - a as i32).signum() + 1;
        Some(self.dir_by_sign[(3 * sign(fx, tx) + sign(fy, ty)) as usize] as usize)
    }

    /// The number of king steps between two on-board squares.
    #[inline]
    pub fn king_distance(&self, a: Square, b: Square) -> u8 {
        let ((ax, ay), (bx, by)) = (self.cell_xy[a.index()], self.cell_xy[b.index()]);
        ax.abs_diff(bx).max(ay.abs_diff(by))
    }

    /// Whether two on-board squares share a rank, file or diagonal.
    #[inline]
    pub fn aligned(&self, a: Square, b: Square) -> bool {
        let ((ax, ay), (bx, by)) = (self.cell_xy[a.index()], self.cell_xy[b.index()]);
        ax == bx || ay == by || ax.abs_diff(bx) == ay.abs_diff(by)
    }

    /// The displacement `(dx, forward)` from `from` to `to` as `color` sees it (forward is
    /// towards that player's far side).
    pub fn displacement(&self, color: Color, from: Square, to: Square) -> (i8, i8) {
        let ((fx, fy), (tx, ty)) = (self.cell_xy[from.index()], self.cell_xy[to.index()]);
        let (dx, dy) = (tx as i8 - fx as i8, ty as i8 - fy as i8);
        match color {
            Color::Black => (dx, -dy),
            Color::White => (-dx, dy),
        }
    }

    /// The square of bit `bit` of a [`NearSet`] around `from`.
    ///
    /// [`NearSet`]: super::movegen::NearSet
    #[inline]
    pub(crate) fn near_square(&self, from: Square, bit: u32) -> Square {
        from.offset(self.near_offsets[bit as usize] as isize)
    }

    /// The bit of `to` in a [`NearSet`] around `from`, if `to` lies within [`NEAR_REACH`]
    /// king steps of it.
    ///
    /// [`NearSet`]: super::movegen::NearSet
    #[inline]
    pub(crate) fn near_bit(&self, from: Square, to: Square) -> Option<u32> {
        let i = (to.index() + self.near_origin).wrapping_sub(from.index());
        self.near_bits.get(i).copied().filter(|&bit| bit != u8::MAX).map(u32::from)
    }

    /// Whether `sq` is a mailbox index of this board (walls excluded).
    pub fn contains(&self, sq: Square) -> bool {
        sq.index() < self.cells() && self.on_board(sq.index())
    }

    /// The mailbox offset of a move of (`dx` columns towards file 1, `forward` ranks
    /// towards the enemy) made by `color`.
    pub fn offset(&self, color: Color, dx: i8, forward: i8) -> isize {
        let (dx, dy) = (dx as isize, -(forward as isize));
        let offset = dy * STRIDE as isize + dx;
        match color {
            Color::Black => offset,
            Color::White => -offset,
        }
    }

    /// The square rotated by 180 degrees.
    pub fn rotate(&self, sq: Square) -> Square {
        let (x, y) = self.xy(sq);
        self.square(self.size - 1 - x, self.size - 1 - y)
    }

    /// Writes a square in coordinate notation (`7g`, `13m`).
    pub fn square_name(&self, sq: Square) -> String {
        format!("{}{}", self.file(sq), rank_letter(self.rank(sq)))
    }

    /// Parses a square name such as `7g` or `13m`.
    pub fn parse_square(&self, text: &str) -> Option<Square> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 2 || text.len() != digits + 1 || text.starts_with('0') {
            return None;
        }
        let file: usize = text[..digits].parse().ok()?;
        let letter = text.as_bytes()[digits];
        if !letter.is_ascii_lowercase() {
            return None;
        }
        self.from_file_rank(file, (letter - b'a') as usize)
    }
}

/// The letter of rank index `rank` (0 = `a`).
pub fn rank_letter(rank: usize) -> char {
    (b'a' + rank as u8) as char
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_board() {
        for size in [9, 12, 13, 15, 16] {
            let g = Geometry::new(size);
            for y in 0..size {
                for x in 0..size {
                    let sq = g.square(x, y);
                    assert!(g.on_board(sq.index()));
                    assert_eq!(g.parse_square(&g.square_name(sq)), Some(sq));
                }
            }
        }
    }

    #[test]
    fn corners_follow_the_rules_readme() {
        let g = Geometry::new(13);
        assert_eq!(g.square_name(g.square(12, 0)), "1a");
        assert_eq!(g.square_name(g.square(0, 12)), "13m");
        assert_eq!(g.parse_square("14a"), None);
        assert_eq!(g.parse_square("1n"), None);
        assert_eq!(g.parse_square("0a"), None);
        assert_eq!(g.parse_square("01a"), None);
    }

    #[test]
    fn near_bits_and_king_steps_agree_with_coordinates() {
        let g = Geometry::new(9);
        let e5 = g.parse_square("5e").unwrap();
        for &to in g.squares() {
            let (dx, forward) = g.displacement(Color::Black, e5, to);
            let steps = dx.unsigned_abs().max(forward.unsigned_abs());
            assert_eq!(g.king_distance(e5, to), steps);
            assert_eq!(g.aligned(e5, to), dx == 0 || forward == 0 || dx.abs() == forward.abs());
            match g.near_bit(e5, to) {
                Some(bit) => assert_eq!(g.near_square(e5, bit), to),
                None => assert!(steps as usize > NEAR_REACH),
            }
            if let Some(d) = g.direction(e5, to) {
                let mut sq = e5;
                while sq != to {
                    sq = sq.offset(g.king_dirs[d]);
                    assert!(g.contains(sq));
                }
            }
            assert_eq!(g.direction(e5, to).is_some(), to != e5 && g.aligned(e5, to));
        }
        assert_eq!(g.relative_rank(e5, Color::White), 4);
        assert_eq!(g.relative_rank(g.parse_square("1a").unwrap(), Color::White), 8);
        assert!(!g.contains(Square::from_index(0)));
    }

    #[test]
    fn white_offsets_are_rotated() {
        let g = Geometry::new(9);
        let e5 = g.parse_square("5e").unwrap();
        let black_forward = (e5.index() as isize + g.offset(Color::Black, 0, 1)) as usize;
        let white_forward = (e5.index() as isize + g.offset(Color::White, 0, 1)) as usize;
        assert_eq!(g.square_name(Square::from_index(black_forward)), "5d");
        assert_eq!(g.square_name(Square::from_index(white_forward)), "5f");
        assert_eq!(g.square_name(g.rotate(g.parse_square("7g").unwrap())), "3c");
    }
}

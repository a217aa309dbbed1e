//! Colours and squares.
//!
//! Every board is stored as a mailbox: a grid of [`STRIDE`] columns and rows, the same for
//! every board size, with the board in its top left corner behind a `PAD` wide ring of walls
//! and walls everywhere else, so that steps and two-square jumps off the board land on a wall
//! instead of wrapping around. A [`Square`] is an index into that grid; converting it to file
//! and rank needs the board size, which the variant knows. One row length for every board
//! makes every mailbox offset a constant of the piece's move, not of the board.

use std::fmt;

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

/// An index into a variant's mailbox grid. Only meaningful together with the board size.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u16);

impl Square {
    /// The cell index in the mailbox grid.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Board geometry of one variant: side length and the mailbox layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Files and ranks on the board.
    pub size: usize,
}

impl Geometry {
    /// Geometry of a `size` x `size` board.
    pub fn new(size: usize) -> Geometry {
        assert!((1..=MAX_SIZE).contains(&size), "board size {size} out of range");
        Geometry { size }
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

    /// Rank index counted from `color`'s far side: 0 is the last rank for that player.
    #[inline]
    pub fn relative_rank(&self, sq: Square, color: Color) -> usize {
        let y = self.rank(sq);
        match color {
            Color::Black => y,
            Color::White => self.size - 1 - y,
        }
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
    fn white_offsets_are_rotated() {
        let g = Geometry::new(9);
        let e5 = g.parse_square("5e").unwrap();
        let black_forward = (e5.index() as isize + g.offset(Color::Black, 0, 1)) as usize;
        let white_forward = (e5.index() as isize + g.offset(Color::White, 0, 1)) as usize;
        assert_eq!(g.square_name(Square(black_forward as u16)), "5d");
        assert_eq!(g.square_name(Square(white_forward as u16)), "5f");
        assert_eq!(g.square_name(g.rotate(g.parse_square("7g").unwrap())), "3c");
    }
}

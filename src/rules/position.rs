//! [`Position`]: board, side to move and hands, with playing moves (checked and unchecked),
//! taking them back and attack detection.
//! A position has no history; repetition and results live in [`super::game::Game`].

use std::fmt;

use super::geometry::{Color, Square, BOARD_CELLS, MAX_CELLS};
use super::moves::Move;
use super::notation::coord::{self, MoveError};
use super::piece::{Cell, Piece, PieceType};
use super::variant::{Legality, Variant, VariantId};

/// Words of a per-colour occupancy bit set over the mailbox cells.
const OCCUPANCY_WORDS: usize = MAX_CELLS.div_ceil(64);

/// Piece types a hand can hold (standard shogi has seven droppable types).
pub const MAX_HAND_TYPES: usize = 8;

/// A position of any variant.
#[derive(Clone)]
pub struct Position {
    variant: &'static Variant,
    /// The mailbox; cells past the variant's grid are walls.
    board: [Cell; BOARD_CELLS],
    /// Per colour, bit `i` set when cell `i` holds a piece of that colour.
    occupied: [[u64; OCCUPANCY_WORDS]; 2],
    side: Color,
    /// `[colour][piece type]` counts in hand.
    hands: [[u8; MAX_HAND_TYPES]; 2],
    /// Royal pieces on the board per colour.
    royal_count: [u8; 2],
    /// The square of a royal piece per colour (its only one when `royal_count` is 1).
    royal_sq: [Square; 2],
    /// Non-royal pieces on the board per colour.
    others: [u16; 2],
    hash: u64,
    /// The move number of SFEN: 1 at the start, one more after every move.
    move_number: u32,
    /// Chu's counter-strike square (chu-shogi.md §6.2): where the last move captured a lion
    /// with a piece that was not a lion.
    counter_strike: Option<Square>,
}

/// Most pieces one move can remove from the board.
const MAX_REMOVED: usize = 12;

/// What [`Position::play`] changed, for [`Position::unmake`].
#[derive(Copy, Clone, Debug)]
pub struct Undo {
    /// Pieces the move removed, in the order it removed them: its captures, then the pieces
    /// burned after it landed (tenjiku).
    removed: [(Square, Cell); MAX_REMOVED],
    removed_count: u8,
    /// How many of `removed` the move captured before landing.
    captured_count: u8,
    hash: u64,
    royal_sq: [Square; 2],
    counter_strike: Option<Square>,
}

/// Why a set of pieces, hands and side to move is not a valid position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidPosition {
    #[error("{color} has {count} kings; at most one is allowed")]
    TooManyKings { color: Color, count: usize },
    #[error("the {piece} on {square} could never move again (it must have promoted)")]
    DeadPiece { piece: String, square: String },
    #[error("{color} has two unpromoted pawns on file {file}")]
    TwoPawnsOnFile { color: Color, file: usize },
    #[error("{color} holds {count} of piece {piece} in hand; the game has only {max}")]
    TooManyInHand { color: Color, piece: String, count: u32, max: u8 },
    #[error("there are {count} of piece {piece} on the board and in hand; the game has only {max}")]
    TooManyPieces { piece: String, count: u32, max: u8 },
    #[error("{color} is not to move but its king is in check")]
    OpponentInCheck { color: Color },
    #[error("the counter-strike square {square} holds a piece of the side to move, which cannot just have captured there")]
    BadCounterStrike { square: String },
    #[error("mailbox cell {index} is not a square of the {variant} board")]
    OffBoard { variant: &'static str, index: usize },
    #[error("two pieces stand on {square}")]
    TwoPiecesOnSquare { square: String },
    #[error("piece type {index} is not in the {variant} piece table")]
    UnknownPieceType { variant: &'static str, index: usize },
    #[error("the {piece} on {square} is promoted but that piece does not promote")]
    CannotPromote { piece: String, square: String },
    #[error("{color} holds piece {piece} in hand, which the variant does not allow")]
    CannotHold { color: Color, piece: String },
}

impl Position {
    /// The start position of a variant.
    pub fn start(id: VariantId) -> Position {
        let variant = id.variant();
        super::notation::sfen::parse(variant, variant.spec.start).expect("every start position parses")
    }

    /// Builds a position from its parts, checking that it is valid: every square on the board
    /// and holding one piece, every piece in the variant's table, every hand count allowed, and
    /// the rules' own conditions ([`InvalidPosition`]). `pieces` lists the pieces by square;
    /// `hands` is `[colour][piece type]`.
    pub fn from_parts(
        variant: &'static Variant,
        pieces: &[(Square, Piece)],
        side: Color,
        hands: [[u32; MAX_HAND_TYPES]; 2],
        counter_strike: Option<Square>,
        move_number: u32,
    ) -> Result<Position, InvalidPosition> {
        let mut pos = Position {
            variant,
            board: variant.geometry.empty_board,
            occupied: [[0; OCCUPANCY_WORDS]; 2],
            side,
            hands: [[0; MAX_HAND_TYPES]; 2],
            royal_count: [0; 2],
            royal_sq: [Square::from_index(0); 2],
            others: [0; 2],
            hash: 0,
            move_number,
            counter_strike: counter_strike.filter(|_| variant.spec.lion_trading),
        };
        let g = &variant.geometry;
        let off_board = |sq: Square| InvalidPosition::OffBoard { variant: variant.name(), index: sq.index() };
        for &(sq, piece) in pieces {
            if !g.contains(sq) {
                return Err(off_board(sq));
            }
            let Some(spec) = variant.spec.pieces.get(piece.ptype.index()) else {
                return Err(InvalidPosition::UnknownPieceType { variant: variant.name(), index: piece.ptype.index() });
            };
            if piece.promoted && spec.promotion.is_none() {
                return Err(InvalidPosition::CannotPromote { piece: spec.abbr.to_string(), square: g.square_name(sq) });
            }
            if pos.board[sq.index()] != Cell::EMPTY {
                return Err(InvalidPosition::TwoPiecesOnSquare { square: g.square_name(sq) });
            }
            pos.set_cell(sq, Cell::from_piece(piece));
        }
        if let Some(sq) = counter_strike.filter(|&sq| !g.contains(sq)) {
            return Err(off_board(sq));
        }
        for color in Color::ALL {
            for (t, &count) in hands[color.index()].iter().enumerate() {
                if count > 0 && !variant.hand_types.iter().any(|h| h.index() == t) {
                    let piece = variant.spec.pieces.get(t).map_or_else(|| format!("#{t}"), |p| p.abbr.to_string());
                    return Err(InvalidPosition::CannotHold { color, piece });
                }
            }
            for &t in &variant.hand_types {
                let count = hands[color.index()][t.index()];
                let max = variant.max_in_hand[t.index()];
                if count > max as u32 {
                    let piece = variant.piece_spec(t).abbr.to_string();
                    return Err(InvalidPosition::TooManyInHand { color, piece, count, max });
                }
                pos.hands[color.index()][t.index()] = count as u8;
            }
        }
        pos.recompute_derived();
        pos.check_validity()?;
        Ok(pos)
    }

    fn check_validity(&self) -> Result<(), InvalidPosition> {
        let v = self.variant;
        for color in Color::ALL {
            let kings = self.pieces().filter(|(_, p)| p.color == color && v.piece_spec(p.ptype).royal && !p.promoted).count();
            if kings > 1 {
                return Err(InvalidPosition::TooManyKings { color, count: kings });
            }
        }
        for (sq, p) in self.pieces() {
            let dead = !p.promoted && v.geometry.relative_rank(sq, p.color) < v.dead_ranks[p.ptype.index()];
            if dead && v.spec.compulsory_promotion {
                let piece = self.piece_name(p);
                return Err(InvalidPosition::DeadPiece { piece, square: v.geometry.square_name(sq) });
            }
        }
        if v.spec.drops {
            for &t in &v.hand_types {
                let on_board = self.pieces().filter(|(_, p)| p.ptype == t).count() as u32;
                let count = on_board + Color::ALL.iter().map(|&c| self.hand(c, t) as u32).sum::<u32>();
                let max = v.max_in_hand[t.index()];
                if count > max as u32 {
                    return Err(InvalidPosition::TooManyPieces { piece: v.piece_spec(t).abbr.to_string(), count, max });
                }
            }
        }
        if let (true, Some(pawn)) = (v.spec.drops, v.pawn) {
            for color in Color::ALL {
                for file in 1..=v.geometry.size {
                    if self.pawn_on_file(color, pawn, file) > 1 {
                        return Err(InvalidPosition::TwoPawnsOnFile { color, file });
                    }
                }
            }
        }
        // The square of the capture: it holds the capturing piece, or is empty when a falcon or
        // eagle took the lion on its first step and went on.
        if let Some(sq) = self.counter_strike {
            if self.piece_at(sq).is_some_and(|p| p.color == self.side) {
                return Err(InvalidPosition::BadCounterStrike { square: v.geometry.square_name(sq) });
            }
        }
        let waiting = self.side.opponent();
        if v.spec.legality == Legality::SelfCheckIllegal && self.in_check(waiting) {
            return Err(InvalidPosition::OpponentInCheck { color: waiting });
        }
        Ok(())
    }

    fn pawn_on_file(&self, color: Color, pawn: PieceType, file: usize) -> usize {
        let g = &self.variant.geometry;
        (0..g.size)
            .filter_map(|rank| g.from_file_rank(file, rank))
            .filter(|&sq| self.piece_at(sq) == Some(Piece { color, ptype: pawn, promoted: false }))
            .count()
    }

    /// Recomputes royal squares, piece counts and the hash from the board, hands and side.
    fn recompute_derived(&mut self) {
        self.royal_count = [0; 2];
        self.others = [0; 2];
        let mut hash = 0;
        for &sq in self.variant.geometry.squares() {
            let cell = self.board[sq.index()];
            if !cell.is_piece() {
                continue;
            }
            self.count_in(sq, cell);
            hash ^= self.variant.zobrist.piece(cell, sq);
        }
        for color in Color::ALL {
            for &t in &self.variant.hand_types {
                hash ^= self.variant.zobrist.hand(color, t, self.hands[color.index()][t.index()]);
            }
        }
        if self.side == Color::White {
            hash ^= self.variant.zobrist.side();
        }
        if let Some(sq) = self.counter_strike {
            hash ^= self.variant.zobrist.counter_strike(sq);
        }
        self.hash = hash;
    }

    /// Recomputes every derived field from scratch and reports the first that differs from the
    /// incrementally maintained one. For tests and debugging.
    pub fn verify_derived_state(&self) -> Result<(), String> {
        let mut fresh = self.clone();
        fresh.recompute_derived();
        let mut occupied = [[0u64; OCCUPANCY_WORDS]; 2];
        for (sq, p) in self.pieces() {
            occupied[p.color.index()][sq.index() / 64] |= 1 << (sq.index() % 64);
        }
        if occupied != self.occupied {
            return Err("occupancy sets differ from the board".to_string());
        }
        if fresh.hash != self.hash {
            return Err(format!("hash {:016x} != recomputed {:016x}", self.hash, fresh.hash));
        }
        if fresh.royal_count != self.royal_count || fresh.others != self.others {
            return Err(format!(
                "piece counts royal {:?} others {:?} != recomputed {:?} {:?}",
                self.royal_count, self.others, fresh.royal_count, fresh.others
            ));
        }
        for c in 0..2 {
            if self.royal_count[c] == 1 && fresh.royal_sq[c] != self.royal_sq[c] {
                return Err(format!("royal square of colour {c} is stale"));
            }
        }
        Ok(())
    }

    /// The variant this position belongs to.
    #[inline]
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The Zobrist hash of board, hands and side to move.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The SFEN move number.
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// The mailbox cell at `sq`.
    #[inline]
    pub(crate) fn cell(&self, sq: Square) -> Cell {
        self.board[sq.index() % BOARD_CELLS]
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()].piece()
    }

    /// Whether the piece on `sq` is a fire demon, which burns the enemies next to where it
    /// moves (tenjiku-shogi.md §5.4).
    pub fn is_burner_at(&self, sq: Square) -> bool {
        let cell = self.board[sq.index()];
        cell.is_piece() && self.variant.faces.is_burner(cell.face())
    }

    /// Every piece on the board with its square, in [`Geometry::squares`](super::geometry::Geometry::squares) order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.variant.geometry.squares().iter().filter_map(|&sq| self.piece_at(sq).map(|p| (sq, p)))
    }

    /// How many pieces of `ptype` `color` holds in hand.
    #[inline]
    pub fn hand(&self, color: Color, ptype: PieceType) -> u8 {
        self.hands[color.index()][ptype.index()]
    }

    /// Number of royal pieces `color` has on the board.
    pub fn royal_count(&self, color: Color) -> u8 {
        self.royal_count[color.index()]
    }

    /// Number of non-royal pieces `color` has on the board.
    pub fn non_royal_count(&self, color: Color) -> u16 {
        self.others[color.index()]
    }

    /// The square of `color`'s royal piece when it has exactly one.
    pub fn royal_square(&self, color: Color) -> Option<Square> {
        (self.royal_count[color.index()] == 1).then_some(self.royal_sq[color.index()])
    }

    /// Whether the piece in `cell` is royal.
    #[inline]
    pub(crate) fn is_royal(&self, cell: Cell) -> bool {
        self.variant.faces.is_royal(cell.face())
    }

    /// Chu's counter-strike square: where the last move captured a lion with a non-lion.
    pub fn counter_strike(&self) -> Option<Square> {
        self.counter_strike
    }

    /// The squares of `color`'s royal pieces.
    pub fn royal_squares(&self, color: Color) -> impl Iterator<Item = Square> + '_ {
        self.pieces().filter(move |(_, p)| p.color == color && self.variant.is_royal(*p)).map(|(sq, _)| sq)
    }

    /// A piece's abbreviation as written on boards and in Hodges notation (`+R`, `FD`).
    pub fn piece_name(&self, piece: Piece) -> String {
        let abbr = self.variant.piece_spec(piece.ptype).abbr;
        if piece.promoted {
            format!("+{abbr}")
        } else {
            abbr.to_string()
        }
    }

    /// Whether `by` attacks `sq`: some piece of `by` could move there if it held an enemy.
    pub fn attacked_by(&self, sq: Square, by: Color) -> bool {
        self.attacked_ignoring(sq, by, None)
    }

    /// Whether `by` attacks `sq` when the square `ignore` is taken to be empty (for a king
    /// stepping along the line of a slider that checks it).
    pub(crate) fn attacked_ignoring(&self, sq: Square, by: Color, ignore: Option<Square>) -> bool {
        let ignore = ignore.unwrap_or(Square::from_index(u16::MAX as usize));
        self.attacked_ignoring_two(sq, by, ignore, ignore)
    }

    /// Whether `by` attacks `sq` when the squares `a` and `b` are taken to be empty.
    pub(crate) fn attacked_ignoring_two(&self, sq: Square, by: Color, a: Square, b: Square) -> bool {
        let v = self.variant;
        let s = sq.index() as isize;
        let vacant = |t: usize| t == a.index() || t == b.index();
        for (d, &offset) in v.geometry.king_dirs.iter().enumerate() {
            let mut t = s;
            let mut distance = 1u8;
            loop {
                t += offset;
                let cell = if vacant(t as usize) { Cell::EMPTY } else { self.board[t as usize] };
                if cell == Cell::EMPTY {
                    distance = distance.saturating_add(1);
                    continue;
                }
                // The attacker moves the opposite way (d ^ 1) to reach `sq`.
                if cell != Cell::WALL && cell.color() == by && v.faces.reach(by, cell.face(), d ^ 1) >= distance {
                    return true;
                }
                break;
            }
        }
        v.faces.leap_attackers(by).iter().any(|&(offset, attackers)| {
            let t = (s - offset) as usize;
            let cell = self.board[t];
            !vacant(t) && cell.is_piece() && cell.color() == by && attackers.contains(cell.face())
        })
    }

    /// Whether a royal piece of `color` is attacked: the opponent, were it to move, could
    /// capture (or burn) it.
    pub fn in_check(&self, color: Color) -> bool {
        if self.variant.faces.generic_attacks {
            return self.royal_capturable(color);
        }
        match self.royal_count[color.index()] {
            0 => false,
            1 => self.attacked_by(self.royal_sq[color.index()], color.opponent()),
            _ => self.royal_squares(color).any(|sq| self.attacked_by(sq, color.opponent())),
        }
    }

    /// Whether `color`'s only royal piece can be taken at once, ending the game, in a variant
    /// where check does not matter (where it does, no legal move leaves a king en prise).
    pub fn only_royal_en_prise(&self, color: Color) -> bool {
        self.variant.spec.legality == Legality::RoyalCapture && self.royal_count(color) == 1 && self.in_check(color)
    }

    /// This position with `color` to move (to look at what that side could do).
    pub(crate) fn with_mover(&self, color: Color) -> Position {
        let mut scratch = self.clone();
        scratch.side = color;
        scratch
    }

    /// Whether some move of `color`'s opponent, were it to move now, would remove one of
    /// `color`'s royal pieces.
    ///
    /// A move takes a royal where it captures on a royal's square; only the moves that burn
    /// (tenjiku) are played to see what they remove.
    fn royal_capturable(&self, color: Color) -> bool {
        let mut scratch = self.with_mover(color.opponent());
        let royals = self.royal_count[color.index()];
        let royal_at = |sq: Square| {
            let cell = self.board[sq.index()];
            cell.is_piece() && cell.color() == color && self.is_royal(cell)
        };
        let burners = self.variant.faces.has_burners();
        scratch.legal_moves().into_iter().any(|mv| {
            if mv.capture_squares().any(royal_at) {
                return true;
            }
            if !burners || !scratch.burns(mv) {
                return false;
            }
            let undo = scratch.play_unchecked(mv);
            let hit = scratch.royal_count[color.index()] < royals;
            scratch.unmake(mv, undo);
            hit
        })
    }

    /// Plays `mv` if it is one of [`Position::legal_moves`] (so not [`Move::Declare`], which
    /// the game layer handles); returns what [`Position::unmake`] needs to take it back.
    /// Otherwise returns [`MoveError::Illegal`] and leaves the position as it was.
    pub fn play(&mut self, mv: Move) -> Result<Undo, MoveError> {
        if !self.is_legal(mv) {
            return Err(MoveError::Illegal { text: coord::write(self.variant, mv) });
        }
        Ok(self.play_unchecked(mv))
    }

    /// Plays `mv` without checking it; returns what [`Position::unmake`] needs to take it
    /// back. `mv` must be legal, or at least pseudo-legal, in this position: a move of the side
    /// to move along its piece's movement, or a drop of a piece it holds onto an empty square;
    /// [`Move::Pass`] and [`Move::Declare`] only hand the turn over. Anything else leaves the
    /// position corrupt (wrong pieces, counts or hash). For callers that take `mv` from
    /// [`Position::legal_moves`], such as search and perft; others use [`Position::play`].
    pub fn play_unchecked(&mut self, mv: Move) -> Undo {
        let v = self.variant;
        let us = self.side;
        let mut undo = Undo {
            removed: [(Square::from_index(0), Cell::EMPTY); MAX_REMOVED],
            removed_count: 0,
            captured_count: 0,
            hash: self.hash,
            royal_sq: self.royal_sq,
            counter_strike: self.counter_strike,
        };
        let mut mover = Cell::EMPTY;
        match mv {
            Move::Normal { from, to, promote } => {
                mover = self.lift(from);
                self.capture(to, &mut undo);
                self.land(to, if promote { mover.promoted() } else { mover });
            }
            Move::TwoLeg { from, mid, to, promote } => {
                mover = self.lift(from);
                self.capture(mid, &mut undo);
                self.capture(to, &mut undo);
                self.land(to, if promote { mover.promoted() } else { mover });
            }
            Move::Drop { piece, to } => {
                let n = self.hands[us.index()][piece.index()];
                debug_assert!(n > 0, "a drop from an empty hand");
                self.hash ^= v.zobrist.hand(us, piece, n) ^ v.zobrist.hand(us, piece, n - 1);
                self.hands[us.index()][piece.index()] = n - 1;
                self.land(to, Cell::from_piece(Piece { color: us, ptype: piece, promoted: false }));
            }
            Move::Pass | Move::Declare => {}
        }
        undo.captured_count = undo.removed_count;
        if let (true, Move::Normal { to, .. } | Move::TwoLeg { to, .. }) = (v.faces.has_burners(), mv) {
            self.burn(to, mover, &mut undo);
        }
        if v.spec.lion_trading {
            if let Some(sq) = self.counter_strike {
                self.hash ^= v.zobrist.counter_strike(sq);
            }
            let lion_taken_by_non_lion = mover.is_piece() && !v.faces.is_lion(mover.face());
            self.counter_strike = undo.removed[..undo.removed_count as usize]
                .iter()
                .rev()
                .find(|(_, cell)| lion_taken_by_non_lion && v.faces.is_lion(cell.face()))
                .map(|&(sq, _)| sq);
            if let Some(sq) = self.counter_strike {
                self.hash ^= v.zobrist.counter_strike(sq);
            }
        }
        self.hash ^= v.zobrist.side();
        self.side = us.opponent();
        self.move_number += 1;
        undo
    }

    /// The [`Position::hash`] of the position after `mv`, found without playing it, or `None`
    /// where the move would burn (tenjiku: it ends next to an enemy fire demon, or a fire demon
    /// ends next to enemies), whose effect only [`Position::play_unchecked`] works out.
    /// `mv` must be legal as for [`Position::play_unchecked`]; otherwise the answer means
    /// nothing. Where it is `Some`, it equals the hash after `play_unchecked(mv)`.
    pub(crate) fn hash_after(&self, mv: Move) -> Option<u64> {
        let v = self.variant;
        let z = &v.zobrist;
        let us = self.side;
        let mut hash = self.hash ^ z.side();
        // Chu's counter-strike square: cleared by every move, set again by a lion capture.
        let mut removed_lion = None;
        if let (true, Some(sq)) = (v.spec.lion_trading, self.counter_strike) {
            hash ^= z.counter_strike(sq);
        }
        // The hand counts of the captor's types already raised by this move's first capture.
        let mut raised: Option<PieceType> = None;
        let mut capture = |hash: &mut u64, sq: Square, cell: Cell| {
            *hash ^= z.piece(cell, sq);
            if v.faces.is_lion(cell.face()) {
                removed_lion = Some(sq);
            }
            if v.spec.drops && !self.is_royal(cell) {
                let t = cell.face().ptype();
                let n = self.hands[us.index()][t.index()] + u8::from(raised == Some(t));
                *hash ^= z.hand(us, t, n) ^ z.hand(us, t, n + 1);
                raised = Some(t);
            }
        };
        let (from, mid, to, promote) = match mv {
            Move::Normal { from, to, promote } => (from, None, to, promote),
            Move::TwoLeg { from, mid, to, promote } => (from, Some(mid), to, promote),
            Move::Drop { piece, to } => {
                let n = self.hands[us.index()][piece.index()];
                let cell = Cell::from_piece(Piece { color: us, ptype: piece, promoted: false });
                return Some(hash ^ z.hand(us, piece, n) ^ z.hand(us, piece, n - 1) ^ z.piece(cell, to));
            }
            Move::Pass | Move::Declare => return Some(hash),
        };
        let mover = self.board[from.index()];
        hash ^= z.piece(mover, from);
        // Captured on the first leg: its square is empty once the move has landed.
        let mut mid_taken = None;
        if let Some(mid) = mid {
            let cell = self.board[mid.index()];
            if cell.is_piece() {
                capture(&mut hash, mid, cell);
                mid_taken = Some(mid);
            }
        }
        let target = self.board[to.index()];
        if to != from && target.is_piece() {
            capture(&mut hash, to, target);
        }
        hash ^= z.piece(if promote { mover.promoted() } else { mover }, to);
        if self.burns_on_landing(mover, to, mid_taken) {
            return None;
        }
        if v.spec.lion_trading && !v.faces.is_lion(mover.face()) {
            if let Some(sq) = removed_lion {
                hash ^= z.counter_strike(sq);
            }
        }
        Some(hash)
    }

    /// Whether `mv` burns a piece once it has landed (tenjiku: it ends next to an enemy fire
    /// demon, or a fire demon ends next to enemies). `mv` must be legal as for
    /// [`Position::play_unchecked`].
    pub fn burns(&self, mv: Move) -> bool {
        let (from, mid, to) = match mv {
            Move::Normal { from, to, .. } => (from, None, to),
            Move::TwoLeg { from, mid, to, .. } => (from, Some(mid), to),
            Move::Drop { .. } | Move::Pass | Move::Declare => return false,
        };
        let mid_taken = mid.filter(|m| self.board[m.index()].is_piece());
        self.burns_on_landing(self.board[from.index()], to, mid_taken)
    }

    /// Whether `mover`, landing on `to` (and having taken the piece on `mid_taken` on its way),
    /// burns a piece there; see [`Position::burns`].
    fn burns_on_landing(&self, mover: Cell, to: Square, mid_taken: Option<Square>) -> bool {
        let v = self.variant;
        if !v.faces.has_burners() {
            return false;
        }
        let us = mover.color();
        let mover_burns = v.faces.is_burner(mover.face());
        v.geometry.king_dirs.iter().map(|&d| to.offset(d)).any(|n| {
            let cell = self.board[n.index()];
            Some(n) != mid_taken && cell.is_enemy_of(us) && (mover_burns || v.faces.is_burner(cell.face()))
        })
    }

    /// Writes `cell` to `sq`, keeping the occupancy sets in step.
    #[inline]
    fn set_cell(&mut self, sq: Square, cell: Cell) {
        let (word, bit) = (sq.index() / 64, 1u64 << (sq.index() % 64));
        let old = self.board[sq.index()];
        if old.is_piece() {
            self.occupied[old.color().index()][word] &= !bit;
        }
        if cell.is_piece() {
            self.occupied[cell.color().index()][word] |= bit;
        }
        self.board[sq.index()] = cell;
    }

    /// Bit `i` set for every cell `i` holding a piece of `color`.
    #[inline]
    pub(crate) fn occupancy(&self, color: Color) -> &[u64; OCCUPANCY_WORDS] {
        &self.occupied[color.index()]
    }

    /// The squares holding pieces of `color`, in [`Geometry::squares`](super::geometry::Geometry::squares) order.
    #[inline]
    pub(crate) fn squares_of(&self, color: Color) -> impl Iterator<Item = Square> {
        let (words, mut w, mut bits) = (self.occupied[color.index()], 0, self.occupied[color.index()][0]);
        std::iter::from_fn(move || {
            while bits == 0 {
                w += 1;
                bits = *words.get(w)?;
            }
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            Some(Square::from_index(w * 64 + i))
        })
    }

    /// Takes the piece on `sq` off the board for a move (it will [`Self::land`] again).
    #[inline]
    fn lift(&mut self, sq: Square) -> Cell {
        let cell = self.board[sq.index()];
        self.set_cell(sq, Cell::EMPTY);
        self.hash ^= self.variant.zobrist.piece(cell, sq);
        self.count_out(cell);
        cell
    }

    /// Puts the moving piece `cell` on the empty square `sq`.
    #[inline]
    fn land(&mut self, sq: Square, cell: Cell) {
        self.set_cell(sq, cell);
        self.hash ^= self.variant.zobrist.piece(cell, sq);
        self.count_in(sq, cell);
    }

    /// Counts `cell`, just put on `sq`, among its side's pieces.
    #[inline]
    fn count_in(&mut self, sq: Square, cell: Cell) {
        let c = cell.color().index();
        if self.is_royal(cell) {
            self.royal_count[c] += 1;
            self.royal_sq[c] = sq;
        } else {
            self.others[c] += 1;
        }
    }

    /// Stops counting `cell`, just taken off the board; with one royal left, finds its square.
    #[inline]
    fn count_out(&mut self, cell: Cell) {
        let color = cell.color();
        let c = color.index();
        if !self.is_royal(cell) {
            self.others[c] -= 1;
            return;
        }
        self.royal_count[c] -= 1;
        if self.royal_count[c] == 1 {
            let remaining = self.royal_squares(color).next();
            if let Some(sq) = remaining {
                self.royal_sq[c] = sq;
            }
        }
    }

    /// Captures whatever stands on `sq` (nothing if it is empty): it leaves the game, or goes to
    /// the captor's hand unpromoted where the variant has drops.
    #[inline]
    fn capture(&mut self, sq: Square, undo: &mut Undo) {
        let cell = self.board[sq.index()];
        if !cell.is_piece() {
            return;
        }
        let v = self.variant;
        undo.removed[undo.removed_count as usize] = (sq, cell);
        undo.removed_count += 1;
        self.set_cell(sq, Cell::EMPTY);
        self.hash ^= v.zobrist.piece(cell, sq);
        self.count_out(cell);
        let owner = cell.color();
        if v.spec.drops && !self.is_royal(cell) {
            let captor = owner.opponent();
            let t = cell.face().ptype();
            let n = self.hands[captor.index()][t.index()];
            self.hash ^= v.zobrist.hand(captor, t, n) ^ v.zobrist.hand(captor, t, n + 1);
            self.hands[captor.index()][t.index()] = n + 1;
        }
    }

    /// Fire demon burning after a move that ended on `to` (tenjiku-shogi.md §5.4): the piece
    /// that moved burns next to an enemy fire demon; otherwise, if it was a fire demon when the
    /// move began, it burns every enemy next to it.
    fn burn(&mut self, to: Square, mover: Cell, undo: &mut Undo) {
        let v = self.variant;
        let us = mover.color();
        let neighbours = v.geometry.king_dirs.map(|d| to.offset(d));
        if neighbours.iter().any(|&n| self.board[n.index()].is_enemy_of(us) && self.is_burner_at(n)) {
            self.capture(to, undo);
        } else if v.faces.is_burner(mover.face()) {
            for n in neighbours {
                if self.board[n.index()].is_enemy_of(us) {
                    self.capture(n, undo);
                }
            }
        }
    }

    /// Takes back `mv`, which was the last move played, with the [`Undo`] that playing it
    /// returned.
    pub fn unmake(&mut self, mv: Move, undo: Undo) {
        self.side = self.side.opponent();
        self.move_number -= 1;
        let us = self.side;
        let (from, to, promote) = match mv {
            Move::Normal { from, to, promote } | Move::TwoLeg { from, to, promote, .. } => (Some(from), to, promote),
            Move::Drop { piece, to } => {
                self.hands[us.index()][piece.index()] += 1;
                (None, to, false)
            }
            Move::Pass | Move::Declare => {
                self.hash = undo.hash;
                self.counter_strike = undo.counter_strike;
                return;
            }
        };
        let (captured, burned) = undo.removed[..undo.removed_count as usize].split_at(undo.captured_count as usize);
        self.restore(burned);
        let landed = self.board[to.index()];
        self.set_cell(to, Cell::EMPTY);
        self.count_out(landed);
        self.restore(captured);
        if let Some(from) = from {
            let original = if promote { landed.unpromoted() } else { landed };
            self.set_cell(from, original);
            self.count_in(from, original);
        }
        self.hash = undo.hash;
        self.royal_sq = undo.royal_sq;
        self.counter_strike = undo.counter_strike;
    }

    /// Puts removed pieces back, last removed first.
    fn restore(&mut self, removed: &[(Square, Cell)]) {
        for &(sq, cell) in removed.iter().rev() {
            self.set_cell(sq, cell);
            self.count_in(sq, cell);
            if self.variant.spec.drops && !self.is_royal(cell) {
                self.hands[cell.color().opponent().index()][cell.face().ptype().index()] -= 1;
            }
        }
    }

    /// The position after `mv` (copy-make), or [`MoveError::Illegal`] if `mv` is not one of
    /// [`Position::legal_moves`].
    pub fn after(&self, mv: Move) -> Result<Position, MoveError> {
        let mut next = self.clone();
        next.play(mv)?;
        Ok(next)
    }

    /// The position after `mv` (copy-make), which must be legal as for
    /// [`Position::play_unchecked`].
    pub fn after_unchecked(&self, mv: Move) -> Position {
        let mut next = self.clone();
        next.play_unchecked(mv);
        next
    }

    /// The same position seen from the other side: board rotated 180 degrees, colours and
    /// hands swapped, the other side to move.
    pub fn flipped(&self) -> Position {
        let g = &self.variant.geometry;
        let pieces: Vec<(Square, Piece)> = self.pieces().map(|(sq, p)| (g.rotate(sq), Piece { color: p.color.opponent(), ..p })).collect();
        let hands = [self.hands[1].map(u32::from), self.hands[0].map(u32::from)];
        let counter_strike = self.counter_strike.map(|sq| g.rotate(sq));
        Position::from_parts(self.variant, &pieces, self.side.opponent(), hands, counter_strike, self.move_number)
            .expect("the flip of a valid position is valid")
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        self.variant.id == other.variant.id
            && self.board == other.board
            && self.side == other.side
            && self.hands == other.hands
            && self.counter_strike == other.counter_strike
            && self.move_number == other.move_number
    }
}

impl Eq for Position {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", super::notation::sfen::write(self))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::notation::sfen::write(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitmix::SplitMix64;

    /// Over seeded random games of every variant, [`Position::hash_after`] of every legal move
    /// (drops, passes, two-leg moves, captures into the hand, promotions, chu's counter-strike)
    /// is the hash after playing it, and is `None` only for moves that burn; [`Position::burns`]
    /// says which moves burn.
    #[test]
    fn hash_after_matches_play() {
        for id in VariantId::ALL {
            let (mut known, mut captures, mut burns) = (0usize, 0usize, 0usize);
            for seed in 0..3u64 {
                let mut rng = SplitMix64::new(0x4A54 + seed * 31 + id.index() as u64);
                let mut pos = Position::start(id);
                for _ in 0..300 {
                    let moves = pos.legal_moves();
                    if moves.is_empty() || pos.royal_count(Color::Black) == 0 || pos.royal_count(Color::White) == 0 {
                        break;
                    }
                    for &mv in &moves {
                        let mut after = pos.clone();
                        let undo = after.play_unchecked(mv);
                        let burned = undo.removed_count > undo.captured_count;
                        assert_eq!(pos.burns(mv), burned, "{id:?} {pos} {mv:?}");
                        match pos.hash_after(mv) {
                            Some(hash) => {
                                assert_eq!(hash, after.hash(), "{id:?} {pos} {mv:?}");
                                assert!(!burned, "{id:?} {pos} {mv:?}: a hash for a move that burns");
                                known += 1;
                                captures += usize::from(undo.captured_count > 0);
                            }
                            None => {
                                assert!(burned, "{id:?} {pos} {mv:?}: None for a move that burns nothing");
                                burns += 1;
                            }
                        }
                    }
                    let mv = moves[(rng.next_u64() % moves.len() as u64) as usize];
                    pos.play_unchecked(mv);
                }
            }
            assert!(known > 1000 && captures > 100, "{id:?}: {known} moves, {captures} captures");
            if id.variant().faces.has_burners() {
                assert!(burns > 0, "{id:?}: no burning move met");
            }
        }
    }
}

//! Legal move generation for every variant.
//!
//! Board moves come from the piece tables (rides and leaps); drops follow the shogi drop rules.
//! Where the variant forbids self-check, pseudo-legal moves are filtered: a move that cannot
//! uncover or leave a check is accepted at once, any other is made and tested.

use super::faces::{direction_offset, FaceMoves, PROMOTE, STAY};
use super::geometry::{Color, Square, BOARD_CELLS, CELL_WORDS, MAX_CELLS, MAX_SIZE, NEAR_REACH, NEAR_SPAN, STRIDE};
use super::moves::{Move, MoveList};
use super::piece::{Cell, PieceType, MAX_FACES};
use super::position::{Position, MAX_HAND_TYPES};
use super::variant::{Legality, Variant};

impl Position {
    /// All legal moves of the side to move (the game layer adds [`Move::Declare`] where the
    /// variant allows it).
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::with_capacity(128);
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Replaces the contents of `out` with the legal moves of the side to move.
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        self.generate(out, true);
    }

    /// How many pawn drops of the side to move would mate: illegal here (uchifuzume), while
    /// engines that generate them and score them as lost (Fairy-Stockfish) count them as moves.
    pub fn pawn_drop_mates(&self) -> usize {
        let (mut all, mut legal) = (MoveList::with_capacity(128), MoveList::with_capacity(128));
        self.generate(&mut all, false);
        self.generate(&mut legal, true);
        all.len() - legal.len()
    }

    /// The legal moves into `out`, a pawn drop that mates among them unless `no_pawn_drop_mate`.
    #[inline]
    fn generate(&self, out: &mut MoveList, no_pawn_drop_mate: bool) {
        out.clear();
        let v = self.variant();
        let us = self.side_to_move();
        match (v.spec.legality, self.royal_square(us)) {
            (Legality::RoyalCapture, _) if self.royal_count(us) == 0 => {} // a side without royal pieces has lost
            (Legality::SelfCheckIllegal, Some(king)) => {
                let safety = self.king_safety(king);
                self.board_moves(out, Some((king, &safety)));
                if safety.checkers < 2 {
                    let pawn_drop_check = self.drop_moves(out, |to| safety.answers_check(to));
                    if no_pawn_drop_mate {
                        self.remove_pawn_drop_mate(out, pawn_drop_check);
                    }
                }
            }
            _ => {
                self.board_moves(out, None);
                if v.spec.drops {
                    let pawn_drop_check = self.drop_moves(out, |_| true);
                    if no_pawn_drop_mate && v.spec.legality == Legality::SelfCheckIllegal {
                        self.remove_pawn_drop_mate(out, pawn_drop_check);
                    }
                }
                if v.spec.lion_trading {
                    self.retain_lion_trading(out);
                }
            }
        }
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    /// Whether `mv` is legal here.
    pub fn is_legal(&self, mv: Move) -> bool {
        self.legal_moves().contains(&mv)
    }

    /// Board moves of the side to move. With `king` (a variant that forbids self-check), only
    /// those that leave that king unattacked.
    fn board_moves(&self, out: &mut MoveList, king: Option<(Square, &KingSafety)>) {
        let v = self.variant();
        let us = self.side_to_move();
        let blockers = &Blockers::new(self, us);
        let faces = v.faces.moves(us);
        let mut can_pass = false;
        for from in self.squares_of(us) {
            let cell = self.cell(from);
            let moves = &faces[cell.face().index() % MAX_FACES];
            let open = blockers.open_dirs(from);
            if open & moves.first_squares == 0 && !moves.passes_over_pieces {
                continue; // boxed in by its own pieces and the edge
            }
            match king {
                None if moves.plain => self.piece_moves(out, from, us, moves, open, |_| true),
                None => can_pass |= self.large_piece_moves(out, from, cell, moves, open, blockers),
                Some((k, _)) if k == from => {
                    self.piece_moves(out, from, us, moves, open, |to| !self.attacked_ignoring(to, us.opponent(), Some(k)))
                }
                Some((_, safety)) if safety.checkers >= 2 => {}
                Some((k, safety)) => match (safety.pin_direction(from), safety.checkers) {
                    (None, 0) => self.piece_moves(out, from, us, moves, open, |_| true),
                    (None, _) => self.piece_moves(out, from, us, moves, open, |to| safety.answers_check(to)),
                    (Some(d), _) => self
                        .piece_moves(out, from, us, moves, open, |to| safety.answers_check(to) && v.geometry.direction(k, to) == Some(d)),
                },
            }
        }
        if can_pass {
            out.push(Move::Pass);
        }
    }

    /// The steps, rides and jumps (`moves`) of the piece of colour `us` on `from` to the
    /// squares `accept` lets through. `open` has the directions of the neighbouring squares
    /// that are neither the mover's own pieces nor walls ([`Blockers::open_dirs`]).
    #[inline(always)]
    pub(super) fn piece_moves(
        &self,
        out: &mut MoveList,
        from: Square,
        us: Color,
        moves: &FaceMoves,
        open: u64,
        mut accept: impl FnMut(Square) -> bool,
    ) {
        let v = self.variant();
        let promotion = PromotionOptions::new(v, moves, from, us);
        // Steps and the first squares of rides that the mover's own pieces and the walls leave
        // open, read at once from the blockers instead of square by square.
        let mut steps = moves.steps & open;
        while steps != 0 {
            let to = from.offset(direction_offset(steps.trailing_zeros()));
            steps &= steps - 1;
            if accept(to) {
                promotion.push(out, from, to, self.cell(to) != Cell::EMPTY);
            }
        }
        let mut rides = moves.rides & open;
        while rides != 0 {
            let d = rides.trailing_zeros();
            rides &= rides - 1;
            self.ride(out, from, us, from, direction_offset(d), moves.range[d as usize % 64], &promotion, &mut accept);
        }
        let mut jumps = moves.jumps;
        while jumps != 0 {
            let to = from.offset(v.geometry.jump_offsets[jumps.trailing_zeros() as usize % 32]);
            jumps &= jumps - 1;
            let target = self.cell(to);
            if (target == Cell::EMPTY || target.is_enemy_of(us)) && accept(to) {
                promotion.push(out, from, to, target != Cell::EMPTY);
            }
        }
    }

    /// The moves of the piece of colour `us` on `from` riding from `start` along `offset` for
    /// at most `range` squares: to every empty square until a piece or the edge stops it, and
    /// onto that piece if it is an enemy, where `accept` lets them through. Returns the square that stopped the
    /// ride (a piece or a wall), or the last square reached.
    #[inline(always)]
    #[expect(clippy::too_many_arguments, reason = "the hot path of every slider: a struct of arguments would be built per ride")]
    pub(super) fn ride(
        &self,
        out: &mut MoveList,
        from: Square,
        us: Color,
        start: Square,
        offset: isize,
        range: u8,
        promotion: &PromotionOptions,
        accept: &mut impl FnMut(Square) -> bool,
    ) -> Square {
        let mut to = start;
        for _ in 0..range {
            to = to.offset(offset);
            let target = self.cell(to);
            if target == Cell::EMPTY {
                if accept(to) {
                    promotion.push(out, from, to, false);
                }
                continue;
            }
            if target.is_enemy_of(us) && accept(to) {
                promotion.push(out, from, to, true);
            }
            break;
        }
        to
    }

    /// The promotion options of the piece `cell` for its moves from `from`.
    #[inline(always)]
    pub(super) fn promotion_options(&self, from: Square, cell: Cell) -> PromotionOptions<'_> {
        PromotionOptions::new(self.variant(), self.variant().faces.moves_of(cell.color(), cell.face()), from, cell.color())
    }

    /// Drops allowed by the drop rules onto squares `accept` lets through. Returns the index in
    /// `out` of a pawn drop right in front of the enemy king, which may be a pawn-drop mate.
    fn drop_moves(&self, out: &mut MoveList, accept: impl Fn(Square) -> bool) -> Option<usize> {
        let v = self.variant();
        let us = self.side_to_move();
        let mut held = [PieceType::new(0); MAX_HAND_TYPES];
        let mut n = 0;
        for &t in &v.hand_types {
            if self.hand(us, t) > 0 {
                held[n] = t;
                n += 1;
            }
        }
        if n == 0 {
            return None;
        }
        let held = &held[..n];
        let pawn_files = self.unpromoted_pawn_files(us);
        let pawn_check_square = self.royal_square(us.opponent()).map(|k| k.offset(-v.geometry.offset(us, 0, 1)));
        let mut pawn_check = None;
        for &to in v.geometry.squares() {
            if self.cell(to) != Cell::EMPTY || !accept(to) {
                continue;
            }
            let rank = v.geometry.relative_rank(to, us);
            for &t in held {
                if rank < v.dead_ranks[t.index()] {
                    continue;
                }
                if Some(t) == v.pawn {
                    if pawn_files & (1 << v.geometry.file(to)) != 0 {
                        continue;
                    }
                    if Some(to) == pawn_check_square {
                        pawn_check = Some(out.len());
                    }
                }
                out.push(Move::Drop { piece: t, to });
            }
        }
        pawn_check
    }

    /// Removes the pawn drop at `index` (one that checks) if it mates: uchifuzume.
    fn remove_pawn_drop_mate(&self, out: &mut MoveList, index: Option<usize>) {
        if let Some(i) = index {
            if !self.after_unchecked(out[i]).has_legal_move() {
                out.remove(i);
            }
        }
    }

    /// Bit `f` set for every file `f` holding an unpromoted pawn of `color`.
    fn unpromoted_pawn_files(&self, color: Color) -> u32 {
        let v = self.variant();
        let Some(pawn) = v.pawn else { return 0 };
        let mut files = 0;
        for &sq in v.geometry.squares() {
            if let Some(p) = self.piece_at(sq) {
                if p.color == color && p.ptype == pawn && !p.promoted {
                    files |= 1 << v.geometry.file(sq);
                }
            }
        }
        files
    }

    /// Checks against the side to move's king and pieces pinned to it.
    fn king_safety(&self, king: Square) -> KingSafety {
        let v = self.variant();
        let us = self.side_to_move();
        let them = us.opponent();
        let mut safety = KingSafety { checkers: 0, evasions: CellSet::default(), pins: [(Square::from_index(0), 0); 8], pin_count: 0 };
        for (d, &offset) in v.geometry.king_dirs.iter().enumerate() {
            let mut t = king.index() as isize;
            let mut distance = 0u8;
            let mut own: Option<Square> = None;
            loop {
                t += offset;
                distance = distance.saturating_add(1);
                let cell = self.cell(Square::from_index(t as usize));
                if cell == Cell::EMPTY {
                    continue;
                }
                if cell == Cell::WALL {
                    break;
                }
                if cell.color() == us {
                    if own.is_some() {
                        break;
                    }
                    own = Some(Square::from_index(t as usize));
                    continue;
                }
                if v.faces.reach(them, cell.face(), d ^ 1) >= distance {
                    match own {
                        Some(pinned) => {
                            safety.pins[safety.pin_count] = (pinned, d as u8);
                            safety.pin_count += 1;
                        }
                        None => {
                            safety.checkers += 1;
                            let mut s = king.index() as isize;
                            while s != t {
                                s += offset;
                                safety.evasions.insert(s as usize);
                            }
                        }
                    }
                }
                break;
            }
        }
        for &(offset, attackers) in v.faces.leap_attackers(them) {
            let s = (king.index() as isize - offset) as usize;
            let cell = self.cell(Square::from_index(s));
            if cell.is_piece() && cell.color() == them && attackers.contains(cell.face()) {
                safety.checkers += 1;
                safety.evasions.insert(s);
            }
        }
        safety
    }
}

/// The board as the side to move sees it, in bit sets over the mailbox cells: the squares it
/// cannot move onto (its own pieces and the walls) and the enemy pieces. Blocks of squares
/// around a piece are read a row of bits at a time instead of square by square.
pub(super) struct Blockers {
    /// Own pieces and walls, cell `i` at bit `i + PADDING_BITS`; everything outside the
    /// mailbox reads as wall.
    blocked: [u64; BLOCKER_WORDS],
    /// Enemy pieces, laid out as `blocked`.
    enemy: [u64; BLOCKER_WORDS],
}

/// Bits in front of cell 0 in [`Blockers`], so that blocks reaching past the mailbox's first
/// rows can be read.
const PADDING_BITS: usize = 64;
/// Words of a [`Blockers`] set: a power of two, so that a word index taken modulo it needs no
/// bounds check.
const BLOCKER_WORDS: usize = (PADDING_BITS / 64 + CELL_WORDS + 1).next_power_of_two();

// A 7x7 block around any square, each row read from two neighbouring words, stays in the sets.
const _: () =
    assert!(NEAR_REACH * (STRIDE + 1) <= PADDING_BITS && (PADDING_BITS + MAX_CELLS + NEAR_REACH * (STRIDE + 1)) / 64 + 1 < BLOCKER_WORDS);

/// The bits of a block of squares within [`NEAR_REACH`] king steps of one square, row by row.
const BLOCK: u64 = (1 << (NEAR_SPAN * NEAR_SPAN)) - 1;
/// The bits of the block's first and last columns.
const FIRST_COLUMN: u64 = {
    let (mut column, mut row) = (0, 0);
    while row < NEAR_SPAN {
        column |= 1 << (NEAR_SPAN * row);
        row += 1;
    }
    column
};
const LAST_COLUMN: u64 = FIRST_COLUMN << (NEAR_SPAN - 1);

impl Blockers {
    /// The view of the side `us` of position `pos`.
    #[inline]
    pub(super) fn new(pos: &Position, us: Color) -> Blockers {
        let v = pos.variant();
        let (own, enemy) = (pos.occupancy(us), pos.occupancy(us.opponent()));
        let mut blockers = Blockers { blocked: [!0; BLOCKER_WORDS], enemy: [0; BLOCKER_WORDS] };
        let first = PADDING_BITS / 64;
        for w in 0..CELL_WORDS {
            blockers.blocked[first + w] = v.geometry.wall_bits[w] | own.get(w).copied().unwrap_or(0);
            blockers.enemy[first + w] = enemy.get(w).copied().unwrap_or(0);
        }
        blockers
    }

    /// 64 bits of `set` from bit `bit` on (cell `bit - PADDING_BITS`).
    #[inline(always)]
    fn read(set: &[u64; BLOCKER_WORDS], bit: usize) -> u64 {
        let (w, b) = (bit / 64, bit % 64);
        // The second shift is split in two so that it stays below 64 when `b` is 0.
        set[w % BLOCKER_WORDS] >> b | (set[(w + 1) % BLOCKER_WORDS] << 1) << (63 - b)
    }

    /// The squares next to `from` that are open, as [`FaceMoves`] direction bits (the bits
    /// outside the 3x3 block mean nothing: a face's directions mask them off).
    #[inline(always)]
    pub(super) fn open_dirs(&self, from: Square) -> u64 {
        !Self::read(&self.blocked, from.index() + PADDING_BITS - STRIDE - 1)
    }

    /// The 7x7 block of `set` around `from`, as a [`NearSet`] word.
    #[inline(always)]
    fn near_block(&self, set: &[u64; BLOCKER_WORDS], from: Square) -> u64 {
        let first = from.index() + PADDING_BITS - NEAR_REACH * (STRIDE + 1);
        (0..NEAR_SPAN).fold(0, |block, row| block | (Self::read(set, first + row * STRIDE) & ((1 << NEAR_SPAN) - 1)) << (NEAR_SPAN * row))
    }

    /// The squares (as a [`NearSet`] word) that an area move of up to `steps` king steps from
    /// `from` reaches: through empty squares only, ending on an empty square or the first
    /// enemy met; the origin counts as empty but is never a destination. Also returns the
    /// enemy pieces of the block.
    #[inline]
    pub(super) fn area(&self, from: Square, steps: u8) -> (u64, u64) {
        let enemy = self.near_block(&self.enemy, from);
        let empty = !self.near_block(&self.blocked, from) & !enemy & BLOCK;
        let origin = 1u64 << (NEAR_REACH * (NEAR_SPAN + 1));
        let (mut reached, mut frontier) = (origin, origin);
        for _ in 0..steps {
            let row = frontier | (frontier << 1 & !FIRST_COLUMN) | (frontier >> 1 & !LAST_COLUMN);
            let next = (row | row << NEAR_SPAN | row >> NEAR_SPAN) & (empty | enemy) & !reached;
            reached |= next;
            frontier = next & empty;
        }
        (reached & !origin, enemy)
    }
}

/// A set of mailbox cells.
#[derive(Clone, Copy, Default)]
pub(super) struct CellSet([u64; MAX_CELLS.div_ceil(64)]);

impl CellSet {
    /// Adds `i`; returns whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, i: usize) -> bool {
        let new = !self.contains(i);
        self.0[i / 64] |= 1 << (i % 64);
        new
    }

    #[inline]
    pub(super) fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
}

/// What a piece's moves from one square may do about promotion, looked up once for all of
/// them.
pub(super) struct PromotionOptions<'a> {
    /// `[destination rank]`: [`FaceMoves::promotion`] for the piece's origin.
    by_rank: &'a [u8; MAX_SIZE],
    /// `[cell]`: rank counted from the mover's far side.
    ranks: &'a [u8; BOARD_CELLS],
}

impl<'a> PromotionOptions<'a> {
    /// The options of a piece of `color` whose face moves as `moves`, moving from `from`.
    #[inline(always)]
    fn new(v: &'a Variant, moves: &'a FaceMoves, from: Square, color: Color) -> PromotionOptions<'a> {
        let ranks = v.geometry.relative_ranks(color);
        let from_in_zone = ranks[from.index() % BOARD_CELLS] < v.zone_depth;
        PromotionOptions { by_rank: &moves.promotion[usize::from(from_in_zone)], ranks }
    }

    /// Adds the move `from`-`to` (taking a piece if `captures`), with and/or without promotion
    /// as the rules allow.
    #[inline(always)]
    pub(super) fn push(&self, out: &mut MoveList, from: Square, to: Square, captures: bool) {
        let (promoting, staying) = self.choices(to, captures);
        if promoting {
            out.push(Move::Normal { from, to, promote: true });
        }
        if staying {
            out.push(Move::Normal { from, to, promote: false });
        }
    }

    /// Whether a move ending on `to` (taking a piece if `captures`) may promote, and whether it
    /// may stay unpromoted.
    #[inline(always)]
    pub(super) fn choices(&self, to: Square, captures: bool) -> (bool, bool) {
        let rank = usize::from(self.ranks[to.index() % BOARD_CELLS]);
        let bits = self.by_rank[rank % MAX_SIZE] >> (2 * u8::from(captures));
        (bits & PROMOTE != 0, bits & STAY != 0)
    }
}

/// A set of squares within [`NEAR_REACH`] king steps of one origin, as bits of one word (see
/// [`super::geometry::Geometry::near_bit`]).
#[derive(Clone, Copy, Default)]
pub(super) struct NearSet(u64);

const _: () = assert!(NEAR_SPAN * NEAR_SPAN <= 64, "a NearSet fits in a u64");

impl NearSet {
    /// Adds the square of bit `bit`; returns whether it was new.
    #[inline]
    pub(super) fn insert(&mut self, bit: u32) -> bool {
        let new = self.0 & (1 << bit) == 0;
        self.0 |= 1 << bit;
        new
    }
}

/// Checks against a king and the pieces pinned to it.
struct KingSafety {
    checkers: u8,
    /// With one checker: its square and the squares between it and the king.
    evasions: CellSet,
    /// Pinned pieces with the king direction of their pin.
    pins: [(Square, u8); 8],
    pin_count: usize,
}

impl KingSafety {
    /// Whether a non-king move or drop to `to` leaves no check standing.
    #[inline]
    fn answers_check(&self, to: Square) -> bool {
        match self.checkers {
            0 => true,
            1 => self.evasions.contains(to.index()),
            _ => false,
        }
    }

    /// The king direction along which the piece on `from` is pinned, if it is.
    #[inline]
    fn pin_direction(&self, from: Square) -> Option<usize> {
        self.pins[..self.pin_count].iter().find(|(sq, _)| *sq == from).map(|&(_, d)| d as usize)
    }
}

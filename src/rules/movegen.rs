//! Legal move generation for every variant.
//!
//! Board moves come from the piece tables (rides and leaps); drops follow the shogi drop rules.
//! Where the variant forbids self-check, pseudo-legal moves are filtered: a move that cannot
//! uncover or leave a check is accepted at once, any other is made and tested.

use super::geometry::{Color, Square};
use super::moves::{Move, MoveList};
use super::piece::{Cell, PieceType};
use super::position::{Position, MAX_HAND_TYPES};
use super::variant::{Legality, PromotionRule};

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
        out.clear();
        let v = self.variant();
        let us = self.side_to_move();
        if v.spec.legality == Legality::RoyalCapture && self.royal_count(us) == 0 {
            return; // a side without royal pieces has lost
        }
        self.board_moves(out);
        if v.spec.drops {
            self.drop_moves(out);
        }
        if v.spec.legality == Legality::SelfCheckIllegal {
            self.retain_legal(out);
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

    /// Whether playing `mv` attacks the opponent's king.
    pub fn gives_check(&self, mv: Move) -> bool {
        let them = self.side_to_move().opponent();
        self.after(mv).in_check(them)
    }

    fn board_moves(&self, out: &mut MoveList) {
        let v = self.variant();
        let us = self.side_to_move();
        for &from in &v.squares {
            let cell = self.cell(from);
            if !cell.is_piece() || cell.color() != us {
                continue;
            }
            let moves = v.moves_of(us, cell.kind());
            for &(offset, range) in &moves.rides {
                let mut t = from.index() as isize;
                for _ in 0..range {
                    t += offset;
                    let target = self.cell(Square(t as u16));
                    if target == Cell::EMPTY {
                        self.push_board_move(out, from, Square(t as u16), cell);
                        continue;
                    }
                    if target != Cell::WALL && target.color() != us {
                        self.push_board_move(out, from, Square(t as u16), cell);
                    }
                    break;
                }
            }
            for &offset in &moves.leaps {
                let to = Square((from.index() as isize + offset) as u16);
                let target = self.cell(to);
                if target == Cell::EMPTY || (target != Cell::WALL && target.color() != us) {
                    self.push_board_move(out, from, to, cell);
                }
            }
        }
    }

    /// Adds the move `from`-`to` of `cell`, with and/or without promotion as the rules allow.
    #[inline]
    fn push_board_move(&self, out: &mut MoveList, from: Square, to: Square, cell: Cell) {
        let v = self.variant();
        let ptype = cell.kind() >> 1;
        let promoted = cell.kind() & 1 == 1;
        if promoted || v.spec.pieces[ptype].promotion.is_none() {
            out.push(Move::Normal { from, to, promote: false });
            return;
        }
        let us = cell.color();
        let forced = (v.relative_rank(to, us) as usize) < v.dead_ranks[ptype];
        let allowed = forced
            || match v.spec.promotion {
                PromotionRule::StartOrEnd => v.in_zone(from, us) || v.in_zone(to, us),
                PromotionRule::Entering => !v.in_zone(from, us) && v.in_zone(to, us),
            };
        if allowed {
            out.push(Move::Normal { from, to, promote: true });
        }
        if !forced {
            out.push(Move::Normal { from, to, promote: false });
        }
    }

    /// Drops allowed by the drop rules, except the pawn-drop-mate test ([`Self::retain_legal`]).
    fn drop_moves(&self, out: &mut MoveList) {
        let v = self.variant();
        let us = self.side_to_move();
        let mut held = [PieceType(0); MAX_HAND_TYPES];
        let mut n = 0;
        for &t in &v.hand_types {
            if self.hand(us, t) > 0 {
                held[n] = t;
                n += 1;
            }
        }
        if n == 0 {
            return;
        }
        let held = &held[..n];
        let pawn_files = self.unpromoted_pawn_files(us);
        for &to in &v.squares {
            if self.cell(to) != Cell::EMPTY {
                continue;
            }
            let rank = v.relative_rank(to, us) as usize;
            for &t in held {
                if rank < v.dead_ranks[t.index()] {
                    continue;
                }
                if Some(t) == v.pawn && pawn_files & (1 << v.geometry.file(to)) != 0 {
                    continue;
                }
                out.push(Move::Drop { piece: t, to });
            }
        }
    }

    /// Bit `f` set for every file `f` holding an unpromoted pawn of `color`.
    fn unpromoted_pawn_files(&self, color: Color) -> u32 {
        let v = self.variant();
        let Some(pawn) = v.pawn else { return 0 };
        let mut files = 0;
        for &sq in &v.squares {
            if let Some(p) = self.piece_at(sq) {
                if p.color == color && p.ptype == pawn && !p.promoted {
                    files |= 1 << v.geometry.file(sq);
                }
            }
        }
        files
    }

    /// Removes the moves that leave the mover's king attacked, and pawn drops that mate.
    fn retain_legal(&self, out: &mut MoveList) {
        let v = self.variant();
        let us = self.side_to_move();
        let them = us.opponent();
        let king = self.royal_square(us);
        let in_check = king.is_some_and(|k| self.attacked_by(k, them));
        let enemy_king = self.royal_square(them);
        let mut scratch: Option<Position> = None;
        out.retain(|&mv| {
            let safe_without_testing = match (mv, king) {
                (_, None) => true,
                (Move::Drop { .. }, Some(_)) => !in_check,
                (Move::Normal { from, .. }, Some(k)) => !in_check && from != k && !v.aligned(from, k),
                (Move::Declare, _) => false,
            };
            let pawn_check = match (mv, enemy_king) {
                (Move::Drop { piece, to }, Some(ek)) if Some(piece) == v.pawn => {
                    to.index() as isize + v.geometry.offset(us, 0, 1) == ek.index() as isize
                }
                _ => false,
            };
            if safe_without_testing && !pawn_check {
                return true;
            }
            let p = scratch.get_or_insert_with(|| self.clone());
            let undo = p.make(mv);
            let legal = !p.in_check(us) && !(pawn_check && !p.has_legal_move());
            p.unmake(mv, undo);
            legal
        });
    }
}

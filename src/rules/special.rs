//! The special move kinds of the large variants, each implemented once for every piece that
//! has it: lion power (igui, double capture, hit-and-run, the pass), area moves, range-jumps,
//! skipping rides, the step out and back that burns, and chu's lion-trading rules.

use super::faces::{direction_offset, FaceMoves};
use super::geometry::Square;
use super::movegen::{Blockers, CellSet, NearSet};
use super::moves::{Move, MoveList};
use super::piece::{Cell, LionPower, Movement, UNLIMITED};
use super::position::Position;

impl Position {
    /// Every move of the piece `cell` on `from` in a variant where check does not matter, one
    /// per effect (`open`: the neighbouring squares that are neither its own side's pieces nor
    /// walls). Returns whether the piece could pass (step out and back changing nothing).
    pub(super) fn large_piece_moves(
        &self,
        out: &mut MoveList,
        from: Square,
        cell: Cell,
        moves: &FaceMoves,
        open: u64,
        blockers: &Blockers,
    ) -> bool {
        let v = self.variant();
        let m = v.faces.movement(cell.face());
        // Two parts of a move reach the same square only near the origin (checked when the
        // variant is built), so only near squares need telling apart.
        let mut seen = NearSet::default();
        let dedupe = v.faces.is_overlapping(cell.face());
        let mut accept = |to: Square| !dedupe || v.geometry.near_bit(from, to).is_none_or(|bit| seen.insert(bit));
        if m.area > 0 {
            self.area_moves(out, from, cell, m.area, blockers, &mut accept);
        }
        self.piece_moves(out, from, cell.color(), moves, open, &mut accept);
        if !m.skip_rides.is_empty() {
            self.skip_ride_moves(out, from, cell, m);
        }
        if m.jump_rank > 0 {
            self.range_jumps(out, from, cell, m, &mut accept);
        }
        if let Some(power) = m.lion {
            self.lion_moves(out, from, cell, power);
        }
        match self.step_out_square(from, cell, m) {
            Some(mid) if self.step_out_and_back_burns(from, cell) => {
                out.push(Move::TwoLeg { from, mid, to: from, promote: false });
                false
            }
            Some(_) => true,
            None => false,
        }
    }

    /// Whether the piece on `from` can step out to `mid` and come back (`mid` empty and one of
    /// its lion or area steps): such a route names its step out and back, or the pass.
    pub(crate) fn can_step_out_via(&self, from: Square, mid: Square) -> bool {
        let v = self.variant();
        let cell = self.cell(from);
        if !cell.is_piece() || self.cell(mid) != Cell::EMPTY || v.geometry.king_distance(from, mid) != 1 {
            return false;
        }
        let m = v.faces.movement(cell.face());
        match m.lion {
            Some(LionPower::Lines(lines)) => {
                lines.iter().any(|&(dx, f)| from.index() as isize + v.geometry.offset(cell.color(), dx, f) == mid.index() as isize)
            }
            Some(LionPower::Full) => true,
            _ => m.area > 0,
        }
    }

    /// An empty square the piece can step to and come back from, if any.
    fn step_out_square(&self, from: Square, cell: Cell, m: &Movement) -> Option<Square> {
        let v = self.variant();
        let empty = |offset: isize| {
            let sq = from.offset(offset);
            (self.cell(sq) == Cell::EMPTY).then_some(sq)
        };
        match m.lion {
            Some(LionPower::Lines(lines)) => lines.iter().find_map(|&(dx, f)| empty(v.geometry.offset(cell.color(), dx, f))),
            Some(LionPower::Full) => v.geometry.king_dirs.iter().find_map(|&d| empty(d)),
            _ if m.area > 0 => v.geometry.king_dirs.iter().find_map(|&d| empty(d)),
            _ => None,
        }
    }

    /// Whether a piece ending its move on `from` burns anything: itself next to an enemy fire
    /// demon, or enemies next to it if it is a fire demon.
    fn step_out_and_back_burns(&self, from: Square, cell: Cell) -> bool {
        let v = self.variant();
        if !v.faces.has_burners() {
            return false;
        }
        let burner = v.faces.is_burner(cell.face());
        v.geometry.king_dirs.iter().any(|&d| {
            let n = self.cell(from.offset(d));
            n.is_enemy_of(cell.color()) && (burner || v.faces.is_burner(n.face()))
        })
    }

    /// Igui, double captures and hit-and-run moves of a piece with lion power (its single steps
    /// and jumps are ordinary rides and leaps).
    fn lion_moves(&self, out: &mut MoveList, from: Square, cell: Cell, power: LionPower) {
        let v = self.variant();
        let us = cell.color();
        let enemy = |c: Cell| c.is_enemy_of(us);
        let at = |sq: isize| self.cell(Square::from_index(sq as usize));
        let s = from.index() as isize;
        let promotion = self.promotion_options(from, cell);
        // Only the start and final squares count for promotion, and whether the move takes
        // anything on either leg (tenjiku §6).
        let mut two_leg = |mid: isize, to: isize| {
            let captures = enemy(at(to)) || enemy(at(mid));
            let (mid, to) = (Square::from_index(mid as usize), Square::from_index(to as usize));
            let (promoting, staying) = promotion.choices(to, captures);
            if promoting {
                out.push(Move::TwoLeg { from, mid, to, promote: true });
            }
            if staying {
                out.push(Move::TwoLeg { from, mid, to, promote: false });
            }
        };
        match power {
            LionPower::Full | LionPower::Igui => {
                for &d in &v.geometry.king_dirs {
                    if !enemy(at(s + d)) {
                        continue;
                    }
                    two_leg(s + d, s);
                    if power == LionPower::Igui {
                        continue;
                    }
                    for &e in &v.geometry.king_dirs {
                        let t = s + d + e;
                        if t != s && (at(t) == Cell::EMPTY || enemy(at(t))) {
                            two_leg(s + d, t);
                        }
                    }
                }
            }
            LionPower::Lines(lines) => {
                for &(dx, f) in lines {
                    let d = v.geometry.offset(us, dx, f);
                    if !enemy(at(s + d)) {
                        continue;
                    }
                    two_leg(s + d, s);
                    if at(s + 2 * d) == Cell::EMPTY || enemy(at(s + 2 * d)) {
                        two_leg(s + d, s + 2 * d);
                    }
                }
            }
        }
    }

    /// Area moves: up to `steps` king steps through empty squares (the origin counts as empty),
    /// ending on an empty square or on the first enemy met (tenjiku-shogi.md §5.2).
    fn area_moves(
        &self,
        out: &mut MoveList,
        from: Square,
        cell: Cell,
        steps: u8,
        blockers: &Blockers,
        accept: &mut impl FnMut(Square) -> bool,
    ) {
        let v = self.variant();
        let promotion = self.promotion_options(from, cell);
        let (mut reached, enemy) = blockers.area(from, steps);
        while reached != 0 {
            let bit = reached.trailing_zeros();
            reached &= reached - 1;
            let to = v.geometry.near_square(from, bit);
            if accept(to) {
                promotion.push(out, from, to, enemy & (1 << bit) != 0);
            }
        }
    }

    /// The moves along the piece's range-jumping rides: the ordinary ride up to and onto the
    /// first piece, then captures by jumping over pieces of lower rank only, never onto a royal
    /// piece (tenjiku-shogi.md §5.3).
    fn range_jumps(&self, out: &mut MoveList, from: Square, cell: Cell, m: &Movement, accept: &mut impl FnMut(Square) -> bool) {
        let v = self.variant();
        let us = cell.color();
        let promotion = self.promotion_options(from, cell);
        let mut dirs = v.faces.moves_of(us, cell.face()).jump_rides;
        while dirs != 0 {
            let offset = direction_offset(dirs.trailing_zeros());
            dirs &= dirs - 1;
            let step = |t: Square| t.offset(offset);
            // The ordinary ride; the jumps start from the piece that stops it.
            let mut t = self.ride(out, from, us, from, offset, UNLIMITED, &promotion, accept);
            if self.cell(t) == Cell::WALL {
                continue;
            }
            while v.faces.rank(self.cell(t).face()) < m.jump_rank {
                t = step(t);
                while self.cell(t) == Cell::EMPTY {
                    t = step(t);
                }
                let target = self.cell(t);
                if target == Cell::WALL {
                    break;
                }
                if target.is_enemy_of(us) && !v.faces.is_royal(target.face()) && accept(t) {
                    promotion.push(out, from, t, true);
                }
            }
        }
    }

    /// Rides that pass over their first square and go on from the second (heavenly tetrarch).
    fn skip_ride_moves(&self, out: &mut MoveList, from: Square, cell: Cell, m: &Movement) {
        let v = self.variant();
        let us = cell.color();
        let promotion = self.promotion_options(from, cell);
        for ride in m.skip_rides {
            for &(dx, f) in ride.dirs {
                let offset = v.geometry.offset(us, dx, f);
                let skipped = from.offset(offset);
                if self.cell(skipped) != Cell::WALL {
                    self.ride(out, from, us, skipped, offset, ride.range - 1, &promotion, &mut |_| true);
                }
            }
        }
    }

    /// Chu's lion-trading rules (chu-shogi.md §6): removes the captures of lions they forbid.
    /// Only moves onto or through an enemy lion's square are looked at closely.
    pub(super) fn retain_lion_trading(&self, out: &mut MoveList) {
        let v = self.variant();
        let them = self.side_to_move().opponent();
        let mut lions = CellSet::default();
        let mut any = false;
        for sq in self.squares_of(them) {
            if v.faces.is_lion(self.cell(sq).face()) {
                lions.insert(sq.index());
                any = true;
            }
        }
        if !any {
            return;
        }
        let touches_lion = |mv: Move| match mv {
            Move::Normal { to, .. } => lions.contains(to.index()),
            Move::TwoLeg { mid, to, .. } => lions.contains(mid.index()) || lions.contains(to.index()),
            _ => false,
        };
        if out.iter().any(|&mv| touches_lion(mv)) {
            out.retain(|&mv| !touches_lion(mv) || self.lion_trading_allows(mv));
        }
    }

    /// Whether chu's lion-trading rules allow `mv`.
    fn lion_trading_allows(&self, mv: Move) -> bool {
        let v = self.variant();
        let us = self.side_to_move();
        let (from, mid) = match mv {
            Move::Normal { from, .. } => (from, None),
            Move::TwoLeg { from, mid, .. } => (from, Some(mid)),
            _ => return true,
        };
        let is_enemy_lion = |sq: Square| {
            let c = self.cell(sq);
            c.is_enemy_of(us) && v.faces.is_lion(c.face())
        };
        if !mv.capture_squares().any(is_enemy_lion) {
            return true;
        }
        let mover_is_lion = v.faces.is_lion(self.cell(from).face());
        // A first victim worth more than a pawn or go-between makes any lion capture legal.
        let bridge = mid.is_some_and(|m| {
            self.piece_at(m).is_some_and(|p| p.color != us && (p.promoted || !matches!(v.piece_spec(p.ptype).abbr, "P" | "GB")))
        });
        mv.capture_squares().filter(|&sq| is_enemy_lion(sq)).all(|sq| {
            if !mover_is_lion {
                return self.counter_strike().is_none_or(|cs| cs == sq);
            }
            v.geometry.king_distance(from, sq) == 1 || bridge || !self.lion_protected(sq, from, mid)
        })
    }

    /// Whether the lion on `target` is protected against a lion coming from `from` (through
    /// `mid`): another piece of its owner attacks `target` with `from` and `mid` taken as
    /// empty, the piece on `mid` still counting as an attacker (chu-shogi.md §6.1).
    fn lion_protected(&self, target: Square, from: Square, mid: Option<Square>) -> bool {
        let v = self.variant();
        let owner = self.cell(target).color();
        if self.attacked_ignoring_two(target, owner, from, mid.unwrap_or(from)) {
            return true;
        }
        mid.is_some_and(|m| {
            let c = self.cell(m);
            c.is_piece()
                && c.color() == owner
                && m != target
                && v.geometry
                    .direction(m, target)
                    .is_some_and(|d| v.geometry.king_distance(m, target) == 1 && v.faces.reach(owner, c.face(), d) >= 1)
        })
    }
}

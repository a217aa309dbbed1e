//! Attack maps: for every square, how many pieces of one side attack it (could move there if it
//! held an enemy piece) and the material value of the cheapest of them. The encoder's threat
//! planes read them.
//!
//! Where attacks follow from steps, rides and jumps alone (standard shogi) the map is exact for
//! every square, the squares of the side's own pieces (defence) included. In the variants whose
//! pieces also attack by lion moves, area moves, igui or burning, the squares that do not hold a
//! piece of the side come from its move generator and are exact too; the squares of its own
//! pieces (how well a piece is defended) count the steps, rides and jumps only.

use super::geometry::BOARD_CELLS;
use super::material::Material;
use super::piece::Cell;
use super::{Color, Move, Position, Square};

/// No attacker: the cheapest value of an unattacked square.
const NONE: i32 = i32::MAX;

/// The attacks of one side on every square of a position.
#[derive(Clone)]
pub struct AttackMap {
    /// Per mailbox cell: attackers.
    count: [u8; BOARD_CELLS],
    /// Per mailbox cell: the value of the cheapest attacker ([`NONE`] when there is none).
    cheapest: [i32; BOARD_CELLS],
}

impl AttackMap {
    /// The attacks of `by` in `pos` (whichever side is to move).
    pub fn of(pos: &Position, by: Color) -> AttackMap {
        let mut map = AttackMap { count: [0; BOARD_CELLS], cheapest: [NONE; BOARD_CELLS] };
        let material = Material::of(pos.variant().id);
        let v = pos.variant();
        if !v.faces.generic_attacks {
            for &sq in v.geometry.squares() {
                map.scan(pos, sq, by, material);
            }
            return map;
        }
        for &sq in v.geometry.squares() {
            if pos.piece_at(sq).is_some_and(|p| p.color == by) {
                map.scan(pos, sq, by, material);
            }
        }
        // Moves come grouped by the piece that makes them, so a piece with several moves onto
        // one square (promoting or not, one leg or two) counts once there.
        let mut last_origin = [Square::from_index(0); BOARD_CELLS];
        for mv in pos.with_mover(by).legal_moves() {
            let (from, targets) = match mv {
                Move::Normal { from, to, .. } => (from, [Some(to), None]),
                Move::TwoLeg { from, mid, to, .. } => (from, [Some(mid), (to != from).then_some(to)]),
                Move::Drop { .. } | Move::Pass | Move::Declare => continue,
            };
            let value = pos.piece_at(from).map_or(0, |p| material.value(p));
            for to in targets.into_iter().flatten() {
                let i = to.index() % BOARD_CELLS;
                if map.count[i] > 0 && last_origin[i] == from {
                    continue;
                }
                last_origin[i] = from;
                map.add(i, value);
            }
        }
        map
    }

    /// How many pieces attack `sq`.
    pub fn count(&self, sq: Square) -> u8 {
        self.count[sq.index() % BOARD_CELLS]
    }

    /// The value of the cheapest piece attacking `sq` (by [`Material`]), if any does.
    pub fn cheapest(&self, sq: Square) -> Option<i32> {
        Some(self.cheapest[sq.index() % BOARD_CELLS]).filter(|&v| v != NONE)
    }

    fn add(&mut self, i: usize, value: i32) {
        self.count[i] = self.count[i].saturating_add(1);
        self.cheapest[i] = self.cheapest[i].min(value);
    }

    /// Counts the pieces of `by` that reach `sq` by a step, a ride or a jump: the first piece
    /// along each king line if its move reaches that far, and the jumpers standing a jump away.
    fn scan(&mut self, pos: &Position, sq: Square, by: Color, material: &Material) {
        let v = pos.variant();
        let i = sq.index() % BOARD_CELLS;
        let mut riders = [usize::MAX; 8];
        for (d, &offset) in v.geometry.king_dirs.iter().enumerate() {
            let mut t = sq;
            let mut distance = 1u8;
            loop {
                t = t.offset(offset);
                let cell = pos.cell(t);
                if cell == Cell::EMPTY {
                    distance = distance.saturating_add(1);
                    continue;
                }
                // The attacker moves the opposite way (d ^ 1) to reach `sq`.
                if cell != Cell::WALL && cell.color() == by && v.faces.reach(by, cell.face(), d ^ 1) >= distance {
                    riders[d] = t.index();
                    self.add(i, pos.piece_at(t).map_or(0, |p| material.value(p)));
                }
                break;
            }
        }
        for &(offset, attackers) in v.faces.leap_attackers(by) {
            let t = sq.offset(-offset);
            let cell = pos.cell(t);
            if cell.is_piece() && cell.color() == by && attackers.contains(cell.face()) && !riders.contains(&t.index()) {
                self.add(i, pos.piece_at(t).map_or(0, |p| material.value(p)));
            }
        }
    }
}

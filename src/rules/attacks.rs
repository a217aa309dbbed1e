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
use super::{Color, Position, Square};

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
        let material = Material::of(pos.variant().id);
        let mut map = AttackMap { count: [0; BOARD_CELLS], cheapest: [NONE; BOARD_CELLS] };
        map.add_steps_rides_and_jumps(pos, by, material);
        if pos.variant().faces.generic_attacks {
            map.replace_from_moves(pos, by, material);
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

    /// Adds, for every piece of `by`, the squares its steps, rides (up to and including the
    /// first piece in the way) and jumps reach, each square once per piece.
    fn add_steps_rides_and_jumps(&mut self, pos: &Position, by: Color, material: &Material) {
        let v = pos.variant();
        // `marked[i] == serial` when the current piece has already counted cell `i`.
        let mut marked = [0u16; BOARD_CELLS];
        for (serial, from) in pos.squares_of(by).enumerate() {
            let serial = serial as u16 + 1;
            let cell = pos.cell(from);
            let value = pos.piece_at(from).map_or(0, |p| material.value(p));
            for (d, &offset) in v.geometry.king_dirs.iter().enumerate() {
                let mut to = from;
                for _ in 0..v.faces.reach(by, cell.face(), d) {
                    to = to.offset(offset);
                    let target = pos.cell(to);
                    if target == Cell::WALL {
                        break;
                    }
                    let i = to.index() % BOARD_CELLS;
                    marked[i] = serial;
                    self.add(i, value);
                    if target != Cell::EMPTY {
                        break;
                    }
                }
            }
            for &(offset, jumpers) in v.faces.leap_attackers(by) {
                let to = from.offset(offset);
                let i = to.index() % BOARD_CELLS;
                if jumpers.contains(cell.face()) && pos.cell(to) != Cell::WALL && marked[i] != serial {
                    marked[i] = serial;
                    self.add(i, value);
                }
            }
        }
    }

    /// Recounts the squares that do not hold a piece of `by` from its moves (lion moves, area
    /// moves and igui included). Moves come grouped by the piece that makes them, so a piece
    /// with several moves onto one square (promoting or not, one leg or two) counts once there.
    fn replace_from_moves(&mut self, pos: &Position, by: Color, material: &Material) {
        for &sq in pos.variant().geometry.squares() {
            if pos.piece_at(sq).is_none_or(|p| p.color != by) {
                let i = sq.index() % BOARD_CELLS;
                (self.count[i], self.cheapest[i]) = (0, NONE);
            }
        }
        let mut last_origin = [Square::from_index(0); BOARD_CELLS];
        for mv in pos.with_mover(by).legal_moves() {
            let Some(from) = mv.origin() else { continue };
            let value = pos.piece_at(from).map_or(0, |p| material.value(p));
            for to in mv.capture_squares().filter(|&to| pos.piece_at(to).is_none_or(|p| p.color != by)) {
                let i = to.index() % BOARD_CELLS;
                if self.count[i] > 0 && last_origin[i] == from {
                    continue;
                }
                last_origin[i] = from;
                self.add(i, value);
            }
        }
    }
}

//! [`MoveShapes`]: the geometric shapes of the board moves a variant can generate, what a
//! policy map needs to give every move an index.

use super::faces::FaceTables;
use super::piece::{dirs, LionPower};

/// The geometric shapes of the board moves a variant can generate, seen from the mover's side
/// as `(dx, forward)` displacements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveShapes {
    /// Displacements of one-leg board moves ([`super::Move::Normal`]), sorted.
    pub one_leg: Vec<(i8, i8)>,
    /// First-leg (origin to first square) and second-leg (first square to final square)
    /// displacements of two-leg moves ([`super::Move::TwoLeg`]), sorted.
    pub two_leg: Vec<((i8, i8), (i8, i8))>,
    /// Whether [`super::Move::Pass`] exists in the variant.
    pub pass: bool,
}

impl MoveShapes {
    /// The move shapes of every piece face of `faces` on a board of `size`.
    pub(crate) fn new(faces: &FaceTables, size: usize) -> MoveShapes {
        let mut one_leg = Vec::new();
        let mut two_leg = Vec::new();
        let mut pass = false;
        for m in faces.movements() {
            one_leg.extend(m.one_leg_displacements(size));
            if m.area > 0 || m.lion == Some(LionPower::Igui) {
                // Igui, and a step out and back that burns.
                two_leg.extend(dirs::ALL.iter().map(|&(dx, f)| ((dx, f), (-dx, -f))));
            }
            match m.lion {
                None | Some(LionPower::Igui) => {}
                Some(LionPower::Full) => {
                    for &first in dirs::ALL {
                        for &second in dirs::ALL {
                            two_leg.push((first, second));
                        }
                    }
                }
                Some(LionPower::Lines(lines)) => {
                    for &(dx, f) in lines {
                        two_leg.push(((dx, f), (-dx, -f)));
                        two_leg.push(((dx, f), (dx, f)));
                    }
                }
            }
            pass |= matches!(m.lion, Some(LionPower::Full | LionPower::Lines(_))) || m.area > 0;
        }
        one_leg.sort_unstable();
        one_leg.dedup();
        two_leg.sort_unstable();
        two_leg.dedup();
        MoveShapes { one_leg, two_leg, pass }
    }
}

//! The per-face move tables of a variant ([`FaceTables`]): every piece face's steps, rides
//! and jumps as the move generator reads them ([`FaceMoves`]), how it attacks along the king
//! directions and by jumps, its promotion choices, and the face properties the rules ask about
//! (royal, lion, fire demon, range-jumping rank).

use super::geometry::{block_bit, Color, Geometry, MAX_SIZE, NEAR_REACH, STRIDE};
use super::piece::{Face, FaceSet, LionPower, Movement, MAX_FACES, UNLIMITED};
use super::variant::VariantSpec;

/// The bit of the king step `offset` in a [`FaceMoves`] direction set: the 3x3 block around
/// a square laid out as in the mailbox, rows [`STRIDE`] bits apart, the block's first cell at
/// bit 0.
pub(crate) const fn direction_bit(offset: isize) -> usize {
    (offset + STRIDE as isize + 1) as usize
}

/// The mailbox offset of a [`FaceMoves`] direction bit (the inverse of [`direction_bit`]).
#[inline(always)]
pub(crate) const fn direction_offset(bit: u32) -> isize {
    bit as isize - (STRIDE as isize + 1)
}

const _: () = assert!(direction_bit(STRIDE as isize + 1) < 64, "a 3x3 block fits in 64 bits");

/// [`FaceMoves::promotion`] bit: the move may promote.
pub(crate) const PROMOTE: u8 = 1;
/// [`FaceMoves::promotion`] bit: the move may leave the piece unpromoted.
pub(crate) const STAY: u8 = 2;

/// One face's rides and leaps for one colour, as the move generator reads them. Directions
/// are bits of the 3x3 block around the piece as it lies in the mailbox rows (see
/// [`direction_bit`]; the piece's own square is never set), so that they can be matched at
/// once against 64 bits of a bit set over the mailbox read from the block's first cell.
#[derive(Copy, Clone, Debug)]
pub(crate) struct FaceMoves {
    /// Directions of its one-square moves.
    pub steps: u64,
    /// Directions of its rides longer than one square, except range-jumping ones.
    pub rides: u64,
    /// Directions of its unlimited rides that also range-jump (tenjiku-shogi.md §5.3).
    pub jump_rides: u64,
    /// `[direction bit]`: how many squares the ride along it goes at most (64 entries, so that
    /// a bit index taken modulo 64 needs no bounds check).
    pub range: [u8; 64],
    /// Its jumps (leaps two squares away) as bits of the 5x5 block around the piece (bit
    /// `5 * row + column`, counted from the lowest cell index).
    pub jumps: u32,
    /// `[from in the zone][destination rank counted from the far side]`: what a move may do
    /// about promotion, as [`PROMOTE`] and [`STAY`] bits for a move that takes nothing, the same
    /// shifted left by 2 for a capture.
    pub promotion: [[u8; MAX_SIZE]; 2],
    /// Whether it has nothing but rides and leaps, which never reach one square twice.
    pub plain: bool,
    /// Directions of the neighbouring squares its steps, rides and area moves start through.
    pub first_squares: u64,
    /// Whether some move of it passes over a neighbouring square (jumps, lion and skipping
    /// moves, range-jumps): without one, a piece whose `first_squares` are all taken by its own
    /// side or walls has no move.
    pub passes_over_pieces: bool,
}

impl Default for FaceMoves {
    fn default() -> FaceMoves {
        FaceMoves {
            steps: 0,
            rides: 0,
            jump_rides: 0,
            range: [0; 64],
            jumps: 0,
            promotion: [[STAY | STAY << 2; MAX_SIZE]; 2],
            plain: false,
            first_squares: 0,
            passes_over_pieces: false,
        }
    }
}

impl FaceMoves {
    /// The tables of face `face`, moving as `m` (`None`: a promoted face that does not exist),
    /// for `color`, whose rides reach `reach` along the king directions. `overlapping`: the
    /// face's move kinds can reach one square in two ways.
    fn new(
        spec: &VariantSpec,
        g: &Geometry,
        color: Color,
        face: Face,
        m: Option<&Movement>,
        reach: &[u8; 8],
        overlapping: bool,
    ) -> FaceMoves {
        let mut moves = FaceMoves::default();
        if let Some(m) = m {
            // Rides along one direction reach what the longest of them reaches.
            for (d, &range) in reach.iter().enumerate() {
                let bit = direction_bit(g.king_dirs[d]);
                match range {
                    0 => {}
                    1 => moves.steps |= 1 << bit,
                    UNLIMITED if m.jump_rank > 0 => moves.jump_rides |= 1 << bit,
                    _ => {
                        moves.rides |= 1 << bit;
                        moves.range[bit] = range;
                    }
                }
            }
            for &(dx, f) in m.leaps {
                let offset = g.offset(color, dx, f);
                assert!(dx.abs() <= 2 && f.abs() <= 2, "{}: a jump goes more than two squares", spec.title);
                if g.king_dirs.contains(&offset) {
                    moves.steps |= (1 << direction_bit(offset)) & !(moves.rides | moves.jump_rides);
                } else {
                    moves.jumps |= 1 << block_bit(offset, 2);
                }
            }
        }
        let piece = &spec.pieces[face.ptype().index()];
        if !face.is_promoted() && piece.promotion.is_some() {
            let dead = piece.movement.dead_ranks();
            moves.promotion =
                [false, true].map(|from_in_zone| std::array::from_fn(|rank| promotion_choices(spec, from_in_zone, rank, dead)));
        }
        moves.plain = !overlapping && m.is_none_or(|m| m.lion.is_none() && m.skip_rides.is_empty() && m.area == 0 && m.jump_rank == 0);
        let area_dirs = match m {
            Some(m) if m.area > 0 => g.king_dirs.iter().fold(0, |dirs, &d| dirs | 1 << direction_bit(d)),
            _ => 0,
        };
        moves.first_squares = moves.steps | moves.rides | moves.jump_rides | area_dirs;
        moves.passes_over_pieces = moves.jumps != 0 || m.is_some_and(|m| m.lion.is_some() || !m.skip_rides.is_empty() || m.jump_rank > 0);
        moves
    }
}

/// The move tables and properties of every face of a variant's pieces.
#[derive(Debug)]
pub(crate) struct FaceTables {
    /// Per face: its movement (`None` for the promoted face of a piece that does not promote).
    movements: Vec<Option<Movement>>,
    /// `[colour][face]`: that face's steps, rides and jumps.
    moves: Box<[[FaceMoves; MAX_FACES]; 2]>,
    /// `[colour][face][d]`: how far a piece of that colour and face moves along king direction `d`.
    ride_reach: [Vec<[u8; 8]>; 2],
    /// `[colour]`: `(offset, faces)`: a piece of one of `faces` standing `offset` away from a
    /// square attacks it by a jump.
    leap_attackers: [Vec<(isize, FaceSet)>; 2],
    /// The royal faces.
    royal: FaceSet,
    /// The faces whose move kinds can reach one square in two ways, so that generation must
    /// drop repeats (one move per effect).
    overlapping: FaceSet,
    /// The fire demons.
    burners: FaceSet,
    /// Per face: its range-jumping rank, 4 for royals (tenjiku-shogi.md §5.3).
    ranks: Vec<u8>,
    /// Whether some face has a move kind the ray-based attack test does not see (area moves,
    /// burning, skipping rides, the tetrarch's igui), so that "attacked" must be found by
    /// trying the opponent's moves.
    pub(crate) generic_attacks: bool,
}

impl FaceTables {
    /// The tables of the faces of `spec`'s pieces on the board of `g`.
    pub(crate) fn new(spec: &VariantSpec, g: &Geometry) -> FaceTables {
        let movements: Vec<Option<Movement>> =
            spec.pieces.iter().flat_map(|p| [Some(p.movement), p.promotion.map(|promo| promo.movement)]).collect();
        // A White cell is 129 + face and must stay below the wall (255).
        assert!(movements.len() <= MAX_FACES - 2, "{}: more piece faces than a cell can hold", spec.title);
        let faces = || (0..movements.len()).map(Face::from_index);
        let movement = |face: Face| movements[face.index()].unwrap_or(Movement::NONE);
        let royal: FaceSet = faces()
            .filter(|&face| {
                let piece = &spec.pieces[face.ptype().index()];
                if face.is_promoted() {
                    piece.promotion.is_some_and(|promo| promo.royal)
                } else {
                    piece.royal
                }
            })
            .collect();
        let overlapping: FaceSet = faces()
            .filter(|&face| {
                let m = movement(face);
                let reach = overlap_reach(&m, spec.size);
                assert!(
                    reach <= NEAR_REACH && (m.area as usize) <= NEAR_REACH,
                    "{}: a piece face overlaps or has area moves beyond {NEAR_REACH} squares, which the move generator's NearSet cannot tell apart",
                    spec.title
                );
                reach > 0
            })
            .collect();
        let burners: FaceSet = faces().filter(|&face| movement(face).burns).collect();
        let ranks = faces().map(|face| if royal.contains(face) { 4 } else { movement(face).jump_rank }).collect();
        let generic_attacks =
            movements.iter().flatten().any(|m| m.area > 0 || m.burns || !m.skip_rides.is_empty() || m.lion == Some(LionPower::Igui));
        let mut moves = Box::new([[FaceMoves::default(); MAX_FACES]; 2]);
        let mut ride_reach: [Vec<[u8; 8]>; 2] = Default::default();
        let mut leap_attackers: [Vec<(isize, FaceSet)>; 2] = Default::default();
        for color in Color::ALL {
            let c = color.index();
            for face in faces() {
                let m = movements[face.index()].as_ref();
                let reach = m.map_or([0; 8], |m| ride_reach_of(m, color, g));
                moves[c][face.index()] = FaceMoves::new(spec, g, color, face, m, &reach, overlapping.contains(face));
                ride_reach[c].push(reach);
                for &(dx, f) in m.map_or(&[][..], |m| m.leaps) {
                    // A jumper `offset` before the target square attacks it.
                    let offset = g.offset(color, dx, f);
                    match leap_attackers[c].iter_mut().find(|(o, _)| *o == offset) {
                        Some((_, attackers)) => attackers.insert(face),
                        None => leap_attackers[c].push((offset, [face].into_iter().collect())),
                    }
                }
            }
        }
        FaceTables { movements, moves, ride_reach, leap_attackers, royal, overlapping, burners, ranks, generic_attacks }
    }

    /// The movement of every face that exists.
    pub(crate) fn movements(&self) -> impl Iterator<Item = &Movement> {
        self.movements.iter().flatten()
    }

    /// The movement of `face`.
    #[inline]
    pub(crate) fn movement(&self, face: Face) -> &Movement {
        self.movements[face.index()].as_ref().unwrap_or(&Movement::NONE)
    }

    /// Whether `face` is royal.
    #[inline]
    pub(crate) fn is_royal(&self, face: Face) -> bool {
        self.royal.contains(face)
    }

    /// Whether `face` can reach a square in two ways.
    #[inline]
    pub(crate) fn is_overlapping(&self, face: Face) -> bool {
        self.overlapping.contains(face)
    }

    /// Whether `face` is a fire demon.
    #[inline]
    pub(crate) fn is_burner(&self, face: Face) -> bool {
        self.burners.contains(face)
    }

    /// Whether the variant has fire demons.
    #[inline]
    pub(crate) fn has_burners(&self) -> bool {
        !self.burners.is_empty()
    }

    /// Range-jumping rank of `face` (royals 4).
    #[inline]
    pub(crate) fn rank(&self, face: Face) -> u8 {
        self.ranks[face.index()]
    }

    /// Whether `face` is a lion for chu's lion-trading rules (full lion power: the lion and
    /// the promoted kirin).
    #[inline]
    pub(crate) fn is_lion(&self, face: Face) -> bool {
        self.movement(face).lion == Some(LionPower::Full)
    }

    /// The steps, rides and jumps of every face of `color`'s pieces, by face index.
    #[inline]
    pub(crate) fn moves(&self, color: Color) -> &[FaceMoves; MAX_FACES] {
        &self.moves[color.index()]
    }

    /// The steps, rides and jumps of `color`'s pieces of face `face`.
    #[inline]
    pub(crate) fn moves_of(&self, color: Color, face: Face) -> &FaceMoves {
        &self.moves(color)[face.index() % MAX_FACES]
    }

    /// How far a piece of `color` and face `face` rides along king direction `d`.
    #[inline]
    pub(crate) fn reach(&self, color: Color, face: Face, d: usize) -> u8 {
        self.ride_reach[color.index()][face.index()][d]
    }

    /// `(offset, faces)` pairs for jump attacks by `color`.
    #[inline]
    pub(crate) fn leap_attackers(&self, color: Color) -> &[(isize, FaceSet)] {
        &self.leap_attackers[color.index()]
    }
}

/// `[d]`: how far the rides of movement `m` of `color` reach along king direction `d` (the
/// longest of the rides along it).
fn ride_reach_of(m: &Movement, color: Color, g: &Geometry) -> [u8; 8] {
    let mut reach = [0u8; 8];
    for ride in m.rides {
        for &(dx, f) in ride.dirs {
            let offset = g.offset(color, dx, f);
            let d = g.king_dirs.iter().position(|&o| o == offset).expect("rides follow king directions");
            reach[d] = reach[d].max(ride.range);
        }
    }
    reach
}

/// The [`PROMOTE`] and [`STAY`] bits of a move of a piece that promotes, from inside the zone or
/// not, to a square `rank` ranks from the far side, for a quiet move and (shifted left by 2) a
/// capture. A piece that could never move again from where it lands must promote if the
/// variant says so.
fn promotion_choices(spec: &VariantSpec, from_in_zone: bool, rank: usize, dead_ranks: usize) -> u8 {
    let allowed = spec.promotion.allowed_cases(from_in_zone);
    let to_in_zone = rank < spec.zone_depth;
    [false, true].iter().fold(0, |bits, &captures| {
        let choices = if rank < dead_ranks {
            PROMOTE | if spec.compulsory_promotion { 0 } else { STAY }
        } else {
            let case = u8::from(to_in_zone) | u8::from(captures) << 1;
            ((allowed >> case & 1) * PROMOTE) | STAY
        };
        bits | choices << (2 * u8::from(captures))
    })
}

/// The farthest (in king steps) that two parts of a movement can reach the same square from
/// the same origin; 0 if they never do. Range jumps land beyond the first piece of a line, so
/// they can meet the piece's jumps and area moves but never its own rides.
fn overlap_reach(m: &Movement, size: usize) -> usize {
    let norm = |&(dx, f): &(i8, i8)| dx.unsigned_abs().max(f.unsigned_abs()) as usize;
    let mut all = m.one_leg_displacements(size);
    all.sort_unstable();
    let repeated = all.windows(2).filter(|w| w[0] == w[1]).map(|w| norm(&w[0]));
    let mut reach = repeated.max().unwrap_or(0);
    if m.jump_rank > 0 {
        let others = Movement { rides: &[], ..*m }.one_leg_displacements(size);
        for ride in m.rides.iter().filter(|r| r.range == UNLIMITED) {
            for &(dx, f) in ride.dirs {
                let on_line = |d: &&(i8, i8)| (2..size as i8).any(|k| (dx * k, f * k) == **d);
                reach = reach.max(others.iter().filter(on_line).map(norm).max().unwrap_or(0));
            }
        }
    }
    reach
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{PieceType, VariantId};

    #[test]
    fn royal_faces_are_the_kings_and_the_crown_prince() {
        let v = VariantId::CHU_SHOGI.variant();
        for (t, p) in v.spec.pieces.iter().enumerate() {
            let ptype = PieceType::new(t);
            assert_eq!(v.faces.is_royal(Face::new(ptype, false)), p.royal, "{}", p.name);
            assert_eq!(v.faces.is_royal(Face::new(ptype, true)), p.promotion.is_some_and(|promo| promo.royal), "{}", p.name);
        }
    }
}

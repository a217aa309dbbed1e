//! Variants: the rules as data ([`VariantSpec`], one per file under `variants/`) and the tables
//! derived from it once per process ([`Variant`]: move offsets, attack tables, Zobrist keys).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::geometry::{Color, Geometry, Square, BOARD_CELLS, MAX_SIZE, PAD, STRIDE};
use super::piece::{Cell, LionPower, Movement, Piece, PieceSpec, PieceType, KINDS, UNLIMITED};
use super::piece::dirs;
use super::variants;
use crate::splitmix::{self, SplitMix64};

/// How far (in king steps) two parts of one piece's move may reach the same square, and how far
/// area moves go, at most: the move generator tells such squares apart in a [`NearSet`].
///
/// [`NearSet`]: super::movegen::NearSet
pub(crate) const NEAR_REACH: usize = 3;
/// Rows and columns of the block of squares within [`NEAR_REACH`] king steps of one square.
pub(crate) const NEAR_SPAN: usize = 2 * NEAR_REACH + 1;

/// Which moves may promote (besides the compulsory promotions of pieces that could never move
/// again, which every variant here allows wherever they happen).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PromotionRule {
    /// Any move that starts or ends in the zone (standard shogi).
    StartOrEnd,
    /// Only a move that starts outside the zone and ends inside it (Heian dai shogi).
    Entering,
    /// A move entering the zone, or a capture that starts or ends in it (chu, dai).
    EnteringOrCapture,
}

impl PromotionRule {
    /// For a move starting in the zone or not: bit `to_in_zone + 2 * captures` set where this
    /// rule lets the move promote.
    fn allowed_cases(self, from_in_zone: bool) -> u8 {
        (0..4).fold(0, |allowed, case| {
            let (to_in_zone, captures) = (case & 1 != 0, case & 2 != 0);
            let yes = match self {
                PromotionRule::StartOrEnd => from_in_zone || to_in_zone,
                PromotionRule::Entering => !from_in_zone && to_in_zone,
                // Entering, or a capture that starts or ends in the zone.
                PromotionRule::EnteringOrCapture => (to_in_zone && !from_in_zone) || (captures && (from_in_zone || to_in_zone)),
            };
            allowed | u8::from(yes) << case
        })
    }
}

/// How repeated positions end or restrict a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RepetitionRule {
    /// The fourth occurrence is a draw, or a loss for a player who checked throughout.
    FourthOccurrence,
    /// A move may not recreate an earlier position unless the mover is in check (dai, tenjiku).
    NoRecreation,
}

/// Which bare-king rule ends the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BareKingRule {
    None,
    /// Heian dai shogi §6.2: baring wins unless the bared king can bare back at once.
    Heian,
    /// Chu shogi §8.2 (lishogi): bare king wins, lone royals draw.
    Chu,
}

/// What makes a move illegal beyond the piece's movement.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Legality {
    /// A move may not leave the mover's king attacked; the game ends by checkmate (shogi).
    SelfCheckIllegal,
    /// Any move is legal, the game is won by capturing the royal pieces (large variants).
    RoyalCapture,
}

/// The rules of one variant, as data.
#[derive(Debug)]
pub struct VariantSpec {
    /// English title.
    pub title: &'static str,
    /// Files and ranks.
    pub size: usize,
    /// Depth of the promotion zone in ranks.
    pub zone_depth: usize,
    /// The piece table.
    pub pieces: &'static [PieceSpec],
    /// The start position in this project's position format.
    pub start: &'static str,
    pub promotion: PromotionRule,
    pub legality: Legality,
    /// Pieces that could never move again must promote (otherwise they may, and stay dead if
    /// they do not: chu's second chance).
    pub compulsory_promotion: bool,
    /// Captured pieces go to the captor's hand and may be dropped (standard shogi).
    pub drops: bool,
    /// The CSA 27-point declaration may be made (standard shogi).
    pub declaration: bool,
    pub bare_king: BareKingRule,
    pub repetition: RepetitionRule,
    /// Chu's lion-trading rules: lion-captures-lion protection and the counter-strike ban.
    pub lion_trading: bool,
    /// Default game length cap in plies, scored as a draw.
    pub default_ply_cap: u32,
}

/// The implemented variants.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum VariantId {
    Shogi,
    HeianDaiShogi,
    ChuShogi,
    DaiShogi,
    TenjikuShogi,
}

impl VariantId {
    /// Every implemented variant.
    pub const ALL: [VariantId; 5] =
        [VariantId::Shogi, VariantId::HeianDaiShogi, VariantId::ChuShogi, VariantId::DaiShogi, VariantId::TenjikuShogi];

    /// The name used on the command line and in files (`shogi`, `heian-dai-shogi`).
    pub fn name(self) -> &'static str {
        match self {
            VariantId::Shogi => "shogi",
            VariantId::HeianDaiShogi => "heian-dai-shogi",
            VariantId::ChuShogi => "chu-shogi",
            VariantId::DaiShogi => "dai-shogi",
            VariantId::TenjikuShogi => "tenjiku-shogi",
        }
    }

    /// The rules data.
    pub fn spec(self) -> &'static VariantSpec {
        match self {
            VariantId::Shogi => &variants::shogi::SPEC,
            VariantId::HeianDaiShogi => &variants::heian_dai_shogi::SPEC,
            VariantId::ChuShogi => &variants::chu_shogi::SPEC,
            VariantId::DaiShogi => &variants::dai_shogi::SPEC,
            VariantId::TenjikuShogi => &variants::tenjiku_shogi::SPEC,
        }
    }

    /// The variant with its derived tables, built on first use.
    pub fn variant(self) -> &'static Variant {
        static TABLES: [OnceLock<Variant>; VariantId::ALL.len()] = [const { OnceLock::new() }; VariantId::ALL.len()];
        TABLES[self as usize].get_or_init(|| Variant::build(self))
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not one of [`VariantId::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{name}' (known variants: {})", known_variant_names())]
pub struct UnknownVariant {
    pub name: String,
}

/// The known variant names, comma separated.
pub fn known_variant_names() -> String {
    VariantId::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
}

impl FromStr for VariantId {
    type Err = UnknownVariant;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        VariantId::ALL
            .into_iter()
            .find(|v| v.name() == name)
            .ok_or_else(|| UnknownVariant { name: name.to_string() })
    }
}

/// The 8 king directions as `(dx, forward)` for Black, in a fixed order; index `d ^ 1` is the
/// opposite of direction `d`.
const KING_DIRS: [(i8, i8); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)];

/// Words of a bit set over the mailbox cells (all [`BOARD_CELLS`] of them).
pub(crate) const CELL_WORDS: usize = BOARD_CELLS / 64;

/// The bit of mailbox offset `offset` (at most `reach` king steps) in the block of squares
/// within `reach` king steps of the origin: bit `span * row + column`, rows and columns counted
/// from the lowest cell index, where `span = 2 * reach + 1`.
fn block_bit(offset: isize, reach: usize) -> usize {
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

/// The geometric shapes of the board moves a variant can generate, seen from the mover's side
/// as `(dx, forward)` displacements: what a policy map needs to give every move an index.
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

/// Zobrist keys of a variant.
#[derive(Debug)]
struct Zobrist {
    pieces: Vec<u64>,
    hands: Vec<u64>,
    side: u64,
    counter_strike: Vec<u64>,
}

/// A variant with everything derived from its [`VariantSpec`].
#[derive(Debug)]
pub struct Variant {
    pub id: VariantId,
    pub spec: &'static VariantSpec,
    pub geometry: Geometry,
    /// The on-board squares, rank a first, each rank from file N down to file 1.
    pub squares: Vec<Square>,
    /// The mailbox of an empty board: walls around empty squares.
    pub(crate) empty_board: [Cell; BOARD_CELLS],
    /// `[colour][face]`: that face's steps, rides and jumps.
    face_moves: Box<[[FaceMoves; KINDS]; 2]>,
    /// The walls around the board, as bits over the mailbox cells.
    pub(crate) wall_bits: [u64; CELL_WORDS],
    /// `[jump]`: the mailbox offset of a [`FaceMoves`] jump bit.
    pub(crate) jump_offsets: [isize; 32],
    /// Mailbox offsets of the 8 king directions, as [`KING_DIRS`] for Black.
    pub(crate) king_dirs: [isize; 8],
    /// King direction index by `3 * (sign(dx) + 1) + sign(dy) + 1` of a mailbox step.
    dir_by_sign: [u8; 9],
    /// `[colour][kind][d]`: how far a piece of that colour and face moves along king direction `d`.
    ride_reach: [Vec<[u8; 8]>; 2],
    /// `[colour]`: `(offset, kinds)`: a piece of one of `kinds` (bit set) standing `offset` away
    /// from a square attacks it by a jump.
    leap_attackers: [Vec<(isize, u128)>; 2],
    /// Depth of the promotion zone in ranks.
    pub(crate) zone_depth: u8,
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
    /// Bit `kind` set for royal faces.
    royal_kinds: u128,
    /// Per face: its movement (`None` for the promoted face of a piece that does not promote).
    faces: Vec<Option<Movement>>,
    /// Bit `kind` set for faces whose move kinds can reach one square in two ways, so that
    /// generation must drop repeats (one move per effect).
    overlapping_kinds: u128,
    /// Bit `kind` set for fire demons.
    burner_kinds: u128,
    /// Per face: its range-jumping rank, 4 for royals (tenjiku-shogi.md §5.3).
    ranks: Vec<u8>,
    /// Whether some piece has a move kind the ray-based attack test does not see (area moves,
    /// burning, skipping rides, the tetrarch's igui), so that "attacked" must be found by
    /// trying the opponent's moves.
    pub(crate) generic_attacks: bool,
    /// Per type: an unpromoted piece of that type on a relative rank below this can never move.
    pub dead_ranks: Vec<usize>,
    /// Per type: the most pieces of that type one hand can hold (all of them in the game).
    pub max_in_hand: Vec<u8>,
    /// Droppable types in piece-table order (the order hands are written in).
    pub hand_types: Vec<PieceType>,
    /// The pawn, for the drop rules (two pawns on a file, pawn-drop mate).
    pub pawn: Option<PieceType>,
    /// Every shape a board move can have.
    pub move_shapes: MoveShapes,
    zobrist: Zobrist,
}

impl Variant {
    fn build(id: VariantId) -> Variant {
        let spec = id.spec();
        let geometry = Geometry::new(spec.size);
        let mut empty_board = [Cell::WALL; BOARD_CELLS];
        let mut squares = Vec::with_capacity(spec.size * spec.size);
        for y in 0..spec.size {
            for x in 0..spec.size {
                let sq = geometry.square(x, y);
                empty_board[sq.index()] = Cell::EMPTY;
                squares.push(sq);
            }
        }
        let faces: Vec<Option<Movement>> = spec
            .pieces
            .iter()
            .flat_map(|p| [Some(p.movement), p.promotion.map(|promo| promo.movement)])
            .collect();
        let mut royal_kinds = 0u128;
        let mut promotable_kinds = 0u128;
        for (t, p) in spec.pieces.iter().enumerate() {
            promotable_kinds |= u128::from(p.promotion.is_some()) << (2 * t);
            royal_kinds |= u128::from(p.royal) << (2 * t) | u128::from(p.promotion.is_some_and(|promo| promo.royal)) << (2 * t + 1);
        }
        let mut overlapping_kinds = 0u128;
        let mut burner_kinds = 0u128;
        let mut ranks = Vec::new();
        for (kind, face) in faces.iter().enumerate() {
            let m = face.unwrap_or(Movement::NONE);
            let reach = overlap_reach(&m, spec.size);
            assert!(
                reach <= NEAR_REACH && (m.area as usize) <= NEAR_REACH,
                "{}: a piece face overlaps or has area moves beyond {NEAR_REACH} squares, which the move generator's NearSet cannot tell apart",
                spec.title
            );
            let overlap = reach > 0;
            overlapping_kinds |= u128::from(overlap) << kind;
            burner_kinds |= u128::from(m.burns) << kind;
            ranks.push(if royal_kinds & (1 << kind) != 0 { 4 } else { m.jump_rank });
        }
        let generic_attacks = faces
            .iter()
            .flatten()
            .any(|m| m.area > 0 || m.burns || !m.skip_rides.is_empty() || m.lion == Some(LionPower::Igui));
        let king_dirs = KING_DIRS.map(|(dx, f)| geometry.offset(Color::Black, dx, f));
        let mut dir_by_sign = [u8::MAX; 9];
        for (d, &(dx, f)) in KING_DIRS.iter().enumerate() {
            // Board rows grow towards Black, so Black's forward is a negative row step.
            dir_by_sign[(3 * (dx + 1) + (-f + 1)) as usize] = d as u8;
        }
        let near_offsets = std::array::from_fn(|bit| block_offset(bit, NEAR_REACH) as i16);
        let dead_ranks: Vec<usize> = spec.pieces.iter().map(|p| dead_ranks(&p.movement)).collect();
        // A White cell is 129 + kind and must stay below the wall (255).
        assert!(faces.len() <= KINDS - 2, "{}: more piece faces than a cell can hold", spec.title);
        let mut face_moves = Box::new([[FaceMoves::default(); KINDS]; 2]);
        let mut ride_reach: [Vec<[u8; 8]>; 2] = Default::default();
        let mut leap_attackers: [Vec<(isize, u128)>; 2] = Default::default();
        for color in Color::ALL {
            let c = color.index();
            for (kind, face) in faces.iter().enumerate() {
                let mut moves = FaceMoves::default();
                let mut reach = [0u8; 8];
                if let Some(m) = face {
                    for ride in m.rides {
                        for &(dx, f) in ride.dirs {
                            let offset = geometry.offset(color, dx, f);
                            let d = king_dirs.iter().position(|&o| o == offset).expect("rides follow king directions");
                            reach[d] = reach[d].max(ride.range);
                        }
                    }
                    // Rides along one direction reach what the longest of them reaches.
                    for (d, &range) in reach.iter().enumerate() {
                        let bit = direction_bit(king_dirs[d]);
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
                        let offset = geometry.offset(color, dx, f);
                        assert!(dx.abs() <= 2 && f.abs() <= 2, "{}: a jump goes more than two squares", spec.title);
                        if king_dirs.contains(&offset) {
                            moves.steps |= (1 << direction_bit(offset)) & !(moves.rides | moves.jump_rides);
                        } else {
                            moves.jumps |= 1 << block_bit(offset, 2);
                        }
                        // A jumper `offset` before the target square attacks it.
                        match leap_attackers[c].iter_mut().find(|(o, _)| *o == offset) {
                            Some((_, kinds)) => *kinds |= 1 << kind,
                            None => leap_attackers[c].push((offset, 1 << kind)),
                        }
                    }
                }
                if promotable_kinds & (1 << kind) != 0 {
                    let dead = dead_ranks[kind >> 1];
                    moves.promotion = [false, true].map(|from_in_zone| {
                        std::array::from_fn(|rank| promotion_choices(&spec, from_in_zone, rank, dead))
                    });
                }
                moves.plain = overlapping_kinds & (1 << kind) == 0
                    && face.is_none_or(|m| m.lion.is_none() && m.skip_rides.is_empty() && m.area == 0 && m.jump_rank == 0);
                let area_dirs = match face {
                    Some(m) if m.area > 0 => king_dirs.iter().fold(0, |dirs, &d| dirs | 1 << direction_bit(d)),
                    _ => 0,
                };
                moves.first_squares = moves.steps | moves.rides | moves.jump_rides | area_dirs;
                moves.passes_over_pieces = moves.jumps != 0
                    || face.is_some_and(|m| m.lion.is_some() || !m.skip_rides.is_empty() || m.jump_rank > 0);
                face_moves[c][kind] = moves;
                ride_reach[c].push(reach);
            }
        }
        let mut wall_bits = [0u64; CELL_WORDS];
        for (i, &cell) in empty_board.iter().enumerate() {
            if cell == Cell::WALL {
                wall_bits[i / 64] |= 1 << (i % 64);
            }
        }
        let jump_offsets = std::array::from_fn(|bit| if bit < 25 { block_offset(bit, 2) } else { 0 });
        let cell_xy: Vec<(u8, u8)> = (0..geometry.cells())
            .map(|i| if geometry.on_board(i) { let (x, y) = geometry.xy(Square(i as u16)); (x as u8, y as u8) } else { (u8::MAX, u8::MAX) })
            .collect();
        let relative_ranks = Color::ALL.map(|color| {
            let mut ranks = [u8::MAX; BOARD_CELLS];
            for &sq in &squares {
                ranks[sq.index()] = geometry.relative_rank(sq, color) as u8;
            }
            ranks
        });
        let near_origin = NEAR_REACH * (STRIDE + 1);
        let mut near_bits = vec![u8::MAX; 2 * near_origin + 1];
        for bit in 0..NEAR_SPAN * NEAR_SPAN {
            near_bits[(near_origin as isize + block_offset(bit, NEAR_REACH)) as usize] = bit as u8;
        }
        let pawn = spec.pieces.iter().position(|p| p.abbr == "P").map(|i| PieceType(i as u8));
        let hand_types: Vec<PieceType> = if spec.drops {
            (0..spec.pieces.len()).filter(|&i| !spec.pieces[i].royal).map(|i| PieceType(i as u8)).collect()
        } else {
            Vec::new()
        };
        let max_in_hand = max_in_hand(spec);
        let move_shapes = move_shapes(spec, &faces);
        let zobrist = Zobrist::new(id as u64, geometry.cells(), faces.len(), &max_in_hand);
        Variant {
            id,
            spec,
            geometry,
            squares,
            empty_board,
            face_moves,
            wall_bits,
            jump_offsets,
            king_dirs,
            dir_by_sign,
            ride_reach,
            leap_attackers,
            zone_depth: spec.zone_depth.min(u8::MAX as usize) as u8,
            relative_ranks,
            cell_xy,
            near_bits,
            near_origin,
            near_offsets,
            royal_kinds,
            faces,
            overlapping_kinds,
            burner_kinds,
            ranks,
            generic_attacks,
            dead_ranks,
            max_in_hand,
            hand_types,
            pawn,
            move_shapes,
            zobrist,
        }
    }

    /// Whether the face `kind` is royal.
    #[inline]
    pub(crate) fn is_royal_kind(&self, kind: usize) -> bool {
        self.royal_kinds & (1 << kind) != 0
    }

    /// Whether `piece` is royal (king, crown prince).
    pub fn is_royal(&self, piece: Piece) -> bool {
        self.is_royal_kind(2 * piece.ptype.index() + usize::from(piece.promoted))
    }

    /// The movement of face `kind`.
    #[inline]
    pub(crate) fn face(&self, kind: usize) -> &Movement {
        self.faces[kind].as_ref().unwrap_or(&Movement::NONE)
    }

    /// Whether face `kind` can reach a square in two ways.
    #[inline]
    pub(crate) fn is_overlapping_kind(&self, kind: usize) -> bool {
        self.overlapping_kinds & (1 << kind) != 0
    }

    /// Whether face `kind` is a fire demon.
    #[inline]
    pub(crate) fn is_burner_kind(&self, kind: usize) -> bool {
        self.burner_kinds & (1 << kind) != 0
    }

    /// Whether the variant has fire demons.
    #[inline]
    pub(crate) fn has_burners(&self) -> bool {
        self.burner_kinds != 0
    }

    /// Range-jumping rank of face `kind` (royals 4).
    #[inline]
    pub(crate) fn rank(&self, kind: usize) -> u8 {
        self.ranks[kind]
    }

    /// Whether face `kind` is a lion for chu's lion-trading rules (full lion power: the lion and
    /// the promoted kirin).
    #[inline]
    pub(crate) fn is_lion_kind(&self, kind: usize) -> bool {
        self.face(kind).lion == Some(LionPower::Full)
    }

    /// The CLI name.
    pub fn name(&self) -> &'static str {
        self.id.name()
    }

    /// The row of the piece table for `ptype`.
    #[inline]
    pub fn piece_spec(&self, ptype: PieceType) -> &'static PieceSpec {
        &self.spec.pieces[ptype.index()]
    }

    /// Number of piece faces (`2 * piece types`), the range of cell kinds.
    pub fn kinds(&self) -> usize {
        2 * self.spec.pieces.len()
    }

    /// Whether `sq` lies in `color`'s promotion zone.
    #[inline]
    pub fn in_zone(&self, sq: Square, color: Color) -> bool {
        (self.relative_rank(sq, color) as usize) < self.spec.zone_depth
    }

    /// `[cell]`: the rank of each cell counted from `color`'s far side.
    #[inline]
    pub(crate) fn relative_ranks(&self, color: Color) -> &[u8; BOARD_CELLS] {
        &self.relative_ranks[color.index()]
    }

    /// Rank of `sq` counted from `color`'s far side (0 = `color`'s last rank).
    #[inline]
    pub fn relative_rank(&self, sq: Square, color: Color) -> u8 {
        self.relative_ranks[color.index()][sq.index()]
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

    /// The square of bit `bit` of a [`NearSet`] around `from`.
    ///
    /// [`NearSet`]: super::movegen::NearSet
    #[inline]
    pub(crate) fn near_square(&self, from: Square, bit: u32) -> Square {
        Square((from.index() as isize + self.near_offsets[bit as usize] as isize) as u16)
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

    /// The steps, rides and jumps of a piece face.
    #[inline]
    pub(crate) fn moves_of(&self, color: Color, kind: usize) -> &FaceMoves {
        &self.faces_of(color)[kind % KINDS]
    }

    /// The steps, rides and jumps of every face of `color`'s pieces, by face.
    #[inline]
    pub(crate) fn faces_of(&self, color: Color) -> &[FaceMoves; KINDS] {
        &self.face_moves[color.index()]
    }


    /// How far a piece of `color` and face `kind` rides along king direction `d`.
    #[inline]
    pub(crate) fn reach(&self, color: Color, kind: usize, d: usize) -> u8 {
        self.ride_reach[color.index()][kind][d]
    }

    /// `(offset, kinds)` pairs for jump attacks by `color`.
    #[inline]
    pub(crate) fn leap_attackers(&self, color: Color) -> &[(isize, u128)] {
        &self.leap_attackers[color.index()]
    }

    /// The Zobrist key of `cell` (a piece) on `sq`.
    #[inline]
    pub(crate) fn piece_key(&self, cell: Cell, sq: Square) -> u64 {
        let code = cell.color().index() * self.kinds() + cell.kind();
        self.zobrist.pieces[code * self.geometry.cells() + sq.index()]
    }

    /// The Zobrist key of `color` holding `count` pieces of `ptype` in hand.
    #[inline]
    pub(crate) fn hand_key(&self, color: Color, ptype: PieceType, count: u8) -> u64 {
        let stride = MAX_HAND_KEYS;
        self.zobrist.hands[(color.index() * self.spec.pieces.len() + ptype.index()) * stride + count as usize]
    }

    /// The Zobrist key of chu's counter-strike square being `sq`.
    #[inline]
    pub(crate) fn counter_strike_key(&self, sq: Square) -> u64 {
        self.zobrist.counter_strike[sq.index()]
    }

    /// The Zobrist key of White to move.
    #[inline]
    pub(crate) fn side_key(&self) -> u64 {
        self.zobrist.side
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

    /// Whether `sq` is a mailbox index of this board (walls excluded).
    pub fn contains(&self, sq: Square) -> bool {
        sq.index() < self.geometry.cells() && self.geometry.on_board(sq.index())
    }
}

/// Hand counts get keys for 0..MAX_HAND_KEYS pieces.
const MAX_HAND_KEYS: usize = 40;

impl Zobrist {
    fn new(seed: u64, cells: usize, kinds: usize, max_in_hand: &[u8]) -> Zobrist {
        let mut keys = SplitMix64::new(0x5EED_0F5E_0000_0000 ^ seed.wrapping_mul(splitmix::GAMMA));
        let pieces = (0..2 * kinds * cells).map(|_| keys.next_u64()).collect();
        // Count 0 has key 0, so an empty hand contributes nothing.
        let hands = (0..2 * max_in_hand.len() * MAX_HAND_KEYS)
            .map(|i| if i % MAX_HAND_KEYS == 0 { 0 } else { keys.next_u64() })
            .collect();
        let side = keys.next_u64();
        let counter_strike = (0..cells).map(|_| keys.next_u64()).collect();
        Zobrist { pieces, hands, side, counter_strike }
    }
}

/// [`FaceMoves::promotion`] bit: the move may promote.
pub(crate) const PROMOTE: u8 = 1;
/// [`FaceMoves::promotion`] bit: the move may leave the piece unpromoted.
pub(crate) const STAY: u8 = 2;

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
            (allowed >> case & 1) * PROMOTE | STAY
        };
        bits | choices << (2 * u8::from(captures))
    })
}

/// The number `n` of last ranks on which a piece with this movement could never move again:
/// the smallest forward distance of its moves when all of them go forward, else 0. (Pawn and
/// lance: 1, knight: 2.)
fn dead_ranks(m: &Movement) -> usize {
    let forwards = m.rides.iter().flat_map(|r| r.dirs.iter()).chain(m.leaps.iter()).map(|&(_, f)| f);
    forwards.map(|f| f.max(0) as usize).min().unwrap_or(0)
}

/// Every displacement a one-leg move of this movement can have on a board of `size`, once per
/// move kind that reaches it (rides, leaps, skipping rides, area moves).
fn one_leg_displacements(m: &Movement, size: usize) -> Vec<(i8, i8)> {
    let longest = size as i8 - 1;
    let mut out = Vec::new();
    let mut ride = |dirs: &[(i8, i8)], first: i8, range: u8| {
        for &(dx, f) in dirs {
            for k in first..=longest.min(range.min(i8::MAX as u8) as i8) {
                out.push((dx * k, f * k));
            }
        }
    };
    for r in m.rides {
        ride(r.dirs, 1, r.range);
    }
    for r in m.skip_rides {
        ride(r.dirs, 2, r.range);
    }
    out.extend_from_slice(m.leaps);
    let area = m.area as i8;
    for dx in -area..=area {
        for f in -area..=area {
            if (dx, f) != (0, 0) {
                out.push((dx, f));
            }
        }
    }
    out
}

/// The move shapes of every piece face.
fn move_shapes(spec: &VariantSpec, faces: &[Option<Movement>]) -> MoveShapes {
    let mut one_leg = Vec::new();
    let mut two_leg = Vec::new();
    let mut pass = false;
    for m in faces.iter().flatten() {
        one_leg.extend(one_leg_displacements(m, spec.size));
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

/// The farthest (in king steps) that two parts of a movement can reach the same square from
/// the same origin; 0 if they never do. Range jumps land beyond the first piece of a line, so
/// they can meet the piece's jumps and area moves but never its own rides.
fn overlap_reach(m: &Movement, size: usize) -> usize {
    let norm = |&(dx, f): &(i8, i8)| dx.unsigned_abs().max(f.unsigned_abs()) as usize;
    let mut all = one_leg_displacements(m, size);
    all.sort_unstable();
    let repeated = all.windows(2).filter(|w| w[0] == w[1]).map(|w| norm(&w[0]));
    let mut reach = repeated.max().unwrap_or(0);
    if m.jump_rank > 0 {
        let others = one_leg_displacements(&Movement { rides: &[], ..*m }, size);
        for ride in m.rides.iter().filter(|r| r.range == UNLIMITED) {
            for &(dx, f) in ride.dirs {
                let on_line = |d: &&(i8, i8)| (2..size as i8).any(|k| (dx * k, f * k) == **d);
                reach = reach.max(others.iter().filter(on_line).map(norm).max().unwrap_or(0));
            }
        }
    }
    reach
}

/// Per type, how many pieces of it the whole game holds (both sides), the most one hand can hold.
fn max_in_hand(spec: &VariantSpec) -> Vec<u8> {
    let board = spec.start.split(' ').next().unwrap_or("");
    spec.pieces
        .iter()
        .map(|p| {
            if p.royal || !spec.drops {
                return 0;
            }
            let letter = p.abbr.chars().next().unwrap_or(' ');
            let n = board.chars().filter(|c| c.eq_ignore_ascii_case(&letter)).count();
            n.min(MAX_HAND_KEYS - 1) as u8
        })
        .collect()
}

const _: () = assert!(PAD >= 2, "jumps go two squares");

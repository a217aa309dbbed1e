//! Variants: the rules as data ([`VariantSpec`], one per file under `variants/`) and what is
//! derived from it once per process ([`Variant`]: the board geometry, the per-face move tables,
//! the Zobrist keys, hand and drop data).

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use super::faces::FaceTables;
use super::geometry::{Color, Geometry, Square};
use super::piece::{Face, Piece, PieceSpec, PieceType};
use super::shapes::MoveShapes;
use super::variants;
use super::zobrist::{Zobrist, MAX_HAND_KEYS};

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
    pub(crate) fn allowed_cases(self, from_in_zone: bool) -> u8 {
        (0..4).fold(0, |allowed, case| {
            let (to_in_zone, captures) = (case & 1 != 0, case & 2 != 0);
            let yes = match self {
                PromotionRule::StartOrEnd => from_in_zone || to_in_zone,
                PromotionRule::Entering => !from_in_zone && to_in_zone,
                // Entering, or a capture that starts or ends in the zone (one that ends there from
                // outside is entering).
                PromotionRule::EnteringOrCapture => (to_in_zone && !from_in_zone) || (captures && from_in_zone),
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
        VariantId::ALL.into_iter().find(|v| v.name() == name).ok_or_else(|| UnknownVariant { name: name.to_string() })
    }
}

/// A variant with everything derived from its [`VariantSpec`].
#[derive(Debug)]
pub struct Variant {
    pub id: VariantId,
    pub spec: &'static VariantSpec,
    /// The board: squares, mailbox layout and the tables derived from the board size.
    pub geometry: Geometry,
    /// The moves and properties of every piece face.
    pub(crate) faces: FaceTables,
    /// Depth of the promotion zone in ranks.
    pub(crate) zone_depth: u8,
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
    /// The keys of a position's hash.
    pub(crate) zobrist: Zobrist,
}

impl Variant {
    /// Derives everything of variant `id` from its rules data.
    fn build(id: VariantId) -> Variant {
        let spec = id.spec();
        let geometry = Geometry::new(spec.size);
        let faces = FaceTables::new(spec, &geometry);
        let types = || (0..spec.pieces.len()).map(PieceType::new);
        let hand_types = if spec.drops { types().filter(|&t| !spec.pieces[t.index()].royal).collect() } else { Vec::new() };
        Variant {
            id,
            spec,
            zone_depth: spec.zone_depth.min(u8::MAX as usize) as u8,
            dead_ranks: spec.pieces.iter().map(|p| p.movement.dead_ranks()).collect(),
            max_in_hand: max_in_hand(spec),
            hand_types,
            pawn: types().find(|&t| spec.pieces[t.index()].abbr == "P"),
            move_shapes: MoveShapes::new(&faces, spec.size),
            zobrist: Zobrist::new(id, spec.pieces.len()),
            geometry,
            faces,
        }
    }

    /// Whether `piece` is royal (king, crown prince).
    pub fn is_royal(&self, piece: Piece) -> bool {
        self.faces.is_royal(Face::new(piece.ptype, piece.promoted))
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

    /// Whether `sq` lies in `color`'s promotion zone.
    #[inline]
    pub fn in_zone(&self, sq: Square, color: Color) -> bool {
        self.geometry.relative_rank(sq, color) < self.spec.zone_depth
    }
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

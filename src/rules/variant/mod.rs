//! Variants: the rules as data ([`VariantSpec`], read from a variant file), the handle of a
//! variant known to the process ([`VariantId`]) and what is derived from the rules once per
//! process ([`Variant`]: the board geometry, the per-face move tables, the Zobrist keys, hand and
//! drop data).

mod registry;

pub use registry::MAX_VARIANTS;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::faces::FaceTables;
use super::geometry::{Color, Geometry, Square};
use super::piece::{Face, Piece, PieceSpec, PieceType};
use super::shapes::MoveShapes;
use super::variant_file::VariantFileError;
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
    /// The same, but the fourth occurrence loses for Black (minishogi).
    FourthOccurrenceBlackLoses,
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

/// The rules of one variant, as data: read from its variant file ([`super::variant_file`]).
#[derive(Debug)]
pub struct VariantSpec {
    /// The name on the command line and in files (`shogi`, `heian-dai-shogi`).
    pub name: &'static str,
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
    /// How USI engines name the variant (`UCI_Variant`), where they play it.
    pub usi_variant: Option<&'static str>,
    /// How XBoard engines name the variant, where they play it.
    pub xboard_variant: Option<&'static str>,
    /// The hash of the rules as read from the file, which checkpoints record.
    pub rules_hash: u64,
}

/// A variant known to this process: one of the variant files embedded in the program
/// (`variants/*.toml`, the five of `shared/rules/` first) or a file read at run time.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VariantId(u8);

impl VariantId {
    /// Standard shogi.
    pub const SHOGI: VariantId = VariantId(0);
    /// Heian dai shogi.
    pub const HEIAN_DAI_SHOGI: VariantId = VariantId(1);
    /// Chu shogi.
    pub const CHU_SHOGI: VariantId = VariantId(2);
    /// Dai shogi.
    pub const DAI_SHOGI: VariantId = VariantId(3);
    /// Tenjiku shogi.
    pub const TENJIKU_SHOGI: VariantId = VariantId(4);
    /// The five variants of `shared/rules/`.
    pub const ALL: [VariantId; 5] =
        [VariantId::SHOGI, VariantId::HEIAN_DAI_SHOGI, VariantId::CHU_SHOGI, VariantId::DAI_SHOGI, VariantId::TENJIKU_SHOGI];

    /// Every variant embedded in the program, the five of [`VariantId::ALL`] first.
    pub fn embedded() -> Vec<VariantId> {
        (0..registry::embedded_count()).map(VariantId::from_index).collect()
    }

    /// Every variant the process knows: the embedded ones, then the files read so far.
    pub fn known() -> Vec<VariantId> {
        (0..registry::names().len()).map(VariantId::from_index).collect()
    }

    pub(crate) fn from_index(index: usize) -> VariantId {
        VariantId(index as u8)
    }

    /// The position in the process's list of variants (below [`MAX_VARIANTS`]).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The name used on the command line and in files (`shogi`, `heian-dai-shogi`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The rules data.
    pub fn spec(self) -> &'static VariantSpec {
        self.variant().spec
    }

    /// The variant with its derived tables, built on first use.
    #[inline]
    pub fn variant(self) -> &'static Variant {
        registry::variant(self)
    }

    /// Where the rules come from: the embedded file's name or the path read.
    pub fn source(self) -> String {
        registry::source(self)
    }

    /// Whether the variant's file is embedded in the program.
    pub fn is_embedded(self) -> bool {
        self.index() < registry::embedded_count()
    }

    /// Reads the variant file at `path` (or finds it already read). A second file with the
    /// name of a known variant but other rules is an error.
    pub fn load(path: &Path) -> Result<VariantId, VariantError> {
        registry::load(path)
    }
}

impl fmt::Display for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for VariantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant that could not be found or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VariantError {
    #[error("unknown variant '{name}' (known variants: {known}; or give the path of a variant file)")]
    Unknown { name: String, known: String },
    #[error(transparent)]
    File(#[from] VariantFileError),
    #[error("variant file {path}: the start position: {message}")]
    Start { path: String, message: String },
    #[error("variant file {path} names variant '{name}', which {other} already defines with other rules")]
    Clash { path: String, name: String, other: String },
    #[error("more than {} variants in one process", registry::MAX_VARIANTS)]
    TooMany,
}

/// The known variant names, comma separated.
pub fn known_variant_names() -> String {
    registry::names().join(", ")
}

impl FromStr for VariantId {
    type Err = VariantError;

    /// A known variant's name, or the path of a variant file (`.toml`).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        if let Some(id) = registry::find(name) {
            return Ok(id);
        }
        let path = Path::new(name);
        if name.ends_with(".toml") || path.is_file() {
            return VariantId::load(path);
        }
        Err(VariantError::Unknown { name: name.to_string(), known: known_variant_names() })
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
    fn build(id: VariantId, spec: &'static VariantSpec) -> Variant {
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
            zobrist: Zobrist::new(spec.name, spec.pieces.len()),
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
        self.spec.name
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

//! Standard shogi (shared/rules/shogi.md).

use crate::rules::piece::{moves, PieceSpec};
use crate::rules::variant::{Legality, PromotionRule, VariantSpec};

/// Piece table; the order of the droppable pieces is the order hands are written in SFEN.
const PIECES: &[PieceSpec] = &[
    PieceSpec { name: "King", abbr: "K", movement: moves::KING, promotion: None, royal: true, points: 0 },
    PieceSpec { name: "Rook", abbr: "R", movement: moves::ROOK, promotion: Some(("Dragon", moves::DRAGON)), royal: false, points: 5 },
    PieceSpec { name: "Bishop", abbr: "B", movement: moves::BISHOP, promotion: Some(("Horse", moves::HORSE)), royal: false, points: 5 },
    PieceSpec { name: "Gold general", abbr: "G", movement: moves::GOLD, promotion: None, royal: false, points: 1 },
    PieceSpec { name: "Silver general", abbr: "S", movement: moves::SILVER, promotion: Some(("Promoted silver", moves::GOLD)), royal: false, points: 1 },
    PieceSpec { name: "Knight", abbr: "N", movement: moves::KNIGHT, promotion: Some(("Promoted knight", moves::GOLD)), royal: false, points: 1 },
    PieceSpec { name: "Lance", abbr: "L", movement: moves::LANCE, promotion: Some(("Promoted lance", moves::GOLD)), royal: false, points: 1 },
    PieceSpec { name: "Pawn", abbr: "P", movement: moves::PAWN, promotion: Some(("Tokin", moves::GOLD)), royal: false, points: 1 },
];

/// Standard shogi.
pub static SPEC: VariantSpec = VariantSpec {
    title: "Shogi",
    size: 9,
    zone_depth: 3,
    pieces: PIECES,
    start: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    promotion: PromotionRule::StartOrEnd,
    legality: Legality::SelfCheckIllegal,
    drops: true,
    declaration: true,
    bare_king: false,
    default_ply_cap: 512,
};

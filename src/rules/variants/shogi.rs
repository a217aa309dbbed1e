//! Standard shogi (shared/rules/shogi.md).

use crate::rules::piece::{moves, promotes_to, PieceSpec};
use crate::rules::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};

/// Piece table; the order of the droppable pieces is the order hands are written in SFEN.
const PIECES: &[PieceSpec] = &[
    PieceSpec { name: "King", abbr: "K", movement: moves::KING, promotion: None, royal: true, points: 0 },
    PieceSpec { name: "Rook", abbr: "R", movement: moves::ROOK, promotion: promotes_to("Dragon", moves::DRAGON), royal: false, points: 5 },
    PieceSpec {
        name: "Bishop",
        abbr: "B",
        movement: moves::BISHOP,
        promotion: promotes_to("Horse", moves::HORSE),
        royal: false,
        points: 5,
    },
    PieceSpec { name: "Gold general", abbr: "G", movement: moves::GOLD, promotion: None, royal: false, points: 1 },
    PieceSpec {
        name: "Silver general",
        abbr: "S",
        movement: moves::SILVER,
        promotion: promotes_to("Promoted silver", moves::GOLD),
        royal: false,
        points: 1,
    },
    PieceSpec {
        name: "Knight",
        abbr: "N",
        movement: moves::KNIGHT,
        promotion: promotes_to("Promoted knight", moves::GOLD),
        royal: false,
        points: 1,
    },
    PieceSpec {
        name: "Lance",
        abbr: "L",
        movement: moves::LANCE,
        promotion: promotes_to("Promoted lance", moves::GOLD),
        royal: false,
        points: 1,
    },
    PieceSpec { name: "Pawn", abbr: "P", movement: moves::PAWN, promotion: promotes_to("Tokin", moves::GOLD), royal: false, points: 1 },
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
    compulsory_promotion: true,
    drops: true,
    declaration: true,
    bare_king: BareKingRule::None,
    repetition: RepetitionRule::FourthOccurrence,
    lion_trading: false,
    default_ply_cap: 512,
};

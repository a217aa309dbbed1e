//! Heian dai shogi (shared/rules/heian-dai-shogi.md).

use crate::rules::piece::{dirs, moves, promotes_to, Movement, PieceSpec, Promotion, Ride, UNLIMITED};
use crate::rules::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};

const fn gold_promotion(name: &'static str) -> Option<Promotion> {
    promotes_to(name, moves::GOLD)
}

const PIECES: &[PieceSpec] = &[
    PieceSpec { name: "King", abbr: "K", movement: moves::KING, promotion: None, royal: true, points: 0 },
    PieceSpec { name: "Gold general", abbr: "G", movement: moves::GOLD, promotion: None, royal: false, points: 0 },
    PieceSpec {
        name: "Silver general",
        abbr: "S",
        movement: moves::SILVER,
        promotion: gold_promotion("Promoted silver"),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Copper general",
        abbr: "C",
        movement: Movement { rides: &[Ride { dirs: dirs::ORTHOGONAL, range: 1 }], leaps: &[], ..Movement::NONE },
        promotion: gold_promotion("Promoted copper"),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Iron general",
        abbr: "I",
        movement: Movement { rides: &[Ride { dirs: dirs::IRON, range: 1 }], leaps: &[], ..Movement::NONE },
        promotion: gold_promotion("Promoted iron"),
        royal: false,
        points: 0,
    },
    PieceSpec { name: "Knight", abbr: "N", movement: moves::KNIGHT, promotion: gold_promotion("Promoted knight"), royal: false, points: 0 },
    PieceSpec { name: "Lance", abbr: "L", movement: moves::LANCE, promotion: gold_promotion("Promoted lance"), royal: false, points: 0 },
    PieceSpec {
        name: "Side mover",
        abbr: "SM",
        movement: Movement {
            rides: &[Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED }, Ride { dirs: dirs::FORWARD, range: 1 }],
            leaps: &[],
            ..Movement::NONE
        },
        promotion: gold_promotion("Promoted side mover"),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Fierce tiger",
        abbr: "FT",
        movement: Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: 1 }], leaps: &[], ..Movement::NONE },
        promotion: gold_promotion("Promoted fierce tiger"),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Flying dragon",
        abbr: "FD",
        movement: moves::BISHOP,
        promotion: promotes_to("Promoted flying dragon", moves::HORSE),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Free chariot",
        abbr: "FC",
        movement: Movement { rides: &[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }], leaps: &[], ..Movement::NONE },
        promotion: gold_promotion("Promoted free chariot"),
        royal: false,
        points: 0,
    },
    PieceSpec {
        name: "Go between",
        abbr: "GB",
        movement: Movement { rides: &[Ride { dirs: dirs::VERTICAL, range: 1 }], leaps: &[], ..Movement::NONE },
        promotion: gold_promotion("Promoted go between"),
        royal: false,
        points: 0,
    },
    PieceSpec { name: "Pawn", abbr: "P", movement: moves::PAWN, promotion: gold_promotion("Promoted pawn"), royal: false, points: 0 },
];

/// Heian dai shogi.
pub static SPEC: VariantSpec = VariantSpec {
    title: "Heian dai shogi",
    size: 13,
    zone_depth: 3,
    pieces: PIECES,
    start: "lnicsgkgscinl/(fc)(fd)2(ft)1(sm)1(ft)2(fd)(fc)/ppppppppppppp/6(gb)6/13/13/13/13/13/6(GB)6/PPPPPPPPPPPPP/(FC)(FD)2(FT)1(SM)1(FT)2(FD)(FC)/LNICSGKGSCINL b - 1",
    promotion: PromotionRule::Entering,
    legality: Legality::RoyalCapture,
    compulsory_promotion: true,
    drops: false,
    declaration: false,
    bare_king: BareKingRule::Heian,
    repetition: RepetitionRule::FourthOccurrence,
    lion_trading: false,
    default_ply_cap: 1000,
};

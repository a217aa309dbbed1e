//! Chu shogi (shared/rules/chu-shogi.md).

use super::large::{self, piece};
use crate::rules::piece::{moves, promotes_to, PieceSpec};
use crate::rules::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};

const PIECES: &[PieceSpec] = &[
    large::KING,
    large::DRUNK_ELEPHANT,
    large::GOLD,
    large::SILVER,
    large::COPPER,
    large::FEROCIOUS_LEOPARD,
    large::BLIND_TIGER,
    large::KIRIN,
    large::PHOENIX,
    large::LANCE,
    large::REVERSE_CHARIOT,
    large::SIDE_MOVER,
    large::VERTICAL_MOVER,
    large::ROOK,
    large::BISHOP,
    large::DRAGON_KING,
    large::DRAGON_HORSE,
    large::QUEEN,
    large::LION,
    large::GO_BETWEEN,
    piece("Pawn", "P", moves::PAWN, promotes_to("Tokin", moves::GOLD)),
];

/// Chu shogi.
pub static SPEC: VariantSpec = VariantSpec {
    title: "Chu shogi",
    size: 12,
    zone_depth: 4,
    pieces: PIECES,
    start: "l(fl)csg(de)kgsc(fl)l/(rc)1b1(bt)(ph)(kr)(bt)1b1(rc)/(sm)(vm)r(dh)(dk)q(ln)(dk)(dh)r(vm)(sm)/pppppppppppp/3(gb)4(gb)3/12/12/3(GB)4(GB)3/PPPPPPPPPPPP/(SM)(VM)R(DH)(DK)(Ln)Q(DK)(DH)R(VM)(SM)/(RC)1B1(BT)(Kr)(Ph)(BT)1B1(RC)/L(FL)CSGK(DE)GSC(FL)L b - 1",
    promotion: PromotionRule::EnteringOrCapture,
    legality: Legality::RoyalCapture,
    compulsory_promotion: false,
    drops: false,
    declaration: false,
    bare_king: BareKingRule::Chu,
    repetition: RepetitionRule::FourthOccurrence,
    lion_trading: true,
    default_ply_cap: 1000,
};

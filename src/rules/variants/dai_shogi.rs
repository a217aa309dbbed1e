//! Dai shogi (shared/rules/dai-shogi.md): chu's pieces plus eight that promote to gold.

use super::large::{self, piece};
use crate::rules::piece::{dirs, moves, promotes_to, Movement, PieceSpec, Ride};
use crate::rules::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};

const fn to_gold(name: &'static str, abbr: &'static str, movement: Movement) -> PieceSpec {
    piece(name, abbr, movement, promotes_to("Gold general", moves::GOLD))
}

const fn steps_of(rides: &'static [Ride]) -> Movement {
    Movement { rides, leaps: &[], ..Movement::NONE }
}

const PIECES: &[PieceSpec] = &[
    large::KING,
    large::QUEEN,
    large::LION,
    large::DRAGON_KING,
    large::DRAGON_HORSE,
    large::ROOK,
    large::BISHOP,
    large::KIRIN,
    large::PHOENIX,
    to_gold("Violent ox", "VO", steps_of(&[Ride { dirs: dirs::ORTHOGONAL, range: 2 }])),
    to_gold("Flying dragon", "FD", steps_of(&[Ride { dirs: dirs::DIAGONAL, range: 2 }])),
    large::DRUNK_ELEPHANT,
    large::BLIND_TIGER,
    large::FEROCIOUS_LEOPARD,
    large::GOLD,
    large::SILVER,
    large::COPPER,
    to_gold("Angry boar", "AB", steps_of(&[Ride { dirs: dirs::ORTHOGONAL, range: 1 }])),
    to_gold("Cat sword", "CS", steps_of(&[Ride { dirs: dirs::DIAGONAL, range: 1 }])),
    to_gold("Evil wolf", "EW", steps_of(&[Ride { dirs: dirs::IRON, range: 1 }])),
    to_gold("Iron general", "I", steps_of(&[Ride { dirs: dirs::FORWARD_THREE, range: 1 }])),
    to_gold("Stone general", "SG", steps_of(&[Ride { dirs: dirs::FORWARD_DIAGONAL, range: 1 }])),
    to_gold("Knight", "N", moves::KNIGHT),
    large::VERTICAL_MOVER,
    large::SIDE_MOVER,
    large::REVERSE_CHARIOT,
    large::LANCE,
    large::GO_BETWEEN,
    to_gold("Pawn", "P", moves::PAWN),
];

/// Dai shogi.
pub static SPEC: VariantSpec = VariantSpec {
    title: "Dai shogi",
    size: 15,
    zone_depth: 5,
    pieces: PIECES,
    start: "ln(sg)icsgkgsci(sg)nl/(rc)1(cs)1(fl)1(bt)(de)(bt)1(fl)1(cs)1(rc)/1(vo)1(ab)1(ew)(ph)(ln)(kr)(ew)1(ab)1(vo)1/r(fd)(sm)(vm)b(dh)(dk)q(dk)(dh)b(vm)(sm)(fd)r/ppppppppppppppp/4(gb)5(gb)4/15/15/15/4(GB)5(GB)4/PPPPPPPPPPPPPPP/R(FD)(SM)(VM)B(DH)(DK)Q(DK)(DH)B(VM)(SM)(FD)R/1(VO)1(AB)1(EW)(Kr)(Ln)(Ph)(EW)1(AB)1(VO)1/(RC)1(CS)1(FL)1(BT)(DE)(BT)1(FL)1(CS)1(RC)/LN(SG)ICSGKGSCI(SG)NL b - 1",
    promotion: PromotionRule::EnteringOrCapture,
    legality: Legality::RoyalCapture,
    compulsory_promotion: true,
    drops: false,
    declaration: false,
    bare_king: BareKingRule::None,
    repetition: RepetitionRule::NoRecreation,
    lion_trading: false,
    default_ply_cap: 2000,
};

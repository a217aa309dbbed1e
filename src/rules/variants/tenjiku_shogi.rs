//! Tenjiku shogi (shared/rules/tenjiku-shogi.md): chu's pieces plus range-jumping generals, the
//! fire demon's area move and burning, the lion hawk, free eagle and heavenly tetrarch.

use super::large::{self, piece, HORNED_FALCON_MOVE, LION_MOVE, QUEEN_MOVE, SIDE_MOVER_MOVE, SOARING_EAGLE_MOVE, VERTICAL_MOVER_MOVE};
use crate::rules::piece::{dirs, moves, promotes_to, LionPower, Movement, PieceSpec, Ride, UNLIMITED};
use crate::rules::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};

const GREAT_GENERAL: Movement = Movement { rides: &[Ride { dirs: dirs::ALL, range: UNLIMITED }], jump_rank: 3, ..Movement::NONE };
const VICE_GENERAL: Movement =
    Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }], jump_rank: 2, area: 3, ..Movement::NONE };
const FREE_EAGLE: Movement = Movement {
    rides: &[Ride { dirs: dirs::ALL, range: UNLIMITED }],
    leaps: &[(0, 2), (0, -2), (2, 0), (-2, 0), (2, 2), (-2, 2), (2, -2), (-2, -2)],
    ..Movement::NONE
};
const LION_HAWK: Movement = Movement {
    rides: &[Ride { dirs: dirs::ALL, range: 1 }, Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }],
    leaps: dirs::LION_JUMPS,
    lion: Some(LionPower::Full),
    ..Movement::NONE
};
const FIRE_DEMON: Movement = Movement {
    rides: &[Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED }, Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }],
    area: 3,
    burns: true,
    ..Movement::NONE
};
const WATER_BUFFALO: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED },
        Ride { dirs: dirs::DIAGONAL, range: UNLIMITED },
        Ride { dirs: dirs::VERTICAL, range: 2 },
    ],
    ..Movement::NONE
};
const CHARIOT_SOLDIER: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::VERTICAL, range: UNLIMITED },
        Ride { dirs: dirs::DIAGONAL, range: UNLIMITED },
        Ride { dirs: dirs::SIDEWAYS, range: 2 },
    ],
    ..Movement::NONE
};
/// Never to an adjacent square: igui all round, skip-one slides forward, backward and
/// diagonally (the leopard's lines), the second or third square sideways (§5.5).
const HEAVENLY_TETRARCH: Movement = Movement {
    skip_rides: &[Ride { dirs: dirs::LEOPARD, range: UNLIMITED }, Ride { dirs: dirs::SIDEWAYS, range: 3 }],
    lion: Some(LionPower::Igui),
    ..Movement::NONE
};
const VERTICAL_SOLDIER: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::FORWARD, range: UNLIMITED },
        Ride { dirs: dirs::BACKWARD, range: 1 },
        Ride { dirs: dirs::SIDEWAYS, range: 2 },
    ],
    ..Movement::NONE
};
const SIDE_SOLDIER: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED },
        Ride { dirs: dirs::FORWARD, range: 2 },
        Ride { dirs: dirs::BACKWARD, range: 1 },
    ],
    ..Movement::NONE
};
const MULTI_GENERAL: Movement = Movement {
    rides: &[Ride { dirs: dirs::FORWARD, range: UNLIMITED }, Ride { dirs: dirs::BACKWARD_DIAGONAL, range: UNLIMITED }],
    ..Movement::NONE
};

const PIECES: &[PieceSpec] = &[
    large::KING,
    piece("Great general", "GG", GREAT_GENERAL, None),
    piece("Vice general", "VG", VICE_GENERAL, None),
    piece(
        "Rook general",
        "RG",
        Movement { rides: &[Ride { dirs: dirs::ORTHOGONAL, range: UNLIMITED }], jump_rank: 1, ..Movement::NONE },
        promotes_to("Great general", GREAT_GENERAL),
    ),
    piece(
        "Bishop general",
        "BG",
        Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }], jump_rank: 1, ..Movement::NONE },
        promotes_to("Vice general", VICE_GENERAL),
    ),
    piece("Free eagle", "FE", FREE_EAGLE, None),
    piece("Lion hawk", "LH", LION_HAWK, None),
    piece("Fire demon", "FD", FIRE_DEMON, None),
    piece("Queen", "Q", QUEEN_MOVE, promotes_to("Free eagle", FREE_EAGLE)),
    piece("Lion", "Ln", LION_MOVE, promotes_to("Lion hawk", LION_HAWK)),
    piece(
        "Soaring eagle",
        "SE",
        SOARING_EAGLE_MOVE,
        promotes_to(
            "Rook general",
            Movement { rides: &[Ride { dirs: dirs::ORTHOGONAL, range: UNLIMITED }], jump_rank: 1, ..Movement::NONE },
        ),
    ),
    piece(
        "Horned falcon",
        "HF",
        HORNED_FALCON_MOVE,
        promotes_to(
            "Bishop general",
            Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }], jump_rank: 1, ..Movement::NONE },
        ),
    ),
    piece("Water buffalo", "WB", WATER_BUFFALO, promotes_to("Fire demon", FIRE_DEMON)),
    piece("Chariot soldier", "CS", CHARIOT_SOLDIER, promotes_to("Heavenly tetrarch", HEAVENLY_TETRARCH)),
    piece("Vertical soldier", "VS", VERTICAL_SOLDIER, promotes_to("Chariot soldier", CHARIOT_SOLDIER)),
    piece("Side soldier", "SS", SIDE_SOLDIER, promotes_to("Water buffalo", WATER_BUFFALO)),
    large::DRAGON_KING,
    large::DRAGON_HORSE,
    large::ROOK,
    large::BISHOP,
    large::KIRIN,
    large::PHOENIX,
    large::DRUNK_ELEPHANT,
    large::BLIND_TIGER,
    large::FEROCIOUS_LEOPARD,
    large::GOLD,
    large::SILVER,
    large::COPPER,
    piece(
        "Iron general",
        "I",
        Movement { rides: &[Ride { dirs: dirs::FORWARD_THREE, range: 1 }], ..Movement::NONE },
        promotes_to("Vertical soldier", VERTICAL_SOLDIER),
    ),
    piece("Knight", "N", moves::KNIGHT, promotes_to("Side soldier", SIDE_SOLDIER)),
    piece("Vertical mover", "VM", VERTICAL_MOVER_MOVE, large::VERTICAL_MOVER.promotion),
    piece("Side mover", "SM", SIDE_MOVER_MOVE, large::SIDE_MOVER.promotion),
    large::REVERSE_CHARIOT,
    large::LANCE,
    piece(
        "Dog",
        "D",
        Movement { rides: &[Ride { dirs: dirs::FORWARD, range: 1 }, Ride { dirs: dirs::BACKWARD_DIAGONAL, range: 1 }], ..Movement::NONE },
        promotes_to("Multi general", MULTI_GENERAL),
    ),
    piece("Pawn", "P", moves::PAWN, promotes_to("Gold general", moves::GOLD)),
];

/// Tenjiku shogi.
pub static SPEC: VariantSpec = VariantSpec {
    title: "Tenjiku shogi",
    size: 16,
    zone_depth: 5,
    pieces: PIECES,
    start: "ln(fl)icsg(de)kgsci(fl)nl/(rc)1(cs)(cs)1(bt)(ph)q(ln)(kr)(bt)1(cs)(cs)1(rc)/(ss)(vs)b(dh)(dk)(wb)(fd)(fe)(lh)(fd)(wb)(dk)(dh)b(vs)(ss)/(sm)(vm)r(hf)(se)(bg)(rg)(vg)(gg)(rg)(bg)(se)(hf)r(vm)(sm)/pppppppppppppppp/4d6d4/16/16/16/16/4D6D4/PPPPPPPPPPPPPPPP/(SM)(VM)R(HF)(SE)(BG)(RG)(GG)(VG)(RG)(BG)(SE)(HF)R(VM)(SM)/(SS)(VS)B(DH)(DK)(WB)(FD)(LH)(FE)(FD)(WB)(DK)(DH)B(VS)(SS)/(RC)1(CS)(CS)1(BT)(Kr)(Ln)Q(Ph)(BT)1(CS)(CS)1(RC)/LN(FL)ICSGK(DE)GSCI(FL)NL b - 1",
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

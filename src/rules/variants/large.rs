//! Pieces shared by chu, dai and tenjiku shogi (shared/rules/chu-shogi.md §3-4), so that each
//! is written once.

use crate::rules::piece::{dirs, moves, promotes_to, LionPower, Movement, PieceSpec, Promotion, Ride, UNLIMITED};

/// A piece row of a variant without drops or declaration points.
pub const fn piece(name: &'static str, abbr: &'static str, movement: Movement, promotion: Option<Promotion>) -> PieceSpec {
    PieceSpec { name, abbr, movement, promotion, royal: false, points: 0 }
}

const fn rides(rides: &'static [Ride]) -> Movement {
    Movement { rides, leaps: &[], ..Movement::NONE }
}

pub const KING: PieceSpec = PieceSpec { name: "King", abbr: "K", movement: moves::KING, promotion: None, royal: true, points: 0 };
pub const QUEEN_MOVE: Movement = rides(&[Ride { dirs: dirs::ALL, range: UNLIMITED }]);
pub const LION_MOVE: Movement =
    Movement { rides: &[Ride { dirs: dirs::ALL, range: 1 }], leaps: dirs::LION_JUMPS, lion: Some(LionPower::Full), ..Movement::NONE };
pub const DRUNK_ELEPHANT_MOVE: Movement = rides(&[Ride { dirs: dirs::ELEPHANT, range: 1 }]);
pub const VERTICAL_MOVER_MOVE: Movement =
    rides(&[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }, Ride { dirs: dirs::SIDEWAYS, range: 1 }]);
pub const SIDE_MOVER_MOVE: Movement = rides(&[Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED }, Ride { dirs: dirs::VERTICAL, range: 1 }]);

pub const QUEEN: PieceSpec = piece("Queen", "Q", QUEEN_MOVE, None);
pub const LION: PieceSpec = piece("Lion", "Ln", LION_MOVE, None);
pub const DRUNK_ELEPHANT: PieceSpec =
    piece("Drunk elephant", "DE", DRUNK_ELEPHANT_MOVE, Some(Promotion { name: "Crown prince", movement: moves::KING, royal: true }));
pub const GOLD: PieceSpec = piece("Gold general", "G", moves::GOLD, promotes_to("Rook", moves::ROOK));
pub const SILVER: PieceSpec = piece("Silver general", "S", moves::SILVER, promotes_to("Vertical mover", VERTICAL_MOVER_MOVE));
pub const COPPER: PieceSpec =
    piece("Copper general", "C", rides(&[Ride { dirs: dirs::COPPER, range: 1 }]), promotes_to("Side mover", SIDE_MOVER_MOVE));
pub const FEROCIOUS_LEOPARD: PieceSpec =
    piece("Ferocious leopard", "FL", rides(&[Ride { dirs: dirs::LEOPARD, range: 1 }]), promotes_to("Bishop", moves::BISHOP));
pub const BLIND_TIGER: PieceSpec = piece(
    "Blind tiger",
    "BT",
    rides(&[Ride { dirs: dirs::TIGER, range: 1 }]),
    promotes_to(
        "Flying stag",
        rides(&[
            Ride { dirs: dirs::VERTICAL, range: UNLIMITED },
            Ride { dirs: dirs::SIDEWAYS, range: 1 },
            Ride { dirs: dirs::DIAGONAL, range: 1 },
        ]),
    ),
);
pub const KIRIN: PieceSpec = piece(
    "Kirin",
    "Kr",
    Movement { rides: &[Ride { dirs: dirs::DIAGONAL, range: 1 }], leaps: dirs::ORTHOGONAL_TWO, ..Movement::NONE },
    promotes_to("Lion", LION_MOVE),
);
pub const PHOENIX: PieceSpec = piece(
    "Phoenix",
    "Ph",
    Movement { rides: &[Ride { dirs: dirs::ORTHOGONAL, range: 1 }], leaps: dirs::DIAGONAL_TWO, ..Movement::NONE },
    promotes_to("Queen", QUEEN_MOVE),
);
pub const LANCE: PieceSpec = piece(
    "Lance",
    "L",
    moves::LANCE,
    promotes_to(
        "White horse",
        rides(&[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }, Ride { dirs: dirs::FORWARD_DIAGONAL, range: UNLIMITED }]),
    ),
);
pub const REVERSE_CHARIOT: PieceSpec = piece(
    "Reverse chariot",
    "RC",
    rides(&[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }]),
    promotes_to(
        "Whale",
        rides(&[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }, Ride { dirs: dirs::BACKWARD_DIAGONAL, range: UNLIMITED }]),
    ),
);
pub const SIDE_MOVER: PieceSpec = piece(
    "Side mover",
    "SM",
    SIDE_MOVER_MOVE,
    promotes_to("Free boar", rides(&[Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED }, Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }])),
);
pub const VERTICAL_MOVER: PieceSpec = piece(
    "Vertical mover",
    "VM",
    VERTICAL_MOVER_MOVE,
    promotes_to("Flying ox", rides(&[Ride { dirs: dirs::VERTICAL, range: UNLIMITED }, Ride { dirs: dirs::DIAGONAL, range: UNLIMITED }])),
);
pub const ROOK: PieceSpec = piece("Rook", "R", moves::ROOK, promotes_to("Dragon king", moves::DRAGON));
pub const BISHOP: PieceSpec = piece("Bishop", "B", moves::BISHOP, promotes_to("Dragon horse", moves::HORSE));
/// Slides orthogonally and backward-diagonally; lion power along the forward diagonals.
pub const SOARING_EAGLE_MOVE: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::ORTHOGONAL, range: UNLIMITED },
        Ride { dirs: dirs::BACKWARD_DIAGONAL, range: UNLIMITED },
        Ride { dirs: dirs::FORWARD_DIAGONAL, range: 1 },
    ],
    leaps: &[(2, 2), (-2, 2)],
    lion: Some(LionPower::Lines(dirs::FORWARD_DIAGONAL)),
    ..Movement::NONE
};
/// Slides diagonally, sideways and backward; lion power straight forward.
pub const HORNED_FALCON_MOVE: Movement = Movement {
    rides: &[
        Ride { dirs: dirs::DIAGONAL, range: UNLIMITED },
        Ride { dirs: dirs::SIDEWAYS, range: UNLIMITED },
        Ride { dirs: dirs::BACKWARD, range: UNLIMITED },
        Ride { dirs: dirs::FORWARD, range: 1 },
    ],
    leaps: &[(0, 2)],
    lion: Some(LionPower::Lines(dirs::FORWARD)),
    ..Movement::NONE
};
pub const DRAGON_KING: PieceSpec = piece("Dragon king", "DK", moves::DRAGON, promotes_to("Soaring eagle", SOARING_EAGLE_MOVE));
pub const DRAGON_HORSE: PieceSpec = piece("Dragon horse", "DH", moves::HORSE, promotes_to("Horned falcon", HORNED_FALCON_MOVE));
pub const GO_BETWEEN: PieceSpec =
    piece("Go-between", "GB", rides(&[Ride { dirs: dirs::VERTICAL, range: 1 }]), promotes_to("Drunk elephant", DRUNK_ELEPHANT_MOVE));

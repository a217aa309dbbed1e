//! The checked public API of `Position`: `play`, `after` and `from_parts` refuse what would
//! corrupt a position (illegal moves, squares off the board, pieces the variant lacks) with an
//! error, and leave nothing half done.

mod common;

use common::{mv, pos, sq, SHOGI};
use shogi_zero::rules::notation::coord::MoveError;
use shogi_zero::rules::position::{InvalidPosition, MAX_HAND_TYPES};
use shogi_zero::rules::{Color, Piece, PieceType, Position, Square, VariantId};

const NO_HANDS: [[u32; MAX_HAND_TYPES]; 2] = [[0; MAX_HAND_TYPES]; 2];

/// The piece type of `abbr` in variant `id`.
fn ptype(id: VariantId, abbr: &str) -> PieceType {
    PieceType::new(id.variant().spec.pieces.iter().position(|p| p.abbr == abbr).unwrap())
}

fn piece(color: Color, ptype: PieceType, promoted: bool) -> Piece {
    Piece { color, ptype, promoted }
}

/// Two kings on their start squares, plus `extra`.
fn kings_and(extra: &[(Square, Piece)]) -> Vec<(Square, Piece)> {
    let king = ptype(SHOGI, "K");
    let mut pieces = vec![(sq(SHOGI, "5i"), piece(Color::Black, king, false)), (sq(SHOGI, "5a"), piece(Color::White, king, false))];
    pieces.extend_from_slice(extra);
    pieces
}

fn from_parts(
    pieces: &[(Square, Piece)],
    hands: [[u32; MAX_HAND_TYPES]; 2],
    counter_strike: Option<Square>,
) -> Result<Position, InvalidPosition> {
    Position::from_parts(SHOGI.variant(), pieces, Color::Black, hands, counter_strike, 1)
}

#[test]
fn a_drop_from_an_empty_hand_is_an_error_and_changes_nothing() {
    let mut p = Position::start(SHOGI);
    let before = p.clone();
    let drop = mv(SHOGI, "G*5e");
    assert_eq!(p.play(drop).unwrap_err(), MoveError::Illegal { text: "G*5e".to_string() });
    assert_eq!(p.after(drop).unwrap_err(), MoveError::Illegal { text: "G*5e".to_string() });
    assert_eq!(p, before);
    assert_eq!(p.hash(), before.hash());
    p.verify_derived_state().unwrap();
}

#[test]
fn play_refuses_illegal_moves_and_plays_legal_ones() {
    let mut p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b G 1");
    let before = p.clone();
    for illegal in ["5i5g", "5a5b", "P*5e", "G*5a"] {
        assert!(p.play(mv(SHOGI, illegal)).is_err(), "{illegal}");
        assert_eq!(p, before, "{illegal} left the position as it was");
    }
    let drop = mv(SHOGI, "G*5e");
    let expected = p.after_unchecked(drop);
    let undo = p.play(drop).unwrap();
    assert_eq!(p, expected);
    assert_eq!(p.hand(Color::Black, ptype(SHOGI, "G")), 0);
    p.verify_derived_state().unwrap();
    p.unmake(drop, undo);
    assert_eq!(p, before);
    assert_eq!(p.hash(), before.hash());
}

#[test]
fn from_parts_refuses_squares_off_the_board() {
    // Chu's 1a lies three files right of the 9x9 board, on a wall of its mailbox.
    let off = VariantId::CHU_SHOGI.variant().geometry.parse_square("1a").unwrap();
    assert!(!SHOGI.variant().geometry.contains(off));
    let gold = piece(Color::Black, ptype(SHOGI, "G"), false);
    let expected = InvalidPosition::OffBoard { variant: "shogi", index: off.index() };
    assert_eq!(from_parts(&kings_and(&[(off, gold)]), NO_HANDS, None).unwrap_err(), expected);
    assert!(from_parts(&kings_and(&[(sq(SHOGI, "5e"), gold)]), NO_HANDS, None).is_ok());
}

#[test]
fn from_parts_refuses_what_the_variant_lacks() {
    let (e5, gold) = (sq(SHOGI, "5e"), ptype(SHOGI, "G"));
    let two = kings_and(&[(e5, piece(Color::Black, gold, false)), (e5, piece(Color::White, gold, false))]);
    assert!(matches!(from_parts(&two, NO_HANDS, None), Err(InvalidPosition::TwoPiecesOnSquare { .. })));
    let unknown = kings_and(&[(e5, piece(Color::Black, PieceType::new(40), false))]);
    assert!(matches!(from_parts(&unknown, NO_HANDS, None), Err(InvalidPosition::UnknownPieceType { index: 40, .. })));
    let promoted_gold = kings_and(&[(e5, piece(Color::Black, gold, true))]);
    assert!(matches!(from_parts(&promoted_gold, NO_HANDS, None), Err(InvalidPosition::CannotPromote { .. })));
    let mut king_in_hand = NO_HANDS;
    king_in_hand[Color::White.index()][ptype(SHOGI, "K").index()] = 1;
    assert!(matches!(from_parts(&kings_and(&[]), king_in_hand, None), Err(InvalidPosition::CannotHold { color: Color::White, .. })));
}

#[test]
fn from_parts_refuses_a_counter_strike_square_off_the_board() {
    let chu = VariantId::CHU_SHOGI.variant();
    let start = Position::start(VariantId::CHU_SHOGI);
    let pieces: Vec<(Square, Piece)> = start.pieces().collect();
    let off = VariantId::TENJIKU_SHOGI.variant().geometry.parse_square("16p").unwrap();
    let result = Position::from_parts(chu, &pieces, Color::Black, NO_HANDS, Some(off), 1);
    assert_eq!(result.unwrap_err(), InvalidPosition::OffBoard { variant: "chu-shogi", index: off.index() });
    assert_eq!(Position::from_parts(chu, &pieces, Color::Black, NO_HANDS, None, 1).unwrap(), start);
}

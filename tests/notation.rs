//! Text formats: the position format (generalised SFEN), coordinate move notation and Hodges
//! notation (shared/rules/README.md sections 1 and 5), with property tests that malformed input
//! never panics.

mod common;

use common::{check_move_text, mutate, pos, HEIAN, SHOGI};
use proptest::prelude::*;
use shogi_zero::rules::notation::coord::{self, MoveError};
use shogi_zero::rules::notation::{hodges, sfen};
use shogi_zero::rules::{Color, Position, VariantId};

const SHOGI_START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
const KINGS_ONLY: &str = "4k4/9/9/9/9/9/9/9/4K4";

/// The error message of a position text that must not parse.
fn sfen_error(id: VariantId, text: &str) -> String {
    match sfen::parse(id.variant(), text) {
        Ok(p) => panic!("'{text}' parsed as {p} but must be refused"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "error message '{message}' does not mention '{part}'");
    }
}

// ---------------------------------------------------------------------------------------------
// Position format: start positions
// ---------------------------------------------------------------------------------------------

#[test]
fn start_positions_round_trip() {
    for id in VariantId::ALL {
        let start = Position::start(id);
        let text = sfen::write(&start);
        assert_eq!(text, id.spec().start, "{id}: the start is written as the variant data writes it");
        assert_eq!(sfen::parse(id.variant(), &text).unwrap(), start);
        assert_eq!(start.side_to_move(), Color::Black, "{id}: Black moves first");
        assert_eq!(start.move_number(), 1);
    }
    assert_eq!(sfen::write(&Position::start(SHOGI)), SHOGI_START);
}

/// The Heian start is written exactly as the variant spec's start text.
#[test]
fn heian_start_is_written_as_the_spec_start() {
    let written = sfen::write(&Position::start(HEIAN));
    assert_eq!(written, HEIAN.spec().start);
    assert_eq!(
        written,
        "lnicsgkgscinl/(fc)(fd)2(ft)1(sm)1(ft)2(fd)(fc)/ppppppppppppp/6(gb)6/13/13/13/13/13/6(GB)6/PPPPPPPPPPPPP/(FC)(FD)2(FT)1(SM)1(FT)2(FD)(FC)/LNICSGKGSCINL b - 1"
    );
}

/// The start positions hold exactly the pieces of the rules files' machine-readable lists
/// (shogi.md and heian-dai-shogi.md section 2), with White's camp the 180° rotation of Black's.
#[test]
fn start_positions_match_the_rules_files() {
    let shogi = "9i=L 8i=N 7i=S 6i=G 5i=K 4i=G 3i=S 2i=N 1i=L 8h=B 2h=R \
                 9g=P 8g=P 7g=P 6g=P 5g=P 4g=P 3g=P 2g=P 1g=P";
    let heian = "13m=L 12m=N 11m=I 10m=C 9m=S 8m=G 7m=K 6m=G 5m=S 4m=C 3m=I 2m=N 1m=L \
                 13l=FC 12l=FD 9l=FT 7l=SM 5l=FT 2l=FD 1l=FC \
                 13k=P 12k=P 11k=P 10k=P 9k=P 8k=P 7k=P 6k=P 5k=P 4k=P 3k=P 2k=P 1k=P 7j=GB";
    for (id, list, count) in [(SHOGI, shogi, 20), (HEIAN, heian, 34)] {
        let start = Position::start(id);
        let v = id.variant();
        let entries: Vec<(&str, &str)> = list.split_whitespace().map(|e| e.split_once('=').unwrap()).collect();
        assert_eq!(entries.len(), count);
        assert_eq!(start.pieces().count(), 2 * count, "{id}: pieces on the board");
        for (square, abbr) in entries {
            let s = common::sq(id, square);
            for (at, color) in [(s, Color::Black), (v.geometry.rotate(s), Color::White)] {
                let p = start.piece_at(at).unwrap_or_else(|| panic!("{id}: nothing on {}", v.geometry.square_name(at)));
                assert_eq!(p.color, color, "{id} {}", v.geometry.square_name(at));
                assert_eq!(v.piece_spec(p.ptype).abbr, abbr, "{id} {}", v.geometry.square_name(at));
                assert!(!p.promoted);
            }
        }
    }
}

/// Promoted pieces, two-letter pieces, two-digit empty runs, hands and move numbers round trip.
#[test]
fn other_positions_round_trip() {
    let cases = [
        (SHOGI, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
        (SHOGI, "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1"),
        (SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b 18P 123"),
        (HEIAN, "+(FD)12/13/13/6k6/13/13/13/13/13/13/13/13/(sm)+(fc)4K+P5 w - 77"),
        (HEIAN, "13/13/13/13/13/13/13/13/13/13/13/13/6K6 b - 1"),
    ];
    for (id, text) in cases {
        let p = pos(id, text);
        assert_eq!(sfen::write(&p), text);
        p.verify_derived_state().unwrap();
    }
    // The move number may be left out (1) and hands are written in the piece-table order.
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b PGR2bp");
    assert_eq!(sfen::write(&p), "4k4/9/9/9/9/9/9/9/4K4 b RGP2bp 1");
}

// ---------------------------------------------------------------------------------------------
// Position format: malformed input
// ---------------------------------------------------------------------------------------------

#[test]
fn wrong_number_of_fields() {
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b");
    assert_mentions(&e, &["2 field"]);
    let e = sfen_error(SHOGI, &format!("{SHOGI_START} 7"));
    assert_mentions(&e, &["5 field"]);
    let e = sfen_error(SHOGI, "");
    assert_mentions(&e, &["0 field"]);
}

#[test]
fn wrong_rank_count() {
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["8 rank", "9"]);
    let e = sfen_error(HEIAN, SHOGI_START);
    assert_mentions(&e, &["9 rank", "13"]);
}

#[test]
fn rank_too_long_or_too_short() {
    let e = sfen_error(SHOGI, "lnsgkgsnl1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["rank a", "10"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["rank b", "8"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/10/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["rank e", "10"]);
    let e = sfen_error(HEIAN, &HEIAN.spec().start.replacen("/13/", "/12/", 1));
    assert_mentions(&e, &["rank e", "12"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/ b - 1");
    assert_mentions(&e, &["rank i", "0"]);
}

#[test]
fn unknown_piece() {
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppxpppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["'x'", "rank c"]);
    // A Heian piece is unknown in shogi, and a two-letter piece must be in parentheses in Heian.
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/4(FD)4/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["(FD)", "rank e"]);
    let e = sfen_error(HEIAN, &HEIAN.spec().start.replace("(FC)(FD)2", "FC(FD)2"));
    assert_mentions(&e, &["rank l"]);
    let e = sfen_error(HEIAN, &HEIAN.spec().start.replace("6(GB)6", "6(XY)6"));
    assert_mentions(&e, &["XY", "rank j"]);
    let e = sfen_error(HEIAN, &HEIAN.spec().start.replace("6(GB)6", "6(GB6"));
    assert_mentions(&e, &["rank j"]);
    // A lone '+' or a doubled one.
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/8+/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["rank f"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/++P8/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["rank f"]);
}

#[test]
fn plus_on_a_piece_that_does_not_promote() {
    let e = sfen_error(SHOGI, "lnsg+kgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    assert_mentions(&e, &["+k", "rank a", "does not promote"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1");
    assert_mentions(&e, &["+G", "rank i", "does not promote"]);
    let e = sfen_error(HEIAN, &HEIAN.spec().start.replace("LNICSGKGSCINL", "LNICS+GKGSCINL"));
    assert_mentions(&e, &["+G", "rank m"]);
}

#[test]
fn bad_side_to_move() {
    for side in ["x", "B", "black", "W"] {
        let e = sfen_error(SHOGI, &SHOGI_START.replace(" b ", &format!(" {side} ")));
        assert_mentions(&e, &[&format!("'{side}'")]);
    }
}

#[test]
fn bad_hands() {
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b Q 1"));
    assert_mentions(&e, &["'Q'", "not a piece"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b K 1"));
    assert_mentions(&e, &["'K'", "hand"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b P3 1"));
    assert_mentions(&e, &["count"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b PGP 1"));
    assert_mentions(&e, &["'P'", "twice"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b 0P 1"));
    assert_mentions(&e, &["0P"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b 19P 1"));
    assert_mentions(&e, &["19", "18"]);
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b 3R 1"));
    assert_mentions(&e, &["3", "R", "2"]);
}

/// The game has 18 pawns (shogi.md section 2: 9 a side). The start position has all of them on
/// the board, so one more pawn in hand is a 19th pawn: too many pieces for the game.
#[test]
fn too_many_pieces_counting_board_and_hands() {
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b P 1");
    assert_mentions(&e, &["P"]);
    let e = sfen_error(SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b r 1");
    assert_mentions(&e, &["R"]);
    // Hands alone: 10 White pawns and 9 Black pawns are 19 pawns.
    let e = sfen_error(SHOGI, &format!("{KINGS_ONLY} b 9P10p 1"));
    assert_mentions(&e, &["P"]);
}

#[test]
fn no_hands_in_heian() {
    let start = HEIAN.spec().start;
    let e = sfen_error(HEIAN, &start.replace(" b - 1", " b P 1"));
    assert_mentions(&e, &["heian-dai-shogi", "hand"]);
}

#[test]
fn bad_move_number() {
    for n in ["0", "x", "-1", "1.5", "+"] {
        let e = sfen_error(SHOGI, &SHOGI_START.replace(" - 1", &format!(" - {n}")));
        assert_mentions(&e, &[&format!("'{n}'"), "move number"]);
    }
}

#[test]
fn two_kings() {
    let e = sfen_error(SHOGI, "3kk4/9/9/9/9/9/9/9/4K4 b - 1");
    assert_mentions(&e, &["White", "2 kings"]);
    let e = sfen_error(HEIAN, "6k6/13/13/13/13/13/13/13/13/13/13/13/5KK6 b - 1");
    assert_mentions(&e, &["Black", "2 kings"]);
}

/// Dead pieces (README section 2): an unpromoted pawn or lance on its last rank, a knight on its
/// last two ranks.
#[test]
fn dead_pieces() {
    let e = sfen_error(SHOGI, "P3k4/9/9/9/9/9/9/9/4K4 b - 1");
    assert_mentions(&e, &["9a", "never move"]);
    let e = sfen_error(SHOGI, "4k4/N8/9/9/9/9/9/9/4K4 b - 1");
    assert_mentions(&e, &["9b"]);
    let e = sfen_error(SHOGI, "4k4/9/9/9/9/9/9/9/4K3l b - 1");
    assert_mentions(&e, &["1i"]);
    let e = sfen_error(SHOGI, "4k4/9/9/9/9/9/9/n8/4K4 b - 1");
    assert_mentions(&e, &["9h"]);
    // Promoted, the same pieces are fine.
    pos(SHOGI, "+P3k4/+N8/9/9/9/9/9/+n8/4K3+l b - 1");
    // Heian dai shogi (section 5: pawn, lance, knight are the only pieces that can become immobile).
    let e = sfen_error(HEIAN, "P5k6/13/13/13/13/13/13/13/13/13/13/13/6K6 b - 1");
    assert_mentions(&e, &["13a"]);
    let e = sfen_error(HEIAN, "6k6/N12/13/13/13/13/13/13/13/13/13/13/6K6 b - 1");
    assert_mentions(&e, &["13b"]);
    pos(HEIAN, "(GB)5k5(SM)/(FC)12/13/13/13/13/13/13/13/13/13/13/6K6 b - 1");
}

/// shogi.md section 7.2: two unpromoted pawns of one side on a file cannot arise; a tokin does not
/// count. Heian dai shogi has no such rule (no drops; pawns can meet on a file after captures).
#[test]
fn two_pawns_on_a_file() {
    let e = sfen_error(SHOGI, "4k4/9/9/9/4P4/9/4P4/9/4K4 b - 1");
    assert_mentions(&e, &["file 5", "Black"]);
    let e = sfen_error(SHOGI, "4k4/9/1p7/9/9/1p7/9/9/4K4 b - 1");
    assert_mentions(&e, &["file 8", "White"]);
    pos(SHOGI, "4k4/9/9/9/4+P4/9/4P4/9/4K4 b - 1");
    pos(HEIAN, "6k6/13/13/13/13/6P6/13/13/6P6/13/13/13/6K6 b - 1");
}

/// shogi.md section 6: the side that is not to move cannot be in check (its king would be
/// capturable). In Heian dai shogi that is a normal position (section 4).
#[test]
fn side_not_to_move_in_check() {
    let e = sfen_error(SHOGI, "4k4/9/9/9/4R4/9/9/9/4K4 b - 1");
    assert_mentions(&e, &["White", "check"]);
    let e = sfen_error(SHOGI, "4k4/9/9/9/4r4/9/9/9/4K4 w - 1");
    assert_mentions(&e, &["Black", "check"]);
    pos(SHOGI, "4k4/9/9/9/4R4/9/9/9/4K4 w - 1");
    pos(HEIAN, "6k6/13/13/13/13/13/6(FC)6/13/13/13/13/13/6K6 b - 1");
}

// ---------------------------------------------------------------------------------------------
// Coordinate notation
// ---------------------------------------------------------------------------------------------

#[test]
fn coordinate_moves_read_and_write() {
    let start = Position::start(SHOGI);
    for text in ["7g7f", "2h1h", "5i4h"] {
        let m = coord::parse(&start, text).unwrap();
        assert_eq!(coord::write(SHOGI.variant(), m), text);
    }
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b P 1");
    assert_eq!(coord::write(SHOGI.variant(), coord::parse(&p, "P*5e").unwrap()), "P*5e");
    let heian = Position::start(HEIAN);
    for text in ["13k13j", "7j7i", "7l6l", "7l8l"] {
        let m = coord::parse(&heian, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(coord::write(HEIAN.variant(), m), text);
    }
}

#[test]
fn coordinate_syntax_errors() {
    let start = Position::start(SHOGI);
    for text in ["", "7g", "7g7", "zz", "7g7f++", "P*", "Q*5e", "p*5e", "P*5j", "10a9a", "0a1a", "7g 7f", "7G7F", "g7f7"] {
        match coord::parse(&start, text) {
            Err(MoveError::Syntax { text: t, reason }) => {
                assert_eq!(t, text);
                assert!(!reason.is_empty());
                let message = MoveError::Syntax { text: t, reason }.to_string();
                assert_mentions(&message, &[&format!("'{text}'"), "not a move"]);
            }
            other => panic!("'{text}' must be a syntax error, got {other:?}"),
        }
    }
    let heian = Position::start(HEIAN);
    for text in ["14a1a", "13n13m", "P*7f", "7j7i7h7g"] {
        assert!(matches!(coord::parse(&heian, text), Err(MoveError::Syntax { .. })), "{text}");
    }
}

/// Move text with characters outside ASCII is a syntax error like any other, not a panic.
#[test]
fn coordinate_non_ascii_text_is_a_syntax_error() {
    let start = Position::start(SHOGI);
    for text in ["¡", "7g7f¡", "７g７f", "7gé7f", "7g7f+é"] {
        assert!(matches!(coord::parse(&start, text), Err(MoveError::Syntax { .. })), "{text}");
    }
}

#[test]
fn coordinate_illegal_moves() {
    let start = Position::start(SHOGI);
    // Well-formed but not legal here: too far, promotion outside the zone, nothing in hand, an
    // enemy piece, an empty square, the declaration (never a move of the position itself).
    for text in ["7g7e", "7g7f+", "P*5e", "3c3d", "5e5d", "5a5b", "declare", "9i9h+", "1a1i"] {
        match coord::parse(&start, text) {
            Err(e @ MoveError::Illegal { .. }) => assert_mentions(&e.to_string(), &[&format!("'{text}'"), "not a legal move"]),
            other => panic!("'{text}' must be illegal, got {other:?}"),
        }
    }
    // A forced promotion written without '+' is illegal (shogi.md section 5).
    let p = pos(SHOGI, "k8/6P2/9/9/9/9/9/9/4K4 b - 1");
    assert!(matches!(coord::parse(&p, "3b3a"), Err(MoveError::Illegal { .. })));
    assert!(coord::parse(&p, "3b3a+").is_ok());
}

// ---------------------------------------------------------------------------------------------
// Hodges notation (README section 5)
// ---------------------------------------------------------------------------------------------

fn hodges_of(p: &Position, text: &str) -> String {
    let legal = p.legal_moves();
    let m = coord::parse(p, text).unwrap_or_else(|e| panic!("{text}: {e}"));
    hodges::write(p, &legal, m)
}

#[test]
fn hodges_simple_moves() {
    let start = Position::start(SHOGI);
    assert_eq!(hodges_of(&start, "7g7f"), "P-7f");
    assert_eq!(hodges_of(&start, "2h1h"), "R-1h");
    assert_eq!(hodges_of(&start, "5i5h"), "K-5h");
}

/// A capture is written with `x`; a declined promotion with `=`, a promotion with `+`.
#[test]
fn hodges_capture_and_promotion() {
    let p = pos(SHOGI, "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3");
    assert_eq!(hodges_of(&p, "8h2b+"), "Bx2b+");
    assert_eq!(hodges_of(&p, "8h2b"), "Bx2b=");
    // A knight capture declining promotion (the README example Nx7c=).
    let p = pos(SHOGI, "4k4/9/2p6/9/1N7/9/9/9/4K4 b - 1");
    assert_eq!(hodges_of(&p, "8e7c"), "Nx7c=");
    assert_eq!(hodges_of(&p, "8e7c+"), "Nx7c+");
    // A forced promotion has no declined form, and a move outside the zone no suffix at all.
    let p = pos(SHOGI, "k8/6P2/9/4S4/9/9/9/9/4K4 b - 1");
    assert_eq!(hodges_of(&p, "3b3a+"), "P-3a+");
    assert_eq!(hodges_of(&p, "5d5c"), "S-5c=");
    assert_eq!(hodges_of(&p, "5d4e"), "S-4e");
}

/// A promoted piece is written with a leading `+`.
#[test]
fn hodges_promoted_piece() {
    let p = pos(SHOGI, "k8/9/4p4/9/4+R4/9/9/9/4K4 b - 1");
    assert_eq!(hodges_of(&p, "5e5d"), "+R-5d");
    assert_eq!(hodges_of(&p, "5e5c"), "+Rx5c");
    assert_eq!(hodges_of(&p, "5e4f"), "+R-4f");
}

#[test]
fn hodges_drop() {
    let p = pos(SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b P 1");
    assert_eq!(hodges_of(&p, "P*5e"), "P*5e");
}

/// The origin square is added when another piece of the same kind can reach the same square:
/// both golds of the start position reach 5h, only one reaches 6h.
#[test]
fn hodges_disambiguation() {
    let start = Position::start(SHOGI);
    assert_eq!(hodges_of(&start, "6i5h"), "G6i-5h");
    assert_eq!(hodges_of(&start, "4i5h"), "G4i-5h");
    assert_eq!(hodges_of(&start, "6i6h"), "G-6h");
    // The silver on 7i also reaches 7h, but it is another kind of piece.
    assert_eq!(hodges_of(&start, "6i7h"), "G-7h");
}

#[test]
fn hodges_heian() {
    let start = Position::start(HEIAN);
    assert_eq!(hodges_of(&start, "7j7i"), "GB-7i");
    assert_eq!(hodges_of(&start, "13k13j"), "P-13j");
    let p = common::pos(HEIAN, "6k6/13/13/13/6(FD)6/13/13/13/13/13/13/13/6K6 b - 1");
    assert_eq!(hodges_of(&p, "7e5c+"), "FD-5c+");
    assert_eq!(hodges_of(&p, "7e5c"), "FD-5c=");
    assert_eq!(hodges_of(&p, "7e9g"), "FD-9g");
}

// ---------------------------------------------------------------------------------------------
// Property tests: malformed input never panics; what parses round-trips
// ---------------------------------------------------------------------------------------------

/// Valid positions to mutate.
const SEEDS: &[(VariantId, &str)] = &[
    (VariantId::SHOGI, SHOGI_START),
    (VariantId::SHOGI, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
    (VariantId::SHOGI, "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1"),
    (VariantId::SHOGI, "6n1l/2+S1k4/2lp4p/1np1B2b1/3PP4/1N1S3rP/1P2+pPP+p1/1p1G5/3KG2r1 b GSN2L4Pgs2p 1"),
    (VariantId::HEIAN_DAI_SHOGI, "lnicsgkgscinl/(fc)(fd)2(ft)1(sm)1(ft)2(fd)(fc)/ppppppppppppp/6(gb)6/13/13/13/13/13/6(GB)6/PPPPPPPPPPPPP/(FC)(FD)2(FT)1(SM)1(FT)2(FD)(FC)/LNICSGKGSCINL b - 1"),
    (VariantId::HEIAN_DAI_SHOGI, "+(FD)12/13/13/6k6/13/13/13/13/13/13/13/13/(sm)+(fc)4K+P5 w - 77"),
];

const SFEN_ALPHABET: &str = "lnsgkrbpcifdtmLNSGKRBPCIFDTM+()0123456789/ bw-";

fn sfen_alphabet_char() -> impl Strategy<Value = char> {
    prop::sample::select(SFEN_ALPHABET.chars().collect::<Vec<_>>())
}

/// Whatever parses writes back to something that parses to the same position.
fn check_sfen_round_trip(id: VariantId, text: &str) {
    if let Ok(p) = sfen::parse(id.variant(), text) {
        p.verify_derived_state().unwrap();
        let written = sfen::write(&p);
        let again = sfen::parse(id.variant(), &written).unwrap_or_else(|e| panic!("'{text}' parsed, '{written}' does not: {e}"));
        assert_eq!(again, p, "'{text}' -> '{written}'");
        assert_eq!(again.hash(), p.hash());
        assert_eq!(sfen::write(&again), written);
    }
}

/// Positions to read moves in: the seeds plus a position with drops and promotions available.
fn move_positions() -> Vec<Position> {
    let mut out: Vec<Position> = SEEDS.iter().map(|&(id, t)| pos(id, t)).collect();
    out.push(pos(SHOGI, "k8/6P2/9/4S4/9/9/9/9/4K4 b GP 1"));
    out
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn sfen_parse_never_panics_on_arbitrary_text(text in ".{0,300}") {
        for id in VariantId::ALL {
            check_sfen_round_trip(id, &text);
        }
    }

    #[test]
    fn sfen_parse_never_panics_on_the_sfen_alphabet(text in "[lnsgkrbpcifdtmLNSGKRBPCIFDTM+()0-9/ bw-]{0,200}") {
        for id in VariantId::ALL {
            check_sfen_round_trip(id, &text);
        }
    }

    #[test]
    fn sfen_parse_never_panics_on_mutated_positions(
        seed in 0..SEEDS.len(),
        edits in prop::collection::vec((any::<usize>(), 0u8..3, sfen_alphabet_char()), 1..4),
    ) {
        let (_, base) = SEEDS[seed];
        let mut text = base.to_string();
        for (at, op, c) in edits {
            text = mutate(&text, at, op, c);
        }
        for id in VariantId::ALL {
            check_sfen_round_trip(id, &text);
        }
    }

    #[test]
    fn coord_parse_never_panics_on_arbitrary_text(text in ".{0,40}") {
        for p in move_positions() {
            let _ = coord::parse_unchecked(p.variant(), &text);
            check_move_text(&p, &text);
        }
    }

    #[test]
    fn coord_parse_never_panics_on_the_move_alphabet(text in "[0-9a-p*+PLNSGBRKpl]{0,12}") {
        for p in move_positions() {
            check_move_text(&p, &text);
        }
    }

    #[test]
    fn coord_parse_never_panics_on_mutated_moves(
        which in any::<prop::sample::Index>(),
        pick in any::<prop::sample::Index>(),
        at in any::<usize>(),
        op in 0u8..3,
        c in prop::sample::select("0123456789abcdefghijklmnop*+PLNSGBRK".chars().collect::<Vec<_>>()),
    ) {
        let positions = move_positions();
        let p = &positions[which.index(positions.len())];
        let legal = p.legal_moves();
        let m = legal[pick.index(legal.len())];
        let text = mutate(&coord::write(p.variant(), m), at, op, c);
        check_move_text(p, &text);
    }
}

/// The mutation helper itself, so the property above mutates for real.
#[test]
fn mutation_changes_the_text() {
    assert_eq!(mutate("7g7f", 0, 0, 'x'), "xg7f");
    assert_eq!(mutate("7g7f", 4, 1, 'x'), "7g7fx");
    assert_eq!(mutate("7g7f", 1, 2, 'x'), "77f");
    assert_eq!(mutate("7g7f", 4, 2, 'x'), "7g7fx");
}

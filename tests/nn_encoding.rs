//! Input encoding: the plane list follows the variant data, the piece and hand planes give the
//! position back, and the plane contents of hand-built positions are what the documentation
//! says, from the side to move's view.

mod common;
mod nn_support;

use std::collections::BTreeSet;

use nn_support::{game_from, new_game, sample_games};
use shogi_zero::nn::encoding::{ATTACK_PLANES, ENCODING_VERSION, MATERIAL_UNIT, REPETITION_PLANES};
use shogi_zero::nn::{Encoder, InputPlane, Side};
use shogi_zero::rules::attacks::AttackMap;
use shogi_zero::rules::context::RECENT_MOVES;
use shogi_zero::rules::material::Material;
use shogi_zero::rules::variant::Legality;
use shogi_zero::rules::GameContext;
use shogi_zero::rules::{Color, Game, Piece, PieceType, Position, Square, VariantId};

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

fn encode(encoder: &Encoder, game: &Game) -> Vec<f32> {
    let mut out = vec![f32::NAN; encoder.len()];
    encoder.encode_game(game, &mut out);
    out
}

/// The values of plane `plane`.
fn plane<'a>(encoder: &Encoder, planes: &'a [f32], plane: InputPlane) -> &'a [f32] {
    let area = encoder.board_size() * encoder.board_size();
    let i = encoder.plane_index(plane).unwrap_or_else(|| panic!("no plane {plane:?}"));
    &planes[i * area..(i + 1) * area]
}

fn constant(values: &[f32]) -> Option<f32> {
    values.iter().all(|&v| v == values[0]).then_some(values[0])
}

/// Pieces (square, owner, type, promoted) and hands (owner, type, count), sorted.
type Contents = (BTreeSet<(Square, Color, PieceType, bool)>, Vec<(Color, PieceType, u8)>);

/// The pieces and hands the piece and hand planes show, in board terms.
fn decode(encoder: &Encoder, planes: &[f32], mover: Color) -> Contents {
    let v = encoder.variant();
    let area = encoder.board_size() * encoder.board_size();
    let mut pieces = BTreeSet::new();
    let mut hands = Vec::new();
    for (i, p) in encoder.planes().iter().enumerate() {
        let values = &planes[i * area..(i + 1) * area];
        match *p {
            InputPlane::Piece { side, piece, promoted } => {
                for (sq, &value) in values.iter().enumerate() {
                    assert!(value == 0.0 || value == 1.0, "piece plane value {value}");
                    if value == 1.0 {
                        pieces.insert((encoder.frame().square(mover, sq), side.color(mover), piece, promoted));
                    }
                }
            }
            InputPlane::Hand { side, piece } => {
                let value = constant(values).expect("hand planes are constant");
                let count = (value * v.max_in_hand[piece.index()] as f32).round() as u8;
                if count > 0 {
                    hands.push((side.color(mover), piece, count));
                }
            }
            _ => {}
        }
    }
    hands.sort();
    (pieces, hands)
}

fn contents(pos: &Position) -> Contents {
    let v = pos.variant();
    let pieces = pos.pieces().map(|(sq, p): (Square, Piece)| (sq, p.color, p.ptype, p.promoted)).collect();
    let mut hands: Vec<_> =
        Color::ALL.into_iter().flat_map(|c| v.hand_types.iter().map(move |&t| (c, t, pos.hand(c, t)))).filter(|&(_, _, n)| n > 0).collect();
    hands.sort();
    (pieces, hands)
}

#[test]
fn the_plane_list_follows_the_variant_data() {
    let shogi = Encoder::new(VariantId::SHOGI.variant());
    assert_eq!(shogi.plane_count(), 67);
    assert_eq!(Encoder::new(VariantId::HEIAN_DAI_SHOGI.variant()).plane_count(), 73);
    let mut hashes = BTreeSet::new();
    for id in VariantId::ALL {
        let v = id.variant();
        let encoder = Encoder::new(v);
        assert_eq!(encoder.version(), ENCODING_VERSION);
        let faces: usize = v.spec.pieces.iter().map(|p| 1 + p.promotion.is_some() as usize).sum();
        let royal_capture = (v.spec.legality == Legality::RoyalCapture) as usize;
        let context_planes = 1 + 2 + REPETITION_PLANES as usize + 3 + 4 + royal_capture;
        let threat_planes = 2 * (ATTACK_PLANES as usize + 2) + 1 + !v.hand_types.is_empty() as usize;
        assert_eq!(encoder.plane_count(), 2 * faces + 2 * v.hand_types.len() + context_planes + threat_planes, "{id}");
        assert_eq!(encoder.plane_index(InputPlane::RoyalCapture).is_some(), royal_capture == 1, "{id}");
        assert_eq!(encoder.len(), encoder.plane_count() * v.geometry.size * v.geometry.size);
        let distinct: BTreeSet<String> = encoder.planes().iter().map(|p| p.describe(v)).collect();
        assert_eq!(distinct.len(), encoder.plane_count(), "{id}: two planes with one description");
        assert_eq!(encoder.hash(), Encoder::new(v).hash(), "{id}: the hash is stable");
        assert!(hashes.insert(encoder.hash()), "{id}: hash shared with another variant");
    }
}

#[test]
fn earlier_encoding_versions_keep_their_layout() {
    for id in VariantId::ALL {
        let v = id.variant();
        let (old, second, new) = (Encoder::with_version(v, 1).unwrap(), Encoder::with_version(v, 2).unwrap(), Encoder::new(v));
        assert_eq!(old.version(), 1);
        assert_eq!(old.plane_index(InputPlane::RoyalCapture), None, "{id}: version 1 has no royal capture plane");
        let added = (v.spec.legality == Legality::RoyalCapture) as usize;
        assert_eq!(old.plane_count() + added, second.plane_count(), "{id}");
        assert_eq!(second.plane_index(InputPlane::MaterialOnBoard), None, "{id}: version 2 has no material plane");
        assert_eq!(&new.planes()[..second.plane_count()], second.planes(), "{id}: version 3 appends its planes");
        assert_ne!(old.hash(), second.hash(), "{id}: versions hash apart");
        assert_ne!(second.hash(), new.hash(), "{id}: versions hash apart");
        assert_eq!(old.hash(), Encoder::with_version(v, 1).unwrap().hash(), "{id}: the hash is stable");
        assert!(Encoder::with_version(v, 0).is_none() && Encoder::with_version(v, ENCODING_VERSION + 1).is_none());
    }
    assert_eq!(Encoder::with_version(VariantId::HEIAN_DAI_SHOGI.variant(), 1).unwrap().plane_count(), 61);
}

/// A shorter move history drops the planes of the older moves and writes every other plane as
/// the full encoding does; the full history is the default layout, hash included.
#[test]
fn a_shorter_move_history_drops_the_older_moves_planes() {
    for id in VariantId::ALL {
        let v = id.variant();
        let full = Encoder::new(v);
        let same = Encoder::with_history(v, ENCODING_VERSION, RECENT_MOVES).unwrap();
        assert_eq!((same.planes(), same.hash()), (full.planes(), full.hash()), "{id}");
        assert!(Encoder::with_history(v, ENCODING_VERSION, RECENT_MOVES + 1).is_none(), "{id}");
        let game = sample_games(id, 1, 11).remove(0);
        let all = encode(&full, &game);
        let oldest = [InputPlane::LastMoveFrom { plies_ago: RECENT_MOVES as u8 }, InputPlane::LastMoveTo { plies_ago: RECENT_MOVES as u8 }];
        assert!(oldest.iter().any(|&p| plane(&full, &all, p).contains(&1.0)), "{id}: the full encoding shows the oldest move");
        let mut hashes = BTreeSet::from([full.hash()]);
        for recent in 0..RECENT_MOVES {
            let short = Encoder::with_history(v, ENCODING_VERSION, recent).unwrap();
            assert_eq!(short.recent_moves(), recent);
            assert_eq!(short.plane_count() + 2 * (RECENT_MOVES - recent), full.plane_count(), "{id}");
            assert!(hashes.insert(short.hash()), "{id}: {recent} moves hash apart");
            for plies_ago in (recent + 1..=RECENT_MOVES).map(|ago| ago as u8) {
                assert_eq!(short.plane_index(InputPlane::LastMoveFrom { plies_ago }), None, "{id}");
                assert_eq!(short.plane_index(InputPlane::LastMoveTo { plies_ago }), None, "{id}");
            }
            let fewer = encode(&short, &game);
            for &p in short.planes() {
                assert_eq!(plane(&short, &fewer, p), plane(&full, &all, p), "{id}, {recent} moves: {p:?}");
            }
        }
    }
}

#[test]
fn the_royal_capture_plane_shows_a_win_by_capture_at_once() {
    let id = VariantId::CHU_SHOGI;
    let encoder = Encoder::new(id.variant());
    let royal_capture = |sfen: &str| constant(plane(&encoder, &encode(&encoder, &game_from(id, sfen)), InputPlane::RoyalCapture));
    // Black's rook on file 6 attacks White's king.
    assert_eq!(royal_capture("6k5/12/12/12/12/12/12/12/12/12/K11/6R5 b - 1"), Some(1.0));
    // White to move: its own king is attacked (the check plane), Black's is not.
    assert_eq!(royal_capture("6k5/12/12/12/12/12/12/12/12/12/K11/6R5 w - 1"), Some(0.0));
    // The rook does not reach the king.
    assert_eq!(royal_capture("5k6/12/12/12/12/12/12/12/12/12/K11/6R5 b - 1"), Some(0.0));
    // With a crown prince beside it, taking the king does not win.
    assert_eq!(royal_capture("6k+(de)4/12/12/12/12/12/12/12/12/12/K11/6R5 b - 1"), Some(0.0));
}

#[test]
fn piece_and_hand_planes_give_the_position_back() {
    for id in VariantId::ALL {
        let encoder = Encoder::new(id.variant());
        let count = if id.variant().geometry.size <= 13 { 40 } else { 12 };
        for game in sample_games(id, count, 5) {
            let pos = game.position();
            let planes = encode(&encoder, &game);
            let material = [InputPlane::MaterialOnBoard, InputPlane::MaterialInHand].map(|p| encoder.plane_index(p));
            let area = encoder.board_size() * encoder.board_size();
            for (i, v) in planes.iter().enumerate() {
                let range = if material.contains(&Some(i / area)) { -1.0..=1.0 } else { 0.0..=1.0 };
                assert!(v.is_finite() && range.contains(v), "{pos}: value {v} of plane {i} out of {range:?}", i = i / area);
            }
            assert_eq!(decode(&encoder, &planes, pos.side_to_move()), contents(pos), "{pos}");
        }
    }
}

#[test]
fn a_position_and_its_flip_encode_alike_but_for_the_colour_plane() {
    for id in VariantId::ALL {
        let encoder = Encoder::new(id.variant());
        let white_plane = encoder.plane_index(InputPlane::MoverIsWhite).unwrap();
        let area = encoder.board_size() * encoder.board_size();
        for game in sample_games(id, 10, 9) {
            let pos = game.position();
            let (mut a, mut b) = (vec![0.0; encoder.len()], vec![0.0; encoder.len()]);
            let ctx = GameContext { ply: 7, ply_cap: 100, ..GameContext::default() };
            encoder.encode(pos, &ctx, &mut a);
            encoder.encode(&pos.flipped(), &ctx, &mut b);
            let differing: BTreeSet<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).map(|i| i / area).collect();
            assert_eq!(differing, BTreeSet::from([white_plane]), "{pos}");
        }
    }
}

#[test]
fn white_sees_the_board_turned_round_with_the_last_move() {
    let encoder = Encoder::new(VariantId::SHOGI.variant());
    let mut game = game_from(VariantId::SHOGI, START);
    game.play_text("7g7f").unwrap();
    let planes = encode(&encoder, &game);
    let pawn = PieceType::new(7);
    let mine = plane(&encoder, &planes, InputPlane::Piece { side: Side::Mover, piece: pawn, promoted: false });
    let theirs = plane(&encoder, &planes, InputPlane::Piece { side: Side::Opponent, piece: pawn, promoted: false });
    // White's pawns on rank c stand on row 6 of White's frame; Black's on row 2, but the one on
    // 7f, which is on row 3, column 6 (file 7 is White's seventh column from the right).
    assert_eq!(&mine[54..63], &[1.0; 9]);
    assert_eq!(theirs.iter().sum::<f32>(), 9.0);
    assert_eq!(theirs[3 * 9 + 6], 1.0);
    assert_eq!(theirs[2 * 9 + 6], 0.0);
    let from = plane(&encoder, &planes, InputPlane::LastMoveFrom { plies_ago: 1 });
    let to = plane(&encoder, &planes, InputPlane::LastMoveTo { plies_ago: 1 });
    assert_eq!((from.iter().sum::<f32>(), from[2 * 9 + 6]), (1.0, 1.0), "7g is row 2, column 6 for White");
    assert_eq!((to.iter().sum::<f32>(), to[3 * 9 + 6]), (1.0, 1.0), "7f is row 3, column 6 for White");
    assert_eq!(plane(&encoder, &planes, InputPlane::LastMoveFrom { plies_ago: 2 }).iter().sum::<f32>(), 0.0);
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MoverIsWhite)), Some(1.0));
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::PlyProgress)), Some(1.0 / 512.0));
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::OnBoard)), Some(1.0));
    let zone = plane(&encoder, &planes, InputPlane::PromotionZone { side: Side::Mover });
    assert_eq!(zone.iter().enumerate().filter(|(_, &v)| v == 1.0).map(|(i, _)| i).collect::<Vec<_>>(), (0..27).collect::<Vec<_>>());
    let zone = plane(&encoder, &planes, InputPlane::PromotionZone { side: Side::Opponent });
    assert_eq!(zone.iter().enumerate().filter(|(_, &v)| v == 1.0).map(|(i, _)| i).collect::<Vec<_>>(), (54..81).collect::<Vec<_>>());
}

#[test]
fn hands_are_counts_over_the_most_a_hand_can_hold() {
    let encoder = Encoder::new(VariantId::SHOGI.variant());
    let game = game_from(VariantId::SHOGI, "lnsgkgsnl/1r5b1/pppp3pp/9/9/9/PPPPPP3/1B5R1/LNSGKGSNL w 3P3p 1");
    let planes = encode(&encoder, &game);
    let hand = |side, piece| constant(plane(&encoder, &planes, InputPlane::Hand { side, piece: PieceType::new(piece) }));
    assert_eq!(hand(Side::Mover, 7), Some(3.0 / 18.0));
    assert_eq!(hand(Side::Opponent, 7), Some(3.0 / 18.0));
    assert_eq!(hand(Side::Mover, 1), Some(0.0), "no rook in hand");
    let game = game_from(VariantId::SHOGI, "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1");
    let planes = encode(&encoder, &game);
    let hand = |side, piece| constant(plane(&encoder, &planes, InputPlane::Hand { side, piece: PieceType::new(piece) }));
    for piece in 1..8 {
        assert_eq!(hand(Side::Mover, piece), Some(1.0), "a full hand reads 1");
        assert_eq!(hand(Side::Opponent, piece), Some(0.0));
    }
}

#[test]
fn repetitions_and_check_have_their_planes() {
    let encoder = Encoder::new(VariantId::SHOGI.variant());
    let mut game = new_game(VariantId::SHOGI);
    let repetition = |game: &Game| -> Vec<f32> {
        let planes = encode(&encoder, game);
        (1..=REPETITION_PLANES).map(|times| constant(plane(&encoder, &planes, InputPlane::Repetition { times })).unwrap()).collect()
    };
    assert_eq!(repetition(&game), [0.0, 0.0, 0.0]);
    for round in 1..=3 {
        for mv in ["5i5h", "5a5b", "5h5i", "5b5a"] {
            game.play_text(mv).unwrap();
        }
        let expected: Vec<f32> = (1..=3).map(|t| if t <= round { 1.0 } else { 0.0 }).collect();
        assert_eq!(repetition(&game), expected, "after {round} cycles");
    }
    let checked = game_from(VariantId::SHOGI, "4k4/9/9/9/9/9/9/4r4/4K4 b - 1");
    assert_eq!(constant(plane(&encoder, &encode(&encoder, &checked), InputPlane::InCheck)), Some(1.0));
    assert_eq!(constant(plane(&encoder, &encode(&encoder, &game), InputPlane::InCheck)), Some(0.0));
}

#[test]
fn every_value_is_overwritten() {
    let encoder = Encoder::new(VariantId::HEIAN_DAI_SHOGI.variant());
    let game = new_game(VariantId::HEIAN_DAI_SHOGI);
    let (mut a, mut b) = (vec![f32::NAN; encoder.len()], vec![7.0; encoder.len()]);
    encoder.encode_game(&game, &mut a);
    encoder.encode_game(&game, &mut b);
    assert_eq!(a, b);
}

/// The squares (by name) where `plane` is 1, from the side to move's frame back to the board.
fn marked(encoder: &Encoder, planes: &[f32], plane_kind: InputPlane, mover: Color) -> BTreeSet<String> {
    let g = &encoder.variant().geometry;
    let values = plane(encoder, planes, plane_kind);
    assert!(values.iter().all(|&v| v == 0.0 || v == 1.0), "{plane_kind:?} is 0 or 1");
    (0..values.len()).filter(|&i| values[i] == 1.0).map(|i| g.square_name(encoder.frame().square(mover, i))).collect()
}

fn names(squares: &[&str]) -> BTreeSet<String> {
    squares.iter().map(|s| s.to_string()).collect()
}

/// Black silver 5e backed by a gold on 5f, White pawn 5d: the pawn attacks the silver (a lesser
/// attacker, but the gold defends it), the silver attacks the undefended pawn.
const THREATS: &str = "8k/9/9/4p4/4S4/4G4/9/9/4K4";

#[test]
fn attack_maps_count_the_attackers_and_the_cheapest() {
    let id = VariantId::SHOGI;
    let pos = game_from(id, &format!("{THREATS} b - 1")).position().clone();
    let g = &id.variant().geometry;
    let sq = |name: &str| g.parse_square(name).unwrap();
    let (black, white) = (AttackMap::of(&pos, Color::Black), AttackMap::of(&pos, Color::White));
    let material = Material::of(id);
    let value = |sq_name: &str| material.value(pos.piece_at(sq(sq_name)).unwrap());
    // The silver reaches 5d, 4d, 6d, 4f, 6f; the gold 5e, 4e, 6e, 4f, 6f, 5g; the king its ring.
    assert_eq!([black.count(sq("5d")), black.count(sq("6f")), black.count(sq("5e")), black.count(sq("5h"))], [1, 2, 1, 1]);
    assert_eq!(black.count(sq("5c")), 0, "nothing reaches past the pawn");
    assert_eq!(black.cheapest(sq("6f")), Some(value("5e").min(value("5f"))));
    assert_eq!(white.count(sq("5e")), 1);
    assert_eq!(white.cheapest(sq("5e")), Some(value("5d")));
    assert_eq!(white.cheapest(sq("5f")), None);
    // A rook behind the pawn does not attack through it; a knight jumps.
    let pos = game_from(id, "4r3k/9/9/4p4/4S4/4G4/9/9/4K4 b N 1").position().clone();
    assert_eq!(AttackMap::of(&pos, Color::White).count(sq("5e")), 1);
    let pos = game_from(id, "8k/9/9/4p4/4S4/4G4/3N5/9/4K4 b - 1").position().clone();
    assert_eq!(AttackMap::of(&pos, Color::Black).count(sq("5e")), 2, "gold and knight (6g jumps to 5e)");
}

#[test]
fn threat_planes_show_hanging_and_outgunned_pieces_from_the_movers_side() {
    let id = VariantId::SHOGI;
    let encoder = Encoder::new(id.variant());
    for (mover, text) in [(Color::Black, "b"), (Color::White, "w")] {
        let game = game_from(id, &format!("{THREATS} {text} - 1"));
        let planes = encode(&encoder, &game);
        let (black, white) = if mover == Color::Black { (Side::Mover, Side::Opponent) } else { (Side::Opponent, Side::Mover) };
        assert_eq!(marked(&encoder, &planes, InputPlane::Hanging { side: white }, mover), names(&["5d"]), "the pawn hangs");
        assert_eq!(marked(&encoder, &planes, InputPlane::Hanging { side: black }, mover), names(&[]), "the gold defends the silver");
        assert_eq!(marked(&encoder, &planes, InputPlane::AttackedByLesser { side: black }, mover), names(&["5e"]));
        assert_eq!(marked(&encoder, &planes, InputPlane::AttackedByLesser { side: white }, mover), names(&[]));
        assert_eq!(marked(&encoder, &planes, InputPlane::Attacks { side: black, at_least: 2 }, mover), names(&["4f", "6f"]));
        assert_eq!(marked(&encoder, &planes, InputPlane::Attacks { side: black, at_least: 3 }, mover), names(&[]));
        assert_eq!(marked(&encoder, &planes, InputPlane::Attacks { side: white, at_least: 1 }, mover), names(&["5e", "1b", "2a", "2b"]));
    }
    // Without the gold the silver hangs too.
    let game = game_from(id, "8k/9/9/4p4/4S4/9/9/9/4K4 b - 1");
    let planes = encode(&encoder, &game);
    assert_eq!(marked(&encoder, &planes, InputPlane::Hanging { side: Side::Mover }, Color::Black), names(&["5e"]));
}

#[test]
fn material_planes_hold_the_balance_on_the_board_and_in_hand() {
    let id = VariantId::SHOGI;
    let encoder = Encoder::new(id.variant());
    let material = Material::of(id);
    let unit = MATERIAL_UNIT * material.strongest() as f32;
    let game = game_from(id, &format!("{THREATS} b R2p 1"));
    let pos = game.position();
    let value = |name: &str| material.value(pos.piece_at(id.variant().geometry.parse_square(name).unwrap()).unwrap());
    let (rook, pawn) = (material.hand_value(PieceType::new(1)), material.hand_value(PieceType::new(7)));
    let board = (value("5e") + value("5f") - value("5d")) as f32 / unit;
    let hand = (rook - 2 * pawn) as f32 / unit;
    let planes = encode(&encoder, &game);
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MaterialOnBoard)), Some(board));
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MaterialInHand)), Some(hand));
    assert!(board > 0.0 && hand > 0.0);
    let planes = encode(&encoder, &game_from(id, &format!("{THREATS} w R2p 1")));
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MaterialOnBoard)), Some(-board), "White's view");
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MaterialInHand)), Some(-hand));
    // A balance beyond the unit is clamped.
    let planes = encode(&encoder, &game_from(id, "4k4/9/9/9/9/9/9/9/4K4 b 2R2B4G4S4N4L18P 1"));
    assert_eq!(constant(plane(&encoder, &planes, InputPlane::MaterialInHand)), Some(1.0));
}

#[test]
fn a_lion_attacks_two_squares_away_in_chu_shogi() {
    let id = VariantId::CHU_SHOGI;
    let encoder = Encoder::new(id.variant());
    let g = &id.variant().geometry;
    let sq = |name: &str| g.parse_square(name).unwrap();
    // Black lion 6g, White pawn 6e defended by a White gold on 7d.
    let defended = game_from(id, "k11/12/12/5g6/6p5/12/6(Ln)5/12/12/12/12/11K b - 1");
    let pos = defended.position();
    let black = AttackMap::of(pos, Color::Black);
    assert_eq!([black.count(sq("6e")), black.count(sq("8e")), black.count(sq("6d"))], [1, 1, 0]);
    assert_eq!(AttackMap::of(pos, Color::White).count(sq("6e")), 1, "the gold defends the pawn");
    let planes = encode(&encoder, &defended);
    assert_eq!(marked(&encoder, &planes, InputPlane::Hanging { side: Side::Opponent }, Color::Black), names(&[]));
    let alone = game_from(id, "k11/12/12/12/6p5/12/6(Ln)5/12/12/12/12/11K b - 1");
    let planes = encode(&encoder, &alone);
    assert_eq!(marked(&encoder, &planes, InputPlane::Hanging { side: Side::Opponent }, Color::Black), names(&["6e"]));
    assert_eq!(marked(&encoder, &planes, InputPlane::AttackedByLesser { side: Side::Opponent }, Color::Black), names(&[]));
}

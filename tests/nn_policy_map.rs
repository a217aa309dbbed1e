//! The policy map of every variant is injective on the moves the rules generate: seeded random
//! games, every legal move at every position (declaration included) gets a distinct valid index
//! that decodes to the same move; and every index decodes to at most one move.

mod common;
mod nn_support;

use nn_support::{game_from, random_game};
use shogi_zero::nn::PolicyMap;
use shogi_zero::rules::notation::coord;
use shogi_zero::rules::{Color, Game, Move, VariantId};

/// Moves checked, by kind: normal, drop, two-leg, pass, declare.
type Counts = [usize; 5];

/// Checks every legal move of the game's position and counts them by kind.
fn check_game(map: &PolicyMap, game: &Game, seen: &mut [u32], stamp: u32, counts: &mut Counts) {
    let pos = game.position();
    let v = pos.variant();
    let mover = pos.side_to_move();
    let moves = game.legal_moves();
    for &mv in &moves {
        let name = coord::write(v, mv);
        let index = map.index(mv, mover).unwrap_or_else(|| panic!("{pos}: {name} has no index"));
        assert!(index < map.len(), "{pos}: {name} -> {index} is past the end ({})", map.len());
        assert_ne!(seen[index], stamp, "{pos}: {name} -> {index} collides with another legal move");
        seen[index] = stamp;
        assert_eq!(map.decode(index, mover), Some(mv), "{pos}: {name} -> {index} decodes to another move");
        counts[match mv {
            Move::Normal { .. } => 0,
            Move::Drop { .. } => 1,
            Move::TwoLeg { .. } => 2,
            Move::Pass => 3,
            Move::Declare => 4,
        }] += 1;
    }
}

#[test]
fn legal_moves_map_to_distinct_indices_and_back_in_every_variant() {
    for id in VariantId::ALL {
        let map = PolicyMap::new(id.variant());
        let mut seen = vec![0u32; map.len()];
        let (mut stamp, mut counts) = (0u32, Counts::default());
        // Fewer games on the larger boards, whose positions have many more moves.
        let games = if id.variant().geometry.size <= 9 { 60 } else { 12 };
        for seed in 0..games {
            random_game(id, seed, 300, |game| {
                stamp += 1;
                check_game(&map, game, &mut seen, stamp, &mut counts);
            });
        }
        let v = id.variant();
        eprintln!("{id}: moves checked (normal, drop, two-leg, pass, declare): {counts:?}");
        assert!(counts[0] > 10_000, "{id}: only {counts:?} moves checked");
        assert_eq!(counts[1] > 0, v.spec.drops, "{id}: drops checked iff the variant has drops");
        assert_eq!(counts[2] > 0, !v.move_shapes.two_leg.is_empty(), "{id}: two-leg moves checked iff the variant has them");
        assert_eq!(counts[3] > 0, v.move_shapes.pass, "{id}: passes checked iff the variant has them");
    }
}

#[test]
fn the_declaration_has_its_own_index() {
    let game = game_from(VariantId::SHOGI, "9/+R3K3B/LNSG1GSNL/9/9/9/9/4k4/9 b 10Prb2g2s2n2l8p 1");
    let moves = game.legal_moves();
    assert!(moves.contains(&Move::Declare), "the test position allows the declaration");
    let map = PolicyMap::new(VariantId::SHOGI.variant());
    let mut counts = Counts::default();
    check_game(&map, &game, &mut vec![0; map.len()], 1, &mut counts);
    assert_eq!(counts[4], 1);
    assert_eq!(map.index(Move::Declare, Color::Black), Some(map.len() - 1));
    assert_eq!(map.index(Move::Pass, Color::Black), None, "shogi has no pass");
    assert_eq!(PolicyMap::new(VariantId::HEIAN_DAI_SHOGI.variant()).index(Move::Declare, Color::White), None);
}

#[test]
fn every_index_decodes_to_at_most_one_move_and_back() {
    for id in VariantId::ALL {
        let map = PolicyMap::new(id.variant());
        for mover in Color::ALL {
            let mut decoded = 0;
            for index in 0..map.len() + 3 {
                if let Some(mv) = map.decode(index, mover) {
                    assert_eq!(map.index(mv, mover), Some(index), "{id} {mover}: index {index} decodes to {mv:?}");
                    decoded += 1;
                }
            }
            assert!(decoded > map.len() / 3, "{id}: only {decoded} of {} indices decode", map.len());
        }
    }
}

#[test]
fn indices_are_in_the_movers_frame() {
    let shogi = VariantId::SHOGI;
    let map = PolicyMap::new(shogi.variant());
    let black = game_from(shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let white = game_from(shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1");
    let mv = |game: &Game, text| coord::parse(game.position(), text).expect("legal");
    // The same pawn push seen from each side has the same index.
    assert_eq!(map.index(mv(&black, "7g7f"), Color::Black), map.index(mv(&white, "3c3d"), Color::White));
    let mut all: Vec<usize> = black.legal_moves().iter().map(|&m| map.index(m, Color::Black).unwrap()).collect();
    let mut rotated: Vec<usize> = white.legal_moves().iter().map(|&m| map.index(m, Color::White).unwrap()).collect();
    all.sort_unstable();
    rotated.sort_unstable();
    assert_eq!(all, rotated);
}

//! Seeded random play in every variant, checking after every move that the position's pieces of
//! state agree with each other: derived state, make/unmake, the position format, coordinate
//! notation, colour symmetry of the move generator, and the self-check rule of each variant.

mod common;

use common::SplitMix64;
use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::{Color, Game, GameRules, Move, Position, VariantId};

/// Games per variant; odd-numbered games prefer captures, to reach fuller hands and game ends.
const GAMES: u64 = 80;
const MAX_PLIES: usize = 150;

/// Statistics gathered over the random games, to show the checks did see something.
#[derive(Default, Debug)]
struct Seen {
    positions: usize,
    moves_checked: usize,
    captures: usize,
    promotions: usize,
    drops: usize,
    /// Legal moves that leave the mover's royal piece attacked (only possible in Heian dai).
    self_check_moves: usize,
    flips_depth_3: usize,
    ended: usize,
}

/// Checks one position and each of its legal moves; returns the legal moves.
fn check_position(pos: &Position, ply: usize, label: &str, seen: &mut Seen, flip_depth: Option<u32>) -> Vec<Move> {
    let v = pos.variant();
    let here = format!("{label} ply {ply}: {pos}");
    seen.positions += 1;

    pos.verify_derived_state().unwrap_or_else(|e| panic!("{here}: derived state wrong: {e}"));

    // Position format round trip.
    let written = sfen::write(pos);
    let reread = sfen::parse(v, &written).unwrap_or_else(|e| panic!("{here}: written form '{written}' does not parse: {e}"));
    assert_eq!(&reread, pos, "{here}: position format round trip");
    assert_eq!(reread.hash(), pos.hash(), "{here}: the re-read position hashes differently");
    assert_eq!(sfen::write(&reread), written, "{here}: written twice differently");

    // Colour symmetry: the rotated position with colours swapped has the same tree.
    let flipped = pos.flipped();
    flipped.verify_derived_state().unwrap_or_else(|e| panic!("{here}: flipped derived state: {e}"));
    assert_eq!(&flipped.flipped(), pos, "{here}: flipping twice is not the identity");
    assert_eq!(flipped.side_to_move(), pos.side_to_move().opponent(), "{here}: flip swaps the side to move");
    if let Some(depth) = flip_depth {
        assert_eq!(perft(pos, depth), perft(&flipped, depth), "{here}: perft {depth} differs from the flipped position's");
        if depth >= 3 {
            seen.flips_depth_3 += 1;
        }
    }

    let legal = pos.legal_moves();
    let mover = pos.side_to_move();
    let them = mover.opponent();
    let mut scratch = pos.clone();
    for &m in &legal {
        let name = coord::write(v, m);
        // Coordinate notation round trip, checked for legality in this position.
        assert_eq!(coord::parse(pos, &name), Ok(m), "{here}: move '{name}' does not read back");
        assert!(pos.is_legal(m), "{here}: is_legal({name}) is false for a generated move");

        // make/unmake restores the very same position.
        let undo = scratch.play_unchecked(m);
        let after = scratch.clone();
        after.verify_derived_state().unwrap_or_else(|e| panic!("{here}: after {name}: {e}"));
        assert_eq!(after.side_to_move(), them, "{here}: after {name} the other side moves");
        assert_eq!(after.move_number(), pos.move_number() + 1, "{here}: after {name} the move number goes up");
        assert_eq!(after, pos.after(m).unwrap(), "{here}: make and after() disagree on {name}");
        assert_ne!(after.hash(), pos.hash(), "{here}: {name} leaves the hash unchanged");
        scratch.unmake(m, undo);
        assert_eq!(&scratch, pos, "{here}: unmake of {name} does not restore the position");
        assert_eq!(scratch.hash(), pos.hash(), "{here}: unmake of {name} does not restore the hash");

        assert_ne!(m, Move::Declare, "{here}: the position generated a declaration (the game layer offers it)");
        if let Move::Normal { to, promote, .. } = m {
            seen.captures += usize::from(pos.piece_at(to).is_some());
            seen.promotions += usize::from(promote);
        }
        if let Move::Drop { .. } = m {
            seen.drops += 1;
        }

        // Self-check: illegal in shogi (shogi.md section 6), legal in Heian dai (section 4).
        let exposed = after.in_check(mover);
        if v.id == VariantId::SHOGI {
            assert!(!exposed, "{here}: {name} leaves {mover}'s king in check");
        } else {
            seen.self_check_moves += usize::from(exposed);
        }
        seen.moves_checked += 1;
    }
    legal
}

/// In Heian dai shogi every king step onto a square not holding a friendly piece is legal,
/// attacked or not (heian-dai-shogi.md section 4).
fn check_king_steps_unfiltered(pos: &Position, label: &str) {
    let v = pos.variant();
    let g = &v.geometry;
    let us = pos.side_to_move();
    let Some(king) = pos.royal_square(us) else { return };
    let (kx, ky) = g.xy(king);
    let legal = pos.legal_moves();
    for dy in -1i32..=1 {
        for dx in -1i32..=1 {
            let (x, y) = (kx as i32 + dx, ky as i32 + dy);
            if (dx, dy) == (0, 0) || x < 0 || y < 0 || x >= g.size as i32 || y >= g.size as i32 {
                continue;
            }
            let to = g.square(x as usize, y as usize);
            if pos.piece_at(to).is_some_and(|p| p.color == us) {
                continue;
            }
            let m = Move::Normal { from: king, to, promote: false };
            assert!(legal.contains(&m), "{label}: {pos}: king step {} missing", coord::write(v, m));
        }
    }
}

fn random_games(id: VariantId, seed: u64) -> Seen {
    let mut rng = SplitMix64(seed);
    let mut seen = Seen::default();
    for game_index in 0..GAMES {
        let label = format!("{id} game {game_index} (seed {seed})");
        let mut game = Game::new(Position::start(id), GameRules::default_for(id.variant()));
        for ply in 0..MAX_PLIES {
            let pos = game.position().clone();
            let flip_depth = match ply {
                _ if ply % 50 == 25 && game_index < 5 => Some(3),
                _ if ply % 10 == 0 => Some(2),
                _ => None,
            };
            let legal = check_position(&pos, ply, &label, &mut seen, flip_depth);
            if id == VariantId::HEIAN_DAI_SHOGI {
                check_king_steps_unfiltered(&pos, &label);
            }
            let game_moves = game.legal_moves();
            if game.outcome().is_some() {
                assert!(game_moves.is_empty(), "{label}: moves offered after the end");
                break;
            }
            assert!(!legal.is_empty(), "{label} ply {ply}: no legal move but the game goes on: {pos}");
            let board_moves: Vec<Move> = game_moves.iter().copied().filter(|&m| m != Move::Declare).collect();
            assert_eq!(board_moves, legal, "{label} ply {ply}: the game and the position disagree on the moves");
            let captures: Vec<Move> =
                legal.iter().copied().filter(|m| matches!(m, Move::Normal { to, .. } if pos.piece_at(*to).is_some())).collect();
            let m = if game_index % 2 == 1 && !captures.is_empty() && rng.below(4) != 0 {
                captures[rng.below(captures.len())]
            } else {
                legal[rng.below(legal.len())]
            };
            game.play(m).unwrap_or_else(|e| panic!("{label} ply {ply}: {e}"));
            assert_eq!(game.position(), &pos.after(m).unwrap(), "{label} ply {ply}: the game played another position");
        }
        if let Some(outcome) = game.outcome() {
            seen.ended += 1;
            let pos = game.position();
            // Every end reached in random play must be explained by the final position.
            use shogi_zero::rules::EndReason::*;
            match outcome.reason {
                Checkmate => {
                    let loser = pos.side_to_move();
                    assert!(pos.in_check(loser) && pos.legal_moves().is_empty(), "{label}: checkmate claimed in {pos}");
                    assert_eq!(outcome.winner, Some(loser.opponent()));
                }
                RoyalCaptured => {
                    let loser = outcome.winner.expect("a royal capture has a winner").opponent();
                    assert_eq!(pos.royal_count(loser), 0, "{label}: royal capture claimed in {pos}");
                }
                BareKing => {
                    let bared = pos.side_to_move();
                    assert_eq!(pos.non_royal_count(bared), 0, "{label}: bare king claimed in {pos}");
                }
                _ => {}
            }
        }
    }
    eprintln!("{id}: {seen:?}");
    assert!(seen.positions > 1000 && seen.moves_checked > 50_000, "{id}: too little was checked: {seen:?}");
    assert!(seen.captures > 0 && seen.promotions > 0, "{id}: random play never captured or promoted: {seen:?}");
    seen
}

#[test]
fn random_games_shogi() {
    let seen = random_games(VariantId::SHOGI, 0x5_0061);
    assert!(seen.drops > 0, "shogi random play never dropped a piece: {seen:?}");
    assert!(seen.flips_depth_3 > 0);
}

#[test]
fn random_games_heian_dai_shogi() {
    let seen = random_games(VariantId::HEIAN_DAI_SHOGI, 0x4e1a_0d41);
    assert_eq!(seen.drops, 0, "Heian dai shogi has no drops");
    // Moving into attack is legal in Heian dai shogi (section 4): random play meets such moves.
    assert!(seen.self_check_moves > 0, "no legal move ever left the mover's king attacked: {seen:?}");
}

/// The start position is its own flip: White's camp is Black's rotated (README section 1).
#[test]
fn start_positions_are_symmetric() {
    for id in VariantId::ALL {
        let start = Position::start(id);
        let flipped = start.flipped();
        assert_eq!(sfen::write(&flipped).split(' ').next(), sfen::write(&start).split(' ').next(), "{id}");
        assert_eq!(flipped.side_to_move(), Color::White);
    }
}

//! A small forced-mate search for the root of a search: the attacker plays only checking moves,
//! the defender every reply that escapes the check, and a mate is a check that no reply
//! escapes. In shogi, where a king may not be left in check, that is a position where the
//! checked side has no legal move (shogi's no-move loss; a pawn-drop mate is already illegal
//! in the move generator). In the variants where a royal piece may be left en prise (chu, dai,
//! tenjiku, Heian dai), a check leaves the defender's only royal piece where the attacker can
//! take it, and a reply escapes when the royal can no longer be taken or the reply took the
//! attacker's last royal; a defender with two royals is never mated here. Mates in one or three
//! plies cost a few milliseconds and are found at any search budget, where a network's priors
//! may never lead the tree to them (dlshogi runs such a search at its root too).

use crate::rules::royal_zone::RoyalZone;
use crate::rules::variant::Legality;
use crate::rules::{Color, Move, Position};

/// The attacker's most plies a mate search may look ahead.
pub const MAX_MATE_PLIES: u32 = 5;

/// A forced mate within `plies` plies (odd, 1 for a mate in one) by the side to move: its moves,
/// the first reply the defender has at each turn, and the mate. None when no such mate exists
/// or `plies` is 0. In the variants where royals are captured, the game ends one ply after the
/// line, when the attacker takes the royal.
pub fn find_mate(position: &Position, plies: u32) -> Option<Vec<Move>> {
    if plies == 0 {
        return None;
    }
    let mut scratch = position.clone();
    mating_line(&mut scratch, plies | 1)
}

/// Whether the side to move in `position` is mated: in check with no reply that escapes it. In
/// shogi that is checkmate; where royals are captured, every move it has leaves its only royal
/// piece to be taken.
pub fn is_mated(position: &Position) -> bool {
    checked(position, position.side_to_move()) && escapes(&mut position.clone(), true).is_empty()
}

/// Whether `color` is in check in `pos`: its king attacked (shogi), or its only royal piece where
/// the opponent could take it (the other variants).
fn checked(pos: &Position, color: Color) -> bool {
    match pos.variant().spec.legality {
        Legality::SelfCheckIllegal => pos.in_check(color),
        Legality::RoyalCapture => pos.only_royal_en_prise(color),
    }
}

/// The zone of the defender's royal ([`RoyalZone`]) where royals are captured and it cannot be
/// taken in `pos` (the attacker to move): only a move that touches the zone can check it, and
/// [`RoyalZone::exposed_after`] tells which does.
fn check_zone(pos: &Position, defender: Color) -> Option<RoyalZone> {
    let applies = pos.variant().spec.legality == Legality::RoyalCapture && !pos.only_royal_en_prise(defender);
    applies.then(|| RoyalZone::of(pos, defender)).flatten()
}

/// The replies of the side to move in `pos`, which is in check, that escape the check (all of
/// them, or the first one when `first_only`): every legal move in shogi (which forbids the
/// others); elsewhere the moves after which its royal can no longer be taken, or that took the
/// attacker's last royal. A reply that leaves the royal's zone as it was leaves it in check.
fn escapes(pos: &mut Position, first_only: bool) -> Vec<Move> {
    let moves = pos.legal_moves();
    if pos.variant().spec.legality == Legality::SelfCheckIllegal {
        return moves;
    }
    let defender = pos.side_to_move();
    let zone = RoyalZone::of(pos, defender);
    let mut found = Vec::new();
    for mv in moves {
        if zone.as_ref().is_some_and(|zone| !zone.touched_by(mv)) && !takes_the_last_royal(pos, mv) {
            continue;
        }
        let undo = pos.play_unchecked(mv);
        let escaped = pos.royal_count(defender.opponent()) == 0 || !pos.only_royal_en_prise(defender);
        pos.unmake(mv, undo);
        if escaped {
            found.push(mv);
            if first_only {
                break;
            }
        }
    }
    found
}

/// Whether `mv` captures the only royal piece of the side not to move in `pos`.
fn takes_the_last_royal(pos: &Position, mv: Move) -> bool {
    let royal = pos.royal_square(pos.side_to_move().opponent());
    royal.is_some_and(|royal| mv.capture_squares().any(|sq| sq == royal))
}

/// The line of the shortest mate within `plies` plies from `pos`, the attacker to move: the
/// first checking move after which every escape is mated in `plies - 1` more plies.
fn mating_line(pos: &mut Position, plies: u32) -> Option<Vec<Move>> {
    let attacker = pos.side_to_move();
    let defender = attacker.opponent();
    // An escape that took the attacker's last royal has won the game.
    if pos.variant().spec.legality == Legality::RoyalCapture && pos.royal_count(attacker) == 0 {
        return None;
    }
    let zone = check_zone(pos, defender);
    // The checking moves and their escapes, generated once; a mate in one ends the search.
    let mut checks = Vec::new();
    for mv in pos.legal_moves() {
        if zone.as_ref().is_some_and(|zone| !zone.touched_by(mv)) {
            continue;
        }
        let undo = pos.play_unchecked(mv);
        let check = zone.as_ref().map_or_else(|| checked(pos, defender), |zone| zone.exposed_after(mv, pos));
        let replies = check.then(|| escapes(pos, plies == 1));
        pos.unmake(mv, undo);
        match replies {
            Some(replies) if replies.is_empty() => return Some(vec![mv]),
            Some(replies) if plies > 1 => checks.push((mv, replies)),
            _ => {}
        }
    }
    // Longer mates by depth, so that a shorter one always comes first.
    for depth in (3..=plies).step_by(2) {
        for (mv, replies) in &checks {
            let undo = pos.play_unchecked(*mv);
            let rest = every_reply_mated(pos, replies, depth - 2);
            pos.unmake(*mv, undo);
            if let Some(rest) = rest {
                return Some([vec![*mv], rest].concat());
            }
        }
    }
    None
}

/// When every move in `replies` (the defender's, in `pos`) leaves a mate in `plies` plies: the
/// first reply and its mating line.
fn every_reply_mated(pos: &mut Position, replies: &[Move], plies: u32) -> Option<Vec<Move>> {
    let mut first_line = None;
    for &reply in replies {
        let undo = pos.play_unchecked(reply);
        let line = mating_line(pos, plies);
        pos.unmake(reply, undo);
        let line = line?;
        first_line.get_or_insert_with(|| [vec![reply], line].concat());
    }
    first_line
}

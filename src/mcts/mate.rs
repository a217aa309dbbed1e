//! A small forced-mate search for the root of a search, in the variants where a king may not be
//! left in check (shogi): the attacker plays only checking moves, the defender every legal
//! reply, and a mate is a position where the checked side has no legal move (shogi's
//! no-move loss; a pawn-drop mate is already illegal in the move generator). Mates in one or
//! three plies cost a few milliseconds and are found at any search budget, where a network's
//! priors may never lead the tree to them (dlshogi runs such a search at its root too).

use crate::rules::variant::Legality;
use crate::rules::{Move, Position};

/// The attacker's most plies a mate search may look ahead.
pub const MAX_MATE_PLIES: u32 = 5;

/// A forced mate within `plies` plies (odd, 1 for a mate in one) by the side to move: its moves,
/// the first reply the defender has at each turn, and the mate. None when no such mate exists,
/// `plies` is 0, or the variant allows moving into check (there a win comes by capturing the
/// royal pieces, which the search's winning-capture test finds).
pub fn find_mate(position: &Position, plies: u32) -> Option<Vec<Move>> {
    if position.variant().spec.legality != Legality::SelfCheckIllegal || plies == 0 {
        return None;
    }
    let mut scratch = position.clone();
    mating_line(&mut scratch, plies | 1)
}

/// The line of the shortest mate within `plies` plies from `pos`, the attacker to move: the
/// first checking move after which every defence is mated in `plies - 1` more plies.
fn mating_line(pos: &mut Position, plies: u32) -> Option<Vec<Move>> {
    let defender = pos.side_to_move().opponent();
    // The checking moves and their replies, generated once; a mate in one ends the search.
    let mut checks = Vec::new();
    for mv in pos.legal_moves() {
        let undo = pos.play_unchecked(mv);
        let replies = pos.in_check(defender).then(|| pos.legal_moves());
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

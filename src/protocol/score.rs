//! A search result as the protocols report it: centipawns, a mate distance, and whether to resign.
//!
//! The search gives win, draw and loss probabilities for the side to move. Its value
//! v = win − loss becomes centipawns through the logistic curve that shogi engines use to turn
//! evaluations into winning chances, expected score = 1 / (1 + e^(−cp / 600)), with the
//! expected score (1 + v) / 2: cp = 600 · ln((1 + v) / (1 − v)), clamped to ±[`MAX_CP`]. So
//! v = 0.5 (75% expected) is about 659 cp, v = 0.9 is about 1767 cp, v = 0.99 about 3176 cp.

use crate::mcts::SearchInfo;
use crate::rules::{Game, Move};

/// The scale of the logistic curve: an advantage of this many centipawns is a 73% expected score.
pub const CP_SCALE: f64 = 600.0;
/// The largest centipawn value reported (a value of ±1 would be infinite).
pub const MAX_CP: i32 = 10_000;

/// Centipawns for the side to move from a value in [-1, 1].
pub fn centipawns(value: f32) -> i32 {
    let v = f64::from(value.clamp(-1.0, 1.0));
    let cp = CP_SCALE * ((1.0 + v) / (1.0 - v)).ln();
    cp.clamp(-f64::from(MAX_CP), f64::from(MAX_CP)).round() as i32
}

/// The expected score for the side to move: win plus half the draws.
pub fn expected_score(wdl: [f32; 3]) -> f32 {
    wdl[0] + 0.5 * wdl[1]
}

/// Whether to resign with `wdl` for the side to move: its expected score is below
/// `threshold_percent` (0 never resigns).
pub fn should_resign(wdl: [f32; 3], threshold_percent: u32) -> bool {
    expected_score(wdl) * 100.0 < threshold_percent as f32
}

/// The line to report: the principal variation when it starts with the best move (visit ties
/// can make them differ), else the best move alone.
pub fn principal_line(info: &SearchInfo) -> Vec<Move> {
    match (info.best, info.pv.first()) {
        (Some(best), Some(&first)) if best != first => vec![best],
        _ => info.pv.clone(),
    }
}

/// The plies to a decisive end of the game along the principal variation `pv` from `game`,
/// positive when the side to move wins, when the search's value agrees (same sign). The search
/// proves nothing: this is where its best line leads, not a forced mate.
pub fn mate_distance(game: &Game, pv: &[Move], value: f32) -> Option<i32> {
    let mover = game.position().side_to_move();
    let mut line = game.clone();
    for &mv in pv {
        line.play(mv).ok()?;
    }
    let winner = line.outcome()?.winner?;
    let plies = pv.len() as i32;
    if winner == mover && value > 0.0 {
        Some(plies)
    } else if winner != mover && value < 0.0 {
        Some(-plies)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::{coord, sfen};
    use crate::rules::{GameRules, VariantId};

    #[test]
    fn centipawns_follow_the_logistic_curve() {
        assert_eq!(centipawns(0.0), 0);
        assert_eq!(centipawns(0.5), 659);
        assert_eq!(centipawns(-0.5), -659);
        assert_eq!(centipawns(0.9), 1767);
        assert_eq!(centipawns(1.0), MAX_CP);
        assert_eq!(centipawns(-1.0), -MAX_CP);
        assert_eq!(centipawns(-3.0), -MAX_CP);
        assert_eq!(centipawns(f32::NAN), 0);
    }

    #[test]
    fn resigning_needs_a_hopeless_expected_score() {
        assert!(should_resign([0.01, 0.0, 0.99], 2));
        assert!(!should_resign([0.01, 0.06, 0.93], 2));
        assert!(!should_resign([0.0, 0.0, 1.0], 0));
    }

    #[test]
    fn mate_distance_follows_the_principal_variation() {
        let v = VariantId::SHOGI.variant();
        let pos = sfen::parse(v, "4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        let game = Game::new(pos.clone(), GameRules::default_for(v));
        let mate = coord::parse(&pos, "G*5b").unwrap();
        assert_eq!(mate_distance(&game, &[mate], 0.8), Some(1));
        assert_eq!(mate_distance(&game, &[mate], -0.2), None);
        let quiet = coord::parse(&pos, "5i4h").unwrap();
        assert_eq!(mate_distance(&game, &[quiet], 0.8), None);
        let illegal = coord::parse(&pos, "G*5b").unwrap();
        assert_eq!(mate_distance(&game, &[illegal, illegal], 0.8), None);
    }
}

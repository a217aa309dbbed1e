//! The pursuit score behind [`super::SearchConfig::pursuit_utility`]: where one side is
//! decisively ahead in material, how closely it closes in on the other side's royal pieces
//! (chess engines' "mop-up" evaluation in spirit). A network trained on short self-play games
//! sees such positions as merely better and most quiet moves as equal, so a side far ahead
//! shuffles its pieces until the ply cap draws the game; the score gives its search a direction.

use crate::rules::attacks::AttackMap;
use crate::rules::material::Material;
use crate::rules::{Color, Position, Square};

/// The default [`super::SearchConfig::pursuit_lead`]: the material lead, in mean pieces of the
/// start position ([`Material::mean_start_piece`]), from which a side counts as decisively ahead.
pub const DECISIVE_LEAD: f32 = 4.0;

/// How many of the leading side's pieces, the nearest, count toward its closeness.
const HUNTERS: usize = 4;

/// The pursuit score of `pos` for its side to move, from -1 to 1: 0 unless one side leads by
/// `decisive_lead` mean start pieces or more (board and hands; [`DECISIVE_LEAD`] by default);
/// then, for the side ahead, the mean of two shares, each from 0 to 1: how near its [`HUNTERS`]
/// nearest non-royal pieces stand to an enemy royal piece, and how many of the squares next to
/// and under the enemy royal pieces it attacks. Positive when the side to move is ahead,
/// negative when its opponent is.
pub fn pursuit(pos: &Position, decisive_lead: f32) -> f32 {
    let material = Material::of(pos.variant().id);
    let lead = material.lead(pos, pos.side_to_move());
    if lead.abs() < decisive_lead {
        return 0.0;
    }
    let us = pos.side_to_move();
    let hunter = if lead > 0.0 { us } else { us.opponent() };
    let score = 0.5 * closeness(pos, hunter) + 0.5 * coverage(pos, hunter);
    if hunter == us {
        score
    } else {
        -score
    }
}

/// How near `hunter`'s [`HUNTERS`] nearest non-royal pieces stand to the nearest enemy royal
/// piece: 1 when each is next to one, 0 when each is a board's width away (or none is left).
fn closeness(pos: &Position, hunter: Color) -> f32 {
    let geometry = &pos.variant().geometry;
    let targets: Vec<Square> = pos.royal_squares(hunter.opponent()).collect();
    let mut distances: Vec<u8> = pos
        .pieces()
        .filter(|(_, piece)| piece.color == hunter && !pos.variant().is_royal(*piece))
        .filter_map(|(sq, _)| targets.iter().map(|&t| geometry.king_distance(sq, t)).min())
        .collect();
    if distances.is_empty() {
        return 0.0;
    }
    distances.sort_unstable();
    let far = (geometry.size - 2).max(1) as f32;
    let nearest = &distances[..distances.len().min(HUNTERS)];
    nearest.iter().map(|&d| 1.0 - (d.saturating_sub(1) as f32 / far).min(1.0)).sum::<f32>() / HUNTERS as f32
}

/// The share of the squares under and next to the enemy royal pieces that `hunter` attacks.
fn coverage(pos: &Position, hunter: Color) -> f32 {
    let geometry = &pos.variant().geometry;
    let size = geometry.size as isize;
    let attacks = AttackMap::of(pos, hunter);
    let (mut covered, mut squares) = (0u32, 0u32);
    for royal in pos.royal_squares(hunter.opponent()) {
        let (x, y) = geometry.xy(royal);
        for (dx, dy) in (-1..=1).flat_map(|dx| (-1..=1).map(move |dy| (dx, dy))) {
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            if (0..size).contains(&nx) && (0..size).contains(&ny) {
                squares += 1;
                covered += (attacks.count(geometry.square(nx as usize, ny as usize)) > 0) as u32;
            }
        }
    }
    if squares == 0 {
        0.0
    } else {
        covered as f32 / squares as f32
    }
}

//! The value probe: does the value head know that material matters? A fixed set of pairs of
//! positions per variant: a middlegame reached by a seeded random game, and the same position
//! with one side's most valuable non-royal piece (by the material table of [`Material`]) taken
//! off the board. The network passes when its value for the side that lost the piece is lower
//! in the stripped position than in the untouched one; the probe reports the share of pairs it
//! passes. A network that has learned nothing passes about half of them.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::mcts::NetInput;
use crate::nn::{Inference, Network, UnmappedMove};
use crate::rules::material::Material;
use crate::rules::position::MAX_HAND_TYPES;
use crate::rules::{Color, Game, GameRules, Position, VariantId};

/// Seed of the value probe's positions in training runs: the same positions at every
/// checkpoint and in every run.
pub const PROBE_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Random plies played from the start before a piece is taken off (a range, drawn per pair).
const PLIES: std::ops::Range<usize> = 16..48;

/// One probe pair.
#[derive(Clone, Debug)]
pub struct ProbePair {
    pub untouched: Position,
    /// The same position without the piece.
    pub stripped: Position,
    /// The side whose piece was taken off.
    pub loser: Color,
}

/// `count` probe pairs of `variant`, the same for the same seed. The piece is taken from the
/// side to move and from the other side in turn; positions where the game is over, or where
/// taking the piece off would leave the side not to move in check, are passed over.
pub fn probe_pairs(variant: VariantId, count: usize, seed: u64) -> Vec<ProbePair> {
    let material = Material::of(variant);
    let rules = GameRules::default_for(variant.variant());
    let mut pairs = Vec::with_capacity(count);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Each attempt either adds a pair or is passed over; the bound only guards against a
    // variant where random games never reach a usable middlegame.
    for attempt in 0..count * 20 {
        if pairs.len() == count {
            break;
        }
        let mut game = Game::new(Position::start(variant), rules);
        let plies = rng.random_range(PLIES);
        while game.ply() < plies && game.outcome().is_none() {
            let moves = game.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            if mv == crate::rules::Move::Declare || game.play(mv).is_err() {
                break;
            }
        }
        let position = game.position();
        if game.outcome().is_some() || game.legal_moves().is_empty() {
            continue;
        }
        let loser = if attempt % 2 == 0 { position.side_to_move() } else { position.side_to_move().opponent() };
        let royal: Vec<_> = position.royal_squares(loser).collect();
        let target = position
            .pieces()
            .filter(|(sq, piece)| piece.color == loser && !royal.contains(sq))
            .max_by_key(|(sq, piece)| (material.value(*piece), std::cmp::Reverse(sq.index())));
        let Some((square, _)) = target else { continue };
        let Some(stripped) = without(position, square) else { continue };
        if stripped.in_check(stripped.side_to_move().opponent()) || stripped.legal_moves().is_empty() {
            continue;
        }
        pairs.push(ProbePair { untouched: position.clone(), stripped, loser });
    }
    pairs
}

/// `position` without the piece on `square`, if that is a valid position.
fn without(position: &Position, square: crate::rules::Square) -> Option<Position> {
    let variant = position.variant();
    let pieces: Vec<_> = position.pieces().filter(|(sq, _)| *sq != square).collect();
    let mut hands = [[0u32; MAX_HAND_TYPES]; 2];
    for color in Color::ALL {
        for &t in &variant.hand_types {
            hands[color.index()][t.index()] = position.hand(color, t) as u32;
        }
    }
    Position::from_parts(variant, &pieces, position.side_to_move(), hands, position.counter_strike(), position.move_number()).ok()
}

/// What the probe found.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ProbeResult {
    pub pairs: usize,
    /// Pairs where the value for the side that lost the piece went down.
    pub passed: usize,
    /// Mean fall of that side's expected score (win + draw / 2), 0 to 1.
    pub mean_drop: f64,
}

impl ProbeResult {
    /// Share of pairs passed (0 without pairs).
    pub fn share(&self) -> f64 {
        self.passed as f64 / self.pairs.max(1) as f64
    }
}

/// Runs `network` on every position of `pairs` in one batch.
pub fn run_probe(network: &Network, pairs: &[ProbePair]) -> Result<ProbeResult, UnmappedMove> {
    let variant = network.variant();
    let rules = GameRules::default_for(variant.variant());
    let mut input = NetInput::new(network.encoder());
    let mut planes = Vec::new();
    let mut legal = Vec::new();
    for pair in pairs {
        for position in [&pair.untouched, &pair.stripped] {
            let game = Game::new(position.clone(), rules);
            let moves = game.legal_moves();
            input.prepare(&game, &moves)?;
            planes.extend_from_slice(input.planes());
            legal.push(input.indices().to_vec());
        }
    }
    let mut out = Inference::default();
    if !pairs.is_empty() {
        network.infer_into(&planes, &legal, &mut out);
    }
    let mut result = ProbeResult { pairs: pairs.len(), passed: 0, mean_drop: 0.0 };
    for (i, pair) in pairs.iter().enumerate() {
        // The expected score of the side that lost the piece, in each position.
        let score = |k: usize, position: &Position| {
            let [win, draw, loss] = out.evaluation(k).wdl;
            let mover = win + draw / 2.0;
            if position.side_to_move() == pair.loser {
                mover as f64
            } else {
                (loss + draw / 2.0) as f64
            }
        };
        let drop = score(2 * i, &pair.untouched) - score(2 * i + 1, &pair.stripped);
        result.passed += (drop > 0.0) as usize;
        result.mean_drop += drop / pairs.len() as f64;
    }
    Ok(result)
}

//! [`GameContext`]: the facts of a game's history that a position alone does not hold, as the
//! network's input and the replay window keep them beside a position.

use super::game::Game;
use super::moves::Move;

/// How many recent moves a [`GameContext`] keeps.
pub const RECENT_MOVES: usize = 2;

/// What a consumer of positions (the input encoding) needs of a game beyond its current
/// position.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GameContext {
    /// How often the current position occurred before ([`Game::repetitions`]).
    pub repetitions: usize,
    /// Plies played ([`Game::ply`]).
    pub ply: usize,
    /// The game's ply cap.
    pub ply_cap: u32,
    /// The last moves, most recent first.
    pub recent: [Option<Move>; RECENT_MOVES],
}

impl GameContext {
    /// The context of a game's current position.
    pub fn of(game: &Game) -> GameContext {
        let mut recent = [None; RECENT_MOVES];
        for (slot, &mv) in recent.iter_mut().zip(game.moves().iter().rev()) {
            *slot = Some(mv);
        }
        GameContext { repetitions: game.repetitions(), ply: game.ply(), ply_cap: game.rules().ply_cap, recent }
    }
}

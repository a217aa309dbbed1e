//! Playing against a trained model: the terminal game and the two engine protocols, over any
//! reader and writer (the commands in [`crate::cli`] connect them to the terminal).
//!
//! - [`model`]: which checkpoint to play with (the default `models/<variant>/default`) and how
//!   it is loaded.
//! - [`searcher`]: the engine thinking on a thread of its own, so that commands keep being read.
//! - [`clock`]: thinking time from the clock (remaining time, increment, byoyomi).
//! - [`score`]: a search value as centipawns or a mate distance, and when to resign.
//! - [`record`]: saving a game in the arena's record formats (a JSON line, or CSA for shogi).
//! - [`play`]: the terminal game, `shogi-zero play`.
//! - [`usi_engine`]: our USI engine for standard shogi, `shogi-zero usi`.
//! - [`xboard_engine`]: our XBoard (CECP) engine for the large variants, `shogi-zero xboard`.
//!
//! The protocol modes write only protocol output to their writer; everything else (logs,
//! explanations of refused input) goes to standard error.

pub mod clock;
pub mod model;
pub mod play;
pub mod record;
pub mod score;
pub mod searcher;
pub mod usi_engine;
pub mod xboard_engine;

use crate::rules::{Color, Game, GameRules, Position};

/// A game from `start` under its variant's default rules.
pub fn new_game(start: Position) -> Game {
    let rules = GameRules::default_for(start.variant());
    Game::new(start, rules)
}

/// The player who made (or makes) move number `ply` of `game`, counted from 0.
pub fn mover(game: &Game, ply: usize) -> Color {
    let first = game.start().side_to_move();
    if ply.is_multiple_of(2) {
        first
    } else {
        first.opponent()
    }
}

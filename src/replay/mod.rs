//! Self-play games on disk: the record of a game, the versioned file format written atomically,
//! the reader that validates every game through the rules, and the trainer's window.

pub mod record;

pub use record::{Ending, GameRecord, GameResult, MoveRecord, Side};

//! Self-play games on disk: the record of a game, the versioned file format written atomically,
//! the reader that validates every game through the rules, and the trainer's window.

pub mod format;
pub mod record;
pub mod summary;
pub mod validate;
pub mod window;

pub use format::{list_files, read_file, read_file_with, write_games, Header, PlyTargets, ReplayError, ReplayFile};
pub use record::{color_name, GameResult, MoveRecord, ReplayEnding, ReplayGame};
pub use summary::Summary;
pub use validate::{replay_game, GameError};
pub use window::{OpponentPolicy, ReplayWindow, SampleSource, TargetConfig, TrainingSample, WindowConfig, WindowCounters, WindowError};

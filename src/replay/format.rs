//! The replay file: one batch of whole self-play games, written atomically, read back with
//! every game checked through the rules.
//!
//! A file is JSON lines (UTF-8, every line ending in `\n`): a [`Header`] line, then one
//! [`ReplayGame`] per line. Plain JSON keeps the files readable with any tool; the header's
//! game count tells a complete file from a cut one.
//!
//! ```text
//! {"format":"shogi-zero-replay","version":1,"variant":"shogi","ply_cap":512,"declaration":true,"games":2,"created_unix_ms":1700000000000}
//! {"variant":"shogi","start":"lnsgkgsnl/... b - 1","moves":[{"move":"7g7f","policy":[["7g7f",0.6],["2g2f",0.4]],"root_wdl":[0.5,0.1,0.4]},...],"result":{"winner":"black","reason":"resignation"},"model":"...","seed":7,"resignation_disabled":false}
//! ...
//! ```
//!
//! [`write_games`] names files `games-<unix millis>-<pid>-<sequence>.replay`, every number
//! zero-padded, so that names sort by creation time across processes and restarts. It writes
//! under a hidden temporary name (`.games-....replay.tmp`) in the same folder, syncs the data,
//! and renames: a writer killed at any moment leaves at most a hidden temporary file, which
//! [`list_files`] (and so the window and `replay check`) never returns.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::rules::variant::VariantError;
use crate::rules::{Game, GameRules, Move, VariantId};

use super::record::ReplayGame;
use super::validate::{replay_game, GameError};

/// The `format` field of every replay file.
pub const FORMAT_NAME: &str = "shogi-zero-replay";
/// The version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The extension of replay files.
pub const EXTENSION: &str = "replay";

/// The first line of a replay file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// Always [`FORMAT_VERSION`].
    pub version: u32,
    /// Variant of every game in the file.
    pub variant: String,
    /// The ply cap the games were played under.
    pub ply_cap: u32,
    /// Whether the 27-point declaration was offered (where the variant has it).
    pub declaration: bool,
    /// Number of game lines after the header.
    pub games: usize,
    /// When the file was written, milliseconds since the Unix epoch.
    pub created_unix_ms: u64,
}

impl Header {
    /// The rules the games were played under.
    pub fn rules(&self) -> GameRules {
        GameRules { ply_cap: self.ply_cap, declaration: self.declaration }
    }
}

/// The two fields every version has: read first, to refuse other formats and versions with a
/// clear message before reading the rest.
#[derive(Deserialize)]
struct Signature {
    format: String,
    version: u32,
}

/// A replay file that has been read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayFile {
    /// Where it was read from.
    pub path: PathBuf,
    pub header: Header,
    /// The variant named in the header.
    pub variant: VariantId,
    /// The games, in file order (game `n` of messages is `games[n - 1]`).
    pub games: Vec<ReplayGame>,
}

/// Why a replay file could not be written or read. Every message names the file; problems in
/// a game also name the game (from 1, in file order).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: bad header: {reason}", path.display())]
    Header { path: PathBuf, reason: String },
    #[error("{}: format version {found} is not supported (this build reads version {FORMAT_VERSION})", path.display())]
    Version { path: PathBuf, found: u32 },
    #[error("{}: {source}", path.display())]
    UnknownVariant { path: PathBuf, source: VariantError },
    #[error("{}: holds {found} games but the window is for {expected}", path.display())]
    OtherVariant { path: PathBuf, expected: &'static str, found: String },
    #[error("{}: truncated: the header announces {expected} games, the file holds {found} complete ones", path.display())]
    Truncated { path: PathBuf, expected: usize, found: usize },
    #[error("{}: the header announces {expected} games but more lines follow", path.display())]
    ExtraLines { path: PathBuf, expected: usize },
    #[error("{}, game {game}: cannot read the line: {source}", path.display())]
    Json { path: PathBuf, game: usize, source: serde_json::Error },
    #[error("{}, game {game}: {source}", path.display())]
    Game { path: PathBuf, game: usize, source: GameError },
}

impl ReplayError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReplayError::Io { path, .. }
            | ReplayError::Header { path, .. }
            | ReplayError::Version { path, .. }
            | ReplayError::UnknownVariant { path, .. }
            | ReplayError::OtherVariant { path, .. }
            | ReplayError::Truncated { path, .. }
            | ReplayError::ExtraLines { path, .. }
            | ReplayError::Json { path, .. }
            | ReplayError::Game { path, .. } => path,
        }
    }
}

/// The error for an I/O failure on `path`.
fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ReplayError + '_ {
    move |source| ReplayError::Io { path: path.to_path_buf(), source }
}

/// Whether `name` is the name of a finished replay file (temporary files start with `.`).
pub fn is_replay_name(name: &str) -> bool {
    !name.starts_with('.') && Path::new(name).extension().is_some_and(|e| e == EXTENSION)
}

/// The finished replay files in `dir`, sorted by name (for files from [`write_games`], by
/// creation time).
pub fn list_files(dir: &Path) -> Result<Vec<PathBuf>, ReplayError> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let is_file = entry.file_type().map_err(io_error(&entry.path()))?.is_file();
        if is_file && entry.file_name().to_str().is_some_and(is_replay_name) {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// The next name for a file of this process: time, process id and a per-process sequence
/// number, so that two names never collide and names sort by creation time.
fn next_name() -> (String, u64) {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let millis = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    (format!("games-{millis:015}-{:010}-{sequence:08}.{EXTENSION}", std::process::id()), millis)
}

/// Writes `games` of `variant`, played under `rules`, as a new replay file in `dir` and returns
/// its path. The file appears under its final name complete or not at all. The games are not
/// replayed here (the reader does that); only their variant is checked against the header's.
pub fn write_games(dir: &Path, variant: VariantId, rules: GameRules, games: &[ReplayGame]) -> Result<PathBuf, ReplayError> {
    let (name, millis) = next_name();
    let path = dir.join(&name);
    if let Some((index, game)) = games.iter().enumerate().find(|(_, g)| g.variant != variant.name()) {
        let source = GameError::Variant { expected: variant.name(), found: game.variant.clone() };
        return Err(ReplayError::Game { path, game: index + 1, source });
    }
    let header = Header {
        format: FORMAT_NAME.to_string(),
        version: FORMAT_VERSION,
        variant: variant.name().to_string(),
        ply_cap: rules.ply_cap,
        declaration: rules.declaration,
        games: games.len(),
        created_unix_ms: millis,
    };
    let temporary = dir.join(format!(".{name}.tmp"));
    let written = write_lines(&temporary, &header, games).and_then(|()| fs::rename(&temporary, &path));
    if let Err(source) = written {
        // Best effort: a leftover temporary file is harmless, as readers skip it.
        let _ = fs::remove_file(&temporary);
        return Err(ReplayError::Io { path, source });
    }
    // Make the rename itself durable (a directory can be synced on Unix only).
    if cfg!(unix) {
        File::open(dir).and_then(|d| d.sync_all()).map_err(io_error(dir))?;
    }
    Ok(path)
}

/// Writes the header and game lines to `path` and syncs them to disk.
fn write_lines(path: &Path, header: &Header, games: &[ReplayGame]) -> io::Result<()> {
    let mut out = BufWriter::new(File::create_new(path)?);
    serde_json::to_writer(&mut out, header)?;
    out.write_all(b"\n")?;
    for game in games {
        serde_json::to_writer(&mut out, game)?;
        out.write_all(b"\n")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Reads one `\n`-terminated line into `line`; `Ok(false)` at the end of the file, and for a
/// last line without its `\n` (a cut file).
fn next_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    reader.read_until(b'\n', line)?;
    Ok(line.pop() == Some(b'\n'))
}

/// Reads and checks the header line.
fn read_header(path: &Path, line: &[u8]) -> Result<(Header, VariantId), ReplayError> {
    let bad = |reason: String| ReplayError::Header { path: path.to_path_buf(), reason };
    let signature: Signature = serde_json::from_slice(line).map_err(|e| bad(format!("not a {FORMAT_NAME} header line: {e}")))?;
    if signature.format != FORMAT_NAME {
        return Err(bad(format!("format is '{}', expected '{FORMAT_NAME}'", signature.format)));
    }
    if signature.version != FORMAT_VERSION {
        return Err(ReplayError::Version { path: path.to_path_buf(), found: signature.version });
    }
    let header: Header = serde_json::from_slice(line).map_err(|e| bad(e.to_string()))?;
    let variant = header.variant.parse().map_err(|source| ReplayError::UnknownVariant { path: path.to_path_buf(), source })?;
    Ok((header, variant))
}

/// Reads a replay file and checks every game through the rules (see [`super::validate`]).
pub fn read_file(path: &Path) -> Result<ReplayFile, ReplayError> {
    read_file_with(path, |_, _, _| {})
}

/// What a ply of a game recorded for training, as [`read_file_with`] shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlyTargets {
    /// The policy target as moves (empty for a fast search).
    pub policy: Vec<(Move, f32)>,
    /// The search's root value: win, draw, loss for the side to move.
    pub root_wdl: [f32; 3],
}

/// [`read_file`], showing `visit` every position of every game: the game's index in
/// [`ReplayFile::games`], the game so far, and the targets of the ply played from there, or
/// `None` at the game's final position (shown last, after its last move).
pub fn read_file_with(path: &Path, mut visit: impl FnMut(usize, &Game, Option<PlyTargets>)) -> Result<ReplayFile, ReplayError> {
    let mut reader = BufReader::new(File::open(path).map_err(io_error(path))?);
    let mut line = Vec::new();
    if !next_line(&mut reader, &mut line).map_err(io_error(path))? {
        let reason = if line.is_empty() { "the file is empty" } else { "the header line is cut short" };
        return Err(ReplayError::Header { path: path.to_path_buf(), reason: reason.to_string() });
    }
    let (header, variant) = read_header(path, &line)?;
    let rules = header.rules();
    let mut games = Vec::with_capacity(header.games.min(1 << 16));
    while next_line(&mut reader, &mut line).map_err(io_error(path))? {
        let number = games.len() + 1;
        if number > header.games {
            return Err(ReplayError::ExtraLines { path: path.to_path_buf(), expected: header.games });
        }
        let record: ReplayGame =
            serde_json::from_slice(&line).map_err(|source| ReplayError::Json { path: path.to_path_buf(), game: number, source })?;
        let end = replay_game(&record, variant, rules, |game, policy| {
            let root_wdl = record.moves[game.ply()].root_wdl;
            visit(number - 1, game, Some(PlyTargets { policy, root_wdl }));
        })
        .map_err(|source| ReplayError::Game { path: path.to_path_buf(), game: number, source })?;
        visit(number - 1, &end, None);
        games.push(record);
    }
    if games.len() < header.games {
        return Err(ReplayError::Truncated { path: path.to_path_buf(), expected: header.games, found: games.len() });
    }
    if !line.is_empty() {
        return Err(ReplayError::ExtraLines { path: path.to_path_buf(), expected: header.games });
    }
    Ok(ReplayFile { path: path.to_path_buf(), header, variant, games })
}

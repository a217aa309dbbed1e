//! Players: the [`Player`] trait, search budgets, player specs as given on the command line and
//! the factories that make one player per game (or per worker thread) from a spec.
//!
//! Spec syntax (one `--player` each):
//! - `random`: a uniformly random legal move (seeded).
//! - `alphabeta:<depth>`: alpha-beta search to `depth` plies on material (see [`super::alphabeta`]).
//! - `usi:<command>[?key=value&key=value...]`: an outside engine speaking USI.
//! - `xboard:<command>[?key=value&...]`: an outside engine speaking xboard/CECP version 2.
//! - anything containing `/` or ending in `.json`, or an existing path: a checkpoint (a
//!   `step-N.json` metadata file or a run folder), searched with a player's default search
//!   ([`SearchConfig::for_play`]: the capture utility, the material guard and the pursuit
//!   utility on). `<path>?key=value&key=value...` sets any key of the search (the keys of a
//!   run's `[search]` table, [`SearchConfig`]): `on`/`off` and `true`/`false` are booleans,
//!   numbers are numbers, other values names (`root=gumbel`). For example
//!   `<path>?royal_guard=off`, or `<path>?capture_utility=0&material_guard=off&pursuit_utility=0`
//!   for the network's own search. See docs/search.md.
//!
//! The engine command is split at spaces (`usi:fairy-stockfish --flag`); a bare name is looked up
//! on `PATH` and then in `/usr/games` (where Debian installs engines). Keys after `?`:
//! - `option.<Name>=<value>`: an engine option (USI `setoption`, xboard `option Name=value`);
//!   names may contain spaces: `usi:fairy-stockfish?option.Skill Level=0`.
//! - `movetime=<ms>`, `depth=<n>`, `nodes=<n>` (USI only): the engine's own search limit,
//!   used instead of the match's `--sims`/`--time-ms`.
//! - `timeout=<ms>` (default 10000): how long to wait for answers without a time limit of their
//!   own (start-up, `readyok`, searches limited by depth or nodes), and the slack allowed past the
//!   move time; an engine that misses it loses the game.
//! - `memory=<MB>` (xboard, default 64): the hash size sent with `memory`.
//! - `variant=<name>` (xboard): the engine's name for the variant, instead of the built-in one.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crate::mcts::SearchConfig;
use crate::rules::{Color, Game, Move, VariantId};

/// What a player may spend on one move. `--sims` and `--time-ms` apply to every player; each
/// player reads it as it can (see the player types).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Budget {
    /// The player's own default.
    #[default]
    Default,
    /// About this many search simulations (MCTS) or nodes (USI `go nodes`).
    Sims(u32),
    /// About this much thinking time per move.
    Time(Duration),
}

/// Why a player could not be made or could not move.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("{0}")]
    Unavailable(String),
    #[error("engine command '{command}' not found (looked on PATH and in /usr/games)")]
    NotFound { command: String },
    #[error("cannot start engine '{command}': {error}")]
    Spawn { command: String, error: std::io::Error },
    #[error("engine '{engine}' did not {what} within {ms} ms")]
    Timeout { engine: String, what: String, ms: u128 },
    #[error("engine '{engine}' exited ({status}) while it was to {what}")]
    Exited { engine: String, what: String, status: String },
    #[error("engine '{engine}': {message}")]
    Protocol { engine: String, message: String },
    #[error("engine '{engine}' cannot play this match: {message}")]
    Unsupported { engine: String, message: String },
    #[error("illegal move '{text}'")]
    IllegalMove { text: String },
    #[error("resigned")]
    Resigned,
    #[error("asked for a move after the game ended")]
    GameOver,
}

impl PlayerError {
    /// Whether the error stops the whole match (the player cannot be made, or cannot play this
    /// kind of game) rather than losing one game.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            PlayerError::Unavailable(_) | PlayerError::NotFound { .. } | PlayerError::Spawn { .. } | PlayerError::Unsupported { .. }
        )
    }
}

/// A participant in games. Players are made by a [`PlayerFactory`] and may play several games
/// one after the other; [`Player::new_game`] starts each.
pub trait Player: Send {
    /// The name shown in results.
    fn name(&self) -> &str;

    /// Starts a new game in which this player plays `color`; `game` holds the start position
    /// (and any opening moves already played).
    fn new_game(&mut self, game: &Game, color: Color) -> Result<(), PlayerError>;

    /// Chooses a move for the side to move of `game`, which is not over.
    fn choose(&mut self, game: &Game, budget: Budget) -> Result<Move, PlayerError>;

    /// Tells the player how the game ended (`None`: a draw). Outside engines hear the result.
    fn game_over(&mut self, _winner: Option<Color>) {}
}

/// Makes players of one spec. Created once per spec and shared by the threads of a match, so
/// that players needing a shared resource (the batched inference server of checkpoint players)
/// can hold it here.
pub trait PlayerFactory: Send + Sync {
    /// The name of the players it makes.
    fn name(&self) -> &str;

    /// A new player; `seed` drives any randomness it has.
    fn new_player(&self, seed: u64) -> Result<Box<dyn Player>, PlayerError>;
}

/// Why a player spec could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("unknown player '{0}' (expected random, alphabeta:<depth>, usi:<command>, xboard:<command> or a checkpoint path)")]
    Unknown(String),
    #[error("'{0}' is not a search depth for alphabeta (use a whole number from 1 to {max})", max = MAX_ALPHABETA_DEPTH)]
    BadDepth(String),
    #[error("player '{0}' names no engine command")]
    MissingCommand(String),
    #[error("player '{spec}': '{param}': {reason}")]
    BadParam { spec: String, param: String, reason: String },
}

/// Deepest alpha-beta search a spec may ask for.
pub const MAX_ALPHABETA_DEPTH: u32 = 8;

/// Default wait for engine answers without a time limit of their own, and the slack past a move time.
pub const DEFAULT_ENGINE_TIMEOUT: Duration = Duration::from_secs(10);

/// Default xboard hash size in megabytes.
pub const DEFAULT_ENGINE_MEMORY_MB: u32 = 64;

/// Move time an outside engine gets when neither its spec nor the match sets one.
pub const DEFAULT_ENGINE_MOVETIME: Duration = Duration::from_millis(1000);

/// Which protocol an outside engine speaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EngineProtocol {
    Usi,
    Xboard,
}

impl EngineProtocol {
    /// The spec prefix without the colon.
    pub fn prefix(self) -> &'static str {
        match self {
            EngineProtocol::Usi => "usi",
            EngineProtocol::Xboard => "xboard",
        }
    }
}

/// An outside engine: command line, options and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub protocol: EngineProtocol,
    /// Program and arguments.
    pub command: Vec<String>,
    /// Engine options in the order given.
    pub options: Vec<(String, String)>,
    pub movetime: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub timeout: Duration,
    pub memory_mb: u32,
    /// The xboard variant name, when not the built-in one.
    pub variant: Option<String>,
}

impl EngineSpec {
    fn parse(protocol: EngineProtocol, spec: &str, body: &str) -> Result<EngineSpec, SpecError> {
        let (command, params) = body.split_once('?').unwrap_or((body, ""));
        let command: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if command.is_empty() {
            return Err(SpecError::MissingCommand(spec.to_string()));
        }
        let mut engine = EngineSpec {
            protocol,
            command,
            options: Vec::new(),
            movetime: None,
            depth: None,
            nodes: None,
            timeout: DEFAULT_ENGINE_TIMEOUT,
            memory_mb: DEFAULT_ENGINE_MEMORY_MB,
            variant: None,
        };
        for param in params.split('&').filter(|p| !p.is_empty()) {
            let bad = |reason: &str| SpecError::BadParam { spec: spec.to_string(), param: param.to_string(), reason: reason.to_string() };
            let (key, value) = param.split_once('=').ok_or_else(|| bad("expected key=value"))?;
            let number = || value.trim().parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| bad("expected a positive whole number"));
            match key {
                _ if key.starts_with("option.") && key.len() > "option.".len() => {
                    engine.options.push((key["option.".len()..].to_string(), value.to_string()));
                }
                "movetime" => engine.movetime = Some(Duration::from_millis(number()?)),
                "timeout" => engine.timeout = Duration::from_millis(number()?),
                "depth" => engine.depth = Some(u32::try_from(number()?).map_err(|_| bad("depth too large"))?),
                "nodes" if protocol == EngineProtocol::Usi => engine.nodes = Some(number()?),
                "memory" if protocol == EngineProtocol::Xboard => {
                    engine.memory_mb = u32::try_from(number()?).map_err(|_| bad("memory too large"))?;
                }
                "variant" if protocol == EngineProtocol::Xboard && !value.is_empty() => engine.variant = Some(value.to_string()),
                _ => {
                    let known = match protocol {
                        EngineProtocol::Usi => "option.<Name>, movetime, depth, nodes, timeout",
                        EngineProtocol::Xboard => "option.<Name>, movetime, depth, timeout, memory, variant",
                    };
                    return Err(bad(&format!("unknown key for a {} engine (known: {known})", protocol.prefix())));
                }
            }
        }
        Ok(engine)
    }

    /// The program's display name: its file name.
    pub fn program_name(&self) -> String {
        Path::new(&self.command[0]).file_name().map_or_else(|| self.command[0].clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// A player as given on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    Random,
    AlphaBeta {
        depth: u32,
    },
    Usi(EngineSpec),
    Xboard(EngineSpec),
    /// A checkpoint: a `step-N.json` metadata file or a run folder, searched with a player's
    /// default search ([`SearchConfig::for_play`]) but for the keys its spec sets.
    Checkpoint {
        path: PathBuf,
        search: SearchConfig,
    },
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<PlayerSpec, SpecError> {
        if text == "random" {
            return Ok(PlayerSpec::Random);
        }
        if let Some(depth) = text.strip_prefix("alphabeta:") {
            return match depth.parse::<u32>() {
                Ok(d) if (1..=MAX_ALPHABETA_DEPTH).contains(&d) => Ok(PlayerSpec::AlphaBeta { depth: d }),
                _ => Err(SpecError::BadDepth(depth.to_string())),
            };
        }
        if let Some(body) = text.strip_prefix("usi:") {
            return EngineSpec::parse(EngineProtocol::Usi, text, body).map(PlayerSpec::Usi);
        }
        if let Some(body) = text.strip_prefix("xboard:") {
            return EngineSpec::parse(EngineProtocol::Xboard, text, body).map(PlayerSpec::Xboard);
        }
        let (path_text, params) = match text.split_once('?') {
            Some((path, params)) if !Path::new(text).exists() => (path, Some(params)),
            _ => (text, None),
        };
        let path = Path::new(path_text);
        if path_text.contains('/') || path_text.ends_with(".json") || (!path_text.is_empty() && path.exists()) {
            let search = overlay_search(text, params)?;
            return Ok(PlayerSpec::Checkpoint { path: path.to_path_buf(), search });
        }
        Err(SpecError::Unknown(text.to_string()))
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::AlphaBeta { depth } => write!(f, "alphabeta:{depth}"),
            PlayerSpec::Usi(engine) | PlayerSpec::Xboard(engine) => {
                write!(f, "{}:{}", engine.protocol.prefix(), engine.command.join(" "))?;
                let mut params: Vec<String> = engine.options.iter().map(|(k, v)| format!("option.{k}={v}")).collect();
                params.extend(engine.movetime.map(|t| format!("movetime={}", t.as_millis())));
                params.extend(engine.depth.map(|d| format!("depth={d}")));
                params.extend(engine.nodes.map(|n| format!("nodes={n}")));
                params.extend(engine.variant.as_ref().map(|v| format!("variant={v}")));
                if engine.timeout != DEFAULT_ENGINE_TIMEOUT {
                    params.push(format!("timeout={}", engine.timeout.as_millis()));
                }
                if engine.memory_mb != DEFAULT_ENGINE_MEMORY_MB {
                    params.push(format!("memory={}", engine.memory_mb));
                }
                if !params.is_empty() {
                    write!(f, "?{}", params.join("&"))?;
                }
                Ok(())
            }
            PlayerSpec::Checkpoint { path, search } => {
                write!(f, "{}", path.display())?;
                let params = search_keys(search);
                if !params.is_empty() {
                    write!(f, "?{}", params.join("&"))?;
                }
                Ok(())
            }
        }
    }
}

/// A player factory, or why it could not be made.
pub type FactoryResult = Result<Arc<dyn PlayerFactory>, PlayerError>;

/// The factory for `spec` in games of `variant`. Outside engines are looked up here, so that a
/// missing program is reported before any game starts.
pub fn factory(spec: &PlayerSpec, variant: VariantId) -> FactoryResult {
    let name = spec.to_string();
    Ok(match spec {
        PlayerSpec::Random => Arc::new(super::random::RandomFactory::new(name)),
        PlayerSpec::AlphaBeta { depth } => Arc::new(super::alphabeta::AlphaBetaFactory::new(name, variant, *depth)),
        PlayerSpec::Usi(engine) | PlayerSpec::Xboard(engine) => Arc::new(super::engine::EngineFactory::new(name, engine.clone(), variant)?),
        PlayerSpec::Checkpoint { path, search } => Arc::new(super::network_player::NetworkFactory::load(name, path, variant, *search)?),
    })
}

/// The search settings of a player spec as a JSON object, one member per key of
/// [`SearchConfig`]. Numbers are written as the shortest decimals that read back the same.
fn search_table(search: &SearchConfig) -> serde_json::Map<String, serde_json::Value> {
    let text = serde_json::to_string(search).expect("search settings serialize");
    match serde_json::from_str(&text).expect("serialized settings read back") {
        serde_json::Value::Object(table) => table,
        other => unreachable!("search settings serialize to an object, not {other}"),
    }
}

/// The value of a spec's `key=value`: `on`/`off` and `true`/`false` a boolean, a number a
/// number, anything else a string.
fn spec_value(value: &str) -> serde_json::Value {
    match value {
        "on" | "true" => serde_json::Value::Bool(true),
        "off" | "false" => serde_json::Value::Bool(false),
        _ => {
            if let Ok(n) = value.parse::<i64>() {
                serde_json::Value::from(n)
            } else if let Some(n) = value.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
                serde_json::Value::Number(n)
            } else {
                serde_json::Value::String(value.to_string())
            }
        }
    }
}

/// A player's default search ([`SearchConfig::for_play`]) with the `key=value` list `params`
/// of the checkpoint spec `spec` laid over it: any key of [`SearchConfig`], each read and
/// checked as a run's `[search]` table is ([`SearchConfig::validate`]).
fn overlay_search(spec: &str, params: Option<&str>) -> Result<SearchConfig, SpecError> {
    let mut table = search_table(&SearchConfig::for_play());
    let mut search = SearchConfig::for_play();
    for param in params.into_iter().flat_map(|p| p.split('&')).filter(|p| !p.is_empty()) {
        let bad = |reason: String| SpecError::BadParam { spec: spec.to_string(), param: param.to_string(), reason };
        let (key, value) = param.split_once('=').ok_or_else(|| bad("expected key=value".to_string()))?;
        table.insert(key.to_string(), spec_value(value));
        search = serde_json::from_value(serde_json::Value::Object(table.clone())).map_err(|e| bad(format!("search.{key}: {e}")))?;
        search.validate().map_err(|e| bad(format!("{}: {}", e.field, e.message)))?;
    }
    Ok(search)
}

/// The `key=value` pairs that make `search` out of a player's default search, keys in
/// alphabetical order: what a checkpoint spec writes after its `?`.
fn search_keys(search: &SearchConfig) -> Vec<String> {
    let default = search_table(&SearchConfig::for_play());
    search_table(search)
        .into_iter()
        .filter(|(key, value)| default.get(key) != Some(value))
        .map(|(key, value)| match value {
            serde_json::Value::Bool(on) => format!("{key}={}", if on { "on" } else { "off" }),
            serde_json::Value::String(text) => format!("{key}={text}"),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(whole) => format!("{key}={whole}"),
                None => format!("{key}={}", n.as_f64().expect("a number of the settings")),
            },
            other => format!("{key}={other}"),
        })
        .collect()
}

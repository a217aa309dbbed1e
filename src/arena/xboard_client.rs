//! Players speaking the xboard/CECP protocol (version 2) to an outside engine.
//!
//! Start-up: `xboard`, `protover 2`, then the engine's `feature` lines up to `done=1`, each
//! feature answered with `accepted` or `rejected`; the engine must list the variant in its
//! `variants` feature. `memory <MB>` is sent where the engine asks for it (HaChu needs it before
//! it can search), and `option <Name>=<value>` per option. Each game: `new`, `variant <name>`,
//! `force`, `easy`, `sd <n>` when the spec sets a depth, then `ping` → `pong` where supported.
//! The engine stays in force mode: before each of its moves it is sent the moves it has not seen
//! (`usermove <move>` or the bare move), `level 1 <m:ss> 0` (one move per period: the whole
//! clock is for this move) with the move time in `time` and `otim` (centiseconds, so shorter than
//! the one-second steps of `st`), and `go`; it answers `move <move>` and is put back in force mode. At
//! the end: `result 1-0|0-1|1/2-1/2 {...}` (the first player, Black, is xboard's "white").
//! `resign`, a result claim while the game is not over, `Illegal move` (the engine refused one of
//! our moves) and `Error` lines lose the game for the engine; a claim of its own loss with
//! `resign` in the comment is a resignation, any other a false claim. Games must start from the variant's
//! start position (opening moves are fine; SFEN starts are not).
//!
//! Moves are written and read with [`crate::rules::notation::xboard`] (files from Black's left,
//! ranks from Black's side, two-leg moves as comma-separated legs, `@@@@` for the pass).

use std::time::{Duration, Instant};

use super::engine::{Limit, Process};
use super::player::{Budget, EngineSpec, Player, PlayerError};
use super::records::winner_of_result;
use crate::rules::notation::xboard as notation;
use crate::rules::{Color, Game, Move, Position, VariantId};

/// The variant name to send: the spec's `variant=`, else the built-in one.
pub(crate) fn variant_name(spec: &EngineSpec, variant: VariantId) -> Result<String, PlayerError> {
    spec.variant.clone().or_else(|| notation::standard_variant_name(variant).map(str::to_string)).ok_or_else(|| PlayerError::Unsupported {
        engine: spec.program_name(),
        message: format!("{variant} has no xboard variant name; give the engine's with variant=<name>"),
    })
}

/// Splits a `feature` line into its `name=value` pairs (values may be quoted).
fn parse_features(line: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut rest = line.trim_start();
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim().to_string();
        let after = &rest[eq + 1..];
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            },
            None => after.split_at(after.find(char::is_whitespace).unwrap_or(after.len())),
        };
        pairs.push((name, value.to_string()));
        rest = next.trim_start();
    }
    pairs
}

/// Features this player makes use of or tolerates; any other is rejected.
const ACCEPTED_FEATURES: &[&str] = &[
    "done",
    "ping",
    "usermove",
    "myname",
    "variants",
    "memory",
    "option",
    "setboard",
    "colors",
    "sigint",
    "sigterm",
    "debug",
    "reuse",
    "analyze",
    "time",
    "draw",
    "name",
    "smp",
    "highlight",
    "playother",
    "ics",
    "pause",
    "nps",
];

/// What the engine said about itself.
#[derive(Debug, Default)]
struct Features {
    usermove: bool,
    ping: bool,
    memory: bool,
    variants: Option<Vec<String>>,
}

/// An xboard engine in play.
pub struct XboardPlayer {
    name: String,
    spec: EngineSpec,
    process: Process,
    variant: VariantId,
    variant_name: String,
    features: Features,
    /// Moves of the current game the engine has been told of (or made).
    synced: usize,
    pings: u32,
}

impl XboardPlayer {
    /// Greets the engine on `process`, reads its features and sends memory and options.
    pub(crate) fn start(name: String, spec: EngineSpec, mut process: Process, variant: VariantId) -> Result<XboardPlayer, PlayerError> {
        let variant_name = variant_name(&spec, variant)?;
        process.send("xboard", "start xboard mode")?;
        process.send("protover 2", "answer 'protover 2'")?;
        let mut features = Features::default();
        let mut replies = Vec::new();
        process.read_until(Instant::now(), spec.timeout, "send its features up to 'feature done=1'", |line| {
            let Some(list) = line.strip_prefix("feature ") else { return Ok(None) };
            let mut done = false;
            for (feature, value) in parse_features(list) {
                match feature.as_str() {
                    "usermove" => features.usermove = value == "1",
                    "ping" => features.ping = value == "1",
                    "memory" => features.memory = value == "1",
                    "variants" => features.variants = Some(value.split(',').map(|v| v.trim().to_string()).collect()),
                    "done" => done = value == "1",
                    _ => {}
                }
                let verdict = if ACCEPTED_FEATURES.contains(&feature.as_str()) { "accepted" } else { "rejected" };
                replies.push(format!("{verdict} {feature}"));
            }
            Ok(done.then_some(()))
        })?;
        for reply in &replies {
            process.send(reply, "take the feature replies")?;
        }
        let offered = features.variants.clone().unwrap_or_default();
        if !offered.contains(&variant_name) {
            return Err(PlayerError::Unsupported {
                engine: process.engine().to_string(),
                message: format!("it does not offer variant '{variant_name}' (it offers: {})", offered.join(", ")),
            });
        }
        if features.memory {
            process.send(&format!("memory {}", spec.memory_mb), "take its hash size")?;
        }
        for (option, value) in &spec.options {
            process.send(&format!("option {option}={value}"), "take its options")?;
        }
        Ok(XboardPlayer { name, spec, process, variant, variant_name, features, synced: 0, pings: 0 })
    }

    /// Sends a move of ours (or the opponent's) in force mode.
    fn send_move(&mut self, mv: Move) -> Result<(), PlayerError> {
        let text = notation::write(self.variant.variant(), mv);
        let line = if self.features.usermove { format!("usermove {text}") } else { text };
        self.process.send(&line, "take a move")
    }

    /// Waits for the engine's answer to `go`: its move text (two-leg moves may come as two
    /// `move` lines, the first ending in a comma).
    fn read_move(&mut self, mover: Color, started: Instant, wait: Duration) -> Result<String, PlayerError> {
        let mut pending = String::new();
        let engine = self.process.engine().to_string();
        self.process.read_until(started, wait, "answer 'go' with a move", |line| {
            let mut words = line.split_whitespace();
            let first = words.next().unwrap_or("");
            if first == "move" || line.starts_with("My move is") {
                let text = line.rsplit(' ').next().unwrap_or("");
                pending.push_str(text);
                return Ok((!pending.ends_with(',')).then(|| std::mem::take(&mut pending)));
            }
            if first == "resign" {
                return Err(PlayerError::Resigned);
            }
            if line.starts_with("Illegal move") || line.starts_with("Error") || first == "tellusererror" {
                return Err(PlayerError::Protocol { engine: engine.clone(), message: format!("said '{line}'") });
            }
            if ["1-0", "0-1", "1/2-1/2"].contains(&first) {
                return Err(claim_error(line, mover, &engine));
            }
            Ok(None)
        })
    }
}

/// What a result line (`1-0`, `0-1` or `1/2-1/2` and a comment) from `engine`, the player of
/// `mover`, means while the game goes on: a resignation when it concedes the game with `resign`
/// in its comment (CECP's other way to resign, e.g. `0-1 {White resigns}`), else a false claim
/// (HaChu 0.21 claims its own win as `0-1 {resign}` when far ahead). xboard's "white" is the
/// first player, Black here.
fn claim_error(line: &str, mover: Color, engine: &str) -> PlayerError {
    let (result, comment) = line.split_once(' ').unwrap_or((line, ""));
    if winner_of_result(result) == Some(mover.opponent()) && comment.to_ascii_lowercase().contains("resign") {
        return PlayerError::Resigned;
    }
    PlayerError::Protocol { engine: engine.to_string(), message: format!("claimed '{line}' while the game was not over") }
}

impl Player for XboardPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, game: &Game, _color: Color) -> Result<(), PlayerError> {
        if *game.start() != Position::start(self.variant) {
            return Err(PlayerError::Unsupported {
                engine: self.process.engine().to_string(),
                message: "xboard engines start from the variant's start position; give openings as moves".to_string(),
            });
        }
        self.synced = 0;
        let commands = ["new".to_string(), format!("variant {}", self.variant_name), "force".to_string(), "easy".to_string()];
        for command in commands.iter().chain(self.spec.depth.map(|d| format!("sd {d}")).iter()) {
            self.process.send(command, "start a game")?;
        }
        if self.features.ping {
            self.pings += 1;
            let (ping, pong) = (format!("ping {}", self.pings), format!("pong {}", self.pings));
            self.process.send(&ping, "answer 'ping'")?;
            self.process.read_until(Instant::now(), self.spec.timeout, &format!("answer '{ping}' with '{pong}'"), |line| {
                Ok((line == pong).then_some(()))
            })?;
        }
        Ok(())
    }

    fn choose(&mut self, game: &Game, budget: Budget) -> Result<Move, PlayerError> {
        for &mv in &game.moves()[self.synced.min(game.ply())..] {
            self.send_move(mv)?;
        }
        let limit = Limit::of(&self.spec, budget);
        let think = match limit {
            Limit::Time(t) => t,
            Limit::Depth(_) | Limit::Nodes(_) => self.spec.timeout,
        };
        let centiseconds = think.as_millis().div_ceil(10);
        let seconds = think.as_millis().div_ceil(1000).max(1);
        let level = format!("level 1 {}:{:02} 0", seconds / 60, seconds % 60);
        for command in [level, format!("time {centiseconds}"), format!("otim {centiseconds}")] {
            self.process.send(&command, "take its time")?;
        }
        let started = Instant::now();
        self.process.send("go", "search")?;
        let text = self.read_move(game.position().side_to_move(), started, limit.wait(&self.spec))?;
        self.process.send("force", "stop after its move")?;
        self.synced = game.ply() + 1;
        notation::parse(game.position(), &text).map_err(|_| PlayerError::IllegalMove { text })
    }

    fn game_over(&mut self, winner: Option<Color>) {
        let result = match winner {
            Some(Color::Black) => "1-0 {Black wins}",
            Some(Color::White) => "0-1 {White wins}",
            None => "1/2-1/2 {Draw}",
        };
        // The engine is dropped after a failure, so a lost line only matters to it.
        let _ = self.process.send(&format!("result {result}"), "hear the result");
    }
}

#[cfg(test)]
mod tests {
    use super::{claim_error, parse_features};
    use crate::arena::player::PlayerError;
    use crate::rules::Color;

    #[test]
    fn a_result_line_conceding_with_resign_is_a_resignation_and_others_are_false_claims() {
        // xboard's "white" moves first: Black here.
        assert!(matches!(claim_error("0-1 {resign}", Color::Black, "hachu"), PlayerError::Resigned));
        assert!(matches!(claim_error("1-0 {White resigns}", Color::White, "hachu"), PlayerError::Resigned));
        // Claiming its own win, a draw, or a loss without resigning loses as a false claim.
        for (line, mover) in
            [("1-0 {resign}", Color::Black), ("0-1 {Black mates}", Color::Black), ("1/2-1/2 {resign}", Color::White), ("0-1", Color::Black)]
        {
            match claim_error(line, mover, "hachu") {
                PlayerError::Protocol { engine, message } => {
                    assert_eq!(engine, "hachu");
                    assert_eq!(message, format!("claimed '{line}' while the game was not over"));
                }
                other => panic!("{line} by {mover:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn features_split_into_pairs_with_quoted_values() {
        let pairs = parse_features(r#"setboard=1 variants="chu,dai,tenjiku" myname="HaChu 0.21" option="Resign -check 0" done=1"#);
        let expected =
            [("setboard", "1"), ("variants", "chu,dai,tenjiku"), ("myname", "HaChu 0.21"), ("option", "Resign -check 0"), ("done", "1")];
        assert_eq!(pairs, expected.map(|(n, v)| (n.to_string(), v.to_string())));
        // An unterminated quote takes the rest of the line.
        assert_eq!(parse_features(r#"myname="Broken engine"#), [("myname".to_string(), "Broken engine".to_string())]);
        assert!(parse_features("").is_empty());
    }
}

//! Players speaking USI (the shogi dialect of UCI) to an outside engine.
//!
//! Start-up: `usi` → `usiok`, `setoption name UCI_Variant value <name>` for a variant other
//! than standard shogi (Fairy-Stockfish's names, the variant file's `usi_variant`), one
//! `setoption name <Name> value <value>` per option, `isready` → `readyok`. Each game:
//! `isready` → `readyok`, `usinewgame`. Each move: `position startpos
//! [moves ...]` (or `position sfen <SFEN> [moves ...]` for another start), then `go btime 0
//! wtime 0 byoyomi <ms>`, `go depth <n>` or `go nodes <n>` (see [`Limit`]), answered by
//! `bestmove <move>`, `bestmove resign` or `bestmove win` (the 27-point declaration). At the end:
//! `gameover win|lose|draw`. Moves are in coordinate notation, which is USI for shogi (and its
//! natural extension on the larger boards).

use std::time::Instant;

use super::engine::{Limit, Process};
use super::player::{Budget, EngineSpec, Player, PlayerError};
use crate::rules::notation::{coord, sfen};
use crate::rules::{Color, Game, Move, Position, VariantId};

/// A USI engine in play.
pub struct UsiPlayer {
    name: String,
    spec: EngineSpec,
    process: Process,
    variant: VariantId,
    color: Color,
    /// `position startpos` or `position sfen <SFEN>` for the current game's start.
    start: String,
}

/// The `UCI_Variant` to set, if any: none for standard shogi or where the spec sets it, else
/// the variant file's `usi_variant`.
fn usi_variant(spec: &EngineSpec, variant: VariantId) -> Result<Option<&'static str>, PlayerError> {
    if variant == VariantId::SHOGI || spec.options.iter().any(|(option, _)| option == "UCI_Variant") {
        return Ok(None);
    }
    match variant.spec().usi_variant {
        Some(name) => Ok(Some(name)),
        None => Err(PlayerError::Unsupported {
            engine: spec.program_name(),
            message: format!("{variant} has no USI variant name; give the engine's with option.UCI_Variant=<name>"),
        }),
    }
}

impl UsiPlayer {
    /// Greets the engine on `process`, sets the spec's options and waits until it is ready.
    pub(crate) fn start(name: String, spec: EngineSpec, mut process: Process, variant: VariantId) -> Result<UsiPlayer, PlayerError> {
        process.send("usi", "answer 'usi'")?;
        process.read_until(Instant::now(), spec.timeout, "answer 'usi' with 'usiok'", |line| Ok((line == "usiok").then_some(())))?;
        if let Some(name) = usi_variant(&spec, variant)? {
            process.send(&format!("setoption name UCI_Variant value {name}"), "take its options")?;
        }
        for (option, value) in &spec.options {
            process.send(&format!("setoption name {option} value {value}"), "take its options")?;
        }
        let mut player = UsiPlayer { name, spec, process, variant, color: Color::Black, start: String::new() };
        player.ready()?;
        Ok(player)
    }

    /// `isready` → `readyok`.
    fn ready(&mut self) -> Result<(), PlayerError> {
        self.process.send("isready", "answer 'isready'")?;
        self.process
            .read_until(Instant::now(), self.spec.timeout, "answer 'isready' with 'readyok'", |line| Ok((line == "readyok").then_some(())))
    }

    /// The `position` command for the game so far.
    fn position_command(&self, game: &Game) -> String {
        let v = self.variant.variant();
        let mut command = self.start.clone();
        if !game.moves().is_empty() {
            command.push_str(" moves");
            for &mv in game.moves() {
                command.push(' ');
                command.push_str(&coord::write(v, mv));
            }
        }
        command
    }

    /// Reads the engine's `bestmove` answer as a move of `game`.
    fn parse_bestmove(&self, game: &Game, text: &str) -> Result<Move, PlayerError> {
        match text {
            "resign" => Err(PlayerError::Resigned),
            "win" if game.legal_moves().contains(&Move::Declare) => Ok(Move::Declare),
            _ => coord::parse(game.position(), text).map_err(|_| PlayerError::IllegalMove { text: text.to_string() }),
        }
    }
}

impl Player for UsiPlayer {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, game: &Game, color: Color) -> Result<(), PlayerError> {
        self.color = color;
        self.start = if *game.start() == Position::start(self.variant) {
            "position startpos".to_string()
        } else {
            format!("position sfen {}", sfen::write(game.start()))
        };
        self.ready()?;
        self.process.send("usinewgame", "start a game")
    }

    fn choose(&mut self, game: &Game, budget: Budget) -> Result<Move, PlayerError> {
        let position = self.position_command(game);
        self.process.send(&position, "take the position")?;
        let limit = Limit::of(&self.spec, budget);
        let go = match limit {
            Limit::Time(t) => format!("go btime 0 wtime 0 byoyomi {}", t.as_millis()),
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::Nodes(n) => format!("go nodes {n}"),
        };
        let started = Instant::now();
        self.process.send(&go, "search")?;
        let answer = self.process.read_until(started, limit.wait(&self.spec), "answer 'go' with 'bestmove'", |line| {
            let mut words = line.split_whitespace();
            Ok(match (words.next(), words.next()) {
                (Some("bestmove"), Some(mv)) => Some(mv.to_string()),
                _ => None,
            })
        })?;
        self.parse_bestmove(game, &answer)
    }

    fn game_over(&mut self, winner: Option<Color>) {
        let result = match winner {
            None => "draw",
            Some(c) if c == self.color => "win",
            Some(_) => "lose",
        };
        // The engine is dropped after a failure, so a lost line only matters to it.
        let _ = self.process.send(&format!("gameover {result}"), "hear the result");
    }
}

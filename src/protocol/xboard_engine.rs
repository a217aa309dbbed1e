//! The XBoard engine (CECP, protocol version 2 with the XBoard 4.8 extensions) for the large
//! variants (`shogi-zero xboard`).
//!
//! Variant names: `chu` (chu shogi, known to XBoard 4.8 and later), `dai` and `tenjiku` (the
//! names HaChu and WinBoard's Alien Edition use), and `heiandai` (no XBoard program has Heian
//! dai shogi; the name is ours). XBoard itself draws only chu; the others work with clients
//! that know them (such as our arena). Our own names (`chu-shogi`, ...) are accepted by the
//! `variant` command too. Standard shogi is played through `shogi-zero usi`.
//!
//! Moves use XBoard's notation ([`crate::rules::notation::xboard`]): `f3f4`, `h8h9+`, two-leg
//! lion moves as `g7g8,g8g9` (sent by the engine as one `move` line per leg), the pass `@@@@`.
//! `setboard` takes our position format ([`crate::rules::notation::sfen`], Black being XBoard's
//! first player, "white"). Results are written from XBoard's side: `1-0` when Black (the first
//! player) wins.
//!
//! Commands: `xboard`, `protover`, `new`, `variant`, `setboard`, `usermove` (or a bare move),
//! `go`, `force`, `?`, `ping`, `level`, `st`, `sd` (accepted, not used: the search has no depth
//! limit), `time`, `otim`, `post`, `nopost`, `undo`, `remove`, `result`, `quit`; `hard`, `easy`,
//! `random`, `computer`, `name`, `rating`, `ics`, `draw`, `hint`, `bk`, `accepted` and
//! `rejected` are accepted and do nothing. `option CaptureUtility=N` sets the one option the
//! engine announces: the search's [`crate::mcts::SearchConfig::capture_utility`] in
//! hundredths (100 by default; 0 turns it off, the material guard and the pursuit utility of
//! a player's search staying on). Anything else gets
//! `Error (unknown command): ...`; a refused move `Illegal move: ...`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use super::clock::{self, Clock};
use super::model;
use super::record::describe;
use super::score::{centipawns, mate_distance, principal_line, should_resign};
use super::searcher::{open_limits, serve, CommandHandler, Event, Searcher};
use super::{mover, new_game};
use crate::arena::records::MatchEnding;
use crate::mcts::{Limits, SearchConfig, SearchInfo};
use crate::nn::DeviceChoice;
use crate::rules::notation::{coord::MoveError, sfen, xboard};
use crate::rules::{Color, Game, Position, VariantId};

/// What the command line sets before the protocol starts.
#[derive(Clone, Debug)]
pub struct XboardSettings {
    /// The variant of `new`.
    pub variant: VariantId,
    /// The checkpoint for `variant`; the other variants use their default models.
    pub model: Option<PathBuf>,
    pub device: DeviceChoice,
    /// A cap on simulations per move (0: none; time decides, or the default count).
    pub simulations: u32,
    /// Resign below this expected score, in percent (0: never).
    pub resign_percent: u32,
    /// The `CaptureUtility` option, in hundredths.
    pub capture_utility: u32,
    /// The search, whose capture utility `CaptureUtility` sets (a player's search:
    /// [`crate::mcts::SearchConfig::for_play`]).
    pub search: SearchConfig,
}

/// Writes a log line to standard error, starting with `#`: XBoard reads an engine's standard
/// error with its output, and takes such lines for comments.
fn log(message: &str) {
    eprintln!("# xboard: {message}");
}

/// Kept back from every move's time for communication.
const OVERHEAD: Duration = Duration::from_millis(200);
/// The score XBoard reads as a mate (plus the moves to it).
const MATE_SCORE: i32 = 100_000;

/// Runs the engine on the lines of `input`, writing to `out`, until `quit` or the end of input.
pub fn run(settings: &XboardSettings, input: Receiver<String>, out: &mut dyn Write) -> io::Result<()> {
    let variant = settings.variant;
    let mut engine = XBoard {
        out,
        settings: settings.clone(),
        loaded: None,
        variant,
        game: new_game(Position::start(variant)),
        valid: true,
        engine: Some(Color::White),
        level: Level::default(),
        time_left: None,
        post: false,
        thinking: None,
        pongs: Vec::new(),
    };
    let result = serve(&mut engine, &input);
    engine.abort();
    result
}

/// The time control of `level` and `st`.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct Level {
    /// Moves per period (0: the whole game).
    moves: u32,
    increment: Duration,
    /// `st`: a fixed time per move.
    per_move: Option<Duration>,
}

struct Thinking {
    game: Game,
    deadline: Option<Instant>,
}

struct XBoard<'a> {
    out: &'a mut dyn Write,
    settings: XboardSettings,
    loaded: Option<(VariantId, Searcher)>,
    variant: VariantId,
    game: Game,
    /// False after a `setboard` that could not be read, until the next `new` or `setboard`.
    valid: bool,
    /// The side the engine plays; `None` in force mode.
    engine: Option<Color>,
    level: Level,
    /// The engine's clock, from `time`.
    time_left: Option<Duration>,
    post: bool,
    thinking: Option<Thinking>,
    /// `ping`s received while thinking, answered after the move.
    pongs: Vec<String>,
}

impl CommandHandler for XBoard<'_> {
    fn line(&mut self, line: &str) -> io::Result<bool> {
        self.command(line.trim())
    }

    fn searcher(&mut self) -> Option<&mut Searcher> {
        self.loaded.as_mut().map(|(_, searcher)| searcher)
    }

    fn event(&mut self, event: Event) -> io::Result<()> {
        self.on_event(event)
    }

    fn deadline(&self) -> Option<Instant> {
        self.thinking.as_ref().and_then(|t| t.deadline)
    }

    fn timeout(&mut self) {
        self.move_now();
    }
}

impl XBoard<'_> {
    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }

    /// Handles one command line; false for `quit`.
    fn command(&mut self, line: &str) -> io::Result<bool> {
        let (command, rest) = line.split_once(char::is_whitespace).map_or((line, ""), |(c, r)| (c, r.trim()));
        match command {
            "" | "xboard" | "accepted" | "rejected" | "hard" | "easy" | "random" | "computer" | "name" | "rating" | "ics" | "draw"
            | "hint" | "bk" => {}
            "protover" => self.protover()?,
            "new" => {
                self.abort();
                self.start(self.settings.variant);
            }
            "variant" => match xboard::large_variant(rest) {
                Some(variant) if self.model_path(variant).is_some() => {
                    self.abort();
                    self.start(variant);
                }
                _ => self.send(&format!("Error (unsupported variant): {line}"))?,
            },
            "setboard" => self.setboard(rest)?,
            "usermove" => self.user_move(rest)?,
            "go" => {
                self.abort();
                self.engine = Some(self.game.position().side_to_move());
                self.think_if_on_move()?;
            }
            "force" => {
                self.abort();
                self.engine = None;
            }
            "?" => self.move_now(),
            "ping" => {
                let pong = format!("pong {rest}");
                if self.thinking.is_some() {
                    self.pongs.push(pong);
                } else {
                    self.send(&pong)?;
                }
            }
            "result" => {
                self.abort();
                self.engine = None;
            }
            "undo" | "remove" => {
                self.abort();
                self.take_back(if command == "undo" { 1 } else { 2 });
            }
            "level" => match read_level(rest) {
                Some(level) => self.level = Level { per_move: None, ..level },
                None => self.send(&format!("Error (bad parameters): {line}"))?,
            },
            "st" => match rest.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok()) {
                Some(time) => self.level.per_move = Some(time),
                None => self.send(&format!("Error (bad parameters): {line}"))?,
            },
            "sd" => log(&format!("'{line}': the search has no depth limit; ignored")),
            "time" | "otim" => match rest.parse::<u64>() {
                Ok(centiseconds) if command == "time" => self.time_left = Some(Duration::from_millis(centiseconds.saturating_mul(10))),
                Ok(_) => {}
                Err(_) => self.send(&format!("Error (bad parameters): {line}"))?,
            },
            "option" => self.set_option(rest)?,
            "post" => self.post = true,
            "nopost" => self.post = false,
            "quit" => return Ok(false),
            _ => self.unknown_or_move(line)?,
        }
        Ok(true)
    }

    fn protover(&mut self) -> io::Result<()> {
        self.send("feature done=0")?;
        self.send(&format!("feature option=\"CaptureUtility -spin {} 0 {}\"", self.settings.capture_utility, model::MAX_CAPTURE_UTILITY))?;
        self.ensure_loaded(self.variant);
        let variants: Vec<String> = std::iter::once(self.settings.variant)
            .chain(VariantId::embedded().into_iter().filter(|&v| !v.spec().drops && v != self.settings.variant))
            .filter(|&v| self.model_path(v).is_some())
            .map(xboard::variant_name)
            .collect();
        self.send(&format!(
            "feature ping=1 setboard=1 playother=0 usermove=1 san=0 time=1 draw=0 sigint=0 sigterm=0 reuse=1 analyze=0 \
             colors=0 myname=\"shogi-zero {}\" variants=\"{}\" done=1",
            env!("CARGO_PKG_VERSION"),
            variants.join(",")
        ))
    }

    /// The checkpoint for `variant`: the one given for the default variant, else its default model.
    fn model_path(&self, variant: VariantId) -> Option<PathBuf> {
        match &self.settings.model {
            Some(path) if variant == self.settings.variant => Some(path.clone()),
            _ => model::default_model(variant),
        }
    }

    /// Loads the model of `variant` unless it is loaded; false (after telling the user) when it
    /// cannot be.
    fn ensure_loaded(&mut self, variant: VariantId) -> bool {
        if self.loaded.as_ref().is_some_and(|(v, _)| *v == variant) {
            return true;
        }
        self.loaded = None;
        let loaded = match self.model_path(variant) {
            None => Err(model::NoModel { variant, looked: model::default_locations(variant) }.to_string()),
            Some(path) => Searcher::load(&path, variant, self.settings.device, 0).map_err(|e| e.to_string()),
        };
        match loaded {
            Ok(searcher) => {
                log(&format!("loaded {}", searcher.model_id()));
                self.loaded = Some((variant, searcher));
                true
            }
            Err(e) => {
                log(&e);
                let _ = self.send(&format!("tellusererror cannot load the model: {e}"));
                false
            }
        }
    }

    /// A new game of `variant`: the engine plays White (the second player).
    fn start(&mut self, variant: VariantId) {
        self.variant = variant;
        self.game = new_game(Position::start(variant));
        self.valid = true;
        self.engine = Some(Color::White);
        self.ensure_loaded(variant);
        if let Some((_, searcher)) = self.loaded.as_mut() {
            searcher.clear();
        }
    }

    fn setboard(&mut self, text: &str) -> io::Result<()> {
        self.abort();
        match sfen::parse(self.variant.variant(), text) {
            Ok(pos) => {
                self.game = new_game(pos);
                self.valid = true;
                Ok(())
            }
            Err(e) => {
                self.valid = false;
                self.send(&format!("tellusererror Illegal position: {e}"))
            }
        }
    }

    /// `option NAME=VALUE`.
    fn set_option(&mut self, text: &str) -> io::Result<()> {
        let value = match text.split_once('=') {
            Some((name, value)) if name.trim() == "CaptureUtility" => {
                value.trim().parse::<u32>().ok().filter(|&v| v <= model::MAX_CAPTURE_UTILITY)
            }
            _ => return self.send(&format!("Error (unknown option): {text}")),
        };
        match value {
            Some(value) => self.settings.capture_utility = value,
            None => self.send(&format!("Error (CaptureUtility takes 0 to {}): {text}", model::MAX_CAPTURE_UTILITY))?,
        }
        Ok(())
    }

    /// A command that is not one: a move when it reads as one, else an error.
    fn unknown_or_move(&mut self, line: &str) -> io::Result<()> {
        match xboard::parse(self.game.position(), line) {
            Err(MoveError::Syntax { .. }) => self.send(&format!("Error (unknown command): {line}")),
            _ => self.user_move(line),
        }
    }

    fn user_move(&mut self, text: &str) -> io::Result<()> {
        if !self.valid {
            return self.send(&format!("Illegal move (no valid position): {text}"));
        }
        if self.thinking.is_some() {
            return self.send(&format!("Illegal move (not your turn): {text}"));
        }
        if self.game.outcome().is_some() {
            return self.send(&format!("Illegal move (the game is over): {text}"));
        }
        let mv = match xboard::parse(self.game.position(), text) {
            Ok(mv) if self.game.legal_moves().contains(&mv) => mv,
            Ok(_) => return self.send(&format!("Illegal move (repeats an earlier position): {text}")),
            Err(_) => return self.send(&format!("Illegal move: {text}")),
        };
        self.game.play(mv).expect("checked legal");
        if self.announce_end()? {
            return Ok(());
        }
        self.think_if_on_move()
    }

    /// Prints the result when the game has ended by the rules; true if it has.
    fn announce_end(&mut self) -> io::Result<bool> {
        let Some(outcome) = self.game.outcome() else { return Ok(false) };
        let ending = MatchEnding::Rules { winner: outcome.winner, reason: outcome.reason };
        self.send(&format!("{} {{{}}}", ending.result_text(), describe(&ending)))?;
        Ok(true)
    }

    fn think_if_on_move(&mut self) -> io::Result<()> {
        if !self.valid || self.game.outcome().is_some() || self.engine != Some(self.game.position().side_to_move()) {
            return Ok(());
        }
        if !self.ensure_loaded(self.variant) {
            self.engine = None;
            return Ok(());
        }
        let budget = self.time_budget();
        let cap = (self.settings.simulations > 0).then_some(self.settings.simulations);
        let simulations = if budget.is_some() { cap } else { cap.or(Some(Limits::DEFAULT_SIMULATIONS)) };
        let Some((_, searcher)) = self.loaded.as_mut() else { return Ok(()) };
        searcher.configure(model::with_capture_utility_in_hundredths(self.settings.search, self.settings.capture_utility));
        searcher.start(self.game.clone(), open_limits(simulations));
        self.thinking = Some(Thinking { game: self.game.clone(), deadline: budget.and_then(clock::deadline) });
        Ok(())
    }

    /// The time for the engine's move, `None` when no time control was set.
    fn time_budget(&self) -> Option<Duration> {
        if let Some(per_move) = self.level.per_move {
            return Some(clock::fixed(per_move, OVERHEAD));
        }
        let remaining = self.time_left?;
        let me = self.game.position().side_to_move();
        let moves_to_go = (self.level.moves > 0).then(|| {
            let mine = (0..self.game.ply()).filter(|&i| mover(&self.game, i) == me).count() as u32;
            self.level.moves - mine % self.level.moves
        });
        Some(Clock { remaining, increment: self.level.increment, byoyomi: Duration::ZERO, moves_to_go }.budget(OVERHEAD))
    }

    /// `?` or the deadline: the search stops and its move is played.
    fn move_now(&mut self) {
        if let Some(thinking) = self.thinking.as_mut() {
            thinking.deadline = None;
            if let Some((_, searcher)) = self.loaded.as_ref() {
                searcher.stop();
            }
        }
    }

    /// Ends the search, if any, without moving.
    fn abort(&mut self) {
        self.thinking = None;
        if let Some((_, searcher)) = self.loaded.as_mut() {
            searcher.abort();
        }
        // Pings waiting for the move are answered now: everything before them is done.
        for pong in std::mem::take(&mut self.pongs) {
            let _ = self.send(&pong);
        }
    }

    /// Takes back `plies` moves (`undo`, `remove`).
    fn take_back(&mut self, plies: usize) {
        let kept = self.game.ply().saturating_sub(plies);
        let mut game = new_game(self.game.start().clone());
        for &mv in &self.game.moves()[..kept] {
            game.play(mv).expect("the moves were played before");
        }
        self.game = game;
    }

    fn on_event(&mut self, event: Event) -> io::Result<()> {
        match event {
            Event::Progress(info) => {
                if let (true, Some(thinking)) = (self.post, &self.thinking) {
                    let line = thinking_line(&thinking.game, &info);
                    self.send(&line)?;
                }
                Ok(())
            }
            Event::Finished(result) => {
                let Some(thinking) = self.thinking.take() else { return Ok(()) };
                let moved = match result {
                    Ok(info) => self.play_result(&thinking.game, &info),
                    Err(e) => {
                        log(&format!("search failed: {e}"));
                        self.engine = None;
                        self.send(&format!("tellusererror the search failed: {e}"))
                    }
                };
                for pong in std::mem::take(&mut self.pongs) {
                    self.send(&pong)?;
                }
                moved
            }
        }
    }

    /// Plays (or resigns) what the search found.
    fn play_result(&mut self, root: &Game, info: &SearchInfo) -> io::Result<()> {
        if self.post {
            self.send(&thinking_line(root, info))?;
        }
        let best = match info.best {
            Some(best) if !should_resign(info.wdl, self.settings.resign_percent) => best,
            _ => {
                self.engine = None;
                return self.send("resign");
            }
        };
        let text = xboard::write(self.game.position().variant(), best);
        self.game.play(best).expect("the search gives legal moves");
        for leg in xboard::legs(&text) {
            self.send(&format!("move {leg}"))?;
        }
        self.announce_end()?;
        Ok(())
    }
}

/// A thinking-output line: ply, score (centipawns, or 100000 + moves to a mate), time in
/// centiseconds, nodes (simulations), and the principal variation.
fn thinking_line(game: &Game, info: &SearchInfo) -> String {
    let value = info.value();
    let pv = principal_line(info);
    let score = match mate_distance(game, &pv, value) {
        Some(plies) if plies > 0 => MATE_SCORE + (plies + 1) / 2,
        Some(plies) => -MATE_SCORE - (1 - plies) / 2,
        None => centipawns(value),
    };
    let v = game.position().variant();
    let pv: Vec<String> = pv.iter().map(|&m| xboard::write(v, m)).collect();
    format!("{} {score} {} {} {}", info.mean_depth.round().max(1.0) as u32, info.elapsed.as_millis() / 10, info.simulations, pv.join(" "))
}

/// Reads `level MPS BASE INC` arguments (BASE in minutes or minutes:seconds, INC in seconds).
fn read_level(args: &str) -> Option<Level> {
    let [moves, base, increment] = args.split_whitespace().collect::<Vec<_>>()[..] else { return None };
    let increment = increment.parse::<f64>().ok().and_then(|s| Duration::try_from_secs_f64(s).ok())?;
    // The base time is not needed: `time` gives the clock before every move.
    let valid_base = base.split(':').all(|part| part.parse::<u64>().is_ok());
    valid_base.then_some(Level { moves: moves.parse().ok()?, increment, per_move: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        let level = read_level("40 5 0").unwrap();
        assert_eq!((level.moves, level.increment), (40, Duration::ZERO));
        let level = read_level("0 2:30 1.5").unwrap();
        assert_eq!((level.moves, level.increment), (0, Duration::from_millis(1500)));
        for bad in ["", "40 5", "x 5 0", "40 5:y 0", "40 5 -1", "40 5 0 1"] {
            assert_eq!(read_level(bad), None, "{bad}");
        }
    }
}

//! The USI engine for standard shogi and the other variants with drops (`shogi-zero usi`).
//!
//! Commands: `usi`, `isready` (loads the model, then `readyok`), `setoption name N value V`,
//! `usinewgame`, `position startpos|sfen <sfen> [moves ...]`, `go` with `btime`, `wtime`,
//! `binc`, `winc`, `byoyomi`, `movetime`, `nodes`, `infinite` and `ponder`, `stop`, `ponderhit`,
//! `gameover`, `quit` (the end of input quits too). `go mate` answers
//! `checkmate notimplemented`. Anything else, and any malformed command, is reported on standard
//! error and otherwise ignored.
//!
//! Options: `USI_Hash` (accepted, unused: the tree grows as needed), `USI_Ponder` (whether
//! `bestmove` names a move to ponder on), `UCI_Variant` (the variant, by its Fairy-Stockfish
//! name: `shogi`, `minishogi`, `judkins`; default `--variant`; a new variant starts from its
//! start position and, unless `ModelPath` was set, with its default model), `ModelPath` (the
//! checkpoint; default `--model` or the variant's default model), `Device` (`cpu`, `cuda`,
//! `cuda:N`), `Threads` (LibTorch's CPU threads for
//! the network, default 1: a search evaluates one position at a time, which more threads speed
//! up only for large networks), `Simulations` (a cap on simulations per move, 0 for none),
//! `ResignPercent` (resign below this expected score, 0 never), `MoveOverhead`
//! (milliseconds kept back from every move's time, default 300) and `CaptureUtility` (the
//! search's [`crate::mcts::SearchConfig::capture_utility`] in hundredths: 100, the default,
//! weighs what a line wins by captures beside the network's value; 0 turns it off, the
//! material guard and the pursuit utility of a player's search staying on).
//!
//! Output: `info depth D seldepth S nodes N nps X time T score cp C|mate M pv ...` about twice a
//! second and before every `bestmove`. Depth is the mean depth of the search's leaves, seldepth
//! the deepest, nodes the simulations; the score is mapped from the search's value as
//! [`super::score`] describes, a mate distance when the principal variation ends the game.
//! `bestmove resign` when the expected score is below `ResignPercent` (or there is no legal
//! move), `bestmove win` when the 27-point declaration is valid. Time: [`super::clock`], measured
//! from the `go` (or `ponderhit`); `go` alone searches [`Limits::DEFAULT_SIMULATIONS`]
//! simulations.

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use super::clock::{self, Clock};
use super::model;
use super::new_game;
use super::score::{centipawns, mate_distance, principal_line, should_resign};
use super::searcher::{open_limits, serve, CommandHandler, Event, Searcher};
use crate::mcts::{Limits, SearchConfig, SearchInfo};
use crate::nn::DeviceChoice;
use crate::rules::notation::{coord, sfen};
use crate::rules::{Color, Game, Move, Position, VariantId};

/// What the command line sets before the protocol starts.
#[derive(Clone, Debug)]
pub struct UsiSettings {
    /// `UCI_Variant`'s default: a variant with drops.
    pub variant: VariantId,
    /// The checkpoint (`ModelPath`'s default); the default model when `None`.
    pub model: Option<PathBuf>,
    /// `Device`'s default.
    pub device: DeviceChoice,
    /// `Simulations`' default (0: no cap).
    pub simulations: u32,
    /// `CaptureUtility`'s default, in hundredths.
    pub capture_utility: u32,
    /// The search, whose capture utility `CaptureUtility` sets (a player's search:
    /// [`crate::mcts::SearchConfig::for_play`]).
    pub search: SearchConfig,
}

/// Runs the USI engine on the lines of `input`, writing to `out`, until `quit` or the end of input.
pub fn run(settings: &UsiSettings, input: Receiver<String>, out: &mut dyn Write) -> io::Result<()> {
    let options = Options {
        variant: settings.variant,
        model_path: settings.model.as_ref().map(|p| p.display().to_string()),
        device: settings.device,
        threads: 1,
        simulations: settings.simulations,
        resign_percent: 2,
        overhead_ms: 300,
        ponder: true,
        capture_utility: settings.capture_utility,
    };
    let mut usi =
        Usi { out, options, search_config: settings.search, loaded: None, game: new_game(Position::start(settings.variant)), search: None };
    let result = serve(&mut usi, &input);
    usi.abort_search();
    result
}

/// The option values.
#[derive(Clone, Debug)]
struct Options {
    variant: VariantId,
    /// The checkpoint `ModelPath` names; `None` for the variant's default model.
    model_path: Option<String>,
    device: DeviceChoice,
    threads: u32,
    simulations: u32,
    resign_percent: u32,
    overhead_ms: u64,
    ponder: bool,
    capture_utility: u32,
}

/// What a loaded searcher was loaded with.
#[derive(Clone, Debug, PartialEq)]
struct LoadKey {
    variant: VariantId,
    /// Empty when there is no model to load.
    path: String,
    device: DeviceChoice,
    threads: u32,
}

/// The parameters of a `go` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Go {
    btime: Option<u64>,
    wtime: Option<u64>,
    binc: Option<u64>,
    winc: Option<u64>,
    byoyomi: Option<u64>,
    movetime: Option<u64>,
    nodes: Option<u64>,
    infinite: bool,
    ponder: bool,
    mate: bool,
}

/// The search of a `go` command.
struct Running {
    game: Game,
    go: Go,
    /// When to stop it (None: at its simulation limit, or at `stop`).
    deadline: Option<Instant>,
    /// `stop` was received.
    stopped: bool,
    /// A search that ended before `stop` or `ponderhit` came (infinite, ponder): its result.
    held: Option<SearchInfo>,
}

impl Running {
    /// Whether `bestmove` must wait for `stop` (or `ponderhit`).
    fn waits_for_stop(&self) -> bool {
        (self.go.infinite || self.go.ponder) && !self.stopped
    }
}

struct Usi<'a> {
    out: &'a mut dyn Write,
    options: Options,
    /// The search before `CaptureUtility` sets its capture utility.
    search_config: SearchConfig,
    loaded: Option<(LoadKey, Searcher)>,
    game: Game,
    search: Option<Running>,
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

impl CommandHandler for Usi<'_> {
    fn line(&mut self, line: &str) -> io::Result<bool> {
        self.command(line)
    }

    fn searcher(&mut self) -> Option<&mut Searcher> {
        self.loaded.as_mut().map(|(_, searcher)| searcher)
    }

    fn event(&mut self, event: Event) -> io::Result<()> {
        self.on_event(event)
    }

    fn deadline(&self) -> Option<Instant> {
        self.search.as_ref().and_then(|s| s.deadline)
    }

    fn timeout(&mut self) {
        self.stop_search();
    }
}

impl Usi<'_> {
    /// Handles one command line; false for `quit`.
    fn command(&mut self, line: &str) -> io::Result<bool> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&command, args)) = words.split_first() else { return Ok(true) };
        match command {
            "usi" => self.usi()?,
            "isready" => self.isready()?,
            "setoption" => self.setoption(args),
            "usinewgame" => {
                self.abort_search();
                if let Some((_, searcher)) = self.loaded.as_mut() {
                    searcher.clear();
                }
            }
            "position" => {
                self.abort_search();
                self.position(args);
            }
            "go" => self.go(args)?,
            "stop" => self.stop()?,
            "ponderhit" => self.ponderhit()?,
            "gameover" => self.abort_search(),
            "quit" => return Ok(false),
            _ => eprintln!("usi: unknown command '{line}'"),
        }
        Ok(true)
    }

    fn send(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }

    fn usi(&mut self) -> io::Result<()> {
        let o = self.options.clone();
        let path = o.model_path().unwrap_or_else(|| "<empty>".to_string());
        let variants: Vec<&str> = usi_variants().into_iter().map(|(name, _)| name).collect();
        let variant = o.variant.spec().usi_variant.unwrap_or(o.variant.name());
        let lines = [
            format!("id name shogi-zero {}", env!("CARGO_PKG_VERSION")),
            "id author the shogi-zero authors".to_string(),
            "option name USI_Hash type spin default 256 min 1 max 1048576".to_string(),
            format!("option name USI_Ponder type check default {}", o.ponder),
            format!("option name UCI_Variant type combo default {variant} var {}", variants.join(" var ")),
            format!("option name ModelPath type filename default {path}"),
            format!("option name Device type string default {}", o.device),
            format!("option name Threads type spin default {} min 1 max 1024", o.threads),
            format!("option name Simulations type spin default {} min 0 max 100000000", o.simulations),
            format!("option name ResignPercent type spin default {} min 0 max 50", o.resign_percent),
            format!("option name MoveOverhead type spin default {} min 0 max 60000", o.overhead_ms),
            format!("option name CaptureUtility type spin default {} min 0 max {}", o.capture_utility, model::MAX_CAPTURE_UTILITY),
            "usiok".to_string(),
        ];
        for line in lines {
            self.send(&line)?;
        }
        Ok(())
    }

    fn isready(&mut self) -> io::Result<()> {
        if self.search.is_some() {
            return self.send("readyok");
        }
        match self.ensure_loaded() {
            Ok(()) => self.send("readyok"),
            Err(e) => {
                eprintln!("usi: {e}");
                self.send(&format!("info string error: {e}"))
            }
        }
    }

    /// Loads the model the options name, unless it is loaded already, and warms it up.
    fn ensure_loaded(&mut self) -> Result<(), String> {
        let o = &self.options;
        let key = LoadKey { variant: o.variant, path: o.model_path().unwrap_or_default(), device: o.device, threads: o.threads };
        if self.loaded.as_ref().is_some_and(|(loaded, _)| *loaded == key) {
            return Ok(());
        }
        self.loaded = None;
        if key.path.is_empty() {
            let looked = model::default_locations(key.variant);
            return Err(model::NoModel { variant: key.variant, looked }.to_string());
        }
        tch::set_num_threads(key.threads.min(i32::MAX as u32) as i32);
        let mut searcher = Searcher::load(std::path::Path::new(&key.path), key.variant, key.device, 0).map_err(|e| e.to_string())?;
        searcher.start(new_game(Position::start(key.variant)), Limits::simulations(1));
        if let Some(Err(e)) = searcher.wait() {
            return Err(format!("the model does not run: {e}"));
        }
        eprintln!("usi: loaded {}", searcher.model_id());
        self.loaded = Some((key, searcher));
        Ok(())
    }

    fn setoption(&mut self, args: &[&str]) {
        if let Err(e) = self.apply_option(args) {
            eprintln!("usi: setoption {}: {e}", args.join(" "));
        }
    }

    fn apply_option(&mut self, args: &[&str]) -> Result<(), String> {
        let Some((&"name", rest)) = args.split_first() else {
            return Err("expected 'name <option> [value <value>]'".into());
        };
        let value_at = rest.iter().position(|&w| w == "value");
        let name = rest[..value_at.unwrap_or(rest.len())].join(" ");
        let value = value_at.map_or_else(String::new, |i| rest[i + 1..].join(" "));
        let number = |max: u64| -> Result<u64, String> {
            value.parse::<u64>().ok().filter(|&n| n <= max).ok_or_else(|| format!("'{value}' is not a number from 0 to {max}"))
        };
        let o = &mut self.options;
        match name.to_ascii_lowercase().as_str() {
            "usi_hash" => {}
            "usi_ponder" => o.ponder = value.parse::<bool>().map_err(|_| format!("'{value}' is not true or false"))?,
            "uci_variant" => {
                let variant = usi_variants().into_iter().find(|&(name, _)| name == value).map(|(_, id)| id);
                o.variant = variant.ok_or_else(|| format!("'{value}' is not a variant this engine plays"))?;
                self.game = new_game(Position::start(o.variant));
            }
            "modelpath" => o.model_path = Some(if value == "<empty>" { String::new() } else { value }),
            "device" => o.device = value.parse().map_err(|e| format!("{e}"))?,
            "threads" => o.threads = number(1024)?.max(1) as u32,
            "simulations" => o.simulations = number(100_000_000)? as u32,
            "resignpercent" => o.resign_percent = number(50)? as u32,
            "moveoverhead" => o.overhead_ms = number(60_000)?,
            "captureutility" => o.capture_utility = number(model::MAX_CAPTURE_UTILITY.into())? as u32,
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(())
    }

    fn position(&mut self, args: &[&str]) {
        let (game, error) = read_position(self.options.variant, args);
        if let Some(e) = error {
            eprintln!("usi: position {}: {e}", args.join(" "));
        }
        if let Some(game) = game {
            self.game = game;
        }
    }

    fn go(&mut self, args: &[&str]) -> io::Result<()> {
        self.abort_search();
        let go = read_go(args);
        if go.mate {
            return self.send("checkmate notimplemented");
        }
        if let Err(e) = self.ensure_loaded() {
            eprintln!("usi: {e}");
            self.send(&format!("info string error: {e}"))?;
            return self.send("bestmove resign");
        }
        let legal = self.game.legal_moves();
        if legal.contains(&Move::Declare) {
            return self.send("bestmove win");
        }
        if legal.is_empty() {
            return self.send("bestmove resign");
        }
        let budget = self.time_budget(&go);
        let cap =
            go.nodes.map(|n| n.min(u64::from(u32::MAX)) as u32).or((self.options.simulations > 0).then_some(self.options.simulations));
        let unbounded = go.infinite || go.ponder || budget.is_some();
        let simulations = cap.or((!unbounded).then_some(Limits::DEFAULT_SIMULATIONS));
        let deadline = if go.ponder || go.infinite { None } else { budget.and_then(clock::deadline) };
        let Some((_, searcher)) = self.loaded.as_mut() else { return Ok(()) };
        searcher.configure(model::with_capture_utility_in_hundredths(self.search_config, self.options.capture_utility));
        searcher.start(self.game.clone(), open_limits(simulations));
        self.search = Some(Running { game: self.game.clone(), go, deadline, stopped: false, held: None });
        Ok(())
    }

    /// The time to think for `go`'s clock, `None` when it sets no time.
    fn time_budget(&self, go: &Go) -> Option<Duration> {
        let overhead = ms(self.options.overhead_ms);
        if let Some(t) = go.movetime {
            return Some(clock::fixed(ms(t), overhead));
        }
        let (time, increment) = match self.game.position().side_to_move() {
            Color::Black => (go.btime, go.binc),
            Color::White => (go.wtime, go.winc),
        };
        if time.is_none() && increment.is_none() && go.byoyomi.is_none() {
            return None;
        }
        let clock = Clock {
            remaining: ms(time.unwrap_or(0)),
            increment: ms(increment.unwrap_or(0)),
            byoyomi: ms(go.byoyomi.unwrap_or(0)),
            moves_to_go: None,
        };
        Some(clock.budget(overhead))
    }

    fn stop(&mut self) -> io::Result<()> {
        let Some(search) = self.search.as_mut() else { return Ok(()) };
        search.stopped = true;
        if let Some(info) = search.held.take() {
            return self.finish(info);
        }
        self.stop_search();
        Ok(())
    }

    fn ponderhit(&mut self) -> io::Result<()> {
        let Some(search) = self.search.as_mut() else { return Ok(()) };
        if !search.go.ponder {
            return Ok(());
        }
        search.go.ponder = false;
        let go = search.go.clone();
        let budget = self.time_budget(&go);
        let Some(search) = self.search.as_mut() else { return Ok(()) };
        if !go.infinite {
            search.deadline = budget.and_then(clock::deadline);
        }
        match search.held.take() {
            Some(info) if !go.infinite => self.finish(info),
            held => {
                search.held = held;
                Ok(())
            }
        }
    }

    /// Asks the running search to stop; its result comes as an event.
    fn stop_search(&mut self) {
        if let Some(search) = self.search.as_mut() {
            search.deadline = None;
        }
        if let Some((_, searcher)) = self.loaded.as_ref() {
            searcher.stop();
        }
    }

    /// Ends the running search without a `bestmove`.
    fn abort_search(&mut self) {
        if self.search.take().is_some() {
            eprintln!("usi: search abandoned");
        }
        if let Some((_, searcher)) = self.loaded.as_mut() {
            searcher.abort();
        }
    }

    fn on_event(&mut self, event: Event) -> io::Result<()> {
        match event {
            Event::Progress(info) => match &self.search {
                Some(search) => {
                    let line = info_line(&search.game, &info);
                    self.send(&line)
                }
                None => Ok(()),
            },
            Event::Finished(result) => {
                let Some(search) = self.search.as_mut() else { return Ok(()) };
                match result {
                    Err(e) => {
                        eprintln!("usi: search failed: {e}");
                        self.search = None;
                        self.send(&format!("info string error: search failed: {e}"))?;
                        self.send("bestmove resign")
                    }
                    Ok(info) if search.waits_for_stop() => {
                        search.held = Some(info);
                        Ok(())
                    }
                    Ok(info) => self.finish(info),
                }
            }
        }
    }

    /// Reports the final result of the running search and its `bestmove`.
    fn finish(&mut self, info: SearchInfo) -> io::Result<()> {
        let Some(search) = self.search.take() else { return Ok(()) };
        self.send(&info_line(&search.game, &info))?;
        let v = search.game.position().variant();
        let line = match info.best {
            Some(_) if should_resign(info.wdl, self.options.resign_percent) => "bestmove resign".to_string(),
            None => "bestmove resign".to_string(),
            Some(Move::Declare) => "bestmove win".to_string(),
            Some(best) => {
                let ponder = match principal_line(&info).as_slice() {
                    [first, second, ..] if self.options.ponder && *first == best && *second != Move::Declare => {
                        format!(" ponder {}", coord::write(v, *second))
                    }
                    _ => String::new(),
                };
                format!("bestmove {}{ponder}", coord::write(v, best))
            }
        };
        self.send(&line)
    }
}

/// An `info` line for a search of `game`.
fn info_line(game: &Game, info: &SearchInfo) -> String {
    let millis = info.elapsed.as_millis() as u64;
    let nps = u64::from(info.simulations) * 1000 / millis.max(1);
    let value = info.value();
    let pv = principal_line(info);
    let score = match mate_distance(game, &pv, value) {
        Some(plies) => format!("mate {plies}"),
        None => format!("cp {}", centipawns(value)),
    };
    let mut line = format!(
        "info depth {} seldepth {} nodes {} nps {nps} time {millis} score {score}",
        info.mean_depth.round().max(1.0) as u32,
        info.max_depth,
        info.simulations
    );
    if !pv.is_empty() {
        let v = game.position().variant();
        let pv: Vec<String> = pv.iter().map(|&m| coord::write(v, m)).collect();
        line.push_str(" pv ");
        line.push_str(&pv.join(" "));
    }
    line
}

/// The variants this engine plays, by their USI names: the known variants with drops.
fn usi_variants() -> Vec<(&'static str, VariantId)> {
    VariantId::known().into_iter().filter(|id| id.spec().drops).map(|id| (id.spec().usi_variant.unwrap_or(id.name()), id)).collect()
}

impl Options {
    /// The checkpoint to load: `ModelPath`, else the variant's default model.
    fn model_path(&self) -> Option<String> {
        match &self.model_path {
            Some(path) if path.is_empty() => None,
            Some(path) => Some(path.clone()),
            None => model::default_model(self.variant).map(|p| p.display().to_string()),
        }
    }
}

/// Reads `position` arguments of `variant`: the game (as far as its moves are legal) and what
/// was wrong.
fn read_position(variant: VariantId, args: &[&str]) -> (Option<Game>, Option<String>) {
    let moves_at = args.iter().position(|&w| w == "moves").unwrap_or(args.len());
    let start = match args[..moves_at] {
        ["startpos"] => Position::start(variant),
        ["sfen", ref fields @ ..] => match sfen::parse(variant.variant(), &fields.join(" ")) {
            Ok(pos) => pos,
            Err(e) => return (None, Some(e.to_string())),
        },
        _ => return (None, Some("expected 'startpos' or 'sfen <position>', then 'moves ...'".to_string())),
    };
    let mut game = new_game(start);
    for &text in args.get(moves_at + 1..).unwrap_or_default() {
        if let Err(e) = game.play_text(text) {
            return (Some(game), Some(format!("move '{text}': {e}; the position stops before it")));
        }
    }
    (Some(game), None)
}

/// Reads `go` arguments; words it does not know are reported and skipped.
fn read_go(args: &[&str]) -> Go {
    let mut go = Go::default();
    let mut words = args.iter();
    while let Some(&word) = words.next() {
        let slot = match word {
            "btime" => &mut go.btime,
            "wtime" => &mut go.wtime,
            "binc" => &mut go.binc,
            "winc" => &mut go.winc,
            "byoyomi" => &mut go.byoyomi,
            "movetime" => &mut go.movetime,
            "nodes" => &mut go.nodes,
            "infinite" => {
                go.infinite = true;
                continue;
            }
            "ponder" => {
                go.ponder = true;
                continue;
            }
            "mate" => {
                go.mate = true;
                break;
            }
            other => {
                eprintln!("usi: go: ignoring '{other}'");
                continue;
            }
        };
        // Some GUIs send negative remaining times once the byoyomi is running.
        match words.next().map(|w| w.parse::<i64>()) {
            Some(Ok(n)) => *slot = Some(n.max(0) as u64),
            _ => eprintln!("usi: go: '{word}' needs a number"),
        }
    }
    go
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_reads_clocks_and_flags() {
        let go = read_go(&["ponder", "btime", "1000", "wtime", "-5", "byoyomi", "300", "nodes", "x", "infinite", "bogus"]);
        assert_eq!(go, Go { btime: Some(1000), wtime: Some(0), byoyomi: Some(300), infinite: true, ponder: true, ..Go::default() });
        assert!(read_go(&["mate", "1000"]).mate);
        assert_eq!(read_go(&["movetime"]), Go::default());
    }

    #[test]
    fn positions_with_moves_and_errors() {
        let (game, error) = read_position(VariantId::SHOGI, &["startpos", "moves", "7g7f", "3c3d"]);
        assert_eq!((game.unwrap().ply(), error), (2, None));
        let (game, error) = read_position(VariantId::SHOGI, &["sfen", "4k4/9/4P4/9/9/9/9/9/4K4", "b", "G", "1", "moves", "G*5b"]);
        assert_eq!(game.unwrap().outcome().map(|o| o.winner), Some(Some(Color::Black)));
        assert_eq!(error, None);
        let (game, error) = read_position(VariantId::SHOGI, &["startpos", "moves", "7g7f", "7g7f"]);
        assert_eq!(game.unwrap().ply(), 1);
        assert!(error.unwrap().contains("'7g7f'"));
        for bad in [&["sfen", "nonsense"][..], &["moves"], &[], &["startpos", "extra"]] {
            let (game, error) = read_position(VariantId::SHOGI, bad);
            assert!(game.is_none() && error.is_some(), "{bad:?}");
        }
    }
}

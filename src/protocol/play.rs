//! The terminal game (`shogi-zero play`): a person against the engine, one line of input at a
//! time, so that any terminal (or a pipe) works.
//!
//! Moves are typed in coordinate notation (`7g7f`, `P*5e`, `8h2b+`, `8c9d8c` for a two-leg
//! move, `pass`, `declare`) or in Hodges notation as the game prints it (`P-7f`, `Bx2b+`,
//! `Lnx!9d`); in Hodges notation the origin square and a declined promotion's `=` may be left
//! out while that leaves one legal move. Commands: `help`, `moves`, `board`, `hint`, `undo`,
//! `resign`, `save <file>`, `quit`; the end of input quits too.

use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;

use super::mover;
use super::record::{self, describe, Format};
use super::score::should_resign;
use crate::arena::records::MatchEnding;
use crate::mcts::{Engine, Limits, SearchInfo};
use crate::rules::notation::coord::{self, MoveError};
use crate::rules::notation::diagram::{self, PieceStyle};
use crate::rules::notation::hodges;
use crate::rules::{Color, Game, Move, MoveList, Position};

/// The settings of a terminal game.
#[derive(Clone, Debug)]
pub struct PlayConfig {
    /// The side the person plays.
    pub user: Color,
    /// How long the engine thinks on each move (and for hints).
    pub limits: Limits,
    /// How pieces are drawn.
    pub style: PieceStyle,
    /// The engine's name for the record.
    pub engine_name: String,
    /// The engine resigns below this expected score, in percent (0: never).
    pub resign_percent: u32,
}

const HELP: &str = "\
Type a move in coordinate notation (7g7f, P*5e, 8h2b+ to promote, 8c9d8c for a two-leg
move, pass, declare) or in Hodges notation as shown by 'moves' (P-7f, Bx2b+, Lnx!9d).
Commands:
  moves        list the legal moves
  board        draw the board again
  hint         ask the engine for a move
  undo         take back your last move and the engine's reply
  resign       give up the game
  save <file>  write the game record (a JSON line; CSA for a .csa name, finished shogi games)
  help         this text
  quit         leave (so does the end of input, Ctrl-D)
";

/// Plays `game` between the person at `input`/`out` and `engine`.
pub fn run(game: Game, engine: &mut Engine, config: &PlayConfig, input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<()> {
    let mut session = Session { game, engine, config, out, resigned: None };
    session.play(input)
}

struct Session<'a> {
    game: Game,
    engine: &'a mut Engine,
    config: &'a PlayConfig,
    out: &'a mut dyn Write,
    /// The player who resigned.
    resigned: Option<Color>,
}

impl Session<'_> {
    fn play(&mut self, input: &mut dyn BufRead) -> io::Result<()> {
        let user = self.config.user;
        writeln!(
            self.out,
            "{} - you play {user} ({}), the engine plays {}. Type help for commands.",
            self.game.start().variant().spec.title,
            if user == Color::Black { "moving first" } else { "moving second" },
            user.opponent()
        )?;
        self.show()?;
        loop {
            if self.ending().is_none() && self.game.position().side_to_move() != user {
                if !self.engine_moves()? {
                    return Ok(());
                }
                self.show()?;
                continue;
            }
            match self.ending() {
                Some(_) => write!(self.out, "game over> ")?,
                None => write!(self.out, "{user}> ")?,
            }
            self.out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(self.out)?;
                return Ok(());
            }
            let line = line.trim();
            let (command, argument) = line.split_once(char::is_whitespace).map_or((line, ""), |(c, a)| (c, a.trim()));
            match command {
                "" => {}
                "help" | "?" => write!(self.out, "{HELP}")?,
                "quit" | "exit" => return Ok(()),
                "board" => self.show()?,
                "moves" => self.list_moves()?,
                "undo" => self.undo()?,
                "hint" => self.hint()?,
                "resign" => self.resign()?,
                "save" => self.save(argument)?,
                _ => self.user_moves(line)?,
            }
        }
    }

    /// How the game ended, if it has.
    fn ending(&self) -> Option<MatchEnding> {
        let by_rules = || self.game.outcome().map(|o| MatchEnding::Rules { winner: o.winner, reason: o.reason });
        self.resigned.map(|loser| MatchEnding::resignation(loser, self.game.position())).or_else(by_rules)
    }

    /// Draws the board with the last move, and the result once there is one.
    fn show(&mut self) -> io::Result<()> {
        let marked = self.game.moves().last().map_or_else(Vec::new, |&mv| diagram::move_squares(mv));
        write!(self.out, "{}", diagram::draw(self.game.position(), &marked, self.config.style))?;
        if let Some(text) = last_move_text(&self.game) {
            writeln!(self.out, "Last move: {text}")?;
        }
        if let Some(ending) = self.ending() {
            writeln!(self.out, "Game over: {}. You can save <file>, undo or quit.", describe(&ending))?;
        }
        Ok(())
    }

    fn list_moves(&mut self) -> io::Result<()> {
        let pos = self.game.position();
        let legal = self.game.legal_moves();
        if legal.is_empty() {
            return writeln!(self.out, "No legal moves: the game is over.");
        }
        writeln!(self.out, "{} legal moves:", legal.len())?;
        let items: Vec<String> = legal.iter().map(|&m| move_text(pos, &legal, m)).collect();
        let mut line = String::new();
        for item in items {
            if !line.is_empty() && line.len() + item.len() > 96 {
                writeln!(self.out, " {line}")?;
                line.clear();
            }
            line.push_str("  ");
            line.push_str(&item);
        }
        writeln!(self.out, " {line}")
    }

    fn user_moves(&mut self, text: &str) -> io::Result<()> {
        if self.ending().is_some() {
            return writeln!(self.out, "The game is over. You can save <file>, undo or quit.");
        }
        match read_move(&self.game, text) {
            Ok(mv) => {
                self.game.play(mv).expect("read_move gives legal moves");
                self.show()
            }
            Err(why) => writeln!(self.out, "{why}"),
        }
    }

    /// The engine's move; false when the engine failed (the game cannot go on).
    fn engine_moves(&mut self) -> io::Result<bool> {
        let me = self.game.position().side_to_move();
        if self.game.legal_moves().contains(&Move::Declare) {
            writeln!(self.out, "The engine ({me}) declares a win under the 27-point rule.")?;
            self.game.play(Move::Declare).expect("the declaration is legal");
            return Ok(true);
        }
        writeln!(self.out, "The engine ({me}) is thinking...")?;
        self.out.flush()?;
        let Some(info) = self.think()? else { return Ok(false) };
        if should_resign(info.wdl, self.config.resign_percent) {
            writeln!(self.out, "The engine resigns ({}).", evaluation(&info))?;
            self.resigned = Some(me);
            return Ok(true);
        }
        let Some(best) = info.best else { return Ok(false) };
        let legal = self.game.legal_moves();
        writeln!(self.out, "The engine plays {} - {}", move_text(self.game.position(), &legal, best), evaluation(&info))?;
        self.game.play(best).expect("the search gives legal moves");
        Ok(true)
    }

    fn hint(&mut self) -> io::Result<()> {
        if self.ending().is_some() {
            return writeln!(self.out, "The game is over.");
        }
        writeln!(self.out, "Thinking about a hint...")?;
        self.out.flush()?;
        if let Some(info) = self.think()? {
            let legal = self.game.legal_moves();
            match info.best {
                Some(best) => writeln!(self.out, "Hint: {} - {}", move_text(self.game.position(), &legal, best), evaluation(&info))?,
                None => writeln!(self.out, "No hint: there is no legal move.")?,
            }
        }
        Ok(())
    }

    /// Searches the current position; `None` (after saying why) when the engine failed.
    fn think(&mut self) -> io::Result<Option<SearchInfo>> {
        match self.engine.think(&self.game, &self.config.limits, &AtomicBool::new(false), &mut |_| {}) {
            Ok(info) => Ok(Some(info)),
            Err(e) => {
                writeln!(self.out, "The engine failed: {e}")?;
                Ok(None)
            }
        }
    }

    fn undo(&mut self) -> io::Result<()> {
        let user = self.config.user;
        let moves = self.game.moves();
        let Some(keep) = (0..moves.len()).rev().find(|&i| mover(&self.game, i) == user) else {
            return writeln!(self.out, "Nothing to undo: you have not moved yet.");
        };
        let mut game = Game::new(self.game.start().clone(), self.game.rules());
        for &mv in &moves[..keep] {
            game.play(mv).expect("the moves were played before");
        }
        let taken = moves.len() - keep;
        self.game = game;
        self.resigned = None;
        writeln!(self.out, "Took back {taken} move{}.", if taken == 1 { "" } else { "s" })?;
        self.show()
    }

    fn resign(&mut self) -> io::Result<()> {
        if self.ending().is_some() {
            return writeln!(self.out, "The game is already over.");
        }
        self.resigned = Some(self.config.user);
        writeln!(self.out, "You resign: {} wins.", self.config.user.opponent())
    }

    fn save(&mut self, file: &str) -> io::Result<()> {
        if file.is_empty() {
            return writeln!(self.out, "Usage: save <file> (a .csa name writes CSA format, for finished shogi games)");
        }
        let engine = format!("shogi-zero ({})", self.config.engine_name);
        let (black, white) = match self.config.user {
            Color::Black => ("you", engine.as_str()),
            Color::White => (engine.as_str(), "you"),
        };
        match record::save(&self.game, [black, white], self.ending().as_ref(), Path::new(file)) {
            Ok(Format::Csa) => writeln!(self.out, "Saved the game to {file} (CSA format)."),
            Ok(Format::Json) => {
                writeln!(self.out, "Saved the game to {file} (a JSON line: start position, moves, result).")
            }
            Err(e) => writeln!(self.out, "Not saved: {e}"),
        }
    }
}

/// A move as the game prints it: coordinate notation and, in brackets, Hodges notation.
fn move_text(pos: &Position, legal: &MoveList, mv: Move) -> String {
    let coordinate = coord::write(pos.variant(), mv);
    let hodges = hodges::write(pos, legal, mv);
    if hodges == coordinate {
        coordinate
    } else {
        format!("{coordinate} ({hodges})")
    }
}

/// The last move of `game` as [`move_text`] writes it.
fn last_move_text(game: &Game) -> Option<String> {
    let (&last, earlier) = game.moves().split_last()?;
    let mut pos = game.start().clone();
    for &mv in earlier {
        pos.play_unchecked(mv);
    }
    Some(move_text(&pos, &pos.legal_moves(), last))
}

/// A search result for people: win, draw and loss chances of the side that searched.
fn evaluation(info: &SearchInfo) -> String {
    let [w, d, l] = info.wdl.map(|p| p * 100.0);
    format!(
        "for the side to move: win {w:.1}%, draw {d:.1}%, loss {l:.1}% (value {:+.2}, {} simulations in {:.1} s)",
        info.value(),
        info.simulations,
        info.elapsed.as_secs_f32()
    )
}

/// Reads a person's move in coordinate or Hodges notation; the error explains what is wrong.
pub fn read_move(game: &Game, text: &str) -> Result<Move, String> {
    let pos = game.position();
    let legal = game.legal_moves();
    let not_legal = || format!("'{text}' is not a legal move here. Type moves to list the legal moves.");
    if text == "declare" {
        return if legal.contains(&Move::Declare) {
            Ok(Move::Declare)
        } else {
            Err("The 27-point declaration is not valid now (see help).".to_string())
        };
    }
    match coord::parse(pos, text) {
        Ok(mv) if legal.contains(&mv) => return Ok(mv),
        Ok(_) => return Err(format!("'{text}' would repeat an earlier position, which this variant forbids.")),
        Err(MoveError::Illegal { .. }) => return Err(not_legal()),
        Err(MoveError::Syntax { .. }) => {}
    }
    let written: Vec<(Move, String)> = legal.iter().map(|&m| (m, hodges::write(pos, &legal, m))).collect();
    if let Some(&(mv, _)) = written.iter().find(|(_, h)| h == text) {
        return Ok(mv);
    }
    let typed = text.strip_suffix('=').unwrap_or(text);
    let matching: Vec<&(Move, String)> = written.iter().filter(|(m, h)| loose_forms(pos, *m, h).iter().any(|form| form == typed)).collect();
    match matching.as_slice() {
        [(mv, _)] => Ok(*mv),
        [] => Err(format!(
            "'{text}' is not a legal move in coordinate notation (7g7f, P*5e, 8h2b+) or Hodges notation (P-7f). \
             Type moves to list the legal moves, help for help."
        )),
        several => {
            let names: Vec<&str> = several.iter().map(|(_, h)| h.as_str()).collect();
            Err(format!("'{text}' is ambiguous: it could be {}. Type one of them.", names.join(" or ")))
        }
    }
}

/// The Hodges text of `mv` without a declined promotion's `=`, and also without the origin square.
fn loose_forms(pos: &Position, mv: Move, hodges: &str) -> Vec<String> {
    let plain = hodges.strip_suffix('=').unwrap_or(hodges).to_string();
    let origin = match mv {
        Move::Normal { from, .. } | Move::TwoLeg { from, .. } => Some(from),
        _ => None,
    };
    let without_origin = origin.and_then(|from| {
        let piece = pos.piece_name(pos.piece_at(from)?);
        let rest = plain.strip_prefix(&piece)?.strip_prefix(&pos.variant().geometry.square_name(from))?;
        Some(format!("{piece}{rest}"))
    });
    std::iter::once(plain).chain(without_origin).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::{SearchConfig, UniformEvaluator};
    use crate::rules::notation::sfen;
    use crate::rules::{GameRules, VariantId};

    fn shogi(text: &str) -> Game {
        let v = VariantId::SHOGI.variant();
        Game::new(sfen::parse(v, text).unwrap(), GameRules::default_for(v))
    }

    fn coordinate(game: &Game, text: &str) -> Move {
        coord::parse(game.position(), text).unwrap()
    }

    #[test]
    fn moves_are_read_in_either_notation() {
        let game = shogi("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert_eq!(read_move(&game, "7g7f"), Ok(coordinate(&game, "7g7f")));
        assert_eq!(read_move(&game, "P-7f"), Ok(coordinate(&game, "7g7f")));
        assert!(read_move(&game, "7g7e").unwrap_err().contains("not a legal move"));
        assert!(read_move(&game, "P-7e").unwrap_err().contains("not a legal move"));
        assert!(read_move(&game, "hello").unwrap_err().contains("Hodges"));
        assert!(read_move(&game, "declare").unwrap_err().contains("declaration"));
    }

    #[test]
    fn hodges_origin_and_declined_promotion_may_be_left_out_unless_ambiguous() {
        // Golds on 6i and 4i can both go to 5h; the silver on 3d can enter the zone on 3c.
        let game = shogi("4k4/9/9/6S2/9/9/9/9/3GKG3 b - 1");
        assert_eq!(read_move(&game, "G6i-5h"), Ok(coordinate(&game, "6i5h")));
        let ambiguous = read_move(&game, "G-5h").unwrap_err();
        assert!(ambiguous.contains("ambiguous") && ambiguous.contains("G6i-5h") && ambiguous.contains("G4i-5h"), "{ambiguous}");
        assert_eq!(read_move(&game, "S-3c="), Ok(coordinate(&game, "3d3c")));
        assert_eq!(read_move(&game, "S-3c"), Ok(coordinate(&game, "3d3c")));
        assert_eq!(read_move(&game, "S-3c+"), Ok(coordinate(&game, "3d3c+")));
    }

    fn session(input: &str, user: Color, start: &str) -> String {
        let mut engine = Engine::new(Box::new(UniformEvaluator), SearchConfig::default(), 1);
        let config = PlayConfig {
            user,
            limits: Limits::simulations(20),
            style: PieceStyle::Letters,
            engine_name: "uniform".to_string(),
            resign_percent: 0,
        };
        let mut out = Vec::new();
        run(shogi(start), &mut engine, &config, &mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const MATE_IN_ONE: &str = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";

    #[test]
    fn a_short_game_with_a_mistake_an_undo_and_a_hint() {
        let text = session("G*5a\nK-4h\nundo\nhint\nG*5b\nsave\nquit\n", Color::Black, MATE_IN_ONE);
        assert!(text.contains("'G*5a' is not a legal move here"), "{text}");
        assert!(text.contains("Last move: 5i4h (K-4h)"), "{text}");
        assert!(text.contains("The engine plays "), "{text}");
        assert!(text.contains("Took back 2 moves."), "{text}");
        assert!(text.contains("Hint: "), "{text}");
        assert!(text.contains("Game over: Black wins (checkmate)."), "{text}");
        assert!(text.contains("Usage: save <file>"), "{text}");
    }

    #[test]
    fn the_engine_moves_first_for_a_person_playing_white_and_eof_quits() {
        let text = session("", Color::White, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(text.contains("The engine (Black) is thinking"), "{text}");
        assert!(text.contains("The engine plays "), "{text}");
        assert!(text.trim_end().ends_with("White>"), "{text}");
        let nothing = session("undo\nresign\nresign\n", Color::White, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
        assert!(nothing.contains("Nothing to undo"), "{nothing}");
        assert!(nothing.contains("You resign: Black wins."), "{nothing}");
        assert!(nothing.contains("The game is already over."), "{nothing}");
    }
}

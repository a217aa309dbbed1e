//! `shogi-zero usi` driven over pipes with a tiny random checkpoint: the handshake, searches
//! with every kind of limit, `stop` and `ponderhit`, the declaration, malformed input, `quit`;
//! and (when the Python package cshogi is installed) whole games checked by cshogi.

mod protocol_support;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use protocol_support::{random_lines, serial, temp_dir, tiny_checkpoint, Process};
use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::{Game, GameRules, Position, VariantId};

const LONG: Duration = Duration::from_secs(60);

fn model() -> String {
    tiny_checkpoint(VariantId::SHOGI).display().to_string()
}

/// An engine after `usi` and `isready`.
fn ready_engine() -> Process {
    let model = model();
    let mut engine = Process::start(&["usi", "--model", &model], None);
    engine.send("usi");
    engine.expect("usiok", LONG);
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine
}

fn game(sfen_text: Option<&str>, moves: &str) -> Game {
    let v = VariantId::SHOGI.variant();
    let start = sfen_text.map_or_else(|| Position::start(VariantId::SHOGI), |t| sfen::parse(v, t).unwrap());
    let mut game = Game::new(start, GameRules::default_for(v));
    for m in moves.split_whitespace() {
        game.play_text(m).unwrap();
    }
    game
}

/// Checks a `bestmove` line: its move (and ponder move) are legal in `game`; returns the move.
fn check_bestmove(line: &str, game: &Game) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.first(), Some(&"bestmove"), "{line}");
    let best = words.get(1).unwrap_or_else(|| panic!("'{line}' names no move"));
    let mv = coord::parse(game.position(), best).unwrap_or_else(|e| panic!("'{line}': {e}"));
    assert!(game.legal_moves().contains(&mv), "{line}");
    if let ["bestmove", _, "ponder", ponder] = words[..] {
        let mut after = game.clone();
        after.play(mv).unwrap();
        coord::parse(after.position(), ponder).unwrap_or_else(|e| panic!("ponder move of '{line}': {e}"));
    }
    best.to_string()
}

/// Every line an engine may write.
fn is_protocol_line(line: &str) -> bool {
    ["id name ", "id author ", "option name ", "usiok", "readyok", "info ", "bestmove ", "checkmate "]
        .iter()
        .any(|prefix| line.starts_with(prefix))
}

#[test]
fn handshake_lists_the_options_and_loads_the_model() {
    let _serial = serial();
    let model = model();
    let mut engine = Process::start(&["usi", "--model", &model, "--sims", "77"], None);
    engine.send("usi");
    let lines = engine.read_until(LONG, |l| l == "usiok");
    assert!(lines[0].starts_with("id name shogi-zero "), "{lines:?}");
    for option in ["USI_Hash type spin", "USI_Ponder type check", "Threads type spin", "Device type string default cpu"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("option name {option}"))), "{option}: {lines:?}");
    }
    assert!(lines.contains(&format!("option name ModelPath type filename default {model}")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("option name Simulations type spin default 77 ")), "{lines:?}");
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(engine.transcript.iter().all(|l| is_protocol_line(l)), "{:?}", engine.transcript);
}

#[test]
fn go_nodes_gives_info_and_a_legal_bestmove() {
    let _serial = serial();
    let mut engine = ready_engine();
    engine.send("usinewgame");
    engine.send("position startpos moves 7g7f");
    engine.send("go nodes 40");
    let lines = engine.read_until(LONG, |l| l.starts_with("bestmove"));
    let best = check_bestmove(lines.last().unwrap(), &game(None, "7g7f"));
    let info = &lines[lines.len() - 2];
    assert!(info.starts_with("info depth ") && info.contains(" nodes 40 ") && info.contains(" score "), "{info}");
    assert!(info.contains(&format!(" pv {best}")), "{info}");
    // The search follows a position given as SFEN with moves too.
    engine.send("position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f 8c8d");
    engine.send("go nodes 10");
    check_bestmove(&engine.expect("bestmove", LONG), &game(None, "2g2f 8c8d"));
    engine.send("gameover win");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn time_limits_are_kept() {
    let _serial = serial();
    let mut engine = ready_engine();
    engine.send("setoption name MoveOverhead value 200");
    engine.send("position startpos");
    for (go, limit) in
        [("go btime 0 wtime 0 byoyomi 600", 600), ("go movetime 400", 400), ("go btime 2000 wtime 2000 binc 100 winc 100", 2000)]
    {
        let started = Instant::now();
        engine.send(go);
        check_bestmove(&engine.expect("bestmove", LONG), &game(None, ""));
        let took = started.elapsed();
        assert!(took < Duration::from_millis(limit), "'{go}' took {took:?}");
    }
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn stop_ends_an_infinite_search_and_ponderhit_a_ponder_search() {
    let _serial = serial();
    let mut engine = ready_engine();
    engine.send("position startpos moves 7g7f 3c3d");
    engine.send("go infinite");
    let early = engine.drain(Duration::from_millis(700));
    assert!(!early.iter().any(|l| l.starts_with("bestmove")), "bestmove before stop: {early:?}");
    let stopped = Instant::now();
    engine.send("stop");
    check_bestmove(&engine.expect("bestmove", LONG), &game(None, "7g7f 3c3d"));
    assert!(stopped.elapsed() < Duration::from_secs(2), "stop took {:?}", stopped.elapsed());
    // Pondering waits for ponderhit, then keeps to the clock from there.
    engine.send("position startpos moves 7g7f 3c3d 2g2f");
    engine.send("go ponder btime 0 wtime 0 byoyomi 500");
    let pondering = engine.drain(Duration::from_millis(700));
    assert!(!pondering.iter().any(|l| l.starts_with("bestmove")), "bestmove while pondering: {pondering:?}");
    engine.send("isready");
    engine.expect("readyok", LONG);
    let hit = Instant::now();
    engine.send("ponderhit");
    check_bestmove(&engine.expect("bestmove", LONG), &game(None, "7g7f 3c3d 2g2f"));
    assert!(hit.elapsed() < Duration::from_millis(1500), "ponderhit to bestmove took {:?}", hit.elapsed());
    // A missed ponder move: stop still gives a bestmove.
    engine.send("go ponder byoyomi 500");
    engine.send("stop");
    engine.expect("bestmove", LONG);
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn declaration_mate_and_resignation() {
    let _serial = serial();
    let mut engine = ready_engine();
    // Black's king is in the camp with ten pieces there and 28 points: a valid declaration.
    engine.send("position sfen RRBBGGSS1/4K4/NN7/9/9/9/9/9/8k b 2P 1");
    engine.send("go byoyomi 1000");
    assert_eq!(engine.expect("bestmove", LONG), "bestmove win");
    // White is checkmated: nothing to play.
    engine.send("position sfen 4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1");
    engine.send("go nodes 10");
    assert_eq!(engine.expect("bestmove", LONG), "bestmove resign");
    // Mate in one: the engine finds it and reports the mate.
    engine.send("position sfen 4k4/9/4P4/9/9/9/9/9/4K4 b G 1");
    engine.send("go nodes 400");
    let lines = engine.read_until(LONG, |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove G*5b", "{lines:?}");
    assert!(lines[lines.len() - 2].contains(" score mate 1 "), "{lines:?}");
    engine.send("go mate 1000");
    assert_eq!(engine.expect("checkmate", LONG), "checkmate notimplemented");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

#[test]
fn malformed_input_is_ignored_and_output_stays_protocol() {
    let _serial = serial();
    let mut engine = ready_engine();
    for line in [
        "",
        "   ",
        "hello world",
        "position",
        "position sfen nonsense here",
        "position startpos moves 7g7f 9a9a",
        "go nodes many",
        "go wtime",
        "setoption",
        "setoption name",
        "setoption name Bogus value 3",
        "setoption name Threads value lots",
        "setoption name Device value gpu",
        "setoption name CaptureUtility value 10001",
        "stop",
        "ponderhit",
    ] {
        engine.send(line);
    }
    engine.send_bytes(b"\xff\xfe\x00garbage\r\n");
    engine.send("isready");
    engine.expect("readyok", LONG);
    // Absurd clocks neither crash nor end the search at once.
    engine.send("go btime 9223372036854775807 wtime 9223372036854775807 byoyomi 9223372036854775807");
    std::thread::sleep(Duration::from_millis(200));
    engine.send("stop");
    check_bestmove(&engine.expect("bestmove", LONG), &game(None, "7g7f"));
    // The position kept the legal part of the bad move list: White is to move after 7g7f.
    engine.send("go nodes 5");
    check_bestmove(&engine.expect("bestmove", LONG), &game(None, "7g7f"));
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(engine.transcript.iter().all(|l| is_protocol_line(l)), "{:?}", engine.transcript);
    let stderr = engine.stderr();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("unknown command 'hello world'"), "{stderr}");
    assert!(stderr.contains("unknown option 'Bogus'"), "{stderr}");
    assert!(stderr.contains("setoption name CaptureUtility value 10001: '10001' is not a number from 0 to 10000"), "{stderr}");
}

/// The score (centipawns) and the move of a `go nodes N` search of the engine's position.
fn search(engine: &mut Process, nodes: u32) -> (i64, String) {
    engine.send(&format!("go nodes {nodes}"));
    let lines = engine.read_until(LONG, |l| l.starts_with("bestmove"));
    let info = &lines[lines.len() - 2];
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "cp").unwrap_or_else(|| panic!("no centipawn score: {info}"));
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_string();
    (words[at + 1].parse().unwrap(), best)
}

/// The CaptureUtility option: listed with the default `--capture-utility` gives it, and
/// weighing in what a line wins by captures. With a rook free to take (and Black's own rook
/// lost if it does not), a search at 100 takes it and reports it winning; at 0, the material
/// guard and the pursuit utility turned off on the command line, the tiny random network's own
/// search sees nothing of it.
#[test]
fn the_capture_utility_option_weighs_what_captures_win() {
    let _serial = serial();
    let model = model();
    let mut engine =
        Process::start(&["usi", "--model", &model, "--capture-utility", "0.5", "--material-guard", "off", "--pursuit-utility", "0"], None);
    engine.send("usi");
    let lines = engine.read_until(LONG, |l| l == "usiok");
    assert!(lines.contains(&"option name CaptureUtility type spin default 50 min 0 max 10000".to_string()), "{lines:?}");
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine.send("position sfen 4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1");
    engine.send("setoption name CaptureUtility value 10000");
    let (weighed, best) = search(&mut engine, 300);
    assert_eq!(best, "5h5e");
    engine.send("setoption name CaptureUtility value 0");
    let (own, _) = search(&mut engine, 300);
    assert!(weighed > 600 && own.abs() < 200, "at 100: {weighed} cp, at 0: {own} cp");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    // A weight out of range is refused on the command line.
    let out = Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(["usi", "--capture-utility=-1"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--capture-utility: the capture utility must be from 0 to 100, not -1"));
    let out = Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(["usi", "--pursuit-utility", "2"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--pursuit-utility: 2 is not"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn random_command_lines_never_crash_the_engine() {
    let _serial = serial();
    let mut engine = ready_engine();
    let words = [
        "usi",
        "isready",
        "setoption",
        "name",
        "value",
        "position",
        "startpos",
        "sfen",
        "moves",
        "go",
        "ponder",
        "btime",
        "wtime",
        "byoyomi",
        "binc",
        "winc",
        "movetime",
        "nodes",
        "infinite",
        "mate",
        "stop",
        "ponderhit",
        "gameover",
        "usinewgame",
        "win",
        "7g7f",
        "3c3d",
        "P*5e",
        "8h2b+",
        "resign",
        "-1",
        "0",
        "1",
        "50",
        "300",
        "99999999999999999999",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
        "b",
        "w",
        "-",
        "G2p",
        "x",
        "é",
        "",
    ];
    for line in random_lines(&words, 300, 11) {
        engine.send(&line);
    }
    engine.send("stop");
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(engine.transcript.iter().all(|l| is_protocol_line(l)), "{:?}", engine.transcript);
    assert!(!engine.stderr().contains("panicked"), "{}", engine.stderr());
}

#[test]
fn end_of_input_quits_and_a_missing_model_is_reported() {
    let _serial = serial();
    let mut engine = ready_engine();
    engine.send("go infinite");
    engine.close_input();
    assert!(engine.wait(LONG).success());
    let mut engine = Process::start(&["usi", "--model", "/nonexistent/model"], None);
    engine.send("isready");
    let line = engine.expect("info string error", LONG);
    assert!(line.contains("/nonexistent/model"), "{line}");
    engine.send("go nodes 5");
    assert_eq!(engine.expect("bestmove", LONG), "bestmove resign");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
}

/// Minishogi through `UCI_Variant`, as Fairy-Stockfish names it: the option lists the variants
/// with drops, a checkpoint's variant is the default, and switching variant switches the start
/// position and the default model.
#[test]
fn uci_variant_plays_minishogi() {
    let _serial = serial();
    let minishogi: VariantId = "minishogi".parse().unwrap();
    let mini_model = tiny_checkpoint(minishogi).display().to_string();
    let mut engine = Process::start(&["usi", "--model", &mini_model], None);
    engine.send("usi");
    let lines = engine.read_until(LONG, |l| l == "usiok");
    let option = lines.iter().find(|l| l.starts_with("option name UCI_Variant ")).unwrap_or_else(|| panic!("{lines:?}"));
    assert!(option.starts_with("option name UCI_Variant type combo default minishogi "), "{option}");
    for name in ["shogi", "minishogi", "judkins"] {
        assert!(option.contains(&format!(" var {name}")), "{option}");
    }
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine.send("position startpos moves 5d5c");
    engine.send("go nodes 20");
    let start = Position::start(minishogi);
    let mut game = Game::new(start.clone(), GameRules::default_for(start.variant()));
    game.play_text("5d5c").unwrap();
    check_bestmove(&engine.expect("bestmove", LONG), &game);
    engine.send("quit");
    assert!(engine.wait(LONG).success());

    // A shogi engine switched to minishogi plays it with minishogi's default model.
    let mut engine = Process::start(&["usi"], None);
    engine.send("setoption name UCI_Variant value minishogi");
    engine.send("usi");
    let lines = engine.read_until(LONG, |l| l == "usiok");
    let default_model = lines.iter().find(|l| l.starts_with("option name ModelPath ")).unwrap_or_else(|| panic!("{lines:?}"));
    assert!(default_model.contains("models/minishogi/default"), "{default_model}");
    engine.send("isready");
    engine.expect("readyok", LONG);
    engine.send("position sfen rbsgk/4p/5/P4/KGSBR b - 1");
    engine.send("go nodes 20");
    check_bestmove(&engine.expect("bestmove", LONG), &Game::new(start.clone(), GameRules::default_for(start.variant())));
    engine.send("setoption name UCI_Variant value chess");
    engine.send("quit");
    assert!(engine.wait(LONG).success());
    assert!(engine.stderr().contains("'chess' is not a variant this engine plays"), "{}", engine.stderr());
}

/// `--variant` refuses a variant without drops: those are XBoard's.
#[test]
fn usi_refuses_a_variant_without_drops() {
    let out = Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(["usi", "--variant", "chu-shogi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("xboard") && err.contains("chu-shogi"), "{err}");
}

/// The project's Python, which must have the cshogi package (scripts/setup.sh installs it).
fn python_with_cshogi() -> PathBuf {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    let found = Command::new(&python).args(["-c", "import cshogi"]).status().is_ok_and(|s| s.success());
    assert!(found, "{} cannot import cshogi: run scripts/setup.sh, which installs it", python.display());
    python
}

/// Whole games through cshogi's USI driver: against a random player and against itself, every
/// move checked legal by cshogi's own move generator, the clocks kept (scripts/usi_cshogi_check.py).
/// About a minute: run with `scripts/test.sh -- --ignored`.
#[test]
#[ignore = "slow: two whole games with real clocks"]
fn cshogi_plays_whole_games_against_the_engine() {
    let _serial = serial();
    let python = python_with_cshogi();
    let dir = temp_dir("cshogi");
    let wrapper = dir.join("engine.sh");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' usi --model '{}' \"$@\"\n", env!("CARGO_BIN_EXE_shogi-zero"), model())).unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/usi_cshogi_check.py");
    let out = Command::new(python).arg(script).arg(&wrapper).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "cshogi check failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("games: 2"), "{stdout}");
    println!("{stdout}");
}

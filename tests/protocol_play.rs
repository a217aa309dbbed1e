//! `shogi-zero play` with a tiny random checkpoint: a whole short game (an illegal move, a move
//! in Hodges notation, the engine's reply, an undo, a hint, the mate, saving the record) over a
//! pipe and through a pseudo-terminal (`script`), White's side with kanji, the end of input, and
//! command-line errors.

mod protocol_support;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use protocol_support::{serial, temp_dir, tiny_checkpoint};
use shogi_zero::arena::records::MatchGame;
use shogi_zero::rules::VariantId;

/// Black to move can mate with G*5b; the engine's king alone cannot mate back.
const MATE_IN_ONE: &str = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";

fn model() -> String {
    tiny_checkpoint(VariantId::SHOGI).display().to_string()
}

/// Runs `shogi-zero args...` with `input` on standard input.
fn run(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shogi-zero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start shogi-zero");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

/// The session's input and what its output must show, in order.
fn short_game(dir: &std::path::Path) -> (String, Vec<String>) {
    let json = dir.join("game.json").display().to_string();
    let csa = dir.join("game.csa").display().to_string();
    let input = format!("help\nG*5a\nK-4h\nundo\nhint\nmoves\nG*5b\nG*5c\nsave {json}\nsave {csa}\nquit\n");
    let expected = [
        "you play Black (moving first)",
        "Commands:",
        "'G*5a' is not a legal move here",
        "Last move: 5i4h (K-4h)",
        "The engine plays ",
        "Took back 2 moves.",
        "Hint: ",
        "legal moves:",
        "Last move: G*5b",
        "Game over: Black wins (checkmate).",
        "The game is over.",
        &format!("Saved the game to {json}"),
        &format!("Saved the game to {csa} (CSA format)."),
    ];
    (input, expected.iter().map(|s| s.to_string()).collect())
}

/// Checks that `text` shows every part in order, and the saved records.
fn check_game(text: &str, expected: &[String], dir: &std::path::Path) {
    let mut rest = text;
    for part in expected {
        let at = rest.find(part.as_str()).unwrap_or_else(|| panic!("'{part}' missing (in order) from:\n{text}"));
        rest = &rest[at + part.len()..];
    }
    let json = std::fs::read_to_string(dir.join("game.json")).unwrap();
    let record: MatchGame = serde_json::from_str(&json).unwrap();
    assert_eq!((record.start.as_str(), record.moves.as_str(), record.result.as_str()), (MATE_IN_ONE, "G*5b", "1-0"));
    assert_eq!(record.black, "you");
    let csa = std::fs::read_to_string(dir.join("game.csa")).unwrap();
    assert!(csa.contains("\nP+00KI\n") && csa.contains("\n+0052KI\n") && csa.ends_with("%TSUMI\n"), "{csa}");
}

#[test]
fn a_short_game_over_a_pipe() {
    let _serial = serial();
    let dir = temp_dir("play-pipe");
    let (input, expected) = short_game(&dir);
    let model = model();
    let out = run(&["play", "--variant", "shogi", "--sfen", MATE_IN_ONE, "--model", &model, "--sims", "30"], &input);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    check_game(&text, &expected, &dir);
    // The board marks the last move's squares and draws White's king in lower case.
    assert!(text.contains(" b   .   .   .   . [ G]  .   .   .   . "), "{text}");
    assert!(text.contains(" a   .   .   .   .   k "), "{text}");
}

#[test]
fn a_short_game_in_a_pseudo_terminal() {
    let _serial = serial();
    let script = Command::new("script").arg("--version").output();
    assert!(script.is_ok_and(|out| out.status.success()), "this test needs the program 'script' of util-linux (apt-get install bsdutils)");
    let dir = temp_dir("play-pty");
    let (input, expected) = short_game(&dir);
    let command =
        format!("'{}' play --variant shogi --sfen '{MATE_IN_ONE}' --model '{}' --sims 30", env!("CARGO_BIN_EXE_shogi-zero"), model());
    let out = run_script(&command, &input);
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(out.status.success(), "{text}");
    check_game(&text, &expected, &dir);
}

/// Runs `command` in a pseudo-terminal through util-linux `script`, typing `input`.
fn run_script(command: &str, input: &str) -> Output {
    let mut child = Command::new("script")
        .args(["-qfec", command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start script");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn white_with_kanji_and_the_end_of_input() {
    let _serial = serial();
    let model = model();
    let out = run(&["play", "--variant", "shogi", "--model", &model, "--side", "white", "--kanji", "--sims", "10"], "board\n");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("you play White (moving second)"), "{text}");
    assert!(text.contains("The engine (Black) is thinking"), "{text}");
    assert!(text.contains(" a  v香  v桂  v銀  v金  v玉  v金  v銀  v桂  v香 \n"), "{text}");
    assert!(text.contains(" i   香   桂   銀   金   玉   金   銀   桂   香 \n"), "{text}");
    assert!(text.trim_end().ends_with("White>"), "{text}");
    // Kanji are for standard shogi; other variants are drawn in letters, with a note.
    let chu = tiny_checkpoint(VariantId::CHU_SHOGI).display().to_string();
    let out = run(&["play", "--variant", "chu-shogi", "--model", &chu, "--kanji", "--sims", "5"], "quit\n");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("kanji are drawn for standard shogi only"));
    assert!(String::from_utf8_lossy(&out.stdout).contains(" j   SM   VM    R   DH   DK   Ln    Q"));
}

#[test]
fn command_line_errors() {
    let _serial = serial();
    for (args, message) in [
        (vec!["play", "--variant", "shogi", "--model", "/nonexistent/model"], "cannot load the model"),
        (vec!["play", "--variant", "shogi", "--sims", "0"], "--sims must be at least 1"),
        (vec!["play", "--variant", "shogi", "--time=-1"], "--time must be a positive number"),
        (vec!["play", "--variant", "shogi", "--sims", "5", "--time", "1"], "cannot be used with"),
        (vec!["play", "--variant", "go"], "unknown variant"),
    ] {
        let out = run(&args, "");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

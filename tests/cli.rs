//! The `shogi-zero` command line, run as a separate process.

mod common;

use std::process::{Command, Output};

use shogi_zero::rules::notation::coord;
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::{Game, GameRules, Position, VariantId};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(args).output().unwrap_or_else(|e| panic!("cannot run shogi-zero {args:?}: {e}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

/// Runs a command that must succeed; returns its standard output.
fn ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "shogi-zero {args:?} failed with {:?}:\n{}", out.status, stderr(&out));
    stdout(&out)
}

/// Runs a command that must fail with exit code 2 and a message mentioning every one of `parts`;
/// returns the standard error.
fn fails(args: &[&str], parts: &[&str]) -> String {
    let out = run(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "shogi-zero {args:?} must exit with 2; stderr:\n{err}");
    assert!(!err.contains("panicked"), "shogi-zero {args:?} panicked:\n{err}");
    for part in parts {
        assert!(err.contains(part), "shogi-zero {args:?}: stderr does not mention '{part}':\n{err}");
    }
    err
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or("")
}

// ---------------------------------------------------------------------------------------------
// perft
// ---------------------------------------------------------------------------------------------

#[test]
fn perft_prints_the_total_last() {
    let out = ok(&["perft", "--variant", "shogi", "--depth", "3"]);
    assert_eq!(last_line(&out), "25470");
    let out = ok(&["perft", "--variant", "heian-dai-shogi", "--depth", "2"]);
    assert_eq!(last_line(&out), "841");
}

#[test]
fn perft_divide_lines_sum_to_the_total() {
    let out = ok(&["perft", "--variant", "shogi", "--depth", "2", "--divide"]);
    let lines: Vec<&str> = out.lines().collect();
    let (total, parts) = lines.split_last().expect("some output");
    assert_eq!(parts.len(), 30, "one line per legal move of the start position:\n{out}");
    let start = Position::start(VariantId::SHOGI);
    let mut sum = 0u64;
    for line in parts {
        let (text, count) = line.split_once(' ').unwrap_or_else(|| panic!("line '{line}' is not '<move> <count>'"));
        coord::parse(&start, text).unwrap_or_else(|e| panic!("divide line '{line}': {e}"));
        let count: u64 = count.parse().unwrap_or_else(|_| panic!("divide line '{line}': bad count"));
        assert_eq!(count, perft(&start.after(coord::parse(&start, text).unwrap()).unwrap(), 1), "{line}");
        sum += count;
    }
    assert_eq!(total.parse::<u64>().unwrap(), sum);
    assert_eq!(sum, 900);
}

#[test]
fn perft_after_moves() {
    let out = ok(&["perft", "--variant", "shogi", "--depth", "2", "--moves", "7g7f 3c3d"]);
    let mut game = Game::new(Position::start(VariantId::SHOGI), GameRules::default_for(VariantId::SHOGI.variant()));
    common::play_all(&mut game, "7g7f 3c3d");
    assert_eq!(last_line(&out), perft(game.position(), 2).to_string());
    assert_ne!(last_line(&out), "900", "the moves were played");
}

#[test]
fn perft_from_sfen() {
    let matsuri = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
    let out = ok(&["perft", "--variant", "shogi", "--sfen", matsuri, "--depth", "2"]);
    assert_eq!(last_line(&out), "28684");
}

// ---------------------------------------------------------------------------------------------
// show
// ---------------------------------------------------------------------------------------------

#[test]
fn show_prints_board_side_hands_and_moves() {
    let out = ok(&["show", "--variant", "shogi"]);
    let lines: Vec<&str> = out.lines().collect();
    // White's hand above the board, then file numbers 9..1 across the top.
    assert_eq!(lines[0], "White in hand: -", "{out}");
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(header, ["9", "8", "7", "6", "5", "4", "3", "2", "1"], "{out}");
    // One line per rank, lettered a..i, with the pieces of the start position.
    for (i, rank) in ('a'..='i').enumerate() {
        let cells: Vec<&str> = lines[2 + i].split_whitespace().collect();
        assert_eq!(cells[0], rank.to_string(), "rank letter on line {}", 2 + i);
        assert_eq!(cells.len(), 10, "{}", lines[2 + i]);
    }
    assert_eq!(lines[2].split_whitespace().collect::<Vec<_>>(), ["a", "l", "n", "s", "g", "k", "g", "s", "n", "l"]);
    assert_eq!(lines[10].split_whitespace().collect::<Vec<_>>(), ["i", "L", "N", "S", "G", "K", "G", "S", "N", "L"]);
    assert_eq!(lines[11], "Black in hand: -", "{out}");
    assert!(out.contains("Black to move"), "{out}");
    assert!(out.contains("Black in hand: -") && out.contains("White in hand: -"), "{out}");
    assert!(out.contains("Legal moves (30)"), "{out}");
    // Each move in coordinate and Hodges notation.
    let row = |coord: &str, hodges: &str| lines.iter().any(|l| l.split_whitespace().collect::<Vec<_>>() == [coord, hodges]);
    assert!(row("7g7f", "P-7f"), "{out}");
    assert!(row("6i5h", "G6i-5h"), "{out}");
    assert!(row("2h1h", "R-1h"), "{out}");
}

#[test]
fn show_after_moves_with_hands() {
    let out = ok(&["show", "--variant", "shogi", "--moves", "7g7f 3c3d 8h2b+ 3a2b"]);
    assert!(out.contains("Black to move"), "{out}");
    assert!(out.contains("Black in hand: B"), "{out}");
    assert!(out.contains("White in hand: B"), "{out}");
    assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["B*5e", "B*5e"]), "drops are listed: {out}");
}

#[test]
fn show_heian() {
    let out = ok(&["show", "--variant", "heian-dai-shogi"]);
    let lines: Vec<&str> = out.lines().collect();
    let header: Vec<String> = lines[0].split_whitespace().map(str::to_string).collect();
    let expected: Vec<String> = (1..=13).rev().map(|f| f.to_string()).collect();
    assert_eq!(header, expected);
    assert_eq!(lines[13].split_whitespace().next(), Some("m"));
    assert!(out.contains("Legal moves (29)"), "{out}");
    assert!(out.lines().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["7j7i", "GB-7i"]), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Errors: exit code 2, no panic, a message naming the problem
// ---------------------------------------------------------------------------------------------

#[test]
fn unknown_variant() {
    fails(&["perft", "--variant", "chess", "--depth", "1"], &["chess", "shogi", "heian-dai-shogi"]);
    fails(&["show", "--variant", "Shogi"], &["Shogi", "shogi", "heian-dai-shogi"]);
}

#[test]
fn malformed_sfen() {
    fails(&["perft", "--variant", "shogi", "--sfen", "9/9/9 b - 1", "--depth", "1"], &["--sfen", "3 rank"]);
    fails(&["show", "--variant", "shogi", "--sfen", "4k4/9/9/9/9/9/9/9/4K4 x - 1"], &["'x'"]);
    fails(
        &["show", "--variant", "heian-dai-shogi", "--sfen", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"],
        &["rank"],
    );
}

#[test]
fn illegal_move_in_moves() {
    fails(&["perft", "--variant", "shogi", "--depth", "1", "--moves", "7g7f 3c3d 7f7d"], &["7f7d", "move 3", "not a legal move"]);
    fails(&["show", "--variant", "shogi", "--moves", "7g7f 7g7f"], &["'7g7f'", "move 2", "not a legal move"]);
}

#[test]
fn unparsable_move_in_moves() {
    fails(&["perft", "--variant", "shogi", "--depth", "1", "--moves", "7g7f xyz"], &["xyz", "move 2"]);
    fails(&["show", "--variant", "shogi", "--moves", "7g7f+++"], &["7g7f+++", "move 1"]);
}

#[test]
fn non_ascii_move_in_moves() {
    fails(&["show", "--variant", "shogi", "--moves", "7g7f ３c３d"], &["move 2"]);
}

#[test]
fn depth_above_the_limit() {
    fails(&["perft", "--variant", "shogi", "--depth", "11"], &["11", "10"]);
}

#[test]
fn command_line_syntax_errors_exit_with_2() {
    fails(&["perft", "--variant", "shogi"], &["--depth"]);
    fails(&["perft", "--variant", "shogi", "--depth", "x"], &["x"]);
    fails(&["no-such-command"], &["no-such-command"]);
}

// ---------------------------------------------------------------------------------------------
// selfcheck
// ---------------------------------------------------------------------------------------------

#[test]
fn selfcheck_passes() {
    let out = ok(&["selfcheck", "--max-nodes", "100000"]);
    let line = out.lines().find(|l| l.contains("passed")).unwrap_or_else(|| panic!("no 'passed' line:\n{out}"));
    assert!(line.contains(" 0 failed"), "{line}");
}

// ---------------------------------------------------------------------------------------------
// anchors
// ---------------------------------------------------------------------------------------------

/// `anchors` plays a match against each opponent into the model's folder, writes the summary
/// (`{"variant", "model", "matches": [{"opponent", "results"}]}`) and, run again, resumes the
/// finished matches without playing more.
#[test]
fn anchors_score_a_model_against_each_opponent() {
    use shogi_zero::nn::{checkpoint, Network, NetworkConfig};

    let scratch = common::Scratch::new("cli-anchors");
    let model_dir = scratch.0.join("tiny");
    checkpoint::save(&Network::new(VariantId::SHOGI, &NetworkConfig::scaled(1, 8), tch::Device::Cpu).unwrap(), &model_dir, 0).unwrap();
    let model = model_dir.to_str().unwrap();
    let args = ["anchors", "--variant", "shogi", "--model", model, "--opponent", "random", "--opponent", "alphabeta:1", "--games", "2"];
    let args = [&args[..], &["--sims", "4", "--threads", "1"]].concat();
    let read_summary =
        || -> serde_json::Value { serde_json::from_str(&std::fs::read_to_string(model_dir.join("anchors.json")).unwrap()).unwrap() };
    for run in 0..2 {
        let out = ok(&args);
        let lines: Vec<&str> = out.lines().filter(|l| l.contains(" vs ")).collect();
        assert_eq!(lines.len(), 2, "one line a match (run {run}):\n{out}");
        assert!(lines[0].starts_with(&format!("{model} vs random: score ")) && lines[0].ends_with(" over 2 games"), "{out}");
        assert!(lines[1].starts_with(&format!("{model} vs alphabeta:1: score ")), "{out}");
        let summary = read_summary();
        assert_eq!(summary["variant"], "shogi");
        assert_eq!(summary["model"], model);
        let matches = summary["matches"].as_array().unwrap();
        assert_eq!(matches.len(), 2);
        for (m, (opponent, folder)) in matches.iter().zip([("random", "random"), ("alphabeta:1", "alphabeta_1")]) {
            assert_eq!(m["opponent"], opponent);
            let results = &m["results"];
            assert_eq!(results["games"], 2, "{results}");
            assert_eq!(results["players"][0]["name"], model);
            assert_eq!(results["players"][1]["name"], opponent);
            assert_eq!(results["budget"], "sims 4");
            let kept: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(model_dir.join("anchors").join(folder).join("results.json")).unwrap())
                    .unwrap();
            assert_eq!(&kept, results, "the summary holds the match's results.json");
        }
    }
    let step = model_dir.join("step-0000000000.json");
    fails(&["anchors", "--variant", "shogi", "--model", step.to_str().unwrap(), "--opponent", "random"], &["not a folder"]);
}

/// Every command that runs a network reads `--device` through one parser, with one message.
#[test]
fn device_arguments_share_one_parser() {
    for command in [&["play", "--variant", "shogi"][..], &["usi"], &["xboard"], &["bench", "nn"]] {
        let args = [command, &["--device", "gpu"]].concat();
        fails(&args, &["--device", "'gpu' is not a device (expected cpu, cuda or cuda:N)"]);
    }
}

//! Variant files (docs/variants.md): the embedded files, the errors of malformed files, and
//! variants read from a path at run time.

mod common;

use std::path::{Path, PathBuf};

use common::Scratch;
use shogi_zero::rules::perft::perft;
use shogi_zero::rules::variant::VariantError;
use shogi_zero::rules::variant_file;
use shogi_zero::rules::{Position, VariantId};

fn variants_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("variants")
}

fn minishogi_text() -> String {
    std::fs::read_to_string(variants_dir().join("minishogi.toml")).expect("variants/minishogi.toml")
}

/// `minishogi.toml` with `from` replaced by `to` (which must occur) and another name, so that
/// each test's variant is new to the process.
fn edited(name: &str, from: &str, to: &str) -> String {
    let text = minishogi_text();
    assert!(text.contains(from), "minishogi.toml has no '{from}'");
    text.replacen(from, to, 1).replacen("name = \"minishogi\"", &format!("name = \"{name}\""), 1)
}

/// The error of reading `text` as file `bad.toml`, checked to name the file.
fn file_error(text: &str) -> String {
    let scratch = Scratch::new(&format!("bad-variant-{:x}", shogi_zero::fnv::hash(text.as_bytes())));
    let path = scratch.0.join("bad.toml");
    std::fs::write(&path, text).expect("write the variant file");
    let error = VariantId::load(&path).expect_err("a malformed variant file is refused").to_string();
    assert!(error.contains(&path.display().to_string()), "the error names the file: {error}");
    error
}

fn assert_mentions(error: &str, parts: &[&str]) {
    for part in parts {
        assert!(error.contains(part), "the error should mention '{part}': {error}");
    }
}

#[test]
fn embedded_files_parse_and_are_the_known_variants() {
    let embedded = VariantId::embedded();
    let mut files: Vec<String> = std::fs::read_dir(variants_dir())
        .expect("variants/ is readable")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    files.sort();
    assert_eq!(files.len(), embedded.len(), "every file of variants/ is embedded: {files:?}");
    for id in &embedded {
        assert!(id.is_embedded(), "{id}");
        let file = format!("{}.toml", id.name());
        assert!(files.contains(&file), "{id} comes from {file}");
        assert_eq!(id.source(), format!("variants/{file}"));
        let text = std::fs::read_to_string(variants_dir().join(&file)).expect("readable");
        let parsed = variant_file::parse(&file, &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.rules_hash(), id.spec().rules_hash, "{file}: the embedded copy is the file");
        assert!(!Position::start(*id).legal_moves().is_empty(), "{id}: the side to move has moves at the start");
    }
    for name in ["shogi", "chu-shogi", "heian-dai-shogi", "dai-shogi", "tenjiku-shogi", "minishogi", "judkins-shogi"] {
        assert!(embedded.iter().any(|id| id.name() == name), "{name} is embedded");
    }
}

#[test]
fn malformed_toml_names_the_line() {
    let error = file_error("name = \"broken\"\ntitle = \"Broken\"\nsize = = 5\n");
    assert_mentions(&error, &["line 3"]);
}

#[test]
fn unknown_key_names_the_table_and_key() {
    let error = file_error(&edited("unknown-key", "drops = true", "drops = true\npawn_drop_mate = false"));
    assert_mentions(&error, &["[rules]", "pawn_drop_mate"]);
}

#[test]
fn missing_key_names_it() {
    let error = file_error(&edited("missing-key", "ply_cap = 256\n", ""));
    assert_mentions(&error, &["ply_cap"]);
}

#[test]
fn bad_rule_value_names_the_key_and_the_choices() {
    let error = file_error(&edited("bad-rule", "legality = \"checkmate\"", "legality = \"stalemate\""));
    assert_mentions(&error, &["[rules], key `legality`", "stalemate", "checkmate", "royal-capture"]);
}

#[test]
fn bad_name_is_refused() {
    let error = file_error(&minishogi_text().replacen("name = \"minishogi\"", "name = \"Mini Shogi\"", 1));
    assert_mentions(&error, &["key `name`", "Mini Shogi"]);
}

#[test]
fn board_size_out_of_range_is_refused() {
    let error = file_error(&edited("huge-board", "size = 5", "size = 40"));
    assert_mentions(&error, &["key `size`", "40"]);
}

#[test]
fn zone_deeper_than_half_the_board_is_refused() {
    let error = file_error(&edited("deep-zone", "zone_depth = 1", "zone_depth = 3"));
    assert_mentions(&error, &["[rules], key `zone_depth`", "3"]);
}

#[test]
fn repeated_abbreviation_names_both_rows() {
    let error = file_error(&edited("same-abbr", "abbr = \"B\"", "abbr = \"R\""));
    assert_mentions(&error, &["[[pieces]] #3 \"Bishop\"", "key `abbr`", "row #2"]);
}

#[test]
fn two_letter_abbreviation_with_drops_is_refused() {
    let error = file_error(&edited("long-abbr", "abbr = \"S\"", "abbr = \"Sg\""));
    assert_mentions(&error, &["\"Silver general\"", "key `abbr`", "drops"]);
}

#[test]
fn piece_without_a_move_is_refused() {
    let error = file_error(&edited("no-move", "moves = { step = [\"forward\"] }", "moves = {}"));
    assert_mentions(&error, &["[[pieces]] #6 \"Pawn\"", "key `moves`", "no move"]);
}

#[test]
fn unknown_direction_names_the_row_and_key() {
    let error = file_error(&edited(
        "bad-direction",
        "slide = [\"orthogonal\"] }\npromotes.name = \"Dragon\"",
        "slide = [\"sideways-ish\"] }\npromotes.name = \"Dragon\"",
    ));
    assert_mentions(&error, &["[[pieces]] #2", "moves.slide", "sideways-ish"]);
}

#[test]
fn lopsided_jump_is_refused() {
    let error = file_error(&edited("lopsided-jump", "moves = { step = [\"forward\"] }", "moves = { jump = [[1, 2]] }"));
    assert_mentions(&error, &["\"Pawn\"", "moves.jump", "mirror"]);
}

#[test]
fn variant_without_a_royal_piece_is_refused() {
    let error = file_error(&edited("no-king", "royal = true\n", ""));
    assert_mentions(&error, &["[[pieces]]", "royal"]);
}

#[test]
fn bad_start_position_is_refused() {
    let error = file_error(&edited("bad-start", "start = \"rbsgk/4p/5/P4/KGSBR b - 1\"", "start = \"rbsgk/4p/5/P4/KGSBQ b - 1\""));
    assert_mentions(&error, &["start position"]);
}

#[test]
fn missing_file_names_the_path() {
    let error = VariantId::load(Path::new("/nonexistent/folder/mine.toml")).expect_err("no such file").to_string();
    assert_mentions(&error, &["/nonexistent/folder/mine.toml"]);
    let error = "/nonexistent/folder/mine.toml".parse::<VariantId>().expect_err("no such file").to_string();
    assert_mentions(&error, &["/nonexistent/folder/mine.toml"]);
}

#[test]
fn unknown_variant_name_lists_the_known_ones() {
    let error = "kyoto-shogi".parse::<VariantId>().expect_err("not a known variant").to_string();
    assert_mentions(&error, &["kyoto-shogi", "minishogi", "judkins-shogi", "variant file"]);
}

#[test]
fn a_file_read_twice_is_one_variant() {
    let scratch = Scratch::new("variant-read-twice");
    let path = scratch.0.join("mini-copy.toml");
    std::fs::write(&path, edited("mini-copy", "ply_cap = 256", "ply_cap = 256")).expect("write");
    let id = VariantId::load(&path).expect("the copy reads");
    assert!(!id.is_embedded());
    assert_eq!(id.name(), "mini-copy");
    assert_eq!(id.source(), std::path::absolute(&path).unwrap().display().to_string());
    assert_eq!(VariantId::load(&path).expect("reads again"), id, "the same file is the same variant");
    assert_eq!(path.display().to_string().parse::<VariantId>().expect("a path parses"), id);
    assert_eq!("mini-copy".parse::<VariantId>().expect("then its name is known"), id);
    assert!(VariantId::known().contains(&id));
    // The same rules, so the same moves as the embedded minishogi.
    let minishogi: VariantId = "minishogi".parse().unwrap();
    for depth in 1..=4 {
        assert_eq!(perft(&Position::start(id), depth), perft(&Position::start(minishogi), depth), "depth {depth}");
    }
}

#[test]
fn a_second_file_with_a_known_name_and_other_rules_clashes() {
    let scratch = Scratch::new("variant-clash");
    let path = scratch.0.join("minishogi.toml");
    std::fs::write(&path, minishogi_text()).expect("write");
    assert_eq!(VariantId::load(&path).expect("the same rules"), "minishogi".parse::<VariantId>().unwrap());
    std::fs::write(&path, minishogi_text().replacen("zone_depth = 1", "zone_depth = 2", 1)).expect("write");
    match VariantId::load(&path) {
        Err(VariantError::Clash { name, other, .. }) => {
            assert_eq!(name, "minishogi");
            assert_eq!(other, "variants/minishogi.toml");
        }
        other => panic!("expected a clash, got {other:?}"),
    }
}

#[test]
fn comments_and_layout_do_not_change_the_rules_hash() {
    let text = minishogi_text();
    let a = variant_file::parse("a.toml", &text).unwrap();
    let b = variant_file::parse("b.toml", &format!("# another comment\n\n{text}\n")).unwrap();
    let c = variant_file::parse("c.toml", &text.replacen("zone_depth = 1", "zone_depth = 2", 1)).unwrap();
    assert_eq!(a.rules_hash(), b.rules_hash());
    assert_ne!(a.rules_hash(), c.rules_hash());
}

// ---------------------------------------------------------------------------------------------
// A variant file on the command line: list, perft, train, self-play, arena, changed rules
// ---------------------------------------------------------------------------------------------

fn shogi_zero(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(args).output().expect("shogi-zero runs")
}

/// Runs a command that must succeed; returns its standard output.
fn ok(args: &[&str]) -> String {
    let out = shogi_zero(args);
    assert!(out.status.success(), "shogi-zero {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Runs a command that must fail with exit code 2; returns its standard error.
fn fails(args: &[&str]) -> String {
    let out = shogi_zero(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "shogi-zero {args:?} must fail with 2:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// A training configuration of a few seconds for the variant file `variant`.
fn quick_config(dir: &Path, variant: &Path) -> PathBuf {
    let path = dir.join("quick.toml");
    std::fs::write(&path, common::quick_recipe(&variant.display().to_string(), 10)).unwrap();
    path
}

#[test]
fn a_variant_file_works_end_to_end_from_the_command_line() {
    let scratch = Scratch::new("variant-file-cli");
    let file = scratch.0.join("my-mini.toml");
    std::fs::write(&file, edited("my-mini", "usi_variant = \"minishogi\"\n", "")).unwrap();
    let file_arg = file.to_str().unwrap();

    // `variants` lists the built-in variants, then the file.
    let listing = ok(&["variants", file_arg]);
    let lines: Vec<&str> = listing.lines().collect();
    assert!(lines[0].starts_with("variant ") && lines[0].contains("board") && lines[0].contains("pieces"), "{listing}");
    for name in ["shogi", "chu-shogi", "tenjiku-shogi", "minishogi", "judkins-shogi"] {
        let line = lines.iter().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| panic!("{name}: {listing}"));
        assert!(line.trim_end().ends_with("built-in"), "{line}");
    }
    let mine = lines.last().unwrap();
    let words: Vec<&str> = mine.split_whitespace().collect();
    assert_eq!(words[0], "my-mini", "{listing}");
    assert!(words.contains(&"5x5") && words.contains(&"6") && words.contains(&"12") && words.contains(&"yes"), "{mine}");
    assert!(mine.ends_with(&std::path::absolute(&file).unwrap().display().to_string()), "{mine}");
    let bad = scratch.0.join("bad.toml");
    std::fs::write(&bad, edited("bad-listing", "zone_depth = 1", "zone_depth = 0")).unwrap();
    let err = fails(&["variants", bad.to_str().unwrap()]);
    assert!(err.contains("bad.toml") && err.contains("[rules], key `zone_depth`"), "{err}");

    // Perft through the file equals minishogi's.
    let total = ok(&["perft", "--variant", file_arg, "--depth", "3"]);
    assert_eq!(total.lines().last(), Some("2512"), "{total}");

    // Train: the run folder keeps the file, and its checkpoints the rules' hash.
    let models = scratch.0.join("models");
    let config = quick_config(&scratch.0, &file);
    let out = shogi_zero(&[
        "train",
        "--variant",
        file_arg,
        "--run",
        "quick",
        "--models",
        models.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = models.join("my-mini").join("quick");
    assert_eq!(std::fs::read_to_string(run.join("variant.toml")).unwrap(), std::fs::read_to_string(&file).unwrap());
    let latest = std::fs::read_to_string(run.join("latest")).unwrap();
    let metadata: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join(latest.trim())).unwrap()).unwrap();
    assert_eq!(metadata["layout"]["variant"], "my-mini");
    assert!(metadata["layout"]["rules_hash"].as_str().is_some_and(|h| !h.is_empty()), "{metadata}");
    let run_arg = run.to_str().unwrap();

    // Self-play and a match with the trained network, the variant given by its file.
    let games = scratch.0.join("games");
    ok(&[
        "selfplay",
        "--variant",
        file_arg,
        "--config",
        config.to_str().unwrap(),
        "--model",
        run_arg,
        "--games",
        "1",
        "--out",
        games.to_str().unwrap(),
    ]);
    assert!(std::fs::read_dir(&games).unwrap().count() > 0, "self-play wrote its games");
    let summary = ok(&["arena", "--variant", file_arg, "--player", run_arg, "--player", "random", "--games", "2", "--sims", "4"]);
    assert!(summary.contains("2 games of my-mini"), "{summary}");

    // A game in the terminal: one move of ours, the network's answer.
    let mut play = std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero"))
        .args(["play", "--variant", file_arg, "--model", run_arg, "--sims", "4"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("play starts");
    std::io::Write::write_all(&mut play.stdin.take().unwrap(), b"5d5c\nquit\n").unwrap();
    let out = play.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("Last move: 5d5c") && text.contains("The engine plays "), "{text}");

    // A USI engine of the variant, which it names by the file's name (it has no usi_variant).
    let mut usi = std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero"))
        .args(["usi", "--variant", file_arg, "--model", run_arg])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("usi starts");
    std::io::Write::write_all(&mut usi.stdin.take().unwrap(), b"usi\nisready\nquit\n").unwrap();
    let out = usi.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("option name UCI_Variant type combo default my-mini ") && text.contains("readyok"), "{text}");

    // The same file with other rules: the checkpoint is refused, naming the file.
    std::fs::write(&file, std::fs::read_to_string(&file).unwrap().replacen("zone_depth = 1", "zone_depth = 2", 1)).unwrap();
    let err = fails(&["arena", "--variant", file_arg, "--player", run_arg, "--player", "random", "--games", "2", "--sims", "4"]);
    assert!(err.contains("trained on other rules of my-mini") && err.contains("my-mini.toml"), "{err}");
}

/// A variant without a recipe of its own trains by the reference CPU recipe at its ply cap.
#[test]
fn a_variant_without_a_recipe_takes_the_reference_cpu_recipe() {
    use shogi_zero::config::RunConfig;

    let judkins: VariantId = "judkins-shogi".parse().unwrap();
    let (config, path) = RunConfig::load_or_default(None, judkins).expect("the reference recipe reads");
    assert_eq!(path, Path::new("configs/recipes/cpu.toml"));
    assert_eq!(config.variant, judkins);
    assert_eq!(config.selfplay.ply_cap, judkins.spec().default_ply_cap);
    let minishogi: VariantId = "minishogi".parse().unwrap();
    let (config, path) = RunConfig::load_or_default(None, minishogi).expect("minishogi's recipe reads");
    assert_eq!(path, Path::new("configs/minishogi-cpu.toml"));
    assert_eq!((config.variant, config.network.blocks, config.network.channels), (minishogi, 4, 48));
}

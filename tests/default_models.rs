//! The shipped models play the moves they are known to play: each default model
//! (`models/<variant>/default`), with a player's default search and with the network's own search,
//! plays two games against `alphabeta:1` from a fixed seed, on one LibTorch thread, and every
//! move must match `tests/data/default-model-moves.jsonl`. A change to the search that alters a
//! default model's play, however slightly, fails here.

mod common;

use common::Scratch;

/// The golden moves: one line per variant and search, `{"variant", "search", "games": [moves]}`.
const GOLDEN: &str = include_str!("data/default-model-moves.jsonl");

/// The spec suffix of each search: a player's default search, or the network's own search.
fn spec_suffix(search: &str) -> &'static str {
    match search {
        "play" => "",
        "net" => "?capture_utility=0&material_guard=off&pursuit_utility=0",
        other => panic!("default-model-moves.jsonl: unknown search '{other}'"),
    }
}

/// The moves of each game the default model of `variant` plays with `search`, in game order.
fn play(variant: &str, search: &str) -> Vec<String> {
    let scratch = Scratch::new(&format!("default-moves-{variant}-{search}"));
    let out = scratch.0.join("match");
    let model = format!("{}/models/{variant}/default{}", env!("CARGO_MANIFEST_DIR"), spec_suffix(search));
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero"))
        .args(["arena", "--variant", variant, "--player", &model, "--player", "alphabeta:1"])
        .args(["--games", "2", "--sims", "32", "--ply-cap", "60", "--threads", "1", "--seed", "1"])
        .arg("--out")
        .arg(&out)
        .output()
        .expect("run shogi-zero arena");
    assert!(output.status.success(), "{variant} {search}: {}", String::from_utf8_lossy(&output.stderr));
    let records = std::fs::read_to_string(out.join("games.jsonl")).expect("games.jsonl");
    let mut games: Vec<(u64, String)> = records
        .lines()
        .map(|line| {
            let game: serde_json::Value = serde_json::from_str(line).expect("a game record");
            (game["game"].as_u64().expect("game number"), game["moves"].as_str().expect("moves").to_string())
        })
        .collect();
    games.sort();
    games.into_iter().map(|(_, moves)| moves).collect()
}

/// Checks both searches of `variant` against the golden moves.
fn plays_as_recorded(variant: &str) {
    let mut checked = 0;
    for line in GOLDEN.lines().filter(|l| !l.trim().is_empty()) {
        let golden: serde_json::Value = serde_json::from_str(line).expect("a golden line");
        if golden["variant"] != variant {
            continue;
        }
        let search = golden["search"].as_str().expect("search");
        let expected: Vec<String> =
            golden["games"].as_array().expect("games").iter().map(|g| g.as_str().expect("moves").to_string()).collect();
        let played = play(variant, search);
        assert_eq!(played.len(), expected.len(), "{variant} {search}: number of games");
        for (i, (played, expected)) in played.iter().zip(&expected).enumerate() {
            let first_difference = played.split(' ').zip(expected.split(' ')).position(|(a, b)| a != b);
            assert_eq!(played, expected, "{variant} {search}, game {}: moves differ from ply {first_difference:?}", i + 1);
        }
        checked += 1;
    }
    assert_eq!(checked, 2, "{variant}: the golden file holds both searches");
}

#[test]
fn shogi_default_plays_as_recorded() {
    plays_as_recorded("shogi");
}

#[test]
fn heian_dai_shogi_default_plays_as_recorded() {
    plays_as_recorded("heian-dai-shogi");
}

#[test]
fn chu_shogi_default_plays_as_recorded() {
    plays_as_recorded("chu-shogi");
}

#[test]
fn dai_shogi_default_plays_as_recorded() {
    plays_as_recorded("dai-shogi");
}

#[test]
fn tenjiku_shogi_default_plays_as_recorded() {
    plays_as_recorded("tenjiku-shogi");
}

#[test]
fn minishogi_default_plays_as_recorded() {
    plays_as_recorded("minishogi");
}

/// Every default model in `models/` has its test above.
#[test]
fn every_default_model_has_a_test() {
    let tested = ["shogi", "heian-dai-shogi", "chu-shogi", "dai-shogi", "tenjiku-shogi", "minishogi"];
    let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    for entry in std::fs::read_dir(&models).expect("models/ is readable") {
        let folder = entry.expect("an entry").path();
        if folder.join("default").join("latest").is_file() {
            let variant = folder.file_name().expect("a name").to_string_lossy().into_owned();
            assert!(tested.contains(&variant.as_str()), "models/{variant}/default: add a test and its golden moves");
        }
    }
}

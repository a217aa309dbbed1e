//! Training really learns: the quickest recipe (`configs/heian-dai-shogi-tiny.toml`: a 2x16
//! network, 16 Gumbel simulations, 4 minutes of training on 2 cores) must produce a checkpoint
//! that beats the run's initial random-weight checkpoint in the arena by a statistically
//! significant margin. Heian dai shogi is the quickest variant to show learning: kings can be
//! captured, so even weak self-play games end decisively and give the value head a signal
//! (shogi self-play games of a few minutes' training end mostly at the ply cap).
//! Takes about 8 minutes; CI runs it.

mod common;

use std::path::Path;
use std::process::Command;

use common::Scratch;

fn run(command: &mut Command) -> String {
    let output = command.output().expect("run shogi-zero");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

#[test]
fn a_short_training_run_beats_its_initial_network() {
    let scratch = Scratch::new("learning");
    let models = scratch.0.join("models");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/heian-dai-shogi-tiny.toml");
    let binary = env!("CARGO_BIN_EXE_shogi-zero");
    let trained = run(Command::new(binary)
        .args(["train", "--variant", "heian-dai-shogi", "--run", "learning", "--models"])
        .arg(&models)
        .arg("--config")
        .arg(&config));
    let latest = trained
        .lines()
        .find_map(|l| l.strip_prefix("latest checkpoint: "))
        .unwrap_or_else(|| panic!("no latest checkpoint in:\n{trained}"))
        .to_string();
    let run_dir = models.join("heian-dai-shogi").join("learning");
    let initial = run_dir.join("step-0000000000.json");
    let out = scratch.0.join("arena");
    run(Command::new(binary)
        .args(["arena", "--variant", "heian-dai-shogi", "--games", "100", "--concurrency", "8", "--sims", "16"])
        .args(["--ply-cap", "250", "--seed", "11", "--player", &latest, "--player"])
        .arg(&initial)
        .arg("--out")
        .arg(&out));
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let score = results["elo"]["score"].as_f64().unwrap();
    let los = results["elo"]["los"].as_f64().unwrap();
    let trained_player = &results["players"][0];
    assert_eq!(results["games"].as_u64(), Some(100));
    assert_eq!(trained_player["name"].as_str(), Some(latest.as_str()));
    // Significant at the 5% level (likelihood of superiority) and clearly ahead.
    assert!(
        score >= 0.55 && los >= 0.95,
        "trained {latest} scored {score:.3} (LOS {los:.3}) against the initial network: {}",
        trained_player["total"]
    );
}

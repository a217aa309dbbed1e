//! Tests of configuration files that build on a base, and of the presets in `configs/`.

use std::path::{Path, PathBuf};

use super::*;

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("shogi-zero-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes `text` to the file `name` of the folder (creating its subfolders); returns its path.
    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A base with every required table, in a subfolder.
const BASE: &str = "\
[network]
blocks = 2
channels = 16
global_pool_every = 2
global_pool_channels = 4
policy_channels = 8
value_channels = 8
value_hidden = 16

[inference]
device = \"cpu\"
precision = \"f32\"
batch_size = 32
max_wait_us = 500

[selfplay]
simulations = 16
ply_cap = 150

[eval]
anchors = [\"alphabeta:1\", \"alphabeta:2\"]
";

fn error_of(path: &Path) -> String {
    RunConfig::load(path).expect_err("the configuration is refused").to_string()
}

#[test]
fn a_file_replaces_its_bases_keys_and_keeps_the_others() {
    let scratch = Scratch::new("merge");
    scratch.write("recipes/base.toml", BASE);
    scratch.write("recipes/middle.toml", "base = \"base.toml\"\n[selfplay]\nsimulations = 24\n");
    let child = scratch.write(
        "child.toml",
        "base = \"recipes/middle.toml\"\nvariant = \"chu-shogi\"\n[network]\nblocks = 3\n[selfplay]\nply_cap = 300\n\
         [eval]\nanchors = [\"random\"]\n",
    );
    let config = RunConfig::load(&child).unwrap();
    let base_only = RunConfig::parse(&format!("variant = \"chu-shogi\"\n{BASE}"), &scratch.0.join("plain.toml")).unwrap();
    assert_eq!(config.variant, VariantId::CHU_SHOGI);
    assert_eq!((config.network.blocks, config.network.channels), (3, 16), "network.blocks replaced, channels kept");
    assert_eq!((config.selfplay.simulations, config.selfplay.ply_cap), (24, 300), "each level's key wins over its base's");
    assert_eq!(config.eval.anchors, ["random"], "an array is replaced, not merged");
    let expected = RunConfig {
        network: NetworkConfig { blocks: 3, ..base_only.network },
        selfplay: SelfplayConfig { simulations: 24, ply_cap: 300, ..base_only.selfplay.clone() },
        eval: EvalConfig { anchors: vec!["random".to_string()], ..base_only.eval.clone() },
        ..base_only
    };
    assert_eq!(config, expected);
    assert!(!to_toml(&config).lines().any(|line| line.starts_with("base")), "the resolved configuration names no base");
}

#[test]
fn an_unknown_key_names_the_file_that_has_it() {
    let scratch = Scratch::new("unknown");
    let base = scratch.write("base.toml", BASE);
    let child = scratch.write("child.toml", "base = \"base.toml\"\nvariant = \"shogi\"\n\n[network]\nblokcs = 3\n");
    let error = error_of(&child);
    assert!(error.contains("child.toml") && error.contains("line 5") && error.contains("network.blokcs"), "{error}");
    std::fs::write(&base, BASE.replace("[selfplay]\n", "[selfplay]\nsimulatons = 3\n")).unwrap();
    std::fs::write(&child, "base = \"base.toml\"\nvariant = \"shogi\"\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("base.toml") && !error.contains("child.toml") && error.contains("selfplay.simulatons"), "{error}");
    // A value of the wrong type, and a missing key, name their key too.
    std::fs::write(&base, BASE).unwrap();
    std::fs::write(&child, "base = \"base.toml\"\nvariant = \"shogi\"\n[inference]\nbatch_size = \"big\"\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("child.toml") && error.contains("inference.batch_size"), "{error}");
    std::fs::write(&base, BASE.replace("blocks = 2\n", "")).unwrap();
    std::fs::write(&child, "base = \"base.toml\"\nvariant = \"shogi\"\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("base.toml") && error.contains("`network`") && error.contains("blocks"), "{error}");
}

#[test]
fn store_limits_and_retention_that_would_lose_training_games_are_refused() {
    let scratch = Scratch::new("store");
    scratch.write("base.toml", BASE);
    let child = scratch.write("child.toml", "base = \"base.toml\"\nvariant = \"shogi\"\n[store]\nkeep_games_models = 2\n");
    let error = error_of(&child);
    assert!(error.contains("store.keep_games_models") && error.contains("max_game_age (10)"), "{error}");
    std::fs::write(&child, "base = \"base.toml\"\nvariant = \"shogi\"\n[train]\nmax_game_age = 2\n[store]\nkeep_games_models = 2\n")
        .unwrap();
    assert_eq!(RunConfig::load(&child).unwrap().store.keep_games_models, 2);
    std::fs::write(&child, "base = \"base.toml\"\nvariant = \"shogi\"\n[store]\nmax_batch_mib = 1\nmax_line_kib = 2048\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("store.max_line_kib"), "{error}");
}

#[test]
fn a_missing_or_malformed_base_names_the_file_and_base() {
    let scratch = Scratch::new("missing");
    let child = scratch.write("child.toml", "base = \"recipes/none.toml\"\nvariant = \"shogi\"\n");
    let error = RunConfig::load(&child).unwrap_err();
    assert!(matches!(error, ConfigError::Base { .. }), "{error}");
    let error = error.to_string();
    assert!(error.contains("child.toml") && error.contains("`base`") && error.contains("none.toml"), "{error}");
    std::fs::write(&child, "base = 3\nvariant = \"shogi\"\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("child.toml") && error.contains("`base`"), "{error}");
    // A syntax error in a base names the base.
    scratch.write("broken.toml", "[network\n");
    std::fs::write(&child, "base = \"broken.toml\"\nvariant = \"shogi\"\n").unwrap();
    let error = error_of(&child);
    assert!(error.contains("broken.toml") && !error.contains("child.toml"), "{error}");
}

#[test]
fn a_cycle_of_bases_names_the_chain() {
    let scratch = Scratch::new("cycle");
    let a = scratch.write("a.toml", "base = \"b.toml\"\nvariant = \"shogi\"\n");
    scratch.write("b.toml", "base = \"./a.toml\"\n");
    let error = error_of(&a);
    assert!(error.contains("cycle") && error.contains("a.toml -> ") && error.contains("b.toml -> "), "{error}");
    let own = scratch.write("own.toml", "base = \"own.toml\"\n");
    assert!(error_of(&own).contains("cycle"), "{}", error_of(&own));
}

#[test]
fn openings_are_read_from_the_folder_of_the_file_that_names_them() {
    let scratch = Scratch::new("openings");
    let openings = scratch.write("recipes/openings.txt", "startpos moves 7g7f\n");
    scratch.write("recipes/base.toml", &BASE.replace("[selfplay]\n", "[selfplay]\nopenings = \"openings.txt\"\n"));
    let child = scratch.write("child.toml", "base = \"recipes/base.toml\"\nvariant = \"shogi\"\n");
    let config = RunConfig::load(&child).unwrap();
    assert_eq!(config.selfplay.openings, Some(std::path::absolute(&openings).unwrap()));
    // The resolved configuration, kept elsewhere, still finds the file.
    let copy = scratch.write("run/config.toml", &to_toml(&config));
    assert_eq!(RunConfig::load(&copy).unwrap(), config);
}

/// Every preset `configs/<variant>-<size>.toml` resolves to the configuration recorded in
/// `tests/data/resolved-configs/` (the run folder's copy of it, every key written out).
#[test]
fn every_preset_resolves_to_its_recorded_configuration() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let recorded_dir = root.join("tests/data/resolved-configs");
    let names = |dir: &Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".toml"))
            .collect();
        names.sort();
        names
    };
    let presets = names(&root.join("configs"));
    assert_eq!(presets, names(&recorded_dir), "one recorded configuration a preset");
    assert_eq!(presets.len(), 26);
    for name in presets {
        let config = RunConfig::load(&root.join("configs").join(&name)).unwrap_or_else(|e| panic!("{e}"));
        let resolved: toml::Table = to_toml(&config).parse().unwrap();
        let recorded: toml::Table = std::fs::read_to_string(recorded_dir.join(&name)).unwrap().parse().unwrap();
        assert_eq!(resolved, recorded, "{name} resolves to its recorded configuration");
    }
}

//! `shogi-zero anchors`: a model against fixed opponents, one arena match each, at the settings
//! the shipped models' anchor results are measured with: colour-swapped pairs, a fixed number of
//! simulations a move, 4 random opening plies, two games at once. Each match is kept in
//! `<model>/anchors/<opponent-name>/` (results.json, games.jsonl) and resumed from there, and
//! the summary of them all in `<model>/anchors.json`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{ensure, Context};
use clap::Args;
use serde::Serialize;

use super::arena::{player_factory, MatchSettings};
use crate::arena::records::MatchSummary;
use crate::arena::run_match;
use crate::files::write_atomic;
use crate::rules::VariantId;

/// Games played at the same time in each match.
const CONCURRENT_GAMES: usize = 2;
/// Random plies from the start position before each pair of games.
const RANDOM_OPENING_PLIES: u32 = 4;

#[derive(Debug, Args)]
pub struct AnchorsArgs {
    /// A built-in variant (shogi, minishogi, judkins-shogi, heian-dai-shogi, chu-shogi, dai-shogi,
    /// tenjiku-shogi; `shogi-zero variants` lists them) or the path of a variant file.
    #[arg(long)]
    variant: String,
    /// The model's folder (a run folder such as models/shogi/default); the results are written
    /// into it.
    #[arg(long)]
    model: PathBuf,
    /// An opponent, once for each match: any arena player (alphabeta:2, a model folder,
    /// 'usi:fairy-stockfish?depth=1', ...).
    #[arg(long = "opponent", required = true)]
    opponents: Vec<String>,
    /// Games a match, played in pairs with colours swapped.
    #[arg(long, default_value_t = 40)]
    games: u32,
    /// Simulations a move of the model (nodes for USI engines).
    #[arg(long, default_value_t = 64)]
    sims: u32,
    /// LibTorch's CPU threads for the checkpoint players' networks [default: LibTorch's, one a
    /// core]; 1 when other work shares the cores.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Seed of the openings and random players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// `<model>/anchors.json`: every match's results (its `results.json`) under the opponent it was
/// played against.
#[derive(Serialize)]
struct Summary<'a> {
    variant: &'a str,
    model: &'a str,
    matches: Vec<AnchorMatch<'a>>,
}

#[derive(Serialize)]
struct AnchorMatch<'a> {
    opponent: &'a str,
    results: MatchSummary,
}

pub fn run(args: AnchorsArgs) -> anyhow::Result<ExitCode> {
    let variant: VariantId = args.variant.parse()?;
    let model = args.model.to_str().with_context(|| format!("--model {}: the path is not UTF-8", args.model.display()))?;
    ensure!(args.model.is_dir(), "--model {model}: not a folder (the results are written into the model's folder)");
    let settings = MatchSettings {
        games: Some(args.games),
        concurrency: CONCURRENT_GAMES,
        sims: Some(args.sims),
        time_ms: None,
        openings: None,
        random_opening_plies: Some(RANDOM_OPENING_PLIES),
        seed: args.seed,
        ply_cap: None,
        threads: args.threads,
    };
    settings.apply_threads();
    let network = player_factory(model, variant)?;
    let mut matches = Vec::new();
    let mut out = std::io::stdout().lock();
    for opponent in &args.opponents {
        let mut config = settings.config(variant, args.games)?;
        config.out = Some(args.model.join("anchors").join(opponent_folder(opponent)));
        config.resume = true;
        let report = run_match(&config, [network.clone(), player_factory(opponent, variant)?])?;
        let score = report.summary.players[0].total.score().unwrap_or(0.0);
        writeln!(out, "{model} vs {opponent}: score {score:.3} over {} games", report.summary.games)?;
        matches.push(AnchorMatch { opponent, results: report.summary });
    }
    let summary = Summary { variant: variant.name(), model, matches };
    let path = args.model.join("anchors.json");
    let json = serde_json::to_string_pretty(&summary).context("the anchors summary serialises")?;
    write_atomic(&path, format!("{json}\n").as_bytes()).with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(out, "summary in {}", path.display())?;
    Ok(ExitCode::SUCCESS)
}

/// The folder name of an opponent's match: the program or folder name of its spec, without the
/// protocol, the `?key=value` list and the program's arguments; `:` becomes `_`
/// (`alphabeta:2` -> `alphabeta_2`, `usi:/usr/games/fairy-stockfish?depth=1` -> `fairy-stockfish`).
fn opponent_folder(spec: &str) -> String {
    let name = spec.strip_prefix("usi:").unwrap_or(spec);
    let name = name.strip_prefix("xboard:").unwrap_or(name);
    let name = name.split('?').next().unwrap_or_default();
    let name = name.split(' ').next().unwrap_or_default();
    let base = Path::new(name).file_name().map_or_else(|| name.to_string(), |base| base.to_string_lossy().into_owned());
    base.replace(':', "_")
}

#[cfg(test)]
mod tests {
    use super::opponent_folder;

    #[test]
    fn opponent_folders_name_the_program_or_model() {
        assert_eq!(opponent_folder("alphabeta:2"), "alphabeta_2");
        assert_eq!(opponent_folder("random"), "random");
        assert_eq!(opponent_folder("usi:fairy-stockfish?option.Skill Level=0&depth=1"), "fairy-stockfish");
        assert_eq!(opponent_folder("xboard:/usr/games/hachu -x?memory=64"), "hachu");
        assert_eq!(opponent_folder("models/shogi/default/"), "default");
        assert_eq!(opponent_folder("models/chu-shogi/run-1/step-0000000100.json"), "step-0000000100.json");
    }
}

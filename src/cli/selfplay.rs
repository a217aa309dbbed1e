//! `shogi-zero selfplay`: games of a checkpoint against itself, written to replay files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::RunConfig;
use crate::mcts::Model;
use crate::nn::checkpoint;
use crate::rules::VariantId;
use crate::selfplay::runner::{self, Counters, Evaluators, SelfplayRun, Summary};

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Checkpoint: a metadata file (`step-N.json`) or a run folder (its `latest`).
    #[arg(long)]
    model: PathBuf,
    /// Games to play.
    #[arg(long)]
    games: u64,
    /// Run configuration (search, self-play and inference settings); default
    /// `configs/<variant>-cpu.toml`.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Folder for the replay files (created if needed).
    #[arg(long)]
    out: PathBuf,
    /// Seed of the games' random choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One worker with its own network in lockstep batches: the same seed, model and config
    /// give the same games (CPU).
    #[arg(long)]
    deterministic: bool,
}

pub fn run(args: SelfplayArgs) -> anyhow::Result<ExitCode> {
    let variant: VariantId = args.variant.parse()?;
    let config_path = args.config.unwrap_or_else(|| RunConfig::default_path(variant));
    let config = RunConfig::load(&config_path)?;
    if config.variant != variant {
        anyhow::bail!("config {} is for {}, not {}", config_path.display(), config.variant.name(), variant.name());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let run = SelfplayRun {
        variant,
        search: config.search,
        selfplay: config.selfplay,
        games: Some(args.games),
        seed: args.seed,
        out: args.out.clone(),
    };
    let progress = ProgressBar::new(args.games).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let counters = Counters::default();
    let stop = AtomicBool::new(false);
    let summary = if args.deterministic {
        let (meta_path, _) = checkpoint::read_metadata(&args.model)?;
        let (network, model_id) = Model::load_network(&meta_path, variant, &config.inference)?;
        runner::run(Evaluators::Deterministic { network: Box::new(network), model_id }, &run, &stop, &progress, &counters, &mut |_| {})?
    } else {
        let model = Model::load(&args.model, Some(variant), &config.inference)?;
        runner::run(Evaluators::Shared(&model), &run, &stop, &progress, &counters, &mut |_| {})?
    };
    progress.finish();
    print_summary(&summary, &args.out);
    Ok(ExitCode::SUCCESS)
}

/// The final report.
fn print_summary(summary: &Summary, out: &std::path::Path) {
    let seconds = summary.elapsed.as_secs_f64().max(1e-9);
    println!(
        "{} games, {} positions in {:.1} s: {:.1} positions/s, {:.0} evaluations/s, {:.1} plies/game",
        summary.games,
        summary.plies,
        seconds,
        summary.plies as f64 / seconds,
        summary.evaluations as f64 / seconds,
        summary.average_length()
    );
    println!("results: Black {} wins, White {} wins, {} draws", summary.black_wins, summary.white_wins, summary.draws);
    let endings: Vec<String> = summary.endings.iter().map(|(name, n)| format!("{name} {n}")).collect();
    println!("endings: {}", endings.join(", "));
    match summary.false_resignation_rate() {
        Some(rate) => println!(
            "false resignations: {} of {} audited games where a side would have resigned ({:.1}%)",
            summary.false_resignations,
            summary.audited_resignations,
            100.0 * rate
        ),
        None => println!("false resignations: no audited game had a would-be resignation"),
    }
    println!("{} replay files in {}", summary.files.len(), out.display());
}

//! `shogi-zero train`: self-play and training of a variant's network, from nothing or resumed.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::RunConfig;
use crate::nn::checkpoint;
use crate::pipeline::{self, TrainRun, RUN_CONFIG};
use crate::rules::VariantId;

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Variant name.
    #[arg(long)]
    variant: String,
    /// Run configuration. A new run defaults to `configs/<variant>-cpu.toml`; a resumed run
    /// to the copy in its folder.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Name of the run: its folder is `<models>/<variant>/<run>`. An existing run is resumed.
    #[arg(long, default_value = "main")]
    run: String,
    /// Folder of the models.
    #[arg(long, default_value = "models")]
    models: PathBuf,
    /// Seed of the initial weights, sampling and self-play.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let variant: VariantId = args.variant.parse()?;
    let run_dir = checkpoint::run_dir(&args.models, variant, &args.run)?;
    let kept = run_dir.join(RUN_CONFIG);
    let config_path = match args.config {
        Some(path) => path,
        None if kept.exists() => kept,
        None => RunConfig::default_path(variant),
    };
    let config = RunConfig::load(&config_path)?;
    if config.variant != variant {
        bail!("config {} is for {}, not {}", config_path.display(), config.variant.name(), variant.name());
    }
    eprintln!("training {} with {} in {}", variant.name(), config_path.display(), run_dir.display());
    let progress = ProgressBar::new(pipeline::PROGRESS_SCALE).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent:>3}%  {msg}").expect("valid template").progress_chars("=> "),
    );
    let train_run = TrainRun { config, run_dir: run_dir.clone(), seed: args.seed };
    let summary = pipeline::train(&train_run, &AtomicBool::new(false), &progress).context("training stopped")?;
    progress.finish();
    let minutes = summary.elapsed.as_secs_f64() / 60.0;
    println!(
        "{} steps {} to {} in {minutes:.1} min; {} self-play games, {} positions",
        if summary.resumed { "resumed:" } else { "trained:" },
        summary.first_step,
        summary.last_step,
        summary.selfplay_games,
        summary.selfplay_positions
    );
    println!("checkpoints: {}", run_dir.display());
    println!("latest checkpoint: {}", summary.checkpoint.display());
    println!("metrics: {}", summary.metrics.display());
    for chart in &summary.charts {
        println!("chart: {}", chart.display());
    }
    Ok(ExitCode::SUCCESS)
}

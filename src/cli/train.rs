//! `shogi-zero train`: self-play and training of a variant's network, from nothing or resumed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{parse_device, parse_precision};
use crate::config::RunConfig;
use crate::nn::checkpoint;
use crate::nn::device::{DeviceChoice, Precision};
use crate::pipeline::{self, TrainRun, RUN_CONFIG};
use crate::rules::VariantId;
use crate::store::{layout, run_config, Created, Store};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// A built-in variant (`shogi-zero variants` lists them) or the path of a variant file.
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
    /// Keep the run in a store shared with self-play workers: `file:///path`,
    /// `s3://bucket/prefix`, `gs://...`, `az://...` or `memory://`. The run resumes from the
    /// store; `--config` is used only when the store holds no run yet. The run folder is then
    /// the trainer's local copy.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// With `--store`: only train, and leave self-play to `selfplay --store` workers.
    #[arg(long, requires = "store")]
    trainer_only: bool,
    /// This trainer's device instead of the configuration's `[inference] device`: `cpu`,
    /// `cuda` or `cuda:N`. The run's configuration (and a store's copy) keeps its own.
    #[arg(long, value_parser = parse_device)]
    device: Option<DeviceChoice>,
    /// This trainer's inference precision instead of the configuration's: `f32`, `bf16`,
    /// `f16` (CUDA) or `auto`.
    #[arg(long, value_parser = parse_precision)]
    precision: Option<Precision>,
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let variant: VariantId = args.variant.parse()?;
    let run_dir = checkpoint::run_dir(&args.models, variant, &args.run)?;
    let store = args.store.as_deref().map(Store::open).transpose()?.map(Arc::new);
    let kept = run_dir.join(RUN_CONFIG);
    let config_path = match args.config {
        Some(path) => Some(path),
        None if kept.exists() && store.is_none() => Some(kept),
        None => None,
    };
    let (mut config, config_path) = match &store {
        Some(store) => store_config(store, config_path.as_deref(), variant, &run_dir)?,
        None => RunConfig::load_or_default(config_path.as_deref(), variant)?,
    };
    config.inference.device = args.device.unwrap_or(config.inference.device);
    config.inference.precision = args.precision.unwrap_or(config.inference.precision);
    check_device(&config, &config_path, args.device.is_some())?;
    if config.variant != variant {
        bail!("config {} is for {}, not {}", config_path.display(), config.variant.name(), variant.name());
    }
    match &store {
        Some(store) => eprintln!(
            "training {} in store {}{} (local copy in {})",
            variant.name(),
            store.url(),
            if args.trainer_only { ", self-play by workers" } else { "" },
            run_dir.display()
        ),
        None => eprintln!("training {} with {} in {}", variant.name(), config_path.display(), run_dir.display()),
    }
    let progress = ProgressBar::new(pipeline::PROGRESS_SCALE).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {percent:>3}%  {msg}").expect("valid template").progress_chars("=> "),
    );
    let train_run = TrainRun { config, run_dir: run_dir.clone(), seed: args.seed, store, trainer_only: args.trainer_only };
    let stop = super::stop_on_signals()?;
    let summary = pipeline::train(&train_run, &stop, &progress).context("training stopped")?;
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
    if let Some(store) = &train_run.store {
        println!("store: {} (checkpoints, latest.json, metrics/)", store.url());
    }
    if summary.interrupted {
        eprintln!("stopped by a signal before the run's end: exit status {}; the same command resumes it", super::INTERRUPTED);
        return Ok(ExitCode::from(super::INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// Fails, before training starts, where this machine cannot run the configuration's device
/// and precision, naming where they come from and how to choose others.
fn check_device(config: &RunConfig, config_path: &Path, from_flag: bool) -> anyhow::Result<()> {
    let inference = &config.inference;
    let source = if from_flag { "--device".to_string() } else { format!("[inference] device in {}", config_path.display()) };
    let device = inference.device.resolve().with_context(|| {
        format!("the trainer cannot run on {} ({source}); give --device cpu to train on this machine's CPU", inference.device)
    })?;
    inference
        .precision
        .resolve(device)
        .check(device)
        .with_context(|| format!("precision {} cannot run on {}; give --precision f32 (or auto)", inference.precision, inference.device))?;
    Ok(())
}

/// The run's configuration in the store, and where it came from: the store's own when it
/// holds a run, else the one at `config_path` (or the variant's default), written there first.
fn store_config(store: &Store, config_path: Option<&Path>, variant: VariantId, run_dir: &Path) -> anyhow::Result<(RunConfig, PathBuf)> {
    if store.get(layout::CONFIG)?.is_some() {
        return Ok((run_config::fetch(store, run_dir)?, run_dir.join(RUN_CONFIG)));
    }
    let (config, config_path) = RunConfig::load_or_default(config_path, variant)?;
    let (stored, created) = run_config::publish(store, &config, run_dir)?;
    if created == Created::New {
        eprintln!("new run in {}: configuration from {}", store.url(), config_path.display());
    }
    Ok((stored, config_path))
}

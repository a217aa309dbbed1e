//! `shogi-zero selfplay`: games of a checkpoint against itself, written to replay files.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};

use super::{parse_device, parse_precision};
use crate::config::RunConfig;
use crate::fnv;
use crate::mcts::Model;
use crate::nn::checkpoint;
use crate::nn::config::InferenceConfig;
use crate::nn::device::{DeviceChoice, Precision};
use crate::pipeline::worker::{self, WorkerMachine, WorkerRun};
use crate::rules::VariantId;
use crate::selfplay::runner::{self, Counters, Evaluators, SelfplayRun, Summary};
use crate::splitmix;
use crate::store::Store;

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    /// A built-in variant (`shogi-zero variants` lists them) or the path of a variant file.
    #[arg(long)]
    variant: String,
    /// Checkpoint: a metadata file (`step-N.json`) or a run folder (its `latest`).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    model: Option<PathBuf>,
    /// Games to play (with `--store`: unless `--minutes`; neither: until killed).
    #[arg(long, required_unless_present = "store")]
    games: Option<u64>,
    /// Run configuration (search, self-play and inference settings); default
    /// `configs/<variant>-cpu.toml`.
    #[arg(long, conflicts_with = "store")]
    config: Option<PathBuf>,
    /// Folder for the replay files (created if needed).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    out: Option<PathBuf>,
    /// Seed of the games' random choices (a worker mixes in its id and the time).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// One worker with its own network in lockstep batches: the same seed, model and config
    /// give the same games (CPU).
    #[arg(long, conflicts_with = "store")]
    deterministic: bool,
    /// Be a worker of the run in this store (`file:///path`, `s3://bucket/prefix`, ...): play
    /// with the run's config and newest checkpoint, upload the games, follow new checkpoints.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// The worker's id in its games' object names (default `<hostname>-<pid>`).
    #[arg(long, requires = "store")]
    worker_id: Option<String>,
    /// With `--store`: stop after this many minutes.
    #[arg(long, requires = "store", conflicts_with = "games")]
    minutes: Option<f64>,
    /// With `--store`: the worker's local folder (default `$XDG_CACHE_HOME/shogi-zero` or
    /// `~/.cache/shogi-zero`).
    #[arg(long, requires = "store")]
    cache: Option<PathBuf>,
    #[command(flatten)]
    machine: WorkerMachineArgs,
}

/// A worker's own machine: the run's configuration does not say where its network runs.
#[derive(Debug, Args)]
struct WorkerMachineArgs {
    /// With `--store`: the worker's device, `cpu`, `cuda` or `cuda:N` (the run's
    /// `[inference] device` is the trainer's).
    #[arg(long, requires = "store", default_value = "cpu", value_parser = parse_device)]
    device: DeviceChoice,
    /// With `--store`: `f32`, `bf16`, `f16` (CUDA) or `auto` (bf16 on CPUs with AVX512-BF16,
    /// f32 on other CPUs, f16 on CUDA).
    #[arg(long, requires = "store", default_value = "auto", value_parser = parse_precision)]
    precision: Precision,
    /// With `--store`: most positions the network evaluates in one pass.
    #[arg(long, requires = "store", default_value_t = 32)]
    batch_size: usize,
    /// With `--store`: self-play threads.
    #[arg(long, requires = "store", default_value_t = 1)]
    search_threads: usize,
    /// With `--store`: games each self-play thread keeps in flight (they fill the batches).
    #[arg(long, requires = "store", default_value_t = 32)]
    games_per_thread: usize,
    /// With `--store`: LibTorch's CPU threads [default: LibTorch's, one a core; in a container
    /// with a CPU limit, give the limit].
    #[arg(long, requires = "store")]
    threads: Option<u16>,
}

impl WorkerMachineArgs {
    /// The machine settings, checked; applies `--threads` to LibTorch.
    fn machine(&self) -> anyhow::Result<WorkerMachine> {
        anyhow::ensure!((1..=65536).contains(&self.batch_size), "--batch-size must be from 1 to 65536, not {}", self.batch_size);
        anyhow::ensure!((1..=1024).contains(&self.search_threads), "--search-threads must be from 1 to 1024, not {}", self.search_threads);
        anyhow::ensure!(
            (1..=65536).contains(&self.games_per_thread),
            "--games-per-thread must be from 1 to 65536, not {}",
            self.games_per_thread
        );
        if let Some(threads) = self.threads {
            anyhow::ensure!(threads > 0, "--threads must be at least 1");
            tch::set_num_threads(i32::from(threads));
        }
        let default = WorkerMachine::default();
        Ok(WorkerMachine {
            inference: InferenceConfig { device: self.device, precision: self.precision, batch_size: self.batch_size, ..default.inference },
            search_threads: self.search_threads,
            games_per_thread: self.games_per_thread,
        })
    }
}

pub fn run(args: SelfplayArgs) -> anyhow::Result<ExitCode> {
    let variant: VariantId = args.variant.parse()?;
    if let Some(url) = &args.store {
        return run_worker(&args, variant, url);
    }
    let (Some(model), Some(games), Some(out)) = (args.model.clone(), args.games, args.out.clone()) else {
        anyhow::bail!("--model, --games and --out are needed without --store");
    };
    let (config, config_path) = RunConfig::load_or_default(args.config.as_deref(), variant)?;
    if config.variant != variant {
        anyhow::bail!("config {} is for {}, not {}", config_path.display(), config.variant.name(), variant.name());
    }
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let run =
        SelfplayRun { variant, search: config.search, selfplay: config.selfplay, games: Some(games), seed: args.seed, out: out.clone() };
    let progress = games_progress(Some(games));
    let counters = Counters::default();
    let stop = AtomicBool::new(false);
    let summary = if args.deterministic {
        let (meta_path, _) = checkpoint::read_metadata(&model)?;
        let (network, model_id) = Model::load_network(&meta_path, variant, &config.inference)?;
        runner::run(Evaluators::Deterministic { network: Box::new(network), model_id }, &run, &stop, &progress, &counters, &mut |_| Ok(()))?
    } else {
        let model = Model::load(&model, Some(variant), &config.inference)?;
        runner::run(Evaluators::Shared(&model), &run, &stop, &progress, &counters, &mut |_| Ok(()))?
    };
    progress.finish();
    print_summary(&summary);
    println!("replay files in {}", out.display());
    Ok(ExitCode::SUCCESS)
}

/// `selfplay --store`: a worker of the run in the store.
fn run_worker(args: &SelfplayArgs, variant: VariantId, url: &str) -> anyhow::Result<ExitCode> {
    let store = Store::open(url)?;
    let worker_id = match &args.worker_id {
        Some(id) => id.clone(),
        None => format!("{}-{}", hostname(), std::process::id()),
    };
    let cache_root = match &args.cache {
        Some(path) => path.clone(),
        None => default_cache().context("no cache folder: give --cache, or set XDG_CACHE_HOME or HOME")?,
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let run = WorkerRun {
        variant,
        worker_id: worker_id.clone(),
        games: args.games,
        minutes: args.minutes,
        cache: worker::cache_folder(&cache_root, &store),
        seed: splitmix::mix(args.seed ^ fnv::hash(worker_id.as_bytes()) ^ now),
        machine: args.machine.machine()?,
    };
    let machine = &run.machine;
    eprintln!(
        "worker {worker_id} of the run in {} (cache {}; {} {}, {} self-play thread(s) of {} games, batches of {})",
        store.url(),
        run.cache.display(),
        machine.inference.device,
        machine.inference.precision,
        machine.search_threads,
        machine.games_per_thread,
        machine.inference.batch_size
    );
    let progress = games_progress(args.games);
    let stop = super::stop_on_signals()?;
    let summary = worker::run(&store, &run, &stop, &progress)?;
    progress.finish();
    let variant_name = variant.name();
    if let Some(step) = summary.models.first() {
        let steps: Vec<String> = summary.models.iter().map(u64::to_string).collect();
        println!("{variant_name}: played with the checkpoints of steps {} (first {step})", steps.join(", "));
    }
    print_summary(&summary.games);
    println!("{} game batches uploaded to {}", summary.uploaded, store.url());
    if summary.run_ended {
        println!("the run has ended: its trainer reached its last step");
    }
    if summary.interrupted {
        eprintln!("stopped by a signal before the end: exit status {}", super::INTERRUPTED);
        return Ok(ExitCode::from(super::INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// A bar over `games`, or a counter when the number is open.
fn games_progress(games: Option<u64>) -> ProgressBar {
    match games {
        Some(games) => ProgressBar::new(games).with_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games  {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        ),
        None => ProgressBar::no_length()
            .with_style(ProgressStyle::with_template("{elapsed_precise} {pos} games  {msg}").expect("valid template")),
    }
}

/// This machine's name, for worker ids.
fn hostname() -> String {
    let name: String =
        crate::store::host_name().chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')).take(40).collect();
    if name.is_empty() {
        "worker".to_string()
    } else {
        name
    }
}

/// `$XDG_CACHE_HOME/shogi-zero`, or `~/.cache/shogi-zero`.
fn default_cache() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    Some(base.join("shogi-zero"))
}

/// The final report.
fn print_summary(summary: &Summary) {
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
    let [won, drawn, lost] = summary.audited_adjudications;
    if won + drawn + lost > 0 {
        println!("adjudications audited: the side judged won went on to win {won}, draw {drawn}, lose {lost}");
    }
    println!("{} replay files written", summary.files);
}

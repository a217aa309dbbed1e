//! `shogi-zero bench`: speed figures for the report.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Subcommand};

use crate::mcts::bench::{bench_games, measure as measure_search};
use crate::mcts::{RootSelection, SearchConfig};
use crate::nn::bench::{forward_rate, server_rate, Workload};
use crate::nn::device::on_fresh_thread;
use crate::nn::{DeviceChoice, Network, NetworkConfig, Precision};
use crate::rules::perft::{make_and_generate, perft, BENCH_POSITIONS};
use crate::rules::VariantId;
use crate::selfplay::bench::measure as measure_selfplay;
use crate::train::bench::{measure as measure_trainer, write_random_games};
use crate::train::TrainConfig;

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Debug, Subcommand)]
enum BenchWhat {
    /// Move generation speed on the benchmark positions.
    Perft {
        /// Subtract this many plies from every benchmark depth (for a quick run).
        #[arg(long, default_value_t = 0)]
        shallower: u32,
        /// Only the positions of these variants, comma separated (all by default).
        #[arg(long, value_delimiter = ',')]
        variants: Vec<String>,
    },
    /// Network throughput: raw forward passes next to the inference server, same batch size.
    Nn(NnArgs),
    /// Network evaluations per second during self-play next to raw forward passes.
    Selfplay(SelfplayBenchArgs),
    /// Trainer samples per second next to training steps on a prepared batch.
    Train(TrainBenchArgs),
    /// Search simulations per second on one thread with a uniform evaluator.
    Search(SearchBenchArgs),
}

/// The benchmarked network's shape.
#[derive(Debug, Args)]
struct ShapeArgs {
    /// Residual blocks.
    #[arg(long, default_value_t = 6)]
    blocks: usize,
    /// Channels.
    #[arg(long, default_value_t = 64)]
    channels: usize,
}

impl ShapeArgs {
    /// The network configuration, checked.
    fn config(&self) -> anyhow::Result<NetworkConfig> {
        let config = NetworkConfig::scaled(self.blocks, self.channels);
        config.validate().context("--blocks/--channels")?;
        Ok(config)
    }
}

/// Settings of `bench train`.
#[derive(Debug, Args)]
struct TrainBenchArgs {
    /// Variants, comma separated.
    #[arg(long, default_value = "shogi,heian-dai-shogi,tenjiku-shogi", value_delimiter = ',')]
    variants: Vec<String>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// Training batch size.
    #[arg(long, default_value_t = 128)]
    batch: usize,
    /// Seconds of each measurement.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Replay folder to draw from (one variant only); by default seeded random games with
    /// policy targets over every legal move.
    #[arg(long)]
    replay: Option<std::path::PathBuf>,
}

/// Settings of `bench search`.
#[derive(Debug, Args)]
struct SearchBenchArgs {
    /// Variants, comma separated.
    #[arg(long, default_value = "shogi,heian-dai-shogi,chu-shogi,dai-shogi,tenjiku-shogi", value_delimiter = ',')]
    variants: Vec<String>,
    /// Simulations of each search.
    #[arg(long, default_value_t = 400)]
    simulations: u32,
    /// Root selection: puct or gumbel.
    #[arg(long, default_value = "puct")]
    root: String,
    /// Seconds of each variant's measurement.
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Also measure the searches with this capture utility (0: not measured), and what it adds
    /// to each simulation.
    #[arg(long, default_value_t = 0.0)]
    capture_utility: f32,
}

/// Settings of `bench selfplay`.
#[derive(Debug, Args)]
struct SelfplayBenchArgs {
    /// Variants, comma separated.
    #[arg(long, default_value = "shogi,heian-dai-shogi,tenjiku-shogi", value_delimiter = ',')]
    variants: Vec<String>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// Batch size of the server and of the raw forward passes.
    #[arg(long, default_value_t = 32)]
    batch: usize,
    /// Games in flight (default: twice the batch).
    #[arg(long)]
    games: Option<usize>,
    /// Root selection: puct or gumbel.
    #[arg(long, default_value = "gumbel")]
    root: String,
    /// Seconds of each measurement.
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
}

/// Settings of `bench nn`.
#[derive(Debug, Args)]
struct NnArgs {
    /// Variants, comma separated.
    #[arg(long, default_value = "shogi,heian-dai-shogi", value_delimiter = ',')]
    variants: Vec<String>,
    #[command(flatten)]
    shape: ShapeArgs,
    /// Batch size of the raw forward passes and largest batch of the server.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// Precisions, comma separated (f32, bf16, f16).
    #[arg(long, default_value = "f32,bf16", value_delimiter = ',')]
    precisions: Vec<String>,
    /// Where the network runs: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", value_parser = super::parse_device)]
    device: DeviceChoice,
    /// Seconds of each measurement.
    #[arg(long, default_value_t = 1.5)]
    seconds: f64,
    /// Measurements of each figure, alternating raw and server; the median is reported.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Client threads feeding the server (together they keep twice the batch size outstanding).
    #[arg(long, default_value_t = 4)]
    clients: usize,
    /// Longest wait of the server for a batch to fill, in microseconds.
    #[arg(long, default_value_t = 1000)]
    max_wait_us: u64,
    /// LibTorch intra-op threads (0: LibTorch's default).
    #[arg(long, default_value_t = 0)]
    threads: u16,
}

/// The variants named by a `--variants` list.
fn parse_variants(names: &[String]) -> anyhow::Result<Vec<VariantId>> {
    Ok(names.iter().map(|v| v.parse::<VariantId>()).collect::<Result<Vec<_>, _>>()?)
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.what {
        BenchWhat::Perft { shallower, variants } => bench_perft(shallower, &variants),
        BenchWhat::Nn(args) => bench_nn(args),
        BenchWhat::Selfplay(args) => bench_selfplay(args),
        BenchWhat::Train(args) => bench_train(args),
        BenchWhat::Search(args) => bench_search(args),
    }
}

/// The root selection named by `--root`.
fn parse_root(name: &str) -> anyhow::Result<RootSelection> {
    RootSelection::from_name(name).ok_or_else(|| anyhow::anyhow!("--root '{name}': expected puct or gumbel"))
}

fn bench_search(args: SearchBenchArgs) -> anyhow::Result<ExitCode> {
    let variants = parse_variants(&args.variants)?;
    let config = SearchConfig { root: parse_root(&args.root)?, ..SearchConfig::default() }.for_selfplay();
    anyhow::ensure!((1..=1_000_000).contains(&args.simulations), "--simulations must be between 1 and 1000000");
    anyhow::ensure!(args.seconds > 0.0 && args.seconds <= 600.0, "--seconds must be between 0 and 600");
    let with_captures = SearchConfig { capture_utility: args.capture_utility, ..config };
    with_captures.validate().map_err(|e| anyhow::anyhow!("--capture-utility: {e}"))?;
    println!(
        "{:?} root, {} simulations a search, uniform evaluator, one thread, {:.0} s each",
        config.root, args.simulations, args.seconds
    );
    print!("{:<18} {:>14} {:>14} {:>7} {:>11}", "variant", "simulations/s", "checked sims/s", "ratio", "mean depth");
    let measure_captures = args.capture_utility > 0.0;
    if measure_captures {
        print!(" {:>14} {:>7} {:>13}", "capture sims/s", "ratio", "added us/sim");
    }
    println!();
    let duration = Duration::from_secs_f64(args.seconds);
    for id in variants {
        let games = bench_games(id);
        let rate = measure_search(&games, config, args.simulations, duration);
        print!(
            "{:<18} {:>14.0} {:>14.0} {:>6.1}x {:>11.1}",
            id.name(),
            rate.simulations_per_s,
            rate.checked_per_s,
            rate.simulations_per_s / rate.checked_per_s,
            rate.mean_depth
        );
        if measure_captures {
            let captures = measure_search(&games, with_captures, args.simulations, duration);
            let added = 1e6 / captures.simulations_per_s - 1e6 / rate.simulations_per_s;
            print!(" {:>14.0} {:>6.2}x {:>13.1}", captures.simulations_per_s, captures.simulations_per_s / rate.simulations_per_s, added);
        }
        println!();
    }
    println!("positions: the start, and 30 and 60 seeded random plies in; self-play's exploring search");
    println!("checked: the same searches with each walk down to an evaluated leaf replayed with Game::play");
    println!("(legal moves and outcome at every ply) in place of the unchecked moves and one settling");
    if measure_captures {
        println!("capture: the same searches with capture utility {}; its ratio to simulations/s, and the", args.capture_utility);
        println!("microseconds each simulation gains (the leaves' quiescence searches)");
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_train(args: TrainBenchArgs) -> anyhow::Result<ExitCode> {
    let variants = parse_variants(&args.variants)?;
    let config = args.shape.config()?;
    anyhow::ensure!((1..=65536).contains(&args.batch), "--batch must be between 1 and 65536");
    anyhow::ensure!(args.seconds > 0.0 && args.seconds <= 600.0, "--seconds must be between 0 and 600");
    anyhow::ensure!(args.replay.is_none() || variants.len() == 1, "--replay takes one variant (--variants)");
    let train = TrainConfig { batch_size: args.batch, window_positions: 100_000, ..TrainConfig::default() };
    println!("network {config} on the CPU, batch {}, {} LibTorch threads, {:.0} s each", args.batch, tch::get_num_threads(), args.seconds);
    println!("{:<18} {:>18} {:>18} {:>7}", "variant", "trainer samples/s", "prepared samples/s", "ratio");
    for id in variants {
        // Without --replay: random games in a folder of their own, removed when it goes out of scope.
        let scratch;
        let dir = match &args.replay {
            Some(dir) => dir.as_path(),
            None => {
                scratch = scratch_dir("bench-train")?;
                write_random_games(id, 100, 200, 1, scratch.path())?;
                scratch.path()
            }
        };
        let make = || {
            tch::manual_seed(1);
            Network::new(id, &config, tch::Device::Cpu).expect("a validated shape builds")
        };
        let rate = on_fresh_thread(|| measure_trainer(&make, train, dir, Duration::from_secs_f64(args.seconds)))?;
        println!("{:<18} {:>18.0} {:>18.0} {:>6.1}%", id.name(), rate.trainer, rate.prepared, 100.0 * rate.trainer / rate.prepared);
    }
    println!("trainer: samples drawn from the replay window, encoded, then forward, backward and update;");
    println!("prepared: forward, backward and update on one batch already encoded (same network and batch)");
    Ok(ExitCode::SUCCESS)
}

fn bench_selfplay(args: SelfplayBenchArgs) -> anyhow::Result<ExitCode> {
    let variants = parse_variants(&args.variants)?;
    let root = parse_root(&args.root)?;
    let config = args.shape.config()?;
    anyhow::ensure!((1..=4096).contains(&args.batch), "--batch must be between 1 and 4096");
    anyhow::ensure!(args.seconds > 0.0 && args.seconds <= 600.0, "--seconds must be between 0 and 600");
    let games = args.games.unwrap_or(2 * args.batch).max(1);
    println!("network {config} on the CPU, batch {}, {games} games in flight, {:?} root, {:.0} s each", args.batch, root, args.seconds);
    println!("{:<18} {:>18} {:>14} {:>7} {:>12}", "variant", "self-play evals/s", "raw evals/s", "ratio", "plies/s");
    for id in variants {
        let make = || {
            tch::manual_seed(1);
            Network::new(id, &config, tch::Device::Cpu).expect("a validated shape builds")
        };
        // The variant's replay files go to a folder of its own, removed when it goes out of scope.
        let out = scratch_dir("bench-selfplay")?;
        let rate = measure_selfplay(&make, root, args.batch, games, Duration::from_secs_f64(args.seconds), out.path())?;
        println!(
            "{:<18} {:>18.0} {:>14.0} {:>6.1}% {:>12.1}",
            id.name(),
            rate.selfplay_evals_per_s,
            rate.raw_evals_per_s,
            100.0 * rate.selfplay_evals_per_s / rate.raw_evals_per_s,
            rate.plies_per_s
        );
    }
    println!("self-play: leaves evaluated per second while workers search, encode and play (same network, same batch)");
    Ok(ExitCode::SUCCESS)
}

fn bench_nn(args: NnArgs) -> anyhow::Result<ExitCode> {
    let variants = parse_variants(&args.variants)?;
    let device = args.device.resolve()?;
    let precisions = args.precisions.iter().map(|p| p.parse::<Precision>().map(|p| p.resolve(device))).collect::<Result<Vec<_>, _>>()?;
    for precision in &precisions {
        precision.check(device)?;
    }
    let config = args.shape.config()?;
    anyhow::ensure!(args.batch >= 1, "--batch must be at least 1");
    anyhow::ensure!(args.seconds > 0.0 && args.seconds <= 600.0, "--seconds must be between 0 and 600");
    anyhow::ensure!((1..=100).contains(&args.rounds), "--rounds must be between 1 and 100");
    if args.threads > 0 {
        tch::set_num_threads(args.threads.into());
    }
    let duration = Duration::from_secs_f64(args.seconds);
    let max_wait = Duration::from_micros(args.max_wait_us);
    println!(
        "network {} on {device:?}, batch {}, {} LibTorch threads, {} client threads, median of {} x {:.1} s",
        config,
        args.batch,
        tch::get_num_threads(),
        args.clients,
        args.rounds,
        args.seconds
    );
    println!(
        "{:<18} {:>9} {:>7} {:>14} {:>15} {:>7} {:>11}",
        "variant", "precision", "batch", "raw evals/s", "server evals/s", "ratio", "mean batch"
    );
    for &id in &variants {
        let workload = Arc::new(Workload::new(id, args.batch.max(256), 0x5EED));
        for &precision in &precisions {
            let network = || -> anyhow::Result<Network> {
                tch::manual_seed(1);
                let mut net = Network::new(id, &config, device)?;
                net.set_precision(precision)?;
                Ok(net)
            };
            let (mut raw, mut served, mut batches) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..args.rounds {
                // LibTorch work off the main thread: one OpenMP team alive at a time (see nn::bench).
                raw.push(on_fresh_thread(|| network().map(|net| forward_rate(&net, &workload, args.batch, duration)))?);
                let net = on_fresh_thread(network)?;
                let rate = server_rate(net, &workload, args.batch, max_wait, args.clients, duration)?;
                served.push(rate.evals_per_second);
                batches.push(rate.mean_batch);
            }
            let (raw, served, mean_batch) = (median(raw), median(served), median(batches));
            println!(
                "{:<18} {:>9} {:>7} {:>14.0} {:>15.0} {:>6.1}% {:>11.1}",
                id.name(),
                precision.name(),
                args.batch,
                raw,
                served,
                100.0 * served / raw,
                mean_batch
            );
        }
    }
    println!("raw: forward passes on one prepared batch; server: positions answered (masked-softmax priors,");
    println!("WDL, moves left) by the inference server, inputs copied in and outputs copied out included");
    Ok(ExitCode::SUCCESS)
}

/// A new empty folder under the system's temporary folder, named after `purpose`; it is
/// removed with everything in it when the returned handle is dropped.
fn scratch_dir(purpose: &str) -> anyhow::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix(&format!("shogi-zero-{purpose}-")).tempdir().context("cannot create a temporary folder")
}

/// The median of some measurements (the upper one of the middle two).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn bench_perft(shallower: u32, variants: &[String]) -> anyhow::Result<ExitCode> {
    let variants = parse_variants(variants)?;
    println!(
        "{:<24} {:>5} {:>14} {:>9} {:>12} {:>14} {:>9} {:>14}",
        "position", "depth", "nodes made", "seconds", "nodes/s", "perft", "seconds", "perft/s"
    );
    let (mut all_nodes, mut all_seconds) = (0u64, 0f64);
    for b in BENCH_POSITIONS.iter().filter(|b| variants.is_empty() || variants.contains(&b.variant)) {
        let pos = b.position();
        let depth = b.depth.saturating_sub(shallower).max(1);
        let started = Instant::now();
        let nodes = make_and_generate(&pos, depth);
        let walk_seconds = started.elapsed().as_secs_f64();
        let started = Instant::now();
        let leaves = perft(&pos, depth);
        let perft_seconds = started.elapsed().as_secs_f64();
        println!(
            "{:<24} {:>5} {:>14} {:>9.3} {:>12.0} {:>14} {:>9.3} {:>14.0}",
            b.name,
            depth,
            nodes,
            walk_seconds,
            nodes as f64 / walk_seconds,
            leaves,
            perft_seconds,
            leaves as f64 / perft_seconds
        );
        all_nodes += nodes;
        all_seconds += walk_seconds;
    }
    println!("nodes made: every move played and the moves of every position reached generated, leaves included");
    println!("perft: leaves counted, the last ply counted from the move list");
    println!("total: {all_nodes} nodes made in {all_seconds:.3} s = {:.0} nodes/s", all_nodes as f64 / all_seconds);
    Ok(ExitCode::SUCCESS)
}

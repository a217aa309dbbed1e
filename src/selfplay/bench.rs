//! The self-play benchmark: network evaluations per second during self-play next to the raw
//! batched forward throughput of the same network, measured in the same run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::runner::{self, Counters, Evaluators, SelfplayRun};
use super::SelfplayConfig;
use crate::mcts::{Model, RootSelection, SearchConfig};
use crate::nn::bench::{forward_rate, Workload};
use crate::nn::{InferenceConfig, Network};

/// One measurement: evaluations per second of self-play, and the raw forward rate.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SelfplayRate {
    pub selfplay_evals_per_s: f64,
    pub raw_evals_per_s: f64,
    /// Positions (plies) played per second.
    pub plies_per_s: f64,
}

/// Runs self-play with `network` for `duration` (after a warm-up of a quarter of it) in a
/// folder of temporary replay files, with `games` games in flight and batches of `batch`,
/// then measures raw forward passes of batch `batch` for as long. `make_network` builds the
/// same network again for the raw measurement.
pub fn measure(
    make_network: &(dyn Fn() -> Network + Sync),
    root: RootSelection,
    batch: usize,
    games: usize,
    duration: Duration,
    out: &std::path::Path,
) -> Result<SelfplayRate, runner::SelfplayError> {
    let network = crate::nn::device::on_fresh_thread(make_network);
    let variant = network.variant();
    let inference = InferenceConfig { device: Default::default(), precision: network.precision(), batch_size: batch, max_wait_us: 2000 };
    let model = Model::serve(network, &inference, "bench".to_string());
    let run = SelfplayRun {
        variant,
        search: SearchConfig { root, ..SearchConfig::default() },
        selfplay: SelfplayConfig { games_per_worker: games, games_per_file: 1_000_000, ..SelfplayConfig::default() },
        games: None,
        seed: 1,
        out: out.to_path_buf(),
    };
    let stop = AtomicBool::new(false);
    let counters = Counters::default();
    let warm_up = duration / 4;
    let (evaluations, plies) = std::thread::scope(|scope| {
        let played =
            scope.spawn(|| runner::run(Evaluators::Shared(&model), &run, &stop, &ProgressBar::hidden(), &counters, &mut |_| Ok(())));
        std::thread::sleep(warm_up);
        let (e0, p0, t0) = (counters.evaluations.load(Ordering::Relaxed), counters.plies.load(Ordering::Relaxed), Instant::now());
        std::thread::sleep(duration);
        let seconds = t0.elapsed().as_secs_f64();
        let (e1, p1) = (counters.evaluations.load(Ordering::Relaxed), counters.plies.load(Ordering::Relaxed));
        stop.store(true, Ordering::Relaxed);
        played.join().expect("self-play thread panicked").map(|_| ((e1 - e0) as f64 / seconds, (p1 - p0) as f64 / seconds))
    })?;
    drop(model);
    let workload = Workload::new(variant, batch.max(256), 0x5EED);
    let raw = crate::nn::device::on_fresh_thread(|| forward_rate(&make_network(), &workload, batch, duration));
    Ok(SelfplayRate { selfplay_evals_per_s: evaluations, raw_evals_per_s: raw, plies_per_s: plies })
}

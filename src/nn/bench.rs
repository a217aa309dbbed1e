//! Measurements shared by `shogi-zero bench nn` and `benches/nn.rs`: a workload of real
//! positions, the raw forward throughput of a network, and the throughput of the same network
//! behind the [`InferenceServer`] with enough clients to keep it busy.
//!
//! Networks are built and raw passes run with [`on_fresh_thread`](super::device::on_fresh_thread), so that raw and served
//! figures are taken alike, with one OpenMP team alive.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use tch::{Device, Tensor};

use super::encoding::Encoder;
use super::network::Network;
use super::policy_map::PolicyMap;
use super::server::{InferenceServer, ServerError};
use crate::rules::{Game, GameRules, Position, VariantId};
use crate::splitmix::SplitMix64;

/// Encoded positions from seeded random games, with their legal moves' policy indices.
pub struct Workload {
    /// The games, each at the position encoded.
    pub games: Vec<Game>,
    /// The encoded positions, one after another.
    pub planes: Vec<f32>,
    /// The policy indices of each position's legal moves.
    pub legal: Vec<Vec<u32>>,
    /// Floats per encoded position.
    pub input_len: usize,
}

impl Workload {
    /// `count` positions of `variant` taken every few plies from seeded random games.
    pub fn new(variant: VariantId, count: usize, seed: u64) -> Workload {
        let v = variant.variant();
        let (encoder, map) = (Encoder::new(v), PolicyMap::new(v));
        let mut rng = SplitMix64::new(seed);
        let mut next = move |n: usize| (rng.next_u64() % n as u64) as usize;
        let new_game = || Game::new(Position::start(variant), GameRules::default_for(v));
        let mut games = Vec::with_capacity(count);
        let mut game = new_game();
        while games.len() < count {
            let moves = game.legal_moves();
            if moves.is_empty() || game.ply() > 200 {
                game = new_game();
                continue;
            }
            if next(5) == 0 {
                games.push(game.clone());
            }
            game.play(moves[next(moves.len())]).expect("legal moves play");
        }
        let input_len = encoder.len();
        let mut planes = vec![0.0; count * input_len];
        let mut legal = Vec::with_capacity(count);
        for (game, out) in games.iter().zip(planes.chunks_mut(input_len)) {
            encoder.encode_game(game, out);
            let mut indices = Vec::new();
            map.indices_into(&game.legal_moves(), game.position().side_to_move(), &mut indices)
                .expect("every legal move has a policy index");
            legal.push(indices);
        }
        Workload { games, planes, legal, input_len }
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// Whether there are no positions.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// The encoded position `i`.
    pub fn position(&self, i: usize) -> &[f32] {
        &self.planes[i * self.input_len..(i + 1) * self.input_len]
    }

    /// The first `batch` positions as an input tensor `[batch, planes, n, n]`.
    pub fn input(&self, net: &Network, batch: usize) -> Tensor {
        let layout = net.layout();
        let n = layout.board_size as i64;
        Tensor::from_slice(&self.planes[..batch * self.input_len]).view([batch as i64, layout.input_planes as i64, n, n])
    }
}

/// Waits for the work queued on the network's device to finish.
fn synchronize(device: Device) {
    if let Device::Cuda(i) = device {
        tch::Cuda::synchronize(i as i64);
    }
}

/// Positions per second of forward passes of `net` on batches of `batch` positions, measured
/// for about `duration` after a short warm-up.
pub fn forward_rate(net: &Network, workload: &Workload, batch: usize, duration: Duration) -> f64 {
    let _guard = tch::no_grad_guard();
    let input = workload.input(net, batch).to_device(net.device());
    for _ in 0..2 {
        net.forward(&input, false);
    }
    synchronize(net.device());
    let started = Instant::now();
    let mut passes = 0;
    while started.elapsed() < duration {
        net.forward(&input, false);
        passes += 1;
    }
    synchronize(net.device());
    (passes * batch) as f64 / started.elapsed().as_secs_f64()
}

/// What [`server_rate`] measured.
#[derive(Copy, Clone, Debug)]
pub struct ServerRate {
    /// Positions answered per second.
    pub evals_per_second: f64,
    /// Mean positions per forward pass.
    pub mean_batch: f64,
}

/// Positions per second answered by an [`InferenceServer`] running `net` with batches of at
/// most `batch` positions, under `clients` client threads that together keep twice `batch`
/// requests outstanding, measured for about `duration` after a short warm-up.
pub fn server_rate(
    net: Network,
    workload: &Arc<Workload>,
    batch: usize,
    max_wait: Duration,
    clients: usize,
    duration: Duration,
) -> Result<ServerRate, ServerError> {
    let server = InferenceServer::start(net, batch, max_wait);
    let stop = Arc::new(AtomicBool::new(false));
    let clients = clients.max(1);
    let per_client = (2 * batch).div_ceil(clients);
    let threads: Vec<_> = (0..clients)
        .map(|c| {
            let mut client = server.client();
            let (workload, stop) = (workload.clone(), stop.clone());
            thread::spawn(move || -> Result<(), ServerError> {
                let mut k = c;
                let mut submit = |client: &mut super::ServerClient| {
                    k = (k + clients) % workload.len();
                    client.submit(k as u64, workload.position(k), &workload.legal[k])
                };
                for _ in 0..per_client {
                    submit(&mut client)?;
                }
                while !stop.load(Ordering::Relaxed) {
                    // Take every answer that has arrived, then send as many new requests.
                    client.receive()?;
                    let mut answered = 1;
                    while client.try_receive()?.is_some() {
                        answered += 1;
                    }
                    for _ in 0..answered {
                        submit(&mut client)?;
                    }
                }
                while client.outstanding() > 0 {
                    client.receive()?;
                }
                Ok(())
            })
        })
        .collect();
    thread::sleep(duration / 5 + Duration::from_millis(200));
    let window = next_batch(&server).and_then(|start| {
        thread::sleep(duration);
        Ok((start, next_batch(&server)?))
    });
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("benchmark client thread")?;
    }
    let (((p0, b0), t0), ((p1, b1), t1)) = window?;
    Ok(ServerRate { evals_per_second: (p1 - p0) as f64 / (t1 - t0).as_secs_f64(), mean_batch: (p1 - p0) as f64 / (b1 - b0).max(1) as f64 })
}

/// Waits for the server to finish a batch; returns its counts and the time right after, so
/// that measurement windows hold whole batches. Gives up after a minute without a batch (the
/// clients have failed).
fn next_batch(server: &InferenceServer) -> Result<((u64, u64), Instant), ServerError> {
    let (before, started) = (server.counts(), Instant::now());
    while started.elapsed() < Duration::from_secs(60) {
        thread::sleep(Duration::from_micros(20));
        let now = server.counts();
        if now != before {
            return Ok((now, Instant::now()));
        }
    }
    Err(ServerError::Stopped)
}

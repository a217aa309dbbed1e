//! The batching inference server. One thread owns the network; clients (self-play games,
//! search threads) submit encoded positions with the policy indices of their legal moves
//! through a crossbeam channel and receive priors over those moves plus the value. The server
//! gathers up to `max_batch` positions, waiting at most `max_wait` once it holds one, runs one
//! forward pass and answers each client. A newer network can be swapped in while clients run:
//! it evaluates every request submitted after [`InferenceServer::swap`] returned.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver, Select, Sender, TryRecvError};

use super::network::{Evaluation, Inference, IoLayout, Network};

/// Why a request could not be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerError {
    #[error("the inference server has stopped")]
    Stopped,
    #[error("encoded position of {found} floats, the network takes {expected}")]
    InputSize { expected: usize, found: usize },
    #[error("policy index {index} is outside the policy map (size {size})")]
    PolicyIndex { index: u32, size: usize },
    #[error("a position without legal moves cannot be evaluated")]
    NoLegalMoves,
    #[error("no request is waiting for an answer")]
    NothingOutstanding,
    #[error("the new network takes or gives other data ({found}) than the served one ({expected})")]
    Incompatible { expected: Box<IoLayout>, found: Box<IoLayout> },
}

/// A request on its way to the server; its buffers travel back with the reply for reuse.
struct Job {
    tag: u64,
    planes: Vec<f32>,
    legal: Vec<u32>,
    reply: Sender<Reply>,
}

/// The answer to a [`Job`].
struct Reply {
    tag: u64,
    evaluation: Evaluation,
    planes: Vec<f32>,
    legal: Vec<u32>,
}

enum Control {
    Swap(Box<Network>),
    Stop,
}

/// Counters of the work done, for benchmarks and logs.
#[derive(Debug, Default)]
struct Counters {
    positions: AtomicU64,
    batches: AtomicU64,
}

/// The server: start it with a network, hand out [`ServerClient`]s, swap networks, stop it (or
/// drop it).
pub struct InferenceServer {
    jobs: Sender<Job>,
    control: Sender<Control>,
    /// Disconnects when the server thread ends, waking clients that wait for a reply.
    alive: Receiver<()>,
    layout: IoLayout,
    input_len: usize,
    counters: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
}

impl InferenceServer {
    /// Starts the server thread with `network`, batches of at most `max_batch` positions and
    /// a wait of at most `max_wait` for a batch to fill. For the best CPU throughput, build
    /// networks on threads that end afterwards or run no other LibTorch work: every thread that
    /// ran parallel LibTorch work keeps an OpenMP team alive, and oversubscribed teams sleep
    /// between operations instead of spinning (see [`super::bench`]).
    pub fn start(network: Network, max_batch: usize, max_wait: Duration) -> InferenceServer {
        let (jobs, job_rx) = crossbeam_channel::unbounded();
        let (control, control_rx) = crossbeam_channel::unbounded();
        let (alive_tx, alive) = crossbeam_channel::bounded::<()>(0);
        let counters = Arc::new(Counters::default());
        let layout = network.layout().clone();
        let input_len = network.input_len();
        let worker =
            Worker { network, jobs: job_rx, control: control_rx, max_batch: max_batch.max(1), max_wait, counters: counters.clone() };
        let thread = std::thread::Builder::new()
            .name("inference".to_string())
            .spawn(move || {
                let _alive = alive_tx;
                worker.run();
            })
            .expect("spawn the inference thread");
        InferenceServer { jobs, control, alive, layout, input_len, counters, thread: Some(thread) }
    }

    /// A new client.
    pub fn client(&self) -> ServerClient {
        let (reply, replies) = crossbeam_channel::unbounded();
        ServerClient {
            jobs: self.jobs.clone(),
            reply,
            replies,
            alive: self.alive.clone(),
            input_len: self.input_len,
            policy_size: self.layout.policy_size,
            spare: Vec::new(),
            outstanding: 0,
        }
    }

    /// Replaces the network from the next batch on. The new network must have the same
    /// inputs and outputs (variant, encoding, policy map); its shape may differ.
    pub fn swap(&self, network: Network) -> Result<(), ServerError> {
        if *network.layout() != self.layout {
            return Err(ServerError::Incompatible { expected: Box::new(self.layout.clone()), found: Box::new(network.layout().clone()) });
        }
        self.control.send(Control::Swap(Box::new(network))).map_err(|_| ServerError::Stopped)
    }

    /// Positions evaluated and forward passes run so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.counters.positions.load(Ordering::Relaxed), self.counters.batches.load(Ordering::Relaxed))
    }

    /// Stops the server after the batch in progress; waiting clients get [`ServerError::Stopped`].
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        let _ = self.control.send(Control::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for InferenceServer {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// The server thread's state.
struct Worker {
    network: Network,
    jobs: Receiver<Job>,
    control: Receiver<Control>,
    max_batch: usize,
    max_wait: Duration,
    counters: Arc<Counters>,
}

impl Worker {
    fn run(mut self) {
        let mut batch: Vec<Job> = Vec::with_capacity(self.max_batch);
        let mut input: Vec<f32> = Vec::with_capacity(self.max_batch * self.network.input_len());
        let mut out = Inference::default();
        loop {
            select! {
                recv(self.control) -> message => match message {
                    Ok(Control::Swap(network)) => self.network = *network,
                    Ok(Control::Stop) | Err(_) => return,
                },
                recv(self.jobs) -> job => match job {
                    Ok(job) => batch.push(job),
                    Err(_) => return,
                },
            }
            if batch.is_empty() {
                continue;
            }
            let deadline = Instant::now() + self.max_wait;
            while batch.len() < self.max_batch {
                let next = match self.jobs.try_recv() {
                    Ok(job) => Some(job),
                    Err(TryRecvError::Empty) => self.jobs.recv_deadline(deadline).ok(),
                    Err(TryRecvError::Disconnected) => None,
                };
                match next {
                    Some(job) => batch.push(job),
                    None => break,
                }
            }
            // Swaps sent before the batch's last request apply to it; a stop ends the loop after it.
            let mut stopping = false;
            for message in self.control.try_iter() {
                match message {
                    Control::Swap(network) => self.network = *network,
                    Control::Stop => stopping = true,
                }
            }
            input.clear();
            for job in &batch {
                input.extend_from_slice(&job.planes);
            }
            let legal: Vec<&[u32]> = batch.iter().map(|job| job.legal.as_slice()).collect();
            self.network.infer_into(&input, &legal, &mut out);
            self.counters.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
            self.counters.batches.fetch_add(1, Ordering::Relaxed);
            for (i, job) in batch.drain(..).enumerate() {
                let evaluation = out.evaluation(i);
                // A client that has gone away no longer wants its answer.
                let _ = job.reply.send(Reply { tag: job.tag, evaluation, planes: job.planes, legal: job.legal });
            }
            if stopping {
                return;
            }
        }
    }
}

/// A client of the server, used by one thread. It may have many requests outstanding (one
/// thread running many games): [`ServerClient::submit`] them with tags, then
/// [`ServerClient::receive`] the answers in the order they come.
pub struct ServerClient {
    jobs: Sender<Job>,
    reply: Sender<Reply>,
    replies: Receiver<Reply>,
    alive: Receiver<()>,
    input_len: usize,
    policy_size: usize,
    /// Buffers returned with replies, reused by later requests.
    spare: Vec<(Vec<f32>, Vec<u32>)>,
    outstanding: usize,
}

impl ServerClient {
    /// Sends the encoded position `planes` whose legal moves have the policy indices `legal`;
    /// the answer comes back from [`ServerClient::receive`] with `tag`.
    pub fn submit(&mut self, tag: u64, planes: &[f32], legal: &[u32]) -> Result<(), ServerError> {
        if planes.len() != self.input_len {
            return Err(ServerError::InputSize { expected: self.input_len, found: planes.len() });
        }
        if legal.is_empty() {
            return Err(ServerError::NoLegalMoves);
        }
        if let Some(&index) = legal.iter().find(|&&i| i as usize >= self.policy_size) {
            return Err(ServerError::PolicyIndex { index, size: self.policy_size });
        }
        let (mut p, mut l) = self.spare.pop().unwrap_or_default();
        p.clear();
        p.extend_from_slice(planes);
        l.clear();
        l.extend_from_slice(legal);
        self.jobs.send(Job { tag, planes: p, legal: l, reply: self.reply.clone() }).map_err(|_| ServerError::Stopped)?;
        self.outstanding += 1;
        Ok(())
    }

    /// Waits for the answer to one of the submitted requests: its tag and evaluation.
    pub fn receive(&mut self) -> Result<(u64, Evaluation), ServerError> {
        Self::receive_any(std::slice::from_mut(self)).map(|(_, tag, evaluation)| (tag, evaluation))
    }

    /// Takes a reply in: its buffers go back to the spare pool.
    fn accept(&mut self, reply: Reply) -> (u64, Evaluation) {
        self.outstanding -= 1;
        self.spare.push((reply.planes, reply.legal));
        (reply.tag, reply.evaluation)
    }

    /// The answer to one of the submitted requests if one has arrived, without waiting.
    pub fn try_receive(&mut self) -> Result<Option<(u64, Evaluation)>, ServerError> {
        match self.replies.try_recv() {
            Ok(reply) => Ok(Some(self.accept(reply))),
            Err(_) if self.outstanding > 0 && matches!(self.alive.try_recv(), Err(TryRecvError::Disconnected)) => Err(ServerError::Stopped),
            Err(_) => Ok(None),
        }
    }

    /// Waits for an answer to a request of any of `clients` (of one server or of several):
    /// the index of the client it came to, its tag and the evaluation.
    pub fn receive_any(clients: &mut [ServerClient]) -> Result<(usize, u64, Evaluation), ServerError> {
        for (index, client) in clients.iter_mut().enumerate() {
            if let Some((tag, evaluation)) = client.try_receive()? {
                return Ok((index, tag, evaluation));
            }
        }
        let waiting: Vec<usize> = (0..clients.len()).filter(|&i| clients[i].outstanding > 0).collect();
        if waiting.is_empty() {
            return Err(ServerError::NothingOutstanding);
        }
        // Each waiting client's replies, and its server's end (which wakes this thread).
        let (index, reply) = {
            let mut select = Select::new();
            for &i in &waiting {
                select.recv(&clients[i].replies);
                select.recv(&clients[i].alive);
            }
            let operation = select.select();
            let picked = operation.index();
            let client = &clients[waiting[picked / 2]];
            let reply = if picked % 2 == 0 {
                operation.recv(&client.replies).map_err(|_| ServerError::Stopped)
            } else {
                let _ = operation.recv(&client.alive);
                client.replies.try_recv().map_err(|_| ServerError::Stopped)
            };
            (waiting[picked / 2], reply?)
        };
        let (tag, evaluation) = clients[index].accept(reply);
        Ok((index, tag, evaluation))
    }

    /// Evaluates one position and waits for the answer (with no other request outstanding).
    pub fn evaluate(&mut self, planes: &[f32], legal: &[u32]) -> Result<Evaluation, ServerError> {
        self.submit(0, planes, legal)?;
        self.receive().map(|(_, evaluation)| evaluation)
    }

    /// Requests submitted and not yet received.
    pub fn outstanding(&self) -> usize {
        self.outstanding
    }
}

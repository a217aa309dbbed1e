//! An engine thinking on a thread of its own, so that a protocol keeps reading commands (`stop`,
//! `isready`, `ping`) while it searches. One search runs at a time; its progress reports and its
//! result arrive on a channel that the protocol's main loop ([`serve`]) waits on beside its input
//! and the search's deadline.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{at, never, select, unbounded, Receiver, RecvError, Sender};

use super::model;
use crate::mcts::{EvaluatorError, Limits, Model, ModelError, SearchConfig, SearchInfo};
use crate::nn::{DeviceChoice, ServerError};
use crate::rules::{Game, VariantId};

/// What the search thread reports.
#[derive(Debug)]
pub enum Event {
    /// The running search's progress, about twice a second.
    Progress(SearchInfo),
    /// The search ended (its limits were reached or it was stopped).
    Finished(Result<SearchInfo, EvaluatorError>),
}

/// Limits for a search that the protocol stops (on time, or on `stop`) unless it reaches
/// `simulations` first; without a count it runs to the engine's cap for time-limited searches.
pub fn open_limits(simulations: Option<u32>) -> Limits {
    Limits { simulations, time: Some(Duration::MAX) }
}

enum Job {
    Think(Box<Game>, Limits),
    Configure(SearchConfig),
    Clear,
}

/// A loaded model and an engine over it, searching on its own thread.
pub struct Searcher {
    jobs: Option<Sender<Job>>,
    events: Receiver<Event>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    busy: bool,
    /// Kept alive while the engine uses its inference server; dropped after the thread ends.
    model: Model,
}

impl Searcher {
    /// Loads the checkpoint at `path` for `variant` on `device` and starts the search thread.
    pub fn load(path: &Path, variant: VariantId, device: DeviceChoice, seed: u64) -> Result<Searcher, ModelError> {
        let model = model::load(path, Some(variant), device)?;
        Ok(Searcher::new(model, seed))
    }

    /// An engine over `model` on a thread of its own.
    pub fn new(model: Model, seed: u64) -> Searcher {
        let mut engine = model::engine(&model, SearchConfig::for_play(), seed);
        let (job_sender, jobs) = unbounded::<Job>();
        let (events_sender, events) = unbounded();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            for job in jobs {
                match job {
                    Job::Think(game, limits) => {
                        let mut report = |info: &SearchInfo| {
                            let _ = events_sender.send(Event::Progress(info.clone()));
                        };
                        let result = engine.think(&game, &limits, &flag, &mut report);
                        if events_sender.send(Event::Finished(result)).is_err() {
                            break;
                        }
                    }
                    Job::Configure(config) => engine.set_config(config),
                    Job::Clear => engine.clear(),
                }
            }
        });
        Searcher { jobs: Some(job_sender), events, stop, thread: Some(thread), busy: false, model }
    }

    /// The model's name (checkpoint path and step).
    pub fn model_id(&self) -> String {
        self.model.id()
    }

    /// Starts searching `game` within `limits`, first waiting for a search still running (which
    /// is stopped and whose result is dropped).
    pub fn start(&mut self, game: Game, limits: Limits) {
        self.abort();
        self.stop.store(false, Ordering::SeqCst);
        self.busy = self.send(Job::Think(Box::new(game), limits));
    }

    /// Searches with `config` from the next search on (a player's default until then). Waits
    /// for nothing: it happens after a running search.
    pub fn configure(&self, config: SearchConfig) {
        self.send(Job::Configure(config));
    }

    /// Asks the running search to end soon; its result still arrives as [`Event::Finished`].
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a search is running (its [`Event::Finished`] not yet taken).
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// The channel of search events, to wait on beside other channels; pass what it gives to
    /// [`Searcher::accept`].
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// Takes in what the event channel gave: the event, noting the end of the search. A search
    /// thread that died reads as a search that failed.
    pub fn accept(&mut self, received: Result<Event, RecvError>) -> Event {
        let event = received.unwrap_or(Event::Finished(Err(EvaluatorError::Server(ServerError::Stopped))));
        if matches!(event, Event::Finished(_)) {
            self.busy = false;
        }
        event
    }

    /// Waits for the running search to finish and returns its result (None when none runs).
    pub fn wait(&mut self) -> Option<Result<SearchInfo, EvaluatorError>> {
        while self.busy {
            if let Event::Finished(result) = self.accept(self.events.recv()) {
                return Some(result);
            }
        }
        None
    }

    /// Stops the running search, if any, and drops its result.
    pub fn abort(&mut self) {
        self.stop();
        self.wait();
    }

    /// Forgets the search tree (a new game). Waits for nothing: it happens after a running search.
    pub fn clear(&mut self) {
        self.send(Job::Clear);
    }

    /// Sends a job; false when the thread is gone.
    fn send(&self, job: Job) -> bool {
        self.jobs.as_ref().is_some_and(|jobs| jobs.send(job).is_ok())
    }
}

impl Drop for Searcher {
    fn drop(&mut self) {
        self.stop();
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An engine protocol as its main loop ([`serve`]) sees it.
pub trait CommandHandler {
    /// Handles a line of input; false ends the loop (`quit`).
    fn line(&mut self, line: &str) -> io::Result<bool>;
    /// The searcher whose events to wait for, once one is loaded.
    fn searcher(&mut self) -> Option<&mut Searcher>;
    /// Handles a search event.
    fn event(&mut self, event: Event) -> io::Result<()>;
    /// When the running search must stop, if it has a deadline.
    fn deadline(&self) -> Option<Instant>;
    /// The deadline has passed.
    fn timeout(&mut self);
}

/// Runs `protocol` on the lines of `input` until it stops or the input ends, passing it search
/// events and deadlines as they come.
pub fn serve(protocol: &mut dyn CommandHandler, input: &Receiver<String>) -> io::Result<()> {
    loop {
        let events = protocol.searcher().map_or_else(never, |s| s.events().clone());
        let timer = protocol.deadline().map_or_else(never, at);
        select! {
            recv(input) -> line => match line {
                Ok(line) => {
                    if !protocol.line(&line)? {
                        return Ok(());
                    }
                }
                Err(_) => return Ok(()),
            },
            recv(events) -> event => {
                if let Some(searcher) = protocol.searcher() {
                    let event = searcher.accept(event);
                    protocol.event(event)?;
                }
            },
            recv(timer) -> _ => protocol.timeout(),
        }
    }
}

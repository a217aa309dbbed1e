//! Outside engines: the child process spoken to line by line with deadlines, the factory of
//! USI and xboard players, and the per-move limits they share.
//!
//! A reader thread ([`crate::lines`]) forwards the engine's standard output line by line over a
//! channel, so every wait has a deadline and a silent or dead engine never hangs a match. The engine's standard
//! error is discarded. Dropping a [`Process`] sends `quit`, gives the engine a moment to exit and
//! then kills it, so no engine outlives its player.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError};

use super::player::{Budget, EngineProtocol, EngineSpec, Player, PlayerError, PlayerFactory, DEFAULT_ENGINE_MOVETIME};
use super::{usi_client, xboard_client};
use crate::lines::lines;
use crate::rules::VariantId;

/// How long a quitting engine may take before it is killed.
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// A running engine process.
pub(crate) struct Process {
    /// The program's name, for messages.
    engine: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Process {
    /// Starts `program` with `args`, its standard input and output piped.
    pub(crate) fn spawn(engine: &str, program: &Path, args: &[String]) -> Result<Process, PlayerError> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| PlayerError::Spawn { command: program.display().to_string(), error })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            let error = std::io::Error::other("no pipe to the engine");
            return Err(PlayerError::Spawn { command: program.display().to_string(), error });
        };
        let lines = lines(stdout, format!("output of {engine}"));
        Ok(Process { engine: engine.to_string(), child, stdin, lines })
    }

    /// The program's name.
    pub(crate) fn engine(&self) -> &str {
        &self.engine
    }

    /// Sends one line; `what` says what the engine was to do, for the error if it is gone.
    pub(crate) fn send(&mut self, line: &str, what: &str) -> Result<(), PlayerError> {
        let written = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        written.map_err(|_| self.exited(what))
    }

    /// Reads lines until `accept` takes one (returning `Some`), the engine exits or `limit` has
    /// passed since `started`. `what` names the awaited answer for errors ("answer 'usi' with 'usiok'").
    pub(crate) fn read_until<T>(
        &mut self,
        started: Instant,
        limit: Duration,
        what: &str,
        mut accept: impl FnMut(&str) -> Result<Option<T>, PlayerError>,
    ) -> Result<T, PlayerError> {
        let deadline = started + limit;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(wait) {
                Ok(line) => {
                    if let Some(value) = accept(line.trim())? {
                        return Ok(value);
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err(PlayerError::Timeout { engine: self.engine.clone(), what: what.to_string(), ms: limit.as_millis() });
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited(what)),
            }
        }
    }

    /// The error for an engine that went away, with its exit status when it has one.
    fn exited(&mut self, what: &str) -> PlayerError {
        let until = Instant::now() + QUIT_GRACE;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status.to_string(),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => break "output closed".to_string(),
            }
        };
        PlayerError::Exited { engine: self.engine.clone(), what: what.to_string(), status }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let until = Instant::now() + QUIT_GRACE;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Finds a program: a path as given, or a bare name on `PATH` and then in `/usr/games`.
pub(crate) fn resolve(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    let path_dirs = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    path_dirs.into_iter().chain([PathBuf::from("/usr/games")]).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// What bounds an engine's search on one move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    Time(Duration),
    Depth(u32),
    Nodes(u64),
}

impl Limit {
    /// The limit for one move: the spec's own (movetime, then depth, then nodes), else the
    /// match budget (nodes only where the protocol has them), else [`DEFAULT_ENGINE_MOVETIME`].
    pub(crate) fn of(spec: &EngineSpec, budget: Budget) -> Limit {
        match (spec.movetime, spec.depth, spec.nodes, budget) {
            (Some(t), _, _, _) => Limit::Time(t),
            (None, Some(d), _, _) => Limit::Depth(d),
            (None, None, Some(n), _) => Limit::Nodes(n),
            (None, None, None, Budget::Time(t)) => Limit::Time(t),
            (None, None, None, Budget::Sims(n)) if spec.protocol == EngineProtocol::Usi => Limit::Nodes(n as u64),
            _ => Limit::Time(DEFAULT_ENGINE_MOVETIME),
        }
    }

    /// How long to wait for the move: the move time plus the spec's timeout as slack.
    pub(crate) fn wait(self, spec: &EngineSpec) -> Duration {
        match self {
            Limit::Time(t) => t + spec.timeout,
            Limit::Depth(_) | Limit::Nodes(_) => spec.timeout,
        }
    }
}

/// Makes USI or xboard players of one engine spec.
pub struct EngineFactory {
    name: String,
    spec: EngineSpec,
    program: PathBuf,
    variant: VariantId,
}

impl EngineFactory {
    /// A factory for `spec` in games of `variant`; fails when the program cannot be found or
    /// (xboard) the variant has no xboard name.
    pub fn new(name: String, spec: EngineSpec, variant: VariantId) -> Result<EngineFactory, PlayerError> {
        let program = resolve(&spec.command[0]).ok_or_else(|| PlayerError::NotFound { command: spec.command[0].clone() })?;
        if spec.protocol == EngineProtocol::Xboard {
            xboard_client::variant_name(&spec, variant)?;
        }
        Ok(EngineFactory { name, spec, program, variant })
    }
}

impl PlayerFactory for EngineFactory {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_player(&self, _seed: u64) -> Result<Box<dyn Player>, PlayerError> {
        let process = Process::spawn(&self.spec.program_name(), &self.program, &self.spec.command[1..])?;
        Ok(match self.spec.protocol {
            EngineProtocol::Usi => Box::new(usi_client::UsiPlayer::start(self.name.clone(), self.spec.clone(), process, self.variant)?),
            EngineProtocol::Xboard => {
                Box::new(xboard_client::XboardPlayer::start(self.name.clone(), self.spec.clone(), process, self.variant)?)
            }
        })
    }
}

//! Helpers for the protocol tests (tests/protocol_*.rs): tiny random checkpoints, and
//! `shogi-zero` run as a child process whose output lines are read with timeouts.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{unbounded, Receiver, RecvTimeoutError};
use shogi_zero::nn::checkpoint;
use shogi_zero::nn::{Network, NetworkConfig};
use shogi_zero::rules::VariantId;

/// Held by every test that runs `shogi-zero`: the tests of one file run one at a time, so that
/// time limits are measured on a machine that is not running the other tests' engines.
pub fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A folder of its own for this test process under cargo's scratch folder for integration
/// tests (`target/tmp`), so that nothing is left in the system's temporary folder.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("protocol-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    dir
}

/// A run folder holding a tiny random network for `variant` (one block of 8 channels).
pub fn tiny_checkpoint(variant: VariantId) -> PathBuf {
    static CREATING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = CREATING.lock().unwrap_or_else(|e| e.into_inner());
    let dir = temp_dir(&format!("model-{}", variant.name()));
    if !dir.join("latest").is_file() {
        let network = Network::new(variant, &NetworkConfig::scaled(1, 8), tch::Device::Cpu).expect("tiny network");
        checkpoint::save(&network, &dir, 1).expect("save the tiny checkpoint");
    }
    dir
}

/// `shogi-zero` with piped standard input and output; standard error is collected.
pub struct Process {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Every line read so far.
    pub transcript: Vec<String>,
}

impl Process {
    /// Starts `shogi-zero args...` in `cwd` (the current folder when `None`).
    pub fn start(args: &[&str], cwd: Option<&Path>) -> Process {
        let mut command = Command::new(env!("CARGO_BIN_EXE_shogi-zero"));
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(dir) = cwd {
            command.current_dir(dir);
        }
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start shogi-zero {args:?}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = unbounded();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut child_stderr = child.stderr.take().expect("piped stderr");
        let collected = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = child_stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                collected.lock().unwrap().push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        let stdin = child.stdin.take();
        Process { child, stdin, lines, stderr, transcript: Vec::new() }
    }

    /// Sends a line (a newline is added).
    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// Sends raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("standard input is open");
        stdin.write_all(bytes).and_then(|()| stdin.flush()).expect("write to shogi-zero");
    }

    /// Closes standard input (the end of input).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Reads lines until one satisfies `done`; returns the lines read, that one last. Panics
    /// after `timeout` or when the output ends.
    pub fn read_until(&mut self, timeout: Duration, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut read = Vec::new();
        loop {
            match self.lines.recv_deadline(deadline) {
                Ok(line) => {
                    self.transcript.push(line.clone());
                    let finished = done(&line);
                    read.push(line);
                    if finished {
                        return read;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out after {timeout:?}; read {read:?}; stderr:\n{}", self.stderr())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("output ended; read {read:?}; stderr:\n{}", self.stderr())
                }
            }
        }
    }

    /// Reads until a line starting with `prefix`; returns that line.
    pub fn expect(&mut self, prefix: &str, timeout: Duration) -> String {
        self.read_until(timeout, |l| l.starts_with(prefix)).pop().expect("at least the matching line")
    }

    /// The lines that arrive within `wait`.
    pub fn drain(&mut self, wait: Duration) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut read = Vec::new();
        while let Ok(line) = self.lines.recv_deadline(deadline) {
            self.transcript.push(line.clone());
            read.push(line);
        }
        read
    }

    /// What was written to standard error so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits for the process to exit, at most `timeout`.
    pub fn wait(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("shogi-zero did not exit within {timeout:?}; stderr:\n{}", self.stderr());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `count` lines of 1 to 6 words drawn from `words` by a fixed-seed generator: command words
/// mixed with arguments of every kind, for throwing at an engine.
pub fn random_lines(words: &[&str], count: usize, seed: u64) -> Vec<String> {
    let mut state = seed;
    let mut next = move |n: usize| {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    (0..count).map(|_| (0..1 + next(6)).map(|_| words[next(words.len())]).collect::<Vec<_>>().join(" ")).collect()
}

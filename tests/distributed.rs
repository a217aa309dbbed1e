//! The distributed mode end to end, with the real binary and a `file://` store (a shared
//! filesystem) or `memory://`: a trainer and self-play workers as separate processes, kills at
//! chosen moments, a corrupt game batch, and stores that cannot be used.
//! `scripts/test-distributed.sh` runs the same roles against a real S3 server (SeaweedFS).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use shogi_zero::replay;
use shogi_zero::store::layout::{GameName, LatestRecord};

const BIN: &str = env!("CARGO_BIN_EXE_shogi-zero");

/// A scratch folder with a store folder and a small, fast run configuration.
struct Setup {
    dir: tempfile::TempDir,
}

impl Setup {
    /// `total_steps` steps, a checkpoint every 10.
    fn new(total_steps: u64) -> Setup {
        let dir = tempfile::tempdir().expect("a scratch folder");
        std::fs::create_dir(dir.path().join("store")).unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        // The tiny recipe for shogi, every key in one file.
        let recipe = std::fs::read_to_string(root.join("configs/recipes/tiny.toml")).unwrap();
        let text = format!("variant = \"shogi\"\n{recipe}");
        let mut config = String::new();
        for line in text.lines() {
            let replaced = match line.split(" = ").next().unwrap_or_default() {
                "ply_cap" => "ply_cap = 40".to_string(),
                "games_per_worker" => "games_per_worker = 8".to_string(),
                "games_per_file" => "games_per_file = 2".to_string(),
                "batch_size" if config.contains("[train]") => "batch_size = 32".to_string(),
                "min_window_positions" => "min_window_positions = 32".to_string(),
                "checkpoint_every" => "checkpoint_every = 10".to_string(),
                "total_steps" => format!("total_steps = {total_steps}"),
                "max_minutes" => "max_minutes = 5.0".to_string(),
                _ => line.to_string(),
            };
            config.push_str(&replaced);
            config.push('\n');
        }
        std::fs::write(dir.path().join("run.toml"), config).unwrap();
        Setup { dir }
    }

    /// Adds `text` (tables the recipe does not have) at the end of the run configuration.
    fn append(&self, text: &str) {
        let mut file = std::fs::OpenOptions::new().append(true).open(self.path("run.toml")).unwrap();
        file.write_all(format!("\n{text}").as_bytes()).unwrap();
    }

    /// Sets `key` (the first line that gives it) to `value` in the run configuration.
    fn set(&self, key: &str, value: &str) {
        let path = self.path("run.toml");
        let text = std::fs::read_to_string(&path).unwrap();
        let prefix = format!("{key} = ");
        let at = text.lines().position(|line| line.starts_with(&prefix)).unwrap_or_else(|| panic!("no {key} in the recipe"));
        let lines: Vec<String> =
            text.lines().enumerate().map(|(i, line)| if i == at { format!("{prefix}{value}") } else { line.to_string() }).collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn store_dir(&self) -> PathBuf {
        self.path("store")
    }

    fn url(&self) -> String {
        format!("file://{}", self.store_dir().display())
    }

    /// `train --trainer-only` against the store, with its local copy in `models`.
    fn trainer(&self, models: &str) -> Command {
        let mut command = Command::new(BIN);
        command.args(["train", "--variant", "shogi", "--trainer-only", "--store", &self.url(), "--models"]);
        command.arg(self.path(models)).arg("--config").arg(self.path("run.toml"));
        command
    }

    /// `selfplay --store` as worker `id`, with its own cache.
    fn worker(&self, id: &str) -> Command {
        let mut command = Command::new(BIN);
        command.args(["selfplay", "--variant", "shogi", "--store", &self.url(), "--worker-id", id, "--cache"]);
        command.arg(self.path(&format!("cache-{id}")));
        command
    }

    fn latest(&self) -> Option<LatestRecord> {
        let bytes = std::fs::read(self.store_dir().join("latest.json")).ok()?;
        Some(serde_json::from_slice(&bytes).expect("latest.json parses"))
    }

    /// The game objects' names (`games/m<step>/<file name>`), sorted; the workers' records
    /// left out.
    fn game_objects(&self) -> Vec<String> {
        let store = self.store_dir();
        let mut objects: Vec<String> = walk(&store.join("games"))
            .into_iter()
            .map(|path| path.strip_prefix(&store).unwrap().to_string_lossy().into_owned())
            // A name with '#' is an upload the file store has not finished yet.
            .filter(|object| !object.starts_with("games/workers/") && !object.contains('#'))
            .collect();
        objects.sort();
        objects
    }

    /// Waits until `done` holds while the processes in `watched` (each with its role) keep
    /// running, failing after `limit` or as soon as one exits; the failure shows what they
    /// printed.
    fn wait_for(&self, what: &str, limit: Duration, watched: &mut [(&str, &mut Running)], mut done: impl FnMut(&Setup) -> bool) {
        let start = Instant::now();
        while !done(self) {
            for (role, process) in watched.iter_mut() {
                process.assert_running(role);
            }
            if start.elapsed() >= limit {
                let printed: Vec<String> =
                    watched.iter().map(|(role, process)| format!("--- the {role} printed:\n{}", process.printed())).collect();
                panic!("timed out waiting for {what}\n{}", printed.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

/// The file names in a folder, sorted (none when it is missing).
fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

/// A child process killed and reaped when dropped, so that no test leaves one behind. Its
/// output is read as it comes (a pipe nobody reads would stop the process once full) and kept
/// for the test's messages.
struct Running {
    child: Child,
    stdout: Collected,
    stderr: Collected,
}

/// What a process wrote to one pipe, read by a thread of its own.
struct Collected {
    bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Collected {
    fn read(mut pipe: impl std::io::Read + Send + 'static) -> Collected {
        let bytes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = bytes.clone();
        let reader = std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        });
        Collected { bytes, reader: Some(reader) }
    }

    /// Everything written, once the pipe has closed.
    fn all(&mut self) -> Vec<u8> {
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        self.bytes.lock().unwrap().clone()
    }

    /// What was written so far.
    fn so_far(&self) -> String {
        String::from_utf8_lossy(&self.bytes.lock().unwrap()).into_owned()
    }
}

impl Running {
    fn start(mut command: Command) -> Running {
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the binary starts");
        let stdout = Collected::read(child.stdout.take().unwrap());
        let stderr = Collected::read(child.stderr.take().unwrap());
        Running { child, stdout, stderr }
    }

    /// Kills the process at once (SIGKILL), as a preempted job or a lost machine would end.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Sends SIGTERM, as a scheduler draining a node does, and waits for the process to exit.
    fn terminate(self, limit: Duration) -> Output {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        assert!(status.success());
        self.finish(limit)
    }

    /// Waits for the process to exit, failing after `limit`.
    fn finish(mut self, limit: Duration) -> Output {
        let start = Instant::now();
        while self.child.try_wait().unwrap().is_none() {
            assert!(start.elapsed() < limit, "the process did not finish in {limit:?}; it printed:\n{}", self.printed());
            std::thread::sleep(Duration::from_millis(200));
        }
        let status = self.child.wait().unwrap();
        Output { status, stdout: self.stdout.all(), stderr: self.stderr.all() }
    }

    /// What the process has printed so far, standard output then standard error.
    fn printed(&self) -> String {
        format!("{}{}", self.stdout.so_far(), self.stderr.so_far())
    }

    /// Fails the test, with what the process printed, when it has already exited.
    fn assert_running(&mut self, role: &str) {
        if let Some(status) = self.child.try_wait().unwrap() {
            panic!("the {role} exited early ({status}); it printed:\n{}", self.printed());
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn metrics_steps(store: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(store.join("metrics/metrics.jsonl")).unwrap_or_default();
    text.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["step"].as_u64().unwrap()).collect()
}

/// Every game object is complete, valid through the rules, and named by its content.
fn check_game_objects(setup: &Setup) -> usize {
    let mut hashes = HashSet::new();
    let mut games = 0;
    for object in setup.game_objects() {
        let name = object.rsplit('/').next().unwrap();
        let parsed = GameName::parse(name).unwrap_or_else(|| panic!("{object} is not a game object name"));
        assert_eq!(parsed.object(), object, "a batch outside its model's folder");
        let path = setup.store_dir().join(&object);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(format!("{:016x}", shogi_zero::fnv::hash(&bytes)), parsed.hash, "{name}: content does not match its name");
        assert!(hashes.insert(parsed.hash.clone()), "{name}: the same batch twice");
        games += replay::read_file(&path).unwrap_or_else(|e| panic!("{e}")).games.len();
    }
    games
}

#[test]
fn a_trainer_and_a_worker_publish_two_checkpoints_through_a_file_store() {
    let setup = Setup::new(20);
    let trainer = Running::start(setup.trainer("models"));
    let worker = Running::start(setup.worker("w1"));
    let output = trainer.finish(Duration::from_secs(240));
    assert!(output.status.success(), "{}", text(&output));
    worker.kill();
    let latest = setup.latest().expect("latest.json");
    assert_eq!(latest.step, 20);
    let folders = list(&setup.store_dir().join("checkpoints"));
    assert_eq!(folders.len(), 3, "{folders:?}");
    for (folder, step) in folders.iter().zip([0u64, 10, 20]) {
        assert!(folder.starts_with(&format!("step-{step:010}-")), "{folder}");
        let files = list(&setup.store_dir().join("checkpoints").join(folder));
        assert_eq!(files.len(), 4, "{folder}: {files:?}");
    }
    assert_eq!(latest.checkpoint, format!("checkpoints/{}", folders[2]));
    assert!(check_game_objects(&setup) > 0);
    assert_eq!(metrics_steps(&setup.store_dir()), vec![10, 20]);
    assert!(list(&setup.store_dir().join("rejected")).is_empty());
    // The worker kept only its cache: the batches it played are all in the store.
    let spool = setup.path("cache-w1");
    let leftovers: Vec<_> = walk(&spool).into_iter().filter(|p| p.extension().is_some_and(|e| e == "replay")).collect();
    assert!(leftovers.len() <= 1, "{leftovers:?}");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// A run in the store with its first checkpoint, and no trainer left running.
fn published_run(setup: &Setup) {
    let mut trainer = Running::start(setup.trainer("models"));
    setup.wait_for("the first checkpoint", Duration::from_secs(120), &mut [("trainer", &mut trainer)], |s| s.latest().is_some());
    trainer.kill();
}

#[test]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs the failpoints feature (scripts/test.sh turns it on)")]
fn a_worker_killed_during_an_upload_uploads_the_batch_when_it_starts_again() {
    let setup = Setup::new(100);
    published_run(&setup);
    let mut command = setup.worker("w1");
    command.env("FAILPOINTS", "upload-games=sleep(120000)");
    let mut worker = Running::start(command);
    let spool = setup.path("cache-w1");
    let named = |s: &Setup| {
        let _ = s;
        walk(&spool).into_iter().find(|p| p.file_name().and_then(|n| n.to_str()).and_then(GameName::parse).is_some())
    };
    setup.wait_for("a batch in the middle of its upload", Duration::from_secs(120), &mut [("worker", &mut worker)], |s| named(s).is_some());
    let batch = named(&setup).unwrap();
    worker.kill();
    assert!(setup.game_objects().is_empty(), "nothing reached the store");
    let bytes = std::fs::read(&batch).unwrap();
    let output = setup.worker("w1").args(["--games", "1"]).output().unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let name = GameName::parse(batch.file_name().unwrap().to_str().unwrap()).unwrap().object();
    let objects = setup.game_objects();
    assert!(objects.contains(&name), "{name} not in {objects:?}");
    assert_eq!(std::fs::read(setup.store_dir().join(&name)).unwrap(), bytes);
    assert!(!batch.exists(), "the spooled batch is removed once uploaded");
    // The one game asked for, in a batch of its own.
    assert_eq!(objects.len(), 2, "{objects:?}");
    check_game_objects(&setup);
}

#[test]
fn a_trainer_killed_on_a_lost_machine_resumes_from_the_store() {
    let setup = Setup::new(30);
    // Long enough for the second start to come within it on a busy machine.
    let lease_seconds = 20;
    setup.append(&format!("[store]\nlease_seconds = {lease_seconds}\n"));
    let mut worker = Running::start(setup.worker("w1"));
    let mut trainer = Running::start(setup.trainer("models"));
    let watched = &mut [("trainer", &mut trainer), ("worker", &mut worker)];
    setup.wait_for("a checkpoint after step 0", Duration::from_secs(300), watched, |s| s.latest().is_some_and(|l| l.step >= 10));
    trainer.kill();
    let killed = Instant::now();
    let before = setup.latest().unwrap().step;
    // A new machine: nothing of the first trainer's local copy is left. While the killed
    // trainer's lease lasts, the new one refuses to start, naming it.
    std::fs::remove_dir_all(setup.path("models")).unwrap();
    let refused = setup.trainer("models-again").output().unwrap();
    let printed = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{printed}");
    let holder = setup.path("models/shogi/main");
    assert!(printed.contains("the run is held by") && printed.contains(&holder.display().to_string()), "{printed}");
    assert!(killed.elapsed() < Duration::from_secs(lease_seconds), "the check came too late to test the lease");
    std::thread::sleep(Duration::from_secs(lease_seconds).saturating_sub(killed.elapsed()) + Duration::from_secs(1));
    let output = Running::start(setup.trainer("models-again")).finish(Duration::from_secs(240));
    worker.kill();
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains(&format!("resumed: steps {before} to 30")), "{printed}");
    let latest = setup.latest().unwrap();
    assert_eq!((latest.step, latest.epoch), (30, 2));
    let steps = metrics_steps(&setup.store_dir());
    assert_eq!(steps.last(), Some(&30));
    assert!(steps.windows(2).all(|w| w[0] < w[1]), "metrics steps go up: {steps:?}");
    assert!(steps.contains(&before), "{steps:?}");
}

#[test]
fn a_trainer_another_has_taken_over_from_stops_without_writing_and_a_third_is_refused() {
    let setup = Setup::new(10_000);
    let mut worker = Running::start(setup.worker("w1"));
    let mut trainer = Running::start(setup.trainer("models"));
    let watched = &mut [("trainer", &mut trainer), ("worker", &mut worker)];
    setup.wait_for("a checkpoint after step 0", Duration::from_secs(300), watched, |s| s.latest().is_some_and(|l| l.step >= 10));
    assert_eq!(setup.latest().unwrap().epoch, 1);
    // Another trainer takes the run over (as one would once the lease had expired).
    let usurper = r#"{"id": "elsewhere:/runs/other", "host": "elsewhere", "pid": 7, "lease_seconds": 120}"#;
    std::fs::write(setup.store_dir().join("lease/epoch-0000000002.json"), usurper).unwrap();
    let fenced_at = setup.latest().unwrap().step;
    let output = trainer.finish(Duration::from_secs(120));
    worker.kill();
    let printed = text(&output);
    assert!(!output.status.success(), "{printed}");
    assert!(printed.contains("fenced off") && printed.contains("elsewhere"), "{printed}");
    // At most the checkpoint it was publishing when the lease moved.
    let latest = setup.latest().unwrap();
    assert!(latest.step <= fenced_at + 10 && latest.epoch == 1, "{latest:?} after {fenced_at}");
    // The new holder's lease is fresh: a third trainer is refused, naming it.
    let output = setup.trainer("models-third").output().unwrap();
    let printed = text(&output);
    assert_eq!(output.status.code(), Some(2), "{printed}");
    assert!(printed.contains("the run is held by the trainer on elsewhere (pid 7, run folder /runs/other) (epoch 2)"), "{printed}");
}

#[test]
fn a_trainer_frozen_after_its_last_check_cannot_move_latest_once_another_has_taken_over() {
    let setup = Setup::new(10_000);
    let lease_seconds = 5;
    setup.append(&format!("[store]\nlease_seconds = {lease_seconds}\n"));
    let mut worker = Running::start(setup.worker("w1"));
    // The first trainer freezes (as a machine cut off from the network might) for its second
    // checkpoint, after its last check of the lease and the checkpoint's upload, just before
    // it writes latest.json.
    let mut first = setup.trainer("models");
    first.env("FAILPOINTS", "publish-latest=1*off->sleep(40000)");
    let mut first = Running::start(first);
    let uploaded = |s: &Setup| list(&s.store_dir().join("checkpoints")).iter().any(|name| name.starts_with("step-0000000010-"));
    let watched = &mut [("first trainer", &mut first), ("worker", &mut worker)];
    setup.wait_for("the upload of the checkpoint of step 10", Duration::from_secs(300), watched, uploaded);
    assert_eq!(setup.latest().map(|l| (l.step, l.epoch)), Some((0, 1)), "latest.json moved past the failpoint");
    let frozen = list(&setup.store_dir().join("checkpoints")).into_iter().find(|name| name.starts_with("step-0000000010-")).unwrap();
    // Its lease runs out while it is frozen, and a second trainer takes the run over.
    std::thread::sleep(Duration::from_secs(lease_seconds + 2));
    let mut second = Running::start(setup.trainer("models-second"));
    let watched = &mut [("first trainer", &mut first), ("second trainer", &mut second), ("worker", &mut worker)];
    setup.wait_for("the second trainer's claim on latest.json", Duration::from_secs(60), watched, |s| {
        s.latest().is_some_and(|l| l.epoch == 2)
    });
    // The claim came while the first was frozen, before its write.
    first.assert_running("first trainer");
    // The first wakes and writes: refused by the store, and it stops, naming the new holder.
    // Until it has exited, latest.json never goes back to its epoch.
    let start = Instant::now();
    while first.child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(120) {
        let latest = setup.latest().unwrap();
        assert_eq!(latest.epoch, 2, "the frozen trainer moved latest.json: {latest:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = first.finish(Duration::from_secs(1));
    let printed = text(&output);
    assert!(!output.status.success(), "{printed}");
    let holder = setup.path("models-second/shogi/main");
    assert!(printed.contains("fenced off") && printed.contains(&holder.display().to_string()), "{printed}");
    // latest.json never named the frozen trainer's checkpoint; the second trainer goes on
    // and publishes under its epoch.
    let watched = &mut [("second trainer", &mut second), ("worker", &mut worker)];
    setup.wait_for("the second trainer's checkpoint", Duration::from_secs(300), watched, |s| s.latest().is_some_and(|l| l.step >= 10));
    let latest = setup.latest().unwrap();
    assert_eq!(latest.epoch, 2, "{latest:?}");
    assert_ne!(latest.checkpoint, format!("checkpoints/{frozen}"), "the frozen trainer's checkpoint was published");
}

/// A batch of worker `worker` with `text`, put straight into the store; returns its name.
fn put_batch(setup: &Setup, worker: &str, text: &[u8]) -> GameName {
    put_batch_of(setup, worker, 0, text)
}

/// [`put_batch`] of the model of `model_step`.
fn put_batch_of(setup: &Setup, worker: &str, model_step: u64, text: &[u8]) -> GameName {
    let name =
        GameName { created_ms: 1, worker: worker.to_string(), model_step, pid: 1, sequence: 1, hash: "0123456789abcdef".to_string() };
    let path = setup.store_dir().join(name.object());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    name
}

#[test]
fn broken_oversized_and_foreign_batches_are_set_aside_and_training_goes_on() {
    let setup = Setup::new(10);
    setup.append("[store]\nmax_batch_mib = 1\nmax_line_kib = 64\n");
    published_run(&setup);
    let header = |ply_cap: u32| {
        format!(
            "{{\"format\":\"shogi-zero-replay\",\"version\":1,\"variant\":\"shogi\",\"ply_cap\":{ply_cap},\"declaration\":true,\"games\":1,\"created_unix_ms\":1}}\n"
        )
    };
    let mut long_line = header(40).into_bytes();
    long_line.extend(std::iter::repeat_n(b'x', 65 * 1024));
    long_line.push(b'\n');
    let other_start = format!("{}{{\"start\":\"4k4/9/9/9/9/9/9/9/4K4 b - 1\",\"moves\":[]}}\n", header(40));
    let batches = [
        (put_batch(&setup, "broken", b"{\"format\":\"shogi-zero-replay\",\"version\":1,\"variant\":\"shogi\"\nnot json\n"), "bad header"),
        (put_batch(&setup, "huge", &vec![b'{'; 1024 * 1024 + 1]), "over [store] max_batch_mib = 1 MiB"),
        (put_batch(&setup, "long", &long_line), "over [store] max_line_kib = 64"),
        (put_batch(&setup, "capped", header(999).as_bytes()), "ply cap 999"),
        (put_batch(&setup, "elsewhere", other_start.as_bytes()), "not from a start position of this run"),
    ];
    let worker = Running::start(setup.worker("w1"));
    let output = Running::start(setup.trainer("models")).finish(Duration::from_secs(240));
    worker.kill();
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    for (name, reason) in &batches {
        let line = printed.lines().find(|line| line.contains(&format!("set aside rejected/{}", name.file_name())));
        assert!(line.is_some_and(|line| line.contains(reason)), "{}: no line with '{reason}' in\n{printed}", name.worker);
    }
    // Every batch is kept as it was: the oversized one is copied whole without being read.
    for (name, _) in &batches {
        let original = std::fs::read(setup.store_dir().join(name.object())).unwrap();
        assert_eq!(std::fs::read(setup.store_dir().join("rejected").join(name.file_name())).unwrap(), original, "{}", name.worker);
    }
    assert_eq!(list(&setup.store_dir().join("rejected")).len(), batches.len());
    let metrics = std::fs::read_to_string(setup.store_dir().join("metrics/metrics.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = metrics.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.iter().map(|l| l["rejected_files"].as_u64().unwrap()).sum::<u64>(), batches.len() as u64);
    for (name, _) in &batches {
        let count: u64 = lines.iter().filter_map(|l| l["rejected_by_worker"][&name.worker].as_u64()).sum();
        assert_eq!(count, 1, "{}: {metrics}", name.worker);
    }
    assert_eq!(setup.latest().unwrap().step, 10);
}

#[test]
fn retention_deletes_old_models_games_and_optimiser_states_and_nothing_else() {
    let setup = Setup::new(30);
    let config = std::fs::read_to_string(setup.path("run.toml")).unwrap().replace("[train]\n", "[train]\nmax_game_age = 1\n");
    std::fs::write(setup.path("run.toml"), config).unwrap();
    setup.append("[store]\nkeep_games_models = 1\nkeep_optimizer_states = 1\n");
    // Batches of the models of steps 0, 10 and 20, all there from the start (and all set
    // aside, as they hold no games, so that their copies in rejected/ are pruned too). At the
    // last checkpoint, step 30, retention keeps the models of step 20 and later. (The worker's
    // own batches are not checked: it may upload one of an old model after the last prune.)
    let old: Vec<GameName> = [0, 10].iter().map(|&step| put_batch_of(&setup, &format!("old{step}"), step, b"junk\n")).collect();
    let kept = put_batch_of(&setup, "kept20", 20, b"junk\n");
    let worker = Running::start(setup.worker("w1"));
    let output = Running::start(setup.trainer("models")).finish(Duration::from_secs(300));
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains("older optimiser states from the store"), "{printed}");
    let _ = worker.finish(Duration::from_secs(60));
    assert_eq!(setup.latest().unwrap().step, 30);
    // Every checkpoint keeps its weights, metadata and trainer state; only the newest its
    // optimiser state.
    let folders = list(&setup.store_dir().join("checkpoints"));
    assert_eq!(folders.len(), 4, "{folders:?}");
    for (folder, step) in folders.iter().zip([0u64, 10, 20, 30]) {
        let files = list(&setup.store_dir().join("checkpoints").join(folder));
        let expected = if step == 30 { 4 } else { 3 };
        assert_eq!(files.len(), expected, "{folder}: {files:?}");
        assert_eq!(files.iter().any(|f| f.ends_with(".optimizer.safetensors")), step == 30, "{folder}: {files:?}");
    }
    let rejected = setup.store_dir().join("rejected");
    for name in &old {
        assert!(!setup.store_dir().join(name.object()).exists(), "{} is still in games/", name.worker);
        assert!(!rejected.join(name.file_name()).exists(), "{} is still in rejected/", name.worker);
    }
    assert!(setup.store_dir().join(kept.object()).is_file(), "the kept model's batch was deleted");
    assert!(rejected.join(kept.file_name()).is_file(), "the kept model's batch set aside was deleted");
    for kept in ["config.toml", "latest.json", "metrics/metrics.jsonl", "games/workers/w1.json"] {
        assert!(setup.store_dir().join(kept).is_file(), "{kept} was deleted");
    }
}

#[test]
fn both_roles_in_one_process_against_a_memory_store() {
    let setup = Setup::new(10);
    let output = Command::new(BIN)
        .args(["train", "--variant", "shogi", "--store", "memory://", "--models"])
        .arg(setup.path("models"))
        .arg("--config")
        .arg(setup.path("run.toml"))
        .output()
        .unwrap();
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains("trained: steps 0 to 10"), "{printed}");
    let run = setup.path("models/shogi/main");
    assert!(run.join("step-0000000010.json").is_file());
    let replay = list(&run).into_iter().find(|n| n.starts_with("replay-")).expect("the store's games folder");
    assert!(!list(&run.join(replay)).is_empty());
}

#[test]
fn stores_that_cannot_be_used_give_clear_errors() {
    let setup = Setup::new(10);
    let fails = |args: &[&str], expected: &str| {
        let output = Running::start({
            let mut command = Command::new(BIN);
            command.args(args);
            command
        })
        .finish(Duration::from_secs(60));
        let printed = text(&output);
        assert!(!output.status.success(), "{args:?} succeeded: {printed}");
        assert!(printed.contains(expected), "{args:?}: '{expected}' not in: {printed}");
        assert!(!printed.contains("panicked"), "{printed}");
    };
    let cache = setup.path("cache").display().to_string();
    // A worker waits for a trainer to create the run, here for about a second.
    let worker = |url: &str| ["selfplay", "--variant", "shogi", "--minutes", "0.02", "--cache", &cache, "--store", url].map(String::from);
    let missing = format!("file://{}/nowhere", setup.dir.path().display());
    fails(&worker(&missing).each_ref().map(String::as_str), "no such folder");
    let url = setup.url();
    let args = worker(&url);
    let args = args.each_ref().map(String::as_str);
    fails(&args, "holds no training run");
    std::fs::write(setup.store_dir().join("config.toml"), "variant = \"shogi\"\n[network\n").unwrap();
    fails(&args, "config.toml is malformed");
    fails(&worker("not a url").each_ref().map(String::as_str), "is not a store URL");
    fails(&["train", "--variant", "shogi", "--trainer-only"], "--store");
    fails(&["selfplay", "--variant", "shogi", "--store", &url, "--model", "models/x"], "cannot be used with");
}

#[test]
fn cpu_workers_serve_a_run_whose_configuration_says_cuda_and_stop_when_it_ends() {
    let setup = Setup::new(10);
    setup.set("device", "\"cuda\"");
    if !tch::Cuda::is_available() {
        // The trainer follows the configuration unless told otherwise, and says how.
        let output = Running::start(setup.trainer("models")).finish(Duration::from_secs(60));
        let printed = text(&output);
        assert!(!output.status.success(), "{printed}");
        assert!(printed.contains("cannot run on cuda") && printed.contains("--device cpu"), "{printed}");
        assert!(setup.latest().is_none());
    }
    let worker = Running::start(setup.worker("w1"));
    let mut trainer = setup.trainer("models");
    trainer.args(["--device", "cpu", "--precision", "f32"]);
    let output = Running::start(trainer).finish(Duration::from_secs(240));
    assert!(output.status.success(), "{}", text(&output));
    // The run keeps its own device: the worker played on its CPU by its own default.
    let stored = std::fs::read_to_string(setup.store_dir().join("config.toml")).unwrap();
    assert!(stored.contains("device = \"cuda"), "{stored}");
    let latest = setup.latest().unwrap();
    assert!(latest.step == 10 && latest.run_ended, "{latest:?}");
    // Told by latest.json that the run has ended, the worker stops with success.
    let output = worker.finish(Duration::from_secs(60));
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains("cpu") && printed.contains("the run has ended"), "{printed}");
    assert!(check_game_objects(&setup) > 0);
    // And one started later stops at once.
    let output = setup.worker("w2").output().unwrap();
    assert!(output.status.success() && text(&output).contains("the run has ended"), "{}", text(&output));
}

#[test]
fn a_signal_before_the_end_exits_143_and_the_same_command_resumes() {
    let setup = Setup::new(20);
    setup.set("max_minutes", "30.0");
    let mut worker = Running::start(setup.worker("w1"));
    let mut trainer = Running::start(setup.trainer("models"));
    let watched = &mut [("trainer", &mut trainer), ("worker", &mut worker)];
    setup.wait_for("a checkpoint after step 0", Duration::from_secs(300), watched, |s| s.latest().is_some_and(|l| l.step >= 10));
    let output = trainer.terminate(Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(143), "{}", text(&output));
    assert!(!setup.latest().unwrap().run_ended);
    setup.wait_for("a game batch", Duration::from_secs(120), &mut [("worker", &mut worker)], |s| !s.game_objects().is_empty());
    let output = worker.terminate(Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(143), "{}", text(&output));
    // A requeued job runs the same command again.
    let worker = Running::start(setup.worker("w1"));
    let output = Running::start(setup.trainer("models")).finish(Duration::from_secs(240));
    assert!(output.status.success(), "{}", text(&output));
    assert!(text(&output).contains("resumed: steps"), "{}", text(&output));
    assert!(worker.finish(Duration::from_secs(60)).status.success());
}

/// Milliseconds since 1970 by this machine's clock.
fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64
}

#[test]
#[cfg_attr(not(feature = "failpoints"), ignore = "needs the failpoints feature (scripts/test.sh turns it on)")]
fn workers_with_clocks_an_hour_off_are_trained_on_and_a_batch_named_in_the_future_is_set_aside() {
    let setup = Setup::new(20);
    published_run(&setup);
    // A batch named two hours ahead, as a broken worker would: the restarted trainer sets it
    // aside rather than wait for its time.
    let future = GameName {
        created_ms: now_ms() + 2 * 3600 * 1000,
        worker: "future".to_string(),
        model_step: 0,
        pid: 1,
        sequence: 1,
        hash: "0123456789abcdef".to_string(),
    };
    let path = setup.store_dir().join(future.object());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "from the future\n").unwrap();
    let worker = |id: &str, skew_ms: i64| {
        let mut command = setup.worker(id);
        command.env("FAILPOINTS", format!("clock-skew-ms=return({skew_ms})"));
        Running::start(command)
    };
    let started = now_ms();
    let mut fast = worker("fast", 3600 * 1000);
    let mut slow = worker("slow", -3600 * 1000);
    // Both workers' first batches are in the store before the trainer starts, so that on a
    // busy machine one worker cannot supply every game the run needs.
    let uploaded = |s: &Setup, id: &str| {
        s.game_objects().iter().any(|object| GameName::parse(object.rsplit('/').next().unwrap()).is_some_and(|name| name.worker == id))
    };
    setup.wait_for(
        "a batch from each worker",
        Duration::from_secs(180),
        &mut [("fast worker", &mut fast), ("slow worker", &mut slow)],
        |s| uploaded(s, "fast") && uploaded(s, "slow"),
    );
    let output = Running::start(setup.trainer("models")).finish(Duration::from_secs(300));
    let printed = text(&output);
    assert!(output.status.success(), "{printed}");
    assert!(printed.contains(&format!("set aside rejected/{}: named", future.file_name())), "{printed}");
    assert_eq!(list(&setup.store_dir().join("rejected")), vec![future.file_name()]);
    for (worker, direction) in [(fast, "ahead of"), (slow, "behind")] {
        let output = worker.finish(Duration::from_secs(60));
        let printed = text(&output);
        assert!(output.status.success(), "{printed}");
        assert!(printed.contains(&format!("clock is 3600.0 s {direction} the store's")), "{printed}");
    }
    // Every batch named by the store's clock, and every one the trainer saw trained on.
    let replay = setup.path("models/shogi/main");
    let replay = replay.join(list(&replay).into_iter().find(|n| n.starts_with("replay-")).unwrap());
    let trained = list(&replay);
    for id in ["fast", "slow"] {
        let names: Vec<GameName> = setup
            .game_objects()
            .iter()
            .filter_map(|object| GameName::parse(object.rsplit('/').next().unwrap()))
            .filter(|name| name.worker == id)
            .collect();
        assert!(!names.is_empty(), "no batch from worker {id}");
        for name in &names {
            assert!(
                name.created_ms + 60_000 > started && name.created_ms < now_ms() + 60_000,
                "{name:?} is not named by the store's clock"
            );
        }
        assert!(names.iter().any(|name| trained.contains(&name.file_name())), "no batch of worker {id} trained on: {trained:?}");
    }
}

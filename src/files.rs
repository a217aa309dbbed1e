//! Writing a file so that no reader ever sees half of it: the bytes go to a temporary file in
//! the same folder, are synced, and the temporary file is renamed into place.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Writes `bytes` to `path` through a hidden temporary file ([`temp_path`]) in the same
/// folder and a rename; the temporary file is removed if anything fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temp_path(path, "tmp");
    let written = fs::File::create(&temp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let result = written.and_then(|()| fs::rename(&temp, path));
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A hidden name beside `path` for a file being written, ending in `.<extension>`:
/// `.<name>.<unique>.<extension>`, unique to this write among every process of every host that
/// shares the folder (a process id alone is not: two hosts, or two containers, reuse them).
pub fn temp_path(path: &Path, extension: &str) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let host = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let unique = crate::fnv::hash(format!("{host}:{}:{nanos}", std::process::id()).as_bytes());
    let write = WRITES.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{unique:016x}-{write}.{extension}"))
}

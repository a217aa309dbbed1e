//! Writing a file so that no reader ever sees half of it: the bytes go to a temporary file in
//! the same folder, are synced, and the temporary file is renamed into place.

use std::fs;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a hidden temporary file (`.<name>.<pid>.tmp`) in the same
/// folder and a rename; the temporary file is removed if anything fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
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

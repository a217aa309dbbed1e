//! The run's configuration in the store: the trainer writes it once when it creates the run
//! (with the openings file beside it, when the configuration names one), and every worker and
//! a resumed trainer read it from there, so that the whole run plays and trains by one recipe.

use std::path::{Path, PathBuf};

use super::layout;
use super::{Created, Store, StoreError};
use crate::config::RunConfig;

/// Writes `config` as the run's configuration unless the store has one; returns the store's
/// configuration (as read back by [`fetch`] into `folder`) and whether it was this one.
pub fn publish(store: &Store, config: &RunConfig, folder: &Path) -> Result<(RunConfig, Created), StoreError> {
    let mut stored = config.clone();
    if let Some(path) = &config.selfplay.openings {
        let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("openings.txt").to_string();
        let bytes = std::fs::read(path).map_err(|e| StoreError::Local(format!("{}: {e}", path.display())))?;
        store.put_new(&format!("{}/{file_name}", layout::OPENINGS), bytes)?;
        stored.selfplay.openings = Some(PathBuf::from(layout::OPENINGS).join(file_name));
    }
    let created = store.put_new(layout::CONFIG, crate::config::to_toml(&stored).into_bytes())?;
    Ok((fetch(store, folder)?, created))
}

/// Reads the run's configuration (and its openings file) into `folder` and loads it from there.
pub fn fetch(store: &Store, folder: &Path) -> Result<RunConfig, StoreError> {
    let local = |e: String| StoreError::Local(format!("{}: {e}", folder.display()));
    let text =
        store.get(layout::CONFIG)?.ok_or_else(|| StoreError::NoRun { url: store.url().to_string(), name: layout::CONFIG.to_string() })?;
    let malformed = |message: String| StoreError::Malformed { url: store.url().to_string(), name: layout::CONFIG.to_string(), message };
    let table: toml::Table =
        std::str::from_utf8(&text).map_err(|e| malformed(e.to_string()))?.parse().map_err(|e: toml::de::Error| malformed(e.to_string()))?;
    std::fs::create_dir_all(folder.join(layout::OPENINGS)).map_err(|e| local(e.to_string()))?;
    let openings = table.get("selfplay").and_then(|t| t.get("openings")).and_then(|o| o.as_str());
    if let Some(name) = openings {
        let file_name = name.strip_prefix(&format!("{}/", layout::OPENINGS)).filter(|n| !n.contains(['/', '\\']) && !n.starts_with('.'));
        let Some(file_name) = file_name else {
            return Err(malformed(format!("openings '{name}' is not a file of the store's {} folder", layout::OPENINGS)));
        };
        super::checkpoints::fetch_file(
            store,
            &format!("{}/{file_name}", layout::OPENINGS),
            &folder.join(layout::OPENINGS).join(file_name),
        )?;
    }
    let path = folder.join(layout::CONFIG);
    crate::files::write_atomic(&path, &text).map_err(|e| local(e.to_string()))?;
    RunConfig::load(&path).map_err(|e| malformed(e.to_string()))
}

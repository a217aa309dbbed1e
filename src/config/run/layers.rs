//! A configuration file and its bases. A file may name another with `base = "<path>"`, relative
//! to its own folder; its tables are merged key by key over the base's, a key here replacing the
//! base's, and the base may have a base of its own. The merged document keeps the position of
//! every key and value in the file it comes from, so that an error names that file, its line and
//! the key.

use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::ConfigError;

/// The key that names a file's base.
const BASE_KEY: &str = "base";

/// One file of the chain.
struct Layer {
    path: PathBuf,
    text: String,
}

impl Layer {
    fn folder(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }

    fn parse_error(&self, error: toml::de::Error) -> ConfigError {
        ConfigError::Parse { path: self.path.clone(), message: error.to_string().trim_end().to_string() }
    }

    fn base_error(&self, message: String) -> ConfigError {
        ConfigError::Base { path: self.path.clone(), message }
    }

    /// The path this file's `base` names, if it names one.
    fn base(&self) -> Result<Option<PathBuf>, ConfigError> {
        let table = DeTable::parse(&self.text).map_err(|e| self.parse_error(e))?;
        let Some(value) = table.get_ref().get(BASE_KEY) else { return Ok(None) };
        match value.get_ref() {
            DeValue::String(base) if !base.is_empty() => Ok(Some(self.folder().join(&**base))),
            _ => Err(self.base_error("must name a configuration file (a path relative to this file)".to_string())),
        }
    }
}

/// A configuration file followed by its bases, each read once.
pub struct Layers {
    /// The file first, then its base, the base's base, and so on.
    layers: Vec<Layer>,
}

impl Layers {
    /// Reads the bases of the configuration `text`, read from `path`.
    pub fn read(text: &str, path: &Path) -> Result<Layers, ConfigError> {
        let mut layers = vec![Layer { path: path.to_path_buf(), text: text.to_string() }];
        while let Some(base) = layers.last().expect("the chain holds the file").base()? {
            let child = layers.last().expect("the chain holds the file");
            if layers.iter().any(|layer| same_file(&layer.path, &base)) {
                let chain: Vec<String> = layers.iter().map(|l| &l.path).chain([&base]).map(|p| p.display().to_string()).collect();
                return Err(child.base_error(format!("the bases make a cycle: {}", chain.join(" -> "))));
            }
            let text = std::fs::read_to_string(&base).map_err(|e| child.base_error(format!("cannot read {}: {e}", base.display())))?;
            layers.push(Layer { path: base, text });
        }
        Ok(Layers { layers })
    }

    /// The folder of the file that sets `table.key` (the nearest to the first file), if any does.
    pub fn folder_setting(&self, table: &str, key: &str) -> Option<&Path> {
        self.layers
            .iter()
            .find(|layer| {
                let parsed = DeTable::parse(&layer.text).ok();
                parsed.is_some_and(|t| t.get_ref().get(table).and_then(|v| v.get_ref().as_table()).is_some_and(|t| t.contains_key(key)))
            })
            .map(Layer::folder)
    }

    /// Merges the files, each over its base, and deserializes the result.
    pub fn deserialize<T: DeserializeOwned>(&self) -> Result<T, ConfigError> {
        // The files side by side in one text: a position in it names the file and its line.
        let mut all = String::new();
        let mut starts = Vec::with_capacity(self.layers.len());
        for layer in &self.layers {
            starts.push(all.len());
            all.push_str(&layer.text);
            all.push('\n');
        }
        let mut merged = DeTable::new();
        for (layer, &start) in self.layers.iter().zip(&starts).rev() {
            let table = DeTable::parse(&all[start..start + layer.text.len()]).map_err(|e| layer.parse_error(e))?;
            let mut table = shifted_table(table.into_inner(), start);
            table.remove(BASE_KEY);
            merged = merged_over(merged, table);
        }
        let root = Spanned::new(0..all.len(), merged.clone());
        T::deserialize(toml::de::Deserializer::from(root)).map_err(|error| {
            let Some(span) = error.span() else {
                return ConfigError::Parse { path: self.layers[0].path.clone(), message: error.message().to_string() };
            };
            let index = starts.iter().rposition(|&start| start <= span.start).unwrap_or(0);
            let layer = &self.layers[index];
            let before = &all[starts[index]..span.start.min(starts[index] + layer.text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let key = key_at(&merged, &span).map(|key| format!("key `{key}`: ")).unwrap_or_default();
            ConfigError::Parse { path: layer.path.clone(), message: format!("line {line}, column {column}: {key}{}", error.message()) }
        })
    }
}

/// Whether two paths name the same file (the same path when either cannot be resolved).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => std::path::absolute(a).ok() == std::path::absolute(b).ok(),
    }
}

/// `value` with every position moved `by` bytes on.
fn shifted(value: Spanned<DeValue<'_>>, by: usize) -> Spanned<DeValue<'_>> {
    let span = value.span();
    let value = match value.into_inner() {
        DeValue::Table(table) => DeValue::Table(shifted_table(table, by)),
        DeValue::Array(items) => DeValue::Array(items.into_iter().map(|item| shifted(item, by)).collect()),
        other => other,
    };
    Spanned::new(span.start + by..span.end + by, value)
}

fn shifted_table(table: DeTable<'_>, by: usize) -> DeTable<'_> {
    table
        .into_iter()
        .map(|(key, value)| {
            let span = key.span();
            (Spanned::new(span.start + by..span.end + by, key.into_inner()), shifted(value, by))
        })
        .collect()
}

/// `over` merged over `base`: tables key by key, any other value replacing the base's.
fn merged_over<'i>(mut base: DeTable<'i>, over: DeTable<'i>) -> DeTable<'i> {
    for (key, value) in over {
        let span = value.span();
        let value = match (base.remove(&key).map(Spanned::into_inner), value.into_inner()) {
            (Some(DeValue::Table(below)), DeValue::Table(above)) => DeValue::Table(merged_over(below, above)),
            (_, value) => value,
        };
        base.insert(key, Spanned::new(span, value));
    }
    base
}

/// The dotted key whose name or value lies at `span`, the innermost first.
fn key_at(table: &DeTable<'_>, span: &Range<usize>) -> Option<String> {
    let holds = |outer: Range<usize>| outer.start <= span.start && span.end <= outer.end;
    table.iter().find_map(|(key, value)| {
        let inner = value.get_ref().as_table().and_then(|inner| key_at(inner, span));
        match inner {
            Some(rest) => Some(format!("{}.{rest}", key.get_ref())),
            None if holds(key.span()) || holds(value.span()) => Some(key.get_ref().to_string()),
            None => None,
        }
    })
}

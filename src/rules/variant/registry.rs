//! The variants known to the process: the embedded variant files, then the files read at run
//! time, each with its derived tables built on first use. A [`VariantId`] is a position in
//! this list.

use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use super::{Variant, VariantError, VariantId, VariantSpec};
use crate::rules::notation::sfen;
use crate::rules::variant_file;

include!(concat!(env!("OUT_DIR"), "/embedded_variants.rs"));

/// The most variants one process can know.
pub const MAX_VARIANTS: usize = 64;

/// The names of [`VariantId::ALL`], in that order: they come first.
const FIRST: [&str; 5] = ["shogi", "heian-dai-shogi", "chu-shogi", "dai-shogi", "tenjiku-shogi"];

/// One known variant.
struct Entry {
    spec: &'static VariantSpec,
    /// The embedded file's name (`variants/shogi.toml`) or the path read.
    source: String,
}

/// The known variants, the embedded ones first.
fn entries() -> MutexGuard<'static, Vec<Entry>> {
    static ENTRIES: OnceLock<Mutex<Vec<Entry>>> = OnceLock::new();
    ENTRIES.get_or_init(|| Mutex::new(embedded_entries())).lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads the embedded files (checked by the tests: an error here is a broken build).
fn embedded_entries() -> Vec<Entry> {
    let mut entries: Vec<Entry> = EMBEDDED_VARIANTS
        .iter()
        .map(|&(file, text)| {
            let source = format!("variants/{file}");
            let spec = variant_file::parse(&source, text).and_then(|parsed| parsed.to_spec(&source)).unwrap_or_else(|e| panic!("{e}"));
            Entry { spec: Box::leak(Box::new(spec)), source }
        })
        .collect();
    entries.sort_by_key(|e| (FIRST.iter().position(|&n| n == e.spec.name).unwrap_or(FIRST.len()), e.spec.name));
    for (i, name) in FIRST.iter().enumerate() {
        assert_eq!(entries.get(i).map(|e| e.spec.name), Some(*name), "variants/ lacks {name}.toml");
    }
    entries
}

/// How many variant files the program embeds.
pub(super) fn embedded_count() -> usize {
    EMBEDDED_VARIANTS.len()
}

/// Per known variant: its tables, once built.
static SLOTS: [OnceLock<&'static Variant>; MAX_VARIANTS] = [const { OnceLock::new() }; MAX_VARIANTS];

/// The variant `id` with its tables.
#[inline]
pub(super) fn variant(id: VariantId) -> &'static Variant {
    SLOTS[id.index()].get_or_init(|| {
        let spec = entries()[id.index()].spec;
        Box::leak(Box::new(Variant::build(id, spec)))
    })
}

/// Where `id`'s rules come from.
pub(super) fn source(id: VariantId) -> String {
    entries()[id.index()].source.clone()
}

/// Every known variant name, in [`VariantId`] order.
pub(super) fn names() -> Vec<&'static str> {
    entries().iter().map(|e| e.spec.name).collect()
}

/// The known variant called `name`.
pub(super) fn find(name: &str) -> Option<VariantId> {
    entries().iter().position(|e| e.spec.name == name).map(VariantId::from_index)
}

/// Reads the variant file at `path` and adds it, or finds the variant it names with the same
/// rules.
pub(super) fn load(path: &Path) -> Result<VariantId, VariantError> {
    let (_, spec) = variant_file::read(path)?;
    let source = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string();
    let mut entries = entries();
    if let Some(index) = entries.iter().position(|e| e.spec.name == spec.name) {
        let known = &entries[index];
        return match known.spec.rules_hash == spec.rules_hash {
            true => Ok(VariantId::from_index(index)),
            false => Err(VariantError::Clash { path: source, name: spec.name.to_string(), other: known.source.clone() }),
        };
    }
    if entries.len() >= MAX_VARIANTS {
        return Err(VariantError::TooMany);
    }
    let id = VariantId::from_index(entries.len());
    let spec: &'static VariantSpec = Box::leak(Box::new(spec));
    let variant: &'static Variant = Box::leak(Box::new(Variant::build(id, spec)));
    sfen::parse(variant, spec.start).map_err(|e| VariantError::Start { path: source.clone(), message: e.to_string() })?;
    entries.push(Entry { spec, source });
    drop(entries);
    // Another thread may have built the same tables from the entry meanwhile: either will do.
    let _ = SLOTS[id.index()].set(variant);
    Ok(id)
}

//! Run configurations: the TOML files in `configs/` (one a variant and size). A file names the
//! variant and has one table per layer: `[network]`, `[inference]`, `[search]`, `[selfplay]`,
//! `[train]`. Unknown keys are refused; every error names the file and the key. The
//! `[network]` and `[inference]` tables list every key (except `network.auxiliary_heads`, off
//! when left out); the others may leave keys out, which then take the defaults documented on
//! their fields. Checks that span tables name the key that asks for too much: a weighted
//! auxiliary loss of `[train]` without `network.auxiliary_heads`, for one. A value out of range
//! is reported as an [`InvalidField`](crate::invalid_field::InvalidField).
//!
//! - [`run`]: the whole file ([`RunConfig`]), read and checked.
//! - [`store`]: `[store]`, the limits on what a distributed run's trainer takes from workers.

pub mod run;
pub mod store;

pub use run::{to_toml, ConfigError, RunConfig};

//! Monte Carlo tree search over the rules core, guided by an evaluator (the network, or a
//! uniform one for tests). The search never sees tensors: evaluators turn games into priors
//! over legal moves and win/draw/loss values.
//!
//! - [`config`]: the search parameters, field by field.
//! - [`tree`]: nodes and children stored side by side in one vector.
//! - [`search`]: one search, driven one simulation at a time: the walk down with unchecked
//!   moves and the backup; its selection rules (PUCT, Gumbel root), leaf value (capture and
//!   pursuit utilities), root aids (winning capture, mate search, royal and material guards)
//!   and results (move, policy target, values, lines) in submodules.
//! - [`evaluator`]: the network (through the inference server) or uniform priors.
//! - [`mate`]: the forced-mate search at the root.
//! - [`pursuit`]: how a side far ahead closes in on the enemy royal pieces (a search aid).
//! - [`bench`]: simulations per second with a uniform evaluator (`bench search`).
//! - [`engine`]: a model served for many engines, and an engine that thinks within limits.

pub mod bench;
pub mod config;
pub mod engine;
pub mod evaluator;
pub mod mate;
pub mod pursuit;
pub mod search;
pub mod tree;

pub use config::{RootSelection, SearchConfig};
pub use engine::{Engine, Limits, Model, ModelError, SearchInfo};
pub use evaluator::{Evaluator, EvaluatorError, NetInput, NetworkEvaluator, UniformEvaluator};
pub use search::Search;

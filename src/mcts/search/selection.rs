//! Selection: the rule that picks the child each simulation goes through, with its state.
//! PUCT everywhere (first-play urgency; at an exploring root Dirichlet noise and forced
//! playouts), or a Gumbel root (Gumbel noise and sequential halving) over Gumbel's interior rule.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel as GumbelNoise};

use crate::mcts::config::{RootSelection, SearchConfig};
use crate::mcts::tree::{NodeId, Tree, ROOT};

/// The selection rule of a search, as [`SearchConfig::root`] names it.
#[derive(Clone, Debug)]
pub(super) enum Selection {
    Puct(Puct),
    Gumbel(Gumbel),
}

impl Selection {
    /// The rule `config` names, not exploring.
    pub(super) fn new(config: &SearchConfig) -> Selection {
        match config.root {
            RootSelection::Puct => Selection::Puct(Puct::default()),
            RootSelection::Gumbel => Selection::Gumbel(Gumbel::default()),
        }
    }

    /// Sets whether the searches from now on explore (self-play).
    pub(super) fn set_explore(&mut self, explore: bool) {
        match self {
            Selection::Puct(puct) => puct.explore = explore,
            Selection::Gumbel(gumbel) => gumbel.explore = explore,
        }
    }

    /// Prepares the expanded root for a search of `budget` simulations: Dirichlet noise mixed
    /// into its priors (PUCT, exploring), or the Gumbel noise drawn and sequential halving planned.
    pub(super) fn prepare_root(&mut self, tree: &mut Tree, config: &SearchConfig, budget: u32, rng: &mut impl Rng) {
        match self {
            Selection::Puct(puct) => puct.add_noise(tree, config, rng),
            Selection::Gumbel(gumbel) => gumbel.prepare(tree, config, budget, rng),
        }
    }

    /// The child of the expanded node `id` that the next simulation goes through.
    pub(super) fn child(&self, tree: &Tree, config: &SearchConfig, id: NodeId) -> NodeId {
        match self {
            Selection::Puct(puct) => puct.child(tree, config, id),
            Selection::Gumbel(gumbel) if id == ROOT => gumbel.root_child(tree, config),
            Selection::Gumbel(_) => Gumbel::interior_child(tree, config, id),
        }
    }

    /// Forgets the root's preparation when the root moves on (Gumbel plans its visits anew).
    pub(super) fn root_moved(&mut self) {
        if let Selection::Gumbel(gumbel) = self {
            gumbel.noise.clear();
        }
    }
}

/// PUCT with first-play urgency.
#[derive(Clone, Debug, Default)]
pub(super) struct Puct {
    /// Whether the root explores: Dirichlet noise and forced playouts.
    pub(super) explore: bool,
}

impl Puct {
    /// Mixes Dirichlet noise into the root priors when exploring.
    fn add_noise(&self, tree: &mut Tree, config: &SearchConfig, rng: &mut impl Rng) {
        let children = tree.node(ROOT).children();
        let n = children.len();
        let fraction = config.dirichlet_fraction;
        if !self.explore || fraction == 0.0 || n < 2 {
            return;
        }
        let gamma = Gamma::new(config.dirichlet_total_alpha / n as f32, 1.0).expect("alpha is positive");
        let noise: Vec<f32> = (0..n).map(|_| gamma.sample(rng)).collect();
        let sum: f32 = noise.iter().sum();
        if sum <= 0.0 || !sum.is_finite() {
            return;
        }
        for (id, eta) in children.zip(noise) {
            let node = tree.node_mut(id);
            node.prior = (1.0 - fraction) * node.prior + fraction * eta / sum;
        }
    }

    /// Whether root children get forced playouts (an exploring search with them configured).
    pub(super) fn forces_playouts(&self, config: &SearchConfig) -> bool {
        self.explore && config.forced_playouts_k > 0.0
    }

    /// The child with the highest PUCT score; forced playouts first at an exploring root.
    fn child(&self, tree: &Tree, config: &SearchConfig, id: NodeId) -> NodeId {
        let is_root = id == ROOT;
        let node = tree.node(id);
        let children = node.children();
        let total: u32 = children.clone().map(|c| tree.node(c).visits).sum();
        let c = exploration(config, total);
        let sqrt_total = (total.max(1) as f32).sqrt();
        let parent_q = -node.q().unwrap_or(0.0);
        let visited_mass: f32 = children.clone().map(|c| tree.node(c)).filter(|n| n.visits > 0).map(|n| n.prior).sum();
        let reduction = if is_root { config.root_fpu_reduction } else { config.fpu_reduction };
        let fpu = parent_q - reduction * visited_mass.sqrt();
        let forcing = is_root && self.forces_playouts(config);
        let parent_moves_left = node.moves_left().unwrap_or(0.0);
        let mut best = (f32::NEG_INFINITY, children.start);
        for child in children {
            let n = tree.node(child);
            let q = n.q().unwrap_or(fpu);
            let mut score = q + c * n.prior * sqrt_total / (1.0 + n.visits as f32);
            if let (true, Some(child_q), Some(moves_left)) = (config.moves_left_utility > 0.0, n.q(), n.moves_left()) {
                score += moves_left_utility(config.moves_left_utility, child_q, moves_left - parent_moves_left);
            }
            if forcing && (n.visits as f32) < forced_playouts(config, n.prior, total) {
                score += 1e6;
            }
            if score > best.0 {
                best = (score, child);
            }
        }
        best.1
    }
}

/// The moves-left utility of a child whose value is `q` (for the side to move at its parent)
/// and which leads to a game `longer` plies longer than its parent expects (lc0's moves-left
/// head in the search): a side ahead prefers the moves that end the game sooner and a side
/// behind those that make it last, by at most `cap`, scaled by how sure the value is.
fn moves_left_utility(cap: f32, q: f32, longer: f32) -> f32 {
    let shift = (MOVES_LEFT_SLOPE * longer).clamp(-cap, cap);
    let sureness = MOVES_LEFT_LINEAR * q.abs() + MOVES_LEFT_QUADRATIC * q * q;
    -q.signum() * shift * sureness
}

/// Utility per ply of game length, and its scale by the value's size q: linear * |q| +
/// quadratic * q^2, 1 at |q| = 1 (lc0's defaults).
const MOVES_LEFT_SLOPE: f32 = 0.0027;
const MOVES_LEFT_LINEAR: f32 = 1.6521;
const MOVES_LEFT_QUADRATIC: f32 = -0.6521;

/// PUCT's exploration constant after `visits` visits.
pub(super) fn exploration(config: &SearchConfig, visits: u32) -> f32 {
    let base = config.c_puct_base;
    config.c_puct + ((visits as f32 + base + 1.0) / base).ln()
}

/// Visits forced on a root child of prior `prior` after `total` visits (PUCT, exploring).
pub(super) fn forced_playouts(config: &SearchConfig, prior: f32, total: u32) -> f32 {
    (config.forced_playouts_k * prior * total as f32).sqrt()
}

/// A Gumbel root: each root child's noise, and the visit schedule of sequential halving.
#[derive(Clone, Debug, Default)]
pub(super) struct Gumbel {
    /// Whether the noise is drawn (self-play) or zero.
    explore: bool,
    /// The noise of each root child, in child order; empty until the root is prepared.
    noise: Vec<f32>,
    /// The visit count that each root simulation, by its number, asks of the child it picks.
    schedule: Vec<u32>,
}

impl Gumbel {
    /// Draws the noise and plans sequential halving over `budget` simulations.
    fn prepare(&mut self, tree: &Tree, config: &SearchConfig, budget: u32, rng: &mut impl Rng) {
        let n = tree.node(ROOT).children().len();
        let gumbel = GumbelNoise::new(0.0f32, 1.0).expect("valid Gumbel");
        self.noise = (0..n).map(|_| if self.explore { gumbel.sample(rng) } else { 0.0 }).collect();
        self.schedule = halving_schedule(config.gumbel_considered.min(n), budget as usize);
    }

    /// Among the root children with the visit count the halving schedule asks for now, the one
    /// with the highest g + logit + sigma(q).
    fn root_child(&self, tree: &Tree, config: &SearchConfig) -> NodeId {
        let children = tree.node(ROOT).children();
        let total: u32 = children.clone().map(|c| tree.node(c).visits).sum();
        let wanted = self.schedule.get(total as usize).copied();
        let scores = self.scores(tree, config);
        let pick = |restrict: bool| {
            children
                .clone()
                .zip(&scores)
                .filter(|&(c, _)| !restrict || Some(tree.node(c).visits) == wanted)
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(c, _)| c)
        };
        // Terminal children and reused trees can leave no child at the scheduled count.
        pick(true).or_else(|| pick(false)).expect("an expanded node has children")
    }

    /// The winner of sequential halving: among the most visited root children, the highest
    /// g + logit + sigma(q); None before the root is prepared.
    pub(super) fn winner(&self, tree: &Tree, config: &SearchConfig) -> Option<NodeId> {
        if self.noise.is_empty() {
            return None;
        }
        let root = tree.node(ROOT);
        let max_visits = root.children().map(|c| tree.node(c).visits).max().unwrap_or(0);
        root.children()
            .zip(self.scores(tree, config))
            .filter(|&(c, _)| tree.node(c).visits == max_visits)
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| c)
    }

    /// g + logit + sigma(q) of every root child.
    fn scores(&self, tree: &Tree, config: &SearchConfig) -> Vec<f32> {
        let children = tree.node(ROOT).children();
        children
            .zip(sigma_q(tree, config, ROOT))
            .enumerate()
            .map(|(i, (c, s))| self.noise.get(i).copied().unwrap_or(0.0) + logit(tree.node(c).prior) + s)
            .collect()
    }

    /// The interior rule: the child maximising improved policy minus its visit share.
    fn interior_child(tree: &Tree, config: &SearchConfig, id: NodeId) -> NodeId {
        let node = tree.node(id);
        let improved = Gumbel::improved_policy(tree, config, id);
        let total: u32 = node.children().map(|c| tree.node(c).visits).sum();
        node.children()
            .zip(improved)
            .map(|(c, p)| (c, p - tree.node(c).visits as f32 / (1.0 + total as f32)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, _)| c)
            .expect("an expanded node has children")
    }

    /// softmax(logit + sigma(completed q)) over the children of `id`.
    pub(super) fn improved_policy(tree: &Tree, config: &SearchConfig, id: NodeId) -> Vec<f32> {
        let sigma = sigma_q(tree, config, id);
        let mut policy: Vec<f32> = tree.node(id).children().zip(sigma).map(|(c, s)| logit(tree.node(c).prior) + s).collect();
        softmax(&mut policy);
        policy
    }
}

/// sigma(completed q) of the children of `id`: visited children's q, the mixed value for the
/// others, rescaled to [0, 1] and scaled by (c_visit + max visits) * c_scale.
fn sigma_q(tree: &Tree, config: &SearchConfig, id: NodeId) -> Vec<f32> {
    let node = tree.node(id);
    let children: Vec<_> = node.children().map(|c| tree.node(c)).collect();
    let total: u32 = children.iter().map(|c| c.visits).sum();
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let visited_prior: f32 = children.iter().filter(|c| c.visits > 0).map(|c| c.prior.max(f32::MIN_POSITIVE)).sum();
    let weighted_q: f32 = children.iter().filter_map(|c| c.q().map(|q| c.prior.max(f32::MIN_POSITIVE) * q)).sum::<f32>()
        / visited_prior.max(f32::MIN_POSITIVE);
    let mixed = (node.raw_value + total as f32 * weighted_q) / (total as f32 + 1.0);
    let completed: Vec<f32> = children.iter().map(|c| c.q().unwrap_or(mixed)).collect();
    let (lo, hi) = completed.iter().fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &q| (lo.min(q), hi.max(q)));
    let scale = (config.gumbel_c_visit + max_visits as f32) * config.gumbel_c_scale;
    completed.iter().map(|q| scale * (q - lo) / (hi - lo).max(1e-8)).collect()
}

/// The visit count each simulation of a Gumbel root considers (mctx's schedule): sequential
/// halving over `considered` moves spread over `simulations`.
fn halving_schedule(considered: usize, simulations: usize) -> Vec<u32> {
    if considered <= 1 {
        return (0..simulations as u32).collect();
    }
    let phases = (considered as f64).log2().ceil() as usize;
    let mut schedule = Vec::with_capacity(simulations);
    let mut visits = vec![0u32; considered];
    let mut count = considered;
    while schedule.len() < simulations {
        let extra = (simulations / (phases * count)).max(1);
        for _ in 0..extra {
            schedule.extend_from_slice(&visits[..count]);
            for v in &mut visits[..count] {
                *v += 1;
            }
        }
        count = (count / 2).max(2);
    }
    schedule.truncate(simulations);
    schedule
}

/// The log of a prior, bounded below.
fn logit(prior: f32) -> f32 {
    prior.max(1e-30).ln()
}

/// Softmax in place.
fn softmax(values: &mut [f32]) {
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in values.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    for v in values.iter_mut() {
        *v /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::{halving_schedule, moves_left_utility};

    #[test]
    fn the_side_ahead_prefers_short_games_and_the_side_behind_long_ones() {
        let cap = 0.0345;
        // Ahead: a child 10 plies shorter than expected gains, one 10 plies longer loses.
        assert!(moves_left_utility(cap, 0.9, -10.0) > 0.0);
        assert!(moves_left_utility(cap, 0.9, 10.0) < 0.0);
        // Behind: the other way round.
        assert!(moves_left_utility(cap, -0.9, 10.0) > 0.0);
        assert!(moves_left_utility(cap, -0.9, -10.0) < 0.0);
        // Bounded by the cap, reached at |q| = 1; nothing when even.
        assert!((moves_left_utility(cap, 1.0, -1000.0) - cap).abs() < 1e-6);
        assert!(moves_left_utility(cap, 0.5, -1000.0) < cap);
        assert_eq!(moves_left_utility(cap, 0.0, -1000.0), 0.0);
        assert_eq!(moves_left_utility(cap, 0.9, 0.0), 0.0);
    }

    /// mctx's `get_sequence_of_considered_visits(4, 12)`: log2(4) = 2 phases; 12 / (2 * 4) = 1
    /// round of 4 visits, then 12 / (2 * 2) = 3 rounds over the best 2.
    #[test]
    fn halving_schedule_matches_the_reference_sequence() {
        assert_eq!(halving_schedule(4, 12), vec![0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4]);
        assert_eq!(halving_schedule(1, 3), vec![0, 1, 2]);
    }
}

//! Search settings, read from the `[search]` table of a run configuration. Every field is
//! documented where it is declared; [`SearchConfig::validate`] names the first one out of range.

use serde::{Deserialize, Serialize};

use super::mate::MAX_MATE_PLIES;
use super::pursuit::DECISIVE_LEAD;
use crate::invalid_field::InvalidField;

/// Capture-only plies of the quiescence search behind [`SearchConfig::capture_utility`].
pub const QUIESCENCE_PLIES: u32 = 6;

/// Nodes of that quiescence search after which no more captures are searched. On leaves of
/// recorded games it changes no score in shogi, chu, dai or Heian dai and under 4% of tenjiku's,
/// where an unbounded search of a capture-rich position can take half a second.
pub const QUIESCENCE_NODES: u64 = 2048;

/// How far below the best root move's material a move may score and still be searched under
/// [`SearchConfig::material_guard`], in mean pieces of the start position.
pub const MATERIAL_GUARD_MARGIN: f32 = 0.25;

/// The [`SearchConfig::capture_utility`] of a search that plays a game (arena, `play`, USI,
/// xboard): see [`SearchConfig::for_play`].
pub const PLAY_CAPTURE_UTILITY: f32 = 1.0;

/// The [`SearchConfig::pursuit_utility`] of a search that plays a game: see
/// [`SearchConfig::for_play`].
pub const PLAY_PURSUIT_UTILITY: f32 = 1.0;

/// How the root chooses which moves to search.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RootSelection {
    /// PUCT everywhere (AlphaZero, KataGo), with Dirichlet noise and forced playouts at the root
    /// of self-play searches.
    Puct,
    /// Gumbel sampling of the considered moves and sequential halving at the root, the
    /// deterministic improved-policy rule below it (Danihelka et al. 2022). Learns from few
    /// simulations; its policy target is the improved policy.
    Gumbel,
}

impl RootSelection {
    /// Its name in configurations, options and player specs: `puct` or `gumbel`.
    pub fn name(self) -> &'static str {
        match self {
            RootSelection::Puct => "puct",
            RootSelection::Gumbel => "gumbel",
        }
    }

    /// The selection called `name`, if one is.
    pub fn from_name(name: &str) -> Option<RootSelection> {
        [RootSelection::Puct, RootSelection::Gumbel].into_iter().find(|root| root.name() == name)
    }
}

/// The tree search's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// `puct` or `gumbel`.
    pub root: RootSelection,
    /// Exploration constant of PUCT at the root's first visits: c(N) = c_puct + ln((N + base + 1) / base).
    pub c_puct: f32,
    /// The visit count `base` over which the exploration constant grows logarithmically.
    pub c_puct_base: f32,
    /// First-play urgency: an unvisited child's value is the parent's value minus this times
    /// the square root of the prior mass of the visited children (KataGo).
    pub fpu_reduction: f32,
    /// The same reduction at the root (KataGo uses 0 there when the root has noise).
    pub root_fpu_reduction: f32,
    /// Total Dirichlet concentration at the root: each of the n legal moves gets alpha = total / n.
    pub dirichlet_total_alpha: f32,
    /// Share of the noise in the root priors of a self-play search (0 disables the noise).
    pub dirichlet_fraction: f32,
    /// Forced playouts at a noised root: a child with prior P gets at least sqrt(k P N) visits
    /// of the root's N, and those forced visits are pruned from the policy target (KataGo).
    /// 0 disables both.
    pub forced_playouts_k: f32,
    /// Gumbel root: the number of moves sampled (without replacement) for sequential halving.
    pub gumbel_considered: usize,
    /// Gumbel: sigma(q) = (c_visit + max visits) * c_scale * q, with q rescaled to [0, 1].
    pub gumbel_c_visit: f32,
    /// Gumbel: see `gumbel_c_visit`.
    pub gumbel_c_scale: f32,
    /// Plies of the forced-mate search at the root (0, 1, 3 or 5; see [`super::mate`]): a mate
    /// found is played at once, whatever the budget. In the variants where royals are captured
    /// it runs only with the royal guard.
    pub mate_search_plies: u32,
    /// Root moves that leave the mover's only royal piece where the opponent can take it at
    /// once (the large variants allow such moves) are ruled out, unless every move does; of the
    /// others, those after which the opponent has a check that no reply escapes, unless every
    /// one does. For play: self-play always turns it off ([`SearchConfig::for_selfplay`]).
    pub royal_guard: bool,
    /// Weight of the material a leaf's side to move has won since the root, counting what it
    /// still wins there by captures alone (a quiescence search of the material searcher,
    /// [`QUIESCENCE_PLIES`] plies of captures, at most [`QUIESCENCE_NODES`] nodes), in the
    /// value the search backs up: a leaf is worth (v + w * tanh(g)) / (1 + w) for the network's
    /// value v (win minus loss, after the pursuit utility) and that gain g, in mean pieces of
    /// the start position, so that moves which win material, or leave pieces to be taken, look
    /// as good or as bad as they are where the network does not see it. 0 (the default) leaves
    /// the value alone; [`PLAY_CAPTURE_UTILITY`] in a player's search. A hand-written aid, not
    /// learned; it costs a quiescence search a leaf (`bench search --capture-utility 1`). See
    /// [`super::search::leaf`].
    pub capture_utility: f32,
    /// Root moves that lose material another move keeps are ruled out (as the royal guard rules
    /// out moves that hang the royal): each root move is scored by the material its mover keeps
    /// once the opponent's captures are played out (the capture utility's quiescence search
    /// after the move), and those more than [`MATERIAL_GUARD_MARGIN`] mean pieces below the
    /// best are given no prior and scored lost. Every legal move is looked at, where the simulations only reach the few the
    /// network's policy favours: a piece left hanging or a free capture the policy misses no
    /// longer decides the game. Off by default and in self-play; on in a player's search
    /// ([`SearchConfig::for_play`]).
    pub material_guard: bool,
    /// Weight, 0 to 1, of the pursuit score ([`super::pursuit`]) in a leaf's value: where one
    /// side leads by [`SearchConfig::pursuit_lead`] mean pieces or more, the network's value v
    /// of the side ahead moves a share w * p of the way toward a win, for the pursuit score p of
    /// its pieces closing in on the enemy royal pieces (and the side behind toward a loss), so
    /// that a side far ahead makes progress where its network sees every quiet move as equal.
    /// 0 (the default) leaves the value alone; [`PLAY_PURSUIT_UTILITY`] in a player's search
    /// ([`SearchConfig::for_play`]). A hand-written aid, not learned. See [`super::search::leaf`].
    pub pursuit_utility: f32,
    /// The material lead, in mean pieces of the start position (board and hands), from which
    /// a side counts as far enough ahead for the pursuit score ([`super::pursuit`]);
    /// [`super::pursuit::DECISIVE_LEAD`] by default.
    pub pursuit_lead: f32,
    /// Root moves that recreate a position that occurred earlier in the game are ruled out,
    /// unless every move does. The rules here let a position repeat (chu's fourth occurrence
    /// draws), but HaChu, as the Japanese Chu Shogi Association's rule has the repeating side
    /// deviate, refuses such a move: a player with this guard keeps a game against it going
    /// to a result by play. Off by default; see docs/search.md.
    pub repetition_guard: bool,
    /// The most a child's selection score changes for the length of game it leads to, by the
    /// network's moves-left head backed up the tree (lc0's moves-left utility; PUCT only): the
    /// side ahead prefers moves that end the game sooner, the side behind moves that make it
    /// last, so that a won game is won rather than drifting to the ply cap. A child's shift is
    /// 0.0027 a ply of difference from its parent's expected length, bounded by this value and
    /// scaled by how sure the child's value is (1.6521 |q| - 0.6521 q^2, 1 at a sure win).
    /// 0 (the default) turns it off; lc0 uses 0.0345. See [`super::search::selection`].
    pub moves_left_utility: f32,
}

impl SearchConfig {
    /// The default search of a player (arena, `play`, USI, xboard): the default with the
    /// capture utility at [`PLAY_CAPTURE_UTILITY`], the material guard on and the pursuit
    /// utility at [`PLAY_PURSUIT_UTILITY`] (docs/search.md describes each aid, what it is worth
    /// and how to turn it off). Self-play searches as the run's `[search]` table says
    /// ([`SearchConfig::for_selfplay`]), and the measures taken while training (gating, anchor
    /// matches) with the default search, the three aids off, so that they show what the
    /// network itself has learned.
    pub fn for_play() -> SearchConfig {
        SearchConfig {
            capture_utility: PLAY_CAPTURE_UTILITY,
            material_guard: true,
            pursuit_utility: PLAY_PURSUIT_UTILITY,
            ..SearchConfig::default()
        }
    }

    /// These settings as a self-play search uses them: the royal guard off, so that self-play
    /// learns where leaving the only royal piece en prise leads (with the guard on, fast
    /// searches keep the royal safe and training games end drawn).
    pub fn for_selfplay(self) -> SearchConfig {
        SearchConfig { royal_guard: false, ..self }
    }
}

impl Default for SearchConfig {
    /// KataGo's and the Gumbel paper's published values; mates in three searched, the royal
    /// guard on.
    fn default() -> SearchConfig {
        SearchConfig {
            root: RootSelection::Puct,
            c_puct: 1.1,
            c_puct_base: 19652.0,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.0,
            dirichlet_total_alpha: 10.83,
            dirichlet_fraction: 0.25,
            forced_playouts_k: 2.0,
            gumbel_considered: 16,
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            mate_search_plies: 3,
            royal_guard: true,
            capture_utility: 0.0,
            material_guard: false,
            pursuit_utility: 0.0,
            pursuit_lead: DECISIVE_LEAD,
            repetition_guard: false,
            moves_left_utility: 0.0,
        }
    }
}

impl SearchConfig {
    /// Checks the values, naming the first field that is out of range.
    pub fn validate(&self) -> Result<(), InvalidField> {
        let check = |name: &str, ok: bool, rule: &str, value: String| {
            if ok {
                Ok(())
            } else {
                Err(InvalidField { field: format!("search.{name}"), message: format!("{value} is not {rule}") })
            }
        };
        let positive = |name: &str, v: f32| check(name, v.is_finite() && v > 0.0, "a positive number", v.to_string());
        let non_negative = |name: &str, v: f32| check(name, v.is_finite() && v >= 0.0, "a number >= 0", v.to_string());
        let share = |name: &str, v: f32| check(name, (0.0..=1.0).contains(&v), "between 0 and 1", v.to_string());
        positive("c_puct", self.c_puct)?;
        positive("c_puct_base", self.c_puct_base)?;
        non_negative("fpu_reduction", self.fpu_reduction)?;
        non_negative("root_fpu_reduction", self.root_fpu_reduction)?;
        positive("dirichlet_total_alpha", self.dirichlet_total_alpha)?;
        share("dirichlet_fraction", self.dirichlet_fraction)?;
        non_negative("forced_playouts_k", self.forced_playouts_k)?;
        non_negative("capture_utility", self.capture_utility)?;
        share("pursuit_utility", self.pursuit_utility)?;
        positive("pursuit_lead", self.pursuit_lead)?;
        share("moves_left_utility", self.moves_left_utility)?;
        let m = self.gumbel_considered;
        check("gumbel_considered", (1..=4096).contains(&m), "between 1 and 4096", m.to_string())?;
        non_negative("gumbel_c_visit", self.gumbel_c_visit)?;
        positive("gumbel_c_scale", self.gumbel_c_scale)?;
        let m = self.mate_search_plies;
        check("mate_search_plies", m == 0 || (m % 2 == 1 && m <= MAX_MATE_PLIES), "0, 1, 3 or 5", m.to_string())?;
        Ok(())
    }
}

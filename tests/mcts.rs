//! The tree search with a uniform evaluator: it finds what the rules alone decide (mates,
//! royal captures), its counts add up, Gumbel improves the policy, trees are reused, and the
//! same seed gives the same search.

mod common;

use std::sync::atomic::AtomicBool;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shogi_zero::material_search::MaterialSearch;
use shogi_zero::mcts::config::QUIESCENCE_PLIES;
use shogi_zero::mcts::mate::{find_mate, is_mated};
use shogi_zero::mcts::pursuit::{pursuit, DECISIVE_LEAD};
use shogi_zero::mcts::tree::{NodeState, ROOT};
use shogi_zero::mcts::{Engine, Evaluator, EvaluatorError, Limits, RootSelection, Search, SearchConfig, UniformEvaluator};
use shogi_zero::nn::Evaluation;
use shogi_zero::rules::material::Material;
use shogi_zero::rules::{Color, EndReason, Game, GameRules, Move, Position, VariantId};

use common::{board, game, mv, play_all, CHU_LION_MATE};

/// Black's rook on 2e is attacked by White's silver on 3d, which the gold on 3c defends: only
/// rook moves keep it, those to 2d, 2c, 3e and 4e put it where White takes it, and those to 2b
/// and 2a can promote it to a dragon (worth more).
const SHOGI_ROOK_ATTACKED: &str = "4k4/9/6g2/6s2/7R1/9/9/9/4K4 b - 1";

/// Black to move mates with G*5b (the pawn on 5c guards the gold); many other moves exist.
const SHOGI_MATE_IN_ONE: &str = "4k4/9/4P4/9/9/9/9/9/4K4 b G 1";

/// The prior of the root child reached by `m`.
fn prior_of(search: &Search, m: Move) -> f32 {
    let tree = search.tree();
    tree.node(tree.node(ROOT).children().find(|&c| tree.node(c).mv == m).unwrap()).prior
}

fn run(search: &mut Search, simulations: u32, explore: bool, seed: u64) {
    run_with(&mut UniformEvaluator, search, simulations, explore, seed);
}

/// [`run`] with `evaluator` instead of the uniform one.
fn run_with(evaluator: &mut impl Evaluator, search: &mut Search, simulations: u32, explore: bool, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    search.start(simulations, explore);
    while search.select(&mut rng) {
        let (leaf, moves) = search.leaf();
        let evaluation = evaluator.evaluate(leaf, moves).unwrap();
        search.expand(&evaluation);
    }
}

/// The tree search alone: without the root mate search, which would find the test mates before
/// the tree does.
fn config(root: RootSelection) -> SearchConfig {
    SearchConfig { root, mate_search_plies: 0, ..SearchConfig::default() }
}

/// White's king on 1a, his knight on 3a; Black's silver on 3b, a gold and a lance in hand. No
/// mate in one; G*2a (protected by the silver) leaves only K1b (1b is the one square neither the
/// gold nor the silver covers), and then a lance dropped on the 1 file below 1c mates: 1a and 2b
/// are the gold's, 2c the silver's, and White has nothing to interpose.
const SHOGI_MATE_IN_THREE: &str = "6n1k/6S2/9/9/9/9/9/9/4K4 b GL 1";

#[test]
fn the_mate_search_finds_the_mate_in_three_and_its_only_first_move() {
    let id = VariantId::SHOGI;
    let start = game(id, SHOGI_MATE_IN_THREE);
    let pos = start.position();
    assert_eq!(find_mate(pos, 1), None);
    assert_eq!(find_mate(pos, 0), None);
    let first = mv(id, "G*2a");
    let line = find_mate(pos, 3).expect("a mate in three");
    assert_eq!(line[..2], [first, mv(id, "1a1b")]);
    let after = pos.after(first).unwrap();
    assert_eq!(after.legal_moves(), vec![mv(id, "1a1b")]);
    let reply = after.after(mv(id, "1a1b")).unwrap();
    assert_eq!(find_mate(&reply, 1).unwrap(), line[2..]);
    let mated = reply.after(line[2]).unwrap();
    assert!(mated.legal_moves().is_empty() && mated.in_check(Color::White), "{:?}", line[2]);
    assert!(is_mated(&mated) && !is_mated(&after) && !is_mated(pos));
    // A lance dropped on 1c is no mate: the king takes it.
    assert!(!reply.after(mv(id, "L*1c")).unwrap().legal_moves().is_empty());
    // Every search plays it at once, at any budget, and learns it as the only move.
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let mut search = Search::new(start.clone(), SearchConfig { root, ..SearchConfig::default() });
        run(&mut search, 1, true, 1);
        assert_eq!(search.best_move(), Some(first), "{root:?}");
        assert_eq!(search.policy_target(), vec![(first, 1.0)], "{root:?}");
        assert_eq!(search.root_wdl(), [1.0, 0.0, 0.0]);
        assert_eq!(search.principal_variation(), line);
    }
    // In chu a gold beside the king is no mate: the king takes it.
    let chu = game(VariantId::CHU_SHOGI, &board(VariantId::CHU_SHOGI, &[("6h", "K"), ("1a", "k"), ("2c", "G")], "b", "-"));
    assert_eq!(find_mate(chu.position(), 3), None);
}

/// Whether the only royal of `pos`'s side to move can be taken after every move it has: a check
/// with no escape, tried move by move without the mate search.
fn no_escape(pos: &Position) -> bool {
    let defender = pos.side_to_move();
    pos.legal_moves().into_iter().all(|reply| {
        let after = pos.after(reply).unwrap();
        after.royal_count(defender.opponent()) > 0 && after.only_royal_en_prise(defender)
    })
}

#[test]
fn in_chu_a_check_no_reply_escapes_is_a_mate_and_a_player_plays_it_at_once() {
    let id = VariantId::CHU_SHOGI;
    let start = game(id, &board(id, &CHU_LION_MATE, "b", "-"));
    let pos = start.position();
    let line = find_mate(pos, 1).expect("a mate in one");
    assert_eq!(line.len(), 1);
    let text = shogi_zero::rules::notation::coord::write(id.variant(), line[0]);
    assert!(text.starts_with("4d") && (text.ends_with("3b") || text.ends_with("3c")), "{text}");
    let mated = pos.after(line[0]).unwrap();
    assert!(mated.only_royal_en_prise(Color::White) && no_escape(&mated) && is_mated(&mated));
    // Taking the pawn on 2b with the lion is no mate: the king takes the lion back.
    let taken = pos.after(mv(id, "4d2b")).unwrap();
    assert!(taken.only_royal_en_prise(Color::White) && !no_escape(&taken) && !is_mated(&taken));
    // Out of check, no position is mated, with or without moves that lose the king.
    assert!(!is_mated(pos) && !is_mated(&pos.after(mv(id, "4d4c")).unwrap()));
    // With a White rook on 3l guarding the 3 file, no lion move mates.
    let mut guarded = CHU_LION_MATE.to_vec();
    guarded.push(("3l", "r"));
    assert_eq!(find_mate(game(id, &board(id, &guarded, "b", "-")).position(), 3), None);
    // A reply that takes the attacker's last royal escapes the check: with Black's king on 1c,
    // where the pawn on 1b takes it, the lion's checks mate no more, in one or in three.
    let mut exposed: Vec<_> = CHU_LION_MATE.iter().copied().filter(|&(_, piece)| piece != "K").collect();
    exposed.push(("1c", "K"));
    assert_eq!(find_mate(game(id, &board(id, &exposed, "b", "-")).position(), 3), None);
    // A player's search (the royal guard on) plays the mate at any budget; self-play's
    // search, without the guard, leaves it to the tree.
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let mut search = Search::new(start.clone(), SearchConfig { root, ..SearchConfig::default() });
        run(&mut search, 1, true, 1);
        assert_eq!(search.best_move(), Some(line[0]), "{root:?}");
        assert_eq!(search.policy_target(), vec![(line[0], 1.0)]);
        assert_eq!(search.principal_variation(), line);
        let mut search = Search::new(start.clone(), SearchConfig { root, ..SearchConfig::default() }.for_selfplay());
        run(&mut search, 4, true, 1);
        assert_eq!(search.simulations(), 4, "{root:?}: self-play searches on");
    }
}

#[test]
fn puct_finds_a_mate_in_one_with_a_uniform_evaluator() {
    let g = game(VariantId::SHOGI, SHOGI_MATE_IN_ONE);
    let moves = g.legal_moves().len();
    assert!(moves > 50, "the mate must hide among many moves ({moves})");
    let mut search = Search::new(g, config(RootSelection::Puct));
    run(&mut search, 400, false, 1);
    assert_eq!(search.best_move(), Some(mv(VariantId::SHOGI, "G*5b")));
    let wdl = search.root_wdl();
    assert!(wdl[0] > 0.5, "a found mate should make the root look won: {wdl:?}");
}

#[test]
fn gumbel_finds_the_mate_and_its_improved_policy_prefers_it() {
    let g = game(VariantId::SHOGI, SHOGI_MATE_IN_ONE);
    let n = g.legal_moves().len() as f32;
    let mut search = Search::new(g, config(RootSelection::Gumbel));
    // Gumbel noise at the root (explore) so that the considered set is a random sample; the
    // mate must still win once it is considered. 16 considered of ~80 moves: use several seeds
    // and require the improved policy to favour the mate whenever it was visited.
    let mate = mv(VariantId::SHOGI, "G*5b");
    let mut found = 0;
    for seed in 0..8 {
        let mut s = search.clone();
        run(&mut s, 64, true, seed);
        let visited = s.root_moves().iter().any(|&(m, visits, _)| m == mate && visits > 0);
        if visited {
            found += 1;
            assert_eq!(s.best_move(), Some(mate), "seed {seed}");
            let target = s.policy_target();
            let weight = target.iter().find(|(m, _)| *m == mate).map(|&(_, w)| w).unwrap();
            let best_other = target.iter().filter(|(m, _)| *m != mate).map(|&(_, w)| w).fold(0.0, f32::max);
            assert!(weight > 1.0 / n && weight > 2.0 * best_other, "seed {seed}: mate {weight}, other {best_other}");
            let sum: f32 = target.iter().map(|&(_, w)| w).sum();
            assert!((sum - 1.0).abs() < 1e-4);
        }
    }
    assert!(found >= 1, "16 of ~80 moves considered in 8 searches never included the mate");
    // Without noise the considered moves are the top priors (all equal): deterministic.
    run(&mut search, 64, false, 0);
    assert!(search.simulations() == 64);
}

#[test]
fn search_captures_a_hanging_king_in_chu_shogi() {
    let id = VariantId::CHU_SHOGI;
    // Black's rook on 6h sees White's king on 6c (empty file between); capturing it wins.
    let text = board(id, &[("6c", "k"), ("6h", "R"), ("1l", "K"), ("12a", "g"), ("3j", "P")], "b", "-");
    let g = game(id, &text);
    let moves = g.legal_moves().len();
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        for simulations in [1, 200] {
            // A winning capture is played whatever the budget, even where Gumbel's few
            // considered moves (8 of ~moves, all priors equal) would leave it out.
            let mut search = Search::new(g.clone(), config(root));
            run(&mut search, simulations, true, 3);
            let best = search.best_move().unwrap();
            // With or without promotion: either capture ends the game.
            assert!(best == mv(id, "6h6c") || best == mv(id, "6h6c+"), "{root:?} {simulations}: {best:?} of {moves}");
            assert_eq!(search.policy_target(), vec![(best, 1.0)]);
            assert_eq!(search.root_wdl(), [1.0, 0.0, 0.0]);
            assert!(search.simulations() <= 1, "the win needs no search: {}", search.simulations());
        }
    }
    // A capture that does not win (a second gold keeps the king from being bared) is searched
    // as any other move.
    let text = board(id, &[("6c", "k"), ("6h", "R"), ("6e", "g"), ("12a", "g"), ("1l", "K"), ("3j", "P")], "b", "-");
    let mut search = Search::new(game(id, &text), config(RootSelection::Puct));
    run(&mut search, 50, false, 3);
    assert_eq!(search.simulations(), 50);
}

/// A chu position, Black to move: White's rook on 5a sees the whole 5 file, so three of the
/// Black king's eight steps from 6h (5g, 5h, 5i) let it be taken at once, which is legal in chu
/// shogi. Returns the game and those three moves.
fn king_beside_an_open_file() -> (Game, Vec<shogi_zero::rules::Move>) {
    let id = VariantId::CHU_SHOGI;
    let text = board(id, &[("6h", "K"), ("1j", "P"), ("5a", "r"), ("12a", "k")], "b", "-");
    let g = game(id, &text);
    let hanging: Vec<_> = ["6h5g", "6h5h", "6h5i"].iter().map(|m| mv(id, m)).collect();
    assert!(hanging.iter().all(|m| g.legal_moves().contains(m)));
    (g, hanging)
}

#[test]
fn a_search_for_play_never_hangs_its_only_king() {
    let id = VariantId::CHU_SHOGI;
    let (g, hanging) = king_beside_an_open_file();
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        for (simulations, seed) in [(1, 1), (4, 2), (64, 3)] {
            let mut search = Search::new(g.clone(), config(root));
            run(&mut search, simulations, false, seed);
            let best = search.best_move().unwrap();
            assert!(!hanging.contains(&best), "{root:?} {simulations}: {best:?} hangs the king");
            for (m, _, _) in search.root_moves() {
                let prior = prior_of(&search, m);
                assert_eq!(prior == 0.0, hanging.contains(&m), "{root:?}: prior {prior} of {m:?}");
            }
        }
        // With the guard off (as in self-play) every move keeps its prior.
        let mut search = Search::new(g.clone(), SearchConfig { royal_guard: false, ..config(root) });
        run(&mut search, 8, false, 5);
        assert!(hanging.iter().all(|&m| prior_of(&search, m) > 0.0), "{root:?} without the guard");
    }
    // Where every move hangs the king, none is ruled out: White's reverse chariot on 1l gives
    // check along the 1 file, its rook on 2l covers 2a and 2b, and the pawn's move does nothing
    // about the check.
    let text = board(id, &[("1a", "K"), ("10j", "P"), ("2l", "r"), ("1l", "(rc)"), ("12l", "k")], "b", "-");
    let mut search = Search::new(game(id, &text), config(RootSelection::Puct));
    run(&mut search, 30, false, 4);
    assert!(search.tree().node(ROOT).children().all(|c| search.tree().node(c).prior > 0.0));
}

#[test]
fn the_royal_guard_rules_out_the_moves_that_let_the_opponent_mate() {
    let id = VariantId::CHU_SHOGI;
    // The lion mate above turned around: Black's king on 1l boxed in by its pawns, White's lion
    // on 4i. Black's rook on 12i, on the lion's rank, can take it (White's pawn keeps that from
    // baring White's king, a win at once); most of its moves let White mate next move, all but
    // those that guard the lion's checking squares or threaten White's king on 6a in turn.
    let pieces = [("1l", "K"), ("2l", "P"), ("1k", "P"), ("2k", "P"), ("4i", "(ln)"), ("12i", "R"), ("6a", "k"), ("9c", "p")];
    let text = board(id, &pieces, "b", "-");
    let g = game(id, &text);
    let pos = g.position();
    let lets_mate = |m: Move| {
        let after = pos.after(m).unwrap();
        after.only_royal_en_prise(Color::Black)
            || after.legal_moves().into_iter().any(|check| {
                let checked = after.after(check).unwrap();
                checked.only_royal_en_prise(Color::Black) && no_escape(&checked)
            })
    };
    let moves = g.legal_moves();
    let ruled_out: Vec<Move> = moves.iter().copied().filter(|&m| lets_mate(m)).collect();
    assert!(ruled_out.contains(&mv(id, "12i12h")) && !ruled_out.contains(&mv(id, "12i4i")), "{ruled_out:?}");
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let mut search = Search::new(g.clone(), config(root));
        run(&mut search, 16, false, 2);
        assert!(!ruled_out.contains(&search.best_move().unwrap()), "{root:?}");
        for &m in &moves {
            assert_eq!(prior_of(&search, m) == 0.0, ruled_out.contains(&m), "{root:?}: {m:?}");
        }
        // Without the guard (self-play) every move keeps its prior.
        let mut search = Search::new(g.clone(), SearchConfig { royal_guard: false, ..config(root) });
        run(&mut search, 8, false, 5);
        assert!(moves.iter().all(|&m| prior_of(&search, m) > 0.0), "{root:?} without the guard");
    }
}

#[test]
fn search_burns_the_last_king_in_tenjiku_shogi() {
    let id = VariantId::TENJIKU_SHOGI;
    // Black's fire demon on 12h can ride diagonally to 8d, next to White's lone king on 8c, and
    // burn it there without capturing anything: a win the root check must not miss.
    let text = board(id, &[("8c", "k"), ("12h", "(FD)"), ("16a", "g"), ("1p", "K"), ("3j", "P")], "b", "-");
    let g = game(id, &text);
    let next_to_king = ["9b", "8b", "7b", "9c", "7c", "9d", "8d", "7d"];
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let mut search = Search::new(g.clone(), config(root));
        run(&mut search, 1, true, 3);
        let best = search.best_move().unwrap();
        let text = shogi_zero::rules::notation::coord::write(id.variant(), best);
        assert!(text.starts_with("12h") && next_to_king.iter().any(|sq| text.ends_with(sq)), "{root:?}: {text}");
        assert_eq!(search.root_wdl(), [1.0, 0.0, 0.0]);
        assert!(search.simulations() <= 1, "the win needs no search: {}", search.simulations());
    }
}

#[test]
fn visit_counts_add_up() {
    let g = Game::new(Position::start(VariantId::SHOGI), GameRules::default_for(VariantId::SHOGI.variant()));
    let mut search = Search::new(g, config(RootSelection::Puct));
    run(&mut search, 150, true, 7);
    let tree = search.tree();
    assert_eq!(search.simulations(), 150);
    assert_eq!(tree.node(ROOT).visits, 150);
    // Every expanded node: its visits are one (its own evaluation) plus its children's.
    for id in 0..tree.len() as u32 {
        let node = tree.node(id);
        if node.child_count > 0 {
            let children: u32 = node.children().map(|c| tree.node(c).visits).sum();
            assert_eq!(node.visits, children + 1, "node {id}");
        }
    }
    // Priors at the noised root still sum to 1.
    let priors: f32 = tree.node(ROOT).children().map(|c| tree.node(c).prior).sum();
    assert!((priors - 1.0).abs() < 1e-4, "{priors}");
    // The pruned policy target is a distribution over legal moves, never above the visits.
    let target = search.policy_target();
    let sum: f32 = target.iter().map(|&(_, w)| w).sum();
    assert!((sum - 1.0).abs() < 1e-4);
    for (m, _) in target {
        let visits = search.root_moves().iter().find(|&&(x, _, _)| x == m).unwrap().1;
        assert!(visits > 1, "{m:?} has weight with {visits} visits");
    }
}

#[test]
fn forced_playouts_are_pruned_from_the_policy_target() {
    let g = game(VariantId::SHOGI, SHOGI_MATE_IN_ONE);
    let mut search = Search::new(g, config(RootSelection::Puct));
    run(&mut search, 300, true, 11);
    let mate = mv(VariantId::SHOGI, "G*5b");
    let total: u32 = search.root_moves().iter().map(|&(_, v, _)| v).sum();
    let target = search.policy_target();
    let raw_share = |m| search.root_moves().iter().find(|&&(x, _, _)| x == m).unwrap().1 as f32 / total as f32;
    let mate_weight = target.iter().find(|(m, _)| *m == mate).unwrap().1;
    // Pruning takes visits from the other moves only, so the best move's share grows.
    assert!(mate_weight > raw_share(mate), "target {mate_weight}, raw {}", raw_share(mate));
    // Moves left with a single visit are dropped entirely.
    assert!(target.len() < search.root_moves().iter().filter(|m| m.1 > 0).count());
}

#[test]
fn tree_reuse_keeps_the_subtree_of_the_move_played() {
    let g = Game::new(Position::start(VariantId::SHOGI), GameRules::default_for(VariantId::SHOGI.variant()));
    let mut search = Search::new(g, config(RootSelection::Puct));
    run(&mut search, 300, false, 5);
    // The second most visited move: its statistics become the new root's.
    let mut searched = search.root_moves();
    searched.sort_by_key(|&(_, v, _)| std::cmp::Reverse(v));
    let (played, visits, _) = searched[1];
    assert!(visits > 2);
    let child = search.tree().child(ROOT, played).unwrap();
    let grandchildren: Vec<_> =
        search.tree().node(child).children().map(|c| (search.tree().node(c).mv, search.tree().node(c).visits)).collect();
    search.advance(played).unwrap();
    assert_eq!(search.game().moves(), &[played]);
    assert!(!grandchildren.is_empty());
    assert_eq!(search.tree().node(ROOT).visits, visits);
    let kept: Vec<_> = search.tree().node(ROOT).children().map(|c| (search.tree().node(c).mv, search.tree().node(c).visits)).collect();
    assert_eq!(kept, grandchildren);
    // The reused tree grows on: 50 more simulations on top of what was kept.
    run(&mut search, 50, false, 6);
    assert_eq!(search.tree().node(ROOT).visits, visits + 50);
}

#[test]
fn the_same_seed_gives_the_same_search() {
    let g = game(VariantId::SHOGI, SHOGI_MATE_IN_ONE);
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let mut search = Search::new(g.clone(), config(root));
                run(&mut search, 100, true, 42);
                search.root_moves()
            })
            .collect();
        assert_eq!(runs[0], runs[1], "{root:?}");
    }
}

#[test]
fn engine_reuses_its_tree_and_stops_at_its_limits() {
    let start = game(VariantId::SHOGI, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    let mut engine = Engine::new(Box::new(UniformEvaluator), config(RootSelection::Puct), 1);
    let stop = AtomicBool::new(false);
    let first = engine.think(&start, &Limits::simulations(300), &stop, &mut |_| {}).unwrap();
    assert_eq!(first.simulations, 300);
    assert_eq!(first.pv.first(), first.best.as_ref());
    // Two plies along the principal variation, then 50 simulations: the kept subtree makes the
    // tree larger than a fresh engine's after the same 50.
    let mut line = start.clone();
    for &m in &first.pv[..2] {
        line.play(m).unwrap();
    }
    let reused = engine.think(&line, &Limits::simulations(50), &stop, &mut |_| {}).unwrap();
    let mut fresh_engine = Engine::new(Box::new(UniformEvaluator), config(RootSelection::Puct), 1);
    let fresh = fresh_engine.think(&line, &Limits::simulations(50), &stop, &mut |_| {}).unwrap();
    assert_eq!((reused.simulations, fresh.simulations), (50, 50));
    assert!(reused.nodes > fresh.nodes, "reused {} nodes, fresh {}", reused.nodes, fresh.nodes);
    // A different game is searched from scratch.
    let other = game(VariantId::SHOGI, SHOGI_MATE_IN_ONE);
    let mate = engine.think(&other, &Limits::simulations(200), &stop, &mut |_| {}).unwrap();
    assert_eq!(mate.best, Some(mv(VariantId::SHOGI, "G*5b")));
    // A stop flag set beforehand ends the search after its first simulation.
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let stopped = engine.think(&start, &Limits::simulations(1000), &stop, &mut |_| {}).unwrap();
    assert_eq!(stopped.simulations, 1);
}

/// Positions for the walk-down test: each variant's benchmark games (the start, and 30 and 60
/// random plies in), and positions a ply or two before what only the history decides: a fourth
/// occurrence by perpetual check and a plain one (shogi), a pass that would recreate an earlier
/// position (dai), and the ply cap (shogi with a cap of 4 plies).
fn walk_down_games() -> Vec<Game> {
    let mut games: Vec<Game> = VariantId::ALL.into_iter().flat_map(shogi_zero::mcts::bench::bench_games).collect();
    let shogi = VariantId::SHOGI;
    let mut perpetual = game(shogi, "8k/R8/6S1N/7G1/9/9/9/9/K8 b - 1");
    play_all(&mut perpetual, "9b9a 1a1b 9a9b 1b1a 9b9a 1a1b 9a9b 1b1a 9b9a 1a1b");
    let mut repetition = game(shogi, "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1");
    play_all(&mut repetition, "2h1h 8b9b 1h2h 9b8b 2h1h 8b9b 1h2h 9b8b 2h1h 8b9b 1h2h");
    let dai = VariantId::DAI_SHOGI;
    let mut recreation = game(dai, &board(dai, &[("2o", "K"), ("8h", "(Ln)"), ("14a", "k"), ("8b", "(ln)")], "b", "-"));
    play_all(&mut recreation, "pass");
    let capped = Game::new(Position::start(shogi), GameRules { ply_cap: 4, ..GameRules::default_for(shogi.variant()) });
    games.extend([perpetual, repetition, recreation, capped]);
    games
}

/// `root` with `moves` played by the checked [`Game::play`].
fn played(root: &Game, moves: &[Move]) -> Game {
    let mut game = root.clone();
    for &m in moves {
        game.play(m).unwrap_or_else(|e| panic!("{m:?} after {:?} from {}: {e}", game.moves(), root.position()));
    }
    game
}

/// The walk down plays the tree's moves unchecked and settles only the leaf. Every pending leaf
/// is the root game with the same moves played checked (position, hash, history, legal moves),
/// and every node of the finished tree agrees with checked play: an expanded node's children are
/// its position's legal moves in order, a terminal node's game is over with the node's value.
#[test]
fn the_unchecked_walk_down_matches_checked_play() {
    let mut endings = Vec::new();
    for root_game in walk_down_games() {
        let root_ply = root_game.ply();
        for root in [RootSelection::Puct, RootSelection::Gumbel] {
            let mut search =
                Search::new(root_game.clone(), SearchConfig { root, royal_guard: false, mate_search_plies: 0, ..SearchConfig::default() });
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            search.start(150, true);
            while search.select(&mut rng) {
                let (leaf, moves) = search.leaf();
                let checked = played(&root_game, &leaf.moves()[root_ply..]);
                assert_eq!(leaf.position(), checked.position());
                assert_eq!(leaf.position().hash(), checked.position().hash());
                assert_eq!((leaf.moves(), leaf.repetitions(), leaf.outcome()), (checked.moves(), checked.repetitions(), None));
                assert_eq!(moves, checked.legal_moves());
                let evaluation = UniformEvaluator.evaluate(leaf, moves).unwrap();
                search.expand(&evaluation);
            }
            let tree = search.tree();
            let mut stack = vec![(ROOT, root_game.clone())];
            while let Some((id, game)) = stack.pop() {
                match tree.node(id).state {
                    NodeState::New => {}
                    NodeState::Expanded => {
                        assert_eq!(game.outcome(), None);
                        let children: Vec<Move> = tree.node(id).children().map(|c| tree.node(c).mv).collect();
                        assert_eq!(children, game.legal_moves(), "after {:?}", game.moves());
                        stack.extend(tree.node(id).children().map(|c| (c, played(&game, &[tree.node(c).mv]))));
                    }
                    NodeState::Terminal(value) => {
                        let outcome = game.outcome().unwrap_or_else(|| panic!("terminal node, game on after {:?}", game.moves()));
                        let mover = game.position().side_to_move().opponent();
                        let expected = match outcome.winner {
                            None => 0.0,
                            Some(winner) if winner == mover => 1.0,
                            Some(_) => -1.0,
                        };
                        assert_eq!(value, expected, "{outcome:?} after {:?}", game.moves());
                        if !endings.contains(&outcome.reason) {
                            endings.push(outcome.reason);
                        }
                    }
                }
            }
        }
    }
    for ending in [EndReason::PerpetualCheck, EndReason::Repetition, EndReason::PlyCap] {
        assert!(endings.contains(&ending), "{ending:?} among the terminal nodes: {endings:?}");
    }
}

/// Priors that favour one move: `favourite` gets half the mass where it is legal, the other
/// moves share the rest.
struct FavouriteEvaluator {
    favourite: Move,
}

impl Evaluator for FavouriteEvaluator {
    fn evaluate(&mut self, _game: &Game, moves: &[Move]) -> Result<Evaluation, EvaluatorError> {
        let others = moves.iter().filter(|&&m| m != self.favourite).count().max(1);
        let priors = moves.iter().map(|&m| if m == self.favourite { 0.5 } else { 0.5 / others as f32 }).collect();
        Ok(Evaluation { priors, wdl: [0.3, 0.4, 0.3], moves_left: 0.0 })
    }
}

/// With too few simulations to visit any child (one, which expands the root), the search
/// plays the network's favourite move, not an arbitrary one; with two it visits that move.
#[test]
fn a_search_too_short_to_visit_a_child_plays_the_highest_prior() {
    let start = Game::new(Position::start(VariantId::SHOGI), GameRules::default_for(VariantId::SHOGI.variant()));
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        for favourite in ["7g7f", "1g1f", "5i4h"] {
            let favourite = mv(VariantId::SHOGI, favourite);
            for simulations in [1, 2] {
                let mut engine = Engine::new(Box::new(FavouriteEvaluator { favourite }), config(root), 1);
                let info = engine.think(&start, &Limits::simulations(simulations), &AtomicBool::new(false), &mut |_| {}).unwrap();
                assert_eq!(info.best, Some(favourite), "{root:?}, {simulations} simulations");
            }
        }
    }
}

/// With a capture utility a leaf is valued by the material its side to move has won since the
/// root and still wins by captures: Black's rook on 5g, attacked by White's pawn on 5f, is kept
/// (taken out of the pawn's reach, or taking it), every move that leaves it to the pawn is
/// valued below every move that does not, and taking the pawn, which wins it for good, is the
/// best move. A Gumbel root that visits each move once shows each child's leaf value as it is;
/// without the utility every move is worth the even value.
#[test]
fn the_capture_utility_sees_the_pieces_a_move_leaves_to_be_taken() {
    let rook = VariantId::SHOGI.variant().geometry.parse_square("5g").unwrap();
    let start = game(VariantId::SHOGI, "4k4/9/9/9/9/4p4/4R4/9/4K4 b - 1");
    let unit = Material::of(VariantId::SHOGI).mean_start_piece();
    let moves = start.legal_moves();
    for weight in [0.0f32, 1.0] {
        let config = SearchConfig { capture_utility: weight, gumbel_considered: 64, ..config(RootSelection::Gumbel) };
        let mut search = Search::new(start.clone(), config);
        run(&mut search, moves.len() as u32 + 1, false, 3);
        let values = search.root_moves();
        assert_eq!(values.len(), moves.len());
        for &(mv, visits, q) in &values {
            assert_eq!(visits, 1, "weight {weight}: {mv:?}");
            let mut after = start.position().clone();
            after.play_unchecked(mv);
            let material = Material::of(VariantId::SHOGI);
            let since_root = material.evaluate(&after) - material.balance(start.position(), after.side_to_move());
            let stand = material.evaluate(&after);
            let captures = MaterialSearch::new(VariantId::SHOGI).with_quiescence(QUIESCENCE_PLIES).quiescence_score(&mut after) - stand;
            let gain = (since_root + captures) as f32 / unit;
            let want = -weight * gain.tanh() / (1.0 + weight);
            assert!((q.unwrap() - want).abs() < 1e-5, "weight {weight}: {mv:?} has q {q:?}, not {want}");
        }
        if weight == 0.0 {
            continue;
        }
        let keeps_rook = |mv: Move| matches!(mv, Move::Normal { from, .. } if from == rook);
        let q_of = |keep: bool| values.iter().filter(move |&&(mv, _, _)| keeps_rook(mv) == keep).map(|&(_, _, q)| q.unwrap());
        let worst_keeping = q_of(true).fold(f32::INFINITY, f32::min);
        let best_leaving = q_of(false).fold(f32::NEG_INFINITY, f32::max);
        assert!(worst_keeping > best_leaving + 0.3, "{values:?}");
        // Taking the pawn wins it for good: the best of the moves that keep the rook.
        let pawn = VariantId::SHOGI.variant().geometry.parse_square("5f").unwrap();
        assert!(matches!(search.best_move().unwrap(), Move::Normal { from, to, .. } if from == rook && to == pawn));
    }
    let error = SearchConfig { capture_utility: -1.0, ..SearchConfig::default() }.validate().unwrap_err();
    assert_eq!(error.field, "search.capture_utility");
}

/// Priors even and the game very likely drawn: the evaluator's draw probability alone leaves
/// no room for a value far from even.
struct DrawishEvaluator;

impl Evaluator for DrawishEvaluator {
    fn evaluate(&mut self, _game: &Game, moves: &[Move]) -> Result<Evaluation, EvaluatorError> {
        let priors = vec![1.0 / moves.len() as f32; moves.len()];
        Ok(Evaluation { priors, wdl: [0.1, 0.8, 0.1], moves_left: 0.0 })
    }
}

/// The capture utility moves a root's value further from even than the evaluator's draw
/// probability allows (a free rook to take, every position seen 80% drawn): the root's
/// win, draw and loss stay a distribution whose win minus loss is the root's value, as the
/// replay files that self-play writes with the option on require.
#[test]
fn the_root_value_stays_a_distribution_when_the_capture_utility_moves_it() {
    let start = game(VariantId::SHOGI, "4k4/9/9/9/9/4r4/4R4/9/4K4 b - 1");
    let mut search = Search::new(start, SearchConfig { capture_utility: 1.0, ..config(RootSelection::Puct) });
    run_with(&mut DrawishEvaluator, &mut search, 200, false, 1);
    let moves = search.root_moves();
    let visits = moves.iter().map(|&(_, n, _)| n as f32).sum::<f32>();
    let children = moves.iter().map(|&(_, n, q)| n as f32 * q.unwrap_or(0.0)).sum::<f32>() / visits;
    assert!(children > 0.3, "taking the rook should make the root look good: {children}");
    let [win, draw, loss] = search.root_wdl();
    assert!([win, draw, loss].iter().all(|p| (0.0..=1.0).contains(p)), "{win} {draw} {loss}");
    assert!((win + draw + loss - 1.0).abs() < 1e-5, "{win} {draw} {loss}");
    assert!(win - loss > 0.3 && draw < 0.7, "the draw gives way to the value: {win} {draw} {loss}");
}

/// A search moved on through a capture (as an engine's reused search is, move after move)
/// measures what its leaves win from the new root. A Gumbel root starts its tree afresh when it
/// moves on: its children's values are those of a new search of the same position. A PUCT root
/// keeps the subtree and measures its values again: each kept position is worth what a new
/// search finds it worth, and every node's sum of values is its own value and its children's
/// sums backed up, as the simulations would have left them.
#[test]
fn the_capture_utility_measures_from_the_root_a_search_moved_on_to() {
    let start = game(VariantId::SHOGI, "4k4/9/9/9/9/4p4/4R4/9/4K4 b - 1");
    let take = mv(VariantId::SHOGI, "5g5f");
    let mut after = start.clone();
    after.play(take).unwrap();
    let visit_all = |root| SearchConfig { capture_utility: 1.0, gumbel_considered: 64, ..config(root) };
    let visits = after.legal_moves().len() as u32 + 1;
    let mut fresh = Search::new(after.clone(), visit_all(RootSelection::Gumbel));
    run(&mut fresh, visits, false, 3);
    let mut moved = Search::new(start.clone(), visit_all(RootSelection::Gumbel));
    run(&mut moved, 40, false, 3);
    moved.advance(take).unwrap();
    run(&mut moved, visits, false, 3);
    assert_eq!(moved.root_moves(), fresh.root_moves());

    let mut moved = Search::new(start.clone(), visit_all(RootSelection::Puct));
    run(&mut moved, 300, false, 3);
    let child = moved.tree().child(ROOT, take).unwrap();
    let kept = moved.tree().node(child).visits;
    assert!(kept > 10, "{kept} visits");
    moved.advance(take).unwrap();
    let tree = moved.tree();
    assert_eq!(tree.node(ROOT).visits, kept);
    let mut compared = 0;
    for c in tree.node(ROOT).children().filter(|&c| tree.node(c).state == NodeState::Expanded) {
        let anew = fresh.tree().child(ROOT, tree.node(c).mv).unwrap();
        assert!((tree.node(c).raw_value - fresh.tree().node(anew).raw_value).abs() < 1e-6, "{:?}", tree.node(c).mv);
        compared += 1;
    }
    assert!(compared > 0);
    for id in tree.ids() {
        let node = tree.node(id);
        let want = match node.state {
            NodeState::New => 0.0,
            NodeState::Terminal(value) => node.visits as f32 * value,
            NodeState::Expanded => -node.raw_value - node.children().map(|c| tree.node(c).value_sum).sum::<f32>(),
        };
        assert!((node.value_sum - want).abs() < 1e-3, "node {id}: {} against {want}", node.value_sum);
    }
    // A quiet move keeps what was searched under it as it was.
    let config = SearchConfig { capture_utility: 1.0, ..config(RootSelection::Puct) };
    let mut moved = Search::new(start.clone(), config);
    run(&mut moved, 200, false, 3);
    let quiet = mv(VariantId::SHOGI, "5g4g");
    let child = moved.tree().child(ROOT, quiet).unwrap();
    let (visits, sum) = (moved.tree().node(child).visits, moved.tree().node(child).value_sum);
    assert!(moved.tree().node(child).state == NodeState::Expanded, "{visits} visits");
    moved.advance(quiet).unwrap();
    assert_eq!((moved.tree().node(ROOT).visits, moved.tree().node(ROOT).value_sum), (visits, sum));
}

/// A chu position where Black, with two rooks, two bishops and a gold against a gold, is far
/// ahead; White's king on 6a, his gold on 1a, out of reach. `rook` is where Black's first rook stands.
fn chu_far_ahead(rook: &str, side: &str) -> Game {
    let id = VariantId::CHU_SHOGI;
    let pieces = [("6a", "k"), ("1a", "g"), ("1l", "K"), (rook, "R"), ("11l", "R"), ("10l", "B"), ("9l", "B"), ("8l", "G")];
    game(id, &board(id, &pieces, side, "-"))
}

#[test]
fn the_pursuit_score_counts_a_decisive_lead_and_grows_as_the_side_ahead_closes_in() {
    // No lead, or a lead of one piece: no score.
    assert_eq!(pursuit(&Position::start(VariantId::CHU_SHOGI), DECISIVE_LEAD), 0.0);
    let id = VariantId::CHU_SHOGI;
    let one_up = board(id, &[("6a", "k"), ("12a", "g"), ("1l", "K"), ("8l", "G"), ("7l", "G")], "b", "-");
    assert_eq!(pursuit(game(id, &one_up).position(), DECISIVE_LEAD), 0.0);
    // Far ahead: positive for the side ahead to move, the same negated for the side behind.
    let far = pursuit(chu_far_ahead("12k", "b").position(), DECISIVE_LEAD);
    assert!(far > 0.0 && far <= 1.0, "{far}");
    assert_eq!(pursuit(chu_far_ahead("12k", "w").position(), DECISIVE_LEAD), -far);
    // A rook two steps from the king, covering its squares, scores higher than one far off.
    let near = pursuit(chu_far_ahead("6c", "b").position(), DECISIVE_LEAD);
    assert!(near > far + 0.1, "near {near}, far {far}");
    // A rook next to the king stays within the bounds.
    assert!(pursuit(chu_far_ahead("5b", "b").position(), DECISIVE_LEAD) <= 1.0);
    // The threshold (`pursuit_lead`) decides: a lead counts from it on, not below it.
    let position = chu_far_ahead("12k", "b").position().clone();
    let lead = Material::of(id).lead(&position, Color::Black);
    assert!(lead > DECISIVE_LEAD, "{lead}");
    assert_eq!(pursuit(&position, lead), far);
    assert_eq!(pursuit(&position, lead + 0.01), 0.0);
    let error = SearchConfig { pursuit_lead: 0.0, ..SearchConfig::default() }.validate().unwrap_err().to_string();
    assert!(error.contains("pursuit_lead"), "{error}");
}

#[test]
fn the_pursuit_utility_moves_a_value_toward_the_bound_of_the_side_ahead() {
    let weighted = |w: f32| SearchConfig { pursuit_utility: w, ..SearchConfig::default() };
    assert_eq!(weighted(0.0).with_pursuit(0.3, 1.0), 0.3);
    assert_eq!(weighted(1.0).with_pursuit(0.3, 0.0), 0.3);
    assert!((weighted(1.0).with_pursuit(0.3, 1.0) - 1.0).abs() < 1e-6);
    assert!((weighted(1.0).with_pursuit(0.3, -1.0) + 1.0).abs() < 1e-6);
    assert!((weighted(0.5).with_pursuit(0.2, 0.5) - (0.2 + 0.25 * 0.8)).abs() < 1e-6);
    assert!((weighted(0.5).with_pursuit(0.2, -0.5) - (0.2 - 0.25 * 1.2)).abs() < 1e-6);
    for bad in [-0.1, 1.5, f32::NAN] {
        let error = weighted(bad).validate().unwrap_err().to_string();
        assert!(error.contains("pursuit_utility"), "{error}");
    }
}

/// With values that tell no move apart (a uniform evaluator), a search with the pursuit
/// utility plays the move that closes in the most on the enemy king; without it, another.
#[test]
fn a_search_with_the_pursuit_utility_closes_in_where_its_values_are_even() {
    let g = chu_far_ahead("12k", "b");
    let position = g.position().clone();
    let before = pursuit(&position, DECISIVE_LEAD);
    let after = |w: f32| {
        let mut search = Search::new(g.clone(), SearchConfig { pursuit_utility: w, ..config(RootSelection::Puct) });
        run(&mut search, 400, false, 5);
        let best = search.best_move().unwrap();
        // The score of the position after the move, for the side that made it.
        -pursuit(&position.after(best).unwrap(), DECISIVE_LEAD)
    };
    let most = g.legal_moves().iter().map(|&m| -pursuit(&position.after(m).unwrap(), DECISIVE_LEAD)).fold(f32::MIN, f32::max);
    let (pursued, unaided) = (after(1.0), after(0.0));
    assert!(pursued > before && pursued == most, "before {before}, after {pursued}, the most a move gives {most}");
    assert!(unaided < pursued, "without the utility: {unaided}");
}

#[test]
fn the_material_guard_rules_out_the_moves_that_lose_the_rook() {
    let id = VariantId::SHOGI;
    let g = game(id, SHOGI_ROOK_ATTACKED);
    let rook_square = mv(id, "2e2b+").origin();
    for root in [RootSelection::Puct, RootSelection::Gumbel] {
        let mut search = Search::new(g.clone(), SearchConfig { material_guard: true, ..config(root) });
        run(&mut search, 32, false, 7);
        let kept: Vec<Move> = search.root_moves().into_iter().map(|(m, _, _)| m).filter(|&m| prior_of(&search, m) > 0.0).collect();
        assert!(kept.iter().all(|m| m.origin() == rook_square), "{root:?}: {kept:?}");
        assert!(kept.contains(&mv(id, "2e2b+")) && kept.contains(&mv(id, "2e2a+")), "{root:?}: {kept:?}");
        for lost in ["2e2d", "2e2c", "2e3e", "2e4e", "2e2h", "2e2b"] {
            assert!(!kept.contains(&mv(id, lost)), "{root:?}: {lost} kept");
        }
        assert_eq!(search.best_move().unwrap().origin(), rook_square, "{root:?}");
        // Without the guard (the default) a king move keeps its prior.
        let mut search = Search::new(g.clone(), config(root));
        run(&mut search, 32, false, 7);
        assert!(prior_of(&search, mv(id, "5i4h")) > 0.0, "{root:?} without the guard");
    }
}

//! The arena: Elo, confidence and SPRT numbers against hand and reference computations, player
//! specs, matches (pairing, colours, records), failing and outside engines, ladders and gating,
//! and the `arena` command.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{board, mv, Scratch, CHU_LION_MATE};
use shogi_zero::arena::alphabeta::AlphaBetaPlayer;
use shogi_zero::arena::ladder::{checkpoints, finite_elo};
use shogi_zero::arena::player::{EngineProtocol, EngineSpec};
use shogi_zero::arena::records::{FailureKind, MatchEnding, MatchGame};
use shogi_zero::arena::runner::play_game;
use shogi_zero::arena::stats::{elo_from_score, erf, los, score_from_elo, SprtDecision};
use shogi_zero::arena::{
    factory, gate, run_ladder, run_match, ArenaError, Budget, EloEstimate, GateConfig, LadderConfig, MatchConfig, Openings, Player,
    PlayerError, PlayerFactory, PlayerSpec, SpecError, Sprt, Wdl,
};
use shogi_zero::mcts::config::{PLAY_CAPTURE_UTILITY, PLAY_PURSUIT_UTILITY};
use shogi_zero::mcts::{RootSelection, SearchConfig};
use shogi_zero::nn::{checkpoint, Network, NetworkConfig};
use shogi_zero::openings::{parse_openings, random_opening, Opening, OpeningError};
use shogi_zero::rules::material::Material;
use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::{Color, Game, GameRules, Move, Piece, PieceType, Position, VariantId};
use tch::Device;

const SHOGI: VariantId = VariantId::SHOGI;

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance
}

fn make(spec: &str, variant: VariantId) -> Arc<dyn PlayerFactory> {
    factory(&spec.parse().unwrap(), variant).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn config(variant: VariantId, games: u32) -> MatchConfig {
    MatchConfig { games, ..MatchConfig::new(variant) }
}

// ---------------------------------------------------------------------------------------------
// Statistics

/// W=60, D=30, L=10 by hand: n = 100, μ = 0.6 + 0.15 = 0.75, Elo = -400 log10(1/0.75 - 1)
/// = 400 log10 3 = 190.85. σ² = 0.6·0.25² + 0.3·0.25² + 0.1·0.75² = 0.1125, standard error
/// √0.1125 / 10 = 0.033541; μ ± 1.96·0.033541 = 0.684261 and 0.815739, whose Elo are 134.36
/// and 258.45; the margin is half the difference, 62.05.
#[test]
fn elo_and_interval_by_hand() {
    let e = EloEstimate::of(Wdl::new(60, 30, 10)).unwrap();
    assert!(close(e.score, 0.75, 1e-12));
    assert!(close(e.elo, 400.0 * 3f64.log10(), 1e-9));
    assert!(close(e.elo, 190.85, 0.01));
    assert!(close(e.lower, 134.36, 0.01), "{}", e.lower);
    assert!(close(e.upper, 258.45, 0.01), "{}", e.upper);
    assert!(close(e.margin, 62.05, 0.01));
    assert!(close(e.draw_ratio, 0.3, 1e-12));
}

/// Reference numbers from cutechess-cli's formulas (elo.cpp: mean, per-game deviation, phiInv
/// at 0.025 and 0.975, LOS with erf), computed with Python's statistics.NormalDist and math.erf.
#[test]
fn elo_matches_the_cutechess_reference() {
    // (W, D, L) -> (Elo, lower, upper, margin, LOS)
    let cases = [
        ((10, 20, 5), (49.975494643319976, -23.941067429359578, 128.75841342651847, 76.34974042793903, 0.9016471987705266)),
        ((7, 0, 3), (147.19071411783776, -58.946230158234656, 715.834561264188, 387.39039571121134, 0.8970483946339658)),
        ((300, 400, 250), (18.302996224270025, 1.5158771888885707, 35.175998872333075, 16.83006084172225, 0.9834968711693837)),
    ];
    for ((w, d, l), (elo, lower, upper, margin, los_ref)) in cases {
        let e = EloEstimate::of(Wdl::new(w, d, l)).unwrap();
        assert!(close(e.elo, elo, 1e-6), "{w} {d} {l}: elo {}", e.elo);
        assert!(close(e.lower, lower, 1e-6), "{w} {d} {l}: lower {}", e.lower);
        assert!(close(e.upper, upper, 1e-6), "{w} {d} {l}: upper {}", e.upper);
        assert!(close(e.margin, margin, 1e-6), "{w} {d} {l}: margin {}", e.margin);
        assert!(close(e.los, los_ref, 1e-6), "{w} {d} {l}: LOS {}", e.los);
    }
}

#[test]
fn elo_edge_cases() {
    assert_eq!(EloEstimate::of(Wdl::default()), None);
    let even = EloEstimate::of(Wdl::new(45, 10, 45)).unwrap();
    assert!(close(even.elo, 0.0, 1e-9) && close(even.lower, -even.upper, 1e-9));
    assert!(close(even.los, 0.5, 1e-7));
    let all = EloEstimate::of(Wdl::new(20, 0, 0)).unwrap();
    assert_eq!(all.elo, f64::INFINITY);
    assert!(all.los > 0.999_99);
    // Seen from the other side everything changes sign.
    let e = EloEstimate::of(Wdl::new(10, 20, 5)).unwrap();
    let f = EloEstimate::of(Wdl::new(10, 20, 5).flipped()).unwrap();
    assert!(close(e.elo, -f.elo, 1e-9) && close(e.lower, -f.upper, 1e-9) && close(e.los, 1.0 - f.los, 1e-7));
    // Elo and score are inverse functions; 0 Elo is a score of one half.
    for elo in [-400.0, -35.5, 0.0, 10.0, 191.0] {
        assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
    }
    assert_eq!(score_from_elo(0.0), 0.5);
    // erf against known values; LOS without decisive games is one half.
    assert!(close(erf(0.5), 0.520_499_877_8, 2e-7) && close(erf(-1.0), -0.842_700_792_9, 2e-7) && erf(0.0).abs() < 2e-7);
    assert_eq!(los(Wdl::new(0, 9, 0)), 0.5);
}

/// W=60, D=30, L=10 with elo0 = 0, elo1 = 10 by hand: s0 = 0.5, s1 = 1/(1 + 10^(-10/400))
/// = 0.514387; LLR = 100 · 0.014387 · (1.5 - 0.5 - 0.514387) / (2 · 0.1125) = 3.105, above
/// the upper bound ln(0.95/0.05) = 2.944: H1 is accepted. The reference values come from the
/// GSPRT formula of cutechess-cli (sprt.cpp) and fishtest computed in Python.
#[test]
fn sprt_by_hand_and_reference() {
    let sprt: Sprt = "0,10,0.05,0.05".parse().unwrap();
    let (lower, upper) = sprt.bounds();
    assert!(close(lower, (0.05f64 / 0.95).ln(), 1e-12) && close(upper, 2.9444389791664403, 1e-12));
    let status = sprt.status(Wdl::new(60, 30, 10));
    assert!(close(status.llr, 3.1051560065657764, 1e-9), "{}", status.llr);
    assert_eq!(status.decision, SprtDecision::AcceptH1);
    assert!(close(sprt.llr(Wdl::new(10, 20, 5)), 0.31698704386614684, 1e-9));
    assert!(close(sprt.llr(Wdl::new(300, 400, 250)), 1.8144335321927392, 1e-9));
    assert_eq!(sprt.status(Wdl::new(10, 20, 5)).decision, SprtDecision::Continue);
    let wide = Sprt::new(-10.0, 10.0, 0.05, 0.05).unwrap();
    assert!(close(wide.llr(Wdl::new(60, 30, 10)), 6.394304073777196, 1e-9));
    assert!(close(wide.llr(Wdl::new(45, 10, 45)), 0.0, 1e-9));
    // A much weaker side: H0 accepted.
    assert_eq!(sprt.status(Wdl::new(10, 30, 60)).decision, SprtDecision::AcceptH0);
    // No variance, no decision.
    assert_eq!(sprt.llr(Wdl::new(30, 0, 0)), 0.0);
    assert_eq!(sprt.llr(Wdl::default()), 0.0);
}

#[test]
fn sprt_settings_are_checked() {
    for bad in [
        "",
        "0,10",
        "0,10,0.05",
        "a,10,0.05,0.05",
        "0,10,0.05,0.05,1",
        "10,0,0.05,0.05",
        "0,0,0.05,0.05",
        "0,10,0,0.05",
        "0,10,0.05,1",
        "0,10,0.6,0.5",
    ] {
        assert!(bad.parse::<Sprt>().is_err(), "'{bad}' accepted");
    }
    assert_eq!("-5, 5, 0.1, 0.2".parse::<Sprt>().unwrap(), Sprt { elo0: -5.0, elo1: 5.0, alpha: 0.1, beta: 0.2 });
}

// ---------------------------------------------------------------------------------------------
// Player specs

#[test]
fn player_specs_parse_and_print() {
    assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
    assert_eq!("alphabeta:3".parse::<PlayerSpec>().unwrap(), PlayerSpec::AlphaBeta { depth: 3 });
    let usi: PlayerSpec = "usi:fairy-stockfish --x?option.Skill Level=0&option.Threads=1&movetime=50&timeout=2000".parse().unwrap();
    let PlayerSpec::Usi(engine) = &usi else { panic!("{usi:?}") };
    assert_eq!(engine.protocol, EngineProtocol::Usi);
    assert_eq!(engine.command, ["fairy-stockfish", "--x"]);
    assert_eq!(engine.options, [("Skill Level".to_string(), "0".to_string()), ("Threads".to_string(), "1".to_string())]);
    assert_eq!(engine.movetime, Some(Duration::from_millis(50)));
    assert_eq!(engine.timeout, Duration::from_millis(2000));
    let xboard: PlayerSpec = "xboard:hachu?variant=chu&memory=16&depth=3".parse().unwrap();
    let PlayerSpec::Xboard(EngineSpec { variant, memory_mb, depth, .. }) = &xboard else { panic!("{xboard:?}") };
    assert_eq!((variant.as_deref(), *memory_mb, *depth), (Some("chu"), 16, Some(3)));
    let checkpoint = |path: &str, search: SearchConfig| PlayerSpec::Checkpoint { path: PathBuf::from(path), search };
    let play = SearchConfig::for_play();
    assert_eq!("models/shogi/run/step-10.json".parse::<PlayerSpec>().unwrap(), checkpoint("models/shogi/run/step-10.json", play));
    let unguarded: PlayerSpec = "models/chu-shogi/default?royal_guard=off".parse().unwrap();
    assert_eq!(unguarded, checkpoint("models/chu-shogi/default", SearchConfig { royal_guard: false, ..play }));
    let gumbel: PlayerSpec = "run/b?root=gumbel".parse().unwrap();
    assert_eq!(gumbel, checkpoint("run/b", SearchConfig { root: RootSelection::Gumbel, ..play }));
    assert_eq!("run/b?root=puct".parse::<PlayerSpec>().unwrap().to_string(), "run/b");
    let capturing: PlayerSpec = "run/e?capture_utility=2".parse().unwrap();
    assert_eq!(capturing, checkpoint("run/e", SearchConfig { capture_utility: 2.0, ..play }));
    let pursuing: PlayerSpec = "run/g?pursuit_utility=0.5".parse().unwrap();
    assert_eq!(pursuing, checkpoint("run/g", SearchConfig { pursuit_utility: 0.5, ..play }));
    // The network's own search: every aid of a player's search off.
    let own: PlayerSpec = "run/h?capture_utility=0&material_guard=off&pursuit_utility=0".parse().unwrap();
    assert_eq!(own, checkpoint("run/h", SearchConfig::default()));
    assert_eq!(own.to_string(), "run/h?capture_utility=0&material_guard=off&pursuit_utility=0");
    // Any key of the search settings is a key of the spec, booleans as on/off or true/false.
    let tuned: PlayerSpec = "run/i?c_puct=1.5&gumbel_considered=32&mate_search_plies=5&royal_guard=true".parse().unwrap();
    assert_eq!(tuned, checkpoint("run/i", SearchConfig { c_puct: 1.5, gumbel_considered: 32, mate_search_plies: 5, ..play }));
    assert_eq!(tuned.to_string(), "run/i?c_puct=1.5&gumbel_considered=32&mate_search_plies=5");
    let mixed: PlayerSpec = "run/j?material_guard=off&fpu_reduction=0.3&root=gumbel&dirichlet_fraction=0".parse().unwrap();
    assert_eq!(mixed.to_string(), "run/j?dirichlet_fraction=0&fpu_reduction=0.3&material_guard=off&root=gumbel");
    // Out of range: the spec, the key and the rule are named, as in a run's configuration.
    let error = "run/a?pursuit_utility=1.5".parse::<PlayerSpec>().unwrap_err().to_string();
    assert_eq!(error, "player 'run/a?pursuit_utility=1.5': 'pursuit_utility=1.5': search.pursuit_utility: 1.5 is not between 0 and 1");
    for (bad, key) in [
        ("run/e?capture_utility=-1", "capture_utility"),
        ("run/e?capture_utility=lots", "capture_utility"),
        ("run/e?capture_utility=inf", "capture_utility"),
        ("run/g?pursuit_utility=far", "pursuit_utility"),
        ("run/g?royal_guard=off&pursuit_utility=-0.5", "pursuit_utility"),
        ("run/g?mate_search_plies=2", "mate_search_plies"),
        ("run/g?mate_search_plies=1.5", "mate_search_plies"),
        ("run/g?root=mcts", "root"),
        ("run/g?sims=5", "sims"),
    ] {
        let error = bad.parse::<PlayerSpec>().unwrap_err();
        let SpecError::BadParam { spec, param, reason } = &error else { panic!("{bad}: {error:?}") };
        assert_eq!(spec, bad);
        assert!(param.starts_with(&format!("{key}=")), "{bad}: {param}");
        assert!(reason.starts_with(&format!("search.{key}: ")), "{bad}: {reason}");
    }
    // Printing and reading back gives the same spec.
    for spec in
        [PlayerSpec::Random, PlayerSpec::AlphaBeta { depth: 2 }, usi, xboard, unguarded, gumbel, capturing, pursuing, own, tuned, mixed]
    {
        assert_eq!(spec.to_string().parse::<PlayerSpec>().unwrap(), spec);
    }
}

/// The options of a checkpoint spec reach its players' search, and a Gumbel-root player plays
/// whole legal games (here a tiny untrained network against random moves).
#[test]
fn a_checkpoint_specs_options_set_its_search() {
    let PlayerSpec::Checkpoint { search, .. } =
        "run/b?root=gumbel&royal_guard=off&capture_utility=0.5&pursuit_utility=0.4&material_guard=on".parse().unwrap()
    else {
        panic!()
    };
    assert_eq!((search.root, search.royal_guard, search.material_guard), (RootSelection::Gumbel, false, true));
    assert_eq!((search.capture_utility, search.pursuit_utility), (0.5, 0.4));
    // A plain checkpoint searches as a player does: the capture utility, the material guard
    // and the pursuit utility on; self-play's default has all three off.
    let PlayerSpec::Checkpoint { search, .. } = "run/b".parse().unwrap() else { panic!() };
    assert_eq!(search, SearchConfig::for_play());
    assert_eq!(
        SearchConfig::for_play(),
        SearchConfig {
            capture_utility: PLAY_CAPTURE_UTILITY,
            material_guard: true,
            pursuit_utility: PLAY_PURSUIT_UTILITY,
            ..SearchConfig::default()
        }
    );
    assert!(PLAY_CAPTURE_UTILITY > 0.0 && SearchConfig::default().capture_utility == 0.0);
    assert!(PLAY_PURSUIT_UTILITY > 0.0 && SearchConfig::default().pursuit_utility == 0.0);
    assert!(!SearchConfig::default().material_guard);
    let scratch = Scratch::new("arena-gumbel");
    let run_dir = scratch.0.join("tiny");
    checkpoint::save(&Network::new(SHOGI, &NetworkConfig::scaled(1, 8), Device::Cpu).unwrap(), &run_dir, 0).unwrap();
    let mut cfg = config(SHOGI, 2);
    cfg.rules.ply_cap = 60;
    cfg.budget = Budget::Sims(16);
    cfg.out = Some(scratch.0.join("match"));
    let spec = format!("{}?root=gumbel", run_dir.display());
    let report = run_match(&cfg, [make(&spec, SHOGI), make("random", SHOGI)]).unwrap();
    assert_eq!(report.summary.games, 2);
    assert_eq!(check_records(&scratch.0.join("match"), SHOGI, 60).len(), 2);
}

#[test]
fn bad_player_specs_are_refused() {
    let err = |text: &str| text.parse::<PlayerSpec>().unwrap_err();
    assert!(matches!(err("stockfish"), SpecError::Unknown(_)));
    assert!(matches!(err(""), SpecError::Unknown(_)));
    for depth in ["x", "0", "9", "", "-1", "2.5"] {
        assert_eq!(err(&format!("alphabeta:{depth}")), SpecError::BadDepth(depth.to_string()));
    }
    assert!(matches!(err("usi:"), SpecError::MissingCommand(_)));
    assert!(matches!(err("xboard:  ?movetime=5"), SpecError::MissingCommand(_)));
    for bad in [
        "usi:e?movetime",
        "usi:e?movetime=0",
        "usi:e?movetime=x",
        "usi:e?bogus=1",
        "usi:e?variant=chu",
        "xboard:e?nodes=5",
        "usi:e?option.=1",
        "run/a?royal_guard=no",
        "run/a?sims=5",
        "run/a?royal_guard",
        "run/a?royal_capture_leaves=on",
        "run/a?contempt=0.5",
        "run/a?royal_guard=off&x=on",
        "run/a?root=mcts",
        "run/a?root",
    ] {
        assert!(matches!(err(bad), SpecError::BadParam { .. }), "{bad}");
    }
    let message = err("alphabeta:x").to_string();
    assert!(message.contains("'x'") && message.contains("depth"), "{message}");
}

#[test]
fn factories_report_missing_programs_and_checkpoints() {
    let e = factory(&"usi:no-such-engine-here".parse().unwrap(), SHOGI).err().unwrap();
    assert!(matches!(e, PlayerError::NotFound { .. }) && e.is_fatal(), "{e}");
    let e = factory(&"no-such-folder/run".parse().unwrap(), SHOGI).err().unwrap();
    assert!(e.is_fatal() && e.to_string().contains("no-such-folder/run"), "{e}");
    // Heian dai shogi has no xboard name unless one is given.
    let e = factory(&"xboard:/bin/cat".parse().unwrap(), VariantId::HEIAN_DAI_SHOGI).err().unwrap();
    assert!(matches!(e, PlayerError::Unsupported { .. }), "{e}");
    assert!(factory(&"xboard:/bin/cat?variant=heian".parse().unwrap(), VariantId::HEIAN_DAI_SHOGI).is_ok());
}

/// Processes that do not speak the protocol fail fast with a clear error instead of hanging.
#[test]
fn engines_that_do_not_speak_the_protocol_fail_fast() {
    for (spec, expected) in [
        ("usi:/bin/cat?timeout=300", "did not answer 'usi' with 'usiok' within 300 ms"),
        ("usi:true", "exited"),
        ("xboard:/bin/cat?timeout=300", "feature done=1"),
        ("xboard:true", "exited"),
    ] {
        let started = Instant::now();
        let e = make(spec, SHOGI).new_player(0).err().unwrap();
        assert!(e.to_string().contains(expected), "{spec}: {e}");
        assert!(started.elapsed() < Duration::from_secs(5), "{spec} took {:?}", started.elapsed());
        // A match with such a player ends with the error too.
        let e = run_match(&config(SHOGI, 2), [make(spec, SHOGI), make("random", SHOGI)]).unwrap_err();
        assert!(matches!(&e, ArenaError::Player { name, .. } if name == spec), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// The alpha-beta player

#[test]
fn material_values_follow_mobility() {
    let m = Material::of(SHOGI);
    let v = SHOGI.variant();
    let value = |abbr: &str, promoted: bool| {
        let t = v.spec.pieces.iter().position(|p| p.abbr == abbr).unwrap();
        m.value(Piece { color: Color::Black, ptype: PieceType::new(t), promoted })
    };
    // Rook: 16 squares from 5e, dragon 20: 100·16 + 25·4. Gold 6 squares, no promotion.
    assert_eq!(value("R", false), 1700);
    assert_eq!(value("R", true), 2000);
    assert_eq!(value("G", false), 600);
    assert_eq!(value("P", false), 100 + 25 * 5);
    assert_eq!(value("K", false), 0);
    assert!(value("B", false) > value("S", false) && value("S", false) > value("P", false));
    // The start position is balanced in every variant; a lion outweighs a gold in chu.
    for id in VariantId::ALL {
        assert_eq!(Material::of(id).evaluate(&Position::start(id)), 0, "{id}");
    }
    let chu = VariantId::CHU_SHOGI.variant();
    let chu_value = |abbr: &str| {
        let t = chu.spec.pieces.iter().position(|p| p.abbr == abbr).unwrap();
        Material::of(VariantId::CHU_SHOGI).value(Piece { color: Color::Black, ptype: PieceType::new(t), promoted: false })
    };
    assert_eq!(chu_value("Ln"), 2400, "the lion reaches the 24 squares within two steps");
    assert!(chu_value("Ln") > chu_value("G") && chu_value("Q") > chu_value("R"));
}

fn choose(spec_depth: u32, id: VariantId, text: &str) -> String {
    let game = Game::new(sfen::parse(id.variant(), text).unwrap(), GameRules::default_for(id.variant()));
    let mut player = AlphaBetaPlayer::new("ab".to_string(), id, spec_depth, 1);
    let mv = player.choose(&game, Budget::Default).unwrap();
    shogi_zero::rules::notation::coord::write(id.variant(), mv)
}

#[test]
fn alphabeta_mates_and_captures() {
    // Gold drop on 5b mates the king on 5a (supported by the pawn on 5c).
    assert_eq!(choose(2, SHOGI, "4k4/9/4P4/9/9/9/9/9/4K4 b G 1"), "G*5b");
    // Taking the undefended rook is the only capture.
    assert_eq!(choose(1, SHOGI, "k8/9/9/9/4r4/9/9/4R4/K8 b - 1"), "5h5e");
    // In chu the White lion next to the Black king captures it (in one of several ways).
    let chu = "11k/12/12/12/12/12/12/12/12/12/1(ln)10/K11 w - 1";
    let mut game =
        Game::new(sfen::parse(VariantId::CHU_SHOGI.variant(), chu).unwrap(), GameRules::default_for(VariantId::CHU_SHOGI.variant()));
    game.play_text(&choose(1, VariantId::CHU_SHOGI, chu)).unwrap();
    assert_eq!(game.outcome().map(|o| (o.winner, o.reason)), Some((Some(Color::White), shogi_zero::rules::EndReason::RoyalCaptured)));
}

#[test]
fn alphabeta_with_a_time_budget_answers_in_time() {
    let game = Game::new(Position::start(VariantId::TENJIKU_SHOGI), GameRules::default_for(VariantId::TENJIKU_SHOGI.variant()));
    let mut player = AlphaBetaPlayer::new("ab".to_string(), VariantId::TENJIKU_SHOGI, 8, 3);
    let started = Instant::now();
    let mv = player.choose(&game, Budget::Time(Duration::from_millis(200))).unwrap();
    assert!(game.legal_moves().contains(&mv));
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Matches

/// Alpha-beta at depth 2 against random moves: it must win clearly, and significantly.
fn alphabeta_beats_random(id: VariantId, ply_cap: u32) {
    let mut cfg = config(id, 20);
    cfg.concurrency = 2;
    cfg.rules.ply_cap = ply_cap;
    cfg.openings = Openings::random(2);
    cfg.seed = 11;
    let report = run_match(&cfg, [make("alphabeta:2", id), make("random", id)]).unwrap();
    let s = &report.summary;
    assert_eq!(s.games, 20);
    let wdl = s.players[0].total;
    let elo = s.elo.unwrap();
    println!("{id}: alphabeta:2 vs random {wdl} ({:.1}%), {elo}", 100.0 * elo.score);
    assert!(elo.score >= 0.9, "{id}: {wdl}");
    assert!(elo.los > 0.999, "{id}: LOS {}", elo.los);
    assert_eq!(s.adjudicated, 0);
}

/// Random players with a short cap: the games drawn at the cap are counted as such, and every
/// game, decided by the rules, counts toward each player's results by play.
#[test]
fn games_at_the_ply_cap_and_by_play_are_counted() {
    let mut cfg = config(SHOGI, 6);
    cfg.rules.ply_cap = 12;
    let report = run_match(&cfg, [make("random", SHOGI), make("random", SHOGI)]).unwrap();
    let s = &report.summary;
    let capped = report.records.iter().filter(|r| r.reason == "ply cap").count() as u32;
    assert!(capped > 0, "random moves rarely end a game in 12 plies: {:?}", report.records);
    assert_eq!(s.at_ply_cap, capped);
    assert!(report.records.iter().all(|r| r.reached_ply_cap() == (r.reason == "ply cap")));
    for player in &s.players {
        assert_eq!(player.by_play, player.total);
    }
}

#[test]
fn alphabeta_beats_random_at_shogi() {
    alphabeta_beats_random(SHOGI, 300);
}

#[test]
fn alphabeta_beats_random_at_chu_shogi() {
    alphabeta_beats_random(VariantId::CHU_SHOGI, 300);
}

#[test]
fn games_come_in_pairs_with_colours_swapped() {
    let mut cfg = config(SHOGI, 7);
    cfg.openings = Openings::random(6);
    cfg.rules.ply_cap = 40;
    cfg.seed = 3;
    let report = run_match(&cfg, [make("random", SHOGI), make("alphabeta:1", SHOGI)]).unwrap();
    // 7 games are rounded up to 4 pairs.
    assert_eq!(report.records.len(), 8);
    let s = &report.summary;
    for p in &s.players {
        assert_eq!((p.as_black.games(), p.as_white.games()), (4, 4), "{}", p.name);
    }
    assert_eq!(s.players[0].total, s.players[1].total.flipped());
    let mut openings = Vec::new();
    for (k, pair) in report.records.chunks(2).enumerate() {
        let [a, b] = pair else { unreachable!() };
        assert_eq!((a.game, b.game), (2 * k as u32 + 1, 2 * k as u32 + 2));
        assert_eq!((a.pair, b.pair), (k as u32 + 1, k as u32 + 1));
        assert_eq!((a.black_player, b.black_player), (0, 1));
        assert_eq!((a.black.as_str(), a.white.as_str()), ("random", "alphabeta:1"));
        assert_eq!((b.black.as_str(), b.white.as_str()), ("alphabeta:1", "random"));
        let opening = |r: &MatchGame| r.moves.split(' ').take(r.opening_plies).collect::<Vec<_>>().join(" ");
        assert_eq!((a.opening_plies, a.start.as_str()), (6, b.start.as_str()));
        assert_eq!(opening(a), opening(b));
        openings.push(opening(a));
    }
    openings.dedup();
    assert_eq!(openings.len(), 4, "every pair has its own opening");
}

#[test]
fn a_seed_reproduces_a_match() {
    let run = |seed| {
        let mut cfg = config(SHOGI, 4);
        cfg.openings = Openings::random(4);
        cfg.rules.ply_cap = 60;
        cfg.seed = seed;
        run_match(&cfg, [make("random", SHOGI), make("alphabeta:1", SHOGI)]).unwrap().records
    };
    assert_eq!(run(5), run(5));
    assert_ne!(run(5), run(6));
}

/// Two equal players against H1 "400 Elo apart": the SPRT accepts H0 long before 60 games.
#[test]
fn an_sprt_stops_the_match_early() {
    let mut cfg = config(VariantId::CHU_SHOGI, 60);
    cfg.rules.ply_cap = 300;
    cfg.seed = 2;
    cfg.sprt = Some("0,400,0.05,0.05".parse().unwrap());
    let report = run_match(&cfg, [make("alphabeta:1", VariantId::CHU_SHOGI), make("alphabeta:1", VariantId::CHU_SHOGI)]).unwrap();
    let s = &report.summary;
    let sprt = s.sprt.as_ref().unwrap();
    assert_eq!(sprt.status.decision, SprtDecision::AcceptH0, "{sprt:?}");
    assert!(sprt.status.llr <= sprt.status.lower_bound);
    assert!(s.stopped_early && s.games < 60 && s.planned_games == 60, "{} of {}", s.games, s.planned_games);
    assert_eq!(report.records.len() as u32, s.games);
    // With one game at a time the match stops right at the decision: one game less, no decision.
    let last = report.records.last().unwrap();
    let mut earlier = s.players[0].total;
    match last.winner().map(|w| (w == Color::Black) == (last.black_player == 0)) {
        Some(true) => earlier.wins -= 1,
        Some(false) => earlier.losses -= 1,
        None => earlier.draws -= 1,
    }
    assert_eq!(sprt.test.status(earlier).decision, SprtDecision::Continue);
}

#[test]
fn openings_files_are_read_and_checked() {
    let rules = GameRules::default_for(SHOGI.variant());
    let text = "# three ways to write an opening\n\n7g7f 3c3d\nstartpos moves 2g2f 8c8d\nstartpos\n\
                sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 moves 3c3d\n";
    let openings = parse_openings(SHOGI, text, rules).unwrap();
    assert_eq!(openings.len(), 4);
    let start = Position::start(SHOGI);
    assert_eq!(openings[0].game(rules).moves().len(), 2);
    assert_eq!((&openings[1].start, openings[1].moves.len()), (&start, 2));
    assert_eq!((&openings[2].start, openings[2].moves.len()), (&start, 0));
    assert_eq!(openings[3].start.side_to_move(), Color::White);
    // Both games of the 4th pair use the 4th line; the 5th pair starts again from the first.
    let list = Openings { lines: openings.clone(), random_plies: 0 };
    assert_eq!(list.for_pair(SHOGI, rules, 0, 3), openings[3]);
    assert_eq!(list.for_pair(SHOGI, rules, 0, 4), openings[0]);
    for (bad, line, words) in
        [("7g7f\n7g7f 7g7f\n", 2, "move 2"), ("startpos 7g7f\n", 1, "moves"), ("# c\nsfen lnsg b - 1\n", 2, "SFEN"), ("xyz\n", 1, "move 1")]
    {
        match parse_openings(SHOGI, bad, rules) {
            Err(OpeningError::Line { line: l, message }) => assert!(l == line && message.contains(words), "{bad:?}: {l} {message}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    assert!(matches!(parse_openings(SHOGI, "# nothing\n", rules), Err(OpeningError::Empty)));
    // Random openings never end the game and depend only on the seed.
    for seed in 0..20 {
        let o = random_opening(&Opening::start(SHOGI), rules, 8, seed);
        assert_eq!(o.moves.len(), 8);
        assert!(o.game(rules).outcome().is_none());
        assert_eq!(o, random_opening(&Opening::start(SHOGI), rules, 8, seed));
    }
    // Random plies after a file's line: the line, then the plies; each pair its own.
    let after = Openings { lines: openings.clone(), random_plies: 3 };
    let (first, fifth) = (after.for_pair(SHOGI, rules, 0, 0), after.for_pair(SHOGI, rules, 0, 4));
    for o in [&first, &fifth] {
        assert_eq!((&o.start, &o.moves[..2]), (&openings[0].start, &openings[0].moves[..]));
        assert_eq!(o.moves.len(), 5);
    }
    assert_ne!(first, fifth);
}

/// Every game of `dir/games.jsonl` replays to its recorded result.
fn check_records(dir: &Path, id: VariantId, ply_cap: u32) -> Vec<MatchGame> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let records: Vec<MatchGame> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for r in &records {
        let start = sfen::parse(id.variant(), &r.start).unwrap();
        let mut game = Game::new(start, GameRules { ply_cap, ..GameRules::default_for(id.variant()) });
        for m in r.moves.split_whitespace() {
            game.play_text(m).unwrap_or_else(|e| panic!("game {}: {m}: {e}", r.game));
        }
        if !r.adjudicated {
            assert_eq!(game.outcome().map(|o| o.winner), Some(r.winner()), "game {}", r.game);
        }
        // Black's material lead in the last position, in mean start pieces, to two decimals.
        let lead = f64::from(Material::of(id).lead(game.position(), Color::Black));
        let recorded = r.black_lead.unwrap_or_else(|| panic!("game {} records no material lead", r.game));
        assert!((recorded - lead).abs() <= 0.005 + 1e-9, "game {}: {recorded} against {lead}", r.game);
        assert_eq!(r.lead_of(Color::White), Some(-recorded));
    }
    records
}

/// A shogi match of `games` from random 2-ply openings under `ply_cap`, its files in `out`.
fn recorded_shogi_match(out: &Path, games: u32, ply_cap: u32) -> MatchConfig {
    let mut cfg = config(SHOGI, games);
    cfg.rules.ply_cap = ply_cap;
    cfg.openings = Openings::random(2);
    cfg.out = Some(out.to_path_buf());
    cfg
}

/// A match whose games reach the ply cap counts, for each player, the capped games it ended a
/// mean start piece or more ahead, from the recorded material leads.
#[test]
fn games_drawn_at_the_ply_cap_count_the_player_ahead() {
    let scratch = Scratch::new("arena-ply-cap-leads");
    let out = scratch.0.join("match");
    let cfg = recorded_shogi_match(&out, 6, 24);
    let report = run_match(&cfg, [make("alphabeta:1", SHOGI), make("random", SHOGI)]).unwrap();
    let records = check_records(&out, SHOGI, 24);
    let summary = &report.summary;
    assert_eq!(summary.at_ply_cap as usize, records.iter().filter(|r| r.reached_ply_cap()).count());
    for (player, entry) in summary.players.iter().enumerate() {
        let ahead = records
            .iter()
            .filter(|r| r.reached_ply_cap())
            .filter(|r| r.lead_of(if r.black_player == player { Color::Black } else { Color::White }).unwrap() >= 1.0)
            .count();
        assert_eq!(entry.ahead_at_ply_cap as usize, ahead, "player {player}");
    }
    // The searcher takes what the random player leaves hanging: it ends capped games ahead.
    assert!(summary.players[0].ahead_at_ply_cap > 0 && summary.players[1].ahead_at_ply_cap == 0, "{summary:?}");
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["players"][0]["ahead_at_ply_cap"], summary.players[0].ahead_at_ply_cap);
}

#[test]
fn results_and_records_are_written() {
    let scratch = Scratch::new("arena-files");
    let out = scratch.0.join("match");
    let mut cfg = recorded_shogi_match(&out, 4, 80);
    cfg.sprt = Some("0,50,0.05,0.05".parse().unwrap());
    let report = run_match(&cfg, [make("alphabeta:2", SHOGI), make("random", SHOGI)]).unwrap();
    let results: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(results["variant"], "shogi");
    assert_eq!(results["games"], 4);
    assert_eq!(results["players"][0]["name"], "alphabeta:2");
    let wins = results["players"][0]["total"]["wins"].as_u64().unwrap() as u32;
    assert_eq!(wins, report.summary.players[0].total.wins);
    assert_eq!(results["players"][1]["total"]["losses"].as_u64().unwrap() as u32, wins);
    assert!(results["sprt"]["status"]["llr"].is_number());
    assert_eq!(results["ply_cap"], 80);
    let records = check_records(&out, SHOGI, 80);
    assert_eq!(records, report.records);
    // One CSA file per game: header, start, one line per move, the end.
    for r in &records {
        let csa = std::fs::read_to_string(out.join("csa").join(format!("game-{:04}.csa", r.game))).unwrap();
        let lines: Vec<&str> = csa.lines().collect();
        assert_eq!(&lines[..3], ["V2.2", &format!("N+{}", r.black), &format!("N-{}", r.white)]);
        assert!(lines.contains(&"PI"));
        let moves = lines.iter().filter(|l| l.len() == 7 && (l.starts_with('+') || l.starts_with('-'))).count();
        assert_eq!(moves, r.moves.split_whitespace().count(), "game {}", r.game);
        assert!(lines.last().unwrap().starts_with('%'));
    }
    let first = std::fs::read_to_string(out.join("csa/game-0001.csa")).unwrap();
    assert!(first.contains("\n+") && first.lines().nth(6).unwrap().len() == 7, "{first}");
    // Nothing half-written is left behind.
    for dir in [out.clone(), out.join("csa")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.') && !name.ends_with(".tmp"), "{name}");
        }
    }
}

/// A match cut short resumes from its folder: the games kept are the recorded ones, the others
/// are played from the same openings with the same colours, and the totals count them all.
#[test]
fn a_match_cut_short_resumes_from_its_folder() {
    let scratch = Scratch::new("arena-resume");
    let out = scratch.0.join("match");
    let mut cfg = config(SHOGI, 6);
    cfg.rules.ply_cap = 60;
    cfg.seed = 3;
    cfg.out = Some(out.clone());
    let players = || [make("random", SHOGI), make("alphabeta:1", SHOGI)];
    let whole = run_match(&cfg, players()).unwrap();
    // A kill after four games: games.jsonl holds games 1, 2 and 4 (games finish out of order).
    let lines: Vec<String> = std::fs::read_to_string(out.join("games.jsonl")).unwrap().lines().map(String::from).collect();
    let kept = [lines[0].clone(), lines[1].clone(), lines[3].clone()];
    std::fs::write(out.join("games.jsonl"), kept.join("\n") + "\n").unwrap();
    cfg.resume = true;
    let resumed = run_match(&cfg, players()).unwrap();
    assert_eq!(check_records(&out, SHOGI, 60), resumed.records);
    let s = &resumed.summary;
    assert_eq!((s.games, s.planned_games, s.stopped_early), (6, 6, false));
    let opening = |r: &MatchGame| (r.start.clone(), r.moves.split(' ').take(r.opening_plies).collect::<Vec<_>>().join(" "));
    for (r, w) in resumed.records.iter().zip(&whole.records) {
        assert_eq!((r.game, r.pair, r.black_player, &r.black, &r.white), (w.game, w.pair, w.black_player, &w.black, &w.white));
        assert_eq!(opening(r), opening(w), "game {}", r.game);
        if [1, 2, 4].contains(&r.game) {
            assert_eq!(r, w, "a recorded game is kept");
        }
    }
    let wins_of_first = resumed.records.iter().filter(|r| r.winner().is_some_and(|c| (c == Color::Black) == (r.black_player == 0))).count();
    assert_eq!(s.players[0].total.wins as usize, wins_of_first);
    assert_eq!(s.players[0].points + s.players[1].points, 6.0);
    // A finished match plays nothing more: a recorded game stays as it was written.
    let mut records = resumed.records.clone();
    records[1].reason = "kept as recorded".to_string();
    let lines: Vec<String> = records.iter().map(|r| serde_json::to_string(r).unwrap()).collect();
    std::fs::write(out.join("games.jsonl"), lines.join("\n") + "\n").unwrap();
    assert_eq!(run_match(&cfg, players()).unwrap().records, records);
    let others = run_match(&cfg, [make("alphabeta:2", SHOGI), make("alphabeta:1", SHOGI)]);
    assert!(matches!(others, Err(ArenaError::Resume { .. })), "other players are refused: {others:?}");
}

/// Resuming refuses a folder of another match or a damaged one, and says what differs.
#[test]
fn resuming_refuses_another_match() {
    let scratch = Scratch::new("arena-resume-refused");
    let out = scratch.0.join("match");
    let mut cfg = config(SHOGI, 2);
    cfg.rules.ply_cap = 40;
    cfg.out = Some(out.clone());
    let players = || [make("random", SHOGI), make("random", SHOGI)];
    run_match(&cfg, players()).unwrap();
    cfg.resume = true;
    let refused = |cfg: &MatchConfig| match run_match(cfg, players()) {
        Err(e @ ArenaError::Resume { .. }) => e.to_string(),
        other => panic!("{other:?}"),
    };
    let other_seed = MatchConfig { seed: 9, ..cfg.clone() };
    assert!(refused(&other_seed).contains("seed: 9"), "{}", refused(&other_seed));
    let more_games = MatchConfig { games: 4, ..cfg.clone() };
    assert!(refused(&more_games).contains("planned_games: 4"));
    let other_openings = MatchConfig { openings: Openings::random(2), ..cfg.clone() };
    assert!(refused(&other_openings).contains("2 random plies"));
    // Same settings text, other opening moves: the recorded opening no longer matches.
    let games = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let mut record: MatchGame = serde_json::from_str(games.lines().next().unwrap()).unwrap();
    record.start = "4k4/9/9/9/9/9/9/9/4K4 b - 1".to_string();
    std::fs::write(out.join("games.jsonl"), serde_json::to_string(&record).unwrap() + "\n").unwrap();
    assert!(refused(&cfg).contains("game 1 in games.jsonl has another opening"), "{}", refused(&cfg));
    std::fs::write(out.join("games.jsonl"), format!("{}\nnot json\n", games.lines().next().unwrap())).unwrap();
    assert!(refused(&cfg).contains("games.jsonl line 2"), "{}", refused(&cfg));
    // Nothing was lost to the refusals: the folder still holds what it held.
    assert!(std::fs::read_to_string(out.join("games.jsonl")).unwrap().ends_with("not json\n"));
}

#[test]
fn csa_start_positions_and_moves() {
    use shogi_zero::rules::EndReason;
    let start = sfen::parse(SHOGI.variant(), "4k4/9/4P4/9/9/9/9/9/4K4 b GP 1").unwrap();
    let mut game = Game::new(start.clone(), GameRules::default_for(SHOGI.variant()));
    game.play_text("G*5b").unwrap();
    let ending = MatchEnding::Rules { winner: Some(Color::Black), reason: EndReason::Checkmate };
    let text = ending.csa_text(&start, game.moves(), ["a", "b"]).unwrap();
    let expected = "V2.2\nN+a\nN-b\n$EVENT:shogi-zero arena\n\
                    P1 *  *  *  * -OU *  *  *  * \nP2 *  *  *  *  *  *  *  *  * \nP3 *  *  *  * +FU *  *  *  * \n\
                    P4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \n\
                    P7 *  *  *  *  *  *  *  *  * \nP8 *  *  *  *  *  *  *  *  * \nP9 *  *  *  * +OU *  *  *  * \n\
                    P+00KI00FU\n+\n+0052KI\n'1-0 checkmate\n%TSUMI\n";
    assert_eq!(text, expected);
    assert!(ending.csa_text(&Position::start(VariantId::CHU_SHOGI), &[], ["a", "b"]).is_none());
}

// ---------------------------------------------------------------------------------------------
// Failing engines

/// A fake USI engine: a shell script that greets, then does `on_go` when asked to move, and
/// writes its process id to `pids`.
fn fake_usi_engine(dir: &Path, name: &str, on_go: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    let pids = dir.join("pids");
    let script = format!(
        "#!/bin/sh\necho $$ >> '{}'\nwhile read -r line; do\n  case \"$line\" in\n    usi) echo 'id name fake'; echo usiok;;\n    isready) echo readyok;;\n    go*) {on_go};;\n  esac\ndone\n",
        pids.display()
    );
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(script.as_bytes()).unwrap();
    drop(file);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Engines that crash, play illegal moves or stay silent lose their games by adjudication,
/// are started afresh for the next game and are all gone after the match.
#[test]
fn failing_engines_lose_and_are_cleaned_up() {
    let scratch = Scratch::new("arena-fake-engines");
    for (name, on_go, params, expected) in [
        ("crasher", "exit 3", "", "exited (exit status: 3)"),
        ("illegal", "echo 'bestmove 1a1a'", "", "illegal move '1a1a'"),
        ("resigner", "echo 'bestmove resign'", "", "resigned"),
        ("silent", ":", "?movetime=50&timeout=200", "did not answer 'go' with 'bestmove' within 250 ms"),
    ] {
        let engine = fake_usi_engine(&scratch.0, name, on_go);
        let spec = format!("usi:{}{params}", engine.display());
        let started = Instant::now();
        let report = run_match(&config(SHOGI, 2), [make(&spec, SHOGI), make("random", SHOGI)]).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: {:?}", started.elapsed());
        assert_eq!(report.summary.players[0].total, Wdl::new(0, 0, 2), "{name}");
        assert_eq!(report.summary.adjudicated, 2, "{name}");
        assert_eq!(report.summary.players[0].by_play, Wdl::default(), "{name}: no game was decided by play");
        for r in &report.records {
            assert!(r.adjudicated && r.reason.contains(expected), "{name}: {}", r.reason);
        }
    }
    let pids = std::fs::read_to_string(scratch.0.join("pids")).unwrap();
    // Resigning engines are kept for the next game; the others are started again.
    assert_eq!(pids.lines().count(), 2 + 2 + 1 + 2, "{pids}");
    for pid in pids.lines() {
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "engine process {pid} is still there");
    }
}

/// A player that plays its moves in turn, then resigns.
struct Scripted(Vec<Move>);

impl Player for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn new_game(&mut self, _game: &Game, _color: Color) -> Result<(), PlayerError> {
        Ok(())
    }

    fn choose(&mut self, _game: &Game, _budget: Budget) -> Result<Move, PlayerError> {
        if self.0.is_empty() {
            return Err(PlayerError::Resigned);
        }
        Ok(self.0.remove(0))
    }
}

/// A resignation in a mated position (HaChu's way to end a game it has lost on the board) is a
/// win by play; any other resignation loses by adjudication.
#[test]
fn a_resignation_when_mated_is_a_win_by_play() {
    let id = VariantId::CHU_SHOGI;
    // Black's lion mates from 3b; from 2b it only checks: the king takes it back.
    let start = board(id, &CHU_LION_MATE, "b", "-");
    let resigned = MatchEnding::Failure { loser: Color::White, kind: FailureKind::Resigned, error: "resigned".to_string() };
    for (lion, expected) in [("4d3b", MatchEnding::Mated { loser: Color::White }), ("4d2b", resigned)] {
        let mut game = common::game(id, &start);
        let (mut black, mut white) = (Scripted(vec![mv(id, lion)]), Scripted(Vec::new()));
        let ending = play_game(&mut game, [&mut black, &mut white], Budget::Default).unwrap();
        assert_eq!(ending, expected, "{lion}");
        assert_eq!(ending.winner(), Some(Color::Black));
        assert_eq!(game.moves().len(), 1);
    }
    assert_eq!(MatchEnding::Mated { loser: Color::White }.reason_text(), "White resigned when mated");
}

// ---------------------------------------------------------------------------------------------
// Outside engines (feature `outside-engines`: scripts/test.sh turns it on when they are installed)

/// The factory for `spec`; a program that is not installed fails the test.
fn installed(spec: &str, id: VariantId) -> Arc<dyn PlayerFactory> {
    match factory(&spec.parse().unwrap(), id) {
        Ok(f) => f,
        Err(PlayerError::NotFound { command }) => {
            panic!("'{command}' is not installed (apt-get install fairy-stockfish hachu), and feature outside-engines needs it")
        }
        Err(e) => panic!("{spec}: {e}"),
    }
}

fn short_engine_match(spec: &str, id: VariantId, opponent: &str, ply_cap: u32) {
    let engine = installed(spec, id);
    let mut cfg = config(id, 2);
    cfg.rules.ply_cap = ply_cap;
    let report = run_match(&cfg, [engine, make(opponent, id)]).unwrap();
    for r in &report.records {
        println!("{spec}: game {} {} ({}), {} plies", r.game, r.result, r.reason, r.moves.split_whitespace().count());
    }
    assert_eq!(report.summary.games, 2);
    assert_eq!(report.summary.adjudicated, 0, "{:?}", report.records.iter().map(|r| &r.reason).collect::<Vec<_>>());
}

#[test]
#[cfg_attr(not(feature = "outside-engines"), ignore = "needs fairy-stockfish and hachu: feature outside-engines")]
fn fairy_stockfish_over_usi() {
    short_engine_match("usi:fairy-stockfish?option.Skill Level=-20&movetime=20", SHOGI, "alphabeta:1", 160);
}

#[test]
#[cfg_attr(not(feature = "outside-engines"), ignore = "needs fairy-stockfish and hachu: feature outside-engines")]
fn fairy_stockfish_over_xboard() {
    short_engine_match("xboard:fairy-stockfish?option.Skill Level=-20&movetime=20", SHOGI, "alphabeta:1", 160);
}

#[test]
#[cfg_attr(not(feature = "outside-engines"), ignore = "needs fairy-stockfish and hachu: feature outside-engines")]
fn hachu_over_xboard_at_chu_shogi() {
    short_engine_match("xboard:hachu?movetime=50", VariantId::CHU_SHOGI, "alphabeta:1", 120);
}

// ---------------------------------------------------------------------------------------------
// Ladder and gate

#[test]
fn ladder_rates_every_checkpoint_in_step_order() {
    let scratch = Scratch::new("arena-ladder");
    let run = scratch.0.join("run");
    std::fs::create_dir_all(&run).unwrap();
    for name in ["step-100.json", "step-20.json", "step-3.json", "step-x.json", "latest", "step-20.safetensors"] {
        std::fs::write(run.join(name), "{}").unwrap();
    }
    let steps: Vec<u64> = checkpoints(&run).unwrap().into_iter().map(|(s, _)| s).collect();
    assert_eq!(steps, [3, 20, 100]);
    // Stand-ins for checkpoints: stronger players at later steps.
    let make_player = |spec: &PlayerSpec| -> Result<Arc<dyn PlayerFactory>, PlayerError> {
        let spec = match spec {
            PlayerSpec::Checkpoint { path, .. } if path.ends_with("step-3.json") => PlayerSpec::Random,
            PlayerSpec::Checkpoint { path, .. } if path.ends_with("step-20.json") => PlayerSpec::AlphaBeta { depth: 1 },
            PlayerSpec::Checkpoint { .. } => PlayerSpec::AlphaBeta { depth: 2 },
            other => other.clone(),
        };
        factory(&spec, SHOGI)
    };
    let mut matches = config(SHOGI, 4);
    matches.rules.ply_cap = 120;
    let out = scratch.0.join("ladder");
    let ladder = LadderConfig { run: run.clone(), anchor: Some(PlayerSpec::Random), predecessor: true, matches, out: out.clone() };
    let rows = run_ladder(&ladder, &make_player).unwrap();
    let order: Vec<(u64, bool)> = rows.iter().map(|r| (r.step, r.vs_anchor)).collect();
    assert_eq!(order, [(3, true), (20, true), (20, false), (100, true), (100, false)]);
    assert!(rows.iter().all(|r| r.wdl.games() == 4 && r.elo.is_finite()));
    let last = rows.iter().rfind(|r| r.vs_anchor).unwrap();
    assert!(last.rating > 100.0, "alphabeta:2 against random: {last:?}");
    // Chained ratings add each step's Elo to the rating before it.
    let chained: Vec<_> = rows.iter().filter(|r| !r.vs_anchor).collect();
    assert!(close(chained[0].rating, rows[0].rating + chained[0].elo, 1e-9));
    assert!(close(chained[1].rating, chained[0].rating + chained[1].elo, 1e-9));
    let csv = std::fs::read_to_string(out.join("ladder.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + rows.len());
    assert!(csv.starts_with("step,checkpoint,opponent,wins,draws,losses,elo,lower,upper,rating\n3,"));
    let png = std::fs::read(out.join("ladder.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(out.join("step-100-vs-anchor").join("results.json").is_file());
    // Without checkpoints, or without an opponent, there is no ladder.
    assert!(matches!(checkpoints(&scratch.0.join("ladder")), Err(ArenaError::NoCheckpoints(_))));
    let none = LadderConfig { anchor: None, predecessor: false, ..ladder };
    assert!(matches!(run_ladder(&none, &make_player), Err(ArenaError::NoLadderOpponent)));
}

#[test]
fn finite_elo_moves_perfect_scores_half_a_game_in() {
    // 10 wins of 10 count as 9.5 of 10: Elo = -400 log10(1/0.95 - 1) = 511.5.
    assert!(close(finite_elo(Wdl::new(10, 0, 0)), 511.5, 0.1));
    assert!(close(finite_elo(Wdl::new(0, 0, 10)), -511.5, 0.1));
    assert!(close(finite_elo(Wdl::new(6, 2, 2)), elo_from_score(0.7), 1e-9));
}

#[test]
fn gating_is_off_by_default_and_asks_for_the_threshold() {
    let matches = MatchConfig { rules: GameRules { ply_cap: 120, ..GameRules::default_for(SHOGI.variant()) }, ..config(SHOGI, 2) };
    let off = gate(make("random", SHOGI), make("alphabeta:2", SHOGI), &GateConfig::default(), &matches).unwrap();
    assert!(off.accepted && off.report.is_none());
    let on = GateConfig { enabled: true, games: 4, ..GateConfig::default() };
    let strong = gate(make("alphabeta:2", SHOGI), make("random", SHOGI), &on, &matches).unwrap();
    assert!(strong.accepted && strong.score.unwrap() >= 0.55);
    assert_eq!(strong.report.unwrap().summary.games, 4);
    let weak = gate(make("random", SHOGI), make("alphabeta:2", SHOGI), &on, &matches).unwrap();
    assert!(!weak.accepted, "{:?}", weak.score);
    // The trainer reads the gate from TOML; unknown keys are refused.
    let parsed: GateConfig = toml::from_str("enabled = true\ngames = 10").unwrap();
    assert_eq!((parsed.enabled, parsed.games, parsed.threshold), (true, 10, 0.55));
    assert!(toml::from_str::<GateConfig>("gams = 10").is_err());
    let out_of_range = GateConfig { threshold: 1.5, ..GateConfig::default() }.validate().unwrap_err();
    assert_eq!(out_of_range.field, "gating.threshold");
    assert_eq!(GateConfig { games: 1, ..GateConfig::default() }.validate().unwrap_err().field, "gating.games");
}

// ---------------------------------------------------------------------------------------------
// The command

fn shogi_zero(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(args).output().unwrap()
}

#[test]
fn arena_command_plays_and_reports() {
    let scratch = Scratch::new("arena-cli");
    let out = scratch.0.join("m");
    let output = shogi_zero(&[
        "arena",
        "--variant",
        "shogi",
        "--player",
        "alphabeta:1",
        "--player",
        "random",
        "--games",
        "2",
        "--ply-cap",
        "100",
        "--seed",
        "4",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.starts_with("2 games of shogi"), "{stdout}");
    assert!(stdout.contains("alphabeta:1 vs random: Elo"), "{stdout}");
    assert_eq!(check_records(&out, SHOGI, 100).len(), 2);
    for (args, words) in [
        (vec!["--player", "random", "--player", "alphabeta:x"], "'x' is not a search depth"),
        (vec!["--player", "random", "--player", "usi:"], "names no engine command"),
        (vec!["--player", "random"], "exactly two --player"),
        (vec!["--player", "random", "--player", "random", "--sprt", "0,10"], "four numbers"),
        (vec!["--player", "random", "--player", "random", "--games", "0"], "--games"),
        (vec!["--player", "random", "--player", "random", "--threads", "0"], "--threads"),
        (vec!["--player", "random", "--player", "usi:/bin/cat?timeout=200"], "did not answer 'usi'"),
    ] {
        let mut all = vec!["arena", "--variant", "shogi"];
        all.extend(args);
        let output = shogi_zero(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(words), "{all:?}: {stderr}");
    }
}

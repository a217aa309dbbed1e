//! Self-play with a tiny real network: replay files that the reader validates, seeded
//! repetition, and no partial file after a kill.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use indicatif::ProgressBar;
use shogi_zero::material_search::MaterialSearch;
use shogi_zero::mcts::{Model, RootSelection, SearchConfig};
use shogi_zero::nn::{checkpoint, InferenceConfig, Network, NetworkConfig};
use shogi_zero::replay::{self, GameResult, ReplayEnding, ReplayGame};
use shogi_zero::rules::notation::coord;
use shogi_zero::rules::{Color, EndReason, Game, VariantId};
use shogi_zero::selfplay::runner::{self, Counters, Evaluators, SelfplayRun};
use shogi_zero::selfplay::SelfplayConfig;
use tch::Device;

use common::Scratch;

const SHOGI: VariantId = VariantId::SHOGI;

fn tiny_network(variant: VariantId) -> Network {
    tch::manual_seed(7);
    Network::new(variant, &NetworkConfig::scaled(1, 8), Device::Cpu).unwrap()
}

fn inference() -> InferenceConfig {
    InferenceConfig { device: Default::default(), precision: Default::default(), batch_size: 16, max_wait_us: 500 }
}

fn quick_selfplay(ply_cap: u32) -> SelfplayConfig {
    SelfplayConfig {
        simulations: 12,
        fast_simulations: 4,
        full_search_fraction: 0.5,
        ply_cap,
        games_per_worker: 4,
        games_per_file: 3,
        resign_threshold: 0.3,
        resign_consecutive: 2,
        resign_audit_fraction: 0.5,
        ..SelfplayConfig::default()
    }
}

fn selfplay_run(variant: VariantId, out: &Path, games: u64, root: RootSelection, ply_cap: u32) -> SelfplayRun {
    SelfplayRun {
        variant,
        search: SearchConfig { root, ..SearchConfig::default() },
        selfplay: quick_selfplay(ply_cap),
        games: Some(games),
        seed: 99,
        out: out.to_path_buf(),
    }
}

fn replay_files(dir: &Path) -> Vec<PathBuf> {
    replay::list_files(dir).unwrap()
}

#[test]
fn selfplay_writes_replay_files_that_validate() {
    for (variant, root, ply_cap) in [(SHOGI, RootSelection::Puct, 80), (VariantId::CHU_SHOGI, RootSelection::Gumbel, 30)] {
        let scratch = Scratch::new(&format!("selfplay-{}", variant.name()));
        let model = Model::serve(tiny_network(variant), &inference(), "tiny@0".to_string());
        let run = selfplay_run(variant, &scratch.0, 7, root, ply_cap);
        let mut announced = Vec::new();
        let summary = runner::run(
            Evaluators::Shared(&model),
            &run,
            &AtomicBool::new(false),
            &ProgressBar::hidden(),
            &Counters::default(),
            &mut |path| {
                announced.push(path.to_path_buf());
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(summary.games, 7);
        assert_eq!(summary.black_wins + summary.white_wins + summary.draws, 7);
        // 7 games, 3 to a file: 3 files, each announced once.
        let files = replay_files(&scratch.0);
        assert_eq!(files.len(), 3, "{files:?}");
        assert_eq!(announced, files);
        assert_eq!(summary.files, 3);
        let mut games = 0;
        let mut plies = 0;
        let mut targets = 0;
        for path in &files {
            // read_file replays every game through the rules and checks every target.
            let file = replay::read_file(path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(file.header.ply_cap, ply_cap);
            for record in &file.games {
                games += 1;
                plies += record.moves.len() as u64;
                assert_eq!(record.model, "tiny@0");
                assert!(record.moves.len() <= ply_cap as usize);
                targets += record.moves.iter().filter(|m| !m.policy.is_empty()).count();
                if record.result.reason == ReplayEnding::Rules(EndReason::PlyCap) {
                    assert_eq!(record.moves.len(), ply_cap as usize);
                }
            }
        }
        assert_eq!((games, plies), (7, summary.plies));
        // About half the moves get a full search and a policy target.
        let share = targets as f64 / plies as f64;
        assert!((0.3..0.7).contains(&share), "{targets} targets of {plies} moves");
        // Every leaf went through the network.
        let (evaluated, _) = model.counts();
        assert_eq!(evaluated, summary.evaluations);
        assert!(summary.evaluations >= plies);
    }
}

#[test]
fn the_same_seed_gives_the_same_games_in_deterministic_mode() {
    let mut runs = Vec::new();
    for attempt in 0..2 {
        let scratch = Scratch::new(&format!("selfplay-deterministic-{attempt}"));
        let run = selfplay_run(SHOGI, &scratch.0, 4, RootSelection::Puct, 40);
        let evaluators = Evaluators::Deterministic { network: Box::new(tiny_network(SHOGI)), model_id: "tiny@0".to_string() };
        runner::run(evaluators, &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(())).unwrap();
        let records: Vec<_> = replay_files(&scratch.0).iter().flat_map(|p| replay::read_file(p).unwrap().games).collect();
        runs.push(records);
    }
    assert_eq!(runs[0].len(), 4);
    assert_eq!(runs[0], runs[1]);
    // Different games: the seeds differ from game to game.
    assert_ne!(runs[0][0].moves, runs[0][1].moves);
}

/// In a game whose every move was searched fully but one side's moves are an opponent's: checks
/// that exactly the opponent's plies (one parity) carry no target and that the game was played
/// out, and returns that parity.
fn opponent_parity(record: &ReplayGame) -> usize {
    let targets: Vec<bool> = record.moves.iter().map(|m| !m.policy.is_empty()).collect();
    let parity = targets.iter().position(|&t| !t).expect("the opponent moved") % 2;
    for (ply, &target) in targets.iter().enumerate() {
        assert_eq!(target, ply % 2 != parity, "ply {ply} of game {}", record.seed);
    }
    assert!(record.resignation_disabled && record.result.reason != ReplayEnding::Resignation);
    parity
}

#[test]
fn league_games_give_one_side_to_the_opponent_and_record_only_the_learners_targets() {
    let scratch = Scratch::new("selfplay-league");
    let learner = Model::serve(tiny_network(SHOGI), &inference(), "learner@2".to_string());
    tch::manual_seed(8);
    let opponent = Model::serve(Network::new(SHOGI, &NetworkConfig::scaled(1, 8), Device::Cpu).unwrap(), &inference(), "old@1".to_string());
    let mut run = selfplay_run(SHOGI, &scratch.0, 8, RootSelection::Gumbel, 30);
    run.selfplay = SelfplayConfig { league_fraction: 1.0, full_search_fraction: 1.0, ..run.selfplay };
    let evaluators = Evaluators::League { learner: &learner, opponent: &opponent };
    let summary =
        runner::run(evaluators, &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(())).unwrap();
    assert_eq!(summary.games, 8);
    let mut opponent_colours = Vec::new();
    for path in replay_files(&scratch.0) {
        for record in replay::read_file(&path).unwrap_or_else(|e| panic!("{e}")).games {
            opponent_colours.push(opponent_parity(&record));
        }
    }
    assert!(opponent_colours.contains(&0) && opponent_colours.contains(&1), "{opponent_colours:?}");
    // Each network searched its own side's moves.
    assert!(learner.counts().0 > 0 && opponent.counts().0 > 0);
    assert_eq!(learner.counts().0 + opponent.counts().0, summary.evaluations);

    // Without an opponent's network the same settings play plain self-play.
    let scratch = Scratch::new("selfplay-league-none");
    run.out = scratch.0.clone();
    runner::run(Evaluators::Shared(&learner), &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(()))
        .unwrap();
    for path in replay_files(&scratch.0) {
        for record in replay::read_file(&path).unwrap().games {
            assert!(record.moves.iter().all(|m| !m.policy.is_empty()), "game {} had an opponent", record.seed);
        }
    }
}

#[test]
fn searcher_games_give_one_side_to_the_material_searcher() {
    let scratch = Scratch::new("selfplay-searcher");
    let learner = Model::serve(tiny_network(SHOGI), &inference(), "learner@2".to_string());
    let mut run = selfplay_run(SHOGI, &scratch.0, 8, RootSelection::Gumbel, 30);
    run.selfplay = SelfplayConfig { searcher_fraction: 1.0, searcher_depth: 1, full_search_fraction: 1.0, ..run.selfplay };
    let summary =
        runner::run(Evaluators::Shared(&learner), &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| {
            Ok(())
        })
        .unwrap();
    assert_eq!(summary.games, 8);
    let mut searcher_colours = Vec::new();
    let mut searcher_plies = 0;
    for path in replay_files(&scratch.0) {
        // The positions the searcher moved from, by game.
        let mut searched: Vec<(usize, Game)> = Vec::new();
        let file = replay::read_file_with(&path, |index, game, targets| {
            if targets.is_some_and(|t| t.policy.is_empty()) {
                searched.push((index, game.clone()));
            }
        })
        .unwrap_or_else(|e| panic!("{e}"));
        for record in &file.games {
            searcher_colours.push(opponent_parity(record));
        }
        // Each of the searcher's moves is one of the best by material one ply deep.
        for (index, game) in searched {
            let played = coord::parse(game.position(), &file.games[index].moves[game.ply()].mv).unwrap();
            let legal = game.legal_moves();
            let scores = MaterialSearch::new(SHOGI).move_scores(&mut game.position().clone(), &legal, 1);
            let best = scores.iter().max().unwrap();
            let at = legal.iter().position(|&m| m == played).expect("the searcher's move is legal");
            assert_eq!(scores[at], *best, "ply {} of game {}: {played:?}", game.ply(), file.games[index].seed);
            searcher_plies += 1;
        }
    }
    assert!(searcher_plies > 20, "{searcher_plies} searcher moves");
    assert!(searcher_colours.contains(&0) && searcher_colours.contains(&1), "{searcher_colours:?}");
    // The network evaluated once before each of the searcher's moves, a full search before its own.
    assert_eq!(learner.counts().0, summary.evaluations);
    assert!(summary.evaluations < searcher_plies * (1 + run.selfplay.simulations as u64), "{} evaluations", summary.evaluations);
}

#[test]
fn a_killed_selfplay_run_leaves_only_whole_files() {
    let scratch = Scratch::new("selfplay-kill");
    let models = scratch.0.join("models");
    let run_dir = checkpoint::run_dir(&models, SHOGI, "tiny").unwrap();
    checkpoint::save(&tiny_network(SHOGI), &run_dir, 0).unwrap();
    let config = scratch.0.join("tiny.toml");
    std::fs::write(
        &config,
        "variant = \"shogi\"\n\
         [network]\nblocks = 1\nchannels = 8\nglobal_pool_every = 2\nglobal_pool_channels = 2\npolicy_channels = 8\nvalue_channels = 8\nvalue_hidden = 16\n\
         [inference]\ndevice = \"cpu\"\nprecision = \"f32\"\nbatch_size = 8\nmax_wait_us = 200\n\
         [selfplay]\nsimulations = 8\nfast_simulations = 4\nply_cap = 40\ngames_per_worker = 4\ngames_per_file = 1\n",
    )
    .unwrap();
    let out = scratch.0.join("replay");
    let mut child = Command::new(env!("CARGO_BIN_EXE_shogi-zero"))
        .args(["selfplay", "--variant", "shogi", "--games", "100000", "--model"])
        .arg(&run_dir)
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it (SIGKILL) soon after its first files appear, likely in the middle of a write.
    // The deadline is generous so that a loaded machine does not fail the test.
    let deadline = Instant::now() + Duration::from_secs(300);
    while replay::list_files(&out).map(|f| f.len()).unwrap_or(0) < 3 {
        assert!(Instant::now() < deadline, "fewer than three replay files within five minutes");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let files = replay_files(&out);
    assert!(files.len() >= 3);
    for path in files {
        replay::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn games_start_from_the_openings_file_in_turn() {
    let scratch = Scratch::new("selfplay-openings");
    let openings = scratch.0.join("openings.txt");
    let from_sfen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    std::fs::write(&openings, format!("# two openings\nsfen {from_sfen}\nstartpos moves 2g2f 8c8d\n")).unwrap();
    std::fs::create_dir_all(scratch.0.join("replay")).unwrap();
    let mut run = selfplay_run(SHOGI, &scratch.0.join("replay"), 4, RootSelection::Puct, 20);
    run.selfplay.openings = Some(openings);
    let evaluators = Evaluators::Deterministic { network: Box::new(tiny_network(SHOGI)), model_id: "tiny@0".to_string() };
    runner::run(evaluators, &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(())).unwrap();
    let mut starts: Vec<String> = replay_files(&scratch.0.join("replay"))
        .iter()
        .flat_map(|path| replay::read_file(path).unwrap().games.into_iter().map(|g| g.start))
        .collect();
    starts.sort();
    let after_moves = "lnsgkgsnl/1r5b1/p1ppppppp/1p7/9/7P1/PPPPPPP1P/1B5R1/LNSGKGSNL b - 3";
    let mut expected = vec![from_sfen.to_string(), from_sfen.to_string(), after_moves.to_string(), after_moves.to_string()];
    expected.sort();
    assert_eq!(starts, expected);

    // A line that is not a position is an error naming the file and the line.
    std::fs::write(run.selfplay.openings.as_ref().unwrap(), "startpos moves 2g2f\nsfen nonsense\n").unwrap();
    let evaluators = Evaluators::Deterministic { network: Box::new(tiny_network(SHOGI)), model_id: "tiny@0".to_string() };
    let error = runner::run(evaluators, &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("openings.txt") && error.contains("line 2"), "{error}");
}

#[test]
fn a_side_that_holds_a_decisive_lead_is_adjudicated_the_winner_except_in_audited_games() {
    let scratch = Scratch::new("selfplay-adjudication");
    let openings = scratch.0.join("openings.txt");
    // White starts without its rook and bishop: Black leads by several mean start pieces.
    std::fs::write(&openings, "sfen lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n").unwrap();
    std::fs::create_dir_all(scratch.0.join("replay")).unwrap();
    let mut run = selfplay_run(SHOGI, &scratch.0.join("replay"), 12, RootSelection::Puct, 60);
    run.selfplay = SelfplayConfig {
        openings: Some(openings),
        resign_threshold: 0.0,
        adjudicate_lead: 3.0,
        adjudicate_plies: 4,
        resign_audit_fraction: 0.5,
        ..run.selfplay
    };
    let evaluators = Evaluators::Deterministic { network: Box::new(tiny_network(SHOGI)), model_id: "tiny@0".to_string() };
    let summary =
        runner::run(evaluators, &run, &AtomicBool::new(false), &ProgressBar::hidden(), &Counters::default(), &mut |_| Ok(())).unwrap();
    // read_file checks that each adjudication names the side ahead at the end.
    let games: Vec<ReplayGame> = replay_files(&scratch.0.join("replay")).iter().flat_map(|p| replay::read_file(p).unwrap().games).collect();
    let (played_out, adjudicated): (Vec<&ReplayGame>, Vec<&ReplayGame>) = games.iter().partition(|g| g.resignation_disabled);
    assert!(!played_out.is_empty() && !adjudicated.is_empty(), "{} played out of {}", played_out.len(), games.len());
    for game in &adjudicated {
        assert_eq!(game.result, GameResult { winner: Some(Color::Black), reason: ReplayEnding::Adjudication }, "game {}", game.seed);
        assert_eq!(game.moves.len(), 4, "game {}", game.seed);
    }
    for game in &played_out {
        assert_ne!(game.result.reason, ReplayEnding::Adjudication, "game {}", game.seed);
        assert!(game.moves.len() > 4, "game {}", game.seed);
    }
    // Every played-out game would have been adjudicated at its fourth ply, and the audit says how
    // each ended for Black.
    let [won, drawn, lost] = summary.audited_adjudications;
    assert_eq!(won + drawn + lost, played_out.len() as u64);
    let black_wins = played_out.iter().filter(|g| g.result.winner == Some(Color::Black)).count() as u64;
    let draws = played_out.iter().filter(|g| g.result.winner.is_none()).count() as u64;
    assert_eq!((won, drawn), (black_wins, draws));
}

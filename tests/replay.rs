//! Replay files: writing and reading back, every kind of corruption refused with an error that
//! names the file, game and ply, the training window (newest positions, reuse cap, restarts,
//! samples that agree with their games) and `shogi-zero replay check`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use shogi_zero::replay::format::Header;
use shogi_zero::replay::{
    list_files, read_file, write_games, GameError, GameResult, MoveRecord, ReplayEnding, ReplayError, ReplayGame, ReplayWindow,
    TargetConfig, TrainingSample, WindowConfig, WindowError,
};
use shogi_zero::rules::material::Material;
use shogi_zero::rules::notation::coord::{self, MoveError};
use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::GameContext;
use shogi_zero::rules::{Color, EndReason, Game, GameRules, Move, Position, VariantId};

const SHOGI: VariantId = VariantId::SHOGI;
const CHU: VariantId = VariantId::CHU_SHOGI;

/// Shogi under a short ply cap, so that random games end by rule quickly.
fn shogi_rules() -> GameRules {
    GameRules { ply_cap: 60, ..GameRules::default_for(SHOGI.variant()) }
}

fn chu_rules() -> GameRules {
    GameRules { ply_cap: 16, ..GameRules::default_for(CHU.variant()) }
}

/// A fresh folder under the system's temporary folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("shogi-zero-test-replay-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).expect("create a temporary folder");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Three probabilities from the generator.
fn random_distribution(rng: &mut ChaCha8Rng, n: usize) -> Vec<f32> {
    let raw: Vec<f32> = (0..n).map(|_| rng.random_range(0.05f32..1.0)).collect();
    let sum: f32 = raw.iter().sum();
    raw.iter().map(|w| w / sum).collect()
}

/// A game of seeded random legal moves. Every `full_every`-th ply gets a policy target over a
/// few legal moves, the played one among them. With `resign_at`, the side to move resigns at
/// that ply unless the game ended before; otherwise the game runs to its end by rule.
fn random_game(id: VariantId, rules: GameRules, seed: u64, full_every: usize, resign_at: Option<usize>) -> ReplayGame {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = Position::start(id);
    let mut game = Game::new(start.clone(), rules);
    let mut moves = Vec::new();
    while game.outcome().is_none() && Some(game.ply()) != resign_at {
        let legal = game.legal_moves();
        let played = legal[rng.random_range(0..legal.len())];
        let policy = if game.ply().is_multiple_of(full_every) {
            let mut chosen = vec![played];
            while chosen.len() < legal.len().min(4) {
                let other = legal[rng.random_range(0..legal.len())];
                if !chosen.contains(&other) {
                    chosen.push(other);
                }
            }
            let weights = random_distribution(&mut rng, chosen.len());
            chosen.iter().zip(weights).map(|(&m, w)| (coord::write(id.variant(), m), w)).collect()
        } else {
            Vec::new()
        };
        let wdl = random_distribution(&mut rng, 3);
        moves.push(MoveRecord { mv: coord::write(id.variant(), played), policy, root_wdl: [wdl[0], wdl[1], wdl[2]] });
        game.play(played).expect("a legal move plays");
    }
    let result = match game.outcome() {
        Some(outcome) => GameResult::from(outcome),
        None => GameResult { winner: Some(game.position().side_to_move().opponent()), reason: ReplayEnding::Resignation },
    };
    ReplayGame {
        variant: id.name().to_string(),
        start: sfen::write(&start),
        moves,
        result,
        model: "test-model-000100".to_string(),
        seed,
        resignation_disabled: false,
    }
}

/// Shogi games: even seeds run to the ply cap, odd seeds resign at a ply between 10 and 40.
fn shogi_games(first_seed: u64, count: usize, full_every: usize) -> Vec<ReplayGame> {
    (first_seed..first_seed + count as u64)
        .map(|seed| {
            let resign_at = (seed % 2 == 1).then_some(10 + (seed as usize * 7) % 31);
            random_game(SHOGI, shogi_rules(), seed, full_every, resign_at)
        })
        .collect()
}

/// Training positions (plies with a policy target) of some games.
fn training_positions(games: &[ReplayGame]) -> usize {
    games.iter().flat_map(|g| &g.moves).filter(|m| !m.policy.is_empty()).count()
}

/// The game of `record` after its first `ply` moves.
fn game_at(record: &ReplayGame, id: VariantId, rules: GameRules, ply: usize) -> Game {
    let mut game = Game::new(sfen::parse(id.variant(), &record.start).expect("start parses"), rules);
    for m in &record.moves[..ply] {
        game.play_text(&m.mv).expect("recorded move plays");
    }
    game
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// Writing and reading
// ---------------------------------------------------------------------------------------------

#[test]
fn games_read_back_equal_with_their_header() {
    let dir = TempDir::new("roundtrip");
    let shogi = shogi_games(1, 6, 2);
    assert!(shogi.iter().any(|g| g.result.reason == ReplayEnding::Resignation));
    assert!(shogi.iter().any(|g| g.result.reason == ReplayEnding::Rules(EndReason::PlyCap)));
    let chu: Vec<ReplayGame> = (0..3).map(|seed| random_game(CHU, chu_rules(), seed, 3, None)).collect();
    assert!(chu.iter().all(|g| g.moves.len() == 16 && g.result.reason == ReplayEnding::Rules(EndReason::PlyCap)));

    let shogi_path = write_games(dir.path(), SHOGI, shogi_rules(), &shogi).unwrap();
    let chu_path = write_games(dir.path(), CHU, chu_rules(), &chu).unwrap();
    for (path, id, rules, games) in [(&shogi_path, SHOGI, shogi_rules(), &shogi), (&chu_path, CHU, chu_rules(), &chu)] {
        let file = read_file(path).unwrap();
        assert_eq!(&file.games, games);
        assert_eq!(file.variant, id);
        assert_eq!(file.header.variant, id.name());
        assert_eq!(file.header.rules(), rules);
        assert_eq!(file.header.games, games.len());
        assert_eq!((file.header.format.as_str(), file.header.version), ("shogi-zero-replay", 1));
        let name = file_name(path);
        assert!(name.starts_with("games-") && name.ends_with(".replay"), "{name}");
    }
    assert_eq!(list_files(dir.path()).unwrap(), vec![shogi_path, chu_path]);
}

#[test]
fn file_names_sort_in_creation_order() {
    let dir = TempDir::new("names");
    let games = shogi_games(1, 1, 3);
    let written: Vec<PathBuf> = (0..5).map(|_| write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap()).collect();
    let mut sorted = written.clone();
    sorted.sort();
    assert_eq!(written, sorted, "names must sort in the order the files were written");
    assert_eq!(list_files(dir.path()).unwrap(), written);
    let created: Vec<u64> = written.iter().map(|p| read_file(p).unwrap().header.created_unix_ms).collect();
    assert!(created.windows(2).all(|w| w[0] <= w[1]), "{created:?}");
}

#[test]
fn writer_refuses_games_of_another_variant() {
    let dir = TempDir::new("writer-variant");
    let mut games = shogi_games(1, 2, 3);
    games[1].variant = "chu-shogi".to_string();
    let error = write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap_err();
    assert!(matches!(error, ReplayError::Game { game: 2, source: GameError::Variant { .. }, .. }), "{error}");
    assert!(list_files(dir.path()).unwrap().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Corruption
// ---------------------------------------------------------------------------------------------

/// Writes `games` and returns the file's text split into lines (each without its `\n`).
fn written_lines(dir: &Path, games: &[ReplayGame]) -> (PathBuf, Vec<String>) {
    let path = write_games(dir, SHOGI, shogi_rules(), games).unwrap();
    let text = fs::read_to_string(&path).unwrap();
    (path, text.lines().map(str::to_string).collect())
}

/// Reads a file that must be refused; checks that the message names the file.
fn refused(path: &Path) -> ReplayError {
    let error = read_file(path).expect_err("a corrupt file must be refused");
    let message = error.to_string();
    assert!(message.contains(&file_name(path)), "the message does not name the file: {message}");
    error
}

/// Writes `text` under a new replay name in `dir` and reads it back, which must fail.
fn refused_text(dir: &Path, text: &str) -> ReplayError {
    let path = dir.join(format!("games-edited-{}.replay", list_files(dir).unwrap().len()));
    fs::write(&path, text).unwrap();
    refused(&path)
}

fn joined(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn cut_and_miscounted_files_are_refused() {
    let dir = TempDir::new("cut");
    let (_, lines) = written_lines(dir.path(), &shogi_games(1, 3, 2));
    let full = joined(&lines);

    // The last game line missing, cut inside, or cut just before its newline.
    let error = refused_text(dir.path(), &joined(&lines[..3]));
    assert!(matches!(error, ReplayError::Truncated { expected: 3, found: 2, .. }), "{error}");
    let error = refused_text(dir.path(), &full[..full.len() - 100]);
    assert!(matches!(error, ReplayError::Truncated { expected: 3, found: 2, .. }), "{error}");
    let error = refused_text(dir.path(), &full[..full.len() - 1]);
    assert!(matches!(error, ReplayError::Truncated { expected: 3, found: 2, .. }), "{error}");
    assert!(error.to_string().contains("truncated"), "{error}");
    // Only the header, or part of it; an empty file.
    let error = refused_text(dir.path(), &joined(&lines[..1]));
    assert!(matches!(error, ReplayError::Truncated { expected: 3, found: 0, .. }), "{error}");
    let error = refused_text(dir.path(), &lines[0][..20]);
    assert!(matches!(error, ReplayError::Header { .. }), "{error}");
    let error = refused_text(dir.path(), "");
    assert!(matches!(error, ReplayError::Header { .. }), "{error}");

    // A header count that does not match the lines.
    let mut more = lines.clone();
    more[0] = more[0].replace("\"games\":3", "\"games\":5");
    let error = refused_text(dir.path(), &joined(&more));
    assert!(matches!(error, ReplayError::Truncated { expected: 5, found: 3, .. }), "{error}");
    let mut fewer = lines.clone();
    fewer[0] = fewer[0].replace("\"games\":3", "\"games\":2");
    let error = refused_text(dir.path(), &joined(&fewer));
    assert!(matches!(error, ReplayError::ExtraLines { expected: 2, .. }), "{error}");
}

#[test]
fn bad_headers_are_refused() {
    let dir = TempDir::new("header");
    let (_, lines) = written_lines(dir.path(), &shogi_games(1, 2, 2));
    let with_header = |header: &str| {
        let mut edited = lines.clone();
        edited[0] = header.to_string();
        joined(&edited)
    };
    let header: Header = serde_json::from_str(&lines[0]).unwrap();
    let edit = |f: &dyn Fn(&mut Header)| {
        let mut h = header.clone();
        f(&mut h);
        with_header(&serde_json::to_string(&h).unwrap())
    };

    let error = refused_text(dir.path(), &with_header("not json at all"));
    assert!(matches!(error, ReplayError::Header { .. }), "{error}");
    let error = refused_text(dir.path(), &edit(&|h| h.format = "other-format".to_string()));
    assert!(matches!(&error, ReplayError::Header { reason, .. } if reason.contains("other-format")), "{error}");
    let error = refused_text(dir.path(), &edit(&|h| h.version = 2));
    assert!(matches!(error, ReplayError::Version { found: 2, .. }), "{error}");
    // A later version may have other fields: the version is what the message is about.
    let error = refused_text(dir.path(), "{\"format\":\"shogi-zero-replay\",\"version\":7,\"compression\":\"zstd\"}\n");
    assert!(matches!(error, ReplayError::Version { found: 7, .. }), "{error}");
    let error = refused_text(dir.path(), &edit(&|h| h.variant = "xiangqi".to_string()));
    assert!(matches!(error, ReplayError::UnknownVariant { .. }) && error.to_string().contains("xiangqi"), "{error}");
    let error = refused_text(dir.path(), &with_header(&lines[0].replace("\"ply_cap\":60,", "")));
    assert!(matches!(&error, ReplayError::Header { reason, .. } if reason.contains("ply_cap")), "{error}");
    // The same games under a lower ply cap: game 2, which ran to the cap, ends earlier.
    let error = refused_text(dir.path(), &edit(&|h| h.ply_cap = 30));
    assert!(matches!(error, ReplayError::Game { game: 2, source: GameError::MoveAfterEnd { ply: 31, .. }, .. }), "{error}");
}

#[test]
fn garbage_game_lines_are_refused() {
    let dir = TempDir::new("garbage");
    let (_, lines) = written_lines(dir.path(), &shogi_games(1, 3, 2));
    let mut edited = lines.clone();
    edited[2] = "{\"variant\":\"shogi\", garbage".to_string();
    let error = refused_text(dir.path(), &joined(&edited));
    assert!(matches!(error, ReplayError::Json { game: 2, .. }), "{error}");
    assert!(error.to_string().contains("game 2"), "{error}");
    let mut edited = lines.clone();
    edited[3] = String::new();
    let error = refused_text(dir.path(), &joined(&edited));
    assert!(matches!(error, ReplayError::Json { game: 3, .. }), "{error}");
    let mut bytes = joined(&lines).into_bytes();
    let at = bytes.len() - 50;
    bytes[at] = 0xff;
    let path = dir.path().join("games-binary.replay");
    fs::write(&path, bytes).unwrap();
    let error = refused(&path);
    assert!(matches!(error, ReplayError::Json { game: 3, .. }), "{error}");
}

/// Writes `games` after `edit` has changed game `game` (from 1) and returns the error of the
/// game that reading reports; checks that the message names the game.
fn refused_game(dir: &Path, games: &[ReplayGame], game: usize, edit: impl FnOnce(&mut ReplayGame)) -> GameError {
    let mut games = games.to_vec();
    edit(&mut games[game - 1]);
    let path = write_games(dir, SHOGI, shogi_rules(), &games).unwrap();
    match refused(&path) {
        ReplayError::Game { game: reported, source, .. } => {
            assert_eq!(reported, game, "{source}");
            let message = refused(&path).to_string();
            assert!(message.contains(&format!("game {game}:")), "{message}");
            source
        }
        other => panic!("expected an error in game {game}, got: {other}"),
    }
}

/// The first ply (from 1) of `record` with a policy target, at or after `from`.
fn full_ply(record: &ReplayGame, from: usize) -> usize {
    (from..=record.moves.len()).find(|&p| !record.moves[p - 1].policy.is_empty()).expect("a full-search ply")
}

/// A move text that is not legal at `ply` (from 1) of `record`: the first board move of a
/// piece's reachable squares that is not legal there.
fn illegal_text(record: &ReplayGame, ply: usize) -> String {
    let game = game_at(record, SHOGI, shogi_rules(), ply - 1);
    let legal = game.legal_moves();
    ["5e5d", "1a1b", "9i9a", "5i3i"]
        .into_iter()
        .find(|t| coord::parse_unchecked(SHOGI.variant(), t).is_ok_and(|m| !legal.contains(&m)))
        .expect("one of the candidates is illegal")
        .to_string()
}

#[test]
fn bad_moves_and_policies_are_refused_at_their_ply() {
    let dir = TempDir::new("moves");
    let games = shogi_games(1, 4, 2);
    let d = dir.path();

    let bad = illegal_text(&games[1], 3);
    let error = refused_game(d, &games, 2, |g| g.moves[2].mv = bad.clone());
    assert!(matches!(&error, GameError::Move { ply: 3, source: MoveError::Illegal { text } } if *text == bad), "{error}");
    assert!(error.to_string().contains("ply 3"), "{error}");
    let error = refused_game(d, &games, 2, |g| g.moves[4].mv = "7g7f7e7d".to_string());
    assert!(matches!(error, GameError::Move { ply: 5, source: MoveError::Syntax { .. } }), "{error}");

    let ply = full_ply(&games[2], 5);
    let bad = illegal_text(&games[2], ply);
    let error = refused_game(d, &games, 3, |g| g.moves[ply - 1].policy[1].0 = bad.clone());
    assert!(matches!(&error, GameError::PolicyMove { ply: p, text } if *p == ply && *text == bad), "{error}");
    let error = refused_game(d, &games, 3, |g| g.moves[ply - 1].policy[0].1 += 0.1);
    assert!(matches!(error, GameError::PolicySum { ply: p, .. } if p == ply), "{error}");
    let error = refused_game(d, &games, 3, |g| {
        let policy = &mut g.moves[ply - 1].policy;
        policy[1].1 = -policy[1].1;
        policy[0].1 -= 2.0 * policy[1].1;
    });
    assert!(matches!(error, GameError::PolicyWeight { ply: p, .. } if p == ply), "{error}");
    let error = refused_game(d, &games, 3, |g| {
        let policy = &mut g.moves[ply - 1].policy;
        policy[1].0 = policy[0].0.clone();
    });
    assert!(matches!(error, GameError::PolicyDuplicate { ply: p, .. } if p == ply), "{error}");

    let error = refused_game(d, &games, 4, |g| g.moves[6].root_wdl = [0.5, 0.5, 0.5]);
    assert!(matches!(error, GameError::RootWdl { ply: 7, .. }), "{error}");
    let error = refused_game(d, &games, 4, |g| g.moves[6].root_wdl = [1.5, 0.0, -0.5]);
    assert!(matches!(error, GameError::RootWdl { ply: 7, .. }), "{error}");

    let error = refused_game(d, &games, 1, |g| g.start = "not a position".to_string());
    assert!(matches!(error, GameError::Start { .. }), "{error}");
}

#[test]
fn results_that_contradict_the_rules_are_refused() {
    let dir = TempDir::new("results");
    let games = shogi_games(1, 4, 2);
    let d = dir.path();
    // Game 2 (seed 2) ran to the ply cap; games 1 and 3 resigned.
    assert_eq!(games[1].result, GameResult { winner: None, reason: ReplayEnding::Rules(EndReason::PlyCap) });
    assert_eq!(games[0].result.reason, ReplayEnding::Resignation);
    let resigned_plies = games[0].moves.len();

    let error = refused_game(d, &games, 2, |g| g.result.winner = Some(Color::Black));
    assert!(matches!(error, GameError::WrongResult { plies: 60, .. }), "{error}");
    let error = refused_game(d, &games, 2, |g| g.result.reason = ReplayEnding::Rules(EndReason::Repetition));
    assert!(matches!(error, GameError::WrongResult { .. }), "{error}");
    let error = refused_game(d, &games, 2, |g| g.result = GameResult { winner: Some(Color::White), reason: ReplayEnding::Resignation });
    assert!(matches!(error, GameError::EndedEarlyAfterTheEnd { .. }), "{error}");
    let error = refused_game(d, &games, 2, |g| g.result = GameResult { winner: Some(Color::White), reason: ReplayEnding::Adjudication });
    assert!(matches!(error, GameError::EndedEarlyAfterTheEnd { .. }), "{error}");
    let error = refused_game(d, &games, 2, |g| {
        let extra = g.moves[0].clone();
        g.moves.push(extra);
    });
    assert!(matches!(error, GameError::MoveAfterEnd { ply: 61, .. }), "{error}");

    let error = refused_game(d, &games, 1, |g| g.result.reason = ReplayEnding::Rules(EndReason::Checkmate));
    assert!(matches!(error, GameError::NotOver { plies, .. } if plies == resigned_plies), "{error}");
    let error = refused_game(d, &games, 1, |g| g.result.winner = g.result.winner.map(|w| w.opponent()));
    assert!(matches!(error, GameError::ResignationWinner { .. }), "{error}");
    let error = refused_game(d, &games, 1, |g| g.result.winner = None);
    assert!(matches!(error, GameError::ResignationWinner { .. }), "{error}");
    let error = refused_game(d, &games, 3, |g| g.resignation_disabled = true);
    assert!(matches!(error, GameError::PlayedOutGameEndedEarly { ending: ReplayEnding::Resignation }), "{error}");
    let error = refused_game(d, &games, 3, |g| {
        g.resignation_disabled = true;
        g.result.reason = ReplayEnding::Adjudication;
    });
    assert!(matches!(error, GameError::PlayedOutGameEndedEarly { ending: ReplayEnding::Adjudication }), "{error}");
    // An adjudication names the side ahead in material; a drawn one names nobody.
    let error = refused_game(d, &games, 1, |g| g.result = GameResult { winner: None, reason: ReplayEnding::Adjudication });
    assert!(matches!(error, GameError::AdjudicationWinner { .. }), "{error}");
    // The resigning side is the side to move at the end: one ply less flips it.
    let error = refused_game(d, &games, 3, |g| {
        g.moves.pop();
    });
    assert!(matches!(error, GameError::ResignationWinner { .. }), "{error}");
}

#[test]
fn a_game_of_another_variant_in_a_file_is_refused() {
    let dir = TempDir::new("variant-line");
    let (_, mut lines) = written_lines(dir.path(), &shogi_games(1, 2, 2));
    lines[2] = serde_json::to_string(&random_game(CHU, chu_rules(), 5, 2, None)).unwrap();
    let error = refused_text(dir.path(), &joined(&lines));
    assert!(matches!(error, ReplayError::Game { game: 2, source: GameError::Variant { .. }, .. }), "{error}");
}

#[test]
fn temporary_files_of_a_killed_writer_are_ignored() {
    let dir = TempDir::new("temporary");
    let games = shogi_games(1, 2, 2);
    let path = write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    // What a writer killed before its rename leaves: a hidden, partly written file.
    let text = fs::read_to_string(&path).unwrap();
    let leftover = dir.path().join(format!(".{}.tmp", file_name(&path).replace("games-", "games-9")));
    fs::write(&leftover, &text[..text.len() / 2]).unwrap();
    fs::write(dir.path().join(".hidden.replay"), "garbage").unwrap();
    assert!(dir.path().read_dir().unwrap().count() == 3, "no other writes left anything");
    assert_eq!(list_files(dir.path()).unwrap(), vec![path]);

    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(1000, 1.0)).unwrap();
    let report = window.refresh().unwrap();
    assert_eq!(report.files_loaded, 1);
    assert!(report.rejected.is_empty(), "{:?}", report.rejected);
    assert_eq!(window.len(), training_positions(&games));
}

// ---------------------------------------------------------------------------------------------
// Window
// ---------------------------------------------------------------------------------------------

fn config(max_positions: usize, max_reuse: f64) -> WindowConfig {
    WindowConfig { max_positions, max_reuse, targets: TargetConfig::default() }
}

/// Checks a sample against its game: the position reached by replaying the game to the
/// sample's ply, the context, the policy target, the result and the plies left, and the
/// auxiliary targets made as `targets` says.
fn check_sample(dir: &Path, sample: &TrainingSample, targets: &TargetConfig) {
    let file = read_file(&dir.join(&*sample.source.file)).unwrap();
    let record = &file.games[sample.source.game - 1];
    let ply = sample.context.ply;
    let game = game_at(record, file.variant, file.header.rules(), ply);
    assert_eq!(&sample.position, game.position(), "{:?} ply {ply}", sample.source);
    assert_eq!(sample.context, GameContext::of(&game));
    let expected: Vec<(Move, f32)> =
        record.moves[ply].policy.iter().map(|(text, w)| (coord::parse(game.position(), text).unwrap(), *w)).collect();
    assert!(!expected.is_empty(), "only full-search plies are samples");
    assert_eq!(sample.policy, expected);
    let ended = record.result.reason != ReplayEnding::Rules(EndReason::PlyCap);
    assert_eq!(sample.moves_left, ended.then(|| (record.moves.len() - ply) as f32), "{:?} ply {ply}", sample.source);
    let value = expected_outcome(record, file.variant, file.header.rules(), sample.position.side_to_move(), targets) as f32;
    let result = [value.max(0.0), 1.0 - value.abs(), (-value).max(0.0)];
    let mix = targets.value_root_mix;
    for ((&found, &result), &root) in sample.wdl.iter().zip(&result).zip(&record.moves[ply].root_wdl) {
        let wdl = (1.0 - mix) * result + mix * root;
        assert!((found - wdl).abs() < 1e-6, "{:?} ply {ply}: {:?}, {}", sample.source, sample.wdl, record.result);
    }
    check_auxiliary_targets(record, file.variant, file.header.rules(), sample, targets);
}

/// `n` seeded samples of a shogi window over `dir` that makes its targets as `targets` says,
/// each checked against its game.
fn checked_samples(dir: &Path, targets: TargetConfig, seed: u64, n: usize) -> Vec<TrainingSample> {
    let mut window = ReplayWindow::new(dir, SHOGI, WindowConfig { targets, ..config(10_000, 4.0) }).unwrap();
    window.refresh().unwrap();
    let samples = window.sample(&mut ChaCha8Rng::seed_from_u64(seed), n).unwrap();
    for sample in &samples {
        check_sample(dir, sample, &targets);
    }
    samples
}

/// The game's result for `mover`, -1 to 1, from its record: the winner, or for a game cut off
/// by the ply cap with `ply_cap_material_scale` on, the material balance of its replayed final
/// position in strongest pieces over the scale, through a `tanh`.
fn expected_outcome(record: &ReplayGame, id: VariantId, rules: GameRules, mover: Color, targets: &TargetConfig) -> f64 {
    match record.result.winner {
        Some(winner) if winner == mover => 1.0,
        Some(_) => -1.0,
        None if record.result.reason == ReplayEnding::Rules(EndReason::PlyCap) && targets.ply_cap_material_scale > 0.0 => {
            let material = Material::of(id);
            let last = game_at(record, id, rules, record.moves.len());
            let balance = material.balance(last.position(), mover) as f64 / material.strongest() as f64;
            (balance / targets.ply_cap_material_scale as f64).tanh()
        }
        None => 0.0,
    }
}

/// The auxiliary targets of a sample, computed from its game another way: the next ply's
/// policy in its own position, the material balance of replayed positions, and the short-term
/// value as a sum of geometric weights with the game's result taking the tail's closed form.
fn check_auxiliary_targets(record: &ReplayGame, id: VariantId, rules: GameRules, sample: &TrainingSample, targets: &TargetConfig) {
    let ply = sample.context.ply;
    let length = record.moves.len();
    let mover = sample.position.side_to_move();
    let reply = record.moves.get(ply + 1).filter(|m| !m.policy.is_empty()).map(|m| {
        let next = game_at(record, id, rules, ply + 1);
        let policy: Vec<(Move, f32)> = m.policy.iter().map(|(text, w)| (coord::parse(next.position(), text).unwrap(), *w)).collect();
        (next.position().side_to_move(), policy)
    });
    let found = sample.opponent_policy.as_ref().map(|reply| (reply.side, reply.policy.clone()));
    assert_eq!(found, reply, "{:?} ply {ply}", sample.source);
    let material = Material::of(id);
    let balance = |at: usize| material.balance(game_at(record, id, rules, at).position(), mover) as f32 / material.strongest() as f32;
    let expected = [balance((ply + targets.material_horizon).min(length)), balance(length)];
    assert_eq!(sample.material, expected, "{:?} ply {ply}", sample.source);
    // Plies alternate in shogi: the root value `k` plies ahead is the mover's for even `k`.
    let decay = 1.0 - 1.0 / targets.short_term_horizon as f64;
    let (mut sum, mut total) = (0.0, 0.0);
    for (k, m) in record.moves[ply..].iter().enumerate() {
        let value = (m.root_wdl[0] - m.root_wdl[2]) as f64;
        sum += decay.powi(k as i32) * if k % 2 == 0 { value } else { -value };
        total += decay.powi(k as i32);
    }
    let tail = decay.powi((length - ply) as i32) / (1.0 - decay);
    let outcome = expected_outcome(record, id, rules, mover, targets);
    let short_term = (sum + tail * outcome) / (total + tail);
    assert!(
        (sample.short_term_value as f64 - short_term).abs() < 1e-5,
        "{:?} ply {ply}: {} vs {short_term}",
        sample.source,
        sample.short_term_value
    );
}

#[test]
fn samples_agree_with_the_games_they_come_from() {
    let dir = TempDir::new("samples");
    let games = shogi_games(1, 6, 3);
    write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(10_000, 4.0)).unwrap();
    window.refresh().unwrap();
    assert_eq!(window.len(), training_positions(&games));
    assert_eq!(window.games(), games.len());
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let samples = window.sample(&mut rng, 200).unwrap();
    for sample in &samples {
        check_sample(dir.path(), sample, &TargetConfig::default());
    }
    let wins = samples.iter().filter(|s| s.wdl == [1.0, 0.0, 0.0]).count();
    let draws = samples.iter().filter(|s| s.wdl == [0.0, 1.0, 0.0]).count();
    assert!(wins > 0 && draws > 0 && wins + draws < samples.len(), "every kind of result is sampled");
    assert!(samples.iter().any(|s| s.source.game == 6));
    // A game cut off by the ply cap has no length to learn: its samples have no moves-left target.
    assert!(samples.iter().any(|s| s.moves_left.is_none()) && samples.iter().any(|s| s.moves_left.is_some()));
}

/// With every ply searched in full, samples have their opponent's reply policy (all but the
/// last ply's); other horizons and a root-value mix change the targets as they should.
#[test]
fn auxiliary_targets_agree_with_the_games_they_come_from() {
    let dir = TempDir::new("auxiliary");
    let games = shogi_games(21, 4, 1);
    write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    let targets = TargetConfig { material_horizon: 3, short_term_horizon: 4, value_root_mix: 0.25, ply_cap_material_scale: 0.0 };
    let samples = checked_samples(dir.path(), targets, 11, 300);
    assert!(samples.iter().any(|s| s.opponent_policy.is_some()) && samples.iter().any(|s| s.opponent_policy.is_none()));
    assert!(samples.iter().any(|s| s.material[0] != 0.0), "some sample sees a capture ahead");
    assert!(samples.iter().all(|s| s.wdl.iter().all(|&p| p < 1.0)), "the root value is mixed into every target");
    // Out-of-range targets are refused.
    for bad in [
        TargetConfig { material_horizon: 0, ..targets },
        TargetConfig { value_root_mix: 1.5, ..targets },
        TargetConfig { ply_cap_material_scale: -0.5, ..targets },
        TargetConfig { ply_cap_material_scale: f32::NAN, ..targets },
    ] {
        let refused = ReplayWindow::new(dir.path(), SHOGI, WindowConfig { targets: bad, ..config(10, 1.0) });
        assert!(matches!(refused, Err(WindowError::Config(_))));
    }
}

/// With `ply_cap_material_scale` on, a game cut off by the ply cap is scored by the material
/// at its end: the side ahead gets a share of a win, the side behind as much of a loss, in
/// the WDL target and as the short-term value's tail; games decided by rule are untouched.
#[test]
fn ply_cap_games_can_be_scored_by_material() {
    let dir = TempDir::new("ply-cap-material");
    let games = shogi_games(31, 8, 1);
    let capped = |g: &ReplayGame| g.result.reason == ReplayEnding::Rules(EndReason::PlyCap);
    assert!(games.iter().any(capped) && games.iter().any(|g| !capped(g)), "both kinds of ending are written");
    write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    let samples = checked_samples(dir.path(), TargetConfig { ply_cap_material_scale: 0.5, ..TargetConfig::default() }, 5, 400);
    let from_capped = |s: &&TrainingSample| capped(&games[s.source.game - 1]);
    // Random games end with unequal material: their capped positions are no longer plain draws,
    // and the side ahead at the end (final material target above 0) leans to a win.
    let leaning: Vec<&TrainingSample> = samples.iter().filter(from_capped).filter(|s| s.material[1] != 0.0).collect();
    assert!(!leaning.is_empty(), "some capped game ends with unequal material");
    for sample in leaning {
        assert_eq!(sample.wdl[0] > 0.0, sample.material[1] > 0.0, "{:?}: {:?}", sample.source, sample.wdl);
        assert_eq!(sample.wdl[2] > 0.0, sample.material[1] < 0.0, "{:?}: {:?}", sample.source, sample.wdl);
        assert!(sample.wdl[1] < 1.0);
    }
    // Off, the same positions are draws.
    for sample in checked_samples(dir.path(), TargetConfig::default(), 5, 400).iter().filter(from_capped) {
        assert_eq!(sample.wdl, [0.0, 1.0, 0.0]);
    }
}

#[test]
fn large_variant_samples_agree_with_their_games() {
    let dir = TempDir::new("chu-samples");
    let games: Vec<ReplayGame> = (0..2).map(|seed| random_game(CHU, chu_rules(), seed, 2, Some(10 + seed as usize))).collect();
    write_games(dir.path(), CHU, chu_rules(), &games).unwrap();
    let mut window = ReplayWindow::new(dir.path(), CHU, config(10_000, 4.0)).unwrap();
    window.refresh().unwrap();
    assert_eq!(window.len(), training_positions(&games));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for sample in window.sample(&mut rng, 30).unwrap() {
        check_sample(dir.path(), &sample, &TargetConfig::default());
        assert_eq!(sample.context.ply_cap, 16);
    }
}

#[test]
fn the_window_keeps_the_newest_positions() {
    let dir = TempDir::new("newest");
    let batches: Vec<Vec<ReplayGame>> = (0..4).map(|i| shogi_games(10 * i + 1, 3, 2)).collect();
    let mut names = Vec::new();
    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(100, 10.0)).unwrap();
    let mut added = 0;
    for batch in &batches {
        names.push(file_name(&write_games(dir.path(), SHOGI, shogi_rules(), batch).unwrap()));
        let before = window.len();
        let report = window.refresh().unwrap();
        assert_eq!((report.files_loaded, report.positions_loaded), (1, training_positions(batch)));
        assert_eq!(window.len(), before + report.positions_loaded - report.positions_dropped);
        assert!(window.len() <= 100);
        added += training_positions(batch);
        assert_eq!(window.counters().positions_added, added as u64);
    }
    assert!(added > 200, "the batches overflow the window several times over");
    // Whole games are dropped, oldest first: the window holds exactly the newest games that
    // fit, i.e. the largest suffix of all games whose positions stay within the limit.
    let all: Vec<(String, usize, usize)> = batches
        .iter()
        .zip(&names)
        .flat_map(|(batch, name)| {
            batch.iter().enumerate().map(move |(i, g)| (name.clone(), i + 1, training_positions(std::slice::from_ref(g))))
        })
        .collect();
    let mut kept = 0;
    let mut expected_games = Vec::new();
    for (name, game, positions) in all.iter().rev() {
        if kept + positions > 100 {
            break;
        }
        kept += positions;
        expected_games.push((name.clone(), *game));
    }
    assert_eq!(window.len(), kept);
    assert_eq!(window.games(), expected_games.len());
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let sampled: std::collections::HashSet<(String, usize)> =
        window.sample(&mut rng, 400).unwrap().iter().map(|s| (s.source.file.to_string(), s.source.game)).collect();
    let expected: std::collections::HashSet<(String, usize)> = expected_games.into_iter().collect();
    assert_eq!(sampled, expected, "samples come from exactly the newest games");
}

#[test]
fn a_fresh_window_loads_the_newest_files_only() {
    let dir = TempDir::new("fresh");
    let batches: Vec<Vec<ReplayGame>> = (0..5).map(|i| shogi_games(10 * i + 1, 2, 2)).collect();
    let paths: Vec<PathBuf> = batches.iter().map(|b| write_games(dir.path(), SHOGI, shogi_rules(), b).unwrap()).collect();
    let newest_two = training_positions(&batches[4]) + training_positions(&batches[3]);
    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(newest_two, 2.0)).unwrap();
    let report = window.refresh().unwrap();
    assert_eq!((report.files_loaded, report.files_skipped), (2, 3));
    assert_eq!(window.len(), newest_two);
    assert_eq!(window.counters().newest_file.as_deref(), Some(file_name(&paths[4]).as_str()));
    // Nothing new: nothing happens.
    let report = window.refresh().unwrap();
    assert_eq!((report.files_loaded, report.files_skipped, report.positions_loaded), (0, 0, 0));
}

#[test]
fn the_reuse_cap_stops_sampling_until_new_games_arrive() {
    let dir = TempDir::new("reuse");
    let games = shogi_games(1, 2, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(10_000, 1.5)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    assert_eq!(window.sample(&mut rng, 1).unwrap_err(), WindowError::Empty);
    window.refresh().unwrap();
    let positions = training_positions(&games) as u64;
    let allowed = (positions as f64 * 1.5) as u64;
    assert_eq!(window.samples_allowed(), allowed);
    let mut drawn = 0;
    while window.samples_remaining() >= 8 {
        drawn += window.sample(&mut rng, 8).unwrap().len() as u64;
    }
    let remaining = allowed - drawn;
    assert_eq!(window.samples_drawn(), drawn);
    assert_eq!(window.sample(&mut rng, 8).unwrap_err(), WindowError::ReuseCap { requested: 8, remaining });
    assert_eq!(window.sample(&mut rng, remaining as usize).unwrap().len() as u64, remaining);
    assert_eq!(window.samples_remaining(), 0);
    assert!(matches!(window.sample(&mut rng, 1), Err(WindowError::ReuseCap { remaining: 0, .. })));

    let more = shogi_games(20, 1, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &more).unwrap();
    window.refresh().unwrap();
    let new_allowed = ((positions + training_positions(&more) as u64) as f64 * 1.5) as u64;
    assert_eq!(window.samples_remaining(), new_allowed - allowed);
    assert!(window.sample(&mut rng, 1).is_ok());
}

#[test]
fn a_resumed_window_keeps_its_counters_and_counts_only_new_files() {
    let dir = TempDir::new("resume");
    let old = shogi_games(1, 3, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &old).unwrap();
    let settings = config(10_000, 3.0);
    let mut window = ReplayWindow::new(dir.path(), SHOGI, settings).unwrap();
    window.refresh().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    window.sample(&mut rng, 25).unwrap();
    let saved = window.counters();
    assert_eq!((saved.samples_drawn, saved.positions_added), (25, training_positions(&old) as u64));
    let json = serde_json::to_string(&saved).unwrap();
    drop(window);

    // Games written while the trainer was down count; the ones counted before do not.
    let new = shogi_games(30, 2, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &new).unwrap();
    let mut resumed = ReplayWindow::resume(dir.path(), SHOGI, settings, serde_json::from_str(&json).unwrap()).unwrap();
    resumed.refresh().unwrap();
    assert_eq!(resumed.len(), training_positions(&old) + training_positions(&new));
    assert_eq!(resumed.samples_drawn(), 25);
    assert_eq!(resumed.counters().positions_added, (training_positions(&old) + training_positions(&new)) as u64);
    assert_eq!(resumed.samples_allowed(), (3.0 * (training_positions(&old) + training_positions(&new)) as f64) as u64);
}

#[test]
fn invalid_files_are_reported_once_and_skipped() {
    let dir = TempDir::new("rejected");
    let good = shogi_games(1, 2, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &good).unwrap();
    let mut bad = shogi_games(5, 2, 2);
    bad[1].moves[3].mv = "5e5d".to_string();
    let bad_path = write_games(dir.path(), SHOGI, shogi_rules(), &bad).unwrap();
    let chu_path = write_games(dir.path(), CHU, chu_rules(), &[random_game(CHU, chu_rules(), 1, 2, None)]).unwrap();

    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(10_000, 1.0)).unwrap();
    let report = window.refresh().unwrap();
    assert_eq!(report.files_loaded, 1);
    let messages: Vec<String> = report.rejected.iter().map(|e| e.to_string()).collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(matches!(report.rejected[0], ReplayError::OtherVariant { .. }) && messages[0].contains(&file_name(&chu_path)));
    assert!(messages[1].contains(&file_name(&bad_path)) && messages[1].contains("game 2: ply 4"), "{messages:?}");
    assert_eq!(window.len(), training_positions(&good));
    assert!(window.refresh().unwrap().rejected.is_empty(), "a rejected file is not read again");
}

#[test]
fn window_settings_are_checked() {
    let dir = TempDir::new("settings");
    for bad in [config(0, 1.0), config(10, 0.0), config(10, f64::NAN), config(10, -2.0)] {
        assert!(matches!(ReplayWindow::new(dir.path(), SHOGI, bad), Err(WindowError::Config(_))), "{bad:?}");
    }
    let mut missing = ReplayWindow::new(&dir.path().join("missing"), SHOGI, config(10, 1.0)).unwrap();
    let error = missing.refresh().unwrap_err();
    assert!(matches!(error, ReplayError::Io { .. }) && error.to_string().contains("missing"), "{error}");
}

#[test]
fn window_memory_per_position() {
    let dir = TempDir::new("memory");
    let games = shogi_games(1, 4, 1);
    write_games(dir.path(), SHOGI, shogi_rules(), &games).unwrap();
    let mut window = ReplayWindow::new(dir.path(), SHOGI, config(10_000, 1.0)).unwrap();
    window.refresh().unwrap();
    let per_position = window.approx_bytes() / window.len();
    eprintln!("size_of::<Position>() = {}, window bytes per position (4-entry policies) = {per_position}", size_of::<Position>());
    assert!(per_position >= size_of::<Position>() && per_position < 1024, "{per_position} bytes per position");
}

// ---------------------------------------------------------------------------------------------
// replay check
// ---------------------------------------------------------------------------------------------

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_shogi-zero")).args(args).output().expect("run shogi-zero")
}

#[test]
fn replay_check_summarises_a_good_folder_and_names_a_bad_file() {
    let dir = TempDir::new("check");
    let shogi = shogi_games(1, 4, 2);
    write_games(dir.path(), SHOGI, shogi_rules(), &shogi).unwrap();
    let chu = vec![random_game(CHU, chu_rules(), 2, 2, None)];
    write_games(dir.path(), CHU, chu_rules(), &chu).unwrap();
    fs::write(dir.path().join(".games-0.replay.tmp"), "partial").unwrap();

    let folder = dir.path().to_str().unwrap();
    let out = run(&["replay", "check", folder]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let all: Vec<&ReplayGame> = shogi.iter().chain(&chu).collect();
    let positions: usize = all.iter().map(|g| g.moves.len()).sum();
    let full = all.iter().flat_map(|g| &g.moves).filter(|m| !m.policy.is_empty()).count();
    for line in [
        "files: 2".to_string(),
        "games: 5".to_string(),
        format!("positions: {positions}"),
        format!("full-search positions: {full}"),
        format!("average length: {:.1} plies", positions as f64 / 5.0),
        format!("  draw by ply-cap: {}", all.iter().filter(|g| g.result.reason == ReplayEnding::Rules(EndReason::PlyCap)).count()),
    ] {
        assert!(stdout.lines().any(|l| l == line), "missing '{line}' in:\n{stdout}");
    }

    let mut bad = shogi_games(7, 2, 2);
    bad[1].moves[0].policy = vec![("5e5d".to_string(), 1.0)];
    let bad_path = write_games(dir.path(), SHOGI, shogi_rules(), &bad).unwrap();
    for args in [vec!["replay", "check", folder], vec!["replay", "check", bad_path.to_str().unwrap()]] {
        let out = run(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.starts_with("error: ") && stderr.contains(&file_name(&bad_path)), "{stderr}");
        assert!(stderr.contains("game 2: ply 1: policy entry '5e5d'"), "{stderr}");
    }
    let out = run(&["replay", "check", dir.path().join("absent.replay").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

//! Perft against reference counts from independent engines (tests/perft/*.tsv).
//!
//! Default suite: every row of depth <= 4 and every row of at most 30 million nodes, for every
//! position (about a minute in release). `cargo test --release --test
//! perft -- --ignored` runs every row (the deep suite).

mod common;

use std::path::{Path, PathBuf};

use shogi_zero::rules::notation::{coord, sfen};
use shogi_zero::rules::perft::{divide, make_and_generate, perft, perft_with_pawn_drop_mates};
use shogi_zero::rules::{Position, VariantId};

/// Rows with more nodes than this and depth above [`DEFAULT_MAX_DEPTH`] run only in the deep suite.
const DEFAULT_MAX_NODES: u64 = 30_000_000;
const DEFAULT_MAX_DEPTH: u32 = 4;

/// One reference count.
#[derive(Clone, Debug)]
struct Row {
    /// `file:line`, for failure messages.
    origin: String,
    name: String,
    variant: VariantId,
    /// The position, `None` for the variant's start position.
    sfen: Option<String>,
    depth: u32,
    nodes: u64,
}

impl Row {
    fn in_default_suite(&self) -> bool {
        self.depth <= DEFAULT_MAX_DEPTH || self.nodes <= DEFAULT_MAX_NODES
    }

    fn position(&self) -> Position {
        match &self.sfen {
            None => Position::start(self.variant),
            Some(text) => sfen::parse(self.variant.variant(), text)
                .unwrap_or_else(|e| panic!("{}: position '{text}' does not parse: {e}", self.origin)),
        }
    }

    fn describe(&self) -> String {
        format!("{} ({}, {} depth {})", self.origin, self.name, self.variant, self.depth)
    }
}

fn perft_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("perft")
}

/// The data lines of a table: `(line number, tab-separated fields)`, comments and blanks skipped.
fn data_lines(file: &str) -> Vec<(usize, Vec<String>)> {
    let path = perft_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l.split('\t').map(str::to_string).collect()))
        .collect()
}

fn number<T: std::str::FromStr>(origin: &str, field: &str, what: &str) -> T {
    field.trim().parse().unwrap_or_else(|_| panic!("{origin}: {what} '{field}' is not a number"))
}

/// The rows of fairy-stockfish.tsv: counts of the variants from files (minishogi, judkins
/// shogi) by Fairy-Stockfish, from their start and from positions of random games.
fn fairy_rows() -> Vec<Row> {
    data_lines("fairy-stockfish.tsv")
        .into_iter()
        .map(|(line, f)| {
            let origin = format!("fairy-stockfish.tsv:{line}");
            assert_eq!(f.len(), 5, "{origin}: expected 5 fields (variant, sfen, depth, nodes, name), found {f:?}");
            Row {
                name: f[4].clone(),
                variant: f[0].parse::<VariantId>().unwrap_or_else(|e| panic!("{origin}: {e}")),
                sfen: Some(f[1].clone()),
                depth: number(&origin, &f[2], "depth"),
                nodes: number(&origin, &f[3], "nodes"),
                origin,
            }
        })
        .collect()
}

/// The rows of startpos.tsv (every variant it names must be one of the crate's).
fn startpos_rows() -> Vec<Row> {
    data_lines("startpos.tsv")
        .into_iter()
        .map(|(line, f)| {
            let origin = format!("startpos.tsv:{line}");
            assert_eq!(f.len(), 3, "{origin}: expected 3 fields (variant, depth, nodes), found {f:?}");
            let variant = f[0].parse::<VariantId>().unwrap_or_else(|e| panic!("{origin}: {e}"));
            Row {
                name: format!("{} start", f[0]),
                variant,
                sfen: None,
                depth: number(&origin, &f[1], "depth"),
                nodes: number(&origin, &f[2], "nodes"),
                origin,
            }
        })
        .collect()
}

fn shogi_rows() -> Vec<Row> {
    data_lines("shogi.tsv")
        .into_iter()
        .map(|(line, f)| {
            let origin = format!("shogi.tsv:{line}");
            assert_eq!(f.len(), 4, "{origin}: expected 4 fields (sfen, depth, nodes, name), found {f:?}");
            Row {
                name: f[3].clone(),
                variant: VariantId::SHOGI,
                sfen: Some(f[0].clone()),
                depth: number(&origin, &f[1], "depth"),
                nodes: number(&origin, &f[2], "nodes"),
                origin,
            }
        })
        .collect()
}

/// Runs every row, then fails naming every row whose count differs.
fn check(rows: &[Row]) {
    check_counted(rows, perft);
}

/// [`check`] with the count `count`.
fn check_counted(rows: &[Row], count: fn(&Position, u32) -> u64) {
    assert!(!rows.is_empty(), "no rows selected: the table or the selection is wrong");
    let mut failures = Vec::new();
    for row in rows {
        let started = std::time::Instant::now();
        let got = count(&row.position(), row.depth);
        eprintln!("{}: {got} nodes in {:.2} s", row.describe(), started.elapsed().as_secs_f64());
        if got != row.nodes {
            failures.push(format!("{}: expected {}, got {got}", row.describe(), row.nodes));
        }
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
}

fn default_rows(rows: Vec<Row>) -> Vec<Row> {
    rows.into_iter().filter(Row::in_default_suite).collect()
}

/// The shogi.tsv positions that have their own test below.
const NAMED_POSITIONS: &[&str] = &["startpos", "matsuri", "max legal moves", "YaneuraOu bench 1", "YaneuraOu bench 2", "YaneuraOu bench 3"];

/// Whether a row's name is `name`, possibly followed by a parenthesised remark.
fn has_name(row: &Row, name: &str) -> bool {
    row.name == name || row.name.starts_with(&format!("{name} ("))
}

fn shogi_rows_named(name: &str) -> Vec<Row> {
    assert!(NAMED_POSITIONS.contains(&name), "add '{name}' to NAMED_POSITIONS");
    let rows: Vec<Row> = default_rows(shogi_rows()).into_iter().filter(|r| has_name(r, name)).collect();
    assert!(!rows.is_empty(), "shogi.tsv has no row named '{name}'");
    rows
}

fn named(row: &Row) -> bool {
    NAMED_POSITIONS.iter().any(|n| has_name(row, n))
}

#[test]
fn tables_are_well_formed_and_cover_the_implemented_variants() {
    let rows = startpos_rows();
    for id in VariantId::ALL {
        let depths: Vec<u32> = rows.iter().filter(|r| r.variant == id).map(|r| r.depth).collect();
        assert!(depths.contains(&1) && depths.contains(&2), "startpos.tsv lacks shallow rows for {id}");
    }
    let shogi = shogi_rows();
    assert!(shogi.len() >= 10, "shogi.tsv has only {} rows", shogi.len());
    let fairy = fairy_rows();
    for name in ["minishogi", "judkins-shogi"] {
        let deepest = fairy.iter().filter(|r| r.variant.name() == name).map(|r| r.depth).max();
        assert!(deepest >= Some(5), "fairy-stockfish.tsv must count {name} to depth 5 at least");
    }
    for row in rows.iter().chain(&shogi).chain(&fairy) {
        // Only a position without a legal move (a depth-1 row) counts 0.
        assert!(row.depth >= 1 && (row.nodes >= 1 || row.depth == 1), "{}: depth and nodes must be positive", row.describe());
        // Every position of the tables must parse, and write back as the table writes it
        // (Fairy-Stockfish lists a hand in its own order: the same position when read back).
        let pos = row.position();
        if let Some(text) = &row.sfen {
            let written = sfen::write(&pos);
            if row.origin.starts_with("fairy-stockfish.tsv") {
                let again = sfen::parse(row.variant.variant(), &written).expect("our writing parses");
                assert_eq!(again.hash(), pos.hash(), "{}: position does not read back as written", row.describe());
            } else {
                assert_eq!(&written, text, "{}: position does not write back as written", row.describe());
            }
        }
    }
    // Well-known check values from the rules files.
    assert_eq!(perft(&Position::start(VariantId::SHOGI), 1), 30, "shogi.md section 9: 30 legal moves at the start");
}

/// The default rows of startpos.tsv for the variant named `name`.
fn check_startpos(name: &str) {
    let id: VariantId = name.parse().unwrap_or_else(|e| panic!("{e}"));
    check(&default_rows(startpos_rows().into_iter().filter(|r| r.variant == id).collect()));
}

#[test]
fn startpos_shogi() {
    check_startpos("shogi");
}

#[test]
fn startpos_heian_dai_shogi() {
    check_startpos("heian-dai-shogi");
}

#[test]
fn startpos_chu_shogi() {
    check_startpos("chu-shogi");
}

#[test]
fn startpos_dai_shogi() {
    check_startpos("dai-shogi");
}

#[test]
fn startpos_tenjiku_shogi() {
    check_startpos("tenjiku-shogi");
}

/// Every variant in startpos.tsv has a test above.
#[test]
fn every_startpos_variant_has_a_test() {
    let names = ["shogi", "heian-dai-shogi", "chu-shogi", "dai-shogi", "tenjiku-shogi"];
    for (line, f) in data_lines("startpos.tsv") {
        assert!(names.contains(&f[0].as_str()), "startpos.tsv:{line}: add a test for variant '{}'", f[0]);
    }
}

#[test]
fn shogi_tsv_startpos() {
    check(&shogi_rows_named("startpos"));
}

#[test]
fn shogi_tsv_matsuri() {
    check(&shogi_rows_named("matsuri"));
}

#[test]
fn shogi_tsv_max_legal_moves() {
    check(&shogi_rows_named("max legal moves"));
}

#[test]
fn shogi_tsv_yaneuraou_bench_1() {
    check(&shogi_rows_named("YaneuraOu bench 1"));
}

#[test]
fn shogi_tsv_yaneuraou_bench_2() {
    check(&shogi_rows_named("YaneuraOu bench 2"));
}

#[test]
fn shogi_tsv_yaneuraou_bench_3() {
    check(&shogi_rows_named("YaneuraOu bench 3"));
}

/// The default rows of fairy-stockfish.tsv for the variant named `name`.
fn check_fairy(name: &str) {
    let rows: Vec<Row> = default_rows(fairy_rows()).into_iter().filter(|r| r.variant.name() == name).collect();
    check_counted(&rows, perft_with_pawn_drop_mates);
}

/// Fairy-Stockfish counts a pawn drop that mates, which these rules forbid:
/// [`perft_with_pawn_drop_mates`] adds it.
#[test]
fn fairy_count_adds_the_mating_pawn_drop_that_our_rules_forbid() {
    // After 4e4d 1b3b 2e1d from random walk 3 of fairy-stockfish.tsv, White's P*4c mates.
    let variant: VariantId = "minishogi".parse().expect("minishogi is embedded");
    let mut pos = sfen::parse(variant.variant(), "rb1gk/2P1r/5/s2G1/1KSB1 b p 15").expect("position parses");
    for text in ["4e4d", "1b3b", "2e1d"] {
        pos = pos.after(coord::parse(&pos, text).expect("a legal move")).expect("a legal move");
    }
    let drop = coord::parse_unchecked(variant.variant(), "P*4c").expect("a drop");
    assert!(!pos.is_legal(drop), "P*4c mates, so these rules forbid it");
    let after = pos.after_unchecked(drop);
    assert!(after.in_check(after.side_to_move()) && !after.has_legal_move(), "P*4c checks and leaves Black no move");
    assert_eq!(pos.pawn_drop_mates(), 1);
    assert_eq!(perft_with_pawn_drop_mates(&pos, 1), perft(&pos, 1) + 1);
    // At depth 2, the mating drops after each reply are added.
    assert_eq!(
        perft_with_pawn_drop_mates(&pos, 2),
        perft(&pos, 2) + pos.legal_moves().iter().map(|&m| pos.after(m).unwrap().pawn_drop_mates() as u64).sum::<u64>()
    );
    assert_eq!(Position::start(variant).pawn_drop_mates(), 0);
    assert_eq!(perft_with_pawn_drop_mates(&Position::start(variant), 4), perft(&Position::start(variant), 4));
}

#[test]
fn fairy_stockfish_minishogi() {
    check_fairy("minishogi");
}

#[test]
fn fairy_stockfish_judkins_shogi() {
    check_fairy("judkins-shogi");
}

/// Every variant of fairy-stockfish.tsv has a test above.
#[test]
fn every_fairy_stockfish_variant_has_a_test() {
    for row in fairy_rows() {
        assert!(["minishogi", "judkins-shogi"].contains(&row.variant.name()), "{}: add a test for its variant", row.describe());
    }
}

/// Every position of shogi.tsv has a test above.
#[test]
fn every_shogi_tsv_position_has_a_test() {
    for row in shogi_rows() {
        assert!(named(&row), "{}: add its name to NAMED_POSITIONS and a test for it", row.describe());
    }
}

/// The deep suite: every row of every table.
#[test]
#[ignore = "deep perft suite: several minutes; run with --ignored"]
fn deep_every_row() {
    let mut rows = startpos_rows();
    rows.extend(shogi_rows());
    check(&rows);
    check_counted(&fairy_rows(), perft_with_pawn_drop_mates);
}

/// The tables of the project's shared references (startpos.tsv, shogi.tsv) are identical
/// copies (feature `shared-perft`: scripts/test.sh turns it on where `../shared/perft` exists).
/// fairy-stockfish.tsv is this project's own, made by scripts/fairy-perft.py.
#[test]
#[cfg_attr(not(feature = "shared-perft"), ignore = "needs ../shared/perft: feature shared-perft")]
fn tables_are_identical_to_the_shared_copies() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/perft");
    assert!(shared.is_dir(), "{} does not exist, and feature shared-perft needs it", shared.display());
    let mut compared = Vec::new();
    for entry in std::fs::read_dir(&shared).expect("the shared folder is readable") {
        let theirs_path = entry.expect("directory entry").path();
        if theirs_path.extension().is_none_or(|e| e != "tsv") {
            continue;
        }
        let name = theirs_path.file_name().expect("file name").to_owned();
        let path = perft_dir().join(&name);
        let ours = std::fs::read(&path).unwrap_or_else(|e| panic!("{} has no copy {}: {e}", theirs_path.display(), path.display()));
        let theirs = std::fs::read(&theirs_path).expect("readable table");
        assert!(ours == theirs, "{} differs from {}", path.display(), theirs_path.display());
        compared.push(name.to_string_lossy().into_owned());
    }
    for name in ["startpos.tsv", "shogi.tsv"] {
        assert!(compared.iter().any(|c| c == name), "the shared folder has no {name}: compared {compared:?}");
    }
}

fn sample_positions() -> Vec<(String, Position)> {
    let matsuri = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
    vec![
        ("shogi start".to_string(), Position::start(VariantId::SHOGI)),
        ("heian-dai-shogi start".to_string(), Position::start(VariantId::HEIAN_DAI_SHOGI)),
        ("matsuri".to_string(), sfen::parse(VariantId::SHOGI.variant(), matsuri).unwrap()),
    ]
}

#[test]
fn divide_sums_to_perft() {
    for (name, pos) in sample_positions() {
        let legal = pos.legal_moves();
        for depth in 1..=3 {
            let parts = divide(&pos, depth);
            assert_eq!(parts.len(), legal.len(), "{name}: divide lists one entry per legal move");
            for (mv, _) in &parts {
                assert!(legal.contains(mv), "{name}: divide lists {mv:?}, which is not legal");
            }
            if depth == 1 {
                assert!(parts.iter().all(|&(_, n)| n == 1), "{name}: divide at depth 1 counts 1 per move");
            }
            let sum: u64 = parts.iter().map(|&(_, n)| n).sum();
            assert_eq!(sum, perft(&pos, depth), "{name}: divide at depth {depth} does not sum to perft");
            // Each entry is the perft of the position after that move.
            for &(mv, n) in parts.iter().step_by(7) {
                assert_eq!(n, perft(&pos.after(mv).unwrap(), depth - 1), "{name}: divide entry {mv:?} at depth {depth}");
            }
        }
    }
}

#[test]
fn make_and_generate_counts_every_node_reached() {
    for (name, pos) in sample_positions() {
        assert_eq!(make_and_generate(&pos, 0), 0, "{name}: depth 0 reaches nothing");
        for depth in 1..=3 {
            let expected: u64 = (1..=depth).map(|d| perft(&pos, d)).sum();
            assert_eq!(make_and_generate(&pos, depth), expected, "{name}: make_and_generate at depth {depth}");
        }
    }
}

#[test]
fn perft_depth_zero_is_one() {
    for (name, pos) in sample_positions() {
        assert_eq!(perft(&pos, 0), 1, "{name}");
    }
}

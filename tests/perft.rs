//! Perft against reference counts from independent engines (tests/perft/*.tsv).
//!
//! Default suite: every row of depth <= 4 and every row of at most 30 million nodes, for every
//! position (about a minute in release). `cargo test --release --test
//! perft -- --ignored` runs every row (the deep suite).

mod common;

use std::path::{Path, PathBuf};

use shogi_zero::rules::notation::sfen;
use shogi_zero::rules::perft::{divide, make_and_generate, perft};
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
    assert!(!rows.is_empty(), "no rows selected: the table or the selection is wrong");
    let mut failures = Vec::new();
    for row in rows {
        let started = std::time::Instant::now();
        let got = perft(&row.position(), row.depth);
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
    for row in rows.iter().chain(&shogi) {
        assert!(row.depth >= 1 && row.nodes >= 1, "{}: depth and nodes must be positive", row.describe());
        // Every position of the tables must parse, and write back as the table writes it.
        let pos = row.position();
        if let Some(text) = &row.sfen {
            assert_eq!(&sfen::write(&pos), text, "{}: position does not write back as written", row.describe());
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

/// Every position of shogi.tsv has a test above.
#[test]
fn every_shogi_tsv_position_has_a_test() {
    for row in shogi_rows() {
        assert!(named(&row), "{}: add its name to NAMED_POSITIONS and a test for it", row.describe());
    }
}

/// The deep suite: every row of both tables.
#[test]
#[ignore = "deep perft suite: several minutes; run with --ignored"]
fn deep_every_row() {
    let mut rows = startpos_rows();
    rows.extend(shogi_rows());
    check(&rows);
}

/// tests/perft/*.tsv are copies of the project's shared reference tables (feature
/// `shared-perft`: scripts/test.sh turns it on where `../shared/perft` exists).
#[test]
#[cfg_attr(not(feature = "shared-perft"), ignore = "needs ../shared/perft: feature shared-perft")]
fn tables_are_identical_to_the_shared_copies() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/perft");
    assert!(shared.is_dir(), "{} does not exist, and feature shared-perft needs it", shared.display());
    let mut compared = 0;
    for entry in std::fs::read_dir(perft_dir()).expect("tests/perft is readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_none_or(|e| e != "tsv") {
            continue;
        }
        let name = path.file_name().expect("file name");
        let ours = std::fs::read(&path).expect("readable table");
        let theirs_path = shared.join(name);
        let theirs =
            std::fs::read(&theirs_path).unwrap_or_else(|e| panic!("{} has no shared copy {}: {e}", path.display(), theirs_path.display()));
        assert!(ours == theirs, "{} differs from {}", path.display(), theirs_path.display());
        compared += 1;
    }
    assert!(compared >= 2, "expected startpos.tsv and shogi.tsv, compared {compared} file(s)");
    // And no shared table is missing from tests/perft.
    for entry in std::fs::read_dir(&shared).expect("the shared folder is readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "tsv") {
            let name = path.file_name().expect("file name");
            assert!(perft_dir().join(name).is_file(), "{} has no copy in tests/perft", path.display());
        }
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

//! Perft: the number of legal move sequences of a given length, the standard check of a move
//! generator against independent engines.

use super::moves::{Move, MoveList};
use super::position::Position;

/// Counts the leaves of the legal move tree of depth `depth` below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    let mut lists = vec![MoveList::with_capacity(256); depth as usize];
    count(&mut pos, depth, &mut lists)
}

/// The perft count below each legal move of `pos`, in move generation order.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth 1 or more");
    let mut pos = pos.clone();
    let moves = pos.legal_moves();
    let mut lists = vec![MoveList::with_capacity(256); depth as usize - 1];
    moves
        .into_iter()
        .map(|mv| {
            let undo = pos.make(mv);
            let n = count(&mut pos, depth - 1, &mut lists);
            pos.unmake(mv, undo);
            (mv, n)
        })
        .collect()
}

fn count(pos: &mut Position, depth: u32, lists: &mut [MoveList]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, deeper) = lists.split_first_mut().expect("one list per ply");
    pos.legal_moves_into(list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &mv in list.iter() {
        let undo = pos.make(mv);
        nodes += count(pos, depth - 1, deeper);
        pos.unmake(mv, undo);
    }
    nodes
}

/// Makes every move of the legal move tree down to `depth` plies below `pos` and generates the
/// legal moves of every position reached, leaves included; returns how many positions were
/// reached. This is the work the perft benchmark times: unlike [`perft`] it does not count the
/// last ply from the move list without playing it.
pub fn make_and_generate(pos: &Position, depth: u32) -> u64 {
    fn walk(pos: &mut Position, depth: u32, lists: &mut [MoveList]) -> u64 {
        let (list, deeper) = lists.split_first_mut().expect("one list per ply");
        pos.legal_moves_into(list);
        if depth == 0 {
            return 0;
        }
        let mut nodes = 0;
        for &mv in list.iter() {
            let undo = pos.make(mv);
            nodes += 1 + walk(pos, depth - 1, deeper);
            pos.unmake(mv, undo);
        }
        nodes
    }
    let mut pos = pos.clone();
    let mut lists = vec![MoveList::with_capacity(256); depth as usize + 1];
    walk(&mut pos, depth, &mut lists)
}

/// One position of the perft benchmark.
pub struct BenchPosition {
    pub name: &'static str,
    pub variant: super::VariantId,
    /// The position, or `None` for the variant's start position.
    pub sfen: Option<&'static str>,
    /// Plies of seeded random play from that position (a busy middlegame).
    pub random_plies: u32,
    pub depth: u32,
}

/// The perft benchmark: the positions the project reports speed on.
pub const BENCH_POSITIONS: &[BenchPosition] = &[
    BenchPosition { name: "shogi start", variant: super::VariantId::Shogi, sfen: None, random_plies: 0, depth: 5 },
    BenchPosition {
        name: "shogi matsuri",
        variant: super::VariantId::Shogi,
        sfen: Some("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
        random_plies: 0,
        depth: 4,
    },
    BenchPosition { name: "heian-dai-shogi start", variant: super::VariantId::HeianDaiShogi, sfen: None, random_plies: 0, depth: 4 },
    BenchPosition { name: "chu-shogi start", variant: super::VariantId::ChuShogi, sfen: None, random_plies: 0, depth: 3 },
    BenchPosition { name: "chu-shogi middlegame", variant: super::VariantId::ChuShogi, sfen: None, random_plies: 80, depth: 3 },
    BenchPosition { name: "dai-shogi start", variant: super::VariantId::DaiShogi, sfen: None, random_plies: 0, depth: 3 },
    BenchPosition { name: "dai-shogi middlegame", variant: super::VariantId::DaiShogi, sfen: None, random_plies: 80, depth: 3 },
    BenchPosition { name: "tenjiku-shogi start", variant: super::VariantId::TenjikuShogi, sfen: None, random_plies: 0, depth: 3 },
    BenchPosition { name: "tenjiku-shogi middlegame", variant: super::VariantId::TenjikuShogi, sfen: None, random_plies: 80, depth: 3 },
];

impl BenchPosition {
    /// The position: the given or start position after the seeded random plies.
    pub fn position(&self) -> Position {
        let mut pos = match self.sfen {
            None => Position::start(self.variant),
            Some(text) => super::notation::sfen::parse(self.variant.variant(), text).expect("benchmark positions parse"),
        };
        let mut seed = 0x5EED_u64;
        for _ in 0..self.random_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            // splitmix64
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            pos.make(moves[(z % moves.len() as u64) as usize]);
        }
        pos
    }
}

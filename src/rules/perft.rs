//! Perft: the number of legal move sequences of a given length, the standard check of a move
//! generator against independent engines.

use rayon::prelude::*;

use super::moves::{Move, MoveList};
use super::position::Position;

/// Counts the leaves of the legal move tree of depth `depth` below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    let mut lists = vec![MoveList::with_capacity(256); depth as usize];
    count(&mut pos, depth, &mut lists, &|_, moves| moves)
}

/// Perft as Fairy-Stockfish counts it. A pawn drop that would mate is illegal here
/// (uchifuzume); Fairy-Stockfish generates it and scores the position after it as lost for the
/// side that dropped. The mated side has no move, so the two counts differ by exactly the
/// mating pawn drops of the last ply, which this adds.
pub fn perft_with_pawn_drop_mates(pos: &Position, depth: u32) -> u64 {
    let mut pos = pos.clone();
    let mut lists = vec![MoveList::with_capacity(256); depth as usize];
    count(&mut pos, depth, &mut lists, &|pos, moves| moves + pos.pawn_drop_mates() as u64)
}

/// The perft count below each legal move of `pos`, in move generation order; the first moves'
/// subtrees are counted in parallel.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    assert!(depth >= 1, "divide needs depth 1 or more");
    let moves = pos.legal_moves();
    moves
        .into_par_iter()
        .map_init(
            || (pos.clone(), vec![MoveList::with_capacity(256); depth as usize - 1]),
            |(pos, lists), mv| {
                let undo = pos.play_unchecked(mv);
                let n = count(pos, depth - 1, lists, &|_, moves| moves);
                pos.unmake(mv, undo);
                (mv, n)
            },
        )
        .collect()
}

/// The leaves below `pos`, the last ply counted by `last_ply` from the position and its number
/// of legal moves.
fn count<F: Fn(&Position, u64) -> u64>(pos: &mut Position, depth: u32, lists: &mut [MoveList], last_ply: &F) -> u64 {
    if depth == 0 {
        return 1;
    }
    let (list, deeper) = lists.split_first_mut().expect("one list per ply");
    pos.legal_moves_into(list);
    if depth == 1 {
        return last_ply(pos, list.len() as u64);
    }
    let mut nodes = 0;
    for &mv in list.iter() {
        let undo = pos.play_unchecked(mv);
        nodes += count(pos, depth - 1, deeper, last_ply);
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
            let undo = pos.play_unchecked(mv);
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
    pub depth: u32,
}

/// The perft benchmark: the positions the project reports speed on. The middlegames of the
/// large variants were reached by 80 plies of seeded random play from the start.
pub const BENCH_POSITIONS: &[BenchPosition] = &[
    BenchPosition { name: "shogi start", variant: super::VariantId::SHOGI, sfen: None, depth: 5 },
    BenchPosition {
        name: "shogi matsuri",
        variant: super::VariantId::SHOGI,
        sfen: Some("l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"),
        depth: 3,
    },
    BenchPosition { name: "heian-dai-shogi start", variant: super::VariantId::HEIAN_DAI_SHOGI, sfen: None, depth: 4 },
    BenchPosition { name: "chu-shogi start", variant: super::VariantId::CHU_SHOGI, sfen: None, depth: 3 },
    BenchPosition {
        name: "chu-shogi middlegame",
        variant: super::VariantId::CHU_SHOGI,
        sfen: Some("l(fl)1sg(de)k(bt)sc(fl)l/(rc)cb1(bt)(ph)(kr)1gb(vm)(rc)/(sm)(vm)1(dk)4(dk)r2/pprp3pp(dh)p(sm)/2p(gb)2p2p2/4q7/2P6P1P/P1R(GB)4P(SM)2/1P1P(dh)PP2(BT)P1/(SM)(VM)4(BT)1R1(VM)(RC)/(RC)(FL)1(Kr)(DH)1(Ph)G1BC1/L1CSGK(DE)(DH)S1(FL)L b - 81"),
        depth: 3,
    },
    BenchPosition { name: "dai-shogi start", variant: super::VariantId::DAI_SHOGI, sfen: None, depth: 3 },
    BenchPosition {
        name: "dai-shogi middlegame",
        variant: super::VariantId::DAI_SHOGI,
        sfen: Some("ln(sg)i1(fl)g1gsci1nl/(rc)(fd)(cs)(dh)1c(bt)k(de)1(fl)(sg)(cs)(vo)(rc)/1(vo)1(ab)s(ew)(ph)(ln)(kr)b(bt)(ab)1r1/1r(sm)(vm)b1(dk)1(dk)1(ew)(vm)(sm)(fd)1/ppppp1pqpp1p1p1/7p2p1p1p/4(gb)p4(gb)4/15/7P6(dh)/2PP(GB)1P3(GB)PP2/PP2PP(Ph)1PPPB1PP/(RC)R(SM)(VM)B(DH)Q1(DK)(DH)(VM)(AB)(SM)(FD)R/2(FD)(FL)(EW)(DK)1(BT)(Kr)(EW)(FL)C(VO)1(RC)/1(VO)(CS)(AB)1G(BT)(DE)1G1(SG)(CS)2/LN(SG)ICS(Ln)K1S1I1NL b - 81"),
        depth: 3,
    },
    BenchPosition { name: "tenjiku-shogi start", variant: super::VariantId::TENJIKU_SHOGI, sfen: None, depth: 3 },
    BenchPosition {
        name: "tenjiku-shogi middlegame",
        variant: super::VariantId::TENJIKU_SHOGI,
        sfen: Some("ln1ics+(RG)(de)(wb)gsci(fl)nl/(rc)(fl)(dh)(cs)(cs)(bt)(ph)qk1(bt)(kr)(cs)(cs)(vs)(rc)/(ss)(vs)b2(wb)(fd)(fe)1(lh)1(dk)(dh)b1(ss)/(sm)(GG)r(hf)(se)(dk)2(fd)1r4(sm)/p1ppp3pp1pp1pp/1p2dppp2pd(BG)3/10(DH)2(ln)2/16/16/4DP5D2P1/2P6(SE)(vg)5/PP1PP1PPPP1PPP1P/(SM)1R(HF)1(DK)(WB)(Ph)1(LH)(BG)1(HF)R(VM)(SM)/(SS)(VS)B1(BT)1(FD)2(FD)1(WB)(DH)B1N/(RC)(CS)3(CS)(Kr)1Q(Ln)(BT)S(CS)(CS)(VS)(RC)/LN(FL)ICSGK(DE)G1CI2L b - 81"),
        depth: 3,
    },
];

impl BenchPosition {
    /// The position.
    pub fn position(&self) -> Position {
        match self.sfen {
            None => Position::start(self.variant),
            Some(text) => super::notation::sfen::parse(self.variant.variant(), text).expect("benchmark positions parse"),
        }
    }
}

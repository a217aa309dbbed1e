//! [`Game`]: a position with its history, and the rules that need history or end the game:
//! repetition and perpetual check, the 27-point declaration, royal capture, bare king,
//! no legal move and the ply cap.

use super::geometry::{Color, Square};
use super::moves::{Move, MoveList};
use super::notation::coord::{self, MoveError};
use super::piece::Piece;
use super::position::Position;
use super::variant::{BareKingRule, Legality, RepetitionRule, Variant};

/// Settings of a game that are not rules of the variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameRules {
    /// After this many plies the game is drawn.
    pub ply_cap: u32,
    /// Whether the 27-point declaration is offered (only where the variant has it).
    pub declaration: bool,
}

impl GameRules {
    /// The variant's defaults (shogi: 512 plies, declaration on; Heian dai: 1000 plies).
    pub fn default_for(v: &Variant) -> GameRules {
        GameRules { ply_cap: v.spec.default_ply_cap, declaration: v.spec.declaration }
    }
}

/// Why a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    NoLegalMove,
    /// The last royal piece was captured.
    RoyalCaptured,
    /// The loser's king was left alone (Heian dai shogi), or both kings were (a draw).
    BareKing,
    /// Fourth occurrence of a position.
    Repetition,
    /// Fourth occurrence of a position while one side checked on every move of the cycle.
    PerpetualCheck,
    /// A valid 27-point declaration.
    Declaration,
    /// The ply cap was reached.
    PlyCap,
}

impl EndReason {
    /// Every reason, in declaration order.
    pub const ALL: [EndReason; 8] = [
        EndReason::Checkmate,
        EndReason::NoLegalMove,
        EndReason::RoyalCaptured,
        EndReason::BareKing,
        EndReason::Repetition,
        EndReason::PerpetualCheck,
        EndReason::Declaration,
        EndReason::PlyCap,
    ];

    /// The name used in files and messages: `checkmate`, `no-legal-move`, `ply-cap`, ...
    pub fn name(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::NoLegalMove => "no-legal-move",
            EndReason::RoyalCaptured => "royal-captured",
            EndReason::BareKing => "bare-king",
            EndReason::Repetition => "repetition",
            EndReason::PerpetualCheck => "perpetual-check",
            EndReason::Declaration => "declaration",
            EndReason::PlyCap => "ply-cap",
        }
    }
}

/// How a game ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winner, or `None` for a draw.
    pub winner: Option<Color>,
    pub reason: EndReason,
}

/// Why a move could not be played in a game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error("the game is over ({0:?})")]
    GameOver(Outcome),
    #[error(transparent)]
    Move(#[from] MoveError),
}

/// A game in progress: start position, moves played, and the outcome once it has ended.
#[derive(Clone, Debug)]
pub struct Game {
    rules: GameRules,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Hash of the position after each ply, the start position first.
    hashes: Vec<u64>,
    /// The index in `hashes` of the position after the last irreversible move (0 if none): no
    /// move can recreate a position before it (see [`Game::irreversible`]).
    reversible_from: usize,
    /// The current position's legal board moves (history rules applied), generated when it is settled.
    legal: MoveList,
    outcome: Option<Outcome>,
}

impl Game {
    /// A game from `start` under `rules`.
    pub fn new(start: Position, rules: GameRules) -> Game {
        let mut game = Game {
            rules,
            position: start.clone(),
            hashes: vec![start.hash()],
            reversible_from: 0,
            start,
            moves: Vec::new(),
            legal: MoveList::new(),
            outcome: None,
        };
        game.legal = game.board_legal_moves();
        game.outcome = game.no_move_outcome();
        game
    }

    /// The rules this game is played under.
    pub fn rules(&self) -> GameRules {
        self.rules
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// How many times the current position occurred before in this game.
    pub fn repetitions(&self) -> usize {
        let (current, earlier) = self.hashes.split_last().expect("the start position is always there");
        earlier.iter().filter(|&&h| h == *current).count()
    }

    /// Number of moves played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// How the game ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The legal moves now, including the declaration where it is valid; none once the game is over.
    pub fn legal_moves(&self) -> MoveList {
        if self.outcome.is_some() {
            return MoveList::new();
        }
        let mut moves = self.legal.clone();
        if self.can_declare() {
            moves.push(Move::Declare);
        }
        moves
    }

    /// The position's legal moves less those the history forbids: in dai and tenjiku a move
    /// may not recreate an earlier position unless the mover is in check (asked only when a
    /// move would: there the check test costs a move generation).
    fn board_legal_moves(&self) -> MoveList {
        let pos = &self.position;
        let mut moves = pos.legal_moves();
        if pos.variant().spec.repetition == RepetitionRule::NoRecreation {
            let Some(mut recreates) = self.recreation_test() else {
                return moves;
            };
            if moves.iter().any(|&mv| recreates(mv)) && !pos.in_check(pos.side_to_move()) {
                moves.retain(|&mv| !recreates(mv));
            }
        }
        moves
    }

    /// Which of `moves` (legal in the current position) recreate a position that occurred
    /// earlier in this game, in order.
    pub fn recreating(&self, moves: &[Move]) -> Vec<bool> {
        match self.recreation_test() {
            Some(mut recreates) => moves.iter().map(|&mv| recreates(mv)).collect(),
            None => vec![false; moves.len()],
        }
    }

    /// A test of whether a move recreates an earlier position, or `None` when no move can.
    ///
    /// Only the positions since the last irreversible move with the opponent to move can be
    /// recreated (`reversible_from`); each move's hash comes from [`Position::hash_after`]
    /// without playing it where it can.
    fn recreation_test(&self) -> Option<impl FnMut(Move) -> bool + '_> {
        let pos = &self.position;
        let candidates = &self.hashes[self.first_recreatable()?..];
        let mut scratch: Option<Position> = None;
        Some(move |mv: Move| {
            let hash = pos.hash_after(mv).unwrap_or_else(|| {
                let scratch = scratch.get_or_insert_with(|| pos.clone());
                let undo = scratch.play_unchecked(mv);
                let hash = scratch.hash();
                scratch.unmake(mv, undo);
                hash
            });
            candidates.iter().step_by(2).any(|&h| h == hash)
        })
    }

    /// The index in `hashes` of the earliest position a move from the current one could
    /// recreate: at or after `reversible_from`, with the opponent of the side to move to move
    /// (every other position from there on); `None` when there is none.
    fn first_recreatable(&self) -> Option<usize> {
        let now = self.hashes.len() - 1;
        let first = self.reversible_from + (now + 1 - self.reversible_from) % 2;
        (first <= now).then_some(first)
    }

    /// Whether `mv`, which just left `pieces_before` pieces on the board, can never be undone:
    /// it captured or burned a piece (the board's piece count fell) or promoted (no piece
    /// turns back). Where captured pieces go to the hand and come back as drops, nothing is
    /// irreversible.
    fn irreversible(&self, pieces_before: u32, mv: Move) -> bool {
        !self.position.variant().spec.drops
            && (matches!(mv, Move::Normal { promote: true, .. } | Move::TwoLeg { promote: true, .. })
                || board_pieces(&self.position) < pieces_before)
    }

    /// Reads a move in coordinate notation (routes with the same effect read as one move, see
    /// [`coord::parse`]) and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move, PlayError> {
        if let Some(outcome) = self.outcome {
            return Err(PlayError::GameOver(outcome));
        }
        let mv = match coord::parse_unchecked(self.position.variant(), text)? {
            Move::Declare => Move::Declare,
            _ => coord::parse(&self.position, text)?,
        };
        self.play(mv).map_err(|e| match e {
            PlayError::Move(MoveError::Illegal { .. }) => PlayError::Move(MoveError::Illegal { text: text.to_string() }),
            other => other,
        })?;
        Ok(mv)
    }

    /// Plays a move if it is legal, then decides whether the game has ended.
    pub fn play(&mut self, mv: Move) -> Result<(), PlayError> {
        if let Some(outcome) = self.outcome {
            return Err(PlayError::GameOver(outcome));
        }
        let legal = match mv {
            Move::Declare => self.can_declare(),
            _ => self.legal.contains(&mv),
        };
        if !legal {
            return Err(MoveError::Illegal { text: coord::write(self.position.variant(), mv) }.into());
        }
        self.play_unchecked(mv);
        self.settle();
        Ok(())
    }

    /// Plays `mv` without checking it, and without generating the next legal moves or deciding
    /// whether the game has ended: that waits for [`Game::settle`]. For walking down a search
    /// tree, whose moves were legal when it grew, and settling only the position it reaches.
    ///
    /// Contract: the game is not over and `mv` is legal in the current position (one of
    /// [`Game::legal_moves`] had the position been settled). Until [`Game::settle`] the outcome
    /// and the legal moves are stale: read neither, and do not call [`Game::play`].
    pub fn play_unchecked(&mut self, mv: Move) {
        self.moves.push(mv);
        if mv == Move::Declare {
            return;
        }
        let pieces_before = board_pieces(&self.position);
        self.position.play_unchecked(mv);
        self.hashes.push(self.position.hash());
        if self.irreversible(pieces_before, mv) {
            self.reversible_from = self.hashes.len() - 1;
        }
    }

    /// Generates the current position's legal moves and decides whether the game has ended,
    /// after one or more moves played with [`Game::play_unchecked`] ([`Game::play`] settles
    /// after every move).
    pub fn settle(&mut self) {
        if self.moves.last() == Some(&Move::Declare) {
            let winner = self.position.side_to_move();
            self.outcome = Some(Outcome { winner: Some(winner), reason: EndReason::Declaration });
            return;
        }
        self.legal = self.board_legal_moves();
        self.outcome = self.decide(self.position.side_to_move().opponent());
    }

    /// The outcome after `mover` has moved, if the game has ended.
    fn decide(&self, mover: Color) -> Option<Outcome> {
        let pos = &self.position;
        let v = pos.variant();
        let opponent = mover.opponent();
        let win = |reason| Some(Outcome { winner: Some(mover), reason });
        let draw = |reason| Some(Outcome { winner: None, reason });
        if v.spec.legality == Legality::RoyalCapture && pos.royal_count(opponent) == 0 {
            return win(EndReason::RoyalCaptured);
        }
        if v.spec.legality == Legality::RoyalCapture && pos.royal_count(mover) == 0 {
            // The mover's last royal burned on its own move (tenjiku).
            return Some(Outcome { winner: Some(opponent), reason: EndReason::RoyalCaptured });
        }
        if v.spec.bare_king == BareKingRule::Heian && pos.royal_count(opponent) > 0 && pos.non_royal_count(opponent) == 0 {
            return match pos.non_royal_count(mover) {
                0 => draw(EndReason::BareKing),
                1 if self.bare_back_possible(mover) => draw(EndReason::BareKing),
                _ => win(EndReason::BareKing),
            };
        }
        if let Some(outcome) = self.no_move_outcome() {
            return Some(outcome);
        }
        if v.spec.bare_king == BareKingRule::Chu {
            if let Some(outcome) = chu_bare_king(pos) {
                return Some(outcome);
            }
        }
        if matches!(v.spec.repetition, RepetitionRule::FourthOccurrence | RepetitionRule::FourthOccurrenceBlackLoses) {
            if let Some(outcome) = self.repetition_outcome(v.spec.repetition) {
                return Some(outcome);
            }
        }
        (self.moves.len() >= self.rules.ply_cap as usize).then_some(Outcome { winner: None, reason: EndReason::PlyCap })
    }

    /// Whether the bared opponent's king stands next to `mover`'s only non-royal piece.
    fn bare_back_possible(&self, mover: Color) -> bool {
        let pos = &self.position;
        let g = &pos.variant().geometry;
        let Some(king) = pos.royal_square(mover.opponent()) else { return false };
        let (kx, ky) = g.xy(king);
        pos.pieces().any(|(sq, p)| {
            let (x, y) = g.xy(sq);
            p.color == mover && !pos.variant().is_royal(p) && x.abs_diff(kx) <= 1 && y.abs_diff(ky) <= 1
        })
    }

    /// The side to move loses when it has no legal move (checkmate or otherwise).
    fn no_move_outcome(&self) -> Option<Outcome> {
        let pos = &self.position;
        if !self.legal.is_empty() {
            return None;
        }
        let loser = pos.side_to_move();
        let reason = match pos.variant().spec.legality {
            Legality::SelfCheckIllegal if pos.in_check(loser) => EndReason::Checkmate,
            Legality::RoyalCapture if pos.royal_count(loser) == 0 => EndReason::RoyalCaptured,
            _ => EndReason::NoLegalMove,
        };
        Some(Outcome { winner: Some(loser.opponent()), reason })
    }

    /// Fourth occurrence of the current position: a loss for a player who gave check with
    /// every one of his moves since the first occurrence, else a draw (a loss for Black under
    /// `rule` [`RepetitionRule::FourthOccurrenceBlackLoses`]).
    fn repetition_outcome(&self, rule: RepetitionRule) -> Option<Outcome> {
        let now = self.hashes.len() - 1;
        let current = self.hashes[now];
        let occurrences: Vec<usize> = (0..=now).filter(|&i| self.hashes[i] == current).collect();
        if occurrences.len() < 4 {
            return None;
        }
        let first = occurrences[occurrences.len() - 4];
        // Move k (1-based) leads from hashes[k - 1] to hashes[k]; its mover alternates from the
        // start position's side to move.
        let start_side = self.start.side_to_move();
        let checks = self.checks_from(first + 1);
        let checked_throughout = |color: Color| {
            (first + 1..=now)
                .filter(|k| (if (k - 1) % 2 == 0 { start_side } else { start_side.opponent() }) == color)
                .all(|k| checks[k - first - 1])
        };
        let (black, white) = (checked_throughout(Color::Black), checked_throughout(Color::White));
        let outcome = match (black, white) {
            (true, false) => Outcome { winner: Some(Color::White), reason: EndReason::PerpetualCheck },
            (false, true) => Outcome { winner: Some(Color::Black), reason: EndReason::PerpetualCheck },
            _ => Outcome {
                winner: (rule == RepetitionRule::FourthOccurrenceBlackLoses).then_some(Color::White),
                reason: EndReason::Repetition,
            },
        };
        Some(outcome)
    }

    /// Whether each move from move `first` (1-based) to the last left the opponent's royal
    /// attacked, found by replaying the game from the start (needed only on a fourth occurrence).
    fn checks_from(&self, first: usize) -> Vec<bool> {
        let mut pos = self.start.clone();
        let mut checks = Vec::with_capacity(self.moves.len() + 1 - first);
        for (k, &mv) in (1..).zip(&self.moves) {
            let mover = pos.side_to_move();
            pos.play_unchecked(mv);
            if k >= first {
                checks.push(pos.in_check(mover.opponent()));
            }
        }
        checks
    }

    /// Whether the side to move may declare a win now (shogi §8.4): king in the enemy camp, not
    /// in check, at least 10 other own pieces in the camp, and at least 28 (Black) or 27
    /// (White) points from those pieces plus the hand, rook and bishop counting 5, others 1.
    pub fn can_declare(&self) -> bool {
        let pos = &self.position;
        let v = pos.variant();
        if !(self.rules.declaration && v.spec.declaration) || self.outcome.is_some() {
            return false;
        }
        let us = pos.side_to_move();
        let Some(king) = pos.royal_square(us) else { return false };
        if !v.in_zone(king, us) || pos.in_check(us) {
            return false;
        }
        let in_camp: Vec<_> = pos.pieces().filter(|&(sq, p)| p.color == us && !v.is_royal(p) && v.in_zone(sq, us)).collect();
        let board_points: u32 = in_camp.iter().map(|(_, p)| v.piece_spec(p.ptype).points as u32).sum();
        let hand_points: u32 = v.hand_types.iter().map(|&t| pos.hand(us, t) as u32 * v.piece_spec(t).points as u32).sum();
        let needed = match us {
            Color::Black => 28,
            Color::White => 27,
        };
        in_camp.len() >= 10 && board_points + hand_points >= needed
    }
}

/// The number of pieces on the board.
fn board_pieces(pos: &Position) -> u32 {
    Color::ALL.iter().map(|&c| pos.royal_count(c) as u32 + pos.non_royal_count(c) as u32).sum()
}

/// Chu shogi's bare-king and lone-royals rules (chu-shogi.md §8.2, lishogi), applied to the
/// position before the side to move plays.
fn chu_bare_king(pos: &Position) -> Option<Outcome> {
    let v = pos.variant();
    let g = &v.geometry;
    // Unpromoted pawns and lances on their owner's last rank can never move again.
    let dead = |sq: Square, p: Piece| !p.promoted && matches!(v.piece_spec(p.ptype).abbr, "P" | "L") && g.relative_rank(sq, p.color) == 0;
    let live: Vec<(Square, Piece)> = pos.pieces().filter(|&(sq, p)| !dead(sq, p)).collect();
    let royals = |c: Color| live.iter().filter(|(_, p)| p.color == c && v.is_royal(*p)).count();
    let others = |c: Color| live.iter().filter(|(_, p)| p.color == c && !v.is_royal(*p)).count();
    for bared in Color::ALL {
        let winner = bared.opponent();
        if royals(bared) != 1 || others(bared) != 0 || royals(winner) != 1 || pos.in_check(winner) {
            continue;
        }
        // The winner's pieces that count: not unpromoted pawns or go-betweens (dead lances are
        // already gone from `live`).
        let counted: Vec<(Square, Piece)> = live
            .iter()
            .copied()
            .filter(|&(_, p)| p.color == winner && (p.promoted || !matches!(v.piece_spec(p.ptype).abbr, "P" | "GB")))
            .collect();
        let helpers = counted.iter().filter(|(_, p)| !v.is_royal(*p)).count();
        let bared_royal = live.iter().find(|(_, p)| p.color == bared).map(|&(sq, _)| sq)?;
        let next_to_bared = counted.iter().any(|&(sq, _)| g.king_distance(sq, bared_royal) == 1);
        if helpers >= 2 || (helpers == 1 && !next_to_bared) {
            return Some(Outcome { winner: Some(winner), reason: EndReason::BareKing });
        }
    }
    let lone_royals = live.len() == 2 && Color::ALL.iter().all(|&c| royals(c) == 1 && !pos.in_check(c));
    lone_royals.then_some(Outcome { winner: None, reason: EndReason::BareKing })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant::VariantId;
    use crate::splitmix::SplitMix64;

    /// The no-recreation filter as first written: every legal move played and taken back, its
    /// hash looked up among all earlier positions.
    fn reference_legal(game: &Game) -> MoveList {
        let pos = &game.position;
        let mut moves = pos.legal_moves();
        let mut scratch = pos.clone();
        let mut recreates = |mv: Move| {
            let undo = scratch.play_unchecked(mv);
            let old = game.hashes.contains(&scratch.hash());
            scratch.unmake(mv, undo);
            old
        };
        if moves.iter().any(|&mv| recreates(mv)) && !pos.in_check(pos.side_to_move()) {
            moves.retain(|&mv| !recreates(mv));
        }
        moves
    }

    /// In seeded dai and tenjiku games that often step back, pass or repeat a move (so that
    /// recreations are offered again and again, long after captures and promotions), the legal
    /// moves after every ply are those of the full filter, and the filter both refused moves and
    /// was skipped.
    #[test]
    fn recreation_filter_matches_full_filter() {
        for id in [VariantId::DAI_SHOGI, VariantId::TENJIKU_SHOGI] {
            let (mut refused, mut refused_after_irreversible, mut skipped) = (0usize, 0usize, 0usize);
            for seed in 0..4u64 {
                let mut rng = SplitMix64::new(0x2EC2 + seed * 17 + id.index() as u64);
                let mut game = Game::new(Position::start(id), GameRules { ply_cap: 400, declaration: false });
                while game.outcome().is_none() {
                    let legal = game.legal_moves();
                    let reference = reference_legal(&game);
                    assert_eq!(legal, reference, "{id:?} seed {seed} after {:?}", game.moves());
                    let offered = game.position().legal_moves().len();
                    if offered > legal.len() {
                        refused += 1;
                        refused_after_irreversible += usize::from(game.reversible_from > 0);
                    }
                    skipped += usize::from(game.first_recreatable().is_none());
                    // Step back (the move before last, reversed), pass, or a random move.
                    let back = match game.moves().iter().rev().nth(1) {
                        Some(&Move::Normal { from, to, promote: false }) => Some(Move::Normal { from: to, to: from, promote: false }),
                        _ => None,
                    };
                    let roll = rng.next_u64() % 10;
                    let mv = match back {
                        Some(back) if roll < 4 && legal.contains(&back) => back,
                        _ if roll < 6 && legal.contains(&Move::Pass) => Move::Pass,
                        _ => legal[(rng.next_u64() % legal.len() as u64) as usize],
                    };
                    // Alternate the checked and the unchecked walk.
                    if game.ply().is_multiple_of(2) {
                        game.play(mv).expect("a legal move");
                    } else {
                        game.play_unchecked(mv);
                        game.settle();
                    }
                }
            }
            assert!(
                refused > 20 && refused_after_irreversible > 10 && skipped > 20,
                "{id:?}: refused {refused}, after an irreversible move {refused_after_irreversible}, skipped {skipped}"
            );
        }
    }
}

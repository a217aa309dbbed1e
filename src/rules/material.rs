//! Material values: what each face of each piece is worth, for the `alphabeta` player's
//! evaluation, the encoder's material and threat planes and the trainer's material target.
//!
//! Each face is worth its mobility, the number of squares it can reach from the centre of an
//! empty board (found with the move generator, so lion moves, area moves, range jumps and the
//! like count as they play); a piece that promotes adds a quarter of what promotion would gain
//! (`value(face) = 100 × mobility + 25 × max(0, mobility(promoted) − mobility)`). Pieces in hand
//! count at their unpromoted value. Royal pieces are worth 0: their loss ends the game.

use std::sync::OnceLock;

use super::position::MAX_HAND_TYPES;
use super::variant::MAX_VARIANTS;
use super::{Color, Move, Piece, PieceType, Position, VariantId};

/// Material values of one variant's piece faces.
#[derive(Debug)]
pub struct Material {
    /// Per face (`2 × type + promoted`).
    values: Vec<i32>,
    /// See [`Material::mean_start_piece`].
    mean_start_piece: f32,
}

impl Material {
    /// The values of `id`, computed on first use.
    pub fn of(id: VariantId) -> &'static Material {
        static TABLES: [OnceLock<Material>; MAX_VARIANTS] = [const { OnceLock::new() }; MAX_VARIANTS];
        TABLES[id.index()].get_or_init(|| Material::compute(id))
    }

    fn compute(id: VariantId) -> Material {
        let v = id.variant();
        let mut values = vec![0; 2 * v.spec.pieces.len()];
        for (t, spec) in v.spec.pieces.iter().enumerate() {
            if spec.royal {
                continue;
            }
            let ptype = PieceType::new(t);
            let plain = centre_mobility(id, ptype, false);
            let promoted = spec.promotion.map(|_| centre_mobility(id, ptype, true));
            let gain = promoted.map_or(0, |p| p.saturating_sub(plain));
            values[2 * t] = 100 * plain as i32 + 25 * gain as i32;
            values[2 * t + 1] = promoted.map_or(0, |p| 100 * p as i32);
        }
        let start: Vec<i32> =
            Position::start(id).pieces().map(|(_, p)| values[2 * p.ptype.index() + p.promoted as usize]).filter(|&v| v > 0).collect();
        let mean_start_piece = start.iter().sum::<i32>() as f32 / start.len().max(1) as f32;
        Material { values, mean_start_piece }
    }

    /// The value of the most valuable non-royal face: the unit of the normalised balances.
    pub fn strongest(&self) -> i32 {
        self.values.iter().copied().max().unwrap_or(0).max(1)
    }

    /// The mean value of the non-royal pieces of the start position: the unit of
    /// [`crate::mcts::SearchConfig::capture_utility`].
    pub fn mean_start_piece(&self) -> f32 {
        self.mean_start_piece
    }

    /// The value of a piece on the board.
    pub fn value(&self, piece: Piece) -> i32 {
        self.values[2 * piece.ptype.index() + piece.promoted as usize]
    }

    /// The value of a piece of type `ptype` in hand.
    pub fn hand_value(&self, ptype: PieceType) -> i32 {
        self.values[2 * ptype.index()]
    }

    /// Material of the side to move minus the opponent's, hands included.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.balance(pos, pos.side_to_move())
    }

    /// Material of `us` minus the opponent's, hands included.
    pub fn balance(&self, pos: &Position, us: Color) -> i32 {
        let mut score = self.hand_balance(pos, us);
        for (_, piece) in pos.pieces() {
            let value = self.value(piece);
            score += if piece.color == us { value } else { -value };
        }
        score
    }

    /// [`Material::balance`] in mean pieces of the start position ([`Material::mean_start_piece`]).
    pub fn lead(&self, pos: &Position, us: Color) -> f32 {
        self.balance(pos, us) as f32 / self.mean_start_piece
    }

    /// Material in `us`'s hand minus in the opponent's.
    pub fn hand_balance(&self, pos: &Position, us: Color) -> i32 {
        let them = us.opponent();
        pos.variant().hand_types.iter().map(|&t| (pos.hand(us, t) as i32 - pos.hand(them, t) as i32) * self.hand_value(t)).sum()
    }
}

/// Distinct squares a Black piece of `ptype` reaches from the board centre of an otherwise empty
/// board. The two kings the rules need stand out of its way: off its lines and more than three
/// steps away.
fn centre_mobility(id: VariantId, ptype: PieceType, promoted: bool) -> u32 {
    let v = id.variant();
    let (size, c) = (v.geometry.size, v.geometry.size / 2);
    let centre = v.geometry.square(c, c);
    let clear = |&(x, y): &(usize, usize)| {
        let (dx, dy) = (x.abs_diff(c), y.abs_diff(c));
        dx != 0 && dy != 0 && dx != dy && dx.max(dy) > 3
    };
    let black_king = (0..size).rev().flat_map(|y| (0..size).map(move |x| (x, y))).find(clear);
    let white_king = (0..size).flat_map(|y| (0..size).rev().map(move |x| (x, y))).find(clear);
    let king = v.spec.pieces.iter().position(|p| p.royal).map(PieceType::new);
    let mut pieces = vec![(centre, Piece { color: Color::Black, ptype, promoted })];
    if let (Some(king), Some((bx, by)), Some((wx, wy))) = (king, black_king, white_king) {
        pieces.push((v.geometry.square(bx, by), Piece { color: Color::Black, ptype: king, promoted: false }));
        pieces.push((v.geometry.square(wx, wy), Piece { color: Color::White, ptype: king, promoted: false }));
    }
    let Ok(pos) = Position::from_parts(v, &pieces, Color::Black, [[0; MAX_HAND_TYPES]; 2], None, 1) else {
        return 0;
    };
    let mut targets: Vec<_> = pos
        .legal_moves()
        .into_iter()
        .filter_map(|mv| match mv {
            Move::Normal { from, to, .. } | Move::TwoLeg { from, to, .. } if from == centre && to != centre => Some(to),
            _ => None,
        })
        .collect();
    targets.sort();
    targets.dedup();
    targets.len() as u32
}

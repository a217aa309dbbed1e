//! Input planes: a position, with what the network needs of its game history, as a stack of
//! `size x size` planes seen from the side to move (see [`super::frame`]). The same code serves
//! every variant; the plane list follows from the variant's data.
//!
//! Planes, in order (each `size * size` floats, row-major in the mover's frame):
//!
//! | planes | value |
//! |---|---|
//! | [`InputPlane::OnBoard`] | 1 everywhere: shows zero-padded convolutions where the board ends |
//! | [`InputPlane::Piece`], mover then opponent; per piece type in table order, the unpromoted face, then the promoted face if the type promotes | 1 where such a piece stands |
//! | [`InputPlane::Hand`], mover then opponent, per droppable type (drop variants only) | constant: pieces in hand / the most the hand can hold |
//! | [`InputPlane::PromotionZone`], mover then opponent | 1 on that side's promotion zone |
//! | [`InputPlane::Repetition`] for 1, 2, 3 | constant 1 when the position occurred at least that often before (the fourth occurrence ends the game) |
//! | [`InputPlane::InCheck`] | constant 1 when the mover's royal piece is attacked |
//! | [`InputPlane::RoyalCapture`] (version 2, variants where check does not matter) | constant 1 when the mover can take the opponent's only royal piece and win |
//! | [`InputPlane::MoverIsWhite`] | constant 1 when White moves (the sides are not symmetric: Black moves first, declaration thresholds differ) |
//! | [`InputPlane::PlyProgress`] | constant: plies played / ply cap (the cap is scored as a draw) |
//! | [`InputPlane::LastMoveFrom`], [`InputPlane::LastMoveTo`] for 1 then 2 plies ago (the first `recent_moves`, 2 unless a shape asks for fewer: [`Encoder::with_history`]) | 1 on the origin, resp. destination and middle square, of that move |
//! | [`InputPlane::Attacks`] (version 3), mover then opponent, for at least 1, 2, 3 attackers | 1 where that side attacks the square with at least that many pieces ([`AttackMap`], capped at 3 as dlshogi's attack planes are) |
//! | [`InputPlane::Hanging`] (version 3), mover then opponent | 1 on that side's pieces that the other side attacks and it does not defend |
//! | [`InputPlane::AttackedByLesser`] (version 3), mover then opponent | 1 on that side's pieces attacked by a piece worth less ([`Material`]) |
//! | [`InputPlane::MaterialOnBoard`], [`InputPlane::MaterialInHand`] (version 3; the hand plane in drop variants only) | constant: the mover's material minus the opponent's, on the board resp. in hand, in units of [`MATERIAL_UNIT`] strongest pieces, clamped to [-1, 1] |
//!
//! Shogi has 55 planes (67 in version 3), Heian dai shogi 62 (61 in version 1, 73 in version 3). [`Encoder::hash`] identifies the
//! layout; change [`ENCODING_VERSION`] when the planes change, and keep building the earlier
//! versions' layouts ([`Encoder::with_version`]) so that their checkpoints stay usable.

use super::frame::Frame;
use crate::fnv::Fnv1a;
use crate::rules::attacks::AttackMap;
use crate::rules::context::{GameContext, RECENT_MOVES};
use crate::rules::material::Material;
use crate::rules::variant::Legality;
use crate::rules::{Color, Game, Move, PieceType, Position, Variant};

/// Version of the encoding rules that new networks use, stored in checkpoints next to
/// [`Encoder::hash`]. Version 2 added [`InputPlane::RoyalCapture`], version 3 the attack, threat
/// and material planes.
pub const ENCODING_VERSION: u32 = 3;

/// Every version [`Encoder::with_version`] builds.
pub const ENCODING_VERSIONS: std::ops::RangeInclusive<u32> = 1..=ENCODING_VERSION;

/// Repetition planes: the position occurred at least 1, 2, 3 times before.
pub const REPETITION_PLANES: u8 = 3;

/// Attack-count planes per side: at least 1, 2, 3 attackers.
pub const ATTACK_PLANES: u8 = 3;

/// The material planes count in units of this many of the variant's strongest piece
/// ([`Material::strongest`]).
pub const MATERIAL_UNIT: f32 = 4.0;

/// A side, relative to the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The side to move.
    Mover,
    /// The side that moves next.
    Opponent,
}

impl Side {
    /// Both sides, the mover first (the order of plane groups).
    pub const BOTH: [Side; 2] = [Side::Mover, Side::Opponent];

    /// The side of `color`'s pieces when `mover` is to move.
    #[inline]
    pub fn of(color: Color, mover: Color) -> Side {
        if color == mover {
            Side::Mover
        } else {
            Side::Opponent
        }
    }

    /// The colour of this side when `mover` is to move.
    #[inline]
    pub fn color(self, mover: Color) -> Color {
        match self {
            Side::Mover => mover,
            Side::Opponent => mover.opponent(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Side::Mover => "mover",
            Side::Opponent => "opponent",
        }
    }
}

/// One input plane: what it shows (see the table in the [module documentation](self)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InputPlane {
    /// 1 on every square.
    OnBoard,
    /// 1 where a piece of `side` of type `piece` stands, on its promoted face if `promoted`.
    Piece { side: Side, piece: PieceType, promoted: bool },
    /// Constant: `side`'s pieces of type `piece` in hand divided by the most a hand can hold.
    Hand { side: Side, piece: PieceType },
    /// 1 on the promotion zone of `side` (the ranks nearest its far side).
    PromotionZone { side: Side },
    /// Constant 1 when the position occurred at least `times` times before in the game.
    Repetition { times: u8 },
    /// Constant 1 when the mover's (single) royal piece is attacked.
    InCheck,
    /// Constant 1 when the mover can take the opponent's only royal piece at once, which wins
    /// (variants where check does not matter; from version 2).
    RoyalCapture,
    /// Constant 1 when the side to move is White.
    MoverIsWhite,
    /// Constant: plies played divided by the game's ply cap, at most 1.
    PlyProgress,
    /// 1 on the origin of the move played `plies_ago` plies ago (empty for drops and passes).
    LastMoveFrom { plies_ago: u8 },
    /// 1 on the destination of the move played `plies_ago` plies ago, and on the middle square
    /// of a two-leg move.
    LastMoveTo { plies_ago: u8 },
    /// 1 where `side` attacks the square with at least `at_least` pieces (from version 3).
    Attacks { side: Side, at_least: u8 },
    /// 1 on the pieces of `side` that the other side attacks and `side` does not defend (from
    /// version 3).
    Hanging { side: Side },
    /// 1 on the pieces of `side` that a piece of lower value attacks (from version 3).
    AttackedByLesser { side: Side },
    /// Constant: the mover's material on the board minus the opponent's (from version 3).
    MaterialOnBoard,
    /// Constant: the mover's material in hand minus the opponent's (drop variants, from
    /// version 3).
    MaterialInHand,
}

impl InputPlane {
    /// A short stable description (`piece mover +R`), written into the layout hash.
    pub fn describe(&self, variant: &Variant) -> String {
        let abbr = |p: PieceType| variant.piece_spec(p).abbr;
        match *self {
            InputPlane::OnBoard => "on board".to_string(),
            InputPlane::Piece { side, piece, promoted } => {
                format!("piece {} {}{}", side.name(), if promoted { "+" } else { "" }, abbr(piece))
            }
            InputPlane::Hand { side, piece } => format!("hand {} {}", side.name(), abbr(piece)),
            InputPlane::PromotionZone { side } => format!("promotion zone {}", side.name()),
            InputPlane::Repetition { times } => format!("repetition >= {times}"),
            InputPlane::InCheck => "in check".to_string(),
            InputPlane::RoyalCapture => "royal capture".to_string(),
            InputPlane::MoverIsWhite => "mover is white".to_string(),
            InputPlane::PlyProgress => "ply progress".to_string(),
            InputPlane::LastMoveFrom { plies_ago } => format!("move {plies_ago} ago from"),
            InputPlane::LastMoveTo { plies_ago } => format!("move {plies_ago} ago to"),
            InputPlane::Attacks { side, at_least } => format!("attacks {} >= {at_least}", side.name()),
            InputPlane::Hanging { side } => format!("hanging {}", side.name()),
            InputPlane::AttackedByLesser { side } => format!("attacked by lesser {}", side.name()),
            InputPlane::MaterialOnBoard => "material on board".to_string(),
            InputPlane::MaterialInHand => "material in hand".to_string(),
        }
    }
}

/// Plane index of each group, found once per variant.
#[derive(Clone, Debug)]
struct Offsets {
    /// `[side][2 * type + promoted]`: piece plane, `None` for a face the type does not have.
    piece: [Vec<Option<usize>>; 2],
    /// `[side]`: first hand plane (one per entry of [`Variant::hand_types`]).
    hand: [usize; 2],
    zone: [usize; 2],
    repetition: usize,
    in_check: usize,
    royal_capture: Option<usize>,
    mover_is_white: usize,
    ply_progress: usize,
    /// First last-move plane: from and to for 1 ply ago, then for 2 plies ago (as many moves
    /// as [`Encoder::recent_moves`]).
    last_move: usize,
    /// The attack, threat and material planes (version 3).
    threats: Option<ThreatOffsets>,
}

/// Plane indices of the version-3 groups.
#[derive(Clone, Debug)]
struct ThreatOffsets {
    /// `[side]`: the first of its [`ATTACK_PLANES`] attack-count planes.
    attacks: [usize; 2],
    hanging: [usize; 2],
    lesser: [usize; 2],
    material_board: usize,
    material_hand: Option<usize>,
}

/// The plane list as it is built.
#[derive(Default)]
struct PlaneList {
    planes: Vec<InputPlane>,
}

impl PlaneList {
    /// Appends a plane and returns its index.
    fn add(&mut self, plane: InputPlane) -> usize {
        self.planes.push(plane);
        self.planes.len() - 1
    }

    /// Appends planes and returns the index of the first (where it would be if there are none).
    fn add_all(&mut self, planes: impl IntoIterator<Item = InputPlane>) -> usize {
        let first = self.planes.len();
        self.planes.extend(planes);
        first
    }
}

/// Writes the input planes of one variant. Built once, then used for every position.
#[derive(Clone, Debug)]
pub struct Encoder {
    variant: &'static Variant,
    version: u32,
    recent_moves: usize,
    frame: Frame,
    planes: Vec<InputPlane>,
    offsets: Offsets,
    /// `1 / max_in_hand` per piece type (0 where the type is never in hand).
    hand_scale: Vec<f32>,
    hash: u64,
}

impl Encoder {
    /// The encoder of `variant` that new networks use ([`ENCODING_VERSION`]).
    pub fn new(variant: &'static Variant) -> Encoder {
        Encoder::with_version(variant, ENCODING_VERSION).expect("the current version is known")
    }

    /// The encoder of `variant` in encoding `version`; `None` for a version this program does
    /// not know ([`ENCODING_VERSIONS`]).
    pub fn with_version(variant: &'static Variant, version: u32) -> Option<Encoder> {
        Encoder::with_history(variant, version, RECENT_MOVES)
    }

    /// The same, showing only the last `recent_moves` moves (0 to [`RECENT_MOVES`]; 1 keeps the
    /// opponent's last move and drops the mover's own); `None` for an unknown version or a
    /// longer history. With all [`RECENT_MOVES`] it is [`Encoder::with_version`]'s layout, hash
    /// included.
    pub fn with_history(variant: &'static Variant, version: u32, recent_moves: usize) -> Option<Encoder> {
        if !ENCODING_VERSIONS.contains(&version) || recent_moves > RECENT_MOVES {
            return None;
        }
        let mut list = PlaneList::default();
        list.add(InputPlane::OnBoard);
        let piece = Side::BOTH.map(|side| {
            (0..variant.spec.pieces.len())
                .flat_map(|t| [false, true].map(|promoted| (PieceType::new(t), promoted)))
                .map(|(piece, promoted)| {
                    let exists = !promoted || variant.piece_spec(piece).promotion.is_some();
                    exists.then(|| list.add(InputPlane::Piece { side, piece, promoted }))
                })
                .collect()
        });
        let hand = Side::BOTH.map(|side| list.add_all(variant.hand_types.iter().map(|&piece| InputPlane::Hand { side, piece })));
        let zone = Side::BOTH.map(|side| list.add(InputPlane::PromotionZone { side }));
        let repetition = list.add_all((1..=REPETITION_PLANES).map(|times| InputPlane::Repetition { times }));
        let in_check = list.add(InputPlane::InCheck);
        let royal_capture = (version >= 2 && variant.spec.legality == Legality::RoyalCapture).then(|| list.add(InputPlane::RoyalCapture));
        let mover_is_white = list.add(InputPlane::MoverIsWhite);
        let ply_progress = list.add(InputPlane::PlyProgress);
        let last_move = list.add_all(
            (1..=recent_moves as u8).flat_map(|plies_ago| [InputPlane::LastMoveFrom { plies_ago }, InputPlane::LastMoveTo { plies_ago }]),
        );
        let threats = (version >= 3).then(|| ThreatOffsets {
            attacks: Side::BOTH.map(|side| list.add_all((1..=ATTACK_PLANES).map(|at_least| InputPlane::Attacks { side, at_least }))),
            hanging: Side::BOTH.map(|side| list.add(InputPlane::Hanging { side })),
            lesser: Side::BOTH.map(|side| list.add(InputPlane::AttackedByLesser { side })),
            material_board: list.add(InputPlane::MaterialOnBoard),
            material_hand: (!variant.hand_types.is_empty()).then(|| list.add(InputPlane::MaterialInHand)),
        });
        let offsets = Offsets { piece, hand, zone, repetition, in_check, royal_capture, mover_is_white, ply_progress, last_move, threats };
        let planes = list.planes;
        let hand_scale = variant.max_in_hand.iter().map(|&m| if m == 0 { 0.0 } else { 1.0 / m as f32 }).collect();
        let frame = Frame::new(variant);
        let mut h = Fnv1a::default();
        h.write_str(&format!("encoding v{version} {} {}x{}", variant.name(), frame.size(), frame.size()));
        for plane in &planes {
            h.write_str(&plane.describe(variant));
        }
        Some(Encoder { variant, version, recent_moves, frame, planes, offsets, hand_scale, hash: h.finish() })
    }

    /// The encoding version.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// How many of the last moves the planes show.
    pub fn recent_moves(&self) -> usize {
        self.recent_moves
    }

    /// The variant.
    pub fn variant(&self) -> &'static Variant {
        self.variant
    }

    /// The planes in order.
    pub fn planes(&self) -> &[InputPlane] {
        &self.planes
    }

    /// Number of planes.
    pub fn plane_count(&self) -> usize {
        self.planes.len()
    }

    /// Board side length: planes are `size * size`.
    pub fn board_size(&self) -> usize {
        self.frame.size()
    }

    /// Floats per encoded position: planes times squares.
    pub fn len(&self) -> usize {
        self.planes.len() * self.frame.squares()
    }

    /// Always false: every variant has planes. (For the `len` convention.)
    pub fn is_empty(&self) -> bool {
        self.planes.is_empty()
    }

    /// The index of `plane`, if the variant has it.
    pub fn plane_index(&self, plane: InputPlane) -> Option<usize> {
        self.planes.iter().position(|&p| p == plane)
    }

    /// The frame tables (square order of every plane).
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    /// Identifies the layout: the version, the board and every plane's description.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Encodes the current position of `game` into `out` (`self.len()` floats).
    pub fn encode_game(&self, game: &Game, out: &mut [f32]) {
        self.encode(game.position(), &GameContext::of(game), out);
    }

    /// Encodes `pos` with its game context into `out`, which must hold exactly `self.len()`
    /// floats. Allocates nothing.
    pub fn encode(&self, pos: &Position, ctx: &GameContext, out: &mut [f32]) {
        assert_eq!(out.len(), self.len(), "encoding buffer of {} floats, expected {}", out.len(), self.len());
        debug_assert_eq!(pos.variant().id, self.variant.id, "position of another variant");
        let v = self.variant;
        let o = &self.offsets;
        let n = self.frame.size();
        let area = n * n;
        let us = pos.side_to_move();
        let plane = |p: usize| p * area..(p + 1) * area;
        out.fill(0.0);
        out[plane(0)].fill(1.0);
        for &sq in v.geometry.squares() {
            if let Some(p) = pos.piece_at(sq) {
                let side = Side::of(p.color, us) as usize;
                if let Some(k) = o.piece[side][2 * p.ptype.index() + p.promoted as usize] {
                    out[k * area + self.frame.index(us, sq)] = 1.0;
                }
            }
        }
        for side in Side::BOTH {
            let color = side.color(us);
            for (slot, &t) in v.hand_types.iter().enumerate() {
                let value = pos.hand(color, t) as f32 * self.hand_scale[t.index()];
                if value != 0.0 {
                    out[plane(o.hand[side as usize] + slot)].fill(value);
                }
            }
        }
        let zone = v.spec.zone_depth.min(n) * n;
        out[o.zone[Side::Mover as usize] * area..][..zone].fill(1.0);
        out[o.zone[Side::Opponent as usize] * area + area - zone..][..zone].fill(1.0);
        for times in 0..ctx.repetitions.min(REPETITION_PLANES as usize) {
            out[plane(o.repetition + times)].fill(1.0);
        }
        if pos.in_check(us) {
            out[plane(o.in_check)].fill(1.0);
        }
        if let Some(p) = o.royal_capture.filter(|_| pos.only_royal_en_prise(us.opponent())) {
            out[plane(p)].fill(1.0);
        }
        if us == Color::White {
            out[plane(o.mover_is_white)].fill(1.0);
        }
        let progress = if ctx.ply_cap == 0 { 1.0 } else { (ctx.ply as f32 / ctx.ply_cap as f32).min(1.0) };
        out[plane(o.ply_progress)].fill(progress);
        for (ago, mv) in ctx.recent.iter().take(self.recent_moves).enumerate() {
            let (from, to) = (o.last_move + 2 * ago, o.last_move + 2 * ago + 1);
            let mut mark = |p: usize, sq| out[p * area + self.frame.index(us, sq)] = 1.0;
            match *mv {
                Some(Move::Normal { from: f, to: t, .. }) => {
                    mark(from, f);
                    mark(to, t);
                }
                Some(Move::TwoLeg { from: f, mid, to: t, .. }) => {
                    mark(from, f);
                    mark(to, mid);
                    mark(to, t);
                }
                Some(Move::Drop { to: t, .. }) => mark(to, t),
                Some(Move::Pass | Move::Declare) | None => {}
            }
        }
        if let Some(threats) = &o.threats {
            self.encode_threats(pos, threats, out);
        }
    }

    /// Writes the version-3 planes: attack counts, hanging and outgunned pieces, material.
    fn encode_threats(&self, pos: &Position, o: &ThreatOffsets, out: &mut [f32]) {
        let v = self.variant;
        let area = self.frame.squares();
        let us = pos.side_to_move();
        let material = Material::of(v.id);
        let maps = Side::BOTH.map(|side| AttackMap::of(pos, side.color(us)));
        let mut board_balance = 0;
        for &sq in v.geometry.squares() {
            let at = self.frame.index(us, sq);
            for side in Side::BOTH {
                let count = maps[side as usize].count(sq).min(ATTACK_PLANES);
                for k in 0..count as usize {
                    out[(o.attacks[side as usize] + k) * area + at] = 1.0;
                }
            }
            let Some(piece) = pos.piece_at(sq) else { continue };
            let side = Side::of(piece.color, us) as usize;
            let (own, enemy) = (&maps[side], &maps[1 - side]);
            let value = material.value(piece);
            board_balance += if side == Side::Mover as usize { value } else { -value };
            if enemy.count(sq) > 0 && own.count(sq) == 0 {
                out[o.hanging[side] * area + at] = 1.0;
            }
            if enemy.cheapest(sq).is_some_and(|cheapest| cheapest < value) {
                out[o.lesser[side] * area + at] = 1.0;
            }
        }
        let unit = MATERIAL_UNIT * material.strongest() as f32;
        let scaled = |balance: i32| (balance as f32 / unit).clamp(-1.0, 1.0);
        out[o.material_board * area..][..area].fill(scaled(board_balance));
        if let Some(plane) = o.material_hand {
            out[plane * area..][..area].fill(scaled(material.hand_balance(pos, us)));
        }
    }
}

//! The policy/value network: a residual tower (tch) with KataGo-style global pooling in some
//! blocks, a convolutional policy head over the [`PolicyMap`] planes (plus a small linear head
//! for the indices outside the planes: pass, declaration), and a value head with win/draw/loss
//! logits and a moves-left estimate.
//!
//! Shapes: input `[B, planes, n, n]` as written by [`Encoder`]; policy logits `[B, policy map
//! size]`; WDL logits `[B, 3]` (from the side to move's view: win, draw, loss); moves left
//! `[B]` in plies, `MOVES_LEFT_SCALE * softplus(z)`.
//!
//! With [`NetworkConfig::auxiliary_heads`], every forward pass also predicts the material
//! balance ([`NetworkOutput::material`], a small output on the value head's hidden layer), and
//! [`Network::forward_with_auxiliary`] also gives [`AuxiliaryOutput`]: the opponent's reply
//! policy (a second output layer on the policy head's features) and the short-term value. They
//! are training targets: inference ([`Network::infer_into`]) computes none of them.

use serde::{Deserialize, Serialize};
use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

use super::config::{InferenceConfig, NetworkConfig};
use super::device::{DeviceError, Precision};
use super::encoding::{Encoder, ENCODING_VERSION};
use super::policy_map::PolicyMap;
use crate::invalid_field::InvalidField;
use crate::rules::context::RECENT_MOVES;
use crate::rules::VariantId;

/// The moves-left head predicts plies in units of this many plies.
pub const MOVES_LEFT_SCALE: f64 = 100.0;

/// What the network's inputs and outputs mean, fixed by the variant's [`Encoder`] and
/// [`PolicyMap`]. Stored in checkpoints; a network only fits data of the same layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IoLayout {
    /// The variant name.
    pub variant: String,
    /// Board side length.
    pub board_size: usize,
    /// The input encoding's version ([`ENCODING_VERSION`] for new networks).
    pub encoding_version: u32,
    /// How many of the last moves the input planes show ([`Encoder::with_history`]). Written
    /// only when fewer than [`RECENT_MOVES`], so that metadata without it (every checkpoint
    /// before the key) reads as all of them.
    #[serde(default = "all_recent_moves", skip_serializing_if = "shows_all_recent_moves")]
    pub recent_moves: usize,
    /// Input planes.
    pub input_planes: usize,
    /// [`Encoder::hash`], 16 hex digits.
    pub encoding_hash: String,
    /// Policy planes (each `board_size` squared).
    pub policy_planes: usize,
    /// Policy size: planes times squares plus the extra indices.
    pub policy_size: usize,
    /// [`PolicyMap::hash`], 16 hex digits.
    pub policy_hash: String,
    /// The hash of the variant's rules file ([`VariantSpec::rules_hash`], 16 hex digits).
    /// Metadata without it (written before variants came from files) fits any rules.
    ///
    /// [`VariantSpec::rules_hash`]: crate::rules::VariantSpec::rules_hash
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_hash: Option<String>,
}

impl IoLayout {
    /// The layout of `variant` that new networks get.
    pub fn of(variant: VariantId) -> IoLayout {
        IoLayout::with_version(variant, ENCODING_VERSION).expect("the current version is known")
    }

    /// The layout of `variant` in encoding `version`, if this program knows that version.
    pub fn with_version(variant: VariantId, version: u32) -> Option<IoLayout> {
        IoLayout::with_history(variant, version, RECENT_MOVES)
    }

    /// The same with the last `recent_moves` moves shown, if this program builds that encoding
    /// ([`Encoder::with_history`]).
    pub fn with_history(variant: VariantId, version: u32, recent_moves: usize) -> Option<IoLayout> {
        let v = variant.variant();
        let (encoder, map) = (Encoder::with_history(v, version, recent_moves)?, PolicyMap::new(v));
        Some(IoLayout {
            variant: variant.name().to_string(),
            board_size: encoder.board_size(),
            encoding_version: version,
            recent_moves,
            input_planes: encoder.plane_count(),
            encoding_hash: format!("{:016x}", encoder.hash()),
            policy_planes: map.planes().len(),
            policy_size: map.len(),
            policy_hash: format!("{:016x}", map.hash()),
            rules_hash: Some(format!("{:016x}", variant.spec().rules_hash)),
        })
    }

    fn area(&self) -> i64 {
        (self.board_size * self.board_size) as i64
    }

    fn policy_extras(&self) -> i64 {
        self.policy_size as i64 - self.policy_planes as i64 * self.area()
    }
}

fn all_recent_moves() -> usize {
    RECENT_MOVES
}

fn shows_all_recent_moves(recent_moves: &usize) -> bool {
    *recent_moves == RECENT_MOVES
}

impl std::fmt::Display for IoLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}, encoding v{} {}, policy map of {} {}",
            self.variant, self.encoding_version, self.encoding_hash, self.policy_size, self.policy_hash
        )?;
        if self.recent_moves != RECENT_MOVES {
            write!(f, ", last {} moves shown", self.recent_moves)?;
        }
        Ok(())
    }
}

/// Why a network could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    #[error("invalid network shape: {0}")]
    Config(#[from] InvalidField),
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// The raw outputs of a forward pass, on the network's device and in its precision.
#[derive(Debug)]
pub struct NetworkOutput {
    /// `[B, policy size]` logits.
    pub policy: Tensor,
    /// `[B, 3]` win/draw/loss logits for the side to move.
    pub wdl: Tensor,
    /// `[B]` estimated plies left.
    pub moves_left: Tensor,
    /// `[B, 2]` material balance for the side to move, in units of the strongest piece: a few
    /// plies ahead and at the game's end. Only networks with auxiliary heads have it.
    pub material: Option<Tensor>,
}

/// The outputs of the auxiliary heads, which only training uses.
#[derive(Debug)]
pub struct AuxiliaryOutput {
    /// `[B, policy size]` logits of the opponent's reply, the policy of the position after the
    /// move (indexed for the opponent, the side to move there).
    pub opponent_policy: Tensor,
    /// `[B]` short-term value for the side to move, -1 to 1.
    pub short_term_value: Tensor,
}

/// Convolution without bias followed by batch normalisation.
#[derive(Debug)]
struct ConvBn {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
}

impl ConvBn {
    fn new(p: nn::Path, cin: i64, cout: i64, k: i64) -> ConvBn {
        let config = nn::ConvConfig { padding: k / 2, bias: false, ..Default::default() };
        ConvBn { conv: nn::conv2d(&p / "conv", cin, cout, k, config), bn: nn::batch_norm2d(&p / "bn", cout, Default::default()) }
    }

    fn forward(&self, x: &Tensor, train: bool) -> Tensor {
        self.bn.forward_t(&x.apply(&self.conv), train)
    }
}

/// Mean and maximum over the board of every channel: `[B, C, n, n]` to `[B, 2C]`.
fn global_pool(x: &Tensor) -> Tensor {
    Tensor::cat(&[x.mean_dim([2i64, 3].as_slice(), false, None), x.amax([2i64, 3].as_slice(), false)], 1)
}

/// Adds `bias` (`[B, C]`) to every square of `x` (`[B, C, n, n]`).
fn add_channel_bias(x: &Tensor, bias: &Tensor) -> Tensor {
    x + bias.unsqueeze(-1).unsqueeze(-1)
}

/// KataGo's global pooling branch: some channels, normalised and pooled, become a per-channel
/// bias of the others.
#[derive(Debug)]
struct PoolBias {
    gather: ConvBn,
    to_bias: nn::Linear,
}

impl PoolBias {
    fn new(p: nn::Path, cin: i64, pooled: i64, cout: i64) -> PoolBias {
        PoolBias {
            gather: ConvBn::new(&p / "gather", cin, pooled, 1),
            to_bias: nn::linear(&p / "bias", 2 * pooled, cout, Default::default()),
        }
    }

    /// The pooled features `[B, 2 * pooled]`.
    fn pooled(&self, x: &Tensor, train: bool) -> Tensor {
        global_pool(&self.gather.forward(x, train).relu())
    }
}

/// A residual block: two 3x3 convolutions, the first one's output biased by a global pooling
/// branch in pooling blocks.
#[derive(Debug)]
struct Block {
    first: ConvBn,
    pool: Option<PoolBias>,
    second: ConvBn,
}

impl Block {
    fn new(p: nn::Path, channels: i64, pooled: Option<i64>) -> Block {
        let mid = channels - pooled.unwrap_or(0);
        let first = ConvBn::new(&p / "first", channels, mid, 3);
        let pool = pooled.map(|g| PoolBias::new(&p / "pool", channels, g, mid));
        Block { first, pool, second: ConvBn::new(&p / "second", mid, channels, 3) }
    }

    fn forward(&self, x: &Tensor, train: bool) -> Tensor {
        let mut y = self.first.forward(x, train);
        if let Some(pool) = &self.pool {
            y = add_channel_bias(&y, &pool.pooled(x, train).apply(&pool.to_bias));
        }
        (self.second.forward(&y.relu(), train) + x).relu()
    }
}

/// The last layer of a policy: a 1x1 convolution to the policy planes, and a linear layer from
/// the pooled features to the extra indices (when the map has any).
#[derive(Debug)]
struct PolicyOutput {
    planes: nn::Conv2D,
    extras: Option<nn::Linear>,
}

impl PolicyOutput {
    /// The layers `planes` and `extras` under `p`.
    fn new(p: &nn::Path, (planes, extras): (&str, &str), layout: &IoLayout, hidden: i64, pooled: i64) -> PolicyOutput {
        let count = layout.policy_extras();
        PolicyOutput {
            planes: nn::conv2d(p / planes, hidden, layout.policy_planes as i64, 1, Default::default()),
            extras: (count > 0).then(|| nn::linear(p / extras, pooled, count, Default::default())),
        }
    }

    /// `[B, policy size]` logits from the head's features `[B, hidden, n, n]` and its pooled
    /// features `[B, pooled]`.
    fn logits(&self, features: &Tensor, pooled: &Tensor) -> Tensor {
        let planes = features.apply(&self.planes).flatten(1, -1);
        match &self.extras {
            Some(extras) => Tensor::cat(&[planes, pooled.apply(extras)], 1),
            None => planes,
        }
    }

    /// The float32 logits of the moves `at` names, computed for those moves alone: a plane
    /// index is the dot product of its square's features with the plane's weights (what the
    /// 1x1 convolution of [`PolicyOutput::logits`] computes there), an extra index the linear
    /// layer on its position's pooled features. Inference asks for a hundred or so moves of a
    /// position out of tens of thousands of indices.
    fn logits_at(&self, features: &Tensor, pooled: &Tensor, at: &MoveIndices) -> (Tensor, Option<Tensor>) {
        let device = features.device();
        let channels = features.size()[1];
        let rows = features.permute([0, 2, 3, 1]).reshape([-1, channels]);
        let plane = Tensor::from_slice(&at.planes).to_device(device);
        let square = Tensor::from_slice(&at.squares).to_device(device);
        let weights = self.planes.ws.view([-1, channels]).index_select(0, &plane).to_kind(Kind::Float);
        let mut logits = (rows.index_select(0, &square).to_kind(Kind::Float) * weights).sum_dim_intlist(1, false, Kind::Float);
        if let Some(bias) = &self.planes.bs {
            logits += bias.index_select(0, &plane).to_kind(Kind::Float);
        }
        let extras = match (&self.extras, at.extras.is_empty()) {
            (Some(extras), false) => {
                let index = Tensor::from_slice(&at.extras).to_device(device);
                Some(pooled.apply(extras).reshape([-1]).index_select(0, &index).to_kind(Kind::Float))
            }
            _ => None,
        };
        (logits, extras)
    }
}

/// Where the legal moves of a batch sit in the policy outputs, for [`PolicyOutput::logits_at`]:
/// the plane and the batch-wide square (position times area plus square) of each plane move,
/// the batch-wide extra index (position times extras plus index) of each other move, and the
/// slots of both kinds in the batch's list of moves.
#[derive(Clone, Debug, Default)]
struct MoveIndices {
    planes: Vec<i64>,
    squares: Vec<i64>,
    plane_slots: Vec<usize>,
    extras: Vec<i64>,
    extra_slots: Vec<usize>,
}

impl MoveIndices {
    /// Fills the indices of the moves `legal[i]` (policy indices) of every position `i`.
    fn fill<L: AsRef<[u32]>>(&mut self, layout: &IoLayout, legal: &[L]) {
        let (area, plane_indices, extra_count) = (layout.area(), layout.policy_planes as i64 * layout.area(), layout.policy_extras());
        self.planes.clear();
        self.squares.clear();
        self.plane_slots.clear();
        self.extras.clear();
        self.extra_slots.clear();
        let mut slot = 0;
        for (i, moves) in legal.iter().enumerate() {
            let i = i as i64;
            for &k in moves.as_ref() {
                assert!((k as usize) < layout.policy_size, "policy index {k} past the end ({})", layout.policy_size);
                let k = k as i64;
                if k < plane_indices {
                    self.planes.push(k / area);
                    self.squares.push(i * area + k % area);
                    self.plane_slots.push(slot);
                } else {
                    self.extras.push(i * extra_count + k - plane_indices);
                    self.extra_slots.push(slot);
                }
                slot += 1;
            }
        }
    }
}

/// Policy head: a 1x1 convolution biased by globally pooled features, then the policy's output
/// layer; with auxiliary heads, a second output layer for the opponent's reply.
#[derive(Debug)]
struct PolicyHead {
    hidden: nn::Conv2D,
    pool: PoolBias,
    bn: nn::BatchNorm,
    output: PolicyOutput,
    reply: Option<PolicyOutput>,
}

/// Value head: 1x1 convolution, global pooling, a hidden layer, then WDL and moves left; with
/// auxiliary heads, material and short-term value as well.
#[derive(Debug)]
struct ValueHead {
    conv: ConvBn,
    hidden: nn::Linear,
    wdl: nn::Linear,
    moves_left: nn::Linear,
    auxiliary: Option<ValueAuxiliary>,
}

/// The auxiliary outputs on the value head's hidden layer.
#[derive(Debug)]
struct ValueAuxiliary {
    material: nn::Linear,
    short_term_value: nn::Linear,
}

/// A policy/value network with its variables.
#[derive(Debug)]
pub struct Network {
    vs: nn::VarStore,
    variant: VariantId,
    layout: IoLayout,
    config: NetworkConfig,
    precision: Precision,
    stem: ConvBn,
    blocks: Vec<Block>,
    policy: PolicyHead,
    value: ValueHead,
}

impl Network {
    /// A freshly initialised network for `variant` of shape `config`, on `device`, in float32,
    /// reading the encoding the shape names (the current one by default). Call [`Network::set_precision`] for reduced-precision
    /// inference.
    pub fn new(variant: VariantId, config: &NetworkConfig, device: Device) -> Result<Network, NetworkError> {
        config.validate()?;
        let version = config.encoding_version.unwrap_or(ENCODING_VERSION);
        let recent_moves = config.recent_moves.unwrap_or(RECENT_MOVES);
        let layout =
            IoLayout::with_history(variant, version, recent_moves).expect("a validated shape names an encoding this program builds");
        Network::with_layout(variant, layout, config, device)
    }

    /// The same for a network reading `layout` (of `variant`, as a checkpoint records it).
    pub fn with_layout(variant: VariantId, layout: IoLayout, config: &NetworkConfig, device: Device) -> Result<Network, NetworkError> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let c = config.channels as i64;
        let g = config.global_pool_channels as i64;
        let stem = ConvBn::new(&root / "stem", layout.input_planes as i64, c, 3);
        let blocks = (0..config.blocks).map(|i| Block::new(&root / "blocks" / i, c, config.pools(i).then_some(g))).collect();
        let p = &root / "policy";
        let pc = config.policy_channels as i64;
        let auxiliary = config.auxiliary_heads;
        let policy = PolicyHead {
            hidden: nn::conv2d(&p / "hidden", c, pc, 1, nn::ConvConfig { bias: false, ..Default::default() }),
            pool: PoolBias::new(&p / "pool", c, g, pc),
            bn: nn::batch_norm2d(&p / "bn", pc, Default::default()),
            output: PolicyOutput::new(&p, ("planes", "extras"), &layout, pc, 2 * g),
            reply: auxiliary.then(|| PolicyOutput::new(&p, ("reply_planes", "reply_extras"), &layout, pc, 2 * g)),
        };
        let v = &root / "value";
        let vc = config.value_channels as i64;
        let hidden = config.value_hidden as i64;
        let value = ValueHead {
            conv: ConvBn::new(&v / "conv", c, vc, 1),
            hidden: nn::linear(&v / "hidden", 2 * vc, hidden, Default::default()),
            wdl: nn::linear(&v / "wdl", hidden, 3, Default::default()),
            moves_left: nn::linear(&v / "moves_left", hidden, 1, Default::default()),
            auxiliary: auxiliary.then(|| ValueAuxiliary {
                material: nn::linear(&v / "material", hidden, 2, Default::default()),
                short_term_value: nn::linear(&v / "short_term_value", hidden, 1, Default::default()),
            }),
        };
        Ok(Network { vs, variant, layout, config: *config, precision: Precision::F32, stem, blocks, policy, value })
    }

    /// A freshly initialised network of `variant` and `shape` on the device and in the
    /// precision of `inference` (an error if the device is absent).
    pub fn for_inference(variant: VariantId, shape: &NetworkConfig, inference: &InferenceConfig) -> Result<Network, NetworkError> {
        let device = inference.device.resolve()?;
        let mut network = Network::new(variant, shape, device)?;
        network.set_precision(inference.precision)?;
        Ok(network)
    }

    /// Converts the weights to `precision` (resolved for the device: [`Precision::resolve`])
    /// for inference, checking that the device supports it.
    pub fn set_precision(&mut self, precision: Precision) -> Result<(), DeviceError> {
        let precision = precision.resolve(self.device());
        precision.check(self.device())?;
        match precision {
            Precision::F32 | Precision::Auto => self.vs.float(),
            Precision::Bf16 => self.vs.bfloat16(),
            Precision::F16 => self.vs.half(),
        }
        self.precision = precision;
        Ok(())
    }

    /// The variant.
    pub fn variant(&self) -> VariantId {
        self.variant
    }

    /// What the inputs and outputs mean.
    pub fn layout(&self) -> &IoLayout {
        &self.layout
    }

    /// The encoder of this network's inputs.
    pub fn encoder(&self) -> Encoder {
        Encoder::with_history(self.variant.variant(), self.layout.encoding_version, self.layout.recent_moves)
            .expect("a network's layout is built for an encoding this program builds")
    }

    /// The shape.
    pub fn config(&self) -> &NetworkConfig {
        &self.config
    }

    /// The device the weights live on.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// The number format of the weights.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The variables (weights and normalisation statistics).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// Floats of one encoded position.
    pub fn input_len(&self) -> usize {
        self.layout.input_planes * self.layout.board_size * self.layout.board_size
    }

    /// A forward pass. `input` is `[B, planes, n, n]` of any float kind on any device; it is
    /// moved to the network's device and precision. `train` selects batch statistics in the
    /// normalisation layers (training) over the running ones (inference).
    pub fn forward(&self, input: &Tensor, train: bool) -> NetworkOutput {
        self.pass(input, train, false).0
    }

    /// [`Network::forward`] with the outputs of the auxiliary heads, when the network has them
    /// ([`NetworkConfig::auxiliary_heads`]).
    pub fn forward_with_auxiliary(&self, input: &Tensor, train: bool) -> (NetworkOutput, Option<AuxiliaryOutput>) {
        self.pass(input, train, true)
    }

    /// The forward pass, through the auxiliary heads as well when `auxiliary` is set and the
    /// network has them.
    fn pass(&self, input: &Tensor, train: bool, auxiliary: bool) -> (NetworkOutput, Option<AuxiliaryOutput>) {
        let x = self.trunk(input, train);
        let p = &self.policy;
        let (features, pooled) = p.features(&x, train);
        let v = &self.value;
        let h = v.hidden_layer(&x, train);
        let moves_left = v.moves_left(&h);
        let material = v.auxiliary.as_ref().map(|value| h.apply(&value.material));
        let extra = match (&p.reply, &v.auxiliary) {
            (Some(reply), Some(value)) if auxiliary => Some(AuxiliaryOutput {
                opponent_policy: reply.logits(&features, &pooled),
                short_term_value: h.apply(&value.short_term_value).tanh().squeeze_dim(-1),
            }),
            _ => None,
        };
        let output = NetworkOutput { policy: p.output.logits(&features, &pooled), wdl: h.apply(&v.wdl), moves_left, material };
        (output, extra)
    }

    /// The stem and the residual tower: `[B, channels, n, n]` features of `input`, moved to
    /// the network's device and precision.
    fn trunk(&self, input: &Tensor, train: bool) -> Tensor {
        let x = input.to_device(self.device()).to_kind(self.precision.kind());
        let mut x = self.stem.forward(&x, train).relu();
        for block in &self.blocks {
            x = block.forward(&x, train);
        }
        x
    }

    /// An inference pass (no gradients, running statistics) over positions encoded one after
    /// another in `planes`, where `legal[i]` holds the policy indices of position `i`'s legal
    /// moves. The policy is computed for those moves only, not over the whole map; the results
    /// go into the reused buffers of `out`.
    pub fn infer_into<L: AsRef<[u32]>>(&self, planes: &[f32], legal: &[L], out: &mut Inference) {
        let layout = &self.layout;
        let batch = legal.len();
        assert_eq!(planes.len(), batch * self.input_len(), "input of {} floats for {batch} positions", planes.len());
        out.moves.fill(layout, legal);
        out.offsets.clear();
        out.offsets.push(0);
        for moves in legal {
            out.offsets.push(out.offsets.last().expect("starts at 0") + moves.as_ref().len());
        }
        let n = layout.board_size as i64;
        let _guard = tch::no_grad_guard();
        let input = Tensor::from_slice(planes).view([batch as i64, layout.input_planes as i64, n, n]);
        let x = self.trunk(&input, false);
        let (p, v) = (&self.policy, &self.value);
        let (features, pooled) = p.features(&x, false);
        let (plane_logits, extra_logits) = p.output.logits_at(&features, &pooled, &out.moves);
        out.logits.resize(out.moves.plane_slots.len() + out.moves.extra_slots.len(), 0.0);
        copy_to_slots(&plane_logits, &out.moves.plane_slots, &mut out.scratch, &mut out.logits);
        if let Some(extra_logits) = extra_logits {
            copy_to_slots(&extra_logits, &out.moves.extra_slots, &mut out.scratch, &mut out.logits);
        }
        let h = v.hidden_layer(&x, false);
        copy_out(&h.apply(&v.wdl).softmax(-1, Kind::Float), batch * 3, &mut out.wdl);
        copy_out(&v.moves_left(&h), batch, &mut out.moves_left);
    }
}

impl PolicyHead {
    /// The head's features `[B, hidden, n, n]` (a 1x1 convolution biased by the pooled
    /// features, normalised) and its pooled features `[B, 2 * pooled]`, from the tower's `x`.
    fn features(&self, x: &Tensor, train: bool) -> (Tensor, Tensor) {
        let pooled = self.pool.pooled(x, train);
        let hidden = add_channel_bias(&x.apply(&self.hidden), &pooled.apply(&self.pool.to_bias));
        (self.bn.forward_t(&hidden, train).relu(), pooled)
    }
}

impl ValueHead {
    /// The hidden layer `[B, value hidden]` every value output reads, from the tower's `x`.
    fn hidden_layer(&self, x: &Tensor, train: bool) -> Tensor {
        global_pool(&self.conv.forward(x, train).relu()).apply(&self.hidden).relu()
    }

    /// `[B]` estimated plies left from the hidden layer `h`.
    fn moves_left(&self, h: &Tensor) -> Tensor {
        h.apply(&self.moves_left).softplus().squeeze_dim(-1) * MOVES_LEFT_SCALE
    }
}

/// Copies `numel` values of `t` into `out` as float32 on the CPU.
fn copy_out(t: &Tensor, numel: usize, out: &mut Vec<f32>) {
    out.resize(numel, 0.0);
    t.to_device(Device::Cpu).to_kind(Kind::Float).contiguous().copy_data(out, numel);
}

/// Copies the values of `t`, one for each of `slots`, into those slots of `out`, through the
/// reused buffer `scratch`.
fn copy_to_slots(t: &Tensor, slots: &[usize], scratch: &mut Vec<f32>, out: &mut [f32]) {
    copy_out(t, slots.len(), scratch);
    for (&slot, &value) in slots.iter().zip(scratch.iter()) {
        out[slot] = value;
    }
}

/// The evaluation of one position: priors over its legal moves and the value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// Probabilities of the legal moves, in the order their indices were given (they sum to 1).
    pub priors: Vec<f32>,
    /// Win, draw, loss probabilities for the side to move.
    pub wdl: [f32; 3],
    /// Estimated plies left in the game.
    pub moves_left: f32,
}

/// The float32 outputs of an inference pass, in buffers reused from pass to pass.
#[derive(Clone, Debug, Default)]
pub struct Inference {
    /// Where the legal moves sit in the policy outputs.
    moves: MoveIndices,
    /// Position `i`'s legal moves are `offsets[i]..offsets[i + 1]` of `logits`.
    offsets: Vec<usize>,
    /// The policy logits of the legal moves.
    logits: Vec<f32>,
    /// `[batch][3]` probabilities.
    wdl: Vec<f32>,
    /// `[batch]` plies.
    moves_left: Vec<f32>,
    /// Logits of one kind of move on their way into `logits`.
    scratch: Vec<f32>,
}

impl Inference {
    /// Positions in the last pass.
    pub fn batch(&self) -> usize {
        self.moves_left.len()
    }

    /// The policy logits of position `i`'s legal moves, in the order their indices were given.
    pub fn legal_logits(&self, i: usize) -> &[f32] {
        &self.logits[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Writes the evaluation of position `i` into `out`: a softmax of its legal moves' logits,
    /// and the value.
    pub fn evaluation_into(&self, i: usize, out: &mut Evaluation) {
        out.priors.clear();
        out.priors.extend_from_slice(self.legal_logits(i));
        let max = out.priors.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for p in &mut out.priors {
            *p = (*p - max).exp();
            sum += *p;
        }
        for p in &mut out.priors {
            *p /= sum;
        }
        out.wdl.copy_from_slice(&self.wdl[3 * i..3 * i + 3]);
        out.moves_left = self.moves_left[i];
    }

    /// The evaluation of position `i`.
    pub fn evaluation(&self, i: usize) -> Evaluation {
        let mut out = Evaluation::default();
        self.evaluation_into(i, &mut out);
        out
    }
}

//! The variant file format: a variant's rules as a TOML file (`variants/*.toml`), read into a
//! [`VariantSpec`]. The vocabulary is that of `shared/rules/README.md`: steps, slides, limited
//! ranges, jumps, lion power, igui, skipping rides, area moves, range-jumping and burning.
//!
//! A file is checked once, when it is read: every error names the file, the table (`[rules]`,
//! the piece row and its name) and the key.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::geometry::MAX_SIZE;
use super::piece::{Dir, LionPower, Movement, PieceSpec, Promotion, Ride, MAX_FACES, UNLIMITED};
use super::variant::{BareKingRule, Legality, PromotionRule, RepetitionRule, VariantSpec};
use crate::fnv;

/// A variant file as written.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    /// The name on the command line and in files (`minishogi`).
    pub name: String,
    /// English title.
    pub title: String,
    /// Files and ranks of the square board.
    pub size: usize,
    /// The start position in SFEN (multi-letter pieces in parentheses).
    pub start: String,
    /// Game length cap in plies, scored as a draw.
    pub ply_cap: u32,
    /// How USI engines name the variant (`UCI_Variant`), where they play it.
    #[serde(default)]
    pub usi_variant: Option<String>,
    /// How XBoard engines name the variant, where they play it.
    #[serde(default)]
    pub xboard_variant: Option<String>,
    pub rules: RulesTable,
    pub pieces: Vec<PieceTable>,
}

/// The `[rules]` table.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesTable {
    /// `checkmate` (a move may not leave the king attacked) or `royal-capture`.
    pub legality: LegalityName,
    /// `start-or-end`, `entering` or `entering-or-capture`.
    pub promotion: PromotionName,
    /// Depth of the promotion zone in ranks.
    pub zone_depth: usize,
    /// Pieces that could never move again must promote.
    pub compulsory_promotion: bool,
    /// Captured pieces go to the captor's hand (with the pawn rules: two pawns on a file, mate
    /// by a pawn drop).
    #[serde(default)]
    pub drops: bool,
    /// The 27-point declaration (points per piece row).
    #[serde(default)]
    pub declaration: bool,
    /// `none`, `heian` or `chu`.
    #[serde(default)]
    pub bare_king: BareKingName,
    /// `fourth-occurrence`, `fourth-occurrence-black-loses` or `no-recreation`.
    pub repetition: RepetitionName,
    /// Chu's lion-trading rules.
    #[serde(default)]
    pub lion_trading: bool,
}

/// Legality names.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LegalityName {
    Checkmate,
    RoyalCapture,
}

/// Promotion rule names.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromotionName {
    StartOrEnd,
    Entering,
    EnteringOrCapture,
}

/// Bare-king rule names.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BareKingName {
    #[default]
    None,
    Heian,
    Chu,
}

/// Repetition rule names.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepetitionName {
    FourthOccurrence,
    FourthOccurrenceBlackLoses,
    NoRecreation,
}

/// One `[[pieces]]` row.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PieceTable {
    pub name: String,
    /// Letters in positions and moves: one or two, first upper case (`R`, `FD`, `Ln`).
    pub abbr: String,
    /// Losing every royal piece loses the game.
    #[serde(default)]
    pub royal: bool,
    /// Points in the declaration count.
    #[serde(default)]
    pub points: u8,
    pub moves: MovesTable,
    #[serde(default)]
    pub promotes: Option<PromotedTable>,
}

/// A piece's promoted face.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PromotedTable {
    pub name: String,
    #[serde(default)]
    pub royal: bool,
    pub moves: MovesTable,
}

/// How one face moves. Directions are named for Black (forward = towards the enemy).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MovesTable {
    /// One square along these directions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub step: Vec<DirGroup>,
    /// Any number of empty squares along these directions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slide: Vec<DirGroup>,
    /// At most `max` squares along these directions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub range: Vec<RangeTable>,
    /// Jumps to `[sideways, forward]`, at most two squares each way, in left-right pairs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jump: Vec<[i8; 2]>,
    /// `full` (two king steps, igui) or `igui` (capture an adjacent piece without moving).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lion: Option<LionName>,
    /// Lion power along these lines only (horned falcon, soaring eagle).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lion_lines: Vec<DirGroup>,
    /// Rides that pass over their first square, whatever stands there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<RangeTable>,
    /// An area move of up to this many king steps through empty squares.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub area: u8,
    /// Range-jumping rank: the unlimited slides fly over pieces of lower rank to capture.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub range_jump: u8,
    /// Burns the enemy pieces next to where it stops.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub burns: bool,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// A limited ride: `max` squares along `dirs` (no `max`: unlimited, for skipping rides).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RangeTable {
    pub dirs: Vec<DirGroup>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u8>,
}

/// Lion power names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LionName {
    Full,
    Igui,
}

/// A named set of directions, for Black; each set is left-right symmetric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirGroup {
    Forward,
    Backward,
    Sideways,
    Vertical,
    Orthogonal,
    Diagonal,
    ForwardDiagonal,
    BackwardDiagonal,
    All,
}

impl DirGroup {
    /// The directions, `(dx, forward)`.
    pub fn dirs(self) -> &'static [Dir] {
        use super::piece::dirs;
        match self {
            DirGroup::Forward => dirs::FORWARD,
            DirGroup::Backward => dirs::BACKWARD,
            DirGroup::Sideways => dirs::SIDEWAYS,
            DirGroup::Vertical => dirs::VERTICAL,
            DirGroup::Orthogonal => dirs::ORTHOGONAL,
            DirGroup::Diagonal => dirs::DIAGONAL,
            DirGroup::ForwardDiagonal => dirs::FORWARD_DIAGONAL,
            DirGroup::BackwardDiagonal => dirs::BACKWARD_DIAGONAL,
            DirGroup::All => dirs::ALL,
        }
    }
}

/// What is wrong with a variant file: the file, where in it, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("variant file {file}: {place}: {message}")]
pub struct VariantFileError {
    /// The file (`variants/shogi.toml`, or the path given).
    pub file: String,
    /// The table and key (`[[pieces]] #3 "Rook", key moves.slide`), or the line.
    pub place: String,
    pub message: String,
}

/// Where in the file: a table and a key.
#[derive(Clone)]
struct Place {
    table: String,
}

impl Place {
    fn key(&self, key: &str) -> String {
        format!("{}, key `{key}`", self.table)
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.table)
    }
}

/// Reads the variant file `text` (from `file`, named in errors).
pub fn parse(file: &str, text: &str) -> Result<VariantFile, VariantFileError> {
    let error = |place: String, message: String| VariantFileError { file: file.to_string(), place, message };
    let deserializer = toml::Deserializer::parse(text).map_err(|e| error(line_of(text, e.span()), e.message().to_string()))?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let place = [table_and_key(&path), line_of(text, inner.span())].into_iter().filter(|p| !p.is_empty());
        error(place.collect::<Vec<_>>().join(", "), inner.message().to_string())
    })
}

/// `line N` of the start of byte range `span`, or nothing.
fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    span.map(|s| format!("line {}", text[..s.start.min(text.len())].matches('\n').count() + 1)).unwrap_or_default()
}

/// The table and key of a serde path: `pieces[3].moves.slide[0]` as
/// ``[[pieces]] #4, key `moves.slide[0]` ``, `rules.drops` as ``[rules], key `drops` ``.
fn table_and_key(path: &str) -> String {
    if path.is_empty() || path == "." {
        return String::new();
    }
    if let Some(rest) = path.strip_prefix("pieces[") {
        let (index, key) = rest.split_once(']').unwrap_or((rest, ""));
        let row = index.parse::<usize>().map_or(0, |i| i + 1);
        let key = key.trim_start_matches('.');
        return if key.is_empty() { format!("[[pieces]] #{row}") } else { format!("[[pieces]] #{row}, key `{key}`") };
    }
    match path.strip_prefix("rules.") {
        Some(key) => format!("[rules], key `{key}`"),
        None => format!("key `{path}`"),
    }
}

impl VariantFile {
    /// The hash of the rules as read (not of the text: comments and layout do not count), which
    /// checkpoints record.
    pub fn rules_hash(&self) -> u64 {
        fnv::hash(&serde_json::to_vec(self).expect("a variant file serialises"))
    }

    /// Checks the file and turns it into the rules data (its strings and tables live for the
    /// rest of the process). The start position is checked where the variant is built.
    pub fn to_spec(&self, file: &str) -> Result<VariantSpec, VariantFileError> {
        let error = |place: String, message: String| VariantFileError { file: file.to_string(), place, message };
        let top = |key: &str, message: String| error(format!("key `{key}`"), message);
        if self.name.is_empty() || !self.name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
            return Err(top("name", format!("'{}' must be lower-case letters, digits and '-'", self.name)));
        }
        if !(2..=MAX_SIZE).contains(&self.size) {
            return Err(top("size", format!("{} is not a board size from 2 to {MAX_SIZE}", self.size)));
        }
        if self.ply_cap == 0 {
            return Err(top("ply_cap", "must be at least 1".into()));
        }
        let rules = &self.rules;
        if rules.zone_depth == 0 || rules.zone_depth > self.size / 2 {
            return Err(error(
                "[rules], key `zone_depth`".into(),
                format!("{} is not a depth from 1 to half the board ({})", rules.zone_depth, self.size / 2),
            ));
        }
        if self.pieces.is_empty() || self.pieces.len() > MAX_FACES / 2 {
            return Err(error(
                "[[pieces]]".into(),
                format!("{} rows; a variant has 1 to {} piece types", self.pieces.len(), MAX_FACES / 2),
            ));
        }
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for (i, row) in self.pieces.iter().enumerate() {
            let place = Place { table: format!("[[pieces]] #{} \"{}\"", i + 1, row.name) };
            if let Some(other) = self.pieces[..i].iter().position(|p| p.abbr == row.abbr) {
                return Err(error(place.key("abbr"), format!("'{}' is already the abbreviation of row #{}", row.abbr, other + 1)));
            }
            if !valid_abbr(&row.abbr) {
                return Err(error(place.key("abbr"), format!("'{}' must be one or two letters, the first upper case", row.abbr)));
            }
            if rules.drops && row.abbr.len() != 1 {
                return Err(error(place.key("abbr"), format!("'{}': a variant with drops writes hands with one letter a piece", row.abbr)));
            }
            let movement = to_movement(&row.moves, &place, "moves").map_err(|(key, m)| error(key, m))?;
            let promotion = match &row.promotes {
                None => None,
                Some(p) => {
                    let movement = to_movement(&p.moves, &place, "promotes.moves").map_err(|(key, m)| error(key, m))?;
                    Some(Promotion { name: leak(&p.name), movement, royal: p.royal })
                }
            };
            pieces.push(PieceSpec {
                name: leak(&row.name),
                abbr: leak(&row.abbr),
                movement,
                promotion,
                royal: row.royal,
                points: row.points,
            });
        }
        if !pieces.iter().any(|p| p.royal) {
            return Err(error("[[pieces]]".into(), "no row is royal (`royal = true`): the game could not be won".into()));
        }
        Ok(VariantSpec {
            name: leak(&self.name),
            title: leak(&self.title),
            size: self.size,
            zone_depth: rules.zone_depth,
            pieces: Box::leak(pieces.into_boxed_slice()),
            start: leak(&self.start),
            promotion: match rules.promotion {
                PromotionName::StartOrEnd => PromotionRule::StartOrEnd,
                PromotionName::Entering => PromotionRule::Entering,
                PromotionName::EnteringOrCapture => PromotionRule::EnteringOrCapture,
            },
            legality: match rules.legality {
                LegalityName::Checkmate => Legality::SelfCheckIllegal,
                LegalityName::RoyalCapture => Legality::RoyalCapture,
            },
            compulsory_promotion: rules.compulsory_promotion,
            drops: rules.drops,
            declaration: rules.declaration,
            bare_king: match rules.bare_king {
                BareKingName::None => BareKingRule::None,
                BareKingName::Heian => BareKingRule::Heian,
                BareKingName::Chu => BareKingRule::Chu,
            },
            repetition: match rules.repetition {
                RepetitionName::FourthOccurrence => RepetitionRule::FourthOccurrence,
                RepetitionName::FourthOccurrenceBlackLoses => RepetitionRule::FourthOccurrenceBlackLoses,
                RepetitionName::NoRecreation => RepetitionRule::NoRecreation,
            },
            lion_trading: rules.lion_trading,
            default_ply_cap: self.ply_cap,
            usi_variant: self.usi_variant.as_deref().map(leak),
            xboard_variant: self.xboard_variant.as_deref().map(leak),
            rules_hash: self.rules_hash(),
        })
    }
}

/// One or two ASCII letters, the first upper case and the second lower or upper case.
fn valid_abbr(abbr: &str) -> bool {
    let mut chars = abbr.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_uppercase()) && chars.clone().all(|c| c.is_ascii_alphabetic()) && abbr.len() <= 2
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}

/// The directions of a list of groups, in order.
fn directions(groups: &[DirGroup]) -> &'static [Dir] {
    let dirs: Vec<Dir> = groups.iter().flat_map(|g| g.dirs().iter().copied()).collect();
    Box::leak(dirs.into_boxed_slice())
}

/// Checks a moves table and turns it into a [`Movement`]; an error is (place, message).
fn to_movement(m: &MovesTable, place: &Place, table: &str) -> Result<Movement, (String, String)> {
    let at = |key: &str| place.key(&format!("{table}.{key}"));
    let mut rides = Vec::new();
    if !m.step.is_empty() {
        rides.push(Ride { dirs: directions(&m.step), range: 1 });
    }
    if !m.slide.is_empty() {
        rides.push(Ride { dirs: directions(&m.slide), range: UNLIMITED });
    }
    for r in &m.range {
        match r.max {
            Some(max) if (2..UNLIMITED).contains(&max) && !r.dirs.is_empty() => rides.push(Ride { dirs: directions(&r.dirs), range: max }),
            _ => {
                return Err((
                    at("range"),
                    "each entry needs `dirs` and a `max` of 2 or more (a step is `step`, an unlimited ride `slide`)".into(),
                ))
            }
        }
    }
    let mut skip_rides = Vec::new();
    for r in &m.skip {
        if r.dirs.is_empty() || r.max.is_some_and(|max| max < 2) {
            return Err((at("skip"), "each entry needs `dirs` and, if limited, a `max` of 2 or more".into()));
        }
        skip_rides.push(Ride { dirs: directions(&r.dirs), range: r.max.unwrap_or(UNLIMITED) });
    }
    for &[dx, f] in &m.jump {
        if dx.abs() > 2 || f.abs() > 2 || (dx, f) == (0, 0) {
            return Err((at("jump"), format!("[{dx}, {f}]: a jump goes at most two squares each way, and somewhere")));
        }
        if dx != 0 && !m.jump.contains(&[-dx, f]) {
            return Err((at("jump"), format!("[{dx}, {f}] has no mirror [{}, {f}]: pieces are left-right symmetric", -dx)));
        }
    }
    let leaps: Vec<Dir> = m.jump.iter().map(|&[dx, f]| (dx, f)).collect();
    let lion = match (m.lion, m.lion_lines.is_empty()) {
        (Some(_), false) => return Err((at("lion_lines"), "give either `lion` or `lion_lines`, not both".into())),
        (Some(LionName::Full), true) => Some(LionPower::Full),
        (Some(LionName::Igui), true) => Some(LionPower::Igui),
        (None, false) => Some(LionPower::Lines(directions(&m.lion_lines))),
        (None, true) => None,
    };
    if m.area > 3 {
        return Err((at("area"), format!("{}: an area move goes at most 3 king steps", m.area)));
    }
    if m.range_jump > 0 && m.slide.is_empty() {
        return Err((at("range_jump"), "range-jumping needs a `slide` to jump along".into()));
    }
    let movement = Movement {
        rides: Box::leak(rides.into_boxed_slice()),
        leaps: Box::leak(leaps.into_boxed_slice()),
        lion,
        skip_rides: Box::leak(skip_rides.into_boxed_slice()),
        area: m.area,
        jump_rank: m.range_jump,
        burns: m.burns,
    };
    if movement.rides.is_empty() && movement.leaps.is_empty() && movement.skip_rides.is_empty() && movement.area == 0 && lion.is_none() {
        return Err((place.key(table), "the piece has no move (give `step`, `slide`, `range`, `jump`, `lion`, `skip` or `area`)".into()));
    }
    Ok(movement)
}

/// Reads and checks the variant file at `path`.
pub fn read(path: &Path) -> Result<(VariantFile, VariantSpec), VariantFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| VariantFileError {
        file: file.clone(),
        place: "reading".into(),
        message: e.to_string(),
    })?;
    let parsed = parse(&file, &text)?;
    let spec = parsed.to_spec(&file)?;
    Ok((parsed, spec))
}

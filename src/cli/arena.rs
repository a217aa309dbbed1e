//! `shogi-zero arena`: a match between two players, or (`arena ladder`) the Elo of every
//! checkpoint of a training run.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, ensure, Context};
use clap::{Args, Subcommand};

use crate::arena::records::AHEAD_AT_PLY_CAP;
use crate::arena::stats::SprtDecision;
use crate::arena::{factory, run_ladder, run_match, Budget, LadderConfig, MatchConfig, PlayerFactory, PlayerSpec, Sprt};
use crate::nn::checkpoint;
use crate::openings::{read_openings, Openings};
use crate::rules::{GameRules, VariantId};

/// Default number of games of a match.
const DEFAULT_MATCH_GAMES: u32 = 100;
/// Default number of games per ladder match.
const DEFAULT_LADDER_GAMES: u32 = 20;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ArenaArgs {
    #[command(subcommand)]
    command: Option<ArenaCommand>,
    /// A built-in variant (shogi, minishogi, judkins-shogi, heian-dai-shogi, chu-shogi, dai-shogi,
    /// tenjiku-shogi; `shogi-zero variants` lists them) or the path of a variant file.
    #[arg(long, required = true)]
    variant: Option<String>,
    /// A player, given twice: random, alphabeta:<depth>, usi:<command>[?key=value&...],
    /// xboard:<command>[?key=value&...], or a checkpoint (step-N.json or a run folder). Engine
    /// keys: option.<Name>=<value>, movetime=<ms>, depth=<n>, nodes=<n> (USI), timeout=<ms>
    /// (default 10000), memory=<MB> (xboard), variant=<name> (xboard). Example:
    /// 'usi:fairy-stockfish?option.Skill Level=0&movetime=100'.
    #[arg(long = "player", required = true)]
    players: Vec<String>,
    #[command(flatten)]
    settings: MatchSettings,
    /// Stop early by SPRT: elo0,elo1,alpha,beta (for example 0,10,0.05,0.05).
    #[arg(long)]
    sprt: Option<String>,
    /// Folder for results.json, games.jsonl and (shogi) CSA game files.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Resume the match recorded in --out (cut short by a kill): keep its games and play the
    /// rest. The settings and players must be the ones it was started with.
    #[arg(long, requires = "out")]
    resume: bool,
}

#[derive(Debug, Subcommand)]
enum ArenaCommand {
    /// Play every checkpoint of a run against an anchor and/or its predecessor; write the Elo
    /// over training steps as ladder.csv and ladder.png.
    Ladder(LadderArgs),
}

#[derive(Debug, Args)]
struct LadderArgs {
    /// The run folder (models/<variant>/<run>) holding step-*.json checkpoints.
    #[arg(long)]
    run: PathBuf,
    /// The fixed opponent (a player spec), or `none`.
    #[arg(long, default_value = "random")]
    anchor: String,
    /// Also play each checkpoint against the one before it.
    #[arg(long)]
    predecessor: bool,
    #[command(flatten)]
    settings: MatchSettings,
    /// Output folder (default: <run>/ladder).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Settings shared by matches, ladders and anchor matches.
#[derive(Debug, Args)]
pub(super) struct MatchSettings {
    /// Games per match, played in pairs with colours swapped (default: 100, ladder 20).
    #[arg(long)]
    pub(super) games: Option<u32>,
    /// Games played at the same time.
    #[arg(long, default_value_t = 1)]
    pub(super) concurrency: usize,
    /// Search budget of every player in simulations (MCTS) or nodes (USI engines).
    #[arg(long, conflicts_with = "time_ms")]
    pub(super) sims: Option<u32>,
    /// Search budget of every player in milliseconds per move.
    #[arg(long)]
    pub(super) time_ms: Option<u64>,
    /// Openings file: one opening per line (startpos/sfen ... moves ..., or bare moves).
    #[arg(long)]
    pub(super) openings: Option<PathBuf>,
    /// Random plies after each pair's opening line or the start position [default: 4 from the
    /// start position, 0 after a file's lines].
    #[arg(long)]
    pub(super) random_opening_plies: Option<u32>,
    /// Seed of openings and random players.
    #[arg(long, default_value_t = 0)]
    pub(super) seed: u64,
    /// Ply cap of every game (default: the variant's).
    #[arg(long)]
    pub(super) ply_cap: Option<u32>,
    /// LibTorch's CPU threads for the checkpoint players' networks [default: LibTorch's, one a
    /// core]. Give 1 when other work (another match, a training run) shares the cores: LibTorch
    /// threads that outnumber the free cores wait on each other.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub(super) threads: Option<u16>,
}

impl MatchSettings {
    /// Applies `--threads` to LibTorch, before any network is built.
    pub(super) fn apply_threads(&self) {
        if let Some(threads) = self.threads {
            tch::set_num_threads(i32::from(threads));
        }
    }

    /// The match configuration for `variant`.
    pub(super) fn config(&self, variant: VariantId, default_games: u32) -> anyhow::Result<MatchConfig> {
        let mut rules = GameRules::default_for(variant.variant());
        if let Some(cap) = self.ply_cap {
            ensure!(cap > 0, "--ply-cap must be at least 1");
            rules.ply_cap = cap;
        }
        let games = self.games.unwrap_or(default_games);
        ensure!(games > 0, "--games must be at least 1");
        ensure!(self.concurrency > 0, "--concurrency must be at least 1");
        let budget = match (self.sims, self.time_ms) {
            (Some(0), _) => bail!("--sims must be at least 1"),
            (_, Some(0)) => bail!("--time-ms must be at least 1"),
            (Some(n), _) => Budget::Sims(n),
            (_, Some(ms)) => Budget::Time(Duration::from_millis(ms)),
            _ => Budget::Default,
        };
        let openings = match &self.openings {
            Some(path) => Openings { lines: read_openings(variant, path, rules)?, random_plies: self.random_opening_plies.unwrap_or(0) },
            None => Openings::random(self.random_opening_plies.unwrap_or(4)),
        };
        Ok(MatchConfig {
            games,
            concurrency: self.concurrency,
            budget,
            openings,
            rules,
            seed: self.seed,
            progress: true,
            ..MatchConfig::new(variant)
        })
    }
}

/// The factory of a player spec given on the command line.
pub(super) fn player_factory(text: &str, variant: VariantId) -> anyhow::Result<Arc<dyn PlayerFactory>> {
    let spec: PlayerSpec = text.parse()?;
    factory(&spec, variant).with_context(|| format!("player '{text}'"))
}

pub fn run(args: ArenaArgs) -> anyhow::Result<ExitCode> {
    if let Some(ArenaCommand::Ladder(ladder)) = args.command {
        return run_ladder_command(ladder);
    }
    let variant: VariantId = args.variant.as_deref().unwrap_or_default().parse()?;
    ensure!(args.players.len() == 2, "give exactly two --player options (got {})", args.players.len());
    args.settings.apply_threads();
    let players = [player_factory(&args.players[0], variant)?, player_factory(&args.players[1], variant)?];
    let mut config = args.settings.config(variant, DEFAULT_MATCH_GAMES)?;
    config.sprt = args.sprt.as_deref().map(str::parse::<Sprt>).transpose()?;
    config.out = args.out.clone();
    config.resume = args.resume;
    let report = run_match(&config, players)?;
    let summary = &report.summary;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} games of {} ({} adjudicated, {} drawn at the ply cap)",
        summary.games, summary.variant, summary.adjudicated, summary.at_ply_cap
    )?;
    if summary.stopped_early {
        writeln!(out, "stopped early: {} of {} planned games played", summary.games, summary.planned_games)?;
    }
    let width = summary.players.iter().map(|p| p.name.len()).max().unwrap_or(0);
    for p in &summary.players {
        let percent = 100.0 * p.total.score().unwrap_or(0.0);
        writeln!(
            out,
            "{:<width$}  {}  {}/{} ({percent:.1}%)  as Black {}  as White {}",
            p.name,
            p.total,
            p.points,
            p.total.games(),
            p.as_black,
            p.as_white
        )?;
        if summary.adjudicated > 0 {
            writeln!(out, "{:<width$}  by play (adjudicated games left out): {}", "", p.by_play)?;
        }
        if summary.at_ply_cap > 0 {
            writeln!(
                out,
                "{:<width$}  ahead by {AHEAD_AT_PLY_CAP} mean start piece or more at the ply cap: {} of {}",
                "", p.ahead_at_ply_cap, summary.at_ply_cap
            )?;
        }
    }
    if let Some(elo) = &summary.elo {
        writeln!(out, "{} vs {}: {elo}", summary.players[0].name, summary.players[1].name)?;
    }
    if let Some(sprt) = &summary.sprt {
        let verdict = match sprt.status.decision {
            SprtDecision::Continue => "no decision",
            SprtDecision::AcceptH0 => "H0 accepted",
            SprtDecision::AcceptH1 => "H1 accepted",
        };
        writeln!(
            out,
            "SPRT elo0 {} elo1 {}: LLR {:.3} [{:.3}, {:.3}] {verdict}",
            sprt.test.elo0, sprt.test.elo1, sprt.status.llr, sprt.status.lower_bound, sprt.status.upper_bound
        )?;
    }
    if let Some(dir) = &args.out {
        writeln!(out, "results in {}", dir.join("results.json").display())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn run_ladder_command(args: LadderArgs) -> anyhow::Result<ExitCode> {
    let steps = crate::arena::ladder::checkpoints(&args.run)?;
    let (path, metadata) = checkpoint::read_metadata(&steps[0].1)?;
    let variant = checkpoint::variant_of_metadata(&path, &metadata)?;
    let anchor = match args.anchor.as_str() {
        "none" => None,
        text => Some(text.parse::<PlayerSpec>()?),
    };
    args.settings.apply_threads();
    let config = LadderConfig {
        run: args.run.clone(),
        anchor,
        predecessor: args.predecessor,
        matches: args.settings.config(variant, DEFAULT_LADDER_GAMES)?,
        out: args.out.clone().unwrap_or_else(|| args.run.join("ladder")),
    };
    let rows = run_ladder(&config, &|spec| factory(spec, variant))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "step  opponent  W/D/L  Elo  rating")?;
    for r in &rows {
        writeln!(out, "{}  {}  {}  {:+.1}  {:+.1}", r.step, r.opponent, r.wdl, r.elo, r.rating)?;
    }
    writeln!(out, "ladder in {}", config.out.join("ladder.csv").display())?;
    Ok(ExitCode::SUCCESS)
}

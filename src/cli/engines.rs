//! The engine commands, our engine side of the two GUI protocols on standard input and output:
//! `shogi-zero usi` (USI, the variants with drops) and `shogi-zero xboard` (XBoard/CECP, the
//! large variants).

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context};
use clap::Args;

use super::{parse_device, PlayerSearchArgs};
use crate::lines::lines;
use crate::nn::checkpoint;
use crate::nn::DeviceChoice;
use crate::protocol::model;
use crate::protocol::usi_engine::{self, UsiSettings};
use crate::protocol::xboard_engine::{self, XboardSettings};
use crate::rules::notation::xboard::large_variant;
use crate::rules::VariantId;

#[derive(Debug, Args)]
pub struct UsiArgs {
    /// The variant at the start (UCI_Variant's default): shogi, minishogi, judkins-shogi or a
    /// variant file with drops; default: the checkpoint's variant, else shogi.
    #[arg(long)]
    variant: Option<String>,
    /// The checkpoint (a step-N.json file or a run folder), the default of the ModelPath option;
    /// without it, the variant's default model (models/<variant>/default).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where the network runs (the Device option's default): cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    device: DeviceChoice,
    /// A cap on simulations per move (the Simulations option's default; 0: none).
    #[arg(long, default_value_t = 0)]
    sims: u32,
    #[command(flatten)]
    search: PlayerSearchArgs,
}

/// `shogi-zero usi`.
pub fn run_usi(args: UsiArgs) -> anyhow::Result<ExitCode> {
    let variant = match (&args.variant, &args.model) {
        (Some(name), _) => name.parse::<VariantId>()?,
        // A checkpoint that cannot be read is reported at `isready`, as GUIs expect.
        (None, Some(path)) => checkpoint::variant_of(path).unwrap_or(VariantId::SHOGI),
        (None, None) => VariantId::SHOGI,
    };
    if !variant.spec().drops {
        bail!("USI plays the variants with drops; use `shogi-zero xboard` for {variant}")
    }
    let settings = UsiSettings {
        variant,
        model: args.model,
        device: args.device,
        simulations: args.sims,
        capture_utility: capture_utility_option(&args.search)?,
        search: args.search.search_config()?,
    };
    usi_engine::run(&settings, lines(io::stdin(), "standard input".to_string()), &mut io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Args)]
pub struct XboardArgs {
    /// The variant of a new game (chu, dai, tenjiku, heiandai, or our names such as chu-shogi);
    /// default: the checkpoint's variant, else chu.
    #[arg(long)]
    variant: Option<String>,
    /// The checkpoint for that variant (a step-N.json file or a run folder); other variants, and
    /// this one without it, use their default models (models/<variant>/default).
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where the network runs: cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    device: DeviceChoice,
    /// A cap on simulations per move (0: none; the clock decides, else 800).
    #[arg(long, default_value_t = 0)]
    sims: u32,
    /// Resign when the expected score falls below this percentage (0: never).
    #[arg(long, default_value_t = 2)]
    resign_percent: u32,
    /// LibTorch's CPU threads for the network (a search evaluates one position at a time).
    #[arg(long, default_value_t = 1)]
    threads: u16,
    #[command(flatten)]
    search: PlayerSearchArgs,
}

/// The variant an XBoard name, our name or a variant file stands for, if it has no drops.
fn xboard_variant(name: &str) -> anyhow::Result<VariantId> {
    let variant = match large_variant(name) {
        Some(variant) => variant,
        None => name.parse::<VariantId>()?,
    };
    if variant.spec().drops {
        bail!("xboard plays the variants without drops; use `shogi-zero usi` for {variant}")
    }
    Ok(variant)
}

/// `shogi-zero xboard`.
pub fn run_xboard(args: XboardArgs) -> anyhow::Result<ExitCode> {
    let variant = match (&args.variant, &args.model) {
        (Some(name), _) => xboard_variant(name)?,
        (None, Some(path)) => {
            let variant = checkpoint::variant_of(path)?;
            xboard_variant(variant.name()).with_context(|| format!("{} is a {variant} checkpoint", path.display()))?
        }
        (None, None) => VariantId::CHU_SHOGI,
    };
    model::resolve(args.model.as_deref(), variant)?;
    tch::set_num_threads(i32::from(args.threads.max(1)));
    let settings = XboardSettings {
        variant,
        model: args.model,
        device: args.device,
        simulations: args.sims,
        resign_percent: args.resign_percent,
        capture_utility: capture_utility_option(&args.search)?,
        search: args.search.search_config()?,
    };
    xboard_engine::run(&settings, lines(io::stdin(), "standard input".to_string()), &mut io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

/// `--capture-utility` in the hundredths of the protocols' CaptureUtility option.
fn capture_utility_option(search: &PlayerSearchArgs) -> anyhow::Result<u32> {
    model::capture_utility_hundredths(search.capture_utility).map_err(|e| anyhow!("--capture-utility: {e}"))
}

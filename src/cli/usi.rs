//! `shogi-zero usi`: the USI engine for standard shogi, on standard input and output.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::protocol::input;
use crate::protocol::usi::{self, UsiSettings};

#[derive(Debug, Args)]
pub struct UsiArgs {
    /// The checkpoint (a step-N.json file or a run folder), the default of the ModelPath option;
    /// without it, the default model models/shogi/default.
    #[arg(long)]
    model: Option<PathBuf>,
    /// Where the network runs (the Device option's default): cpu, cuda or cuda:N.
    #[arg(long, default_value = "cpu")]
    device: String,
    /// A cap on simulations per move (the Simulations option's default; 0: none).
    #[arg(long, default_value_t = 0)]
    sims: u32,
}

pub fn run(args: UsiArgs) -> anyhow::Result<ExitCode> {
    let settings = UsiSettings { model: args.model, device: args.device.parse()?, simulations: args.sims };
    usi::run(&settings, input::lines(io::stdin()), &mut io::stdout().lock())?;
    Ok(ExitCode::SUCCESS)
}

//! The `shogi-zero` command: parses arguments, dispatches, prints errors.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = shogi_zero::cli::Cli::parse();
    match shogi_zero::cli::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

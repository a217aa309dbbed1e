//! The `shogi-zero` command: parses arguments, dispatches, prints errors.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Test builds only: injection points set with FAILPOINTS (e.g. `upload-games=sleep(60000)`).
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    let cli = shogi_zero::cli::Cli::parse();
    match shogi_zero::cli::run(cli) {
        Ok(code) => code,
        // The reader went away (`shogi-zero ... | head`): not an error.
        Err(error) if error.chain().any(is_broken_pipe) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(cause: &(dyn std::error::Error + 'static)) -> bool {
    cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

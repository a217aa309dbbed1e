//! `shogi-zero replay`: commands on replay files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::{Args, Subcommand};

use crate::replay::{list_files, read_file, Summary};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(subcommand)]
    command: ReplayCommand,
}

#[derive(Debug, Subcommand)]
enum ReplayCommand {
    /// Check replay files through the rules and print totals; stops at the first invalid file.
    Check {
        /// Replay files, or folders whose replay files (`*.replay`) are all checked.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

/// The files named by `path`: the file itself, or a folder's replay files.
fn files_of(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let files = list_files(path)?;
    if files.is_empty() {
        bail!("{}: no replay files in this folder", path.display());
    }
    Ok(files)
}

pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        ReplayCommand::Check { paths } => {
            let mut summary = Summary::default();
            for path in &paths {
                for file in files_of(path)? {
                    summary.add(&read_file(&file)?);
                }
            }
            print!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

//! `shogi-zero replay`: commands on replay files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use clap::{Args, Subcommand};
use rayon::prelude::*;

use crate::replay::{list_files, read_file, Summary};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(subcommand)]
    command: ReplayCommand,
}

#[derive(Debug, Subcommand)]
enum ReplayCommand {
    /// Check replay files through the rules (in parallel) and print totals, or the first invalid file.
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
            let mut files = Vec::new();
            for path in &paths {
                files.extend(files_of(path)?);
            }
            // Every file is replayed through the rules on its own core; the first invalid file
            // in the listed order is the one reported.
            let read: Vec<_> = files.par_iter().map(|file| read_file(file)).collect();
            let mut summary = Summary::default();
            for file in read {
                summary.add(&file?);
            }
            print!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

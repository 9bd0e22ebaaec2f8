//! Glue between the command line and the library crates.

mod bench;
mod demo;
mod emit;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run one command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Blocks => {
            for b in edgelearn_hdl::registry::blocks() {
                println!("{:<22} {}", b.name, b.summary);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Emit {
            blocks,
            all,
            out,
            force,
        } => emit::run(&blocks, all, &out, force),
        Command::Demo { out, seed } => demo::run(&out, seed),
        Command::Bench {
            cycles,
            backends,
            cold,
        } => bench::run(cycles, &backends, cold),
    }
}

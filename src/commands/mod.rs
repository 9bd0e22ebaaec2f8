//! Glue between the command line and the library crates.

mod bench;
mod checkpoint;
mod cnn;
mod cnn_finetune;
mod cnn_sim;
mod core;
mod demo;
mod emit;
mod fusesoc;
mod platform;
mod plot;
mod regress;
mod regress_steps;
mod regs;
mod sim;
mod synth;
mod train;
mod vcd;
mod vivado;
mod wave;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Run one command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(s) = cli.tool_timeout {
        edgelearn_sim::tools::set_timeout(std::time::Duration::from_secs_f64(s));
    }
    match cli.command {
        Command::Blocks => {
            for b in edgelearn_verif::rtl::designs::entries() {
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
        Command::Vivado {
            board,
            out,
            top,
            fclk_mhz,
            force,
        } => vivado::run(vivado::Args {
            board: &board,
            out: &out,
            top: &top,
            fclk_mhz,
            force,
        }),
        Command::Fusesoc {
            names,
            all,
            out,
            force,
        } => fusesoc::run(&names, all, &out, force),
        Command::Demo { out, seed } => demo::run(&out, seed),
        Command::Regs { root, check, force } => regs::run(&root, check, force),
        Command::Regress { command } => regress::run(command),
        Command::Bench {
            cycles,
            backends,
            cold,
        } => bench::run(
            cycles,
            &backends.into_iter().map(Into::into).collect::<Vec<_>>(),
            cold,
        ),
        Command::Sim {
            block,
            stimulus,
            backend,
            vcd,
            vcd_depth,
            cycles,
            trace,
            check,
            force,
        } => sim::run(sim::Args {
            block,
            stimulus,
            backend: backend.into(),
            vcd,
            vcd_depth,
            cycles,
            trace,
            check,
            force,
        }),
        Command::Stimulus {
            block,
            kind,
            seed,
            cycles,
            out,
            force,
        } => sim::stimulus(&block, &kind, seed, cycles, &out, force),
        Command::Golden {
            block,
            stimulus,
            out,
            force,
        } => sim::golden(&block, &stimulus, &out, force),
        Command::Synth {
            target,
            top,
            out,
            per_core,
            freq,
            seed,
            markdown,
            force,
        } => synth::run(synth::Args {
            target,
            top,
            out,
            per_core,
            freq,
            seed,
            markdown,
            force,
        }),
        Command::Vcd { command } => vcd::run(command),
        Command::Cnn { command } => cnn::run(command),
        Command::Core { command } => core::run(command),
        Command::Platform { command } => platform::run(command),
        Command::Train {
            config,
            data,
            epochs,
            images,
            test_images,
            seed,
            float,
            checkpoint,
            checkpoint_every,
            report,
            plot,
            force,
            quiet,
        } => train::run(train::Args {
            checkpoint,
            checkpoint_every,
            config,
            data,
            epochs,
            images,
            test_images,
            seed,
            float,
            report,
            plot,
            force,
            quiet,
        }),
    }
}

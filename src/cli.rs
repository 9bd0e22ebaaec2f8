//! Command-line arguments.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Design and verify on-chip learning hardware at RTL.
///
/// Exit status: 0 success, 1 a verification failed (a mismatch), 2 an error
/// (bad arguments, unknown block, missing tool, unreadable or unwritable file).
#[derive(Debug, Parser)]
#[command(name = "edgelearn", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the blocks edgelearn can emit and simulate.
    Blocks,
    /// Write Verilog for blocks: one BLOCK.v per block (top module BLOCK) and manifest.json.
    Emit {
        /// Blocks to emit (see `edgelearn blocks`).
        #[arg(value_name = "BLOCK")]
        blocks: Vec<String>,
        /// Emit every block.
        #[arg(long, conflicts_with = "blocks")]
        all: bool,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Overwrite files in DIR that edgelearn did not write.
        #[arg(long)]
        force: bool,
    },
    /// Measure simulated cycles per second of each backend on the thesis matmul stimulus.
    Bench {
        /// Cycles to simulate (thesis bursts of 600 rows, repeated).
        #[arg(long, default_value_t = 100_000)]
        cycles: usize,
        /// Backends, comma-separated (native, icarus, verilator, netlist).
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "native,icarus,verilator,netlist"
        )]
        backends: Vec<String>,
        /// Build in a fresh directory so the Verilator build time is a cold build.
        #[arg(long)]
        cold: bool,
    },
    /// Train the LEL platform (bit-exact golden model, or its float reference) on MNIST.
    Train {
        /// Platform configuration (TOML), e.g. configs/mnist.toml.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Directory with the MNIST IDX files (gzipped or raw, standard names).
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Epochs.
        #[arg(long, default_value_t = 1)]
        epochs: usize,
        /// Train on the first K training images only.
        #[arg(long, value_name = "K")]
        images: Option<usize>,
        /// Evaluate on the first K test images only.
        #[arg(long, value_name = "K")]
        test_images: Option<usize>,
        /// Master seed (overrides the configuration's `seed`).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// Train the f32 reference instead of the bit-exact model.
        #[arg(long)]
        float: bool,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Write a PNG of accuracy per epoch and core here.
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
        /// Overwrite existing report or plot files.
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Emit every block, run the thesis matmul test on every backend, print a table.
    Demo {
        /// Where to put the Verilog (DIR/verilog) and the Icarus VCD (DIR/demo).
        #[arg(long, value_name = "DIR", default_value = "build")]
        out: PathBuf,
        /// Seed of the random weights and inputs.
        #[arg(long, default_value_t = 920)]
        seed: u64,
    },
}

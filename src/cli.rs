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
    /// Run a block on a stimulus file (CSV: one row per cycle, one column per input port;
    /// docs/stimulus-format.md) and optionally check it against the golden model.
    Sim {
        /// The block (see `edgelearn blocks`).
        block: String,
        /// Stimulus file.
        #[arg(long, value_name = "FILE")]
        stimulus: PathBuf,
        /// native (rust-hdl), icarus, verilator or netlist (Icarus on the Yosys netlist).
        #[arg(long, default_value = "native")]
        backend: String,
        /// Write a VCD here.
        #[arg(long, value_name = "PATH")]
        vcd: Option<PathBuf>,
        /// Scope levels in the VCD (1: the block's ports); all by default.
        #[arg(long, value_name = "N")]
        vcd_depth: Option<usize>,
        /// Run exactly N cycles (truncate, or repeat the last row).
        #[arg(long, value_name = "N")]
        cycles: Option<usize>,
        /// Write the output trace (CSV, one row per cycle) here.
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Compare every defined output with the golden model (exit 1 on a mismatch).
        #[arg(long)]
        check: bool,
        /// Overwrite existing output files.
        #[arg(long)]
        force: bool,
    },
    /// Write a stimulus file for a block: the thesis's own test setup, or random traffic.
    Stimulus {
        /// The block.
        block: String,
        /// `thesis` or `random`.
        #[arg(long, default_value = "thesis")]
        kind: String,
        /// Seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Cycles of random traffic.
        #[arg(long, default_value_t = 10_000)]
        cycles: usize,
        /// Output file.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Write a block's golden trace for a stimulus file: the expected value of every output
    /// port on every cycle where the spec defines it (JSON, or CSV by the file extension).
    Golden {
        /// The block.
        block: String,
        /// Stimulus file.
        #[arg(long, value_name = "FILE")]
        stimulus: PathBuf,
        /// Output file (.json or .csv).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Read, compare and draw VCD waveforms.
    Vcd {
        #[command(subcommand)]
        command: VcdCommand,
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

#[derive(Debug, Subcommand)]
pub enum VcdCommand {
    /// Scopes, signals, widths, timescale and end time.
    List {
        /// VCD file.
        file: PathBuf,
    },
    /// A table of values: at every change, or at every rising edge of --clock.
    Show {
        /// VCD file.
        file: PathBuf,
        /// Signals (full paths, or unique suffixes/leaf names), comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        signals: Vec<String>,
        /// Start time (file units).
        #[arg(long)]
        from: Option<u64>,
        /// End time (file units).
        #[arg(long)]
        to: Option<u64>,
        /// Sample at this clock's rising edges.
        #[arg(long)]
        clock: Option<String>,
    },
    /// Compare two waveforms at clock edges (edge k of A against edge k of B).
    /// Exit 0 equal, 1 different, 2 error.
    Diff {
        /// First VCD.
        a: PathBuf,
        /// Second VCD.
        b: PathBuf,
        /// Only these signals (comma-separated).
        #[arg(long, value_delimiter = ',')]
        signals: Vec<String>,
        /// Clock (default: a one-bit `clock`/`clk`).
        #[arg(long)]
        clock: Option<String>,
        /// Only signals under this scope of A, named relative to it.
        #[arg(long)]
        scope_a: Option<String>,
        /// Only signals under this scope of B, named relative to it.
        #[arg(long)]
        scope_b: Option<String>,
        /// Pair signals by leaf name.
        #[arg(long)]
        leaf: bool,
    },
    /// Check a waveform against a golden trace (from `edgelearn golden`). Exit 0/1/2.
    Check {
        /// VCD file.
        file: PathBuf,
        /// Golden trace (.json).
        #[arg(long, value_name = "TRACE")]
        golden: PathBuf,
        /// Clock name (default: the trace's).
        #[arg(long)]
        clock: Option<String>,
        /// The DUT scope (default: the shallowest scope with every port).
        #[arg(long)]
        scope: Option<String>,
    },
    /// Draw signals as a waveform picture (.svg or .png).
    Plot {
        /// VCD file.
        file: PathBuf,
        /// Signals, comma-separated.
        #[arg(long, value_delimiter = ',', required = true)]
        signals: Vec<String>,
        /// Start time (file units).
        #[arg(long)]
        from: Option<u64>,
        /// End time (file units).
        #[arg(long)]
        to: Option<u64>,
        /// Mark this clock's rising edges with cycle numbers.
        #[arg(long)]
        clock: Option<String>,
        /// Output picture.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

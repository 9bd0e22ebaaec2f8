//! Command-line arguments.

use clap::{Parser, Subcommand, ValueEnum};
use edgelearn_sim::Backend;
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
    /// Stop any external tool (iverilog, vvp, verilator, yosys) that runs longer than this
    /// and report it as an error (default 3600, or EDGELEARN_TOOL_TIMEOUT).
    #[arg(long, global = true, value_name = "SECONDS", value_parser = positive_seconds)]
    pub tool_timeout: Option<f64>,
    /// Build every in-process Verilator model with coverage points and write its counts
    /// under DIR when it ends (or EDGELEARN_COVERAGE); `edgelearn coverage merge` reports them.
    #[arg(long, global = true, value_name = "DIR")]
    pub coverage_dir: Option<PathBuf>,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e9 => Ok(v),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

fn positive_mhz(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 2000.0 => Ok(v),
        _ => Err(format!("`{s}` is not a frequency in MHz (0 < f <= 2000)")),
    }
}

/// A simulation backend, as named on the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendName {
    /// rust-hdl's own simulator.
    Native,
    /// Icarus Verilog (4-state).
    Icarus,
    /// Verilator in this process (2-state, cached builds, driven from Rust every cycle).
    Verilator,
    /// Verilator's standalone `--binary` run of the generated Verilog bench.
    VerilatorBench,
    /// Icarus on the Yosys netlist.
    Netlist,
}

impl From<BackendName> for Backend {
    fn from(b: BackendName) -> Backend {
        match b {
            BackendName::Native => Backend::Native,
            BackendName::Icarus => Backend::Icarus,
            BackendName::Verilator => Backend::Verilator,
            BackendName::VerilatorBench => Backend::VerilatorBench,
            BackendName::Netlist => Backend::Netlist,
        }
    }
}
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the designs edgelearn can emit and simulate (the registry).
    Blocks {
        /// Print the registry as JSON: per design its kind, configuration, FSM state and
        /// instruction names, register map and synthesis sub-cores.
        #[arg(long)]
        json: bool,
    },
    /// Write Verilog for blocks: one BLOCK.v per block (top module BLOCK) and manifest.json.
    Emit {
        /// Blocks to emit (see `edgelearn blocks`).
        #[arg(value_name = "BLOCK")]
        blocks: Vec<String>,
        /// Emit every block.
        #[arg(long, conflicts_with = "blocks")]
        all: bool,
        /// Build the named cores and platforms with L matmul lanes (named `..._lL`).
        #[arg(long, value_name = "L", conflicts_with = "all")]
        lanes: Option<usize>,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Overwrite files in DIR that edgelearn did not write.
        #[arg(long)]
        force: bool,
    },
    /// Generate the platform's register map from its description (hdl/regs/lel_platform.toml):
    /// the RTL address decode, the Rust module, the C header and docs/registers.md. With
    /// --design or --config: the reset values resolved for that platform, and with --verify
    /// its RTL checked register by register against the description.
    Regs(RegsArgs),
    /// Measure simulated cycles per second of each backend on the thesis matmul stimulus.
    Bench {
        /// Cycles to simulate (thesis bursts of 600 rows, repeated).
        #[arg(long, default_value_t = 100_000)]
        cycles: usize,
        /// Backends, comma-separated.
        #[arg(
            long,
            value_enum,
            value_delimiter = ',',
            default_value = "native,icarus,verilator,verilator-bench,netlist"
        )]
        backends: Vec<BackendName>,
        /// Build in a fresh directory so the Verilator build time is a cold build.
        #[arg(long)]
        cold: bool,
    },
    /// Train the LEL platform (bit-exact golden model, or its float reference) on MNIST.
    Train(TrainArgs),
    /// Run a block on a stimulus file (CSV: one row per cycle, one column per input port;
    /// docs/stimulus-format.md) and optionally check it against the golden model.
    Sim {
        /// The block (see `edgelearn blocks`).
        block: String,
        /// Stimulus file.
        #[arg(long, value_name = "FILE")]
        stimulus: PathBuf,
        /// The simulator.
        #[arg(long, value_enum, default_value = "native")]
        backend: BackendName,
        /// Write a VCD here (an FST when the name ends in `.fst`: the verilator backend).
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
    /// Synthesize a design for an FPGA with open tools: utilization per core beside the
    /// thesis's Table 4.6, the fit (exit 1 when it does not fit), and on the Lattice targets
    /// place-and-route with the Fmax of `clock`. Writes DIR/report.json, DIR/report.md and
    /// the tool logs.
    Synth(SynthArgs),
    /// Sweep the LEL platform of a configuration over lane counts and parts: cycles per
    /// training image from the RTL (bit-exact with the golden model), resources and fit on
    /// the XC7Z020, Fmax on the ECP5-85F, training images/s, one-epoch accuracy, and the
    /// Pareto front of images/s against LUTs. Steps run in parallel; finished steps are
    /// reused when the sweep is run again by the same edgelearn.
    Explore(ExploreArgs),
    /// Read, compare and draw VCD and FST waveforms.
    Vcd {
        #[command(subcommand)]
        command: VcdCommand,
    },
    /// MAX78000-style CNN engine: check ai8x networks, run them bit-exactly, write
    /// known-answer tests.
    Cnn {
        #[command(subcommand)]
        command: CnnCommand,
    },
    /// The LEL cores in RTL, one at a time.
    Core {
        #[command(subcommand)]
        command: CoreCommand,
    },
    /// The whole LEL platform in RTL: conv core, FC core 0 and FC core 1 training in a
    /// pipeline.
    Platform {
        #[command(subcommand)]
        command: PlatformCommand,
    },
    /// Write a Vivado project for a board: the top's Verilog in DIR/src, create_project.tcl
    /// (PS, AXI DMA, the top, bitstream), package_ip.tcl (the top as an IP), the constraints.
    Vivado {
        /// The board (pynq-z1).
        #[arg(long, default_value = "pynq-z1")]
        board: String,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The top design (see `edgelearn blocks`).
        #[arg(long, value_name = "NAME", default_value = edgelearn_verif::rtl::designs::FPGA_TOP)]
        top: String,
        /// The fabric clock FCLK_CLK0 in MHz (the thesis's 75 by default).
        #[arg(long, value_name = "MHZ", default_value_t = 75.0)]
        fclk_mhz: f64,
        /// Overwrite files in DIR that edgelearn did not write.
        #[arg(long)]
        force: bool,
    },
    /// Write FuseSoC CAPI2 cores: DIR/NAME.v and DIR/NAME.core per design (targets
    /// sim_icarus, sim_verilator, lint, synth, synth_vivado).
    Fusesoc {
        /// Designs (see `edgelearn blocks`).
        #[arg(value_name = "NAME")]
        names: Vec<String>,
        /// Every design.
        #[arg(long, conflicts_with = "names")]
        all: bool,
        /// Output directory (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Overwrite files in DIR that edgelearn did not write.
        #[arg(long)]
        force: bool,
    },
    /// Code coverage of the in-process Verilator models: run a regression's jobs (or some of
    /// them, `--test`) with coverage and report line, branch and toggle coverage per design
    /// and its least covered modules: DIR/coverage.info (lcov), DIR/html/index.html,
    /// DIR/summary.json. `coverage merge` merges outputs, shards and `--coverage-dir`
    /// directories. Exit 1 when a job failed (the report is still written).
    Coverage(CoverageArgs),
    /// Formal proofs with SymbiYosys: the stream blocks keep the AXI-Stream rules and
    /// lose, duplicate, reorder or change no beat; the AXI4-Lite slave keeps the bus rules,
    /// answers each request once and writes only the strobed bytes. `--mutants` also runs
    /// each target's seeded mutants, whose proofs must fail. Exit 1 when a proof fails or a
    /// mutant survives (docs/formal.md).
    Formal(FormalArgs),
    /// Run regressions: a TOML file of jobs (block benches, networks, cores, platform and
    /// training runs with their expected outcomes) split into shards for CI matrices and
    /// cluster job arrays, with JUnit XML and Markdown reports (docs/regress.md).
    Regress {
        #[command(subcommand)]
        command: RegressCommand,
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

/// A core of the LEL platform: `fc0`, `fc1`, ... (FC core x) or `conv`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CoreName {
    /// FC core x.
    Fc(usize),
    /// The conv core.
    Conv,
}

fn core_name(s: &str) -> Result<CoreName, String> {
    if s == "conv" {
        return Ok(CoreName::Conv);
    }
    s.strip_prefix("fc")
        .and_then(|x| x.parse::<usize>().ok())
        .map(CoreName::Fc)
        .ok_or_else(|| format!("`{s}` is not a core: give fc0, fc1, ... or conv"))
}

/// A simulator that runs reactive benches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReactiveBackend {
    /// Verilator in this process.
    Verilator,
    /// rust-hdl's own simulator (slow; small runs).
    Native,
}

fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a probability in 0..=1")),
    }
}

#[derive(Debug, Subcommand)]
pub enum CoreCommand {
    /// Run one core alone on the first N training images, its input produced by the golden
    /// model of the cores before it: per-image state cycles, bit-exactness, weights.
    Run {
        /// `fc0`, `fc1`, ... or `conv`.
        #[arg(value_parser = core_name)]
        core: CoreName,
        /// Platform configuration (TOML), e.g. configs/thesis-cifar10.toml.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Matmul lanes (overrides the configuration's `widths.lanes`; the thesis has 4).
        #[arg(long, value_name = "L")]
        lanes: Option<usize>,
        /// Directory with the MNIST IDX files.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Training images (the first N, in file order).
        #[arg(long, value_name = "N", default_value_t = 1)]
        images: usize,
        /// The simulator.
        #[arg(long, value_enum, default_value = "verilator")]
        backend: ReactiveBackend,
        /// Compare every output, LC value, class and (FC) every weight, read back with
        /// I_READ after every image, with the golden model; stop at the first divergence
        /// (exit 1).
        #[arg(long)]
        check_golden: bool,
        /// Run I_INF instead of I_TRAIN (FC cores: the weights must not change).
        #[arg(long)]
        infer: bool,
        /// Idle cycles on the input stream with this probability per cycle.
        #[arg(long, value_name = "P", value_parser = probability)]
        input_gaps: Option<f64>,
        /// The output stream is not ready with this probability per cycle.
        #[arg(long, value_name = "P", value_parser = probability)]
        backpressure: Option<f64>,
        /// Seed of the gaps and the back-pressure.
        #[arg(long, default_value_t = 1)]
        traffic_seed: u64,
        /// Write a VCD of the whole run here (an FST when the name ends in `.fst`).
        #[arg(long, value_name = "PATH")]
        vcd: Option<PathBuf>,
        /// Scope levels in the VCD (1: the core's ports); all by default.
        #[arg(long, value_name = "N")]
        vcd_depth: Option<usize>,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Write the weights before and after as .npy (int8, [pieces][outputs/pieces]
        /// [inputs/pieces]; the conv core's kernels as [channels][3][3]) into DIR.
        #[arg(long, value_name = "DIR")]
        dump_weights: Option<PathBuf>,
        /// Overwrite existing output files.
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Clock every block at every edge (the design's simulation gates off): the reference
        /// run the gated Verilator model is checked against (docs/decisions.md D-SIM-GATE).
        #[arg(long)]
        ungated: bool,
    },
}

fn cycle_window(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("`{s}` is not a cycle window A..B (A < B)");
    let (a, b) = s.split_once("..").ok_or_else(bad)?;
    let (a, b) = (
        a.trim().parse::<u64>().map_err(|_| bad())?,
        b.trim().parse::<u64>().map_err(|_| bad())?,
    );
    if a >= b {
        return Err(bad());
    }
    Ok((a, b))
}

#[derive(Debug, Subcommand)]
pub enum PlatformCommand {
    /// INIT the weights, train on the training split epoch by epoch in the golden model's
    /// order, infer the test split after each epoch; cycles, speed and accuracy per core.
    Train {
        /// Platform configuration (TOML), e.g. configs/mnist.toml.
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Matmul lanes (overrides the configuration's `widths.lanes`; the thesis has 4).
        #[arg(long, value_name = "L")]
        lanes: Option<usize>,
        /// Directory with the MNIST IDX files.
        #[arg(long, value_name = "DIR")]
        data: PathBuf,
        /// Train on the first N training images only.
        #[arg(long, value_name = "N")]
        images: Option<usize>,
        /// Infer the first N test images only (0: no test runs).
        #[arg(long, value_name = "N")]
        test_images: Option<usize>,
        /// Epochs.
        #[arg(long, default_value_t = 1)]
        epochs: usize,
        /// Master seed (overrides the configuration's `seed`).
        #[arg(long, value_name = "S")]
        seed: Option<u64>,
        /// The simulator.
        #[arg(long, value_enum, default_value = "verilator")]
        backend: ReactiveBackend,
        /// Compare every FC core's LC outputs and class of every image, and both cores'
        /// weights read back after every training image, with the golden model; stop at the
        /// first divergence (exit 1), writing a VCD window around it when --vcd is given.
        #[arg(long)]
        check_golden: bool,
        /// Idle cycles on the input stream with this probability per cycle.
        #[arg(long, value_name = "P", value_parser = probability)]
        input_gaps: Option<f64>,
        /// The output stream (weight read-back) is not ready with this probability.
        #[arg(long, value_name = "P", value_parser = probability)]
        backpressure: Option<f64>,
        /// Seed of the gaps and the back-pressure.
        #[arg(long, default_value_t = 1)]
        traffic_seed: u64,
        /// Write a VCD here: the cycles of --vcd-window, or around the first divergence (an
        /// FST when the name ends in `.fst`, a fraction of the size for long windows).
        #[arg(long, value_name = "PATH")]
        vcd: Option<PathBuf>,
        /// Cycles A..B to record (default: the first 20,000, or 2,000 before to 200 after a
        /// divergence).
        #[arg(long, value_name = "A..B", value_parser = cycle_window)]
        vcd_window: Option<(u64, u64)>,
        /// Scope levels in the VCD (1: the platform's ports); all by default.
        #[arg(long, value_name = "N")]
        vcd_depth: Option<usize>,
        /// Write the JSON report here.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Write a PNG of accuracy per epoch and core here.
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
        /// Overwrite existing output files.
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Drive `lel_platform_axi*`, the FPGA top: every register access an AXI4-Lite
        /// transaction (random delays and back-pressure with --backpressure), the streams
        /// its AXI4-Stream ports.
        #[arg(long)]
        axi: bool,
        /// Continue from this checkpoint when it exists, and rewrite it after every epoch
        /// whose weights, read back from the RTL, equal the golden model's: a stopped run
        /// started again with the same arguments re-INITs the platform with the saved
        /// weights and LFSR states and ends with the same weights.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
        /// Clock every block at every edge (the design's simulation gates off): the reference
        /// run the gated Verilator model is checked against (docs/decisions.md D-SIM-GATE).
        #[arg(long)]
        ungated: bool,
        /// Before training, start a training run and stop it (I_STOP) with each core in each
        /// of the states a stop can interrupt, requiring every core idle and the FIFOs empty
        /// after each; then reset, INIT and train as usual.
        #[arg(long)]
        stop_sweep: bool,
        /// Feed each run's next image as soon as the one before it is sent, as a DMA
        /// streaming the whole run does: the input FIFO fills and back-pressures the input
        /// stream (by default the next image starts when IN_LEVEL shows room for it). With
        /// --check-golden a training run is one image; test runs are whole.
        #[arg(long)]
        eager_input: bool,
    },
}

/// `edgelearn synth`'s options.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// `xc7z020` (Yosys synth_xilinx), `ecp5-85k` (yowasp Yosys + nextpnr-ecp5,
    /// LFE5U-85F CABGA381, speed grade 6), `ecp5-85k-8` (the same, speed grade 8) or
    /// `ice40-up5k` (Yosys + nextpnr-ice40, SG48).
    pub target: String,
    /// The design (see `edgelearn blocks`).
    #[arg(long, value_name = "NAME")]
    pub top: String,
    /// Build the core or platform with L matmul lanes (named `..._lL`).
    #[arg(long, value_name = "L")]
    pub lanes: Option<usize>,
    /// Output directory [default: build/synth/TARGET/NAME].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Platform designs: also run each core alone (DIR/cores/CORE).
    #[arg(long)]
    pub per_core: bool,
    /// Clock constraint of place-and-route (MHz).
    #[arg(long, value_name = "MHZ", default_value_t = 75.0, value_parser = positive_mhz)]
    pub freq: f64,
    /// nextpnr's placer seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the Markdown report here.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Overwrite files that edgelearn did not write.
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `edgelearn regs`.
#[derive(Debug, clap::Args)]
pub struct RegsArgs {
    /// The repository (its hdl/regs descriptions; where generated files go).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Write nothing; exit 1 when a generated file differs from the description.
    #[arg(long, conflicts_with_all = ["design", "config"])]
    pub check: bool,
    /// Overwrite files that `edgelearn regs` did not write.
    #[arg(long, conflicts_with_all = ["design", "config"])]
    pub force: bool,
    /// A platform design (`lel_platform`, `lel_platform_axi_mnist`, ...; see `edgelearn
    /// blocks`): print every register's reset value resolved for it. A CNN engine
    /// (`cnn_engine_p16`, ...): print its host map; with --verify, check its host port.
    #[arg(long, value_name = "NAME", conflicts_with = "config")]
    pub design: Option<String>,
    /// The AXI top built from this platform configuration, instead of --design.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// With --config: the platform itself (its word register port), not its AXI top; the
    /// same design `platform train` builds, so `--coverage-dir` merges with its runs.
    #[arg(long, requires = "config")]
    pub bare: bool,
    /// Build the platform with L matmul lanes.
    #[arg(long, value_name = "L")]
    pub lanes: Option<usize>,
    /// Check the design's RTL against the description: reset values, access, writable bits,
    /// field maxima, byte strobes and reserved addresses, through its register bus; exit 1
    /// naming every register that answers otherwise.
    #[arg(long)]
    pub verify: bool,
    /// Backends of --verify, comma-separated (Icarus and the netlist replay Verilator's run
    /// and compare every output on every cycle).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "verilator,icarus"
    )]
    pub backends: Vec<BackendName>,
    /// Seed of the AXI4-Lite master's random pauses (--verify).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Reserved words --verify tries: all of the address space, or a sample where a decode
    /// goes wrong (each gap's first and last word, one-address-bit aliases of the first and
    /// last register).
    #[arg(long, value_enum, default_value = "all")]
    pub reserved: ReservedWords,
    /// Write a VCD of the --verify run on the first of --backends that is verilator or native.
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
}

/// Reserved words `edgelearn regs --verify` tries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReservedWords {
    /// Every one.
    All,
    /// Gap edges and one-bit aliases.
    Sample,
}

/// `edgelearn explore`'s options.
#[derive(Debug, clap::Args)]
pub struct ExploreArgs {
    /// Platform configuration (TOML), e.g. configs/mnist.toml.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Lane counts to sweep.
    #[arg(
        long,
        value_name = "L,..",
        value_delimiter = ',',
        default_value = "4,8"
    )]
    pub lanes: Vec<usize>,
    /// Parts: `xc7z020` (resources and fit, Yosys) and/or `ecp5-85k`, `ecp5-85k-8` (Fmax,
    /// nextpnr, speed grade 6 or 8; images/s at the first one's); `none`: cycles and
    /// accuracy only.
    #[arg(
        long,
        value_name = "PART,..",
        value_delimiter = ',',
        default_value = "xc7z020,ecp5-85k"
    )]
    pub part: Vec<String>,
    /// Timing options to sweep: `base` (the thesis's reads) and/or `registered` (the FC
    /// cores' weight-cache reads registered, D-REGISTERED-READS) [default: the
    /// configuration's `rtl.registered_reads`].
    #[arg(long, value_name = "T,..", value_delimiter = ',')]
    pub timing: Vec<String>,
    /// Conv-core parallelism to sweep: output channels computed at once, 1 (the thesis), 2
    /// or 4 (D-CONV-PARALLEL) [default: the configuration's `rtl.conv_parallel`].
    #[arg(long, value_name = "P,..", value_delimiter = ',')]
    pub conv_parallel: Vec<usize>,
    /// Directory with the MNIST IDX files.
    #[arg(long, value_name = "DIR", default_value = "data/mnist-10k")]
    pub data: PathBuf,
    /// Training images the RTL runs (one pipelined epoch) to count cycles per image.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub images: usize,
    /// Steps at a time [default: the machine's cores].
    #[arg(long, value_name = "J")]
    pub jobs: Option<usize>,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    pub report: PathBuf,
    /// Write a PNG (or .svg) of training images/s against LUTs here.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Where each step keeps its result and tool files [default: build/explore/CONFIG].
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// Clock constraint of place-and-route (MHz); also the clock of images/s where no
    /// Fmax was measured.
    #[arg(long, value_name = "MHZ", default_value_t = 75.0, value_parser = positive_mhz)]
    pub freq: f64,
    /// Run every step again (finished ones are reused otherwise).
    #[arg(long)]
    pub fresh: bool,
    /// Overwrite report or plot files that edgelearn did not write.
    #[arg(long)]
    pub force: bool,
    /// No progress lines.
    #[arg(long)]
    pub quiet: bool,
}

/// `edgelearn coverage`'s options.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct CoverageArgs {
    #[command(subcommand)]
    pub command: Option<CoverageCommand>,
    /// The regression file whose jobs run [default with `--test`: regress/nightly.toml].
    #[arg(long, value_name = "FILE")]
    pub regress: Option<PathBuf>,
    /// Only the jobs whose name contains NAME (repeatable).
    #[arg(long = "test", value_name = "NAME")]
    pub tests: Vec<String>,
    /// Run only shard I of N (merge the shards' DIRs with `coverage merge`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<edgelearn_verif::regress::Shard>,
    /// Jobs run at once [default: the CPUs].
    #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Output directory: the regression's run in DIR/regress, the report beside it (a
    /// directory an earlier `coverage` wrote is resumed).
    #[arg(long, value_name = "DIR", required = true)]
    pub out: Option<PathBuf>,
    /// Run every job again instead of resuming an earlier run in DIR.
    #[arg(long)]
    pub fresh: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Least covered modules printed per design.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub modules: usize,
    /// The testplans whose closure is reported (their "Coverage plan" sections).
    #[arg(long, value_name = "DIR", default_value = "docs/blocks")]
    pub testplans: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum CoverageCommand {
    /// Merge coverage: `coverage` outputs, `regress run --coverage` outputs (shards) and
    /// `--coverage-dir` directories, into one report in OUT.
    Merge {
        /// Directories to merge.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write the merged report.
        #[arg(long, value_name = "OUT")]
        out: PathBuf,
        /// Least covered modules printed per design.
        #[arg(long, value_name = "N", default_value_t = 3)]
        modules: usize,
        /// The testplans whose closure is reported (their "Coverage plan" sections).
        #[arg(long, value_name = "DIR", default_value = "docs/blocks")]
        testplans: PathBuf,
    },
}

/// `edgelearn formal`'s options.
#[derive(Debug, clap::Args)]
pub struct FormalArgs {
    /// Targets to prove (`--list` names them).
    #[arg(value_name = "TARGET", required_unless_present_any = ["all", "list"])]
    pub targets: Vec<String>,
    /// Every target.
    #[arg(long, conflicts_with = "targets")]
    pub all: bool,
    /// List the targets, what each proves and its mutants, and exit.
    #[arg(long)]
    pub list: bool,
    /// Also run each target's seeded mutants (each must fail).
    #[arg(long)]
    pub mutants: bool,
    /// Cycles of the bounded proof and the induction step [default: each target's].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=200))]
    pub depth: Option<u32>,
    /// Proofs run at once [default: the CPUs].
    #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// Output directory: one SymbiYosys directory per proof (harness, counterexample
    /// trace), and summary.json.
    #[arg(long, value_name = "DIR", default_value = "build/formal")]
    pub out: PathBuf,
}

/// `edgelearn train`'s options.
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Platform configuration (TOML), e.g. configs/mnist.toml.
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// Matmul lanes (overrides the configuration's `widths.lanes`; the thesis has 4).
    #[arg(long, value_name = "L")]
    pub lanes: Option<usize>,
    /// Directory with the MNIST IDX files (gzipped or raw, standard names).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Epochs.
    #[arg(long, default_value_t = 1)]
    pub epochs: usize,
    /// Train on the first K training images only.
    #[arg(long, value_name = "K")]
    pub images: Option<usize>,
    /// Evaluate on the first K test images only.
    #[arg(long, value_name = "K")]
    pub test_images: Option<usize>,
    /// Master seed (overrides the configuration's `seed`).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Train the f32 reference instead of the bit-exact model.
    #[arg(long)]
    pub float: bool,
    /// Continue from this checkpoint when it exists, and keep it up to date (every
    /// --checkpoint-every images and at every epoch's end): a stopped run started again
    /// with the same arguments ends with the same weights. Bit-exact model only.
    #[arg(long, value_name = "FILE", conflicts_with = "float")]
    pub checkpoint: Option<PathBuf>,
    /// Images between checkpoints within an epoch.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1000,
        requires = "checkpoint"
    )]
    pub checkpoint_every: usize,
    /// Write the JSON report here.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Write a PNG of accuracy per epoch and core here.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Overwrite existing report or plot files.
    #[arg(long)]
    pub force: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// The signals and time window `vcd show` tabulates and `vcd plot` draws.
#[derive(Debug, clap::Args)]
pub struct VcdWindow {
    /// VCD file.
    pub file: PathBuf,
    /// Signals (full paths, or unique suffixes/leaf names), comma-separated.
    #[arg(long, value_delimiter = ',', required = true)]
    pub signals: Vec<String>,
    /// Start time (file units).
    #[arg(long)]
    pub from: Option<u64>,
    /// End time (file units).
    #[arg(long)]
    pub to: Option<u64>,
    /// A clock: `show` samples at its rising edges, `plot` numbers them.
    #[arg(long)]
    pub clock: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum VcdCommand {
    /// Scopes, signals, widths, timescale and end time.
    List {
        /// VCD or FST file.
        file: PathBuf,
    },
    /// A table of values: at every change, or at every rising edge of --clock.
    Show {
        #[command(flatten)]
        window: VcdWindow,
    },
    /// Compare two waveforms at clock edges (edge k of A against edge k of B).
    /// Exit 0 equal, 1 different, 2 error.
    Diff {
        /// First VCD or FST.
        a: PathBuf,
        /// Second VCD or FST.
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
        /// VCD or FST file.
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
        #[command(flatten)]
        window: VcdWindow,
        /// Output picture.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

/// What to load for a CNN run.
#[derive(Debug, clap::Args)]
pub struct CnnNet {
    /// Network description (ai8x YAML).
    #[arg(long, value_name = "NET.yaml")]
    pub network: PathBuf,
    /// Weights: an ai8x quantized checkpoint (*-q.pth.tar), or sample weights (.npy/.npz).
    #[arg(long, visible_alias = "weights", value_name = "CK")]
    pub checkpoint: PathBuf,
    /// Sample biases (.npy, one array per layer with weights) for test networks; found
    /// automatically as bias_NAME.npy or bias_source.npy next to the weights when the YAML
    /// says `bias: NAME`.
    #[arg(long, value_name = "FILE")]
    pub bias: Option<PathBuf>,
    /// Sample input (.npy of any integer type, (C, H, W) or (C, L)).
    #[arg(long, value_name = "SAMPLE.npy")]
    pub input: PathBuf,
    /// Stop after layer N and report it as the output (ai8x --stop-after).
    #[arg(long, value_name = "N")]
    pub stop_after: Option<usize>,
    /// Round average pooling (ai8x --avg-pool-rounding).
    #[arg(long)]
    pub avg_pool_rounding: bool,
    /// `silicon` (what the MAX78000 computes; default) or `document` (the documents' reading
    /// of average pooling and of left-shift overflow; docs/decisions.md D-CNN-SEMANTICS).
    #[arg(long, default_value = "silicon", value_parser = ["silicon", "document"])]
    pub semantics: String,
    /// Split the operands of element-wise layers after the first by interleaved columns
    /// (ai8x --legacy-test).
    #[arg(long)]
    pub legacy_test: bool,
    /// Use only N processors per pass (ai8x --max-proc, for multi-pass tests).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_proc: Option<u32>,
    /// Let a layer's output overlap its own input in data memory (ai8x --overlap-data; the
    /// model computes each layer from its whole input, as izer does, so it does not see the
    /// overwriting).
    #[arg(long)]
    pub overlap_data: bool,
}

#[derive(Debug, Subcommand)]
pub enum CnnCommand {
    /// Validate a network description and print its layer table (shapes, processors, weight
    /// bits, memory use and MACs need --checkpoint and --input or --input-shape).
    Check {
        /// Network description (ai8x YAML).
        network: PathBuf,
        /// Weights (checkpoint or sample weights).
        #[arg(long, visible_alias = "weights", value_name = "CK")]
        checkpoint: Option<PathBuf>,
        /// Sample biases (.npy).
        #[arg(long, value_name = "FILE")]
        bias: Option<PathBuf>,
        /// Sample input (gives the input shape).
        #[arg(long, value_name = "SAMPLE.npy", conflicts_with = "input_shape")]
        input: Option<PathBuf>,
        /// Input shape C,H,W (or C,L).
        #[arg(long, value_name = "C,H,W", value_delimiter = ',')]
        input_shape: Option<Vec<usize>>,
        /// Use only N processors per pass.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
        max_proc: Option<u32>,
        /// Let a layer's output overlap its own input (ai8x --overlap-data).
        #[arg(long)]
        overlap_data: bool,
    },
    /// Run a network on a sample input, bit-exactly, and print or write its output
    /// ({"output_shape", "output", "wide"}).
    Run {
        #[command(flatten)]
        net: CnnNet,
        /// Write the JSON result here (printed to stdout otherwise).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Write every layer's output as DIR/layerNN.npy, and as the data-memory words it
        /// occupies as DIR/layerNN.mem (address, value, mask per line).
        #[arg(long, value_name = "DIR")]
        log_intermediate: Option<PathBuf>,
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
    },
    /// Turn a network into the CNN engine's memory images (docs/cnn-engine-rtl.md):
    /// layers.hex (layer registers), kernel_pNN.hex (72-bit kernel words per processor),
    /// bias.hex, data_NN.hex (input words per data-memory instance), image.json.
    Load {
        #[command(flatten)]
        net: CnnNet,
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Processors of the engine (4, 8, 16, 32, 48 or 64).
        #[arg(long, value_name = "P", default_value_t = 64)]
        processors: usize,
        /// Overwrite existing files in DIR.
        #[arg(long)]
        force: bool,
    },
    /// Run a network on the CNN engine RTL: load, run the layer sequencer, compare every
    /// layer's data-memory words with the golden model, unload the output (the JSON of
    /// `cnn run`), print cycles per layer and per inference.
    Sim {
        #[command(flatten)]
        net: CnnNet,
        /// Processors of the engine (4, 8, 16, 32, 48 or 64).
        #[arg(long, value_name = "P", default_value_t = 64)]
        processors: usize,
        /// Simulator (the engine runs on the in-process Verilator model).
        #[arg(long, default_value = "verilator", value_parser = ["verilator"])]
        backend: String,
        /// Load through the host port, word by word, instead of the memory backdoor.
        #[arg(long)]
        front_door: bool,
        /// Clock every quad at every edge (the reference the simulation gates are checked
        /// against; docs/decisions.md D-SIM-GATE).
        #[arg(long)]
        ungated: bool,
        /// Run the inference this many times on one model (load, run, compare each time) and
        /// report the simulated cycles per second over all of them (a benchmark).
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10000))]
        repeat: u32,
        /// A streaming network's input arrives over the input stream (`fifo_t*`, izer's
        /// `--fifo` order) with an idle cycle before a beat at this probability (0: back to
        /// back; the cycles count the arrival). Only for networks whose first layer streams.
        #[arg(long, value_name = "P", value_parser = fifo_gap)]
        fifo_gap: Option<f64>,
        /// Write a VCD of the run (an FST when the name ends in `.fst`).
        #[arg(long, value_name = "PATH")]
        vcd: Option<PathBuf>,
        /// Write the JSON result here (printed to stdout otherwise).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Write every layer's output as the engine computed it: DIR/layerNN.npy, and its
        /// data-memory words as DIR/layerNN.mem (as `cnn run` does).
        #[arg(long, value_name = "DIR")]
        log_intermediate: Option<PathBuf>,
        /// Overwrite existing files.
        #[arg(long)]
        force: bool,
    },
    /// Teach the network a new class by training its last layer on the device, image by
    /// image (seed 003, Algorithm 1; docs/finetune.md): the frozen layers run on the engine,
    /// the last layer is updated with softmax cross-entropy, re-quantized, written into the
    /// kernel memory and read back for the next forward pass.
    Finetune(FinetuneArgs),
    /// Measure inferences per second of the golden model (single thread).
    Bench {
        #[command(flatten)]
        net: CnnNet,
        /// Inferences to run.
        #[arg(long, default_value_t = 200)]
        iterations: usize,
    },
    /// Write the known-answer test of a sample: sampledata.h (input loader words),
    /// sampleoutput.h (expected data-memory words, as ai8x's generated files), kat.c
    /// (load_input and check_output) and kat.json.
    Kat {
        #[command(flatten)]
        net: CnnNet,
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Overwrite existing files in DIR.
        #[arg(long)]
        force: bool,
    },
    /// Write constrained-random networks inside the engine's limits, each drawn toward the
    /// cross bins not yet covered: DIR/NNNN/{network.yaml, weights.npz, input.npy},
    /// DIR/regress.toml (each on the engine RTL against the golden model) and DIR/cross.md.
    /// With --run, run them on the engine RTL now; a network that diverges is shrunk to a
    /// minimal case in DIR/failures/ and the exit status is 1.
    Random(CnnRandomArgs),
}

/// `edgelearn cnn random`.
#[derive(Debug, clap::Args)]
pub struct CnnRandomArgs {
    /// Seed of the run (the same seed writes the same networks).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Networks to write.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub count: u32,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Processors of the engine the networks must fit (4, 8, 16, 32, 48 or 64).
    #[arg(long, default_value_t = 16)]
    pub processors: usize,
    /// Layers per network at most.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub layers: u32,
    /// Input rows and columns at most (a 1-D input has up to twice as many samples): larger
    /// maps reach the address bits and layer-register fields that small ones leave at zero.
    /// A map the engine cannot hold is drawn again (counted as refused in the report).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(3..=512))]
    pub side: u32,
    /// Run every network on the engine RTL (Verilator, in-process) against the golden model.
    #[arg(long)]
    pub run: bool,
    /// Overwrite an earlier `cnn random` output in DIR.
    #[arg(long)]
    pub force: bool,
}

/// `edgelearn cnn finetune`.
#[derive(Debug, clap::Args)]
pub struct FinetuneArgs {
    /// Network description (ai8x YAML); its last layer must be fully connected with a
    /// 32-bit output.
    #[arg(long, value_name = "NET.yaml")]
    pub network: PathBuf,
    /// Pre-trained weights (ai8x quantized checkpoint, or a state-dict .npz).
    #[arg(long, visible_alias = "weights", value_name = "CK")]
    pub checkpoint: PathBuf,
    /// MNIST folder (IDX files, gzipped or not).
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The output repurposed for the new class (the seed repurposes 0).
    #[arg(long, value_name = "C")]
    pub new_class: usize,
    /// Where the new class comes from: `mirrored9`, horizontally mirrored 9s (a lowercase
    /// "p"; EMNIST is not available here).
    #[arg(long, default_value = "mirrored9", value_parser = ["mirrored9"])]
    pub new_data: String,
    /// Epochs over the new training images.
    #[arg(long, default_value_t = 20)]
    pub epochs: usize,
    /// Learning rate (the seed's 0.5); a power of two 2^-k (k = 0..7) for `--arith fixed`.
    #[arg(long, default_value_t = 0.5)]
    pub lr: f64,
    /// `float`: float gradient, re-quantized after every update; `fixed`: integers only,
    /// the arithmetic of the `cnn_fc_update` block.
    #[arg(long, default_value = "float", value_parser = ["float", "fixed"])]
    pub arith: String,
    /// Rounding of the fixed update: `nearest` (half up) or `stochastic` (LFSR).
    #[arg(long, default_value = "nearest", value_parser = ["nearest", "stochastic"])]
    pub rounding: String,
    /// LFSR seed of the stochastic rounding.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// `golden`: the bit-exact engine model; `verilator`: the CNN engine RTL runs the frozen
    /// layers and every forward pass of the last layer, and, with `--arith fixed`, the
    /// `cnn_fc_update` RTL computes every update.
    #[arg(long, default_value = "golden", value_parser = ["golden", "verilator"])]
    pub backend: String,
    /// New-class training images (the seed's 20).
    #[arg(long, default_value_t = 20)]
    pub train_images: usize,
    /// New-class test images (the seed's 10).
    #[arg(long, default_value_t = 10)]
    pub test_images: usize,
    /// Original test images for the forgetting figures (default: the whole test split).
    #[arg(long, value_name = "N")]
    pub original_images: Option<usize>,
    /// Write the report (JSON) here.
    #[arg(long, value_name = "R.json")]
    pub report: PathBuf,
    /// Plot the figures per epoch (PNG).
    #[arg(long, value_name = "R.png")]
    pub plot: Option<PathBuf>,
    /// Write the fine-tuned weights as a state-dict .npz (`cnn run --checkpoint` reads it),
    /// with a known-answer pair next to it: NAME.sample.npy and NAME.expected.json.
    #[arg(long, value_name = "WEIGHTS.npz")]
    pub out: Option<PathBuf>,
    /// Overwrite existing files.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Subcommand)]
pub enum RegressCommand {
    /// Run the jobs of a regression file (or of one shard of it) with J jobs at a time: a log
    /// and a result per job under DIR/jobs, DIR/summary.json, DIR/junit.xml and
    /// DIR/summary.md. Exit 1 when any job fails. Running again into the same DIR resumes:
    /// jobs that finished with the same edgelearn are not run again.
    Run {
        /// The regression file (TOML), e.g. regress/nightly.toml.
        file: PathBuf,
        /// Run only shard I of N (1-based; deterministic, balanced by estimated cost).
        #[arg(long, value_name = "I/N")]
        shard: Option<edgelearn_verif::regress::Shard>,
        /// Jobs run at once (each one single-threaded simulator process); default: the CPUs.
        #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Output directory (created; an existing one must be a `regress run` output).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Only jobs whose name contains this text.
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// Estimate job costs from the times of an earlier run (its summary.json, or a merged
        /// one); every shard must be given the same file.
        #[arg(long, value_name = "SUMMARY.json")]
        timings: Option<PathBuf>,
        /// Discard the results of an earlier run in DIR instead of resuming it.
        #[arg(long)]
        fresh: bool,
        /// No progress bar: one line per finished job instead (for CI and cluster logs).
        #[arg(long)]
        quiet: bool,
        /// Count code coverage of each job's in-process Verilator models into
        /// DIR/jobs/<job>/coverage (`regress merge` and `edgelearn coverage merge` report it).
        #[arg(long)]
        coverage: bool,
    },
    /// Print the jobs of a regression file: name, kind, estimated seconds, shard, command.
    List {
        /// The regression file (TOML).
        file: PathBuf,
        /// Split into N shards and print each job's shard (or only shard I with I/N).
        #[arg(long, value_name = "I/N")]
        shard: Option<edgelearn_verif::regress::Shard>,
        /// Split into this many shards (shows the balance).
        #[arg(long, value_name = "N", conflicts_with = "shard")]
        shards: Option<usize>,
        /// Estimate job costs from the times of an earlier run.
        #[arg(long, value_name = "SUMMARY.json")]
        timings: Option<PathBuf>,
        /// Print the edgelearn command lines of every job.
        #[arg(long)]
        commands: bool,
    },
    /// Merge the output directories of shards into one report: OUT/junit.xml,
    /// OUT/summary.json and OUT/summary.md (printed too), and, when the shards ran with
    /// `--coverage`, their merged code coverage in OUT/coverage. Exit 1 when any job failed
    /// or no shard ran it.
    Merge {
        /// Shard output directories (each holds a summary.json).
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write the merged report (only printed without it).
        #[arg(long, value_name = "OUT")]
        out: Option<PathBuf>,
        /// Overwrite an existing merged report.
        #[arg(long)]
        force: bool,
    },
}

/// `--fifo-gap`: a probability below 1.
fn fifo_gap(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..1.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a probability in [0, 1)")),
    }
}

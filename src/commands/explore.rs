//! `edgelearn explore`: the LEL platform of one configuration swept over lane counts and
//! parts.
//!
//! A point is a lane count. Its steps: the RTL platform trains `--images` images on
//! Verilator (cycles per image from its counters, weights against the golden model's), the
//! golden model trains one epoch (accuracy), and the platform is synthesized for each part
//! (XC7Z020: resources and fit; ECP5-85F: also place-and-route and Fmax). Steps run on
//! `--jobs` threads; each step's result is kept in the work directory under a key of its
//! inputs and of the edgelearn binary, so a rerun takes finished steps as they are.

use super::explore_render::{pareto, plot, table};
use super::regress::exe_digest;
use anyhow::{bail, Context};
use edgelearn_fpga::synth::{self as fsynth, Job, Target};
use edgelearn_hdl::lel::conv_core::CONV_PARALLEL;
use edgelearn_hdl::lel::fc_core::FcCoreShape;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::datasets::mnist;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::network::LelNetwork;
use edgelearn_verif::lel::train::{prepare_all, train_with, Mode, TrainState};
use edgelearn_verif::rtl::designs::{self, Kind};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform_session::{
    session, EpochLine, Observer, PlatformState, Prepared, SessionOptions,
};
use edgelearn_verif::rtl::{conv_image_cycles, platform_fc_cycles};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

/// The command's options (the command line's, `crate::cli::ExploreArgs`).
pub use crate::cli::ExploreArgs as Args;

/// The `generator` of every report this command writes (what a rerun may overwrite).
pub const GENERATOR: &str = "edgelearn explore";

/// The thesis's design point: FC core 0's cycles per training image at 4 lanes (Table 4.3)
/// and its training images/s at 75 MHz.
pub const THESIS: (u64, f64) = (145_718, 515.0);
/// Shi et al., IEEE TCAS-II 2023: MNIST on-chip training on a Zynq-7010, images/s.
pub const SHI_2023_IMAGES_PER_SECOND: f64 = 4_843.0;

/// What the RTL run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RtlPoint {
    /// The design simulated.
    pub design: String,
    /// Training images of the pipelined epoch.
    pub images: usize,
    /// CONV/FC0/FC1_CYCLES: each core's cycles of the last image.
    pub core_cycles: [u64; 3],
    /// RUN_CYCLES: the whole pipelined epoch.
    pub run_cycles: u64,
    /// `run_cycles / images`.
    pub cycles_per_image: f64,
    /// The RTL's weights after the epoch equal the golden model's.
    pub bit_exact: bool,
    /// The RTL's weights (read back through the platform's ports).
    pub weights_sha256: String,
    /// The golden model's after the same images.
    pub golden_sha256: String,
    /// Wall time of the step (model build included).
    pub seconds: f64,
}

/// One epoch of the golden model.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct GoldenPoint {
    /// Training images (the whole training split).
    pub train_images: usize,
    /// Test images (the whole test split).
    pub test_images: usize,
    /// Per FC core, after the epoch.
    pub test_accuracy: Vec<f64>,
    /// The weights after the epoch (`edgelearn train --lanes L` prints the same).
    pub weights_sha256: String,
    /// Wall time of the step.
    pub seconds: f64,
}

/// Synthesis (and place-and-route) of the platform for one part.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PartPoint {
    /// The part's name on the command line.
    pub part: String,
    /// Every limit is met (and place-and-route, where it ran, succeeded).
    pub fits: bool,
    /// Why it does not fit.
    pub reasons: Vec<String>,
    /// Each limit: metric, used, capacity.
    pub checks: Vec<(String, f64, f64)>,
    /// The metric with the largest share of its capacity: what runs out first.
    pub tightest: Option<String>,
    /// Achieved clock (nextpnr), where place-and-route ran.
    pub fmax_mhz: Option<f64>,
    /// Its critical path, summarised.
    pub critical_path: Option<String>,
    /// Wall time of synthesis and place-and-route (the run's, when it came from the cache).
    pub seconds: f64,
}

impl PartPoint {
    /// A metric's use (0 when the part has no such limit).
    pub fn used(&self, metric: &str) -> f64 {
        self.checks
            .iter()
            .find(|c| c.0 == metric)
            .map_or(0.0, |c| c.1)
    }
}

/// One lane count's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Point {
    /// Matmul lanes of both FC cores.
    pub lanes: usize,
    /// The FC cores' weight-cache reads registered (D-REGISTERED-READS).
    pub registered_reads: bool,
    /// Output channels the conv core computes at once (D-CONV-PARALLEL).
    #[serde(default = "one")]
    pub conv_parallel: usize,
    /// `lanes`, with ` rr` for registered reads and ` cpP` for P conv channels at a time.
    pub label: String,
    /// The platform design's name at this lane count.
    pub design: String,
    /// Cycles per image of the conv core, FC core 0 and FC core 1 from the cycle formulas,
    /// when the configuration's shapes hold at this lane count.
    pub model_core_cycles: Option<[u64; 3]>,
    /// The RTL run, or why there is none.
    pub rtl: Result<RtlPoint, String>,
    /// The golden model's epoch, or why there is none.
    pub golden: Result<GoldenPoint, String>,
    /// Per part: synthesis, or why there is none.
    pub parts: BTreeMap<String, Result<PartPoint, String>>,
    /// Cycles per training image: the RTL's when it ran, else the slowest core's formula.
    pub cycles_per_image: Option<f64>,
    /// `rtl` or `model`.
    pub cycles_source: String,
    /// The clock of `images_per_second`: the ECP5 Fmax when measured, `--freq` when the
    /// ECP5 is not in the sweep, none when its place-and-route did not finish.
    pub clock_mhz: Option<f64>,
    /// Where `clock_mhz` comes from.
    pub clock_source: String,
    /// Training images per second at `clock_mhz`.
    pub images_per_second: Option<f64>,
}

impl Point {
    /// The part's synthesis, when it ran.
    pub fn part(&self, name: &str) -> Option<&PartPoint> {
        self.parts.get(name).and_then(|r| r.as_ref().ok())
    }
}

/// Where a point is: its lane count and whether the FC cores' reads are registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct At {
    /// Matmul lanes.
    pub lanes: usize,
    /// `rtl.registered_reads`.
    pub registered_reads: bool,
    /// `rtl.conv_parallel`.
    pub conv_parallel: usize,
}

fn one() -> usize {
    1
}

impl At {
    /// `8`, `8 rr` with registered reads, `8 rr cp2` with two conv channels at a time: how
    /// the table and plot name the point.
    pub fn label(self) -> String {
        format!(
            "{}{}{}",
            self.lanes,
            if self.registered_reads { " rr" } else { "" },
            match self.conv_parallel {
                1 => String::new(),
                p => format!(" cp{p}"),
            }
        )
    }

    /// Its directory under the work directory.
    fn dir(self) -> String {
        format!(
            "l{}{}{}",
            self.lanes,
            if self.registered_reads { "-rr" } else { "" },
            match self.conv_parallel {
                1 => String::new(),
                p => format!("-cp{p}"),
            }
        )
    }

    /// `base` at this point.
    fn apply(self, base: &PlatformConfig) -> PlatformConfig {
        let mut cfg = base.clone();
        cfg.widths.lanes = self.lanes;
        cfg.rtl.registered_reads = self.registered_reads;
        cfg.rtl.conv_parallel = self.conv_parallel;
        cfg
    }

    /// The configuration at this point.
    fn config(self, path: &Path) -> anyhow::Result<PlatformConfig> {
        let cfg = super::load_config(path, None, Some(self.lanes))?;
        Ok(self.apply(&cfg))
    }
}

/// One step of a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The RTL platform on Verilator.
    Rtl,
    /// One epoch of the golden model.
    Golden,
    /// Synthesis (and place-and-route) for a part.
    Synth(Target),
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Rtl => "rtl",
            Step::Golden => "golden",
            Step::Synth(t) => t.name(),
        }
    }
}

/// A step's result as kept in the work directory.
#[derive(Serialize, Deserialize)]
struct Kept<T> {
    key: String,
    result: Result<T, String>,
}

/// What every step reads.
struct Ctx {
    args: Args,
    data: mnist::Mnist,
    work: PathBuf,
    exe: String,
    sim: Simulator,
}

/// Run `edgelearn explore`: exit 0 when every point that ran on the RTL was bit-exact, 1
/// otherwise.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let targets = check_args(&args)?;
    let base = super::load_config(&args.config, None, None)?;
    let mut timings = Vec::new();
    for t in &args.timing {
        let r = match t.as_str() {
            "base" => false,
            "registered" => true,
            _ => bail!(
                "--timing {t}: give base (the thesis's reads) or registered (D-REGISTERED-READS)"
            ),
        };
        if !timings.contains(&r) {
            timings.push(r);
        }
    }
    if timings.is_empty() {
        timings.push(base.rtl.registered_reads);
    }
    let mut parallels: Vec<usize> = Vec::new();
    for &p in &args.conv_parallel {
        if !CONV_PARALLEL.contains(&p) {
            bail!("--conv-parallel {p}: the conv core is built with {CONV_PARALLEL:?} output channels at a time");
        }
        if !parallels.contains(&p) {
            parallels.push(p);
        }
    }
    if parallels.is_empty() {
        parallels.push(base.rtl.conv_parallel);
    }
    let data = mnist::load(&args.data).context("cannot load MNIST")?;
    if args.images > data.train.len() {
        bail!(
            "--images {}: the training split has {} images",
            args.images,
            data.train.len()
        );
    }
    let work = args
        .work
        .clone()
        .unwrap_or_else(|| Path::new("build/explore").join(&base.name));
    claim_work(&work, args.force)?;
    let exe = std::env::current_exe().context("cannot find the edgelearn executable")?;
    let ctx = Ctx {
        data,
        work,
        exe: exe_digest(&exe)?,
        sim: Simulator::from_env(),
        args,
    };
    // The slow steps first: place-and-route, synthesis, the RTL, the golden epochs.
    let mut ats: Vec<At> = Vec::new();
    for &conv_parallel in &parallels {
        for &registered_reads in &timings {
            for &lanes in &ctx.args.lanes {
                ats.push(At {
                    lanes,
                    registered_reads,
                    conv_parallel,
                });
            }
        }
    }
    let mut steps = Vec::new();
    for rank in 0..4 {
        for &at in &ats {
            let s = match rank {
                0 => targets
                    .iter()
                    .filter(|t| **t != Target::Xc7z020)
                    .copied()
                    .map(Step::Synth)
                    .collect(),
                1 => targets
                    .iter()
                    .filter(|t| **t == Target::Xc7z020)
                    .copied()
                    .map(Step::Synth)
                    .collect(),
                2 => vec![Step::Rtl],
                _ => vec![Step::Golden],
            };
            steps.extend(s.into_iter().map(|s| (at, s)));
        }
    }
    let results = run_steps(&ctx, steps)?;
    let points: Vec<Point> = ats
        .iter()
        .map(|&at| point(&ctx, &base, at, &targets, &results))
        .collect();
    let front = pareto(&points);
    let text = table(&base.name, &ctx.args, &points, &front);
    println!("{text}");
    let report = json!({
        "generator": GENERATOR,
        "config": base.name,
        "config_path": ctx.args.config,
        "images": ctx.args.images,
        "freq_mhz": ctx.args.freq,
        "parts": targets.iter().map(|t| t.name()).collect::<Vec<_>>(),
        "points": points,
        "pareto": front,
        "fastest_fitting_xc7z020": fastest_fitting(&points),
        "references": {
            "thesis": {"fc0_cycles_per_image": THESIS.0, "images_per_second_75mhz": THESIS.1},
            "shi_2023": {"images_per_second": SHI_2023_IMAGES_PER_SECOND, "device": "XC7Z010"},
        },
        "plot": ctx.args.plot,
        "table": text,
    });
    write_report(&ctx.args.report, &report)?;
    if let Some(p) = &ctx.args.plot {
        plot(p, &base.name, &points, &front)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    let diverged: Vec<String> = points
        .iter()
        .filter(|p| p.rtl.as_ref().is_ok_and(|r| !r.bit_exact))
        .map(|p| p.label.clone())
        .collect();
    if !diverged.is_empty() {
        eprintln!("the RTL's weights differ from the golden model's at {diverged:?}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// The arguments that need no file read; the parts.
fn check_args(a: &Args) -> anyhow::Result<Vec<Target>> {
    if a.lanes.is_empty() || a.lanes.contains(&0) {
        bail!("--lanes: give lane counts of at least 1");
    }
    if a.images == 0 {
        bail!("--images must be at least 1");
    }
    if a.jobs == Some(0) {
        bail!("--jobs must be at least 1");
    }
    let mut targets = Vec::new();
    for p in a.part.iter().filter(|p| *p != "none") {
        let t = Target::parse(p)?;
        if t == Target::Ice40Up5k {
            bail!("--part ice40-up5k: the LEL platform is far larger than an iCE40 UP5K");
        }
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    let ours = report_is_ours(&a.report);
    if a.report.exists() && !ours && !a.force {
        bail!(
            "{} exists and was not written by edgelearn explore (give --force to overwrite)",
            a.report.display()
        );
    }
    if let Some(p) = a.plot.as_ref().filter(|p| p.exists()) {
        let named = ours && previous_plot(&a.report).as_deref() == Some(p.as_path());
        if !named && !a.force {
            bail!(
                "{} exists and is not the plot of {} (give --force to overwrite)",
                p.display(),
                a.report.display()
            );
        }
    }
    Ok(targets)
}

/// The file that marks a work directory as explore's.
const WORK_MARK: &str = ".edgelearn-explore";

/// Make `work` an explore work directory: new, empty, or one explore made (then every file
/// in it is explore's to rewrite); anything else only with `force`.
fn claim_work(work: &Path, force: bool) -> anyhow::Result<()> {
    let marked = work.join(WORK_MARK).is_file();
    let empty = std::fs::read_dir(work).map_or(true, |mut d| d.next().is_none());
    if !marked && !empty && !force {
        bail!(
            "{} is not empty and is not an edgelearn explore work directory; not writing into it (give another --work, or --force)",
            work.display()
        );
    }
    std::fs::create_dir_all(work).with_context(|| format!("cannot create {}", work.display()))?;
    std::fs::write(work.join(WORK_MARK), "edgelearn explore work directory\n")
        .with_context(|| format!("cannot write into {}", work.display()))
}

fn report_is_ours(path: &Path) -> bool {
    read_json(path).is_some_and(|v| v["generator"] == GENERATOR)
}

fn previous_plot(report: &Path) -> Option<PathBuf> {
    read_json(report)?["plot"].as_str().map(PathBuf::from)
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn write_report(path: &Path, report: &Value) -> anyhow::Result<()> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let text = serde_json::to_string_pretty(report).expect("report serializes") + "\n";
    edgelearn_sim::files::write_atomic(path, text)
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// Each step's result (JSON), by lane count and step name.
type Results = BTreeMap<(At, &'static str), Value>;

/// Run `steps` on `--jobs` threads.
fn run_steps(ctx: &Ctx, steps: Vec<(At, Step)>) -> anyhow::Result<Results> {
    let total = steps.len();
    let queue = Mutex::new(steps.into_iter().collect::<VecDeque<_>>());
    let results = Mutex::new(Results::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let jobs = ctx
        .args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    std::thread::scope(|s| {
        for _ in 0..jobs.min(total) {
            s.spawn(|| loop {
                let Some((at, step)) = queue.lock().expect("queue").pop_front() else {
                    return;
                };
                match run_step(ctx, at, step) {
                    Ok((v, reused)) => {
                        let mut r = results.lock().expect("results");
                        r.insert((at, step.name()), v);
                        if !ctx.args.quiet {
                            eprintln!(
                                "[{}/{total}] lanes {} {}{}",
                                r.len(),
                                at.label(),
                                step.name(),
                                if reused { " (reused)" } else { "" }
                            );
                        }
                    }
                    Err(e) => {
                        failure.lock().expect("failure").get_or_insert(e);
                        queue.lock().expect("queue").clear();
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("failure") {
        return Err(e);
    }
    Ok(results.into_inner().expect("results"))
}

/// What a step's result depends on. Synthesis: the design's Verilog, the part and the
/// clock (so a rebuilt edgelearn that emits the same Verilog reuses it; the tools' versions
/// are in `fpga::synth`'s own cache key). The RTL run and the golden epoch: the binary too
/// (the golden model and the benches are in it), the configuration and the images.
fn step_key(ctx: &Ctx, at: At, step: Step, cfg: &anyhow::Result<PlatformConfig>) -> String {
    let inputs = match cfg {
        Ok(c) => TrainState::key(c, &ctx.data.train, &ctx.data.test),
        Err(e) => format!("{e:#}"),
    };
    let verilog = match (step, cfg) {
        (Step::Synth(_), Ok(c)) => {
            designs::platform_design(&designs::configured_name(Kind::Platform, c), c)
                .map_err(|e| e.to_string())
                .and_then(|d| d.verilog().map_err(|e| e.to_string()))
        }
        _ => Err(String::new()),
    };
    let (who, what) = match &verilog {
        Ok(v) => ("", v.as_str()),
        Err(_) => (ctx.exe.as_str(), inputs.as_str()),
    };
    edgelearn_sim::files::content_key(&[
        GENERATOR,
        env!("CARGO_PKG_VERSION"),
        step.name(),
        who,
        what,
        &at.label(),
        &ctx.args.images.to_string(),
        &ctx.args.freq.to_string(),
    ])
}

/// One step: its kept result when the key matches, else a fresh run (kept).
fn run_step(ctx: &Ctx, at: At, step: Step) -> anyhow::Result<(Value, bool)> {
    let cfg = at.config(&ctx.args.config);
    let dir = ctx.work.join(at.dir());
    let file = dir.join(format!("{}.json", step.name()));
    let key = step_key(ctx, at, step, &cfg);
    if !ctx.args.fresh {
        if let Some(v) = read_json(&file).filter(|v| v["key"] == key.as_str()) {
            return Ok((v["result"].clone(), true));
        }
    }
    if !ctx.args.quiet {
        eprintln!("lanes {} {}: running", at.label(), step.name());
    }
    // An error of the configuration at this point is an answer (kept like a result); any
    // other error (a tool, a file) is tried again on the next run.
    let shape = match (step, &cfg) {
        (_, Err(e)) => Err(format!("{e:#}")),
        (Step::Golden, Ok(_)) => Ok(()),
        (_, Ok(c)) => designs::platform_shape(c)
            .map(|_| ())
            .map_err(|e| format!("{e}")),
    };
    let result = match (step, cfg) {
        _ if shape.is_err() => Err(shape.clone().unwrap_err()),
        (_, Err(e)) => Err(format!("{e:#}")),
        (Step::Rtl, Ok(cfg)) => to_value(rtl_step(ctx, &cfg)),
        (Step::Golden, Ok(cfg)) => to_value(golden_step(&ctx.data, &cfg)),
        (Step::Synth(t), Ok(cfg)) => {
            to_value(synth_step(ctx, &cfg, t, &dir.join(t.name())).map_err(|e| format!("{e:#}")))
        }
    };
    let kept = Kept { key, result };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    if kept.result.is_ok() || shape.is_err() {
        let text = serde_json::to_string_pretty(&kept).expect("plain data");
        edgelearn_sim::files::write_atomic(&file, text)
            .with_context(|| format!("cannot write {}", file.display()))?;
    } else {
        let _ = std::fs::remove_file(&file);
    }
    Ok((
        serde_json::to_value(&kept.result).expect("plain data"),
        false,
    ))
}

fn to_value<T: Serialize>(r: Result<T, String>) -> Result<Value, String> {
    r.map(|v| serde_json::to_value(v).expect("plain data"))
}

fn from_value<T: DeserializeOwned>(v: Option<&Value>) -> Result<T, String> {
    let v = v.ok_or("not run")?;
    serde_json::from_value::<Result<T, String>>(v.clone())
        .map_err(|e| format!("unreadable step result: {e}"))?
}

/// An observer that says nothing.
struct Silent;

impl Observer for Silent {
    fn built(&mut self, _: f64) {}
    fn phase(&mut self, _: &str, _: usize) {}
    fn progress(&mut self, _: usize) {}
    fn epoch(&mut self, _: &EpochLine) {}
    fn note(&mut self, _: &str) {}
    fn save(&mut self, _: &PlatformState) -> Result<(), String> {
        Ok(())
    }
}

/// The platform at `cfg`'s lanes trains the first `--images` images on Verilator, one
/// pipelined epoch.
fn rtl_step(ctx: &Ctx, cfg: &PlatformConfig) -> Result<RtlPoint, String> {
    let t = Instant::now();
    let name = designs::configured_name(Kind::Platform, cfg);
    designs::platform_shape(cfg).map_err(|e| e.to_string())?;
    let train = ctx.data.train.truncated(ctx.args.images);
    let e = |e: edgelearn_verif::lel::network::BuildError| e.to_string();
    let prepared = Prepared {
        train_x: prepare_all(cfg, &train).map_err(e)?,
        train_y: train.labels.iter().map(|&l| l as u32).collect(),
        test_x: Vec::new(),
        test_y: Vec::new(),
        net: LelNetwork::new(cfg).map_err(e)?,
        cfg: cfg.clone(),
    };
    let options = SessionOptions {
        design: name.clone(),
        axi: false,
        backend: Backend::Verilator,
        traffic: Traffic::default(),
        check_golden: false,
        epochs: 1,
        checkpoints: false,
        stop_sweep: false,
        eager_input: false,
    };
    let out = session(
        &prepared,
        &options,
        &ctx.sim,
        &DutOptions::default(),
        None,
        &mut Silent,
    )
    .map_err(|(e, cycle)| format!("{e} (cycle {cycle})"))?;
    let run = out.first_run.ok_or("the epoch ran no PL_TRAIN")?;
    Ok(RtlPoint {
        design: name,
        images: run.images,
        core_cycles: run.core_cycles,
        run_cycles: run.cycles,
        cycles_per_image: run.cycles as f64 / run.images.max(1) as f64,
        bit_exact: out.weights_sha256 == out.golden_sha256,
        weights_sha256: out.weights_sha256,
        golden_sha256: out.golden_sha256,
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// One epoch of the golden model on the whole training split, tested on the whole test
/// split.
fn golden_step(data: &mnist::Mnist, cfg: &PlatformConfig) -> Result<GoldenPoint, String> {
    let t = Instant::now();
    let (report, _) = train_with(
        cfg,
        Mode::BitExact,
        &data.train,
        &data.test,
        1,
        None,
        &mut |_| {},
    )
    .map_err(|e| e.to_string())?;
    let last = report.epochs.last().ok_or("no epoch")?;
    Ok(GoldenPoint {
        train_images: data.train.len(),
        test_images: data.test.len(),
        test_accuracy: last.test_accuracy.clone(),
        weights_sha256: report.weights_sha256.clone(),
        seconds: t.elapsed().as_secs_f64(),
    })
}

/// The platform at `cfg`'s lanes, emitted into `dir` and synthesized for `target`.
fn synth_step(
    ctx: &Ctx,
    cfg: &PlatformConfig,
    target: Target,
    dir: &Path,
) -> anyhow::Result<PartPoint> {
    let name = designs::configured_name(Kind::Platform, cfg);
    let design = designs::platform_design(&name, cfg)?;
    // The work directory is ours (`claim_work`): a run stopped halfway may leave tool files.
    fsynth::guard(dir, true)?;
    let summary = format!(
        "the LEL platform of {} at {} lanes",
        cfg.name, cfg.widths.lanes
    );
    edgelearn_sim::emit::emit(dir, &[(design.as_ref(), &summary)], ctx.args.force)
        .with_context(|| format!("cannot emit into {}", dir.display()))?;
    let job = Job {
        target,
        top: name.clone(),
        verilog: PathBuf::from(format!("{name}.v")),
        dir: dir.to_path_buf(),
        parts: Vec::new(),
        io_bits: design.ports().iter().map(|p| p.width as u64).sum(),
        freq_mhz: ctx.args.freq,
        seed: 1,
        cache: Some(ctx.sim.root().join("synth")),
    };
    let r = fsynth::run(&job)?;
    let text = serde_json::to_string_pretty(&r).expect("plain data");
    edgelearn_sim::files::write_atomic(&dir.join("report.json"), text)
        .with_context(|| format!("cannot write into {}", dir.display()))?;
    let checks: Vec<(String, f64, f64)> = r
        .fit
        .checks
        .iter()
        .map(|c| (c.metric.clone(), c.used, c.limit))
        .collect();
    let tightest = checks
        .iter()
        .max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)))
        .map(|c| format!("{} {:.0} %", c.0, 100.0 * c.1 / c.2));
    Ok(PartPoint {
        part: target.name().to_string(),
        fits: r.fit.fits,
        reasons: r.fit.reasons.clone(),
        checks,
        tightest,
        fmax_mhz: r
            .pnr
            .as_ref()
            .and_then(|p| p.fmax.as_ref())
            .map(|f| f.achieved_mhz),
        critical_path: r
            .pnr
            .as_ref()
            .and_then(|p| p.critical_path.as_ref())
            .map(|c| {
                format!(
                    "{} -> {}, {:.2} ns, {} logic levels",
                    c.start, c.end, c.delay_ns, c.logic_levels
                )
            }),
        seconds: r.synth_seconds + r.pnr.as_ref().map_or(0.0, |p| p.seconds),
    })
}

/// Cycles per image of the conv core, FC core 0 and FC core 1 from the cycle formulas,
/// when `cfg`'s shapes hold.
fn model_core_cycles(cfg: &PlatformConfig) -> Option<[u64; 3]> {
    let shapes = cfg.validate().ok()?;
    if cfg.fc.len() != 2 {
        return None;
    }
    let conv = conv_image_cycles(&designs::conv_shape(cfg).ok()?);
    let fc = |x: usize| {
        let shape = FcCoreShape {
            inputs: shapes.fc_inputs[x],
            outputs: cfg.fc[x].outputs,
            pieces: cfg.fc[x].pieces,
            registered_reads: cfg.rtl.registered_reads,
        };
        platform_fc_cycles(&shape, cfg.widths.lanes)
    };
    Some([conv, fc(0), fc(1)])
}

/// The point `at` from its steps' results.
fn point(ctx: &Ctx, base: &PlatformConfig, at: At, targets: &[Target], results: &Results) -> Point {
    let cfg = at.apply(base);
    let rtl: Result<RtlPoint, String> = from_value(results.get(&(at, "rtl")));
    let golden = from_value(results.get(&(at, "golden")));
    let parts: BTreeMap<String, Result<PartPoint, String>> = targets
        .iter()
        .map(|t| {
            (
                t.name().to_string(),
                from_value(results.get(&(at, t.name()))),
            )
        })
        .collect();
    let model_core_cycles = model_core_cycles(&cfg);
    let (cycles_per_image, cycles_source) = match (&rtl, model_core_cycles) {
        (Ok(r), _) => (Some(r.cycles_per_image), "rtl"),
        (Err(_), Some(m)) => (m.iter().max().map(|&c| c as f64), "model"),
        (Err(_), None) => (None, "none"),
    };
    // Images/s at the Fmax of the first ECP5 in `--part`; with an ECP5 in the sweep, at
    // its Fmax or not given: a point whose place-and-route did not finish must not be
    // compared at another clock.
    let ecp5 = targets.iter().copied().find(|t| t.is_ecp5());
    let fmax = ecp5
        .and_then(|t| parts.get(t.name()))
        .and_then(|r| r.as_ref().ok())
        .and_then(|p| p.fmax_mhz);
    let (clock_mhz, clock_source) = match (fmax, ecp5) {
        (Some(f), Some(t)) => (Some(f), format!("{} Fmax", t.short_name())),
        (None, Some(t)) => (None, format!("no {} Fmax", t.short_name())),
        (_, None) => (Some(ctx.args.freq), "--freq".to_string()),
    };
    Point {
        lanes: at.lanes,
        registered_reads: at.registered_reads,
        conv_parallel: at.conv_parallel,
        label: at.label(),
        design: designs::configured_name(Kind::Platform, &cfg),
        model_core_cycles,
        rtl,
        golden,
        parts,
        images_per_second: cycles_per_image.zip(clock_mhz).map(|(c, f)| f * 1e6 / c),
        cycles_per_image,
        cycles_source: cycles_source.to_string(),
        clock_mhz,
        clock_source,
    }
}

/// The fastest point that fits the XC7Z020, if any was synthesized for it.
fn fastest_fitting(points: &[Point]) -> Option<String> {
    points
        .iter()
        .filter(|p| p.part(Target::Xc7z020.name()).is_some_and(|x| x.fits))
        .filter_map(|p| p.images_per_second.map(|v| (p, v)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(p, _)| p.label.clone())
}

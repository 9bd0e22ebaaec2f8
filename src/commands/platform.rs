//! `edgelearn platform train`: the whole LEL platform in RTL, trained in the loop.

use super::train::output_path;
use super::{checkpoint, plot};
use crate::cli::{PlatformCommand, ReactiveBackend};
use anyhow::{bail, Context};
use edgelearn_hdl::lel::platform::PlatformShape;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::datasets::{mnist, ImageSet};
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::network::LelNetwork;
use edgelearn_verif::lel::train::{prepare_all, Mode, TrainReport};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform_session::{
    session, EpochLine, Observer, Outcome, PlatformState, Prepared, SessionOptions,
};
use edgelearn_verif::rtl::{conv_image_cycles, designs, platform_fc_cycles, RtlError};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Table 4.3 (cycles per training iteration) and the thesis's 5-image epoch (T:1358).
pub const THESIS_CYCLES: [u64; 3] = [28_471, 145_718, 30_038];
/// The thesis's epoch of five images.
pub const THESIS_EPOCH5: u64 = 757_162;

struct Args {
    config: PathBuf,
    lanes: Option<usize>,
    data: PathBuf,
    images: Option<usize>,
    test_images: Option<usize>,
    epochs: usize,
    seed: Option<u64>,
    backend: Backend,
    check_golden: bool,
    traffic: Traffic,
    vcd: Option<PathBuf>,
    vcd_window: Option<(u64, u64)>,
    vcd_depth: Option<usize>,
    report: Option<PathBuf>,
    plot: Option<PathBuf>,
    force: bool,
    quiet: bool,
    axi: bool,
    checkpoint: Option<PathBuf>,
    ungated: bool,
    stop_sweep: bool,
    eager_input: bool,
}

pub fn run(cmd: PlatformCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        PlatformCommand::Train {
            config,
            lanes,
            data,
            images,
            test_images,
            epochs,
            seed,
            backend,
            check_golden,
            input_gaps,
            backpressure,
            traffic_seed,
            vcd,
            vcd_window,
            vcd_depth,
            report,
            plot,
            force,
            quiet,
            axi,
            checkpoint,
            ungated,
            stop_sweep,
            eager_input,
        } => train(Args {
            checkpoint,
            config,
            lanes,
            data,
            images,
            test_images,
            epochs,
            seed,
            backend: match backend {
                ReactiveBackend::Verilator => Backend::Verilator,
                ReactiveBackend::Native => Backend::Native,
            },
            check_golden,
            traffic: Traffic {
                gaps: input_gaps.map_or(Gaps::None, Gaps::Anywhere),
                backpressure: backpressure
                    .map_or(Backpressure::None, |p| Backpressure::Random(1.0 - p)),
                seed: traffic_seed,
            },
            vcd,
            vcd_window,
            vcd_depth,
            report,
            plot,
            force,
            quiet,
            axi,
            ungated,
            stop_sweep,
            eager_input,
        }),
    }
}

/// `platform train` as `make demo` runs it: `images` training images of `config` (one
/// epoch), `test_images` test images, optionally checked against the golden model.
pub fn demo_run(
    config: &std::path::Path,
    data: &std::path::Path,
    images: usize,
    test_images: usize,
    check_golden: bool,
) -> anyhow::Result<ExitCode> {
    train(Args {
        config: config.to_path_buf(),
        lanes: None,
        data: data.to_path_buf(),
        images: Some(images),
        test_images: Some(test_images),
        epochs: 1,
        seed: None,
        backend: Backend::Verilator,
        check_golden,
        traffic: Traffic::default(),
        vcd: None,
        vcd_window: None,
        vcd_depth: None,
        report: None,
        plot: None,
        force: false,
        quiet: true,
        axi: false,
        checkpoint: None,
        ungated: false,
        stop_sweep: false,
        eager_input: false,
    })
}

fn first(set: &ImageSet, n: Option<usize>, what: &str) -> anyhow::Result<ImageSet> {
    match n {
        Some(k) if k > set.len() => bail!("--{what} {k}: the split has {} images", set.len()),
        Some(k) => Ok(set.truncated(k)),
        None => Ok(set.clone()),
    }
}

fn bar(quiet: bool) -> ProgressBar {
    let b = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    b.set_style(
        ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} images, {per_sec}, eta {eta}")
            .expect("template")
            .progress_chars("=> "),
    );
    b
}

/// The console side of a session: a progress bar, the epoch lines, the checkpoint file.
struct Console<'a> {
    bar: ProgressBar,
    check_golden: bool,
    save: &'a mut dyn FnMut(&PlatformState) -> anyhow::Result<()>,
    built: Option<f64>,
    quiet_build: bool,
}

impl Observer for Console<'_> {
    fn built(&mut self, seconds: f64) {
        self.built = Some(seconds);
        if !self.quiet_build {
            eprintln!("model ready in {seconds:.1} s");
        }
    }

    fn phase(&mut self, what: &str, len: usize) {
        self.bar.reset();
        self.bar.set_length(len as u64);
        self.bar.set_message(what.to_string());
    }

    fn progress(&mut self, done: usize) {
        self.bar.set_position(done as u64);
    }

    fn epoch(&mut self, e: &EpochLine) {
        let check_golden = self.check_golden;
        self.bar.suspend(|| {
            let pct = super::train::percents;
            eprintln!(
                "epoch {}: train {} | test {} (FC0 / FC1) | {:.0} cycles/image{} | {:.2} M cycles/s | {:.1} images/s",
                e.epoch,
                pct(e.train_accuracy),
                if e.test_accuracy.is_empty() { "-".to_string() } else { pct(e.test_accuracy) },
                e.cycles_per_image,
                if check_golden { " (one image per run)" } else { "" },
                e.cycles_per_second / 1e6,
                e.images_per_second,
            );
            if !e.gate_shares.is_empty() {
                // `core.gate_fc0` reads `fc0`, `core.fc0.fc.mm_group.gate` reads
                // `fc0.mm_group`: the block group behind the gate.
                let mut shares: Vec<(String, f64)> = e
                    .gate_shares
                    .iter()
                    .map(|(g, v)| {
                        let g = g.strip_prefix("core.").unwrap_or(g);
                        let name = g
                            .strip_suffix(".gate")
                            .unwrap_or(g)
                            .replace("gate_", "")
                            .replace(".fc.", ".");
                        (name, 100.0 * v.as_f64().unwrap_or(0.0))
                    })
                    .collect();
                shares.sort_by(|a, b| a.0.cmp(&b.0));
                let text: Vec<String> =
                    shares.iter().map(|(g, v)| format!("{g} {v:.0}%")).collect();
                eprintln!("  edges each gated block group was clocked: {}", text.join(", "));
            }
        });
    }

    fn note(&mut self, text: &str) {
        self.bar.suspend(|| eprintln!("{text}"));
    }

    fn save(&mut self, state: &PlatformState) -> Result<(), String> {
        (self.save)(state).map_err(|e| format!("{e:#}"))
    }
}

/// The arguments that need no file read: the epochs, the VCD window, and that no output
/// file the user did not ask to overwrite is in the way.
fn check_args(a: &Args) -> anyhow::Result<()> {
    if a.epochs == 0 {
        bail!("--epochs must be at least 1");
    }
    for p in a.report.iter().chain(a.plot.iter()).chain(a.vcd.iter()) {
        output_path(p, a.force)?;
    }
    if a.vcd_window.is_some() && a.vcd.is_none() {
        bail!("--vcd-window needs --vcd PATH");
    }
    Ok(())
}

fn train(a: Args) -> anyhow::Result<ExitCode> {
    check_args(&a)?;
    let Inputs {
        cfg,
        name,
        shape,
        train_len,
        test_len,
        prepared,
        key,
    } = inputs(&a)?;
    eprintln!(
        "{name}: {} on {}, {} training images x {} epoch(s), {} test images, seed {}{}",
        cfg.name,
        a.backend,
        train_len,
        a.epochs,
        test_len,
        cfg.seed,
        if a.check_golden {
            ", checked against the golden model after every image"
        } else {
            ""
        }
    );
    // The checkpoint: read when it exists, rewritten (atomically) after every epoch.
    let resume = resume(&a, &key)?;
    let mut save = |st: &PlatformState| -> anyhow::Result<()> {
        let p = a.checkpoint.as_ref().expect("saving needs a path");
        checkpoint::save(
            p,
            &PlatformState {
                key: key.clone(),
                ..st.clone()
            },
        )
    };
    let sim = Simulator::from_env();
    let opts = DutOptions {
        vcd: a.vcd.clone(),
        vcd_depth: a.vcd_depth,
        vcd_window: a.vcd.as_ref().map(|_| a.vcd_window.unwrap_or((0, 20_000))),
        ungated: a.ungated,
    };
    let options = SessionOptions {
        design: name.clone(),
        axi: a.axi,
        backend: a.backend,
        traffic: a.traffic,
        check_golden: a.check_golden,
        epochs: a.epochs,
        checkpoints: a.checkpoint.is_some(),
        stop_sweep: a.stop_sweep,
        eager_input: a.eager_input,
    };
    let t = Instant::now();
    let mut console = Console {
        bar: bar(a.quiet),
        check_golden: a.check_golden,
        save: &mut save,
        built: None,
        quiet_build: false,
    };
    let result = session(
        &prepared,
        &options,
        &sim,
        &opts,
        resume.as_ref(),
        &mut console,
    );
    console.bar.finish_and_clear();
    let build_seconds = console.built.unwrap_or(0.0);
    let report = json!({
        "command": "platform train",
        "config": cfg.name,
        "design": name,
        "backend": a.backend.to_string(),
        "seed": cfg.seed,
        "train_images": train_len,
        "test_images": test_len,
        "epochs": a.epochs,
        "check_golden": a.check_golden,
        "build_seconds": build_seconds,
        "fifo_depths": shape.fifo_depths(),
    });
    let out = match result {
        Ok(o) => o,
        Err((e, cycle)) => {
            // The same session again (with the checkpoints' weight reads, which take cycles,
            // so the failure is at the same cycle; the silent console keeps no checkpoint).
            return failed(&a, report, e, cycle, &opts, |opts, quiet| {
                let _ = session(&prepared, &options, &sim, opts, resume.as_ref(), quiet);
            });
        }
    };
    let run = Finished {
        shape: &shape,
        cfg: &cfg,
        train_len,
        test_len,
        wall: t.elapsed().as_secs_f64(),
    };
    finish(&a, &run, &out, report)
}

/// What a finished session is reported with.
struct Finished<'a> {
    shape: &'a PlatformShape,
    cfg: &'a PlatformConfig,
    train_len: usize,
    test_len: usize,
    /// Wall seconds of the session, the build included.
    wall: f64,
}

/// Print a finished session's summary, write its report and plot; exit 1 when the RTL's
/// weights differ from the golden model's.
fn finish(a: &Args, run: &Finished, out: &Outcome, mut report: Value) -> anyhow::Result<ExitCode> {
    cycle_report(run.shape, out, a.check_golden, &mut report);
    stops_and_registers(out, &mut report);
    let sps = out.sim_cycles as f64 / run.wall.max(1e-9);
    println!(
        "{} simulated cycles in {:.1} s ({:.2} M cycles/s incl. the build)",
        out.sim_cycles,
        run.wall,
        sps / 1e6
    );
    let equal = out.weights_sha256 == out.golden_sha256;
    if a.check_golden {
        println!(
            "bit-exact: every LC output and class of both FC cores, and every weight after every image"
        );
    } else {
        println!(
            "weights: RTL {} / golden model {} ({})",
            &out.weights_sha256[..16],
            &out.golden_sha256[..16],
            if equal { "equal" } else { "DIFFERENT" }
        );
    }
    println!("weights_sha256 {}", out.weights_sha256);
    report["epoch_reports"] = json!(out.epochs);
    report["simulated_cycles"] = json!(out.sim_cycles);
    report["wall_seconds"] = json!(run.wall);
    report["weights_sha256"] = json!(out.weights_sha256);
    report["golden_weights_sha256"] = json!(out.golden_sha256);
    report["bit_exact"] = json!(equal);
    write_report(a, &report)?;
    if let Some(p) = &a.plot {
        let tr = TrainReport {
            config: run.cfg.clone(),
            mode: Mode::BitExact,
            train_images: run.train_len,
            test_images: run.test_len,
            epochs: out.reports.clone(),
            weights_sha256: out.weights_sha256.clone(),
        };
        plot::accuracy_png(p, &tr).with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    if let Some(v) = &a.vcd {
        eprintln!("wrote {}", v.display());
    }
    if !equal {
        eprintln!("the RTL's weights differ from the golden model's (run with --check-golden to find where)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// What a platform run is given, read and checked: the configuration (with `--seed`), the
/// design's name, its shape, the images prepared for the conv core, the checkpoint's key.
struct Inputs {
    cfg: PlatformConfig,
    name: String,
    shape: PlatformShape,
    train_len: usize,
    test_len: usize,
    prepared: Prepared,
    key: String,
}

fn inputs(a: &Args) -> anyhow::Result<Inputs> {
    let cfg = super::load_config(&a.config, a.seed, a.lanes)?;
    let kind = if a.axi {
        designs::Kind::PlatformAxi
    } else {
        designs::Kind::Platform
    };
    let name = designs::configured_name(kind, &cfg);
    let shape = designs::platform_shape(&cfg)?;
    let data = mnist::load(&a.data).context("cannot load MNIST")?;
    let train_set = first(&data.train, a.images, "images")?;
    let test_set = first(&data.test, a.test_images, "test-images")?;
    if train_set.is_empty() {
        bail!("no training images");
    }
    for (what, set) in [("training", &train_set), ("test", &test_set)] {
        if let Some(&l) = set
            .labels
            .iter()
            .find(|&&l| l as usize >= cfg.widths.classes)
        {
            bail!(
                "widths.classes: the {what} set has label {l}, the platform has {} classes",
                cfg.widths.classes
            );
        }
    }
    let net = LelNetwork::new(&cfg)?;
    let prepared = Prepared {
        train_x: prepare_all(&cfg, &train_set)?,
        train_y: train_set.labels.iter().map(|&l| l as u32).collect(),
        test_x: prepare_all(&cfg, &test_set)?,
        test_y: test_set.labels.iter().map(|&l| l as u32).collect(),
        net,
        cfg: cfg.clone(),
    };
    let key = format!(
        "{name}:{}",
        edgelearn_verif::lel::train::TrainState::key(&cfg, &train_set, &test_set)
    );
    Ok(Inputs {
        cfg,
        name,
        shape,
        train_len: train_set.len(),
        test_len: test_set.len(),
        prepared,
        key,
    })
}

/// The checkpoint to resume from, if `--checkpoint` names one of this run.
fn resume(a: &Args, key: &str) -> anyhow::Result<Option<PlatformState>> {
    let resume: Option<PlatformState> = match &a.checkpoint {
        Some(p) => checkpoint::load(p, "platform")?,
        None => None,
    };
    if let (Some(p), Some(st)) = (&a.checkpoint, &resume) {
        if st.format != PlatformState::FORMAT || st.key != key {
            bail!(
                "the checkpoint {} belongs to another run (design, configuration, seed or images differ); remove it or give another path",
                p.display()
            );
        }
        if st.weights.len() != 2 || st.wu_position.len() != 2 {
            bail!("the checkpoint {} does not hold two FC cores", p.display());
        }
        if st.epochs_done > a.epochs {
            bail!(
                "the checkpoint {} is past epoch {}; --epochs {} asks for fewer",
                p.display(),
                st.epochs_done,
                a.epochs
            );
        }
        eprintln!(
            "resuming from {}: {} epoch(s) done; the platform is re-INITed with their weights",
            p.display(),
            st.epochs_done
        );
    }
    Ok(resume)
}

/// A run that failed verification: the report names the failure (and the divergence);
/// with `--vcd` and no `--vcd-window` the run is repeated to the same point (`rerun`, with
/// the options given and a silent console), recording the cycles around it.
fn failed(
    a: &Args,
    mut report: Value,
    e: RtlError,
    cycle: u64,
    opts: &DutOptions,
    rerun: impl FnOnce(&DutOptions, &mut Console),
) -> anyhow::Result<ExitCode> {
    if !e.is_failure() {
        return Err(anyhow::Error::new(e));
    }
    eprintln!("{e}");
    report["failure"] = json!(e.to_string());
    if let RtlError::Divergence(d) = &e {
        report["divergence"] = json!({
            "block": d.block, "image": d.image, "state": d.state, "what": d.what,
            "index": d.index, "expected": d.expected, "got": d.got, "cycle": cycle,
        });
    }
    if let (Some(path), None) = (&a.vcd, a.vcd_window) {
        let w = (cycle.saturating_sub(2_000), cycle + 200);
        let opts = DutOptions {
            vcd_window: Some(w),
            ..opts.clone()
        };
        let mut nothing = |_: &PlatformState| Ok(());
        let mut quiet = Console {
            bar: bar(true),
            check_golden: a.check_golden,
            save: &mut nothing,
            built: None,
            quiet_build: true,
        };
        rerun(&opts, &mut quiet);
        eprintln!(
            "wrote {} (cycles {}..{}, around cycle {cycle})",
            path.display(),
            w.0,
            w.1
        );
        report["vcd_window"] = json!([w.0, w.1]);
    }
    write_report(a, &report)?;
    Ok(ExitCode::from(1))
}

/// The cores' cycles per image: the RTL's counters against the shape's tables and the
/// thesis's Table 4.3, printed and put in the report.
fn cycle_report(shape: &PlatformShape, out: &Outcome, check_golden: bool, report: &mut Value) {
    let c = &shape.conv;
    let conv_formula = conv_image_cycles(c);
    let fc_formula =
        |s: &edgelearn_hdl::lel::fc_core::FcCoreShape| platform_fc_cycles(s, shape.lanes);
    let formula = [conv_formula, fc_formula(&shape.fc0), fc_formula(&shape.fc1)];
    let thesis_shaped = c.in_channels == 3 && c.height == 32 && shape.fc0.inputs == 2400;
    if let Some(run) = &out.first_run {
        println!(
            "{:<6} {:>14} {:>10} {:>20}",
            "core", "cycles/image", "formula", "thesis (Table 4.3)"
        );
        for (k, core) in ["conv", "FC0", "FC1"].iter().enumerate() {
            println!(
                "{core:<6} {:>14} {:>10} {:>20}",
                run.core_cycles[k],
                formula[k],
                if thesis_shaped {
                    THESIS_CYCLES[k].to_string()
                } else {
                    "-".into()
                }
            );
        }
        if !check_golden {
            println!(
                "epoch of {} images: {} cycles (RUN_CYCLES){}",
                run.images,
                run.cycles,
                if thesis_shaped {
                    format!("; thesis: {THESIS_EPOCH5} cycles for 5 images")
                } else {
                    String::new()
                }
            );
        }
        report["core_cycles"] = json!({
            "measured": run.core_cycles, "formula": formula,
            "thesis_table_4_3": THESIS_CYCLES, "thesis_shaped": thesis_shaped,
        });
        report["first_epoch_run_cycles"] = json!(run.cycles);
        report["thesis_epoch5_cycles"] = json!(THESIS_EPOCH5);
    }
}

/// The stop sweep's stops (printed and reported) and the register dump (reported).
fn stops_and_registers(out: &Outcome, report: &mut Value) {
    if !out.stops.is_empty() {
        let at: Vec<String> = out
            .stops
            .iter()
            .map(|s| format!("{} {} (cycle {})", s.core, s.state, s.cycle))
            .collect();
        println!(
            "I_STOP in {} states, every core idle and every FIFO empty after each: {}",
            out.stops.len(),
            at.join(", ")
        );
        report["stops"] = json!(out.stops);
    }
    report["input_stalls"] = json!(out.input_stalls);
    if out.input_stalls > 0 {
        println!(
            "input stream: {} cycles held back by the platform (its input FIFO full)",
            out.input_stalls
        );
    }
    report["registers"] = out
        .registers
        .iter()
        .map(|(n, v)| (n.clone(), json!(v)))
        .collect::<serde_json::Map<String, Value>>()
        .into();
}

fn write_report(a: &Args, report: &Value) -> anyhow::Result<()> {
    if let Some(p) = &a.report {
        let text = serde_json::to_string_pretty(report).expect("report serializes");
        std::fs::write(p, text + "\n").with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

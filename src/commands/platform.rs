//! `edgelearn platform train`: the whole LEL platform in RTL, trained in the loop.

use super::train::output_path;
use super::{checkpoint, plot};
use crate::cli::{PlatformCommand, ReactiveBackend};
use anyhow::{bail, Context};
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::datasets::{mnist, ImageSet};
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::network::{lfsr_seeds, LelNetwork};
use edgelearn_verif::lel::train::{prepare_all, EpochReport, Mode, TrainOrder, TrainReport};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::{
    configure, test_run, train_epoch, PlatformBench, PlatformCheck, RunStats,
};
use edgelearn_verif::rtl::{conv_cycle_table, designs, fc_cycle_table, RtlError};
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
}

/// What `--checkpoint` saves after an epoch: the golden network's state (equal to the
/// RTL's, read back) and what the report has gathered so far.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
struct PlatformState {
    /// [`PlatformState::FORMAT`].
    format: u32,
    /// The run: configuration, images, design.
    key: String,
    /// Epochs finished.
    epochs_done: usize,
    /// Per FC core: weights `[k][j][i]` and weight-update random numbers consumed.
    weights: Vec<Vec<i32>>,
    wu_position: Vec<u64>,
    /// The report so far.
    epochs: Vec<Value>,
    reports: Vec<EpochReport>,
    first_run: Option<RunStats>,
    sim_cycles: u64,
}

impl PlatformState {
    const FORMAT: u32 = 1;
}

pub fn run(cmd: PlatformCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        PlatformCommand::Train {
            config,
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
        } => train(Args {
            checkpoint,
            config,
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
    })
}

/// The emitted name of `cfg`'s platform: `lel_platform` for the thesis network,
/// `lel_platform_<name>` otherwise.
pub fn design_name(cfg: &PlatformConfig) -> String {
    if cfg.name == "thesis-cifar10" {
        return "lel_platform".into();
    }
    let tail: String = cfg
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("lel_platform_{tail}")
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

/// What a session measured.
#[derive(Default)]
struct Outcome {
    epochs: Vec<Value>,
    reports: Vec<EpochReport>,
    first_run: Option<RunStats>,
    weights_sha256: String,
    golden_sha256: String,
    sim_cycles: u64,
}

/// Everything the platform run needs, prepared once (a re-run for a VCD reuses it).
struct Prepared {
    cfg: PlatformConfig,
    net: LelNetwork,
    train_x: Vec<Vec<i32>>,
    train_y: Vec<u32>,
    test_x: Vec<Vec<i32>>,
    test_y: Vec<u32>,
}

/// One session on a fresh model: reset, INIT, the epochs. An error comes with the cycle it
/// happened at.
#[allow(clippy::too_many_arguments)]
fn session(
    a: &Args,
    p: &Prepared,
    sim: &Simulator,
    opts: &DutOptions,
    name: &str,
    quiet: bool,
    resume: Option<&PlatformState>,
    save: &mut dyn FnMut(&PlatformState) -> anyhow::Result<()>,
    built: &mut dyn FnMut(f64),
) -> Result<Outcome, (RtlError, u64)> {
    let cfg = &p.cfg;
    let mut net = p.net.clone();
    let mut out = Outcome::default();
    let mut seeds = lfsr_seeds(cfg);
    let mut start = 1;
    let mut cycles_before = 0;
    if let Some(st) = resume {
        for (x, core) in net.cores.iter_mut().enumerate() {
            core.restore(st.weights[x].clone(), st.wu_position[x])
                .map_err(|e| {
                    (
                        RtlError::Other(format!("the checkpoint's FC core {x}: {e}")),
                        0,
                    )
                })?;
            // The hardware's weight-update LFSR continues from the state the golden stream
            // is at (the LC LFSRs are re-seeded every image anyway).
            seeds[x].1 = core.wu_state();
        }
        out.epochs = st.epochs.clone();
        out.reports = st.reports.clone();
        out.first_run = st.first_run.clone();
        cycles_before = st.sim_cycles;
        start = st.epochs_done + 1;
    }
    let design = if a.axi {
        designs::platform_axi_design(name, cfg)
    } else {
        designs::platform_design(name, cfg)
    }
    .map_err(|e| (e, 0))?;
    let shape = designs::platform_shape(cfg).map_err(|e| (e, 0))?;
    let t = Instant::now();
    let dut = sim
        .dut(a.backend, design, opts)
        .map_err(|e| (RtlError::Sim(e), 0))?;
    built(t.elapsed().as_secs_f64());
    let fc = [net.cores[0].p.clone(), net.cores[1].p.clone()];
    let mut bench = PlatformBench::new(dut, shape, fc, &a.traffic).map_err(|e| (e, 0))?;
    let r = (|| -> Result<(), RtlError> {
        bench.reset()?;
        configure(&mut bench, &net, 1)?;
        bench.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])?;
        let mut orders = TrainOrder::new(cfg, p.train_x.len());
        for _ in 1..start {
            orders.next_epoch();
        }
        let check = PlatformCheck {
            outputs: a.check_golden,
            weights_every: a.check_golden.then_some(1),
        };
        let b = bar(quiet);
        for epoch in start..=a.epochs {
            let order = orders.next_epoch().to_vec();
            b.reset();
            b.set_length(order.len() as u64);
            b.set_message(format!("epoch {epoch} train"));
            let (c0, t0) = (bench.dut().cycle(), Instant::now());
            let ticks0 = bench.dut().sim_gate_ticks();
            let er = train_epoch(
                &mut bench,
                &mut net,
                &p.train_x,
                &p.train_y,
                &order,
                epoch,
                check,
                &mut |d| b.set_position(d as u64),
            )?;
            let secs = t0.elapsed().as_secs_f64().max(1e-9);
            let sim_cycles = bench.dut().cycle() - c0;
            // The share of the training edges at which each simulation gate clocked its core.
            let gates: serde_json::Map<String, serde_json::Value> = bench
                .dut()
                .sim_gate_ticks()
                .iter()
                .zip(&ticks0)
                .map(|((g, t1), (_, t0))| {
                    (
                        g.clone(),
                        json!((t1 - t0) as f64 / sim_cycles.max(1) as f64),
                    )
                })
                .collect();
            if out.first_run.is_none() {
                out.first_run = er.runs.first().cloned();
            }
            b.reset();
            b.set_length(p.test_x.len() as u64);
            b.set_message(format!("epoch {epoch} test"));
            let test = if p.test_x.is_empty() {
                None
            } else {
                Some(test_run(
                    &mut bench,
                    &net,
                    &p.test_x,
                    &p.test_y,
                    PlatformCheck {
                        outputs: a.check_golden,
                        weights_every: None,
                    },
                    &mut |d| b.set_position(d as u64),
                )?)
            };
            let n = er.images.max(1) as f64;
            let run_cycles: u64 = er.runs.iter().map(|r| r.cycles).sum();
            let train_acc: Vec<f64> = er.correct.iter().map(|&c| c as f64 / n).collect();
            let test_acc: Vec<f64> = match &test {
                Some(t) => t
                    .correct
                    .iter()
                    .map(|&c| c as f64 / t.images.max(1) as f64)
                    .collect(),
                None => vec![],
            };
            let lr: Vec<u32> = (0..2).map(|x| net.lr_shift(x, epoch)).collect();
            b.suspend(|| {
                let pct = |v: &[f64]| {
                    v.iter()
                        .map(|x| format!("{:.2}%", 100.0 * x))
                        .collect::<Vec<_>>()
                        .join(" / ")
                };
                eprintln!(
                    "epoch {epoch}: train {} | test {} (FC0 / FC1) | {:.0} cycles/image{} | {:.2} M cycles/s | {:.1} images/s",
                    pct(&train_acc),
                    if test_acc.is_empty() { "-".to_string() } else { pct(&test_acc) },
                    run_cycles as f64 / n,
                    if a.check_golden { " (one image per run)" } else { "" },
                    sim_cycles as f64 / secs / 1e6,
                    er.images as f64 / secs,
                );
                if !gates.is_empty() {
                    // `core.fc0.gate_mm` reads `fc0.mm`: the block group behind the gate.
                    let mut shares: Vec<(String, f64)> = gates
                        .iter()
                        .map(|(g, v)| {
                            let name = g.strip_prefix("core.").unwrap_or(g).replace("gate_", "");
                            (name, 100.0 * v.as_f64().unwrap_or(0.0))
                        })
                        .collect();
                    shares.sort_by(|a, b| a.0.cmp(&b.0));
                    let text: Vec<String> =
                        shares.iter().map(|(g, v)| format!("{g} {v:.0}%")).collect();
                    eprintln!("  edges each gated block group was clocked: {}", text.join(", "));
                }
            });
            out.reports.push(EpochReport {
                epoch,
                train_accuracy: train_acc.clone(),
                test_accuracy: test_acc.clone(),
                images_per_second: er.images as f64 / secs,
                lr_shift: lr.clone(),
            });
            out.epochs.push(json!({
                "epoch": epoch,
                "images": er.images,
                "train_accuracy": train_acc,
                "test_accuracy": test_acc,
                "lr_shift": lr,
                "run_cycles": run_cycles,
                "runs": er.runs.len(),
                "cycles_per_image": run_cycles as f64 / n,
                "core_cycles_last_image": er.runs.last().map(|r| r.core_cycles),
                "simulated_cycles": sim_cycles,
                "wall_seconds": secs,
                "simulated_cycles_per_second": sim_cycles as f64 / secs,
                "images_per_second": er.images as f64 / secs,
                "test_cycles": test.as_ref().map(|t| t.cycles),
                "sim_gate_share": gates,
            }));
            if a.checkpoint.is_some() {
                // Saved only when the RTL holds the golden model's weights, so a resumed run
                // cannot hide a divergence behind a re-INIT.
                let got = bench.read_weights()?;
                if got[0] == net.cores[0].w && got[1] == net.cores[1].w {
                    let st = PlatformState {
                        format: PlatformState::FORMAT,
                        key: String::new(),
                        epochs_done: epoch,
                        weights: net.cores.iter().map(|c| c.w.clone()).collect(),
                        wu_position: net.cores.iter().map(|c| c.wu_position()).collect(),
                        epochs: out.epochs.clone(),
                        reports: out.reports.clone(),
                        first_run: out.first_run.clone(),
                        sim_cycles: cycles_before + bench.dut().cycle(),
                    };
                    save(&st).map_err(|e| RtlError::Other(format!("{e:#}")))?;
                } else {
                    b.suspend(|| {
                        eprintln!("epoch {epoch}: the RTL's weights differ from the golden model's; no checkpoint written")
                    });
                }
            }
        }
        b.finish_and_clear();
        let got = bench.read_weights()?;
        let mut rtl = net.clone();
        rtl.cores[0].w = got[0].clone();
        rtl.cores[1].w = got[1].clone();
        out.weights_sha256 = rtl.weights_sha256();
        out.golden_sha256 = net.weights_sha256();
        Ok(())
    })();
    out.sim_cycles = cycles_before + bench.dut().cycle();
    let _ = bench.dut().finish();
    match r {
        Ok(()) => Ok(out),
        Err(e) => {
            let c = bench.dut().cycle();
            Err((e, c))
        }
    }
}

fn train(a: Args) -> anyhow::Result<ExitCode> {
    if a.epochs == 0 {
        bail!("--epochs must be at least 1");
    }
    for p in a.report.iter().chain(a.plot.iter()).chain(a.vcd.iter()) {
        output_path(p, a.force)?;
    }
    if a.vcd_window.is_some() && a.vcd.is_none() {
        bail!("--vcd-window needs --vcd PATH");
    }
    let text = std::fs::read_to_string(&a.config)
        .with_context(|| format!("cannot read {}", a.config.display()))?;
    let mut cfg = PlatformConfig::from_toml(&text)
        .with_context(|| format!("invalid configuration {}", a.config.display()))?;
    if let Some(s) = a.seed {
        cfg.seed = s;
    }
    let name = if a.axi {
        design_name(&cfg).replacen("lel_platform", "lel_platform_axi", 1)
    } else {
        design_name(&cfg)
    };
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
    eprintln!(
        "{name}: {} on {}, {} training images x {} epoch(s), {} test images, seed {}{}",
        cfg.name,
        a.backend,
        train_set.len(),
        a.epochs,
        test_set.len(),
        cfg.seed,
        if a.check_golden {
            ", checked against the golden model after every image"
        } else {
            ""
        }
    );
    // The checkpoint: read when it exists, rewritten (atomically) after every epoch.
    let key = format!(
        "{name}:{}",
        edgelearn_verif::lel::train::TrainState::key(&cfg, &train_set, &test_set)
    );
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
    let mut build_seconds = 0.0;
    let t = Instant::now();
    let result = session(
        &a,
        &prepared,
        &sim,
        &opts,
        &name,
        a.quiet,
        resume.as_ref(),
        &mut save,
        &mut |s| {
            build_seconds = s;
            eprintln!("model ready in {s:.1} s");
        },
    );
    let wall = t.elapsed().as_secs_f64();
    let mut report = json!({
        "command": "platform train",
        "config": cfg.name,
        "design": name,
        "backend": a.backend.to_string(),
        "seed": cfg.seed,
        "train_images": train_set.len(),
        "test_images": test_set.len(),
        "epochs": a.epochs,
        "check_golden": a.check_golden,
        "build_seconds": build_seconds,
        "fifo_depths": shape.fifo_depths(),
    });
    let out = match result {
        Ok(o) => o,
        Err((e, cycle)) => {
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
                // Run again to the same point, recording the cycles around it.
                let w = (cycle.saturating_sub(2_000), cycle + 200);
                let opts = DutOptions {
                    vcd_window: Some(w),
                    ..opts.clone()
                };
                let _ = session(
                    &a,
                    &prepared,
                    &sim,
                    &opts,
                    &name,
                    true,
                    resume.as_ref(),
                    &mut |_| Ok(()),
                    &mut |_| {},
                );
                eprintln!(
                    "wrote {} (cycles {}..{}, around cycle {cycle})",
                    path.display(),
                    w.0,
                    w.1
                );
                report["vcd_window"] = json!([w.0, w.1]);
            }
            write_report(&a, &report)?;
            return Ok(ExitCode::from(1));
        }
    };
    // Cycles: the RTL's counters against the shape's tables and the thesis's Table 4.3.
    let c = &shape.conv;
    let ct = conv_cycle_table(c.in_channels, c.height, c.width);
    let conv_formula = ct[0].1 + c.out_channels as u64 * (ct[1].1 + ct[2].1) + ct[3].1;
    let fc_formula = |s: &edgelearn_hdl::lel::fc_core::FcCoreShape| {
        fc_cycle_table(s.inputs, s.outputs, s.pieces, 4)[1..]
            .iter()
            .map(|e| e.1)
            .sum::<u64>()
    };
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
        if !a.check_golden {
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
    let sps = out.sim_cycles as f64 / wall.max(1e-9);
    println!(
        "{} simulated cycles in {:.1} s ({:.2} M cycles/s incl. the build)",
        out.sim_cycles,
        wall,
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
    report["wall_seconds"] = json!(wall);
    report["weights_sha256"] = json!(out.weights_sha256);
    report["golden_weights_sha256"] = json!(out.golden_sha256);
    report["bit_exact"] = json!(equal);
    write_report(&a, &report)?;
    if let Some(p) = &a.plot {
        let tr = TrainReport {
            config: cfg.clone(),
            mode: Mode::BitExact,
            train_images: train_set.len(),
            test_images: test_set.len(),
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

fn write_report(a: &Args, report: &Value) -> anyhow::Result<()> {
    if let Some(p) = &a.report {
        let text = serde_json::to_string_pretty(report).expect("report serializes");
        std::fs::write(p, text + "\n").with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

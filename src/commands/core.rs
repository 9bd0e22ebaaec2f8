//! `edgelearn core run`: one LEL core in RTL, alone, on the first N training images.

use super::train::output_path;
use crate::cli::{CoreCommand, CoreName, ReactiveBackend};
use anyhow::{bail, Context};
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::datasets::mnist;
use edgelearn_verif::formats::npy::encode_npy_i8;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::rtl::conv::{run_conv_core, ConvBench};
use edgelearn_verif::rtl::designs::{self, Kind};
use edgelearn_verif::rtl::fc::{run_fc_core, FcBench, FcCheck, Traffic};
use edgelearn_verif::rtl::{conv_cycle_table, fc_cycle_table, inputs, RtlError};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

pub fn run(cmd: CoreCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        CoreCommand::Run {
            core,
            config,
            lanes,
            data,
            images,
            backend,
            check_golden,
            infer,
            input_gaps,
            backpressure,
            traffic_seed,
            vcd,
            vcd_depth,
            report,
            dump_weights,
            force,
            quiet,
            ungated,
        } => run_core(Args {
            core,
            config,
            lanes,
            data,
            images,
            backend: match backend {
                ReactiveBackend::Verilator => Backend::Verilator,
                ReactiveBackend::Native => Backend::Native,
            },
            check_golden,
            infer,
            traffic: Traffic {
                gaps: input_gaps.map_or(Gaps::None, Gaps::Anywhere),
                backpressure: backpressure
                    .map_or(Backpressure::None, |p| Backpressure::Random(1.0 - p)),
                seed: traffic_seed,
            },
            vcd,
            vcd_depth,
            report,
            dump_weights,
            force,
            quiet,
            ungated,
        }),
    }
}

struct Args {
    core: CoreName,
    config: PathBuf,
    lanes: Option<usize>,
    data: PathBuf,
    images: usize,
    backend: Backend,
    check_golden: bool,
    infer: bool,
    traffic: Traffic,
    vcd: Option<PathBuf>,
    vcd_depth: Option<usize>,
    report: Option<PathBuf>,
    dump_weights: Option<PathBuf>,
    force: bool,
    quiet: bool,
    ungated: bool,
}

fn bar(quiet: bool, n: usize) -> ProgressBar {
    let b = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(n as u64)
    };
    b.set_style(
        ProgressStyle::with_template("[{bar:40}] {pos}/{len} images, {per_sec}, eta {eta}")
            .expect("template")
            .progress_chars("=> "),
    );
    b
}

fn sha256_i32(w: &[i32]) -> String {
    let bytes: Vec<u8> = w.iter().map(|&v| v as i8 as u8).collect();
    hex::encode(Sha256::digest(&bytes))
}

fn write_npy(
    dir: &Path,
    name: &str,
    shape: &[usize],
    w: &[i32],
    force: bool,
) -> anyhow::Result<()> {
    let p = dir.join(name);
    output_path(&p, force)?;
    let data: Vec<i8> = w.iter().map(|&v| v as i8).collect();
    std::fs::write(&p, encode_npy_i8(shape, &data))
        .with_context(|| format!("cannot write {}", p.display()))?;
    eprintln!("wrote {}", p.display());
    Ok(())
}

/// Print the state table: measured on the first image against the shape's table.
fn print_table(expected: &[(&str, u64)], measured: &dyn Fn(&str) -> Option<u64>) {
    println!("{:<10} {:>10} {:>10}", "state", "measured", "table");
    for (state, want) in expected {
        let got = measured(state).map_or("-".to_string(), |v| v.to_string());
        println!("{state:<10} {got:>10} {want:>10}");
    }
}

/// An RTL failure: a verification failure is exit 1 (after the report), anything else an
/// error (exit 2).
fn outcome(e: RtlError, report: &mut Value) -> anyhow::Result<ExitCode> {
    if e.is_failure() {
        eprintln!("{e}");
        report["failure"] = json!(e.to_string());
        if let RtlError::Divergence(d) = &e {
            report["divergence"] = json!({
                "block": d.block, "image": d.image, "state": d.state, "what": d.what,
                "index": d.index, "expected": d.expected, "got": d.got,
            });
        }
        Ok(ExitCode::from(1))
    } else {
        Err(anyhow::Error::new(e))
    }
}

fn run_core(a: Args) -> anyhow::Result<ExitCode> {
    if a.images == 0 {
        bail!("--images must be at least 1");
    }
    for p in a.report.iter().chain(a.vcd.iter()) {
        output_path(p, a.force)?;
    }
    let cfg = super::load_config(&a.config, None, a.lanes)?;
    let data = mnist::load(&a.data).context("cannot load MNIST")?;
    let sim = Simulator::from_env();
    let opts = DutOptions {
        vcd: a.vcd.clone(),
        vcd_depth: a.vcd_depth,
        vcd_window: None,
        ungated: a.ungated,
    };
    let mut report = json!({
        "command": "core run",
        "config": cfg.name,
        "backend": a.backend.name(),
        "images": a.images,
        "mode": if a.infer { "I_INF" } else { "I_TRAIN" },
        "check_golden": a.check_golden,
    });
    let code = match a.core {
        CoreName::Fc(x) => run_fc(&a, &cfg, &data, x, &sim, &opts, &mut report)?,
        CoreName::Conv => run_conv(&a, &cfg, &data, &sim, &opts, &mut report)?,
    };
    if let Some(p) = &a.report {
        let text = serde_json::to_string_pretty(&report).expect("report serializes");
        std::fs::write(p, text + "\n").with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(code)
}

fn run_fc(
    a: &Args,
    cfg: &PlatformConfig,
    data: &mnist::Mnist,
    x: usize,
    sim: &Simulator,
    opts: &DutOptions,
    report: &mut Value,
) -> anyhow::Result<ExitCode> {
    let name = designs::configured_name(Kind::FcCore(x), cfg);
    let design = designs::fc_design(&name, cfg, x)?;
    let feed = inputs::fc_feed(cfg, &data.train, a.images, x)?;
    let p = feed.core.p.clone();
    eprintln!(
        "{name}: {} FC core {x} (N {}, O {}, {} pieces) on {}, {} images, {}",
        cfg.name,
        p.inputs,
        p.outputs,
        p.pieces,
        a.backend,
        a.images,
        if a.infer { "I_INF" } else { "I_TRAIN" }
    );
    report["core"] = json!(format!("fc{x}"));
    report["design"] = json!(name);
    report["shape"] =
        json!({"inputs": p.inputs, "outputs": p.outputs, "pieces": p.pieces, "lanes": p.lanes});
    let t = Instant::now();
    let dut = sim.dut(a.backend, design, opts)?;
    let build_seconds = t.elapsed().as_secs_f64();
    let mut bench = FcBench::new(dut, p.clone(), &a.traffic)?;
    let mut golden = feed.core.clone();
    let before = golden.w.clone();
    let t = Instant::now();
    let result = (|| -> Result<_, RtlError> {
        bench.reset()?;
        let init = bench.init(&golden.w, feed.seed_lc, feed.seed_wu)?;
        let check = FcCheck {
            outputs: a.check_golden,
            weights_after: if a.check_golden {
                (1..=a.images).collect()
            } else {
                vec![]
            },
            train: !a.infer,
        };
        let b = bar(a.quiet, a.images);
        let reports = run_fc_core(
            &mut bench,
            &mut golden,
            &feed.samples,
            feed.cfg,
            &check,
            &mut |_| b.inc(1),
        );
        b.finish_and_clear();
        let reports = reports?;
        let (after, read) = bench.read_weights()?;
        Ok((init, reports, after, read))
    })();
    let seconds = t.elapsed().as_secs_f64();
    let cycles = bench.dut().cycle();
    record_timing(report, build_seconds, cycles, seconds);
    report["weights_sha256_before"] = json!(sha256_i32(&before));
    let (init, reports, after, read) = match result {
        Ok(r) => r,
        Err(e) => return outcome(e, report),
    };
    let shape = [p.pieces, p.outputs / p.pieces, p.inputs / p.pieces];
    if let Some(dir) = &a.dump_weights {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_npy(
            dir,
            &format!("fc{x}_weights_before.npy"),
            &shape,
            &before,
            a.force,
        )?;
        write_npy(
            dir,
            &format!("fc{x}_weights_after.npy"),
            &shape,
            &after,
            a.force,
        )?;
    }
    let expected = fc_cycle_table(&designs::fc_shape(cfg, x)?, p.lanes);
    let first = &reports[0];
    let measured = |s: &str| match s {
        "LS_INIT" => Some(init.get("LS_INIT")),
        _ => first.cycles.get(s).copied(),
    };
    print_table(&expected, &measured);
    let image_cycles: Vec<u64> = reports.iter().map(|r| r.total_cycles).collect();
    let per_image = print_rate("LS_LOAD .. LS_FIN", &image_cycles, cycles, seconds);
    if a.check_golden {
        println!(
            "bit-exact: every mm_data_out, lc_data_out, class_num and weight of {} images",
            reports.len()
        );
    } else {
        let golden_sha = sha256_i32(&golden.w);
        println!(
            "weights after: RTL {} / golden model {} ({})",
            &sha256_i32(&after)[..16],
            &golden_sha[..16],
            if golden.w == after {
                "equal"
            } else {
                "DIFFERENT"
            }
        );
    }
    println!("weights_sha256 {}", sha256_i32(&after));
    report["init_cycles"] = json!(init.get("LS_INIT"));
    report["read_cycles"] = json!(read.get("LS_READ"));
    report["table"] = json!(expected
        .iter()
        .map(|(s, c)| (s.to_string(), *c))
        .collect::<std::collections::BTreeMap<_, _>>());
    report["cycles_per_image"] = json!(per_image);
    report["images_per_second"] = json!(reports.len() as f64 / seconds.max(1e-9));
    report["per_image"] = serde_json::to_value(&reports).expect("serializes");
    report["bit_exact"] = if a.check_golden {
        json!(true)
    } else {
        json!(golden.w == after)
    };
    report["weights_sha256_after"] = json!(sha256_i32(&after));
    report["golden_weights_sha256_after"] = json!(sha256_i32(&golden.w));
    if !a.check_golden && golden.w != after {
        eprintln!("the RTL's weights differ from the golden model's (run with --check-golden to find where)");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_conv(
    a: &Args,
    cfg: &PlatformConfig,
    data: &mnist::Mnist,
    sim: &Simulator,
    opts: &DutOptions,
    report: &mut Value,
) -> anyhow::Result<ExitCode> {
    let name = designs::configured_name(Kind::ConvCore, cfg);
    let design = designs::conv_design(&name, cfg)?;
    let feed = inputs::conv_feed(cfg, &data.train, a.images)?;
    let (c, h, w) = feed.block.input;
    let (oc, ph, pw) = feed.block.output_shape();
    eprintln!(
        "{name}: {} conv core ({c} x {h} x {w} -> {oc} x {ph} x {pw}) on {}, {} images",
        cfg.name, a.backend, a.images
    );
    report["core"] = json!("conv");
    report["design"] = json!(name);
    report["shape"] = json!({"input": [c, h, w], "output": [oc, ph, pw]});
    let t = Instant::now();
    let dut = sim.dut(a.backend, design, opts)?;
    let build_seconds = t.elapsed().as_secs_f64();
    let mut bench = ConvBench::new(dut, (c, h, w), oc * ph * pw, &a.traffic)?;
    let t = Instant::now();
    let result = (|| -> Result<_, RtlError> {
        bench.reset()?;
        let b = bar(a.quiet, a.images);
        let r = run_conv_core(
            &mut bench,
            &feed.block,
            &feed.samples,
            a.check_golden,
            &mut |_| b.inc(1),
        );
        b.finish_and_clear();
        r
    })();
    let seconds = t.elapsed().as_secs_f64();
    let cycles = bench.dut().cycle();
    record_timing(report, build_seconds, cycles, seconds);
    let reports = match result {
        Ok(r) => r,
        Err(e) => return outcome(e, report),
    };
    if let Some(dir) = &a.dump_weights {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        write_npy(
            dir,
            "conv_kernels.npy",
            &[oc, 3, 3],
            &feed.block.kernels,
            a.force,
        )?;
    }
    let expected = conv_cycle_table(c, h, w);
    let first = &reports[0];
    let measured = |s: &str| match s {
        "CS_CONV" => Some(first.conv_per_channel),
        "CS_POOL" => Some(first.pool_per_channel),
        _ => first.cycles.get(s).copied(),
    };
    print_table(&expected, &measured);
    let image_cycles: Vec<u64> = reports.iter().map(|r| r.total_cycles).collect();
    let per_image = print_rate(
        "CONV and POOL per channel above",
        &image_cycles,
        cycles,
        seconds,
    );
    if a.check_golden {
        println!("bit-exact: every pooled value of {} images", reports.len());
    }
    report["table"] = json!(expected
        .iter()
        .map(|(s, c)| (s.to_string(), *c))
        .collect::<std::collections::BTreeMap<_, _>>());
    report["cycles_per_image"] = json!(per_image);
    report["images_per_second"] = json!(reports.len() as f64 / seconds.max(1e-9));
    report["per_image"] = serde_json::to_value(&reports).expect("serializes");
    report["bit_exact"] = if a.check_golden {
        json!(true)
    } else {
        Value::Null
    };
    Ok(ExitCode::SUCCESS)
}

/// A run's timing in its JSON report: the model's build, the simulated cycles, the wall
/// time and the simulated cycles per second.
fn record_timing(report: &mut serde_json::Value, build_seconds: f64, cycles: u64, seconds: f64) {
    report["build_seconds"] = json!(build_seconds);
    report["simulated_cycles"] = json!(cycles);
    report["wall_seconds"] = json!(seconds);
    report["simulated_cycles_per_second"] = json!(cycles as f64 / seconds.max(1e-9));
}

/// Prints "N cycles per image (`note`); X M simulated cycles/s; Y images/s" for the images
/// of `image_cycles` run in `cycles` simulated cycles and `seconds` of wall time; returns N.
fn print_rate(note: &str, image_cycles: &[u64], cycles: u64, seconds: f64) -> f64 {
    let per_image = image_cycles.iter().sum::<u64>() as f64 / image_cycles.len() as f64;
    println!(
        "{per_image:.0} cycles per image ({note}); {:.2} M simulated cycles/s; {:.1} images/s",
        cycles as f64 / seconds.max(1e-9) / 1e6,
        image_cycles.len() as f64 / seconds.max(1e-9)
    );
    per_image
}

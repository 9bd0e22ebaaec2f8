//! `edgelearn vcd list|show|diff|check|plot`.

use super::train::output_path;
use super::wave;
use crate::cli::{VcdCommand, VcdWindow};
use anyhow::{anyhow, Context};
use edgelearn_sim::trace::GoldenFile;
use edgelearn_sim::vcd::{check_golden, diff, Matching, Waveform};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn read(p: &Path) -> anyhow::Result<Waveform> {
    Waveform::read(p).map_err(|e| anyhow!("{}: {e}", p.display()))
}

fn timescale(w: &Waveform) -> String {
    w.timescale
        .as_ref()
        .map(|(n, u)| format!("{n}{u}"))
        .unwrap_or_else(|| "(none)".into())
}

pub fn run(c: VcdCommand) -> anyhow::Result<ExitCode> {
    match c {
        VcdCommand::List { file } => list(file),
        VcdCommand::Show { window } => show(window),
        VcdCommand::Diff {
            a,
            b,
            signals,
            clock,
            scope_a,
            scope_b,
            leaf,
        } => diff_files(a, b, signals, clock, scope_a, scope_b, leaf),
        VcdCommand::Check {
            file,
            golden,
            clock,
            scope,
        } => check(file, golden, clock, scope),
        VcdCommand::Plot { window, out, force } => plot(window, out, force),
    }
}

/// `edgelearn vcd list`.
fn list(file: PathBuf) -> anyhow::Result<ExitCode> {
    let w = read(&file)?;
    println!(
        "timescale {}, end time {}, {} signals",
        timescale(&w),
        w.end_time,
        w.signals.len()
    );
    let mut scope = String::new();
    for s in &w.signals {
        let (sc, leaf) = s.path.rsplit_once('.').unwrap_or(("", s.path.as_str()));
        if sc != scope {
            println!("{sc}");
            scope = sc.to_string();
        }
        println!("  {leaf:<32} {:>4} bits  {}", s.width, s.var_type);
    }
    Ok(ExitCode::SUCCESS)
}

/// `edgelearn vcd show`.
fn show(window: VcdWindow) -> anyhow::Result<ExitCode> {
    let w = read(&window.file)?;
    let idx: Vec<usize> = window
        .signals
        .iter()
        .map(|s| w.resolve(s).map_err(|e| anyhow!(e)))
        .collect::<anyhow::Result<_>>()?;
    let (lo, hi) = (window.from.unwrap_or(0), window.to.unwrap_or(w.end_time));
    let clock = window.clock;
    let times: Vec<(Option<usize>, u64)> = match &clock {
        Some(c) => {
            let ci = w.resolve(c).map_err(|e| anyhow!(e))?;
            w.edges_between(ci, lo, hi)
                .into_iter()
                .map(|(k, t)| (Some(k), t))
                .collect()
        }
        None => {
            let mut t: Vec<u64> = idx
                .iter()
                .flat_map(|&i| w.changes(i).iter().map(|c| c.0))
                .filter(|t| (lo..=hi).contains(t))
                .collect();
            t.sort_unstable();
            t.dedup();
            t.into_iter().map(|t| (None, t)).collect()
        }
    };
    let names: Vec<String> = idx
        .iter()
        .map(|&i| w.signals[i].leaf().to_string())
        .collect();
    print!("{:>12}", format!("time ({})", timescale(&w)));
    if clock.is_some() {
        print!(" {:>7}", "cycle");
    }
    for n in &names {
        print!(" {n:>14}");
    }
    println!();
    for (cycle, t) in times {
        print!("{t:>12}");
        if let Some(k) = cycle {
            print!(" {k:>7}");
        }
        for (&i, n) in idx.iter().zip(&names) {
            let v = w
                .value_at(i, t)
                .map(|v| v.to_string())
                .unwrap_or_else(|| "-".into());
            print!(" {v:>width$}", width = n.len().max(14));
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}

/// `edgelearn vcd diff`.
fn diff_files(
    a: PathBuf,
    b: PathBuf,
    signals: Vec<String>,
    clock: Option<String>,
    scope_a: Option<String>,
    scope_b: Option<String>,
    leaf: bool,
) -> anyhow::Result<ExitCode> {
    let (wa, wb) = (read(&a)?, read(&b)?);
    let clock = match clock {
        Some(c) => c,
        None => wa
            .default_clock()
            .map(|i| wa.signals[i].leaf().to_string())
            .context("no `clock`/`clk` signal; name one with --clock")?,
    };
    let m = Matching {
        scope_a,
        scope_b,
        leaf,
    };
    let r = diff(&wa, &wb, &clock, &signals, &m).map_err(|e| anyhow!(e))?;
    println!(
        "compared {} signals at {} clock edges (A has {}, B has {})",
        r.signals.len(),
        r.edges,
        r.edges_a,
        r.edges_b
    );
    if let Some((sig, cycle, ta, tb, va, vb)) = &r.first {
        println!("first divergence: signal {sig}, cycle {cycle} (time {ta} in A, {tb} in B)");
        println!("  A: {va}");
        println!("  B: {vb}");
        for (s, n) in &r.counts {
            println!("  {s}: {n} differing cycles");
        }
    }
    if r.edges_a != r.edges_b {
        println!("the files have different numbers of clock edges");
    }
    Ok(if r.equal() {
        println!("equal");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `edgelearn vcd check`.
fn check(
    file: PathBuf,
    golden: PathBuf,
    clock: Option<String>,
    scope: Option<String>,
) -> anyhow::Result<ExitCode> {
    let w = read(&file)?;
    let text = std::fs::read_to_string(&golden)
        .with_context(|| format!("cannot read {}", golden.display()))?;
    let g: GoldenFile = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a golden trace", golden.display()))?;
    let e = g
        .to_expected()
        .map_err(|m| anyhow!("{}: {m}", golden.display()))?;
    let clock = clock.unwrap_or(g.clock.clone());
    let r = check_golden(&w, &e, &clock, scope.as_deref()).map_err(|m| anyhow!(m))?;
    println!(
        "checked {} values of {} in scope {} over {} cycles",
        r.compared, g.block, r.scope, r.cycles
    );
    if let Some((port, cycle, t, want, got)) = &r.first {
        println!("first mismatch: port {port}, cycle {cycle} (time {t})");
        println!("  expected: {want}");
        println!("  got:      {got}");
        for (p, n) in &r.counts {
            println!("  {p}: {n} mismatches");
        }
    }
    if r.missing_cycles > 0 {
        println!(
            "the waveform ends {} defined cycles before the trace",
            r.missing_cycles
        );
    }
    Ok(if r.first.is_none() && r.missing_cycles == 0 {
        println!("matches the golden trace");
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `edgelearn vcd plot`.
fn plot(window: VcdWindow, out: PathBuf, force: bool) -> anyhow::Result<ExitCode> {
    let w = read(&window.file)?;
    output_path(&out, force)?;
    let name = window
        .file
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let (from, to, clock) = (window.from, window.to, window.clock.as_deref());
    wave::plot(&w, &name, &window.signals, from, to, clock, &out)?;
    eprintln!("wrote {}", out.display());
    Ok(ExitCode::SUCCESS)
}

//! `edgelearn regs`: the register maps generated from their descriptions (the LEL
//! platform's, `hdl/regs/lel_platform.toml`, and the CNN engine's, `hdl/regs/cnn_engine.toml`);
//! with `--design` or `--config`, the platform's reset values resolved for one design, and
//! with `--verify` its RTL checked against the description (`edgelearn_fpga::regcheck`);
//! with `--design cnn_engine_pP`, the engine's host map, and with `--verify` its host port
//! checked against it (`edgelearn_fpga::cnn_regcheck`).

use crate::cli::{BackendName, RegsArgs, ReservedWords};
use anyhow::Context;
use edgelearn_fpga::cnn_regcheck;
use edgelearn_fpga::cnn_regs;
use edgelearn_fpga::regcheck;
use edgelearn_fpga::regmap::{self, RegMap};
use edgelearn_hdl::cnn::EngineShape;
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::rtl::designs::{self, Kind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(a: &RegsArgs) -> anyhow::Result<ExitCode> {
    if let Some(name) = &a.design {
        if let Kind::CnnEngine(shape) = designs::entry(name)?.kind {
            return engine(a, name, &shape);
        }
    }
    if a.design.is_some() || a.config.is_some() {
        return design(a);
    }
    if a.verify {
        anyhow::bail!("--verify needs the design to check: give --design NAME or --config FILE");
    }
    if a.lanes.is_some() {
        anyhow::bail!("--lanes needs --design or --config");
    }
    generate(&a.root, a.check, a.force)
}

/// The platform named by `--design` (with `--lanes`) or built from `--config` (its AXI
/// top, or with `--bare` the platform itself): its name and configuration.
fn target(a: &RegsArgs) -> anyhow::Result<(String, Kind, PlatformConfig)> {
    if let Some(path) = &a.config {
        let cfg = super::load_config(path, None, a.lanes)?;
        let kind = match a.bare {
            true => Kind::Platform,
            false => Kind::PlatformAxi,
        };
        return Ok((designs::configured_name(kind, &cfg), kind, cfg));
    }
    let name = a.design.as_deref().expect("--design or --config");
    let e = designs::entry(name)?;
    let (Kind::Platform | Kind::PlatformAxi) = e.kind else {
        let platforms: Vec<String> = designs::entries()
            .into_iter()
            .filter(|e| matches!(e.kind, Kind::Platform | Kind::PlatformAxi))
            .map(|e| e.name)
            .collect();
        anyhow::bail!(
            "{name} has no register map of {}: give an LEL platform ({})",
            regmap::DESCRIPTION,
            platforms.join(", ")
        );
    };
    let mut cfg = e.platform_config().expect("a platform has a configuration");
    if let Some(l) = a.lanes {
        cfg = cfg
            .with_lanes(l)
            .with_context(|| format!("{name} with --lanes {l}"))?;
        return Ok((designs::configured_name(e.kind, &cfg), e.kind, cfg));
    }
    Ok((name.to_string(), e.kind, cfg))
}

/// Print the reset values of one design; with `--verify`, check its RTL.
fn design(a: &RegsArgs) -> anyhow::Result<ExitCode> {
    let desc = a.root.join(regmap::DESCRIPTION);
    let map = RegMap::load(&desc).with_context(|| {
        format!(
            "--root {} must name the edgelearn repository",
            a.root.display()
        )
    })?;
    let (name, kind, cfg) = target(a)?;
    let params = regcheck::design_parameters(&cfg)?;
    map.check_parameters(&params)?;
    println!("{name}: register map {}", regmap::DESCRIPTION);
    for (k, v) in &params {
        println!("  parameter {k:<12} {v}");
    }
    println!("  {:<9} {:<14} {:<6} reset", "offset", "register", "access");
    for r in &map.registers {
        let reset = r.reset_value(&params)?;
        let off = if r.count > 1 {
            format!("{:#05x}+4i", r.offset)
        } else {
            format!("{:#05x}", r.offset)
        };
        let n = if r.count > 1 {
            format!("{}[{}]", r.name, r.count)
        } else {
            r.name.clone()
        };
        println!("  {off:<9} {n:<14} {:<6} {reset:#010x}", r.access.name());
    }
    if !a.verify {
        return Ok(ExitCode::SUCCESS);
    }
    if a.vcd.is_some() && !a.backends.iter().any(writes_vcd) {
        anyhow::bail!("--vcd needs verilator or native among --backends");
    }
    let sim = Simulator::from_env();
    let mut ok = true;
    let mut vcd = a.vcd.clone();
    for &b in &a.backends {
        let backend = Backend::from(b);
        let t = std::time::Instant::now();
        let opts = regcheck::CheckOptions {
            seed: a.seed,
            reserved: match a.reserved {
                ReservedWords::All => regcheck::Reserved::All,
                ReservedWords::Sample => regcheck::Reserved::Sample,
            },
            // The VCD of the first backend that can write one.
            vcd: if writes_vcd(&b) { vcd.take() } else { None },
        };
        let c = regcheck::check_design(&map, &sim, (&name, kind), &cfg, backend, &opts)?;
        ok &= print_check(&c, t.elapsed().as_secs_f64());
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The CNN engine's host map; with `--verify`, its host port checked against it.
fn engine(a: &RegsArgs, name: &str, shape: &EngineShape) -> anyhow::Result<ExitCode> {
    if a.lanes.is_some() {
        anyhow::bail!("--lanes: {name} is a CNN engine; lanes are the LEL platform's");
    }
    let map = cnn_regs::load(&a.root).with_context(|| {
        format!(
            "--root {} must name the edgelearn repository",
            a.root.display()
        )
    })?;
    println!("{name}: host map {}", cnn_regs::DESCRIPTION);
    println!("  {:<10} {:<16} access", "address", "register");
    for r in &map.registers {
        let n = match r.count {
            1 => r.name.clone(),
            c => format!("{}[{c}]", r.name),
        };
        println!("  {:#08x}   {n:<16} {}", r.address, r.access.name());
    }
    for g in &map.regions {
        println!("  {:#08x}   {:<16} {} words", g.address, g.name, g.words);
    }
    if !a.verify {
        return Ok(ExitCode::SUCCESS);
    }
    let sim = Simulator::from_env();
    let mut ok = true;
    let mut vcd = a.vcd.clone();
    if vcd.is_some() && !a.backends.iter().any(writes_vcd) {
        anyhow::bail!("--vcd needs verilator or native among --backends");
    }
    for &b in &a.backends {
        let backend = Backend::from(b);
        let t = std::time::Instant::now();
        let opts = regcheck::CheckOptions {
            // The VCD of the first backend that can write one.
            vcd: if writes_vcd(&b) { vcd.take() } else { None },
            ..Default::default()
        };
        let c = cnn_regcheck::check_design(&map, &sim, shape, backend, &opts)?;
        ok &= print_check(&c, t.elapsed().as_secs_f64());
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn writes_vcd(b: &BackendName) -> bool {
    matches!(Backend::from(*b), Backend::Verilator | Backend::Native)
}

/// One backend's check, printed; `true` when nothing diverged.
fn print_check(c: &regcheck::DesignCheck, secs: f64) -> bool {
    let r = &c.report;
    print!(
        "{}: {} register words and {} reserved, {} accesses, {} cycles, {secs:.1} s: ",
        c.backend, r.words, r.reserved, r.accesses, c.cycles
    );
    if r.divergences.is_empty() {
        println!("every register as described");
        return true;
    }
    println!(
        "{} divergences in {}",
        r.divergences.len(),
        r.failing().join(", ")
    );
    for d in r.divergences.iter().take(20) {
        println!("  {d}");
    }
    if r.divergences.len() > 20 {
        println!("  ... {} more", r.divergences.len() - 20);
    }
    false
}

fn generate(root: &Path, check: bool, force: bool) -> anyhow::Result<ExitCode> {
    let desc = root.join(regmap::DESCRIPTION);
    if !desc.is_file() {
        anyhow::bail!(
            "{} not found: --root must name the edgelearn repository",
            desc.display()
        );
    }
    let map = RegMap::load(&desc)?;
    let engine = cnn_regs::load(root)?;
    if check {
        let mut stale: Vec<PathBuf> = regmap::stale(&map, root)?;
        stale.extend(cnn_regs::stale(&engine, root)?);
        if stale.is_empty() {
            println!(
                "register maps up to date with {} and {}",
                regmap::DESCRIPTION,
                cnn_regs::DESCRIPTION
            );
            return Ok(ExitCode::SUCCESS);
        }
        for p in &stale {
            println!("stale: {} (run `edgelearn regs`)", p.display());
        }
        return Ok(ExitCode::from(1));
    }
    let mut written = regmap::write(&map, root, force)
        .with_context(|| format!("cannot regenerate from {}", desc.display()))?;
    written.extend(
        cnn_regs::write(&engine, root, force)
            .with_context(|| format!("cannot regenerate from {}", cnn_regs::DESCRIPTION))?,
    );
    for p in &written {
        println!("wrote {}", p.display());
    }
    if written.is_empty() {
        println!(
            "register maps up to date with {} and {}",
            regmap::DESCRIPTION,
            cnn_regs::DESCRIPTION
        );
    }
    Ok(ExitCode::SUCCESS)
}

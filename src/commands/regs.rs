//! `edgelearn regs`: the register maps generated from their descriptions (the LEL
//! platform's, `hdl/regs/lel_platform.toml`, and the CNN engine's, `hdl/regs/cnn_engine.toml`).

use anyhow::Context;
use edgelearn_fpga::cnn_regs;
use edgelearn_fpga::regmap::{self, RegMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(root: &Path, check: bool, force: bool) -> anyhow::Result<ExitCode> {
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

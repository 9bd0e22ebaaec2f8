//! `edgelearn regs`: the register map generated from its description.

use anyhow::Context;
use edgelearn_fpga::regmap::{self, RegMap};
use std::path::Path;
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
    if check {
        let stale = regmap::stale(&map, root)?;
        if stale.is_empty() {
            println!("register map up to date with {}", regmap::DESCRIPTION);
            return Ok(ExitCode::SUCCESS);
        }
        for p in &stale {
            println!("stale: {} (run `edgelearn regs`)", p.display());
        }
        return Ok(ExitCode::from(1));
    }
    let written = regmap::write(&map, root, force)
        .with_context(|| format!("cannot regenerate from {}", desc.display()))?;
    for p in &written {
        println!("wrote {}", p.display());
    }
    if written.is_empty() {
        println!("register map up to date with {}", regmap::DESCRIPTION);
    }
    Ok(ExitCode::SUCCESS)
}

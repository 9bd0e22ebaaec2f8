//! `edgelearn emit`.

use anyhow::{bail, Context};
use edgelearn_hdl::design::Design;
use edgelearn_verif::rtl::designs;
use std::path::Path;
use std::process::ExitCode;

/// The designs named on the command line (or every one with `all`), built, with their
/// summaries.
pub fn build_named(blocks: &[String], all: bool) -> anyhow::Result<Vec<(Box<dyn Design>, String)>> {
    let names: Vec<String> = if all {
        designs::names().iter().map(|s| s.to_string()).collect()
    } else if blocks.is_empty() {
        bail!(
            "name at least one block, or --all; valid blocks: {}",
            designs::names().join(", ")
        );
    } else {
        blocks.to_vec()
    };
    let entries = designs::entries();
    let mut built: Vec<(Box<dyn Design>, String)> = Vec::new();
    for n in &names {
        let design = designs::build(n)?;
        let summary = entries
            .iter()
            .find(|e| e.name == n)
            .map(|e| e.summary.clone())
            .unwrap_or_default();
        built.push((design, summary));
    }
    Ok(built)
}

pub fn run(blocks: &[String], all: bool, out: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let built = build_named(blocks, all)?;
    let refs: Vec<(&dyn Design, &str)> = built
        .iter()
        .map(|(d, s)| (d.as_ref(), s.as_str()))
        .collect();
    let written = edgelearn_sim::emit::emit(out, &refs, force)
        .with_context(|| format!("cannot emit into {}", out.display()))?;
    for p in &written {
        println!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

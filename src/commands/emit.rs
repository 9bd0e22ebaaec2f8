//! `edgelearn emit`.

use anyhow::{bail, Context};
use edgelearn_hdl::design::Design;
use edgelearn_hdl::registry;
use std::path::Path;
use std::process::ExitCode;

pub fn run(blocks: &[String], all: bool, out: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let names: Vec<String> = if all {
        registry::names().iter().map(|s| s.to_string()).collect()
    } else if blocks.is_empty() {
        bail!(
            "name at least one block, or --all; valid blocks: {}",
            registry::names().join(", ")
        );
    } else {
        blocks.to_vec()
    };
    let entries = registry::blocks();
    let mut designs: Vec<(Box<dyn Design>, &'static str)> = Vec::new();
    for n in &names {
        let design = registry::build(n)?;
        let summary = entries
            .iter()
            .find(|e| e.name == n)
            .map(|e| e.summary)
            .unwrap_or("");
        designs.push((design, summary));
    }
    let refs: Vec<(&dyn Design, &str)> = designs.iter().map(|(d, s)| (d.as_ref(), *s)).collect();
    let written = edgelearn_sim::emit::emit(out, &refs, force)
        .with_context(|| format!("cannot emit into {}", out.display()))?;
    for p in &written {
        println!("wrote {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

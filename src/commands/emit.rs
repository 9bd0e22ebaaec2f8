//! `edgelearn emit`.

use anyhow::{bail, Context};
use edgelearn_hdl::design::Design;
use edgelearn_verif::rtl::designs;
use std::path::Path;
use std::process::ExitCode;

/// The designs named on the command line (or every one with `all`), built, with their
/// summaries.
pub fn build_named(
    blocks: &[String],
    all: bool,
    lanes: Option<usize>,
) -> anyhow::Result<Vec<(Box<dyn Design>, String)>> {
    let names: Vec<String> = if all {
        designs::names()
    } else if blocks.is_empty() {
        bail!(
            "name at least one block, or --all; valid blocks: {}",
            designs::names().join(", ")
        );
    } else {
        blocks.to_vec()
    };
    let mut built: Vec<(Box<dyn Design>, String)> = Vec::new();
    for n in &names {
        let entry = designs::entry_with_lanes(n, lanes)?;
        built.push((entry.build()?, entry.summary));
    }
    Ok(built)
}

pub fn run(
    blocks: &[String],
    all: bool,
    lanes: Option<usize>,
    out: &Path,
    force: bool,
) -> anyhow::Result<ExitCode> {
    let built = build_named(blocks, all, lanes)?;
    let refs: Vec<(&dyn Design, &str)> = built
        .iter()
        .map(|(d, s)| (d.as_ref(), s.as_str()))
        .collect();
    let written = edgelearn_sim::emit::emit(out, &refs, force)
        .with_context(|| format!("cannot emit into {}", out.display()))?;
    let manifest_path = out.join("manifest.json");
    let manifest: Option<edgelearn_sim::emit::Manifest> = std::fs::read_to_string(&manifest_path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    for p in &written {
        let block = p
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(|n| manifest.as_ref()?.blocks.get(n));
        match block {
            Some(b) if p.extension().is_some_and(|e| e == "v") => println!(
                "wrote {} ({} modules, {} lines)",
                p.display(),
                b.modules,
                b.lines
            ),
            _ => println!("wrote {}", p.display()),
        }
    }
    Ok(ExitCode::SUCCESS)
}

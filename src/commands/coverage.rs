//! `edgelearn coverage`: a regression's jobs run with coverage (through `regress run
//! --coverage`), merged and reported (`edgelearn_sim::coverage`); `coverage merge`.

use super::regress::{default_jobs, run_shard, RunArgs};
use crate::cli::{CoverageArgs, CoverageCommand};
use anyhow::{bail, Context};
use edgelearn_sim::coverage::{Coverage, Summary, MARKER};
use edgelearn_verif::regress::Shard;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The regression `--test` picks jobs from when no `--regress` is given: the full list.
const DEFAULT_PLAN: &str = "regress/nightly.toml";

pub fn run(a: CoverageArgs) -> anyhow::Result<ExitCode> {
    if let Some(CoverageCommand::Merge { dirs, out, modules }) = a.command {
        return merge(&dirs, &out, modules).map(|_| ExitCode::SUCCESS);
    }
    let out = a.out.context("--out DIR is required")?;
    let file = match (a.regress, a.tests.is_empty()) {
        (Some(f), _) => f,
        (None, false) => PathBuf::from(DEFAULT_PLAN),
        (None, true) => bail!("give the jobs to run: --regress FILE and/or --test NAME"),
    };
    claim(&out)?;
    let code = run_shard(RunArgs {
        file,
        shard: a.shard.unwrap_or(Shard::ALL),
        jobs: a.jobs.map_or_else(default_jobs, |j| j as usize),
        out: out.join("regress"),
        filter: a.tests,
        timings: None,
        fresh: a.fresh,
        quiet: a.quiet,
        coverage: true,
    })?;
    let summaries = merge(&[out.join("regress")], &out, a.modules)?;
    if summaries.is_empty() {
        bail!(
            "the jobs ran no in-process Verilator model, so there is no coverage to report \
             (block jobs on `verilator`, `cnn` jobs on `rtl`, cores and the platform have one)"
        );
    }
    Ok(code)
}

/// Make `out` a coverage output: new, empty, or one we wrote before.
fn claim(out: &Path) -> anyhow::Result<()> {
    if out.exists() {
        if !out.is_dir() {
            bail!("{} is not a directory", out.display());
        }
        let empty = std::fs::read_dir(out)
            .with_context(|| format!("cannot read {}", out.display()))?
            .next()
            .is_none();
        if !empty && !out.join(MARKER).is_file() {
            bail!(
                "{} is not empty and is not an `edgelearn coverage` output; not writing into it (give a new directory)",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    edgelearn_sim::files::write_atomic(&out.join(MARKER), "edgelearn coverage\n")
        .with_context(|| format!("cannot write in {}", out.display()))
}

/// Merge `dirs` into a report in `out` and print the table.
pub(super) fn merge(dirs: &[PathBuf], out: &Path, modules: usize) -> anyhow::Result<Vec<Summary>> {
    let cov = Coverage::read(dirs)?;
    claim(out)?;
    let summaries = cov.write(out)?;
    print!("{}", table(&summaries, modules));
    println!(
        "lcov {}, HTML {}",
        out.join("coverage.info").display(),
        out.join("html").join("index.html").display()
    );
    Ok(summaries)
}

/// One row per design build (line, branch, toggle) and its `modules` least covered modules.
pub(super) fn table(summaries: &[Summary], modules: usize) -> String {
    let mut s = format!(
        "{:<34} {:>5}  {:<24} {:<24} {:<24}\n",
        "design", "runs", "line", "branch", "toggle"
    );
    for x in summaries {
        s += &format!(
            "{:<34} {:>5}  {:<24} {:<24} {:<24}\n",
            x.design,
            x.runs,
            x.total.line.show(),
            x.total.branch.show(),
            x.total.toggle.show()
        );
        let worst: Vec<String> = x
            .modules
            .iter()
            .filter(|(_, t)| t.missed() > 0)
            .take(modules)
            .map(|(m, t)| format!("{m} ({} missed)", t.missed()))
            .collect();
        if !worst.is_empty() {
            s += &format!("    least covered: {}\n", worst.join(", "));
        }
        for f in &x.fsms {
            s += &format!("    FSM {}\n", f.show());
        }
        for p in &x.streams {
            s += &format!("    stream {}\n", p.show());
        }
    }
    s
}

//! `edgelearn coverage`: a regression's jobs run with coverage (through `regress run
//! --coverage`), merged and reported (`edgelearn_sim::coverage`); `coverage merge`.

use super::regress::{default_jobs, run_shard, RunArgs};
use crate::cli::{CoverageArgs, CoverageCommand};
use anyhow::{bail, Context};
use edgelearn_sim::coverage::{plan, Coverage, Summary, MARKER};
use edgelearn_verif::regress::Shard;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The regression `--test` picks jobs from when no `--regress` is given: the full list.
const DEFAULT_PLAN: &str = "regress/nightly.toml";

pub fn run(a: CoverageArgs) -> anyhow::Result<ExitCode> {
    if let Some(CoverageCommand::Merge {
        dirs,
        out,
        modules,
        testplans,
    }) = a.command
    {
        return merge(&dirs, &out, modules, Some(&testplans)).map(|_| ExitCode::SUCCESS);
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
    let summaries = merge(&[out.join("regress")], &out, a.modules, Some(&a.testplans))?;
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

/// Merge `dirs` into a report in `out` and print the table, and the closure of the
/// testplans in `testplans` (a directory of `docs/blocks/*.md`; skipped when it does not
/// exist) as `out/testplans.md`.
pub(super) fn merge(
    dirs: &[PathBuf],
    out: &Path,
    modules: usize,
    testplans: Option<&Path>,
) -> anyhow::Result<Vec<Summary>> {
    let cov = Coverage::read(dirs)?;
    claim(out)?;
    let summaries = cov.write(out)?;
    for x in &summaries {
        let path = out.join(format!("untoggled-{}.txt", x.build));
        let text: String = x
            .untoggled()
            .iter()
            .map(|(sig, n)| format!("{n}\t{sig}\n"))
            .collect();
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    print!("{}", table(&summaries, modules));
    println!(
        "lcov {}, HTML {}",
        out.join("coverage.info").display(),
        out.join("html").join("index.html").display()
    );
    if let Some(dir) = testplans.filter(|d| d.is_dir()) {
        let plans = plan::read_dir(dir).map_err(anyhow::Error::msg)?;
        let closures = plan::closure(&plans, &summaries);
        let mut text = String::from("# Testplan closure (edgelearn coverage)\n\n");
        for c in &closures {
            println!("testplan {}", c.show());
            text += &format!("{}\n\n", c.show());
        }
        if closures.is_empty() {
            text += "No testplan names a design of this report.\n";
        }
        let path = out.join("testplans.md");
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
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
        let quiet: Vec<String> = x
            .untoggled()
            .into_iter()
            .take(modules)
            .map(|(sig, n)| format!("{sig} ({n})"))
            .collect();
        if !quiet.is_empty() {
            s += &format!(
                "    most untoggled (all in untoggled-{}.txt): {}\n",
                x.build,
                quiet.join(", ")
            );
        }
        for f in &x.fsms {
            s += &format!("    FSM {}\n", f.show());
        }
        for c in &x.covers {
            s += &format!("    {}\n", c.show());
        }
        for p in &x.streams {
            s += &format!("    stream {}\n", p.show());
        }
    }
    s
}

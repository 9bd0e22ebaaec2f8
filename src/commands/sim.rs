//! `edgelearn sim` and `edgelearn golden`.

use super::train::output_path;
use anyhow::{bail, Context};
use edgelearn_sim::stimfile;
use edgelearn_sim::trace::GoldenFile;
use edgelearn_sim::{check, Backend, RunOptions, Simulator, Stimulus};
use edgelearn_verif::blocks::golden_trace;
use edgelearn_verif::rtl::designs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub struct Args {
    pub block: String,
    pub stimulus: PathBuf,
    pub backend: Backend,
    pub vcd: Option<PathBuf>,
    pub vcd_depth: Option<usize>,
    pub cycles: Option<usize>,
    pub trace: Option<PathBuf>,
    pub check: bool,
    pub force: bool,
}

fn load(block: &str, path: &Path) -> anyhow::Result<Stimulus> {
    let design = designs::build(block)?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (stim, missing) = stimfile::parse(block, design.ports(), &text)
        .with_context(|| format!("invalid stimulus {}", path.display()))?;
    if !missing.is_empty() {
        eprintln!("note: no column for {}; driven with 0", missing.join(", "));
    }
    if stim.is_empty() {
        bail!("{}: no cycles", path.display());
    }
    Ok(stim)
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let backend = a.backend;
    let mut stim = load(&a.block, &a.stimulus)?;
    if let Some(n) = a.cycles {
        stimfile::resize(&mut stim, n);
    }
    for p in a.vcd.iter().chain(a.trace.iter()) {
        output_path(p, a.force)?;
    }
    let opts = RunOptions {
        vcd: a.vcd.clone(),
        vcd_depth: a.vcd_depth,
    };
    let run = Simulator::from_env().run(backend, designs::build(&a.block)?, &stim, &opts)?;
    eprintln!(
        "{} on {}: {} cycles in {:.3} s ({:.0} cycles/s){}",
        a.block,
        backend,
        run.stats.cycles,
        run.stats.run_seconds,
        run.stats.cycles_per_second(),
        a.vcd
            .as_ref()
            .map(|v| format!(", waveform {}", v.display()))
            .unwrap_or_default()
    );
    if let Some(p) = &a.trace {
        let mut s = String::from("cycle");
        for o in &run.trace.outputs {
            s.push(',');
            s.push_str(&o.name);
        }
        s.push('\n');
        for (c, r) in run.trace.rows.iter().enumerate() {
            s.push_str(&c.to_string());
            for v in r {
                s.push(',');
                s.push_str(&v.to_string());
            }
            s.push('\n');
        }
        std::fs::write(p, s).with_context(|| format!("cannot write {}", p.display()))?;
    }
    if a.check {
        let expected = golden_trace(&a.block, designs::build(&a.block)?.ports(), &stim)
            .with_context(|| format!("no golden model for `{}`", a.block))?;
        match check(&expected, &run.trace) {
            Ok(n) => println!("bit-exact: {n} defined output values match the golden model"),
            Err(m) => {
                println!("{m}");
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn golden(block: &str, stimulus: &Path, out: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let stim = load(block, stimulus)?;
    output_path(out, force)?;
    let expected = golden_trace(block, designs::build(block)?.ports(), &stim)
        .with_context(|| format!("no golden model for `{block}`"))?;
    let file = GoldenFile::from_expected(&expected);
    let text = if out.extension().is_some_and(|e| e == "csv") {
        file.to_csv()
    } else {
        serde_json::to_string_pretty(&file).expect("serializes") + "\n"
    };
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!(
        "wrote {} ({} cycles, {} defined values)",
        out.display(),
        expected.rows.len(),
        expected.defined()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn stimulus(
    block: &str,
    kind: &str,
    seed: u64,
    cycles: usize,
    out: &Path,
    force: bool,
) -> anyhow::Result<ExitCode> {
    let design = designs::build(block)?;
    let stim = edgelearn_verif::blocks::named_stimulus(block, kind, design.ports(), seed, cycles)
        .with_context(|| {
            format!(
                "no `{kind}` stimulus for `{block}` (kinds: {})",
                edgelearn_verif::blocks::STIMULUS_KINDS.join(", ")
            )
        })??;
    output_path(out, force)?;
    std::fs::write(out, stimfile::write(&stim))
        .with_context(|| format!("cannot write {}", out.display()))?;
    eprintln!("wrote {} ({} cycles)", out.display(), stim.len());
    Ok(ExitCode::SUCCESS)
}

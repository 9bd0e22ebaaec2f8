//! `edgelearn synth`: emit a design, synthesize it (and place and route it on the Lattice
//! targets) with `edgelearn_fpga::synth`, print and write the report.

use anyhow::{bail, Context};
use edgelearn_fpga::synth::{self, Job, Part, Report, Target};
use edgelearn_hdl::design::Design;
use edgelearn_verif::rtl::designs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The arguments of `edgelearn synth`.
pub struct Args {
    pub target: String,
    pub top: String,
    pub out: Option<PathBuf>,
    pub per_core: bool,
    pub freq: f64,
    pub seed: u64,
    pub markdown: Option<PathBuf>,
    pub force: bool,
}

/// The first line of every Markdown file `--markdown` writes (what may be overwritten).
const MARKDOWN_MARK: &str = "<!-- written by edgelearn synth -->";

/// Run `edgelearn synth`: exit 0 when everything fits, 1 when something does not.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let target = Target::parse(&args.target)?;
    let design = designs::build(&args.top)?;
    let cores = synth::platform_cores(&args.top);
    if args.per_core && cores.is_none() {
        bail!("--per-core is for the platform designs (lel_platform, lel_platform_mnist)");
    }
    if let Some(md) = &args.markdown {
        guard_markdown(md, args.force)?;
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("build/synth").join(target.name()).join(&args.top));
    let report = synth_one(target, design.as_ref(), &dir, &args)?;
    let mut alone = Vec::new();
    for (_, _, name) in cores.iter().flatten().filter(|_| args.per_core) {
        let d = designs::build(name)?;
        alone.push(synth_one(
            target,
            d.as_ref(),
            &dir.join("cores").join(name),
            &args,
        )?);
    }
    let text = synth::render(&report, &alone);
    println!("{text}");
    write_json(&dir.join("report.json"), &report, &alone)?;
    write(&dir.join("report.md"), &format!("{MARKDOWN_MARK}\n{text}"))?;
    if let Some(md) = &args.markdown {
        write(md, &format!("{MARKDOWN_MARK}\n{text}"))?;
    }
    let fits = report.fit.fits && alone.iter().all(|r| r.fit.fits);
    Ok(if fits {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Emit `design` into `dir` and run the flow there.
fn synth_one(
    target: Target,
    design: &dyn Design,
    dir: &Path,
    args: &Args,
) -> anyhow::Result<Report> {
    synth::guard(dir, args.force)?;
    let name = design.name().to_string();
    let summary = designs::entries()
        .into_iter()
        .find(|e| e.name == name)
        .map(|e| e.summary)
        .unwrap_or_default();
    edgelearn_sim::emit::emit(dir, &[(design, summary.as_str())], args.force)
        .with_context(|| format!("cannot emit into {}", dir.display()))?;
    let parts = match (target, synth::platform_cores(&name)) {
        (Target::Xc7z020, Some(cores)) => cores
            .into_iter()
            .map(|(label, module, _)| Part {
                label: label.to_string(),
                module,
            })
            .collect(),
        _ => Vec::new(),
    };
    let job = Job {
        target,
        top: name.clone(),
        verilog: PathBuf::from(format!("{name}.v")),
        dir: dir.to_path_buf(),
        parts,
        io_bits: design.ports().iter().map(|p| p.width as u64).sum(),
        freq_mhz: args.freq,
        seed: args.seed,
    };
    let slow = if name.contains("core") || name.contains("platform") {
        " (a core or the platform takes minutes)"
    } else {
        ""
    };
    eprintln!(
        "edgelearn synth: {name} on {} in {}{slow}",
        target.name(),
        dir.display()
    );
    let report = synth::run(&job)?;
    // Each run's directory gets its own report, so that a later run may reuse it.
    write_json(&dir.join("report.json"), &report, &[])?;
    Ok(report)
}

fn write_json(path: &Path, report: &Report, cores: &[Report]) -> anyhow::Result<()> {
    let mut v = serde_json::to_value(report)?;
    v["cores_alone"] = serde_json::to_value(cores)?;
    write(path, &(serde_json::to_string_pretty(&v)? + "\n"))
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(d) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Refuse to overwrite a Markdown file this command did not write, unless `force`.
fn guard_markdown(path: &Path, force: bool) -> anyhow::Result<()> {
    let ours = std::fs::read_to_string(path).map_or(true, |t| t.starts_with(MARKDOWN_MARK));
    if !ours && !force {
        bail!(
            "{} exists and was not written by edgelearn synth (give --force to overwrite)",
            path.display()
        );
    }
    Ok(())
}

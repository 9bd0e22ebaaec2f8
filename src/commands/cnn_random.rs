//! `edgelearn cnn random`: constrained-random networks for the CNN engine
//! (`edgelearn_verif::cnn::random`), their regression file and cross coverage; with `--run`,
//! each on the engine RTL against the golden model, a divergence shrunk to a minimal case.

use crate::cli::CnnRandomArgs;
use anyhow::{bail, Context};
use edgelearn_hdl::cnn::EngineShape;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::cnn::random::{self, Candidate, Cross, Limits, DIMENSIONS};
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, Load};
use edgelearn_verif::rtl::designs::engine_design;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Marks a directory `cnn random` wrote.
const MARKER: &str = ".edgelearn-cnn-random";

/// A network that diverged on the RTL, and its shrunk version.
struct Failure {
    name: String,
    divergence: String,
    minimal: String,
    steps: usize,
}

pub fn run(a: &CnnRandomArgs) -> anyhow::Result<ExitCode> {
    let shape = EngineShape::with_processors(a.processors);
    if let Err(e) = shape.check() {
        bail!("--processors: {e}");
    }
    claim(&a.out, a.force)?;
    let lim = Limits {
        processors: a.processors,
        layers: a.layers as usize,
        side: a.side as usize,
    };
    let mut bench = match a.run {
        true => {
            let dut = Simulator::from_env().dut(
                Backend::Verilator,
                engine_design(&shape),
                &DutOptions::default(),
            )?;
            Some(CnnBench::new(dut, shape)?)
        }
        false => None,
    };
    let mut cross = Cross::default();
    let (mut refused, mut cycles) = (0, 0u64);
    let mut names = Vec::new();
    let mut failures = Vec::new();
    for i in 0..a.count as usize {
        let name = format!("{i:04}");
        let dir = a.out.join(&name);
        let (c, r) = random::generate(a.seed, i, &dir, &name, &shape, &lim, &mut cross)
            .with_context(|| format!("network {name}"))?;
        refused += r;
        if let Some(b) = bench.as_mut() {
            // A run that differs from the model, or that the bench finds wrong otherwise
            // (stuck, a status register), is a failure to shrink.
            let failed = match simulate(b, &c.net, &c.inf, &c.image, Load::Backdoor) {
                Ok(rep) => {
                    cycles += rep.cycles;
                    rep.first_mismatch().map(|d| d.to_string())
                }
                Err(e) => {
                    b.reset()
                        .context("resetting the engine after a failed run")?;
                    Some(e.to_string())
                }
            };
            if let Some(divergence) = failed {
                eprintln!("cnn random: {name} diverges: {divergence}; shrinking");
                failures.push(shrink_failure(b, &c, &a.out, &name, divergence, &shape)?);
            }
        }
        names.push(name);
        if (i + 1) % 10 == 0 || i + 1 == a.count as usize {
            eprintln!("cnn random: {} of {} networks", i + 1, a.count);
        }
    }
    let plan = regress_file(a, &names, &failures);
    write(&a.out.join("regress.toml"), &plan)?;
    let report = cross_report(a, &cross, refused, bench.is_some(), cycles, &failures);
    write(&a.out.join("cross.md"), &report)?;
    print!("{report}");
    if !failures.is_empty() {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Shrink a diverging network on the same engine model and save the minimal case in
/// `out/failures/NAME/`.
fn shrink_failure(
    bench: &mut CnnBench,
    c: &Candidate,
    out: &Path,
    name: &str,
    divergence: String,
    shape: &EngineShape,
) -> anyhow::Result<Failure> {
    let scratch = out.join("failures").join(".shrinking");
    let mut fails = |c: &Candidate| match simulate(bench, &c.net, &c.inf, &c.image, Load::Backdoor)
    {
        Ok(r) => r.first_mismatch().is_some(),
        Err(_) => {
            // A run that went wrong leaves the engine mid-run: start the next from IDLE.
            let _ = bench.reset();
            true
        }
    };
    let (spec, steps) = random::shrink(&c.spec, &scratch, shape, &mut fails);
    let _ = std::fs::remove_dir_all(&scratch);
    let minimal = format!("failures/{name}");
    let m = Candidate::check(&spec, &out.join(&minimal), name, shape)?;
    let layers = m.spec.layers.len();
    eprintln!("cnn random: {name} shrunk in {steps} steps to {layers} layers: {minimal}");
    Ok(Failure {
        name: name.to_string(),
        divergence,
        minimal,
        steps,
    })
}

/// Refuse a directory with files `cnn random` did not write, or one it wrote without
/// `--force`.
fn claim(out: &Path, force: bool) -> anyhow::Result<()> {
    let used = std::fs::read_dir(out)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if used && !out.join(MARKER).is_file() {
        bail!(
            "{} is not empty and is not a `cnn random` output; not writing into it (give a new directory)",
            out.display()
        );
    }
    if used && !force {
        bail!(
            "{} already holds `cnn random` networks; give --force to write them again",
            out.display()
        );
    }
    if used {
        std::fs::remove_dir_all(out).with_context(|| format!("cannot clear {}", out.display()))?;
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    write(&out.join(MARKER), "written by edgelearn cnn random\n")
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// The regression of the networks (and of the failures' minimal cases): each on the engine
/// RTL, every layer compared with the golden model.
fn regress_file(a: &CnnRandomArgs, names: &[String], failures: &[Failure]) -> String {
    let mut s = format!(
        "# Written by `edgelearn cnn random --seed {} --count {} --processors {}`: each network on\n\
         # the engine RTL, every layer compared with the golden model (`edgelearn regress run`).\n\
         [regress]\nname = \"cnn-random-s{}\"\nroot = \".\"\ntimeout = 900\n",
        a.seed, a.count, a.processors, a.seed
    );
    let dirs = names
        .iter()
        .map(|n| (format!("cnn-random/s{}/{n}", a.seed), n.clone()))
        .chain(failures.iter().map(|f| {
            (
                format!("cnn-random/s{}/{}-minimal", a.seed, f.name),
                f.minimal.clone(),
            )
        }));
    for (job, dir) in dirs {
        let _ = write!(
            s,
            "\n[[job]]\nname = \"{job}\"\nkind = \"cnn\"\nbackend = \"rtl\"\nprocessors = {}\n\
             network = \"{dir}/network.yaml\"\ncheckpoint = \"{dir}/weights.npz\"\ninput = \"{dir}/input.npy\"\n",
            a.processors
        );
    }
    s
}

/// The cross coverage of the run, its holes, and the failures.
fn cross_report(
    a: &CnnRandomArgs,
    cross: &Cross,
    refused: usize,
    ran: bool,
    cycles: u64,
    failures: &[Failure],
) -> String {
    let layers: usize = cross.bins.values().sum();
    let mut s = format!(
        "# Cross coverage of `cnn random --seed {} --count {}` ({} processors)\n\n\
         {} networks, {layers} layers, {} distinct bins of the cross (operator x kernel x \
         padding x pooling x element-wise x weight bits x input format x flatten x output \
         width x processors); {refused} draws the kit refused were drawn again.\n",
        a.seed,
        a.count,
        a.processors,
        a.count,
        cross.bins.len()
    );
    if ran {
        let _ = writeln!(
            s,
            "On the engine RTL: {} of {} bit-exact with the golden model in every layer, {cycles} cycles in all.",
            a.count as usize - failures.len(),
            a.count
        );
    }
    s += "\n| dimension | value: layers |\n|---|---|\n";
    for (d, vs) in DIMENSIONS {
        let cells: Vec<String> = vs
            .iter()
            .map(|v| {
                let n = cross.values.get(&format!("{d}={v}")).copied().unwrap_or(0);
                format!("{v}: {n}")
            })
            .collect();
        let _ = writeln!(s, "| {d} | {} |", cells.join(", "));
    }
    let holes = cross.holes();
    let _ = writeln!(
        s,
        "\nNever drawn ({}): {}\n",
        holes.len(),
        if holes.is_empty() {
            "none".to_string()
        } else {
            holes.join(", ")
        }
    );
    for f in failures {
        let _ = writeln!(
            s,
            "FAILED {}: {}; shrunk in {} steps to {}",
            f.name, f.divergence, f.steps, f.minimal
        );
    }
    s
}

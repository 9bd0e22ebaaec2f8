//! `edgelearn fusesoc`: FuseSoC CAPI2 cores (fpga::fusesoc) beside the emitted Verilog.

use super::emit::build_named;
use anyhow::Context;
use edgelearn_hdl::design::Design;
use std::path::Path;
use std::process::ExitCode;

pub fn run(names: &[String], all: bool, out: &Path, force: bool) -> anyhow::Result<ExitCode> {
    let built = build_named(names, all, None)?;
    let mut cores = Vec::new();
    for (d, summary) in &built {
        cores.push(edgelearn_fpga::fusesoc::core(d.name(), summary)?);
    }
    let core_names: Vec<&str> = cores.iter().map(|(n, _)| n.as_str()).collect();
    edgelearn_sim::emit::check_writable(out, &core_names, force)
        .with_context(|| format!("cannot write cores into {}", out.display()))?;
    let refs: Vec<(&dyn Design, &str)> = built
        .iter()
        .map(|(d, s)| (d.as_ref(), s.as_str()))
        .collect();
    let mut written = edgelearn_sim::emit::emit(out, &refs, force)
        .with_context(|| format!("cannot emit into {}", out.display()))?;
    written.extend(
        edgelearn_sim::emit::write_generated(out, &cores, force)
            .with_context(|| format!("cannot write cores into {}", out.display()))?,
    );
    for p in &written {
        println!("wrote {}", p.display());
    }
    println!(
        "next: fusesoc --cores-root {} run --target sim_icarus {}",
        out.display(),
        edgelearn_fpga::fusesoc::core_name(built[0].0.name())
    );
    Ok(ExitCode::SUCCESS)
}

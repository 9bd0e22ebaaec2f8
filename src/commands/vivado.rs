//! `edgelearn vivado`: a Vivado project for a top on a board (fpga::vivado), next to the
//! top's emitted Verilog in `DIR/src`.

use anyhow::Context;
use edgelearn_fpga::vivado::{self, Project};
use edgelearn_verif::rtl::designs;
use std::path::Path;
use std::process::ExitCode;

/// What `edgelearn vivado` was asked for.
pub struct Args<'a> {
    /// `--board`.
    pub board: &'a str,
    /// `--out`.
    pub out: &'a Path,
    /// `--top`.
    pub top: &'a str,
    /// `--fclk-mhz`.
    pub fclk_mhz: f64,
    /// `--force`.
    pub force: bool,
}

/// The summary of design `name` in the registry.
fn summary(name: &str) -> String {
    designs::entry(name).map(|e| e.summary).unwrap_or_default()
}

pub fn run(a: Args) -> anyhow::Result<ExitCode> {
    let board = vivado::board(a.board)?;
    let design = designs::build(a.top)?;
    let sources = vec![format!("{}.v", design.name())];
    let project = Project::new(board, a.top, design.ports(), sources, a.fclk_mhz)?;
    let files = project.files();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    edgelearn_sim::emit::check_writable(a.out, &names, a.force)
        .with_context(|| format!("cannot write the Vivado project into {}", a.out.display()))?;
    let src = a.out.join("src");
    let mut written =
        edgelearn_sim::emit::emit(&src, &[(design.as_ref(), &summary(a.top))], a.force)
            .with_context(|| format!("cannot emit into {}", src.display()))?;
    written.extend(
        edgelearn_sim::emit::write_generated(a.out, &files, a.force)
            .with_context(|| format!("cannot write into {}", a.out.display()))?,
    );
    for p in &written {
        println!("wrote {}", p.display());
    }
    let unconnected = &project.interfaces.unconnected;
    if !unconnected.is_empty() {
        eprintln!(
            "warning: `{}` has ports outside s_axi/s_axis/m_axis; they stay unconnected in the \
             block design: {}",
            a.top,
            unconnected.join(", ")
        );
    }
    println!(
        "next: vivado -mode batch -source {} (the IP: package_ip.tcl)",
        a.out.join("create_project.tcl").display()
    );
    Ok(ExitCode::SUCCESS)
}

//! Glue between the command line and the library crates.

mod bench;
mod checkpoint;
mod cnn;
mod cnn_finetune;
mod cnn_random;
mod cnn_sim;
mod core;
mod coverage;
mod demo;
mod emit;
mod explore;
mod explore_render;
mod formal;
mod fusesoc;
mod platform;
mod plot;
mod regress;
mod regress_steps;
mod regs;
mod sim;
mod synth;
mod train;
mod vcd;
mod vivado;
mod wave;

use crate::cli::{Cli, Command};
use anyhow::Context;
use edgelearn_verif::lel::config::PlatformConfig;
use std::path::Path;
use std::process::ExitCode;

/// The platform configuration in `path`, with the command line's `--seed` and `--lanes`.
fn load_config(
    path: &Path,
    seed: Option<u64>,
    lanes: Option<usize>,
) -> anyhow::Result<PlatformConfig> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut cfg = PlatformConfig::from_toml(&text)
        .with_context(|| format!("invalid configuration {}", path.display()))?;
    if let Some(s) = seed {
        cfg.seed = s;
    }
    if let Some(l) = lanes {
        cfg = cfg
            .with_lanes(l)
            .with_context(|| format!("{} with --lanes {l}", path.display()))?;
    }
    Ok(cfg)
}

/// Run one command.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Some(s) = cli.tool_timeout {
        edgelearn_sim::tools::set_timeout(std::time::Duration::from_secs_f64(s));
    }
    if let Some(d) = &cli.coverage_dir {
        edgelearn_sim::coverage::collect_into(d);
    }
    match cli.command {
        Command::Blocks { json } => blocks(json),
        Command::Emit {
            blocks,
            all,
            lanes,
            out,
            force,
        } => emit::run(&blocks, all, lanes, &out, force),
        Command::Vivado {
            board,
            out,
            top,
            fclk_mhz,
            force,
        } => vivado::run(vivado::Args {
            board: &board,
            out: &out,
            top: &top,
            fclk_mhz,
            force,
        }),
        Command::Fusesoc {
            names,
            all,
            out,
            force,
        } => fusesoc::run(&names, all, &out, force),
        Command::Demo { out, seed } => demo::run(&out, seed),
        Command::Regs(a) => regs::run(&a),
        Command::Regress { command } => regress::run(command),
        Command::Coverage(a) => coverage::run(a),
        Command::Formal(a) => formal::run(a),
        Command::Bench {
            cycles,
            backends,
            cold,
        } => bench::run(
            cycles,
            &backends.into_iter().map(Into::into).collect::<Vec<_>>(),
            cold,
        ),
        Command::Sim {
            block,
            stimulus,
            backend,
            vcd,
            vcd_depth,
            cycles,
            trace,
            check,
            force,
        } => sim::run(sim::Args {
            block,
            stimulus,
            backend: backend.into(),
            vcd,
            vcd_depth,
            cycles,
            trace,
            check,
            force,
        }),
        Command::Stimulus {
            block,
            kind,
            seed,
            cycles,
            out,
            force,
        } => sim::stimulus(&block, &kind, seed, cycles, &out, force),
        Command::Golden {
            block,
            stimulus,
            out,
            force,
        } => sim::golden(&block, &stimulus, &out, force),
        Command::Synth(a) => synth::run(a),
        Command::Explore(a) => explore::run(a),
        Command::Vcd { command } => vcd::run(command),
        Command::Cnn { command } => cnn::run(command),
        Command::Core { command } => core::run(command),
        Command::Platform { command } => platform::run(command),
        Command::Train(a) => train::run(a),
    }
}

/// `edgelearn blocks`: the registry, one line per design or (`--json`) with its facts.
fn blocks(json: bool) -> anyhow::Result<ExitCode> {
    use edgelearn_verif::rtl::designs::{self, Kind};
    let entries = designs::entries();
    if !json {
        for e in &entries {
            println!("{:<22} {}", e.name, e.summary);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Vec::new();
    for e in &entries {
        let (fc_index, processors) = match e.kind {
            Kind::FcCore(x) => (Some(x), None),
            Kind::CnnEngine(s) => (None, Some(s.processors)),
            _ => (None, None),
        };
        let instructions: Vec<serde_json::Value> = e
            .instructions()
            .iter()
            .map(|(n, c)| serde_json::json!({"name": n, "code": c}))
            .collect();
        let sub_cores: Vec<serde_json::Value> = e
            .sub_cores()?
            .into_iter()
            .map(|c| serde_json::json!({"label": c.label, "module": c.module, "alone": c.alone}))
            .collect();
        // The register map's parameters resolved for a platform (docs/registers.md).
        let register_parameters = match (e.kind, e.platform_config()) {
            (Kind::Platform | Kind::PlatformAxi, Some(cfg)) => {
                Some(edgelearn_fpga::regcheck::design_parameters(&cfg)?)
            }
            _ => None,
        };
        out.push(serde_json::json!({
            "name": e.name,
            "summary": e.summary,
            "kind": e.kind.name(),
            "fc_index": fc_index,
            "processors": processors,
            "config": e.config,
            "golden_model": e.model.is_some(),
            "states": e.states(),
            "instructions": instructions,
            "register_map": e.register_map(),
            "register_parameters": register_parameters,
            "sub_cores": sub_cores,
        }));
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}

//! `edgelearn bench`: simulation speed of each backend on the thesis matmul stimulus.

use anyhow::{bail, Context};
use edgelearn_sim::{check, Backend, RunOptions, Simulator};
use edgelearn_verif::blocks::golden_trace;
use edgelearn_verif::blocks::matmul::{burst_stimulus, thesis_burst};
use edgelearn_verif::rtl::designs;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::process::ExitCode;

pub fn run(cycles: usize, backends: &[Backend], cold: bool) -> anyhow::Result<ExitCode> {
    if cycles < 700 {
        bail!("--cycles must be at least 700 (one 600-row burst and its result)");
    }
    let block = designs::name::LEL_MATMUL;
    let ports = designs::build(block)?.ports().to_vec();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let bursts: Vec<_> = (0..cycles / 601)
        .map(|k| thesis_burst(&mut rng, 600, (k % 8) as u32, 4))
        .collect();
    let (stim, _) = burst_stimulus(&ports, &bursts, 1, cycles - bursts.len() * 601)?;
    let expected = golden_trace(block, &ports, &stim).context("no golden model")?;
    let sim = if cold {
        // A fresh root beside the usual one (under target/), removed afterwards.
        let dir = Simulator::from_env()
            .root()
            .join(format!("bench-cold-{}", std::process::id()));
        Simulator::new(dir)
    } else {
        Simulator::from_env()
    };
    println!(
        "{block}, {} cycles ({} thesis bursts of 600 rows)",
        stim.len(),
        bursts.len()
    );
    println!(
        "{:<16} {:>8} {:>8} {:>10} {:>14} {:>10}",
        "backend", "build s", "cached", "sim s", "cycles/s", "bit-exact"
    );
    let mut ok = true;
    for &b in backends {
        let run = sim.run(b, designs::build(block)?, &stim, &RunOptions::default())?;
        let exact = check(&expected, &run.trace).is_ok();
        ok &= exact;
        println!(
            "{:<16} {:>8.2} {:>8} {:>10.3} {:>14.0} {:>10}",
            b.name(),
            run.stats.build_seconds,
            if run.stats.cached { "yes" } else { "no" },
            run.stats.run_seconds,
            run.stats.cycles_per_second(),
            if exact { "yes" } else { "NO" }
        );
    }
    if cold {
        let _ = std::fs::remove_dir_all(sim.root());
    }
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

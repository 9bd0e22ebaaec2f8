//! `lel_lfsr56` / `lel_lfsr60` / `lel_lfsr112`: the thesis test (random seed, step, compare; T:1078-1085)
//! and its golden trace from the serial model.

use super::{port_row, trace, PortRow};
use crate::golden::lfsr::{Lfsr, LfsrIn};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(LfsrIn => reset, seed, prog, instr);

/// Reset, then `seeds` rounds of: load a random seed (one `prog` clock), then `steps`
/// `instr` clocks, with idle clocks and the seed-0 corner mixed in.
pub fn random_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u64,
    seeds: usize,
    steps: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..seeds {
        let sd: u32 = match k {
            0 => 0,
            1 => 1,
            2 => 0x1_ffff,
            _ => rng.random_range(0..(1 << 17)),
        };
        s.row()
            .bit("reset", false)?
            .set("seed", sd)?
            .bit("prog", true)?
            .bit("instr", false)?
            .push()?;
        for _ in 0..steps {
            let idle = rng.random_range(0..8) == 0;
            s.row()
                .bit("prog", false)?
                .bit("instr", !idle)?
                .set("seed", rng.random_range(0..(1u32 << 17)))?
                .push()?;
        }
    }
    Ok(s)
}

/// Load one seed and step `steps` times (for the period check).
pub fn period_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u32,
    steps: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(block, ports);
    s.row().bit("reset", true)?.push()?;
    s.row()
        .bit("reset", false)?
        .set("seed", seed)?
        .bit("prog", true)?
        .push()?;
    for _ in 0..steps {
        s.row().bit("prog", false)?.bit("instr", true)?.push()?;
    }
    Ok(s)
}

/// Golden trace: `out` on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus, w: usize) -> Expected {
    let mut m = Lfsr::new(w);
    trace(ports, stim, LfsrIn::read, |i| {
        ("out", m.step_wide(i).clone())
    })
}

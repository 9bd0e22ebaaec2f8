//! `lel_loss`: the thesis test (inputs in -12,288..12,288, every label, `instr` high for two
//! cycles, read three cycles after it falls; T:1010-1018) with the region boundaries
//! +-8192 and +-8193 always included, random traffic, and the golden trace.

use super::{port_row, trace, PortRow};
use crate::golden::loss::{Loss, LossIn};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(LossIn => reset, true_label, data_in, alpha_e, instr);

/// Classes.
pub const CLASSES: usize = 10;

/// The boundary inputs always included.
pub const BOUNDARIES: [i64; 8] = [-8193, -8192, -8191, 0, 8191, 8192, 8193, -12288];

/// One thesis trial per (label, alpha_e) pair, repeated `trials` times: inputs held, `instr`
/// high for two cycles, then five idle cycles. Every vector carries boundary values in
/// rotating lanes. Returns the stimulus and the cycle at which `instr` falls per trial.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    trials: usize,
    alphas: &[u32],
) -> Result<(Stimulus, Vec<usize>)> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LOSS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut falls = vec![];
    let mut k = 0;
    for _ in 0..trials {
        for &alpha in alphas {
            for label in 0..CLASSES as u32 {
                let mut x: Vec<i64> = (0..CLASSES)
                    .map(|_| rng.random_range(-12_288..=12_288))
                    .collect();
                for j in 0..3 {
                    x[(k + 3 * j) % CLASSES] = BOUNDARIES[(k + j) % BOUNDARIES.len()];
                }
                k += 1;
                for _ in 0..2 {
                    s.row()
                        .bit("reset", false)?
                        .set_lanes("data_in", &x)?
                        .set("true_label", label)?
                        .set("alpha_e", alpha)?
                        .bit("instr", true)?
                        .push()?;
                }
                falls.push(s.len());
                for _ in 0..5 {
                    s.row().bit("instr", false)?.push()?;
                }
            }
        }
    }
    Ok((s, falls))
}

/// Random inputs over the whole 23-bit range and around the boundaries, labels 0..15,
/// every alpha, random `instr` and occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LOSS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let x: Vec<i64> = (0..CLASSES)
            .map(|_| match rng.random_range(0..4) {
                0 => rng.random_range(-(1 << 22)..(1 << 22)),
                1 => BOUNDARIES[rng.random_range(0..BOUNDARIES.len())] + rng.random_range(-2..=2),
                _ => rng.random_range(-12_288..=12_288),
            })
            .collect();
        s.row()
            .bit("reset", rng.random_range(0..300) == 0)?
            .set_lanes("data_in", &x)?
            .set("true_label", rng.random_range(0..16u32))?
            .set("alpha_e", rng.random_range(0..8u32))?
            .bit("instr", rng.random_range(0..3) != 0)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `data_out` on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = Loss::new(CLASSES);
    trace(ports, stim, LossIn::read, |i| ("data_out", m.step(i)))
}

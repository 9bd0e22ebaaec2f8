//! `lel_wu_group` (the FC core's weight update with its LFSR, behind its simulation gate):
//! the core's LS_WU traffic (a word at stage 1 steps the LFSR, the next cycle the update
//! takes it) in bursts with the corner values, the state left with the reads still
//! running (operand isolation), an idle stretch longer than the gate's hold, and random
//! traffic; the golden trace from `golden::wu_group`.

use super::{corner_lanes, port_row, trace, PortRow, CORNERS_6, CORNERS_8};
use crate::golden::wu_group::{WuGroup, WuGroupIn};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Lanes of the registered group.
pub const LANES: usize = 4;

port_row!(WuGroupIn => reset, en, v1, v2, seed, prog, weight, act, err, lr_shift);

/// One row: the word's operands random with corner values.
fn row(
    s: &mut Stimulus,
    rng: &mut Xoshiro256PlusPlus,
    reset: bool,
    en: bool,
    v1: bool,
    v2: bool,
    lr: u32,
) -> Result<()> {
    let lanes = |rng: &mut Xoshiro256PlusPlus, c: &[i64], bits| {
        corner_lanes(rng, LANES, c, bits)
            .iter()
            .map(|&x| x as i64)
            .collect()
    };
    WuGroupIn {
        reset,
        en,
        v1,
        v2,
        weight: lanes(rng, &CORNERS_6, 6),
        err: lanes(rng, &CORNERS_8, 8),
        act: corner_lanes(rng, 1, &CORNERS_8, 8)[0] as i64,
        lr_shift: lr,
        ..Default::default()
    }
    .push(s)
}

/// The core's LS_WU traffic: per `lr_shift` 0..7 a reseed, then 60 words issued with gaps
/// (stage 2 one cycle after stage 1), then the reads running on outside LS_WU, then 80 idle
/// cycles with the errors held, as the core holds them (past the gate's 64-cycle hold: the
/// gate sleeps).
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_WU_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for lr in 0..8u32 {
        let seed = rng.random_range(1..1u32 << 17);
        WuGroupIn {
            prog: true,
            seed,
            ..Default::default()
        }
        .push(&mut s)?;
        let mut v1 = false;
        for _ in 0..60 {
            let issue = rng.random_range(0..4) != 0;
            row(&mut s, &mut rng, false, true, issue, v1, lr)?;
            v1 = issue;
        }
        for k in 0..20 {
            row(&mut s, &mut rng, false, false, k % 2 == 0, k % 2 == 1, lr)?;
        }
        // Idle as in the core: the pass's errors held (an empty lane list keeps them).
        for _ in 0..80 {
            let idle = WuGroupIn {
                lr_shift: lr,
                ..Default::default()
            };
            idle.push(&mut s)?;
        }
    }
    Ok(s)
}

/// Random rows: every input random, the state and the stages mostly on, rare resets and
/// reseeds.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_WU_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let reset = rng.random_range(0..300) == 0;
        let en = rng.random_range(0..5) != 0;
        let (v1, v2) = (rng.random_range(0..4) != 0, rng.random_range(0..4) != 0);
        let lr = rng.random_range(0..8u32);
        row(&mut s, &mut rng, reset, en, v1, v2, lr)?;
        if rng.random_range(0..200) == 0 {
            let seed = rng.random_range(0..1u32 << 17);
            WuGroupIn {
                prog: true,
                seed,
                ..Default::default()
            }
            .push(&mut s)?;
        }
    }
    Ok(s)
}

/// Golden trace: `weight_out` on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = WuGroup::new(LANES);
    trace(ports, stim, WuGroupIn::read, |i| ("weight_out", m.step(i)))
}

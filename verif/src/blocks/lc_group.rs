//! `lel_lc_group` (the FC core's local classifier, forward, behind its simulation gate):
//! the core's images (a reseed at LS_INF, the LC rows after the last pass with corner
//! inputs, the result kept; a reseed at LS_BK and the rows' weights stepped again; an idle
//! stretch longer than the gate's hold) and random traffic; the golden trace from
//! `golden::lc_group`.

use super::{corner_lanes, out_row, port_row, trace, PortRow, CORNERS_8};
use crate::golden::lc_group::{LcGroup, LcGroupIn, LcGroupOut};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(LcGroupOut => weights, lc, lc_valid, done);

/// Classes of the registered group.
pub const CLASSES: usize = 10;

port_row!(LcGroupIn => reset, en, run, valid, data, step, seed, prog);

/// Six images as the core runs them: LS_INF (reseed, a stretch of passes, then 24 LC
/// rows, each stepping the weights, and the burst's end), LS_BK (reseed, the rows' weights
/// stepped again), then 80 idle cycles.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    LcGroupIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..6 {
        let seed = rng.random_range(1..1u32 << 17);
        let inf = LcGroupIn {
            en: true,
            seed,
            ..Default::default()
        };
        LcGroupIn { prog: true, ..inf }.push(&mut s)?;
        for _ in 0..30 {
            inf.push(&mut s)?;
        }
        let run = LcGroupIn { run: true, ..inf };
        LcGroupIn { step: true, ..run }.push(&mut s)?;
        for n in 0..24 {
            let data = corner_lanes(&mut rng, 1, &CORNERS_8, 8)[0] as i64;
            LcGroupIn {
                valid: true,
                data,
                step: n < 23,
                ..run
            }
            .push(&mut s)?;
        }
        for _ in 0..4 {
            run.push(&mut s)?;
        }
        let bk = LcGroupIn {
            seed,
            ..Default::default()
        };
        LcGroupIn { prog: true, ..bk }.push(&mut s)?;
        for _ in 0..24 {
            LcGroupIn {
                step: true,
                valid: true,
                ..bk
            }
            .push(&mut s)?;
        }
        for _ in 0..80 {
            LcGroupIn::default().push(&mut s)?;
        }
    }
    Ok(s)
}

/// Random rows: every input random, rare resets and reseeds.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    LcGroupIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        let i = LcGroupIn {
            reset: rng.random_range(0..300) == 0,
            en: rng.random_range(0..5) != 0,
            run: rng.random_range(0..3) != 0,
            valid: rng.random_range(0..4) != 0,
            data: corner_lanes(&mut rng, 1, &CORNERS_8, 8)[0] as i64,
            step: rng.random_range(0..2) == 0,
            seed: rng.random_range(0..1u32 << 17),
            prog: rng.random_range(0..150) == 0,
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = LcGroup::new(CLASSES);
    trace(ports, stim, LcGroupIn::read, |i| m.step(i))
}

//! `lel_lc_group` (the FC core's local classifier, forward, behind its simulation gate):
//! the core's images (a reseed at LS_INF, the LC rows after the last pass with corner
//! inputs, the result kept; a reseed at LS_BK and the rows' weights stepped again; an idle
//! stretch longer than the gate's hold) and random traffic; the golden trace from
//! `golden::lc_group`.

use super::{blank, corner_lanes, View, CORNERS_8};
use crate::golden::lc_group::{LcGroup, LcGroupIn};
use edgelearn_sim::{pack_lanes, Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Classes of the registered group.
pub const CLASSES: usize = 10;

/// One row of the group's inputs.
fn row(s: &mut Stimulus, i: &LcGroupIn) -> Result<()> {
    s.row()
        .bit("reset", i.reset)?
        .bit("en", i.en)?
        .bit("run", i.run)?
        .bit("valid", i.valid)?
        .set_signed("data", i.data)?
        .bit("step", i.step)?
        .set("seed", i.seed)?
        .bit("prog", i.prog)?
        .push()
}

/// Six images as the core runs them: LS_INF (reseed, a stretch of passes, then 24 LC
/// rows, each stepping the weights, and the burst's end), LS_BK (reseed, the rows' weights
/// stepped again), then 80 idle cycles.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    row(
        &mut s,
        &LcGroupIn {
            reset: true,
            ..Default::default()
        },
    )?;
    for _ in 0..6 {
        let seed = rng.random_range(1..1u32 << 17);
        let inf = LcGroupIn {
            en: true,
            seed,
            ..Default::default()
        };
        row(&mut s, &LcGroupIn { prog: true, ..inf })?;
        for _ in 0..30 {
            row(&mut s, &inf)?;
        }
        let run = LcGroupIn { run: true, ..inf };
        row(&mut s, &LcGroupIn { step: true, ..run })?;
        for n in 0..24 {
            let data = corner_lanes(&mut rng, 1, &CORNERS_8, 8)[0] as i64;
            row(
                &mut s,
                &LcGroupIn {
                    valid: true,
                    data,
                    step: n < 23,
                    ..run
                },
            )?;
        }
        for _ in 0..4 {
            row(&mut s, &run)?;
        }
        let bk = LcGroupIn {
            seed,
            ..Default::default()
        };
        row(&mut s, &LcGroupIn { prog: true, ..bk })?;
        for _ in 0..24 {
            row(
                &mut s,
                &LcGroupIn {
                    step: true,
                    valid: true,
                    ..bk
                },
            )?;
        }
        for _ in 0..80 {
            row(&mut s, &LcGroupIn::default())?;
        }
    }
    Ok(s)
}

/// Random rows: every input random, rare resets and reseeds.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    row(
        &mut s,
        &LcGroupIn {
            reset: true,
            ..Default::default()
        },
    )?;
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
        row(&mut s, &i)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = LcGroup::new(CLASSES);
    for c in 0..stim.len() {
        let o = m.step(&LcGroupIn {
            reset: v.bit(c, "reset"),
            en: v.bit(c, "en"),
            run: v.bit(c, "run"),
            valid: v.bit(c, "valid"),
            data: v.signed(c, "data"),
            step: v.bit(c, "step"),
            seed: v.unsigned(c, "seed") as u32,
            prog: v.bit(c, "prog"),
        });
        e.set(c, "weights", pack_lanes(&o.weights, 6));
        e.set(c, "lc", pack_lanes(&o.lc, 23));
        e.set(c, "lc_valid", BigUint::from(o.lc_valid as u8));
        e.set(c, "done", BigUint::from(o.done as u8));
    }
    e
}

//! `lel_classification`: the thesis test (10 values in -(2^22-1)..2^22-1, `en` for one
//! cycle, read at `classify_done`; T:1187-1190) with ties and extremes, random traffic, and
//! the golden trace.

use super::{blank, port_row, PortRow, View};
use crate::golden::classification::{Classification, ClassificationIn};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ClassificationIn => reset, lc_out, en);

/// Classes.
pub const CLASSES: usize = 10;
const LIM: i64 = (1 << 22) - 1;

fn vector(rng: &mut Xoshiro256PlusPlus, k: usize) -> Vec<i64> {
    let mut v: Vec<i64> = (0..CLASSES).map(|_| rng.random_range(-LIM..=LIM)).collect();
    match k % 8 {
        0 => {}
        1 => {
            // A tie for the maximum: the first must win.
            let m = *v.iter().max().unwrap();
            let j = rng.random_range(0..CLASSES);
            v[j] = m;
        }
        2 => v = vec![rng.random_range(-LIM..=LIM); CLASSES],
        3 => v.iter_mut().for_each(|x| *x = -x.abs() - 1),
        4 => v[CLASSES - 1] = LIM,
        5 => {
            v[0] = LIM;
            v[CLASSES - 1] = LIM;
        }
        6 => v = vec![-(1 << 22); CLASSES],
        _ => v[rng.random_range(0..CLASSES)] = -(1 << 22),
    }
    v
}

/// `trials` thesis trials: the vector held, `en` high for one cycle, 12 idle cycles.
/// Returns the stimulus and the cycle `en` falls in each trial.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    trials: usize,
) -> Result<(Stimulus, Vec<usize>)> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_CLASSIFICATION, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut falls = vec![];
    for k in 0..trials {
        let v = vector(&mut rng, k);
        s.row()
            .bit("reset", false)?
            .set_lanes("lc_out", &v)?
            .bit("en", true)?
            .push()?;
        falls.push(s.len());
        for _ in 0..12 {
            s.row().bit("en", false)?.push()?;
        }
    }
    Ok((s, falls))
}

/// Random vectors changing every cycle, `en` at random (restarts while busy included),
/// occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_CLASSIFICATION, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..cycles {
        let v = vector(&mut rng, k);
        s.row()
            .bit("reset", rng.random_range(0..300) == 0)?
            .set_lanes("lc_out", &v)?
            .bit("en", rng.random_range(0..8) == 0)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `classify_done` always; the results while it is high.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = Classification::new();
    for c in 0..stim.len() {
        let o = m.step(&ClassificationIn::read(&v, c));
        e.set(c, "classify_done", BigUint::from(o.result.is_some() as u8));
        if let Some((max, idx)) = o.result {
            e.set(c, "max_lc_out", from_signed(max, 23));
            e.set(c, "class_num", BigUint::from(idx));
        }
    }
    e
}

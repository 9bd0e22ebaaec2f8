//! `lel_mm_group` (the FC core's forward matmul behind its simulation gate): LS_INF's
//! passes (bursts of rows with the corner values, a pass result after each), rows offered
//! outside LS_INF (operand isolation: not taken), an idle stretch longer than the gate's
//! hold, and random traffic; the golden trace from `golden::mm_group`.

use super::{blank, corner_lanes, port_row, PortRow, View, CORNERS_6, CORNERS_8};
use crate::golden::mm_group::{MmGroup, MmGroupIn};
use edgelearn_sim::{pack_lanes, Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Lanes of the registered group.
pub const LANES: usize = 4;

port_row!(MmGroupIn => reset, en, valid, act, weight, alpha_fc, alpha_lc);

/// One row: the operands random with corner values.
fn row(
    s: &mut Stimulus,
    rng: &mut Xoshiro256PlusPlus,
    reset: bool,
    en: bool,
    valid: bool,
    alphas: (u32, u32),
) -> Result<()> {
    MmGroupIn {
        reset,
        en,
        valid,
        act: corner_lanes(rng, 1, &CORNERS_8, 8)[0] as i64,
        weight: corner_lanes(rng, LANES, &CORNERS_6, 6)
            .iter()
            .map(|&x| x as i64)
            .collect(),
        alpha_fc: alphas.0,
        alpha_lc: alphas.1,
    }
    .push(s)
}

/// LS_INF's passes: for each scale pair, eight passes of 5..60 rows with two idle cycles
/// after each, then rows offered outside LS_INF, then 80 idle cycles.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_MM_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for a in 0..8u32 {
        let alphas = (a, 7 - a);
        for _ in 0..8 {
            for _ in 0..rng.random_range(5..60) {
                row(&mut s, &mut rng, false, true, true, alphas)?;
            }
            for _ in 0..2 {
                row(&mut s, &mut rng, false, true, false, alphas)?;
            }
        }
        for _ in 0..20 {
            row(&mut s, &mut rng, false, false, true, alphas)?;
        }
        for _ in 0..80 {
            row(&mut s, &mut rng, false, false, false, alphas)?;
        }
    }
    Ok(s)
}

/// Random rows: every input random, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_MM_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let reset = rng.random_range(0..300) == 0;
        let en = rng.random_range(0..6) != 0;
        let valid = rng.random_range(0..5) != 0;
        let alphas = (rng.random_range(0..8u32), rng.random_range(0..8u32));
        row(&mut s, &mut rng, reset, en, valid, alphas)?;
    }
    Ok(s)
}

/// Golden trace: `valid_out` on every cycle, the results with it.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = MmGroup::new(LANES);
    for c in 0..stim.len() {
        let o = m.step(&MmGroupIn::read(&v, c));
        e.set(c, "valid_out", BigUint::from(o.valid_out as u8));
        if let Some(r) = o.result {
            e.set(c, "output_to_fc", pack_lanes(&r.to_fc, 8));
            e.set(c, "output_to_lc", pack_lanes(&r.to_lc, 8));
            let mask: Vec<i64> = r.relu_mask.iter().map(|&b| b as i64).collect();
            e.set(c, "relu_mask", pack_lanes(&mask, 1));
        }
    }
    e
}

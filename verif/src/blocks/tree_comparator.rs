//! `lel_tree_comparator`: the thesis test (100 rows of 9 values in -127..127, T:1161-1167),
//! random streams with corner values, and the golden trace.

use super::{blank, port, View, CORNERS_8};
use crate::blocks::{port_row, PortRow};
use crate::golden::tree_comparator::{TreeComparator, TreeComparatorIn};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(TreeComparatorIn => reset, data_in, instr, valid_in);

/// Lanes of the thesis comparator.
pub const LANES: usize = 9;

/// One reset cycle, `rows` rows of random values in -127..127 streamed back to back with
/// `instr` and `valid_in` high, then `tail` idle cycles. The first row is cycle 1.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    rows: usize,
    tail: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TREE_COMPARATOR, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..rows {
        let row: Vec<i64> = (0..LANES).map(|_| rng.random_range(-127..=127)).collect();
        s.row()
            .bit("reset", false)?
            .bit("instr", true)?
            .bit("valid_in", true)?
            .set_lanes("data_in", &row)?
            .push()?;
    }
    for _ in 0..tail {
        s.row()
            .bit("instr", false)?
            .bit("valid_in", false)?
            .push()?;
    }
    Ok(s)
}

/// Random rows over the full 8-bit range with corner values, random `valid_in`/`instr`
/// gaps, and occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TREE_COMPARATOR, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let row: Vec<i64> = (0..LANES)
            .map(|_| {
                if rng.random_range(0..4) == 0 {
                    CORNERS_8[rng.random_range(0..CORNERS_8.len())]
                } else {
                    rng.random_range(-128..=127)
                }
            })
            .collect();
        s.row()
            .bit("reset", rng.random_range(0..200) == 0)?
            .bit("instr", rng.random_range(0..10) != 0)?
            .bit("valid_in", rng.random_range(0..5) != 0)?
            .set_lanes("data_in", &row)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `valid_out` every cycle, `data_out` while `valid_out`.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let w = port(ports, "data_out").width;
    let mut m = TreeComparator::new();
    for c in 0..stim.len() {
        let o = m.step(&TreeComparatorIn::read(&v, c));
        e.set(c, "valid_out", BigUint::from(o.valid_out as u8));
        if let Some(d) = o.data_out {
            e.set(c, "data_out", from_signed(d, w));
        }
    }
    e
}

//! `lel_tree_adder` and `lel_tree_adder_conv`: the thesis test (error held, 480 weight rows,
//! T:964-970), mask toggling, conv windows for every alpha, random traffic with corner
//! values, and the golden traces.

use super::{blank, View, CORNERS_6, CORNERS_8};
use crate::golden::tree_adder::{TreeAdder, TreeAdderIn, TreeAdderRole};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Lanes of the thesis tree adder.
pub const LANES: usize = 10;

/// The thesis test: reset, one error vector (-127..127) held on the port, `rows` weight
/// rows (-31..31) streamed with `instr`, `relu_mask` and `valid_in` high (or the mask
/// toggling at random when `toggle_mask`), then a tail. The first row is cycle 1.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    rows: usize,
    toggle_mask: bool,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TREE_ADDER, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let error: Vec<i64> = (0..LANES).map(|_| rng.random_range(-127..=127)).collect();
    s.row().bit("reset", true)?.push()?;
    for _ in 0..rows {
        let w: Vec<i64> = (0..LANES).map(|_| rng.random_range(-31..=31)).collect();
        let mask = !toggle_mask || rng.random_range(0..2) == 0;
        s.row()
            .bit("reset", false)?
            .set_lanes("error", &error)?
            .set_lanes("weight", &w)?
            .bit("relu_mask", mask)?
            .bit("instr", true)?
            .bit("valid_in", true)?
            .push()?;
    }
    for _ in 0..10 {
        s.row().bit("valid_in", false)?.push()?;
    }
    Ok(s)
}

fn corner8(rng: &mut Xoshiro256PlusPlus) -> i64 {
    if rng.random_range(0..4) == 0 {
        CORNERS_8[rng.random_range(0..CORNERS_8.len())]
    } else {
        rng.random_range(-128..=127)
    }
}

fn corner6(rng: &mut Xoshiro256PlusPlus) -> i64 {
    if rng.random_range(0..4) == 0 {
        CORNERS_6[rng.random_range(0..CORNERS_6.len())]
    } else {
        rng.random_range(-32..=31)
    }
}

/// Random rows over the full ranges with corner values and all-extreme rows, random
/// mask, `instr`, `valid_in`, and occasional resets. For `lel_tree_adder_conv` the tenth
/// lane is zero (as the conv core drives it) unless `tenth_lane`, and `alpha_conv` varies.
pub fn random_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u64,
    cycles: usize,
    tenth_lane: bool,
) -> Result<Stimulus> {
    let conv = block == crate::rtl::designs::name::LEL_TREE_ADDER_CONV;
    let data_port = if conv { "data_in" } else { "error" };
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let extreme = rng.random_range(0..20) == 0;
        let mut d: Vec<i64> = (0..LANES)
            .map(|_| if extreme { -128 } else { corner8(&mut rng) })
            .collect();
        let mut w: Vec<i64> = (0..LANES)
            .map(|_| if extreme { -32 } else { corner6(&mut rng) })
            .collect();
        if conv && !tenth_lane {
            d[LANES - 1] = 0;
            w[LANES - 1] = 0;
        }
        let mut r = s
            .row()
            .bit("reset", rng.random_range(0..500) == 0)?
            .set_lanes(data_port, &d)?
            .set_lanes("weight", &w)?
            .bit("instr", rng.random_range(0..10) != 0)?
            .bit("valid_in", rng.random_range(0..6) != 0)?;
        r = if conv {
            r.set("alpha_conv", rng.random_range(0..8u32))?
        } else {
            r.bit("relu_mask", rng.random_range(0..4) != 0)?
        };
        r.push()?;
    }
    Ok(s)
}

/// Conv windows: reset, then for each alpha 0..7, `rows` windows of 9 pixels in -127..127
/// with 9 kernel weights in -31..31 (tenth lanes zero), back to back, then a tail.
pub fn conv_stimulus(ports: &[PortSpec], seed: u64, rows: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TREE_ADDER_CONV, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for alpha in 0..8u32 {
        for _ in 0..rows {
            let mut d: Vec<i64> = (0..LANES).map(|_| rng.random_range(-127..=127)).collect();
            let mut w: Vec<i64> = (0..LANES).map(|_| rng.random_range(-31..=31)).collect();
            d[LANES - 1] = 0;
            w[LANES - 1] = 0;
            s.row()
                .bit("reset", false)?
                .set_lanes("data_in", &d)?
                .set_lanes("weight", &w)?
                .set("alpha_conv", alpha)?
                .bit("instr", true)?
                .bit("valid_in", true)?
                .push()?;
        }
    }
    for _ in 0..10 {
        s.row().bit("valid_in", false)?.push()?;
    }
    Ok(s)
}

/// Golden trace: `valid_out` always, `data_out` while `valid_out`.
pub fn expected(ports: &[PortSpec], stim: &Stimulus, role: TreeAdderRole) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = TreeAdder::new(role);
    for c in 0..stim.len() {
        let o = m.step(&match role {
            TreeAdderRole::LcBackward => TreeAdderIn {
                reset: v.bit(c, "reset"),
                data: v.lanes(c, "error"),
                weight: v.lanes(c, "weight"),
                relu_mask: v.bit(c, "relu_mask"),
                alpha_conv: 0,
                instr: v.bit(c, "instr"),
                valid_in: v.bit(c, "valid_in"),
            },
            TreeAdderRole::Conv => TreeAdderIn {
                reset: v.bit(c, "reset"),
                data: v.lanes(c, "data_in"),
                weight: v.lanes(c, "weight"),
                relu_mask: true,
                alpha_conv: v.unsigned(c, "alpha_conv") as u32,
                instr: v.bit(c, "instr"),
                valid_in: v.bit(c, "valid_in"),
            },
        });
        e.set(c, "valid_out", BigUint::from(o.is_some() as u8));
        if let Some(d) = o {
            e.set(c, "data_out", from_signed(d, 8));
        }
    }
    e
}

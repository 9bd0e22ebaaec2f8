//! `lel_lc_forward`: a 480-input burst (post-ReLU inputs 0..127, weights -31..31), random
//! traffic with corner values, and the golden trace.

use super::{blank, port_row, PortRow, View, CORNERS_6, CORNERS_8};
use crate::golden::lc_forward::{LcForward, LcForwardIn, LC_ACC_BITS};
use edgelearn_sim::{pack_lanes, Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(LcForwardIn => reset, data_in, weight, instr, valid_in);

/// Outputs of the thesis LC.
pub const OUTPUTS: usize = 10;

/// Reset, then `vectors` bursts of `rows` rows (inputs 0..127, weights -31..31) one idle
/// cycle apart, then a tail. Returns the stimulus and each burst's first row.
pub fn burst_stimulus(
    ports: &[PortSpec],
    seed: u64,
    vectors: usize,
    rows: usize,
) -> Result<(Stimulus, Vec<usize>)> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_FORWARD, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut starts = vec![];
    for v in 0..vectors {
        if v > 0 {
            s.row().bit("valid_in", false)?.push()?;
        }
        starts.push(s.len());
        for _ in 0..rows {
            let w: Vec<i64> = (0..OUTPUTS).map(|_| rng.random_range(-31..=31)).collect();
            s.row()
                .bit("reset", false)?
                .bit("instr", true)?
                .bit("valid_in", true)?
                .set_signed("data_in", rng.random_range(0..=127))?
                .set_lanes("weight", &w)?
                .push()?;
        }
    }
    for _ in 0..4 {
        s.row().bit("valid_in", false)?.push()?;
    }
    Ok((s, starts))
}

/// Random bursts over the full ranges with corner values, dropping `instr`/`valid_in`,
/// occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_LC_FORWARD, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    while s.len() < cycles {
        let len = if rng.random_range(0..3) == 0 {
            rng.random_range(400..=520)
        } else {
            rng.random_range(1..=30)
        };
        let extreme = rng.random_range(0..5) == 0;
        for _ in 0..len {
            let x = if extreme {
                -128
            } else if rng.random_range(0..4) == 0 {
                CORNERS_8[rng.random_range(0..CORNERS_8.len())]
            } else {
                rng.random_range(-128..=127)
            };
            let w: Vec<i64> = (0..OUTPUTS)
                .map(|_| {
                    if extreme {
                        -32
                    } else if rng.random_range(0..4) == 0 {
                        CORNERS_6[rng.random_range(0..CORNERS_6.len())]
                    } else {
                        rng.random_range(-32..=31)
                    }
                })
                .collect();
            s.row()
                .bit("reset", rng.random_range(0..4000) == 0)?
                .bit("instr", rng.random_range(0..150) != 0)?
                .bit("valid_in", true)?
                .set_signed("data_in", x)?
                .set_lanes("weight", &w)?
                .push()?;
        }
        for _ in 0..rng.random_range(1..=3) {
            s.row()
                .bit("reset", false)?
                .bit("valid_in", false)?
                .push()?;
        }
    }
    Ok(s)
}

/// Golden trace: `valid_out` always; `data_out` while `valid_out`.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = LcForward::new(OUTPUTS);
    for c in 0..stim.len() {
        let o = m.step(&LcForwardIn::read(&v, c));
        e.set(c, "valid_out", BigUint::from(o.is_some() as u8));
        if let Some(sums) = o {
            e.set(c, "data_out", pack_lanes(&sums, LC_ACC_BITS as usize));
        }
    }
    e
}

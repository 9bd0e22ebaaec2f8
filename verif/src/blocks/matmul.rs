//! `lel_matmul`: the thesis test (600 x 4 weights in -31..31, 600 inputs in -127..127,
//! streamed with `instr = valid_in = 1`, repeated; T:920-927), random bursts with corner
//! values, and the golden trace.

use super::{blank, port_row, PortRow, View, CORNERS_6, CORNERS_8};
use crate::golden::matmul::{Matmul, MatmulConfig, MatmulIn};
use edgelearn_sim::{pack_lanes, Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(MatmulIn => reset, data_in, weight, instr, alpha_fc, alpha_lc, valid_in);

/// One burst of the thesis test.
#[derive(Clone, Debug)]
pub struct Burst {
    /// Activations.
    pub data: Vec<i64>,
    /// Weights per row, per lane.
    pub weights: Vec<Vec<i64>>,
    /// Scale field for `output_to_fc`.
    pub alpha_fc: u32,
    /// Scale field for `output_to_lc`.
    pub alpha_lc: u32,
}

/// A random thesis burst: `rows` rows, weights in -31..31, inputs in -127..127.
pub fn thesis_burst(
    rng: &mut Xoshiro256PlusPlus,
    rows: usize,
    alpha_fc: u32,
    alpha_lc: u32,
) -> Burst {
    Burst {
        data: (0..rows).map(|_| rng.random_range(-127..=127)).collect(),
        weights: (0..rows)
            .map(|_| (0..4).map(|_| rng.random_range(-31..=31)).collect())
            .collect(),
        alpha_fc,
        alpha_lc,
    }
}

/// Reset for one cycle, then each burst streamed with `instr = valid_in = 1`, bursts
/// separated by `gap` idle cycles, then `tail` idle cycles. Returns the stimulus and the
/// cycle of each burst's first row.
pub fn burst_stimulus(
    ports: &[PortSpec],
    bursts: &[Burst],
    gap: usize,
    tail: usize,
) -> Result<(Stimulus, Vec<usize>)> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_MATMUL, ports);
    let mut starts = Vec::new();
    s.row().bit("reset", true)?.push()?;
    for (k, b) in bursts.iter().enumerate() {
        if k > 0 {
            for _ in 0..gap {
                s.row()
                    .bit("instr", false)?
                    .bit("valid_in", false)?
                    .push()?;
            }
        }
        starts.push(s.len());
        for (x, w) in b.data.iter().zip(&b.weights) {
            s.row()
                .bit("reset", false)?
                .bit("instr", true)?
                .bit("valid_in", true)?
                .set_signed("data_in", *x)?
                .set_lanes("weight", w)?
                .set("alpha_fc", b.alpha_fc)?
                .set("alpha_lc", b.alpha_lc)?
                .push()?;
        }
    }
    for _ in 0..tail {
        s.row()
            .bit("instr", false)?
            .bit("valid_in", false)?
            .push()?;
    }
    Ok((s, starts))
}

/// The thesis test: two 600-row bursts (so the second exercises the time-division reuse),
/// one idle cycle apart, with the given scale fields.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    alpha_fc: u32,
    alpha_lc: u32,
) -> Result<(Stimulus, Vec<Burst>, Vec<usize>)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let bursts = vec![
        thesis_burst(&mut rng, 600, alpha_fc, alpha_lc),
        thesis_burst(&mut rng, 600, alpha_fc, alpha_lc),
    ];
    let (s, starts) = burst_stimulus(ports, &bursts, 1, 8)?;
    Ok((s, bursts, starts))
}

/// Random traffic: bursts of 1..700 rows over the full operand ranges with corner values,
/// random scale fields on every row, `instr` and `valid_in` dropping independently,
/// gaps of 1..4 cycles and occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_MATMUL, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    while s.len() < cycles {
        let len = if rng.random_range(0..4) == 0 {
            rng.random_range(300..=700)
        } else {
            rng.random_range(1..=40)
        };
        let extreme = rng.random_range(0..6) == 0;
        for _ in 0..len {
            let x = if extreme {
                if rng.random_range(0..2) == 0 {
                    -128
                } else {
                    127
                }
            } else if rng.random_range(0..5) == 0 {
                CORNERS_8[rng.random_range(0..CORNERS_8.len())]
            } else {
                rng.random_range(-128..=127)
            };
            let w: Vec<i64> = (0..4)
                .map(|_| {
                    if extreme {
                        -32
                    } else if rng.random_range(0..5) == 0 {
                        CORNERS_6[rng.random_range(0..CORNERS_6.len())]
                    } else {
                        rng.random_range(-32..=31)
                    }
                })
                .collect();
            s.row()
                .bit("reset", rng.random_range(0..3000) == 0)?
                .bit("instr", rng.random_range(0..200) != 0)?
                .bit("valid_in", true)?
                .set_signed("data_in", x)?
                .set_lanes("weight", &w)?
                .set("alpha_fc", rng.random_range(0..8u32))?
                .set("alpha_lc", rng.random_range(0..8u32))?
                .push()?;
        }
        for _ in 0..rng.random_range(1..=4) {
            s.row()
                .bit("reset", false)?
                .bit("valid_in", false)?
                .bit("instr", rng.random_range(0..2) == 0)?
                .push()?;
        }
    }
    Ok(s)
}

/// Golden trace: `valid_out` every cycle; the data ports while `valid_out`.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let cfg = MatmulConfig::THESIS;
    let mut m = Matmul::new(cfg);
    for c in 0..stim.len() {
        let o = m.step(&MatmulIn::read(&v, c));
        e.set(c, "valid_out", BigUint::from(o.valid_out as u8));
        if let Some(r) = o.result {
            e.set(
                c,
                "output_to_fc",
                pack_lanes(&r.to_fc, cfg.out_bits as usize),
            );
            e.set(
                c,
                "output_to_lc",
                pack_lanes(&r.to_lc, cfg.out_bits as usize),
            );
            let mask: Vec<i64> = r.relu_mask.iter().map(|&b| b as i64).collect();
            e.set(c, "relu_mask", pack_lanes(&mask, 1));
            e.set(c, "debug_acc", pack_lanes(&r.acc, cfg.acc_bits as usize));
        }
    }
    e
}

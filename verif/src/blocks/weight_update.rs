//! `lel_weight_update`: the thesis test (600 rows of weights, activations and one held error
//! vector in -31..31, random numbers 0..16383; T:1045-1052) for every `lr_shift`, the
//! corners g = 0, p = rnd and saturation at +-31, random traffic, and the golden trace.

use super::{port_row, trace, PortRow, View, CORNERS_6, CORNERS_8};
use crate::golden::weight_update::{weight_update, WeightUpdate, WeightUpdateIn};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(WeightUpdateIn => reset, weight_in, data_in, err, lr_shift, rnd, instr);

/// Lanes.
pub const LANES: usize = 4;

fn push_row(
    s: &mut Stimulus,
    w: &[i64],
    x: i64,
    e: &[i64],
    lr: u32,
    rnd: &[i64],
    instr: bool,
) -> Result<()> {
    WeightUpdateIn {
        reset: false,
        weight_in: w.to_vec(),
        data_in: x,
        err: e.to_vec(),
        lr_shift: lr,
        rnd: rnd.iter().map(|&r| r as u64).collect(),
        instr,
    }
    .push(s)
}

/// The thesis test once per `lr_shift` 0..7: 600 rows each, `instr` high, followed by the
/// corner rows: g = 0 (x = 0 and e = 0), p == rnd exactly (no update), p == rnd + 1
/// (update), and weights at +-31 pushed outward and at -32. Returns the stimulus and the
/// first row of each `lr_shift` block.
pub fn thesis_stimulus(
    ports: &[PortSpec],
    seed: u64,
    rows: usize,
) -> Result<(Stimulus, Vec<usize>)> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_WEIGHT_UPDATE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut starts = vec![];
    for lr in 0..8u32 {
        let e: Vec<i64> = (0..LANES).map(|_| rng.random_range(-31..=31)).collect();
        starts.push(s.len());
        for _ in 0..rows {
            let w: Vec<i64> = (0..LANES).map(|_| rng.random_range(-31..=31)).collect();
            let rnd: Vec<i64> = (0..LANES).map(|_| rng.random_range(0..=16_383)).collect();
            push_row(&mut s, &w, rng.random_range(-31..=31), &e, lr, &rnd, true)?;
        }
        // g = 0: no update whatever rnd is.
        push_row(&mut s, &[5, -5, 31, -31], 0, &e, lr, &[0, 0, 0, 0], true)?;
        push_row(
            &mut s,
            &[5, -5, 31, -31],
            17,
            &[0, 0, 0, 0],
            lr,
            &[0, 0, 0, 0],
            true,
        )?;
        // p == rnd: no update; p == rnd + 1: update.
        let x = 31;
        let ev = [31i64, -31, 17, -3];
        let p: Vec<i64> = ev
            .iter()
            .map(|e| (x * e).unsigned_abs() as i64 >> lr)
            .collect();
        push_row(&mut s, &[0, 0, 0, 0], x, &ev, lr, &p, true)?;
        let below: Vec<i64> = p.iter().map(|&p| (p - 1).max(0)).collect();
        push_row(&mut s, &[0, 0, 0, 0], x, &ev, lr, &below, true)?;
        // Saturation: +31 pushed up, -31 pushed down, -32 stepped, with rnd 0 (update if p > 0).
        push_row(
            &mut s,
            &[31, -31, -32, -32],
            127,
            &[127, -127, 127, -127],
            lr,
            &[0, 0, 0, 0],
            true,
        )?;
        push_row(
            &mut s,
            &[31, -31, 30, -30],
            -128,
            &[-128, 127, -128, 127],
            lr,
            &[0, 0, 0, 0],
            true,
        )?;
    }
    for _ in 0..4 {
        s.row().bit("instr", false)?.push()?;
    }
    Ok((s, starts))
}

/// Random rows over the full ranges with corner values, random `instr`, `lr_shift` and
/// occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_WEIGHT_UPDATE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for _ in 0..cycles {
        let w: Vec<i64> = (0..LANES)
            .map(|_| {
                if rng.random_range(0..3) == 0 {
                    CORNERS_6[rng.random_range(0..CORNERS_6.len())]
                } else {
                    rng.random_range(-32..=31)
                }
            })
            .collect();
        let e: Vec<i64> = (0..LANES)
            .map(|_| {
                if rng.random_range(0..3) == 0 {
                    CORNERS_8[rng.random_range(0..CORNERS_8.len())]
                } else {
                    rng.random_range(-128..=127)
                }
            })
            .collect();
        let rnd: Vec<i64> = (0..LANES)
            .map(|_| {
                if rng.random_range(0..8) == 0 {
                    [0, 16_383, 1][rng.random_range(0..3)]
                } else {
                    rng.random_range(0..=16_383)
                }
            })
            .collect();
        let x = if rng.random_range(0..3) == 0 {
            CORNERS_8[rng.random_range(0..CORNERS_8.len())]
        } else {
            rng.random_range(-128..=127)
        };
        s.row()
            .bit("reset", rng.random_range(0..400) == 0)?
            .set_lanes("weight_in", &w)?
            .set_signed("data_in", x)?
            .set_lanes("err", &e)?
            .set("lr_shift", rng.random_range(0..8u32))?
            .set_lanes("rnd", &rnd)?
            .bit("instr", rng.random_range(0..8) != 0)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `weight_out` on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = WeightUpdate::new(LANES);
    trace(ports, stim, WeightUpdateIn::read, |i| {
        ("weight_out", m.step(i))
    })
}

/// How many lanes of the thesis rows update (for a test that the stimulus exercises both).
pub fn updates_in(stim: &Stimulus) -> (usize, usize) {
    let v = View::new(stim);
    let (mut yes, mut no) = (0, 0);
    for c in 0..stim.len() {
        if !v.bit(c, "instr") || v.bit(c, "reset") {
            continue;
        }
        let (w, e, r) = (
            v.lanes(c, "weight_in"),
            v.lanes(c, "err"),
            v.lanes(c, "rnd"),
        );
        for l in 0..LANES {
            let nw = weight_update(
                w[l],
                v.signed(c, "data_in"),
                e[l],
                v.unsigned(c, "lr_shift") as u32,
                r[l] as u64,
            );
            if nw != w[l] {
                yes += 1;
            } else {
                no += 1;
            }
        }
    }
    (yes, no)
}

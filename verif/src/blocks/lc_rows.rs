//! `lel_lc_rows`: the FC core's LC row walk as the core drives it (the thesis FC0's 480
//! rows forward in LS_INF, then backward in LS_BK, the memories answering with corner and
//! random words), random traffic (every input random, small row counts, rare resets), and
//! the golden trace.

use super::{corner_lanes, out_row, trace, View, CORNERS_8};
use crate::golden::lc_rows::{LcRows, LcRowsIn, LcRowsOut};
use crate::rtl::designs::name::LEL_LC_ROWS;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(LcRowsOut => step, word, valid, lc_in, lc_mask);

/// Lanes of the registered block (the thesis core's).
pub const LANES: usize = 4;

fn push(s: &mut Stimulus, i: &LcRowsIn) -> Result<()> {
    let lanes: Vec<i64> = i.lcin.iter().map(|&v| v as i64).collect();
    let mask = i.mask.iter().rev().fold(0u8, |m, &b| (m << 1) | b as u8);
    s.row()
        .bit("reset", i.reset)?
        .bit("clear", i.clear)?
        .bit("fwd", i.fwd)?
        .bit("bk", i.bk)?
        .set("rows", i.rows)?
        .set_lanes("lcin_data", &lanes)?
        .set("mask_data", mask)?
        .push()
}

fn word(rng: &mut Xoshiro256PlusPlus) -> (Vec<i8>, Vec<bool>) {
    let v = corner_lanes(rng, LANES, &CORNERS_8, 8);
    (v, (0..LANES).map(|_| rng.random()).collect())
}

/// FC0 of the thesis (O 480): a few cycles idle, the forward walk (LS_INF after the last
/// pass), LS_LOSS, the backward walk (LS_BK) and a few cycles after it, each state entered
/// with `clear`.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_LC_ROWS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let rows = 480;
    let mut i = LcRowsIn {
        reset: true,
        rows,
        ..Default::default()
    };
    (i.lcin, i.mask) = word(&mut rng);
    push(&mut s, &i)?;
    i.reset = false;
    // (cycles, clear at the first, fwd, bk): idle in INF, the forward walk, LOSS, BK.
    for (cycles, fwd, bk) in [
        (5, false, false),
        (rows as usize + 4, true, false),
        (1, false, false),
        (rows as usize + 6, false, true),
    ] {
        for c in 0..cycles {
            (i.clear, i.fwd, i.bk) = (c == 0, fwd, bk);
            (i.lcin, i.mask) = word(&mut rng);
            push(&mut s, &i)?;
        }
    }
    Ok(s)
}

/// Random traffic: clears, walks in either direction and resets at random, 1..40 rows.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_LC_ROWS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut i = LcRowsIn {
        reset: true,
        rows: 9,
        ..Default::default()
    };
    (i.lcin, i.mask) = word(&mut rng);
    push(&mut s, &i)?;
    for _ in 0..cycles {
        i.reset = rng.random_range(0..200) == 0;
        i.clear = rng.random_range(0..30) == 0;
        if i.clear {
            i.rows = rng.random_range(1..40);
        }
        i.fwd = rng.random_range(0..3) != 0;
        i.bk = rng.random();
        (i.lcin, i.mask) = word(&mut rng);
        push(&mut s, &i)?;
    }
    Ok(s)
}

/// Cycle `c`'s inputs: the LC memory's word as lanes, the mask word as bits.
fn read_in(v: &View, c: usize) -> LcRowsIn {
    let mask = v.unsigned(c, "mask_data");
    LcRowsIn {
        reset: v.bit(c, "reset"),
        clear: v.bit(c, "clear"),
        fwd: v.bit(c, "fwd"),
        bk: v.bit(c, "bk"),
        rows: v.unsigned(c, "rows") as u16,
        lcin: v.lanes(c, "lcin_data").iter().map(|&x| x as i8).collect(),
        mask: (0..LANES).map(|j| mask >> j & 1 == 1).collect(),
    }
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = LcRows::new(LANES);
    trace(ports, stim, read_in, |i| {
        m.step(i);
        m.outputs(i)
    })
}

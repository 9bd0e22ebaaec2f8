//! `lel_conv_scan`: the conv core's CONV phase as the core drives it (two channels of the
//! thesis's 32 x 32 image from the golden image cache, the tree adder's results six cycles
//! after each window, POOL's idle cycles between them), random traffic (random shapes, rows,
//! `active` dropping, resets), and the golden trace.

use super::{out_row, trace, View};
use crate::golden::conv_scan::{ConvScan, ConvScanIn, ConvScanOut, Row};
use crate::golden::triout_cache::{TrioutCache, TrioutGeometry, TrioutIn};
use crate::rtl::designs::name::LEL_CONV_SCAN;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

out_row!(ConvScanOut => rows_clr, rows_pop, window, window_valid, fm_addr, done);

/// The tree adder's latency in the conv role: a window's result is written this many
/// cycles after it.
const RESULT_LATENCY: usize = 6;

/// A row as the port's value.
pub(super) fn row_value(row: &Row) -> BigUint {
    BigUint::from_bytes_le(row)
}

/// A row from the port's value.
pub(super) fn row_of(v: &View, c: usize, port: &str) -> Row {
    let bytes = v.raw(c, port).to_bytes_le();
    std::array::from_fn(|k| bytes.get(k).copied().unwrap_or(0))
}

/// A random row, corner values first.
pub(super) fn random_row(rng: &mut Xoshiro256PlusPlus) -> Row {
    std::array::from_fn(|k| {
        super::CORNERS_8
            .get(k)
            .copied()
            .unwrap_or_else(|| rng.random_range(-128..=127)) as u8
    })
}

/// One cycle of a scan's random control: a rare reset, `active` mostly high, the rows valid
/// on about a third of the cycles (new random rows each time).
pub(super) fn random_control(
    rng: &mut Xoshiro256PlusPlus,
    rows: &mut [Row; 3],
) -> (bool, bool, bool) {
    let reset = rng.random_range(0..400) == 0;
    let active = rng.random_range(0..30) != 0;
    let valid = rng.random_range(0..3) == 0;
    if valid {
        *rows = std::array::from_fn(|_| random_row(rng));
    }
    (reset, active, valid)
}

fn push(s: &mut Stimulus, i: &ConvScanIn) -> Result<()> {
    s.row()
        .bit("reset", i.reset)?
        .bit("active", i.active)?
        .set("rows_last", i.rows_last)?
        .set("shift_last", i.shift_last)?
        .set("cols_last", i.cols_last)?
        .bit("rows_valid", i.rows_valid)?
        .set("row0", row_value(&i.rows[0]))?
        .set("row1", row_value(&i.rows[1]))?
        .set("row2", row_value(&i.rows[2]))?
        .bit("result", i.result)?
        .push()
}

/// Two channels of a random thesis image (3 x 32 x 32 in the golden image cache), scanned
/// as the core does: CS_CONV until `done`, then 40 cycles of CS_POOL; the rows and results
/// are what the cache and the tree adder give back.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_SCAN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let g = TrioutGeometry::THESIS_IMAGE;
    let mut cache = TrioutCache::new(g);
    for ch in 0..3 {
        for y in 0..32 {
            cache.write_row(ch, y, &random_row(&mut rng));
        }
    }
    let mut m = ConvScan::new();
    let base = ConvScanIn {
        rows_last: 29,
        shift_last: 31,
        cols_last: 29,
        ..Default::default()
    };
    let mut results: VecDeque<bool> = vec![false; RESULT_LATENCY].into();
    let (mut valid, mut rows) = (false, [[0u8; 32]; 3]);
    push(
        &mut s,
        &ConvScanIn {
            reset: true,
            ..base
        },
    )?;
    for channel in [0, 2] {
        let mut pool = 0;
        while pool < 40 {
            let i = ConvScanIn {
                active: pool == 0,
                rows_valid: valid,
                rows,
                result: results.pop_front().unwrap_or(false),
                ..base
            };
            push(&mut s, &i)?;
            let o = m.outputs(&i);
            let c = cache.step(&TrioutIn {
                cur_channel: channel,
                clr_opt: o.rows_clr,
                pop_en: o.rows_pop,
                ..Default::default()
            });
            valid = c.valid_out;
            rows = c.row_bytes().unwrap_or(rows);
            m.step(&i);
            results.push_back(m.outputs(&i).window_valid);
            pool += (pool > 0 || o.done) as usize;
        }
    }
    Ok(s)
}

/// Random traffic: small random shapes, random rows on about a third of the cycles,
/// `active` mostly high, random results, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_SCAN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(
        &mut s,
        &ConvScanIn {
            reset: true,
            ..Default::default()
        },
    )?;
    let mut i = ConvScanIn::default();
    for k in 0..cycles {
        if k % 200 == 0 {
            i.rows_last = rng.random_range(0..5);
            i.shift_last = rng.random_range(2..9);
            i.cols_last = rng.random_range(0..7);
        }
        (i.reset, i.active, i.rows_valid) = random_control(&mut rng, &mut i.rows);
        i.result = rng.random_range(0..2) == 0;
        push(&mut s, &i)?;
    }
    Ok(s)
}

/// Cycle `c`'s inputs: the three rows as windows of bytes.
fn read_in(v: &View, c: usize) -> ConvScanIn {
    ConvScanIn {
        reset: v.bit(c, "reset"),
        active: v.bit(c, "active"),
        rows_last: v.unsigned(c, "rows_last") as u8,
        shift_last: v.unsigned(c, "shift_last") as u8,
        cols_last: v.unsigned(c, "cols_last") as u8,
        rows_valid: v.bit(c, "rows_valid"),
        rows: ["row0", "row1", "row2"].map(|p| row_of(v, c, p)),
        result: v.bit(c, "result"),
    }
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = ConvScan::new();
    trace(ports, stim, read_in, |i| {
        m.step(i);
        m.outputs(i)
    })
}

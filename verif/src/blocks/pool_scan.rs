//! `lel_pool_scan`: the conv core's POOL phase as the core drives it (two channels of a
//! thesis 30 x 30 feature map from the golden inter-FM cache, the output's `room` dropping
//! now and then, CONV's cycles between them), random traffic (random shapes, rows, `room`,
//! `active` dropping, resets), and the golden trace.

use super::conv_scan::{random_control, random_row, row_of, row_value};
use super::{out_row, trace, View};
use crate::golden::pool_scan::{PoolScan, PoolScanIn, PoolScanOut};
use crate::golden::triout_cache::{TrioutCache, TrioutGeometry, TrioutIn};
use crate::rtl::designs::name::LEL_POOL_SCAN;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(PoolScanOut => rows_clr, rows_pop, window, window_valid, done);

/// The thesis's inter-FM cache: one 30 x 30 channel, one int8 a word.
const THESIS_FM: TrioutGeometry = TrioutGeometry {
    channels: 1,
    rows: 30,
    words: 32,
    lanes: 1,
    row_bits: 5,
    channel_bits: 1,
};

fn push(s: &mut Stimulus, i: &PoolScanIn) -> Result<()> {
    s.row()
        .bit("reset", i.reset)?
        .bit("active", i.active)?
        .set("rows_last", i.rows_last)?
        .set("cols_last", i.cols_last)?
        .bit("rows_valid", i.rows_valid)?
        .set("row0", row_value(&i.rows[0]))?
        .set("row1", row_value(&i.rows[1]))?
        .set("row2", row_value(&i.rows[2]))?
        .bit("room", i.room)?
        .push()
}

/// Two channels as the core pools them: a random 30 x 30 map written into the golden
/// inter-FM cache (CONV's cycles, `active` low), then CS_POOL until `done`, `room` low on
/// about one cycle in eight.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_POOL_SCAN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut cache = TrioutCache::new(THESIS_FM);
    let mut m = PoolScan::new();
    let base = PoolScanIn {
        rows_last: 9,
        cols_last: 9,
        ..Default::default()
    };
    let (mut valid, mut rows) = (false, [[0u8; 32]; 3]);
    push(
        &mut s,
        &PoolScanIn {
            reset: true,
            ..base
        },
    )?;
    m.step(&PoolScanIn {
        reset: true,
        ..base
    });
    for _channel in 0..2 {
        for y in 0..30 {
            let row = random_row(&mut rng);
            for (x, &p) in row.iter().take(30).enumerate() {
                let i = PoolScanIn {
                    rows_valid: valid,
                    rows,
                    ..base
                };
                push(&mut s, &i)?;
                m.step(&i);
                cache.step(&TrioutIn {
                    addr_in: THESIS_FM.address(0, y, x),
                    data_in: vec![p as i64],
                    wr_en: true,
                    ..Default::default()
                });
            }
        }
        loop {
            let i = PoolScanIn {
                active: true,
                rows_valid: valid,
                rows,
                room: rng.random_range(0..8) != 0,
                ..base
            };
            push(&mut s, &i)?;
            let o = m.outputs(&i);
            let c = cache.step(&TrioutIn {
                clr_opt: o.rows_clr,
                pop_en: o.rows_pop,
                ..Default::default()
            });
            valid = c.valid_out;
            rows = c.row_bytes().unwrap_or(rows);
            m.step(&i);
            if o.done {
                break;
            }
        }
    }
    Ok(s)
}

/// Random traffic: small random shapes, random rows on about a third of the cycles, `room`
/// and `active` mostly high, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_POOL_SCAN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(
        &mut s,
        &PoolScanIn {
            reset: true,
            ..Default::default()
        },
    )?;
    let mut i = PoolScanIn::default();
    for k in 0..cycles {
        if k % 200 == 0 {
            i.rows_last = rng.random_range(0..4);
            i.cols_last = rng.random_range(0..11);
        }
        (i.reset, i.active, i.rows_valid) = random_control(&mut rng, &mut i.rows);
        i.room = rng.random_range(0..5) != 0;
        push(&mut s, &i)?;
    }
    Ok(s)
}

/// Cycle `c`'s inputs: the three rows as windows of bytes.
fn read_in(v: &View, c: usize) -> PoolScanIn {
    PoolScanIn {
        reset: v.bit(c, "reset"),
        active: v.bit(c, "active"),
        rows_last: v.unsigned(c, "rows_last") as u8,
        cols_last: v.unsigned(c, "cols_last") as u8,
        rows_valid: v.bit(c, "rows_valid"),
        rows: ["row0", "row1", "row2"].map(|p| row_of(v, c, p)),
        room: v.bit(c, "room"),
    }
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = PoolScan::new();
    trace(ports, stim, read_in, |i| {
        m.step(i);
        m.outputs(i)
    })
}

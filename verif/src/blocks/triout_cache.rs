//! `lel_triout_cache`: the thesis test (3 channels of 32 x 32 written 4 values per write,
//! `clr_opt`, compare rows 0-2, `pop_en` for more than 32 cycles, compare the last three
//! rows and `eof`; T:1135-1142) for every channel, random traffic, and the golden trace.

use super::{blank, View};
use crate::blocks::{port_row, PortRow};
use crate::golden::triout_cache::{TrioutCache, TrioutGeometry, TrioutIn};
use edgelearn_sim::{pack_lanes, Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(TrioutIn => reset, addr_in, data_in, wr_en, cur_channel, clr_opt, pop_en);

/// The thesis image geometry.
pub const GEOMETRY: TrioutGeometry = TrioutGeometry::THESIS_IMAGE;

/// What the thesis stimulus did, for latency checks.
#[derive(Clone, Debug, Default)]
pub struct TrioutPlan {
    /// Per channel: the cycle `clr_opt` falls.
    pub clr_falls: Vec<usize>,
    /// Per channel: the cycle `pop_en` rises.
    pub pop_rises: Vec<usize>,
    /// The image written, `[channel][row][x]`.
    pub image: Vec<Vec<Vec<i64>>>,
}

/// Reset; write the 3 x 32 x 32 image (values -127..127) at addresses 0..767, 4 pixels per
/// write; then per channel: `clr_opt` for 2 cycles with `cur_channel` set, 6 idle cycles,
/// `pop_en` for 64 cycles, 4 idle cycles.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<(Stimulus, TrioutPlan)> {
    let g = GEOMETRY;
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TRIOUT_CACHE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let image: Vec<Vec<Vec<i64>>> = (0..g.channels)
        .map(|_| {
            (0..g.rows)
                .map(|_| {
                    (0..g.width())
                        .map(|_| rng.random_range(-127..=127))
                        .collect()
                })
                .collect()
        })
        .collect();
    s.row().bit("reset", true)?.push()?;
    for (ch, rows) in image.iter().enumerate() {
        for (r, row) in rows.iter().enumerate() {
            for w in 0..g.words {
                s.row()
                    .bit("reset", false)?
                    .set("addr_in", g.address(ch, r, w) as u64)?
                    .set_lanes("data_in", &row[w * g.lanes..(w + 1) * g.lanes])?
                    .bit("wr_en", true)?
                    .push()?;
            }
        }
    }
    let mut plan = TrioutPlan {
        image,
        ..Default::default()
    };
    for ch in 0..g.channels {
        s.row()
            .bit("wr_en", false)?
            .set("cur_channel", ch as u64)?
            .bit("clr_opt", true)?
            .push()?;
        s.row().push()?;
        plan.clr_falls.push(s.len());
        for _ in 0..6 {
            s.row().bit("clr_opt", false)?.push()?;
        }
        plan.pop_rises.push(s.len());
        for _ in 0..64 {
            s.row().bit("pop_en", true)?.push()?;
        }
        for _ in 0..4 {
            s.row().bit("pop_en", false)?.push()?;
        }
    }
    Ok((s, plan))
}

/// Random writes, `clr_opt` pulses on random channels (including the unused fourth),
/// `pop_en` patterns, and occasional resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let g = GEOMETRY;
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_TRIOUT_CACHE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut pop_mode = 0;
    for c in 0..cycles {
        if c % 50 == 0 {
            pop_mode = rng.random_range(0..3);
        }
        let px: Vec<i64> = (0..g.lanes).map(|_| rng.random_range(-128..=127)).collect();
        let pop = match pop_mode {
            0 => true,
            1 => rng.random_range(0..2) == 0,
            _ => rng.random_range(0..10) == 0,
        };
        s.row()
            .bit("reset", rng.random_range(0..2000) == 0)?
            .set("addr_in", rng.random_range(0..1024u64))?
            .set_lanes("data_in", &px)?
            .bit("wr_en", rng.random_range(0..3) != 0)?
            .set("cur_channel", rng.random_range(0..4u64))?
            .bit("clr_opt", rng.random_range(0..60) == 0)?
            .bit("pop_en", pop)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `valid_out` and `eof` always; the rows while `valid_out`.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = TrioutCache::new(GEOMETRY);
    for c in 0..stim.len() {
        let o = m.step(&TrioutIn::read(&v, c));
        e.set(c, "valid_out", BigUint::from(o.valid_out as u8));
        e.set(c, "eof", BigUint::from(o.eof as u8));
        if let Some(rows) = o.rows {
            e.set(c, "data_out0", pack_lanes(&rows[0], 8));
            e.set(c, "data_out1", pack_lanes(&rows[1], 8));
            e.set(c, "data_out2", pack_lanes(&rows[2], 8));
        }
    }
    e
}

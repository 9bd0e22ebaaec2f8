//! `lel_conv_load`: the conv core's LOAD phase as the core drives it (the thesis's
//! 3 x 32 x 32 image with the stream's gaps, then a second image), random traffic (random
//! shapes, starts, `active` dropping, resets), and the golden trace.

use super::{out_row, trace};
use crate::blocks::{port_row, PortRow};
use crate::golden::conv_load::{ConvLoad, ConvLoadIn, ConvLoadOut};
use crate::rtl::designs::name::LEL_CONV_LOAD;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(ConvLoadOut => s_tready, wr_en, wr_addr, wr_data, label, done);

port_row!(ConvLoadIn => reset, start, active, in_last, rows_last, words_last, s_tdata, s_tvalid, s_tuser);

/// A beat of four pixels, corner values first.
fn beat(rng: &mut Xoshiro256PlusPlus, k: usize) -> u64 {
    (0..4).fold(0u64, |w, j| {
        let v = super::CORNERS_8
            .get(4 * k + j)
            .copied()
            .unwrap_or_else(|| rng.random_range(-128..=127));
        w | ((v as u8 as u64) << (8 * j))
    })
}

/// Two thesis images (3 x 32 x 32: 768 beats each) as the core loads them: `start`, then
/// CS_LOAD until `done`, beats on about nine cycles in ten.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_LOAD, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut m = ConvLoad::new();
    let shape = ConvLoadIn {
        in_last: 2,
        rows_last: 31,
        words_last: 7,
        ..Default::default()
    };
    let push = |s: &mut Stimulus, m: &mut ConvLoad, i: ConvLoadIn| -> Result<bool> {
        s.row()
            .bit("reset", i.reset)?
            .bit("start", i.start)?
            .bit("active", i.active)?
            .set("in_last", i.in_last)?
            .set("rows_last", i.rows_last)?
            .set("words_last", i.words_last)?
            .set("s_tdata", i.s_tdata)?
            .bit("s_tvalid", i.s_tvalid)?
            .set("s_tuser", i.s_tuser)?
            .push()?;
        let done = m.outputs(&i).done;
        m.step(&i);
        Ok(done)
    };
    push(
        &mut s,
        &mut m,
        ConvLoadIn {
            reset: true,
            ..shape
        },
    )?;
    for image in 0..2u8 {
        push(
            &mut s,
            &mut m,
            ConvLoadIn {
                start: true,
                ..shape
            },
        )?;
        let mut k = 0;
        loop {
            let valid = rng.random_range(0..10) != 0;
            let i = ConvLoadIn {
                active: true,
                s_tvalid: valid,
                s_tdata: beat(&mut rng, k) as u32,
                s_tuser: 3 + image * 5 + (k as u8 & 1),
                ..shape
            };
            k += valid as usize;
            if push(&mut s, &mut m, i)? {
                break;
            }
        }
        push(&mut s, &mut m, shape)?;
    }
    Ok(s)
}

/// Random traffic: small random shapes, `start` now and then, `active` on most cycles,
/// beats on about half, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_LOAD, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut shape = (0u64, 0u64, 0u64);
    for k in 0..cycles {
        let start = rng.random_range(0..60) == 0;
        if start {
            shape = (
                rng.random_range(0..4),
                rng.random_range(0..6),
                rng.random_range(0..8),
            );
        }
        s.row()
            .bit("reset", rng.random_range(0..300) == 0)?
            .bit("start", start)?
            .bit("active", rng.random_range(0..8) != 0)?
            .set("in_last", shape.0)?
            .set("rows_last", shape.1)?
            .set("words_last", shape.2)?
            .set("s_tdata", beat(&mut rng, k))?
            .bit("s_tvalid", rng.random_range(0..2) == 0)?
            .set("s_tuser", rng.random_range(0..16u64))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = ConvLoad::new();
    trace(ports, stim, ConvLoadIn::read, |i| {
        m.step(i);
        m.outputs(i)
    })
}

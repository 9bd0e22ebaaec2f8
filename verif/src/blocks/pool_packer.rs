//! `lel_pool_packer`: the conv core's output stage as the core drives it (one image of the
//! thesis's 24 x 10 x 10 pooled values, in POOL's bursts with pauses between rows, a `clear`
//! before the image), random traffic (clears and resets anywhere, clears with a value), and
//! the golden trace.

use super::{out_row, trace};
use crate::blocks::{port_row, PortRow};
use crate::golden::pool_packer::{PoolPacker, PoolPackerIn, PoolPackerOut};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(PoolPackerOut => push, data, last);

port_row!(PoolPackerIn => reset, clear, valid, value, total);

/// The corner values first, then random ones.
fn value(rng: &mut Xoshiro256PlusPlus, k: usize) -> i64 {
    super::CORNERS_8
        .get(k)
        .copied()
        .unwrap_or_else(|| rng.random_range(-128..=127))
}

/// One thesis image: 2,400 pooled values in rows of 10 (POOL's windows), three idle cycles
/// after each row (the pops), a `clear` first.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_POOL_PACKER, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let total = 24 * 10 * 10;
    s.row()
        .bit("reset", true)?
        .set("total", total as u64)?
        .push()?;
    s.row().bit("reset", false)?.bit("clear", true)?.push()?;
    s.row().bit("clear", false)?.push()?;
    for k in 0..total {
        s.row()
            .bit("valid", true)?
            .set_signed("value", value(&mut rng, k))?
            .push()?;
        if k % 10 == 9 {
            for _ in 0..3 {
                s.row().bit("valid", false)?.push()?;
            }
        }
    }
    Ok(s)
}

/// Random traffic over short images (`total` 1..=40): values on about half the cycles,
/// `clear` now and then (sometimes with a value), rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_POOL_PACKER, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..cycles {
        s.row()
            .bit("reset", rng.random_range(0..200) == 0)?
            .bit("clear", rng.random_range(0..25) == 0)?
            .bit("valid", rng.random_range(0..2) == 0)?
            .set_signed("value", value(&mut rng, k))?
            .set("total", rng.random_range(1..=40u64))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = PoolPacker::new();
    trace(ports, stim, PoolPackerIn::read, |i| {
        m.step(i);
        m.outputs(i)
    })
}

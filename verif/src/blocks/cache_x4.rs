//! `lel_cache_x4_act`, `lel_cache_x4_weight`, `lel_cache_x4_grad`: the thesis test (a
//! random 4 x depth x width tensor written row by row with `p_sel`/`addr0`, then read back;
//! T:1108-1111), random traffic, and the golden trace.

use super::{blank, port, View};
use crate::golden::cache_x4::{CacheX4, CacheX4In};
use edgelearn_sim::value::mask;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Words per cache of each scenario (docs/decisions.md D-CACHE); must equal
/// `edgelearn_hdl::lel::cache_x4::CACHE_*_DEPTH` (checked in `tests/cache_x4.rs`).
pub fn depth(block: &str) -> Option<usize> {
    match block {
        crate::rtl::designs::name::LEL_CACHE_X4_ACT => Some(150),
        crate::rtl::designs::name::LEL_CACHE_X4_WEIGHT => Some(18_000),
        crate::rtl::designs::name::LEL_CACHE_X4_GRAD => Some(120),
        _ => None,
    }
}

fn random_word(rng: &mut Xoshiro256PlusPlus, width: usize) -> BigUint {
    BigUint::from(rng.random::<u64>()) & mask(width)
}

/// Reset, write every word of the four caches, then read every word back (addresses in
/// order, the cache select changing with them), then a tail. Returns the stimulus and the
/// cycle of the first read.
pub fn thesis_stimulus(block: &str, ports: &[PortSpec], seed: u64) -> Result<(Stimulus, usize)> {
    let d = depth(block).expect("cache scenario");
    let width = port(ports, "data_in0").width;
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..4u32 {
        for a in 0..d {
            s.row()
                .bit("reset", false)?
                .set("p_sel", k)?
                .set("addr0", a as u64)?
                .set("data_in0", random_word(&mut rng, width))?
                .bit("wr_en", true)?
                .push()?;
        }
    }
    let first_read = s.len();
    for k in 0..4u32 {
        for a in 0..d {
            s.row()
                .bit("wr_en", false)?
                .set("p_sel", k)?
                .set("addr1", a as u64)?
                .push()?;
        }
    }
    for _ in 0..3 {
        s.row().push()?;
    }
    Ok((s, first_read))
}

/// Random writes and reads (same-address collisions, addresses past the depth, every
/// select) with occasional resets.
pub fn random_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u64,
    cycles: usize,
) -> Result<Stimulus> {
    let d = depth(block).expect("cache scenario") as u64;
    let p = port(ports, "addr0");
    let amax = (1u64 << p.width) - 1;
    let width = port(ports, "data_in0").width;
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    // Hot addresses make reads of written words and collisions frequent.
    let hot: Vec<u64> = (0..8)
        .map(|_| rng.random_range(0..d))
        .chain([0, d - 1, d.min(amax), amax])
        .collect();
    for _ in 0..cycles {
        let pick = |rng: &mut Xoshiro256PlusPlus| {
            if rng.random_range(0..2) == 0 {
                hot[rng.random_range(0..hot.len())]
            } else {
                rng.random_range(0..=amax)
            }
        };
        let a0 = pick(&mut rng);
        let a1 = if rng.random_range(0..6) == 0 {
            a0
        } else {
            pick(&mut rng)
        };
        s.row()
            .bit("reset", rng.random_range(0..500) == 0)?
            .set("p_sel", rng.random_range(0..4u32))?
            .set("addr0", a0)?
            .set("data_in0", random_word(&mut rng, width))?
            .bit("wr_en", rng.random_range(0..2) == 0)?
            .set("addr1", a1)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace: `data_out1` on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = CacheX4::new(depth(&stim.block).expect("cache scenario"));
    for c in 0..stim.len() {
        let out = m.step(&CacheX4In {
            reset: v.bit(c, "reset"),
            p_sel: v.unsigned(c, "p_sel") as usize,
            addr0: v.unsigned(c, "addr0") as usize,
            data_in0: v.raw(c, "data_in0").to_u64().unwrap_or(0),
            wr_en: v.bit(c, "wr_en"),
            addr1: v.unsigned(c, "addr1") as usize,
        });
        e.set(c, "data_out1", BigUint::from(out));
    }
    e
}

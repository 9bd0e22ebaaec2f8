//! `arith_check_wide`: exhaustive sweeps of the wide multiplies and Dot9 (issue 27) and its
//! golden trace.

use super::{blank, View};
use crate::golden::arith::{arith_check_wide, ArithWideIn};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Corner bytes (two's complement): -128, -127, 127, -31, 31, 0, 1, -1.
const CORNER_BYTES: [u8; 8] = [0x80, 0x81, 0x7f, 0xe1, 0x1f, 0x00, 0x01, 0xff];

fn push(s: &mut Stimulus, a: u32, b: u32, x: u128, w: u128, n: u8) -> Result<()> {
    s.row()
        .set("a", a)?
        .set("b", b)?
        .set("x", BigUint::from(x))?
        .set("w", BigUint::from(w))?
        .set("n", n)?
        .push()
}

/// Nine random bytes, each a corner value one time in four.
fn bytes(rng: &mut Xoshiro256PlusPlus) -> u128 {
    let mut v = 0u128;
    for t in 0..9 {
        let b: u8 = if rng.random_range(0..4) == 0 {
            CORNER_BYTES[rng.random_range(0..CORNER_BYTES.len())]
        } else {
            rng.random()
        };
        v |= (b as u128) << (8 * t);
    }
    v
}

/// The corner vectors: all nine pairs at -128 x -128 (the largest sum), 127 x -128, 127 x
/// 127, -128 x 127, with 9 and 15 pairs; 18-bit operand corners.
fn corners(s: &mut Stimulus) -> Result<()> {
    let rep = |b: u8| (0..9).fold(0u128, |v, t| v | (b as u128) << (8 * t));
    for (x, w) in [(0x80u8, 0x80u8), (0x7f, 0x80), (0x7f, 0x7f), (0x80, 0x7f)] {
        for n in [9u8, 15] {
            push(s, 0x3ffff, 0x3ffff, rep(x), rep(w), n)?;
        }
    }
    for (a, b) in [
        (0x3ffff, 1),
        (1, 0x3ffff),
        (0x20000, 0x20000),
        (0x1ffff, 0x3ffff),
    ] {
        push(s, a, b, 0, 0, 0)?;
    }
    Ok(())
}

/// Every 8 x 8 operand pair (65,536: the 4-bit limb split of the wide multiply, the 10 x 6
/// multiply's operands, and Dot9 with one pair), the corner vectors, Dot9 at every pair
/// count 0..15 on corner and random bytes (`per_n` each), then `random` vectors.
pub fn exhaustive_stimulus(
    ports: &[PortSpec],
    seed: u64,
    per_n: usize,
    random: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::ARITH_CHECK_WIDE, ports);
    for i in 0..(1u32 << 16) {
        let (a, b) = (i & 0xff, i >> 8);
        push(&mut s, a | (b << 10), b, a as u128, b as u128, 1)?;
    }
    corners(&mut s)?;
    small_stimulus_into(&mut s, seed, per_n, random)?;
    Ok(s)
}

/// The corner vectors and random traffic only (the Yosys-netlist run: its gate-level
/// multipliers simulate slowly).
pub fn small_stimulus(
    ports: &[PortSpec],
    seed: u64,
    per_n: usize,
    random: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::ARITH_CHECK_WIDE, ports);
    corners(&mut s)?;
    small_stimulus_into(&mut s, seed, per_n, random)?;
    Ok(s)
}

fn small_stimulus_into(s: &mut Stimulus, seed: u64, per_n: usize, random: usize) -> Result<()> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for n in 0..16u8 {
        for _ in 0..per_n {
            let (x, w) = (bytes(&mut rng), bytes(&mut rng));
            push(
                s,
                rng.random_range(0..1 << 18),
                rng.random_range(0..1 << 18),
                x,
                w,
                n,
            )?;
        }
    }
    for _ in 0..random {
        let (x, w) = (bytes(&mut rng), bytes(&mut rng));
        push(
            s,
            rng.random_range(0..1 << 18),
            rng.random_range(0..1 << 18),
            x,
            w,
            rng.random_range(0..16),
        )?;
    }
    Ok(())
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        let o = arith_check_wide(ArithWideIn {
            a: v.unsigned(c, "a") as u32,
            b: v.unsigned(c, "b") as u32,
            x: v.wide(c, "x"),
            w: v.wide(c, "w"),
            n: v.unsigned(c, "n") as u8,
        });
        e.set(c, "mul_u_10x6", BigUint::from(o.mul_u_10x6));
        e.set(c, "mul_wide_8x8", BigUint::from(o.mul_wide_8x8));
        e.set(c, "mul_wide_18x18", BigUint::from(o.mul_wide_18x18));
        e.set(c, "dot9", from_signed(o.dot9, 20));
    }
    e
}

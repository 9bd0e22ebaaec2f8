//! `arith_check`: exhaustive sweeps of every arithmetic primitive and its golden trace.

use super::{blank, port, View};
use crate::blocks::{port_row, PortRow};
use crate::golden::arith::{arith_check, ArithCheckIn};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ArithCheckIn => a, b, shift);

fn push(s: &mut Stimulus, a: u32, b: u16, shift: u8) -> Result<()> {
    s.row()
        .set("a", a)?
        .set("b", b)?
        .set("shift", shift)?
        .push()
}

/// Every 8-bit x 6-bit operand pair (16,384), every 8-bit value at every shift 0..31
/// (8,192; with b = a also every `gt_8` tie), every 10-bit value (1,024, all saturation
/// boundaries of 10->8 and 9->6), every 5 x 7-bit pair (4,096), the loss clamp's boundaries
/// (+-8191..8193), then `random` vectors over the full operand widths with the corner
/// values of each width mixed in.
pub fn exhaustive_stimulus(ports: &[PortSpec], seed: u64, random: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::ARITH_CHECK, ports);
    for i in 0..(1u32 << 14) {
        push(&mut s, i & 0xff, (i >> 8) as u16, (i % 32) as u8)?;
    }
    for v in 0..256u32 {
        for sh in 0..32u8 {
            push(&mut s, v, v as u16, sh)?;
        }
    }
    for v in 0..1024u32 {
        push(&mut s, v, (v * 37) as u16, (v % 32) as u8)?;
    }
    for i in 0..4096u32 {
        push(&mut s, i & 0x1f, (i >> 5) as u16, (i % 32) as u8)?;
    }
    for v in [
        -8194i32,
        -8193,
        -8192,
        -8191,
        8191,
        8192,
        8193,
        8194,
        -(1 << 22),
        (1 << 22) - 1,
        -32768,
        32767,
    ] {
        push(&mut s, v as u32, v as u16, 0)?;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let corners_a: Vec<u32> = [
        i32::MIN,
        i32::MAX,
        -1,
        0,
        1,
        -(1 << 23),
        (1 << 23) - 1,
        -(1 << 15),
        (1 << 15) - 1,
        -128,
        127,
        -127,
        -31,
        31,
    ]
    .iter()
    .map(|&v| v as u32)
    .collect();
    let corners_b: Vec<u16> = [i16::MIN, i16::MAX, -1, 0, 1, -32, 31, -128, 127]
        .iter()
        .map(|&v| v as u16)
        .collect();
    for k in 0..random {
        let a = if k % 4 == 0 {
            corners_a[rng.random_range(0..corners_a.len())]
        } else {
            rng.random()
        };
        let b = if k % 3 == 0 {
            corners_b[rng.random_range(0..corners_b.len())]
        } else {
            rng.random()
        };
        push(&mut s, a, b, rng.random_range(0..32))?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        let o = arith_check(ArithCheckIn::read(&v, c));
        for (name, val) in [
            ("sext_6_16", o.sext_6_16),
            ("sext_8_24", o.sext_8_24),
            ("asr_8", o.asr_8),
            ("asr_24", o.asr_24),
            ("asr_40", o.asr_40),
            ("sat_sym_10_8", o.sat_sym_10_8),
            ("sat_tc_10_8", o.sat_tc_10_8),
            ("sat_sym_9_6", o.sat_sym_9_6),
            ("sat_tc_9_6", o.sat_tc_9_6),
            ("sat_sym_24_8", o.sat_sym_24_8),
            ("mul_8x6", o.mul_8x6),
            ("mul_5x7", o.mul_5x7),
            ("mul_16x16", o.mul_16x16),
            ("mul_8x6_p24", o.mul_8x6_p24),
            ("max_8", o.max_8),
            ("gt_8", o.gt_8),
            ("abs_16", o.abs_16),
            ("clamp_23_15", o.clamp_23_15),
        ] {
            e.set(c, name, from_signed(val, port(ports, name).width));
        }
    }
    e
}

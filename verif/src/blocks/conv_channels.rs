//! `lel_conv_channels`: the conv core's output-channel walk as the core drives it (two
//! thesis images: 24 channels, `first` after LOAD and `advance` after each channel's POOL),
//! random `first`/`advance` traffic, and the golden trace. The registered block holds
//! [`kernels`].

use super::{out_row, trace};
use crate::blocks::{port_row, PortRow};
use crate::golden::conv_channels::{ConvChannels, ConvChannelsIn, ConvChannelsOut};
use crate::rtl::designs::name::LEL_CONV_CHANNELS;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(ConvChannelsOut => in_ch, kernel, last);

port_row!(ConvChannelsIn => first, advance);

/// Input channels of the registered block (the thesis's).
pub const IN_CHANNELS: usize = 3;
/// Output channels of the registered block (the thesis's).
pub const OUT_CHANNELS: usize = 24;

/// The registered block's kernels: the int6 corner values first, then every int6 value in
/// turn.
pub fn kernels() -> Vec<i32> {
    (0..OUT_CHANNELS * 9)
        .map(|k| {
            super::CORNERS_6
                .get(k)
                .map_or(((k * 37) % 64) as i32 - 32, |&v| v as i32)
        })
        .collect()
}

fn push(s: &mut Stimulus, first: bool, advance: bool) -> Result<()> {
    s.row().bit("first", first)?.bit("advance", advance)?.push()
}

/// Two images as the core walks them: `first`, then per channel a few cycles and `advance`.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_CHANNELS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _image in 0..2 {
        push(&mut s, true, false)?;
        for _c in 0..OUT_CHANNELS {
            for _ in 0..rng.random_range(1..5) {
                push(&mut s, false, false)?;
            }
            push(&mut s, false, true)?;
        }
    }
    Ok(s)
}

/// Random traffic: `advance` on about half the cycles (past the last channel too), `first`
/// now and then, sometimes both.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_CONV_CHANNELS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(&mut s, true, false)?;
    for _ in 0..cycles {
        let first = rng.random_range(0..40) == 0;
        push(&mut s, first, rng.random_range(0..2) == 0)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = ConvChannels::new(IN_CHANNELS, &kernels());
    trace(ports, stim, ConvChannelsIn::read, |i| {
        m.step(i);
        m.outputs()
    })
}

//! `lel_stream_up2` / `lel_stream_down2`: the platform's width adapters between its 32-bit
//! FIFOs and an 8-lane FC core, under random valid and ready (phases from a full-rate stream
//! to a stalled one), TLAST on whole and on partial wide beats, corner data, rare resets;
//! and their golden traces.

use super::{out_row, port_row, trace, PortRow};
use crate::golden::stream_resize::{Downsizer, ResizeIn, ResizeOut, Upsizer};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ResizeIn => reset, s_tdata, s_tuser, s_tlast, s_tvalid, m_tready);
out_row!(ResizeOut => s_tready, m_tdata, m_tuser, m_tlast, m_tvalid);

/// Random traffic of `cycles` cycles with input beats of `width` bits (32 into the upsizer,
/// 64 into the downsizer): in phases of 200 cycles, the probabilities of `s_tvalid` and
/// `m_tready` run through full rate, a slow source, a slow sink and both.
pub fn random_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u64,
    cycles: usize,
    width: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let corners = [
        0u64,
        u64::MAX,
        0x8000_0000_8000_0000,
        0x7f7f_7f7f_7f7f_7f7f,
        0x80,
    ];
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    ResizeIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for c in 0..cycles {
        let (pv, pr) = [(1.0, 1.0), (0.4, 1.0), (1.0, 0.3), (0.6, 0.6)][c / 200 % 4];
        let data: u64 = match rng.random_range(0..6) {
            0 => corners[rng.random_range(0..corners.len())],
            _ => rng.random(),
        };
        ResizeIn {
            reset: rng.random_range(0..1500) == 0,
            s_tdata: data & mask,
            s_tuser: rng.random_range(0..16),
            s_tlast: rng.random_range(0..5) == 0,
            s_tvalid: rng.random_bool(pv),
            m_tready: rng.random_bool(pr),
        }
        .push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace of an upsizer of `k` beats of `iw` bits.
pub fn expected_up(ports: &[PortSpec], stim: &Stimulus, iw: usize, k: usize) -> Expected {
    let mut m = Upsizer::new(iw, k);
    trace(ports, stim, ResizeIn::read, |i| m.step(i))
}

/// Golden trace of a downsizer to `k` beats of `ow` bits.
pub fn expected_down(ports: &[PortSpec], stim: &Stimulus, ow: usize, k: usize) -> Expected {
    let mut m = Downsizer::new(ow, k);
    trace(ports, stim, ResizeIn::read, |i| m.step(i))
}

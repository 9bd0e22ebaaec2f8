//! `lel_read_pipe`: the FC core's read pipeline as the core drives it (the thesis FC0's
//! passes: F 600 words a pass, 4 lanes, a one-cycle gap after each pass, the activation
//! cache answering with corner and random words; only a few passes), random traffic (every
//! input random, rare resets), and the golden trace.

use super::{blank, corner_lanes, out_row, port_row, OutRow, PortRow, View, CORNERS_8};
use crate::golden::read_pipe::{ReadPipe, ReadPipeIn, ReadPipeOut};
use crate::rtl::designs::name::LEL_READ_PIPE;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(ReadPipeOut => act_addr, start1, last2, addr4, act_lane);

/// Lanes of the registered block (the thesis core's).
pub const LANES: usize = 4;

port_row!(ReadPipeIn => reset, issue, index, first, last, addr, act_data);

fn act(rng: &mut Xoshiro256PlusPlus) -> Vec<i8> {
    corner_lanes(rng, LANES, &CORNERS_8, 8)
}

/// Three passes of FC0 (F 600 words each, weight addresses running on), the last word of
/// the third flagged as the sequence's last, a gap cycle after each pass.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_READ_PIPE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut i = ReadPipeIn {
        reset: true,
        act_data: act(&mut rng),
        ..Default::default()
    };
    i.push(&mut s)?;
    i.reset = false;
    let (words, passes) = (600u16, 3u16);
    for pass in 0..passes {
        for index in 0..=words {
            let gap = index == words;
            i.issue = !gap;
            i.index = if gap { 0 } else { index };
            i.first = index == 0;
            i.last = pass == passes - 1 && index == words - 1;
            i.addr = pass * words + index;
            i.act_data = act(&mut rng);
            i.push(&mut s)?;
        }
    }
    Ok(s)
}

/// Random traffic: every input random, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_READ_PIPE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for c in 0..=cycles {
        let i = ReadPipeIn {
            reset: c == 0 || rng.random_range(0..200) == 0,
            issue: rng.random(),
            index: rng.random(),
            first: rng.random(),
            last: rng.random(),
            addr: rng.random(),
            act_data: act(&mut rng),
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = ReadPipe::new(LANES);
    for c in 0..stim.len() {
        let i = ReadPipeIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        o.set_row(&mut e, c);
        for (k, p) in ["v1", "v2", "v4"].into_iter().enumerate() {
            e.set(c, p, BigUint::from(o.v[k] as u8));
        }
    }
    e
}

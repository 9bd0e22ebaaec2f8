//! `lel_stream_fifo`: the cores' output FIFO (`CoreFifo`, 8 beats of 32 bits) under random
//! pushes and pops in phases that fill it, drain it and mix both, with corner data and rare
//! resets; and its golden trace (`golden::stream_fifo`). The head's data, TUSER and TLAST
//! are defined only while `out_valid` is high.

use super::{blank, port_row, set_out, PortRow, View};
use crate::golden::stream_fifo::StreamFifo;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct FifoIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Write a beat.
    pub push: bool,
    /// Beat data.
    pub in_data: u64,
    /// Beat TUSER (4 bits).
    pub in_user: u8,
    /// Beat TLAST.
    pub in_last: bool,
    /// Consumer ready.
    pub out_ready: bool,
}

port_row!(FifoIn => reset, push, in_data, in_user, in_last, out_ready);

/// Random traffic of `cycles` cycles in phases of 250: filling (push often, pop rarely),
/// draining (the reverse), and both at one half.
pub fn random_stimulus(
    block: &str,
    ports: &[PortSpec],
    seed: u64,
    cycles: usize,
) -> Result<Stimulus> {
    let mut s = Stimulus::new(block, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let corners = [0u64, 0xffff_ffff, 0x8000_0000, 0x7f7f_7f7f, 0x8080_8080];
    FifoIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for c in 0..cycles {
        let (pp, pr) = [(0.8, 0.1), (0.1, 0.9), (0.5, 0.5)][c / 250 % 3];
        let data = match rng.random_range(0..6) {
            0 => corners[rng.random_range(0..corners.len())],
            _ => rng.random::<u32>() as u64,
        };
        FifoIn {
            reset: rng.random_range(0..2000) == 0,
            push: rng.random_bool(pp),
            in_data: data,
            in_user: rng.random_range(0..16),
            in_last: rng.random_range(0..5) == 0,
            out_ready: rng.random_bool(pr),
        }
        .push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace of a FIFO of `depth` beats: `out_valid` and `count` on every cycle, the
/// head's fields while it is valid.
pub fn expected(ports: &[PortSpec], stim: &Stimulus, depth: usize) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = StreamFifo::new(depth);
    for c in 0..stim.len() {
        let i = FifoIn::read(&v, c);
        if i.reset {
            m = StreamFifo::new(depth);
        } else {
            let beat = i.push.then_some((i.in_data, i.in_user as u64, i.in_last));
            m.edge(beat, i.out_ready);
        }
        let head = m.head();
        set_out(&mut e, c, "out_valid", &head.is_some());
        set_out(&mut e, c, "count", &m.count());
        if let Some((data, user, last)) = head {
            set_out(&mut e, c, "out_data", &data);
            set_out(&mut e, c, "out_user", &user);
            set_out(&mut e, c, "out_last", &last);
        }
    }
    e
}

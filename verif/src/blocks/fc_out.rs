//! `lel_fc_out`: the FC core's output feed as the core drives it (the thesis FC0's LS_INF,
//! O 480 outputs in 120 passes, 6 words a pass instead of 600, each pass's result 5 cycles
//! after its last word; then LS_READ of 300 weight words; an output FIFO drained at random
//! modelled here, so the credit stalls the passes), random traffic (every input random),
//! and the golden trace.

use super::{corner_lanes, out_row, port_row, trace, PortRow, CORNERS_6, CORNERS_8};
use crate::golden::fc_out::{FcOut, FcOutIn, FcOutOut};
use crate::rtl::designs::name::LEL_FC_OUT;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(FcOutOut => push, data, user, last, lc_we, lc_addr, lc_run, credit, drained);

/// Lanes of the registered block (the thesis core's).
pub const LANES: usize = 4;

port_row!(FcOutIn => clear, inf, read, mm_valid, mm_fc, label, rd_v2, rd_last2, weight, seq_emit, seq_first, fifo_count, out_passes);

fn lanes(rng: &mut Xoshiro256PlusPlus, corners: &[i64], bits: u32) -> Vec<i8> {
    corner_lanes(rng, LANES, corners, bits)
}

/// FC0's INF and a READ (module doc).
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_FC_OUT, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (passes, words, latency) = (120u16, 6u16, 5usize);
    let mut m = FcOut::default();
    let mut i = FcOutIn {
        label: 3,
        out_passes: passes - 1,
        ..Default::default()
    };
    // Cycles at which a pass's result (INF) or a word at stage 2 (READ) arrives.
    let mut due: Vec<(usize, bool)> = vec![];
    let mut cycle = 0usize;
    for read in [false, true] {
        (i.inf, i.read, i.clear) = (!read, read, true);
        let total = if read { 300 } else { passes * words };
        let mut issued = 0u16;
        while issued < total || !due.is_empty() || !cycle.is_multiple_of(7) {
            i.mm_fc = lanes(&mut rng, &CORNERS_8, 8);
            i.weight = lanes(&mut rng, &CORNERS_6, 6);
            let o = m.outputs(&i);
            // The sequencer: a pass's first word (a READ word) only with credit.
            let first = !read && issued.is_multiple_of(words);
            i.seq_emit = issued < total && (o.credit || !(first || read)) && !i.clear;
            i.seq_first = first;
            let now: Vec<bool> = due.iter().filter(|d| d.0 == cycle).map(|d| d.1).collect();
            due.retain(|d| d.0 != cycle);
            (i.mm_valid, i.rd_v2, i.rd_last2) = (false, false, false);
            if let Some(&last) = now.first() {
                (i.mm_valid, i.rd_v2, i.rd_last2) = (!read, read, last);
            }
            let o = m.outputs(&i);
            i.push(&mut s)?;
            m.step(&i);
            if i.seq_emit {
                issued += 1;
                if read {
                    due.push((cycle + 2, issued == total));
                } else if issued.is_multiple_of(words) {
                    due.push((cycle + latency, false));
                }
            }
            // The FIFO: a beat in per push, one out on about two cycles in three.
            let pop = i.fifo_count > 0 && rng.random_range(0..3) != 0;
            i.fifo_count = i.fifo_count + o.push as u8 - pop as u8;
            i.clear = false;
            cycle += 1;
        }
    }
    Ok(s)
}

/// Random traffic: every input random.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_FC_OUT, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for c in 0..=cycles {
        let i = FcOutIn {
            clear: c == 0 || rng.random_range(0..50) == 0,
            inf: rng.random(),
            read: rng.random(),
            mm_valid: rng.random(),
            mm_fc: lanes(&mut rng, &CORNERS_8, 8),
            label: rng.random_range(0..16),
            rd_v2: rng.random(),
            rd_last2: rng.random(),
            weight: lanes(&mut rng, &CORNERS_6, 6),
            seq_emit: rng.random(),
            seq_first: rng.random(),
            fifo_count: rng.random_range(0..10),
            out_passes: rng.random_range(0..8),
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = FcOut::default();
    trace(ports, stim, FcOutIn::read, |i| {
        m.step(i);
        m.outputs(i)
    })
}

//! `lel_err_fetch`: the FC core's errors as the core drives them (the thesis FC0's gradient
//! layout, P 4 pieces of G 120 errors in 30 passes: LS_BK's 480 errors into a gradient
//! cache modelled here, then LS_WU's passes, 12 words each instead of 600, with the cache
//! answering two cycles after each read), random traffic (every input random, rare
//! resets), and the golden trace.

use super::{out_row, port_row, trace, PortRow};
use crate::golden::err_fetch::{ErrFetch, ErrFetchIn, ErrFetchOut};
use crate::rtl::designs::name::LEL_ERR_FETCH;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(ErrFetchOut => err, g_sel, g_we, g_addr0, g_addr1, last_grad);

/// Lanes of the registered block (the thesis core's).
pub const LANES: usize = 4;

port_row!(ErrFetchIn => reset, clear, grad_valid, grad, wu, pass_start, seq_emit, seq_index, seq_piece, seq_pass, gdata, passes, last_piece, grads);

/// The thesis FC0's BK and WU (module doc), the errors random with the corners among them.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_ERR_FETCH, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (pieces, g, words) = (4u8, 120u16, 12u16);
    let passes = g / LANES as u16;
    let mut m = ErrFetch::new(LANES);
    let mut cache = vec![[0i8; 1024]; 4];
    // Reads in flight: (cycle it answers, piece, address).
    let mut reads: Vec<(usize, u8, u16)> = vec![];
    let mut i = ErrFetchIn {
        reset: true,
        passes,
        last_piece: pieces - 1,
        grads: g - 1,
        ..Default::default()
    };
    let mut cycle = 0;
    let mut run = |s: &mut Stimulus, i: &mut ErrFetchIn, m: &mut ErrFetch| {
        i.gdata = match reads.iter().position(|r| r.0 == cycle) {
            Some(k) => {
                let (_, p, a) = reads.remove(k);
                cache[p as usize][a as usize]
            }
            None => rng.random(),
        };
        i.push(s)?;
        let o = m.outputs(i);
        if o.g_we {
            cache[o.g_sel as usize][o.g_addr0 as usize] = i.grad;
        }
        reads.push((cycle + 2, o.g_sel, o.g_addr1));
        reads.retain(|r| r.0 > cycle);
        m.step(i);
        cycle += 1;
        Ok::<_, edgelearn_sim::Error>(())
    };
    run(&mut s, &mut i, &mut m)?;
    i.reset = false;
    // LS_BK: entered (clear), two idle cycles, then an error a cycle.
    i.clear = true;
    run(&mut s, &mut i, &mut m)?;
    i.clear = false;
    for e in 0..(g as usize * pieces as usize + 2) {
        i.grad_valid = e >= 2;
        i.grad = match e % 7 {
            0 => -128,
            1 => 127,
            _ => (e as i8).wrapping_mul(37),
        };
        run(&mut s, &mut i, &mut m)?;
    }
    i.grad_valid = false;
    // LS_WU: entered, then every pass's words, four drain cycles after each piece.
    (i.clear, i.wu) = (true, true);
    run(&mut s, &mut i, &mut m)?;
    i.clear = false;
    let mut first_q = false;
    for piece in 0..pieces {
        for pass in 0..passes {
            for index in 0..words {
                (i.seq_emit, i.seq_index, i.seq_piece, i.seq_pass) = (true, index, piece, pass);
                i.pass_start = first_q;
                first_q = index == 0;
                run(&mut s, &mut i, &mut m)?;
            }
        }
        for _ in 0..4 {
            i.seq_emit = false;
            i.pass_start = first_q;
            first_q = false;
            run(&mut s, &mut i, &mut m)?;
        }
    }
    i.wu = false;
    run(&mut s, &mut i, &mut m)?;
    Ok(s)
}

/// Random traffic: small shapes, every input random, rare resets and clears.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_ERR_FETCH, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut i = ErrFetchIn {
        reset: true,
        passes: 3,
        last_piece: 1,
        grads: 11,
        ..Default::default()
    };
    i.push(&mut s)?;
    for _ in 0..cycles {
        i.reset = rng.random_range(0..300) == 0;
        i.clear = rng.random_range(0..40) == 0;
        i.grad_valid = rng.random();
        i.grad = rng.random();
        i.wu = rng.random_range(0..3) != 0;
        i.pass_start = rng.random_range(0..6) == 0;
        i.seq_emit = rng.random();
        i.seq_index = rng.random_range(0..10);
        i.seq_piece = rng.random_range(0..4);
        i.seq_pass = rng.random_range(0..4);
        i.gdata = rng.random();
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = ErrFetch::new(LANES);
    trace(ports, stim, ErrFetchIn::read, |i| {
        m.step(i);
        m.outputs(i)
    })
}

//! The gather's three inner pieces at the port level: `cnn_tap_pos` (combinational: every
//! tap mode, padding, dilation, the edges of the input and past them), `cnn_elem_walk`
//! (the items of each tap for random shapes and orders, issue gaps, padding taps, loads)
//! `cnn_word_addr` (combinational: HWC and CHW words, rolling buffers, the 16-bit
//! arithmetic's wrap) and `cnn_iter_walk` (a layer's iterations and their slides for
//! random shapes and row ranges, step gaps, loads mid-layer).

use super::super::{blank, View};
use crate::blocks::{port_row, PortRow};
use crate::golden::cnn_engine::{
    tap_pos, word_addr, ElemWalk, ElemWalkIn, IterWalk, IterWalkIn, TapPosIn, WordAddrIn,
};
use crate::rtl::designs::name::{CNN_ELEM_WALK, CNN_ITER_WALK, CNN_TAP_POS, CNN_WORD_ADDR};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ElemWalkIn => load, go, in_bounds, pool_first, pool_h, pool_w, operands);
port_row!(WordAddrIn => py, px, pi, pj, o, e, stride_y, stride_x, in_w, in_passes, operands,
    chw, in_roll, in_base);

port_row!(IterWalkIn => load, step, mode, kw, taps, dil, chunks, in_passes, out_w, row_first,
    row_last);

/// `cnn_iter_walk`: `cycles` cycles of layers with random shapes, each loaded and then
/// stepped on about two cycles in three until some cycles after `done`, a load in 40 coming
/// mid-layer. Shapes: every mode; 3x3, Conv1d and other kernels (so both slides and none);
/// 1..3 chunks and passes, 1..5 output columns, a random row range inside 0..8; one shape
/// in eight anywhere in the ports' ranges.
pub fn iter_walk_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(CNN_ITER_WALK, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut model = IterWalk::new();
    let mut i = IterWalkIn::default();
    let mut after_done = 0;
    for k in 0..cycles {
        let load = k == 0 || after_done > 3 || rng.random_range(0..400) == 0;
        if load {
            after_done = 0;
            i = if rng.random_range(0..8) == 0 {
                IterWalkIn {
                    mode: rng.random_range(0..4),
                    kw: rng.random_range(0..16),
                    taps: rng.random_range(0..16),
                    dil: rng.random_range(0..32),
                    chunks: rng.random_range(0..32),
                    in_passes: rng.random_range(0..32),
                    out_w: rng.random_range(0..1024),
                    row_first: rng.random_range(0..1024),
                    row_last: rng.random_range(0..1024),
                    ..i
                }
            } else {
                let (kw, taps) =
                    [(3, 9), (3, 9), (1, 3), (1, 9), (1, 1), (3, 6)][rng.random_range(0..6)];
                let row_first = rng.random_range(0..8);
                IterWalkIn {
                    mode: rng.random_range(0..3),
                    kw,
                    taps,
                    dil: rng.random_range(1..3),
                    chunks: rng.random_range(1..4),
                    in_passes: rng.random_range(1..4),
                    out_w: [1, 1, 2, 3, 5][rng.random_range(0..5)],
                    row_first,
                    row_last: rng.random_range(row_first..9),
                    ..i
                }
            };
        }
        i.load = load;
        i.step = !load && rng.random_range(0..3) != 0;
        i.push(&mut s)?;
        model.step(&i);
        if model.outputs(&i).done {
            after_done += 1;
        }
    }
    Ok(s)
}

/// Golden trace of `cnn_iter_walk` (the cycle model [`IterWalk`]): every output after
/// every edge.
pub fn iter_walk_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = IterWalk::new();
    for c in 0..stim.len() {
        let i = IterWalkIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        let b = |x: bool| BigUint::from(x as u8);
        e.set(c, "oy", BigUint::from(o.oy));
        e.set(c, "ox", BigUint::from(o.ox));
        e.set(c, "e", BigUint::from(o.e));
        e.set(c, "done", b(o.done));
        e.set(c, "chunks_end", b(o.chunks_end));
        e.set(c, "slide", b(o.slide));
        e.set(c, "same", b(o.same));
        e.set(c, "sl_t", BigUint::from(o.first_tap.0));
        e.set(c, "sl_ty", BigUint::from(o.first_tap.1));
        e.set(c, "sl_tx", BigUint::from(o.first_tap.2));
    }
    e
}

/// `cnn_word_addr`: `rows` random items, three in four of layers the engine runs (small
/// strides, passes and operands, the element inside its pooling window, some of them
/// rolling buffers or CHW), one in four anywhere in the ports' ranges, where the 16-bit
/// products and the 14-bit sum wrap; every corner (all zero, all at their maxima) first.
pub fn word_addr_stimulus(ports: &[PortSpec], seed: u64, rows: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(CNN_WORD_ADDR, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let max = WordAddrIn {
        py: 1023,
        px: 1023,
        pi: 31,
        pj: 31,
        o: 31,
        e: 31,
        stride_y: 31,
        stride_x: 31,
        in_w: 1023,
        in_passes: 31,
        operands: 31,
        chw: true,
        in_roll: 15,
        in_base: 0x3fff,
    };
    WordAddrIn::default().push(&mut s)?;
    max.push(&mut s)?;
    WordAddrIn {
        chw: false,
        in_roll: 0,
        ..max
    }
    .push(&mut s)?;
    for k in 3..rows {
        let i = if k % 4 == 3 {
            WordAddrIn {
                py: rng.random_range(0..1024),
                px: rng.random_range(0..1024),
                pi: rng.random_range(0..32),
                pj: rng.random_range(0..32),
                o: rng.random_range(0..32),
                e: rng.random_range(0..32),
                stride_y: rng.random_range(0..32),
                stride_x: rng.random_range(0..32),
                in_w: rng.random_range(0..1024),
                in_passes: rng.random_range(0..32),
                operands: rng.random_range(0..32),
                chw: rng.random_bool(0.5),
                in_roll: rng.random_range(0..16),
                in_base: rng.random_range(0..0x4000),
            }
        } else {
            let (stride_y, stride_x) = (rng.random_range(1..5), rng.random_range(1..5));
            let (in_passes, operands) = (rng.random_range(1..17), rng.random_range(1..6));
            WordAddrIn {
                py: rng.random_range(0..40),
                px: rng.random_range(0..40),
                pi: rng.random_range(0..stride_y),
                pj: rng.random_range(0..stride_x),
                o: rng.random_range(0..operands),
                e: rng.random_range(0..in_passes),
                stride_y,
                stride_x,
                in_w: rng.random_range(1..160),
                in_passes,
                operands,
                chw: rng.random_range(0..5) == 0,
                in_roll: [0, 0, 0, 6, 9, 12][rng.random_range(0..6)],
                in_base: rng.random_range(0..0x2000) & !3,
            }
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace of `cnn_word_addr`: [`word_addr`] of each row's inputs.
pub fn word_addr_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        let (word, lane) = word_addr(&WordAddrIn::read(&v, c));
        e.set(c, "word", BigUint::from(word));
        e.set(c, "lane", BigUint::from(lane));
    }
    e
}

/// `cnn_tap_pos`: `rows` random taps, most of them near the input's edges (small output
/// pixels and sizes, every padding and mode), some anywhere in the ports' ranges.
pub fn tap_pos_stimulus(ports: &[PortSpec], seed: u64, rows: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(CNN_TAP_POS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..rows {
        let wide = k % 4 == 3;
        let pos = |rng: &mut Xoshiro256PlusPlus| match wide {
            true => rng.random_range(0..1024u32),
            false => rng.random_range(0..12u32),
        };
        let i = TapPosIn {
            mode: (k % 4) as u32,
            oy: pos(&mut rng),
            ox: pos(&mut rng),
            ty: rng.random_range(0..16),
            tx: rng.random_range(0..16),
            fy: pos(&mut rng),
            fx: pos(&mut rng),
            dil: rng.random_range(0..32),
            pad_y: rng.random_range(0..4),
            pad_x: rng.random_range(0..4),
            pooled_h: pos(&mut rng),
            pooled_w: pos(&mut rng),
        };
        s.row()
            .set("mode", i.mode)?
            .set("oy", i.oy)?
            .set("ox", i.ox)?
            .set("ty", i.ty)?
            .set("tx", i.tx)?
            .set("fy", i.fy)?
            .set("fx", i.fx)?
            .set("dil", i.dil)?
            .set("pad_y", i.pad_y)?
            .set("pad_x", i.pad_x)?
            .set("pooled_h", i.pooled_h)?
            .set("pooled_w", i.pooled_w)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_tap_pos`: [`tap_pos`] of each row's inputs.
pub fn tap_pos_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        let u = |p: &str| v.unsigned(c, p) as u32;
        let (py, px, in_bounds) = tap_pos(&TapPosIn {
            mode: u("mode"),
            oy: u("oy"),
            ox: u("ox"),
            ty: u("ty"),
            tx: u("tx"),
            fy: u("fy"),
            fx: u("fx"),
            dil: u("dil"),
            pad_y: u("pad_y"),
            pad_x: u("pad_x"),
            pooled_h: u("pooled_h"),
            pooled_w: u("pooled_w"),
        });
        e.set(c, "py", BigUint::from(py));
        e.set(c, "px", BigUint::from(px));
        e.set(c, "in_bounds", BigUint::from(in_bounds as u8));
    }
    e
}

/// `cnn_elem_walk`: `cycles` cycles of layers with random shapes (pooling 1..4 x 1..4,
/// 1..16 operands, both orders), each loaded, then items issued on about three cycles in
/// four, one tap in five a padding tap (`inside` low).
pub fn elem_walk_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(CNN_ELEM_WALK, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut shape = (false, 1u32, 1u32, 1u32);
    let mut in_bounds = true;
    for k in 0..cycles {
        let load = k % 150 == 0;
        if load {
            shape = (
                rng.random_range(0..2) == 0,
                rng.random_range(1..5),
                rng.random_range(1..5),
                rng.random_range(1..17),
            );
        }
        if rng.random_range(0..8) == 0 {
            in_bounds = rng.random_range(0..5) != 0;
        }
        s.row()
            .bit("load", load)?
            .bit("go", rng.random_range(0..4) != 0)?
            .bit("in_bounds", in_bounds)?
            .bit("pool_first", shape.0)?
            .set("pool_h", shape.1)?
            .set("pool_w", shape.2)?
            .set("operands", shape.3)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_elem_walk` (the cycle model [`ElemWalk`]): every output after
/// every edge.
pub fn elem_walk_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = ElemWalk::new();
    for c in 0..stim.len() {
        let i = ElemWalkIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        let b = |x: bool| BigUint::from(x as u8);
        e.set(c, "pi", BigUint::from(o.elem.pi));
        e.set(c, "pj", BigUint::from(o.elem.pj));
        e.set(c, "o", BigUint::from(o.elem.o));
        e.set(c, "ifirst", b(o.elem.ifirst));
        e.set(c, "ilast", b(o.elem.ilast));
        e.set(c, "ofirst", b(o.elem.ofirst));
        e.set(c, "olast", b(o.elem.olast));
        e.set(c, "tap_end", b(o.tap_end));
    }
    e
}

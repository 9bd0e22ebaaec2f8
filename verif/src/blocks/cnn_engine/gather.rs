//! The gather's two inner pieces at the port level: `cnn_tap_pos` (combinational: every
//! tap mode, padding, dilation, the edges of the input and past them) and `cnn_elem_walk`
//! (the items of each tap for random shapes and orders, issue gaps, padding taps, loads).

use super::super::{blank, View};
use crate::blocks::{port_row, PortRow};
use crate::golden::cnn_engine::{tap_pos, ElemWalk, ElemWalkIn, TapPosIn};
use crate::rtl::designs::name::{CNN_ELEM_WALK, CNN_TAP_POS};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ElemWalkIn => load, go, in_bounds, pool_first, pool_h, pool_w, operands);

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

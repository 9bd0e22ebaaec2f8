//! The CNN engine's sub-blocks at the port level, stimuli with the corner values and their
//! golden traces (`crate::golden::cnn_engine`): here `cnn_engine_check` (the combinational
//! ones: average division, nine-tap MAC, output stage, priority encoder), `cnn_reduce` (a
//! pooling / element-wise unit), `cnn_window_buf` (a processor's two windows) and
//! `cnn_addr_gen` (the gather); in `gather` its four pieces (`cnn_tap_pos`, `cnn_elem_walk`, `cnn_word_addr`, `cnn_iter_walk`);
//! in `control` the windows' handshake, the MAC pipeline's side
//! information, the layer sequencer, the MAC side's sequencer and the host port; in
//! `datapath` the adders over the quads, the accumulators and biases, and a processor.

use super::{blank, View};
use crate::blocks::{port_row, PortRow};
use crate::cnn::engine::avg_magic;
use crate::golden::cnn_engine::{
    avg_div, gather_items, lowest_set, op, out_stage, tap_mac, AddrGenCfg, GatherItem, OutStageIn,
    Reduce, ReduceIn, WindowPair,
};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ReduceIn => op, valid, first, last, value, avg);

mod control;
mod datapath;
mod gather;

pub use control::*;
pub use datapath::*;
pub use gather::*;

const CORNER_BYTES: [u8; 8] = [0x80, 0x81, 0x7f, 0xe1, 0x1f, 0x00, 0x01, 0xff];

fn bytes(rng: &mut Xoshiro256PlusPlus) -> u128 {
    (0..9).fold(0u128, |v, t| {
        let b: u8 = if rng.random_range(0..4) == 0 {
            CORNER_BYTES[rng.random_range(0..CORNER_BYTES.len())]
        } else {
            rng.random()
        };
        v | (b as u128) << (8 * t)
    })
}

fn window(v: u128) -> [i64; 9] {
    crate::golden::arith::bytes9(v)
}

/// `cnn_engine_check`: `rows` cycles, each driving every sub-block with the next case of
/// its own sweep: the average division at the divisors 1..512 (magic numbers of the
/// loader, rounding on and off) with the largest and smallest sums; the MAC at every weight
/// width, tap count and kernel slot; the output stage at every shift, activation and width
/// with accumulators at the rounding and saturation boundaries; the priority encoder on
/// single bits, none and random maps.
pub fn check_stimulus(ports: &[PortSpec], seed: u64, rows: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_ENGINE_CHECK, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..rows {
        // Average: divisor d (the rounding divides by 2d), the sum at a boundary or random.
        let round = (k / 512) % 2 == 1;
        // The loader divides by 2d when rounding, and its magic numbers go to 512.
        let d = 1 + (k % if round { 256 } else { 512 }) as u32;
        let (m, sh) = avg_magic(if round { 2 * d } else { d });
        let lim = (255 * d as i64).min((1 << 17) - 1);
        let value: i64 = match k % 5 {
            0 => lim,
            1 => -lim,
            2 => 0,
            _ => rng.random_range(-lim..=lim),
        };
        // MAC: width, taps, slot.
        let wbits = [8u32, 4, 2, 1][k % 4];
        let taps = (k / 4) % 16;
        let per_word = (72 / (wbits as usize * taps.clamp(1, 9))).max(1);
        let kshift = ((k / 64) % per_word) * wbits as usize * taps.clamp(1, 9);
        let kword = bytes(&mut rng);
        // Output stage: shifts, activation, width, boundaries of rounding and saturation.
        let rshift = (k % 23) as u32;
        let lshift = if rshift == 0 { (k / 23 % 9) as u32 } else { 0 };
        let acc: i64 = match k % 7 {
            0 => (255i64 << rshift.saturating_sub(1)) - 1,
            1 => -(257i64 << rshift.saturating_sub(1)),
            2 => (1 << 47) - 1,
            3 => -(1 << 47),
            4 => (1i64 << rshift.saturating_sub(1)) * 3,
            _ => rng.random_range(-(1i64 << 40)..(1i64 << 40)),
        };
        let flags: u64 = match k % 4 {
            0 => 1u64 << (k / 4 % 64),
            1 => 0,
            2 => u64::MAX << (k % 64),
            _ => rng.random::<u64>() & rng.random::<u64>(),
        };
        s.row()
            .set("avg_value", (value as u64) & 0x3ffff)?
            .bit("avg_round", round)?
            .set("avg_d", d)?
            .set("avg_m", m)?
            .set("avg_sh", sh)?
            .set("mac_window", BigUint::from(bytes(&mut rng)))?
            .set("mac_kword", BigUint::from(kword))?
            .set("mac_kshift", kshift as u32)?
            .set("mac_wbits", wbits)?
            .set("mac_taps", taps as u32)?
            .bit("out_valid", rng.random())?
            .set("out_acc", (acc as u64) & ((1 << 48) - 1))?
            .set("out_oproc", rng.random_range(0..64u32))?
            .set("out_oe", rng.random_range(0..16u32))?
            .set("out_opix", rng.random_range(0..(1u32 << 20)))?
            .bit("out_wide", k % 11 == 0)?
            .set("out_act", (k % 3) as u32)?
            .set("out_rshift", rshift)?
            .set("out_lshift", lshift)?
            .set("out_passes", rng.random_range(1..=16u32))?
            .set("out_gap", rng.random_range(1..=4u32))?
            .set("out_base", rng.random_range(0..8192u32))?
            .set(
                "out_roll",
                if k % 3 == 1 {
                    rng.random_range(1..16u32)
                } else {
                    0
                },
            )?
            .set("low_flags", flags)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_engine_check`: every output on every cycle.
pub fn check_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    for c in 0..stim.len() {
        let a = avg_div(
            v.signed(c, "avg_value"),
            v.bit(c, "avg_round"),
            v.unsigned(c, "avg_d") as u32,
            v.unsigned(c, "avg_m") as u32,
            v.unsigned(c, "avg_sh") as u32,
        );
        e.set(c, "avg", from_signed(a, 8));
        let dot = tap_mac(
            &window(v.wide(c, "mac_window")),
            v.wide(c, "mac_kword"),
            v.unsigned(c, "mac_kshift") as u32,
            v.unsigned(c, "mac_wbits") as u32,
            v.unsigned(c, "mac_taps") as u32,
        );
        e.set(c, "mac_dot", from_signed(dot, 20));
        let o = out_stage(&OutStageIn {
            valid: v.bit(c, "out_valid"),
            acc: v.signed(c, "out_acc"),
            oproc: v.unsigned(c, "out_oproc") as u32,
            oe: v.unsigned(c, "out_oe") as u32,
            opix: v.unsigned(c, "out_opix") as u32,
            wide: v.bit(c, "out_wide"),
            act: v.unsigned(c, "out_act") as u32,
            rshift: v.unsigned(c, "out_rshift") as u32,
            lshift: v.unsigned(c, "out_lshift") as u32,
            out_passes: v.unsigned(c, "out_passes") as u32,
            gap: v.unsigned(c, "out_gap") as u32,
            out_base: v.unsigned(c, "out_base") as u32,
            out_roll: v.unsigned(c, "out_roll") as u32,
        });
        e.set(c, "out_we", BigUint::from(o.we as u8));
        e.set(c, "out_be", BigUint::from(o.be));
        e.set(c, "out_gword", BigUint::from(o.gword));
        e.set(c, "out_data", BigUint::from(o.data));
        e.set(
            c,
            "low_index",
            BigUint::from(lowest_set(v.unsigned(c, "low_flags"))),
        );
    }
    e
}

/// `cnn_reduce`: sequences of 1..40 values (corner bytes and random), every operation,
/// back to back or with idle cycles, `first` and `last` as the address generator gives them.
pub fn reduce_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_REDUCE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut k = 0usize;
    while s.len() < cycles {
        let opc = [op::MAX, op::AVG, op::ADD, op::SUB, op::OR, op::XOR][k % 6];
        let len = 1 + rng.random_range(0..40usize);
        for j in 0..len {
            let value: i64 = if rng.random_range(0..3) == 0 {
                [-128i64, -127, 127, -31, 31, 0, 1, -1][rng.random_range(0..8)]
            } else {
                rng.random_range(-128..=127)
            };
            s.row()
                .set("op", opc)?
                .bit("valid", true)?
                .bit("first", j == 0)?
                .bit("last", j + 1 == len)?
                .set("value", (value as u64) & 0x3ffff)?
                .set("avg", rng.random_range(0..256u32))?
                .push()?;
            if rng.random_range(0..5) == 0 {
                s.row().bit("valid", false)?.push()?;
            }
        }
        k += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_reduce`: `sum` on every cycle, `out_valid` and `result` after every
/// edge (`result` once a sequence has ended).
pub fn reduce_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut r = Reduce::default();
    let mut ended = false;
    for c in 0..stim.len() {
        let i = ReduceIn::read(&v, c);
        let (done, res) = r.step(&i);
        ended |= done;
        e.set(c, "out_valid", BigUint::from(done as u8));
        if ended {
            e.set(c, "result", from_signed(res, 8));
        }
        // `sum` is combinational, sampled after the edge with this row's inputs still
        // applied (D-CYCLE): the state after the edge and these inputs.
        e.set(c, "sum", from_signed(r.sum(&i), 18));
    }
    e
}

/// `cnn_window_buf`: random writes (taps 0..15) into either window, slides into either
/// (with and without a write at the same edge), reads of either.
pub fn window_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_WINDOW_BUF, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..cycles {
        s.row()
            .bit("write", k < 40 || rng.random_range(0..3) != 0)?
            .bit("write_buf", rng.random())?
            .set(
                "tap",
                if k < 40 {
                    (k % 10) as u32
                } else {
                    rng.random_range(0..16u32)
                },
            )?
            .set(
                "value",
                CORNER_BYTES[k % 8].wrapping_add(rng.random_range(0..2)) as u32,
            )?
            .bit("slide", k >= 40 && rng.random_range(0..5) == 0)?
            .bit("slide_same", rng.random())?
            .bit("read_buf", rng.random())?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_window_buf`: the window read, after every edge.
pub fn window_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut w = WindowPair::default();
    for c in 0..stim.len() {
        w.slide(
            v.bit(c, "slide"),
            v.bit(c, "write_buf") as usize,
            v.bit(c, "slide_same"),
        );
        w.write(
            v.bit(c, "write"),
            v.bit(c, "write_buf") as usize,
            v.unsigned(c, "tap") as usize,
            v.signed(c, "value"),
        );
        e.set(
            c,
            "window",
            BigUint::from(w.read(v.bit(c, "read_buf") as usize)),
        );
    }
    e
}

/// Layers for the address generator's bench: every tap mode, HWC and CHW, pooling before
/// and after the element-wise operation, strides, dilation, padding, passes, chunks.
pub fn addr_gen_layers() -> Vec<AddrGenCfg> {
    let base = addr_gen_base();
    vec![
        // Conv 3x3 pad 1 on a CHW input (MNIST's first layer, smaller).
        AddrGenCfg {
            chw: true,
            in_w: 7,
            pooled_h: 5,
            pooled_w: 7,
            ..base
        },
        // Max 2x2/2 then conv 3x3 pad 2, two passes (HWC).
        AddrGenCfg {
            in_w: 8,
            in_passes: 2,
            pool_h: 2,
            pool_w: 2,
            stride_y: 2,
            stride_x: 2,
            pooled_h: 4,
            pooled_w: 4,
            pad_y: 2,
            pad_x: 2,
            row_last: 2,
            out_w: 6,
            in_base: 0x1ff0,
            ..base
        },
        // Conv 3x3 of three passes: its windows do not slide (the neighbour's window of
        // the same pass is three iterations back, overwritten).
        AddrGenCfg {
            in_passes: 3,
            row_last: 1,
            ..base
        },
        // Three operands, pooled 2x2 stride 1 after the element-wise operation.
        AddrGenCfg {
            operands: 3,
            pool_h: 2,
            pool_w: 2,
            pooled_h: 5,
            pooled_w: 5,
            ..base
        },
        // Pool 3x2 first, two operands, a 1x1 kernel.
        AddrGenCfg {
            pool_first: true,
            operands: 2,
            pool_h: 3,
            pool_w: 2,
            stride_y: 3,
            stride_x: 2,
            pooled_h: 2,
            pooled_w: 3,
            kw: 1,
            taps: 1,
            pad_y: 0,
            pad_x: 0,
            row_last: 1,
            out_w: 3,
            ..base
        },
        // Flatten: 4 x 5 inputs in chunks of nine, two passes.
        AddrGenCfg {
            mode: 1,
            in_w: 5,
            in_passes: 2,
            pooled_h: 4,
            pooled_w: 5,
            row_last: 0,
            out_w: 1,
            chunks: 3,
            ..base
        },
        // Transposed 3x3 (stride 2: the zero-stuffed input), pad 1.
        AddrGenCfg {
            mode: 2,
            in_w: 3,
            pooled_h: 3,
            pooled_w: 3,
            row_last: 5,
            out_w: 6,
            ..base
        },
    ]
    .into_iter()
    .chain(addr_gen_slices_and_1d())
    .collect()
}

/// The layer the address generator's bench varies: conv 3x3 pad 1 on a 6 x 6 HWC input.
fn addr_gen_base() -> AddrGenCfg {
    AddrGenCfg {
        mode: 0,
        chw: false,
        pool_first: false,
        in_w: 6,
        in_passes: 1,
        operands: 1,
        in_base: 0x40,
        pool_h: 1,
        pool_w: 1,
        stride_y: 1,
        stride_x: 1,
        pooled_h: 6,
        pooled_w: 6,
        kw: 3,
        dil: 1,
        pad_y: 1,
        pad_x: 1,
        row_first: 0,
        row_last: 3,
        out_w: 5,
        chunks: 1,
        taps: 9,
        in_roll: 0,
    }
}

/// More layers for the address generator's bench: a streaming slice, Conv1d kernels.
fn addr_gen_slices_and_1d() -> Vec<AddrGenCfg> {
    let base = addr_gen_base();
    vec![
        // A streaming slice: rows 2..=4 of a max 2x2/2, conv 3x3 pad 1 layer reading a
        // rolling buffer of 64 words (the words wrap at 64).
        AddrGenCfg {
            in_w: 12,
            pool_h: 2,
            pool_w: 2,
            stride_y: 2,
            stride_x: 2,
            pooled_h: 6,
            pooled_w: 6,
            row_first: 2,
            row_last: 4,
            out_w: 6,
            in_roll: 6,
            in_base: 0x200,
            ..base
        },
        // Conv1d: kernel 4, dilation 1, pad 1, two passes, rows 1..=6: after the run's
        // first row each iteration reads only its last tap (its windows slide along rows).
        AddrGenCfg {
            in_w: 1,
            in_passes: 2,
            pooled_h: 8,
            pooled_w: 1,
            kw: 1,
            taps: 4,
            dil: 1,
            pad_y: 1,
            pad_x: 0,
            row_first: 1,
            row_last: 6,
            out_w: 1,
            ..base
        },
        // Conv1d: kernel 5 along the rows with dilation 2, pad 2.
        AddrGenCfg {
            in_w: 1,
            pooled_h: 12,
            pooled_w: 1,
            kw: 1,
            taps: 5,
            dil: 2,
            pad_y: 2,
            pad_x: 0,
            row_last: 7,
            out_w: 1,
            ..base
        },
    ]
}

fn set_cfg<'a>(
    r: edgelearn_sim::stimulus::Row<'a>,
    f: &AddrGenCfg,
) -> Result<edgelearn_sim::stimulus::Row<'a>> {
    r.set("mode", f.mode)?
        .bit("chw", f.chw)?
        .bit("pool_first", f.pool_first)?
        .set("in_w", f.in_w)?
        .set("in_passes", f.in_passes)?
        .set("operands", f.operands)?
        .set("in_base", f.in_base)?
        .set("pool_h", f.pool_h)?
        .set("pool_w", f.pool_w)?
        .set("stride_y", f.stride_y)?
        .set("stride_x", f.stride_x)?
        .set("pooled_h", f.pooled_h)?
        .set("pooled_w", f.pooled_w)?
        .set("kw", f.kw)?
        .set("dil", f.dil)?
        .set("pad_y", f.pad_y)?
        .set("pad_x", f.pad_x)?
        .set("row_first", f.row_first)?
        .set("row_last", f.row_last)?
        .set("out_w", f.out_w)?
        .set("chunks", f.chunks)?
        .set("taps", f.taps)?
        .set("in_roll", f.in_roll)
}

/// `cnn_addr_gen`: each layer of [`addr_gen_layers`] loaded, then run to its end with the
/// windows' `full` and `pend` flags random (the gather waits for a free window), `run`
/// dropping now and then, and a reset in the middle of one layer.
pub fn addr_gen_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_ADDR_GEN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for (k, f) in addr_gen_layers().iter().enumerate() {
        let n = gather_items(f).len();
        set_cfg(s.row(), f)?
            .bit("reset", false)?
            .bit("load", true)?
            .bit("run", false)?
            .set("full", 0u32)?
            .set("pend", 0u32)?
            .push()?;
        for c in 0..(2 * n + 40) {
            let busy = rng.random_range(0..4) == 0;
            s.row()
                .bit("load", false)?
                .bit("run", rng.random_range(0..16) != 0)?
                .set("full", if busy { rng.random_range(0..4u32) } else { 0 })?
                .set("pend", if busy { rng.random_range(0..4u32) } else { 0 })?
                .bit("reset", k == 2 && c == n / 2)?
                .push()?;
        }
    }
    Ok(s)
}

/// Golden trace of `cnn_addr_gen` (the cycle model over [`gather_items`]): after every
/// edge, `issue`, `fill_buf` and, while items remain, the next item (`item`, `word`,
/// `iter_end`).
pub fn addr_gen_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let cfg = |c: usize| AddrGenCfg {
        mode: v.unsigned(c, "mode") as u32,
        chw: v.bit(c, "chw"),
        pool_first: v.bit(c, "pool_first"),
        in_w: v.unsigned(c, "in_w") as u32,
        in_passes: v.unsigned(c, "in_passes") as u32,
        operands: v.unsigned(c, "operands") as u32,
        in_base: v.unsigned(c, "in_base") as u32,
        pool_h: v.unsigned(c, "pool_h") as u32,
        pool_w: v.unsigned(c, "pool_w") as u32,
        stride_y: v.unsigned(c, "stride_y") as u32,
        stride_x: v.unsigned(c, "stride_x") as u32,
        pooled_h: v.unsigned(c, "pooled_h") as u32,
        pooled_w: v.unsigned(c, "pooled_w") as u32,
        kw: v.unsigned(c, "kw") as u32,
        dil: v.unsigned(c, "dil") as u32,
        pad_y: v.unsigned(c, "pad_y") as u32,
        pad_x: v.unsigned(c, "pad_x") as u32,
        row_first: v.unsigned(c, "row_first") as u32,
        row_last: v.unsigned(c, "row_last") as u32,
        out_w: v.unsigned(c, "out_w") as u32,
        chunks: v.unsigned(c, "chunks") as u32,
        taps: v.unsigned(c, "taps") as u32,
        in_roll: v.unsigned(c, "in_roll") as u32,
    };
    // State: the layer's items, the next one, the window, the end; `None` before a load.
    let mut items: Option<Vec<GatherItem>> = None;
    let (mut next, mut buf, mut done) = (0usize, false, false);
    let free = |c: usize, buf: bool| {
        let taken = v.unsigned(c, "full") | v.unsigned(c, "pend");
        taken >> (buf as u64) & 1 == 0
    };
    for c in 0..stim.len() {
        // The edge: issue (from the state before it), then load.
        if let Some(list) = &items {
            if v.bit(c, "run") && !done && free(c, buf) {
                let it = list[next];
                next += 1;
                if it.iter_end {
                    buf = !buf;
                }
                if next == list.len() {
                    done = true;
                }
            }
        }
        if v.bit(c, "load") {
            items = Some(gather_items(&cfg(c)));
            (next, buf, done) = (0, false, false);
        }
        // After it, with this row's inputs.
        let Some(list) = &items else { continue };
        let go = v.bit(c, "run") && !done && free(c, buf);
        e.set(c, "issue", BigUint::from(go as u8));
        e.set(c, "fill_buf", BigUint::from(buf as u8));
        if !done {
            let it = list[next];
            let valid = go && !v.bit(c, "reset");
            e.set(c, "item", BigUint::from(it.bus(valid, buf)));
            e.set(c, "word", BigUint::from(it.word));
            e.set(c, "iter_end", BigUint::from(it.iter_end as u8));
        }
    }
    e
}

//! The CNN engine's sub-blocks at the port level: `cnn_engine_check` (the combinational
//! ones: average division, nine-tap MAC, output stage, priority encoder), `cnn_reduce` (a
//! pooling / element-wise unit), `cnn_window_buf` (a processor's two windows),
//! `cnn_addr_gen` (the gather), `cnn_window_ctl` (the windows' handshake), `cnn_mac_pipe`
//! (the MAC pipeline's side information), `cnn_group_sum` (the adders over the quads) and
//! `cnn_acc_mem` (accumulators and biases), `cnn_layer_seq` (the layer sequencer),
//! `cnn_mac_ctl` (the MAC side's sequencer), `cnn_host_port` (the host port),
//! `cnn_processor` (a processor): stimuli with the corner values and their golden
//! traces (`crate::golden::cnn_engine`).

use super::{blank, View};
use crate::cnn::engine::avg_magic;
use crate::golden::cnn_engine::{
    avg_div, gather_items, lowest_set, op, out_stage, tap_mac, AccIn, Accumulators, AddrGenCfg,
    GatherItem, GroupSums, HostIn, HostReadData, HostRegs, MacCtlIn, MacSeq, MacTag, MacTags,
    OutStageIn, ProcIn, ProcessorModel, Reduce, ReduceIn, SeqIn, SeqPhase, Sequencer, WindowCtlIn,
    WindowFlags, WindowPair,
};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

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

fn wide(v: &View, c: usize, port: &str) -> u128 {
    v.raw(c, port)
        .to_u64_digits()
        .iter()
        .enumerate()
        .fold(0u128, |acc, (k, &d)| acc | (d as u128) << (64 * k))
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
    let mut s = Stimulus::new("cnn_engine_check", ports);
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
            &window(wide(&v, c, "mac_window")),
            wide(&v, c, "mac_kword"),
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
    let mut s = Stimulus::new("cnn_reduce", ports);
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
        let i = ReduceIn {
            op: v.unsigned(c, "op") as u32,
            valid: v.bit(c, "valid"),
            first: v.bit(c, "first"),
            last: v.bit(c, "last"),
            value: v.signed(c, "value"),
            avg: v.signed(c, "avg"),
        };
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

/// `cnn_window_buf`: random writes (taps 0..15) into either window, reads of either.
pub fn window_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_window_buf", ports);
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
    let base = AddrGenCfg {
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
        out_h: 4,
        out_w: 5,
        chunks: 1,
        taps: 9,
    };
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
            out_h: 3,
            out_w: 6,
            in_base: 0x1ff0,
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
            out_h: 2,
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
            out_h: 1,
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
            out_h: 6,
            out_w: 6,
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
            out_h: 8,
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
        .set("out_h", f.out_h)?
        .set("out_w", f.out_w)?
        .set("chunks", f.chunks)?
        .set("taps", f.taps)
}

/// `cnn_addr_gen`: each layer of [`addr_gen_layers`] loaded, then run to its end with the
/// windows' `full` and `pend` flags random (the gather waits for a free window), `run`
/// dropping now and then, and a reset in the middle of one layer.
pub fn addr_gen_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_addr_gen", ports);
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
        out_h: v.unsigned(c, "out_h") as u32,
        out_w: v.unsigned(c, "out_w") as u32,
        chunks: v.unsigned(c, "chunks") as u32,
        taps: v.unsigned(c, "taps") as u32,
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

/// `cnn_window_ctl`: the gather's and the MAC's ends into either window, back to back (the
/// same window ending and arriving at one edge, the MAC freeing a window the gather ends
/// into), `run` dropping, loads and resets now and then.
pub fn window_ctl_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_window_ctl", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..cycles {
        // Dense phases (an end every cycle) alternate with sparse ones.
        let dense = (k / 200) % 2 == 1;
        let p = if dense { 2 } else { 5 };
        s.row()
            .bit("reset", rng.random_range(0..400) == 0)?
            .bit("load", rng.random_range(0..150) == 0)?
            .bit("run", rng.random_range(0..10) != 0)?
            .bit("gather_end", rng.random_range(0..p) == 0)?
            .bit("gather_buf", rng.random())?
            .bit("mac_end", rng.random_range(0..p) == 0)?
            .bit("mac_buf", rng.random())?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_window_ctl`: `full` and `pend` after every edge.
pub fn window_ctl_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut w = WindowFlags::default();
    for c in 0..stim.len() {
        w.step(&WindowCtlIn {
            reset: v.bit(c, "reset"),
            load: v.bit(c, "load"),
            run: v.bit(c, "run"),
            gather_end: v.bit(c, "gather_end"),
            gather_buf: v.bit(c, "gather_buf"),
            mac_end: v.bit(c, "mac_end"),
            mac_buf: v.bit(c, "mac_buf"),
        });
        e.set(c, "full", BigUint::from(w.full));
        e.set(c, "pend", BigUint::from(w.pend));
    }
    e
}

/// `cnn_mac_pipe`: issues on most cycles with random flags, channels, processors, passes and
/// pixels (the largest of each among them), gaps, and resets with a channel in flight.
pub fn mac_pipe_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_mac_pipe", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..cycles {
        let top = k % 16 == 3;
        s.row()
            .bit("reset", k < 4 || rng.random_range(0..100) == 0)?
            .bit("issue", rng.random_range(0..4) != 0)?
            .bit("first", rng.random())?
            .bit("last", rng.random())?
            .set(
                "oc",
                if top {
                    2047
                } else {
                    rng.random_range(0..2048u32)
                },
            )?
            .set(
                "oproc",
                if top {
                    127
                } else {
                    rng.random_range(0..128u32)
                },
            )?
            .set("oe", if top { 31 } else { rng.random_range(0..32u32) })?
            .set(
                "opix",
                if top {
                    (1 << 20) - 1
                } else {
                    rng.random_range(0..(1u32 << 20))
                },
            )?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_mac_pipe`: every output after every edge.
pub fn mac_pipe_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = MacTags::default();
    for c in 0..stim.len() {
        m.step(
            v.bit(c, "reset"),
            MacTag {
                valid: v.bit(c, "issue"),
                first: v.bit(c, "first"),
                last: v.bit(c, "last"),
                oc: v.unsigned(c, "oc") as u32,
                proc: v.unsigned(c, "oproc") as u32,
                oe: v.unsigned(c, "oe") as u32,
                pix: v.unsigned(c, "opix") as u32,
            },
        );
        let [_, m2, m3] = m.stage;
        e.set(c, "m2_oc", BigUint::from(m2.oc));
        e.set(c, "m3_valid", BigUint::from(m3.valid as u8));
        e.set(c, "m3_first", BigUint::from(m3.first as u8));
        e.set(c, "m3_oc", BigUint::from(m3.oc));
        e.set(c, "m4_valid", BigUint::from(m.m4.valid as u8));
        e.set(c, "m4_proc", BigUint::from(m.m4.proc));
        e.set(c, "m4_oe", BigUint::from(m.m4.oe));
        e.set(c, "m4_pix", BigUint::from(m.m4.pix));
    }
    e
}

/// Quads on the `cnn_group_sum` bench (the 64-processor engine's).
const GS_QUADS: usize = 16;
/// Quads per group there.
const GS_PER_GROUP: usize = 4;

/// `cnn_group_sum`: every quad's sum random or at a corner (the 22-bit extremes, a quad's
/// largest MAC sums 4 x 9 x 2^14, 0, -1), the used quads random, none, all, or one.
pub fn group_sum_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_group_sum", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let corners: [i64; 7] = [
        -(1 << 21),
        (1 << 21) - 1,
        (4 * 9) << 14,
        -((4 * 9) << 14),
        0,
        -1,
        1,
    ];
    for k in 0..cycles {
        let extreme = k % 8 == 5;
        let mut packed = BigUint::from(0u8);
        for q in 0..GS_QUADS {
            let v: i64 = if extreme {
                corners[(k / 8 + q / 8) % 2]
            } else if rng.random_range(0..4) == 0 {
                corners[rng.random_range(0..corners.len())]
            } else {
                rng.random_range(-(1i64 << 21)..(1 << 21))
            };
            packed |= BigUint::from(v as u64 & 0x3f_ffff) << (22 * q);
        }
        let active: u32 = match k % 6 {
            0 => 0xffff,
            1 => 0,
            2 => 1 << (k / 6 % 16),
            _ => rng.random_range(0..0x1_0000u32),
        };
        s.row()
            .set("qsums", packed)?
            .set("active", active)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_group_sum`: `total` after every edge.
pub fn group_sum_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut g = GroupSums::new(GS_QUADS / GS_PER_GROUP, GS_PER_GROUP);
    for c in 0..stim.len() {
        let packed = v.raw(c, "qsums");
        let qsum: Vec<i64> = (0..GS_QUADS)
            .map(|q| {
                let w = (packed >> (22 * q)) & BigUint::from(0x3f_ffffu32);
                crate::golden::arith::sext(w.to_u64_digits().first().copied().unwrap_or(0), 22)
            })
            .collect();
        g.step(&qsum, v.unsigned(c, "active") as u32);
        e.set(c, "total", from_signed(g.total(), 26));
    }
    e
}

/// Bias bytes of the `cnn_acc_mem` bench.
pub const ACC_BENCH_BIAS: usize = 512;

/// `cnn_acc_mem`: the host writes every bias byte (corners among them) and reads some back;
/// then the MAC's pattern: per pixel, iterations over a run of channels, each channel read at
/// M2 and updated at M3 one edge later, the first iteration from the bias (with and without a
/// bias, bias addresses wrapping), sums at the 26-bit extremes; then random rows.
pub fn acc_mem_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_acc_mem", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for a in 0..ACC_BENCH_BIAS as u32 {
        let b: i64 = if a < 8 {
            [-128, -127, 127, -31, 31, 0, 1, -1][a as usize]
        } else {
            rng.random_range(-128..=127)
        };
        s.row()
            .bit("busy", false)?
            .bit("host_we", true)?
            .set("host_addr", a)?
            .set("host_wdata", b as u64 & 0xff)?
            .push()?;
    }
    for _ in 0..64 {
        s.row()
            .bit("host_we", false)?
            .set("host_addr", rng.random_range(0..2048u32))?
            .push()?;
    }
    let total = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        let t: i64 = match rng.random_range(0..6) {
            0 => -(1 << 25),
            1 => (1 << 25) - 1,
            _ => rng.random_range(-(1i64 << 25)..(1 << 25)),
        };
        t as u64 & 0x3ff_ffff
    };
    // MAC pattern: (valid, first, oc) at M2 this row, at M3 the next.
    let mut m3: (bool, bool, u32) = (false, false, 0);
    let half = s.len() + cycles / 2;
    while s.len() < half {
        let channels = rng.random_range(1..40u32);
        let base = rng.random_range(0..1024u32);
        let iters = rng.random_range(1..4);
        let bias_en = rng.random_range(0..4) != 0;
        let bias_start = rng.random_range(0..4096u32);
        for it in 0..iters {
            for ch in 0..channels {
                let m2 = (true, it == 0, (base + ch) % 2048);
                s.row()
                    .bit("busy", true)?
                    .bit("host_we", false)?
                    .set("bias_start", bias_start)?
                    .bit("bias_en", bias_en)?
                    .set("m2_oc", m2.2)?
                    .bit("m3_valid", m3.0)?
                    .bit("m3_first", m3.1)?
                    .set("m3_oc", m3.2)?
                    .set("total", total(&mut rng))?
                    .push()?;
                m3 = m2;
            }
        }
    }
    while s.len() < ACC_BENCH_BIAS + 64 + cycles {
        s.row()
            .bit("busy", rng.random_range(0..8) != 0)?
            .bit("host_we", rng.random_range(0..8) == 0)?
            .set("host_addr", rng.random_range(0..2048u32))?
            .set("host_wdata", rng.random_range(0..256u32))?
            .set("bias_start", rng.random_range(0..4096u32))?
            .bit("bias_en", rng.random())?
            .set("m2_oc", rng.random_range(0..2048u32))?
            .bit("m3_valid", rng.random())?
            .bit("m3_first", rng.random())?
            .set("m3_oc", rng.random_range(0..2048u32))?
            .set("total", total(&mut rng))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_acc_mem`: `m4_acc` and `bias_rdata` after every edge.
pub fn acc_mem_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut a = Accumulators::new(ACC_BENCH_BIAS);
    for c in 0..stim.len() {
        a.step(&AccIn {
            m2_oc: v.unsigned(c, "m2_oc") as u32,
            bias_start: v.unsigned(c, "bias_start") as u32,
            bias_en: v.bit(c, "bias_en"),
            busy: v.bit(c, "busy"),
            host_we: v.bit(c, "host_we"),
            host_addr: v.unsigned(c, "host_addr") as u32,
            host_wdata: v.signed(c, "host_wdata"),
            m3_valid: v.bit(c, "m3_valid"),
            m3_first: v.bit(c, "m3_first"),
            m3_oc: v.unsigned(c, "m3_oc") as u32,
            total: v.signed(c, "total"),
        });
        e.set(c, "m4_acc", from_signed(a.m4_acc, 48));
        e.set(c, "bias_rdata", from_signed(a.bias_read, 8));
    }
    e
}

/// `cnn_layer_seq`: runs of 1..6 layers (and of one and of 32), each layer ending after a
/// random number of RUN cycles (or at once), starts while busy (ignored), cycle counts read
/// back at random layers, a reset in the middle of a run.
pub fn layer_seq_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_layer_seq", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut run = 0usize;
    while s.len() < cycles {
        let nlayers: u32 = match run % 5 {
            0 => 1,
            1 => 32,
            _ => rng.random_range(1..=6),
        };
        let len = if nlayers == 32 {
            2
        } else {
            rng.random_range(0..30)
        };
        let idle = rng.random_range(1..6);
        for k in 0..(idle + nlayers as usize * (len + 14) + 4) {
            s.row()
                .bit("reset", run == 3 && k == 40)?
                .bit("start", k == idle - 1 || rng.random_range(0..50) == 0)?
                .set("nlayers", nlayers)?
                .bit(
                    "layer_end",
                    len == 0 || rng.random_range(0..len.max(1)) == 0,
                )?
                .set("lc_raddr", rng.random_range(0..32u32))?
                .push()?;
        }
        run += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_layer_seq`: every output after every edge.
pub fn layer_seq_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut q = Sequencer::default();
    for c in 0..stim.len() {
        q.step(&SeqIn {
            reset: v.bit(c, "reset"),
            start: v.bit(c, "start"),
            nlayers: v.unsigned(c, "nlayers") as u32,
            layer_end: v.bit(c, "layer_end"),
            lc_raddr: v.unsigned(c, "lc_raddr") as u32,
        });
        let state = match q.phase {
            SeqPhase::Idle => 0u8,
            SeqPhase::Load => 1,
            SeqPhase::Run => 2,
            SeqPhase::Drain => 3,
        };
        e.set(c, "state", BigUint::from(state));
        e.set(c, "busy", BigUint::from((state != 0) as u8));
        e.set(c, "load", BigUint::from((state == 1) as u8));
        e.set(c, "run", BigUint::from((state == 2) as u8));
        e.set(c, "cfg_load", BigUint::from(q.loaded as u8));
        e.set(c, "layer", BigUint::from(q.layer));
        e.set(c, "next_layer", BigUint::from(q.next_layer()));
        e.set(c, "done", BigUint::from(q.done as u8));
        e.set(c, "layer_done", BigUint::from(q.layer_done as u8));
        e.set(c, "cycles", BigUint::from(q.cycles));
        e.set(c, "lc_rdata", BigUint::from(q.lc_read));
    }
    e
}

/// `cnn_mac_ctl`: layers with random loop bounds (channels 1..70, up to 3 chunks, passes,
/// columns and rows), kernels per word and slots, output processor maps (all 64, the top
/// one, sparse, dense) and passes of 1..64 processors, each run until it ends or for a
/// while, the windows' `full` flags random (the MAC waits for its window), `run` dropping,
/// a reset now and then.
pub fn mac_ctl_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_mac_ctl", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut k = 0usize;
    while s.len() < cycles {
        let out_map: u64 = match k % 4 {
            0 => u64::MAX,
            1 => 1 << 63 | rng.random_range(0..16u64),
            2 => rng.random::<u64>() & rng.random::<u64>() | 1,
            _ => rng.random::<u64>() | rng.random::<u64>(),
        };
        let thresh = (out_map.count_ones()).min(rng.random_range(1..=64));
        let out_ch = rng.random_range(1..70u32);
        let (chunks, passes) = (rng.random_range(1..=3u32), rng.random_range(1..=3u32));
        let (w, h) = (rng.random_range(1..=4u32), rng.random_range(1..=3u32));
        let kpw = [1u32, 2, 4, 8][rng.random_range(0..4)];
        let kslot = 72 / kpw;
        let kstart = rng.random_range(0..1024u32);
        let cfg = |r: edgelearn_sim::stimulus::Row<'_>| -> Result<()> {
            r.set("out_ch", out_ch)?
                .set("kstart", kstart)?
                .set("kpw", kpw)?
                .set("kslot", kslot)?
                .set("out_thresh", thresh)?
                .set("out_map", out_map)?
                .set("in_passes", passes)?
                .set("chunks", chunks)?
                .set("out_w", w)?
                .set("out_h", h)?
                .push()
        };
        cfg(s
            .row()
            .bit("reset", false)?
            .bit("load", true)?
            .set("load_kstart", kstart)?
            .bit("run", false)?)?;
        let issues = (out_ch * chunks * passes * w * h) as usize;
        for c in 0..(issues * 3 / 2 + 20).min(700) {
            cfg(s
                .row()
                .bit("load", false)?
                .bit("run", rng.random_range(0..12) != 0)?
                .set(
                    "full",
                    if rng.random_range(0..3) == 0 {
                        rng.random_range(0..4u32)
                    } else {
                        3
                    },
                )?
                .bit("reset", k == 5 && c == 30)?)?;
        }
        k += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_mac_ctl`: every output after every edge.
pub fn mac_ctl_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = MacSeq::default();
    for c in 0..stim.len() {
        let i = MacCtlIn {
            reset: v.bit(c, "reset"),
            load: v.bit(c, "load"),
            load_kstart: v.unsigned(c, "load_kstart") as u32,
            run: v.bit(c, "run"),
            full: v.unsigned(c, "full") as u32,
            out_ch: v.unsigned(c, "out_ch") as u32,
            kstart: v.unsigned(c, "kstart") as u32,
            kpw: v.unsigned(c, "kpw") as u32,
            kslot: v.unsigned(c, "kslot") as u32,
            out_thresh: v.unsigned(c, "out_thresh") as u32,
            out_map: v.unsigned(c, "out_map"),
            in_passes: v.unsigned(c, "in_passes") as u32,
            chunks: v.unsigned(c, "chunks") as u32,
            out_w: v.unsigned(c, "out_w") as u32,
            out_h: v.unsigned(c, "out_h") as u32,
        };
        m.step(&i);
        let o = m.outputs(&i);
        for (port, val) in [
            ("issue", o.issue as u32),
            ("first", o.first as u32),
            ("last", o.last as u32),
            ("read_buf", o.read_buf as u32),
            ("oc", o.oc),
            ("kaddr", o.kaddr),
            ("kshift", o.kshift),
            ("oproc", o.oproc),
            ("oe", o.oe),
            ("opix", o.opix),
            ("mac_end", o.mac_end as u32),
            ("layer_end", o.layer_end as u32),
        ] {
            e.set(c, port, BigUint::from(val));
        }
    }
    e
}

/// `cnn_host_port`: writes and reads of every register and of every memory region (kernel
/// words part by part), addresses outside the map and aliases of the layer-cycle page,
/// writes while the engine is busy (ignored but for the start), back-to-back strobes, random
/// read data from the memories, and resets.
pub fn host_port_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    use edgelearn_hdl::cnn::engine::regs;
    let mut s = Stimulus::new("cnn_host_port", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    while s.len() < cycles {
        let addr: u32 = match rng.random_range(0..12) {
            0 => [
                regs::CTRL,
                regs::NLAYERS,
                regs::CYCLES,
                regs::LAYER,
                regs::PROCESSORS,
                regs::KERNEL_WORDS,
            ][rng.random_range(0..6)],
            1 => regs::LAYER_CYCLES + rng.random_range(0..32),
            2 => regs::LAYER_REGS + rng.random_range(0..512),
            3 => regs::BIAS + rng.random_range(0..2048),
            4 => regs::DATA + rng.random_range(0..131_072),
            5..=7 => regs::KERNEL + rng.random_range(0..262_144),
            // Region 0 outside its registers (the layer-cycle page repeated higher up).
            8 => rng.random_range(0..0x10_0000) & !0x1f,
            _ => rng.random_range(0..0x100_0000),
        };
        let mut lregs = BigUint::from(0u8);
        for k in 0..16 {
            lregs |= BigUint::from(rng.random::<u32>()) << (32 * k);
        }
        let kword = BigUint::from(rng.random::<u64>()) | BigUint::from(rng.random::<u8>()) << 64;
        s.row()
            .bit("reset", rng.random_range(0..300) == 0)?
            .bit("host_we", rng.random_range(0..3) == 0)?
            .bit("host_re", rng.random_range(0..3) == 0)?
            .set("host_addr", addr)?
            .set("host_wdata", rng.random::<u32>())?
            .bit("busy", rng.random_range(0..4) == 0)?
            .bit("done", rng.random())?
            .set("layer", rng.random_range(0..32u32))?
            .set("cycles", rng.random::<u32>())?
            .set("lc_rdata", rng.random::<u32>())?
            .set("lreg_rdata", lregs)?
            .set("bias_rdata", rng.random_range(0..256u32))?
            .set("dm_rdata", rng.random::<u32>())?
            .set("k_rdata", kword)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_host_port`: every output after every edge.
pub fn host_port_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    use edgelearn_hdl::cnn::engine::host_port::{BENCH_KERNEL_WORDS, BENCH_PROCESSORS};
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut h = HostRegs::new(BENCH_PROCESSORS as u32, BENCH_KERNEL_WORDS as u32);
    for c in 0..stim.len() {
        let busy = v.bit(c, "busy");
        h.step(&HostIn {
            reset: v.bit(c, "reset"),
            we: v.bit(c, "host_we"),
            re: v.bit(c, "host_re"),
            addr: v.unsigned(c, "host_addr") as u32,
            wdata: v.unsigned(c, "host_wdata") as u32,
            busy,
            done: v.bit(c, "done"),
            layer: v.unsigned(c, "layer") as u32,
            cycles: v.unsigned(c, "cycles") as u32,
        });
        let packed = v.raw(c, "lreg_rdata");
        let mut lregs = [0u32; 16];
        for (k, w) in lregs.iter_mut().enumerate() {
            let d = (packed >> (32 * k)) & BigUint::from(u32::MAX);
            *w = d.to_u32_digits().first().copied().unwrap_or(0);
        }
        let o = h.outputs(
            busy,
            &HostReadData {
                lc: v.unsigned(c, "lc_rdata") as u32,
                lregs,
                bias: v.unsigned(c, "bias_rdata") as u8,
                dm: v.unsigned(c, "dm_rdata") as u32,
                kword: wide(&v, c, "k_rdata"),
            },
        );
        let (reset, _, re, addr, wdata) = h.stage;
        for (port, val) in [
            ("host_rdata", BigUint::from(o.rdata)),
            ("hr_addr", BigUint::from(h.read_addr)),
            ("start", BigUint::from(o.start as u8)),
            ("nlayers", BigUint::from(h.nlayers)),
            ("lreg_we", BigUint::from(o.lreg_we as u8)),
            ("bias_we", BigUint::from(o.bias_we as u8)),
            ("dm_we", BigUint::from(o.dm_we as u8)),
            ("k_we", BigUint::from(o.k_we as u8)),
            ("k_wdata", BigUint::from(o.k_wdata)),
            ("reset_q", BigUint::from(reset as u8)),
            ("re", BigUint::from(re as u8)),
            ("addr", BigUint::from(addr)),
            ("wdata", BigUint::from(wdata)),
        ] {
            e.set(c, port, val);
        }
    }
    e
}

/// Kernel words of the `cnn_processor` bench.
pub const PROC_BENCH_KERNEL_WORDS: usize = 768;

/// `cnn_processor`: kernel words written, then iterations as the gather and the MAC give
/// them: per tap an inner sequence of 1..4 items (pooling) inside outer sequences of 1..3
/// operands (element-wise), padding, the processor unused now and then, every operation
/// pair (pooling first or after), average divisors with their magic numbers, corner data;
/// the MAC reading the other window with kernel words of every weight width and tap count;
/// then random rows.
pub fn processor_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new("cnn_processor", ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for w in 0..64u32 {
        s.row()
            .bit("k_we", true)?
            .set("k_waddr", if w == 63 { 767 } else { w })?
            .set("k_wdata", BigUint::from(bytes(&mut rng)))?
            .push()?;
    }
    let data = |rng: &mut Xoshiro256PlusPlus| -> u32 {
        if rng.random_range(0..3) == 0 {
            CORNER_BYTES[rng.random_range(0..CORNER_BYTES.len())] as u32
        } else {
            rng.random_range(0..256u32)
        }
    };
    let mut it = 0usize;
    while s.len() < cycles * 3 / 4 {
        let pool_first = rng.random();
        let pool = [op::MAX, op::AVG][rng.random_range(0..2)];
        let elt = [op::ADD, op::SUB, op::OR, op::XOR, op::MAX][rng.random_range(0..5)];
        let (inner_op, outer_op) = if pool_first { (pool, elt) } else { (elt, pool) };
        let (n_in, n_out) = (rng.random_range(1..=4u32), rng.random_range(1..=3u32));
        let (round, d) = (rng.random(), if pool_first { n_in } else { n_out });
        let (m, sh) = crate::cnn::engine::avg_magic(if round { 2 * d } else { d });
        let taps = rng.random_range(1..=9u32);
        let wbits = [8u32, 4, 2, 1][rng.random_range(0..4)];
        let per_word = (72 / (wbits * taps)).max(1);
        let en = rng.random_range(0..8) != 0;
        let buf = it % 2 == 1;
        for t in 0..taps {
            for o in 0..n_out {
                for k in 0..n_in {
                    let (ifirst, ilast) = (k == 0, k + 1 == n_in);
                    s.row()
                        .bit("k_we", false)?
                        .bit("en", en)?
                        .set("data", data(&mut rng))?
                        .set("inner_op", inner_op)?
                        .set("outer_op", outer_op)?
                        .bit("avg_round", round)?
                        .set("avg_d", d)?
                        .set("avg_m", m)?
                        .set("avg_sh", sh)?
                        .bit("pool_first", pool_first)?
                        .set("wbits", wbits)?
                        .set("taps", taps)?
                        .bit("g_valid", true)?
                        .bit("g_pad", rng.random_range(0..10) == 0)?
                        .bit("g_ifirst", ifirst)?
                        .bit("g_ilast", ilast)?
                        .bit("g_ofirst", o == 0 && ilast)?
                        .bit("g_olast", o + 1 == n_out && ilast)?
                        .set("g_tap", t)?
                        .bit("g_buf", buf)?
                        .bit("m_buf", !buf)?
                        .set("kshift", rng.random_range(0..per_word) * wbits * taps)?
                        .bit("k_re", rng.random_range(0..3) != 0)?
                        .set("k_raddr", rng.random_range(0..64u32))?
                        .push()?;
                }
            }
        }
        // The MAC reads the window just filled once its values are in.
        for _ in 0..4 {
            s.row().bit("g_valid", false)?.bit("m_buf", buf)?.push()?;
        }
        it += 1;
    }
    while s.len() < 64 + cycles {
        let wbits = [8u32, 4, 2, 1][rng.random_range(0..4)];
        s.row()
            .bit("en", rng.random_range(0..8) != 0)?
            .set("data", data(&mut rng))?
            .set("inner_op", rng.random_range(0..6u32))?
            .set("outer_op", rng.random_range(0..6u32))?
            .bit("pool_first", rng.random())?
            .set("wbits", wbits)?
            .set("taps", rng.random_range(0..16u32))?
            .bit("g_valid", rng.random())?
            .bit("g_pad", rng.random_range(0..5) == 0)?
            .bit("g_ifirst", rng.random())?
            .bit("g_ilast", rng.random())?
            .bit("g_ofirst", rng.random())?
            .bit("g_olast", rng.random())?
            .set("g_tap", rng.random_range(0..16u32))?
            .bit("g_buf", rng.random())?
            .bit("m_buf", rng.random())?
            .set("kshift", rng.random_range(0..72u32))?
            .bit("k_re", rng.random())?
            .set(
                "k_raddr",
                rng.random_range(0..PROC_BENCH_KERNEL_WORDS as u32),
            )?
            .bit("k_we", rng.random_range(0..6) == 0)?
            .set("k_waddr", rng.random_range(0..1024u32))?
            .set("k_wdata", BigUint::from(bytes(&mut rng)))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_processor`: `k_rdata` and `psum` after every edge.
pub fn processor_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut p = ProcessorModel::new(PROC_BENCH_KERNEL_WORDS);
    for c in 0..stim.len() {
        p.step(&ProcIn {
            en: v.bit(c, "en"),
            data: v.unsigned(c, "data") as u8,
            inner_op: v.unsigned(c, "inner_op") as u32,
            outer_op: v.unsigned(c, "outer_op") as u32,
            avg_round: v.bit(c, "avg_round"),
            avg_d: v.unsigned(c, "avg_d") as u32,
            avg_m: v.unsigned(c, "avg_m") as u32,
            avg_sh: v.unsigned(c, "avg_sh") as u32,
            pool_first: v.bit(c, "pool_first"),
            wbits: v.unsigned(c, "wbits") as u32,
            taps: v.unsigned(c, "taps") as u32,
            g_valid: v.bit(c, "g_valid"),
            g_pad: v.bit(c, "g_pad"),
            g_ifirst: v.bit(c, "g_ifirst"),
            g_ilast: v.bit(c, "g_ilast"),
            g_ofirst: v.bit(c, "g_ofirst"),
            g_olast: v.bit(c, "g_olast"),
            g_tap: v.unsigned(c, "g_tap") as u32,
            g_buf: v.bit(c, "g_buf"),
            m_buf: v.bit(c, "m_buf"),
            kshift: v.unsigned(c, "kshift") as u32,
            k_re: v.bit(c, "k_re"),
            k_raddr: v.unsigned(c, "k_raddr") as u32,
            k_we: v.bit(c, "k_we"),
            k_waddr: v.unsigned(c, "k_waddr") as u32,
            k_wdata: wide(&v, c, "k_wdata"),
        });
        e.set(c, "k_rdata", BigUint::from(p.kread));
        e.set(c, "psum", from_signed(p.psum, 20));
    }
    e
}

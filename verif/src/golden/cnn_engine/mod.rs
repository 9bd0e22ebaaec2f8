//! Golden twins of the CNN engine's sub-blocks (`edgelearn_hdl::cnn::engine`,
//! docs/cnn-engine-rtl.md), written from what each computes rather than from the RTL's
//! bit tricks. The engine as a whole is checked against the network model
//! ([`crate::cnn`]) layer by layer; these pin each block on its own. The arithmetic units
//! and the windows are here, the engine's sequencers and handshakes in `control`, the sums,
//! accumulators and the processor in `datapath`.

use super::arith::{asr_floor, dot9, sat_tc, sext};

mod control;
mod datapath;
mod gather;

pub use control::*;
pub use datapath::*;
pub use gather::*;

/// Reduction operations (`hdl::cnn::engine::reduce::op`).
pub mod op {
    /// Maximum.
    pub const MAX: u32 = 0;
    /// Average: a sum, divided on the last value.
    pub const AVG: u32 = 1;
    /// Add.
    pub const ADD: u32 = 2;
    /// Subtract.
    pub const SUB: u32 = 3;
    /// Bitwise or.
    pub const OR: u32 = 4;
    /// Bitwise xor.
    pub const XOR: u32 = 5;
}

/// The average's division (`AvgDiv`): `sign(s) ((n m) >> sh)`, low 8 bits, with `n = |s|`,
/// or `2|s| + d` when rounding; `s` is an 18-bit two's-complement sum.
pub fn avg_div(value: i64, round: bool, d: u32, m: u32, sh: u32) -> i64 {
    let v = sext(value as u64 & 0x3ffff, 18);
    let mag = (v.unsigned_abs()) & 0x3ffff;
    let num = if round {
        (2 * mag + d as u64) & 0x3ffff
    } else {
        mag
    };
    let prod = (num as u128 * m as u128) & ((1 << 36) - 1);
    let q8 = ((prod >> sh) & 0xff) as i64;
    sext(if v < 0 { (-q8) as u64 } else { q8 as u64 } & 0xff, 8)
}

/// One step of a reduction unit: the sum including `value` (18-bit wrap).
pub fn reduce_next(op: u32, acc: i64, first: bool, value: i64) -> i64 {
    let w = |x: i64| sext(x as u64 & 0x3ffff, 18);
    if first {
        return w(value);
    }
    match op {
        op::MAX => acc.max(value),
        op::AVG | op::ADD => w(acc + value),
        op::SUB => w(acc - value),
        op::OR => w(acc | value),
        op::XOR => w(acc ^ value),
        _ => acc,
    }
}

/// A reduction unit's cycle model (`Reduce`): inputs sampled at an edge, outputs after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reduce {
    acc: i64,
    done: bool,
    res: i64,
}

/// Inputs of [`Reduce::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReduceIn {
    /// Operation.
    pub op: u32,
    /// A value.
    pub valid: bool,
    /// It starts a sequence.
    pub first: bool,
    /// It ends a sequence.
    pub last: bool,
    /// The value (18-bit two's complement).
    pub value: i64,
    /// The average of the sum (what the processor's divider gives).
    pub avg: i64,
}

impl Reduce {
    /// `out_valid`: a sequence ended at the last edge.
    pub fn out_valid(&self) -> bool {
        self.done
    }

    /// `result`: the last sequence's result (8-bit two's complement).
    pub fn result(&self) -> i64 {
        self.res
    }

    /// `sum` (combinational, before the edge): the reduction including `i.value`.
    pub fn sum(&self, i: &ReduceIn) -> i64 {
        reduce_next(i.op, self.acc, i.first, i.value)
    }

    /// One edge; returns `(out_valid, result)` after it.
    pub fn step(&mut self, i: &ReduceIn) -> (bool, i64) {
        let nxt = self.sum(i);
        if i.valid {
            self.acc = nxt;
        }
        self.done = i.valid && i.last;
        if i.valid && i.last {
            self.res = if i.op == op::AVG {
                i.avg
            } else {
                sat_tc(nxt, 8)
            };
        }
        (self.done, self.res)
    }
}

/// A reduction over a whole sequence: what the unit registers after the last value.
pub fn reduce(op: u32, values: &[i64], avg: impl Fn(i64) -> i64) -> i64 {
    let mut acc = 0;
    for (k, &v) in values.iter().enumerate() {
        acc = reduce_next(op, acc, k == 0, v);
    }
    if op == op::AVG {
        avg(acc)
    } else {
        sat_tc(acc, 8)
    }
}

/// The weights of a kernel word (`TapMac`): tap t is bits `kshift + t wbits`, sign-extended
/// (a 1-bit weight is 0 or -1).
pub fn kernel_weights(kword: u128, kshift: u32, wbits: u32) -> [i64; 9] {
    let ksh = (kword & ((1 << 72) - 1)) >> kshift.min(127);
    std::array::from_fn(|t| {
        let t = t as u32;
        match wbits {
            8 => sext((ksh >> (8 * t)) as u64 & 0xff, 8),
            4 => sext((ksh >> (4 * t)) as u64 & 0xf, 4),
            2 => sext((ksh >> (2 * t)) as u64 & 0x3, 2),
            _ => -(((ksh >> t) & 1) as i64),
        }
    })
}

/// A processor's MAC (`TapMac`): the window times the kernel, over the first `taps` taps.
pub fn tap_mac(window: &[i64; 9], kword: u128, kshift: u32, wbits: u32, taps: u32) -> i64 {
    dot9(window, &kernel_weights(kword, kshift, wbits), taps as usize)
}

/// The index of the lowest set bit, or 64 (`LowestSet`).
pub fn lowest_set(flags: u64) -> u32 {
    if flags == 0 {
        64
    } else {
        flags.trailing_zeros()
    }
}

/// Inputs of the output stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutStageIn {
    /// A result.
    pub valid: bool,
    /// The accumulator (48-bit two's complement).
    pub acc: i64,
    /// Output processor.
    pub oproc: u32,
    /// Output pass.
    pub oe: u32,
    /// Output pixel.
    pub opix: u32,
    /// Raw 32-bit output.
    pub wide: bool,
    /// Activation: 0 none, 1 ReLU, 2 Abs.
    pub act: u32,
    /// Right shift (0..31).
    pub rshift: u32,
    /// Left shift (0..15).
    pub lshift: u32,
    /// Output passes.
    pub out_passes: u32,
    /// `write_gap + 1`.
    pub gap: u32,
    /// First output word.
    pub out_base: u32,
    /// A rolling output buffer of `2^out_roll` words (0: none).
    pub out_roll: u32,
}

/// What the output stage writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutStageOut {
    /// Write.
    pub we: bool,
    /// Byte lanes.
    pub be: u32,
    /// Data memory (17:13) and word (12:0).
    pub gword: u32,
    /// The word.
    pub data: u32,
}

/// The output byte: round half up by `rshift` (or shift left), saturate, activate.
pub fn out_byte(acc: i64, rshift: u32, lshift: u32, act: u32) -> i64 {
    let a = sext(acc as u64 & ((1 << 48) - 1), 48);
    let y0 = if rshift != 0 {
        asr_floor(a + (1i64 << (rshift - 1)), rshift)
    } else {
        a << lshift
    };
    let y8 = sat_tc(y0, 8);
    match act {
        1 => y8.max(0),
        2 => y8.abs().min(127),
        _ => y8,
    }
}

/// The output stage (`OutStage`): the byte (or the raw 32 bits) and where it goes, word
/// arithmetic modulo 2^18, the offset from `out_base` modulo `2^out_roll` in a rolling
/// buffer.
pub fn out_stage(i: &OutStageIn) -> OutStageOut {
    const M18: u32 = (1 << 18) - 1;
    let mask = if i.out_roll == 0 {
        M18
    } else {
        (1 << i.out_roll) - 1
    };
    let pe = ((i.opix & M18) * i.out_passes + i.oe) & M18;
    let idx = (pe as u64 * i.gap as u64) as u32 & M18;
    let base = ((((i.oproc >> 2) & 0xf) << 13) + (i.out_base & 0xffff)) & M18;
    if i.wide {
        OutStageOut {
            we: i.valid,
            be: 0xf,
            gword: (base + ((idx << 2) & mask) + (i.oproc & 3)) & M18,
            data: (i.acc as u64 & 0xffff_ffff) as u32,
        }
    } else {
        let b = (out_byte(i.acc, i.rshift, i.lshift, i.act) as u64 & 0xff) as u32;
        OutStageOut {
            we: i.valid,
            be: 1 << (i.oproc & 3),
            gword: (base + (idx & mask)) & M18,
            data: b * 0x0101_0101,
        }
    }
}

/// A processor's two windows (`WindowBuf`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowPair {
    /// Window 0 and window 1, nine taps each (8-bit two's complement).
    pub win: [[i64; 9]; 2],
}

impl WindowPair {
    /// One edge: write `value` into tap `tap` (taps 9..15 write nothing) of window `buf`.
    pub fn write(&mut self, write: bool, buf: usize, tap: usize, value: i64) {
        if write && tap < 9 {
            self.win[buf & 1][tap] = sext(value as u64 & 0xff, 8);
        }
    }

    /// One edge's slide into window `buf` (D-CNN-SLIDE): its taps 0..7 take taps 1..8 of
    /// the other window, or of itself with `same` (before a write at the same edge, which
    /// wins).
    pub fn slide(&mut self, slide: bool, buf: usize, same: bool) {
        if slide {
            let from = self.win[(buf & 1) ^ usize::from(!same)];
            self.win[buf & 1][..8].copy_from_slice(&from[1..]);
        }
    }

    /// The taps of window `buf`, packed as the RTL's 72-bit bus.
    pub fn read(&self, buf: usize) -> u128 {
        self.win[buf & 1]
            .iter()
            .enumerate()
            .fold(0u128, |v, (t, &x)| {
                v | ((x as u64 & 0xff) as u128) << (8 * t)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners() {
        // -128 x 9 taps of -128: the largest product sum.
        let w = [-128i64; 9];
        let kword = (0..9).fold(0u128, |v, t| v | 0x80u128 << (8 * t));
        assert_eq!(tap_mac(&w, kword, 0, 8, 9), 9 * 16384);
        // Packed 4-bit weights: the second kernel of the word.
        let k = 0xf_u128 << 36; // tap 0 of kernel 1 is -1
        assert_eq!(kernel_weights(k, 36, 4)[0], -1);
        assert_eq!(kernel_weights(1, 0, 1)[0], -1);
        // Round half up, then saturate; ReLU and Abs.
        assert_eq!(out_byte(3 << 6, 7, 0, 0), 2); // 1.5 -> 2
        assert_eq!(out_byte(-(3 << 6), 7, 0, 0), -1); // -1.5 -> -1
        assert_eq!(out_byte(1 << 40, 7, 0, 0), 127);
        assert_eq!(out_byte(-(1 << 40), 7, 0, 0), -128);
        assert_eq!(out_byte(-(1 << 40), 7, 0, 2), 127);
        assert_eq!(out_byte(-5, 0, 0, 1), 0);
        assert_eq!(out_byte(3, 0, 8, 0), 127);
        assert_eq!(lowest_set(0), 64);
        assert_eq!(lowest_set(1 << 63), 63);
        // The average of 2 x 2 values summing to -7, truncated: -1 (toward zero).
        let (m, sh) = (((1u64 << 19) / 4 + 1) as u32, 19);
        assert_eq!(avg_div(-7, false, 4, m, sh), -1);
        assert_eq!(reduce(op::MAX, &[-128, 5, -3], |_| 0), 5);
        assert_eq!(reduce(op::ADD, &[100, 100], |_| 0), 127);
        assert_eq!(reduce(op::SUB, &[-100, 100], |_| 0), -128);
    }

    #[test]
    fn windows_slide_only_where_the_neighbours_window_is_kept() {
        // (mode, passes, chunks, kw, taps, out_w, dil)
        let of = |m, p, c, kw, t, w, d| Slide::of(m, p, c, kw, t, w, d);
        assert_eq!(of(0, 1, 1, 3, 9, 8, 1), Slide::Columns);
        assert_eq!(of(2, 2, 1, 3, 9, 8, 1), Slide::Columns); // transposed, two passes
        assert_eq!(of(0, 2, 1, 3, 9, 8, 2), Slide::Columns); // row dilation keeps columns
        assert_eq!(of(0, 3, 1, 3, 9, 8, 1), Slide::None); // three passes: overwritten
        assert_eq!(of(1, 1, 3, 3, 9, 1, 1), Slide::None); // flatten
        assert_eq!(of(0, 1, 1, 1, 1, 8, 1), Slide::None); // 1x1
        assert_eq!(of(0, 1, 1, 1, 5, 1, 1), Slide::Rows); // Conv1d
        assert_eq!(of(0, 1, 1, 1, 5, 1, 2), Slide::None); // Conv1d with dilation
        assert_eq!(of(0, 1, 1, 1, 5, 2, 1), Slide::None); // more than one column
                                                          // The taps a sliding iteration gathers, and which iterations slide.
        let taps = |s: Slide| {
            (0..9)
                .filter(|&t| s.gathers(true, t, 9))
                .collect::<Vec<_>>()
        };
        assert_eq!(taps(Slide::Columns), [2, 5, 8]);
        assert_eq!(taps(Slide::Rows), [8]);
        assert!(!Slide::Columns.at(3, 0, 0) && Slide::Columns.at(3, 1, 0));
        assert!(!Slide::Rows.at(3, 0, 3) && Slide::Rows.at(4, 0, 3));
        // A slide moves the neighbour's taps 1..8 to 0..7, from the other window or its own.
        let mut w = WindowPair {
            win: [[0, 1, 2, 3, 4, 5, 6, 7, 8], [-1; 9]],
        };
        w.slide(true, 1, false);
        assert_eq!(w.win[1], [1, 2, 3, 4, 5, 6, 7, 8, -1]);
        w.slide(true, 0, true);
        assert_eq!(w.win[0], [1, 2, 3, 4, 5, 6, 7, 8, 8]);
    }
}

/// What the address generator reads of a layer's registers (`AddrGen`'s inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AddrGenCfg {
    /// 0 window, 1 flatten, 2 transposed.
    pub mode: u32,
    /// CHW input.
    pub chw: bool,
    /// The inner unit pools.
    pub pool_first: bool,
    /// Input columns, passes, operands, first word.
    pub in_w: u32,
    /// See `in_w`.
    pub in_passes: u32,
    /// See `in_w`.
    pub operands: u32,
    /// See `in_w`.
    pub in_base: u32,
    /// Pooling window and stride.
    pub pool_h: u32,
    /// See `pool_h`.
    pub pool_w: u32,
    /// See `pool_h`.
    pub stride_y: u32,
    /// See `pool_h`.
    pub stride_x: u32,
    /// Pooled size.
    pub pooled_h: u32,
    /// See `pooled_h`.
    pub pooled_w: u32,
    /// Kernel columns, row dilation, padding.
    pub kw: u32,
    /// See `kw`.
    pub dil: u32,
    /// See `kw`.
    pub pad_y: u32,
    /// See `kw`.
    pub pad_x: u32,
    /// The output rows run: `row_first..=row_last` (a streaming layer's slice, or all).
    pub row_first: u32,
    /// See `row_first`.
    pub row_last: u32,
    /// Output columns, chunks, taps.
    pub out_w: u32,
    /// See `out_w`.
    pub chunks: u32,
    /// See `out_w`.
    pub taps: u32,
    /// A rolling input buffer of `2^in_roll` words (0: none).
    pub in_roll: u32,
}

/// One gather item (`AddrGen`'s `item` bus and `word`), and whether it ends its iteration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GatherItem {
    /// Data-memory word (13 bits).
    pub word: u32,
    /// A tap in the padding.
    pub pad: bool,
    /// Starts / ends a sequence of the inner unit.
    pub ifirst: bool,
    /// See `ifirst`.
    pub ilast: bool,
    /// Starts / ends a sequence of the outer unit.
    pub ofirst: bool,
    /// See `ofirst`.
    pub olast: bool,
    /// The pixel's byte lane.
    pub lane: u32,
    /// The window tap.
    pub tap: u32,
    /// The iteration's last item.
    pub iter_end: bool,
    /// The first item of a sliding iteration (D-CNN-SLIDE).
    pub slide: bool,
    /// The slide's source is the window it fills (two passes).
    pub slide_same: bool,
}

impl GatherItem {
    /// The 15-bit item bus with `valid` and window `buf` (`hdl::cnn::engine::quad::item`).
    pub fn bus(&self, valid: bool, buf: bool) -> u32 {
        valid as u32
            | (self.pad as u32) << 1
            | (self.ifirst as u32) << 2
            | (self.ilast as u32) << 3
            | (self.ofirst as u32) << 4
            | (self.olast as u32) << 5
            | (self.lane & 3) << 6
            | (self.tap & 15) << 8
            | (buf as u32) << 12
            | (self.slide as u32) << 13
            | (self.slide_same as u32) << 14
    }
}

impl AddrGenCfg {
    /// How the layer's windows slide (D-CNN-SLIDE).
    pub fn slide(&self) -> Slide {
        Slide::of(
            self.mode,
            self.in_passes,
            self.chunks,
            self.kw,
            self.taps,
            self.out_w,
            self.dil,
        )
    }
}

/// How a layer's windows slide (D-CNN-SLIDE): an iteration whose neighbour's window of the
/// same pass is still in a window (one or two input passes, one chunk: one or two
/// iterations back) gathers only the taps that neighbour does not share, and moves the
/// neighbour's window one tap over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slide {
    /// Every iteration gathers its whole window.
    None,
    /// A 3x3 window or transposed kernel: after a row's first pixel, the right column
    /// (taps 2, 5, 8); the other two are the left neighbour's.
    Columns,
    /// A Conv1d kernel of dilation 1 on a one-column input: after the run's first row, the
    /// last tap; the others are the row above's.
    Rows,
}

impl Slide {
    /// From the layer's fields.
    pub fn of(
        mode: u32,
        in_passes: u32,
        chunks: u32,
        kw: u32,
        taps: u32,
        out_w: u32,
        dil: u32,
    ) -> Slide {
        if !(in_passes == 1 || in_passes == 2) || chunks != 1 {
            Slide::None
        } else if (mode == 0 || mode == 2) && kw == 3 && taps == 9 {
            Slide::Columns
        } else if mode == 0 && kw == 1 && out_w == 1 && dil == 1 && taps >= 2 {
            Slide::Rows
        } else {
            Slide::None
        }
    }

    /// A sliding iteration's first tap `(t, ty, tx)`: the right column's top, or the
    /// kernel's last tap (`IterWalk`'s `sl_t`, `sl_ty`, `sl_tx`; the first when not sliding).
    pub fn first_tap(self, taps: u32) -> (u32, u32, u32) {
        match self {
            Slide::Rows => (taps - 1, taps - 1, 0),
            _ => (2, 0, 2),
        }
    }

    /// Whether the iteration of output pixel (`oy`, `ox`) in a run from row `first` slides.
    pub fn at(self, oy: u32, ox: u32, first: u32) -> bool {
        match self {
            Slide::None => false,
            Slide::Columns => ox > 0,
            Slide::Rows => oy > first,
        }
    }

    /// Whether an iteration (`sliding` or not) gathers tap `t` of `taps`.
    pub fn gathers(self, sliding: bool, t: u32, taps: u32) -> bool {
        !sliding
            || match self {
                Slide::None => true,
                Slide::Columns => t % 3 == 2,
                Slide::Rows => t + 1 == taps,
            }
    }
}

/// Every item of a layer, in the order the gather issues them: per output pixel, input
/// pass and chunk, per tap, one padding item or the pooling window's items of every
/// operand (docs/cnn-engine-rtl.md "What happens per cycle"). The word arithmetic is modulo
/// 2^16, the word 13 bits, as in the RTL.
pub fn gather_items(f: &AddrGenCfg) -> Vec<GatherItem> {
    let mut out = Vec::new();
    let slide = f.slide();
    for oy in f.row_first..=f.row_last {
        for ox in 0..f.out_w {
            let sliding = slide.at(oy, ox, f.row_first);
            for e in 0..f.in_passes {
                let first = out.len();
                for ch in 0..f.chunks {
                    for t in (0..f.taps).filter(|&t| slide.gathers(sliding, t, f.taps)) {
                        let (ty, tx) = (t / f.kw.max(1), t % f.kw.max(1));
                        let pos = f.taps * ch + t;
                        let (fy, fx) = (pos / f.pooled_w.max(1), pos % f.pooled_w.max(1));
                        let (py, px, valid) = tap_pos(&TapPosIn {
                            mode: f.mode,
                            oy,
                            ox,
                            ty,
                            tx,
                            fy,
                            fx,
                            dil: f.dil,
                            pad_y: f.pad_y,
                            pad_x: f.pad_x,
                            pooled_h: f.pooled_h,
                            pooled_w: f.pooled_w,
                        });
                        let item = |pi: u32, pj: u32, o: u32| {
                            let (word, lane) = word_addr(&WordAddrIn {
                                py,
                                px,
                                pi,
                                pj,
                                o,
                                e,
                                stride_y: f.stride_y,
                                stride_x: f.stride_x,
                                in_w: f.in_w,
                                in_passes: f.in_passes,
                                operands: f.operands,
                                chw: f.chw,
                                in_roll: f.in_roll,
                                in_base: f.in_base,
                            });
                            GatherItem {
                                word,
                                lane,
                                tap: t,
                                ..GatherItem::default()
                            }
                        };
                        let last_tap = t + 1 == f.taps;
                        if !valid {
                            out.push(GatherItem {
                                pad: true,
                                ifirst: true,
                                ilast: true,
                                ofirst: true,
                                olast: true,
                                iter_end: last_tap,
                                ..item(0, 0, 0)
                            });
                            continue;
                        }
                        let seq = elements(f.pool_first, f.pool_h, f.pool_w, f.operands);
                        let n = seq.len();
                        for (k, el) in seq.iter().enumerate() {
                            out.push(GatherItem {
                                ifirst: el.ifirst,
                                ilast: el.ilast,
                                ofirst: el.ofirst,
                                olast: el.olast,
                                iter_end: last_tap && k + 1 == n,
                                ..item(el.pi, el.pj, el.o)
                            });
                        }
                    }
                }
                if sliding {
                    out[first].slide = true;
                    out[first].slide_same = f.in_passes == 2;
                }
            }
        }
    }
    out
}

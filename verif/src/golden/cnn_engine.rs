//! Golden twins of the CNN engine's sub-blocks (`edgelearn_hdl::cnn::engine`,
//! docs/cnn-engine-rtl.md), written from what each computes rather than from the RTL's
//! bit tricks. The engine as a whole is checked against the network model
//! ([`crate::cnn`]) layer by layer; these pin each block on its own.

use super::arith::{asr_floor, dot9, sat_tc, sext};

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
/// arithmetic modulo 2^18.
pub fn out_stage(i: &OutStageIn) -> OutStageOut {
    const M18: u32 = (1 << 18) - 1;
    let pe = ((i.opix & M18) * i.out_passes + i.oe) & M18;
    let idx = (pe as u64 * i.gap as u64) as u32 & M18;
    let base = ((((i.oproc >> 2) & 0xf) << 13) + (i.out_base & 0xffff)) & M18;
    if i.wide {
        OutStageOut {
            we: i.valid,
            be: 0xf,
            gword: (base + (idx << 2) + (i.oproc & 3)) & M18,
            data: (i.acc as u64 & 0xffff_ffff) as u32,
        }
    } else {
        let b = (out_byte(i.acc, i.rshift, i.lshift, i.act) as u64 & 0xff) as u32;
        OutStageOut {
            we: i.valid,
            be: 1 << (i.oproc & 3),
            gword: (base + idx) & M18,
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

/// The two windows' handshake (`WindowCtl`): per window, `pend` while an iteration's items
/// are on their way (from the gather's last one until the value is in the window, three
/// edges), then `full` until the MAC has issued the iteration's last channel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowFlags {
    /// Windows holding a complete iteration (bit b: window b).
    pub full: u8,
    /// Windows whose iteration's items are issued, the values not yet in.
    pub pend: u8,
    /// The gather ends of the last three edges, newest first: (an end, its window).
    ends: [(bool, bool); 3],
}

/// One edge's inputs of [`WindowFlags`].
#[derive(Clone, Copy, Debug, Default)]
pub struct WindowCtlIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A layer starts.
    pub load: bool,
    /// The layer runs (the flags change only then).
    pub run: bool,
    /// The gather issues an iteration's last item, into window `gather_buf`.
    pub gather_end: bool,
    /// The gather's window.
    pub gather_buf: bool,
    /// The MAC issues an iteration's last channel, from window `mac_buf`.
    pub mac_end: bool,
    /// The MAC's window.
    pub mac_buf: bool,
}

impl WindowFlags {
    /// One edge. A window whose values arrive is full and no longer pending; the MAC's end
    /// frees its window; the later of these wins. A load or a reset frees both windows.
    pub fn step(&mut self, i: &WindowCtlIn) {
        let bit = |b: bool| 1u8 << (b as u8);
        let (mut full, mut pend) = (self.full, self.pend);
        if i.gather_end {
            pend |= bit(i.gather_buf);
        }
        let (arrived, buf) = self.ends[2];
        if arrived {
            full |= bit(buf);
            pend &= !bit(buf);
        }
        if i.mac_end {
            full &= !bit(i.mac_buf);
        }
        if i.run {
            (self.full, self.pend) = (full, pend);
        }
        if i.load || i.reset {
            (self.full, self.pend) = (0, 0);
        }
        self.ends = [
            (i.gather_end && !i.reset, i.gather_buf),
            self.ends[0],
            self.ends[1],
        ];
        if i.reset {
            for e in &mut self.ends {
                e.0 = false;
            }
        }
    }
}

/// What travels with an issued output channel (`MacPipe`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacTag {
    /// A channel is in this stage.
    pub valid: bool,
    /// The pixel's first iteration (the accumulator starts from the bias).
    pub first: bool,
    /// The pixel's last iteration (the result is written).
    pub last: bool,
    /// Output channel.
    pub oc: u32,
    /// Output processor.
    pub proc: u32,
    /// Output pass.
    pub oe: u32,
    /// Output pixel.
    pub pix: u32,
}

/// The MAC pipeline's side information (`MacPipe`): stages M1, M2, M3 and the write at M4.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacTags {
    /// M1, M2, M3.
    pub stage: [MacTag; 3],
    /// M4: valid only for a last iteration.
    pub m4: MacTag,
}

impl MacTags {
    /// One edge: `issue` enters M1 (not valid under `reset`), everything moves one stage.
    pub fn step(&mut self, reset: bool, issue: MacTag) {
        let m3 = self.stage[2];
        self.m4 = MacTag {
            valid: m3.valid && m3.last,
            ..m3
        };
        self.stage = [
            MacTag {
                valid: issue.valid && !reset,
                ..issue
            },
            self.stage[0],
            self.stage[1],
        ];
    }
}

/// The sum over the processors (`GroupSum`): each group of quads summed into a register at
/// the edge, `total` the sum of the registers. A quad not in `active` counts 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSums {
    /// The registered group sums.
    pub groups: Vec<i64>,
    /// Quads per group.
    pub per_group: usize,
}

impl GroupSums {
    /// `groups` groups of `per_group` quads.
    pub fn new(groups: usize, per_group: usize) -> Self {
        GroupSums {
            groups: vec![0; groups],
            per_group,
        }
    }

    /// One edge with the quads' sums `qsum` (signed) and the used quads `active`.
    pub fn step(&mut self, qsum: &[i64], active: u32) {
        for (g, s) in self.groups.iter_mut().enumerate() {
            *s = (0..self.per_group)
                .map(|k| g * self.per_group + k)
                .filter(|&q| active >> q & 1 == 1)
                .map(|q| qsum[q])
                .sum();
        }
    }

    /// The total over the groups.
    pub fn total(&self) -> i64 {
        self.groups.iter().sum()
    }
}

/// The accumulators and the bias memory (`AccMem`): `acc[oc] = (first ? bias[b] << 7 :
/// acc[oc]) + total` with `b = bias_start + oc` (wrapping at the bias memory's depth), 48
/// bits; the bias byte is read at M2 and the accumulator read at M2 (read-first), written
/// at M3, and the new value registered for M4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulators {
    /// The accumulator memory (48-bit two's complement).
    pub acc: Vec<i64>,
    /// The bias memory (8-bit two's complement).
    pub bias: Vec<i64>,
    /// The bias byte read at the last edge.
    pub bias_read: i64,
    /// The accumulator read at the last edge.
    pub acc_read: i64,
    /// M4: the last new accumulator value.
    pub m4_acc: i64,
}

/// One edge's inputs of [`Accumulators`].
#[derive(Clone, Copy, Debug, Default)]
pub struct AccIn {
    /// M2: the channel read.
    pub m2_oc: u32,
    /// The layer's first bias byte.
    pub bias_start: u32,
    /// The layer has a bias.
    pub bias_en: bool,
    /// The engine runs (else the bias memory is read at `host_addr`).
    pub busy: bool,
    /// A host bias write.
    pub host_we: bool,
    /// The host's bias address.
    pub host_addr: u32,
    /// The host's bias byte.
    pub host_wdata: i64,
    /// M3: update a channel.
    pub m3_valid: bool,
    /// M3: the pixel's first iteration.
    pub m3_first: bool,
    /// M3: the channel.
    pub m3_oc: u32,
    /// M3: the sum over the processors.
    pub total: i64,
}

/// Accumulator words.
pub const ACC_WORDS: usize = 1024;

impl Accumulators {
    /// A bias memory of `bias_bytes` bytes (rounded up to a power of two), all zero.
    pub fn new(bias_bytes: usize) -> Self {
        Accumulators {
            acc: vec![0; ACC_WORDS],
            bias: vec![0; bias_bytes.next_power_of_two()],
            bias_read: 0,
            acc_read: 0,
            m4_acc: 0,
        }
    }

    /// The new accumulator value at M3 for inputs `i` (before the edge).
    pub fn next_acc(&self, i: &AccIn) -> i64 {
        let base = if i.m3_first {
            if i.bias_en {
                self.bias_read * 128
            } else {
                0
            }
        } else {
            self.acc_read
        };
        sext((base + i.total) as u64 & ((1 << 48) - 1), 48)
    }

    /// One edge.
    pub fn step(&mut self, i: &AccIn) {
        let mask = self.bias.len() - 1;
        let new = self.next_acc(i);
        let raddr = if i.busy {
            (i.bias_start + i.m2_oc) as usize & 0x7ff & mask
        } else {
            i.host_addr as usize & mask
        };
        // Reads first, then the writes.
        self.bias_read = self.bias[raddr];
        self.acc_read = self.acc[i.m2_oc as usize % ACC_WORDS];
        self.m4_acc = new;
        if i.host_we {
            self.bias[i.host_addr as usize & mask] = sext(i.host_wdata as u64 & 0xff, 8);
        }
        if i.m3_valid {
            self.acc[i.m3_oc as usize % ACC_WORDS] = new;
        }
    }
}

/// The layer sequencer's states (`LayerSeq`), in the order of their index on `state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SeqPhase {
    /// Waiting for the host.
    #[default]
    Idle,
    /// One cycle: the layer's registers into the configuration.
    Load,
    /// The gather and the MAC.
    Run,
    /// The MAC pipeline empties (nine cycles).
    Drain,
}

/// Cycles of DRAIN after the layer's last issue, minus one.
pub const SEQ_DRAIN_COUNT: u32 = 8;

/// One edge's inputs of [`Sequencer`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The host starts a run (taken in IDLE).
    pub start: bool,
    /// Layers to run.
    pub nlayers: u32,
    /// The MAC issues the layer's last channel.
    pub layer_end: bool,
    /// The layer whose cycle count is read.
    pub lc_raddr: u32,
}

/// The layer sequencer (`LayerSeq`): LOAD, RUN until the layer's last issue, DRAIN nine
/// cycles, then the next layer's LOAD or IDLE with `done`; it counts the run's cycles and
/// keeps each layer's (from its LOAD to the end of its DRAIN).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sequencer {
    /// State.
    pub phase: SeqPhase,
    /// The running (or last) layer.
    pub layer: u32,
    /// DRAIN's countdown.
    pub cnt: u32,
    /// Cycles since the start.
    pub cycles: u32,
    /// `cycles` at the layer's LOAD.
    pub lstart: u32,
    /// The run has finished.
    pub done: bool,
    /// A layer's last write was one cycle ago.
    pub layer_done: bool,
    /// The cycle after LOAD.
    pub loaded: bool,
    /// Each layer's cycles in the last run.
    pub lcycles: [u32; 32],
    /// The count read at the last edge.
    pub lc_read: u32,
}

impl Sequencer {
    /// The layer whose registers are read this cycle (for the next LOAD).
    pub fn next_layer(&self) -> u32 {
        match self.phase {
            SeqPhase::Idle => 0,
            SeqPhase::Drain => (self.layer + 1) % 32,
            _ => self.layer,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &SeqIn) {
        let before = self.clone();
        self.lc_read = before.lcycles[i.lc_raddr as usize % 32];
        self.layer_done = false;
        self.loaded = false;
        if before.phase != SeqPhase::Idle {
            self.cycles = before.cycles.wrapping_add(1);
        }
        let last = before.layer % 64 == i.nlayers.wrapping_sub(1) % 64;
        match before.phase {
            SeqPhase::Idle => {
                if i.start {
                    (self.phase, self.layer, self.done, self.cycles) =
                        (SeqPhase::Load, 0, false, 0);
                }
            }
            SeqPhase::Load => {
                self.lstart = before.cycles;
                self.loaded = true;
                self.phase = SeqPhase::Run;
            }
            SeqPhase::Run => {
                if i.layer_end {
                    self.phase = SeqPhase::Drain;
                    self.cnt = SEQ_DRAIN_COUNT;
                }
            }
            SeqPhase::Drain => {
                if before.cnt == 0 {
                    self.lcycles[before.layer as usize] =
                        before.cycles.wrapping_sub(before.lstart).wrapping_add(1);
                    self.layer_done = true;
                    if last {
                        self.phase = SeqPhase::Idle;
                        self.done = true;
                    } else {
                        self.layer = (before.layer + 1) % 32;
                        self.phase = SeqPhase::Load;
                    }
                } else {
                    self.cnt = before.cnt - 1;
                }
            }
        }
        if i.reset {
            self.phase = SeqPhase::Idle;
            self.done = false;
            self.layer = 0;
            self.cycles = 0;
            self.layer_done = false;
            self.loaded = false;
        }
    }
}

/// One edge's inputs of [`MacSeq`] (the layer's fields as `MacCtl` takes them).
#[derive(Clone, Copy, Debug, Default)]
pub struct MacCtlIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A layer starts.
    pub load: bool,
    /// The starting kernel word of the layer being loaded.
    pub load_kstart: u32,
    /// The layer runs.
    pub run: bool,
    /// Windows holding a complete iteration.
    pub full: u32,
    /// Output channels.
    pub out_ch: u32,
    /// Kernel start word (each pixel's).
    pub kstart: u32,
    /// Kernels per word.
    pub kpw: u32,
    /// Bits per kernel.
    pub kslot: u32,
    /// Output processors per output pass.
    pub out_thresh: u32,
    /// Output processor map.
    pub out_map: u64,
    /// Input passes.
    pub in_passes: u32,
    /// Flatten chunks.
    pub chunks: u32,
    /// Output width.
    pub out_w: u32,
    /// Output height.
    pub out_h: u32,
}

/// The MAC side's sequencer (`MacCtl`): once its window is full, a cycle to start, then one
/// output channel per cycle, each with its kernel word and slot, output processor (the map's
/// processors in order, `out_thresh` per output pass) and pass; after the last channel the
/// window is freed and the loop moves on (chunk, input pass, output pixel).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacSeq {
    /// Issuing channels.
    pub active: bool,
    /// The window read.
    pub buf: bool,
    /// Output row and column, pixel index.
    pub y: u32,
    /// Output column.
    pub x: u32,
    /// Output pixel index.
    pub pix: u32,
    /// Input pass.
    pub pass_in: u32,
    /// Flatten chunk.
    pub chunk: u32,
    /// Channel.
    pub ch: u32,
    /// Kernel word.
    pub kword: u32,
    /// Kernel in the word.
    pub ksub: u32,
    /// Output processor.
    pub proc: u32,
    /// Channels of this output pass so far.
    pub rank: u32,
    /// Output pass.
    pub pass_out: u32,
}

/// What [`MacSeq`] drives in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacIssue {
    /// A channel is issued.
    pub issue: bool,
    /// The pixel's first iteration.
    pub first: bool,
    /// The pixel's last iteration.
    pub last: bool,
    /// The window read.
    pub read_buf: bool,
    /// Channel.
    pub oc: u32,
    /// Kernel word.
    pub kaddr: u32,
    /// The kernel's first bit in the word.
    pub kshift: u32,
    /// Output processor.
    pub oproc: u32,
    /// Output pass.
    pub oe: u32,
    /// Output pixel.
    pub opix: u32,
    /// The iteration's last channel.
    pub mac_end: bool,
    /// The layer's last channel.
    pub layer_end: bool,
}

impl MacSeq {
    /// The iteration-loop ends for inputs `i` (each counter at its bound minus one).
    fn ends(&self, i: &MacCtlIn) -> [bool; 5] {
        let at = |v: u32, n: u32, bits: u32| v == n.wrapping_sub(1) & ((1 << bits) - 1);
        [
            at(self.ch, i.out_ch, 11),
            at(self.chunk, i.chunks, 5),
            at(self.pass_in, i.in_passes, 5),
            at(self.x, i.out_w, 10),
            at(self.y, i.out_h, 10),
        ]
    }

    /// The outputs in this cycle.
    pub fn outputs(&self, i: &MacCtlIn) -> MacIssue {
        let go = i.run && self.active;
        let [ch_end, chunk_end, pass_end, x_end, y_end] = self.ends(i);
        MacIssue {
            issue: go,
            first: self.pass_in == 0 && self.chunk == 0,
            last: pass_end && chunk_end,
            read_buf: self.buf,
            oc: self.ch,
            kaddr: self.kword,
            kshift: (self.ksub * i.kslot) & 0x7f,
            oproc: self.proc,
            oe: self.pass_out,
            opix: self.pix,
            mac_end: go && ch_end,
            layer_end: go && ch_end && chunk_end && pass_end && x_end && y_end,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &MacCtlIn) {
        let b = self.clone();
        let go = i.run && b.active;
        let [ch_end, chunk_end, pass_end, x_end, y_end] = b.ends(i);
        let first_proc = lowest_set(i.out_map);
        // The processors of the map above this one.
        let above = i.out_map & !((2u64 << (b.proc & 63)).wrapping_sub(1));
        let full = i.full >> (b.buf as u32) & 1 == 1;
        if i.run && !b.active && full {
            (self.active, self.ch, self.rank, self.pass_out) = (true, 0, 0, 0);
            self.proc = first_proc;
        }
        if go {
            if b.ksub == i.kpw.wrapping_sub(1) & 0x7f {
                self.ksub = 0;
                self.kword = (b.kword + 1) & 0x3ff;
            } else {
                self.ksub = (b.ksub + 1) & 0x7f;
            }
            let next_rank = (b.rank + 1) & 0x7f;
            if next_rank == i.out_thresh {
                self.rank = 0;
                self.pass_out = (b.pass_out + 1) & 0x1f;
                self.proc = first_proc;
            } else {
                self.rank = next_rank;
                self.proc = lowest_set(above);
            }
            self.ch = (b.ch + 1) & 0x7ff;
            if ch_end {
                self.active = false;
                self.buf = !b.buf;
                if !chunk_end {
                    self.chunk = (b.chunk + 1) & 0x1f;
                } else {
                    self.chunk = 0;
                    if !pass_end {
                        self.pass_in = (b.pass_in + 1) & 0x1f;
                    } else {
                        self.pass_in = 0;
                        self.kword = i.kstart;
                        self.ksub = 0;
                        self.pix = (b.pix + 1) & 0xf_ffff;
                        if !x_end {
                            self.x = (b.x + 1) & 0x3ff;
                        } else {
                            self.x = 0;
                            if !y_end {
                                self.y = (b.y + 1) & 0x3ff;
                            }
                        }
                    }
                }
            }
        }
        if i.load {
            (self.y, self.x, self.pix, self.pass_in, self.chunk) = (0, 0, 0, 0, 0);
            (self.buf, self.active) = (false, false);
            self.kword = i.load_kstart;
            self.ksub = 0;
        }
        if i.reset {
            self.active = false;
        }
    }
}

/// One edge's inputs of [`HostRegs`].
#[derive(Clone, Copy, Debug, Default)]
pub struct HostIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Write strobe.
    pub we: bool,
    /// Read strobe.
    pub re: bool,
    /// Word address (24 bits).
    pub addr: u32,
    /// Write data.
    pub wdata: u32,
    /// The engine runs.
    pub busy: bool,
    /// The run has finished.
    pub done: bool,
    /// The running layer.
    pub layer: u32,
    /// Cycles of the run.
    pub cycles: u32,
}

/// The memories' read data a host read selects from (each one edge after its address).
#[derive(Clone, Copy, Debug, Default)]
pub struct HostReadData {
    /// A layer's cycle count.
    pub lc: u32,
    /// The layer-register words.
    pub lregs: [u32; 16],
    /// A bias byte.
    pub bias: u8,
    /// A data-memory word.
    pub dm: u32,
    /// A kernel word (72 bits).
    pub kword: u128,
}

/// The host port (`HostPort`, the map `hdl/regs/cnn_engine.toml`): each input registered
/// once (the port stage); writes to NLAYERS and to the memory regions only while the engine
/// is idle, CTRL's start bit at any time; kernel words staged in parts 0 and 1 and written
/// with part 2; a read answered two cycles after its strobe, the registers from the port's
/// state, the memories from their read data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostRegs {
    /// The port stage: (reset, we, re, addr, wdata) of the last edge.
    pub stage: (bool, bool, bool, u32, u32),
    /// Layers to run.
    pub nlayers: u32,
    /// Kernel parts 0 and 1.
    pub kstage: u64,
    /// Address of the last read.
    pub read_addr: u32,
    /// Register value of the last read.
    pub read_reg: u32,
    /// Processors of the engine.
    pub processors: u32,
    /// Kernel words per processor.
    pub kernel_words: u32,
}

/// What [`HostRegs`] drives in a cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostOut {
    /// Start a run.
    pub start: bool,
    /// Writes by region.
    pub lreg_we: bool,
    /// Bias write.
    pub bias_we: bool,
    /// Data-memory write.
    pub dm_we: bool,
    /// Kernel-memory write.
    pub k_we: bool,
    /// The kernel word written.
    pub k_wdata: u128,
    /// The word read.
    pub rdata: u32,
}

impl HostRegs {
    /// The port of an engine of `processors` processors of `kernel_words` kernel words.
    pub fn new(processors: u32, kernel_words: u32) -> Self {
        HostRegs {
            processors,
            kernel_words,
            ..Default::default()
        }
    }

    /// The outputs in this cycle (`busy` the engine's now, `rd` the memories' read data).
    pub fn outputs(&self, busy: bool, rd: &HostReadData) -> HostOut {
        use edgelearn_hdl::cnn::engine::regs;
        let (_, we, _, addr, wdata) = self.stage;
        let region = addr >> 20;
        let write = we && !busy;
        let part = addr & 3;
        let r = self.read_addr;
        let rdata = match r >> 20 {
            0 if (r >> 5) & 7 == regs::LAYER_CYCLES >> 5 && (r >> 8) & 0xfff == 0 => rd.lc,
            0 => self.read_reg,
            x if x == regs::LAYER_REGS >> 20 => rd.lregs[(r & 15) as usize],
            x if x == regs::BIAS >> 20 => rd.bias as u32,
            x if x == regs::DATA >> 20 => rd.dm,
            x if x == regs::KERNEL >> 20 => match r & 3 {
                0 => rd.kword as u32,
                1 => (rd.kword >> 32) as u32,
                _ => (rd.kword >> 64) as u32 & 0xff,
            },
            _ => self.read_reg,
        };
        HostOut {
            start: we && addr == regs::CTRL && wdata & 1 == 1,
            lreg_we: write && region == regs::LAYER_REGS >> 20,
            bias_we: write && region == regs::BIAS >> 20,
            dm_we: write && region == regs::DATA >> 20,
            k_we: write && region == regs::KERNEL >> 20 && part == 2,
            k_wdata: self.kstage as u128 | ((wdata & 0xff) as u128) << 64,
            rdata,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &HostIn) {
        use edgelearn_hdl::cnn::engine::regs;
        let (reset, _, re, addr, wdata) = self.stage;
        let write = self.stage.1 && !i.busy;
        // A read and a write of NLAYERS at one edge: the read gets the old value.
        let nlayers = self.nlayers;
        if write && addr == regs::NLAYERS {
            self.nlayers = wdata & 0x3f;
        }
        if write && addr >> 20 == regs::KERNEL >> 20 {
            match addr & 3 {
                0 => self.kstage = self.kstage & !0xffff_ffff | wdata as u64,
                1 => self.kstage = self.kstage & 0xffff_ffff | (wdata as u64) << 32,
                _ => {}
            }
        }
        if re {
            self.read_addr = addr;
            self.read_reg = match addr {
                a if a == regs::CTRL => i.busy as u32 | (i.done as u32) << 1,
                a if a == regs::NLAYERS => nlayers,
                a if a == regs::CYCLES => i.cycles,
                a if a == regs::LAYER => i.layer & 31,
                a if a == regs::PROCESSORS => self.processors,
                a if a == regs::KERNEL_WORDS => self.kernel_words,
                _ => 0,
            };
        }
        if reset {
            self.nlayers = 1;
            self.read_addr = 0;
            self.read_reg = 0;
        }
        self.stage = (i.reset, i.we, i.re, i.addr & 0xff_ffff, i.wdata);
    }
}

/// One edge's inputs of [`ProcessorModel`] (`Processor`'s ports).
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcIn {
    /// The layer uses the processor.
    pub en: bool,
    /// Its byte of the data word (G1).
    pub data: u8,
    /// Inner unit's operation.
    pub inner_op: u32,
    /// Outer unit's operation.
    pub outer_op: u32,
    /// Average: rounding.
    pub avg_round: bool,
    /// Average: divisor.
    pub avg_d: u32,
    /// Average: magic multiplier.
    pub avg_m: u32,
    /// Average: shift.
    pub avg_sh: u32,
    /// The inner unit pools (takes the division).
    pub pool_first: bool,
    /// Weight bits.
    pub wbits: u32,
    /// Taps.
    pub taps: u32,
    /// An item (G1), its padding flag, inner and outer first / last, tap and window.
    pub g_valid: bool,
    /// Padding.
    pub g_pad: bool,
    /// Inner first.
    pub g_ifirst: bool,
    /// Inner last.
    pub g_ilast: bool,
    /// Outer first.
    pub g_ofirst: bool,
    /// Outer last.
    pub g_olast: bool,
    /// Window tap.
    pub g_tap: u32,
    /// Window written.
    pub g_buf: bool,
    /// Window the MAC reads.
    pub m_buf: bool,
    /// The kernel's bit offset in the word read.
    pub kshift: u32,
    /// Kernel-memory read.
    pub k_re: bool,
    /// Its address.
    pub k_raddr: u32,
    /// Kernel-memory write.
    pub k_we: bool,
    /// Its address.
    pub k_waddr: u32,
    /// Its word (72 bits).
    pub k_wdata: u128,
}

/// A processor (`Processor`): the item's value through the inner unit and the outer unit
/// (one [`avg_div`] serving the unit that pools) into a window, three edges after the
/// item; the MAC over the window the MAC side names with the kernel word read the edge
/// before, registered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessorModel {
    /// Inner unit.
    pub inner: Reduce,
    /// Outer unit.
    pub outer: Reduce,
    /// G2: the item's outer flags, tap and window.
    pub a: (bool, bool, u32, bool),
    /// G3: the tap and window the outer unit's result goes to.
    pub b: (u32, bool),
    /// The two windows.
    pub win: WindowPair,
    /// The kernel memory.
    pub kmem: Vec<u128>,
    /// The kernel word read.
    pub kread: u128,
    /// The registered sum.
    pub psum: i64,
}

impl ProcessorModel {
    /// A processor of `kernel_words` kernel words, all zero.
    pub fn new(kernel_words: usize) -> Self {
        ProcessorModel {
            inner: Reduce::default(),
            outer: Reduce::default(),
            a: (false, false, 0, false),
            b: (0, false),
            win: WindowPair::default(),
            kmem: vec![0; kernel_words],
            kread: 0,
            psum: 0,
        }
    }

    /// One edge.
    pub fn step(&mut self, i: &ProcIn) {
        let value = if !i.g_pad && i.en {
            sext(i.data as u64, 8)
        } else {
            0
        };
        let mut inner_in = ReduceIn {
            op: i.inner_op,
            valid: i.g_valid,
            first: i.g_ifirst,
            last: i.g_ilast,
            value,
            avg: 0,
        };
        let mut outer_in = ReduceIn {
            op: i.outer_op,
            valid: self.inner.out_valid(),
            first: self.a.0,
            last: self.a.1,
            value: sext(self.inner.result() as u64 & 0xff, 8),
            avg: 0,
        };
        let pooled = if i.pool_first {
            self.inner.sum(&inner_in)
        } else {
            self.outer.sum(&outer_in)
        };
        let avg = avg_div(
            sext(pooled as u64 & 0x3ffff, 18),
            i.avg_round,
            i.avg_d,
            i.avg_m,
            i.avg_sh,
        );
        inner_in.avg = avg;
        outer_in.avg = avg;
        // The MAC reads the windows and the kernel word as they are before the edge.
        let window = crate::golden::arith::bytes9(self.win.read(i.m_buf as usize));
        let dot = tap_mac(&window, self.kread, i.kshift, i.wbits, i.taps);
        // The window takes the outer unit's result of the last edge.
        self.win.write(
            self.outer.out_valid(),
            self.b.1 as usize,
            self.b.0 as usize,
            self.outer.result(),
        );
        if self.inner.out_valid() {
            self.b = (self.a.2, self.a.3);
        }
        self.a = (i.g_ofirst, i.g_olast, i.g_tap, i.g_buf);
        self.inner.step(&inner_in);
        self.outer.step(&outer_in);
        self.psum = dot;
        // Kernel memory: read first.
        if i.k_re {
            self.kread = self.kmem.get(i.k_raddr as usize).copied().unwrap_or(0);
        }
        if i.k_we {
            if let Some(w) = self.kmem.get_mut(i.k_waddr as usize) {
                *w = i.k_wdata;
            }
        }
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
    /// Output size, chunks, taps.
    pub out_h: u32,
    /// See `out_h`.
    pub out_w: u32,
    /// See `out_h`.
    pub chunks: u32,
    /// See `out_h`.
    pub taps: u32,
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
}

impl GatherItem {
    /// The 13-bit item bus with `valid` and window `buf` (`hdl::cnn::engine::quad::item`).
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
    }
}

/// Every item of a layer, in the order the gather issues them: per output pixel, input
/// pass and chunk, per tap, one padding item or the pooling window's items of every
/// operand (docs/cnn-engine-rtl.md "What happens per cycle"). The word arithmetic is modulo
/// 2^16, the word 13 bits, as in the RTL.
pub fn gather_items(f: &AddrGenCfg) -> Vec<GatherItem> {
    const M16: u32 = 0xffff;
    let mut out = Vec::new();
    for oy in 0..f.out_h {
        for ox in 0..f.out_w {
            for e in 0..f.in_passes {
                for ch in 0..f.chunks {
                    for t in 0..f.taps {
                        let (ty, tx) = (t / f.kw.max(1), t % f.kw.max(1));
                        let ybase = (oy + ty * f.dil) & 0x3fff;
                        let xbase = (ox + tx) & 0x3fff;
                        let ty_s = ybase.wrapping_sub(f.pad_y) & 0x3fff;
                        let tx_s = xbase.wrapping_sub(f.pad_x) & 0x3fff;
                        let pos = f.taps * ch + t;
                        let (fy, fx) = (pos / f.pooled_w.max(1), pos % f.pooled_w.max(1));
                        let (py, px, valid) = match f.mode {
                            1 => (fy, fx, fy < f.pooled_h),
                            2 => (
                                (ty_s >> 1) & 0x3ff,
                                (tx_s >> 1) & 0x3ff,
                                ybase >= f.pad_y
                                    && xbase >= f.pad_x
                                    && ty_s & 1 == 0
                                    && tx_s & 1 == 0
                                    && (ty_s >> 1) < f.pooled_h
                                    && (tx_s >> 1) < f.pooled_w,
                            ),
                            _ => (
                                ty_s & 0x3ff,
                                tx_s & 0x3ff,
                                ybase >= f.pad_y
                                    && xbase >= f.pad_x
                                    && ty_s < f.pooled_h
                                    && tx_s < f.pooled_w,
                            ),
                        };
                        let item = |pi: u32, pj: u32, o: u32| {
                            let ry = (py * f.stride_y + pi) & M16;
                            let rx = (px * f.stride_x + pj) & M16;
                            let pixel = (ry * f.in_w + rx) & M16;
                            let hwc = (((pixel * f.in_passes + e) & M16) * f.operands + o) & M16;
                            let word = if f.chw {
                                f.in_base + (pixel >> 2)
                            } else {
                                f.in_base + hwc
                            };
                            GatherItem {
                                word: word & 0x1fff,
                                lane: pixel & 3,
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
                        // Pool first: per operand, its pooling window; else per pooling
                        // element, every operand.
                        let mut seq = Vec::new();
                        if f.pool_first {
                            for o in 0..f.operands {
                                for pi in 0..f.pool_h {
                                    for pj in 0..f.pool_w {
                                        seq.push((pi, pj, o));
                                    }
                                }
                            }
                        } else {
                            for pi in 0..f.pool_h {
                                for pj in 0..f.pool_w {
                                    for o in 0..f.operands {
                                        seq.push((pi, pj, o));
                                    }
                                }
                            }
                        }
                        let n = seq.len();
                        for (k, &(pi, pj, o)) in seq.iter().enumerate() {
                            let pool_beg = pi == 0 && pj == 0;
                            let pool_end = pi + 1 == f.pool_h && pj + 1 == f.pool_w;
                            let (op_beg, op_end) = (o == 0, o + 1 == f.operands);
                            let (ifirst, ilast, ofirst, olast) = if f.pool_first {
                                (pool_beg, pool_end, op_beg, op_end)
                            } else {
                                (op_beg, op_end, pool_beg, pool_end)
                            };
                            out.push(GatherItem {
                                ifirst,
                                ilast,
                                ofirst,
                                olast,
                                iter_end: last_tap && k + 1 == n,
                                ..item(pi, pj, o)
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

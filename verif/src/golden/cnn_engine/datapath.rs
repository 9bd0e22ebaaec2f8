//! Golden twins of the CNN engine's datapath around the arithmetic units: the adders over
//! the quads (`GroupSum`), the accumulators and biases (`AccMem`) and a whole processor
//! (`Processor`).

use super::{avg_div, tap_mac, Reduce, ReduceIn, WindowPair};
use crate::golden::arith::sext;

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
    /// The item starts a sliding iteration.
    pub g_slide: bool,
    /// The slide's source is the window it fills.
    pub g_slide_same: bool,
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
    /// G2 and G3: a slide (the item's window at G3), and G2 and G3 its source flag.
    pub slide: (bool, bool, bool),
    /// See `slide`.
    pub slide_same: (bool, bool),
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
            slide: (false, false, false),
            slide_same: (false, false),
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
        // The window slides, then takes the outer unit's result of the last edge.
        // (A write at a slide's edge goes to the slide's window: in the engine the write is
        // the sliding item's own.)
        self.win
            .slide(self.slide.1, self.slide.2 as usize, self.slide_same.1);
        let wbuf = if self.slide.1 { self.slide.2 } else { self.b.1 };
        self.slide = (i.g_slide && i.g_valid, self.slide.0, self.a.3);
        self.slide_same = (i.g_slide_same, self.slide_same.0);
        self.win.write(
            self.outer.out_valid(),
            wbuf as usize,
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

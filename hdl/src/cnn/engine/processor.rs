//! Processor: one of the CNN engine's P processors (spec max78000-cnn-engine.md §1.17, §2;
//! docs/cnn-engine-rtl.md "Organisation", "What happens per cycle"): its kernel memory, its
//! two reduction units (pooling, element-wise) fed one data-memory byte per gather item, its
//! two windows and its nine-tap MAC.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock (a simulation gate's in the in-process Verilator model) |
//! | `en` | in | 1 | the layer uses this processor (else its values are 0) |
//! | `data` | in | 8 | its byte of the data-memory word read for the item at G1 |
//! | `inner_op`, `outer_op` | in | 3 | the two units' operations ([`super::reduce::op`]) |
//! | `avg_round`, `avg_d`, `avg_m`, `avg_sh` | in | 1, 9, 18, 5 | the average's rounding, divisor, magic multiplier and shift |
//! | `pool_first` | in | 1 | the inner unit pools (it takes the division), else the outer |
//! | `wbits` | in | 4 | weight bits |
//! | `taps` | in | 4 | taps per kernel |
//! | `g_valid` | in | 1 | an item at G1 |
//! | `g_pad` | in | 1 | the item is a tap in the padding (value 0) |
//! | `g_ifirst`, `g_ilast` | in | 1 | it starts / ends a sequence of the inner unit |
//! | `g_ofirst`, `g_olast` | in | 1 | it starts / ends a sequence of the outer unit |
//! | `g_tap` | in | 4 | the window tap it fills |
//! | `g_buf` | in | 1 | the window it fills |
//! | `m_buf` | in | 1 | the window the MAC reads (M1) |
//! | `kshift` | in | 7 | the kernel's bit offset in the word read (M1) |
//! | `k_re`, `k_raddr` | in | 1, 10 | kernel-memory read (M0 for the MAC, or the host's) |
//! | `k_we`, `k_waddr`, `k_wdata` | in | 1, 10, 72 | kernel-memory write (the host's) |
//! | `k_rdata` | out | 72 | the kernel word read (registered) |
//! | `psum` | out | 20 | the MAC's sum over this processor's window, registered at M2 |
//!
//! Gather: the item's value (`data`, or 0 for padding and unused processors) goes through the
//! inner unit (latency 1) and the outer unit (latency 1) into the window (one [`AvgDiv`]
//! serves the unit that pools): the window value of
//! a tap is written three edges after its last item (G1 -> inner -> outer -> window). MAC: the
//! kernel word read at M0 is in `k_rdata` at M1, the sum is registered at M2.
//! Parameters: the kernel memory's depth (1..=1024 words).
//! Golden: `edgelearn_verif::golden::cnn_engine::ProcessorModel` (over `Reduce`, `avg_div`,
//! `WindowPair` and `tap_mac`), and the engine's bench (`verif::rtl::cnn`). Tests:
//! `tests/cnn_engine_blocks.rs` (registered as `cnn_processor`, 768 kernel words),
//! `tests/cnn_rtl.rs`.

use super::avg_div::AvgDiv;
use super::reduce::Reduce;
use super::tap_mac::TapMac;
use super::window_buf::WindowBuf;
use crate::design::{HasMemories, MemoryAccess};
use crate::mem::two_clock_ram::TwoClockRam;
use rust_hdl::prelude::*;

/// Kernel-memory address bits.
pub const KERNEL_ADDR_BITS: usize = 10;

/// One processor.
#[derive(Clone, Debug, LogicBlock)]
pub struct Processor {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The layer uses this processor.
    pub en: Signal<In, Bit>,
    /// Its byte of the word read.
    pub data: Signal<In, Bits<8>>,
    /// Inner unit's operation.
    pub inner_op: Signal<In, Bits<3>>,
    /// Outer unit's operation.
    pub outer_op: Signal<In, Bits<3>>,
    /// Average: round half away from zero.
    pub avg_round: Signal<In, Bit>,
    /// Average: divisor.
    pub avg_d: Signal<In, Bits<9>>,
    /// Average: magic multiplier.
    pub avg_m: Signal<In, Bits<18>>,
    /// Average: shift.
    pub avg_sh: Signal<In, Bits<5>>,
    /// The inner unit pools (else the outer one).
    pub pool_first: Signal<In, Bit>,
    /// Weight bits.
    pub wbits: Signal<In, Bits<4>>,
    /// Taps per kernel.
    pub taps: Signal<In, Bits<4>>,
    /// An item at G1.
    pub g_valid: Signal<In, Bit>,
    /// The item is padding.
    pub g_pad: Signal<In, Bit>,
    /// Starts an inner sequence.
    pub g_ifirst: Signal<In, Bit>,
    /// Ends an inner sequence.
    pub g_ilast: Signal<In, Bit>,
    /// Starts an outer sequence.
    pub g_ofirst: Signal<In, Bit>,
    /// Ends an outer sequence.
    pub g_olast: Signal<In, Bit>,
    /// The tap it fills.
    pub g_tap: Signal<In, Bits<4>>,
    /// The window it fills.
    pub g_buf: Signal<In, Bit>,
    /// The window the MAC reads.
    pub m_buf: Signal<In, Bit>,
    /// The kernel's offset in the word.
    pub kshift: Signal<In, Bits<7>>,
    /// Kernel-memory read strobe.
    pub k_re: Signal<In, Bit>,
    /// Kernel-memory read address.
    pub k_raddr: Signal<In, Bits<KERNEL_ADDR_BITS>>,
    /// Kernel-memory write strobe.
    pub k_we: Signal<In, Bit>,
    /// Kernel-memory write address.
    pub k_waddr: Signal<In, Bits<KERNEL_ADDR_BITS>>,
    /// Kernel-memory write data.
    pub k_wdata: Signal<In, Bits<72>>,
    /// The kernel word read.
    pub k_rdata: Signal<Out, Bits<72>>,
    /// The registered dot product.
    pub psum: Signal<Out, Bits<20>>,
    kmem: TwoClockRam<KERNEL_ADDR_BITS, 72, 1>,
    inner: Reduce,
    outer: Reduce,
    div: AvgDiv,
    win: WindowBuf,
    mac: TapMac,
    a_ofirst: DFF<Bit>,
    a_olast: DFF<Bit>,
    a_tap: DFF<Bits<4>>,
    a_buf: DFF<Bit>,
    b_tap: DFF<Bits<4>>,
    b_buf: DFF<Bit>,
    sum: DFF<Bits<20>>,
    value: Signal<Local, Bits<18>>,
    inner_value: Signal<Local, Bits<18>>,
    sign8: Constant<Bits<8>>,
    ext18: Constant<Bits<18>>,
}

impl Processor {
    /// A processor with `kernel_words` kernel-memory words.
    pub fn new(kernel_words: usize) -> Self {
        assert!(
            (1..=1 << KERNEL_ADDR_BITS).contains(&kernel_words),
            "Processor: kernel_words {kernel_words} must be in 1..=1024"
        );
        Self {
            clock: Default::default(),
            en: Default::default(),
            data: Default::default(),
            inner_op: Default::default(),
            outer_op: Default::default(),
            avg_round: Default::default(),
            avg_d: Default::default(),
            avg_m: Default::default(),
            avg_sh: Default::default(),
            pool_first: Default::default(),
            wbits: Default::default(),
            taps: Default::default(),
            g_valid: Default::default(),
            g_pad: Default::default(),
            g_ifirst: Default::default(),
            g_ilast: Default::default(),
            g_ofirst: Default::default(),
            g_olast: Default::default(),
            g_tap: Default::default(),
            g_buf: Default::default(),
            m_buf: Default::default(),
            kshift: Default::default(),
            k_re: Default::default(),
            k_raddr: Default::default(),
            k_we: Default::default(),
            k_waddr: Default::default(),
            k_wdata: Default::default(),
            k_rdata: Default::default(),
            psum: Default::default(),
            kmem: TwoClockRam::new(kernel_words),
            inner: Default::default(),
            outer: Default::default(),
            div: Default::default(),
            win: Default::default(),
            mac: Default::default(),
            a_ofirst: Default::default(),
            a_olast: Default::default(),
            a_tap: Default::default(),
            a_buf: Default::default(),
            b_tap: Default::default(),
            b_buf: Default::default(),
            sum: Default::default(),
            value: Default::default(),
            inner_value: Default::default(),
            sign8: Constant::new(0x80u64.into()),
            ext18: Constant::new(0x3ff00u64.into()),
        }
    }
}

impl Logic for Processor {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_ofirst, a_olast, a_tap, a_buf, b_tap, b_buf, sum);
        // Kernel memory: the host writes it while the engine is idle, the MAC reads it.
        self.kmem.write_clock.next = self.clock.val();
        self.kmem.read_clock.next = self.clock.val();
        self.kmem.write_enable.next = self.k_we.val().into();
        self.kmem.write_address.next = self.k_waddr.val();
        self.kmem.write_data.next = self.k_wdata.val();
        self.kmem.read_enable.next = self.k_re.val();
        self.kmem.read_address.next = self.k_raddr.val();
        self.k_rdata.next = self.kmem.read_data.val();
        // G1: the item's value, 0 for padding and for a processor the layer does not use.
        self.value.next = 0.into();
        if !self.g_pad.val() & self.en.val() {
            self.value.next = bit_cast::<18, 8>(self.data.val());
            if (self.data.val() & self.sign8.val()).any() {
                self.value.next = bit_cast::<18, 8>(self.data.val()) | self.ext18.val();
            }
        }
        // The average's division, for the unit that pools.
        self.div.round.next = self.avg_round.val();
        self.div.d.next = self.avg_d.val();
        self.div.m.next = self.avg_m.val();
        self.div.sh.next = self.avg_sh.val();
        if self.pool_first.val() {
            self.div.value.next = self.inner.sum.val();
        } else {
            self.div.value.next = self.outer.sum.val();
        }
        self.inner.clock.next = self.clock.val();
        self.inner.op.next = self.inner_op.val();
        self.inner.avg.next = self.div.avg.val();
        self.inner.valid.next = self.g_valid.val();
        self.inner.first.next = self.g_ifirst.val();
        self.inner.last.next = self.g_ilast.val();
        self.inner.value.next = self.value.val();
        // G2: the outer unit takes the inner unit's results.
        self.a_ofirst.d.next = self.g_ofirst.val();
        self.a_olast.d.next = self.g_olast.val();
        self.a_tap.d.next = self.g_tap.val();
        self.a_buf.d.next = self.g_buf.val();
        self.inner_value.next = bit_cast::<18, 8>(self.inner.result.val());
        if (self.inner.result.val() & self.sign8.val()).any() {
            self.inner_value.next = bit_cast::<18, 8>(self.inner.result.val()) | self.ext18.val();
        }
        self.outer.clock.next = self.clock.val();
        self.outer.op.next = self.outer_op.val();
        self.outer.avg.next = self.div.avg.val();
        self.outer.valid.next = self.inner.out_valid.val();
        self.outer.first.next = self.a_ofirst.q.val();
        self.outer.last.next = self.a_olast.q.val();
        self.outer.value.next = self.inner_value.val();
        if self.inner.out_valid.val() {
            self.b_tap.d.next = self.a_tap.q.val();
            self.b_buf.d.next = self.a_buf.q.val();
        }
        // G3: the window.
        self.win.clock.next = self.clock.val();
        self.win.write.next = self.outer.out_valid.val();
        self.win.write_buf.next = self.b_buf.q.val();
        self.win.tap.next = self.b_tap.q.val();
        self.win.value.next = self.outer.result.val();
        self.win.read_buf.next = self.m_buf.val();
        // M1: the MAC over the window the MAC side owns; M2: the registered sum.
        self.mac.window.next = self.win.window.val();
        self.mac.kword.next = self.kmem.read_data.val();
        self.mac.kshift.next = self.kshift.val();
        self.mac.wbits.next = self.wbits.val();
        self.mac.taps.next = self.taps.val();
        self.sum.d.next = self.mac.dot.val();
        self.psum.next = self.sum.q.val();
    }
}

impl HasMemories for Processor {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.kmem
            .visit_memories(&crate::design::join_path(path, "kmem"), f);
    }
}

crate::dut_io! {
    impl[] Processor {
        clock: yes,
        inputs: [
            en, data, inner_op, outer_op, avg_round, avg_d, avg_m, avg_sh, pool_first, wbits,
            taps, g_valid, g_pad, g_ifirst, g_ilast, g_ofirst, g_olast, g_tap, g_buf, m_buf,
            kshift, k_re, k_raddr, k_we, k_waddr, k_wdata
        ],
        outputs: [k_rdata, psum],
        notes: [data: (true, 1), psum: (true, 1)],
        memories: [kmem],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processor_is_synthesizable() {
        crate::synth_check::assert_synthesizable("processor", Processor::new(16));
    }
}

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
//! | `g_slide` | in | 1 | the item starts a sliding iteration (D-CNN-SLIDE) |
//! | `g_slide_same` | in | 1 | the slide's source is the window it fills (two passes) |
//! | `m_buf` | in | 1 | the window the MAC reads (M1) |
//! | `kshift` | in | 7 | the kernel's bit offset in the word read (M1) |
//! | `k_re`, `k_raddr` | in | 1, 10 | kernel-memory read (M0 for the MAC, or the host's) |
//! | `k_we`, `k_waddr`, `k_wdata` | in | 1, 10, 72 | kernel-memory write (the host's) |
//! | `k_rdata` | out | 72 | the kernel word read (registered) |
//! | `psum` | out | 20 | the MAC's sum over this processor's window, registered at M2 |
//!
//! Two halves, one clock here: the gather side ([`GatherUnit`]: the item's value through the
//! inner and the outer unit into the window, written three edges after its last item) and
//! the MAC side ([`MacUnit`]: the kernel word read at M0 is in `k_rdata` at M1, the sum is
//! registered at M2). A quad places the halves of its four processors behind two simulation
//! gates (D-SIM-GATE), so the gather side sleeps between bursts while the MAC works; this
//! block is the processor as a whole, for its bench and as the reference of the halves.
//! Parameters: the kernel memory's depth (1..=1024 words).
//! Golden: `edgelearn_verif::golden::cnn_engine::ProcessorModel` (over `Reduce`, `avg_div`,
//! `WindowPair` and `tap_mac`), and the engine's bench (`verif::rtl::cnn`). Tests:
//! `tests/cnn_engine_blocks.rs` (registered as `cnn_processor`, 768 kernel words),
//! `tests/cnn_rtl.rs`.

use super::gather_unit::GatherUnit;
use super::mac_unit::MacUnit;
use crate::design::{HasMemories, MemoryAccess};
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
    /// The item starts a sliding iteration.
    pub g_slide: Signal<In, Bit>,
    /// The slide's source is the window it fills.
    pub g_slide_same: Signal<In, Bit>,
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
    gather: GatherUnit,
    mac: MacUnit,
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
            g_slide: Default::default(),
            g_slide_same: Default::default(),
            m_buf: Default::default(),
            kshift: Default::default(),
            k_re: Default::default(),
            k_raddr: Default::default(),
            k_we: Default::default(),
            k_waddr: Default::default(),
            k_wdata: Default::default(),
            k_rdata: Default::default(),
            psum: Default::default(),
            gather: Default::default(),
            mac: MacUnit::new(kernel_words),
        }
    }
}

impl Logic for Processor {
    crate::wired_update! {
        wires {
            gather.clock <= clock;
            gather.en <= en;
            gather.data <= data;
            gather.inner_op <= inner_op;
            gather.outer_op <= outer_op;
            gather.avg_round <= avg_round;
            gather.avg_d <= avg_d;
            gather.avg_m <= avg_m;
            gather.avg_sh <= avg_sh;
            gather.pool_first <= pool_first;
            gather.g_valid <= g_valid;
            gather.g_pad <= g_pad;
            gather.g_ifirst <= g_ifirst;
            gather.g_ilast <= g_ilast;
            gather.g_ofirst <= g_ofirst;
            gather.g_olast <= g_olast;
            gather.g_tap <= g_tap;
            gather.g_buf <= g_buf;
            gather.g_slide <= g_slide;
            gather.g_slide_same <= g_slide_same;
            gather.m_buf <= m_buf;
            mac.clock <= clock;
            mac.window <= gather.window;
            mac.wbits <= wbits;
            mac.taps <= taps;
            mac.kshift <= kshift;
            mac.k_re <= k_re;
            mac.k_raddr <= k_raddr;
            mac.k_we <= k_we;
            mac.k_waddr <= k_waddr;
            mac.k_wdata <= k_wdata;
            k_rdata <= mac.k_rdata;
            psum <= mac.psum;
        }
        #[hdl_gen]
        fn update(&mut self) {}
    }
}

impl HasMemories for Processor {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.mac
            .visit_memories(&crate::design::join_path(path, "mac"), f);
    }
}

crate::dut_io! {
    impl[] Processor {
        clock: yes,
        inputs: [
            en, data, inner_op, outer_op, avg_round, avg_d, avg_m, avg_sh, pool_first, wbits,
            taps, g_valid, g_pad, g_ifirst, g_ilast, g_ofirst, g_olast, g_tap, g_buf, g_slide,
            g_slide_same, m_buf,
            kshift, k_re, k_raddr, k_we, k_waddr, k_wdata
        ],
        outputs: [k_rdata, psum],
        notes: [data: (true, 1), psum: (true, 1)],
        memories: [mac],
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

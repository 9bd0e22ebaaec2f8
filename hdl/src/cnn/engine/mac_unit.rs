//! MacUnit: the MAC side of one CNN-engine processor (spec max78000-cnn-engine.md §1.17,
//! §2.2; docs/cnn-engine-rtl.md "What happens per cycle", MAC): its kernel memory and its
//! nine-tap multiply-accumulate over the window the MAC side owns. The half of a
//! [`super::processor::Processor`] that a quad's MAC gate clocks (D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock (the MAC gate's in the in-process Verilator model) |
//! | `window` | in | 72 | the window the MAC reads ([`super::gather_unit::GatherUnit`]'s `window`) |
//! | `wbits` | in | 4 | weight bits |
//! | `taps` | in | 4 | taps per kernel |
//! | `kshift` | in | 7 | the kernel's bit offset in the word read (M1) |
//! | `k_re`, `k_raddr` | in | 1, 10 | kernel-memory read (M0 for the MAC, or the host's) |
//! | `k_we`, `k_waddr`, `k_wdata` | in | 1, 10, 72 | kernel-memory write (the host's) |
//! | `k_rdata` | out | 72 | the kernel word read (registered) |
//! | `psum` | out | 20 | the MAC's sum over the window, registered at M2 |
//!
//! The kernel word read at M0 is in `k_rdata` at M1, the sum is registered at M2.
//! Parameters: the kernel memory's depth (1..=1024 words).
//! Golden: the MAC half of `edgelearn_verif::golden::cnn_engine::ProcessorModel` (over
//! `tap_mac`). Tests: `tests/cnn_engine_blocks.rs` (through `cnn_processor`),
//! `tests/cnn_rtl.rs`.

use super::processor::KERNEL_ADDR_BITS;
use super::tap_mac::TapMac;
use crate::design::{HasMemories, MemoryAccess};
use crate::mem::two_clock_ram::TwoClockRam;
use rust_hdl::prelude::*;

/// The MAC side of a processor.
#[derive(Clone, Debug, LogicBlock)]
pub struct MacUnit {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The window read.
    pub window: Signal<In, Bits<72>>,
    /// Weight bits.
    pub wbits: Signal<In, Bits<4>>,
    /// Taps per kernel.
    pub taps: Signal<In, Bits<4>>,
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
    mac: TapMac,
    sum: DFF<Bits<20>>,
}

impl MacUnit {
    /// A MAC side with `kernel_words` kernel-memory words.
    pub fn new(kernel_words: usize) -> Self {
        assert!(
            (1..=1 << KERNEL_ADDR_BITS).contains(&kernel_words),
            "MacUnit: kernel_words {kernel_words} must be in 1..=1024"
        );
        Self {
            clock: Default::default(),
            window: Default::default(),
            wbits: Default::default(),
            taps: Default::default(),
            kshift: Default::default(),
            k_re: Default::default(),
            k_raddr: Default::default(),
            k_we: Default::default(),
            k_waddr: Default::default(),
            k_wdata: Default::default(),
            k_rdata: Default::default(),
            psum: Default::default(),
            kmem: TwoClockRam::new(kernel_words),
            mac: Default::default(),
            sum: Default::default(),
        }
    }
}

impl Logic for MacUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sum);
        // Kernel memory: the host writes it while the engine is idle, the MAC reads it.
        self.kmem.write_clock.next = self.clock.val();
        self.kmem.read_clock.next = self.clock.val();
        self.kmem.write_enable.next = self.k_we.val().into();
        self.kmem.write_address.next = self.k_waddr.val();
        self.kmem.write_data.next = self.k_wdata.val();
        self.kmem.read_enable.next = self.k_re.val();
        self.kmem.read_address.next = self.k_raddr.val();
        self.k_rdata.next = self.kmem.read_data.val();
        // M1: the MAC over the window; M2: the registered sum.
        self.mac.window.next = self.window.val();
        self.mac.kword.next = self.kmem.read_data.val();
        self.mac.kshift.next = self.kshift.val();
        self.mac.wbits.next = self.wbits.val();
        self.mac.taps.next = self.taps.val();
        self.sum.d.next = self.mac.dot.val();
        self.psum.next = self.sum.q.val();
    }
}

impl HasMemories for MacUnit {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.kmem
            .visit_memories(&crate::design::join_path(path, "kmem"), f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_unit_is_synthesizable() {
        crate::synth_check::assert_synthesizable("mac_unit", MacUnit::new(16));
    }
}

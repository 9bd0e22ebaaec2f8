//! TapMac: a processor's multiply-accumulate over one window (spec max78000-cnn-engine.md
//! §1.17, §2.2; docs/cnn-engine-rtl.md "What happens per cycle", MAC): up to nine taps,
//! each the window's value times a 1-, 2-, 4- or 8-bit weight of the kernel word.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `window` | in | 72 | the window's values, tap t in bits `8t+7 : 8t` (two's complement) |
//! | `kword` | in | 72 | the kernel-memory word |
//! | `kshift` | in | 7 | the kernel's first bit in the word (`slot x kernel index`) |
//! | `wbits` | in | 4 | weight bits: 8, 4, 2, else 1 |
//! | `taps` | in | 4 | taps used (1..9); the others count 0 |
//! | `dot` | out | 20 | `sum_{t < taps} window[t] w[t]` (two's complement) |
//!
//! Tap `t`'s weight is bits `kshift + t wbits` of the word, sign-extended to 8 bits; a 1-bit
//! weight is 0 or -1 (its bit repeated), as the loader packs it. Combinational (the
//! processor registers the sum). The nine 8 x 8 products are [`MulSigned`]s; their sum fits
//! 20 bits (9 x 2^14). The word is shifted only when the kernel does not start at bit 0
//! (several kernels per word), and the weights are cut for the layer's width only.
//! Golden: `edgelearn_verif::golden::cnn_engine::tap_mac`. Tests: `tests/cnn_engine_blocks.rs`.

use super::window_buf::TAPS;
use crate::arith::mul::MulSigned;
use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// Nine-tap multiply-accumulate.
#[derive(Clone, Debug, LogicBlock)]
pub struct TapMac {
    /// The window's values.
    pub window: Signal<In, Bits<72>>,
    /// The kernel word.
    pub kword: Signal<In, Bits<72>>,
    /// Bit offset of the kernel in the word.
    pub kshift: Signal<In, Bits<7>>,
    /// Weight bits.
    pub wbits: Signal<In, Bits<4>>,
    /// Taps used.
    pub taps: Signal<In, Bits<4>>,
    /// The dot product.
    pub dot: Signal<Out, Bits<20>>,
    ksh: Signal<Local, Bits<72>>,
    weight: [Signal<Local, Bits<8>>; TAPS],
    sum: Signal<Local, Bits<20>>,
    mul: [MulSigned<8, 8, 16>; TAPS],
    prod: [SignExtend<16, 20>; TAPS],
    tap_index: [Constant<Bits<4>>; TAPS],
    bits8: Constant<Bits<4>>,
    bits4: Constant<Bits<4>>,
    bits2: Constant<Bits<4>>,
    mask4: Constant<Bits<8>>,
    mask2: Constant<Bits<8>>,
    sign4: Constant<Bits<8>>,
    sign2: Constant<Bits<8>>,
    ext4: Constant<Bits<8>>,
    ext2: Constant<Bits<8>>,
    ones8: Constant<Bits<8>>,
}

impl Default for TapMac {
    fn default() -> Self {
        Self {
            window: Default::default(),
            kword: Default::default(),
            kshift: Default::default(),
            wbits: Default::default(),
            taps: Default::default(),
            dot: Default::default(),
            ksh: Default::default(),
            weight: Default::default(),
            sum: Default::default(),
            mul: Default::default(),
            prod: Default::default(),
            tap_index: array_init::array_init(|t| Constant::new((t as u64).into())),
            bits8: Constant::new(8u64.into()),
            bits4: Constant::new(4u64.into()),
            bits2: Constant::new(2u64.into()),
            mask4: Constant::new(0x0fu64.into()),
            mask2: Constant::new(0x03u64.into()),
            sign4: Constant::new(0x08u64.into()),
            sign2: Constant::new(0x02u64.into()),
            ext4: Constant::new(0xf0u64.into()),
            ext2: Constant::new(0xfcu64.into()),
            ones8: Constant::new(0xffu64.into()),
        }
    }
}

impl Logic for TapMac {
    #[hdl_gen]
    fn update(&mut self) {
        self.ksh.next = self.kword.val();
        if self.kshift.val() != 0 {
            self.ksh.next = self.kword.val() >> self.kshift.val();
        }
        // The weights at the layer's width (one branch per cycle).
        if self.wbits.val() == self.bits8.val() {
            for t in 0..TAPS {
                self.weight[t].next = self.ksh.val().get_bits::<8>(8 * t);
            }
        } else if self.wbits.val() == self.bits4.val() {
            for t in 0..TAPS {
                self.weight[t].next = self.ksh.val().get_bits::<8>(4 * t) & self.mask4.val();
                if (self.weight[t].val() & self.sign4.val()).any() {
                    self.weight[t].next = self.weight[t].val() | self.ext4.val();
                }
            }
        } else if self.wbits.val() == self.bits2.val() {
            for t in 0..TAPS {
                self.weight[t].next = self.ksh.val().get_bits::<8>(2 * t) & self.mask2.val();
                if (self.weight[t].val() & self.sign2.val()).any() {
                    self.weight[t].next = self.weight[t].val() | self.ext2.val();
                }
            }
        } else {
            for t in 0..TAPS {
                self.weight[t].next = 0.into();
                if self.ksh.val().get_bit(t) {
                    self.weight[t].next = self.ones8.val();
                }
            }
        }
        self.sum.next = 0.into();
        for t in 0..TAPS {
            self.mul[t].a.next = self.window.val().get_bits::<8>(8 * t);
            self.mul[t].b.next = self.weight[t].val();
            self.prod[t].data_in.next = self.mul[t].p.val();
            if self.tap_index[t].val() < self.taps.val() {
                self.sum.next = self.sum.val() + self.prod[t].data_out.val();
            }
        }
        self.dot.next = self.sum.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tap_mac_is_synthesizable() {
        crate::synth_check::assert_synthesizable("tap_mac", TapMac::default());
    }
}

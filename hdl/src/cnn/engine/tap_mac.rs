//! TapMac: a processor's multiply-accumulate over one window (spec max78000-cnn-engine.md
//! §1.17, §2.2; docs/cnn-engine-rtl.md "What happens per cycle", MAC): up to nine taps,
//! each the window's value times a 1-, 2-, 4- or 8-bit weight of the kernel word.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `window` | in | 9 x 8 | the window's values (two's complement) |
//! | `kword` | in | 72 | the kernel-memory word |
//! | `kshift` | in | 7 | the kernel's first bit in the word (`slot x kernel index`) |
//! | `wbits` | in | 4 | weight bits: 8, 4, 2, else 1 |
//! | `taps` | in | 4 | taps used (1..9); the others count 0 |
//! | `dot` | out | 20 | `sum_{t < taps} window[t] w[t]` (two's complement) |
//!
//! Tap `t`'s weight is bits `kshift + t wbits` of the word, sign-extended to 8 bits; a 1-bit
//! weight is 0 or -1 (its bit repeated), as the loader packs it. Combinational (the
//! processor registers the sum). The nine 8 x 8 products are [`MulSigned`]s; their sum fits
//! 20 bits (9 x 2^14).
//! Golden: `edgelearn_verif::golden::cnn_engine::tap_mac`. Tests: `tests/cnn_engine_blocks.rs`.

use super::window_buf::TAPS;
use crate::arith::mul::MulSigned;
use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// Nine-tap multiply-accumulate.
#[derive(Clone, Debug, LogicBlock)]
pub struct TapMac {
    /// The window's values.
    pub window: [Signal<In, Bits<8>>; TAPS],
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
    w4: [SignExtend<4, 8>; TAPS],
    w2: [SignExtend<2, 8>; TAPS],
    mul: [MulSigned<8, 8, 16>; TAPS],
    prod: [SignExtend<16, 20>; TAPS],
    tap_index: [Constant<Bits<4>>; TAPS],
    bits8: Constant<Bits<4>>,
    bits4: Constant<Bits<4>>,
    bits2: Constant<Bits<4>>,
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
            w4: Default::default(),
            w2: Default::default(),
            mul: Default::default(),
            prod: Default::default(),
            tap_index: array_init::array_init(|t| Constant::new((t as u64).into())),
            bits8: Constant::new(8u64.into()),
            bits4: Constant::new(4u64.into()),
            bits2: Constant::new(2u64.into()),
            ones8: Constant::new(0xffu64.into()),
        }
    }
}

impl Logic for TapMac {
    #[hdl_gen]
    fn update(&mut self) {
        self.ksh.next = self.kword.val() >> self.kshift.val();
        self.sum.next = 0.into();
        for t in 0..TAPS {
            self.w4[t].data_in.next = self.ksh.val().get_bits::<4>(4 * t);
            self.w2[t].data_in.next = self.ksh.val().get_bits::<2>(2 * t);
            if self.wbits.val() == self.bits8.val() {
                self.weight[t].next = self.ksh.val().get_bits::<8>(8 * t);
            } else if self.wbits.val() == self.bits4.val() {
                self.weight[t].next = self.w4[t].data_out.val();
            } else if self.wbits.val() == self.bits2.val() {
                self.weight[t].next = self.w2[t].data_out.val();
            } else {
                self.weight[t].next = 0.into();
                if self.ksh.val().get_bit(t) {
                    self.weight[t].next = self.ones8.val();
                }
            }
            self.mul[t].a.next = self.window[t].val();
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

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
//! weight is 0 or -1 (its bit repeated), as the loader packs it. The weights are laid out as
//! nine bytes (8-bit weights already are: the word itself) and the sum is a [`Dot9`].
//! Combinational (the processor registers the sum). The word is shifted only when the kernel
//! does not start at bit 0 (several kernels per word).
//! Golden: `edgelearn_verif::golden::cnn_engine::tap_mac`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::dot9::{Dot9, PAIRS};
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
    weights: Signal<Local, Bits<72>>,
    lane: Signal<Local, Bits<72>>,
    dot9: Dot9,
    bits8: Constant<Bits<4>>,
    bits4: Constant<Bits<4>>,
    bits2: Constant<Bits<4>>,
    mask4: Constant<Bits<72>>,
    mask2: Constant<Bits<72>>,
    mask1: Constant<Bits<72>>,
    sign4: Constant<Bits<72>>,
    sign2: Constant<Bits<72>>,
    ext4: Constant<Bits<72>>,
    ext2: Constant<Bits<72>>,
    ones8: Constant<Bits<72>>,
    at1: [Constant<Bits<7>>; PAIRS],
    at2: [Constant<Bits<7>>; PAIRS],
    at4: [Constant<Bits<7>>; PAIRS],
    at8: [Constant<Bits<7>>; PAIRS],
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
            weights: Default::default(),
            lane: Default::default(),
            dot9: Default::default(),
            bits8: Constant::new(8u64.into()),
            bits4: Constant::new(4u64.into()),
            bits2: Constant::new(2u64.into()),
            mask4: Constant::new(0x0fu64.into()),
            mask2: Constant::new(0x03u64.into()),
            mask1: Constant::new(0x01u64.into()),
            sign4: Constant::new(0x08u64.into()),
            sign2: Constant::new(0x02u64.into()),
            ext4: Constant::new(0xf0u64.into()),
            ext2: Constant::new(0xfcu64.into()),
            ones8: Constant::new(0xffu64.into()),
            at1: array_init::array_init(|t| Constant::new((t as u64).into())),
            at2: array_init::array_init(|t| Constant::new((2 * t as u64).into())),
            at4: array_init::array_init(|t| Constant::new((4 * t as u64).into())),
            at8: array_init::array_init(|t| Constant::new((8 * t as u64).into())),
        }
    }
}

impl Logic for TapMac {
    #[hdl_gen]
    fn update(&mut self) {
        // One 8-bit kernel from bit 0 (the common case): the word is the weights, and
        // nothing below is evaluated.
        self.ksh.next = self.kword.val();
        self.weights.next = self.kword.val();
        self.lane.next = 0.into();
        if (self.kshift.val() != 0) | (self.wbits.val() != self.bits8.val()) {
            if self.kshift.val() != 0 {
                self.ksh.next = self.kword.val() >> self.kshift.val();
            }
            // The weights as nine bytes (one branch per cycle; 8-bit weights are the word).
            self.weights.next = self.ksh.val();
            if self.wbits.val() == self.bits4.val() {
                self.weights.next = 0.into();
                for t in 0..PAIRS {
                    self.lane.next = (self.ksh.val() >> self.at4[t].val()) & self.mask4.val();
                    if (self.lane.val() & self.sign4.val()).any() {
                        self.lane.next = self.lane.val() | self.ext4.val();
                    }
                    self.weights.next = self.weights.val() | (self.lane.val() << self.at8[t].val());
                }
            } else if self.wbits.val() == self.bits2.val() {
                self.weights.next = 0.into();
                for t in 0..PAIRS {
                    self.lane.next = (self.ksh.val() >> self.at2[t].val()) & self.mask2.val();
                    if (self.lane.val() & self.sign2.val()).any() {
                        self.lane.next = self.lane.val() | self.ext2.val();
                    }
                    self.weights.next = self.weights.val() | (self.lane.val() << self.at8[t].val());
                }
            } else if self.wbits.val() != self.bits8.val() {
                self.weights.next = 0.into();
                for t in 0..PAIRS {
                    self.lane.next = 0.into();
                    if ((self.ksh.val() >> self.at1[t].val()) & self.mask1.val()).any() {
                        self.lane.next = self.ones8.val();
                    }
                    self.weights.next = self.weights.val() | (self.lane.val() << self.at8[t].val());
                }
            }
        }
        self.dot9.x.next = self.window.val();
        self.dot9.w.next = self.weights.val();
        self.dot9.n.next = self.taps.val();
        self.dot.next = self.dot9.dot.val();
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

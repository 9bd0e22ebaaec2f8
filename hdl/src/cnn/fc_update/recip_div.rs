//! RecipDiv: the one division of `cnn_fc_update`'s softmax (issue 16, step 5 of
//! `edgelearn_verif::cnn::fc_update`), `R = floor(2^30 / S)` by restoring division, one
//! quotient bit per cycle.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `load` | in | 1 | start: remainder <- 2^14, quotient <- 0 |
//! | `step` | in | 1 | one quotient bit, most significant first |
//! | `divisor` | in | 20 | `S`, 2^15 ..= 2^19, held while stepping |
//! | `quotient` | out | 16 | `R` after 16 steps (0 ..= 32768) |
//!
//! The dividend's bits above bit 15 are `2^30 >> 16 = 2^14 < S`, so the quotient has 16
//! bits and the remainder starts at 2^14; the 16 lower dividend bits are zero, so a step is
//! `t = 2 r; if t >= S { r = t - S; q = 2 q + 1 } else { r = t; q = 2 q }`. The remainder
//! stays below `S <= 2^19`, so `t` fits its 21 bits. No reset: `load` defines the state.
//! Golden: `edgelearn_verif::cnn::fc_update::softmax_trace` (`recip`). Tests: `tests/cnn_fc_update.rs`.

use rust_hdl::prelude::*;

/// Quotient bits (steps per division).
pub const RECIP_STEPS: usize = 16;

/// Restoring divider of 2^30 by a 20-bit divisor.
#[derive(Clone, Debug, LogicBlock)]
pub struct RecipDiv {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Start a division.
    pub load: Signal<In, Bit>,
    /// One quotient bit.
    pub step: Signal<In, Bit>,
    /// `S`.
    pub divisor: Signal<In, Bits<20>>,
    /// `floor(2^30 / S)` after 16 steps.
    pub quotient: Signal<Out, Bits<16>>,
    rem: DFF<Bits<21>>,
    quo: DFF<Bits<16>>,
    twice: Signal<Local, Bits<21>>,
    div_ext: Signal<Local, Bits<21>>,
    rem_init: Constant<Bits<21>>,
    one16: Constant<Bits<16>>,
}

impl Default for RecipDiv {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            step: Default::default(),
            divisor: Default::default(),
            quotient: Default::default(),
            rem: Default::default(),
            quo: Default::default(),
            twice: Default::default(),
            div_ext: Default::default(),
            rem_init: Constant::new(Bits::<21>::from(1u64 << 14)),
            one16: Constant::new(Bits::<16>::from(1u64)),
        }
    }
}

impl Logic for RecipDiv {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rem, quo);
        self.twice.next = self.rem.q.val() << 1;
        self.div_ext.next = bit_cast::<21, 20>(self.divisor.val());
        if self.load.val() {
            self.rem.d.next = self.rem_init.val();
            self.quo.d.next = 0.into();
        } else if self.step.val() {
            self.rem.d.next = self.twice.val();
            self.quo.d.next = self.quo.q.val() << 1;
            if self.twice.val() >= self.div_ext.val() {
                self.rem.d.next = self.twice.val() - self.div_ext.val();
                self.quo.d.next = (self.quo.q.val() << 1) | self.one16.val();
            }
        }
        self.quotient.next = self.quo.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recip_div_is_synthesizable() {
        crate::synth_check::assert_synthesizable("recip_div", RecipDiv::default());
    }
}

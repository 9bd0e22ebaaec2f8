//! AbsVal: the magnitude of a W-bit two's-complement value, as a W-bit unsigned number
//! (so `|-2^(W-1)| = 2^(W-1)` is exact), and its sign.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data_in` | in | W | two's-complement value |
//! | `magnitude` | out | W | `|data_in|`, unsigned |
//! | `negative` | out | 1 | `data_in < 0` |
//!
//! Combinational. Golden: `i64::unsigned_abs`. Tests: `tests/weight_update.rs`.

use rust_hdl::prelude::*;

/// Absolute value.
#[derive(Clone, Debug, LogicBlock)]
pub struct AbsVal<const W: usize> {
    /// Two's-complement input.
    pub data_in: Signal<In, Bits<W>>,
    /// Unsigned magnitude.
    pub magnitude: Signal<Out, Bits<W>>,
    mag: Signal<Local, Bits<W>>,
    /// Sign bit.
    pub negative: Signal<Out, Bit>,
    sign: Constant<Bits<W>>,
    zero: Constant<Bits<W>>,
}

impl<const W: usize> Default for AbsVal<W> {
    fn default() -> Self {
        assert!((2..=64).contains(&W), "AbsVal<{W}>: W must be in 2..=64");
        Self {
            data_in: Default::default(),
            magnitude: Default::default(),
            mag: Default::default(),
            negative: Default::default(),
            sign: Constant::new(Bits::<W>::from(1u64 << (W - 1))),
            zero: Constant::new(Bits::<W>::from(0u64)),
        }
    }
}

impl<const W: usize> Logic for AbsVal<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.negative.next = (self.data_in.val() & self.sign.val()).any();
        self.mag.next = self.data_in.val();
        if (self.data_in.val() & self.sign.val()).any() {
            self.mag.next = self.zero.val() - self.data_in.val();
        }
        self.magnitude.next = self.mag.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abs_is_synthesizable() {
        crate::synth_check::assert_synthesizable("abs", AbsVal::<16>::default());
    }
}

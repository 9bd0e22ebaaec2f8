//! MaxSigned: the larger of two W-bit two's-complement values.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | W | two's-complement value |
//! | `b` | in | W | two's-complement value |
//! | `data_out` | out | W | `max(a, b)`; `a` when equal |
//!
//! Combinational. The signed compare is an unsigned compare of the sign-flipped values.
//! Golden: `i64::max`. Tests: `tests/arith.rs`, `tests/tree_comparator.rs`.

use rust_hdl::prelude::*;

/// Signed two-input maximum.
#[derive(Clone, Debug, LogicBlock)]
pub struct MaxSigned<const W: usize> {
    /// First operand.
    pub a: Signal<In, Bits<W>>,
    /// Second operand.
    pub b: Signal<In, Bits<W>>,
    /// `max(a, b)`.
    pub data_out: Signal<Out, Bits<W>>,
    pick: Signal<Local, Bits<W>>,
    a_biased: Signal<Local, Bits<W>>,
    b_biased: Signal<Local, Bits<W>>,
    flip: Constant<Bits<W>>,
}

impl<const W: usize> Default for MaxSigned<W> {
    fn default() -> Self {
        assert!((2..=64).contains(&W), "MaxSigned<{W}>: W must be in 2..=64");
        Self {
            a: Default::default(),
            b: Default::default(),
            data_out: Default::default(),
            pick: Default::default(),
            a_biased: Default::default(),
            b_biased: Default::default(),
            flip: Constant::new(Bits::<W>::from(1u64 << (W - 1))),
        }
    }
}

impl<const W: usize> Logic for MaxSigned<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a_biased.next = self.a.val() ^ self.flip.val();
        self.b_biased.next = self.b.val() ^ self.flip.val();
        self.pick.next = self.a.val();
        if self.b_biased.val() > self.a_biased.val() {
            self.pick.next = self.b.val();
        }
        self.data_out.next = self.pick.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_is_synthesizable() {
        crate::synth_check::assert_synthesizable("max", MaxSigned::<8>::default());
    }
}

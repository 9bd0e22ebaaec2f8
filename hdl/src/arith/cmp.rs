//! CmpGt: signed `a > b` for two W-bit two's-complement values.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | W | two's-complement value |
//! | `b` | in | W | two's-complement value |
//! | `gt` | out | 1 | `a > b` (signed) |
//!
//! Combinational: an unsigned compare of the sign-flipped values (no signed localparam).
//! Golden: `>` on i64. Tests: `tests/classification.rs`.

use rust_hdl::prelude::*;

/// Signed greater-than.
#[derive(Clone, Debug, LogicBlock)]
pub struct CmpGt<const W: usize> {
    /// Left operand.
    pub a: Signal<In, Bits<W>>,
    /// Right operand.
    pub b: Signal<In, Bits<W>>,
    /// `a > b`.
    pub gt: Signal<Out, Bit>,
    a_biased: Signal<Local, Bits<W>>,
    b_biased: Signal<Local, Bits<W>>,
    flip: Constant<Bits<W>>,
}

impl<const W: usize> Default for CmpGt<W> {
    fn default() -> Self {
        assert!((2..=64).contains(&W), "CmpGt<{W}>: W must be in 2..=64");
        Self {
            a: Default::default(),
            b: Default::default(),
            gt: Default::default(),
            a_biased: Default::default(),
            b_biased: Default::default(),
            flip: Constant::new(Bits::<W>::from(1u64 << (W - 1))),
        }
    }
}

impl<const W: usize> Logic for CmpGt<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a_biased.next = self.a.val() ^ self.flip.val();
        self.b_biased.next = self.b.val() ^ self.flip.val();
        self.gt.next = self.a_biased.val() > self.b_biased.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmp_is_synthesizable() {
        crate::synth_check::assert_synthesizable("cmp", CmpGt::<23>::default());
    }
}

//! ArithCheckWide: a combinational verification top for the primitives the CNN engine
//! added (issue 27): the unsigned multiplies wider than rust-hdl's 16 x 16 and the nine-pair
//! dot product, each at a width that can be swept exhaustively and at the engine's.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a`, `b` | in | 18 | multiply operands; each instance takes its low bits |
//! | `x`, `w` | in | 72 | nine bytes each (Dot9's values and weights, two's complement) |
//! | `n` | in | 4 | Dot9's pairs |
//! | `mul_u_10x6` | out | 16 | `a[9:0] * b[5:0]` unsigned ([`MulUnsigned`]) |
//! | `mul_wide_8x8` | out | 16 | `a[7:0] * b[7:0]` unsigned from 4-bit limbs ([`MulWide`]: the split, every pair) |
//! | `mul_wide_18x18` | out | 36 | `a * b` unsigned from 9-bit limbs (the engine's average division) |
//! | `dot9` | out | 20 | `sum_{t<n} x_t w_t` ([`Dot9`]) |
//!
//! Golden: `edgelearn_verif::golden::arith::arith_check_wide`. Tests: `tests/arith.rs`.

use super::dot9::Dot9;
use super::mul_u::MulUnsigned;
use super::mul_wide::MulWide;
use rust_hdl::prelude::*;

/// The wide primitives behind shared operand ports.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct ArithCheckWide {
    /// Operand A.
    pub a: Signal<In, Bits<18>>,
    /// Operand B.
    pub b: Signal<In, Bits<18>>,
    /// Dot9 values.
    pub x: Signal<In, Bits<72>>,
    /// Dot9 weights.
    pub w: Signal<In, Bits<72>>,
    /// Dot9 pairs.
    pub n: Signal<In, Bits<4>>,
    /// `a[9:0] * b[5:0]`.
    pub mul_u_10x6: Signal<Out, Bits<16>>,
    /// `a[7:0] * b[7:0]` from 4-bit limbs.
    pub mul_wide_8x8: Signal<Out, Bits<16>>,
    /// `a * b` from 9-bit limbs.
    pub mul_wide_18x18: Signal<Out, Bits<36>>,
    /// Dot9 of `x` and `w`.
    pub dot9: Signal<Out, Bits<20>>,
    u_mul_u_10x6: MulUnsigned<10, 6, 16>,
    u_mul_wide_8x8: MulWide<8, 8, 16, 4>,
    u_mul_wide_18x18: MulWide<18, 18, 36, 9>,
    u_dot9: Dot9,
}

impl Logic for ArithCheckWide {
    #[hdl_gen]
    fn update(&mut self) {
        self.u_mul_u_10x6.a.next = self.a.val().get_bits::<10>(0);
        self.u_mul_u_10x6.b.next = self.b.val().get_bits::<6>(0);
        self.mul_u_10x6.next = self.u_mul_u_10x6.p.val();
        self.u_mul_wide_8x8.a.next = self.a.val().get_bits::<8>(0);
        self.u_mul_wide_8x8.b.next = self.b.val().get_bits::<8>(0);
        self.mul_wide_8x8.next = self.u_mul_wide_8x8.p.val();
        self.u_mul_wide_18x18.a.next = self.a.val();
        self.u_mul_wide_18x18.b.next = self.b.val();
        self.mul_wide_18x18.next = self.u_mul_wide_18x18.p.val();
        self.u_dot9.x.next = self.x.val();
        self.u_dot9.w.next = self.w.val();
        self.u_dot9.n.next = self.n.val();
        self.dot9.next = self.u_dot9.dot.val();
    }
}

crate::dut_io! {
    impl[] ArithCheckWide {
        clock: no,
        inputs: [a, b, x, w, n],
        outputs: [mul_u_10x6, mul_wide_8x8, mul_wide_18x18, dot9],
        notes: [x: (true, 9), w: (true, 9), dot9: (true, 1)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arith_check_wide_is_synthesizable() {
        crate::synth_check::assert_synthesizable("arith_check_wide", ArithCheckWide::default());
    }
}

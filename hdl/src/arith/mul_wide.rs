//! MulWide: unsigned N x M multiply wider than rust-hdl's 16 x 16 (N, M <= 2 L, L <= 16),
//! from four L x L partial products, with a P-bit product (P <= 64).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | N | unsigned operand |
//! | `b` | in | M | unsigned operand |
//! | `p` | out | P | `a * b` modulo 2^P (exact when P >= N + M) |
//!
//! Combinational. Each operand is split into a low and a high limb of L bits (`a = ah 2^L +
//! al`); the four limb products are 16 x 16 multiplies into named 32-bit signals (pitfall P2)
//! and `p = al bl + (al bh + ah bl) 2^L + ah bh 2^2L`, summed in 64 bits. The limb width is a
//! parameter so that the split itself is tested exhaustively at small widths (8 x 8 with
//! L = 4, every pair; `arith_check`), and used at the CNN engine's width (18 x 18, L = 9: the
//! average pooling's magic-number division).
//! Golden: `edgelearn_verif::golden::arith::mul_unsigned`. Tests: `tests/arith.rs`.

use rust_hdl::prelude::*;

/// Unsigned multiplier from four limb products.
#[derive(Clone, Debug, LogicBlock)]
pub struct MulWide<const N: usize, const M: usize, const P: usize, const L: usize> {
    /// Operand, N bits.
    pub a: Signal<In, Bits<N>>,
    /// Operand, M bits.
    pub b: Signal<In, Bits<M>>,
    /// Product modulo 2^P.
    pub p: Signal<Out, Bits<P>>,
    a_lo: Signal<Local, Bits<16>>,
    a_hi: Signal<Local, Bits<16>>,
    b_lo: Signal<Local, Bits<16>>,
    b_hi: Signal<Local, Bits<16>>,
    ll: Signal<Local, Bits<32>>,
    lh: Signal<Local, Bits<32>>,
    hl: Signal<Local, Bits<32>>,
    hh: Signal<Local, Bits<32>>,
    sum: Signal<Local, Bits<64>>,
    limb: Constant<Bits<8>>,
    limb2: Constant<Bits<8>>,
    lo_mask: Constant<Bits<16>>,
}

impl<const N: usize, const M: usize, const P: usize, const L: usize> Default
    for MulWide<N, M, P, L>
{
    fn default() -> Self {
        assert!(
            (1..=16).contains(&L)
                && (1..=2 * L).contains(&N)
                && (1..=2 * L).contains(&M)
                && (1..=64).contains(&P),
            "MulWide<{N}, {M}, {P}, {L}>: need L in 1..=16, N and M in 1..=2L, P in 1..=64"
        );
        Self {
            a: Default::default(),
            b: Default::default(),
            p: Default::default(),
            a_lo: Default::default(),
            a_hi: Default::default(),
            b_lo: Default::default(),
            b_hi: Default::default(),
            ll: Default::default(),
            lh: Default::default(),
            hl: Default::default(),
            hh: Default::default(),
            sum: Default::default(),
            limb: Constant::new(Bits::<8>::from(L as u64)),
            limb2: Constant::new(Bits::<8>::from(2 * L as u64)),
            lo_mask: Constant::new(Bits::<16>::from((1u64 << L) - 1)),
        }
    }
}

impl<const N: usize, const M: usize, const P: usize, const L: usize> Logic for MulWide<N, M, P, L> {
    #[hdl_gen]
    fn update(&mut self) {
        self.a_lo.next = bit_cast::<16, N>(self.a.val()) & self.lo_mask.val();
        self.a_hi.next = bit_cast::<16, N>(self.a.val() >> self.limb.val());
        self.b_lo.next = bit_cast::<16, M>(self.b.val()) & self.lo_mask.val();
        self.b_hi.next = bit_cast::<16, M>(self.b.val() >> self.limb.val());
        self.ll.next = self.a_lo.val() * self.b_lo.val();
        self.lh.next = self.a_lo.val() * self.b_hi.val();
        self.hl.next = self.a_hi.val() * self.b_lo.val();
        self.hh.next = self.a_hi.val() * self.b_hi.val();
        self.sum.next = bit_cast::<64, 32>(self.ll.val())
            + ((bit_cast::<64, 32>(self.lh.val()) + bit_cast::<64, 32>(self.hl.val()))
                << self.limb.val())
            + (bit_cast::<64, 32>(self.hh.val()) << self.limb2.val());
        self.p.next = bit_cast::<P, 64>(self.sum.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_wide_is_synthesizable() {
        crate::synth_check::assert_synthesizable("mul_wide", MulWide::<18, 18, 36, 9>::default());
    }
}

//! SignExtend: two's-complement sign extension of an N-bit value to M bits.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data_in` | in | N | two's-complement value |
//! | `data_out` | out | M | `data_in` sign-extended (M >= N) |
//!
//! Combinational. Bits-only: the sign bit is found by masking with a constant and the
//! upper bits are OR-ed in from a constant, so no `$signed()` and no signed localparam is
//! emitted (rust-hdl pitfalls P3, P4, P8).
//! Golden: `edgelearn_verif::golden::arith::sext`. Tests: `tests/arith.rs`.

use rust_hdl::prelude::*;

/// Sign extension from N to M bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct SignExtend<const N: usize, const M: usize> {
    /// Two's-complement input.
    pub data_in: Signal<In, Bits<N>>,
    /// Sign-extended output.
    pub data_out: Signal<Out, Bits<M>>,
    extended: Signal<Local, Bits<M>>,
    sign: Constant<Bits<N>>,
    ext: Constant<Bits<M>>,
}

impl<const N: usize, const M: usize> Default for SignExtend<N, M> {
    fn default() -> Self {
        assert!(N >= 1 && N <= M, "SignExtend<{N}, {M}>: need 1 <= N <= M");
        assert!(M <= 64, "SignExtend<{N}, {M}>: M must be at most 64");
        let ext = if M == N {
            0
        } else {
            (u64::MAX >> (64 - M)) & !(u64::MAX >> (64 - N))
        };
        Self {
            data_in: Default::default(),
            data_out: Default::default(),
            extended: Default::default(),
            sign: Constant::new(Bits::<N>::from(1u64 << (N - 1))),
            ext: Constant::new(Bits::<M>::from(ext)),
        }
    }
}

impl<const N: usize, const M: usize> Logic for SignExtend<N, M> {
    #[hdl_gen]
    fn update(&mut self) {
        self.extended.next = bit_cast::<M, N>(self.data_in.val());
        if (self.data_in.val() & self.sign.val()).any() {
            self.extended.next = bit_cast::<M, N>(self.data_in.val()) | self.ext.val();
        }
        self.data_out.next = self.extended.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sext_is_synthesizable() {
        crate::synth_check::assert_synthesizable("sext", SignExtend::<6, 24>::default());
    }
}

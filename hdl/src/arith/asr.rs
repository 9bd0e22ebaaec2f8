//! AsrFloor: arithmetic shift right of an N-bit two's-complement value by a variable
//! amount, with floor semantics (`floor(x / 2^shift)`, truncation toward minus infinity,
//! thesis T:918, spec lel-platform.md §2.4 `asr`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data_in` | in | N | two's-complement value |
//! | `shift` | in | S | shift amount, 0 ..= 2^S - 1; amounts >= N give 0 or -1 |
//! | `data_out` | out | N | `floor(data_in / 2^shift)` |
//!
//! Combinational. rust-hdl has no signed shift (pitfall P6), so this is a logical shift
//! with the vacated top bits filled with the sign: `(x >> s) | (neg ? ~(ones >> s) : 0)`.
//! Golden: `edgelearn_verif::golden::arith::asr_floor`. Tests: `tests/arith.rs`.

use rust_hdl::prelude::*;

/// Floor arithmetic shift right.
#[derive(Clone, Debug, LogicBlock)]
pub struct AsrFloor<const N: usize, const S: usize> {
    /// Two's-complement input.
    pub data_in: Signal<In, Bits<N>>,
    /// Shift amount (unsigned).
    pub shift: Signal<In, Bits<S>>,
    /// `floor(data_in / 2^shift)`.
    pub data_out: Signal<Out, Bits<N>>,
    shifted: Signal<Local, Bits<N>>,
    sign: Constant<Bits<N>>,
    ones: Constant<Bits<N>>,
}

impl<const N: usize, const S: usize> Default for AsrFloor<N, S> {
    fn default() -> Self {
        assert!(
            (2..=64).contains(&N),
            "AsrFloor<{N}, {S}>: N must be in 2..=64"
        );
        assert!(
            (1..=8).contains(&S),
            "AsrFloor<{N}, {S}>: S must be in 1..=8"
        );
        Self {
            data_in: Default::default(),
            shift: Default::default(),
            data_out: Default::default(),
            shifted: Default::default(),
            sign: Constant::new(Bits::<N>::from(1u64 << (N - 1))),
            ones: Constant::new(Bits::<N>::from(u64::MAX >> (64 - N))),
        }
    }
}

impl<const N: usize, const S: usize> Logic for AsrFloor<N, S> {
    #[hdl_gen]
    fn update(&mut self) {
        self.shifted.next = self.data_in.val() >> self.shift.val();
        if (self.data_in.val() & self.sign.val()).any() {
            self.shifted.next =
                (self.data_in.val() >> self.shift.val()) | !(self.ones.val() >> self.shift.val());
        }
        self.data_out.next = self.shifted.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asr_is_synthesizable() {
        crate::synth_check::assert_synthesizable("asr", AsrFloor::<24, 4>::default());
    }
}

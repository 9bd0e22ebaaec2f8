//! Saturate: clamp an N-bit two's-complement value into K bits, either symmetrically
//! to `[-(2^(K-1)-1), 2^(K-1)-1]` (the LEL quantizer of eq 3.1, spec lel-platform.md §2.4
//! `sat8`/`sat6`) or to the full two's-complement range `[-2^(K-1), 2^(K-1)-1]`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data_in` | in | N | two's-complement value |
//! | `data_out` | out | K | clamped value, K <= N |
//!
//! Combinational. Signed compares are done unsigned on the sign-flipped value
//! (`x ^ 2^(N-1)`), so no signed localparam reaches Yosys (pitfall P8).
//! Golden: `edgelearn_verif::golden::arith::{sat_sym, sat_tc}`. Tests: `tests/arith.rs`.

use rust_hdl::prelude::*;

/// Which range a [`Saturate`] clamps to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SatMode {
    /// `[-(2^(K-1)-1), 2^(K-1)-1]`: the symmetric LEL quantizer range.
    Symmetric,
    /// `[-2^(K-1), 2^(K-1)-1]`: the full two's-complement range.
    TwosComplement,
}

/// Saturation from N to K bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct Saturate<const N: usize, const K: usize> {
    /// Two's-complement input.
    pub data_in: Signal<In, Bits<N>>,
    /// Clamped output.
    pub data_out: Signal<Out, Bits<K>>,
    clipped: Signal<Local, Bits<K>>,
    biased: Signal<Local, Bits<N>>,
    flip: Constant<Bits<N>>,
    biased_hi: Constant<Bits<N>>,
    biased_lo: Constant<Bits<N>>,
    out_hi: Constant<Bits<K>>,
    out_lo: Constant<Bits<K>>,
}

impl<const N: usize, const K: usize> Saturate<N, K> {
    /// A saturator with the given range.
    pub fn new(mode: SatMode) -> Self {
        let hi: i64 = (1i64 << (K - 1)) - 1;
        match mode {
            SatMode::Symmetric => Self::with_bounds(-hi, hi),
            SatMode::TwosComplement => Self::with_bounds(-hi - 1, hi),
        }
    }

    /// A clamp to `[lo, hi]`, which must lie inside the K-bit two's-complement range
    /// (for example `Saturate::<23, 15>::with_bounds(-8192, 8192)` in the loss).
    pub fn with_bounds(lo: i64, hi: i64) -> Self {
        assert!(
            (2..=64).contains(&K) && K <= N && N <= 64,
            "Saturate<{N}, {K}>: need 2 <= K <= N <= 64"
        );
        let kmax: i128 = (1i128 << (K - 1)) - 1;
        assert!(
            lo <= hi && (lo as i128) >= -kmax - 1 && (hi as i128) <= kmax,
            "Saturate<{N}, {K}>: bounds [{lo}, {hi}] must be ordered and fit in {K} bits"
        );
        let (lo, hi) = (lo as i128, hi as i128);
        let half: i128 = 1i128 << (N - 1);
        let mask_n: i128 = (1i128 << N) - 1;
        let mask_k: i128 = (1i128 << K) - 1;
        Self {
            data_in: Default::default(),
            data_out: Default::default(),
            clipped: Default::default(),
            biased: Default::default(),
            flip: Constant::new(Bits::<N>::from(half as u64)),
            biased_hi: Constant::new(Bits::<N>::from(((hi + half) & mask_n) as u64)),
            biased_lo: Constant::new(Bits::<N>::from(((lo + half) & mask_n) as u64)),
            out_hi: Constant::new(Bits::<K>::from((hi & mask_k) as u64)),
            out_lo: Constant::new(Bits::<K>::from((lo & mask_k) as u64)),
        }
    }

    /// Symmetric range `[-(2^(K-1)-1), 2^(K-1)-1]`.
    pub fn symmetric() -> Self {
        Self::new(SatMode::Symmetric)
    }

    /// Full two's-complement range `[-2^(K-1), 2^(K-1)-1]`.
    pub fn twos_complement() -> Self {
        Self::new(SatMode::TwosComplement)
    }
}

impl<const N: usize, const K: usize> Logic for Saturate<N, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.biased.next = self.data_in.val() ^ self.flip.val();
        self.clipped.next = bit_cast::<K, N>(self.data_in.val());
        if self.biased.val() > self.biased_hi.val() {
            self.clipped.next = self.out_hi.val();
        }
        if self.biased.val() < self.biased_lo.val() {
            self.clipped.next = self.out_lo.val();
        }
        self.data_out.next = self.clipped.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sat_is_synthesizable() {
        crate::synth_check::assert_synthesizable("sat", Saturate::<24, 8>::symmetric());
    }
}

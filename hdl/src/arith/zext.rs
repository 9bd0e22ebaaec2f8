//! ZeroExtend: an N-bit value zero-extended to M bits (M >= N).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `data_in` | in | N | value |
//! | `data_out` | out | M | `data_in` with zero upper bits |
//!
//! Combinational. It exists because rust-hdl evaluates a `bit_cast` call in Rust while
//! building the Verilog, so a `bit_cast` of an array element indexed by a loop variable
//! does not compile; widening through an array of these blocks does.
//! Golden: identity. Tests: through [`LaneJoin`](super::lane_join::LaneJoin).

use rust_hdl::prelude::*;

/// Zero extension from N to M bits.
#[derive(Clone, Debug, LogicBlock)]
pub struct ZeroExtend<const N: usize, const M: usize> {
    /// Input.
    pub data_in: Signal<In, Bits<N>>,
    /// Zero-extended output.
    pub data_out: Signal<Out, Bits<M>>,
}

impl<const N: usize, const M: usize> Default for ZeroExtend<N, M> {
    fn default() -> Self {
        assert!(N >= 1 && N <= M, "ZeroExtend<{N}, {M}>: need 1 <= N <= M");
        Self {
            data_in: Default::default(),
            data_out: Default::default(),
        }
    }
}

impl<const N: usize, const M: usize> Logic for ZeroExtend<N, M> {
    #[hdl_gen]
    fn update(&mut self) {
        self.data_out.next = bit_cast::<M, N>(self.data_in.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zext_is_synthesizable() {
        crate::synth_check::assert_synthesizable("zext", ZeroExtend::<6, 24>::default());
    }
}

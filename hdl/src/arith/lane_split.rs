//! LaneSplit: unpack a T-bit word into LANES values of W bits, lane i from bits
//! [W(i+1)-1 : W i].
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `word` | in | T = LANES*W | the word word |
//! | `lanes[i]` | out | W | lane i |
//!
//! Combinational: part-selects `word[(W*i)+:W]`; the loop variable `w` binds W so the
//! offsets are literals in the emitted Verilog.
//! Golden: `edgelearn_sim::unpack_lanes`. Tests: every multi-lane block test.

use rust_hdl::prelude::*;

/// Lane unpacker.
#[derive(Clone, Debug, LogicBlock)]
pub struct LaneSplit<const W: usize, const LANES: usize, const T: usize> {
    /// Packed word.
    pub word: Signal<In, Bits<T>>,
    /// Lane values.
    pub lanes: [Signal<Out, Bits<W>>; LANES],
}

impl<const W: usize, const LANES: usize, const T: usize> Default for LaneSplit<W, LANES, T> {
    fn default() -> Self {
        assert!(
            LANES >= 1 && T == W * LANES,
            "LaneSplit<{W}, {LANES}, {T}>: need T = W*LANES"
        );
        Self {
            word: Default::default(),
            lanes: array_init::array_init(|_| Default::default()),
        }
    }
}

impl<const W: usize, const LANES: usize, const T: usize> Logic for LaneSplit<W, LANES, T> {
    #[hdl_gen]
    fn update(&mut self) {
        for w in W..(W + 1) {
            for i in 0..LANES {
                self.lanes[i].next = self.word.val().get_bits::<W>(w * i);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_split_is_synthesizable() {
        crate::synth_check::assert_synthesizable("lane_split", LaneSplit::<6, 4, 24>::default());
    }
}

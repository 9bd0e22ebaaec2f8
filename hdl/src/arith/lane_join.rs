//! LaneJoin: pack LANES values of W bits into one T-bit word, lane i at bits
//! [W(i+1)-1 : W i] (the packing convention of every multi-lane port).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `lanes[i]` | in | W | lane i |
//! | `word` | out | T = LANES*W | the word word |
//!
//! Combinational. The emitted Verilog is a chain `word = (word << W) | lane`, highest
//! lane first; the loop variable `w` binds the const generic W so that it appears as a
//! literal (const generics cannot appear in rust-hdl HDL expressions).
//! Golden: `edgelearn_sim::pack_lanes`. Tests: every multi-lane block test.

use super::zext::ZeroExtend;
use rust_hdl::prelude::*;

/// Lane packer.
#[derive(Clone, Debug, LogicBlock)]
pub struct LaneJoin<const W: usize, const LANES: usize, const T: usize> {
    /// Lane values.
    pub lanes: [Signal<In, Bits<W>>; LANES],
    /// Packed word.
    pub word: Signal<Out, Bits<T>>,
    acc: Signal<Local, Bits<T>>,
    wide: [ZeroExtend<W, T>; LANES],
}

impl<const W: usize, const LANES: usize, const T: usize> Default for LaneJoin<W, LANES, T> {
    fn default() -> Self {
        assert!(
            LANES >= 1 && T == W * LANES,
            "LaneJoin<{W}, {LANES}, {T}>: need T = W*LANES"
        );
        Self {
            lanes: array_init::array_init(|_| Default::default()),
            word: Default::default(),
            acc: Default::default(),
            wide: array_init::array_init(|_| Default::default()),
        }
    }
}

impl<const W: usize, const LANES: usize, const T: usize> Logic for LaneJoin<W, LANES, T> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..LANES {
            self.wide[i].data_in.next = self.lanes[i].val();
        }
        self.acc.next = 0.into();
        for w in (W as u64)..(W as u64 + 1) {
            for n in LANES..(LANES + 1) {
                for i in 0..LANES {
                    self.acc.next = (self.acc.val() << w) | self.wide[n - 1 - i].data_out.val();
                }
            }
        }
        self.word.next = self.acc.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_join_is_synthesizable() {
        crate::synth_check::assert_synthesizable("lane_join", LaneJoin::<6, 4, 24>::default());
    }
}

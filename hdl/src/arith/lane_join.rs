//! LaneJoin: pack LANES values of W bits into one T-bit word, lane i at bits
//! [W(i+1)-1 : W i] (the packing convention of every multi-lane port).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `lanes[i]` | in | W | lane i |
//! | `word` | out | T = LANES*W | the word word |
//!
//! Combinational. The emitted Verilog is one concatenation, `word = {lanes$L-1, ..., lanes$0}`
//! (written by hand: rust-hdl can only build it as a chain of wide shifts, which Verilator
//! evaluates word by word through `_vl_insert_WW`; the concatenation compiles to a few word
//! moves).
//! Golden: `edgelearn_sim::pack_lanes`. Tests: every multi-lane block test.

use rust_hdl::prelude::*;

/// Lane packer.
#[derive(Clone, Debug, LogicBlock)]
pub struct LaneJoin<const W: usize, const LANES: usize, const T: usize> {
    /// Lane values.
    pub lanes: [Signal<In, Bits<W>>; LANES],
    /// Packed word.
    pub word: Signal<Out, Bits<T>>,
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
        }
    }
}

impl<const W: usize, const LANES: usize, const T: usize> Logic for LaneJoin<W, LANES, T> {
    fn update(&mut self) {
        // Highest lane first; a one-lane join shifts nothing (W = T may be 64).
        let mut acc = bit_cast::<T, W>(self.lanes[LANES - 1].val());
        for i in (0..LANES - 1).rev() {
            acc = (acc << (W as u64)) | bit_cast::<T, W>(self.lanes[i].val());
        }
        self.word.next = acc;
    }

    fn connect(&mut self) {
        self.word.connect();
    }

    fn hdl(&self) -> Verilog {
        let lanes: Vec<String> = (0..LANES).rev().map(|i| format!("lanes${i}")).collect();
        Verilog::Custom(format!("always @(*) word = {{{}}};\n", lanes.join(", ")))
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

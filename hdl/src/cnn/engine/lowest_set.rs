//! LowestSet: the index of the lowest set bit of a 64-bit map (a priority encoder), 64 when
//! none is set: the output stage's next output processor (docs/cnn-engine-rtl.md, the MAC).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `flags` | in | 64 | the bits |
//! | `index` | out | 7 | the lowest set bit's index, or 64 |
//!
//! Combinational, six halving steps (is the low half empty? then look at the high half),
//! so it costs six comparisons, not sixty-four.
//! Golden: `u64::trailing_zeros`. Tests: `tests/cnn_engine_blocks.rs`.

use rust_hdl::prelude::*;

/// Priority encoder of the lowest set bit.
#[derive(Clone, Debug, LogicBlock)]
pub struct LowestSet {
    /// The bits.
    pub flags: Signal<In, Bits<64>>,
    /// Index of the lowest set bit, or 64.
    pub index: Signal<Out, Bits<7>>,
    v32: Signal<Local, Bits<32>>,
    v16: Signal<Local, Bits<16>>,
    v8: Signal<Local, Bits<8>>,
    v4: Signal<Local, Bits<4>>,
    v2: Signal<Local, Bits<2>>,
    n: Signal<Local, Bits<7>>,
    none: Constant<Bits<7>>,
    b32: Constant<Bits<7>>,
    b16: Constant<Bits<7>>,
    b8: Constant<Bits<7>>,
    b4: Constant<Bits<7>>,
    b2: Constant<Bits<7>>,
    b1: Constant<Bits<7>>,
}

impl Default for LowestSet {
    fn default() -> Self {
        Self {
            flags: Default::default(),
            index: Default::default(),
            v32: Default::default(),
            v16: Default::default(),
            v8: Default::default(),
            v4: Default::default(),
            v2: Default::default(),
            n: Default::default(),
            none: Constant::new(64u64.into()),
            b32: Constant::new(32u64.into()),
            b16: Constant::new(16u64.into()),
            b8: Constant::new(8u64.into()),
            b4: Constant::new(4u64.into()),
            b2: Constant::new(2u64.into()),
            b1: Constant::new(1u64.into()),
        }
    }
}

impl Logic for LowestSet {
    #[hdl_gen]
    fn update(&mut self) {
        self.n.next = 0.into();
        self.v32.next = self.flags.val().get_bits::<32>(0);
        if !self.v32.val().any() {
            self.n.next = self.b32.val();
            self.v32.next = self.flags.val().get_bits::<32>(32);
        }
        self.v16.next = self.v32.val().get_bits::<16>(0);
        if !self.v16.val().any() {
            self.n.next = self.n.val() | self.b16.val();
            self.v16.next = self.v32.val().get_bits::<16>(16);
        }
        self.v8.next = self.v16.val().get_bits::<8>(0);
        if !self.v8.val().any() {
            self.n.next = self.n.val() | self.b8.val();
            self.v8.next = self.v16.val().get_bits::<8>(8);
        }
        self.v4.next = self.v8.val().get_bits::<4>(0);
        if !self.v4.val().any() {
            self.n.next = self.n.val() | self.b4.val();
            self.v4.next = self.v8.val().get_bits::<4>(4);
        }
        self.v2.next = self.v4.val().get_bits::<2>(0);
        if !self.v2.val().any() {
            self.n.next = self.n.val() | self.b2.val();
            self.v2.next = self.v4.val().get_bits::<2>(2);
        }
        if !self.v2.val().get_bit(0) {
            self.n.next = self.n.val() | self.b1.val();
        }
        if !self.flags.val().any() {
            self.n.next = self.none.val();
        }
        self.index.next = self.n.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_set_is_synthesizable() {
        crate::synth_check::assert_synthesizable("lowest_set", LowestSet::default());
    }
}

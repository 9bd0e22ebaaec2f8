//! MacLane: one multiply-accumulate lane of the LEL matmul (thesis §4.1.1, Fig 4.1, T:896):
//! `acc <= clear ? 0 : en ? acc + data * weight : acc`, accumulator wrapping at ACC bits.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `data` | in | DW | two's-complement activation |
//! | `weight` | in | WW | two's-complement weight |
//! | `en` | in | 1 | accumulate this cycle |
//! | `clear` | in | 1 | clear the accumulator (wins over `en`) |
//! | `acc` | out | ACC | accumulator (registered) |
//!
//! Latency: the product of the operands present at edge k is in `acc` after edge k.
//! Golden: `edgelearn_verif::golden::matmul`. Tests: `tests/matmul.rs`.

use crate::arith::mul::MulSigned;
use rust_hdl::prelude::*;

/// Signed multiply-accumulate lane.
#[derive(Clone, Debug, LogicBlock)]
pub struct MacLane<const DW: usize, const WW: usize, const ACC: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Activation operand.
    pub data: Signal<In, Bits<DW>>,
    /// Weight operand.
    pub weight: Signal<In, Bits<WW>>,
    /// Accumulate enable.
    pub en: Signal<In, Bit>,
    /// Synchronous clear (priority over `en`).
    pub clear: Signal<In, Bit>,
    /// Registered accumulator.
    pub acc: Signal<Out, Bits<ACC>>,
    mul: MulSigned<DW, WW, ACC>,
    acc_q: DFF<Bits<ACC>>,
}

impl<const DW: usize, const WW: usize, const ACC: usize> Default for MacLane<DW, WW, ACC> {
    fn default() -> Self {
        assert!(
            ACC >= DW + WW && ACC <= 32,
            "MacLane<{DW}, {WW}, {ACC}>: need DW + WW <= ACC <= 32"
        );
        Self {
            clock: Default::default(),
            data: Default::default(),
            weight: Default::default(),
            en: Default::default(),
            clear: Default::default(),
            acc: Default::default(),
            mul: Default::default(),
            acc_q: Default::default(),
        }
    }
}

impl<const DW: usize, const WW: usize, const ACC: usize> Logic for MacLane<DW, WW, ACC> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc_q);
        self.mul.a.next = self.data.val();
        self.mul.b.next = self.weight.val();
        if self.clear.val() {
            self.acc_q.d.next = 0.into();
        } else if self.en.val() {
            self.acc_q.d.next = self.acc_q.q.val() + self.mul.p.val();
        }
        self.acc.next = self.acc_q.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_lane_is_synthesizable() {
        crate::synth_check::assert_synthesizable("mac_lane", MacLane::<8, 6, 24>::default());
    }
}

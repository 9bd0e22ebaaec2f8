//! Reduce: one pooling or element-wise unit of a CNN-engine processor (spec
//! max78000-cnn-engine.md §1.17, §2.5; docs/cnn-engine-rtl.md "What happens per cycle"): a
//! reduction over a sequence of values, one value per cycle, in flight while the data
//! memory is read. Each processor has two, the inner and the outer one (pooling then the
//! element-wise operation, or the other way round).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `op` | in | 3 | 0 max, 1 average (sum, then a division), 2 add, 3 sub, 4 or, 5 xor |
//! | `avg_round` | in | 1 | average: round half away from zero (else truncate toward zero) |
//! | `avg_d` | in | 9 | average: the window's area `d` |
//! | `avg_m` | in | 18 | average: magic multiplier `m` (`n / d == (n m) >> sh` for 17-bit `n`) |
//! | `avg_sh` | in | 5 | average: the shift `sh` |
//! | `valid` | in | 1 | a value this cycle |
//! | `first` | in | 1 | it starts a sequence |
//! | `last` | in | 1 | it ends a sequence |
//! | `value` | in | 18 | two's complement (an 8-bit value sign-extended) |
//! | `out_valid` | out | 1 | the sequence that ended at the last edge has a result |
//! | `result` | out | 8 | two's complement: the average, or the reduction saturated to 8 bits; holds |
//!
//! Per valid value: `acc <- first ? value : op(acc, value)` (18 bits, wrapping). On the last
//! value the result is registered: for the average `sign(s) ((|s| m) >> sh)` (or `((2|s| +
//! d) m) >> sh` rounding), low 8 bits; else `s` saturated to [-128, 127]. Latency 1 (the
//! result one edge after the last value). Throughput one value per cycle. No reset: `first`
//! defines the state. The 18 x 18 product is [`MulWide`] (rust-hdl multiplies 16 x 16).
//! Golden: `edgelearn_verif::golden::cnn_engine::reduce`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::cmp::CmpGt;
use crate::arith::mul_wide::MulWide;
use crate::arith::sat::Saturate;
use rust_hdl::prelude::*;

/// Operation codes of [`Reduce`].
pub mod op {
    /// Maximum.
    pub const MAX: u64 = 0;
    /// Average (sum, divided on the last value).
    pub const AVG: u64 = 1;
    /// Saturating add (saturated once, at the end).
    pub const ADD: u64 = 2;
    /// Subtract.
    pub const SUB: u64 = 3;
    /// Bitwise or.
    pub const OR: u64 = 4;
    /// Bitwise xor.
    pub const XOR: u64 = 5;
}

/// A pooling / element-wise reduction unit.
#[derive(Clone, Debug, LogicBlock)]
pub struct Reduce {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Operation.
    pub op: Signal<In, Bits<3>>,
    /// Round the average half away from zero.
    pub avg_round: Signal<In, Bit>,
    /// The average's divisor.
    pub avg_d: Signal<In, Bits<9>>,
    /// The average's magic multiplier.
    pub avg_m: Signal<In, Bits<18>>,
    /// The average's shift.
    pub avg_sh: Signal<In, Bits<5>>,
    /// A value this cycle.
    pub valid: Signal<In, Bit>,
    /// The value starts a sequence.
    pub first: Signal<In, Bit>,
    /// The value ends a sequence.
    pub last: Signal<In, Bit>,
    /// The value (18-bit two's complement).
    pub value: Signal<In, Bits<18>>,
    /// A result was registered at the last edge.
    pub out_valid: Signal<Out, Bit>,
    /// The result (8-bit two's complement).
    pub result: Signal<Out, Bits<8>>,
    acc: DFF<Bits<18>>,
    done: DFF<Bit>,
    res: DFF<Bits<8>>,
    nxt: Signal<Local, Bits<18>>,
    mag: Signal<Local, Bits<18>>,
    num: Signal<Local, Bits<18>>,
    quo: Signal<Local, Bits<36>>,
    avg: Signal<Local, Bits<8>>,
    cmp: CmpGt<18>,
    mul: MulWide<18, 18, 36, 9>,
    sat: Saturate<18, 8>,
    sign18: Constant<Bits<18>>,
    op_max: Constant<Bits<3>>,
    op_avg: Constant<Bits<3>>,
    op_add: Constant<Bits<3>>,
    op_sub: Constant<Bits<3>>,
    op_or: Constant<Bits<3>>,
    op_xor: Constant<Bits<3>>,
}

impl Default for Reduce {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            op: Default::default(),
            avg_round: Default::default(),
            avg_d: Default::default(),
            avg_m: Default::default(),
            avg_sh: Default::default(),
            valid: Default::default(),
            first: Default::default(),
            last: Default::default(),
            value: Default::default(),
            out_valid: Default::default(),
            result: Default::default(),
            acc: Default::default(),
            done: Default::default(),
            res: Default::default(),
            nxt: Default::default(),
            mag: Default::default(),
            num: Default::default(),
            quo: Default::default(),
            avg: Default::default(),
            cmp: Default::default(),
            mul: Default::default(),
            sat: Saturate::twos_complement(),
            sign18: Constant::new(Bits::<18>::from(1u64 << 17)),
            op_max: Constant::new(op::MAX.into()),
            op_avg: Constant::new(op::AVG.into()),
            op_add: Constant::new(op::ADD.into()),
            op_sub: Constant::new(op::SUB.into()),
            op_or: Constant::new(op::OR.into()),
            op_xor: Constant::new(op::XOR.into()),
        }
    }
}

impl Logic for Reduce {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, done, res);
        self.cmp.a.next = self.value.val();
        self.cmp.b.next = self.acc.q.val();
        self.nxt.next = self.acc.q.val();
        if self.first.val() {
            self.nxt.next = self.value.val();
        } else if self.op.val() == self.op_max.val() {
            if self.cmp.gt.val() {
                self.nxt.next = self.value.val();
            }
        } else if (self.op.val() == self.op_avg.val()) | (self.op.val() == self.op_add.val()) {
            self.nxt.next = self.acc.q.val() + self.value.val();
        } else if self.op.val() == self.op_sub.val() {
            self.nxt.next = self.acc.q.val() - self.value.val();
        } else if self.op.val() == self.op_or.val() {
            self.nxt.next = self.acc.q.val() | self.value.val();
        } else if self.op.val() == self.op_xor.val() {
            self.nxt.next = self.acc.q.val() ^ self.value.val();
        }
        // The average of the finished sum: |s| (or 2|s| + d) times the magic number, shifted.
        self.mag.next = self.nxt.val();
        if (self.nxt.val() & self.sign18.val()).any() {
            self.mag.next = !self.nxt.val() + 1;
        }
        self.num.next = self.mag.val();
        if self.avg_round.val() {
            self.num.next = (self.mag.val() << 1) + bit_cast::<18, 9>(self.avg_d.val());
        }
        self.mul.a.next = self.num.val();
        self.mul.b.next = self.avg_m.val();
        self.quo.next = self.mul.p.val() >> self.avg_sh.val();
        self.avg.next = self.quo.val().get_bits::<8>(0);
        if (self.nxt.val() & self.sign18.val()).any() {
            self.avg.next = !self.quo.val().get_bits::<8>(0) + 1;
        }
        self.sat.data_in.next = self.nxt.val();
        if self.valid.val() {
            self.acc.d.next = self.nxt.val();
        }
        self.done.d.next = self.valid.val() & self.last.val();
        if self.valid.val() & self.last.val() {
            if self.op.val() == self.op_avg.val() {
                self.res.d.next = self.avg.val();
            } else {
                self.res.d.next = self.sat.data_out.val();
            }
        }
        self.out_valid.next = self.done.q.val();
        self.result.next = self.res.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_is_synthesizable() {
        crate::synth_check::assert_synthesizable("reduce", Reduce::default());
    }
}

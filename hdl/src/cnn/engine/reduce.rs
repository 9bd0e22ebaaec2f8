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
//! | `valid` | in | 1 | a value this cycle |
//! | `first` | in | 1 | it starts a sequence |
//! | `last` | in | 1 | it ends a sequence |
//! | `value` | in | 18 | two's complement (an 8-bit value sign-extended) |
//! | `sum` | out | 18 | the reduction including this cycle's value (combinational) |
//! | `avg` | in | 8 | `sum` divided by the window's area ([`super::avg_div::AvgDiv`]), taken for op 1 |
//! | `out_valid` | out | 1 | the sequence that ended at the last edge has a result |
//! | `result` | out | 8 | two's complement: the average, or the reduction saturated to 8 bits; holds |
//!
//! Per valid value: `acc <- first ? value : op(acc, value)` (18 bits, wrapping). On the last
//! value the result is registered: `avg` for the average, else the sum saturated to [-128,
//! 127]. Latency 1 (the result one edge after the last value). Throughput one value per
//! cycle. No reset: `first` defines the state.
//! Golden: `edgelearn_verif::golden::cnn_engine::reduce`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::cmp::CmpGt;
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
    /// A value this cycle.
    pub valid: Signal<In, Bit>,
    /// The value starts a sequence.
    pub first: Signal<In, Bit>,
    /// The value ends a sequence.
    pub last: Signal<In, Bit>,
    /// The value (18-bit two's complement).
    pub value: Signal<In, Bits<18>>,
    /// The reduction including this value.
    pub sum: Signal<Out, Bits<18>>,
    /// The sum's average.
    pub avg: Signal<In, Bits<8>>,
    /// A result was registered at the last edge.
    pub out_valid: Signal<Out, Bit>,
    /// The result (8-bit two's complement).
    pub result: Signal<Out, Bits<8>>,
    acc: DFF<Bits<18>>,
    done: DFF<Bit>,
    res: DFF<Bits<8>>,
    nxt: Signal<Local, Bits<18>>,
    cmp: CmpGt<18>,
    sat: Saturate<18, 8>,
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
            valid: Default::default(),
            first: Default::default(),
            last: Default::default(),
            value: Default::default(),
            sum: Default::default(),
            avg: Default::default(),
            out_valid: Default::default(),
            result: Default::default(),
            acc: Default::default(),
            done: Default::default(),
            res: Default::default(),
            nxt: Default::default(),
            cmp: Default::default(),
            sat: Saturate::twos_complement(),
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
        self.sum.next = self.nxt.val();
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

crate::dut_io! {
    impl[] Reduce {
        clock: yes,
        inputs: [op, valid, first, last, value, avg],
        outputs: [sum, out_valid, result],
        notes: [value: (true, 1), avg: (true, 1), sum: (true, 1), result: (true, 1)],
    }
}

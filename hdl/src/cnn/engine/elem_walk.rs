//! ElemWalk: the items of one kernel tap in the gather (docs/cnn-engine-rtl.md "What
//! happens per cycle", gather): the pooling window's elements times the element-wise
//! operands, one per issued item, with the first/last flags of the inner and the outer
//! unit. With `pool_first` the inner unit pools: per operand, its pooling window; else per
//! pooling element, every operand. A tap outside the input is one padding item, first and
//! last of both units.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `load` | in | 1 | start a layer: every counter 0 |
//! | `go` | in | 1 | the current item is issued at this edge |
//! | `in_bounds` | in | 1 | the current tap is inside the input ([`super::tap_pos::TapPos`]) |
//! | `pool_first` | in | 1 | the inner unit pools |
//! | `pool_h`, `pool_w`, `operands` | in | 5 each | pooling window, element-wise operands |
//! | `pi`, `pj`, `o` | out | 5 each | the current item: pooling row, column, operand |
//! | `ifirst`, `ilast` | out | 1 each | it starts / ends a sequence of the inner unit |
//! | `ofirst`, `olast` | out | 1 each | it starts / ends a sequence of the outer unit |
//! | `tap_end` | out | 1 | it is the tap's last item |
//!
//! The counters wrap at 5 bits. The flags and `tap_end` are combinational from the counters
//! and `in_bounds`.
//! Golden: `edgelearn_verif::golden::cnn_engine::ElemWalk`. Tests: `tests/cnn_engine_blocks.rs`.

use rust_hdl::prelude::*;

/// The items of one tap.
#[derive(Clone, Debug, LogicBlock)]
pub struct ElemWalk {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Start a layer.
    pub load: Signal<In, Bit>,
    /// The item is issued.
    pub go: Signal<In, Bit>,
    /// The tap is inside the input.
    pub in_bounds: Signal<In, Bit>,
    /// The inner unit pools.
    pub pool_first: Signal<In, Bit>,
    /// Pooling rows.
    pub pool_h: Signal<In, Bits<5>>,
    /// Pooling columns.
    pub pool_w: Signal<In, Bits<5>>,
    /// Element-wise operands.
    pub operands: Signal<In, Bits<5>>,
    /// Pooling row.
    pub pi: Signal<Out, Bits<5>>,
    /// Pooling column.
    pub pj: Signal<Out, Bits<5>>,
    /// Operand.
    pub o: Signal<Out, Bits<5>>,
    /// Starts an inner sequence.
    pub ifirst: Signal<Out, Bit>,
    /// Ends an inner sequence.
    pub ilast: Signal<Out, Bit>,
    /// Starts an outer sequence.
    pub ofirst: Signal<Out, Bit>,
    /// Ends an outer sequence.
    pub olast: Signal<Out, Bit>,
    /// The tap's last item.
    pub tap_end: Signal<Out, Bit>,
    row: DFF<Bits<5>>,
    col: DFF<Bits<5>>,
    opnd: DFF<Bits<5>>,
    pool_end_j: Signal<Local, Bit>,
    pool_end: Signal<Local, Bit>,
    pool_beg: Signal<Local, Bit>,
    op_end: Signal<Local, Bit>,
    inner_first: Signal<Local, Bit>,
    inner_last: Signal<Local, Bit>,
    outer_first: Signal<Local, Bit>,
    outer_last: Signal<Local, Bit>,
    tap_last: Signal<Local, Bit>,
    one5: Constant<Bits<5>>,
}

impl Default for ElemWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            go: Default::default(),
            in_bounds: Default::default(),
            pool_first: Default::default(),
            pool_h: Default::default(),
            pool_w: Default::default(),
            operands: Default::default(),
            pi: Default::default(),
            pj: Default::default(),
            o: Default::default(),
            ifirst: Default::default(),
            ilast: Default::default(),
            ofirst: Default::default(),
            olast: Default::default(),
            tap_end: Default::default(),
            row: Default::default(),
            col: Default::default(),
            opnd: Default::default(),
            pool_end_j: Default::default(),
            pool_end: Default::default(),
            pool_beg: Default::default(),
            op_end: Default::default(),
            inner_first: Default::default(),
            inner_last: Default::default(),
            outer_first: Default::default(),
            outer_last: Default::default(),
            tap_last: Default::default(),
            one5: Constant::new(1u64.into()),
        }
    }
}

impl Logic for ElemWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, row, col, opnd);
        self.pool_end_j.next = self.col.q.val() == self.pool_w.val() - self.one5.val();
        self.pool_end.next =
            self.pool_end_j.val() & (self.row.q.val() == self.pool_h.val() - self.one5.val());
        self.pool_beg.next = (self.row.q.val() == 0) & (self.col.q.val() == 0);
        self.op_end.next = self.opnd.q.val() == self.operands.val() - self.one5.val();
        if self.pool_first.val() {
            self.inner_first.next = self.pool_beg.val();
            self.inner_last.next = self.pool_end.val();
            self.outer_first.next = self.opnd.q.val() == 0;
            self.outer_last.next = self.op_end.val();
        } else {
            self.inner_first.next = self.opnd.q.val() == 0;
            self.inner_last.next = self.op_end.val();
            self.outer_first.next = self.pool_beg.val();
            self.outer_last.next = self.pool_end.val();
        }
        self.tap_last.next =
            !self.in_bounds.val() | (self.inner_last.val() & self.outer_last.val());
        if self.go.val() {
            if self.tap_last.val() {
                self.row.d.next = 0.into();
                self.col.d.next = 0.into();
                self.opnd.d.next = 0.into();
            } else if self.pool_first.val() {
                if self.pool_end.val() {
                    self.row.d.next = 0.into();
                    self.col.d.next = 0.into();
                    self.opnd.d.next = self.opnd.q.val() + 1;
                } else if self.pool_end_j.val() {
                    self.col.d.next = 0.into();
                    self.row.d.next = self.row.q.val() + 1;
                } else {
                    self.col.d.next = self.col.q.val() + 1;
                }
            } else if self.op_end.val() {
                self.opnd.d.next = 0.into();
                if self.pool_end_j.val() {
                    self.col.d.next = 0.into();
                    self.row.d.next = self.row.q.val() + 1;
                } else {
                    self.col.d.next = self.col.q.val() + 1;
                }
            } else {
                self.opnd.d.next = self.opnd.q.val() + 1;
            }
        }
        if self.load.val() {
            self.row.d.next = 0.into();
            self.col.d.next = 0.into();
            self.opnd.d.next = 0.into();
        }
        self.pi.next = self.row.q.val();
        self.pj.next = self.col.q.val();
        self.o.next = self.opnd.q.val();
        // A padding item is first and last of both units.
        self.ifirst.next = !self.in_bounds.val() | self.inner_first.val();
        self.ilast.next = !self.in_bounds.val() | self.inner_last.val();
        self.ofirst.next = !self.in_bounds.val() | self.outer_first.val();
        self.olast.next = !self.in_bounds.val() | self.outer_last.val();
        self.tap_end.next = self.tap_last.val();
    }
}

crate::dut_io! {
    impl[] ElemWalk {
        clock: yes,
        inputs: [load, go, in_bounds, pool_first, pool_h, pool_w, operands],
        outputs: [pi, pj, o, ifirst, ilast, ofirst, olast, tap_end],
        notes: [],
    }
}

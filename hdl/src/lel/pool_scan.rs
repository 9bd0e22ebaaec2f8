//! PoolScan: the conv core's POOL phase for one output channel (thesis §4.2.2, T:1268-1312;
//! lel-platform.md §4.3, §7-3): the 3x3, stride-3 max-pool windows of the channel in the
//! inter-FM cache, one window a cycle straight from the cache's three rows, a row of windows
//! at a time. Between rows of windows it pops the cache three times, and it starts a row only
//! while the output FIFO has `room` for it.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: the phase at Clear |
//! | `active` | in | 1 | the core is in CS_POOL; while low the scan waits in Clear and `window` is 0 |
//! | `rows_last` | in | 4 | pooled rows - 1 |
//! | `cols_last` | in | 4 | pooled columns - 1 |
//! | `rows_valid` | in | 1 | the cache's three rows are valid |
//! | `row0`, `row1`, `row2` | in | 256 | the three rows, 32 int8 each |
//! | `room` | in | 1 | the output has room for a row of windows |
//! | `rows_clr` | out | 1 | restart the cache's rows (`clr_opt`) |
//! | `rows_pop` | out | 1 | advance them one row (`pop_en`) |
//! | `window` | out | 72 | window `(Y, X)`: rows 0..2, columns 3X..3X+2, tap `3 r + d` in bits `[8t+7:8t]` (combinational) |
//! | `window_valid` | out | 1 | `window` is one to pool (combinational) |
//! | `done` | out | 1 | the channel's last window is out at this edge: CS_POOL ends |
//!
//! Cycles per channel with `room`: Clear 1, the first rows 4 (as the cache gives them after
//! a clear), then Ph rows of Pw windows with three pops and a wait between rows:
//! 5 + Ph Pw + 6 (Ph - 1) with the thesis cache.
//! Golden: `edgelearn_verif::golden::pool_scan`. Tests: `tests/pool_scan.rs`.

use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

/// Steps of the scan.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum PoolScanPhase {
    /// Restart the cache's rows.
    Clear,
    /// Pop to the next three rows, then wait for them and for room.
    Pop,
    /// One window per cycle.
    Window,
}

/// The POOL phase's window walk.
#[derive(Clone, Debug, LogicBlock)]
pub struct PoolScan {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// The core is in CS_POOL.
    pub active: Signal<In, Bit>,
    /// Pooled rows - 1.
    pub rows_last: Signal<In, Bits<4>>,
    /// Pooled columns - 1.
    pub cols_last: Signal<In, Bits<4>>,
    /// The cache's rows are valid.
    pub rows_valid: Signal<In, Bit>,
    /// Top row.
    pub row0: Signal<In, Bits<256>>,
    /// Middle row.
    pub row1: Signal<In, Bits<256>>,
    /// Bottom row.
    pub row2: Signal<In, Bits<256>>,
    /// The output has room for a row of windows.
    pub room: Signal<In, Bit>,
    /// Restart the cache's rows.
    pub rows_clr: Signal<Out, Bit>,
    /// Advance them one row.
    pub rows_pop: Signal<Out, Bit>,
    /// The window.
    pub window: Signal<Out, Bits<72>>,
    /// The window is one to pool.
    pub window_valid: Signal<Out, Bit>,
    /// The channel's scan ends at this edge.
    pub done: Signal<Out, Bit>,
    phase: DFF<PoolScanPhase>,
    py: DFF<Bits<4>>,
    px: DFF<Bits<4>>,
    pops: DFF<Bits<2>>,
    shamt: DFF<Bits<9>>,
    rowsh: [Signal<Local, Bits<256>>; 3],
    taps: LaneJoin<8, 9, 72>,
    one2: Constant<Bits<2>>,
    one4: Constant<Bits<4>>,
    three2: Constant<Bits<2>>,
    step9: Constant<Bits<9>>,
}

impl Default for PoolScan {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            rows_last: Default::default(),
            cols_last: Default::default(),
            rows_valid: Default::default(),
            row0: Default::default(),
            row1: Default::default(),
            row2: Default::default(),
            room: Default::default(),
            rows_clr: Default::default(),
            rows_pop: Default::default(),
            window: Default::default(),
            window_valid: Default::default(),
            done: Default::default(),
            phase: Default::default(),
            py: Default::default(),
            px: Default::default(),
            pops: Default::default(),
            shamt: Default::default(),
            rowsh: array_init::array_init(|_| Default::default()),
            taps: Default::default(),
            one2: Constant::new(Bits::<2>::from(1u64)),
            one4: Constant::new(Bits::<4>::from(1u64)),
            three2: Constant::new(Bits::<2>::from(3u64)),
            // Three columns of int8.
            step9: Constant::new(Bits::<9>::from(24u64)),
        }
    }
}

impl Logic for PoolScan {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, py, px, pops, shamt);
        self.rows_clr.next = false;
        self.rows_pop.next = false;
        self.window_valid.next = false;
        self.done.next = false;
        if self.active.val() {
            match self.phase.q.val() {
                PoolScanPhase::Clear => {
                    self.rows_clr.next = true;
                    self.py.d.next = 0.into();
                    self.px.d.next = 0.into();
                    self.shamt.d.next = 0.into();
                    self.pops.d.next = 0.into();
                    self.phase.d.next = PoolScanPhase::Pop;
                }
                PoolScanPhase::Pop => {
                    if self.rows_valid.val() {
                        if self.pops.q.val().any() {
                            self.rows_pop.next = true;
                            self.pops.d.next = self.pops.q.val() - self.one2.val();
                        } else if self.room.val() {
                            self.phase.d.next = PoolScanPhase::Window;
                            self.window_valid.next = true;
                            self.px.d.next = self.one4.val();
                            self.shamt.d.next = self.step9.val();
                        }
                    }
                }
                PoolScanPhase::Window => {
                    self.window_valid.next = true;
                    self.px.d.next = self.px.q.val() + self.one4.val();
                    self.shamt.d.next = self.shamt.q.val() + self.step9.val();
                    if self.px.q.val() == self.cols_last.val() {
                        self.px.d.next = 0.into();
                        self.shamt.d.next = 0.into();
                        self.py.d.next = self.py.q.val() + self.one4.val();
                        self.pops.d.next = self.three2.val();
                        self.phase.d.next = PoolScanPhase::Pop;
                        if self.py.q.val() == self.rows_last.val() {
                            self.phase.d.next = PoolScanPhase::Clear;
                            self.done.next = true;
                        }
                    }
                }
                _ => {
                    self.phase.d.next = PoolScanPhase::Clear;
                }
            }
        } else {
            // Waiting for CS_POOL: the next channel starts with a clear.
            self.phase.d.next = PoolScanPhase::Clear;
        }
        if self.reset.val() {
            self.phase.d.next = PoolScanPhase::Clear;
        }
        // Outside POOL the comparator sees zeros (operand isolation: the three wide shifts
        // are not evaluated in the other states).
        self.rowsh[0].next = 0.into();
        self.rowsh[1].next = 0.into();
        self.rowsh[2].next = 0.into();
        if self.active.val() {
            self.rowsh[0].next = self.row0.val() >> self.shamt.q.val();
            self.rowsh[1].next = self.row1.val() >> self.shamt.q.val();
            self.rowsh[2].next = self.row2.val() >> self.shamt.q.val();
        }
        for r in 0..3 {
            for d in 0..3 {
                self.taps.lanes[3 * r + d].next = self.rowsh[r].val().get_bits::<8>(8 * d);
            }
        }
        self.window.next = self.taps.word.val();
    }
}

crate::dut_io! {
    impl[] PoolScan {
        clock: yes,
        inputs: [reset, active, rows_last, cols_last, rows_valid, row0, row1, row2, room],
        outputs: [rows_clr, rows_pop, window, window_valid, done],
        notes: [window: (true, 9)],
    }
}

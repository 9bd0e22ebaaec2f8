//! ConvScan: the conv core's CONV phase for one output channel (thesis §4.2.2, T:1268-1312;
//! lel-platform.md §4.3): the 3x3 windows of a channel of the image cache in raster order
//! (no padding), and the inter-FM cache address of each convolution result as it comes back
//! from the tree adder. The cache gives three rows at a time (`row0` the top one, pixel 0 in
//! bits [7:0]); the scan loads them into three line registers, pops the cache for the next
//! row, and shifts one column a cycle into the window; from the third column on the window
//! is complete.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: the phase at Clear, no window |
//! | `active` | in | 1 | the core is in CS_CONV; while low the scan waits in Clear |
//! | `rows_last` | in | 5 | output rows - 1 (image rows - 3) |
//! | `shift_last` | in | 6 | image columns - 1 |
//! | `cols_last` | in | 5 | output columns - 1 (image columns - 3) |
//! | `rows_valid` | in | 1 | the cache's three rows are valid |
//! | `row0`, `row1`, `row2` | in | 256 | the three rows, 32 int8 each |
//! | `result` | in | 1 | a convolution result is written to the inter-FM cache this cycle |
//! | `rows_clr` | out | 1 | restart the image cache's rows (`clr_opt`) |
//! | `rows_pop` | out | 1 | advance them one row (`pop_en`) |
//! | `window` | out | 72 | the 3x3 window, tap `3 dy + dx` in bits `[8t+7:8t]` (registered) |
//! | `window_valid` | out | 1 | `window` is complete (registered) |
//! | `fm_addr` | out | 11 | the inter-FM address `{y[4:0], x[4:0]}` of the next result |
//! | `done` | out | 1 | the channel's last column shifts in at this edge: CS_CONV ends |
//!
//! Cycles per channel: Clear 1, then per output row a Wait for the rows (4 cycles after a
//! clear, 1 after a pop, as the cache gives them) and W shifts: 5 + Oh (W + 1) with the
//! thesis cache.
//! Golden: `edgelearn_verif::golden::conv_scan`. Tests: `tests/conv_scan.rs`.

use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

/// Steps of the scan.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum ConvScanPhase {
    /// Restart the cache's rows.
    Clear,
    /// Wait for them.
    Wait,
    /// Shift a row through the window, one column per cycle.
    Shift,
}

/// The CONV phase's window walk.
#[derive(Clone, Debug, LogicBlock)]
pub struct ConvScan {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// The core is in CS_CONV.
    pub active: Signal<In, Bit>,
    /// Output rows - 1.
    pub rows_last: Signal<In, Bits<5>>,
    /// Image columns - 1.
    pub shift_last: Signal<In, Bits<6>>,
    /// Output columns - 1.
    pub cols_last: Signal<In, Bits<5>>,
    /// The cache's rows are valid.
    pub rows_valid: Signal<In, Bit>,
    /// Top row.
    pub row0: Signal<In, Bits<256>>,
    /// Middle row.
    pub row1: Signal<In, Bits<256>>,
    /// Bottom row.
    pub row2: Signal<In, Bits<256>>,
    /// A result is written this cycle.
    pub result: Signal<In, Bit>,
    /// Restart the cache's rows.
    pub rows_clr: Signal<Out, Bit>,
    /// Advance them one row.
    pub rows_pop: Signal<Out, Bit>,
    /// The 3x3 window.
    pub window: Signal<Out, Bits<72>>,
    /// The window is complete.
    pub window_valid: Signal<Out, Bit>,
    /// The next result's inter-FM address.
    pub fm_addr: Signal<Out, Bits<11>>,
    /// The channel's scan ends at this edge.
    pub done: Signal<Out, Bit>,
    phase: DFF<ConvScanPhase>,
    row: DFF<Bits<5>>,
    shift: DFF<Bits<6>>,
    line: [DFF<Bits<256>>; 3],
    win: [DFF<Bits<8>>; 9],
    win_valid: DFF<Bit>,
    fy: DFF<Bits<5>>,
    fx: DFF<Bits<5>>,
    taps: LaneJoin<8, 9, 72>,
    one5: Constant<Bits<5>>,
    one6: Constant<Bits<6>>,
    two6: Constant<Bits<6>>,
    c_byte: Constant<Bits<4>>,
    c_col_bits: Constant<Bits<4>>,
}

impl Default for ConvScan {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            active: Default::default(),
            rows_last: Default::default(),
            shift_last: Default::default(),
            cols_last: Default::default(),
            rows_valid: Default::default(),
            row0: Default::default(),
            row1: Default::default(),
            row2: Default::default(),
            result: Default::default(),
            rows_clr: Default::default(),
            rows_pop: Default::default(),
            window: Default::default(),
            window_valid: Default::default(),
            fm_addr: Default::default(),
            done: Default::default(),
            phase: Default::default(),
            row: Default::default(),
            shift: Default::default(),
            line: array_init::array_init(|_| Default::default()),
            win: array_init::array_init(|_| Default::default()),
            win_valid: Default::default(),
            fy: Default::default(),
            fx: Default::default(),
            taps: Default::default(),
            one5: Constant::new(Bits::<5>::from(1u64)),
            one6: Constant::new(Bits::<6>::from(1u64)),
            two6: Constant::new(Bits::<6>::from(2u64)),
            c_byte: Constant::new(Bits::<4>::from(8u64)),
            c_col_bits: Constant::new(Bits::<4>::from(5u64)),
        }
    }
}

impl Logic for ConvScan {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, row, shift, win_valid, fy, fx);
        for r in 0..3 {
            self.line[r].clock.next = self.clock.val();
            self.line[r].d.next = self.line[r].q.val();
        }
        for t in 0..9 {
            self.win[t].clock.next = self.clock.val();
            self.win[t].d.next = self.win[t].q.val();
            self.taps.lanes[t].next = self.win[t].q.val();
        }
        self.rows_clr.next = false;
        self.rows_pop.next = false;
        self.done.next = false;
        self.win_valid.d.next = false;
        if self.active.val() {
            match self.phase.q.val() {
                ConvScanPhase::Clear => {
                    self.rows_clr.next = true;
                    self.row.d.next = 0.into();
                    self.fy.d.next = 0.into();
                    self.fx.d.next = 0.into();
                    self.phase.d.next = ConvScanPhase::Wait;
                }
                ConvScanPhase::Wait => {
                    if self.rows_valid.val() {
                        // Load the three rows; fetch the next one meanwhile.
                        self.line[0].d.next = self.row0.val();
                        self.line[1].d.next = self.row1.val();
                        self.line[2].d.next = self.row2.val();
                        self.rows_pop.next = self.row.q.val() != self.rows_last.val();
                        self.shift.d.next = 0.into();
                        self.phase.d.next = ConvScanPhase::Shift;
                    }
                }
                ConvScanPhase::Shift => {
                    // Column `shift` enters the window; from the third on it is complete.
                    for r in 0..3 {
                        self.win[3 * r].d.next = self.win[3 * r + 1].q.val();
                        self.win[3 * r + 1].d.next = self.win[3 * r + 2].q.val();
                        self.win[3 * r + 2].d.next = self.line[r].q.val().get_bits::<8>(0);
                        self.line[r].d.next = self.line[r].q.val() >> self.c_byte.val();
                    }
                    self.win_valid.d.next = self.shift.q.val() >= self.two6.val();
                    self.shift.d.next = self.shift.q.val() + self.one6.val();
                    if self.shift.q.val() == self.shift_last.val() {
                        self.row.d.next = self.row.q.val() + self.one5.val();
                        self.phase.d.next = ConvScanPhase::Wait;
                        if self.row.q.val() == self.rows_last.val() {
                            self.phase.d.next = ConvScanPhase::Clear;
                            self.done.next = true;
                        }
                    }
                }
                _ => {
                    self.phase.d.next = ConvScanPhase::Clear;
                }
            }
        } else {
            // Waiting for CS_CONV: the next channel starts with a clear.
            self.phase.d.next = ConvScanPhase::Clear;
        }
        // Results come back from the tree adder's pipeline, after the scan's own edges.
        if self.result.val() {
            self.fx.d.next = self.fx.q.val() + self.one5.val();
            if self.fx.q.val() == self.cols_last.val() {
                self.fx.d.next = 0.into();
                self.fy.d.next = self.fy.q.val() + self.one5.val();
            }
        }
        if self.reset.val() {
            self.phase.d.next = ConvScanPhase::Clear;
            self.win_valid.d.next = false;
        }
        self.window.next = self.taps.word.val();
        self.window_valid.next = self.win_valid.q.val();
        self.fm_addr.next = (bit_cast::<11, 5>(self.fy.q.val()) << self.c_col_bits.val())
            | bit_cast::<11, 5>(self.fx.q.val());
    }
}

crate::dut_io! {
    impl[] ConvScan {
        clock: yes,
        inputs: [reset, active, rows_last, shift_last, cols_last, rows_valid, row0, row1, row2, result],
        outputs: [rows_clr, rows_pop, window, window_valid, fm_addr, done],
        notes: [window: (true, 9)],
    }
}

//! LcRows: the FC core's walk over the local classifier's O rows (lel-platform.md §4.2,
//! §2.4): one row a cycle, row r being lane r mod L of word r / L of the LC-input and mask
//! memories; forward (LS_INF, once the last matmul pass is out) as soon as asked, backward
//! (LS_BK) after a two-cycle wait for the loss. The memories answer a cycle later, when the
//! row's lane is picked out of the word.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: no row in flight |
//! | `clear` | in | 1 | a state is entered: row 0 next, the wait restarts |
//! | `fwd` | in | 1 | walk forward (LS_INF after the last pass) |
//! | `bk` | in | 1 | walk backward (LS_BK, after the wait) |
//! | `rows` | in | 16 | rows O |
//! | `lcin_data` | in | 8L | the LC-input memory's word (a cycle after `word`) |
//! | `mask_data` | in | L | the mask memory's word |
//! | `step` | out | 1 | a row is read this cycle (the LC weights step with it) |
//! | `word` | out | 10 | the memories' read address |
//! | `valid` | out | 1 | `lc_in` and `lc_mask` hold the row read a cycle ago |
//! | `lc_in` | out | 8 | its LC input |
//! | `lc_mask` | out | 1 | its ReLU mask bit |
//!
//! Golden: `edgelearn_verif::golden::lc_rows`. Tests: `tests/lc_rows.rs`.

use crate::arith::lane_split::LaneSplit;
use rust_hdl::prelude::*;

/// Cycles LS_BK waits before its first row (the loss's result reaches the tree adder).
pub const BK_WAIT: u64 = 2;

/// The LC row walk of a core with L lanes (`SW = 8L`).
#[derive(Clone, Debug, LogicBlock)]
pub struct LcRows<const L: usize, const SW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A state is entered.
    pub clear: Signal<In, Bit>,
    /// Walk forward.
    pub fwd: Signal<In, Bit>,
    /// Walk backward.
    pub bk: Signal<In, Bit>,
    /// Rows O.
    pub rows: Signal<In, Bits<16>>,
    /// The LC-input memory's word.
    pub lcin_data: Signal<In, Bits<SW>>,
    /// The mask memory's word.
    pub mask_data: Signal<In, Bits<L>>,
    /// A row is read.
    pub step: Signal<Out, Bit>,
    /// The memories' read address.
    pub word: Signal<Out, Bits<10>>,
    /// `lc_in` and `lc_mask` hold a row.
    pub valid: Signal<Out, Bit>,
    /// The row's LC input.
    pub lc_in: Signal<Out, Bits<8>>,
    /// The row's mask bit.
    pub lc_mask: Signal<Out, Bit>,
    split: LaneSplit<8, L, SW>,
    nrow: DFF<Bits<16>>,
    nword: DFF<Bits<10>>,
    nlane: DFF<Bits<4>>,
    bk_wait: DFF<Bits<2>>,
    valid_q: DFF<Bit>,
    lane_q: DFF<Bits<4>>,
    read: Signal<Local, Bit>,
    c_last_lane: Constant<Bits<4>>,
    c_wait: Constant<Bits<2>>,
    c_lane_id: [Constant<Bits<4>>; L],
}

impl<const L: usize, const SW: usize> Default for LcRows<L, SW> {
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && SW == 8 * L,
            "LcRows<{L}, {SW}>: L a power of two <= 16, SW = 8L"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            fwd: Default::default(),
            bk: Default::default(),
            rows: Default::default(),
            lcin_data: Default::default(),
            mask_data: Default::default(),
            step: Default::default(),
            word: Default::default(),
            valid: Default::default(),
            lc_in: Default::default(),
            lc_mask: Default::default(),
            split: Default::default(),
            nrow: Default::default(),
            nword: Default::default(),
            nlane: Default::default(),
            bk_wait: Default::default(),
            valid_q: Default::default(),
            lane_q: Default::default(),
            read: Default::default(),
            c_last_lane: Constant::new(Bits::<4>::from((L - 1) as u64)),
            c_wait: Constant::new(Bits::<2>::from(BK_WAIT)),
            c_lane_id: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
        }
    }
}

impl<const L: usize, const SW: usize> Logic for LcRows<L, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, nrow, nword, nlane, bk_wait, valid_q, lane_q);
        self.read.next = (self.nrow.q.val() != self.rows.val())
            & (self.fwd.val() | (self.bk.val() & (self.bk_wait.q.val() == self.c_wait.val())));
        if self.bk.val() & (self.bk_wait.q.val() != self.c_wait.val()) {
            self.bk_wait.d.next = self.bk_wait.q.val() + 1;
        }
        if self.read.val() {
            self.nrow.d.next = self.nrow.q.val() + 1;
            self.nlane.d.next = self.nlane.q.val() + 1;
            if self.nlane.q.val() == self.c_last_lane.val() {
                self.nlane.d.next = 0.into();
                self.nword.d.next = self.nword.q.val() + 1;
            }
        }
        self.valid_q.d.next = self.read.val();
        self.lane_q.d.next = self.nlane.q.val();
        if self.clear.val() {
            self.nrow.d.next = 0.into();
            self.nword.d.next = 0.into();
            self.nlane.d.next = 0.into();
            self.bk_wait.d.next = 0.into();
        }
        if self.reset.val() {
            self.valid_q.d.next = false;
        }
        self.split.word.next = self.lcin_data.val();
        self.lc_in.next = self.split.lanes[0].val();
        self.lc_mask.next = self.mask_data.val().get_bit(0);
        for j in 0..L {
            if self.lane_q.q.val() == self.c_lane_id[j].val() {
                self.lc_in.next = self.split.lanes[j].val();
                self.lc_mask.next = self.mask_data.val().get_bit(j);
            }
        }
        self.step.next = self.read.val();
        self.word.next = self.nword.q.val();
        self.valid.next = self.valid_q.q.val();
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize] LcRows<L, SW> {
        clock: yes,
        inputs: [reset, clear, fwd, bk, rows, lcin_data, mask_data],
        outputs: [step, word, valid, lc_in, lc_mask],
        notes: [lcin_data: (true, L), lc_in: (true, 1)],
    }
}

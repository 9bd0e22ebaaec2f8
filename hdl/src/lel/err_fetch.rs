//! ErrFetch: the FC core's errors between the LC backward pass and the weight update
//! (lel-platform.md §4.2, §2.4): in LS_BK each error the tree adder makes is written to the
//! gradient cache, piece k's G errors at addresses 0..G in cache k, and piece 0's first L
//! are also kept for WU's first pass; in LS_WU, while a pass runs, the next pass's L errors
//! are read from the cache a word at a time (the pass's words 2..L+2 issue the reads, two
//! cycles ahead of their lanes) and become the current ones when the next pass's first word
//! reaches the weight update.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: no read in flight |
//! | `clear` | in | 1 | a state is entered: the write address restarts at piece 0, error 0 |
//! | `grad_valid` | in | 1 | the tree adder's error is valid (LS_BK) |
//! | `grad` | in | 8 | the error (int8) |
//! | `wu` | in | 1 | the state is LS_WU |
//! | `pass_start` | in | 1 | a pass's first word is one cycle past its address (the errors switch) |
//! | `seq_emit` | in | 1 | the word sequencer issues a word |
//! | `seq_index` | in | 16 | its index in the pass |
//! | `seq_piece` | in | 2 | its piece |
//! | `seq_pass` | in | 16 | its pass |
//! | `gdata` | in | 8 | the gradient cache's read port (two cycles after `g_addr1`) |
//! | `passes` | in | 16 | passes per piece, G / L |
//! | `last_piece` | in | 2 | pieces P - 1 |
//! | `grads` | in | 10 | errors per piece G - 1 |
//! | `err` | out | 8L | the current pass's L errors (int8 lanes) |
//! | `g_sel` | out | 2 | the gradient cache's piece |
//! | `g_we` | out | 1 | write `grad` at `g_addr0` |
//! | `g_addr0` | out | 10 | write address |
//! | `g_addr1` | out | 10 | read address |
//! | `last_grad` | out | 1 | the error being written is the last (piece P - 1, error G - 1) |
//!
//! Golden: `edgelearn_verif::golden::err_fetch`. Tests: `tests/err_fetch.rs`.

use crate::arith::lane_join::LaneJoin;
use rust_hdl::prelude::*;

/// The errors of a core with L lanes (`SW = 8L`).
#[derive(Clone, Debug, LogicBlock)]
pub struct ErrFetch<const L: usize, const SW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A state is entered.
    pub clear: Signal<In, Bit>,
    /// The tree adder's error is valid.
    pub grad_valid: Signal<In, Bit>,
    /// The error.
    pub grad: Signal<In, Bits<8>>,
    /// LS_WU.
    pub wu: Signal<In, Bit>,
    /// A pass's first word reaches the update's read stage.
    pub pass_start: Signal<In, Bit>,
    /// The sequencer issues a word.
    pub seq_emit: Signal<In, Bit>,
    /// Its index in the pass.
    pub seq_index: Signal<In, Bits<16>>,
    /// Its piece.
    pub seq_piece: Signal<In, Bits<2>>,
    /// Its pass.
    pub seq_pass: Signal<In, Bits<16>>,
    /// The gradient cache's read port.
    pub gdata: Signal<In, Bits<8>>,
    /// Passes per piece.
    pub passes: Signal<In, Bits<16>>,
    /// Pieces - 1.
    pub last_piece: Signal<In, Bits<2>>,
    /// Errors per piece - 1.
    pub grads: Signal<In, Bits<10>>,
    /// The current pass's errors.
    pub err: Signal<Out, Bits<SW>>,
    /// The gradient cache's piece.
    pub g_sel: Signal<Out, Bits<2>>,
    /// Write the error.
    pub g_we: Signal<Out, Bit>,
    /// Write address.
    pub g_addr0: Signal<Out, Bits<10>>,
    /// Read address.
    pub g_addr1: Signal<Out, Bits<10>>,
    /// The last error is being written.
    pub last_grad: Signal<Out, Bit>,
    err_join: LaneJoin<8, L, SW>,
    gk: DFF<Bits<2>>,
    ga: DFF<Bits<10>>,
    cur: [DFF<Bits<8>>; L],
    nxt: [DFF<Bits<8>>; L],
    pf_s1: DFF<Bit>,
    pf_s2: DFF<Bit>,
    lane_s1: DFF<Bits<4>>,
    lane_s2: DFF<Bits<4>>,
    issue: Signal<Local, Bit>,
    pf_piece: Signal<Local, Bits<2>>,
    pf_pass: Signal<Local, Bits<16>>,
    pf_idx: Signal<Local, Bits<16>>,
    pf_addr: Signal<Local, Bits<16>>,
    c_two: Constant<Bits<16>>,
    c_end: Constant<Bits<16>>,
    c_lane_bits: Constant<Bits<16>>,
    c_lane_id: [Constant<Bits<4>>; L],
    c_ga_id: [Constant<Bits<10>>; L],
}

impl<const L: usize, const SW: usize> Default for ErrFetch<L, SW> {
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && SW == 8 * L,
            "ErrFetch<{L}, {SW}>: L a power of two <= 16, SW = 8L"
        );
        let c16 = |v: usize| Constant::new(Bits::<16>::from(v as u64));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            grad_valid: Default::default(),
            grad: Default::default(),
            wu: Default::default(),
            pass_start: Default::default(),
            seq_emit: Default::default(),
            seq_index: Default::default(),
            seq_piece: Default::default(),
            seq_pass: Default::default(),
            gdata: Default::default(),
            passes: Default::default(),
            last_piece: Default::default(),
            grads: Default::default(),
            err: Default::default(),
            g_sel: Default::default(),
            g_we: Default::default(),
            g_addr0: Default::default(),
            g_addr1: Default::default(),
            last_grad: Default::default(),
            err_join: Default::default(),
            gk: Default::default(),
            ga: Default::default(),
            cur: array_init::array_init(|_| Default::default()),
            nxt: array_init::array_init(|_| Default::default()),
            pf_s1: Default::default(),
            pf_s2: Default::default(),
            lane_s1: Default::default(),
            lane_s2: Default::default(),
            issue: Default::default(),
            pf_piece: Default::default(),
            pf_pass: Default::default(),
            pf_idx: Default::default(),
            pf_addr: Default::default(),
            c_two: c16(2),
            c_end: c16(L + 2),
            c_lane_bits: c16(L.trailing_zeros() as usize),
            c_lane_id: array_init::array_init(|j| Constant::new(Bits::<4>::from(j as u64))),
            c_ga_id: array_init::array_init(|j| Constant::new(Bits::<10>::from(j as u64))),
        }
    }
}

impl<const L: usize, const SW: usize> Logic for ErrFetch<L, SW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, gk, ga, pf_s1, pf_s2, lane_s1, lane_s2);
        for j in 0..L {
            self.cur[j].clock.next = self.clock.val();
            self.nxt[j].clock.next = self.clock.val();
            self.cur[j].d.next = self.cur[j].q.val();
            self.nxt[j].d.next = self.nxt[j].q.val();
        }
        // BK: piece k's errors at 0..G of cache k; piece 0's first L kept for WU's first pass.
        if self.grad_valid.val() {
            self.ga.d.next = self.ga.q.val() + 1;
            if self.ga.q.val() == self.grads.val() {
                self.ga.d.next = 0.into();
                self.gk.d.next = self.gk.q.val() + 1;
            }
            if !self.gk.q.val().any() {
                for j in 0..L {
                    if self.ga.q.val() == self.c_ga_id[j].val() {
                        self.nxt[j].d.next = self.grad.val();
                    }
                }
            }
        }
        if self.clear.val() {
            self.gk.d.next = 0.into();
            self.ga.d.next = 0.into();
        }
        // WU: the next pass, (piece, pass + 1) or (piece + 1, 0), read by words 2..L+2.
        if self.pass_start.val() & self.wu.val() {
            for j in 0..L {
                self.cur[j].d.next = self.nxt[j].q.val();
            }
        }
        self.pf_piece.next = self.seq_piece.val();
        self.pf_pass.next = self.seq_pass.val() + 1;
        if self.pf_pass.val() == self.passes.val() {
            self.pf_piece.next = self.seq_piece.val() + 1;
            self.pf_pass.next = 0.into();
        }
        self.pf_idx.next = self.seq_index.val() - self.c_two.val();
        self.issue.next = self.wu.val()
            & self.seq_emit.val()
            & (self.seq_index.val() >= self.c_two.val())
            & (self.seq_index.val() < self.c_end.val())
            & !((self.seq_piece.val() == self.last_piece.val())
                & ((self.seq_pass.val() + 1) == self.passes.val()));
        self.pf_addr.next = (self.pf_pass.val() << self.c_lane_bits.val()) + self.pf_idx.val();
        self.pf_s1.d.next = self.issue.val();
        self.pf_s2.d.next = self.pf_s1.q.val();
        self.lane_s1.d.next = bit_cast::<4, 16>(self.pf_idx.val());
        self.lane_s2.d.next = self.lane_s1.q.val();
        if self.pf_s2.q.val() {
            for j in 0..L {
                if self.lane_s2.q.val() == self.c_lane_id[j].val() {
                    self.nxt[j].d.next = self.gdata.val();
                }
            }
        }
        if self.reset.val() {
            self.pf_s1.d.next = false;
            self.pf_s2.d.next = false;
        }
        for j in 0..L {
            self.err_join.lanes[j].next = self.cur[j].q.val();
        }
        self.err.next = self.err_join.word.val();
        self.g_sel.next = self.gk.q.val();
        if self.wu.val() {
            self.g_sel.next = self.pf_piece.val();
        }
        self.g_we.next = self.grad_valid.val();
        self.g_addr0.next = self.ga.q.val();
        self.g_addr1.next = bit_cast::<10, 16>(self.pf_addr.val());
        self.last_grad.next = self.grad_valid.val()
            & (self.gk.q.val() == self.last_piece.val())
            & (self.ga.q.val() == self.grads.val());
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize] ErrFetch<L, SW> {
        clock: yes,
        inputs: [
            reset, clear, grad_valid, grad, wu, pass_start, seq_emit, seq_index, seq_piece,
            seq_pass, gdata, passes, last_piece, grads,
        ],
        outputs: [err, g_sel, g_we, g_addr0, g_addr1, last_grad],
        notes: [grad: (true, 1), gdata: (true, 1), err: (true, L)],
    }
}

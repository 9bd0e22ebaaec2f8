//! FcOut: what the FC core puts into its output FIFO (lel-platform.md §4.2, §4.6;
//! docs/decisions.md D-FCCORE): in LS_INF each matmul pass's L outputs with the image's
//! label, the last flagged, while its LC inputs and ReLU mask go to the LC memories at the
//! pass's index (after the last pass the LC forward pass may run); in LS_READ the weight
//! words at read stage 2, each 6-bit lane sign-extended to a byte as INIT takes them, the
//! last flagged. A pass (a word) is started only with room for its result: the FIFO's level
//! plus the results on their way stays below its depth.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `clear` | in | 1 | a state is entered: pass 0, nothing in flight, the LC forward pass not yet |
//! | `inf`, `read` | in | 1 | the state is LS_INF, LS_READ |
//! | `mm_valid` | in | 1 | the matmul's pass result is valid |
//! | `mm_fc` | in | 8L | its outputs to the next core (int8 lanes) |
//! | `label` | in | 4 | the image's label |
//! | `rd_v2`, `rd_last2` | in | 1 | read stage 2 holds a word; it is the sequence's last |
//! | `weight` | in | 6L | the weight cache's read port (int6 lanes) |
//! | `seq_emit`, `seq_first` | in | 1 | the word sequencer issues a word; a pass's first |
//! | `fifo_count` | in | 6 | beats in the output FIFO |
//! | `out_passes` | in | 10 | passes O / L - 1 |
//! | `push` | out | 1 | a beat goes into the FIFO |
//! | `data` | out | 8L | its data |
//! | `user` | out | 4 | its TUSER: the label in INF, 0 in READ |
//! | `last` | out | 1 | its TLAST |
//! | `lc_we` | out | 1 | write the LC input and mask memories |
//! | `lc_addr` | out | 10 | at this pass's index |
//! | `lc_run` | out | 1 | every pass is out: the LC forward pass runs |
//! | `credit` | out | 1 | room for one more pass or word |
//! | `drained` | out | 1 | nothing in flight, the FIFO empty |
//!
//! It has no reset: the FSM enters LS_IDLE on reset and `clear` comes with every state it
//! enters before a pass or a word is started.
//! Golden: `edgelearn_verif::golden::fc_out`. Tests: `tests/fc_out.rs`.

use crate::arith::lane_join::LaneJoin;
use crate::arith::lane_split::LaneSplit;
use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// Output FIFO depth (beats).
pub const FC_FIFO_DEPTH: usize = 8;

/// The output feed of a core with L lanes (`SW = 8L`, `WW = 6L`).
#[derive(Clone, Debug, LogicBlock)]
pub struct FcOut<const L: usize, const SW: usize, const WW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// A state is entered.
    pub clear: Signal<In, Bit>,
    /// LS_INF.
    pub inf: Signal<In, Bit>,
    /// LS_READ.
    pub read: Signal<In, Bit>,
    /// The matmul's pass result is valid.
    pub mm_valid: Signal<In, Bit>,
    /// Its outputs to the next core.
    pub mm_fc: Signal<In, Bits<SW>>,
    /// The image's label.
    pub label: Signal<In, Bits<4>>,
    /// Read stage 2 holds a word.
    pub rd_v2: Signal<In, Bit>,
    /// It is the sequence's last.
    pub rd_last2: Signal<In, Bit>,
    /// The weight cache's read port.
    pub weight: Signal<In, Bits<WW>>,
    /// The sequencer issues a word.
    pub seq_emit: Signal<In, Bit>,
    /// It is a pass's first.
    pub seq_first: Signal<In, Bit>,
    /// Beats in the output FIFO.
    pub fifo_count: Signal<In, Bits<6>>,
    /// Passes - 1.
    pub out_passes: Signal<In, Bits<10>>,
    /// A beat goes into the FIFO.
    pub push: Signal<Out, Bit>,
    /// Its data.
    pub data: Signal<Out, Bits<SW>>,
    /// Its TUSER.
    pub user: Signal<Out, Bits<4>>,
    /// Its TLAST.
    pub last: Signal<Out, Bit>,
    /// Write the LC memories.
    pub lc_we: Signal<Out, Bit>,
    /// At this pass's index.
    pub lc_addr: Signal<Out, Bits<10>>,
    /// The LC forward pass runs.
    pub lc_run: Signal<Out, Bit>,
    /// Room for one more result.
    pub credit: Signal<Out, Bit>,
    /// Nothing in flight, the FIFO empty.
    pub drained: Signal<Out, Bit>,
    split: LaneSplit<6, L, WW>,
    sext: [SignExtend<6, 8>; L],
    bytes: LaneJoin<8, L, SW>,
    pass: DFF<Bits<10>>,
    run: DFF<Bit>,
    inflight: DFF<Bits<6>>,
    pass_out: Signal<Local, Bit>,
    word_out: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    give: Signal<Local, Bit>,
    c_depth: Constant<Bits<6>>,
}

impl<const L: usize, const SW: usize, const WW: usize> Default for FcOut<L, SW, WW> {
    fn default() -> Self {
        assert!(
            L.is_power_of_two() && L <= 16 && SW == 8 * L && WW == 6 * L,
            "FcOut<{L}, {SW}, {WW}>: L a power of two <= 16, SW = 8L, WW = 6L"
        );
        Self {
            clock: Default::default(),
            clear: Default::default(),
            inf: Default::default(),
            read: Default::default(),
            mm_valid: Default::default(),
            mm_fc: Default::default(),
            label: Default::default(),
            rd_v2: Default::default(),
            rd_last2: Default::default(),
            weight: Default::default(),
            seq_emit: Default::default(),
            seq_first: Default::default(),
            fifo_count: Default::default(),
            out_passes: Default::default(),
            push: Default::default(),
            data: Default::default(),
            user: Default::default(),
            last: Default::default(),
            lc_we: Default::default(),
            lc_addr: Default::default(),
            lc_run: Default::default(),
            credit: Default::default(),
            drained: Default::default(),
            split: Default::default(),
            sext: array_init::array_init(|_| Default::default()),
            bytes: Default::default(),
            pass: Default::default(),
            run: Default::default(),
            inflight: Default::default(),
            pass_out: Default::default(),
            word_out: Default::default(),
            take: Default::default(),
            give: Default::default(),
            c_depth: Constant::new(Bits::<6>::from(FC_FIFO_DEPTH as u64)),
        }
    }
}

impl<const L: usize, const SW: usize, const WW: usize> Logic for FcOut<L, SW, WW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pass, run, inflight);
        // INF: a pass's results, and its LC inputs at the pass's index.
        self.pass_out.next = self.mm_valid.val() & self.inf.val();
        self.push.next = false;
        self.data.next = self.mm_fc.val();
        self.user.next = self.label.val();
        self.last.next = false;
        if self.pass_out.val() {
            self.push.next = true;
            self.last.next = self.pass.q.val() == self.out_passes.val();
            self.pass.d.next = self.pass.q.val() + 1;
            if self.pass.q.val() == self.out_passes.val() {
                self.run.d.next = true;
            }
        }
        // READ: weight words in INIT's format.
        self.split.word.next = self.weight.val();
        for j in 0..L {
            self.sext[j].data_in.next = self.split.lanes[j].val();
            self.bytes.lanes[j].next = self.sext[j].data_out.val();
        }
        self.word_out.next = self.read.val() & self.rd_v2.val();
        if self.word_out.val() {
            self.push.next = true;
            self.data.next = self.bytes.word.val();
            self.user.next = 0.into();
            self.last.next = self.rd_last2.val();
        }
        // Results on their way to the FIFO: passes started in INF, words read in READ.
        self.take.next =
            self.seq_emit.val() & ((self.inf.val() & self.seq_first.val()) | self.read.val());
        self.give.next = self.pass_out.val() | self.word_out.val();
        if self.take.val() & !self.give.val() {
            self.inflight.d.next = self.inflight.q.val() + 1;
        }
        if self.give.val() & !self.take.val() {
            self.inflight.d.next = self.inflight.q.val() - 1;
        }
        if self.clear.val() {
            self.pass.d.next = 0.into();
            self.run.d.next = false;
            self.inflight.d.next = 0.into();
        }
        self.lc_we.next = self.pass_out.val();
        self.lc_addr.next = self.pass.q.val();
        self.lc_run.next = self.run.q.val();
        self.credit.next = (self.fifo_count.val() + self.inflight.q.val()) < self.c_depth.val();
        self.drained.next = !self.inflight.q.val().any() & !self.fifo_count.val().any();
    }
}

crate::dut_io! {
    impl[const L: usize, const SW: usize, const WW: usize] FcOut<L, SW, WW> {
        clock: yes,
        inputs: [
            clear, inf, read, mm_valid, mm_fc, label, rd_v2, rd_last2, weight, seq_emit,
            seq_first, fifo_count, out_passes,
        ],
        outputs: [push, data, user, last, lc_we, lc_addr, lc_run, credit, drained],
        notes: [mm_fc: (true, L), weight: (true, L), data: (true, L)],
    }
}

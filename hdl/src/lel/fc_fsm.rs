//! FcFsm: the FC core's `LS_*` FSM (lel-platform.md §4.2, §4.6 with §7-17, §7-18): the
//! state, what the core samples at its edges (the seeds in INIT, `model_cfg` in LOAD, the
//! label from LOAD's first beat, TRAIN or INF) and what it tells the word sequencer and the
//! LFSRs. IDLE --INIT--> INIT --> IDLE; IDLE --TRAIN/INF--> LOAD --> INF --TRAIN--> LOSS -->
//! BK --> WU --> FIN, INF --INF--> FIN; FIN --> IDLE when `instr` is neither TRAIN nor INF;
//! IDLE --READ--> READ --> IDLE; I_STOP: any state --> IDLE at the next edge, the sequencer
//! cancelled.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: LS_IDLE; seeds, configuration, label and TRAIN cleared |
//! | `instr` | in | 3 | the core's instruction (I_IDLE .. I_READ) |
//! | `s_tvalid` | in | 1 | an input beat is offered (INIT, LOAD) |
//! | `s_tuser` | in | 4 | its label |
//! | `model_cfg` | in | 32 | configuration, sampled in LS_LOAD |
//! | `seeds` | in | 34 | LFSR seeds, sampled in INIT's first cycle |
//! | `seq_active`, `seq_emit`, `seq_first`, `seq_done` | in | 1 | the word sequencer's status |
//! | `wr_busy` | in | 1 | a stream beat is on its way to a cache |
//! | `credit` | in | 1 | the output FIFO has room for one more pass or word |
//! | `lc_done` | in | 1 | the LC forward pass ends (INF) |
//! | `bk_done` | in | 1 | the last gradient is written (BK) |
//! | `drained` | in | 1 | nothing in flight to the output FIFO, and it is empty (READ) |
//! | `code` | out | 4 | the state: LS_IDLE 0 .. LS_READ 8 |
//! | `init` .. `read` | out | 1 | the state is LS_INIT, LOAD, INF, LOSS, BK, WU, FIN, READ |
//! | `fresh` | out | 1 | the state's first cycle |
//! | `enter` | out | 1 | the state changes at this edge (the core clears its counters) |
//! | `ready` | out | 1 | the input stream is taken (`s_tready`) |
//! | `take` | out | 1 | the sequencer's word is a stream beat for a cache (INIT, LOAD) |
//! | `sq_start`, `sq_cancel`, `sq_stall`, `sq_gap` | out | 1 | to the word sequencer |
//! | `sq_load` | out | 1 | the sequence starting is LOAD's (one pass of `act_words`) |
//! | `sq_drain` | out | 3 | drain cycles after each piece (4 for WU's write-back) |
//! | `lc_seed` | out | 17 | the LC weights' seed (INIT's `seeds` while sampling them) |
//! | `lc_prog`, `wu_prog` | out | 1 | (re)program the LC-weight and weight-update LFSRs |
//! | `train` | out | 1 | the image is trained (TRAIN), not inferred |
//! | `cfg` | out | 32 | the configuration sampled in LOAD |
//! | `label` | out | 4 | the image's label |
//!
//! `code`, the state bits, `fresh`, `train`, `cfg` and `label` come from registers; the
//! others are combinational in the state and the inputs.
//! Golden: `edgelearn_verif::golden::fc_fsm`. Tests: `tests/fc_fsm.rs`.

use rust_hdl::prelude::*;

crate::fsm_states! {
    /// `LS_*` states (§4.6; READ is ours). The declaration order is the encoding.
    pub enum FcState {
        /// 0: no compute, no cache access.
        Idle = "LS_IDLE",
        /// 1: LFSR seeds, then the weight stream into the weight cache.
        Init = "LS_INIT",
        /// 2: the activation stream into the activation cache.
        Load = "LS_LOAD",
        /// 3: matmul over every pass, then the LC forward pass.
        Inf = "LS_INF",
        /// 4: the loss (one cycle).
        Loss = "LS_LOSS",
        /// 5: the LC backward pass into the gradient cache.
        Bk = "LS_BK",
        /// 6: the stochastic weight update.
        Wu = "LS_WU",
        /// 7: finished; waits for `instr` to leave TRAIN/INF.
        Fin = "LS_FIN",
        /// 8: the weight cache out on the output stream.
        Read = "LS_READ",
    }
    arcs {
        // The spec's sequence, and I_STOP's return to IDLE from any state.
        Idle => [Init, Load, Read],
        Init => [Idle],
        Load => [Inf, Idle],
        Inf => [Loss, Fin, Idle],
        Loss => [Bk, Idle],
        Bk => [Wu, Idle],
        Wu => [Fin, Idle],
        Fin => [Idle],
        Read => [Idle],
    }
}

/// Drain cycles after each piece of WU: the weight update's read-update-write latency.
pub const WU_DRAIN: u64 = 4;

/// The FC core's FSM.
#[derive(Clone, Debug, LogicBlock)]
pub struct FcFsm {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Instruction.
    pub instr: Signal<In, Bits<3>>,
    /// Input beat offered.
    pub s_tvalid: Signal<In, Bit>,
    /// Its label.
    pub s_tuser: Signal<In, Bits<4>>,
    /// Configuration.
    pub model_cfg: Signal<In, Bits<32>>,
    /// LFSR seeds.
    pub seeds: Signal<In, Bits<34>>,
    /// The sequencer is running.
    pub seq_active: Signal<In, Bit>,
    /// It issues a word.
    pub seq_emit: Signal<In, Bit>,
    /// The word is a pass's first.
    pub seq_first: Signal<In, Bit>,
    /// The sequence is over.
    pub seq_done: Signal<In, Bit>,
    /// A beat is on its way to a cache.
    pub wr_busy: Signal<In, Bit>,
    /// The output FIFO has room.
    pub credit: Signal<In, Bit>,
    /// The LC forward pass ends.
    pub lc_done: Signal<In, Bit>,
    /// The last gradient is written.
    pub bk_done: Signal<In, Bit>,
    /// Nothing in flight, the output FIFO empty.
    pub drained: Signal<In, Bit>,
    /// The state's code.
    pub code: Signal<Out, Bits<4>>,
    /// LS_INIT.
    pub init: Signal<Out, Bit>,
    /// LS_LOAD.
    pub load: Signal<Out, Bit>,
    /// LS_INF.
    pub inf: Signal<Out, Bit>,
    /// LS_LOSS.
    pub loss: Signal<Out, Bit>,
    /// LS_BK.
    pub bk: Signal<Out, Bit>,
    /// LS_WU.
    pub wu: Signal<Out, Bit>,
    /// LS_FIN.
    pub fin: Signal<Out, Bit>,
    /// LS_READ.
    pub read: Signal<Out, Bit>,
    /// The state's first cycle.
    pub fresh: Signal<Out, Bit>,
    /// The state changes at this edge.
    pub enter: Signal<Out, Bit>,
    /// The input stream is taken.
    pub ready: Signal<Out, Bit>,
    /// The word is a stream beat for a cache.
    pub take: Signal<Out, Bit>,
    /// Start the sequencer.
    pub sq_start: Signal<Out, Bit>,
    /// Cancel it.
    pub sq_cancel: Signal<Out, Bit>,
    /// Stall it.
    pub sq_stall: Signal<Out, Bit>,
    /// An idle cycle after each pass.
    pub sq_gap: Signal<Out, Bit>,
    /// LOAD's sequence.
    pub sq_load: Signal<Out, Bit>,
    /// Drain cycles after each piece.
    pub sq_drain: Signal<Out, Bits<3>>,
    /// The LC weights' seed.
    pub lc_seed: Signal<Out, Bits<17>>,
    /// Program the LC-weight LFSR.
    pub lc_prog: Signal<Out, Bit>,
    /// Program the weight-update LFSR.
    pub wu_prog: Signal<Out, Bit>,
    /// The image is trained.
    pub train: Signal<Out, Bit>,
    /// The sampled configuration.
    pub cfg: Signal<Out, Bits<32>>,
    /// The image's label.
    pub label: Signal<Out, Bits<4>>,
    state: DFF<FcState>,
    fresh_q: DFF<Bit>,
    train_q: DFF<Bit>,
    cfg_q: DFF<Bits<32>>,
    seed_q: DFF<Bits<17>>,
    label_q: DFF<Bits<4>>,
    got_label: DFF<Bit>,
    next_state: Signal<Local, FcState>,
    go_train: Signal<Local, Bit>,
    go_inf: Signal<Local, Bit>,
    i_init: Constant<Bits<3>>,
    i_train: Constant<Bits<3>>,
    i_inf: Constant<Bits<3>>,
    i_stop: Constant<Bits<3>>,
    i_read: Constant<Bits<3>>,
    c_drain: Constant<Bits<3>>,
}

impl Default for FcFsm {
    fn default() -> Self {
        Self::with_drain(WU_DRAIN)
    }
}

impl FcFsm {
    /// An FSM whose WU drains `drain` cycles after each piece (the read-update-write
    /// latency: [`WU_DRAIN`], one more with registered reads).
    pub fn with_drain(drain: u64) -> Self {
        let i3 = |v: u64| Constant::new(Bits::<3>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            instr: Default::default(),
            s_tvalid: Default::default(),
            s_tuser: Default::default(),
            model_cfg: Default::default(),
            seeds: Default::default(),
            seq_active: Default::default(),
            seq_emit: Default::default(),
            seq_first: Default::default(),
            seq_done: Default::default(),
            wr_busy: Default::default(),
            credit: Default::default(),
            lc_done: Default::default(),
            bk_done: Default::default(),
            drained: Default::default(),
            code: Default::default(),
            init: Default::default(),
            load: Default::default(),
            inf: Default::default(),
            loss: Default::default(),
            bk: Default::default(),
            wu: Default::default(),
            fin: Default::default(),
            read: Default::default(),
            fresh: Default::default(),
            enter: Default::default(),
            ready: Default::default(),
            take: Default::default(),
            sq_start: Default::default(),
            sq_cancel: Default::default(),
            sq_stall: Default::default(),
            sq_gap: Default::default(),
            sq_load: Default::default(),
            sq_drain: Default::default(),
            lc_seed: Default::default(),
            lc_prog: Default::default(),
            wu_prog: Default::default(),
            train: Default::default(),
            cfg: Default::default(),
            label: Default::default(),
            state: Default::default(),
            fresh_q: Default::default(),
            train_q: Default::default(),
            cfg_q: Default::default(),
            seed_q: Default::default(),
            label_q: Default::default(),
            got_label: Default::default(),
            next_state: Default::default(),
            go_train: Default::default(),
            go_inf: Default::default(),
            i_init: i3(super::instr::INIT),
            i_train: i3(super::instr::TRAIN),
            i_inf: i3(super::instr::INF),
            i_stop: i3(super::instr::STOP),
            i_read: i3(super::instr::READ),
            c_drain: i3(drain),
        }
    }
}

impl Logic for FcFsm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, fresh_q, train_q, cfg_q, seed_q, label_q, got_label);
        self.go_train.next = self.instr.val() == self.i_train.val();
        self.go_inf.next = self.instr.val() == self.i_inf.val();
        self.next_state.next = self.state.q.val();
        self.ready.next = false;
        self.take.next = false;
        self.sq_start.next = false;
        self.sq_cancel.next = false;
        self.sq_stall.next = false;
        self.sq_gap.next = false;
        self.sq_load.next = false;
        self.sq_drain.next = 0.into();
        self.lc_seed.next = self.seed_q.q.val();
        self.lc_prog.next = false;
        self.wu_prog.next = false;
        match self.state.q.val() {
            FcState::Idle => {
                if self.instr.val() == self.i_init.val() {
                    self.next_state.next = FcState::Init;
                } else if self.go_train.val() | self.go_inf.val() {
                    // LOAD: P pieces of F/L activation words, from the next cycle on.
                    self.next_state.next = FcState::Load;
                    self.train_q.d.next = self.go_train.val();
                    self.got_label.d.next = false;
                    self.sq_start.next = true;
                    self.sq_load.next = true;
                } else if self.instr.val() == self.i_read.val() {
                    self.next_state.next = FcState::Read;
                    self.sq_start.next = true;
                }
            }
            FcState::Init => {
                if self.fresh_q.q.val() {
                    // First cycle: seeds in, both LFSRs programmed, the weight stream next.
                    self.seed_q.d.next = self.seeds.val().get_bits::<17>(0);
                    self.lc_seed.next = self.seeds.val().get_bits::<17>(0);
                    self.lc_prog.next = true;
                    self.wu_prog.next = true;
                    self.sq_start.next = true;
                } else {
                    self.ready.next = self.seq_active.val();
                    self.sq_stall.next = !self.s_tvalid.val();
                    self.take.next = self.seq_emit.val();
                    if self.seq_done.val() & !self.wr_busy.val() {
                        self.next_state.next = FcState::Idle;
                    }
                }
            }
            FcState::Load => {
                self.cfg_q.d.next = self.model_cfg.val();
                self.ready.next = self.seq_active.val();
                self.sq_stall.next = !self.s_tvalid.val();
                self.take.next = self.seq_emit.val();
                if self.seq_emit.val() & !self.got_label.q.val() {
                    self.label_q.d.next = self.s_tuser.val();
                    self.got_label.d.next = true;
                }
                if self.seq_done.val() & !self.wr_busy.val() {
                    // INF: every pass with one idle cycle after it, from the next cycle on.
                    self.next_state.next = FcState::Inf;
                    self.sq_start.next = true;
                    self.sq_gap.next = true;
                }
            }
            FcState::Inf => {
                self.lc_prog.next = self.fresh_q.q.val();
                // A pass starts only when its result has room in the output FIFO.
                self.sq_stall.next = self.seq_first.val() & !self.credit.val();
                if self.lc_done.val() {
                    if self.train_q.q.val() {
                        self.next_state.next = FcState::Loss;
                    } else {
                        self.next_state.next = FcState::Fin;
                    }
                }
            }
            FcState::Loss => {
                self.lc_prog.next = true;
                self.next_state.next = FcState::Bk;
            }
            FcState::Bk => {
                if self.bk_done.val() {
                    // WU: every word, four drain cycles after each piece, from the next cycle.
                    self.next_state.next = FcState::Wu;
                    self.sq_start.next = true;
                    self.sq_drain.next = self.c_drain.val();
                }
            }
            FcState::Wu => {
                if self.seq_done.val() {
                    self.next_state.next = FcState::Fin;
                }
            }
            FcState::Fin => {
                if !(self.go_train.val() | self.go_inf.val()) {
                    self.next_state.next = FcState::Idle;
                }
            }
            FcState::Read => {
                self.sq_stall.next = !self.credit.val();
                if self.seq_done.val() & self.drained.val() {
                    self.next_state.next = FcState::Idle;
                }
            }
            _ => {
                self.next_state.next = FcState::Idle;
            }
        }
        if self.instr.val() == self.i_stop.val() {
            self.next_state.next = FcState::Idle;
            self.sq_start.next = false;
            self.sq_cancel.next = true;
        }
        self.state.d.next = self.next_state.val();
        self.enter.next = self.next_state.val() != self.state.q.val();
        self.fresh_q.d.next = self.next_state.val() != self.state.q.val();
        if self.reset.val() {
            self.state.d.next = FcState::Idle;
            self.fresh_q.d.next = false;
            self.train_q.d.next = false;
            self.cfg_q.d.next = 0.into();
            self.seed_q.d.next = 0.into();
            self.label_q.d.next = 0.into();
        }
        self.code.next = 0.into();
        match self.state.q.val() {
            FcState::Idle => {}
            FcState::Init => self.code.next = 1.into(),
            FcState::Load => self.code.next = 2.into(),
            FcState::Inf => self.code.next = 3.into(),
            FcState::Loss => self.code.next = 4.into(),
            FcState::Bk => self.code.next = 5.into(),
            FcState::Wu => self.code.next = 6.into(),
            FcState::Fin => self.code.next = 7.into(),
            FcState::Read => self.code.next = 8.into(),
        }
        self.init.next = self.state.q.val() == FcState::Init;
        self.load.next = self.state.q.val() == FcState::Load;
        self.inf.next = self.state.q.val() == FcState::Inf;
        self.loss.next = self.state.q.val() == FcState::Loss;
        self.bk.next = self.state.q.val() == FcState::Bk;
        self.wu.next = self.state.q.val() == FcState::Wu;
        self.fin.next = self.state.q.val() == FcState::Fin;
        self.read.next = self.state.q.val() == FcState::Read;
        self.fresh.next = self.fresh_q.q.val();
        self.train.next = self.train_q.q.val();
        self.cfg.next = self.cfg_q.q.val();
        self.label.next = self.label_q.q.val();
    }
}

crate::dut_io! {
    impl[] FcFsm {
        clock: yes,
        inputs: [
            reset, instr, s_tvalid, s_tuser, model_cfg, seeds, seq_active, seq_emit, seq_first,
            seq_done, wr_busy, credit, lc_done, bk_done, drained,
        ],
        outputs: [
            code, init, load, inf, loss, bk, wu, fin, read, fresh, enter, ready, take, sq_start,
            sq_cancel, sq_stall, sq_gap, sq_load, sq_drain, lc_seed, lc_prog, wu_prog, train,
            cfg, label,
        ],
        notes: [seeds: (false, 2)],
    }
}

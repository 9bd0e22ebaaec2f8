//! PlFsm: the platform's `PL_*` FSM (lel-platform.md §4.6; docs/registers.md CTRL): what each
//! core is told and where the input stream goes. I_INIT (I_READ) gives FC0, then FC1, the
//! instruction until the core leaves LS_IDLE and routes the input stream to it (its output
//! to `m_*`) until it is back. I_TRAIN / I_INF run N_TRAIN / N_TEST images: each core starts
//! an image when it is idle, has images left and its input is whole (the conv core: a whole
//! image in the input FIFO and room for its output; an FC core: a whole packet), and PL_IDLE
//! follows when every core has run them all and both FC cores have classified them. I_STOP
//! returns to PL_IDLE from any state: every core gets I_STOP for a cycle, then the FIFOs are
//! held empty for FLUSH_CYCLES while the cores' own output FIFOs drain.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: PL_IDLE, the counts 0, no flush |
//! | `ctrl` | in | 1 | CTRL is written this cycle |
//! | `instr` | in | 3 | its INSTR field |
//! | `n_train`, `n_test` | in | 32 | images of a training / inference run |
//! | `conv_state`, `fc0_state`, `fc1_state` | in | 4 | the cores' states (`CS_*`, `LS_*`) |
//! | `in_count`, `mid_count` | in | 16 | beats in the input and the conv -> FC0 FIFO |
//! | `mid_packets`, `out_packets` | in | 16 | whole packets in the conv -> FC0 and FC0 -> FC1 FIFO |
//! | `results0`, `results1` | in | 32 | the FC cores' classifications this run ([`super::result_tally::ResultTally`]) |
//! | `code` | out | 4 | the state: PL_IDLE 0, INIT 1, TRAIN 2, INF 3, READ 4 |
//! | `flushing` | out | 1 | the FIFOs are held empty after I_STOP |
//! | `ins_conv`, `ins_fc0`, `ins_fc1` | out | 3 | each core's `instr` |
//! | `to_conv`, `to_fc0`, `to_fc1` | out | 1 | the input stream goes to that core |
//! | `rd_fc0`, `rd_fc1` | out | 1 | that core's output goes to `m_*` (PL_READ) |
//! | `start_fc0`, `start_fc1` | out | 1 | the FC core starts an image this cycle |
//! | `run_start` | out | 1 | a training or inference run starts at this edge |
//! | `run_cycles`, `conv_n`, `fc0_n`, `fc1_n` | out | 32 | cycles of the run, images each core started |
//!
//! The outputs are combinational from the state and the inputs; `code`, `flushing` and the
//! counts are registered.
//! Golden: `edgelearn_verif::golden::pl_fsm`. Tests: `tests/pl_fsm.rs`.

use rust_hdl::prelude::*;

crate::fsm_states! {
    /// `PL_*` states (§4.6; READ is ours). The declaration order is the encoding.
    pub enum PlState {
        /// 0: cores idle.
        Idle = "PL_IDLE",
        /// 1: INIT of FC0, then FC1.
        Init = "PL_INIT",
        /// 2: N_TRAIN images trained.
        Train = "PL_TRAIN",
        /// 3: N_TEST images inferred.
        Inf = "PL_INF",
        /// 4: FC0's, then FC1's weights streamed out.
        Read = "PL_READ",
    }
    arcs {
        // CTRL starts a state from IDLE; every state ends in IDLE (done, or I_STOP).
        Idle => [Init, Train, Inf, Read],
        Init => [Idle],
        Train => [Idle],
        Inf => [Idle],
        Read => [Idle],
    }
}

/// The platform's FSM.
#[derive(Clone, Debug, LogicBlock)]
pub struct PlFsm {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// CTRL is written.
    pub ctrl: Signal<In, Bit>,
    /// Its INSTR field.
    pub instr: Signal<In, Bits<3>>,
    /// Images of a training run.
    pub n_train: Signal<In, Bits<32>>,
    /// Images of an inference run.
    pub n_test: Signal<In, Bits<32>>,
    /// The conv core's state.
    pub conv_state: Signal<In, Bits<4>>,
    /// FC core 0's state.
    pub fc0_state: Signal<In, Bits<4>>,
    /// FC core 1's state.
    pub fc1_state: Signal<In, Bits<4>>,
    /// Beats in the input FIFO.
    pub in_count: Signal<In, Bits<16>>,
    /// Beats in the conv -> FC0 FIFO.
    pub mid_count: Signal<In, Bits<16>>,
    /// Whole packets in the conv -> FC0 FIFO.
    pub mid_packets: Signal<In, Bits<16>>,
    /// Whole packets in the FC0 -> FC1 FIFO.
    pub out_packets: Signal<In, Bits<16>>,
    /// FC core 0's classifications this run.
    pub results0: Signal<In, Bits<32>>,
    /// FC core 1's classifications this run.
    pub results1: Signal<In, Bits<32>>,
    /// The state's code.
    pub code: Signal<Out, Bits<4>>,
    /// The FIFOs are held empty.
    pub flushing: Signal<Out, Bit>,
    /// The conv core's instruction.
    pub ins_conv: Signal<Out, Bits<3>>,
    /// FC core 0's instruction.
    pub ins_fc0: Signal<Out, Bits<3>>,
    /// FC core 1's instruction.
    pub ins_fc1: Signal<Out, Bits<3>>,
    /// The input stream goes to the conv core.
    pub to_conv: Signal<Out, Bit>,
    /// The input stream goes to FC core 0.
    pub to_fc0: Signal<Out, Bit>,
    /// The input stream goes to FC core 1.
    pub to_fc1: Signal<Out, Bit>,
    /// FC core 0's output goes to `m_*`.
    pub rd_fc0: Signal<Out, Bit>,
    /// FC core 1's output goes to `m_*`.
    pub rd_fc1: Signal<Out, Bit>,
    /// FC core 0 starts an image.
    pub start_fc0: Signal<Out, Bit>,
    /// FC core 1 starts an image.
    pub start_fc1: Signal<Out, Bit>,
    /// A run starts.
    pub run_start: Signal<Out, Bit>,
    /// Cycles of the run.
    pub run_cycles: Signal<Out, Bits<32>>,
    /// Images the conv core started.
    pub conv_n: Signal<Out, Bits<32>>,
    /// Images FC core 0 started.
    pub fc0_n: Signal<Out, Bits<32>>,
    /// Images FC core 1 started.
    pub fc1_n: Signal<Out, Bits<32>>,
    state: DFF<PlState>,
    phase: DFF<Bit>,
    sent: DFF<Bit>,
    flush: DFF<Bits<6>>,
    stop_q: DFF<Bit>,
    n_run: DFF<Bits<32>>,
    cycles: DFF<Bits<32>>,
    n_conv: DFF<Bits<32>>,
    n_fc0: DFF<Bits<32>>,
    n_fc1: DFF<Bits<32>>,
    /// The state's instruction to the cores (I_INIT, I_TRAIN, I_INF or I_READ).
    cmd: Signal<Local, Bits<3>>,
    idle_conv: Signal<Local, Bit>,
    idle_fc0: Signal<Local, Bit>,
    idle_fc1: Signal<Local, Bit>,
    go_conv: Signal<Local, Bit>,
    c_img_beats: Constant<Bits<16>>,
    c_conv_room: Constant<Bits<16>>,
    c_flush: Constant<Bits<6>>,
    i_idle: Constant<Bits<3>>,
    i_init: Constant<Bits<3>>,
    i_train: Constant<Bits<3>>,
    i_inf: Constant<Bits<3>>,
    i_stop: Constant<Bits<3>>,
    i_read: Constant<Bits<3>>,
    s_idle: Constant<Bits<4>>,
    s_fin_fc: Constant<Bits<4>>,
    s_fin_conv: Constant<Bits<4>>,
    one32: Constant<Bits<32>>,
    one6: Constant<Bits<6>>,
}

impl PlFsm {
    /// The FSM of a platform whose images are `image_beats` input beats, whose conv core may
    /// start while the conv -> FC0 FIFO holds at most `conv_room` beats, and which flushes
    /// for `flush_cycles` after I_STOP.
    pub fn new(image_beats: u16, conv_room: u16, flush_cycles: u8) -> Self {
        let i3 = |v: u64| Constant::new(Bits::<3>::from(v));
        let s4 = |v: u64| Constant::new(Bits::<4>::from(v));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ctrl: Default::default(),
            instr: Default::default(),
            n_train: Default::default(),
            n_test: Default::default(),
            conv_state: Default::default(),
            fc0_state: Default::default(),
            fc1_state: Default::default(),
            in_count: Default::default(),
            mid_count: Default::default(),
            mid_packets: Default::default(),
            out_packets: Default::default(),
            results0: Default::default(),
            results1: Default::default(),
            code: Default::default(),
            flushing: Default::default(),
            ins_conv: Default::default(),
            ins_fc0: Default::default(),
            ins_fc1: Default::default(),
            to_conv: Default::default(),
            to_fc0: Default::default(),
            to_fc1: Default::default(),
            rd_fc0: Default::default(),
            rd_fc1: Default::default(),
            start_fc0: Default::default(),
            start_fc1: Default::default(),
            run_start: Default::default(),
            run_cycles: Default::default(),
            conv_n: Default::default(),
            fc0_n: Default::default(),
            fc1_n: Default::default(),
            state: Default::default(),
            phase: Default::default(),
            sent: Default::default(),
            flush: Default::default(),
            stop_q: Default::default(),
            n_run: Default::default(),
            cycles: Default::default(),
            n_conv: Default::default(),
            n_fc0: Default::default(),
            n_fc1: Default::default(),
            cmd: Default::default(),
            idle_conv: Default::default(),
            idle_fc0: Default::default(),
            idle_fc1: Default::default(),
            go_conv: Default::default(),
            c_img_beats: Constant::new(Bits::<16>::from(image_beats as u64)),
            c_conv_room: Constant::new(Bits::<16>::from(conv_room as u64)),
            c_flush: Constant::new(Bits::<6>::from(flush_cycles as u64)),
            i_idle: i3(super::instr::IDLE),
            i_init: i3(super::instr::INIT),
            i_train: i3(super::instr::TRAIN),
            i_inf: i3(super::instr::INF),
            i_stop: i3(super::instr::STOP),
            i_read: i3(super::instr::READ),
            s_idle: s4(super::fc_core::FcState::Idle.code()),
            s_fin_fc: s4(super::fc_core::FcState::Fin.code()),
            s_fin_conv: s4(super::conv_core::ConvState::Fin.code()),
            one32: Constant::new(Bits::<32>::from(1u64)),
            one6: Constant::new(Bits::<6>::from(1u64)),
        }
    }
}

impl Logic for PlFsm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, phase, sent, flush, stop_q, n_run, cycles, n_conv, n_fc0, n_fc1
        );
        match self.state.q.val() {
            PlState::Init => self.cmd.next = self.i_init.val(),
            PlState::Inf => self.cmd.next = self.i_inf.val(),
            PlState::Read => self.cmd.next = self.i_read.val(),
            _ => self.cmd.next = self.i_train.val(),
        }
        self.idle_conv.next = self.conv_state.val() == self.s_idle.val();
        self.idle_fc0.next = self.fc0_state.val() == self.s_idle.val();
        self.idle_fc1.next = self.fc1_state.val() == self.s_idle.val();
        self.ins_conv.next = self.i_idle.val();
        self.ins_fc0.next = self.i_idle.val();
        self.ins_fc1.next = self.i_idle.val();
        self.run_start.next = false;
        // PL_INIT / PL_READ: FC0 (phase 0), then FC1 (the module doc).
        self.to_conv.next =
            (self.state.q.val() == PlState::Train) | (self.state.q.val() == PlState::Inf);
        self.to_fc0.next = (self.state.q.val() == PlState::Init) & !self.phase.q.val();
        self.to_fc1.next = (self.state.q.val() == PlState::Init) & self.phase.q.val();
        self.rd_fc0.next = (self.state.q.val() == PlState::Read) & !self.phase.q.val();
        self.rd_fc1.next = (self.state.q.val() == PlState::Read) & self.phase.q.val();
        if (self.state.q.val() == PlState::Init) | (self.state.q.val() == PlState::Read) {
            if !self.phase.q.val() {
                if !self.sent.q.val() {
                    self.ins_fc0.next = self.cmd.val();
                    self.sent.d.next = !self.idle_fc0.val();
                } else if self.idle_fc0.val() {
                    self.phase.d.next = true;
                    self.sent.d.next = false;
                }
            } else if !self.sent.q.val() {
                self.ins_fc1.next = self.cmd.val();
                self.sent.d.next = !self.idle_fc1.val();
            } else if self.idle_fc1.val() {
                self.state.d.next = PlState::Idle;
            }
        }
        // PL_IDLE: CTRL starts a state (not while flushing).
        if (self.state.q.val() == PlState::Idle) & self.ctrl.val() & !self.flush.q.val().any() {
            if (self.instr.val() == self.i_init.val()) | (self.instr.val() == self.i_read.val()) {
                self.state.d.next = PlState::Init;
                if self.instr.val() == self.i_read.val() {
                    self.state.d.next = PlState::Read;
                }
                self.phase.d.next = false;
                self.sent.d.next = false;
            }
            if (self.instr.val() == self.i_train.val()) | (self.instr.val() == self.i_inf.val()) {
                self.state.d.next = PlState::Train;
                self.n_run.d.next = self.n_train.val();
                if self.instr.val() == self.i_inf.val() {
                    self.state.d.next = PlState::Inf;
                    self.n_run.d.next = self.n_test.val();
                }
                self.run_start.next = true;
                self.cycles.d.next = 0.into();
                self.n_conv.d.next = 0.into();
                self.n_fc0.d.next = 0.into();
                self.n_fc1.d.next = 0.into();
            }
        }
        // PL_TRAIN / PL_INF: a core starts an image when its input is whole, told until FIN.
        self.go_conv.next = self.to_conv.val()
            & self.idle_conv.val()
            & (self.n_conv.q.val() != self.n_run.q.val())
            & (self.in_count.val() >= self.c_img_beats.val())
            & (self.mid_count.val() <= self.c_conv_room.val());
        self.start_fc0.next = self.to_conv.val()
            & self.idle_fc0.val()
            & (self.n_fc0.q.val() != self.n_run.q.val())
            & self.mid_packets.val().any();
        self.start_fc1.next = self.to_conv.val()
            & self.idle_fc1.val()
            & (self.n_fc1.q.val() != self.n_run.q.val())
            & self.out_packets.val().any();
        if self.to_conv.val() {
            self.cycles.d.next = self.cycles.q.val() + self.one32.val();
            if self.go_conv.val()
                | (!self.idle_conv.val() & (self.conv_state.val() != self.s_fin_conv.val()))
            {
                self.ins_conv.next = self.cmd.val();
            }
            if self.start_fc0.val()
                | (!self.idle_fc0.val() & (self.fc0_state.val() != self.s_fin_fc.val()))
            {
                self.ins_fc0.next = self.cmd.val();
            }
            if self.start_fc1.val()
                | (!self.idle_fc1.val() & (self.fc1_state.val() != self.s_fin_fc.val()))
            {
                self.ins_fc1.next = self.cmd.val();
            }
            self.n_conv.d.next = self.n_conv.q.val() + bit_cast::<32, 1>(self.go_conv.val().into());
            self.n_fc0.d.next = self.n_fc0.q.val() + bit_cast::<32, 1>(self.start_fc0.val().into());
            self.n_fc1.d.next = self.n_fc1.q.val() + bit_cast::<32, 1>(self.start_fc1.val().into());
            if (self.n_conv.q.val() == self.n_run.q.val())
                & (self.n_fc0.q.val() == self.n_run.q.val())
                & (self.n_fc1.q.val() == self.n_run.q.val())
                & (self.results0.val() == self.n_run.q.val())
                & (self.results1.val() == self.n_run.q.val())
                & self.idle_conv.val()
                & self.idle_fc0.val()
                & self.idle_fc1.val()
            {
                self.state.d.next = PlState::Idle;
            }
        }
        // I_STOP: every core stops for a cycle, then FLUSH_CYCLES of flush (the module doc).
        self.stop_q.d.next = false;
        if self.ctrl.val() & (self.instr.val() == self.i_stop.val()) {
            self.state.d.next = PlState::Idle;
            self.stop_q.d.next = true;
            self.flush.d.next = self.c_flush.val();
        } else if self.flush.q.val().any() {
            self.flush.d.next = self.flush.q.val() - self.one6.val();
        }
        if self.stop_q.q.val() {
            self.ins_conv.next = self.i_stop.val();
            self.ins_fc0.next = self.i_stop.val();
            self.ins_fc1.next = self.i_stop.val();
        }
        if self.reset.val() {
            self.state.d.next = PlState::Idle;
            self.phase.d.next = false;
            self.sent.d.next = false;
            self.flush.d.next = 0.into();
            self.stop_q.d.next = false;
            self.n_run.d.next = 0.into();
            self.cycles.d.next = 0.into();
            self.n_conv.d.next = 0.into();
            self.n_fc0.d.next = 0.into();
            self.n_fc1.d.next = 0.into();
        }
        self.code.next = 0.into();
        match self.state.q.val() {
            PlState::Idle => {}
            PlState::Init => self.code.next = 1.into(),
            PlState::Train => self.code.next = 2.into(),
            PlState::Inf => self.code.next = 3.into(),
            PlState::Read => self.code.next = 4.into(),
        }
        self.flushing.next = self.flush.q.val().any();
        self.run_cycles.next = self.cycles.q.val();
        self.conv_n.next = self.n_conv.q.val();
        self.fc0_n.next = self.n_fc0.q.val();
        self.fc1_n.next = self.n_fc1.q.val();
    }
}

crate::dut_io! {
    impl[] PlFsm {
        clock: yes,
        inputs: [
            reset, ctrl, instr, n_train, n_test, conv_state, fc0_state, fc1_state, in_count,
            mid_count, mid_packets, out_packets, results0, results1,
        ],
        outputs: [
            code, flushing, ins_conv, ins_fc0, ins_fc1, to_conv, to_fc0, to_fc1, rd_fc0, rd_fc1,
            start_fc0, start_fc1, run_start, run_cycles, conv_n, fc0_n, fc1_n,
        ],
        notes: [],
    }
}

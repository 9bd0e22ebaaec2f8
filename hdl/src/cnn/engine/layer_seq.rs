//! LayerSeq: the CNN engine's layer sequencer (docs/cnn-engine-rtl.md "Organisation",
//! "Host port"): started by the host, it runs `nlayers` layers from their registers, each
//! LOAD (one cycle: the layer's registers into the configuration), RUN (the gather and the
//! MAC) and DRAIN (nine cycles: the MAC pipeline empties into the data memory), counts the
//! cycles of the run and of every layer, and raises `done`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: IDLE, layer 0, cycles 0, `done` low |
//! | `start` | in | 1 | the host starts a run (taken in IDLE) |
//! | `nlayers` | in | 6 | layers to run (1..32) |
//! | `layer_end` | in | 1 | the MAC issues the layer's last channel |
//! | `lc_raddr` | in | 5 | layer whose cycle count `lc_rdata` shows (one edge later) |
//! | `state` | out | 2 | [`SeqState`] as its index: 0 IDLE, 1 LOAD, 2 RUN, 3 DRAIN |
//! | `busy` | out | 1 | not IDLE |
//! | `load` | out | 1 | LOAD |
//! | `run` | out | 1 | RUN |
//! | `cfg_load` | out | 1 | the cycle after LOAD (the configuration registers hold the layer) |
//! | `layer` | out | 5 | the running (or last) layer |
//! | `next_layer` | out | 5 | the layer whose registers are read this cycle for the next LOAD |
//! | `done` | out | 1 | the run has finished (until the next start) |
//! | `layer_done` | out | 1 | one cycle after each layer's last write |
//! | `cycles` | out | 32 | cycles since the start (counting while not IDLE) |
//! | `lc_rdata` | out | 32 | the cycles of layer `lc_raddr` in the last run |
//!
//! A layer's cycles run from its LOAD to the end of its DRAIN, inclusive; `layer_done` and
//! the next LOAD follow at once. Cycle model: `edgelearn_verif::cnn::engine::layer_cycles`.
//! Golden: `edgelearn_verif::golden::cnn_engine::Sequencer`, and that model (the benches
//! compare every layer's count). Tests: `tests/cnn_engine_blocks.rs` (registered as
//! `cnn_layer_seq`), `tests/cnn_rtl.rs`.

use crate::design::{join_path, HasMemories, MemoryAccess};
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// Cycles of DRAIN after the layer's last MAC issue, minus one.
pub const DRAIN_COUNT: u64 = 8;

crate::fsm_states! {
    /// The sequencer's states.
    pub enum SeqState {
        /// Waiting for the host.
        Idle = "IDLE",
        /// Loading the layer's registers (one cycle).
        Load = "LOAD",
        /// Gather and MAC.
        Run = "RUN",
        /// The MAC pipeline empties.
        Drain = "DRAIN",
    }
    arcs {
        // One LOAD, RUN, DRAIN per layer; after the last layer's DRAIN, IDLE.
        Idle => [Load],
        Load => [Run],
        Run => [Drain],
        Drain => [Load, Idle],
    }
}

/// The layer sequencer.
#[derive(Clone, Debug, LogicBlock)]
pub struct LayerSeq {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Start a run.
    pub start: Signal<In, Bit>,
    /// Layers to run.
    pub nlayers: Signal<In, Bits<6>>,
    /// The layer's last MAC issue.
    pub layer_end: Signal<In, Bit>,
    /// Layer whose cycle count is read.
    pub lc_raddr: Signal<In, Bits<5>>,
    /// State index.
    pub state: Signal<Out, Bits<2>>,
    /// Not IDLE.
    pub busy: Signal<Out, Bit>,
    /// LOAD.
    pub load: Signal<Out, Bit>,
    /// RUN.
    pub run: Signal<Out, Bit>,
    /// The cycle after LOAD.
    pub cfg_load: Signal<Out, Bit>,
    /// The running layer.
    pub layer: Signal<Out, Bits<5>>,
    /// The layer whose registers are read for the next LOAD.
    pub next_layer: Signal<Out, Bits<5>>,
    /// The run has finished.
    pub done: Signal<Out, Bit>,
    /// A layer has finished.
    pub layer_done: Signal<Out, Bit>,
    /// Cycles of the run.
    pub cycles: Signal<Out, Bits<32>>,
    /// Cycles of layer `lc_raddr`.
    pub lc_rdata: Signal<Out, Bits<32>>,
    fsm: DFF<SeqState>,
    layer_q: DFF<Bits<5>>,
    cnt: DFF<Bits<4>>,
    cycles_q: DFF<Bits<32>>,
    lstart: DFF<Bits<32>>,
    done_q: DFF<Bit>,
    layer_done_q: DFF<Bit>,
    loaded: DFF<Bit>,
    lcycles: SdpRam<5, 32>,
    last_layer: Signal<Local, Bit>,
    drain_count: Constant<Bits<4>>,
    one6: Constant<Bits<6>>,
    st_load: Constant<Bits<2>>,
    st_run: Constant<Bits<2>>,
    st_drain: Constant<Bits<2>>,
}

impl Default for LayerSeq {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            nlayers: Default::default(),
            layer_end: Default::default(),
            lc_raddr: Default::default(),
            state: Default::default(),
            busy: Default::default(),
            load: Default::default(),
            run: Default::default(),
            cfg_load: Default::default(),
            layer: Default::default(),
            next_layer: Default::default(),
            done: Default::default(),
            layer_done: Default::default(),
            cycles: Default::default(),
            lc_rdata: Default::default(),
            fsm: Default::default(),
            layer_q: Default::default(),
            cnt: Default::default(),
            cycles_q: Default::default(),
            lstart: Default::default(),
            done_q: Default::default(),
            layer_done_q: Default::default(),
            loaded: Default::default(),
            lcycles: SdpRam::new(32),
            last_layer: Default::default(),
            drain_count: Constant::new(DRAIN_COUNT.into()),
            one6: Constant::new(1u64.into()),
            st_load: Constant::new(1u64.into()),
            st_run: Constant::new(2u64.into()),
            st_drain: Constant::new(3u64.into()),
        }
    }
}

impl Logic for LayerSeq {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            fsm,
            layer_q,
            cnt,
            cycles_q,
            lstart,
            done_q,
            layer_done_q,
            loaded
        );
        self.lcycles.clock.next = self.clock.val();
        self.lcycles.read_address.next = self.lc_raddr.val();
        self.lcycles.write_enable.next = false;
        self.lcycles.write_address.next = self.layer_q.q.val();
        self.lcycles.write_data.next = self.cycles_q.q.val() - self.lstart.q.val() + 1;
        self.layer_done_q.d.next = false;
        self.loaded.d.next = false;
        self.last_layer.next =
            bit_cast::<6, 5>(self.layer_q.q.val()) == self.nlayers.val() - self.one6.val();
        self.next_layer.next = self.layer_q.q.val();
        self.state.next = 0.into();
        if self.fsm.q.val() != SeqState::Idle {
            self.cycles_q.d.next = self.cycles_q.q.val() + 1;
        }
        match self.fsm.q.val() {
            SeqState::Idle => {
                self.next_layer.next = 0.into();
                if self.start.val() {
                    self.fsm.d.next = SeqState::Load;
                    self.layer_q.d.next = 0.into();
                    self.done_q.d.next = false;
                    self.cycles_q.d.next = 0.into();
                }
            }
            SeqState::Load => {
                self.state.next = self.st_load.val();
                self.lstart.d.next = self.cycles_q.q.val();
                self.loaded.d.next = true;
                self.fsm.d.next = SeqState::Run;
            }
            SeqState::Run => {
                self.state.next = self.st_run.val();
                if self.layer_end.val() {
                    self.fsm.d.next = SeqState::Drain;
                    self.cnt.d.next = self.drain_count.val();
                }
            }
            SeqState::Drain => {
                self.state.next = self.st_drain.val();
                self.next_layer.next = self.layer_q.q.val() + 1;
                if self.cnt.q.val() == 0 {
                    self.lcycles.write_enable.next = true;
                    self.layer_done_q.d.next = true;
                    if self.last_layer.val() {
                        self.fsm.d.next = SeqState::Idle;
                        self.done_q.d.next = true;
                    } else {
                        self.layer_q.d.next = self.layer_q.q.val() + 1;
                        self.fsm.d.next = SeqState::Load;
                    }
                } else {
                    self.cnt.d.next = self.cnt.q.val() - 1;
                }
            }
            _ => {
                self.fsm.d.next = SeqState::Idle;
            }
        }
        if self.reset.val() {
            self.fsm.d.next = SeqState::Idle;
            self.done_q.d.next = false;
            self.layer_q.d.next = 0.into();
            self.cycles_q.d.next = 0.into();
            self.layer_done_q.d.next = false;
            self.loaded.d.next = false;
        }
        self.busy.next = self.fsm.q.val() != SeqState::Idle;
        self.load.next = self.fsm.q.val() == SeqState::Load;
        self.run.next = self.fsm.q.val() == SeqState::Run;
        self.cfg_load.next = self.loaded.q.val();
        self.layer.next = self.layer_q.q.val();
        self.done.next = self.done_q.q.val();
        self.layer_done.next = self.layer_done_q.q.val();
        self.cycles.next = self.cycles_q.q.val();
        self.lc_rdata.next = self.lcycles.read_data.val();
    }
}

impl HasMemories for LayerSeq {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.lcycles.visit_memories(&join_path(path, "lcycles"), f);
    }
}

crate::dut_io! {
    impl[] LayerSeq {
        clock: yes,
        inputs: [reset, start, nlayers, layer_end, lc_raddr],
        outputs: [
            state, busy, load, run, cfg_load, layer, next_layer, done, layer_done, cycles,
            lc_rdata
        ],
        notes: [],
        memories: [lcycles],
    }
}

//! LayerSeq: the CNN engine's layer sequencer (docs/cnn-engine-rtl.md "Organisation",
//! "Host port"): started by the host, it runs `nlayers` layers from their registers, each
//! LOAD (one cycle: the layer's registers into the configuration), RUN (the gather and the
//! MAC) and DRAIN (nine cycles: the MAC pipeline empties into the data memory), counts the
//! cycles of the run and of every layer, and raises `done`.
//!
//! Streaming (`stream_layers` > 0, docs/cnn-engine-rtl.md "Streaming"): the run starts
//! with the schedule. Per entry, FETCH (its address), WAIT (its words: until the FIFOs have
//! brought `need` input rows), then LOAD, RUN and DRAIN of the entry's layer over its rows
//! (`slice`); the entry marked END is the last, and the layers after the streaming ones run
//! whole, in order. A streaming layer's cycle count is the sum of its slices'.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: IDLE, layer 0, cycles 0, `done` low |
//! | `start` | in | 1 | the host starts a run (taken in IDLE) |
//! | `nlayers` | in | 6 | layers to run (1..32) |
//! | `layer_end` | in | 1 | the MAC issues the layer's last channel |
//! | `lc_raddr` | in | 5 | layer whose cycle count `lc_rdata` shows (one edge later) |
//! | `stream_layers` | in | 4 | streaming layers (0: none) |
//! | `sched_w0`, `sched_w1`, `sched_w2` | in | 32 each | the schedule entry at `sched_addr` (one edge later) |
//! | `fifo_rows` | in | 11 | input rows the FIFOs have brought |
//! | `state` | out | 3 | [`SeqState`] as its index: 0 IDLE, 1 LOAD, 2 RUN, 3 DRAIN, 4 FETCH, 5 WAIT |
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
//! | `sched_addr` | out | 11 | the schedule entry read |
//! | `slice` | out | 1 | the running layer runs the rows of a schedule entry |
//! | `row_first`, `row_last`, `pix_first` | out | 10, 10, 20 | the entry's rows and its first pixel |
//! | `allow` | out | 11 | input rows the FIFOs may have written (the line buffers' room) |
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
/// Streaming layers at most (spec §2.10).
pub const MAX_STREAM_LAYERS: usize = 8;

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
        /// Reading a schedule entry.
        Fetch = "FETCH",
        /// Waiting for the entry's input rows.
        Wait = "WAIT",
    }
    arcs {
        // One LOAD, RUN, DRAIN per layer or schedule entry; after the last layer's DRAIN,
        // IDLE. A streaming run fetches an entry and waits for its input first.
        Idle => [Load, Fetch],
        Load => [Run],
        Run => [Drain],
        Drain => [Load, Idle, Fetch],
        Fetch => [Wait],
        Wait => [Load],
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
    /// Streaming layers.
    pub stream_layers: Signal<In, Bits<4>>,
    /// Schedule entry, word 0.
    pub sched_w0: Signal<In, Bits<32>>,
    /// Schedule entry, word 1.
    pub sched_w1: Signal<In, Bits<32>>,
    /// Schedule entry, word 2.
    pub sched_w2: Signal<In, Bits<32>>,
    /// Input rows the FIFOs have brought.
    pub fifo_rows: Signal<In, Bits<11>>,
    /// State index.
    pub state: Signal<Out, Bits<3>>,
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
    /// Schedule entry read.
    pub sched_addr: Signal<Out, Bits<11>>,
    /// The running layer runs a schedule entry's rows.
    pub slice: Signal<Out, Bit>,
    /// The entry's first row.
    pub row_first: Signal<Out, Bits<10>>,
    /// The entry's last row.
    pub row_last: Signal<Out, Bits<10>>,
    /// The entry's first pixel.
    pub pix_first: Signal<Out, Bits<20>>,
    /// Input rows the FIFOs may have written.
    pub allow: Signal<Out, Bits<11>>,
    fsm: DFF<SeqState>,
    sched_q: DFF<Bits<11>>,
    slice_q: DFF<Bit>,
    w0_q: DFF<Bits<32>>,
    w1_q: DFF<Bits<32>>,
    w2_q: DFF<Bits<32>>,
    lacc: [DFF<Bits<32>>; MAX_STREAM_LAYERS],
    lacc_now: Signal<Local, Bits<32>>,
    slice_cycles: Signal<Local, Bits<32>>,
    stream_index: [Constant<Bits<5>>; MAX_STREAM_LAYERS],
    layer_q: DFF<Bits<5>>,
    cnt: DFF<Bits<4>>,
    cycles_q: DFF<Bits<32>>,
    lstart: DFF<Bits<32>>,
    done_q: DFF<Bit>,
    layer_done_q: DFF<Bit>,
    loaded: DFF<Bit>,
    lcycles: SdpRam<5, 32>,
    last_layer: Signal<Local, Bit>,
    stream_all: Signal<Local, Bit>,
    drain_count: Constant<Bits<4>>,
    one6: Constant<Bits<6>>,
    st_load: Constant<Bits<3>>,
    st_run: Constant<Bits<3>>,
    st_drain: Constant<Bits<3>>,
    st_fetch: Constant<Bits<3>>,
    st_wait: Constant<Bits<3>>,
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
            stream_layers: Default::default(),
            sched_w0: Default::default(),
            sched_w1: Default::default(),
            sched_w2: Default::default(),
            fifo_rows: Default::default(),
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
            sched_addr: Default::default(),
            slice: Default::default(),
            row_first: Default::default(),
            row_last: Default::default(),
            pix_first: Default::default(),
            allow: Default::default(),
            fsm: Default::default(),
            sched_q: Default::default(),
            slice_q: Default::default(),
            w0_q: Default::default(),
            w1_q: Default::default(),
            w2_q: Default::default(),
            lacc: Default::default(),
            lacc_now: Default::default(),
            slice_cycles: Default::default(),
            stream_index: array_init::array_init(|k| Constant::new((k as u64).into())),
            layer_q: Default::default(),
            cnt: Default::default(),
            cycles_q: Default::default(),
            lstart: Default::default(),
            done_q: Default::default(),
            layer_done_q: Default::default(),
            loaded: Default::default(),
            lcycles: SdpRam::new(32),
            last_layer: Default::default(),
            stream_all: Default::default(),
            drain_count: Constant::new(DRAIN_COUNT.into()),
            one6: Constant::new(1u64.into()),
            st_load: Constant::new(1u64.into()),
            st_run: Constant::new(2u64.into()),
            st_drain: Constant::new(3u64.into()),
            st_fetch: Constant::new(4u64.into()),
            st_wait: Constant::new(5u64.into()),
        }
    }
}

impl Logic for LayerSeq {
    crate::wired_update! {
            // Every plain connection, once (D-HDLGEN); `update` has what is more than a wire.
            wires {
                lcycles.clock <= clock;
                lcycles.read_address <= lc_raddr;
                lcycles.write_address <= layer_q.q;
                cfg_load <= loaded.q;
                layer <= layer_q.q;
                done <= done_q.q;
                layer_done <= layer_done_q.q;
                cycles <= cycles_q.q;
                lc_rdata <= lcycles.read_data;
                sched_addr <= sched_q.q;
                slice <= slice_q.q;
            }
            wires for k in (0..MAX_STREAM_LAYERS) {
                lacc[k].clock <= clock;
            }
            #[hdl_gen]
            fn update(&mut self) {
            dff_setup!(self, clock, fsm, layer_q, cnt, cycles_q, lstart);
            dff_setup!(self, clock, done_q, layer_done_q, loaded, sched_q);
            dff_setup!(self, clock, slice_q, w0_q, w1_q, w2_q);
            for k in 0..MAX_STREAM_LAYERS {
                self.lacc[k].d.next = self.lacc[k].q.val();
            }
            self.lcycles.write_enable.next = false;
            // A slice adds its cycles to its layer's.
            self.lacc_now.next = 0.into();
            for k in 0..MAX_STREAM_LAYERS {
                if self.slice_q.q.val() & (self.layer_q.q.val() == self.stream_index[k].val()) {
                    self.lacc_now.next = self.lacc[k].q.val();
                }
            }
            self.slice_cycles.next =
                self.lacc_now.val() + self.cycles_q.q.val() - self.lstart.q.val() + 1;
            self.lcycles.write_data.next = self.slice_cycles.val();
            self.layer_done_q.d.next = false;
            self.loaded.d.next = false;
            self.last_layer.next =
                bit_cast::<6, 5>(self.layer_q.q.val()) == self.nlayers.val() - self.one6.val();
            self.stream_all.next = bit_cast::<6, 4>(self.stream_layers.val()) == self.nlayers.val();
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
                        self.slice_q.d.next = false;
                        self.sched_q.d.next = 0.into();
                        self.w1_q.d.next = 0.into();
                        for k in 0..MAX_STREAM_LAYERS {
                            self.lacc[k].d.next = 0.into();
                        }
                        if self.stream_layers.val() != 0 {
                            self.fsm.d.next = SeqState::Fetch;
                            self.slice_q.d.next = true;
                        }
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
                SeqState::Fetch => {
                    self.state.next = self.st_fetch.val();
                    self.fsm.d.next = SeqState::Wait;
                }
                SeqState::Wait => {
                    // The entry (kept while it runs); its layer's registers are read for LOAD.
                    self.state.next = self.st_wait.val();
                    self.next_layer.next = bit_cast::<5, 3>(self.sched_w0.val().get_bits::<3>(20));
                    self.layer_q.d.next = bit_cast::<5, 3>(self.sched_w0.val().get_bits::<3>(20));
                    self.w0_q.d.next = self.sched_w0.val();
                    self.w1_q.d.next = self.sched_w1.val();
                    self.w2_q.d.next = self.sched_w2.val();
                    if self.fifo_rows.val() >= self.sched_w1.val().get_bits::<11>(0) {
                        self.fsm.d.next = SeqState::Load;
                    }
                }
                SeqState::Drain => {
                    self.state.next = self.st_drain.val();
                    self.next_layer.next = self.layer_q.q.val() + 1;
                    if self.slice_q.q.val() {
                        self.next_layer.next = bit_cast::<5, 4>(self.stream_layers.val());
                    }
                    if self.cnt.q.val() == 0 {
                        self.lcycles.write_enable.next = true;
                        self.layer_done_q.d.next = true;
                        for k in 0..MAX_STREAM_LAYERS {
                            if self.slice_q.q.val()
                                & (self.layer_q.q.val() == self.stream_index[k].val())
                            {
                                self.lacc[k].d.next = self.slice_cycles.val();
                            }
                        }
                        if self.slice_q.q.val() {
                            if !self.w0_q.q.val().get_bit(31) {
                                self.sched_q.d.next = self.sched_q.q.val() + 1;
                                self.fsm.d.next = SeqState::Fetch;
                            } else if bit_cast::<6, 4>(self.stream_layers.val()) == self.nlayers.val() {
                                self.fsm.d.next = SeqState::Idle;
                                self.done_q.d.next = true;
                            } else {
                                self.slice_q.d.next = false;
                                self.layer_q.d.next = bit_cast::<5, 4>(self.stream_layers.val());
                                self.fsm.d.next = SeqState::Load;
                            }
                        } else if self.last_layer.val() {
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
                self.slice_q.d.next = false;
                self.w1_q.d.next = 0.into();
            }
            self.busy.next = self.fsm.q.val() != SeqState::Idle;
            self.load.next = self.fsm.q.val() == SeqState::Load;
            self.run.next = self.fsm.q.val() == SeqState::Run;
            self.row_first.next = 0.into();
            self.pix_first.next = 0.into();
            if self.slice_q.q.val() {
                self.row_first.next = self.w0_q.q.val().get_bits::<10>(0);
                self.pix_first.next = self.w2_q.q.val().get_bits::<20>(0);
            }
            self.row_last.next = self.w0_q.q.val().get_bits::<10>(10);
            self.allow.next = self.w1_q.q.val().get_bits::<11>(16);
        }
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
        inputs: [
            reset, start, nlayers, layer_end, lc_raddr, stream_layers, sched_w0, sched_w1,
            sched_w2, fifo_rows
        ],
        outputs: [
            state, busy, load, run, cfg_load, layer, next_layer, done, layer_done, cycles,
            lc_rdata, sched_addr, slice, row_first, row_last, pix_first, allow
        ],
        notes: [],
        memories: [lcycles],
    }
}

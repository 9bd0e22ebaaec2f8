//! WindowCtl: the handshake of the processors' two windows (D-CNN-RTL "Two windows per
//! processor"): per window, `pend` from the gather's last item of an iteration until its
//! value is in the window three edges later, then `full` until the MAC has issued the
//! iteration's last output channel.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: both windows free, nothing in flight |
//! | `load` | in | 1 | start a layer: both windows free |
//! | `run` | in | 1 | the layer runs (the flags change only then) |
//! | `gather_end` | in | 1 | the gather issues an iteration's last item into window `gather_buf` |
//! | `gather_buf` | in | 1 | the gather's window |
//! | `mac_end` | in | 1 | the MAC issues an iteration's last channel from window `mac_buf` |
//! | `mac_buf` | in | 1 | the MAC's window |
//! | `full` | out | 2 | per window: holds a complete iteration |
//! | `pend` | out | 2 | per window: its iteration's items are issued, the values not yet in |
//!
//! At an edge with `run`: `gather_end` sets `pend[gather_buf]`; the gather end of three
//! edges before (the window complete: issue -> memory -> inner unit -> outer unit -> window)
//! sets `full` and clears `pend` of its window; `mac_end` clears `full[mac_buf]`; later ones
//! win. Latency: a window is full four cycles after its last item was issued.
//! Golden: `edgelearn_verif::golden::cnn_engine::WindowFlags`, and the engine's cycle model
//! (`edgelearn_verif::cnn::engine::layer_cycles`). Tests: `tests/cnn_engine_blocks.rs`
//! (registered as `cnn_window_ctl`), `tests/cnn_rtl.rs` (every layer's cycles).

use rust_hdl::prelude::*;

/// Gather-to-window delay, in edges.
pub const FILL_EDGES: usize = 3;

/// The windows' handshake.
#[derive(Clone, Debug, LogicBlock)]
pub struct WindowCtl {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// Start a layer.
    pub load: Signal<In, Bit>,
    /// The layer runs.
    pub run: Signal<In, Bit>,
    /// The gather's last item of an iteration.
    pub gather_end: Signal<In, Bit>,
    /// The gather's window.
    pub gather_buf: Signal<In, Bit>,
    /// The MAC's last channel of an iteration.
    pub mac_end: Signal<In, Bit>,
    /// The MAC's window.
    pub mac_buf: Signal<In, Bit>,
    /// Windows holding a complete iteration.
    pub full: Signal<Out, Bits<2>>,
    /// Windows being completed.
    pub pend: Signal<Out, Bits<2>>,
    full_q: DFF<Bits<2>>,
    pend_q: DFF<Bits<2>>,
    end1: DFF<Bit>,
    end2: DFF<Bit>,
    end3: DFF<Bit>,
    endb1: DFF<Bit>,
    endb2: DFF<Bit>,
    endb3: DFF<Bit>,
    full_n: Signal<Local, Bits<2>>,
    pend_n: Signal<Local, Bits<2>>,
    bit0: Constant<Bits<2>>,
    bit1: Constant<Bits<2>>,
}

impl Default for WindowCtl {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            run: Default::default(),
            gather_end: Default::default(),
            gather_buf: Default::default(),
            mac_end: Default::default(),
            mac_buf: Default::default(),
            full: Default::default(),
            pend: Default::default(),
            full_q: Default::default(),
            pend_q: Default::default(),
            end1: Default::default(),
            end2: Default::default(),
            end3: Default::default(),
            endb1: Default::default(),
            endb2: Default::default(),
            endb3: Default::default(),
            full_n: Default::default(),
            pend_n: Default::default(),
            bit0: Constant::new(1u64.into()),
            bit1: Constant::new(2u64.into()),
        }
    }
}

impl Logic for WindowCtl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full_q, pend_q, end1, end2, end3, endb1, endb2, endb3);
        self.end1.d.next = self.gather_end.val();
        self.endb1.d.next = self.gather_buf.val();
        self.end2.d.next = self.end1.q.val();
        self.endb2.d.next = self.endb1.q.val();
        self.end3.d.next = self.end2.q.val();
        self.endb3.d.next = self.endb2.q.val();
        self.full_n.next = self.full_q.q.val();
        self.pend_n.next = self.pend_q.q.val();
        if self.gather_end.val() {
            if self.gather_buf.val() {
                self.pend_n.next = self.pend_n.val() | self.bit1.val();
            } else {
                self.pend_n.next = self.pend_n.val() | self.bit0.val();
            }
        }
        if self.end3.q.val() {
            if self.endb3.q.val() {
                self.full_n.next = self.full_n.val() | self.bit1.val();
                self.pend_n.next = self.pend_n.val() & !self.bit1.val();
            } else {
                self.full_n.next = self.full_n.val() | self.bit0.val();
                self.pend_n.next = self.pend_n.val() & !self.bit0.val();
            }
        }
        if self.mac_end.val() {
            if self.mac_buf.val() {
                self.full_n.next = self.full_n.val() & !self.bit1.val();
            } else {
                self.full_n.next = self.full_n.val() & !self.bit0.val();
            }
        }
        if self.run.val() {
            self.full_q.d.next = self.full_n.val();
            self.pend_q.d.next = self.pend_n.val();
        }
        if self.load.val() | self.reset.val() {
            self.full_q.d.next = 0.into();
            self.pend_q.d.next = 0.into();
        }
        if self.reset.val() {
            self.end1.d.next = false;
            self.end2.d.next = false;
            self.end3.d.next = false;
        }
        self.full.next = self.full_q.q.val();
        self.pend.next = self.pend_q.q.val();
    }
}

crate::dut_io! {
    impl[] WindowCtl {
        clock: yes,
        inputs: [reset, load, run, gather_end, gather_buf, mac_end, mac_buf],
        outputs: [full, pend],
        notes: [],
    }
}

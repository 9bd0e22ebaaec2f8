//! MacPipe: what travels with an issued output channel through the MAC pipeline
//! (docs/cnn-engine-rtl.md: issue -> kernel word -> products per processor -> group sums ->
//! total and accumulator -> output stage and write), stages M1 to M4.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: nothing in flight after the next edge |
//! | `issue`, `first`, `last` | in | 1 | M0: a channel issued; the pixel's first / last iteration |
//! | `oc`, `oproc`, `oe`, `opix` | in | 11, 7, 5, 20 | M0: channel, output processor, output pass, output pixel |
//! | `m2_oc` | out | 11 | M2: the channel (accumulator and bias reads) |
//! | `m3_valid`, `m3_first`, `m3_oc` | out | 1, 1, 11 | M3: the accumulator update |
//! | `m4_valid` | out | 1 | M4: a last-iteration channel reaches the output stage |
//! | `m4_proc`, `m4_oe`, `m4_pix` | out | 7, 5, 20 | M4: where it is written |
//!
//! A shift register; latency 2, 3 and 4 edges.
//! Golden: `edgelearn_verif::golden::cnn_engine::MacTags`, and the engine's bench (every
//! layer's output and cycles). Tests: `tests/cnn_engine_blocks.rs` (registered as
//! `cnn_mac_pipe`), `tests/cnn_rtl.rs`.

use rust_hdl::prelude::*;

/// The MAC pipeline's side information.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct MacPipe {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A channel issued.
    pub issue: Signal<In, Bit>,
    /// First iteration of the pixel.
    pub first: Signal<In, Bit>,
    /// Last iteration of the pixel.
    pub last: Signal<In, Bit>,
    /// The channel.
    pub oc: Signal<In, Bits<11>>,
    /// Its output processor.
    pub oproc: Signal<In, Bits<7>>,
    /// Its output pass.
    pub oe: Signal<In, Bits<5>>,
    /// Its output pixel.
    pub opix: Signal<In, Bits<20>>,
    /// M2: channel.
    pub m2_oc: Signal<Out, Bits<11>>,
    /// M3: valid.
    pub m3_valid: Signal<Out, Bit>,
    /// M3: first iteration.
    pub m3_first: Signal<Out, Bit>,
    /// M3: channel.
    pub m3_oc: Signal<Out, Bits<11>>,
    /// M4: a result to write.
    pub m4_valid: Signal<Out, Bit>,
    /// M4: output processor.
    pub m4_proc: Signal<Out, Bits<7>>,
    /// M4: output pass.
    pub m4_oe: Signal<Out, Bits<5>>,
    /// M4: output pixel.
    pub m4_pix: Signal<Out, Bits<20>>,
    m1_valid: DFF<Bit>,
    m2_valid: DFF<Bit>,
    m3_valid_q: DFF<Bit>,
    m4_valid_q: DFF<Bit>,
    m1_first: DFF<Bit>,
    m2_first: DFF<Bit>,
    m3_first_q: DFF<Bit>,
    m1_last: DFF<Bit>,
    m2_last: DFF<Bit>,
    m3_last: DFF<Bit>,
    m1_oc: DFF<Bits<11>>,
    m2_oc_q: DFF<Bits<11>>,
    m3_oc_q: DFF<Bits<11>>,
    m1_proc: DFF<Bits<7>>,
    m2_proc: DFF<Bits<7>>,
    m3_proc: DFF<Bits<7>>,
    m4_proc_q: DFF<Bits<7>>,
    m1_oe: DFF<Bits<5>>,
    m2_oe: DFF<Bits<5>>,
    m3_oe: DFF<Bits<5>>,
    m4_oe_q: DFF<Bits<5>>,
    m1_pix: DFF<Bits<20>>,
    m2_pix: DFF<Bits<20>>,
    m3_pix: DFF<Bits<20>>,
    m4_pix_q: DFF<Bits<20>>,
}

impl Logic for MacPipe {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, m1_valid, m2_valid, m3_valid_q, m4_valid_q, m1_first, m2_first,
            m3_first_q, m1_last, m2_last, m3_last, m1_oc, m2_oc_q, m3_oc_q, m1_proc, m2_proc,
            m3_proc, m4_proc_q, m1_oe, m2_oe, m3_oe, m4_oe_q, m1_pix, m2_pix, m3_pix, m4_pix_q
        );
        self.m1_valid.d.next = self.issue.val() & !self.reset.val();
        self.m1_first.d.next = self.first.val();
        self.m1_last.d.next = self.last.val();
        self.m1_oc.d.next = self.oc.val();
        self.m1_proc.d.next = self.oproc.val();
        self.m1_oe.d.next = self.oe.val();
        self.m1_pix.d.next = self.opix.val();
        self.m2_valid.d.next = self.m1_valid.q.val();
        self.m2_first.d.next = self.m1_first.q.val();
        self.m2_last.d.next = self.m1_last.q.val();
        self.m2_oc_q.d.next = self.m1_oc.q.val();
        self.m2_proc.d.next = self.m1_proc.q.val();
        self.m2_oe.d.next = self.m1_oe.q.val();
        self.m2_pix.d.next = self.m1_pix.q.val();
        self.m3_valid_q.d.next = self.m2_valid.q.val();
        self.m3_first_q.d.next = self.m2_first.q.val();
        self.m3_last.d.next = self.m2_last.q.val();
        self.m3_oc_q.d.next = self.m2_oc_q.q.val();
        self.m3_proc.d.next = self.m2_proc.q.val();
        self.m3_oe.d.next = self.m2_oe.q.val();
        self.m3_pix.d.next = self.m2_pix.q.val();
        self.m4_valid_q.d.next = self.m3_valid_q.q.val() & self.m3_last.q.val();
        self.m4_proc_q.d.next = self.m3_proc.q.val();
        self.m4_oe_q.d.next = self.m3_oe.q.val();
        self.m4_pix_q.d.next = self.m3_pix.q.val();
        self.m2_oc.next = self.m2_oc_q.q.val();
        self.m3_valid.next = self.m3_valid_q.q.val();
        self.m3_first.next = self.m3_first_q.q.val();
        self.m3_oc.next = self.m3_oc_q.q.val();
        self.m4_valid.next = self.m4_valid_q.q.val();
        self.m4_proc.next = self.m4_proc_q.q.val();
        self.m4_oe.next = self.m4_oe_q.q.val();
        self.m4_pix.next = self.m4_pix_q.q.val();
    }
}

crate::dut_io! {
    impl[] MacPipe {
        clock: yes,
        inputs: [reset, issue, first, last, oc, oproc, oe, opix],
        outputs: [m2_oc, m3_valid, m3_first, m3_oc, m4_valid, m4_proc, m4_oe, m4_pix],
        notes: [],
    }
}

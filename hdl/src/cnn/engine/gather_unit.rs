//! GatherUnit: the gather side of one CNN-engine processor (spec max78000-cnn-engine.md
//! §1.17, §2; docs/cnn-engine-rtl.md "What happens per cycle"): its two reduction units
//! (pooling, element-wise) fed one data-memory byte per gather item, the average's division,
//! and its two windows. The half of a [`super::processor::Processor`] that a quad's gather
//! gate clocks (D-SIM-GATE: it sleeps between the gather's bursts while the MAC side works).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock (the gather gate's in the in-process Verilator model) |
//! | `en` | in | 1 | the layer uses this processor (else its values are 0) |
//! | `data` | in | 8 | its byte of the data-memory word read for the item at G1 |
//! | `inner_op`, `outer_op` | in | 3 | the two units' operations ([`super::reduce::op`]) |
//! | `avg_round`, `avg_d`, `avg_m`, `avg_sh` | in | 1, 9, 18, 5 | the average's rounding, divisor, magic multiplier and shift |
//! | `pool_first` | in | 1 | the inner unit pools (it takes the division), else the outer |
//! | `g_valid` | in | 1 | an item at G1 |
//! | `g_pad` | in | 1 | the item is a tap in the padding (value 0) |
//! | `g_ifirst`, `g_ilast` | in | 1 | it starts / ends a sequence of the inner unit |
//! | `g_ofirst`, `g_olast` | in | 1 | it starts / ends a sequence of the outer unit |
//! | `g_tap` | in | 4 | the window tap it fills |
//! | `g_buf` | in | 1 | the window it fills |
//! | `g_slide` | in | 1 | the item starts a sliding iteration: the window slides when it reaches the window stage (D-CNN-SLIDE) |
//! | `g_slide_same` | in | 1 | the slide's source is the window it fills (two passes), else the other |
//! | `m_buf` | in | 1 | the window read (the MAC's, M1) |
//! | `window` | out | 72 | the taps of window `m_buf` (combinational, [`WindowBuf`]) |
//!
//! The item's value (`data`, or 0 for padding and unused processors) goes through the inner
//! unit (latency 1) and the outer unit (latency 1) into the window (one [`AvgDiv`] serves the
//! unit that pools): the window value of a tap is written three edges after its last item
//! (G1 -> inner -> outer -> window). A sliding item's slide ([`WindowBuf`]) takes effect at
//! the same stage, so it follows every write of the iteration before and precedes those of
//! its own. With no valid item for three edges nothing here changes.
//! Golden: the gather half of `edgelearn_verif::golden::cnn_engine::ProcessorModel` (over
//! `Reduce`, `avg_div` and `WindowPair`). Tests: `tests/cnn_engine_blocks.rs` (through
//! `cnn_processor`), `tests/cnn_rtl.rs`.

use super::avg_div::AvgDiv;
use super::reduce::Reduce;
use super::window_buf::WindowBuf;
use rust_hdl::prelude::*;

/// The gather side of a processor.
#[derive(Clone, Debug, LogicBlock)]
pub struct GatherUnit {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The layer uses this processor.
    pub en: Signal<In, Bit>,
    /// Its byte of the word read.
    pub data: Signal<In, Bits<8>>,
    /// Inner unit's operation.
    pub inner_op: Signal<In, Bits<3>>,
    /// Outer unit's operation.
    pub outer_op: Signal<In, Bits<3>>,
    /// Average: round half away from zero.
    pub avg_round: Signal<In, Bit>,
    /// Average: divisor.
    pub avg_d: Signal<In, Bits<9>>,
    /// Average: magic multiplier.
    pub avg_m: Signal<In, Bits<18>>,
    /// Average: shift.
    pub avg_sh: Signal<In, Bits<5>>,
    /// The inner unit pools (else the outer one).
    pub pool_first: Signal<In, Bit>,
    /// An item at G1.
    pub g_valid: Signal<In, Bit>,
    /// The item is padding.
    pub g_pad: Signal<In, Bit>,
    /// Starts an inner sequence.
    pub g_ifirst: Signal<In, Bit>,
    /// Ends an inner sequence.
    pub g_ilast: Signal<In, Bit>,
    /// Starts an outer sequence.
    pub g_ofirst: Signal<In, Bit>,
    /// Ends an outer sequence.
    pub g_olast: Signal<In, Bit>,
    /// The tap it fills.
    pub g_tap: Signal<In, Bits<4>>,
    /// The window it fills.
    pub g_buf: Signal<In, Bit>,
    /// The item starts a sliding iteration.
    pub g_slide: Signal<In, Bit>,
    /// The slide's source is the window it fills.
    pub g_slide_same: Signal<In, Bit>,
    /// The window read.
    pub m_buf: Signal<In, Bit>,
    /// The taps of the window read.
    pub window: Signal<Out, Bits<72>>,
    inner: Reduce,
    outer: Reduce,
    div: AvgDiv,
    win: WindowBuf,
    a_ofirst: DFF<Bit>,
    a_olast: DFF<Bit>,
    a_tap: DFF<Bits<4>>,
    a_buf: DFF<Bit>,
    b_tap: DFF<Bits<4>>,
    b_buf: DFF<Bit>,
    a_slide: DFF<Bit>,
    b_slide: DFF<Bit>,
    b_sbuf: DFF<Bit>,
    a_same: DFF<Bit>,
    b_same: DFF<Bit>,
    value: Signal<Local, Bits<18>>,
    inner_value: Signal<Local, Bits<18>>,
    sign8: Constant<Bits<8>>,
    ext18: Constant<Bits<18>>,
}

impl Default for GatherUnit {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            en: Default::default(),
            data: Default::default(),
            inner_op: Default::default(),
            outer_op: Default::default(),
            avg_round: Default::default(),
            avg_d: Default::default(),
            avg_m: Default::default(),
            avg_sh: Default::default(),
            pool_first: Default::default(),
            g_valid: Default::default(),
            g_pad: Default::default(),
            g_ifirst: Default::default(),
            g_ilast: Default::default(),
            g_ofirst: Default::default(),
            g_olast: Default::default(),
            g_tap: Default::default(),
            g_buf: Default::default(),
            g_slide: Default::default(),
            g_slide_same: Default::default(),
            m_buf: Default::default(),
            window: Default::default(),
            inner: Default::default(),
            outer: Default::default(),
            div: Default::default(),
            win: Default::default(),
            a_ofirst: Default::default(),
            a_olast: Default::default(),
            a_tap: Default::default(),
            a_buf: Default::default(),
            b_tap: Default::default(),
            b_buf: Default::default(),
            a_slide: Default::default(),
            b_slide: Default::default(),
            b_sbuf: Default::default(),
            a_same: Default::default(),
            b_same: Default::default(),
            value: Default::default(),
            inner_value: Default::default(),
            sign8: Constant::new(0x80u64.into()),
            ext18: Constant::new(0x3ff00u64.into()),
        }
    }
}

impl Logic for GatherUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, a_ofirst, a_olast, a_tap, a_buf, b_tap, b_buf, a_slide, b_slide, b_sbuf,
            a_same, b_same
        );
        // G1: the item's value, 0 for padding and for a processor the layer does not use.
        self.value.next = 0.into();
        if !self.g_pad.val() & self.en.val() {
            self.value.next = bit_cast::<18, 8>(self.data.val());
            if (self.data.val() & self.sign8.val()).any() {
                self.value.next = bit_cast::<18, 8>(self.data.val()) | self.ext18.val();
            }
        }
        // The average's division, for the unit that pools.
        self.div.round.next = self.avg_round.val();
        self.div.d.next = self.avg_d.val();
        self.div.m.next = self.avg_m.val();
        self.div.sh.next = self.avg_sh.val();
        if self.pool_first.val() {
            self.div.value.next = self.inner.sum.val();
        } else {
            self.div.value.next = self.outer.sum.val();
        }
        self.inner.clock.next = self.clock.val();
        self.inner.op.next = self.inner_op.val();
        self.inner.avg.next = self.div.avg.val();
        self.inner.valid.next = self.g_valid.val();
        self.inner.first.next = self.g_ifirst.val();
        self.inner.last.next = self.g_ilast.val();
        self.inner.value.next = self.value.val();
        // G2: the outer unit takes the inner unit's results.
        self.a_ofirst.d.next = self.g_ofirst.val();
        self.a_olast.d.next = self.g_olast.val();
        self.a_tap.d.next = self.g_tap.val();
        self.a_buf.d.next = self.g_buf.val();
        self.a_slide.d.next = self.g_slide.val() & self.g_valid.val();
        self.a_same.d.next = self.g_slide_same.val();
        self.inner_value.next = bit_cast::<18, 8>(self.inner.result.val());
        if (self.inner.result.val() & self.sign8.val()).any() {
            self.inner_value.next = bit_cast::<18, 8>(self.inner.result.val()) | self.ext18.val();
        }
        self.outer.clock.next = self.clock.val();
        self.outer.op.next = self.outer_op.val();
        self.outer.avg.next = self.div.avg.val();
        self.outer.valid.next = self.inner.out_valid.val();
        self.outer.first.next = self.a_ofirst.q.val();
        self.outer.last.next = self.a_olast.q.val();
        self.outer.value.next = self.inner_value.val();
        if self.inner.out_valid.val() {
            self.b_tap.d.next = self.a_tap.q.val();
            self.b_buf.d.next = self.a_buf.q.val();
        }
        self.b_slide.d.next = self.a_slide.q.val();
        self.b_sbuf.d.next = self.a_buf.q.val();
        self.b_same.d.next = self.a_same.q.val();
        // G3: the window (a slide's window is its item's; a write at that edge is the item's own).
        self.win.clock.next = self.clock.val();
        self.win.write.next = self.outer.out_valid.val();
        self.win.slide.next = self.b_slide.q.val();
        self.win.slide_same.next = self.b_same.q.val();
        self.win.write_buf.next = self.b_buf.q.val();
        if self.b_slide.q.val() {
            self.win.write_buf.next = self.b_sbuf.q.val();
        }
        self.win.tap.next = self.b_tap.q.val();
        self.win.value.next = self.outer.result.val();
        self.win.read_buf.next = self.m_buf.val();
        self.window.next = self.win.window.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_unit_is_synthesizable() {
        crate::synth_check::assert_synthesizable("gather_unit", GatherUnit::default());
    }
}

//! WindowBuf: a processor's two windows of up to nine values (docs/cnn-engine-rtl.md "What
//! happens per cycle"; D-CNN-RTL "Two windows per processor"). The gather fills one window
//! (one tap per write) while the MAC reads the other, so an iteration's gather overlaps the
//! previous iteration's MAC.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `write` | in | 1 | write `value` into tap `tap` of window `write_buf` at this edge |
//! | `write_buf` | in | 1 | the window written |
//! | `tap` | in | 4 | the tap (0..8; 9 and above write nothing) |
//! | `value` | in | 8 | the value |
//! | `read_buf` | in | 1 | the window read |
//! | `window` | out | 9 x 8 | the taps of window `read_buf` (combinational from the registers) |
//!
//! Indexed writes go to an array of registers, nine per window. No reset: a window is
//! written in full before it is read (a tap in the padding writes 0). Read latency 0.
//! Golden: two `[i8; 9]` (`edgelearn_verif::golden::cnn_engine::WindowPair`). Tests:
//! `tests/cnn_engine_blocks.rs`.

use rust_hdl::prelude::*;

/// Taps per window.
pub const TAPS: usize = 9;

/// Two windows of nine 8-bit values.
#[derive(Clone, Debug, LogicBlock)]
pub struct WindowBuf {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Write strobe.
    pub write: Signal<In, Bit>,
    /// Window written.
    pub write_buf: Signal<In, Bit>,
    /// Tap written.
    pub tap: Signal<In, Bits<4>>,
    /// Value written.
    pub value: Signal<In, Bits<8>>,
    /// Window read.
    pub read_buf: Signal<In, Bit>,
    /// The taps of the window read.
    pub window: [Signal<Out, Bits<8>>; TAPS],
    win0: [DFF<Bits<8>>; TAPS],
    win1: [DFF<Bits<8>>; TAPS],
    tap_index: [Constant<Bits<4>>; TAPS],
}

impl Default for WindowBuf {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write: Default::default(),
            write_buf: Default::default(),
            tap: Default::default(),
            value: Default::default(),
            read_buf: Default::default(),
            window: Default::default(),
            win0: Default::default(),
            win1: Default::default(),
            tap_index: array_init::array_init(|t| Constant::new((t as u64).into())),
        }
    }
}

impl Logic for WindowBuf {
    #[hdl_gen]
    fn update(&mut self) {
        for t in 0..TAPS {
            self.win0[t].clock.next = self.clock.val();
            self.win1[t].clock.next = self.clock.val();
            self.win0[t].d.next = self.win0[t].q.val();
            self.win1[t].d.next = self.win1[t].q.val();
            if self.write.val() & (self.tap.val() == self.tap_index[t].val()) {
                if self.write_buf.val() {
                    self.win1[t].d.next = self.value.val();
                } else {
                    self.win0[t].d.next = self.value.val();
                }
            }
            if self.read_buf.val() {
                self.window[t].next = self.win1[t].q.val();
            } else {
                self.window[t].next = self.win0[t].q.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_buf_is_synthesizable() {
        crate::synth_check::assert_synthesizable("window_buf", WindowBuf::default());
    }
}

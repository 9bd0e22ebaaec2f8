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
//! | `slide` | in | 1 | slide into window `write_buf` at this edge: its taps 0..7 take taps 1..8 of the other window |
//! | `slide_same` | in | 1 | the slide's source is window `write_buf` itself (a layer of two passes) |
//! | `read_buf` | in | 1 | the window read |
//! | `window` | out | 72 | the taps of window `read_buf`, tap t in bits `8t+7 : 8t` (combinational) |
//!
//! The windows are a [`BankFile`] (two banks of nine bytes): an indexed write is one store,
//! not a comparison per register. A slide is the banks' shift (D-CNN-SLIDE): for a 3x3
//! kernel the left two columns of an output pixel's window are the right two of its left
//! neighbour's, so taps 0, 1, 3, 4, 6, 7 are copied and the gather writes only 2, 5 and 8
//! (taps 2 and 5 take a value of the wrong column, which the gather overwrites: its
//! writes of an iteration come at or after the slide, and a write at the same edge wins).
//! No reset: a window is written in full before it is read
//! (a tap in the padding writes 0). Read latency 0.
//! Golden: two `[i8; 9]` (`edgelearn_verif::golden::cnn_engine::WindowPair`). Tests:
//! `tests/cnn_engine_blocks.rs`.

use crate::mem::bank_file::BankFile;
use rust_hdl::prelude::*;

/// Taps per window.
pub const TAPS: usize = 9;

/// Two windows of nine 8-bit values.
#[derive(Clone, Debug, Default, LogicBlock)]
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
    /// Slide into window `write_buf`.
    pub slide: Signal<In, Bit>,
    /// The slide's source is window `write_buf`.
    pub slide_same: Signal<In, Bit>,
    /// Window read.
    pub read_buf: Signal<In, Bit>,
    /// The taps of the window read.
    pub window: Signal<Out, Bits<72>>,
    banks: BankFile<2, TAPS, 8, 72, 1, 4>,
}

impl Logic for WindowBuf {
    #[hdl_gen]
    fn update(&mut self) {
        self.banks.clock.next = self.clock.val();
        self.banks.write_enable.next = self.write.val();
        self.banks.write_bank.next = self.write_buf.val().into();
        self.banks.write_index.next = self.tap.val();
        self.banks.write_data.next = self.value.val();
        self.banks.shift.next = self.slide.val();
        self.banks.shift_to.next = self.write_buf.val().into();
        self.banks.shift_from.next = (!self.write_buf.val()).into();
        if self.slide_same.val() {
            self.banks.shift_from.next = self.write_buf.val().into();
        }
        self.banks.read_bank.next = self.read_buf.val().into();
        self.window.next = self.banks.read_data.val();
    }
}

crate::dut_io! {
    impl[] WindowBuf {
        clock: yes,
        inputs: [write, write_buf, tap, value, slide, slide_same, read_buf],
        outputs: [window],
        notes: [value: (true, 1), window: (true, 9)],
    }
}

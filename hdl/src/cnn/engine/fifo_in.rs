//! FifoIn: the input FIFOs' writer (spec max78000-cnn-engine.md §2.10; docs/cnn-engine-rtl.md
//! "Streaming"): takes the input stream of a streaming network, in izer's `--fifo` order
//! (HWC: per pixel one word per FIFO, FIFO 0 first; CHW: per four pixels of a row one word
//! per FIFO), and writes FIFO `f`'s words into line buffer `f` (the line buffer of
//! processors 16f..16f+3), word `n` at `n mod 2^LINE_BITS`. It counts the input rows complete
//! and takes a beat only while the rows it touches are below `allow` (the rows the
//! schedule's running entry leaves room for), so no word a layer still reads is overwritten.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: nothing taken, counters 0 |
//! | `start` | in | 1 | a run starts: counters 0 |
//! | `stream` | in | 18 | the STREAM register: FIFOs in use (6:4; 0: the stream is not taken), CHW words of four pixels (7; else HWC, one pixel), input columns (17:8, at least 4) |
//! | `allow` | in | 11 | rows that may be written: a beat of row `r` (CHW: `r` or `r + 1`) needs `r + chw < allow` |
//! | `s_tdata`, `s_tvalid` | in | 32, 1 | the input stream (from the engine's port stage) |
//! | `s_tready` | out | 1 | the beat is taken |
//! | `we`, `wf`, `waddr`, `wdata` | out | 1, 2, 11, 32 | the line-buffer write (registered: one edge after the beat moved) |
//! | `rows` | out | 11 | input rows complete (counted at the edge the row's last beat moves) |
//!
//! Golden: `edgelearn_verif::golden::cnn_engine::FifoWriter`. Tests:
//! `tests/cnn_engine_blocks.rs` (registered as `cnn_fifo_in`), `tests/cnn_rtl.rs` (the
//! streaming networks).

use rust_hdl::prelude::*;

/// Address bits of a line buffer.
pub const LINE_BITS: usize = 11;
/// Words of a line buffer.
pub const LINE_WORDS: usize = 1 << LINE_BITS;

/// The input FIFOs' writer.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct FifoIn {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A run starts.
    pub start: Signal<In, Bit>,
    /// The STREAM register.
    pub stream: Signal<In, Bits<18>>,
    /// Rows that may be written.
    pub allow: Signal<In, Bits<11>>,
    /// Input beat.
    pub s_tdata: Signal<In, Bits<32>>,
    /// Input valid.
    pub s_tvalid: Signal<In, Bit>,
    /// The beat is taken.
    pub s_tready: Signal<Out, Bit>,
    /// Line-buffer write.
    pub we: Signal<Out, Bit>,
    /// Its line buffer (FIFO).
    pub wf: Signal<Out, Bits<2>>,
    /// Its word.
    pub waddr: Signal<Out, Bits<LINE_BITS>>,
    /// Its data.
    pub wdata: Signal<Out, Bits<32>>,
    /// Input rows complete.
    pub rows: Signal<Out, Bits<11>>,
    f: DFF<Bits<2>>,
    word: DFF<Bits<LINE_BITS>>,
    pix: DFF<Bits<10>>,
    rows_q: DFF<Bits<11>>,
    we_q: DFF<Bit>,
    wf_q: DFF<Bits<2>>,
    waddr_q: DFF<Bits<LINE_BITS>>,
    wdata_q: DFF<Bits<32>>,
    fifos: Signal<Local, Bits<3>>,
    chw: Signal<Local, Bit>,
    width: Signal<Local, Bits<10>>,
    ready: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    ppw: Signal<Local, Bits<10>>,
    npix: Signal<Local, Bits<11>>,
    wrapped: Signal<Local, Bits<11>>,
    last_fifo: Signal<Local, Bits<2>>,
}

impl Logic for FifoIn {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, f, word, pix, rows_q, we_q, wf_q, waddr_q, wdata_q);
        self.fifos.next = self.stream.val().get_bits::<3>(4);
        self.chw.next = self.stream.val().get_bit(7);
        self.width.next = self.stream.val().get_bits::<10>(8);
        // Room: the row this beat belongs to (CHW: and the next, which a word may reach).
        self.ready.next = (self.fifos.val() != 0)
            & ((self.rows_q.q.val() + bit_cast::<11, 1>(self.chw.val().into())) < self.allow.val());
        self.take.next = self.ready.val() & self.s_tvalid.val();
        self.ppw.next = 1.into();
        if self.chw.val() {
            self.ppw.next = 4.into();
        }
        self.npix.next = bit_cast::<11, 10>(self.pix.q.val()) + bit_cast::<11, 10>(self.ppw.val());
        self.wrapped.next = self.npix.val() - bit_cast::<11, 10>(self.width.val());
        self.last_fifo.next = self.fifos.val().get_bits::<2>(0) - 1;
        self.we_q.d.next = self.take.val();
        self.wf_q.d.next = self.f.q.val();
        self.waddr_q.d.next = self.word.q.val();
        self.wdata_q.d.next = self.s_tdata.val();
        if self.take.val() {
            if self.f.q.val() != self.last_fifo.val() {
                self.f.d.next = self.f.q.val() + 1;
            } else {
                // The group's last FIFO: the next word, the next pixels.
                self.f.d.next = 0.into();
                self.word.d.next = self.word.q.val() + 1;
                if self.npix.val() >= bit_cast::<11, 10>(self.width.val()) {
                    self.pix.d.next = self.wrapped.val().get_bits::<10>(0);
                    self.rows_q.d.next = self.rows_q.q.val() + 1;
                } else {
                    self.pix.d.next = self.npix.val().get_bits::<10>(0);
                }
            }
        }
        if self.start.val() | self.reset.val() {
            self.f.d.next = 0.into();
            self.word.d.next = 0.into();
            self.pix.d.next = 0.into();
            self.rows_q.d.next = 0.into();
            self.we_q.d.next = false;
        }
        self.s_tready.next = self.ready.val();
        self.we.next = self.we_q.q.val();
        self.wf.next = self.wf_q.q.val();
        self.waddr.next = self.waddr_q.q.val();
        self.wdata.next = self.wdata_q.q.val();
        self.rows.next = self.rows_q.q.val();
    }
}

crate::dut_io! {
    impl[] FifoIn {
        clock: yes,
        inputs: [reset, start, stream, allow, s_tdata, s_tvalid],
        outputs: [s_tready, we, wf, waddr, wdata, rows],
        notes: [],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_in_is_synthesizable() {
        crate::synth_check::assert_elaborates("fifo_in", FifoIn::default());
    }
}

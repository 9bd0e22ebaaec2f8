//! WordSeq: the address sequencer of the FC core (spec lel-platform.md §4.2, §7-26). It walks
//! the weight cache's stream order, piece k (the cache `p_sel`), pass p (L outputs), word i,
//! one word per cycle, with optional idle cycles: one after every pass (`gap`, so that the
//! matmul's burst ends, D-MATMUL) and `drain` after every piece (so that writes still in a
//! read-modify-write pipeline land in the piece's cache before `p_sel` moves on).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: idle, `done` low |
//! | `start` | in | 1 | latch the dimensions below and run from word 0 at the next cycle |
//! | `cancel` | in | 1 | stop (idle, `done` low); wins over `start` |
//! | `stall` | in | 1 | do not issue this cycle (only while running; the word waits) |
//! | `pieces` | in | 3 | pieces (1..=4) |
//! | `passes` | in | 16 | passes per piece (>= 1) |
//! | `words` | in | 16 | words per pass (>= 1) |
//! | `gap` | in | 1 | one idle cycle after every pass |
//! | `drain` | in | 3 | idle cycles after every piece |
//! | `emit` | out | 1 | a word is issued this cycle |
//! | `piece` | out | 2 | its piece (held through gaps and drains) |
//! | `pass` | out | 16 | its pass within the piece |
//! | `index` | out | 16 | its word within the pass |
//! | `addr` | out | 16 | `pass * words + index` |
//! | `first` | out | 1 | `index == 0` |
//! | `last` | out | 1 | the sequence's final word |
//! | `active` | out | 1 | running (issuing, stalled, in a gap or a drain) |
//! | `done` | out | 1 | the sequence finished (registered; low again at `start`) |
//!
//! Timing: `start` in cycle s, words from cycle s+1; with no stall, a sequence of
//! `pieces x passes x words` words takes `pieces x (passes x (words + gap) + drain)` cycles
//! and `done` is high from the cycle after its last gap or drain (the cycle after the last
//! word when there are none).
//! Golden: `edgelearn_verif::golden::word_seq`. Tests: `tests/word_seq.rs`.

use rust_hdl::prelude::*;

/// What the sequencer is doing.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum SeqPhase {
    /// Not running.
    Idle,
    /// Issuing words.
    Run,
    /// The idle cycle after a pass.
    Gap,
    /// The idle cycles after a piece.
    Drain,
}

/// Piece / pass / word sequencer.
#[derive(Clone, Debug, LogicBlock)]
pub struct WordSeq {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Latch the dimensions and run.
    pub start: Signal<In, Bit>,
    /// Stop.
    pub cancel: Signal<In, Bit>,
    /// Hold this cycle.
    pub stall: Signal<In, Bit>,
    /// Pieces.
    pub pieces: Signal<In, Bits<3>>,
    /// Passes per piece.
    pub passes: Signal<In, Bits<16>>,
    /// Words per pass.
    pub words: Signal<In, Bits<16>>,
    /// Idle cycle after each pass.
    pub gap: Signal<In, Bit>,
    /// Idle cycles after each piece.
    pub drain: Signal<In, Bits<3>>,
    /// A word is issued.
    pub emit: Signal<Out, Bit>,
    /// Its piece.
    pub piece: Signal<Out, Bits<2>>,
    /// Its pass.
    pub pass: Signal<Out, Bits<16>>,
    /// Its word within the pass.
    pub index: Signal<Out, Bits<16>>,
    /// `pass * words + index`.
    pub addr: Signal<Out, Bits<16>>,
    /// First word of a pass.
    pub first: Signal<Out, Bit>,
    /// Final word of the sequence.
    pub last: Signal<Out, Bit>,
    /// Running.
    pub active: Signal<Out, Bit>,
    /// Finished.
    pub done: Signal<Out, Bit>,
    phase: DFF<SeqPhase>,
    k: DFF<Bits<2>>,
    p: DFF<Bits<16>>,
    i: DFF<Bits<16>>,
    a: DFF<Bits<16>>,
    dcnt: DFF<Bits<3>>,
    piece_end: DFF<Bit>,
    seq_end: DFF<Bit>,
    done_q: DFF<Bit>,
    np: DFF<Bits<3>>,
    nq: DFF<Bits<16>>,
    nw: DFF<Bits<16>>,
    gap_q: DFF<Bit>,
    drain_q: DFF<Bits<3>>,
    emit_l: Signal<Local, Bit>,
    active_l: Signal<Local, Bit>,
    word_last: Signal<Local, Bit>,
    pass_last: Signal<Local, Bit>,
    piece_last: Signal<Local, Bit>,
    k_ext: Signal<Local, Bits<3>>,
    one16: Constant<Bits<16>>,
    one3: Constant<Bits<3>>,
    one2: Constant<Bits<2>>,
}

impl Default for WordSeq {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            cancel: Default::default(),
            stall: Default::default(),
            pieces: Default::default(),
            passes: Default::default(),
            words: Default::default(),
            gap: Default::default(),
            drain: Default::default(),
            emit: Default::default(),
            piece: Default::default(),
            pass: Default::default(),
            index: Default::default(),
            addr: Default::default(),
            first: Default::default(),
            last: Default::default(),
            active: Default::default(),
            done: Default::default(),
            phase: Default::default(),
            k: Default::default(),
            p: Default::default(),
            i: Default::default(),
            a: Default::default(),
            dcnt: Default::default(),
            piece_end: Default::default(),
            seq_end: Default::default(),
            done_q: Default::default(),
            np: Default::default(),
            nq: Default::default(),
            nw: Default::default(),
            gap_q: Default::default(),
            drain_q: Default::default(),
            emit_l: Default::default(),
            active_l: Default::default(),
            word_last: Default::default(),
            pass_last: Default::default(),
            piece_last: Default::default(),
            k_ext: Default::default(),
            one16: Constant::new(Bits::<16>::from(1u64)),
            one3: Constant::new(Bits::<3>::from(1u64)),
            one2: Constant::new(Bits::<2>::from(1u64)),
        }
    }
}

impl Logic for WordSeq {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, k, p, i, a, dcnt, piece_end, seq_end, done_q, np, nq, nw, gap_q,
            drain_q
        );
        self.k_ext.next = bit_cast::<3, 2>(self.k.q.val());
        self.word_last.next = (self.i.q.val() + self.one16.val()) == self.nw.q.val();
        self.pass_last.next = (self.p.q.val() + self.one16.val()) == self.nq.q.val();
        self.piece_last.next = (self.k_ext.val() + self.one3.val()) == self.np.q.val();
        self.emit_l.next = false;
        self.active_l.next = true;
        match self.phase.q.val() {
            SeqPhase::Idle => {
                self.active_l.next = false;
            }
            SeqPhase::Run => {
                if !self.stall.val() {
                    self.emit_l.next = true;
                    if self.word_last.val() {
                        self.i.d.next = 0.into();
                        if self.pass_last.val() {
                            self.p.d.next = 0.into();
                            self.a.d.next = 0.into();
                        } else {
                            self.p.d.next = self.p.q.val() + self.one16.val();
                            self.a.d.next = self.a.q.val() + self.one16.val();
                        }
                        self.piece_end.d.next = self.pass_last.val();
                        self.seq_end.d.next = self.pass_last.val() & self.piece_last.val();
                        if self.gap_q.q.val() {
                            self.phase.d.next = SeqPhase::Gap;
                        } else if self.pass_last.val() & self.drain_q.q.val().any() {
                            self.phase.d.next = SeqPhase::Drain;
                            self.dcnt.d.next = self.drain_q.q.val();
                        } else if self.pass_last.val() & self.piece_last.val() {
                            self.phase.d.next = SeqPhase::Idle;
                            self.done_q.d.next = true;
                        } else if self.pass_last.val() {
                            self.k.d.next = self.k.q.val() + self.one2.val();
                        }
                    } else {
                        self.i.d.next = self.i.q.val() + self.one16.val();
                        self.a.d.next = self.a.q.val() + self.one16.val();
                    }
                }
            }
            SeqPhase::Gap => {
                if self.piece_end.q.val() & self.drain_q.q.val().any() {
                    self.phase.d.next = SeqPhase::Drain;
                    self.dcnt.d.next = self.drain_q.q.val();
                } else if self.seq_end.q.val() {
                    self.phase.d.next = SeqPhase::Idle;
                    self.done_q.d.next = true;
                } else {
                    self.phase.d.next = SeqPhase::Run;
                    if self.piece_end.q.val() {
                        self.k.d.next = self.k.q.val() + self.one2.val();
                    }
                }
            }
            SeqPhase::Drain => {
                self.dcnt.d.next = self.dcnt.q.val() - self.one3.val();
                if self.dcnt.q.val() == self.one3.val() {
                    if self.seq_end.q.val() {
                        self.phase.d.next = SeqPhase::Idle;
                        self.done_q.d.next = true;
                    } else {
                        self.phase.d.next = SeqPhase::Run;
                        self.k.d.next = self.k.q.val() + self.one2.val();
                    }
                }
            }
            _ => {
                self.phase.d.next = SeqPhase::Idle;
            }
        }
        if self.start.val() {
            self.phase.d.next = SeqPhase::Run;
            self.k.d.next = 0.into();
            self.p.d.next = 0.into();
            self.i.d.next = 0.into();
            self.a.d.next = 0.into();
            self.done_q.d.next = false;
            self.np.d.next = self.pieces.val();
            self.nq.d.next = self.passes.val();
            self.nw.d.next = self.words.val();
            self.gap_q.d.next = self.gap.val();
            self.drain_q.d.next = self.drain.val();
        }
        if self.cancel.val() | self.reset.val() {
            self.phase.d.next = SeqPhase::Idle;
            self.done_q.d.next = false;
        }
        self.piece.next = self.k.q.val();
        self.pass.next = self.p.q.val();
        self.index.next = self.i.q.val();
        self.addr.next = self.a.q.val();
        self.first.next = !self.i.q.val().any();
        self.last.next = self.word_last.val() & self.pass_last.val() & self.piece_last.val();
        self.done.next = self.done_q.q.val();
        // Outputs are assigned once per evaluation (docs/decisions.md D-HDLGEN).
        self.emit.next = self.emit_l.val();
        self.active.next = self.active_l.val();
    }
}

crate::dut_io! {
    impl[] WordSeq {
        clock: yes,
        inputs: [reset, start, cancel, stall, pieces, passes, words, gap, drain],
        outputs: [emit, piece, pass, index, addr, first, last, active, done],
        notes: [],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_seq_is_synthesizable() {
        crate::synth_check::assert_synthesizable("word_seq", WordSeq::default());
    }
}

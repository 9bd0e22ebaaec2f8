//! ResultTally: one FC core's classification results as the platform counts them
//! (lel-platform.md §4.6; the FCn_RESULTS, FCn_CORRECT and FCn_CLASS registers of
//! docs/registers.md): the label of each image the core takes (TUSER of its first input
//! beat), carried to its LC result, and per classification the count, the correct count and
//! the last `{label, class}`.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: counts and last result 0, no label awaited |
//! | `clear` | in | 1 | a run starts: counts 0 (a classification at the same edge still counts) |
//! | `start` | in | 1 | the core takes an image at this edge: its label is awaited |
//! | `beat` | in | 1 | a beat enters the core this cycle |
//! | `label` | in | 4 | its TUSER |
//! | `lc_valid` | in | 1 | the core's LC result is valid: the image's label goes with it |
//! | `done` | in | 1 | the core's classification is done (a level; its rising edge counts) |
//! | `class_num` | in | 4 | the class it chose |
//! | `results` | out | 32 | classifications since the run started |
//! | `correct` | out | 32 | of them, those equal to their image's label |
//! | `last` | out | 8 | the last one: class in [3:0], label in [7:4] |
//!
//! Golden: `edgelearn_verif::golden::result_tally`. Tests: `tests/result_tally.rs`.

use rust_hdl::prelude::*;

/// One FC core's classification counts.
#[derive(Clone, Debug, LogicBlock)]
pub struct ResultTally {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A run starts.
    pub clear: Signal<In, Bit>,
    /// The core takes an image.
    pub start: Signal<In, Bit>,
    /// A beat enters the core.
    pub beat: Signal<In, Bit>,
    /// Its TUSER.
    pub label: Signal<In, Bits<4>>,
    /// The core's LC result is valid.
    pub lc_valid: Signal<In, Bit>,
    /// The classification is done.
    pub done: Signal<In, Bit>,
    /// The class chosen.
    pub class_num: Signal<In, Bits<4>>,
    /// Classifications.
    pub results: Signal<Out, Bits<32>>,
    /// Correct classifications.
    pub correct: Signal<Out, Bits<32>>,
    /// The last classification and its label.
    pub last: Signal<Out, Bits<8>>,
    need: DFF<Bit>,
    lbl_cur: DFF<Bits<4>>,
    lbl_lc: DFF<Bits<4>>,
    done_q: DFF<Bit>,
    res: DFF<Bits<32>>,
    ok: DFF<Bits<32>>,
    cls: DFF<Bits<8>>,
    rise: Signal<Local, Bit>,
    one32: Constant<Bits<32>>,
}

impl Default for ResultTally {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            start: Default::default(),
            beat: Default::default(),
            label: Default::default(),
            lc_valid: Default::default(),
            done: Default::default(),
            class_num: Default::default(),
            results: Default::default(),
            correct: Default::default(),
            last: Default::default(),
            need: Default::default(),
            lbl_cur: Default::default(),
            lbl_lc: Default::default(),
            done_q: Default::default(),
            res: Default::default(),
            ok: Default::default(),
            cls: Default::default(),
            rise: Default::default(),
            one32: Constant::new(1u64.into()),
        }
    }
}

impl Logic for ResultTally {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, need, lbl_cur, lbl_lc, done_q, res, ok, cls);
        if self.clear.val() {
            self.res.d.next = 0.into();
            self.ok.d.next = 0.into();
        }
        if self.start.val() {
            self.need.d.next = true;
        }
        if self.need.q.val() & self.beat.val() {
            self.lbl_cur.d.next = self.label.val();
            self.need.d.next = false;
        }
        if self.lc_valid.val() {
            self.lbl_lc.d.next = self.lbl_cur.q.val();
        }
        self.done_q.d.next = self.done.val();
        self.rise.next = self.done.val() & !self.done_q.q.val();
        if self.rise.val() {
            self.res.d.next = self.res.q.val() + self.one32.val();
            self.cls.d.next = bit_cast::<8, 4>(self.class_num.val())
                | (bit_cast::<8, 4>(self.lbl_lc.q.val()) << 4);
            if self.class_num.val() == self.lbl_lc.q.val() {
                self.ok.d.next = self.ok.q.val() + self.one32.val();
            }
        }
        if self.reset.val() {
            self.need.d.next = false;
            self.done_q.d.next = false;
            self.res.d.next = 0.into();
            self.ok.d.next = 0.into();
            self.cls.d.next = 0.into();
        }
        self.results.next = self.res.q.val();
        self.correct.next = self.ok.q.val();
        self.last.next = self.cls.q.val();
    }
}

crate::dut_io! {
    impl[] ResultTally {
        clock: yes,
        inputs: [reset, clear, start, beat, label, lc_valid, done, class_num],
        outputs: [results, correct, last],
        notes: [],
    }
}

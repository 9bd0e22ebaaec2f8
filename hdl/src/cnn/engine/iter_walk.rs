//! IterWalk: the gather's iterations and their slides (docs/cnn-engine-rtl.md "What happens
//! per cycle", gather; D-CNN-SLIDE). It counts a layer's iterations (output row, output
//! column, input pass, chunk) and says which of them slide and from which tap.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `load` | in | 1 | start the layer: row `row_first`, everything else 0 |
//! | `step` | in | 1 | the current iteration ends (its last item is issued) |
//! | `mode` | in | 2 | 0 window, 1 flatten, 2 transposed |
//! | `kw`, `taps`, `dil` | in | 4, 4, 5 | kernel columns, taps per kernel, row dilation |
//! | `chunks`, `in_passes`, `out_w` | in | 5, 5, 10 | chunks per pass, input passes, output columns |
//! | `row_first`, `row_last` | in | 10, 10 | the output rows to run (`row_first` taken at `load`) |
//! | `oy`, `ox`, `e` | out | 10, 10, 5 | the iteration's output pixel and input pass |
//! | `done` | out | 1 | the layer's (or slice's) last iteration has ended |
//! | `chunks_end` | out | 1 | `step` ends the pass's last chunk |
//! | `slide` | out | 1 | `step` starts an iteration that slides |
//! | `same` | out | 1 | a sliding window moves within its own window (two passes), not from the other |
//! | `sl_t`, `sl_ty`, `sl_tx` | out | 4 each | a sliding iteration's first tap, its row and column |
//!
//! Iterations run chunk fastest, then pass, column and row, from `row_first` to `row_last`;
//! after the last, `done` rises. A layer slides (one or two passes, one chunk) by columns
//! with a 3x3 window or transposed kernel (`taps` 9, `kw` 3): every iteration after a
//! row's first pixel, from tap 2 (the right column's top); or by rows with a Conv1d kernel of
//! dilation 1 on one column (mode 0, `kw` 1, `out_w` 1, `taps` >= 2): every iteration after
//! the run's first row, from its last tap. `slide`, `chunks_end` and the plan's outputs are
//! combinational; the counters change at the edge after `step` or `load` (`load` wins).
//! Golden: `edgelearn_verif::golden::cnn_engine::IterWalk`. Tests: `tests/cnn_engine_blocks.rs`.

use rust_hdl::prelude::*;

/// The gather's iteration counters and slide plan.
#[derive(Clone, Debug, LogicBlock)]
pub struct IterWalk {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Start the layer.
    pub load: Signal<In, Bit>,
    /// The iteration ends.
    pub step: Signal<In, Bit>,
    /// Tap mode.
    pub mode: Signal<In, Bits<2>>,
    /// Kernel columns.
    pub kw: Signal<In, Bits<4>>,
    /// Taps per kernel.
    pub taps: Signal<In, Bits<4>>,
    /// Row dilation.
    pub dil: Signal<In, Bits<5>>,
    /// Chunks per pass.
    pub chunks: Signal<In, Bits<5>>,
    /// Input passes.
    pub in_passes: Signal<In, Bits<5>>,
    /// Output columns.
    pub out_w: Signal<In, Bits<10>>,
    /// First output row.
    pub row_first: Signal<In, Bits<10>>,
    /// Last output row.
    pub row_last: Signal<In, Bits<10>>,
    /// Output row.
    pub oy: Signal<Out, Bits<10>>,
    /// Output column.
    pub ox: Signal<Out, Bits<10>>,
    /// Input pass.
    pub e: Signal<Out, Bits<5>>,
    /// The last iteration has ended.
    pub done: Signal<Out, Bit>,
    /// The step ends a pass's last chunk.
    pub chunks_end: Signal<Out, Bit>,
    /// The step starts a sliding iteration.
    pub slide: Signal<Out, Bit>,
    /// Slides move within one window.
    pub same: Signal<Out, Bit>,
    /// A sliding iteration's first tap.
    pub sl_t: Signal<Out, Bits<4>>,
    /// Its kernel row.
    pub sl_ty: Signal<Out, Bits<4>>,
    /// Its kernel column.
    pub sl_tx: Signal<Out, Bits<4>>,
    oy_r: DFF<Bits<10>>,
    ox_r: DFF<Bits<10>>,
    e_r: DFF<Bits<5>>,
    ch: DFF<Bits<5>>,
    done_r: DFF<Bit>,
    moved: DFF<Bit>,
    slide_ok: Signal<Local, Bit>,
    cols: Signal<Local, Bit>,
    rows: Signal<Local, Bit>,
    one4: Constant<Bits<4>>,
    one5: Constant<Bits<5>>,
    one10: Constant<Bits<10>>,
}

impl Default for IterWalk {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            load: Default::default(),
            step: Default::default(),
            mode: Default::default(),
            kw: Default::default(),
            taps: Default::default(),
            dil: Default::default(),
            chunks: Default::default(),
            in_passes: Default::default(),
            out_w: Default::default(),
            row_first: Default::default(),
            row_last: Default::default(),
            oy: Default::default(),
            ox: Default::default(),
            e: Default::default(),
            done: Default::default(),
            chunks_end: Default::default(),
            slide: Default::default(),
            same: Default::default(),
            sl_t: Default::default(),
            sl_ty: Default::default(),
            sl_tx: Default::default(),
            oy_r: Default::default(),
            ox_r: Default::default(),
            e_r: Default::default(),
            ch: Default::default(),
            done_r: Default::default(),
            moved: Default::default(),
            slide_ok: Default::default(),
            cols: Default::default(),
            rows: Default::default(),
            one4: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            one10: Constant::new(1u64.into()),
        }
    }
}

impl Logic for IterWalk {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, oy_r, ox_r, e_r, ch, done_r, moved);
        // An iteration slides its window when its neighbour's window of the same pass is
        // still there (one or two passes, one chunk) and shares all but one column (a 3x3
        // window or transposed kernel: the left neighbour) or all but one tap (a Conv1d
        // kernel of dilation 1 on one column: the row above) (D-CNN-SLIDE).
        self.same.next = self.in_passes.val() == 2;
        self.slide_ok.next =
            ((self.in_passes.val() == 1) | (self.in_passes.val() == 2)) & (self.chunks.val() == 1);
        self.cols.next = self.slide_ok.val()
            & ((self.mode.val() == 0) | (self.mode.val() == 2))
            & (self.kw.val() == 3)
            & (self.taps.val() == 9);
        self.rows.next = self.slide_ok.val()
            & (self.mode.val() == 0)
            & (self.kw.val() == 1)
            & (self.out_w.val() == 1)
            & (self.dil.val() == 1)
            & (self.taps.val() != 0)
            & (self.taps.val() != 1);
        // Its first tap: the right column's top, or the kernel's last.
        self.sl_t.next = 2.into();
        self.sl_ty.next = 0.into();
        self.sl_tx.next = 2.into();
        if self.rows.val() {
            self.sl_t.next = self.taps.val() - self.one4.val();
            self.sl_ty.next = self.taps.val() - self.one4.val();
            self.sl_tx.next = 0.into();
        }
        // The next iteration: chunk, pass, column, row.
        self.slide.next = false;
        self.chunks_end.next = false;
        if self.step.val() {
            if self.ch.q.val() != self.chunks.val() - self.one5.val() {
                self.ch.d.next = self.ch.q.val() + 1;
            } else {
                self.ch.d.next = 0.into();
                self.chunks_end.next = true;
                if self.e_r.q.val() != self.in_passes.val() - self.one5.val() {
                    self.e_r.d.next = self.e_r.q.val() + 1;
                    self.slide.next = (self.cols.val() & (self.ox_r.q.val() != 0))
                        | (self.rows.val() & self.moved.q.val());
                } else {
                    self.e_r.d.next = 0.into();
                    if self.ox_r.q.val() != self.out_w.val() - self.one10.val() {
                        self.ox_r.d.next = self.ox_r.q.val() + 1;
                        self.slide.next = self.cols.val();
                    } else {
                        self.ox_r.d.next = 0.into();
                        if self.oy_r.q.val() != self.row_last.val() {
                            self.oy_r.d.next = self.oy_r.q.val() + 1;
                            self.moved.d.next = true;
                            self.slide.next = self.rows.val();
                        } else {
                            self.done_r.d.next = true;
                        }
                    }
                }
            }
        }
        if self.load.val() {
            self.oy_r.d.next = self.row_first.val();
            self.moved.d.next = false;
            self.ox_r.d.next = 0.into();
            self.e_r.d.next = 0.into();
            self.ch.d.next = 0.into();
            self.done_r.d.next = false;
        }
        self.oy.next = self.oy_r.q.val();
        self.ox.next = self.ox_r.q.val();
        self.e.next = self.e_r.q.val();
        self.done.next = self.done_r.q.val();
    }
}

crate::dut_io! {
    impl[] IterWalk {
        clock: yes,
        inputs: [
            load, step, mode, kw, taps, dil, chunks, in_passes, out_w, row_first, row_last,
        ],
        outputs: [oy, ox, e, done, chunks_end, slide, same, sl_t, sl_ty, sl_tx],
        notes: [],
    }
}

//! AddrGen: the gather's address generator (docs/cnn-engine-rtl.md "What happens per
//! cycle", gather; D-CNN-RTL "One address for all memories"). It walks a layer's
//! iterations (output pixel, input pass, chunk) and, per iteration, the kernel's taps; for a
//! tap inside the (pooled, padded) input, the pooling window and the element-wise operands:
//! one item per cycle, every data memory read at one word.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | the item on `item` is not valid |
//! | `load` | in | 1 | start the layer: every counter 0, window 0 |
//! | `run` | in | 1 | the sequencer runs the layer |
//! | `full`, `pend` | in | 2, 2 | per window: holds a complete iteration / is being completed ([`super::window_ctl::WindowCtl`]) |
//! | `mode` | in | 2 | 0 window, 1 flatten, 2 transposed |
//! | `chw` | in | 1 | CHW input (word `pixel / 4`, lane `pixel % 4`) |
//! | `pool_first` | in | 1 | the inner unit pools (else it applies the element-wise operation) |
//! | `in_w`, `in_passes`, `operands`, `in_base` | in | 10, 5, 5, 14 | input columns, passes, operands, first word |
//! | `pool_h`, `pool_w`, `stride_y`, `stride_x` | in | 5 each | pooling window and stride |
//! | `pooled_h`, `pooled_w` | in | 10 | pooled (and so padded-from) input size |
//! | `kw`, `dil`, `pad_y`, `pad_x` | in | 4, 5, 2, 2 | kernel columns, row dilation, padding |
//! | `out_w`, `chunks`, `taps` | in | 10, 5, 4 | output columns, chunks per pass, taps per kernel |
//! | `in_roll` | in | 4 | the input is a rolling buffer of `2^in_roll` words (0: the whole frame) |
//! | `row_first`, `row_last` | in | 10, 10 | the output rows to run: from `row_first` (taken at `load`) to `row_last` |
//! | `issue` | out | 1 | an item is issued this cycle |
//! | `iter_end` | out | 1 | it is the iteration's last |
//! | `fill_buf` | out | 1 | the window the gather fills |
//! | `word` | out | 13 | the data-memory word of the item |
//! | `item` | out | 15 | the item ([`super::quad::item`]: valid, pad, inner/outer first and last, lane, tap, window, slide and its source), registered by the quads at G1 |
//!
//! An item is issued while `run`, the layer is not gathered in full, and the window is
//! neither full nor pending. Tap `t` (row `t / kw`, column `t % kw`) of output pixel (oy,
//! ox) sits at pooled position `(oy + row dil - pad_y, ox + col - pad_x)` (window), at half
//! that position when even (transposed, the zero-stuffed input), or at flattened position
//! `9 chunk + t` (flatten); outside the input it is one padding item. Inside, pooling element
//! (i, j) of operand o is raw pixel `(py stride_y + i) in_w + px stride_x + j`, word
//! `in_base + ((pixel passes + e) operands + o)` (HWC) or `in_base + pixel / 4` (CHW), the
//! offset taken modulo `2^in_roll` in a rolling buffer (a streaming layer's). The rows run
//! are `row_first..=row_last` (a streaming layer's slice; the whole layer is `0..=` its output rows `- 1`).
//! A sliding iteration (D-CNN-SLIDE; one or two passes, one chunk) walks only the taps its
//! neighbour's window does not hold: with a 3x3 window or transposed kernel, after a row's
//! first pixel, the kernel's right column (taps 2, 5, 8); with a Conv1d kernel of
//! dilation 1 on a one-column input, after the run's first row, its last tap. Its first item
//! carries the slide flag, which moves the neighbour's window one tap over (the other window
//! with one pass, the same with two: the neighbour's iteration of the same pass is one or
//! two back).
//! Latency 0 (combinational from the counters); one item per cycle.
//! Sub-blocks: [`TapPos`] (the tap's position), [`ElemWalk`] (the tap's items) and
//! [`WordAddr`] (the item's word, modulo 2^16); the generator itself walks the taps and the
//! iterations and forms the item.
//! Golden: `edgelearn_verif::golden::cnn_engine::addr_gen`. Tests: `tests/cnn_engine_blocks.rs`.

use super::elem_walk::ElemWalk;
use super::iter_walk::IterWalk;
use super::tap_pos::TapPos;
use super::word_addr::WordAddr;
use rust_hdl::prelude::*;

/// The gather's address generator.
#[derive(Clone, Debug, LogicBlock)]
pub struct AddrGen {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Reset (the item is not valid).
    pub reset: Signal<In, Bit>,
    /// Start the layer.
    pub load: Signal<In, Bit>,
    /// The layer runs.
    pub run: Signal<In, Bit>,
    /// Windows holding a complete iteration.
    pub full: Signal<In, Bits<2>>,
    /// Windows being completed.
    pub pend: Signal<In, Bits<2>>,
    /// Tap mode.
    pub mode: Signal<In, Bits<2>>,
    /// CHW input.
    pub chw: Signal<In, Bit>,
    /// Pool before the element-wise operation.
    pub pool_first: Signal<In, Bit>,
    /// Input columns.
    pub in_w: Signal<In, Bits<10>>,
    /// Input passes.
    pub in_passes: Signal<In, Bits<5>>,
    /// Element-wise operands.
    pub operands: Signal<In, Bits<5>>,
    /// First input word.
    pub in_base: Signal<In, Bits<14>>,
    /// Pooling rows.
    pub pool_h: Signal<In, Bits<5>>,
    /// Pooling columns.
    pub pool_w: Signal<In, Bits<5>>,
    /// Pooling row stride.
    pub stride_y: Signal<In, Bits<5>>,
    /// Pooling column stride.
    pub stride_x: Signal<In, Bits<5>>,
    /// Pooled rows.
    pub pooled_h: Signal<In, Bits<10>>,
    /// Pooled columns.
    pub pooled_w: Signal<In, Bits<10>>,
    /// Kernel columns.
    pub kw: Signal<In, Bits<4>>,
    /// Row dilation.
    pub dil: Signal<In, Bits<5>>,
    /// Row padding.
    pub pad_y: Signal<In, Bits<2>>,
    /// Column padding.
    pub pad_x: Signal<In, Bits<2>>,
    /// Output columns.
    pub out_w: Signal<In, Bits<10>>,
    /// Chunks per pass.
    pub chunks: Signal<In, Bits<5>>,
    /// Taps per kernel.
    pub taps: Signal<In, Bits<4>>,
    /// Rolling input buffer: log2 of its words (0: none).
    pub in_roll: Signal<In, Bits<4>>,
    /// First output row (taken at `load`).
    pub row_first: Signal<In, Bits<10>>,
    /// Last output row.
    pub row_last: Signal<In, Bits<10>>,
    /// An item is issued.
    pub issue: Signal<Out, Bit>,
    /// The iteration's last item.
    pub iter_end: Signal<Out, Bit>,
    /// The window being filled.
    pub fill_buf: Signal<Out, Bit>,
    /// The item's data-memory word.
    pub word: Signal<Out, Bits<13>>,
    /// The item.
    pub item: Signal<Out, Bits<15>>,
    t: DFF<Bits<4>>,
    ty: DFF<Bits<4>>,
    tx: DFF<Bits<4>>,
    fy: DFF<Bits<10>>,
    fx: DFF<Bits<10>>,
    gbuf: DFF<Bit>,
    sl: DFF<Bit>,
    fresh: DFF<Bit>,
    iter: IterWalk,
    tap: TapPos,
    walk: ElemWalk,
    addr: WordAddr,
    last: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    window_free: Signal<Local, Bit>,
    taken: Signal<Local, Bits<2>>,
    item_bits: Signal<Local, Bits<15>>,
    f_slide: Signal<Local, Bit>,
    f_same: Signal<Local, Bit>,
    f_valid: Signal<Local, Bit>,
    f_pad: Signal<Local, Bit>,
    one4: Constant<Bits<4>>,
    one10: Constant<Bits<10>>,
}

impl Default for AddrGen {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            load: Default::default(),
            run: Default::default(),
            full: Default::default(),
            pend: Default::default(),
            mode: Default::default(),
            chw: Default::default(),
            pool_first: Default::default(),
            in_w: Default::default(),
            in_passes: Default::default(),
            operands: Default::default(),
            in_base: Default::default(),
            pool_h: Default::default(),
            pool_w: Default::default(),
            stride_y: Default::default(),
            stride_x: Default::default(),
            pooled_h: Default::default(),
            pooled_w: Default::default(),
            kw: Default::default(),
            dil: Default::default(),
            pad_y: Default::default(),
            pad_x: Default::default(),
            out_w: Default::default(),
            chunks: Default::default(),
            taps: Default::default(),
            in_roll: Default::default(),
            row_first: Default::default(),
            row_last: Default::default(),
            issue: Default::default(),
            iter_end: Default::default(),
            fill_buf: Default::default(),
            word: Default::default(),
            item: Default::default(),
            t: Default::default(),
            ty: Default::default(),
            tx: Default::default(),
            fy: Default::default(),
            fx: Default::default(),
            gbuf: Default::default(),
            sl: Default::default(),
            fresh: Default::default(),
            iter: Default::default(),
            tap: Default::default(),
            walk: Default::default(),
            addr: Default::default(),
            last: Default::default(),
            go: Default::default(),
            window_free: Default::default(),
            taken: Default::default(),
            item_bits: Default::default(),
            f_slide: Default::default(),
            f_same: Default::default(),
            f_valid: Default::default(),
            f_pad: Default::default(),
            one4: Constant::new(1u64.into()),
            one10: Constant::new(1u64.into()),
        }
    }
}

impl Logic for AddrGen {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, t, ty, tx, fy, fx, gbuf, sl, fresh);
        clock!(self, clock, walk, iter);
        // Issue while the layer lasts and the window is free.
        self.taken.next = self.full.val() | self.pend.val();
        self.window_free.next = !self.taken.val().get_bit(0);
        if self.gbuf.q.val() {
            self.window_free.next = !self.taken.val().get_bit(1);
        }
        self.go.next = self.run.val() & !self.iter.done.val() & self.window_free.val();
        // The tap's position in the pooled input.
        self.tap.mode.next = self.mode.val();
        self.tap.oy.next = self.iter.oy.val();
        self.tap.ox.next = self.iter.ox.val();
        self.tap.ty.next = self.ty.q.val();
        self.tap.tx.next = self.tx.q.val();
        self.tap.fy.next = self.fy.q.val();
        self.tap.fx.next = self.fx.q.val();
        self.tap.dil.next = self.dil.val();
        self.tap.pad_y.next = self.pad_y.val();
        self.tap.pad_x.next = self.pad_x.val();
        self.tap.pooled_h.next = self.pooled_h.val();
        self.tap.pooled_w.next = self.pooled_w.val();
        // The tap's items: pooling elements times operands.
        self.walk.load.next = self.load.val();
        self.walk.go.next = self.go.val();
        self.walk.in_bounds.next = self.tap.in_bounds.val();
        self.walk.pool_first.next = self.pool_first.val();
        self.walk.pool_h.next = self.pool_h.val();
        self.walk.pool_w.next = self.pool_w.val();
        self.walk.operands.next = self.operands.val();
        // The item's word.
        self.addr.py.next = self.tap.py.val();
        self.addr.px.next = self.tap.px.val();
        self.addr.pi.next = self.walk.pi.val();
        self.addr.pj.next = self.walk.pj.val();
        self.addr.o.next = self.walk.o.val();
        self.addr.e.next = self.iter.e.val();
        self.addr.stride_y.next = self.stride_y.val();
        self.addr.stride_x.next = self.stride_x.val();
        self.addr.in_w.next = self.in_w.val();
        self.addr.in_passes.next = self.in_passes.val();
        self.addr.operands.next = self.operands.val();
        self.addr.chw.next = self.chw.val();
        self.addr.in_roll.next = self.in_roll.val();
        self.addr.in_base.next = self.in_base.val();
        self.last.next =
            self.walk.tap_end.val() & (self.t.q.val() == self.taps.val() - self.one4.val());
        // The iterations (output pixel, pass, chunk) and which of them slide.
        self.iter.load.next = self.load.val();
        self.iter.step.next = self.go.val() & self.last.val();
        self.iter.mode.next = self.mode.val();
        self.iter.kw.next = self.kw.val();
        self.iter.taps.next = self.taps.val();
        self.iter.dil.next = self.dil.val();
        self.iter.chunks.next = self.chunks.val();
        self.iter.in_passes.next = self.in_passes.val();
        self.iter.out_w.next = self.out_w.val();
        self.iter.row_first.next = self.row_first.val();
        self.iter.row_last.next = self.row_last.val();
        if self.go.val() {
            self.fresh.d.next = false;
        }
        // The next tap (and at the iteration's end the next chunk, pass, pixel).
        if self.go.val() & self.walk.tap_end.val() {
            if self.fx.q.val() == self.pooled_w.val() - self.one10.val() {
                self.fx.d.next = 0.into();
                self.fy.d.next = self.fy.q.val() + 1;
            } else {
                self.fx.d.next = self.fx.q.val() + 1;
            }
            if self.tx.q.val() == self.kw.val() - self.one4.val() {
                self.tx.d.next = 0.into();
                self.ty.d.next = self.ty.q.val() + 1;
            } else {
                self.tx.d.next = self.tx.q.val() + 1;
            }
            self.t.d.next = self.t.q.val() + 1;
            if self.sl.q.val() {
                // A sliding iteration walks the right column only (a Conv1d one has only
                // its last tap, which ends it).
                self.tx.d.next = self.tx.q.val();
                self.t.d.next = self.t.q.val() + 3;
            }
            if self.last.val() {
                // Next iteration (chunk, pass, pixel) into the other window.
                self.t.d.next = 0.into();
                self.ty.d.next = 0.into();
                self.tx.d.next = 0.into();
                self.sl.d.next = false;
                self.fresh.d.next = true;
                self.gbuf.d.next = !self.gbuf.q.val();
                if self.iter.chunks_end.val() {
                    self.fy.d.next = 0.into();
                    self.fx.d.next = 0.into();
                }
            }
        }
        if self.iter.slide.val() {
            self.sl.d.next = true;
            self.t.d.next = self.iter.sl_t.val();
            self.ty.d.next = self.iter.sl_ty.val();
            self.tx.d.next = self.iter.sl_tx.val();
        }
        if self.load.val() {
            self.t.d.next = 0.into();
            self.ty.d.next = 0.into();
            self.tx.d.next = 0.into();
            self.fy.d.next = 0.into();
            self.fx.d.next = 0.into();
            self.gbuf.d.next = false;
            self.sl.d.next = false;
            self.fresh.d.next = true;
        }
        // The item, as the quads register it at G1 (bits: docs of `quad::item`). Each flag
        // settles in a one-bit signal first: a `~` inside the widening would be taken at
        // the wider width in Verilog.
        self.f_valid.next = self.go.val() & !self.reset.val();
        self.f_pad.next = !self.tap.in_bounds.val();
        self.f_slide.next = self.sl.q.val() & self.fresh.q.val();
        self.f_same.next = self.f_slide.val() & self.iter.same.val();
        self.item_bits.next = bit_cast::<15, 1>(self.f_valid.val().into())
            | (bit_cast::<15, 1>(self.f_pad.val().into()) << 1)
            | (bit_cast::<15, 1>(self.walk.ifirst.val().into()) << 2)
            | (bit_cast::<15, 1>(self.walk.ilast.val().into()) << 3)
            | (bit_cast::<15, 1>(self.walk.ofirst.val().into()) << 4)
            | (bit_cast::<15, 1>(self.walk.olast.val().into()) << 5)
            | (bit_cast::<15, 2>(self.addr.lane.val()) << 6)
            | (bit_cast::<15, 4>(self.t.q.val()) << 8)
            | (bit_cast::<15, 1>(self.gbuf.q.val().into()) << 12)
            | (bit_cast::<15, 1>(self.f_slide.val().into()) << 13)
            | (bit_cast::<15, 1>(self.f_same.val().into()) << 14);
        self.issue.next = self.go.val();
        self.iter_end.next = self.last.val();
        self.fill_buf.next = self.gbuf.q.val();
        self.word.next = self.addr.word.val();
        self.item.next = self.item_bits.val();
    }
}

crate::dut_io! {
    impl[] AddrGen {
        clock: yes,
        inputs: [
            reset, load, run, full, pend, mode, chw, pool_first, in_w, in_passes, operands,
            in_base, pool_h, pool_w, stride_y, stride_x, pooled_h, pooled_w, kw, dil, pad_y,
            pad_x, out_w, chunks, taps, in_roll, row_first, row_last,
        ],
        outputs: [issue, iter_end, fill_buf, word, item],
        notes: [],
    }
}

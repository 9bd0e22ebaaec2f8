//! The gather's four inner pieces (hdl `cnn::engine::tap_pos::TapPos`,
//! `cnn::engine::elem_walk::ElemWalk`, `cnn::engine::word_addr::WordAddr` and
//! `cnn::engine::iter_walk::IterWalk`): where a kernel tap reads the pooled, padded input,
//! the items of one tap (the pooling window's elements times the element-wise operands)
//! with their first/last flags, an item's data-memory word, and the layer's iterations
//! with their slides. [`super::gather_items`] is built from [`tap_pos`], [`elements`],
//! [`word_addr`] and [`super::Slide`]; [`ElemWalk`] and [`IterWalk`] are the cycle models
//! of the two walks.

use super::Slide;

/// What [`word_addr`] reads (`WordAddr`'s inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WordAddrIn {
    /// The tap's position in the pooled input.
    pub py: u32,
    /// See `py`.
    pub px: u32,
    /// The pooling element's row and column.
    pub pi: u32,
    /// See `pi`.
    pub pj: u32,
    /// The operand.
    pub o: u32,
    /// The input pass.
    pub e: u32,
    /// Pooling stride.
    pub stride_y: u32,
    /// See `stride_y`.
    pub stride_x: u32,
    /// Input columns, passes, operands.
    pub in_w: u32,
    /// See `in_w`.
    pub in_passes: u32,
    /// See `in_w`.
    pub operands: u32,
    /// CHW input.
    pub chw: bool,
    /// A rolling input buffer of `2^in_roll` words (0: none).
    pub in_roll: u32,
    /// The input's first word.
    pub in_base: u32,
}

/// An item's data-memory word (13 bits) and its pixel's CHW lane (`pixel % 4`): pixel
/// `(py stride_y + pi) in_w + px stride_x + pj`, word `in_base + ((pixel in_passes + e)
/// operands + o)` (HWC) or `in_base + pixel / 4` (CHW), the offset modulo `2^in_roll` in a
/// rolling buffer. The products and sums are modulo 2^16, as in the RTL.
pub fn word_addr(i: &WordAddrIn) -> (u32, u32) {
    const M16: u32 = 0xffff;
    let ry = (i.py * i.stride_y + i.pi) & M16;
    let rx = (i.px * i.stride_x + i.pj) & M16;
    let pixel = (ry * i.in_w + rx) & M16;
    let hwc = (((pixel * i.in_passes + i.e) & M16) * i.operands + i.o) & M16;
    let offset = if i.chw { pixel >> 2 } else { hwc };
    let mask = match i.in_roll {
        0 => M16,
        r => (1 << r) - 1,
    };
    ((i.in_base + (offset & mask)) & 0x1fff, pixel & 3)
}

/// What [`tap_pos`] reads (`TapPos`'s inputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TapPosIn {
    /// 0 window, 1 flatten, 2 transposed.
    pub mode: u32,
    /// The output pixel.
    pub oy: u32,
    /// See `oy`.
    pub ox: u32,
    /// The tap's kernel row and column.
    pub ty: u32,
    /// See `ty`.
    pub tx: u32,
    /// The flattened position (flatten).
    pub fy: u32,
    /// See `fy`.
    pub fx: u32,
    /// Row dilation.
    pub dil: u32,
    /// Padding.
    pub pad_y: u32,
    /// See `pad_y`.
    pub pad_x: u32,
    /// The pooled input's size.
    pub pooled_h: u32,
    /// See `pooled_h`.
    pub pooled_w: u32,
}

/// The tap's position `(py, px)` in the pooled input (10 bits each) and whether it is
/// inside it. The sums are modulo 2^14, as in the RTL.
pub fn tap_pos(i: &TapPosIn) -> (u32, u32, bool) {
    let ybase = (i.oy + i.ty * i.dil) & 0x3fff;
    let xbase = (i.ox + i.tx) & 0x3fff;
    let ty_s = ybase.wrapping_sub(i.pad_y) & 0x3fff;
    let tx_s = xbase.wrapping_sub(i.pad_x) & 0x3fff;
    match i.mode {
        1 => (i.fy, i.fx, i.fy < i.pooled_h),
        2 => (
            (ty_s >> 1) & 0x3ff,
            (tx_s >> 1) & 0x3ff,
            ybase >= i.pad_y
                && xbase >= i.pad_x
                && ty_s & 1 == 0
                && tx_s & 1 == 0
                && (ty_s >> 1) < i.pooled_h
                && (tx_s >> 1) < i.pooled_w,
        ),
        _ => (
            ty_s & 0x3ff,
            tx_s & 0x3ff,
            ybase >= i.pad_y && xbase >= i.pad_x && ty_s < i.pooled_h && tx_s < i.pooled_w,
        ),
    }
}

/// One item of a tap inside the input: pooling element `(pi, pj)` of operand `o`, and
/// whether it starts / ends a sequence of the inner and the outer unit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Elem {
    /// Pooling row.
    pub pi: u32,
    /// Pooling column.
    pub pj: u32,
    /// Operand.
    pub o: u32,
    /// Starts a sequence of the inner unit.
    pub ifirst: bool,
    /// Ends one.
    pub ilast: bool,
    /// Starts a sequence of the outer unit.
    pub ofirst: bool,
    /// Ends one.
    pub olast: bool,
}

/// The items of a tap inside the input, in order: pool first, per operand its pooling
/// window (the inner unit pools); else per pooling element every operand (the inner unit
/// applies the element-wise operation).
pub fn elements(pool_first: bool, pool_h: u32, pool_w: u32, operands: u32) -> Vec<Elem> {
    let mut seq = Vec::new();
    if pool_first {
        for o in 0..operands {
            for pi in 0..pool_h {
                for pj in 0..pool_w {
                    seq.push((pi, pj, o));
                }
            }
        }
    } else {
        for pi in 0..pool_h {
            for pj in 0..pool_w {
                for o in 0..operands {
                    seq.push((pi, pj, o));
                }
            }
        }
    }
    seq.into_iter()
        .map(|(pi, pj, o)| {
            let pool_beg = pi == 0 && pj == 0;
            let pool_end = pi + 1 == pool_h && pj + 1 == pool_w;
            let (op_beg, op_end) = (o == 0, o + 1 == operands);
            let (ifirst, ilast, ofirst, olast) = match pool_first {
                true => (pool_beg, pool_end, op_beg, op_end),
                false => (op_beg, op_end, pool_beg, pool_end),
            };
            Elem {
                pi,
                pj,
                o,
                ifirst,
                ilast,
                ofirst,
                olast,
            }
        })
        .collect()
}

/// One cycle's inputs of the walk.
#[derive(Clone, Copy, Debug, Default)]
pub struct ElemWalkIn {
    /// Start a layer: every counter 0.
    pub load: bool,
    /// An item is issued this cycle.
    pub go: bool,
    /// The current tap is inside the input.
    pub in_bounds: bool,
    /// The inner unit pools.
    pub pool_first: bool,
    /// Pooling rows (5 bits).
    pub pool_h: u32,
    /// Pooling columns (5 bits).
    pub pool_w: u32,
    /// Operands (5 bits).
    pub operands: u32,
}

/// What the walk shows: the current item, its flags (a padding item is first and last of
/// both units) and whether it ends the tap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElemWalkOut {
    /// The item (flags as the item bus carries them).
    pub elem: Elem,
    /// It ends the tap.
    pub tap_end: bool,
}

/// The walk's counters (5 bits each).
#[derive(Clone, Copy, Debug, Default)]
pub struct ElemWalk {
    pi: u32,
    pj: u32,
    o: u32,
}

impl ElemWalk {
    /// Power-up state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The outputs of the state with the inputs `i` applied.
    pub fn outputs(&self, i: &ElemWalkIn) -> ElemWalkOut {
        let last = |n: u32| n.wrapping_sub(1) & 31;
        let pool_end_j = self.pj == last(i.pool_w);
        let pool_end = pool_end_j && self.pi == last(i.pool_h);
        let pool_beg = self.pi == 0 && self.pj == 0;
        let op_end = self.o == last(i.operands);
        let (ifirst, ilast, ofirst, olast) = match i.pool_first {
            true => (pool_beg, pool_end, self.o == 0, op_end),
            false => (self.o == 0, op_end, pool_beg, pool_end),
        };
        let pad = !i.in_bounds;
        ElemWalkOut {
            elem: Elem {
                pi: self.pi,
                pj: self.pj,
                o: self.o,
                ifirst: pad || ifirst,
                ilast: pad || ilast,
                ofirst: pad || ofirst,
                olast: pad || olast,
            },
            tap_end: pad || (ilast && olast),
        }
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ElemWalkIn) {
        let last = |n: u32| n.wrapping_sub(1) & 31;
        let inc = |n: u32| (n + 1) & 31;
        let out = self.outputs(i);
        let pool_end_j = self.pj == last(i.pool_w);
        let pool_end = pool_end_j && self.pi == last(i.pool_h);
        let op_end = self.o == last(i.operands);
        let old = *self;
        if i.go {
            if out.tap_end {
                *self = Self::default();
            } else if i.pool_first {
                if pool_end {
                    (self.pi, self.pj, self.o) = (0, 0, inc(old.o));
                } else if pool_end_j {
                    (self.pj, self.pi) = (0, inc(old.pi));
                } else {
                    self.pj = inc(old.pj);
                }
            } else if op_end {
                self.o = 0;
                if pool_end_j {
                    (self.pj, self.pi) = (0, inc(old.pi));
                } else {
                    self.pj = inc(old.pj);
                }
            } else {
                self.o = inc(old.o);
            }
        }
        if i.load {
            *self = Self::default();
        }
    }
}

/// One cycle's inputs of the iteration walk (`IterWalk`'s inputs).
#[derive(Clone, Copy, Debug, Default)]
pub struct IterWalkIn {
    /// Start the layer.
    pub load: bool,
    /// The current iteration ends.
    pub step: bool,
    /// 0 window, 1 flatten, 2 transposed.
    pub mode: u32,
    /// Kernel columns, taps, row dilation.
    pub kw: u32,
    /// See `kw`.
    pub taps: u32,
    /// See `kw`.
    pub dil: u32,
    /// Chunks per pass, input passes, output columns.
    pub chunks: u32,
    /// See `chunks`.
    pub in_passes: u32,
    /// See `chunks`.
    pub out_w: u32,
    /// The output rows run.
    pub row_first: u32,
    /// See `row_first`.
    pub row_last: u32,
}

/// What the iteration walk shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IterWalkOut {
    /// The iteration's output pixel and pass.
    pub oy: u32,
    /// See `oy`.
    pub ox: u32,
    /// See `oy`.
    pub e: u32,
    /// The last iteration has ended.
    pub done: bool,
    /// The step ends a pass's last chunk.
    pub chunks_end: bool,
    /// The step starts a sliding iteration.
    pub slide: bool,
    /// Slides move within one window (two passes).
    pub same: bool,
    /// A sliding iteration's first tap, its row and column.
    pub first_tap: (u32, u32, u32),
}

/// The iteration walk's counters, at the RTL's widths (rows and columns 10 bits, passes
/// and chunks 5).
#[derive(Clone, Copy, Debug, Default)]
pub struct IterWalk {
    oy: u32,
    ox: u32,
    e: u32,
    ch: u32,
    done: bool,
    moved: bool,
}

impl IterWalk {
    /// Power-up state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next state after a step, and whether the step starts a sliding iteration and
    /// ends a pass's chunks.
    fn next(&self, i: &IterWalkIn) -> (Self, bool, bool) {
        let slide = Slide::of(i.mode, i.in_passes, i.chunks, i.kw, i.taps, i.out_w, i.dil);
        let (cols, rows) = (slide == Slide::Columns, slide == Slide::Rows);
        let last = |n: u32, m: u32| n.wrapping_sub(1) & m;
        let mut n = *self;
        if self.ch != last(i.chunks, 31) {
            n.ch = (self.ch + 1) & 31;
            return (n, false, false);
        }
        n.ch = 0;
        let slides = if self.e != last(i.in_passes, 31) {
            n.e = (self.e + 1) & 31;
            (cols && self.ox != 0) || (rows && self.moved)
        } else if self.ox != last(i.out_w, 1023) {
            (n.e, n.ox) = (0, (self.ox + 1) & 1023);
            cols
        } else if self.oy != i.row_last {
            (n.e, n.ox, n.oy, n.moved) = (0, 0, (self.oy + 1) & 1023, true);
            rows
        } else {
            (n.e, n.ox, n.done) = (0, 0, true);
            false
        };
        (n, slides, true)
    }

    /// The outputs of the state with the inputs `i` applied.
    pub fn outputs(&self, i: &IterWalkIn) -> IterWalkOut {
        let slide = Slide::of(i.mode, i.in_passes, i.chunks, i.kw, i.taps, i.out_w, i.dil);
        let (_, slides, chunks_end) = self.next(i);
        IterWalkOut {
            oy: self.oy,
            ox: self.ox,
            e: self.e,
            done: self.done,
            chunks_end: i.step && chunks_end,
            slide: i.step && slides,
            same: i.in_passes == 2,
            first_tap: slide.first_tap(i.taps),
        }
    }

    /// The clock edge with `i` applied (`load` wins over `step`).
    pub fn step(&mut self, i: &IterWalkIn) {
        if i.step {
            *self = self.next(i).0;
        }
        if i.load {
            *self = Self {
                oy: i.row_first,
                ..Self::default()
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk issues [`elements`] in order, the last one ending the tap, for every
    /// order and a spread of shapes; a padding tap is one item.
    #[test]
    fn the_walk_issues_the_elements_in_order() {
        for pool_first in [false, true] {
            for (ph, pw, ops) in [(1, 1, 1), (2, 2, 1), (3, 2, 2), (1, 4, 3), (2, 3, 16)] {
                let i = ElemWalkIn {
                    go: true,
                    in_bounds: true,
                    pool_first,
                    pool_h: ph,
                    pool_w: pw,
                    operands: ops,
                    ..Default::default()
                };
                let mut m = ElemWalk::new();
                let mut got = vec![];
                for _ in 0..2 {
                    loop {
                        let o = m.outputs(&i);
                        got.push(o.elem);
                        m.step(&i);
                        if o.tap_end {
                            break;
                        }
                    }
                }
                let want = elements(pool_first, ph, pw, ops);
                assert_eq!(
                    got,
                    [want.clone(), want].concat(),
                    "{pool_first} {ph}x{pw}x{ops}"
                );
                let pad = ElemWalkIn {
                    in_bounds: false,
                    ..i
                };
                assert!(m.outputs(&pad).tap_end && m.outputs(&pad).elem.ifirst);
            }
        }
    }

    /// The iteration walk visits every (row, column, pass, chunk) of the run in order, then
    /// stays done; the iterations that start sliding are those [`Slide::at`] names (a step
    /// into the next pass slides only after the neighbour exists), from [`Slide::first_tap`].
    #[test]
    fn the_iteration_walk_visits_every_iteration_and_slides_where_the_plan_says() {
        let shapes = [
            (0, 3, 9, 1, 1, 1, 3, 0, 2), // 3x3, one pass: columns
            (2, 3, 9, 1, 1, 2, 2, 1, 3), // transposed, two passes: columns, same window
            (0, 1, 5, 1, 1, 1, 1, 2, 6), // Conv1d: rows from the run's second row
            (0, 1, 5, 1, 1, 2, 1, 0, 2), // Conv1d, two passes
            (0, 3, 9, 1, 2, 1, 3, 0, 1), // two chunks: none
            (0, 1, 5, 2, 1, 1, 1, 0, 3), // dilation 2: none
        ];
        for (mode, kw, taps, dil, chunks, in_passes, out_w, row_first, row_last) in shapes {
            let i = IterWalkIn {
                step: true,
                mode,
                kw,
                taps,
                dil,
                chunks,
                in_passes,
                out_w,
                row_first,
                row_last,
                ..Default::default()
            };
            let plan = Slide::of(mode, in_passes, chunks, kw, taps, out_w, dil);
            let mut m = IterWalk::new();
            m.step(&IterWalkIn { load: true, ..i });
            let (mut got, mut want) = (vec![], vec![]);
            let mut sliding = false;
            for oy in row_first..=row_last {
                for ox in 0..out_w {
                    for e in 0..in_passes {
                        for _ in 0..chunks {
                            let o = m.outputs(&i);
                            assert!(!o.done);
                            got.push((o.oy, o.ox, o.e, sliding));
                            want.push((oy, ox, e, plan.at(oy, ox, row_first)));
                            assert_eq!(o.same, in_passes == 2);
                            assert_eq!(o.first_tap, plan.first_tap(taps));
                            sliding = o.slide;
                            m.step(&i);
                        }
                    }
                }
            }
            assert_eq!(got, want, "{mode} {kw} {taps} {chunks} {in_passes} {out_w}");
            assert!(m.outputs(&i).done && !sliding);
        }
    }
}

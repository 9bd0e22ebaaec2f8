//! The gather's two inner pieces (hdl `cnn::engine::tap_pos::TapPos` and
//! `cnn::engine::elem_walk::ElemWalk`): where a kernel tap reads the pooled, padded input,
//! and the items of one tap (the pooling window's elements times the element-wise
//! operands) with their first/last flags. [`super::gather_items`] is built from
//! [`tap_pos`] and [`elements`]; [`ElemWalk`] is the cycle model of the walk.

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
}

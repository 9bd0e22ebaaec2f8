//! TapPos: where a kernel tap reads the (pooled, padded) input (docs/cnn-engine-rtl.md "What
//! happens per cycle", gather; spec max78000-cnn-engine.md §2). Combinational.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `mode` | in | 2 | 0 window, 1 flatten, 2 transposed |
//! | `oy`, `ox` | in | 10 | the output pixel |
//! | `ty`, `tx` | in | 4 | the tap's kernel row and column |
//! | `fy`, `fx` | in | 10 | the flattened position `9 chunk + t` as (row, column) of the pooled input (flatten) |
//! | `dil` | in | 5 | row dilation |
//! | `pad_y`, `pad_x` | in | 2 | padding |
//! | `pooled_h`, `pooled_w` | in | 10 | the pooled input's size |
//! | `py`, `px` | out | 10 | the tap's position in the pooled input |
//! | `in_bounds` | out | 1 | it is inside the input (else the tap is one padding item) |
//!
//! Window: `(oy + ty dil - pad_y, ox + tx - pad_x)`; transposed (the zero-stuffed input):
//! half that position, inside only when both coordinates are even; flatten: `(fy, fx)`,
//! inside while `fy < pooled_h`. The sums are 14 bits, the position their low 10.
//! Golden: `edgelearn_verif::golden::cnn_engine::tap_pos`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::mul_u::MulUnsigned;
use rust_hdl::prelude::*;

/// A tap's position in the pooled input.
#[derive(Clone, Debug, LogicBlock)]
pub struct TapPos {
    /// Tap mode.
    pub mode: Signal<In, Bits<2>>,
    /// Output row.
    pub oy: Signal<In, Bits<10>>,
    /// Output column.
    pub ox: Signal<In, Bits<10>>,
    /// Kernel row.
    pub ty: Signal<In, Bits<4>>,
    /// Kernel column.
    pub tx: Signal<In, Bits<4>>,
    /// Flattened row.
    pub fy: Signal<In, Bits<10>>,
    /// Flattened column.
    pub fx: Signal<In, Bits<10>>,
    /// Row dilation.
    pub dil: Signal<In, Bits<5>>,
    /// Row padding.
    pub pad_y: Signal<In, Bits<2>>,
    /// Column padding.
    pub pad_x: Signal<In, Bits<2>>,
    /// Pooled rows.
    pub pooled_h: Signal<In, Bits<10>>,
    /// Pooled columns.
    pub pooled_w: Signal<In, Bits<10>>,
    /// Position row.
    pub py: Signal<Out, Bits<10>>,
    /// Position column.
    pub px: Signal<Out, Bits<10>>,
    /// Inside the input.
    pub in_bounds: Signal<Out, Bit>,
    ty_dil: MulUnsigned<4, 5, 9>,
    ybase: Signal<Local, Bits<14>>,
    xbase: Signal<Local, Bits<14>>,
    ty_s: Signal<Local, Bits<14>>,
    tx_s: Signal<Local, Bits<14>>,
    ty_h: Signal<Local, Bits<14>>,
    tx_h: Signal<Local, Bits<14>>,
    mode_flatten: Constant<Bits<2>>,
    mode_transposed: Constant<Bits<2>>,
}

impl Default for TapPos {
    fn default() -> Self {
        Self {
            mode: Default::default(),
            oy: Default::default(),
            ox: Default::default(),
            ty: Default::default(),
            tx: Default::default(),
            fy: Default::default(),
            fx: Default::default(),
            dil: Default::default(),
            pad_y: Default::default(),
            pad_x: Default::default(),
            pooled_h: Default::default(),
            pooled_w: Default::default(),
            py: Default::default(),
            px: Default::default(),
            in_bounds: Default::default(),
            ty_dil: Default::default(),
            ybase: Default::default(),
            xbase: Default::default(),
            ty_s: Default::default(),
            tx_s: Default::default(),
            ty_h: Default::default(),
            tx_h: Default::default(),
            mode_flatten: Constant::new(1u64.into()),
            mode_transposed: Constant::new(2u64.into()),
        }
    }
}

impl Logic for TapPos {
    #[hdl_gen]
    fn update(&mut self) {
        self.ty_dil.a.next = self.ty.val();
        self.ty_dil.b.next = self.dil.val();
        self.ybase.next =
            bit_cast::<14, 10>(self.oy.val()) + bit_cast::<14, 9>(self.ty_dil.p.val());
        self.xbase.next = bit_cast::<14, 10>(self.ox.val()) + bit_cast::<14, 4>(self.tx.val());
        self.ty_s.next = self.ybase.val() - bit_cast::<14, 2>(self.pad_y.val());
        self.tx_s.next = self.xbase.val() - bit_cast::<14, 2>(self.pad_x.val());
        self.ty_h.next = self.ty_s.val() >> 1;
        self.tx_h.next = self.tx_s.val() >> 1;
        if self.mode.val() == self.mode_flatten.val() {
            self.py.next = self.fy.val();
            self.px.next = self.fx.val();
            self.in_bounds.next = self.fy.val() < self.pooled_h.val();
        } else if self.mode.val() == self.mode_transposed.val() {
            self.py.next = self.ty_h.val().get_bits::<10>(0);
            self.px.next = self.tx_h.val().get_bits::<10>(0);
            self.in_bounds.next = (self.ybase.val() >= bit_cast::<14, 2>(self.pad_y.val()))
                & (self.xbase.val() >= bit_cast::<14, 2>(self.pad_x.val()))
                & !self.ty_s.val().get_bit(0)
                & !self.tx_s.val().get_bit(0)
                & (self.ty_h.val() < bit_cast::<14, 10>(self.pooled_h.val()))
                & (self.tx_h.val() < bit_cast::<14, 10>(self.pooled_w.val()));
        } else {
            self.py.next = self.ty_s.val().get_bits::<10>(0);
            self.px.next = self.tx_s.val().get_bits::<10>(0);
            self.in_bounds.next = (self.ybase.val() >= bit_cast::<14, 2>(self.pad_y.val()))
                & (self.xbase.val() >= bit_cast::<14, 2>(self.pad_x.val()))
                & (self.ty_s.val() < bit_cast::<14, 10>(self.pooled_h.val()))
                & (self.tx_s.val() < bit_cast::<14, 10>(self.pooled_w.val()));
        }
    }
}

crate::dut_io! {
    impl[] TapPos {
        clock: no,
        inputs: [mode, oy, ox, ty, tx, fy, fx, dil, pad_y, pad_x, pooled_h, pooled_w],
        outputs: [py, px, in_bounds],
        notes: [],
    }
}

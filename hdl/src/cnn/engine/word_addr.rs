//! WordAddr: the data-memory word of one gather item (docs/cnn-engine-rtl.md "What happens
//! per cycle", gather; D-CNN-RTL "One address for all memories"). Combinational.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `py`, `px` | in | 10 | the tap's position in the pooled input ([`super::tap_pos::TapPos`]) |
//! | `pi`, `pj`, `o` | in | 5 | the pooling element's row and column, the operand ([`super::elem_walk::ElemWalk`]) |
//! | `e` | in | 5 | the input pass |
//! | `stride_y`, `stride_x` | in | 5 | pooling stride |
//! | `in_w`, `in_passes`, `operands` | in | 10, 5, 5 | input columns, passes, operands |
//! | `chw` | in | 1 | CHW input (word `pixel / 4`) |
//! | `in_roll` | in | 4 | the input is a rolling buffer of `2^in_roll` words (0: the whole frame) |
//! | `in_base` | in | 14 | the input's first word |
//! | `word` | out | 13 | the item's data-memory word |
//! | `lane` | out | 2 | the pixel's byte lane in a CHW word (`pixel % 4`) |
//!
//! The raw input pixel is `(py stride_y + pi) in_w + px stride_x + pj`; its word is
//! `in_base + ((pixel in_passes + e) operands + o)` (HWC) or `in_base + pixel / 4` (CHW), the
//! offset taken modulo `2^in_roll` in a rolling buffer (a streaming layer's). The arithmetic
//! is modulo 2^16 in five [`MulUnsigned`]s, the sum with `in_base` modulo 2^14; only the
//! word's low 13 bits leave the block.
//! Golden: `edgelearn_verif::golden::cnn_engine::word_addr`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::mul_u::MulUnsigned;
use rust_hdl::prelude::*;

/// The data-memory word of a gather item.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct WordAddr {
    /// Tap row in the pooled input.
    pub py: Signal<In, Bits<10>>,
    /// Tap column in the pooled input.
    pub px: Signal<In, Bits<10>>,
    /// Pooling element row.
    pub pi: Signal<In, Bits<5>>,
    /// Pooling element column.
    pub pj: Signal<In, Bits<5>>,
    /// Operand.
    pub o: Signal<In, Bits<5>>,
    /// Input pass.
    pub e: Signal<In, Bits<5>>,
    /// Pooling row stride.
    pub stride_y: Signal<In, Bits<5>>,
    /// Pooling column stride.
    pub stride_x: Signal<In, Bits<5>>,
    /// Input columns.
    pub in_w: Signal<In, Bits<10>>,
    /// Input passes.
    pub in_passes: Signal<In, Bits<5>>,
    /// Operands.
    pub operands: Signal<In, Bits<5>>,
    /// CHW input.
    pub chw: Signal<In, Bit>,
    /// Rolling input buffer: log2 of its words (0: none).
    pub in_roll: Signal<In, Bits<4>>,
    /// The input's first word.
    pub in_base: Signal<In, Bits<14>>,
    /// The item's word.
    pub word: Signal<Out, Bits<13>>,
    /// The pixel's lane in a CHW word.
    pub lane: Signal<Out, Bits<2>>,
    py_sy: MulUnsigned<10, 5, 16>,
    px_sx: MulUnsigned<10, 5, 16>,
    row_w: MulUnsigned<16, 10, 16>,
    pix_passes: MulUnsigned<16, 5, 16>,
    pe_ops: MulUnsigned<16, 5, 16>,
    pixel: Signal<Local, Bits<16>>,
    offset: Signal<Local, Bits<16>>,
    in_mask: Signal<Local, Bits<16>>,
    word14: Signal<Local, Bits<14>>,
}

impl Logic for WordAddr {
    #[hdl_gen]
    fn update(&mut self) {
        self.py_sy.a.next = self.py.val();
        self.py_sy.b.next = self.stride_y.val();
        self.px_sx.a.next = self.px.val();
        self.px_sx.b.next = self.stride_x.val();
        self.row_w.a.next = self.py_sy.p.val() + bit_cast::<16, 5>(self.pi.val());
        self.row_w.b.next = self.in_w.val();
        self.pixel.next =
            self.row_w.p.val() + self.px_sx.p.val() + bit_cast::<16, 5>(self.pj.val());
        self.pix_passes.a.next = self.pixel.val();
        self.pix_passes.b.next = self.in_passes.val();
        self.pe_ops.a.next = self.pix_passes.p.val() + bit_cast::<16, 5>(self.e.val());
        self.pe_ops.b.next = self.operands.val();
        self.offset.next = self.pe_ops.p.val() + bit_cast::<16, 5>(self.o.val());
        if self.chw.val() {
            self.offset.next = self.pixel.val() >> 2;
        }
        // A rolling buffer keeps the offset's low `in_roll` bits.
        self.in_mask.next = !(bit_cast::<16, 1>(false.into()));
        if self.in_roll.val() != 0 {
            self.in_mask.next = (bit_cast::<16, 1>(true.into()) << self.in_roll.val())
                - bit_cast::<16, 1>(true.into());
        }
        self.word14.next =
            self.in_base.val() + bit_cast::<14, 16>(self.offset.val() & self.in_mask.val());
        self.word.next = self.word14.val().get_bits::<13>(0);
        self.lane.next = self.pixel.val().get_bits::<2>(0);
    }
}

crate::dut_io! {
    impl[] WordAddr {
        clock: no,
        inputs: [
            py, px, pi, pj, o, e, stride_y, stride_x, in_w, in_passes, operands, chw, in_roll,
            in_base,
        ],
        outputs: [word, lane],
        notes: [],
    }
}

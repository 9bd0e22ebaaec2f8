//! OutStage: the output stage (spec max78000-cnn-engine.md §1.17, §2.4; docs/cnn-engine-rtl.md,
//! MAC): a channel's accumulator, on the pixel's last iteration, rounded, saturated and
//! activated into a byte, or written raw as 32 bits, and its data-memory location.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `valid` | in | 1 | M4: a result |
//! | `acc` | in | 48 | the accumulator (two's complement) |
//! | `oproc`, `oe`, `opix` | in | 7, 5, 20 | its output processor, output pass, output pixel |
//! | `wide` | in | 1 | write the raw 32 bits (four words per pixel and pass, one per lane) |
//! | `act` | in | 2 | 0 none, 1 ReLU, 2 Abs |
//! | `rshift`, `lshift` | in | 5, 4 | `7 - total shift`, as a right or a left shift |
//! | `out_passes`, `gap`, `out_base` | in | 5, 16, 16 | output passes, `write_gap + 1`, first output word |
//! | `out_roll` | in | 4 | the output is a rolling buffer of `2^out_roll` words (0: the whole frame) |
//! | `we` | out | 1 | write this cycle |
//! | `be` | out | 4 | byte lanes written |
//! | `gword` | out | 18 | data memory (17:13) and word (12:0) |
//! | `data` | out | 32 | the word (the byte in every lane, or the raw value) |
//!
//! Byte: `y = rshift ? floor((acc + 2^(rshift-1)) / 2^rshift) : acc << lshift` (round half
//! up, [`AsrFloor`]), saturated to [-128, 127] ([`Saturate`]), then ReLU (`max(y, 0)`) or Abs
//! (`|y|`, -128 -> 127); it goes to lane `oproc % 4` of memory `oproc / 4`, word `out_base +
//! (opix out_passes + oe) gap`. Raw: the low 32 bits of `acc` to word `out_base + 4 (opix
//! out_passes + oe) gap + oproc % 4`. In a rolling buffer (a streaming layer's output) the
//! offset from `out_base` is taken modulo `2^out_roll`. The word arithmetic is modulo 2^18 ([`MulWide`]).
//! Combinational (the data memory registers the write).
//! Golden: `edgelearn_verif::golden::cnn_engine::out_stage`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::asr::AsrFloor;
use crate::arith::mul_wide::MulWide;
use crate::arith::sat::Saturate;
use rust_hdl::prelude::*;

/// The output stage.
#[derive(Clone, Debug, LogicBlock)]
pub struct OutStage {
    /// A result.
    pub valid: Signal<In, Bit>,
    /// The accumulator.
    pub acc: Signal<In, Bits<48>>,
    /// Output processor.
    pub oproc: Signal<In, Bits<7>>,
    /// Output pass.
    pub oe: Signal<In, Bits<5>>,
    /// Output pixel.
    pub opix: Signal<In, Bits<20>>,
    /// Raw 32-bit output.
    pub wide: Signal<In, Bit>,
    /// Activation.
    pub act: Signal<In, Bits<2>>,
    /// Right shift.
    pub rshift: Signal<In, Bits<5>>,
    /// Left shift.
    pub lshift: Signal<In, Bits<4>>,
    /// Output passes.
    pub out_passes: Signal<In, Bits<5>>,
    /// `write_gap + 1`.
    pub gap: Signal<In, Bits<16>>,
    /// First output word.
    pub out_base: Signal<In, Bits<16>>,
    /// Rolling output buffer: log2 of its words (0: none).
    pub out_roll: Signal<In, Bits<4>>,
    /// Write.
    pub we: Signal<Out, Bit>,
    /// Byte lanes.
    pub be: Signal<Out, Bits<4>>,
    /// Memory and word.
    pub gword: Signal<Out, Bits<18>>,
    /// The word.
    pub data: Signal<Out, Bits<32>>,
    asr: AsrFloor<64, 5>,
    sat: Saturate<64, 8>,
    pe_mul: MulWide<18, 5, 18, 9>,
    idx_mul: MulWide<18, 16, 18, 9>,
    a64: Signal<Local, Bits<64>>,
    rnd: Signal<Local, Bits<64>>,
    y0: Signal<Local, Bits<64>>,
    y8: Signal<Local, Bits<8>>,
    y_act: Signal<Local, Bits<8>>,
    pe: Signal<Local, Bits<18>>,
    base: Signal<Local, Bits<18>>,
    omask: Signal<Local, Bits<18>>,
    sign48: Constant<Bits<48>>,
    ext64: Constant<Bits<64>>,
    one64: Constant<Bits<64>>,
    one5: Constant<Bits<5>>,
    act_relu: Constant<Bits<2>>,
    act_abs: Constant<Bits<2>>,
    min8: Constant<Bits<8>>,
    max8: Constant<Bits<8>>,
    sign8: Constant<Bits<8>>,
    all_lanes: Constant<Bits<4>>,
    lane0: Constant<Bits<4>>,
}

impl Default for OutStage {
    fn default() -> Self {
        Self {
            valid: Default::default(),
            acc: Default::default(),
            oproc: Default::default(),
            oe: Default::default(),
            opix: Default::default(),
            wide: Default::default(),
            act: Default::default(),
            rshift: Default::default(),
            lshift: Default::default(),
            out_passes: Default::default(),
            gap: Default::default(),
            out_base: Default::default(),
            out_roll: Default::default(),
            we: Default::default(),
            be: Default::default(),
            gword: Default::default(),
            data: Default::default(),
            asr: Default::default(),
            sat: Saturate::twos_complement(),
            pe_mul: Default::default(),
            idx_mul: Default::default(),
            a64: Default::default(),
            rnd: Default::default(),
            y0: Default::default(),
            y8: Default::default(),
            y_act: Default::default(),
            pe: Default::default(),
            base: Default::default(),
            omask: Default::default(),
            sign48: Constant::new((1u64 << 47).into()),
            ext64: Constant::new((0xffffu64 << 48).into()),
            one64: Constant::new(1u64.into()),
            one5: Constant::new(1u64.into()),
            act_relu: Constant::new(1u64.into()),
            act_abs: Constant::new(2u64.into()),
            min8: Constant::new(0x80u64.into()),
            max8: Constant::new(0x7fu64.into()),
            sign8: Constant::new(0x80u64.into()),
            all_lanes: Constant::new(0xfu64.into()),
            lane0: Constant::new(1u64.into()),
        }
    }
}

impl Logic for OutStage {
    #[hdl_gen]
    fn update(&mut self) {
        // The byte: round half up by rshift (or shift left), saturate, activate.
        self.a64.next = bit_cast::<64, 48>(self.acc.val());
        if (self.acc.val() & self.sign48.val()).any() {
            self.a64.next = bit_cast::<64, 48>(self.acc.val()) | self.ext64.val();
        }
        self.rnd.next = 0.into();
        if self.rshift.val() != 0 {
            self.rnd.next = self.one64.val() << (self.rshift.val() - self.one5.val());
        }
        self.asr.data_in.next = self.a64.val() + self.rnd.val();
        self.asr.shift.next = self.rshift.val();
        if self.rshift.val() != 0 {
            self.y0.next = self.asr.data_out.val();
        } else {
            self.y0.next = self.a64.val() << self.lshift.val();
        }
        self.sat.data_in.next = self.y0.val();
        self.y8.next = self.sat.data_out.val();
        self.y_act.next = self.y8.val();
        if self.act.val() == self.act_relu.val() {
            if (self.y8.val() & self.sign8.val()).any() {
                self.y_act.next = 0.into();
            }
        } else if self.act.val() == self.act_abs.val() {
            if self.y8.val() == self.min8.val() {
                self.y_act.next = self.max8.val();
            } else if (self.y8.val() & self.sign8.val()).any() {
                self.y_act.next = !self.y8.val() + 1;
            }
        }
        // Where it goes.
        self.pe_mul.a.next = self.opix.val().get_bits::<18>(0);
        self.pe_mul.b.next = self.out_passes.val();
        self.pe.next = self.pe_mul.p.val() + bit_cast::<18, 5>(self.oe.val());
        self.idx_mul.a.next = self.pe.val();
        self.idx_mul.b.next = self.gap.val();
        self.base.next = (bit_cast::<18, 4>(self.oproc.val().get_bits::<4>(2)) << 13)
            + bit_cast::<18, 16>(self.out_base.val());
        self.omask.next = !(bit_cast::<18, 1>(false.into()));
        if self.out_roll.val() != 0 {
            self.omask.next = (bit_cast::<18, 1>(true.into()) << self.out_roll.val())
                - bit_cast::<18, 1>(true.into());
        }
        self.we.next = self.valid.val();
        if self.wide.val() {
            self.be.next = self.all_lanes.val();
            self.data.next = self.acc.val().get_bits::<32>(0);
            self.gword.next = self.base.val()
                + ((self.idx_mul.p.val() << 2) & self.omask.val())
                + bit_cast::<18, 2>(self.oproc.val().get_bits::<2>(0));
        } else {
            self.be.next = self.lane0.val() << self.oproc.val().get_bits::<2>(0);
            self.data.next = bit_cast::<32, 8>(self.y_act.val())
                | (bit_cast::<32, 8>(self.y_act.val()) << 8)
                | (bit_cast::<32, 8>(self.y_act.val()) << 16)
                | (bit_cast::<32, 8>(self.y_act.val()) << 24);
            self.gword.next = self.base.val() + (self.idx_mul.p.val() & self.omask.val());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_stage_is_synthesizable() {
        crate::synth_check::assert_synthesizable("out_stage", OutStage::default());
    }
}

//! QuantRelu: the LEL activation quantizer `max(0, sat_sym(floor(acc / 2^(FRAC + alpha)), OW))`
//! (spec lel-platform.md §2.4 "FC core", "Conv core"; thesis T:910-918).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `acc` | in | ACC | two's-complement accumulator |
//! | `alpha` | in | 3 | scale field: total right shift is `FRAC + alpha` |
//! | `data_out` | out | OW | quantized, clipped to `[0, 2^(OW-1)-1]` |
//! | `positive` | out | 1 | `acc > 0` (the ReLU mask, taken before quantization, T:915) |
//!
//! Combinational: [`AsrFloor`] then symmetric [`Saturate`] then ReLU. FRAC is the number of
//! weight fraction bits (5 for the thesis's 6-bit weights) and is fixed at construction.
//! Golden: `edgelearn_verif::golden::matmul::quant_relu`. Tests: `tests/matmul.rs`.

use crate::arith::asr::AsrFloor;
use crate::arith::sat::Saturate;
use rust_hdl::prelude::*;

/// Floor shift, symmetric saturation and ReLU of one accumulator.
#[derive(Clone, Debug, LogicBlock)]
pub struct QuantRelu<const ACC: usize, const OW: usize> {
    /// Accumulator (two's complement).
    pub acc: Signal<In, Bits<ACC>>,
    /// Scale field; the shift is `FRAC + alpha`.
    pub alpha: Signal<In, Bits<3>>,
    /// Quantized ReLU output.
    pub data_out: Signal<Out, Bits<OW>>,
    q: Signal<Local, Bits<OW>>,
    /// `acc > 0`.
    pub positive: Signal<Out, Bit>,
    asr: AsrFloor<ACC, 4>,
    sat: Saturate<ACC, OW>,
    frac: Constant<Bits<4>>,
    sign_acc: Constant<Bits<ACC>>,
    sign_out: Constant<Bits<OW>>,
}

impl<const ACC: usize, const OW: usize> QuantRelu<ACC, OW> {
    /// A quantizer whose shift is `frac + alpha` (`frac + 7` must fit in 4 bits).
    pub fn new(frac: u8) -> Self {
        assert!(
            frac <= 8,
            "QuantRelu: frac {frac} + alpha 7 must be at most 15"
        );
        Self {
            acc: Default::default(),
            alpha: Default::default(),
            data_out: Default::default(),
            q: Default::default(),
            positive: Default::default(),
            asr: Default::default(),
            sat: Saturate::symmetric(),
            frac: Constant::new(Bits::<4>::from(frac as u64)),
            sign_acc: Constant::new(Bits::<ACC>::from(1u64 << (ACC - 1))),
            sign_out: Constant::new(Bits::<OW>::from(1u64 << (OW - 1))),
        }
    }
}

impl<const ACC: usize, const OW: usize> Logic for QuantRelu<ACC, OW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.asr.data_in.next = self.acc.val();
        self.asr.shift.next = bit_cast::<4, 3>(self.alpha.val()) + self.frac.val();
        self.sat.data_in.next = self.asr.data_out.val();
        self.q.next = self.sat.data_out.val();
        if (self.sat.data_out.val() & self.sign_out.val()).any() {
            self.q.next = 0.into();
        }
        self.positive.next = self.acc.val().any() & !(self.acc.val() & self.sign_acc.val()).any();
        self.data_out.next = self.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quant_relu_is_synthesizable() {
        crate::synth_check::assert_synthesizable("quant_relu", QuantRelu::<24, 8>::new(5));
    }
}

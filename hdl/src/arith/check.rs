//! ArithCheck: a combinational verification top that drives one instance of every
//! arithmetic primitive, at the widths the LEL blocks use and at small widths that can be
//! swept exhaustively, from three shared operand ports. It exists so that one stimulus
//! checks every primitive on every backend in one build (emitted as `arith_check`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `a` | in | 32 | operand; each instance takes its low bits |
//! | `b` | in | 16 | operand; each instance takes its low bits |
//! | `shift` | in | 5 | shift amount; each instance takes its low bits |
//! | `sext_6_16` | out | 16 | `sext(a[5:0])` |
//! | `sext_8_24` | out | 24 | `sext(a[7:0])` |
//! | `asr_8` | out | 8 | `floor(a[7:0] / 2^shift[3:0])` |
//! | `asr_24` | out | 24 | `floor(a[23:0] / 2^shift[4:0])` |
//! | `asr_40` | out | 40 | `floor(sext40(a) / 2^shift)` (the >32-bit representation) |
//! | `sat_sym_10_8`, `sat_tc_10_8` | out | 8 | `a[9:0]` clamped to 8 bits |
//! | `sat_sym_9_6`, `sat_tc_9_6` | out | 6 | `a[8:0]` clamped to 6 bits |
//! | `sat_sym_24_8` | out | 8 | `a[23:0]` clamped to 8 bits, symmetric |
//! | `mul_8x6` | out | 14 | `a[7:0] * b[5:0]` |
//! | `mul_5x7` | out | 12 | `a[4:0] * b[6:0]` |
//! | `mul_16x16` | out | 32 | `a[15:0] * b[15:0]` |
//! | `mul_8x6_p24` | out | 24 | `a[7:0] * b[5:0]` into 24 bits (the MAC's form) |
//! | `max_8` | out | 8 | `max(a[7:0], b[7:0])` |
//! | `gt_8` | out | 1 | `a[7:0] > b[7:0]` (signed) |
//! | `abs_16` | out | 16 | `|a[15:0]|` (unsigned) |
//! | `clamp_23_15` | out | 15 | `a[22:0]` clamped to [-8192, 8192] (the loss's clamp) |
//!
//! Golden: `edgelearn_verif::golden::arith`. Tests: `tests/arith.rs`.

use super::abs::AbsVal;
use super::asr::AsrFloor;
use super::cmp::CmpGt;
use super::max::MaxSigned;
use super::mul::MulSigned;
use super::sat::Saturate;
use super::sext::SignExtend;
use rust_hdl::prelude::*;

/// Every primitive behind shared operand ports.
#[derive(Clone, Debug, LogicBlock)]
pub struct ArithCheck {
    /// Operand A.
    pub a: Signal<In, Bits<32>>,
    /// Operand B.
    pub b: Signal<In, Bits<16>>,
    /// Shift amount.
    pub shift: Signal<In, Bits<5>>,
    /// `sext(a[5:0])` to 16 bits.
    pub sext_6_16: Signal<Out, Bits<16>>,
    /// `sext(a[7:0])` to 24 bits.
    pub sext_8_24: Signal<Out, Bits<24>>,
    /// `floor(a[7:0] / 2^shift[3:0])`.
    pub asr_8: Signal<Out, Bits<8>>,
    /// `floor(a[23:0] / 2^shift)`.
    pub asr_24: Signal<Out, Bits<24>>,
    /// `floor(sext40(a) / 2^shift)`.
    pub asr_40: Signal<Out, Bits<40>>,
    /// `a[9:0]` clamped to [-127, 127].
    pub sat_sym_10_8: Signal<Out, Bits<8>>,
    /// `a[9:0]` clamped to [-128, 127].
    pub sat_tc_10_8: Signal<Out, Bits<8>>,
    /// `a[8:0]` clamped to [-31, 31].
    pub sat_sym_9_6: Signal<Out, Bits<6>>,
    /// `a[8:0]` clamped to [-32, 31].
    pub sat_tc_9_6: Signal<Out, Bits<6>>,
    /// `a[23:0]` clamped to [-127, 127].
    pub sat_sym_24_8: Signal<Out, Bits<8>>,
    /// `a[7:0] * b[5:0]`.
    pub mul_8x6: Signal<Out, Bits<14>>,
    /// `a[4:0] * b[6:0]`.
    pub mul_5x7: Signal<Out, Bits<12>>,
    /// `a[15:0] * b[15:0]`.
    pub mul_16x16: Signal<Out, Bits<32>>,
    /// `a[7:0] * b[5:0]` in 24 bits.
    pub mul_8x6_p24: Signal<Out, Bits<24>>,
    /// `max(a[7:0], b[7:0])`.
    pub max_8: Signal<Out, Bits<8>>,
    /// `a[7:0] > b[7:0]`.
    pub gt_8: Signal<Out, Bit>,
    /// `|a[15:0]|`.
    pub abs_16: Signal<Out, Bits<16>>,
    /// `a[22:0]` clamped to [-8192, 8192].
    pub clamp_23_15: Signal<Out, Bits<15>>,
    u_sext_6_16: SignExtend<6, 16>,
    u_sext_8_24: SignExtend<8, 24>,
    u_sext_32_40: SignExtend<32, 40>,
    u_asr_8: AsrFloor<8, 4>,
    u_asr_24: AsrFloor<24, 5>,
    u_asr_40: AsrFloor<40, 5>,
    u_sat_sym_10_8: Saturate<10, 8>,
    u_sat_tc_10_8: Saturate<10, 8>,
    u_sat_sym_9_6: Saturate<9, 6>,
    u_sat_tc_9_6: Saturate<9, 6>,
    u_sat_sym_24_8: Saturate<24, 8>,
    u_mul_8x6: MulSigned<8, 6, 14>,
    u_mul_5x7: MulSigned<5, 7, 12>,
    u_mul_16x16: MulSigned<16, 16, 32>,
    u_mul_8x6_p24: MulSigned<8, 6, 24>,
    u_max_8: MaxSigned<8>,
    u_gt_8: CmpGt<8>,
    u_abs_16: AbsVal<16>,
    u_clamp_23_15: Saturate<23, 15>,
}

impl Default for ArithCheck {
    fn default() -> Self {
        Self {
            a: Default::default(),
            b: Default::default(),
            shift: Default::default(),
            sext_6_16: Default::default(),
            sext_8_24: Default::default(),
            asr_8: Default::default(),
            asr_24: Default::default(),
            asr_40: Default::default(),
            sat_sym_10_8: Default::default(),
            sat_tc_10_8: Default::default(),
            sat_sym_9_6: Default::default(),
            sat_tc_9_6: Default::default(),
            sat_sym_24_8: Default::default(),
            mul_8x6: Default::default(),
            mul_5x7: Default::default(),
            mul_16x16: Default::default(),
            mul_8x6_p24: Default::default(),
            max_8: Default::default(),
            gt_8: Default::default(),
            abs_16: Default::default(),
            clamp_23_15: Default::default(),
            u_sext_6_16: Default::default(),
            u_sext_8_24: Default::default(),
            u_sext_32_40: Default::default(),
            u_asr_8: Default::default(),
            u_asr_24: Default::default(),
            u_asr_40: Default::default(),
            u_sat_sym_10_8: Saturate::symmetric(),
            u_sat_tc_10_8: Saturate::twos_complement(),
            u_sat_sym_9_6: Saturate::symmetric(),
            u_sat_tc_9_6: Saturate::twos_complement(),
            u_sat_sym_24_8: Saturate::symmetric(),
            u_mul_8x6: Default::default(),
            u_mul_5x7: Default::default(),
            u_mul_16x16: Default::default(),
            u_mul_8x6_p24: Default::default(),
            u_max_8: Default::default(),
            u_gt_8: Default::default(),
            u_abs_16: Default::default(),
            u_clamp_23_15: Saturate::with_bounds(-8192, 8192),
        }
    }
}

impl Logic for ArithCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.u_sext_6_16.data_in.next = self.a.val().get_bits::<6>(0);
        self.sext_6_16.next = self.u_sext_6_16.data_out.val();
        self.u_sext_8_24.data_in.next = self.a.val().get_bits::<8>(0);
        self.sext_8_24.next = self.u_sext_8_24.data_out.val();
        self.u_sext_32_40.data_in.next = self.a.val();

        self.u_asr_8.data_in.next = self.a.val().get_bits::<8>(0);
        self.u_asr_8.shift.next = self.shift.val().get_bits::<4>(0);
        self.asr_8.next = self.u_asr_8.data_out.val();
        self.u_asr_24.data_in.next = self.a.val().get_bits::<24>(0);
        self.u_asr_24.shift.next = self.shift.val();
        self.asr_24.next = self.u_asr_24.data_out.val();
        self.u_asr_40.data_in.next = self.u_sext_32_40.data_out.val();
        self.u_asr_40.shift.next = self.shift.val();
        self.asr_40.next = self.u_asr_40.data_out.val();

        self.u_sat_sym_10_8.data_in.next = self.a.val().get_bits::<10>(0);
        self.sat_sym_10_8.next = self.u_sat_sym_10_8.data_out.val();
        self.u_sat_tc_10_8.data_in.next = self.a.val().get_bits::<10>(0);
        self.sat_tc_10_8.next = self.u_sat_tc_10_8.data_out.val();
        self.u_sat_sym_9_6.data_in.next = self.a.val().get_bits::<9>(0);
        self.sat_sym_9_6.next = self.u_sat_sym_9_6.data_out.val();
        self.u_sat_tc_9_6.data_in.next = self.a.val().get_bits::<9>(0);
        self.sat_tc_9_6.next = self.u_sat_tc_9_6.data_out.val();
        self.u_sat_sym_24_8.data_in.next = self.a.val().get_bits::<24>(0);
        self.sat_sym_24_8.next = self.u_sat_sym_24_8.data_out.val();

        self.u_mul_8x6.a.next = self.a.val().get_bits::<8>(0);
        self.u_mul_8x6.b.next = self.b.val().get_bits::<6>(0);
        self.mul_8x6.next = self.u_mul_8x6.p.val();
        self.u_mul_5x7.a.next = self.a.val().get_bits::<5>(0);
        self.u_mul_5x7.b.next = self.b.val().get_bits::<7>(0);
        self.mul_5x7.next = self.u_mul_5x7.p.val();
        self.u_mul_16x16.a.next = self.a.val().get_bits::<16>(0);
        self.u_mul_16x16.b.next = self.b.val();
        self.mul_16x16.next = self.u_mul_16x16.p.val();
        self.u_mul_8x6_p24.a.next = self.a.val().get_bits::<8>(0);
        self.u_mul_8x6_p24.b.next = self.b.val().get_bits::<6>(0);
        self.mul_8x6_p24.next = self.u_mul_8x6_p24.p.val();

        self.u_max_8.a.next = self.a.val().get_bits::<8>(0);
        self.u_max_8.b.next = self.b.val().get_bits::<8>(0);
        self.max_8.next = self.u_max_8.data_out.val();

        self.u_gt_8.a.next = self.a.val().get_bits::<8>(0);
        self.u_gt_8.b.next = self.b.val().get_bits::<8>(0);
        self.gt_8.next = self.u_gt_8.gt.val();
        self.u_abs_16.data_in.next = self.a.val().get_bits::<16>(0);
        self.abs_16.next = self.u_abs_16.magnitude.val();
        self.u_clamp_23_15.data_in.next = self.a.val().get_bits::<23>(0);
        self.clamp_23_15.next = self.u_clamp_23_15.data_out.val();
    }
}

crate::dut_io! {
    impl[] ArithCheck {
        clock: no,
        inputs: [a, b, shift],
        outputs: [
            sext_6_16, sext_8_24, asr_8, asr_24, asr_40, sat_sym_10_8, sat_tc_10_8,
            sat_sym_9_6, sat_tc_9_6, sat_sym_24_8, mul_8x6, mul_5x7, mul_16x16, mul_8x6_p24,
            max_8, gt_8, abs_16, clamp_23_15,
        ],
        notes: [
            sext_6_16: (true, 1), sext_8_24: (true, 1), asr_8: (true, 1), asr_24: (true, 1),
            asr_40: (true, 1), sat_sym_10_8: (true, 1), sat_tc_10_8: (true, 1),
            sat_sym_9_6: (true, 1), sat_tc_9_6: (true, 1), sat_sym_24_8: (true, 1),
            mul_8x6: (true, 1), mul_5x7: (true, 1), mul_16x16: (true, 1),
            mul_8x6_p24: (true, 1), max_8: (true, 1), clamp_23_15: (true, 1),
        ],
    }
}

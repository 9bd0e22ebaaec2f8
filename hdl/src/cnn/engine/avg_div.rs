//! AvgDiv: the average pooling's division (docs/decisions.md D-CNN-RTL "Average pooling"):
//! a pooling sum divided by the window's area with a multiply by a magic number, truncating
//! toward zero or rounding half away from zero, as the MAX78000 does.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `value` | in | 18 | the sum `s` (two's complement; \|s\| < 2^17) |
//! | `round` | in | 1 | round half away from zero (else truncate toward zero) |
//! | `d` | in | 9 | the area (1..512) |
//! | `m` | in | 18 | magic multiplier: `n / d == (n m) >> sh` for every 17-bit `n` |
//! | `sh` | in | 5 | its shift |
//! | `avg` | out | 8 | `sign(s) ((n m) >> sh)`, low 8 bits: `n = \|s\|`, or `n = 2\|s\| + d` when rounding (the loader's `m`, `sh` then divide by `2d`) |
//!
//! Combinational. The 18 x 18 product is a [`MulWide`] (rust-hdl multiplies 16 x 16). One per
//! processor: only the unit that pools divides, at the end of its window.
//! Golden: `edgelearn_verif::golden::cnn_engine::avg_div`. Tests: `tests/cnn_engine_blocks.rs`.

use crate::arith::mul_wide::MulWide;
use rust_hdl::prelude::*;

/// The average's division.
#[derive(Clone, Debug, LogicBlock)]
pub struct AvgDiv {
    /// The sum.
    pub value: Signal<In, Bits<18>>,
    /// Round half away from zero.
    pub round: Signal<In, Bit>,
    /// The area.
    pub d: Signal<In, Bits<9>>,
    /// Magic multiplier.
    pub m: Signal<In, Bits<18>>,
    /// Shift.
    pub sh: Signal<In, Bits<5>>,
    /// The average (8-bit two's complement).
    pub avg: Signal<Out, Bits<8>>,
    mul: MulWide<18, 18, 36, 9>,
    mag: Signal<Local, Bits<18>>,
    num: Signal<Local, Bits<18>>,
    quo: Signal<Local, Bits<36>>,
    q8: Signal<Local, Bits<8>>,
    sign18: Constant<Bits<18>>,
}

impl Default for AvgDiv {
    fn default() -> Self {
        Self {
            value: Default::default(),
            round: Default::default(),
            d: Default::default(),
            m: Default::default(),
            sh: Default::default(),
            avg: Default::default(),
            mul: Default::default(),
            mag: Default::default(),
            num: Default::default(),
            quo: Default::default(),
            q8: Default::default(),
            sign18: Constant::new(Bits::<18>::from(1u64 << 17)),
        }
    }
}

impl Logic for AvgDiv {
    #[hdl_gen]
    fn update(&mut self) {
        self.mag.next = self.value.val();
        if (self.value.val() & self.sign18.val()).any() {
            self.mag.next = !self.value.val() + 1;
        }
        self.num.next = self.mag.val();
        if self.round.val() {
            self.num.next = (self.mag.val() << 1) + bit_cast::<18, 9>(self.d.val());
        }
        self.mul.a.next = self.num.val();
        self.mul.b.next = self.m.val();
        self.quo.next = self.mul.p.val() >> self.sh.val();
        self.q8.next = self.quo.val().get_bits::<8>(0);
        if (self.value.val() & self.sign18.val()).any() {
            self.avg.next = !self.q8.val() + 1;
        } else {
            self.avg.next = self.q8.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avg_div_is_synthesizable() {
        crate::synth_check::assert_synthesizable("avg_div", AvgDiv::default());
    }
}

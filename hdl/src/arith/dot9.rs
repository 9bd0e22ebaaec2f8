//! Dot9: the dot product of up to nine pairs of 8-bit two's-complement values, from
//! unsigned products of offset-binary operands (the CNN engine's per-processor MAC).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `x` | in | 72 | values, pair t in bits `8t+7 : 8t` (two's complement) |
//! | `w` | in | 72 | weights, the same layout |
//! | `n` | in | 4 | pairs used: pairs t < n count (n = 0..9; above 9, all nine) |
//! | `dot` | out | 20 | `sum_{t<n} x_t w_t` (two's complement; the exact range is 9 x 2^14) |
//!
//! Combinational. Each operand is taken in offset binary, `x' = x + 128` (its sign bit
//! flipped, 0..255), so every product is an unsigned 16 x 16 multiply (rust-hdl's only
//! multiply, pitfall P2) with no sign correction: `x w = x'w' - 128 (x' + w') + 2^14`. A pair
//! not used has its value forced to 0, so it contributes exactly 0 and every pair takes the
//! same path (no per-pair select of the sums): `dot = sum_t x'w' - 128 sum_t (x' + w') +
//! 9 x 2^14`, whose low 20 bits are the result (the adders above bit 19 feed nothing, so
//! synthesis drops them). No `Signed`, no signed shift, no sign extension (D-BITS).
//! Golden: `edgelearn_verif::golden::arith::dot9`. Tests: `tests/arith.rs` (every 8 x 8
//! pair, corner vectors, random vectors, every n).

use rust_hdl::prelude::*;

/// Pairs of a [`Dot9`].
pub const PAIRS: usize = 9;

/// Nine-pair signed dot product.
#[derive(Clone, Debug, LogicBlock)]
pub struct Dot9 {
    /// Values.
    pub x: Signal<In, Bits<72>>,
    /// Weights.
    pub w: Signal<In, Bits<72>>,
    /// Pairs used.
    pub n: Signal<In, Bits<4>>,
    /// The dot product.
    pub dot: Signal<Out, Bits<20>>,
    xb: Signal<Local, Bits<8>>,
    wb: Signal<Local, Bits<8>>,
    xo: [Signal<Local, Bits<16>>; PAIRS],
    wo: [Signal<Local, Bits<16>>; PAIRS],
    prod: [Signal<Local, Bits<32>>; PAIRS],
    sum: Signal<Local, Bits<32>>,
    offsets: Signal<Local, Bits<16>>,
    total: Signal<Local, Bits<32>>,
    index: [Constant<Bits<4>>; PAIRS],
    bias16: Constant<Bits<16>>,
    squares: Constant<Bits<32>>,
}

impl Default for Dot9 {
    fn default() -> Self {
        Self {
            x: Default::default(),
            w: Default::default(),
            n: Default::default(),
            dot: Default::default(),
            xb: Default::default(),
            wb: Default::default(),
            xo: Default::default(),
            wo: Default::default(),
            prod: Default::default(),
            sum: Default::default(),
            offsets: Default::default(),
            total: Default::default(),
            index: array_init::array_init(|t| Constant::new((t as u64).into())),
            bias16: Constant::new(0x80u64.into()),
            squares: Constant::new(((PAIRS as u64) << 14).into()),
        }
    }
}

impl Logic for Dot9 {
    #[hdl_gen]
    fn update(&mut self) {
        self.sum.next = self.squares.val();
        self.offsets.next = 0.into();
        for t in 0..PAIRS {
            // x' = 128 (x = 0) for a pair not used: x'w' - 128 (x' + w') + 2^14 = 0.
            // Byte t of each operand (8-bit selects: a byte never straddles a 32-bit word of
            // the simulators' wide values).
            self.xb.next = self.x.val().get_bits::<8>(8 * t);
            self.wb.next = self.w.val().get_bits::<8>(8 * t);
            self.xo[t].next = self.bias16.val();
            if self.index[t].val() < self.n.val() {
                self.xo[t].next = bit_cast::<16, 8>(self.xb.val()) ^ self.bias16.val();
            }
            self.wo[t].next = bit_cast::<16, 8>(self.wb.val()) ^ self.bias16.val();
            self.prod[t].next = self.xo[t].val() * self.wo[t].val();
            self.sum.next = self.sum.val() + self.prod[t].val();
            self.offsets.next = self.offsets.val() + self.xo[t].val() + self.wo[t].val();
        }
        self.total.next = self.sum.val() - (bit_cast::<32, 16>(self.offsets.val()) << 7);
        self.dot.next = self.total.val().get_bits::<20>(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot9_is_synthesizable() {
        crate::synth_check::assert_synthesizable("dot9", Dot9::default());
    }
}

//! Golden twins of the arithmetic primitives (`edgelearn_hdl::arith`), written from their
//! definitions rather than from the RTL's bit tricks: floor division for the shift, clamps
//! for saturation, native multiplication for the product.

/// Read the low `n` bits of `x` as two's complement.
#[inline(always)]
pub fn sext(x: u64, n: u32) -> i64 {
    assert!((1..=64).contains(&n));
    let shift = 64 - n;
    ((x << shift) as i64) >> shift
}

/// `x` reduced to `n` bits of two's complement (wrap-around).
#[inline(always)]
pub fn wrap(x: i64, n: u32) -> i64 {
    sext(x as u64, n)
}

/// `floor(x / 2^s)`, for any `s` (large shifts give 0 or -1).
#[inline(always)]
pub fn asr_floor(x: i64, s: u32) -> i64 {
    if s >= 63 {
        if x < 0 {
            -1
        } else {
            0
        }
    } else {
        x.div_euclid(1i64 << s)
    }
}

/// Clamp to the symmetric K-bit range `[-(2^(K-1)-1), 2^(K-1)-1]` (the LEL quantizer).
#[inline(always)]
pub fn sat_sym(x: i64, k: u32) -> i64 {
    let hi = (1i64 << (k - 1)) - 1;
    x.clamp(-hi, hi)
}

/// Clamp to the full K-bit two's-complement range `[-2^(K-1), 2^(K-1)-1]`.
pub fn sat_tc(x: i64, k: u32) -> i64 {
    let hi = (1i64 << (k - 1)) - 1;
    x.clamp(-hi - 1, hi)
}

/// Signed product.
pub fn mul_signed(a: i64, b: i64) -> i64 {
    a * b
}

/// `max(0, x)`.
#[inline(always)]
pub fn relu(x: i64) -> i64 {
    x.max(0)
}

/// Unsigned product modulo 2^p (`MulUnsigned`, `MulWide`).
pub fn mul_unsigned(a: u64, b: u64, p: u32) -> u64 {
    let full = a as u128 * b as u128;
    (full & ((1u128 << p) - 1)) as u64
}

/// `sum_{t < n} x_t w_t` of nine pairs of 8-bit two's-complement values (`Dot9`; n above 9
/// counts all nine).
pub fn dot9(x: &[i64; 9], w: &[i64; 9], n: usize) -> i64 {
    (0..n.min(9)).map(|t| x[t] * w[t]).sum()
}

/// Nine bytes of a 72-bit word as two's-complement values.
pub fn bytes9(v: u128) -> [i64; 9] {
    std::array::from_fn(|t| sext((v >> (8 * t)) as u64 & 0xff, 8))
}

/// Inputs of the `arith_check_wide` verification top.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArithWideIn {
    /// Operand A (18 bits).
    pub a: u32,
    /// Operand B (18 bits).
    pub b: u32,
    /// Dot9 values, nine bytes (72 bits).
    pub x: u128,
    /// Dot9 weights, nine bytes (72 bits).
    pub w: u128,
    /// Dot9 pairs used (4 bits).
    pub n: u8,
}

/// Outputs of the `arith_check_wide` top.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArithWideOut {
    pub mul_u_10x6: u64,
    pub mul_wide_8x8: u64,
    pub mul_wide_18x18: u64,
    pub dot9: i64,
}

/// What every instance of the `arith_check_wide` top computes.
pub fn arith_check_wide(i: ArithWideIn) -> ArithWideOut {
    let (a, b) = (i.a as u64, i.b as u64);
    ArithWideOut {
        mul_u_10x6: mul_unsigned(a & 0x3ff, b & 0x3f, 16),
        mul_wide_8x8: mul_unsigned(a & 0xff, b & 0xff, 16),
        mul_wide_18x18: mul_unsigned(a & 0x3ffff, b & 0x3ffff, 36),
        dot9: dot9(&bytes9(i.x), &bytes9(i.w), i.n as usize),
    }
}

/// Inputs of the `arith_check` verification top.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArithCheckIn {
    /// Operand A (32 bits).
    pub a: u32,
    /// Operand B (16 bits).
    pub b: u16,
    /// Shift amount (5 bits).
    pub shift: u8,
}

/// Outputs of the `arith_check` top, as signed integers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ArithCheckOut {
    pub sext_6_16: i64,
    pub sext_8_24: i64,
    pub asr_8: i64,
    pub asr_24: i64,
    pub asr_40: i64,
    pub sat_sym_10_8: i64,
    pub sat_tc_10_8: i64,
    pub sat_sym_9_6: i64,
    pub sat_tc_9_6: i64,
    pub sat_sym_24_8: i64,
    pub mul_8x6: i64,
    pub mul_5x7: i64,
    pub mul_16x16: i64,
    pub mul_8x6_p24: i64,
    pub max_8: i64,
    pub gt_8: i64,
    pub abs_16: i64,
    pub clamp_23_15: i64,
}

/// What every instance of the `arith_check` top computes.
pub fn arith_check(i: ArithCheckIn) -> ArithCheckOut {
    let a = i.a as u64;
    let b = i.b as u64;
    let s = i.shift as u32;
    ArithCheckOut {
        sext_6_16: sext(a, 6),
        sext_8_24: sext(a, 8),
        asr_8: asr_floor(sext(a, 8), s & 15),
        asr_24: asr_floor(sext(a, 24), s),
        asr_40: asr_floor(sext(a, 32), s),
        sat_sym_10_8: sat_sym(sext(a, 10), 8),
        sat_tc_10_8: sat_tc(sext(a, 10), 8),
        sat_sym_9_6: sat_sym(sext(a, 9), 6),
        sat_tc_9_6: sat_tc(sext(a, 9), 6),
        sat_sym_24_8: sat_sym(sext(a, 24), 8),
        mul_8x6: mul_signed(sext(a, 8), sext(b, 6)),
        mul_5x7: mul_signed(sext(a, 5), sext(b, 7)),
        mul_16x16: wrap(mul_signed(sext(a, 16), sext(b, 16)), 32),
        mul_8x6_p24: mul_signed(sext(a, 8), sext(b, 6)),
        max_8: sext(a, 8).max(sext(b, 8)),
        gt_8: (sext(a, 8) > sext(b, 8)) as i64,
        abs_16: sext(a, 16).unsigned_abs() as i64,
        clamp_23_15: sext(a, 23).clamp(-8192, 8192),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corner_values() {
        assert_eq!(sext(0x80, 8), -128);
        assert_eq!(sext(0x7f, 8), 127);
        assert_eq!(asr_floor(-1, 5), -1);
        assert_eq!(asr_floor(-33, 5), -2);
        assert_eq!(asr_floor(31, 5), 0);
        assert_eq!(asr_floor(-128, 70), -1);
        assert_eq!(sat_sym(-128, 8), -127);
        assert_eq!(sat_tc(-128, 8), -128);
        assert_eq!(sat_sym(40, 6), 31);
        assert_eq!(sat_sym(-40, 6), -31);
        assert_eq!(wrap(-32768 * -32768, 32), 1 << 30);
        assert_eq!(wrap(1 << 31, 32), -(1 << 31));
    }
}

//! Port values: unbounded-width unsigned words, four-state words (per-bit X and Z), lane
//! packing, and two's-complement views.

use bitvec::prelude::{BitVec, Lsb0};
use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, ToPrimitive, Zero};
use std::fmt;

/// One sampled output value: known bits, or a word containing X or Z.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Every bit is 0 or 1.
    Known(BigUint),
    /// At least one bit is X or Z.
    Unknown(FourState),
}

/// A word in four states, bit by bit: 0, 1, X (unknown) or Z (undriven). Bit `i` of each
/// mask is bit `i` of the word (least significant first).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FourState {
    /// The 0/1 value of the bits that are neither X nor Z (0 where they are).
    ones: BitVec<u64, Lsb0>,
    /// The bits that are X.
    x: BitVec<u64, Lsb0>,
    /// The bits that are Z.
    z: BitVec<u64, Lsb0>,
}

impl FourState {
    /// From a simulator's `%h` digits, most significant first: `x` / `z` make four bits X /
    /// Z; Icarus writes `X` / `Z` for a digit only some of whose bits are, and which ones it
    /// does not say, so those four bits count as X / Z too (the mask errs on the side of
    /// unknown). `?` reads as Z. `None` when a character is none of these or a hex digit.
    pub fn from_hex(tok: &str) -> Option<FourState> {
        let n = 4 * tok.len();
        let mut w = FourState {
            ones: BitVec::repeat(false, n),
            x: BitVec::repeat(false, n),
            z: BitVec::repeat(false, n),
        };
        for (k, c) in tok.chars().rev().enumerate() {
            let bits = 4 * k..4 * k + 4;
            match c {
                'x' | 'X' => w.x[bits].fill(true),
                'z' | 'Z' | '?' => w.z[bits].fill(true),
                c => {
                    let d = c.to_digit(16)? as u8;
                    for (i, b) in bits.enumerate() {
                        w.ones.set(b, d >> i & 1 == 1);
                    }
                }
            }
        }
        Some(w)
    }

    /// Bits of the word.
    pub fn width(&self) -> usize {
        self.ones.len()
    }

    /// Bit `i`: `'0'`, `'1'`, `'x'` or `'z'` (`'0'` beyond the width).
    pub fn bit(&self, i: usize) -> char {
        match (self.x.get(i), self.z.get(i)) {
            (Some(x), _) if *x => 'x',
            (_, Some(z)) if *z => 'z',
            _ if self.ones.get(i).is_some_and(|b| *b) => '1',
            _ => '0',
        }
    }

    /// The bits that are X.
    pub fn x_bits(&self) -> Vec<usize> {
        self.x.iter_ones().collect()
    }

    /// The bits that are Z.
    pub fn z_bits(&self) -> Vec<usize> {
        self.z.iter_ones().collect()
    }

    /// The word in hex, most significant digit first: a digit all of whose bits are X (Z)
    /// is `x` (`z`), one some of whose bits are is `X` (`Z`).
    pub fn hex(&self) -> String {
        (0..self.width().div_ceil(4))
            .rev()
            .map(|k| {
                let bits = 4 * k..(4 * k + 4).min(self.width());
                let (x, z) = (&self.x[bits.clone()], &self.z[bits.clone()]);
                if x.all() {
                    'x'
                } else if x.any() {
                    'X'
                } else if z.all() {
                    'z'
                } else if z.any() {
                    'Z'
                } else {
                    let d = bits.rev().fold(0u32, |d, b| d << 1 | self.ones[b] as u32);
                    char::from_digit(d, 16).unwrap_or('?')
                }
            })
            .collect()
    }
}

/// `3`, `7:4` or `15:12, 3`: bit positions as the ranges a waveform viewer shows.
fn bit_ranges(bits: &[usize]) -> String {
    let mut out: Vec<String> = vec![];
    let mut i = 0;
    while i < bits.len() {
        let mut j = i;
        while j + 1 < bits.len() && bits[j + 1] == bits[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            bits[i].to_string()
        } else {
            format!("{}:{}", bits[j], bits[i])
        });
        i = j + 1;
    }
    out.reverse();
    out.join(", ")
}

impl fmt::Display for FourState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{}", self.hex())?;
        let (x, z) = (self.x_bits(), self.z_bits());
        let mut parts = vec![];
        if !x.is_empty() {
            parts.push(format!("X in bit(s) {}", bit_ranges(&x)));
        }
        if !z.is_empty() {
            parts.push(format!("Z in bit(s) {}", bit_ranges(&z)));
        }
        write!(f, " ({})", parts.join(", "))
    }
}

impl Value {
    /// The known value, if there is no X or Z.
    pub fn known(&self) -> Option<&BigUint> {
        match self {
            Value::Known(v) => Some(v),
            Value::Unknown(_) => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Known(v) => write!(f, "0x{v:x}"),
            Value::Unknown(w) => write!(f, "{w}"),
        }
    }
}

/// `2^bits - 1`.
pub fn mask(bits: usize) -> BigUint {
    (BigUint::one() << bits) - 1u8
}

/// The `bits`-bit two's-complement encoding of `v` (wraps if `v` does not fit).
pub fn from_signed(v: i64, bits: usize) -> BigUint {
    let big = BigInt::from(v);
    let m = BigInt::from(mask(bits)) + 1;
    let r: BigInt = ((big % &m) + &m) % &m;
    r.to_biguint().unwrap_or_default()
}

/// Read a `bits`-bit word as two's complement.
pub fn to_signed(v: &BigUint, bits: usize) -> BigInt {
    let v = v & mask(bits);
    if bits > 0 && v.bit(bits as u64 - 1) {
        BigInt::from_biguint(Sign::Plus, v) - (BigInt::one() << bits)
    } else {
        BigInt::from_biguint(Sign::Plus, v)
    }
}

/// Read a `bits`-bit word as two's complement into an i64 (bits <= 64).
pub fn to_i64(v: &BigUint, bits: usize) -> i64 {
    to_signed(v, bits).to_i64().unwrap_or(0)
}

/// Pack lane values (lane i at bits [w(i+1)-1 : w i]); each value is truncated to `w` bits,
/// so negative numbers are stored in two's complement.
pub fn pack_lanes(values: &[i64], w: usize) -> BigUint {
    let mut word = BigUint::zero();
    for (i, v) in values.iter().enumerate() {
        word |= from_signed(*v, w) << (w * i);
    }
    word
}

/// Unpack `n` lanes of `w` bits, read as two's complement when `signed`.
pub fn unpack_lanes(word: &BigUint, w: usize, n: usize, signed: bool) -> Vec<i64> {
    (0..n)
        .map(|i| {
            let lane = (word >> (w * i)) & mask(w);
            if signed {
                to_i64(&lane, w)
            } else {
                lane.to_i64().unwrap_or(i64::MAX)
            }
        })
        .collect()
}

/// Render a value for a person: lanes as signed or unsigned integers when `lanes > 1`
/// or `signed`, hex otherwise.
pub fn describe(v: &Value, width: usize, lanes: usize, signed: bool) -> String {
    match v {
        Value::Unknown(_) => v.to_string(),
        Value::Known(b) => {
            if lanes > 1 {
                let l = unpack_lanes(b, width / lanes, lanes, signed);
                format!("{l:?} (0x{b:x})")
            } else if signed {
                format!("{} (0x{b:x})", to_signed(b, width))
            } else {
                format!("{b} (0x{b:x})")
            }
        }
    }
}

/// Parse one hex token of a simulator's `%h` output (x/z digits make it [`Value::Unknown`],
/// with the bits they stand for).
pub fn parse_hex(tok: &str) -> Option<Value> {
    if tok.is_empty() {
        return None;
    }
    if tok
        .chars()
        .any(|c| matches!(c, 'x' | 'X' | 'z' | 'Z' | '?'))
    {
        return FourState::from_hex(tok).map(Value::Unknown);
    }
    BigUint::parse_bytes(tok.as_bytes(), 16).map(Value::Known)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_round_trip_with_corner_values() {
        let v = [-32, -31, 0, 31];
        let w = pack_lanes(&v, 6);
        assert_eq!(unpack_lanes(&w, 6, 4, true), v);
        assert_eq!(to_i64(&from_signed(-128, 8), 8), -128);
        assert_eq!(from_signed(-1, 8), BigUint::from(255u32));
        assert!(parse_hex("g1").is_none());
        assert!(parse_hex("1xg").is_none());
    }

    #[test]
    fn x_and_z_are_named_bit_by_bit() {
        let Some(Value::Unknown(w)) = parse_hex("0x1") else {
            panic!("an x digit is unknown")
        };
        assert_eq!(w.width(), 12);
        assert_eq!(w.x_bits(), vec![4, 5, 6, 7]);
        assert_eq!(
            (w.bit(0), w.bit(3), w.bit(4), w.bit(8)),
            ('1', '0', 'x', '0')
        );
        assert_eq!(w.to_string(), "0x0x1 (X in bit(s) 7:4)");
        let Some(Value::Unknown(w)) = parse_hex("zX5x") else {
            panic!()
        };
        assert_eq!(w.hex(), "zx5x");
        assert_eq!(
            w.to_string(),
            "0xzx5x (X in bit(s) 11:8, 3:0, Z in bit(s) 15:12)"
        );
        assert_eq!(w.bit(4), '1');
        assert_eq!(w.bit(5), '0');
        assert_eq!(w.bit(13), 'z');
        assert_eq!(bit_ranges(&[0, 2, 3, 4, 9]), "9, 4:2, 0");
    }
}

//! Port values: unbounded-width unsigned words, lane packing, and two's-complement views.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, ToPrimitive, Zero};
use std::fmt;

/// One sampled output value: known bits, or a word containing X or Z.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// Every bit is 0 or 1.
    Known(BigUint),
    /// At least one bit is X or Z; the simulator's hex digits as written.
    Unknown(String),
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
            Value::Unknown(s) => write!(f, "0x{s} (contains X/Z)"),
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

/// Parse one hex token of a simulator's `%h` output (x/z digits make it [`Value::Unknown`]).
pub fn parse_hex(tok: &str) -> Option<Value> {
    if tok.is_empty() {
        return None;
    }
    if tok
        .chars()
        .any(|c| matches!(c, 'x' | 'X' | 'z' | 'Z' | '?'))
    {
        if tok
            .chars()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, 'x' | 'X' | 'z' | 'Z' | '?'))
        {
            return Some(Value::Unknown(tok.to_ascii_lowercase()));
        }
        return None;
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
        assert_eq!(parse_hex("0x1"), Some(Value::Unknown("0x1".into())));
        assert_eq!(parse_hex("1x"), Some(Value::Unknown("1x".into())));
    }
}

//! Golden model of the LEL LFSR: a plain 1-bit-per-step Fibonacci register, independent of
//! the unfolded XOR network in `edgelearn_hdl::lel::lfsr` (docs/decisions.md D-LFSR).
//!
//! The register `s` holds `y[t..t+16]` with `y[t]` in bit 0. A step emits `s[0]`, shifts
//! right and inserts `s[0] ^ s[3]` at bit 16, so `y[t+17] = y[t+3] ^ y[t]`
//! (x^17 + x^3 + 1).

use bitvec::field::BitField;
use bitvec::prelude::{BitVec, Lsb0};

/// Serial 17-bit LFSR.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SerialLfsr {
    state: u32,
}

/// The period of a non-zero state.
pub const LFSR_PERIOD: u64 = (1 << 17) - 1;

impl SerialLfsr {
    /// Seeded register; seed 0 (the lock-up state) loads 1, as the hardware does.
    pub fn new(seed: u32) -> Self {
        let s = seed & 0x1_ffff;
        SerialLfsr {
            state: if s == 0 { 1 } else { s },
        }
    }

    /// A register in an arbitrary raw state (0 included: it then emits zeros forever).
    pub fn from_raw(state: u32) -> Self {
        SerialLfsr {
            state: state & 0x1_ffff,
        }
    }

    /// The raw state.
    pub fn state(&self) -> u32 {
        self.state
    }

    /// Emit one bit.
    pub fn step(&mut self) -> bool {
        let out = self.state & 1;
        let fb = (self.state ^ (self.state >> 3)) & 1;
        self.state = (self.state >> 1) | (fb << 16);
        out == 1
    }

    /// The next `w` bits (w <= 64), bit 0 the earliest.
    pub fn next_bits(&mut self, w: usize) -> u64 {
        assert!(w <= 64);
        (0..w).fold(0u64, |acc, b| acc | ((self.step() as u64) << b))
    }
}

/// Inputs of the LFSR block in one cycle.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LfsrIn {
    /// Synchronous reset.
    pub reset: bool,
    /// 17-bit seed.
    pub seed: u32,
    /// Load the seed.
    pub prog: bool,
    /// Step W bits.
    pub instr: bool,
}

/// Cycle model of the unfolded LFSR block of width `w` (any width: 14 bits a lane at up to
/// 64 lanes).
#[derive(Clone, Debug)]
pub struct Lfsr {
    reg: SerialLfsr,
    out: BitVec<u64, Lsb0>,
}

impl Lfsr {
    /// The block as it powers up (state 0, `out` 0).
    pub fn new(w: usize) -> Self {
        Lfsr {
            reg: SerialLfsr::from_raw(0),
            out: BitVec::repeat(false, w),
        }
    }

    /// One clock edge; returns `out` after it (`w` <= 64).
    pub fn step(&mut self, i: &LfsrIn) -> u64 {
        assert!(
            self.out.len() <= 64,
            "a {}-bit LFSR step is wider than a u64",
            self.out.len()
        );
        self.step_wide(i).load_le()
    }

    /// One clock edge; returns `out` after it, bit `b` the `b`-th bit emitted.
    pub fn step_wide(&mut self, i: &LfsrIn) -> &BitVec<u64, Lsb0> {
        if i.reset {
            self.reg = SerialLfsr::new(1);
            self.out.fill(false);
        } else if i.prog {
            self.reg = SerialLfsr::new(i.seed);
        } else if i.instr {
            for mut b in self.out.iter_mut() {
                *b = self.reg.step();
            }
        }
        &self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_period_is_131071() {
        let start = SerialLfsr::new(0x1_2345);
        let mut r = start;
        let mut n = 0u64;
        loop {
            r.step();
            n += 1;
            if r == start {
                break;
            }
            assert!(n <= LFSR_PERIOD);
        }
        assert_eq!(n, LFSR_PERIOD);
    }

    #[test]
    fn seed_bits_come_out_first() {
        let mut r = SerialLfsr::new(0b1_0110_0000_0000_0101);
        assert_eq!(r.next_bits(17), 0b1_0110_0000_0000_0101);
    }
}

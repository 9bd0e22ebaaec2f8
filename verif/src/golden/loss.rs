//! Golden model of the loss derivative (thesis eq 4.1, §4.1.5; spec §2.4 "Loss", §7-8):
//! `c = clamp(s, -8192, 8192)`, `d = 16384 [o == label] - c - 8192`,
//! `e = sat_sym(floor(d * 2^alpha_e / 2^7), 8)`.

use super::arith::{asr_floor, sat_sym};

/// The errors of all outputs for LC outputs `s` (Q12) and a label.
pub fn loss(s: &[i64], label: u32, alpha_e: u32) -> Vec<i64> {
    loss_q(s, label, alpha_e, 12)
}

/// Eq 4.1 for LC outputs in Q`q` (q = 7 + weight fraction bits; 12 for 6-bit weights):
/// the hard sigmoid's knees at +-2.0 are +-2^(q+1), the target 1.0 is 2^q, the result Q7.
pub fn loss_q(s: &[i64], label: u32, alpha_e: u32, q: u32) -> Vec<i64> {
    let two = 1i64 << (q + 1);
    s.iter()
        .enumerate()
        .map(|(o, &v)| {
            let c = v.clamp(-two, two);
            let d = if o as u32 == label { 2 * two } else { 0 } - c - two;
            sat_sym(asr_floor(d * (1 << alpha_e), q + 2 - 7), 8)
        })
        .collect()
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LossIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Class label.
    pub true_label: u32,
    /// LC outputs (Q12).
    pub data_in: Vec<i64>,
    /// Error scale field.
    pub alpha_e: u32,
    /// Compute strobe.
    pub instr: bool,
}

/// Registers from `instr` to `data_out`.
pub const LOSS_DEPTH: usize = 4;

/// Cycle model: the inputs of an `instr` cycle reach `data_out` four edges later and hold.
#[derive(Clone, Debug)]
pub struct Loss {
    pipe: [Option<Vec<i64>>; LOSS_DEPTH - 1],
    out: Vec<i64>,
}

impl Loss {
    /// Block after power-up: `data_out` zero.
    pub fn new(classes: usize) -> Self {
        Loss {
            pipe: Default::default(),
            out: vec![0; classes],
        }
    }

    /// One clock edge: `data_out` after it.
    pub fn step(&mut self, i: &LossIn) -> Vec<i64> {
        if i.reset {
            self.pipe = Default::default();
            self.out.iter_mut().for_each(|v| *v = 0);
            return self.out.clone();
        }
        if let Some(done) = self.pipe[LOSS_DEPTH - 2].take() {
            self.out = done;
        }
        self.pipe.rotate_right(1);
        self.pipe[0] = i.instr.then(|| loss(&i.data_in, i.true_label, i.alpha_e));
        self.out.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq_4_1_regions() {
        // s < -2 (real): y*; s > 2: y* - 1; middle: (4 y* - (s + 2)) / 4, all in Q7.
        assert_eq!(loss(&[-8193, -8193], 0, 0), vec![127, 0]);
        assert_eq!(loss(&[8193, 8193], 0, 0), vec![0, -127]);
        assert_eq!(loss(&[0, 0], 1, 0), vec![-64, 64]);
        assert_eq!(loss(&[-8192, 8192], 0, 0), vec![127, -127]);
    }
}

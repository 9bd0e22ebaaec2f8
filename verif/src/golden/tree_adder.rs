//! Golden model of the tree adder (thesis §4.1.3, §4.1.4; spec §2.4): a 10-way dot product
//! per row, quantized for the LC-backward role (`relu_mask ? sat8(floor(t / 32)) : 0`) or
//! for the conv role (`max(0, sat8(floor(t / 2^(5 + alpha))))`), through six registers.

use super::arith::{asr_floor, sat_sym};
use super::matmul::quant_relu;

/// Pipeline depth in registers: the row driven before edge k is on `data_out` after edge k+5.
pub const TREE_ADDER_DEPTH: usize = 6;

/// `Σ_i a_i * b_i`.
pub fn dot(a: &[i64], b: &[i64]) -> i64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// LC backward: the error of one input neuron.
pub fn tree_adder(error: &[i64], weight: &[i64], relu_mask: bool) -> i64 {
    tree_adder_frac(error, weight, relu_mask, 5)
}

/// LC backward with `frac` weight fraction bits (5 for 6-bit weights).
pub fn tree_adder_frac(error: &[i64], weight: &[i64], relu_mask: bool, frac: u32) -> i64 {
    if relu_mask {
        sat_sym(asr_floor(dot(error, weight), frac), 8)
    } else {
        0
    }
}

/// Conv role: one quantized, ReLU'd window.
pub fn tree_adder_conv(pixels: &[i64], weight: &[i64], alpha_conv: u32) -> i64 {
    quant_relu(dot(pixels, weight), 5, alpha_conv, 8)
}

/// Inputs in one cycle (both roles; `relu_mask` is ignored by the conv role).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeAdderIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Errors (LC role) or pixels (conv role).
    pub data: Vec<i64>,
    /// Weights.
    pub weight: Vec<i64>,
    /// ReLU mask (LC role).
    pub relu_mask: bool,
    /// Scale field (conv role).
    pub alpha_conv: u32,
    /// Enable.
    pub instr: bool,
    /// Row valid.
    pub valid_in: bool,
}

/// Which role.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TreeAdderRole {
    /// Local-classifier backward path.
    LcBackward,
    /// Convolution window.
    Conv,
}

/// Cycle model: a six-deep pipeline of results.
#[derive(Clone, Debug)]
pub struct TreeAdder {
    role: TreeAdderRole,
    pipe: [Option<i64>; TREE_ADDER_DEPTH],
}

impl TreeAdder {
    /// Empty pipeline.
    pub fn new(role: TreeAdderRole) -> Self {
        TreeAdder {
            role,
            pipe: [None; TREE_ADDER_DEPTH],
        }
    }

    /// One clock edge: `data_out` after it, when `valid_out`.
    pub fn step(&mut self, i: &TreeAdderIn) -> Option<i64> {
        if i.reset {
            self.pipe = [None; TREE_ADDER_DEPTH];
            return None;
        }
        self.pipe.rotate_right(1);
        self.pipe[0] = (i.instr && i.valid_in).then(|| match self.role {
            TreeAdderRole::LcBackward => tree_adder(&i.data, &i.weight, i.relu_mask),
            TreeAdderRole::Conv => tree_adder_conv(&i.data, &i.weight, i.alpha_conv),
        });
        self.pipe[TREE_ADDER_DEPTH - 1]
    }
}

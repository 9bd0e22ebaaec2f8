//! Golden model of the local classifier's forward path (thesis §4.1.2; spec §2.4):
//! `s[o] = Σ_n in[n] * B[n][o]`, wrapping at the accumulator width (23 bits).

use super::burst::BurstAccumulator;

/// Accumulator width of the thesis LC output (8 + 6 + 9 bits, T:1005).
pub const LC_ACC_BITS: u32 = 23;

/// The LC outputs for a whole input vector: `inputs[n]` against `weights[n][o]`.
pub fn lc_forward(inputs: &[i64], weights: &[Vec<i64>]) -> Vec<i64> {
    let outs = weights.first().map(|w| w.len()).unwrap_or(0);
    let mut m = BurstAccumulator::new(outs, LC_ACC_BITS);
    for (x, w) in inputs.iter().zip(weights) {
        m.step(false, true, *x, w);
    }
    m.step(false, false, 0, &vec![0; outs]);
    m.step(false, false, 0, &vec![0; outs])
        .presented
        .unwrap_or_else(|| vec![0; outs])
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LcForwardIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LC input.
    pub data_in: i64,
    /// Weights per output.
    pub weight: Vec<i64>,
    /// Enable.
    pub instr: bool,
    /// Row valid.
    pub valid_in: bool,
}

/// Cycle model: the burst protocol of the matmul without quantization.
#[derive(Clone, Debug)]
pub struct LcForward {
    burst: BurstAccumulator,
}

impl LcForward {
    /// Idle block with `outputs` sums.
    pub fn new(outputs: usize) -> Self {
        LcForward {
            burst: BurstAccumulator::new(outputs, LC_ACC_BITS),
        }
    }

    /// One clock edge: the sums presented after it, if any.
    pub fn step(&mut self, i: &LcForwardIn) -> Option<Vec<i64>> {
        self.burst
            .step(i.reset, i.instr && i.valid_in, i.data_in, &i.weight)
            .presented
    }
}

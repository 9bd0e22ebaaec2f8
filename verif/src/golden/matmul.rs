//! Golden model of the LEL matmul (thesis §4.1.1; spec lel-platform.md §2.4 "FC core"):
//! per lane `acc = Σ data * weight` (wrapping at the accumulator width), then
//! `max(0, sat_sym(floor(acc / 2^(frac + alpha)), out_bits))` twice and `acc > 0`.

use super::arith::{relu, sat_sym, wrap};
use super::burst::BurstAccumulator;

/// Shapes of a matmul instance.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MatmulConfig {
    /// Lanes (output neurons per pass).
    pub lanes: usize,
    /// Activation width.
    pub data_bits: u32,
    /// Weight width; its fraction bits `weight_bits - 1` are the base shift.
    pub weight_bits: u32,
    /// Output width.
    pub out_bits: u32,
    /// Accumulator width (wraps).
    pub acc_bits: u32,
}

impl MatmulConfig {
    /// The thesis matmul: 4 lanes, 8-bit activations, 6-bit weights, 8-bit outputs, 24-bit accumulators.
    pub const THESIS: MatmulConfig = MatmulConfig {
        lanes: 4,
        data_bits: 8,
        weight_bits: 6,
        out_bits: 8,
        acc_bits: 24,
    };

    /// The base right shift (weight fraction bits).
    pub fn frac(&self) -> u32 {
        self.weight_bits - 1
    }
}

/// `max(0, sat_sym(floor(acc / 2^(frac + alpha)), out_bits))`: the LEL activation quantizer.
#[inline(always)]
pub fn quant_relu(acc: i64, frac: u32, alpha: u32, out_bits: u32) -> i64 {
    relu(sat_sym(asr_shift(acc, frac + alpha), out_bits))
}

/// `floor(x / 2^s)` by an arithmetic shift (Rust's `>>` on signed integers floors); equal
/// to [`asr_floor`] (checked in the tests) and much faster in the network model.
#[inline(always)]
pub fn asr_shift(x: i64, s: u32) -> i64 {
    x >> s.min(63)
}

/// The result of one burst.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatmulResult {
    /// Raw accumulators per lane.
    pub acc: Vec<i64>,
    /// Quantized with `alpha_fc`.
    pub to_fc: Vec<i64>,
    /// Quantized with `alpha_lc`.
    pub to_lc: Vec<i64>,
    /// `acc > 0` per lane.
    pub relu_mask: Vec<bool>,
}

/// Quantize finished accumulators.
pub fn matmul_outputs(
    cfg: &MatmulConfig,
    acc: &[i64],
    alpha_fc: u32,
    alpha_lc: u32,
) -> MatmulResult {
    MatmulResult {
        acc: acc.to_vec(),
        to_fc: acc
            .iter()
            .map(|&a| quant_relu(a, cfg.frac(), alpha_fc, cfg.out_bits))
            .collect(),
        to_lc: acc
            .iter()
            .map(|&a| quant_relu(a, cfg.frac(), alpha_lc, cfg.out_bits))
            .collect(),
        relu_mask: acc.iter().map(|&a| a > 0).collect(),
    }
}

/// One whole burst: `data[k]` against `weights[k][lane]`.
pub fn matmul(
    cfg: &MatmulConfig,
    data: &[i64],
    weights: &[Vec<i64>],
    alpha_fc: u32,
    alpha_lc: u32,
) -> MatmulResult {
    let mut acc = vec![0i64; cfg.lanes];
    for (x, w) in data.iter().zip(weights) {
        for (a, wl) in acc.iter_mut().zip(w) {
            *a = wrap(*a + x * wl, cfg.acc_bits);
        }
    }
    matmul_outputs(cfg, &acc, alpha_fc, alpha_lc)
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatmulIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Activation.
    pub data_in: i64,
    /// Weights per lane.
    pub weight: Vec<i64>,
    /// Enable.
    pub instr: bool,
    /// Scale field for the next FC core.
    pub alpha_fc: u32,
    /// Scale field for the local classifier.
    pub alpha_lc: u32,
    /// Row valid.
    pub valid_in: bool,
}

/// Outputs after one edge; `result` is defined only when `valid_out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatmulOut {
    /// Result strobe.
    pub valid_out: bool,
    /// The burst result presented with the strobe.
    pub result: Option<MatmulResult>,
}

/// Cycle model: a burst is a run of rows with `instr & valid_in`; its result shows one
/// cycle after the first row that is not part of it. The scale fields of a burst's last
/// row are used.
#[derive(Clone, Debug)]
pub struct Matmul {
    cfg: MatmulConfig,
    burst: BurstAccumulator,
    alpha: (u32, u32),
    alpha_of_pending: (u32, u32),
}

impl Matmul {
    /// Idle block.
    pub fn new(cfg: MatmulConfig) -> Self {
        Matmul {
            cfg,
            burst: BurstAccumulator::new(cfg.lanes, cfg.acc_bits),
            alpha: (0, 0),
            alpha_of_pending: (0, 0),
        }
    }

    /// One clock edge.
    pub fn step(&mut self, i: &MatmulIn) -> MatmulOut {
        let alpha_presented = self.alpha_of_pending;
        self.alpha_of_pending = self.alpha;
        let take = i.instr && i.valid_in;
        let s = self.burst.step(i.reset, take, i.data_in, &i.weight);
        if i.reset {
            self.alpha = (0, 0);
        } else if take {
            self.alpha = (i.alpha_fc, i.alpha_lc);
        }
        let result = s
            .presented
            .map(|acc| matmul_outputs(&self.cfg, &acc, alpha_presented.0, alpha_presented.1));
        MatmulOut {
            valid_out: result.is_some(),
            result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::arith::asr_floor;

    #[test]
    fn shift_equals_floor_division() {
        for x in (-70_000i64..70_000)
            .step_by(7)
            .chain([i64::MIN / 2, i64::MAX / 2, -1, 0, 1])
        {
            for s in 0..70 {
                assert_eq!(asr_shift(x, s), asr_floor(x, s), "{x} >> {s}");
            }
        }
    }

    #[test]
    fn quantizer_corners() {
        // floor, not truncation toward zero: -1 / 32 is -1, then ReLU gives 0.
        assert_eq!(quant_relu(-1, 5, 0, 8), 0);
        assert_eq!(quant_relu(127 * 32, 5, 0, 8), 127);
        assert_eq!(quant_relu(128 * 32, 5, 0, 8), 127);
        assert_eq!(quant_relu(4095, 5, 7, 8), 0);
        assert_eq!(quant_relu(4096, 5, 7, 8), 1);
    }

    #[test]
    fn burst_result_shows_two_cycles_after_the_last_row() {
        let cfg = MatmulConfig::THESIS;
        let mut m = Matmul::new(cfg);
        let row = MatmulIn {
            instr: true,
            valid_in: true,
            data_in: 3,
            weight: vec![1, -1, 31, -32],
            ..Default::default()
        };
        let idle = MatmulIn {
            weight: vec![0; 4],
            ..Default::default()
        };
        let mut valid_at = vec![];
        for c in 0..10 {
            let o = m.step(if c < 4 { &row } else { &idle });
            if o.valid_out {
                valid_at.push(c);
                assert_eq!(o.result.unwrap().acc, vec![12, -12, 372, -384]);
            }
        }
        assert_eq!(valid_at, vec![5]);
    }
}

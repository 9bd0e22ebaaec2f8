//! Golden arithmetic of `cnn_fc_update`: the integer-only gradient and update of a fully
//! connected last layer trained with softmax cross-entropy, batch 1 (seed 003, Algorithm 1;
//! issue 16; docs/decisions.md D-FT-FIXED). The RTL block is `edgelearn_hdl::cnn::fc_update`,
//! its cycle model [`crate::golden::cnn_fc_update`], its bench `tests/cnn_fc_update.rs`.
//!
//! Scales. Activations and 8-bit weights are Q7 fractions (`x_f = x / 128`, `w_f = w / 128`)
//! and a bias `b` is added as `b * 128`, so the layer's 32-bit output is
//! `acc = 2^14 (sum w_f x_f + b_f)`: the float logit is `z = acc / 2^14` (for a layer with
//! output shift 0; [`logit_shift`] folds the shift in). Cross-entropy gives
//! `dL/dz = softmax(z) - y`, `dL/dw_f = (softmax(z) - y) x_f` and, in integer units,
//! `dw = -lr (p - y) x` and `db = -lr (p - y) 128`: the bias is a weight whose input is
//! the constant 128.
//!
//! **Error vector** ([`softmax_error`]), table-driven base-2 softmax, integers only:
//! 1. `m = max acc`, `d_o = m - acc_o` (0 ..= 2^32 - 1);
//! 2. `q_o = min(d_o >> logit_shift, 4095)`: the logit gap in Q.8 (gaps of 16 or more count
//!    as 16: `e^-16` is below the error's resolution);
//! 3. `u_o = (q_o * 369) >> 8`: the gap times `log2 e` (369 / 256 = 1.4414), a base-2
//!    exponent in Q.8 (0 ..= 5902);
//! 4. `E_o = POW2[u_o & 255] >> (u_o >> 8)`, with `POW2[f] = round(2^15 * 2^(-f/256))`
//!    ([`pow2_table`]; `POW2[0] = 32768`): `2^15 e^(z_o - m)`;
//! 5. `S = sum E_o` (`S >= 32768`, the maximum contributes 32768), `R = floor(2^30 / S)`
//!    (one division per update, `R <= 32768`);
//! 6. `p_o = (E_o * R) >> 15`: the probability in Q0.15;
//! 7. `e_o = (p_o >> 3) - (o == label ? 4096 : 0)`: `p - y` in Q1.12, -4096 ..= 4096.
//!
//! **Update** ([`update_value`]), one weight (or a bias with `x = 128`):
//! `g = e_o * x`; `w' = sat8(w + ((-g + r) >>> (12 + lr_shift)))`, where `>>>` is the floor
//! shift and `r` is the rounding offset: `2^(11 + lr_shift)` (round half up) or, with
//! stochastic rounding, 16 fresh bits of the LEL LFSR ([`crate::golden::lfsr::SerialLfsr`],
//! x^17 + x^3 + 1, 16 bits per row, bit 0 the earliest) aligned to the top of the
//! `12 + lr_shift` discarded bits ([`stochastic_offset`]). The learning rate is
//! `2^-lr_shift`; the float mode's `--lr 0.5` is `lr_shift` 1.
//!
//! **Rows.** A layer update visits output `o = 0 .. O-1`, and for each its `N` weights in
//! input order and then its bias ([`update_layer`]): `O (N + 1)` rows, the LFSR advancing
//! 16 bits on every row whatever the rounding.

use crate::golden::arith::{asr_floor, sat_tc};
use crate::golden::lfsr::SerialLfsr;

/// Fraction bits of the error vector (Q1.12).
pub const ERR_FRAC: u32 = 12;
/// `1.0` in the error vector's scale.
pub const ERR_ONE: i64 = 1 << ERR_FRAC;
/// Largest logit gap, Q.8 (a gap of 16).
pub const GAP_MAX: i64 = 4095;
/// `log2 e` in Q.8 (369 / 256).
pub const LOG2E_Q8: i64 = 369;
/// Fraction bits of the exponentials and probabilities (Q0.15).
pub const PROB_FRAC: u32 = 15;
/// The constant input a bias is a weight of (`acc += b * 128`).
pub const BIAS_INPUT: i64 = 128;
/// Random bits the LFSR gives each row.
pub const RND_BITS: u32 = 16;
/// Largest learning-rate shift (`lr = 2^-7`).
pub const LR_SHIFT_MAX: u32 = 7;
/// Largest number of outputs (the block's 4-bit output index).
pub const MAX_OUTPUTS: usize = 16;

/// `POW2[f] = round(2^15 * 2^(-f/256))`, f = 0..255.
pub fn pow2_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    for (f, v) in t.iter_mut().enumerate() {
        *v = (32768.0 * (-(f as f64) / 256.0).exp2()).round() as u32;
    }
    t
}

/// The shift from the layer's 32-bit output to a Q.8 logit: `14 - 8 - output_shift`
/// (`acc / 2^(14 - output_shift)` is the float logit). `None` when it would be negative or
/// above 31.
pub fn logit_shift(output_shift: i32) -> Option<u32> {
    u32::try_from(6 - output_shift as i64)
        .ok()
        .filter(|&s| s <= 31)
}

/// Intermediate values of one error computation (for tests and waveform debugging).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoftmaxTrace {
    /// `E_o`, `2^15 e^(z_o - max z)`.
    pub exp: Vec<i64>,
    /// `S = sum E_o`.
    pub sum: i64,
    /// `R = floor(2^30 / S)`.
    pub recip: i64,
    /// `p_o`, Q0.15.
    pub prob: Vec<i64>,
    /// `e_o = p_o - y_o`, Q1.12.
    pub err: Vec<i64>,
}

/// The error vector `softmax(acc) - onehot(label)` in Q1.12, with its intermediates.
/// `acc` are the layer's 32-bit outputs (each in the i32 range), at most
/// [`MAX_OUTPUTS`] of them.
pub fn softmax_trace(acc: &[i64], label: usize, logit_shift: u32) -> SoftmaxTrace {
    assert!(!acc.is_empty() && acc.len() <= MAX_OUTPUTS && label < acc.len());
    let table = pow2_table();
    let m = *acc.iter().max().expect("non-empty");
    let exp: Vec<i64> = acc
        .iter()
        .map(|&a| {
            let d = (m - a) as u64;
            let q = (d >> logit_shift.min(63)).min(GAP_MAX as u64) as i64;
            let u = (q * LOG2E_Q8) >> 8;
            (table[(u & 255) as usize] as i64) >> (u >> 8)
        })
        .collect();
    let sum: i64 = exp.iter().sum();
    let recip = (1i64 << 30) / sum;
    let prob: Vec<i64> = exp.iter().map(|&e| (e * recip) >> PROB_FRAC).collect();
    let err = prob
        .iter()
        .enumerate()
        .map(|(o, &p)| (p >> (PROB_FRAC - ERR_FRAC)) - if o == label { ERR_ONE } else { 0 })
        .collect();
    SoftmaxTrace {
        exp,
        sum,
        recip,
        prob,
        err,
    }
}

/// The error vector `softmax(acc) - onehot(label)` in Q1.12 ([`softmax_trace`]).
pub fn softmax_error(acc: &[i64], label: usize, logit_shift: u32) -> Vec<i64> {
    softmax_trace(acc, label, logit_shift).err
}

/// How the update rounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Rounding {
    /// Round half up (offset `2^(s-1)`).
    #[default]
    Nearest,
    /// Stochastic: the offset is 16 LFSR bits aligned to the top of the discarded bits.
    Stochastic,
}

/// The stochastic rounding offset for a shift of `s` bits from 16 random bits `rnd`.
pub fn stochastic_offset(rnd: u32, s: u32) -> i64 {
    let r = (rnd & 0xffff) as i64;
    if s >= RND_BITS {
        r << (s - RND_BITS)
    } else {
        r >> (RND_BITS - s)
    }
}

/// The rounding offset for a shift of `s` bits.
pub fn offset(rounding: Rounding, rnd: u32, s: u32) -> i64 {
    match rounding {
        Rounding::Nearest => 1 << (s - 1),
        Rounding::Stochastic => stochastic_offset(rnd, s),
    }
}

/// One updated 8-bit weight: `sat8(w + ((-e x + r) >>> (12 + lr_shift)))`.
pub fn update_value(w: i64, x: i64, e: i64, lr_shift: u32, rounding: Rounding, rnd: u32) -> i64 {
    let s = ERR_FRAC + lr_shift;
    let t = -(e * x) + offset(rounding, rnd, s);
    sat_tc(w + asr_floor(t, s), 8)
}

/// Settings of a layer update.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UpdateParams {
    /// Learning rate `2^-lr_shift`, 0 ..= 7.
    pub lr_shift: u32,
    /// Rounding.
    pub rounding: Rounding,
    /// The output-to-logit shift ([`logit_shift`]).
    pub logit_shift: u32,
}

/// Updates a whole layer in place: `w` is `O x N` (row-major, output-major), `b` has `O`
/// values, `x` the `N` inputs (int8), `acc` the `O` outputs that `w`, `b` and `x` gave.
/// Returns the error vector. `lfsr` advances 16 bits per row (`O (N + 1)` rows).
pub fn update_layer(
    w: &mut [i64],
    b: &mut [i64],
    x: &[i64],
    acc: &[i64],
    label: usize,
    p: &UpdateParams,
    lfsr: &mut SerialLfsr,
) -> Vec<i64> {
    let (o_n, n) = (b.len(), x.len());
    assert_eq!(w.len(), o_n * n);
    let err = softmax_error(acc, label, p.logit_shift);
    for ((row, bo), &eo) in w.chunks_mut(n.max(1)).zip(b.iter_mut()).zip(&err) {
        for (wk, &xi) in row.iter_mut().zip(x) {
            let r = lfsr.next_bits(RND_BITS as usize) as u32;
            *wk = update_value(*wk, xi, eo, p.lr_shift, p.rounding, r);
        }
        let r = lfsr.next_bits(RND_BITS as usize) as u32;
        *bo = update_value(*bo, BIAS_INPUT, eo, p.lr_shift, p.rounding, r);
    }
    err
}

/// The layer's 32-bit outputs for input `x`: `acc_o = sum_i w[o][i] x[i] + 128 b[o]`.
pub fn forward(w: &[i64], b: &[i64], x: &[i64]) -> Vec<i64> {
    let n = x.len();
    (0..b.len())
        .map(|o| {
            w[o * n..(o + 1) * n]
                .iter()
                .zip(x)
                .map(|(a, c)| a * c)
                .sum::<i64>()
                + BIAS_INPUT * b[o]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_softmax(acc: &[i64], scale: f64) -> Vec<f64> {
        let z: Vec<f64> = acc.iter().map(|&a| a as f64 / scale).collect();
        let m = z.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
        let s: f64 = e.iter().sum();
        e.iter().map(|v| v / s).collect()
    }

    #[test]
    fn table_ends() {
        let t = pow2_table();
        assert_eq!(t[0], 32768);
        assert_eq!(t[128], 23170); // 2^15 / sqrt(2)
        assert_eq!(t[255], 16428);
        assert!(t.windows(2).all(|w| w[0] > w[1]));
    }

    #[test]
    fn error_tracks_the_float_softmax() {
        // Logit gaps from 0 to beyond 16, with the largest first, last and in between.
        let cases: Vec<Vec<i64>> = vec![
            vec![0; 10],
            vec![
                416616, -77992, 93377, 45484, 29850, -36248, -130974, -272399, -148783, 25073,
            ],
            vec![-20000, 10000, 16384, 0, -16384, 5000, 8000, 12000, 3000, 1],
            vec![i32::MIN as i64, i32::MAX as i64, 0, 1, -1, 2, -2, 3, -3, 4],
            vec![7, 7],
        ];
        for acc in cases {
            let f = float_softmax(&acc, 16384.0);
            for label in [0, acc.len() - 1] {
                let t = softmax_trace(&acc, label, 6);
                for (o, &e) in t.err.iter().enumerate() {
                    let want = f[o] - if o == label { 1.0 } else { 0.0 };
                    let got = e as f64 / ERR_ONE as f64;
                    assert!((got - want).abs() < 0.004, "{acc:?} o {o}: {got} vs {want}");
                    assert!((-ERR_ONE..=ERR_ONE).contains(&e));
                }
                assert!(t.recip <= 32768 && t.sum >= 32768);
            }
        }
    }

    #[test]
    fn update_corners() {
        use Rounding::*;
        // No error, no change; rounding never moves a weight by itself.
        for w in [-128, -127, -31, 0, 31, 127] {
            for x in [-128, -127, -31, 0, 31, 127, 128] {
                assert_eq!(update_value(w, x, 0, 0, Nearest, 0), w);
                assert_eq!(update_value(w, x, 0, 7, Stochastic, 0xffff), w);
            }
        }
        // -e x / 2^12 at lr 1: e = -4096 (p = 0 for the label), x = 127: +127, saturates.
        assert_eq!(update_value(0, 127, -4096, 0, Nearest, 0), 127);
        assert_eq!(update_value(5, 127, -4096, 0, Nearest, 0), 127);
        assert_eq!(update_value(-128, -128, -4096, 0, Nearest, 0), -128);
        assert_eq!(update_value(-100, 128, 4096, 0, Nearest, 0), -128);
        // lr 1/2: half of 31 = 15.5 rounds up to 16 (half up), -15.5 to -15.
        assert_eq!(update_value(0, 31, -4096, 1, Nearest, 0), 16);
        assert_eq!(update_value(0, 31, 4096, 1, Nearest, 0), -15);
        // Max shift: 127 * 4096 / 2^19 = 0.99 rounds to 1; stochastic with rnd 0 floors.
        assert_eq!(update_value(0, 127, -4096, 7, Nearest, 0), 1);
        assert_eq!(update_value(0, 127, -4096, 7, Stochastic, 0), 0);
        assert_eq!(update_value(0, 127, -4096, 7, Stochastic, 0xffff), 1);
        // Offsets stay inside the discarded bits.
        for s in 12..=19 {
            assert!(stochastic_offset(0xffff, s) < 1 << s);
            assert_eq!(offset(Nearest, 0, s), 1 << (s - 1));
        }
    }

    #[test]
    fn stochastic_rounding_is_unbiased() {
        let mut l = SerialLfsr::new(0x1234);
        let n = 20_000;
        let mut sum = 0i64;
        for _ in 0..n {
            let r = l.next_bits(16) as u32;
            sum += update_value(0, 3, -4096, 3, Rounding::Stochastic, r); // 3/8 on average
        }
        let mean = sum as f64 / n as f64;
        assert!((mean - 0.375).abs() < 0.02, "{mean}");
    }

    #[test]
    fn a_layer_update_moves_the_logits_toward_the_label() {
        let (o_n, n) = (10, 192);
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 37) % 128).collect();
        let mut w: Vec<i64> = (0..(o_n * n) as i64).map(|k| (k * 11) % 41 - 20).collect();
        let mut b = vec![0; o_n];
        let p = UpdateParams {
            lr_shift: 4,
            rounding: Rounding::Nearest,
            logit_shift: 6,
        };
        let mut lfsr = SerialLfsr::new(1);
        let before = forward(&w, &b, &x);
        let err = update_layer(&mut w, &mut b, &x, &before, 3, &p, &mut lfsr);
        assert!(err[3] < 0);
        let after = forward(&w, &b, &x);
        let margin = |a: &[i64]| {
            a[3] - a
                .iter()
                .enumerate()
                .filter(|(o, _)| *o != 3)
                .map(|(_, v)| *v)
                .max()
                .unwrap()
        };
        assert!(margin(&after) > margin(&before));
        assert!(w.iter().chain(&b).all(|v| (-128..=127).contains(v)));
    }
}

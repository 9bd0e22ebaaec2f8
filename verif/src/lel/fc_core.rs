//! Golden FC core (spec lel-platform.md §2.4 "FC core", §4.2): parallel sub-layers, local
//! classifier, eq 4.1 loss, LC backward, stochastic weight update, classification, in the
//! hardware's order and with the hardware's random numbers (docs/decisions.md D-LFSR-USE).
//!
//! Inputs `a` (N), pieces P, sub-layer k sees `a[F k .. F k + F]` (F = N / P) and produces
//! outputs `G k .. G k + G` (G = O / P). Weights are stored in the cache's order: sub-layer k,
//! pass p (outputs `L p .. L p + L`), input i, lane l; `W[k][j][i]` is kept as `[k][j][i]`.

use super::lfsr_stream::{lc_weights, PeriodicStream};
use crate::golden::arith::{sat_sym, wrap};
use crate::golden::classification::classification;
use crate::golden::loss::loss_q;
use crate::golden::matmul::quant_relu;
use crate::golden::tree_adder::tree_adder_frac;
#[cfg(doc)]
use crate::golden::weight_update::weight_update_bits;

/// Fixed parameters of a core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcParams {
    /// Inputs N.
    pub inputs: usize,
    /// Outputs O.
    pub outputs: usize,
    /// Sub-layers P.
    pub pieces: usize,
    /// Matmul lanes L.
    pub lanes: usize,
    /// Classes.
    pub classes: usize,
    /// Weight bits.
    pub weight_bits: u32,
    /// Accumulator bits (wrap).
    pub acc_bits: u32,
    /// LC output bits (wrap).
    pub lc_acc_bits: u32,
    /// Random bits per lane.
    pub rnd_bits: u32,
    /// Scale fields.
    pub alpha_next: u32,
    /// LC input scale field.
    pub alpha_lc: u32,
    /// Error scale field.
    pub alpha_e: u32,
}

impl FcParams {
    fn frac(&self) -> u32 {
        self.weight_bits - 1
    }
}

/// What one forward pass produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcForward {
    /// Raw accumulators (wrapped).
    pub acc: Vec<i64>,
    /// Quantized outputs to the next core.
    pub out_fc: Vec<i32>,
    /// Quantized LC inputs.
    pub in_lc: Vec<i32>,
    /// `acc > 0`.
    pub mask: Vec<bool>,
    /// LC outputs (wrapped).
    pub lc: Vec<i64>,
    /// Predicted class (first maximum).
    pub class: usize,
}

/// One FC core's state: weights and the weight-update LFSR.
#[derive(Clone, Debug)]
pub struct FcCore {
    /// Parameters.
    pub p: FcParams,
    /// Weights `[k][j][i]`.
    pub w: Vec<i32>,
    /// LC weights `[n][o]` (fixed).
    pub b: Vec<i32>,
    wu: PeriodicStream,
}

impl FcCore {
    /// A core with initial weights `w` (`[k][j][i]`) and its two LFSR seeds.
    pub fn new(p: FcParams, w: Vec<i32>, seed_lc: u32, seed_wu: u32) -> Self {
        let (f, g) = (p.inputs / p.pieces, p.outputs / p.pieces);
        assert_eq!(w.len(), p.pieces * g * f, "weight count");
        let b = lc_weights(seed_lc, p.outputs, p.classes, p.weight_bits)
            .into_iter()
            .flatten()
            .map(|v| v as i32)
            .collect();
        let wu = PeriodicStream::new(seed_wu, p.rnd_bits);
        FcCore { p, w, b, wu }
    }

    /// The weight-update LFSR's seed that continues the stream from here (a checkpoint
    /// re-seeds the hardware with it).
    pub fn wu_state(&self) -> u32 {
        self.wu.state()
    }

    /// Weight-update random numbers consumed so far.
    pub fn wu_position(&self) -> u64 {
        self.wu.position()
    }

    /// Continue from a saved state (a core fresh from [`FcCore::new`] with the same seeds):
    /// its weights and the weight-update random numbers consumed so far.
    pub fn restore(&mut self, w: Vec<i32>, wu_position: u64) -> Result<(), String> {
        if w.len() != self.w.len() {
            return Err(format!(
                "{} weights, the core has {}",
                w.len(),
                self.w.len()
            ));
        }
        let b = self.p.weight_bits;
        if let Some(v) = w.iter().find(|&&v| sat_sym(v as i64, b) != v as i64) {
            return Err(format!("weight {v} is outside the {b}-bit range"));
        }
        if wu_position < self.wu.position() {
            return Err("the weight-update LFSR is already past the saved position".into());
        }
        self.w = w;
        self.wu.skip(wu_position - self.wu.position());
        Ok(())
    }

    /// LS_INF: matmul, quantizers, ReLU mask, LC forward, classification.
    pub fn forward(&self, a: &[i32]) -> FcForward {
        let p = &self.p;
        let (f, g) = (p.inputs / p.pieces, p.outputs / p.pieces);
        let mut acc = vec![0i64; p.outputs];
        for k in 0..p.pieces {
            let ak = &a[f * k..f * (k + 1)];
            for j in 0..g {
                let wr = &self.w[(k * g + j) * f..][..f];
                let s: i32 = wr.iter().zip(ak).map(|(w, x)| w * x).sum();
                acc[g * k + j] = wrap(s as i64, p.acc_bits);
            }
        }
        let out_fc: Vec<i32> = acc
            .iter()
            .map(|&v| quant_relu(v, p.frac(), p.alpha_next, 8) as i32)
            .collect();
        let in_lc: Vec<i32> = acc
            .iter()
            .map(|&v| quant_relu(v, p.frac(), p.alpha_lc, 8) as i32)
            .collect();
        let mask: Vec<bool> = acc.iter().map(|&v| v > 0).collect();
        let mut lc = vec![0i64; p.classes];
        for (n, &x) in in_lc.iter().enumerate() {
            if x != 0 {
                for (o, s) in lc.iter_mut().enumerate() {
                    *s += (x * self.b[n * p.classes + o]) as i64;
                }
            }
        }
        lc.iter_mut().for_each(|s| *s = wrap(*s, p.lc_acc_bits));
        let class = classification(&lc).1;
        FcForward {
            acc,
            out_fc,
            in_lc,
            mask,
            lc,
            class,
        }
    }

    /// LS_LOSS and LS_BK: the error of every output neuron.
    pub fn backward(&self, fwd: &FcForward, label: u32) -> Vec<i32> {
        let p = &self.p;
        let e = loss_q(&fwd.lc, label, p.alpha_e, 7 + p.frac());
        let mut row = vec![0i64; p.classes];
        (0..p.outputs)
            .map(|n| {
                if !fwd.mask[n] {
                    return 0;
                }
                for (o, r) in row.iter_mut().enumerate() {
                    *r = self.b[n * p.classes + o] as i64;
                }
                tree_adder_frac(&e, &row, true, p.frac()) as i32
            })
            .collect()
    }

    /// LS_WU: every weight, in the cache order, with one LFSR step per weight word
    /// (`lanes` random numbers), whether or not anything changes.
    ///
    /// The LFSR stream is read at random positions (word i, lane l of a pass is chunk
    /// `i * lanes + l` after the pass's start), so only the numbers a non-zero product needs
    /// are read; the stream still advances by every word. Equal to [`weight_update_bits`]
    /// applied to every weight in stream order (checked in the tests).
    pub fn update(&mut self, a: &[i32], err: &[i32], lr_shift: u32) {
        let p = self.p.clone();
        let (f, g, l) = (p.inputs / p.pieces, p.outputs / p.pieces, p.lanes);
        assert!(
            (f * l) as u64 * p.rnd_bits as u64 <= crate::golden::lfsr::LFSR_PERIOD,
            "a pass draws more than one LFSR period"
        );
        let hi = (1i32 << (p.weight_bits - 1)) - 1;
        for k in 0..p.pieces {
            let ak = &a[f * k..f * (k + 1)];
            for pass in 0..g / l {
                let j0 = pass * l;
                let e = &err[g * k + j0..g * k + j0 + l];
                // The pass's random numbers: word i, lane `lane` is chunk `i * l + lane`.
                let rnd = self.wu.window();
                self.wu.skip((f * l) as u64);
                for (lane, &el) in e.iter().enumerate() {
                    if el == 0 {
                        continue;
                    }
                    let row = &mut self.w[(k * g + j0 + lane) * f..][..f];
                    for (i, (w, &x)) in row.iter_mut().zip(ak).enumerate() {
                        if x == 0 {
                            continue;
                        }
                        let gr = x * el;
                        let prob = gr.unsigned_abs() >> lr_shift;
                        if rnd.at((i * l + lane) as u64) < prob {
                            *w = (*w + gr.signum()).clamp(-hi, hi);
                        }
                    }
                }
            }
        }
    }

    /// One training image (LS_LOAD .. LS_FIN): the forward result (with pre-update outputs).
    pub fn train(&mut self, a: &[i32], label: u32, lr_shift: u32) -> FcForward {
        let fwd = self.forward(a);
        let err = self.backward(&fwd, label);
        self.update(a, &err, lr_shift);
        fwd
    }

    /// Weights in the cache's stream order `(k, pass, i, lane)`, as bytes.
    pub fn weight_bytes(&self) -> Vec<u8> {
        let p = &self.p;
        let (f, g, l) = (p.inputs / p.pieces, p.outputs / p.pieces, p.lanes);
        let mut out = Vec::with_capacity(self.w.len());
        for k in 0..p.pieces {
            for pass in 0..g / l {
                for i in 0..f {
                    for lane in 0..l {
                        out.push(self.w[(k * g + pass * l + lane) * f + i] as i8 as u8);
                    }
                }
            }
        }
        out
    }

    /// Saturation check helper: every weight in the symmetric range.
    pub fn weights_in_range(&self) -> bool {
        let b = self.p.weight_bits;
        self.w.iter().all(|&w| sat_sym(w as i64, b) == w as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::weight_update::weight_update_bits;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn params() -> FcParams {
        FcParams {
            inputs: 24,
            outputs: 16,
            pieces: 2,
            lanes: 4,
            classes: 10,
            weight_bits: 6,
            acc_bits: 24,
            lc_acc_bits: 23,
            rnd_bits: 14,
            alpha_next: 2,
            alpha_lc: 3,
            alpha_e: 0,
        }
    }

    /// The fast update equals the plain per-weight golden function with random numbers
    /// drawn one LFSR step per weight word in (sub-layer, pass, input, lane) order.
    #[test]
    fn fast_update_equals_per_weight_golden() {
        let p = params();
        let (f, g, l) = (12, 8, 4);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x1234_5678);
        let mut next = |m: i64| rng.random_range(-m..=m);
        for trial in 0..50 {
            let w0: Vec<i32> = (0..p.pieces * g * f).map(|_| next(31) as i32).collect();
            let a: Vec<i32> = (0..p.inputs)
                .map(|_| if next(3) == 0 { 0 } else { next(127) as i32 })
                .collect();
            let err: Vec<i32> = (0..p.outputs)
                .map(|_| if next(2) == 0 { 0 } else { next(127) as i32 })
                .collect();
            let lr = trial % 8;
            let mut fast = FcCore::new(p.clone(), w0.clone(), 0x1ACE, 0x0BEE + trial);
            fast.update(&a, &err, lr);
            let mut slow = w0.clone();
            let mut stream = PeriodicStream::new(0x0BEE + trial, 14);
            for k in 0..p.pieces {
                for pass in 0..g / l {
                    for i in 0..f {
                        for lane in 0..l {
                            let r = stream.next_chunk() as u64;
                            let j = pass * l + lane;
                            let wi = (k * g + j) * f + i;
                            slow[wi] = weight_update_bits(
                                slow[wi] as i64,
                                a[f * k + i] as i64,
                                err[g * k + j] as i64,
                                lr,
                                r,
                                6,
                            ) as i32;
                        }
                    }
                }
            }
            assert_eq!(fast.w, slow, "trial {trial}");
            assert_eq!(fast.wu_position(), stream.position());
        }
    }
}

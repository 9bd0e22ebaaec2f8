//! Float reference of the LEL platform (f32, IEEE round to nearest, no quantization and no
//! stochastic rounding): the same network, initial weights and local classifiers, with
//! deterministic updates `W += lr * a * E`, to measure what the integer model's
//! quantization and stochastic updates cost.
//!
//! Scales follow the integer model: activations are `a_int / 2^7`, weights `w_int / 2^(w-1)`,
//! every scale field divides by `2^alpha`. Loss: `e = y* - clamp((s + 2) / 4, 0, 1)` (eq 4.1);
//! LC backward: `E[n] = mask[n] ? Σ_o e[o] B[n][o] : 0`. Weights stay in the symmetric range.

use super::network::LelNetwork;

/// One float FC core.
#[derive(Clone, Debug)]
struct FloatCore {
    inputs: usize,
    outputs: usize,
    pieces: usize,
    classes: usize,
    alpha_next: f32,
    alpha_lc: f32,
    wmax: f32,
    w: Vec<f32>,
    b: Vec<f32>,
}

/// The float platform.
#[derive(Clone, Debug)]
pub struct FloatNetwork {
    conv_kernels: Vec<f32>,
    conv_alpha: f32,
    input: (usize, usize, usize),
    channels: usize,
    kernel: usize,
    pool: usize,
    cores: Vec<FloatCore>,
    lr: Vec<Vec<f32>>,
}

struct Fwd {
    out: Vec<f32>,
    mask: Vec<bool>,
    lc: Vec<f32>,
    class: usize,
}

fn argmax(v: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        if x > v[best] {
            best = i;
        }
    }
    best
}

impl FloatCore {
    fn forward(&self, a: &[f32]) -> (Fwd, Vec<f32>) {
        let (f, g) = (self.inputs / self.pieces, self.outputs / self.pieces);
        let mut acc = vec![0f32; self.outputs];
        for k in 0..self.pieces {
            let ak = &a[f * k..f * (k + 1)];
            for j in 0..g {
                let wr = &self.w[(k * g + j) * f..][..f];
                acc[g * k + j] = wr.iter().zip(ak).map(|(w, x)| w * x).sum();
            }
        }
        let out: Vec<f32> = acc
            .iter()
            .map(|&v| (v / self.alpha_next).max(0.0))
            .collect();
        let in_lc: Vec<f32> = acc.iter().map(|&v| (v / self.alpha_lc).max(0.0)).collect();
        let mask: Vec<bool> = acc.iter().map(|&v| v > 0.0).collect();
        let mut lc = vec![0f32; self.classes];
        for (n, &x) in in_lc.iter().enumerate() {
            if x != 0.0 {
                for (o, s) in lc.iter_mut().enumerate() {
                    *s += x * self.b[n * self.classes + o];
                }
            }
        }
        let class = argmax(&lc);
        (
            Fwd {
                out,
                mask,
                lc,
                class,
            },
            acc,
        )
    }

    fn train(&mut self, a: &[f32], label: u32, lr: f32) -> Fwd {
        let (fwd, _) = self.forward(a);
        let e: Vec<f32> = fwd
            .lc
            .iter()
            .enumerate()
            .map(|(o, &s)| if o as u32 == label { 1.0 } else { 0.0 } - ((s + 2.0) / 4.0).clamp(0.0, 1.0))
            .collect();
        let (f, g) = (self.inputs / self.pieces, self.outputs / self.pieces);
        for n in 0..self.outputs {
            if !fwd.mask[n] {
                continue;
            }
            let en: f32 = (0..self.classes)
                .map(|o| e[o] * self.b[n * self.classes + o])
                .sum();
            if en == 0.0 {
                continue;
            }
            let (k, j) = (n / g, n % g);
            let ak = &a[f * k..f * (k + 1)];
            let wr = &mut self.w[(k * g + j) * f..][..f];
            for (w, &x) in wr.iter_mut().zip(ak) {
                *w = (*w + lr * x * en).clamp(-self.wmax, self.wmax);
            }
        }
        fwd
    }
}

impl FloatNetwork {
    /// The float twin of an integer network (same initial weights, kernels and LC weights).
    pub fn from_integer(net: &LelNetwork) -> Self {
        let w = net.cfg.widths.weight;
        let ws = (1u32 << (w - 1)) as f32;
        let cores = net
            .cores
            .iter()
            .map(|c| FloatCore {
                inputs: c.p.inputs,
                outputs: c.p.outputs,
                pieces: c.p.pieces,
                classes: c.p.classes,
                alpha_next: (1u32 << c.p.alpha_next) as f32,
                alpha_lc: (1u32 << c.p.alpha_lc) as f32,
                wmax: (ws - 1.0) / ws,
                w: c.w.iter().map(|&v| v as f32 / ws).collect(),
                b: c.b.iter().map(|&v| v as f32 / ws).collect(),
            })
            .collect();
        let lr = net
            .cfg
            .fc
            .iter()
            .map(|f| match &net.cfg.train.float_lr {
                Some(v) => v.clone(),
                None => f
                    .lr_shift
                    .iter()
                    .map(|&s| 1.0 / (1u64 << s) as f32 / ws)
                    .collect(),
            })
            .collect();
        FloatNetwork {
            conv_kernels: net.conv.kernels.iter().map(|&v| v as f32 / ws).collect(),
            conv_alpha: (1u32 << net.conv.alpha) as f32,
            input: net.conv.input,
            channels: net.conv.channels,
            kernel: net.conv.kernel,
            pool: net.conv.pool,
            cores,
            lr,
        }
    }

    fn conv(&self, img: &[i32]) -> Vec<f32> {
        let (ci, h, w) = self.input;
        let k = self.kernel;
        let (oh, ow) = (h - k + 1, w - k + 1);
        let (ph, pw) = (oh / self.pool, ow / self.pool);
        let per_input = self.channels / ci;
        let mut out = vec![0f32; self.channels * ph * pw];
        let mut q = vec![0f32; oh * ow];
        for c in 0..self.channels {
            let src = &img[(c / per_input) * h * w..][..h * w];
            let ker = &self.conv_kernels[c * k * k..][..k * k];
            for y in 0..oh {
                for x in 0..ow {
                    let mut acc = 0f32;
                    for dy in 0..k {
                        for dx in 0..k {
                            acc += src[(y + dy) * w + x + dx] as f32 / 128.0 * ker[dy * k + dx];
                        }
                    }
                    q[y * ow + x] = (acc / self.conv_alpha).max(0.0);
                }
            }
            for py in 0..ph {
                for px in 0..pw {
                    let mut m = f32::MIN;
                    for dy in 0..self.pool {
                        for dx in 0..self.pool {
                            m = m.max(q[(py * self.pool + dy) * ow + px * self.pool + dx]);
                        }
                    }
                    out[(c * ph + py) * pw + px] = m;
                }
            }
        }
        out
    }

    fn lr(&self, x: usize, epoch: usize) -> f32 {
        let v = &self.lr[x];
        v[(epoch.max(1) - 1).min(v.len() - 1)]
    }

    /// Train on one prepared image (the integer model's input activations).
    pub fn train_image(&mut self, input: &[i32], label: u32, epoch: usize) -> Vec<usize> {
        let mut a = self.conv(input);
        let mut classes = vec![];
        for x in 0..self.cores.len() {
            let lr = self.lr(x, epoch);
            let fwd = self.cores[x].train(&a, label, lr);
            classes.push(fwd.class);
            a = fwd.out;
        }
        classes
    }

    /// Inference on one prepared image.
    pub fn infer(&self, input: &[i32]) -> Vec<usize> {
        let mut a = self.conv(input);
        let mut classes = vec![];
        for c in &self.cores {
            let (fwd, _) = c.forward(&a);
            classes.push(fwd.class);
            a = fwd.out;
        }
        classes
    }

    /// SHA-256 of the float weights (little-endian f32 bits).
    pub fn weights_sha256(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for c in &self.cores {
            for w in &c.w {
                h.update(w.to_le_bytes());
            }
        }
        hex::encode(h.finalize())
    }
}

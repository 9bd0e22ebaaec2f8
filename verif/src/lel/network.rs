//! The golden LEL platform: conv block and FC cores trained image by image (batch 1), in the
//! hardware's order (docs/decisions.md D-TRAIN). This is the contract the platform RTL must
//! match bit for bit over whole training runs.

use super::config::{PixelMap, PlatformConfig, Shapes};
use super::conv::ConvBlock;
use super::fc_core::{FcCore, FcParams};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use sha2::{Digest, Sha256};
use std::fmt;

/// A problem building a network (the configuration itself is validated already).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError(pub String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

/// A seed for one purpose, derived from the master seed.
pub fn derive_seed(master: u64, purpose: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(master.to_le_bytes());
    h.update(purpose.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes(d[..8].try_into().expect("8 bytes"))
}

/// A non-zero 17-bit LFSR seed for one purpose.
pub fn derive_lfsr_seed(master: u64, purpose: &str) -> u32 {
    (derive_seed(master, purpose) % ((1 << 17) - 1)) as u32 + 1
}

/// Round half to even (the PyTorch export of spec §7-13).
fn round_half_even(x: f64) -> i64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && (r as i64) % 2 != 0 {
        (r - x.signum()) as i64
    } else {
        r as i64
    }
}

/// Initial weights of a fan-in `n_in` layer (eq 3.2, spec §7-13): `U(-L, L)` with
/// `L = max(sqrt(6 / n_in), 1.5 / 2^(w-1))` in real units, times `2^(w-1)`, rounded half to
/// even, clamped to the symmetric range.
pub fn init_weights(
    rng: &mut Xoshiro256PlusPlus,
    count: usize,
    n_in: usize,
    weight_bits: u32,
) -> Vec<i32> {
    let scale = (1u64 << (weight_bits - 1)) as f64;
    let lim = (6.0 / n_in as f64).sqrt().max(1.5 / scale);
    let hi = scale as i64 - 1;
    (0..count)
        .map(|_| {
            let u: f64 = rng.random_range(-lim..lim);
            round_half_even(u * scale).clamp(-hi, hi) as i32
        })
        .collect()
}

/// Conv kernels: seeded random (eq 3.2 for fan-in k*k) or parsed from a text file of integers.
pub fn conv_kernels(cfg: &PlatformConfig) -> Result<Vec<i32>, BuildError> {
    let c = &cfg.conv;
    let count = c.out_channels * c.kernel * c.kernel;
    if c.kernels == "random" {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(derive_seed(cfg.seed, "conv"));
        return Ok(init_weights(
            &mut rng,
            count,
            c.kernel * c.kernel,
            cfg.widths.weight,
        ));
    }
    let text = std::fs::read_to_string(&c.kernels)
        .map_err(|e| BuildError(format!("conv.kernels: cannot read {}: {e}", c.kernels)))?;
    let hi = (1i64 << (cfg.widths.weight - 1)) - 1;
    let mut out = Vec::with_capacity(count);
    for (k, tok) in text
        .split(|ch: char| ch.is_whitespace() || ch == ',')
        .filter(|t| !t.is_empty())
        .enumerate()
    {
        let v: i64 = tok.parse().map_err(|_| {
            BuildError(format!(
                "conv.kernels: {}: value {} (`{tok}`) is not an integer",
                c.kernels,
                k + 1
            ))
        })?;
        if !(-hi..=hi).contains(&v) {
            return Err(BuildError(format!(
                "conv.kernels: {}: value {} ({v}) is outside -{hi}..={hi}",
                c.kernels,
                k + 1
            )));
        }
        out.push(v as i32);
    }
    if out.len() != count {
        return Err(BuildError(format!(
            "conv.kernels: {} holds {} values, {count} needed (out_channels x kernel x kernel)",
            c.kernels,
            out.len()
        )));
    }
    Ok(out)
}

/// The integer (bit-exact) platform.
#[derive(Clone, Debug)]
pub struct LelNetwork {
    /// The configuration.
    pub cfg: PlatformConfig,
    /// Derived shapes.
    pub shapes: Shapes,
    /// Conv block.
    pub conv: ConvBlock,
    /// FC cores.
    pub cores: Vec<FcCore>,
}

/// How a dataset image is turned into the configured input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ImageShape {
    /// Channels.
    pub channels: usize,
    /// Rows.
    pub height: usize,
    /// Columns.
    pub width: usize,
}

/// The seeds a network is built with (derived or given), for reports.
pub fn lfsr_seeds(cfg: &PlatformConfig) -> Vec<(u32, u32)> {
    cfg.fc
        .iter()
        .enumerate()
        .map(|(x, f)| {
            (
                f.seed_lc
                    .unwrap_or_else(|| derive_lfsr_seed(cfg.seed, &format!("lc{x}"))),
                f.seed_wu
                    .unwrap_or_else(|| derive_lfsr_seed(cfg.seed, &format!("wu{x}"))),
            )
        })
        .collect()
}

impl LelNetwork {
    /// Build from a configuration.
    pub fn new(cfg: &PlatformConfig) -> Result<Self, BuildError> {
        let shapes = cfg.validate().map_err(|e| BuildError(e.to_string()))?;
        let w = &cfg.widths;
        let conv = ConvBlock {
            input: (cfg.input.channels, shapes.padded.0, shapes.padded.1),
            channels: cfg.conv.out_channels,
            kernel: cfg.conv.kernel,
            pool: cfg.conv.pool,
            frac: w.weight - 1,
            alpha: cfg.conv.alpha,
            kernels: conv_kernels(cfg)?,
        };
        let seeds = lfsr_seeds(cfg);
        let mut cores = vec![];
        for (x, f) in cfg.fc.iter().enumerate() {
            let n = shapes.fc_inputs[x];
            let p = FcParams {
                inputs: n,
                outputs: f.outputs,
                pieces: f.pieces,
                lanes: w.lanes,
                classes: w.classes,
                weight_bits: w.weight,
                acc_bits: w.acc,
                lc_acc_bits: w.lc_acc,
                rnd_bits: w.rnd,
                alpha_next: f.alpha_next,
                alpha_lc: f.alpha_lc,
                alpha_e: f.alpha_e,
            };
            let mut rng =
                Xoshiro256PlusPlus::seed_from_u64(derive_seed(cfg.seed, &format!("fc{x}")));
            let weights = init_weights(&mut rng, n * f.outputs / f.pieces, n / f.pieces, w.weight);
            cores.push(FcCore::new(p, weights, seeds[x].0, seeds[x].1));
        }
        Ok(LelNetwork {
            cfg: cfg.clone(),
            shapes,
            conv,
            cores,
        })
    }

    /// Turn a dataset image (`[c][y][x]` bytes) into the conv block's input activations:
    /// a one-channel image smaller than the configured input is centred with zero pixels
    /// and replicated to every channel; then `input.pad` zero pixels are added on every
    /// side; then the pixel map is applied.
    pub fn prepare(
        cfg: &PlatformConfig,
        shape: ImageShape,
        img: &[u8],
    ) -> Result<Vec<i32>, BuildError> {
        let i = &cfg.input;
        let fits =
            shape.channels == i.channels && shape.height == i.height && shape.width == i.width;
        let adapt = shape.channels == 1 && shape.height <= i.height && shape.width <= i.width;
        if !fits && !adapt {
            return Err(BuildError(format!(
                "input: dataset images are {}x{}x{}, the configuration wants {}x{}x{} (a one-channel image no larger can be padded and replicated)",
                shape.channels, shape.height, shape.width, i.channels, i.height, i.width
            )));
        }
        let (oy, ox) = ((i.height - shape.height) / 2, (i.width - shape.width) / 2);
        let (ph, pw) = (i.height + 2 * i.pad, i.width + 2 * i.pad);
        let mut out = vec![0i32; i.channels * ph * pw];
        for c in 0..i.channels {
            let sc = if fits { c } else { 0 };
            for y in 0..ph {
                for x in 0..pw {
                    let (sy, sx) = (
                        y as isize - (i.pad + oy) as isize,
                        x as isize - (i.pad + ox) as isize,
                    );
                    let raw = if sy >= 0
                        && sx >= 0
                        && (sy as usize) < shape.height
                        && (sx as usize) < shape.width
                    {
                        img[(sc * shape.height + sy as usize) * shape.width + sx as usize]
                    } else {
                        0
                    };
                    out[(c * ph + y) * pw + x] = match i.pixel_map {
                        PixelMap::Half => (raw >> 1) as i32,
                        PixelMap::Center => (raw as i32 - 128).clamp(-127, 127),
                    };
                }
            }
        }
        Ok(out)
    }

    /// The learning-rate shift of core `x` in epoch `epoch` (1-based; the last repeats).
    pub fn lr_shift(&self, x: usize, epoch: usize) -> u32 {
        let s = &self.cfg.fc[x].lr_shift;
        s[(epoch.max(1) - 1).min(s.len() - 1)]
    }

    /// Train on one prepared image; the class each core predicted before its update.
    pub fn train_image(&mut self, input: &[i32], label: u32, epoch: usize) -> Vec<usize> {
        self.train_image_traced(input, label, epoch).0
    }

    /// [`LelNetwork::train_image`], also returning what each FC core was fed (the conv
    /// block's output for core 0, core x-1's `out_fc` for core x).
    pub fn train_image_traced(
        &mut self,
        input: &[i32],
        label: u32,
        epoch: usize,
    ) -> (Vec<usize>, Vec<Vec<i32>>) {
        let mut a = self.conv.forward(input);
        let mut classes = vec![];
        let mut fed = vec![];
        for x in 0..self.cores.len() {
            let lr = self.lr_shift(x, epoch);
            let fwd = self.cores[x].train(&a, label, lr);
            classes.push(fwd.class);
            fed.push(std::mem::replace(&mut a, fwd.out_fc));
        }
        (classes, fed)
    }

    /// Inference on one prepared image: each core's class.
    pub fn infer(&self, input: &[i32]) -> Vec<usize> {
        let mut a = self.conv.forward(input);
        let mut classes = vec![];
        for core in &self.cores {
            let fwd = core.forward(&a);
            classes.push(fwd.class);
            a = fwd.out_fc;
        }
        classes
    }

    /// SHA-256 of every core's weights in stream order.
    pub fn weights_sha256(&self) -> String {
        let mut h = Sha256::new();
        for c in &self.cores {
            h.update(c.weight_bytes());
        }
        hex::encode(h.finalize())
    }
}

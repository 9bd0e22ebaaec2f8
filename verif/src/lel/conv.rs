//! Golden conv block (spec lel-platform.md §2.4 "Conv core", §7-2..§7-4): depthwise k x k
//! convolution without padding, `q = max(0, sat_sym(floor(acc / 2^(frac + alpha)), 8))`, then
//! a p x p max pool with stride p. Output index `c * Ph * Pw + Y * Pw + X` (channel-major).

use crate::golden::matmul::quant_relu;

/// A conv block with fixed kernels.
#[derive(Clone, Debug)]
pub struct ConvBlock {
    /// Input channels, rows, columns.
    pub input: (usize, usize, usize),
    /// Output channels.
    pub channels: usize,
    /// Kernel size.
    pub kernel: usize,
    /// Pool size and stride.
    pub pool: usize,
    /// Weight fraction bits (w - 1).
    pub frac: u32,
    /// Scale field.
    pub alpha: u32,
    /// Kernels, `[c][dy][dx]`.
    pub kernels: Vec<i32>,
}

impl ConvBlock {
    /// Pooled output size `(channels, rows, cols)`.
    pub fn output_shape(&self) -> (usize, usize, usize) {
        let (_, h, w) = self.input;
        let (oh, ow) = (h - self.kernel + 1, w - self.kernel + 1);
        (self.channels, oh / self.pool, ow / self.pool)
    }

    /// The pooled, quantized feature vector of one image (`[ci][y][x]` activations).
    pub fn forward(&self, img: &[i32]) -> Vec<i32> {
        let (ci, h, w) = self.input;
        debug_assert_eq!(img.len(), ci * h * w);
        let k = self.kernel;
        let (oh, ow) = (h - k + 1, w - k + 1);
        let (_, ph, pw) = self.output_shape();
        let per_input = self.channels / ci;
        let mut out = vec![0i32; self.channels * ph * pw];
        let mut acc = vec![0i32; ow];
        let mut q = vec![0i32; oh * ow];
        for c in 0..self.channels {
            let src = &img[(c / per_input) * h * w..][..h * w];
            let ker = &self.kernels[c * k * k..][..k * k];
            for y in 0..oh {
                acc.iter_mut().for_each(|a| *a = 0);
                for dy in 0..k {
                    let row = &src[(y + dy) * w..][..w];
                    for dx in 0..k {
                        let kv = ker[dy * k + dx];
                        for (a, &px) in acc.iter_mut().zip(&row[dx..dx + ow]) {
                            *a += px * kv;
                        }
                    }
                }
                for (qv, &a) in q[y * ow..][..ow].iter_mut().zip(&acc) {
                    *qv = quant_relu(a as i64, self.frac, self.alpha, 8) as i32;
                }
            }
            let dst = &mut out[c * ph * pw..][..ph * pw];
            for py in 0..ph {
                for px in 0..pw {
                    let mut m = i32::MIN;
                    for dy in 0..self.pool {
                        let row = &q[(py * self.pool + dy) * ow + px * self.pool..][..self.pool];
                        m = row.iter().fold(m, |m, &v| m.max(v));
                    }
                    dst[py * pw + px] = m;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::tree_adder::tree_adder_conv;

    /// Every conv output is the conv-role tree adder of its window (the RTL's definition).
    #[test]
    fn conv_equals_tree_adder_conv_per_window() {
        let block = ConvBlock {
            input: (1, 8, 8),
            channels: 2,
            kernel: 3,
            pool: 1,
            frac: 5,
            alpha: 1,
            kernels: vec![
                -31, 5, 9, 31, -2, 0, 7, -8, 1, 3, 3, 3, -31, -31, -31, 31, 31, 31,
            ],
        };
        let img: Vec<i32> = (0..64).map(|i| ((i * 37) % 255) - 127).collect();
        let out = block.forward(&img);
        for c in 0..2 {
            for y in 0..6 {
                for x in 0..6 {
                    let window: Vec<i64> = (0..9)
                        .map(|t| img[(y + t / 3) * 8 + x + t % 3] as i64)
                        .collect();
                    let ker: Vec<i64> = block.kernels[c * 9..c * 9 + 9]
                        .iter()
                        .map(|&v| v as i64)
                        .collect();
                    assert_eq!(
                        out[c * 36 + y * 6 + x] as i64,
                        tree_adder_conv(&window, &ker, 1)
                    );
                }
            }
        }
    }
}

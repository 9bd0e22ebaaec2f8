//! The arithmetic of one accelerator layer, bit-exact (spec §1): pooling, element-wise
//! operations, Conv2d / Conv1d / ConvTranspose2d / Linear sums of products at full resolution,
//! and the output stage (one round-half-up shift, saturation, activation).
//!
//! Pure integer functions over [`Tensor`]; no files, no YAML. Values are `i64` throughout,
//! so no sum of products can overflow (the largest is 1024 x 9 x 128 x 128 < 2^28).

use super::desc::{Activation, Eltwise, PoolKind};

mod pairs;

/// A `C x H x W` tensor of integers in C-major (row-major) order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Channels.
    pub c: usize,
    /// Rows (the length of 1-D data).
    pub h: usize,
    /// Columns (1 for 1-D data).
    pub w: usize,
    /// `c * h * w` values; element `(c, y, x)` is at `(c * h + y) * w + x`.
    pub data: Vec<i64>,
}

impl Tensor {
    /// A zero tensor.
    pub fn zeros(c: usize, h: usize, w: usize) -> Tensor {
        Tensor {
            c,
            h,
            w,
            data: vec![0; c * h * w],
        }
    }

    /// A tensor from values; `data.len()` must be `c * h * w`.
    pub fn from_vec(c: usize, h: usize, w: usize, data: Vec<i64>) -> Tensor {
        assert_eq!(data.len(), c * h * w, "tensor data length");
        Tensor { c, h, w, data }
    }

    /// Element `(c, y, x)`.
    #[inline]
    pub fn at(&self, c: usize, y: usize, x: usize) -> i64 {
        self.data[(c * self.h + y) * self.w + x]
    }

    /// Mutable element `(c, y, x)`.
    #[inline]
    pub fn at_mut(&mut self, c: usize, y: usize, x: usize) -> &mut i64 {
        &mut self.data[(c * self.h + y) * self.w + x]
    }

    /// The same values viewed as `c' x h x w` with `c' = len / (h * w)` (row-major
    /// reinterpretation, as numpy's `reshape(-1, h, w)`); `None` if it does not divide.
    pub fn reshaped(&self, h: usize, w: usize) -> Option<Tensor> {
        let mut t = self.clone();
        t.reshape(h, w).then_some(t)
    }

    /// [`Tensor::reshaped`] in place; `false` (and unchanged) if it does not divide.
    pub fn reshape(&mut self, h: usize, w: usize) -> bool {
        let n = self.data.len();
        if h == 0 || w == 0 || !n.is_multiple_of(h * w) {
            return false;
        }
        (self.c, self.h, self.w) = (n / (h * w), h, w);
        true
    }

    /// Channels `[from, to)`.
    pub fn channels(&self, from: usize, to: usize) -> Tensor {
        let plane = self.h * self.w;
        Tensor {
            c: to - from,
            h: self.h,
            w: self.w,
            data: self.data[from * plane..to * plane].to_vec(),
        }
    }

    /// Every `step`-th column starting at `first` (numpy `x[:, :, first::step]`).
    pub fn columns_strided(&self, first: usize, step: usize) -> Tensor {
        let w = if first < self.w {
            (self.w - first).div_ceil(step)
        } else {
            0
        };
        let mut out = Tensor::zeros(self.c, self.h, w);
        for c in 0..self.c {
            for y in 0..self.h {
                for x in 0..w {
                    *out.at_mut(c, y, x) = self.at(c, y, first + x * step);
                }
            }
        }
        out
    }

    /// Channel concatenation (all parts must have the same `h` and `w`).
    pub fn concat_channels(parts: &[&Tensor]) -> Option<Tensor> {
        let first = parts.first()?;
        if parts.iter().any(|p| p.h != first.h || p.w != first.w) {
            return None;
        }
        let mut data = Vec::new();
        for p in parts {
            data.extend_from_slice(&p.data);
        }
        Some(Tensor {
            c: parts.iter().map(|p| p.c).sum(),
            h: first.h,
            w: first.w,
            data,
        })
    }
}

/// How the average of a pooling window is turned into an integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AvgRounding {
    /// Truncation toward zero (`S / n` in integer division): the silicon's default.
    Trunc,
    /// Round half away from zero: the silicon with `--avg-pool-rounding`.
    HalfAway,
    /// `floor(S / n)`: the documents' reading of the default.
    Floor,
    /// `floor(S / n + 1/2)`: the documents' reading of `--avg-pool-rounding`.
    HalfUp,
}

impl AvgRounding {
    /// The rounded mean of a window with sum `s` of `n` values.
    pub fn apply(self, s: i64, n: i64) -> i64 {
        match self {
            AvgRounding::Trunc => s / n,
            AvgRounding::HalfAway => s.signum() * ((2 * s.abs() + n) / (2 * n)),
            AvgRounding::Floor => s.div_euclid(n),
            AvgRounding::HalfUp => (2 * s + n).div_euclid(2 * n),
        }
    }
}

/// Output size of pooling with `pool` and `stride` over `len` (no padding, windows never
/// leave the input): `floor((len - pool) / stride) + 1`, 0 if the window does not fit.
pub fn pooled_len(len: usize, pool: usize, stride: usize) -> usize {
    if len + stride < pool + 1 {
        0
    } else {
        (len + stride - pool) / stride
    }
}

/// 2-D pooling of every channel. A 1x1 pool with a stride subsamples.
pub fn pool2d(
    x: &Tensor,
    kind: PoolKind,
    size: [usize; 2],
    stride: [usize; 2],
    rounding: AvgRounding,
) -> Tensor {
    let oh = pooled_len(x.h, size[0], stride[0]);
    let ow = pooled_len(x.w, size[1], stride[1]);
    let mut out = Tensor::zeros(x.c, oh, ow);
    if ow == 0 {
        return out;
    }
    let n = (size[0] * size[1]) as i64;
    let plane = x.h * x.w;
    for (c, dst) in out.data.chunks_exact_mut(oh * ow).enumerate() {
        let src = &x.data[c * plane..][..plane];
        for (oy, row_out) in dst.chunks_exact_mut(ow).enumerate() {
            // The window rows of output row oy, folded in one at a time.
            let rows = (0..size[0]).map(|dy| &src[(oy * stride[0] + dy) * x.w..][..x.w]);
            match kind {
                PoolKind::Max => {
                    row_out.fill(i64::MIN);
                    for row in rows {
                        for (ox, o) in row_out.iter_mut().enumerate() {
                            let win = &row[ox * stride[1]..][..size[1]];
                            *o = win.iter().fold(*o, |m, &v| m.max(v));
                        }
                    }
                }
                PoolKind::Avg => {
                    for row in rows {
                        for (ox, o) in row_out.iter_mut().enumerate() {
                            *o += row[ox * stride[1]..][..size[1]].iter().sum::<i64>();
                        }
                    }
                    row_out.iter_mut().for_each(|o| *o = rounding.apply(*o, n));
                }
            }
        }
    }
    out
}

/// Applies an element-wise operation to `operands` (all the same shape), evaluated left to
/// right in wide integers, then saturated once to [-128, 127].
pub fn eltwise(operands: &[Tensor], op: Eltwise) -> Tensor {
    let mut out = operands[0].clone();
    for x in &operands[1..] {
        for (o, &v) in out.data.iter_mut().zip(&x.data) {
            *o = match op {
                Eltwise::Add => *o + v,
                Eltwise::Sub => *o - v,
                Eltwise::Or => *o | v,
                Eltwise::Xor => *o ^ v,
            };
        }
    }
    for o in &mut out.data {
        *o = (*o).clamp(-128, 127);
    }
    out
}

/// Kernels of a layer: `out x in x kh x kw` in row-major order (Conv1d: `kw = 1`, `kh = k`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernels {
    /// Output channels.
    pub out_ch: usize,
    /// Input channels.
    pub in_ch: usize,
    /// Kernel rows (the kernel length for Conv1d).
    pub kh: usize,
    /// Kernel columns (1 for Conv1d).
    pub kw: usize,
    /// The weights.
    pub w: Vec<i64>,
}

impl Kernels {
    /// Weight `(o, i, ky, kx)`.
    #[inline]
    pub fn at(&self, o: usize, i: usize, ky: usize, kx: usize) -> i64 {
        self.w[((o * self.in_ch + i) * self.kh + ky) * self.kw + kx]
    }
}

/// The accumulators of a stride-1 2-D correlation with zero padding `pad` (rows, columns)
/// plus `128 * bias`. `extra` adds further zero rows/columns at the bottom/right (the output
/// padding of a transposed convolution).
///
/// The sums are exact: they are computed in `i32` when a bound on every sum fits (always for
/// 8-bit data), with the data and weights as `i16` pairs when they fit (`pairs`: every 8-bit
/// layer), else in `i64` (32-bit intermediate outputs fed to a further layer).
pub fn conv2d(
    x: &Tensor,
    k: &Kernels,
    pad: [usize; 2],
    extra: [usize; 2],
    bias: Option<&[i64]>,
) -> Tensor {
    if let Some(out) = pairs::correlate(x, k, pad, extra, bias) {
        return out;
    }
    let xmax = x.data.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0) as u128;
    let wmax = k.w.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0) as u128;
    let bmax = bias
        .map(|b| b.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0))
        .unwrap_or(0) as u128;
    let bound = (k.in_ch * k.kh * k.kw) as u128 * xmax * wmax + 128 * bmax;
    if bound < i32::MAX as u128 {
        correlate::<i32>(x, k, pad, extra, bias)
    } else {
        correlate::<i64>(x, k, pad, extra, bias)
    }
}

/// An integer type the correlation can accumulate in.
trait Accumulator:
    Copy + Default + std::ops::AddAssign + std::ops::Mul<Output = Self> + Into<i64>
{
    /// `v`, known to be in range.
    fn narrow(v: i64) -> Self;
}

impl Accumulator for i32 {
    fn narrow(v: i64) -> Self {
        v as i32
    }
}

impl Accumulator for i64 {
    fn narrow(v: i64) -> Self {
        v
    }
}

fn correlate<T: Accumulator>(
    x: &Tensor,
    k: &Kernels,
    pad: [usize; 2],
    extra: [usize; 2],
    bias: Option<&[i64]>,
) -> Tensor {
    let ph = x.h + 2 * pad[0] + extra[0];
    let pw = x.w + 2 * pad[1] + extra[1];
    let oh = (ph + 1).saturating_sub(k.kh);
    let ow = (pw + 1).saturating_sub(k.kw);
    // Padded input, built once.
    let mut xp = vec![T::default(); x.c * ph * pw];
    for c in 0..x.c {
        for y in 0..x.h {
            let row = (c * ph + y + pad[0]) * pw + pad[1];
            let src = &x.data[(c * x.h + y) * x.w..(c * x.h + y + 1) * x.w];
            for (d, &v) in xp[row..row + x.w].iter_mut().zip(src) {
                *d = T::narrow(v);
            }
        }
    }
    let mut out = Tensor::zeros(k.out_ch, oh, ow);
    let mut plane = vec![T::default(); oh * ow];
    for o in 0..k.out_ch {
        let b = T::narrow(bias.map_or(0, |b| b[o] * 128));
        plane.iter_mut().for_each(|v| *v = b);
        for i in 0..k.in_ch.min(x.c) {
            for ky in 0..k.kh {
                for kx in 0..k.kw {
                    let wv = k.at(o, i, ky, kx);
                    if wv == 0 {
                        continue;
                    }
                    let wv = T::narrow(wv);
                    for y in 0..oh {
                        let src = &xp[(i * ph + y + ky) * pw + kx..][..ow];
                        let dst = &mut plane[y * ow..(y + 1) * ow];
                        for (d, &s) in dst.iter_mut().zip(src) {
                            *d += wv * s;
                        }
                    }
                }
            }
        }
        for (d, &v) in out.data[o * oh * ow..(o + 1) * oh * ow]
            .iter_mut()
            .zip(&plane)
        {
            *d = v.into();
        }
    }
    out
}

/// The accumulators of a 1-D convolution over `x` (`C x L x 1`), kernel length `k.kh`,
/// zero padding `pad` at both ends, dilation `dil`, plus `128 * bias`.
pub fn conv1d(x: &Tensor, k: &Kernels, pad: usize, dil: usize, bias: Option<&[i64]>) -> Tensor {
    let len = x.h * x.w;
    let span = dil * (k.kh - 1) + 1;
    let ol = (len + 2 * pad + 1).saturating_sub(span);
    let mut out = Tensor::zeros(k.out_ch, ol, 1);
    for o in 0..k.out_ch {
        let b = bias.map_or(0, |b| b[o] * 128);
        for t in 0..ol {
            let mut acc = b;
            for i in 0..k.in_ch.min(x.c) {
                for j in 0..k.kh {
                    let pos = t + j * dil;
                    if pos < pad || pos - pad >= len {
                        continue;
                    }
                    acc += k.at(o, i, j, 0) * x.data[i * len + pos - pad];
                }
            }
            out.data[o * ol + t] = acc;
        }
    }
    out
}

/// The accumulators of the hardware's transposed convolution (stride 2): zeros are stuffed
/// between the input pixels (`2H-1 x 2W-1`), the result is padded by `k - 1 - pad` on the
/// top/left and by that plus `output_pad` on the bottom/right, and correlated with `k`.
pub fn conv_transpose2d(
    x: &Tensor,
    k: &Kernels,
    pad: [usize; 2],
    output_pad: [usize; 2],
    bias: Option<&[i64]>,
) -> Tensor {
    let sh = (2 * x.h).saturating_sub(1);
    let sw = (2 * x.w).saturating_sub(1);
    let mut stuffed = Tensor::zeros(x.c, sh, sw);
    for c in 0..x.c {
        for y in 0..x.h {
            for xx in 0..x.w {
                *stuffed.at_mut(c, 2 * y, 2 * xx) = x.at(c, y, xx);
            }
        }
    }
    let hp = [
        (k.kh - 1).saturating_sub(pad[0]),
        (k.kw - 1).saturating_sub(pad[1]),
    ];
    // conv2d pads symmetrically by hp, and `extra` more at the bottom/right.
    conv2d(&stuffed, k, hp, output_pad, bias)
}

/// How the output stage treats values that a left shift pushes beyond 32 bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ShiftOverflow {
    /// The shifted value saturates to 8 bits (the silicon, as ai8x models it).
    Saturate,
    /// The shifted value wraps in the 32-bit intermediate register first (a reading of the
    /// documents, which call the accumulator "the 32-bit intermediate result").
    Wrap32,
}

/// The 8-bit output of one accumulator: multiply by `2^shift / 128` with one rounding
/// (half toward +inf), saturate to [-128, 127], then apply the activation.
pub fn output8(acc: i64, shift: i32, act: Activation, overflow: ShiftOverflow) -> i64 {
    let r = 7 - shift;
    let y = if r > 0 {
        (acc + (1i64 << (r - 1))) >> r
    } else {
        let l = (-r) as u32;
        match overflow {
            ShiftOverflow::Saturate => acc
                .checked_shl(l)
                .filter(|v| v >> l == acc)
                .unwrap_or(if acc < 0 { i64::MIN } else { i64::MAX }),
            ShiftOverflow::Wrap32 => ((acc as i32).wrapping_shl(l)) as i64,
        }
    };
    activate(y.clamp(-128, 127), act)
}

/// [`output8`] of every accumulator, in place. The common case (a right shift, no
/// absolute value) is one branch-free pass.
pub fn output8_all(acc: &mut [i64], shift: i32, act: Activation, overflow: ShiftOverflow) {
    let r = 7 - shift;
    let lo = match act {
        Activation::None => -128,
        Activation::Relu => 0,
        Activation::Abs => {
            acc.iter_mut()
                .for_each(|a| *a = output8(*a, shift, act, overflow));
            return;
        }
    };
    if r > 0 {
        let half = 1i64 << (r - 1);
        acc.iter_mut()
            .for_each(|a| *a = ((*a + half) >> r).clamp(lo, 127));
    } else {
        acc.iter_mut()
            .for_each(|a| *a = output8(*a, shift, act, overflow));
    }
}

/// The activation of an 8-bit value.
pub fn activate(y: i64, act: Activation) -> i64 {
    match act {
        Activation::None => y,
        Activation::Relu => y.clamp(0, 127),
        Activation::Abs => y.abs().min(127),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_table_of_the_documents() {
        // Spec §6.1 item 3: x = n/4 with a right shift of 2 (shift = 5 → r = 2).
        let cases = [
            (14, 4),
            (13, 3),
            (12, 3),
            (11, 3),
            (10, 3),
            (1, 0),
            (0, 0),
            (-1, 0),
            (-2, 0),
            (-3, -1),
            (-4, -1),
            (-5, -1),
            (-6, -1),
            (-14, -3),
        ];
        for (n, want) in cases {
            assert_eq!(
                output8(n, 5, Activation::None, ShiftOverflow::Saturate),
                want,
                "n={n}"
            );
        }
    }

    #[test]
    fn output_stage_corners() {
        let s = ShiftOverflow::Saturate;
        assert_eq!(output8(2874, 0, Activation::None, s), 22);
        assert_eq!(output8(2874, 2, Activation::None, s), 90);
        assert_eq!(output8(2874, -1, Activation::None, s), 11);
        assert_eq!(output8(2874, 4, Activation::None, s), 127);
        assert_eq!(output8(-20672, 0, Activation::None, s), -128);
        assert_eq!(output8(-20672, 0, Activation::Abs, s), 127);
        assert_eq!(output8(-20672, 0, Activation::Relu, s), 0);
        // Largest left shift (total shift 15 → 8 bits left): saturates, never wraps.
        assert_eq!(output8(1 << 24, 15, Activation::None, s), 127);
        assert_eq!(output8(-(1 << 24), 15, Activation::None, s), -128);
        assert_eq!(output8(1, 15, Activation::None, s), 127);
        assert_eq!(output8(0, 15, Activation::None, s), 0);
        // Wrap32: 2^24 << 8 = 2^32 wraps to 0.
        assert_eq!(
            output8(1 << 24, 15, Activation::None, ShiftOverflow::Wrap32),
            0
        );
        // Smallest right shift (total shift -15 → 22 bits right).
        assert_eq!(output8((1 << 21) - 1, -15, Activation::None, s), 0);
        assert_eq!(output8(1 << 21, -15, Activation::None, s), 1);
        assert_eq!(output8(-(1 << 21), -15, Activation::None, s), 0);
        assert_eq!(output8(-(1 << 21) - 1, -15, Activation::None, s), -1);
        // Activation corners.
        for v in [-128, -127, -31, 0, 31, 127] {
            assert_eq!(activate(v, Activation::None), v);
            assert_eq!(activate(v, Activation::Relu), v.max(0));
            assert_eq!(activate(v, Activation::Abs), v.abs().min(127));
        }
    }

    /// The whole-tensor output stage is the per-value one, at every shift and activation.
    #[test]
    fn output_stage_of_a_tensor_is_the_stage_of_each_value() {
        let accs: Vec<i64> = [-1 << 40, -(1 << 20) - 1, -16_385, -16_384, -129, -128, -127]
            .into_iter()
            .chain([
                -65, -64, -63, -31, -1, 0, 1, 31, 63, 64, 65, 127, 128, 16_383,
            ])
            .chain([16_384, 1 << 20, (1 << 31) - 1, 1 << 40])
            .collect();
        for shift in -8..=16 {
            for act in [Activation::None, Activation::Relu, Activation::Abs] {
                for overflow in [ShiftOverflow::Saturate, ShiftOverflow::Wrap32] {
                    let mut all = accs.clone();
                    output8_all(&mut all, shift, act, overflow);
                    let each: Vec<i64> = accs
                        .iter()
                        .map(|&a| output8(a, shift, act, overflow))
                        .collect();
                    assert_eq!(all, each, "shift {shift}, {act:?}, {overflow:?}");
                }
            }
        }
    }

    #[test]
    fn average_rounding_modes() {
        // Spec §6.2 and the ai8x table of signed windows (sum, n).
        let table = [
            // (sum, n, trunc, half-away, floor, half-up)
            (3, 4, 0, 1, 0, 1),
            (-7, 4, -1, -2, -2, -2),
            (-2, 4, 0, -1, -1, 0),
            (2, 4, 0, 1, 0, 1),
            (10, 4, 2, 3, 2, 3),
        ];
        for (s, n, t, ha, f, hu) in table {
            assert_eq!(AvgRounding::Trunc.apply(s, n), t);
            assert_eq!(AvgRounding::HalfAway.apply(s, n), ha);
            assert_eq!(AvgRounding::Floor.apply(s, n), f);
            assert_eq!(AvgRounding::HalfUp.apply(s, n), hu);
        }
    }

    #[test]
    fn pooling_shapes() {
        assert_eq!(pooled_len(28, 2, 2), 14);
        assert_eq!(pooled_len(32, 3, 2), 15);
        assert_eq!(pooled_len(28, 3, 1), 26);
        assert_eq!(pooled_len(64, 16, 8), 7);
        assert_eq!(pooled_len(7, 1, 2), 4);
        assert_eq!(pooled_len(2, 3, 1), 0);
        let x = Tensor::from_vec(1, 2, 2, vec![0, 0, 0, 3]);
        let p = pool2d(&x, PoolKind::Avg, [2, 2], [2, 2], AvgRounding::Trunc);
        assert_eq!(p.data, vec![0]);
        let p = pool2d(&x, PoolKind::Avg, [2, 2], [2, 2], AvgRounding::HalfAway);
        assert_eq!(p.data, vec![1]);
    }

    /// Direct definition of the padded correlation, in i64.
    fn conv2d_reference(x: &Tensor, k: &Kernels, pad: usize, bias: &[i64]) -> Tensor {
        let oh = x.h + 2 * pad + 1 - k.kh;
        let ow = x.w + 2 * pad + 1 - k.kw;
        let mut out = Tensor::zeros(k.out_ch, oh, ow);
        for (o, &b) in bias.iter().enumerate().take(k.out_ch) {
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = b * 128;
                    for i in 0..k.in_ch {
                        for ky in 0..k.kh {
                            for kx in 0..k.kw {
                                let (r, c) = (y + ky, xx + kx);
                                if r >= pad && c >= pad && r - pad < x.h && c - pad < x.w {
                                    acc += k.at(o, i, ky, kx) * x.at(i, r - pad, c - pad);
                                }
                            }
                        }
                    }
                    *out.at_mut(o, y, xx) = acc;
                }
            }
        }
        out
    }

    #[test]
    fn correlation_is_exact_on_every_path() {
        let mut seed = 0x1234_5678_u64;
        let mut next = |m: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % (2 * m as u64 + 1)) as i64 - m
        };
        // 8-bit data (the i16-pair path), with the corner values; 16-bit data too large for
        // a pair (the i32 path); 32-bit data (the i64 path). Shapes: even and odd channel
        // counts (an odd last channel is paired with zeros), square, flat and 1x1 kernels,
        // rows longer than a block of outputs.
        let shapes = [
            (4, 5, 6, 3, 3),
            (3, 4, 7, 2, 3),
            (1, 6, 5, 1, 1),
            (5, 3, 41, 3, 1),
        ];
        for (xmax, wmax, corners) in [(128, 128, true), (40_000, 8, false), (1 << 28, 128, false)] {
            for (ci, h, wd, kh, kw) in shapes {
                let mut data: Vec<i64> = (0..ci * h * wd)
                    .map(|_| next(xmax).clamp(-xmax, xmax - 1))
                    .collect();
                if corners {
                    data[..7].copy_from_slice(&[-128, -127, 127, -31, 31, 0, -128]);
                } else {
                    data[0] = xmax - 1;
                    data[1] = -xmax;
                }
                let x = Tensor::from_vec(ci, h, wd, data);
                let mut w: Vec<i64> = (0..3 * ci * kh * kw)
                    .map(|_| next(wmax).clamp(-wmax, wmax - 1))
                    .collect();
                w[0] = -wmax;
                w[1] = wmax - 1;
                let k = Kernels {
                    out_ch: 3,
                    in_ch: ci,
                    kh,
                    kw,
                    w,
                };
                let bias = [-128, 127, 5];
                for pad in 0..=2 {
                    let got = conv2d(&x, &k, [pad, pad], [0, 0], Some(&bias));
                    assert_eq!(
                        got,
                        conv2d_reference(&x, &k, pad, &bias),
                        "pad {pad}, xmax {xmax}, shape {:?}",
                        (ci, h, wd, kh, kw)
                    );
                }
            }
        }
    }

    #[test]
    fn transposed_convolution_upsamples_3_to_6() {
        let x = Tensor::from_vec(1, 3, 3, (1..=9).collect());
        let k = Kernels {
            out_ch: 1,
            in_ch: 1,
            kh: 3,
            kw: 3,
            w: vec![0, 0, 0, 0, 1, 0, 0, 0, 0],
        };
        let y = conv_transpose2d(&x, &k, [1, 1], [1, 1], None);
        assert_eq!((y.c, y.h, y.w), (1, 6, 6));
        // A centre-tap kernel copies the stuffed grid: input pixels at even positions.
        assert_eq!(y.at(0, 0, 0), 1);
        assert_eq!(y.at(0, 0, 1), 0);
        assert_eq!(y.at(0, 2, 2), 5);
        assert_eq!(y.at(0, 4, 4), 9);
    }
}

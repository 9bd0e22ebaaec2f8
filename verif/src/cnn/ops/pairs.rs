//! The 2-D correlation of 16-bit data and weights (every 8-bit layer), in `i32`, two input
//! channels at a time: the fast path of [`super::conv2d`].
//!
//! The padded input is stored with channels `2q` and `2q + 1` interleaved (one `i16` pair per
//! pixel, an odd last channel paired with zeros), so that one multiply-add of a pair of
//! pixels by a pair of weights is x86's `pmaddwd`: 16 products summed into 8 `i32`
//! accumulators in one AVX2 instruction. The outputs are computed over the padded width: a
//! kernel tap is then one contiguous run of the input for a whole block of outputs, whatever
//! the rows, and the `pw - ow` positions past each row's end are computed and dropped.
//! Every sum is exact: the caller has checked that a bound on it fits `i32`.
//!
//! Two kernels compute the same blocks: one with AVX2 intrinsics, taken when the CPU has
//! AVX2 (checked at run time), and a portable one (tested against each other and against
//! the direct definition in `super::tests`).

use super::{Kernels, Tensor};

/// Output positions one block accumulates in registers (four AVX2 vectors of 8).
const BLOCK: usize = 32;

/// One kernel tap of a channel pair: where its input run starts (in pixel pairs) and its
/// two weights packed as `pmaddwd` takes them (channel `2q` low, `2q + 1` high).
type Tap = (usize, i32);

/// Two weights as `pmaddwd` takes them: `w0` in the low half, `w1` in the high half.
fn pack(w0: i64, w1: i64) -> i32 {
    ((w0 as i16 as u16 as u32) | ((w1 as i16 as u16 as u32) << 16)) as i32
}

/// The accumulators of the stride-1 correlation (see [`super::conv2d`]), or `None` if the
/// data or the weights do not fit `i16` or a bound on a sum does not fit `i32`. The bound is
/// taken while the operands are laid out, so nothing is read twice.
pub(super) fn correlate(
    x: &Tensor,
    k: &Kernels,
    pad: [usize; 2],
    extra: [usize; 2],
    bias: Option<&[i64]>,
) -> Option<Tensor> {
    let ph = x.h + 2 * pad[0] + extra[0];
    let pw = x.w + 2 * pad[1] + extra[1];
    let oh = (ph + 1).saturating_sub(k.kh);
    let ow = (pw + 1).saturating_sub(k.kw);
    let cin = k.in_ch.min(x.c);
    let pairs = cin.div_ceil(2);
    let blocks = (oh * pw).div_ceil(BLOCK);
    // A pair plane, with the slack the last block's reads run into.
    let plen = ph * pw + k.kw + BLOCK;
    let mut xp = vec![0i16; pairs * plen * 2];
    let mut xmax = 0u64;
    for c in 0..cin {
        for y in 0..x.h {
            let src = &x.data[(c * x.h + y) * x.w..][..x.w];
            let row = (c / 2) * plen + (y + pad[0]) * pw + pad[1];
            for (xx, &v) in src.iter().enumerate() {
                xmax = xmax.max(v.unsigned_abs());
                xp[(row + xx) * 2 + c % 2] = v as i16;
            }
        }
    }
    // Every output channel's taps, end to end (`ends[o]` closes channel o's).
    let mut taps: Vec<Tap> = Vec::with_capacity(k.out_ch * pairs * k.kh * k.kw);
    let mut ends = Vec::with_capacity(k.out_ch);
    let mut wmax = 0u64;
    for o in 0..k.out_ch {
        for q in 0..pairs {
            for ky in 0..k.kh {
                for kx in 0..k.kw {
                    let w0 = k.at(o, 2 * q, ky, kx);
                    let w1 = if 2 * q + 1 < cin {
                        k.at(o, 2 * q + 1, ky, kx)
                    } else {
                        0
                    };
                    wmax = wmax.max(w0.unsigned_abs()).max(w1.unsigned_abs());
                    if w0 != 0 || w1 != 0 {
                        taps.push((q * plen + ky * pw + kx, pack(w0, w1)));
                    }
                }
            }
        }
        ends.push(taps.len());
    }
    let bmax = bias.map_or(0, |b| b.iter().map(|v| v.unsigned_abs()).max().unwrap_or(0));
    let limit = i16::MAX as u64;
    let bound = (cin * k.kh * k.kw) as u128 * xmax as u128 * wmax as u128 + 128 * bmax as u128;
    if xmax > limit || wmax > limit || bound >= i32::MAX as u128 {
        return None;
    }
    let mut out = Tensor::zeros(k.out_ch, oh, ow);
    let mut plane = vec![0i32; blocks * BLOCK];
    let mut first = 0;
    for (o, &end) in ends.iter().enumerate() {
        let b = bias.map_or(0, |b| b[o] * 128) as i32;
        blocks_of(&xp, &taps[first..end], &mut plane, b);
        first = end;
        for y in 0..oh {
            let dst = &mut out.data[(o * oh + y) * ow..][..ow];
            for (d, &v) in dst.iter_mut().zip(&plane[y * pw..]) {
                *d = v.into();
            }
        }
    }
    Some(out)
}

/// `plane[i] = bias + sum over taps of the pair products at input pair `off + i``, block by
/// block, with the fastest kernel this CPU runs.
fn blocks_of(xp: &[i16], taps: &[Tap], plane: &mut [i32], bias: i32) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { blocks_avx2(xp, taps, plane, bias) };
    }
    blocks_portable(xp, taps, plane, bias)
}

/// The blocks in plain Rust (the reference for the AVX2 kernel).
fn blocks_portable(xp: &[i16], taps: &[Tap], plane: &mut [i32], bias: i32) {
    for (j, out) in plane.chunks_exact_mut(BLOCK).enumerate() {
        let mut acc = [bias; BLOCK];
        for &(off, w) in taps {
            let (w0, w1) = (w as i16 as i32, (w >> 16) as i16 as i32);
            let s = &xp[2 * (off + j * BLOCK)..][..2 * BLOCK];
            for (a, p) in acc.iter_mut().zip(s.chunks_exact(2)) {
                *a += p[0] as i32 * w0 + p[1] as i32 * w1;
            }
        }
        out.copy_from_slice(&acc);
    }
}

/// The blocks with AVX2: per tap, four `vpmaddwd` of 16 pixel pairs by the weight pair.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn blocks_avx2(xp: &[i16], taps: &[Tap], plane: &mut [i32], bias: i32) {
    use std::arch::x86_64::*;
    for (j, out) in plane.chunks_exact_mut(BLOCK).enumerate() {
        let mut acc = [_mm256_set1_epi32(bias); BLOCK / 8];
        for &(off, w) in taps {
            let w = _mm256_set1_epi32(w);
            let s = &xp[2 * (off + j * BLOCK)..][..2 * BLOCK];
            for (i, a) in acc.iter_mut().enumerate() {
                // SAFETY: `s` holds 2 BLOCK = 64 i16; vector i reads s[16 i .. 16 i + 16].
                // An unaligned load has no alignment requirement.
                let v = unsafe { _mm256_loadu_si256(s.as_ptr().add(16 * i).cast()) };
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(v, w));
            }
        }
        for (i, a) in acc.iter().enumerate() {
            // SAFETY: `out` holds BLOCK = 32 i32; vector i writes out[8 i .. 8 i + 8].
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(8 * i).cast(), *a) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// The AVX2 kernel (where the CPU has it) and the portable one agree on every block,
    /// corner weights and pixels included (-32768 pairs excepted: the caller never sends
    /// them, as its bound excludes them).
    #[test]
    fn both_kernels_compute_the_same_blocks() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let mut next = || rng.random_range(-128i64..128);
        let corners = [-128, -127, 127, -31, 31, 0, 1, -1];
        let xp: Vec<i16> = (0..2 * (3 * BLOCK + 40))
            .map(|i| {
                if i < corners.len() {
                    corners[i] as i16
                } else {
                    next() as i16
                }
            })
            .collect();
        let mut taps: Vec<Tap> = (0..40).map(|i| (i, pack(next(), next()))).collect();
        taps.push((3, pack(-128, 127)));
        let mut a = vec![0; 3 * BLOCK];
        let mut b = vec![0; 3 * BLOCK];
        blocks_portable(&xp, &taps, &mut a, -1 << 14);
        blocks_of(&xp, &taps, &mut b, -1 << 14);
        assert_eq!(a, b);
        // The portable kernel against the plain sum.
        for (i, &v) in a.iter().enumerate() {
            let want: i32 = (-1 << 14)
                + taps
                    .iter()
                    .map(|&(off, w)| {
                        let p = 2 * (off + i);
                        xp[p] as i32 * (w as i16 as i32)
                            + xp[p + 1] as i32 * ((w >> 16) as i16 as i32)
                    })
                    .sum::<i32>();
            assert_eq!(v, want, "output {i}");
        }
    }
}

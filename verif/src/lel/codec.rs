//! The host side of the LEL cores' streams (spec lel-platform.md §4.1, §4.5, §6.5, §7-26):
//! what a host (or a bench) sends and receives through the cores' AXI-Stream ports.
//!
//! A beat holds `lanes` bytes, lane 0 in bits [7:0] (the first element); the beats here are
//! `u64`, so up to 8 lanes (the thesis uses 4: 32-bit TDATA).
//! - Activations and pooled outputs: one int8 per lane ([`pack_bytes`], [`unpack_bytes`]).
//! - FC weights (LS_INIT in, I_READ out): the weight cache's stream order, sub-layer k, pass
//!   p, input i, one beat per (k, p, i) holding the weights of outputs `L p .. L p + L - 1` of
//!   sub-layer k, each int6 sign-extended in its byte ([`encode_fc_weights`],
//!   [`decode_fc_weights`], exact inverses).
//! - Images: CHW, row by row, `lanes` pixels per beat ([`encode_image`]).
//! - `model_cfg`: the FC-core view and the platform's 32-bit layout ([`FcCfg`],
//!   [`platform_model_cfg`]).

use super::fc_core::FcParams;
use std::fmt;

/// A stream that does not fit the core it is meant for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodecError(pub String);

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CodecError {}

fn fail<T>(msg: String) -> Result<T, CodecError> {
    Err(CodecError(msg))
}

fn check_lanes(lanes: usize) -> Result<(), CodecError> {
    if (1..=8).contains(&lanes) {
        Ok(())
    } else {
        fail(format!("{lanes} lanes: a beat holds 1..=8 bytes"))
    }
}

/// Beats of `lanes` bytes (a multiple of 4) as the platform's 32-bit stream words: each beat
/// its low four bytes first (the platform's upsizer fills an FC core's lanes 0.. in order).
pub fn beats_to_words(beats: &[u64], lanes: usize) -> Vec<u64> {
    assert!(
        lanes.is_multiple_of(4) && lanes <= 8,
        "{lanes} lanes in 32-bit words"
    );
    beats
        .iter()
        .flat_map(|&b| (0..lanes / 4).map(move |k| (b >> (32 * k)) & 0xffff_ffff))
        .collect()
}

/// The platform's 32-bit stream words back as beats of `lanes` bytes (a multiple of 4);
/// the inverse of [`beats_to_words`] (a tail short of a beat is dropped).
pub fn words_to_beats(words: &[u64], lanes: usize) -> Vec<u64> {
    assert!(
        lanes.is_multiple_of(4) && lanes <= 8,
        "{lanes} lanes in 32-bit words"
    );
    words
        .chunks_exact(lanes / 4)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u64, |b, (k, &w)| b | (w & 0xffff_ffff) << (32 * k))
        })
        .collect()
}

/// int8 values, `lanes` per beat; the count must be a multiple of `lanes`.
pub fn pack_bytes(values: &[i32], lanes: usize) -> Result<Vec<u64>, CodecError> {
    check_lanes(lanes)?;
    if !values.len().is_multiple_of(lanes) {
        return fail(format!(
            "{} values do not fill beats of {lanes}",
            values.len()
        ));
    }
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(_, v)| !(-128..=127).contains(*v))
    {
        return fail(format!("value {i} ({v}) does not fit in int8"));
    }
    Ok(values
        .chunks(lanes)
        .map(|c| {
            c.iter()
                .enumerate()
                .fold(0u64, |w, (l, &v)| w | ((v as u8 as u64) << (8 * l)))
        })
        .collect())
}

/// The int8 lanes of `beats`, in order.
pub fn unpack_bytes(beats: &[u64], lanes: usize) -> Vec<i32> {
    beats
        .iter()
        .flat_map(|&b| (0..lanes).map(move |l| (b >> (8 * l)) as u8 as i8 as i32))
        .collect()
}

fn weight_shape(p: &FcParams) -> Result<(usize, usize, usize), CodecError> {
    check_lanes(p.lanes)?;
    let (n, o, k) = (p.inputs, p.outputs, p.pieces);
    if k == 0 || n % k != 0 || o % (k * p.lanes) != 0 {
        return fail(format!(
            "a core of {n} inputs, {o} outputs, {k} pieces and {} lanes has no weight stream",
            p.lanes
        ));
    }
    if !(2..=8).contains(&p.weight_bits) {
        return fail(format!(
            "{}-bit weights do not fit a byte lane",
            p.weight_bits
        ));
    }
    Ok((n / k, o / k, o / k / p.lanes))
}

/// The LS_INIT stream of weights `w` (`[k][j][i]`, as [`super::fc_core::FcCore::w`]).
pub fn encode_fc_weights(p: &FcParams, w: &[i32]) -> Result<Vec<u64>, CodecError> {
    let (f, g, passes) = weight_shape(p)?;
    if w.len() != p.pieces * g * f {
        return fail(format!(
            "{} weights given, the core has {}",
            w.len(),
            p.pieces * g * f
        ));
    }
    let lim = 1i32 << (p.weight_bits - 1);
    if let Some((i, v)) = w
        .iter()
        .enumerate()
        .find(|(_, v)| !(-lim..lim).contains(*v))
    {
        return fail(format!(
            "weight {i} ({v}) does not fit in {} bits",
            p.weight_bits
        ));
    }
    let mut out = Vec::with_capacity(w.len() / p.lanes);
    for k in 0..p.pieces {
        for pass in 0..passes {
            for i in 0..f {
                let mut beat = 0u64;
                for l in 0..p.lanes {
                    let v = w[(k * g + pass * p.lanes + l) * f + i];
                    beat |= (v as u8 as u64) << (8 * l);
                }
                out.push(beat);
            }
        }
    }
    Ok(out)
}

/// Weights `[k][j][i]` from an I_READ (or LS_INIT) stream. Every byte must be a
/// sign-extended `weight_bits` value, and the count must be the core's.
pub fn decode_fc_weights(p: &FcParams, beats: &[u64]) -> Result<Vec<i32>, CodecError> {
    let (f, g, passes) = weight_shape(p)?;
    let words = p.pieces * passes * f;
    if beats.len() != words {
        return fail(format!(
            "{} weight words received, the core has {words}",
            beats.len()
        ));
    }
    let lim = 1i32 << (p.weight_bits - 1);
    let mut w = vec![0i32; p.pieces * g * f];
    let mut it = beats.iter().enumerate();
    for k in 0..p.pieces {
        for pass in 0..passes {
            for i in 0..f {
                let (n, &beat) = it.next().expect("counted above");
                if p.lanes < 8 && beat >> (8 * p.lanes) != 0 {
                    return fail(format!(
                        "word {n} ({beat:#x}) has bits above its {} lanes",
                        p.lanes
                    ));
                }
                for l in 0..p.lanes {
                    let v = (beat >> (8 * l)) as u8 as i8 as i32;
                    if !(-lim..lim).contains(&v) {
                        return fail(format!(
                            "word {n} lane {l} ({v}) is not a sign-extended {}-bit weight",
                            p.weight_bits
                        ));
                    }
                    w[(k * g + pass * p.lanes + l) * f + i] = v;
                }
            }
        }
    }
    Ok(w)
}

/// A `[c][y][x]` image as beats of `lanes` pixels, row by row (each row a whole number of
/// beats).
pub fn encode_image(
    img: &[i32],
    (c, h, w): (usize, usize, usize),
    lanes: usize,
) -> Result<Vec<u64>, CodecError> {
    check_lanes(lanes)?;
    if img.len() != c * h * w {
        return fail(format!(
            "{} pixels given for a {c}x{h}x{w} image",
            img.len()
        ));
    }
    if w % lanes != 0 {
        return fail(format!("rows of {w} pixels do not fill beats of {lanes}"));
    }
    pack_bytes(img, lanes)
}

/// The FC-core view of `model_cfg` (spec §4.5): bits [14:12] A(x+1)_ALPHA, [11:9] E_ALPHA,
/// [8:6] LR_SHIFT, [5:3] LC_ALPHA ([2:0], the upstream core's alpha, is not used).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FcCfg {
    /// Scale field of the output to the next core.
    pub alpha_next: u32,
    /// Error scale field.
    pub alpha_e: u32,
    /// Learning-rate shift.
    pub lr_shift: u32,
    /// Scale field of the LC input.
    pub alpha_lc: u32,
}

impl FcCfg {
    /// The 32-bit word (fields are masked to 3 bits).
    pub fn word(&self) -> u32 {
        ((self.alpha_next & 7) << 12)
            | ((self.alpha_e & 7) << 9)
            | ((self.lr_shift & 7) << 6)
            | ((self.alpha_lc & 7) << 3)
    }

    /// The fields of a word.
    pub fn from_word(w: u32) -> Self {
        FcCfg {
            alpha_next: (w >> 12) & 7,
            alpha_e: (w >> 9) & 7,
            lr_shift: (w >> 6) & 7,
            alpha_lc: (w >> 3) & 7,
        }
    }
}

/// The platform's 32-bit `model_cfg` (spec §4.5): [2:0] CONV_ALPHA and FC core x's view
/// at bit 12x; FC core x sees `model_cfg >> 12x`. At most two FC cores fit.
pub fn platform_model_cfg(conv_alpha: u32, cores: &[FcCfg]) -> Result<u32, CodecError> {
    if cores.len() > 2 {
        return fail(format!(
            "{} FC cores: the 32-bit model_cfg holds two",
            cores.len()
        ));
    }
    let mut w = conv_alpha & 7;
    for (x, c) in cores.iter().enumerate() {
        let mut v = c.word();
        // Core x's [2:0] is the alpha of the core before it (already in the word).
        v &= !7;
        w |= v << (12 * x);
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> FcParams {
        FcParams {
            inputs: 16,
            outputs: 16,
            pieces: 2,
            lanes: 4,
            classes: 10,
            weight_bits: 6,
            acc_bits: 24,
            lc_acc_bits: 23,
            rnd_bits: 14,
            alpha_next: 0,
            alpha_lc: 0,
            alpha_e: 0,
        }
    }

    #[test]
    fn weight_beats_follow_spec_7_26() {
        let p = params();
        // w[k][j][i] = 100 k + 10 j + i would not fit; use a pattern inside -31..31.
        let w: Vec<i32> = (0..p.pieces * 8 * 8)
            .map(|n| (n as i32 % 63) - 31)
            .collect();
        let beats = encode_fc_weights(&p, &w).unwrap();
        assert_eq!(beats.len(), 2 * 2 * 8);
        // Beat (k 1, pass 1, i 3): outputs j = 4..7 of sub-layer 1, input 3.
        let b = beats[16 + 8 + 3];
        for l in 0..4 {
            assert_eq!((b >> (8 * l)) as u8 as i8 as i32, w[(8 + 4 + l) * 8 + 3]);
        }
        assert_eq!(decode_fc_weights(&p, &beats).unwrap(), w);
    }

    #[test]
    fn malformed_streams_are_named() {
        let p = params();
        let e = decode_fc_weights(&p, &[0; 3]).unwrap_err();
        assert!(
            e.0.contains("3 weight words received, the core has 32"),
            "{e}"
        );
        let mut beats = vec![0u64; 32];
        beats[5] = 0x40;
        let e = decode_fc_weights(&p, &beats).unwrap_err();
        assert!(e.0.contains("word 5 lane 0 (64)"), "{e}");
        beats[5] = 1 << 40;
        assert!(decode_fc_weights(&p, &beats)
            .unwrap_err()
            .0
            .contains("above its 4 lanes"));
        let e = encode_fc_weights(&p, &vec![32; 128]).unwrap_err();
        assert!(e.0.contains("weight 0 (32)"), "{e}");
        assert!(pack_bytes(&[1, 2, 3], 4).is_err());
        assert!(pack_bytes(&[128, 0, 0, 0], 4).is_err());
        assert!(encode_image(&[0; 28], (1, 1, 28), 8).is_err());
    }

    #[test]
    fn model_cfg_layout_is_spec_4_5() {
        let c0 = FcCfg {
            alpha_next: 4,
            alpha_e: 0,
            lr_shift: 3,
            alpha_lc: 4,
        };
        let c1 = FcCfg {
            alpha_next: 3,
            alpha_e: 1,
            lr_shift: 5,
            alpha_lc: 3,
        };
        assert_eq!(FcCfg::from_word(c0.word()), c0);
        let w = platform_model_cfg(1, &[c0, c1]).unwrap();
        assert_eq!(w & 7, 1);
        assert_eq!(FcCfg::from_word(w), c0);
        assert_eq!(FcCfg::from_word(w >> 12), c1);
        assert_eq!(
            (w >> 12) & 7,
            4,
            "FC1's [2:0] is A1_ALPHA = FC0's alpha_next"
        );
        assert_eq!(w >> 27, 0);
    }
}

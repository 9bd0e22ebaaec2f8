//! The host codec of the LEL cores (spec lel-platform.md §6.5, §7-26): encode and decode
//! are exact inverses on every shape and value the cores accept, and a stream the core would
//! not produce is rejected, never mis-decoded.

use edgelearn_verif::lel::codec::{
    decode_fc_weights, encode_fc_weights, encode_image, pack_bytes, platform_model_cfg,
    unpack_bytes, FcCfg,
};
use edgelearn_verif::lel::fc_core::FcParams;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn params(pieces: usize, f: usize, passes: usize, lanes: usize, weight_bits: u32) -> FcParams {
    FcParams {
        inputs: pieces * f,
        outputs: pieces * passes * lanes,
        pieces,
        lanes,
        classes: 10,
        weight_bits,
        acc_bits: 24,
        lc_acc_bits: 23,
        rnd_bits: 14,
        alpha_next: 0,
        alpha_lc: 0,
        alpha_e: 0,
    }
}

fn shape() -> impl Strategy<Value = FcParams> {
    (
        1usize..=4,
        1usize..=24,
        1usize..=5,
        prop::sample::select(vec![1usize, 2, 4, 8]),
        2u32..=8,
    )
        .prop_map(|(p, f, q, l, b)| params(p, f, q, l, b))
}

fn shape_and_weights() -> impl Strategy<Value = (FcParams, Vec<i32>)> {
    shape().prop_flat_map(|p| {
        let lim = 1i32 << (p.weight_bits - 1);
        let n = p.inputs * p.outputs / p.pieces;
        (Just(p), prop::collection::vec(-lim..lim, n))
    })
}

proptest! {
    #[test]
    fn weights_round_trip((p, w) in shape_and_weights()) {
        let beats = encode_fc_weights(&p, &w).unwrap();
        prop_assert_eq!(beats.len() * p.lanes, w.len());
        prop_assert_eq!(decode_fc_weights(&p, &beats).unwrap(), w);
    }

    #[test]
    fn weight_beats_round_trip((p, seed) in (shape(), any::<u64>())) {
        // Any stream of sign-extended weights decodes and encodes back to itself.
        let lim = 1i64 << (p.weight_bits - 1);
        let words = p.inputs * p.outputs / p.pieces / p.lanes;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let beats: Vec<u64> = (0..words)
            .map(|_| {
                (0..p.lanes).fold(0u64, |b, l| {
                    let v: i64 = rng.random_range(-lim..lim);
                    b | ((v as u8 as u64) << (8 * l))
                })
            })
            .collect();
        let w = decode_fc_weights(&p, &beats).unwrap();
        prop_assert_eq!(encode_fc_weights(&p, &w).unwrap(), beats);
    }

    #[test]
    fn a_corrupted_word_is_rejected_or_decoded_exactly((p, w) in shape_and_weights(), k in any::<prop::sample::Index>(), bit in 0u32..64) {
        let mut beats = encode_fc_weights(&p, &w).unwrap();
        let k = k.index(beats.len());
        beats[k] ^= 1 << bit;
        match decode_fc_weights(&p, &beats) {
            Ok(d) => {
                // Only a flip that stays a valid weight decodes, and then to exactly that.
                prop_assert_eq!(encode_fc_weights(&p, &d).unwrap(), beats);
                prop_assert_ne!(d, w);
            }
            Err(e) => prop_assert!(e.0.contains(&format!("word {k}")), "{}", e),
        }
    }

    #[test]
    fn bytes_round_trip(v in prop::collection::vec(-128i32..128, 0..64), lanes in 1usize..=8) {
        let n = v.len() / lanes * lanes;
        let beats = pack_bytes(&v[..n], lanes).unwrap();
        prop_assert_eq!(unpack_bytes(&beats, lanes), v[..n].to_vec());
    }

    #[test]
    fn model_cfg_fields_round_trip(f in prop::array::uniform4(0u32..8), g in prop::array::uniform4(0u32..8), conv in 0u32..8) {
        let c0 = FcCfg { alpha_next: f[0], alpha_e: f[1], lr_shift: f[2], alpha_lc: f[3] };
        let c1 = FcCfg { alpha_next: g[0], alpha_e: g[1], lr_shift: g[2], alpha_lc: g[3] };
        prop_assert_eq!(FcCfg::from_word(c0.word()), c0);
        let w = platform_model_cfg(conv, &[c0, c1]).unwrap();
        prop_assert_eq!(w & 7, conv);
        prop_assert_eq!(FcCfg::from_word(w), c0);
        prop_assert_eq!(FcCfg::from_word(w >> 12), c1);
    }
}

#[test]
fn images_are_chw_rows_of_whole_beats() {
    let img: Vec<i32> = (0..2 * 3 * 8).map(|i| i - 24).collect();
    let beats = encode_image(&img, (2, 3, 8), 4).unwrap();
    assert_eq!(beats.len(), 12);
    assert_eq!(unpack_bytes(&beats, 4), img);
    assert!(encode_image(&img, (2, 3, 8), 3).is_err());
    assert!(encode_image(&img[1..], (2, 3, 8), 4).is_err());
    assert!(platform_model_cfg(0, &[FcCfg::default(); 3]).is_err());
}

//! `lel_bk_group` (the FC core's loss, LC backward pass and classification behind their
//! simulation gate): the core's images (an LC result with its pulse, LS_LOSS, LS_BK's rows
//! with corner weights and both masks, an idle stretch longer than the gate's hold) and
//! random traffic that keeps the block's contract (the LC result changes only with its
//! pulse or reset); the golden trace from `golden::bk_group`.

use super::{blank, corner_lanes, port_row, PortRow, View, CORNERS_6};
use crate::golden::bk_group::{BkGroup, BkGroupIn};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Classes of the registered group.
pub const CLASSES: usize = 10;

/// Corner values of a 23-bit LC sum (Q12).
const CORNERS_23: [i64; 7] = [-(1 << 22), (1 << 22) - 1, 0, 4096, -4096, 4095, 1];

fn lc_sums(rng: &mut Xoshiro256PlusPlus) -> Vec<i64> {
    (0..CLASSES)
        .map(|_| match rng.random_range(0..4) {
            0 => CORNERS_23[rng.random_range(0..CORNERS_23.len())],
            1 => rng.random_range(-(1i64 << 22)..1 << 22),
            _ => rng.random_range(-20_000..20_000),
        })
        .collect()
}

fn weights(rng: &mut Xoshiro256PlusPlus) -> Vec<i64> {
    corner_lanes(rng, CLASSES, &CORNERS_6, 6)
        .iter()
        .map(|&w| (w as i64).max(-31))
        .collect()
}

port_row!(BkGroupIn =>
    reset, label, lc, lc_valid, alpha_e, loss_en, en, valid, weight, relu_mask
);

/// Eight images as the core runs them: the LC result and its pulse, LS_LOSS one cycle
/// later, LS_BK's 24 rows after the loss's four cycles, the pipeline's tail, then 80 idle
/// cycles; the label and the error scale change per image.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_BK_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let idle = BkGroupIn {
        lc: vec![0; CLASSES],
        weight: vec![0; CLASSES],
        ..Default::default()
    };
    BkGroupIn {
        reset: true,
        ..idle.clone()
    }
    .push(&mut s)?;
    for k in 0..8u32 {
        let img = BkGroupIn {
            label: k + 2 * (k % 2),
            lc: lc_sums(&mut rng),
            alpha_e: k % 4,
            ..idle.clone()
        };
        BkGroupIn {
            lc_valid: true,
            ..img.clone()
        }
        .push(&mut s)?;
        img.push(&mut s)?;
        BkGroupIn {
            loss_en: true,
            ..img.clone()
        }
        .push(&mut s)?;
        for _ in 0..5 {
            img.push(&mut s)?;
        }
        for _ in 0..24 {
            let r = BkGroupIn {
                en: true,
                valid: rng.random_range(0..6) != 0,
                weight: weights(&mut rng),
                relu_mask: rng.random_range(0..3) != 0,
                ..img.clone()
            };
            r.push(&mut s)?;
        }
        for _ in 0..8 {
            BkGroupIn {
                en: true,
                ..img.clone()
            }
            .push(&mut s)?;
        }
        for _ in 0..80 {
            img.push(&mut s)?;
        }
    }
    Ok(s)
}

/// Random rows: every input random but the LC result, which changes only with its pulse or
/// a reset (the block's contract); rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::LEL_BK_GROUP, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut lc = vec![0; CLASSES];
    BkGroupIn {
        reset: true,
        lc: lc.clone(),
        weight: vec![0; CLASSES],
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        let reset = rng.random_range(0..300) == 0;
        let lc_valid = rng.random_range(0..40) == 0;
        if reset || lc_valid {
            lc = lc_sums(&mut rng);
        }
        let i = BkGroupIn {
            reset,
            label: rng.random_range(0..16),
            lc: lc.clone(),
            lc_valid,
            alpha_e: rng.random_range(0..8),
            loss_en: rng.random_range(0..8) == 0,
            en: rng.random_range(0..3) != 0,
            valid: rng.random_range(0..3) != 0,
            weight: weights(&mut rng),
            relu_mask: rng.random_range(0..4) != 0,
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (`grad` with `grad_valid`, `class_num` with
/// `classify_done`).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = BkGroup::new(CLASSES);
    for c in 0..stim.len() {
        let o = m.step(&BkGroupIn::read(&v, c));
        e.set(c, "grad_valid", BigUint::from(o.grad.is_some() as u8));
        if let Some(g) = o.grad {
            e.set(c, "grad", from_signed(g, 8));
        }
        e.set(c, "classify_done", BigUint::from(o.class.is_some() as u8));
        if let Some((_, k)) = o.class {
            e.set(c, "class_num", BigUint::from(k));
        }
    }
    e
}

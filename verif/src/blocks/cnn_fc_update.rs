//! `cnn_fc_update`: stimuli and golden trace. Whole-layer updates of realistic layers
//! (10 outputs x 192 inputs, outputs from `fc_update::forward`), the corner rows (x, w, every
//! `lr_shift`, both roundings, e = +-4096 and 0 after error vectors with huge gaps, all-equal
//! and i32-extreme outputs, `logit_shift` 0 and 31), and random traffic with idle and
//! back-to-back rows, stray beats, resets and re-seeding. Every stimulus is built beside the
//! cycle model ([`FcUpdate`]) so that a generator can wait for `err_ready`.

use super::{blank, port_row, PortRow, View};
use crate::cnn::fc_update::{
    forward, logit_shift, offset, Rounding, UpdateParams, BIAS_INPUT, ERR_FRAC, ERR_ONE,
};
use crate::golden::arith::asr_floor;
use crate::golden::cnn_fc_update::{FcUpdate, FcUpdateIn, FcUpdateOut, RowDone};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The registered block's outputs.
pub const OUTS: usize = 10;
/// Inputs of the whole-layer stimulus.
pub const INPUTS: usize = 192;
/// Corner inputs of a row (128: a bias).
pub const CORNER_X: [i64; 7] = [-128, -127, -31, 0, 31, 127, 128];
/// Corner weights of a row.
pub const CORNER_W: [i64; 6] = [-128, -127, -31, 0, 31, 127];

const BLOCK: &str = crate::rtl::designs::name::CNN_FC_UPDATE;

port_row!(FcUpdateIn =>
    reset, seed, seed_load, acc_valid, acc_in, label, logit_shift, err_idx, row_valid, row_out,
    row_w, row_x, lr_shift, stochastic
);

/// A stimulus under construction beside the cycle model.
struct Builder {
    s: Stimulus,
    m: FcUpdate,
    out: FcUpdateOut,
}

impl Builder {
    fn new(ports: &[PortSpec]) -> Self {
        Builder {
            s: Stimulus::new(BLOCK, ports),
            m: FcUpdate::new(OUTS),
            out: FcUpdateOut::default(),
        }
    }

    fn cycle(&mut self, i: &FcUpdateIn) -> Result<&FcUpdateOut> {
        i.push(&mut self.s)?;
        self.out = self.m.step(i);
        Ok(&self.out)
    }

    /// `n` idle cycles reading `e` round robin.
    fn idle(&mut self, n: usize) -> Result<()> {
        for _ in 0..n {
            let err_idx = self.s.len() % 16;
            self.cycle(&FcUpdateIn {
                err_idx,
                ..Default::default()
            })?;
        }
        Ok(())
    }

    /// The OUTS beats of `acc` back to back (label and shift held on every beat).
    fn beats(&mut self, acc: &[i64], label: usize, shift: u32) -> Result<()> {
        for &a in acc {
            self.cycle(&FcUpdateIn {
                acc_valid: true,
                acc_in: a,
                label,
                logit_shift: shift,
                ..Default::default()
            })?;
        }
        Ok(())
    }

    /// Idle cycles (reading `e` round robin) until `err_ready`.
    fn wait_ready(&mut self) -> Result<()> {
        let start = self.s.len();
        while !self.out.err_ready {
            assert!(
                self.s.len() - start < 1000,
                "cnn_fc_update stimulus: err_ready never rose"
            );
            self.idle(1)?;
        }
        Ok(())
    }

    fn row(&mut self, o: usize, w: i64, x: i64, lr_shift: u32, rounding: Rounding) -> Result<()> {
        let err_idx = self.s.len() % 16;
        self.cycle(&FcUpdateIn {
            err_idx,
            row_valid: true,
            row_out: o,
            row_w: w,
            row_x: x,
            lr_shift,
            stochastic: rounding == Rounding::Stochastic,
            ..Default::default()
        })?;
        Ok(())
    }
}

/// One whole-layer update: weights `w` (O x N, output-major), biases `b`, inputs `x`, the
/// layer's outputs `acc = forward(w, b, x)`, the label and the settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerCase {
    /// Weights, int8.
    pub w: Vec<i64>,
    /// Biases, int8.
    pub b: Vec<i64>,
    /// Inputs, int8 after a ReLU (0..127).
    pub x: Vec<i64>,
    /// `forward(w, b, x)`.
    pub acc: Vec<i64>,
    /// Target class.
    pub label: usize,
    /// Learning rate, rounding, logit shift.
    pub params: UpdateParams,
}

/// A realistic layer of `outs` x `inputs`: weights in -40..40, biases in -20..20, ReLU
/// inputs in 0..127 (logits of a few units at `logit_shift` 6, so the softmax is neither
/// uniform nor one-hot).
pub fn layer_case(seed: u64, outs: usize, inputs: usize, params: UpdateParams) -> LayerCase {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let w: Vec<i64> = (0..outs * inputs)
        .map(|_| rng.random_range(-40..=40))
        .collect();
    let b: Vec<i64> = (0..outs).map(|_| rng.random_range(-20..=20)).collect();
    let x: Vec<i64> = (0..inputs).map(|_| rng.random_range(0..=127)).collect();
    let acc = forward(&w, &b, &x);
    LayerCase {
        label: rng.random_range(0..outs),
        w,
        b,
        x,
        acc,
        params,
    }
}

/// The two layer updates of the whole-layer stimulus: stochastic rounding at `lr_shift` 3,
/// then half-up at `lr_shift` 0 on the same shape (`logit_shift` 6: output shift 0).
pub fn layer_cases(seed: u64, inputs: usize) -> Vec<LayerCase> {
    let shift = logit_shift(0).expect("output shift 0");
    vec![
        layer_case(
            seed,
            OUTS,
            inputs,
            UpdateParams {
                lr_shift: 3,
                rounding: Rounding::Stochastic,
                logit_shift: shift,
            },
        ),
        layer_case(
            seed + 1,
            OUTS,
            inputs,
            UpdateParams {
                lr_shift: 0,
                rounding: Rounding::Nearest,
                logit_shift: shift,
            },
        ),
    ]
}

/// Reset, load `lfsr_seed`, then each case as a host drives it: the O beats back to back,
/// idle cycles until `err_ready` (reading `e` round robin), the O (N + 1) rows back to back
/// (for o: N weights then the bias, `update_layer`'s order), two idle cycles. Returns the
/// stimulus and each case's first beat row.
pub fn layer_stimulus(
    ports: &[PortSpec],
    cases: &[LayerCase],
    lfsr_seed: u32,
) -> Result<(Stimulus, Vec<usize>)> {
    let mut b = Builder::new(ports);
    b.cycle(&FcUpdateIn {
        reset: true,
        ..Default::default()
    })?;
    b.cycle(&FcUpdateIn {
        seed: lfsr_seed,
        seed_load: true,
        ..Default::default()
    })?;
    let mut starts = vec![];
    for case in cases {
        let n = case.x.len();
        let p = &case.params;
        starts.push(b.s.len());
        b.beats(&case.acc, case.label, p.logit_shift)?;
        b.wait_ready()?;
        for o in 0..case.b.len() {
            for i in 0..n {
                b.row(o, case.w[o * n + i], case.x[i], p.lr_shift, p.rounding)?;
            }
            b.row(o, case.b[o], BIAS_INPUT, p.lr_shift, p.rounding)?;
        }
        b.idle(2)?;
    }
    Ok((b.s, starts))
}

/// The error vectors of the corner stimulus: (outputs, label, logit_shift).
pub fn corner_vectors() -> Vec<(Vec<i64>, usize, u32)> {
    let (min, max) = (i32::MIN as i64, i32::MAX as i64);
    let mut gap = vec![min; OUTS];
    gap[0] = max;
    let mut mixed = vec![min, max, 0, 1, -1, 2, -2, 16_384, -16_384, max - 1];
    mixed.rotate_left(3);
    vec![
        // e_0 = +4096 (p = 1, not the label), e_1 = -4096 (p = 0, the label), e_2.. = 0.
        (gap.clone(), 1, 0),
        // The same gap seen through the largest shift: a gap of 1 / 256.
        (gap, 0, 31),
        // All equal: p = 1/10 everywhere.
        (vec![12_345; OUTS], 3, 6),
        (vec![min; OUTS], 9, 0),
        (vec![max; OUTS], 0, 31),
        (mixed.clone(), 2, 0),
        (mixed, 7, 31),
        // A label that matches no output.
        (
            (0..OUTS as i64).map(|o| o * 9_000 - 40_000).collect(),
            12,
            6,
        ),
    ]
}

/// The corner rows: after the first vector of [`corner_vectors`] (e_0 = 4096, e_1 = -4096,
/// e_2 = 0), every x of [`CORNER_X`] x w of [`CORNER_W`] x `lr_shift` 0..7 x both roundings x
/// those three errors (2,016 rows, back to back); after each other vector 40 rows of corner
/// values over every output index (0..15), with a beat and rows during the error phase (both
/// ignored), a gap between beats and a re-seed.
pub fn corner_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut b = Builder::new(ports);
    b.cycle(&FcUpdateIn {
        reset: true,
        ..Default::default()
    })?;
    b.cycle(&FcUpdateIn {
        seed: 0x1_2345,
        seed_load: true,
        ..Default::default()
    })?;
    for (k, (acc, label, shift)) in corner_vectors().into_iter().enumerate() {
        if k == 0 {
            b.beats(&acc, label, shift)?;
        } else {
            // A gap after the fifth beat.
            b.beats(&acc[..5], label, shift)?;
            b.idle(2)?;
            b.beats(&acc[5..], label, shift)?;
            // A stray beat and a row while busy: both ignored.
            b.cycle(&FcUpdateIn {
                acc_valid: true,
                acc_in: 77,
                row_valid: true,
                row_w: 100,
                row_x: 100,
                ..Default::default()
            })?;
        }
        b.wait_ready()?;
        if k == 0 {
            for lr in 0..8 {
                for rounding in [Rounding::Nearest, Rounding::Stochastic] {
                    for &x in &CORNER_X {
                        for &w in &CORNER_W {
                            for o in 0..3 {
                                b.row(o, w, x, lr, rounding)?;
                            }
                        }
                    }
                }
            }
        } else {
            if k == 3 {
                b.cycle(&FcUpdateIn {
                    seed: 0,
                    seed_load: true,
                    ..Default::default()
                })?;
            }
            for r in 0..40 {
                let x = CORNER_X[rng.random_range(0..CORNER_X.len())];
                let w = CORNER_W[rng.random_range(0..CORNER_W.len())];
                let rounding = if rng.random_bool(0.5) {
                    Rounding::Stochastic
                } else {
                    Rounding::Nearest
                };
                b.row(r % 16, w, x, rng.random_range(0..8), rounding)?;
            }
        }
        b.idle(3)?;
    }
    Ok(b.s)
}

fn random_acc(rng: &mut Xoshiro256PlusPlus) -> Vec<i64> {
    let scale: i64 = [0, 50, 3_000, 100_000, 5_000_000, 1 << 31][rng.random_range(0..6)];
    let base: i64 = rng.random_range(i32::MIN as i64..=i32::MAX as i64) / 4;
    (0..OUTS)
        .map(|_| {
            if rng.random_range(0..10) == 0 {
                [i32::MIN as i64, i32::MAX as i64, 0][rng.random_range(0..3)]
            } else {
                let d = if scale == 0 {
                    0
                } else {
                    rng.random_range(-scale..=scale)
                };
                (base + d).clamp(i32::MIN as i64, i32::MAX as i64)
            }
        })
        .collect()
}

/// Random traffic, about `cycles` long: error vectors at random times (random scales, corner
/// values, labels 0..15, shifts 0..31, beats with random gaps, now and then one beat too
/// many), rows in bursts of random density (back to back, sparse, none) with random output
/// indices (0..15), 9-bit inputs, 8-bit weights, `lr_shift` and rounding, random `err_idx`,
/// occasional resets and re-seeds.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut b = Builder::new(ports);
    b.cycle(&FcUpdateIn {
        reset: true,
        ..Default::default()
    })?;
    b.cycle(&FcUpdateIn {
        seed: rng.random_range(0..1 << 17),
        seed_load: true,
        ..Default::default()
    })?;
    let mut vector: Vec<i64> = vec![];
    let mut row_p = 1.0;
    let (mut label, mut shift) = (0usize, 6u32);
    for c in 0..cycles {
        let mut i = FcUpdateIn {
            err_idx: rng.random_range(0..16),
            label: rng.random_range(0..16),
            logit_shift: rng.random_range(0..32),
            ..Default::default()
        };
        if rng.random_range(0..700) == 0 {
            i.reset = true;
        }
        if rng.random_range(0..300) == 0 {
            i.seed_load = true;
            i.seed = [0, 1, 0x1_ffff, rng.random_range(0..1 << 17)][rng.random_range(0..4)];
        }
        if vector.is_empty() && rng.random_range(0..150) == 0 {
            vector = random_acc(&mut rng);
            vector.reverse();
            if rng.random_range(0..4) == 0 {
                vector.insert(0, rng.random_range(-1000..1000));
            }
            label = if rng.random_range(0..8) == 0 {
                rng.random_range(OUTS..16)
            } else {
                rng.random_range(0..OUTS)
            };
            shift = if rng.random_range(0..4) == 0 {
                rng.random_range(0..32)
            } else {
                rng.random_range(4..9)
            };
        }
        if !vector.is_empty() && rng.random_range(0..10) < 7 {
            i.acc_valid = true;
            i.acc_in = vector.pop().unwrap_or(0);
            i.label = label;
            i.logit_shift = shift;
        } else if rng.random_range(0..500) == 0 {
            i.acc_valid = true;
            i.acc_in = rng.random_range(i32::MIN as i64..=i32::MAX as i64);
        }
        if c % 64 == 0 {
            row_p = [1.0, 1.0, 0.8, 0.3, 0.0][rng.random_range(0..5)];
        }
        i.row_valid = rng.random_bool(row_p);
        i.row_out = if rng.random_range(0..6) == 0 {
            rng.random_range(0..16)
        } else {
            rng.random_range(0..OUTS)
        };
        i.row_w = if rng.random_range(0..3) == 0 {
            CORNER_W[rng.random_range(0..CORNER_W.len())]
        } else {
            rng.random_range(-128..=127)
        };
        i.row_x = match rng.random_range(0..6) {
            0 => CORNER_X[rng.random_range(0..CORNER_X.len())],
            1 => [-256, 255][rng.random_range(0..2)],
            _ => rng.random_range(-256..=255),
        };
        i.lr_shift = rng.random_range(0..8);
        i.stochastic = rng.random_bool(0.5);
        b.cycle(&i)?;
    }
    b.idle(4)?;
    Ok(b.s)
}

fn bit(v: bool) -> BigUint {
    BigUint::from(v as u8)
}

/// Golden trace: every output on every cycle.
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = FcUpdate::new(OUTS);
    for c in 0..stim.len() {
        let o = m.step(&FcUpdateIn::read(&v, c));
        e.set(c, "busy", bit(o.busy));
        e.set(c, "err_ready", bit(o.err_ready));
        e.set(c, "err_out", from_signed(o.err_out, 14));
        e.set(c, "w_out", from_signed(o.w_out, 8));
        e.set(c, "w_valid", bit(o.w_valid));
    }
    e
}

/// The rows the golden model finishes on `stim`, in order, with the cycle of their result.
pub fn rows_done(stim: &Stimulus) -> Vec<(usize, RowDone)> {
    let v = View::new(stim);
    let mut m = FcUpdate::new(OUTS);
    (0..stim.len())
        .filter_map(|c| m.step(&FcUpdateIn::read(&v, c)).row.map(|r| (c, r)))
        .collect()
}

/// What a stimulus exercises (for tests that must be able to fail).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Rows updated.
    pub rows: usize,
    /// Rows whose sum exceeded 127 (saturated high).
    pub sat_hi: usize,
    /// Rows whose sum fell below -128 (saturated low).
    pub sat_lo: usize,
    /// Rows rounded half up.
    pub nearest: usize,
    /// Rows rounded stochastically.
    pub stochastic: usize,
    /// Rows per `lr_shift`.
    pub lr: [usize; 8],
    /// Rows with e = +4096.
    pub e_one: usize,
    /// Rows with e = -4096.
    pub e_minus_one: usize,
    /// Rows with e = 0.
    pub e_zero: usize,
    /// Bias rows (x = 128).
    pub bias: usize,
    /// Error vectors completed (`err_ready` rising).
    pub error_vectors: usize,
}

/// Coverage of `stim` by the golden model.
pub fn coverage(stim: &Stimulus) -> Coverage {
    let mut cov = Coverage::default();
    for (_, r) in rows_done(stim) {
        cov.rows += 1;
        let s = ERR_FRAC + r.lr_shift;
        let unsat = r.w + asr_floor(-(r.e * r.x) + offset(r.rounding, r.rnd, s), s);
        cov.sat_hi += (unsat > 127) as usize;
        cov.sat_lo += (unsat < -128) as usize;
        match r.rounding {
            Rounding::Nearest => cov.nearest += 1,
            Rounding::Stochastic => cov.stochastic += 1,
        }
        cov.lr[r.lr_shift as usize] += 1;
        cov.e_one += (r.e == ERR_ONE) as usize;
        cov.e_minus_one += (r.e == -ERR_ONE) as usize;
        cov.e_zero += (r.e == 0) as usize;
        cov.bias += (r.x == BIAS_INPUT) as usize;
    }
    let v = View::new(stim);
    let mut m = FcUpdate::new(OUTS);
    let mut ready = false;
    for c in 0..stim.len() {
        let o = m.step(&FcUpdateIn::read(&v, c));
        cov.error_vectors += (o.err_ready && !ready) as usize;
        ready = o.err_ready;
    }
    cov
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgelearn_sim::Direction;

    fn ports() -> Vec<PortSpec> {
        let i = |n: &str, w| PortSpec::new(n, Direction::Input, w);
        vec![
            PortSpec::clock(),
            i("reset", 1),
            i("seed", 17),
            i("seed_load", 1),
            i("acc_valid", 1),
            i("acc_in", 32),
            i("label", 4),
            i("logit_shift", 5),
            i("err_idx", 4),
            i("row_valid", 1),
            i("row_out", 4),
            i("row_w", 8),
            i("row_x", 9),
            i("lr_shift", 3),
            i("stochastic", 1),
        ]
    }

    #[test]
    fn corner_stimulus_covers_what_it_claims() {
        let c = coverage(&corner_stimulus(&ports(), 1).unwrap());
        assert!(c.rows >= 2016 + 7 * 40, "{c:?}");
        assert!(c.sat_hi > 0 && c.sat_lo > 0, "{c:?}");
        assert!(
            c.e_one >= 672 && c.e_minus_one >= 672 && c.e_zero >= 672,
            "{c:?}"
        );
        assert!(c.lr.iter().all(|&n| n >= 250), "{c:?}");
        assert_eq!(c.error_vectors, corner_vectors().len());
    }
}

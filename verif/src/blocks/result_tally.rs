//! `lel_result_tally`: one FC core's classification counts as the platform drives them
//! (a run of images: start, the image's beats with its label, the LC result, a
//! classification held high for a few cycles; a new run clearing the counts), random
//! traffic (every input random, rare resets), and the golden trace.

use super::{out_row, port_row, trace, PortRow};
use crate::golden::result_tally::{ResultTally, ResultTallyIn};
use crate::rtl::designs::name::LEL_RESULT_TALLY;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(ResultTallyIn => reset, clear, start, beat, label, lc_valid, done, class_num);

/// Two runs of 40 images each as the platform sees them: per image `start`, its beats
/// (the label on the first, others' TUSER random), the LC result, then `done` high for
/// three cycles with a class right about two times in three.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_RESULT_TALLY, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    ResultTallyIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _run in 0..2 {
        ResultTallyIn {
            clear: true,
            ..Default::default()
        }
        .push(&mut s)?;
        for _image in 0..40 {
            let label: u8 = rng.random_range(0..10);
            ResultTallyIn {
                start: true,
                ..Default::default()
            }
            .push(&mut s)?;
            for k in 0..rng.random_range(1..6) {
                let tuser = if k == 0 {
                    label
                } else {
                    rng.random_range(0..16)
                };
                ResultTallyIn {
                    beat: true,
                    label: tuser,
                    ..Default::default()
                }
                .push(&mut s)?;
            }
            ResultTallyIn {
                lc_valid: true,
                ..Default::default()
            }
            .push(&mut s)?;
            let class = match rng.random_range(0..3) {
                0 => rng.random_range(0..10),
                _ => label,
            };
            for _ in 0..3 {
                ResultTallyIn {
                    done: true,
                    class_num: class,
                    ..Default::default()
                }
                .push(&mut s)?;
            }
            ResultTallyIn::default().push(&mut s)?;
        }
    }
    Ok(s)
}

/// Random traffic: every input random (starts, beats and results often, clears rarely),
/// rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_RESULT_TALLY, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    ResultTallyIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        ResultTallyIn {
            reset: rng.random_range(0..300) == 0,
            clear: rng.random_range(0..100) == 0,
            start: rng.random_range(0..8) == 0,
            beat: rng.random_range(0..2) == 0,
            label: rng.random_range(0..16),
            lc_valid: rng.random_range(0..6) == 0,
            done: rng.random_range(0..3) == 0,
            class_num: rng.random_range(0..16),
        }
        .push(&mut s)?;
    }
    Ok(s)
}

out_row!(ResultTally => results, correct, last);

/// Golden trace: every output on every cycle (sampled after the edge).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = ResultTally::new();
    trace(ports, stim, ResultTallyIn::read, |i| {
        m.step(i);
        m
    })
}

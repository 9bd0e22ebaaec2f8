//! `lel_result_tally`: one FC core's classification counts as the platform drives them
//! (a run of images: start, the image's beats with its label, the LC result, a
//! classification held high for a few cycles; a new run clearing the counts), random
//! traffic (every input random, rare resets), and the golden trace.

use super::{blank, View};
use crate::golden::result_tally::{ResultTally, ResultTallyIn};
use crate::rtl::designs::name::LEL_RESULT_TALLY;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn push(s: &mut Stimulus, i: &ResultTallyIn) -> Result<()> {
    s.row()
        .bit("reset", i.reset)?
        .bit("clear", i.clear)?
        .bit("start", i.start)?
        .bit("beat", i.beat)?
        .set("label", i.label)?
        .bit("lc_valid", i.lc_valid)?
        .bit("done", i.done)?
        .set("class_num", i.class_num)?
        .push()
}

/// Two runs of 40 images each as the platform sees them: per image `start`, its beats
/// (the label on the first, others' TUSER random), the LC result, then `done` high for
/// three cycles with a class right about two times in three.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_RESULT_TALLY, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(
        &mut s,
        &ResultTallyIn {
            reset: true,
            ..Default::default()
        },
    )?;
    for _run in 0..2 {
        push(
            &mut s,
            &ResultTallyIn {
                clear: true,
                ..Default::default()
            },
        )?;
        for _image in 0..40 {
            let label: u8 = rng.random_range(0..10);
            push(
                &mut s,
                &ResultTallyIn {
                    start: true,
                    ..Default::default()
                },
            )?;
            for k in 0..rng.random_range(1..6) {
                let tuser = if k == 0 {
                    label
                } else {
                    rng.random_range(0..16)
                };
                push(
                    &mut s,
                    &ResultTallyIn {
                        beat: true,
                        label: tuser,
                        ..Default::default()
                    },
                )?;
            }
            push(
                &mut s,
                &ResultTallyIn {
                    lc_valid: true,
                    ..Default::default()
                },
            )?;
            let class = match rng.random_range(0..3) {
                0 => rng.random_range(0..10),
                _ => label,
            };
            for _ in 0..3 {
                push(
                    &mut s,
                    &ResultTallyIn {
                        done: true,
                        class_num: class,
                        ..Default::default()
                    },
                )?;
            }
            push(&mut s, &ResultTallyIn::default())?;
        }
    }
    Ok(s)
}

/// Random traffic: every input random (starts, beats and results often, clears rarely),
/// rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_RESULT_TALLY, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(
        &mut s,
        &ResultTallyIn {
            reset: true,
            ..Default::default()
        },
    )?;
    for _ in 0..cycles {
        push(
            &mut s,
            &ResultTallyIn {
                reset: rng.random_range(0..300) == 0,
                clear: rng.random_range(0..100) == 0,
                start: rng.random_range(0..8) == 0,
                beat: rng.random_range(0..2) == 0,
                label: rng.random_range(0..16),
                lc_valid: rng.random_range(0..6) == 0,
                done: rng.random_range(0..3) == 0,
                class_num: rng.random_range(0..16),
            },
        )?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = ResultTally::new();
    for c in 0..stim.len() {
        m.step(&ResultTallyIn {
            reset: v.bit(c, "reset"),
            clear: v.bit(c, "clear"),
            start: v.bit(c, "start"),
            beat: v.bit(c, "beat"),
            label: v.unsigned(c, "label") as u8,
            lc_valid: v.bit(c, "lc_valid"),
            done: v.bit(c, "done"),
            class_num: v.unsigned(c, "class_num") as u8,
        });
        e.set(c, "results", BigUint::from(m.results));
        e.set(c, "correct", BigUint::from(m.correct));
        e.set(c, "last", BigUint::from(m.last));
    }
    e
}

//! `lel_visit_cycles`: a core's last visit outside IDLE as the platform measures it (the
//! thesis conv core's visit of an image, 28,467 cycles, and a short one), random traffic
//! (visits of 1..40 cycles, rare resets), and the golden trace.

use super::trace;
use crate::golden::visit_cycles::VisitCycles;
use crate::rtl::designs::name::LEL_VISIT_CYCLES;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The thesis conv core's cycles per image (Table 4.2).
const THESIS_CONV_IMAGE: usize = 28_467;

fn push(s: &mut Stimulus, busy: bool, reset: bool) -> Result<()> {
    s.row().bit("busy", busy)?.bit("reset", reset)?.push()
}

/// A thesis conv-core image, a visit of 28,467 cycles, then a short one, one to five idle
/// cycles after each.
pub fn thesis_stimulus(ports: &[PortSpec], seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_VISIT_CYCLES, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(&mut s, false, true)?;
    for visit in [THESIS_CONV_IMAGE, 7] {
        for _ in 0..visit {
            push(&mut s, true, false)?;
        }
        for _ in 0..rng.random_range(1..6) {
            push(&mut s, false, false)?;
        }
    }
    Ok(s)
}

/// Random traffic: visits of 1..40 cycles and gaps of 1..4, rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_VISIT_CYCLES, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    push(&mut s, false, true)?;
    let mut left = 0;
    let mut busy = false;
    for _ in 0..cycles {
        if left == 0 {
            busy = !busy;
            left = if busy {
                rng.random_range(1..40)
            } else {
                rng.random_range(1..4)
            };
        }
        left -= 1;
        push(&mut s, busy, rng.random_range(0..250) == 0)?;
    }
    Ok(s)
}

/// Golden trace: `last` on every cycle (sampled after the edge).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let mut m = VisitCycles::new();
    trace(
        ports,
        stim,
        |v, c| (v.bit(c, "busy"), v.bit(c, "reset")),
        |i| {
            m.step(i.0, i.1);
            ("last", m.last)
        },
    )
}

//! Unfolded LFSR (thesis §4.1.7) against the serial golden model, and its period.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::lfsr::{period_stimulus, random_stimulus};
use edgelearn_verif::golden::lfsr::LFSR_PERIOD;

fn thesis_test(block: &str) {
    let stim = random_stimulus(
        block,
        &common::ports(block),
        0x1F5 + block.len() as u64,
        40,
        100,
    )
    .unwrap();
    common::check_block(block, &stim, &Backend::ALL);
}

#[test]
fn lfsr56_matches_serial_model_on_every_backend() {
    thesis_test("lel_lfsr56");
}

#[test]
fn lfsr60_matches_serial_model_on_every_backend() {
    thesis_test("lel_lfsr60");
}

/// The weight-update LFSR of an 8-lane FC core: 112 bits a step, wider than a machine word
/// on every backend.
#[test]
fn lfsr112_matches_serial_model_on_every_backend() {
    thesis_test("lel_lfsr112");
}

/// The standalone Verilator bench (`verilator --binary --timing`, the nightly regression's
/// `verilator-bench` jobs) builds and runs with the Verilator `make test` installs.
#[test]
fn lfsr56_on_the_generated_verilator_bench() {
    let block = "lel_lfsr56";
    let stim = random_stimulus(block, &common::ports(block), 0x1F5, 40, 100).unwrap();
    common::check_block(block, &stim, &[Backend::VerilatorBench]);
}

#[test]
fn lfsr_random_seeds_thousands_of_steps_on_verilator() {
    for block in ["lel_lfsr56", "lel_lfsr60"] {
        let stim = random_stimulus(block, &common::ports(block), 77, 200, 250).unwrap();
        assert!(stim.len() > 50_000);
        common::check_block(block, &stim, &[Backend::Verilator]);
    }
}

/// The state comes back after exactly 131,071 steps and not before: `out` carries the 17
/// state bits, so equal outputs mean equal states.
#[test]
fn lfsr_period_is_131071_steps() {
    let block = "lel_lfsr56";
    let steps = LFSR_PERIOD as usize + 3;
    let stim = period_stimulus(block, &common::ports(block), 0x0_BEEF, steps).unwrap();
    let runs = common::check_block(block, &stim, &[Backend::Verilator]);
    let rows = &runs[0].trace.rows;
    let first_step = 2; // row 0 reset, row 1 prog, rows 2.. instr
    let out0 = &rows[first_step][0];
    let repeats: Vec<usize> = (first_step + 1..rows.len())
        .filter(|&c| &rows[c][0] == out0)
        .collect();
    assert_eq!(repeats, vec![first_step + LFSR_PERIOD as usize]);
}

//! Tree adder (thesis §4.1.3, §4.1.4): the LC-backward thesis test with its 486-cycle
//! latency, mask toggling, the conv role at every alpha, and random traffic.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::tree_adder::{conv_stimulus, random_stimulus, thesis_stimulus};

#[test]
fn tree_adder_thesis_test_latency_486() {
    let stim = thesis_stimulus(&common::ports("lel_tree_adder"), 964, 480, false).unwrap();
    let runs = common::check_block("lel_tree_adder", &stim, &Backend::ALL);
    for run in &runs {
        let rise = common::first_row_where(run, "valid_out", 1, 0).unwrap();
        let fall = common::first_row_where(run, "valid_out", 0, rise).unwrap();
        assert_eq!(
            common::edges(1, fall),
            486,
            "{}: valid_in rise to valid_out fall",
            run.trace.backend
        );
        assert_eq!(
            fall - rise,
            480,
            "{}: one output per row",
            run.trace.backend
        );
    }
}

#[test]
fn tree_adder_mask_toggling() {
    let stim = thesis_stimulus(&common::ports("lel_tree_adder"), 965, 480, true).unwrap();
    common::check_block("lel_tree_adder", &stim, &Backend::ALL);
}

#[test]
fn tree_adder_conv_every_alpha() {
    let stim = conv_stimulus(&common::ports("lel_tree_adder_conv"), 974, 100).unwrap();
    let runs = common::check_block("lel_tree_adder_conv", &stim, &Backend::ALL);
    for run in &runs {
        let rise = common::first_row_where(run, "valid_out", 1, 0).unwrap();
        let fall = common::first_row_where(run, "valid_out", 0, rise).unwrap();
        assert_eq!(common::edges(1, fall), 800 + 6, "{}", run.trace.backend);
    }
}

#[test]
fn tree_adder_random_traffic() {
    for block in ["lel_tree_adder", "lel_tree_adder_conv"] {
        let stim = random_stimulus(block, &common::ports(block), 7, 2_000, false).unwrap();
        common::check_block(block, &stim, &Backend::THREE);
        let stim = random_stimulus(block, &common::ports(block), 8, 12_000, true).unwrap();
        common::check_block(block, &stim, &[Backend::Verilator]);
    }
}

//! Tree comparator (thesis §4.1.10): the thesis test with its 105-cycle latency, and random
//! streams with corner values.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::tree_comparator::{random_stimulus, thesis_stimulus};

#[test]
fn tree_comparator_thesis_test_and_latency() {
    let stim = thesis_stimulus(&common::ports("lel_tree_comparator"), 1163, 100, 12).unwrap();
    let runs = common::check_block("lel_tree_comparator", &stim, &Backend::ALL);
    for run in &runs {
        let first_row = 1;
        let rise = common::first_row_where(run, "valid_out", 1, 0).unwrap();
        let fall = common::first_row_where(run, "valid_out", 0, rise).unwrap();
        assert_eq!(
            common::edges(first_row, fall),
            105,
            "{}: valid_in rise to valid_out fall",
            run.trace.backend
        );
        assert_eq!(
            fall - rise,
            100,
            "{}: one output per row",
            run.trace.backend
        );
    }
}

#[test]
fn tree_comparator_random_vectors() {
    let stim = random_stimulus(&common::ports("lel_tree_comparator"), 9, 3_000).unwrap();
    common::check_block("lel_tree_comparator", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_tree_comparator"), 10, 20_000).unwrap();
    common::check_block("lel_tree_comparator", &stim, &[Backend::Verilator]);
}

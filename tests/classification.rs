//! Classification (thesis §4.1.11): the thesis test with ties and extremes, done 9 cycles
//! after `en` falls, and random traffic.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::classification::{random_stimulus, thesis_stimulus};
use edgelearn_verif::golden::classification::classification;

#[test]
fn classification_thesis_test_done_9_cycles_after_en_falls() {
    let (stim, falls) = thesis_stimulus(&common::ports("lel_classification"), 1187, 64).unwrap();
    let runs = common::check_block("lel_classification", &stim, &Backend::ALL);
    let li = stim.port_index("lc_out").unwrap();
    for run in &runs {
        for &f in &falls {
            let done = common::first_row_where(run, "classify_done", 1, f - 1).unwrap();
            assert_eq!(
                common::edges(f, done),
                9,
                "{}: en fall to classify_done rise",
                run.trace.backend
            );
            let (max, idx) = classification(&unpack_lanes(&stim.rows[f - 1][li], 23, 10, true));
            let got_idx =
                u32::try_from(run.trace.get(done, "class_num").unwrap().known().unwrap()).unwrap();
            let got_max = edgelearn_sim::value::to_i64(
                run.trace.get(done, "max_lc_out").unwrap().known().unwrap(),
                23,
            );
            assert_eq!(
                (got_max, got_idx as usize),
                (max, idx),
                "{}",
                run.trace.backend
            );
        }
    }
}

#[test]
fn classification_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_classification"), 20, 3_000).unwrap();
    common::check_block("lel_classification", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_classification"), 21, 12_000).unwrap();
    common::check_block("lel_classification", &stim, &[Backend::Verilator]);
}

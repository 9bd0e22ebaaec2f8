//! Local classifier forward path (thesis §4.1.2): 480-input bursts bit-exact, latency, and
//! random traffic with corner values.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::lc_forward::{burst_stimulus, random_stimulus};

#[test]
fn lc_forward_480_inputs_on_every_backend() {
    let (stim, starts) = burst_stimulus(&common::ports("lel_lc_forward"), 932, 2, 480).unwrap();
    let runs = common::check_block("lel_lc_forward", &stim, &Backend::ALL);
    for run in &runs {
        let rise = common::first_row_where(run, "valid_out", 1, 0).unwrap();
        assert_eq!(
            common::edges(starts[0], rise),
            482,
            "{}: valid_in rise to valid_out rise",
            run.trace.backend
        );
        let rise2 = common::first_row_where(run, "valid_out", 1, rise + 1).unwrap();
        assert_eq!(
            common::edges(starts[1], rise2),
            482,
            "{}",
            run.trace.backend
        );
    }
    // The sums really are 23-bit values of both signs.
    let i = runs[0].trace.port_index("data_out").unwrap();
    let rise = common::first_row_where(&runs[0], "valid_out", 1, 0).unwrap();
    let sums = unpack_lanes(runs[0].trace.rows[rise][i].known().unwrap(), 23, 10, true);
    assert!(
        sums.iter().any(|&s| s > 0) && sums.iter().any(|&s| s < 0),
        "{sums:?}"
    );
}

#[test]
fn lc_forward_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_lc_forward"), 5, 2_000).unwrap();
    common::check_block("lel_lc_forward", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_lc_forward"), 6, 12_000).unwrap();
    common::check_block("lel_lc_forward", &stim, &[Backend::Verilator]);
}

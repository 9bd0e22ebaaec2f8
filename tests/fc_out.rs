//! `lel_fc_out` (the FC core's output feed): the thesis FC0's INF and a READ, and random
//! traffic, on every backend, every output on every cycle against the golden trace
//! (`verif::golden::fc_out`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::fc_out::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_fc_out";

#[test]
fn fc_out_thesis_inf_and_read_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9801).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // The FIFO filled: a pass waited for credit; the last pass started the LC pass.
    assert!(common::first_row_where(&runs[0], "credit", 0, 0).is_some());
    assert!(common::first_row_where(&runs[0], "lc_run", 1, 0).is_some());
}

#[test]
fn fc_out_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9802, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

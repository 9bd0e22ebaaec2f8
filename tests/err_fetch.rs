//! `lel_err_fetch` (the FC core's errors between BK and WU): the thesis FC0's gradient
//! layout and random traffic (the thesis stimulus on every backend, the netlist included;
//! the random one on the three simulators), every output on every cycle against the golden
//! trace (`verif::golden::err_fetch`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::err_fetch::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_err_fetch";

#[test]
fn err_fetch_thesis_bk_and_wu_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9601).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // BK's last error (piece 3, error 119) ends the phase.
    assert!(common::first_row_where(&runs[0], "last_grad", 1, 0).is_some());
}

#[test]
fn err_fetch_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9602, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

//! `lel_lc_rows` (the FC core's LC row walk): the thesis FC0's forward and backward walks
//! and random traffic (the thesis stimulus on every backend, the netlist included; the
//! random one on the three simulators), every output on every cycle against the golden
//! trace (`verif::golden::lc_rows`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::lc_rows::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_lc_rows";

#[test]
fn lc_rows_thesis_walks_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9501).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // The forward walk reads its last word (480 rows of 4 lanes: word 119) and stops.
    assert!(common::first_row_where(&runs[0], "word", 119, 0).is_some());
    assert!(common::first_row_where(&runs[0], "word", 120, 0).is_some());
}

#[test]
fn lc_rows_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9502, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

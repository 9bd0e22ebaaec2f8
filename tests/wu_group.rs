//! `lel_wu_group` (the FC core's weight update with its LFSR, behind its simulation gate):
//! the core's LS_WU traffic and random traffic against the golden trace
//! (`verif::golden::wu_group`, the two blocks' cycle models composed), every output on
//! every cycle. The thesis stimulus runs on every backend, the netlist included; the random
//! one on the three simulators.

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::wu_group::{random_stimulus, thesis_stimulus};
use std::collections::BTreeSet;

const BLOCK: &str = "lel_wu_group";

#[test]
fn wu_group_thesis_passes_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9701).unwrap();
    let runs = common::check_block(BLOCK, &stim, &Backend::ALL);
    // The gate slept through the idle stretches and woke for the next burst.
    common::assert_gate_slept(&runs, "gate");
    // The bursts update weights: the output takes many values, not a constant.
    let i = runs[0].trace.port_index("weight_out").unwrap();
    let seen: BTreeSet<_> = runs[0]
        .trace
        .rows
        .iter()
        .map(|r| format!("{:?}", r[i]))
        .collect();
    assert!(
        seen.len() > 200,
        "weight_out took only {} values",
        seen.len()
    );
}

#[test]
fn wu_group_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9702, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

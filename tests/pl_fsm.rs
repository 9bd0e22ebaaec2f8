//! `lel_pl_fsm` (the platform's FSM): the thesis's setup as the platform drives it and
//! random traffic (the thesis stimulus on every backend, the netlist included; the random
//! one on the three simulators), every output on every cycle against the golden trace
//! (`verif::golden::pl_fsm`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::pl_fsm::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_pl_fsm";

#[test]
fn pl_fsm_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9301).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn pl_fsm_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9302, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

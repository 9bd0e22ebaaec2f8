//! `lel_result_tally` (a counter of the platform's status registers): the thesis's setup as
//! the platform drives it and random traffic (the thesis stimulus on every backend, the
//! netlist included; the random one on the three simulators), every output on every cycle
//! against the golden trace (`verif::golden::result_tally`, whose own test holds it to what
//! the register means).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::result_tally::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_result_tally";

#[test]
fn result_tally_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9201).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn result_tally_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9202, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

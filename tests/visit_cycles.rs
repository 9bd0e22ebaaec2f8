//! `lel_visit_cycles` (a counter of the platform's status registers): the thesis's setup as
//! the platform drives it and random traffic (the thesis stimulus on every backend, the
//! netlist included; the random one on the three simulators), every output on every cycle
//! against the golden trace (`verif::golden::visit_cycles`, whose own test holds it to what
//! the register means).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::visit_cycles::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_visit_cycles";

#[test]
fn visit_cycles_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9201).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn visit_cycles_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9202, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

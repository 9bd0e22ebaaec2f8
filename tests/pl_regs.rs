//! `lel_pl_regs` (the platform's writable registers): the thesis setup as a host writes it
//! and random traffic (the thesis stimulus on every backend, the netlist included; the
//! random one on the three simulators), every output on every cycle against the golden
//! trace (`verif::golden::pl_regs`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::pl_regs::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_pl_regs";

#[test]
fn pl_regs_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9901).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn pl_regs_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9902, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

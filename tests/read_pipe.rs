//! `lel_read_pipe` (the FC core's read pipeline): the thesis FC0's passes and random traffic
//! on every backend, every output on every cycle against the golden trace
//! (`verif::golden::read_pipe`, a cycle model of its own).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::read_pipe::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_read_pipe";

#[test]
fn read_pipe_thesis_passes_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9701).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn read_pipe_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9702, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

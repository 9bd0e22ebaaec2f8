//! `lel_conv_scan` (a phase of the conv core): the thesis's setup as the core drives it and random
//! traffic on every backend, every output on every cycle against the golden trace
//! (`verif::golden::conv_scan`, whose own test holds it to the windows or writes an image makes).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::conv_scan::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_conv_scan";

#[test]
fn conv_scan_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9101).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn conv_scan_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9102, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

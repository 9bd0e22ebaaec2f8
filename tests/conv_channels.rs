//! `lel_conv_channels` (a phase of the conv core): the thesis's setup as the core drives it and random
//! traffic on every backend, every output on every cycle against the golden trace
//! (`verif::golden::conv_channels`, whose own test holds it to the depthwise channel mapping and the kernel words).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::conv_channels::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_conv_channels";

#[test]
fn conv_channels_thesis_setup_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9101).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn conv_channels_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9102, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

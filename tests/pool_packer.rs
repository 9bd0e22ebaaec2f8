//! `lel_pool_packer` (the conv core's output stage): one thesis image and random traffic
//! (clears with and without a value, resets) on every backend, every output on every cycle
//! against the golden trace (`verif::golden::pool_packer`, whose own test holds it to the
//! beats an image's values make).

use crate::common;

use edgelearn_sim::Backend;
use edgelearn_verif::blocks::pool_packer::{random_stimulus, thesis_stimulus};

const BLOCK: &str = "lel_pool_packer";

#[test]
fn pool_packer_thesis_image_on_every_backend() {
    let stim = thesis_stimulus(&common::ports(BLOCK), 0x9001).unwrap();
    common::check_block(BLOCK, &stim, &Backend::ALL);
}

#[test]
fn pool_packer_random_traffic_on_three_simulators() {
    let stim = random_stimulus(&common::ports(BLOCK), 0x9002, 3_000).unwrap();
    common::check_block(BLOCK, &stim, &Backend::THREE);
}

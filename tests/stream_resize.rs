//! `lel_stream_up2` and `lel_stream_down2` (the platform's width adapters at 8 lanes, hdl
//! `lel::stream_resize`) against their golden traces on every backend, under random valid
//! and ready, TLAST on whole and partial beats, corner data and rare resets.

use crate::common;
use edgelearn_sim::Backend;
use edgelearn_verif::blocks::stream_resize::random_stimulus;

fn check(block: &str, width: usize, seed: u64, cycles: usize, backends: &[Backend]) {
    let stim = random_stimulus(block, &common::ports(block), seed, cycles, width).unwrap();
    common::check_block(block, &stim, backends);
}

#[test]
fn upsizer_matches_golden_on_every_backend() {
    check("lel_stream_up2", 32, 0x5e1, 1600, &Backend::ALL);
}

#[test]
fn downsizer_matches_golden_on_every_backend() {
    check("lel_stream_down2", 64, 0xd0e, 1600, &Backend::ALL);
}

#[test]
fn adapters_long_random_traffic_on_verilator() {
    check("lel_stream_up2", 32, 7, 40_000, &[Backend::Verilator]);
    check("lel_stream_down2", 64, 8, 40_000, &[Backend::Verilator]);
}

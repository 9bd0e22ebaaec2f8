//! Matmul (thesis §4.1.1): the thesis test for every alpha, the 602-cycle latency, bursts
//! starting from a cleared accumulator, and random traffic with corner values.

use crate::common;

use edgelearn_sim::{unpack_lanes, Backend};
use edgelearn_verif::blocks::matmul::{
    burst_stimulus, random_stimulus, thesis_burst, thesis_stimulus,
};
use edgelearn_verif::golden::matmul::{matmul, MatmulConfig};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

#[test]
fn matmul_thesis_test_latency_602() {
    let (stim, bursts, starts) = thesis_stimulus(&common::ports("lel_matmul"), 920, 4, 4).unwrap();
    let runs = common::check_block("lel_matmul", &stim, &Backend::ALL);
    for run in &runs {
        let rise = common::first_row_where(run, "valid_out", 1, 0).unwrap();
        assert_eq!(common::edges(starts[0], rise), 602, "{}", run.trace.backend);
        let rise2 = common::first_row_where(run, "valid_out", 1, rise + 1).unwrap();
        assert_eq!(
            common::edges(starts[1], rise2),
            602,
            "{}",
            run.trace.backend
        );
        // The raw accumulators equal the plain matmul of each burst (second from zero).
        for (r, b) in [rise, rise2].iter().zip(&bursts) {
            let i = run.trace.port_index("debug_acc").unwrap();
            let acc = unpack_lanes(run.trace.rows[*r][i].known().unwrap(), 24, 4, true);
            assert_eq!(
                acc,
                matmul(&MatmulConfig::THESIS, &b.data, &b.weights, 4, 4).acc
            );
        }
    }
}

#[test]
fn matmul_every_alpha_on_every_backend() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let bursts: Vec<_> = (0..8u32)
        .map(|a| thesis_burst(&mut rng, 600, a, 7 - a))
        .collect();
    let (stim, _) = burst_stimulus(&common::ports("lel_matmul"), &bursts, 1, 4).unwrap();
    common::check_block("lel_matmul", &stim, &Backend::ALL);
}

#[test]
fn matmul_second_burst_starts_from_cleared_accumulator() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let b = thesis_burst(&mut rng, 50, 0, 0);
    let (stim, _) = burst_stimulus(
        &common::ports("lel_matmul"),
        &[b.clone(), b.clone(), b],
        1,
        4,
    )
    .unwrap();
    let runs = common::check_block("lel_matmul", &stim, &[Backend::Native, Backend::Icarus]);
    let run = &runs[1];
    let i = run.trace.port_index("debug_acc").unwrap();
    let mut results = vec![];
    let mut from = 0;
    while let Some(r) = common::first_row_where(run, "valid_out", 1, from) {
        results.push(run.trace.rows[r][i].clone());
        from = r + 1;
    }
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| *r == results[0]));
}

#[test]
fn matmul_random_traffic() {
    let stim = random_stimulus(&common::ports("lel_matmul"), 11, 4_000).unwrap();
    common::check_block("lel_matmul", &stim, &Backend::THREE);
    let stim = random_stimulus(&common::ports("lel_matmul"), 12, 40_000).unwrap();
    common::check_block("lel_matmul", &stim, &[Backend::Verilator]);
}

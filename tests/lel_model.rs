//! The golden LEL network computes what the blocks compute: each FC core pass equals the
//! matmul block's golden result, the LC paths equal the LC forward and tree adder, the
//! random numbers are the LFSR blocks' outputs in the documented order
//! (docs/decisions.md D-LFSR-USE).

use edgelearn_verif::golden::lc_forward::lc_forward;
use edgelearn_verif::golden::lfsr::{Lfsr, LfsrIn};
use edgelearn_verif::golden::matmul::{matmul, MatmulConfig};
use edgelearn_verif::golden::tree_adder::tree_adder;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::lfsr_stream::{lc_weights, PeriodicStream};
use edgelearn_verif::lel::network::LelNetwork;

fn thesis() -> LelNetwork {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/configs/thesis-cifar10.toml"
    ))
    .unwrap();
    LelNetwork::new(&PlatformConfig::from_toml(&text).unwrap()).unwrap()
}

#[test]
fn fc_core_passes_equal_the_matmul_block() {
    let net = thesis();
    let core = &net.cores[0];
    let (f, g) = (600, 120);
    let a: Vec<i32> = (0..2400)
        .map(|i| ((i * 7919) % 128) * ((i % 3 != 0) as i32))
        .collect();
    let fwd = core.forward(&a);
    for k in 0..4 {
        for pass in 0..30 {
            let data: Vec<i64> = (0..f).map(|i| a[f * k + i] as i64).collect();
            let weights: Vec<Vec<i64>> = (0..f)
                .map(|i| {
                    (0..4)
                        .map(|l| core.w[(k * g + 4 * pass + l) * f + i] as i64)
                        .collect()
                })
                .collect();
            let r = matmul(
                &MatmulConfig::THESIS,
                &data,
                &weights,
                core.p.alpha_next,
                core.p.alpha_lc,
            );
            for l in 0..4 {
                let n = g * k + 4 * pass + l;
                assert_eq!(fwd.acc[n], r.acc[l]);
                assert_eq!(fwd.out_fc[n] as i64, r.to_fc[l]);
                assert_eq!(fwd.in_lc[n] as i64, r.to_lc[l]);
                assert_eq!(fwd.mask[n], r.relu_mask[l]);
            }
        }
    }
    // The LC forward path over the 480 LC inputs in neuron order.
    let inputs: Vec<i64> = fwd.in_lc.iter().map(|&v| v as i64).collect();
    let b: Vec<Vec<i64>> = (0..480)
        .map(|n| (0..10).map(|o| core.b[n * 10 + o] as i64).collect())
        .collect();
    assert_eq!(fwd.lc, lc_forward(&inputs, &b));
    // LC backward: one tree-adder row per neuron, masked.
    let err = core.backward(&fwd, 3);
    let e = edgelearn_verif::golden::loss::loss(&fwd.lc, 3, 0);
    for n in 0..480 {
        assert_eq!(err[n] as i64, tree_adder(&e, &b[n], fwd.mask[n]));
    }
}

#[test]
fn random_numbers_are_the_lfsr_blocks_outputs() {
    // Weight update: each 56-bit step of the LFSR block gives lanes 0..3 as 14-bit slices.
    let seed = 0x0BEE;
    let mut block = Lfsr::new(56);
    block.step(&LfsrIn {
        prog: true,
        seed,
        ..Default::default()
    });
    let mut stream = PeriodicStream::new(seed, 14);
    for _ in 0..2000 {
        let out = block.step(&LfsrIn {
            instr: true,
            ..Default::default()
        });
        for l in 0..4 {
            assert_eq!((out >> (14 * l)) & 0x3fff, stream.next_chunk() as u64);
        }
    }
    // Local classifier: each 60-bit step gives B[n][0..9] as 6-bit slices, -32 -> -31.
    let seed = 0x1ACE;
    let b = lc_weights(seed, 480, 10, 6);
    let mut block = Lfsr::new(60);
    block.step(&LfsrIn {
        prog: true,
        seed,
        ..Default::default()
    });
    for row in &b {
        let out = block.step(&LfsrIn {
            instr: true,
            ..Default::default()
        });
        for (o, &w) in row.iter().enumerate() {
            let v = edgelearn_verif::golden::arith::sext((out >> (6 * o)) & 63, 6);
            assert_eq!(w, v.max(-31));
        }
    }
}

#[test]
fn weight_update_consumes_one_lfsr_step_per_weight_word() {
    let mut net = thesis();
    let a: Vec<i32> = (0..2400).map(|i| i % 50).collect();
    let before = net.cores[0].wu_position();
    let fwd = net.cores[0].forward(&a);
    let err = net.cores[0].backward(&fwd, 1);
    net.cores[0].update(&a, &err, 2);
    // 4 sub-layers x 30 passes x 600 inputs words, 4 lanes each.
    assert_eq!(net.cores[0].wu_position() - before, 72_000 * 4);
}

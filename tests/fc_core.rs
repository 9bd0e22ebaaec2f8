//! The FC core in RTL (`lel_fc_core*`, spec lel-platform.md §4.2): bit-exact with the golden
//! core image by image (outputs, LC values, classes, weights read back with I_READ), the
//! cycle table of Table 4.1, the streams under random gaps and back-pressure, I_STOP from
//! every state, reset mid-image, and no X after reset on Icarus.

mod common;

use common::simulator;
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::fc_core::{FcCoreShape, LelFcCore};
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::lel::codec::FcCfg;
use edgelearn_verif::lel::fc_core::{FcCore, FcParams};
use edgelearn_verif::lel::network::init_weights;
use edgelearn_verif::rtl::fc::{run_fc_core, FcBench, FcCheck, Traffic};
use edgelearn_verif::rtl::inputs::Sample;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn params(inputs: usize, outputs: usize, pieces: usize) -> FcParams {
    FcParams {
        inputs,
        outputs,
        pieces,
        lanes: 4,
        classes: 10,
        weight_bits: 6,
        acc_bits: 24,
        lc_acc_bits: 23,
        rnd_bits: 14,
        alpha_next: 2,
        alpha_lc: 1,
        alpha_e: 0,
    }
}

fn small_design(p: &FcParams) -> Box<dyn Design> {
    Box::new(Instance::new(
        "fc_core_small",
        LelFcCore::new(FcCoreShape {
            inputs: p.inputs,
            outputs: p.outputs,
            pieces: p.pieces,
        }),
    ))
}

fn bench(backend: Backend, design: Box<dyn Design>, p: &FcParams, t: &Traffic) -> FcBench {
    let dut: Box<dyn Dut> = simulator()
        .dut(backend, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut b = FcBench::new(dut, p.clone(), t).unwrap();
    b.reset().unwrap();
    b
}

/// A golden core with eq 3.2 weights and random activations (with zeros, corner values).
fn random_case(p: &FcParams, images: usize, seed: u64) -> (FcCore, Vec<Sample>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let w = init_weights(
        &mut rng,
        p.inputs * p.outputs / p.pieces,
        p.inputs / p.pieces,
        6,
    );
    let core = FcCore::new(p.clone(), w, 0x1ace, 0x0bee);
    let samples = (0..images)
        .map(|_| Sample {
            input: (0..p.inputs)
                .map(|_| match rng.random_range(0..8) {
                    0 => 0,
                    1 => 127,
                    2 => -128,
                    _ => rng.random_range(0..128),
                })
                .collect(),
            label: rng.random_range(0..10),
        })
        .collect();
    (core, samples)
}

fn cfg(p: &FcParams, lr_shift: u32) -> FcCfg {
    FcCfg {
        alpha_next: p.alpha_next,
        alpha_e: p.alpha_e,
        lr_shift,
        alpha_lc: p.alpha_lc,
    }
}

#[test]
fn small_core_trains_bit_exactly_on_verilator() {
    let p = params(32, 16, 4);
    let (mut golden, samples) = random_case(&p, 6, 7);
    let mut b = bench(Backend::Verilator, small_design(&p), &p, &Traffic::default());
    let init = b.init(&golden.w, 0x1ace, 0x0bee).unwrap();
    eprintln!("INIT {init:?}");
    let check = FcCheck {
        outputs: true,
        weights_after: (1..=6).collect(),
        train: true,
    };
    let r = run_fc_core(&mut b, &mut golden, &samples, cfg(&p, 0), &check, &mut |r| {
        eprintln!("{r:?}")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.len(), 6);
}

fn mnist() -> edgelearn_verif::datasets::mnist::Mnist {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    edgelearn_verif::datasets::mnist::load(&root.join("data/mnist-10k")).unwrap()
}

/// Table 4.1 (FC0) and its derived form for FC1 (spec §4.2): INIT, LOAD, INF, LOSS, BK, WU, FIN.
fn expected_cycles(n: usize) -> [(&'static str, u64); 6] {
    let n = n as u64;
    [
        ("LS_LOAD", n / 4 + 2),
        ("LS_INF", 30 * n + 608),
        ("LS_LOSS", 1),
        ("LS_BK", 489),
        ("LS_WU", 30 * n + 17),
        ("LS_FIN", 1),
    ]
}

/// A shipped instance fed by the golden network on the first MNIST training images:
/// Table 4.1 cycles on every image, and every weight after 1, 5 and 20 images.
fn shipped_core_trains(name: &str, config: &str, x: usize, n_inputs: usize) {
    use edgelearn_verif::rtl::{designs, inputs};
    let cfg = designs::shipped_config(config);
    let feed = inputs::fc_feed(&cfg, &mnist().train, 20, x).unwrap();
    let mut golden = feed.core.clone();
    assert_eq!(golden.p.inputs, n_inputs);
    let design = designs::build(name).unwrap();
    let mut b = bench(Backend::Verilator, design, &golden.p, &Traffic::default());
    let t = std::time::Instant::now();
    let init = b.init(&golden.w, feed.seed_lc, feed.seed_wu).unwrap();
    assert_eq!(init.0, vec![("LS_INIT".to_string(), 30 * n_inputs as u64 + 3)]);
    let check = FcCheck {
        outputs: true,
        weights_after: vec![1, 5, 20],
        train: true,
    };
    let reports = run_fc_core(&mut b, &mut golden, &feed.samples, feed.cfg, &check, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    for r in &reports {
        for (state, want) in expected_cycles(n_inputs) {
            assert_eq!(r.cycles[state], want, "{name} image {}: {state}", r.image);
        }
    }
    assert_ne!(golden.w, feed.core.w, "{name}: training changed no weight");
    eprintln!(
        "{name}: 20 images bit-exact, {} cycles per image, {:.1} s",
        reports[0].total_cycles,
        t.elapsed().as_secs_f64()
    );
}

#[test]
fn fc_core0_thesis_table_4_1_and_bit_exact_weights() {
    shipped_core_trains("lel_fc_core0", "thesis-cifar10", 0, 2400);
}

#[test]
fn fc_core1_derived_table_and_bit_exact_weights() {
    shipped_core_trains("lel_fc_core1", "thesis-cifar10", 1, 480);
}

#[test]
fn fc_core0_mnist_bit_exact_weights() {
    shipped_core_trains("lel_fc_core0_mnist", "mnist", 0, 1536);
}

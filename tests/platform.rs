//! The LEL platform in RTL (`lel_platform*`, spec lel-platform.md §4.4): INIT, READ, whole
//! PL_TRAIN and PL_INF runs bit-exact with the golden network image by image (every FC
//! core's LC outputs and class, weights read back), the pipeline's cycle counts, the
//! streams under random gaps and back-pressure, I_STOP and reset.

mod common;

use common::simulator;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::fc_core::FcParams;
use edgelearn_verif::lel::network::{lfsr_seeds, LelNetwork};
use edgelearn_verif::rtl::designs::{platform_design, platform_shape};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::{
    configure, test_run, train_epoch, PlatformBench, PlatformCheck,
};
use edgelearn_verif::rtl::{conv_cycle_table, fc_cycle_table};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A platform small enough to build in seconds: a 1 x 9 x 12 image, 24 channels pooled to
/// 2 x 3, FC0 144 -> 16 in 4 pieces, FC1 16 -> 16 in 2 pieces.
const TINY: &str = r#"
name = "tiny"
seed = 3
[input]
channels = 1
height = 9
width = 12
pixel_map = "half"
[conv]
out_channels = 24
kernel = 3
alpha = 0
pool = 3
kernels = "random"
[[fc]]
outputs = 16
pieces = 4
alpha_next = 1
alpha_lc = 0
alpha_e = 0
lr_shift = [0]
[[fc]]
outputs = 16
pieces = 2
alpha_next = 1
alpha_lc = 0
alpha_e = 0
lr_shift = [0, 1]
"#;

fn tiny() -> PlatformConfig {
    PlatformConfig::from_toml(TINY).unwrap()
}

fn fc_params(net: &LelNetwork) -> [FcParams; 2] {
    [net.cores[0].p.clone(), net.cores[1].p.clone()]
}

fn bench(cfg: &PlatformConfig, traffic: &Traffic) -> (PlatformBench, LelNetwork) {
    let net = LelNetwork::new(cfg).unwrap();
    let design = platform_design("lel_platform_tiny", cfg).unwrap();
    let dut = simulator()
        .dut(Backend::Verilator, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut b = PlatformBench::new(dut, platform_shape(cfg).unwrap(), fc_params(&net), traffic)
        .unwrap();
    b.reset().unwrap();
    configure(&mut b, &net, 1).unwrap();
    let seeds = lfsr_seeds(cfg);
    b.init(
        [&net.cores[0].w, &net.cores[1].w],
        [seeds[0], seeds[1]],
    )
    .unwrap();
    (b, net)
}

/// Random prepared images (0..127, as the `half` pixel map gives) and labels.
fn images(cfg: &PlatformConfig, n: usize, seed: u64) -> (Vec<Vec<i32>>, Vec<u32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let px = cfg.input.channels * cfg.input.height * cfg.input.width;
    let x = (0..n)
        .map(|_| (0..px).map(|_| rng.random_range(0..128)).collect())
        .collect();
    let y = (0..n).map(|_| rng.random_range(0..10)).collect();
    (x, y)
}

#[test]
fn tiny_platform_trains_bit_exactly_image_by_image_and_pipelined() {
    let cfg = tiny();
    let (mut b, mut net) = bench(&cfg, &Traffic::default());
    let w = b.read_weights().unwrap();
    assert_eq!(w[0], net.cores[0].w, "FC0 weights read back after INIT");
    assert_eq!(w[1], net.cores[1].w, "FC1 weights read back after INIT");
    let initial = [net.cores[0].w.clone(), net.cores[1].w.clone()];
    let (x, y) = images(&cfg, 24, 5);
    let order: Vec<usize> = (0..8).collect();
    // Epoch 1: one image per PL_TRAIN run, weights read back after each.
    let each = PlatformCheck {
        outputs: true,
        weights_every: Some(1),
    };
    let e1 = train_epoch(&mut b, &mut net, &x, &y, &order, 1, each, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e1.runs.len(), 8);
    // Epoch 2 (another learning rate from the table): all 16 images in one pipelined run.
    let order: Vec<usize> = (8..24).collect();
    let piped = PlatformCheck {
        outputs: true,
        weights_every: None,
    };
    let e2 = train_epoch(&mut b, &mut net, &x, &y, &order, 2, piped, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    edgelearn_verif::rtl::platform::check_weights(&mut b, &net, 23).unwrap();
    // Training moved the weights (so the comparisons above compared something).
    for x in 0..2 {
        let moved = initial[x]
            .iter()
            .zip(&net.cores[x].w)
            .filter(|(a, b)| a != b)
            .count();
        assert!(moved > 0, "FC{x}: no weight changed in 24 images");
        eprintln!("FC{x}: {moved} weights changed; correct {} + {}", e1.correct[x], e2.correct[x]);
    }
    let run = &e2.runs[0];
    let fc = |k: usize, s: &edgelearn_hdl::lel::fc_core::FcCoreShape| {
        let t = fc_cycle_table(s.inputs, s.outputs, s.pieces, 4);
        let _ = k;
        t[1..].iter().map(|e| e.1).sum::<u64>()
    };
    let shape = platform_shape(&cfg).unwrap();
    let c = conv_cycle_table(1, 9, 12);
    let conv = c[0].1 + 24 * (c[1].1 + c[2].1) + c[3].1;
    assert_eq!(
        run.core_cycles,
        [conv, fc(0, &shape.fc0), fc(1, &shape.fc1)],
        "per-core cycles of an image (LOAD .. FIN)"
    );
    eprintln!("16-image run: {} cycles, per core {:?}", run.cycles, run.core_cycles);
    // Inference leaves the weights alone.
    let inf = test_run(
        &mut b,
        &net,
        &x[..6],
        &y[..6],
        PlatformCheck {
            outputs: true,
            weights_every: None,
        },
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inf.images, 6);
}

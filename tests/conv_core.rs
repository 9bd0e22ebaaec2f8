//! The conv core in RTL (`lel_conv_core*`, spec lel-platform.md §4.3): every pooled value of
//! 20 images equal to the golden conv block, Table 4.2's cycles, the streams under random
//! gaps and back-pressure, I_STOP and reset mid-image.

use crate::common;

use common::simulator;
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::rtl::conv::{run_conv_core, ConvBench};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::{designs, inputs};

fn mnist() -> edgelearn_verif::datasets::mnist::Mnist {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    edgelearn_verif::datasets::mnist::load(&root.join("data/mnist-10k")).unwrap()
}

fn bench(name: &str, config: &str, t: &Traffic) -> (ConvBench, inputs::ConvFeed) {
    let cfg = designs::shipped_config(config);
    let feed = inputs::conv_feed(&cfg, &mnist().train, 20).unwrap();
    let dut: Box<dyn Dut> = simulator()
        .dut(
            Backend::Verilator,
            designs::build(name).unwrap(),
            &DutOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let (c, h, w) = feed.block.input;
    let (oc, ph, pw) = feed.block.output_shape();
    let mut b = ConvBench::new(dut, (c, h, w), oc * ph * pw, t).unwrap();
    b.reset().unwrap();
    (b, feed)
}

/// Table 4.2: LOAD 770, CONV 995 and POOL 159 per channel, FIN 1; 28,467 <= 28,471 in all.
#[test]
fn conv_core_thesis_table_4_2_and_every_pooled_value() {
    let (mut b, feed) = bench("lel_conv_core", "thesis-cifar10", &Traffic::default());
    let r = run_conv_core(&mut b, &feed.block, &feed.samples, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.len(), 20);
    for im in &r {
        assert_eq!(im.cycles["CS_LOAD"], 770, "image {}", im.image);
        assert_eq!(im.conv_per_channel, 995, "image {}", im.image);
        assert_eq!(im.pool_per_channel, 159, "image {}", im.image);
        assert_eq!(im.cycles["CS_FIN"], 1, "image {}", im.image);
        assert_eq!(im.cycles["CS_CONV"], 24 * 995);
        assert_eq!(im.total_cycles, 28_467);
    }
}

/// The MNIST configuration: 1 x 28 x 28 (7 beats per row), 26 x 26 conv, 8 x 8 pool.
#[test]
fn conv_core_mnist_every_pooled_value() {
    let (mut b, feed) = bench("lel_conv_core_mnist", "mnist", &Traffic::default());
    let r = run_conv_core(&mut b, &feed.block, &feed.samples, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    for im in &r {
        assert_eq!(im.cycles["CS_LOAD"], 28 * 28 / 4 + 2);
        assert_eq!(im.conv_per_channel, 5 + 26 * 29);
        assert_eq!(im.pool_per_channel, 5 + 64 + 6 * 7);
    }
}

/// Two and four output channels at a time (`rtl.conv_parallel`, D-CONV-PARALLEL): every
/// pooled value equal to the golden block, in the same order, in fewer cycles: CS_CONV once
/// per group, CS_POOL per channel as before; the whole image as `conv_image_cycles` says.
/// The thesis image too, whose three input channels each feed eight output channels.
#[test]
fn conv_core_with_channels_at_a_time_is_exact_in_fewer_cycles() {
    for (config, parallel) in [("mnist", 2), ("mnist", 4), ("thesis-cifar10", 4)] {
        let mut cfg = designs::shipped_config(config);
        cfg.rtl.conv_parallel = parallel;
        let name = designs::configured_name(designs::Kind::ConvCore, &cfg);
        assert!(name.ends_with(&format!("_cp{parallel}")), "{name}");
        let feed = inputs::conv_feed(&cfg, &mnist().train, 4).unwrap();
        let design = designs::configured_design(&name, designs::Kind::ConvCore, &cfg).unwrap();
        let dut: Box<dyn Dut> = simulator()
            .dut(Backend::Verilator, design, &DutOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let (c, h, w) = feed.block.input;
        let (oc, ph, pw) = feed.block.output_shape();
        let traffic = Traffic {
            gaps: Gaps::Anywhere(0.2),
            backpressure: Backpressure::Random(0.2),
            seed: parallel as u64,
        };
        let mut b = ConvBench::new(dut, (c, h, w), oc * ph * pw, &traffic).unwrap();
        b.reset().unwrap();
        run_conv_core(&mut b, &feed.block, &feed.samples[..2], true, &mut |_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // One instance of a model at a time in a process: the first bench goes first.
        drop(b);
        // Cycles with the output always ready and no gaps.
        let mut b = ConvBench::new(
            simulator()
                .dut(
                    Backend::Verilator,
                    designs::configured_design(&name, designs::Kind::ConvCore, &cfg).unwrap(),
                    &DutOptions::default(),
                )
                .unwrap(),
            (c, h, w),
            oc * ph * pw,
            &Traffic::default(),
        )
        .unwrap();
        b.reset().unwrap();
        let r = run_conv_core(&mut b, &feed.block, &feed.samples, true, &mut |_| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let shape = designs::conv_shape(&cfg).unwrap();
        let one = edgelearn_verif::rtl::conv_cycle_table(c, h, w);
        for im in &r {
            assert_eq!(im.conv_per_channel, one[1].1, "{name}: CONV per group");
            assert_eq!(im.pool_per_channel, one[2].1, "{name}: POOL per channel");
            assert_eq!(
                im.cycles["CS_CONV"],
                (oc / parallel) as u64 * one[1].1,
                "{name}"
            );
            assert_eq!(
                im.total_cycles,
                edgelearn_verif::rtl::conv_image_cycles(&shape),
                "{name}"
            );
        }
        eprintln!(
            "{name}: {} cycles an image (one channel at a time: {})",
            r[0].total_cycles,
            edgelearn_verif::rtl::conv_image_cycles(
                &edgelearn_hdl::lel::conv_core::ConvCoreShape {
                    parallel: 1,
                    ..shape
                }
            )
        );
    }
}

/// Images whose three channels differ (MNIST replicates one), with the corner values
/// -128, -127, 127, 0: every pooled value equal, so the depthwise channel mapping
/// (output channel c reads input channel c / 8) is checked too.
#[test]
fn conv_core_random_images_with_distinct_channels() {
    use rand::{RngExt, SeedableRng};
    let (mut b, feed) = bench("lel_conv_core", "thesis-cifar10", &Traffic::default());
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
    let samples: Vec<inputs::Sample> = (0..3)
        .map(|k| inputs::Sample {
            input: (0..3 * 32 * 32)
                .map(|i| match (i + k) % 97 {
                    0 => -128,
                    1 => -127,
                    2 => 127,
                    3 => 0,
                    _ => rng.random_range(-128..128),
                })
                .collect(),
            label: k as u32 + 3,
        })
        .collect();
    run_conv_core(&mut b, &feed.block, &samples, true, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Random gaps on the image stream and random back-pressure on the pooled stream (the
/// monitor checks both), then a sink that is ready only after valid: every value equal.
#[test]
fn conv_core_streams_under_gaps_and_backpressure() {
    for traffic in [
        Traffic {
            gaps: Gaps::Anywhere(0.3),
            backpressure: Backpressure::Random(0.3),
            seed: 3,
        },
        Traffic {
            gaps: Gaps::None,
            backpressure: Backpressure::AfterValid(0.2),
            seed: 4,
        },
    ] {
        let (mut b, feed) = bench("lel_conv_core_mnist", "mnist", &traffic);
        run_conv_core(&mut b, &feed.block, &feed.samples[..3], true, &mut |_| {})
            .unwrap_or_else(|e| panic!("{traffic:?}: {e}"));
    }
}

/// I_STOP in CS_LOAD, CS_CONV, CS_POOL and CS_FIN returns to CS_IDLE at the next edge, and
/// a reset in CS_CONV to CS_IDLE; the next image is exact each time.
#[test]
fn conv_core_stop_and_reset_mid_image() {
    let (mut b, feed) = bench("lel_conv_core_mnist", "mnist", &Traffic::default());
    let (s0, s1) = (&feed.samples[0], &feed.samples[1]);
    for state in [1u64, 2, 3, 4, 99] {
        b.start_image(&s0.input, s0.label, feed.block.alpha)
            .unwrap();
        let at = if state == 99 { 2 } else { state };
        b.run_until_state(at, 100_000).unwrap();
        for _ in 0..if state == 4 { 0 } else { 5 } {
            b.cycle().unwrap();
        }
        if state == 99 {
            b.reset().unwrap();
            assert_eq!(b.state(), 0);
        } else {
            assert_eq!(b.stop().unwrap(), 1, "I_STOP in state {state}");
        }
        run_conv_core(
            &mut b,
            &feed.block,
            std::slice::from_ref(s1),
            true,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("after stopping in state {state}: {e}"));
    }
}

/// A small conv core's Yosys netlist (simulated by Icarus) computes what the RTL computes on
/// an image with negative pixels and every kernel corner (rust-hdl pitfall P8).
#[test]
fn small_conv_core_netlist_equals_rtl() {
    use edgelearn_hdl::design::{Design, Instance};
    use edgelearn_hdl::lel::conv_core::{ConvCore, ConvCoreShape};
    use edgelearn_sim::dut::record::Recorder;
    use edgelearn_sim::{compare, RunOptions};
    use edgelearn_verif::lel::conv::ConvBlock;
    let kernels: Vec<i32> = (0..4 * 9)
        .map(|i| [-31, 31, 0, -1, 1, 17, -17, 5, -9][i % 9] * if i / 9 % 2 == 0 { 1 } else { -1 })
        .collect();
    let shape = ConvCoreShape {
        in_channels: 2,
        height: 12,
        width: 12,
        out_channels: 4,
        kernel: 3,
        pool: 3,
        parallel: 2,
    };
    // Two output channels at a time (D-CONV-PARALLEL): the netlist has both tree adders and
    // both inter-FM caches.
    let design = || -> Box<dyn Design> {
        Box::new(Instance::new(
            "conv_small",
            ConvCore::<2, 2>::new(shape, &kernels),
        ))
    };
    let golden = ConvBlock {
        input: (2, 12, 12),
        channels: 4,
        kernel: 3,
        pool: 3,
        frac: 5,
        alpha: 0,
        kernels: kernels.clone(),
    };
    let img: Vec<i32> = (0..2 * 144).map(|i| ((i * 53) % 256) - 128).collect();
    let sample = inputs::Sample {
        input: img,
        label: 9,
    };
    let sim = simulator();
    let dut = sim
        .dut(Backend::Verilator, design(), &DutOptions::default())
        .unwrap();
    let (rec, recording) = Recorder::new(dut);
    let mut b = ConvBench::new(Box::new(rec), (2, 12, 12), 4 * 9, &Traffic::default()).unwrap();
    b.reset().unwrap();
    run_conv_core(
        &mut b,
        &golden,
        std::slice::from_ref(&sample),
        true,
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let stim = recording.stimulus();
    let mut want = recording.trace();
    let mut got = sim
        .run(Backend::Netlist, design(), &stim, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .trace;
    got.rows.remove(0);
    want.rows.remove(0);
    want.backend = "verilator".into();
    if let Err(m) = compare(&want, &got) {
        panic!("{m}");
    }
}

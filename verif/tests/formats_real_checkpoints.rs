//! Every checkpoint of the kit's data loads, with the keys, state-dict order, shapes and values
//! found by inspecting the files in Python without torch (pickletools on `data.pkl`, and
//! `numpy.frombuffer` on the storages: the zip members, or the raw records after the pickles
//! of a legacy file). Sums are taken in `f64`, tensor by tensor in file order and element by
//! element in C order, so they are exact matches.

#[path = "formats_common/mod.rs"]
mod common;

use edgelearn_verif::formats::pickle::Value;
use edgelearn_verif::formats::torch::{self, Checkpoint, DType};
use std::collections::BTreeSet;
use DType::{Bool, Float32 as F32, Int64 as I64};

/// A state-dict tensor: (name, dtype, shape, first value, last value, sum of the values).
type TensorRow = (String, DType, &'static [usize], f64, f64, f64);

/// A float32 tensor: (name, shape, first value, last value, sum of the values).
type Float32Row = (&'static str, &'static [usize], f64, f64, f64);

/// One quantized ai8x layer: (name, value of its `output_shift`, dtypes of its `weight_bits`
/// and `bias_bits`, its float32 parameters under names relative to the layer's).
type Ai8xLayer = (&'static str, f64, [DType; 2], &'static [Float32Row]);

/// The top-level keys of a zip checkpoint written by ai8x-training.
const ZIP_KEYS: &[&str] = &[
    "epoch",
    "state_dict",
    "arch",
    "optimizer_state_dict",
    "optimizer_type",
    "compression_sched",
    "extras",
];

/// The top-level keys of a zip checkpoint saved without optimizer state.
const ZIP_KEYS_NO_OPTIMIZER: &[&str] = &["epoch", "state_dict", "arch", "extras"];

/// The top-level keys of a legacy checkpoint: `arch` before `state_dict`.
const LEGACY_KEYS: &[&str] = &[
    "epoch",
    "arch",
    "state_dict",
    "optimizer_state_dict",
    "optimizer_type",
    "compression_sched",
    "extras",
];

/// One real checkpoint and what it must contain.
struct Expected {
    path: &'static str,
    legacy: bool,
    keys: &'static [&'static str],
    arch: &'static str,
    epoch: i64,
    n_tensors: usize,
    dtypes: &'static [DType],
    first: (&'static str, &'static [usize], f64, f64),
    last: (&'static str, &'static [usize], f64, f64),
    non_integer: usize,
    sum: f64,
}

/// One checkpoint per entry; `first` and `last` are the first and last state-dict tensors:
/// (name, shape, first value, last value).
#[rustfmt::skip]
const CHECKPOINTS: &[Expected] = &[
    Expected { path: "ai8x-kat/checkpoints/ai85-aisegment-unet-large-fakept-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85unetlarge", epoch: 199,
        n_tensors: 151, dtypes: &[F32], non_integer: 0, sum: 721530.0,
        first: ("prep0.output_shift", &[1], 1.0, 1.0), last: ("conv.op.bias", &[32], -384.0, -1024.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-autoencoder-samplemotordatalimerick-qat-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85autoencoder", epoch: 394,
        n_tensors: 54, dtypes: &[F32, I64], non_integer: 7, sum: -56201.03499996662,
        first: ("module.en_conv1.output_shift", &[1], -3.0, -3.0), last: ("module.out_lin.op.weight", &[768, 96], -10.0, -17.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-bayer2rgb-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "bayer2rgbnet", epoch: 37,
        n_tensors: 243, dtypes: &[F32, I64, Bool], non_integer: 51, sum: 727.3968012844089,
        first: ("module.l1.output_shift", &[1], -0.0, -0.0), last: ("l3.op.bias", &[3], 0.020650843158364296, 0.1374310404062271) },
    Expected { path: "ai8x-kat/checkpoints/ai85-camvid-unet-large-fakept-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85unetlarge", epoch: 73,
        n_tensors: 151, dtypes: &[F32], non_integer: 0, sum: 313004.0,
        first: ("prep0.output_shift", &[1], -1.0, -1.0), last: ("conv.op.bias", &[64], -2944.0, -640.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-catsdogs-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85cdnet", epoch: 157,
        n_tensors: 50, dtypes: &[F32, I64], non_integer: 0, sum: -96732.0,
        first: ("module.conv1.output_shift", &[1], -1.0, -1.0), last: ("module.fc.op.bias", &[2], 1280.0, -1792.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-cifar10-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85net5", epoch: 144,
        n_tensors: 31, dtypes: &[F32], non_integer: 0, sum: -738400.0,
        first: ("conv1.output_shift", &[1], 0.0, 0.0), last: ("fc.op.bias", &[10], -3228.0, 14032.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-dot_emb_112_checkpoint-q.pth.tar", legacy: false, keys: ZIP_KEYS_NO_OPTIMIZER, arch: "AI85DotProd", epoch: 0,
        n_tensors: 7, dtypes: &[F32, I64], non_integer: 0, sum: 3148.0,
        first: ("dot.output_shift", &[1], -1.0, -1.0), last: ("dot.op.weight", &[512, 64], -13.0, 0.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-facedet-tinierssd-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85tinierssdface", epoch: 2,
        n_tensors: 126, dtypes: &[F32, I64], non_integer: 16, sum: 578972.9200000763,
        first: ("base.fire1.output_shift", &[1], -0.0, -0.0), last: ("pred_convs.cl_conv12_2.op.bias", &[4], 7040.0, -7808.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-kws20-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85kws20net", epoch: 184,
        n_tensors: 60, dtypes: &[F32], non_integer: 0, sum: -836383.0,
        first: ("voice_conv1.output_shift", &[1], -2.0, -2.0), last: ("fc.op.weight", &[21, 896], 127.0, 21.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-kws20_v3-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85kws20netv3", epoch: 192,
        n_tensors: 135, dtypes: &[F32, I64], non_integer: 0, sum: -482664.0,
        first: ("module.voice_conv1.output_shift", &[1], 1.0, 1.0), last: ("fc.op.bias", &[21], 128.0, 128.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-kws20_v3_msnoise_mixed-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85kws20netv3", epoch: 198,
        n_tensors: 63, dtypes: &[F32, I64], non_integer: 0, sum: -259776.0,
        first: ("module.voice_conv1.output_shift", &[1], -0.0, -0.0), last: ("module.fc.op.weight", &[21, 256], -31.0, 0.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-mnist-extrasmall-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85netextrasmall", epoch: 190,
        n_tensors: 25, dtypes: &[F32], non_integer: 0, sum: -51943.0,
        first: ("conv1.output_shift", &[1], 1.0, 1.0), last: ("fc.op.bias", &[10], 15356.0, 16320.0) },
    Expected { path: "ai8x-kat/checkpoints/ai85-mnist-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85net5", epoch: 194,
        n_tensors: 31, dtypes: &[F32], non_integer: 0, sum: -657401.0,
        first: ("conv1.output_shift", &[1], -1.0, -1.0), last: ("fc.op.bias", &[10], 2936.0, 1144.0) },
    Expected { path: "ai8x-kat/checkpoints/test-cifar10-bias-quant4.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84net5", epoch: 199,
        n_tensors: 10, dtypes: &[F32], non_integer: 0, sum: -59762.0,
        first: ("conv1.conv2d.weight", &[60, 3, 3, 3], 0.0, -0.0), last: ("fc.bias", &[10], 38.0, -18.0) },
    Expected { path: "ai8x-kat/checkpoints/test-cifar10-bias.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84net5", epoch: 199,
        n_tensors: 10, dtypes: &[F32], non_integer: 0, sum: -967873.0,
        first: ("conv1.conv2d.weight", &[60, 3, 3, 3], 7.0, -3.0), last: ("fc.bias", &[10], 38.0, -18.0) },
    Expected { path: "ai8x-kat/checkpoints/test-cifar10.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84net5", epoch: 199,
        n_tensors: 6, dtypes: &[F32], non_integer: 0, sum: -171867.0,
        first: ("conv1.conv2d.weight", &[60, 3, 3, 3], -22.0, -4.0), last: ("fc.bias", &[10], 87.0, -24.0) },
    Expected { path: "ai8x-kat/checkpoints/test-faceid-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85faceidnet", epoch: 84,
        n_tensors: 53, dtypes: &[F32], non_integer: 0, sum: -274526.0,
        first: ("conv1.output_shift", &[1], -1.0, -1.0), last: ("avgpool.adjust_output_shift", &[1], 0.0, 0.0) },
    Expected { path: "ai8x-kat/checkpoints/test-fashionmnist.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84net5", epoch: 199,
        n_tensors: 6, dtypes: &[F32], non_integer: 0, sum: -109014.0,
        first: ("conv1.conv2d.weight", &[60, 1, 3, 3], 17.0, 13.0), last: ("fc.bias", &[10], 9.0, -10.0) },
    Expected { path: "ai8x-kat/checkpoints/test-firetestnet-cifar10.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai85firetestnet", epoch: 8,
        n_tensors: 4, dtypes: &[F32], non_integer: 0, sum: -1089.0,
        first: ("fire1.squeeze_layer.conv2d.weight", &[2, 3, 1, 1], 78.0, -128.0), last: ("fc.linear.weight", &[10, 128], 18.0, 6.0) },
    Expected { path: "ai8x-kat/checkpoints/test-kws20-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85kws20net", epoch: 195,
        n_tensors: 60, dtypes: &[F32], non_integer: 0, sum: -986374.0,
        first: ("voice_conv1.output_shift", &[1], -2.0, -2.0), last: ("fc.op.weight", &[21, 896], -128.0, -86.0) },
    Expected { path: "ai8x-kat/checkpoints/test-mnist-80expansion-q4.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai85net80expansion", epoch: 1,
        n_tensors: 6, dtypes: &[F32], non_integer: 2, sum: -8347.824137224528,
        first: ("conv1.conv2d.weight", &[16, 1, 3, 3], -1.0, 0.0), last: ("fc.linear.bias", &[10], -17.0, -7.0) },
    Expected { path: "ai8x-kat/checkpoints/test-mnist-80wide-q4.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai85net80wide", epoch: 1,
        n_tensors: 6, dtypes: &[F32], non_integer: 0, sum: -34698.0,
        first: ("conv1.conv2d.weight", &[80, 1, 3, 3], -1.0, -0.0), last: ("fc.linear.bias", &[10], -127.0, -16.0) },
    Expected { path: "ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84netextrasmall", epoch: 199,
        n_tensors: 5, dtypes: &[F32], non_integer: 0, sum: -17492.0,
        first: ("conv1.conv2d.weight", &[8, 1, 3, 3], 31.0, -6.0), last: ("fc.linear.bias", &[10], -127.0, 81.0) },
    Expected { path: "ai8x-kat/checkpoints/test-speechcom-net7.pth.tar", legacy: true, keys: LEGACY_KEYS, arch: "ai84net7", epoch: 91,
        n_tensors: 8, dtypes: &[F32], non_integer: 0, sum: -135141.0,
        first: ("conv1.conv2d.weight", &[15, 1, 3, 3], 7.0, -4.0), last: ("fc.linear.bias", &[7], 2.0, 6.0) },
    Expected { path: "ai8x-kat/checkpoints/trained-ai85-cifar10-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85nascifarnet", epoch: 243,
        n_tensors: 88, dtypes: &[F32], non_integer: 11, sum: 1412939.9450000525,
        first: ("conv1_1.output_shift", &[1], -0.0, -0.0), last: ("fc.op.bias", &[10], 896.0, 128.0) },
    Expected { path: "ai8x/ai85-cifar10-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85nascifarnet", epoch: 243,
        n_tensors: 88, dtypes: &[F32], non_integer: 11, sum: 1412939.9450000525,
        first: ("conv1_1.output_shift", &[1], -0.0, -0.0), last: ("fc.op.bias", &[10], 896.0, 128.0) },
    Expected { path: "ai8x/ai85-mnist-qat8-q.pth.tar", legacy: false, keys: ZIP_KEYS, arch: "ai85net5", epoch: 194,
        n_tensors: 31, dtypes: &[F32], non_integer: 0, sum: -657401.0,
        first: ("conv1.output_shift", &[1], -1.0, -1.0), last: ("fc.op.bias", &[10], 2936.0, 1144.0) },
];

/// The layers of ai8x/ai85-mnist-qat8-q.pth.tar (no `shift_quantile`).
#[rustfmt::skip]
const MNIST_ZIP: &[Ai8xLayer] = &[
    ("conv1", -1.0, [F32, F32], &[("op.weight", &[60, 1, 3, 3], 51.0, 63.0, 3291.0)]),
    ("conv2", -2.0, [F32, F32], &[("op.weight", &[60, 60, 3, 3], -70.0, -115.0, -363694.0)]),
    ("conv3", -2.0, [F32, F32], &[("op.weight", &[56, 60, 3, 3], -128.0, 80.0, -313112.0)]),
    ("conv4", -1.0, [F32, F32], &[("op.weight", &[12, 56, 3, 3], -6.0, 15.0, 16913.0)]),
    ("fc",    0.0,  [F32, F32], &[("op.weight", &[10, 192], -16.0, -26.0, -829.0), ("op.bias", &[10], 2936.0, 1144.0, -49.0)]),
];

/// The layers of ai8x-kat/checkpoints/ai85-autoencoder-samplemotordatalimerick-qat-q.pth.tar
/// (each with `shift_quantile` = [`AUTOENCODER_SHIFT_QUANTILE`]).
#[rustfmt::skip]
const AUTOENCODER_ZIP: &[Ai8xLayer] = &[
    ("module.en_conv1", -3.0, [I64, F32], &[("op.weight", &[128, 256, 1], 0.0, -27.0, 29574.0), ("op.bias", &[128], 16256.0, 16256.0, 134400.0)]),
    ("module.en_conv2", -3.0, [I64, F32], &[("op.weight", &[64, 128, 3], 37.0, -13.0, -15408.0), ("op.bias", &[64], 4096.0, 16256.0, 174336.0)]),
    ("module.en_lin1",  -0.0, [I64, F32], &[("op.weight", &[32, 64], 16.0, -10.0, -1160.0), ("op.bias", &[32], -1280.0, -2304.0, -12928.0)]),
    ("module.en_lin2",  1.0,  [I64, I64], &[("op.weight", &[4, 32], -34.0, -114.0, -142.0)]),
    ("module.de_lin1",  -0.0, [I64, F32], &[("op.weight", &[32, 4], -17.0, 21.0, -156.0), ("op.bias", &[32], 8448.0, -1408.0, 13952.0)]),
    ("module.de_lin2",  -0.0, [I64, F32], &[("op.weight", &[96, 32], -15.0, 17.0, 1399.0), ("op.bias", &[96], 3456.0, -2176.0, 67200.0)]),
    ("module.out_lin",  -1.0, [I64, I64], &[("op.weight", &[768, 96], -10.0, -17.0, -447388.0)]),
];

/// The `shift_quantile` of every layer of the autoencoder.
const AUTOENCODER_SHIFT_QUANTILE: f64 = 0.9950000047683716;

/// Every state_dict tensor of ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar, all float32.
#[rustfmt::skip]
const EXTRASMALL_LEGACY: &[Float32Row] = &[
    ("conv1.conv2d.weight", &[8, 1, 3, 3], 31.0,   -6.0,   257.0),
    ("conv2.conv2d.weight", &[8, 8, 3, 3], 2.0,    -49.0,  -3128.0),
    ("conv3.conv2d.weight", &[8, 8, 3, 3], -25.0,  72.0,   -940.0),
    ("fc.linear.weight",    &[10, 128],    -43.0,  -125.0, -13370.0),
    ("fc.linear.bias",      &[10],         -127.0, 81.0,   -311.0),
];

/// Float32 tensors as state-dict rows, their names prefixed with `prefix`.
fn float32_rows<'a>(
    prefix: &'a str,
    rows: &'a [Float32Row],
) -> impl Iterator<Item = TensorRow> + 'a {
    rows.iter().map(move |&(name, shape, first, last, sum)| {
        (format!("{prefix}{name}"), F32, shape, first, last, sum)
    })
}

/// Every state_dict tensor of a quantized ai8x checkpoint, layer by layer: the layer's
/// quantization buffers (`output_shift`, `weight_bits` = 8, `bias_bits` = 8,
/// `quantize_activation` = 1, `adjust_output_shift` = 0 and, when the checkpoint has them,
/// `shift_quantile`), all of shape [1], then its parameters.
fn ai8x_state_dict(layers: &[Ai8xLayer], shift_quantile: Option<f64>) -> Vec<TensorRow> {
    let mut rows = Vec::new();
    for &(layer, output_shift, [weight_bits, bias_bits], params) in layers {
        let scalar = |name: &str, dtype: DType, v: f64| -> TensorRow {
            (format!("{layer}.{name}"), dtype, &[1], v, v, v)
        };
        rows.push(scalar("output_shift", F32, output_shift));
        rows.push(scalar("weight_bits", weight_bits, 8.0));
        rows.push(scalar("bias_bits", bias_bits, 8.0));
        rows.push(scalar("quantize_activation", F32, 1.0));
        rows.push(scalar("adjust_output_shift", F32, 0.0));
        if let Some(q) = shift_quantile {
            rows.push(scalar("shift_quantile", F32, q));
        }
        rows.extend(float32_rows(&format!("{layer}."), params));
    }
    rows
}

fn load(rel: &str) -> Checkpoint {
    let path = common::require(rel);
    torch::load_checkpoint(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_real_checkpoint_loads_as_expected() {
    let mut checked = 0;
    for e in CHECKPOINTS {
        if common::present(e.path).is_none() {
            continue;
        }
        checked += 1;
        let c = load(e.path);
        let p = e.path;
        let bytes = std::fs::read(common::data_dir().join(p)).unwrap();
        assert_eq!(!bytes.starts_with(b"PK\x03\x04"), e.legacy, "{p}: format");
        let keys: Vec<&str> = c.entries.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, e.keys, "{p}: top-level keys");
        assert_eq!(c.arch.as_deref(), Some(e.arch), "{p}");
        assert_eq!(c.epoch, Some(e.epoch), "{p}");
        assert_eq!(c.state_dict.len(), e.n_tensors, "{p}");
        let dtypes: BTreeSet<DType> = c.state_dict.iter().map(|(_, t)| t.dtype).collect();
        assert_eq!(dtypes, e.dtypes.iter().copied().collect(), "{p}: dtypes");
        for ((name, shape, first, last), (k, t)) in [
            (e.first, c.state_dict.first().unwrap()),
            (e.last, c.state_dict.last().unwrap()),
        ] {
            assert_eq!(k, name, "{p}");
            assert_eq!(t.shape, shape, "{p}: {k}");
            assert_eq!(t.data.len(), shape.iter().product::<usize>(), "{p}: {k}");
            assert_eq!(t.data.first(), Some(&first), "{p}: {k}");
            assert_eq!(t.data.last(), Some(&last), "{p}: {k}");
        }
        let non_integer = c
            .state_dict
            .iter()
            .filter(|(_, t)| t.to_i64_exact().is_err())
            .count();
        assert_eq!(
            non_integer, e.non_integer,
            "{p}: tensors with non-integer values"
        );
        let sum: f64 = c.state_dict.iter().flat_map(|(_, t)| t.data.iter()).sum();
        assert_eq!(sum, e.sum, "{p}: sum of every state_dict value");
    }
    // The vendored subset holds 9 of them (zip and legacy formats).
    assert!(checked >= 9, "only {checked} checkpoints checked");
}

#[test]
fn table_covers_every_checkpoint() {
    let dir = common::data_dir();
    let mut found = BTreeSet::new();
    for sub in ["ai8x", "ai8x-kat/checkpoints"] {
        for p in common::files_with_suffix(&dir.join(sub), ".pth.tar") {
            found.insert(p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned());
        }
    }
    let listed: BTreeSet<String> = CHECKPOINTS.iter().map(|e| e.path.to_string()).collect();
    if common::full_data() {
        assert_eq!(found, listed);
    } else {
        assert!(!found.is_empty() && found.is_subset(&listed), "{found:?}");
    }
}

fn check_detail(rel: &str, expected: &[TensorRow]) {
    common::require(rel);
    let c = load(rel);
    assert_eq!(c.state_dict.len(), expected.len(), "{rel}");
    for ((name, t), &(ref ename, dtype, shape, first, last, sum)) in
        c.state_dict.iter().zip(expected)
    {
        assert_eq!(name, ename, "{rel}: key order");
        assert_eq!(t.dtype, dtype, "{rel}: {name}");
        assert_eq!(t.shape, shape, "{rel}: {name}");
        assert_eq!(t.data.first(), Some(&first), "{rel}: {name}");
        assert_eq!(t.data.last(), Some(&last), "{rel}: {name}");
        assert_eq!(t.data.iter().sum::<f64>(), sum, "{rel}: {name}");
    }
}

#[test]
fn mnist_zip_checkpoint_in_detail() {
    check_detail(
        "ai8x/ai85-mnist-qat8-q.pth.tar",
        &ai8x_state_dict(MNIST_ZIP, None),
    );
    let c = load("ai8x/ai85-mnist-qat8-q.pth.tar");
    // Quantized: the weights are integers held in float32 tensors.
    let w = c.tensor("conv1.op.weight").unwrap();
    let ints = w.to_i64_exact().unwrap();
    assert_eq!(ints.len(), 540);
    assert!(ints.iter().all(|v| (-128..=127).contains(v)));
    assert_eq!(
        c.tensor("conv1.output_shift")
            .unwrap()
            .to_i64_exact()
            .unwrap(),
        [-1]
    );
    assert_eq!(
        c.tensor("conv1.weight_bits")
            .unwrap()
            .to_i64_exact()
            .unwrap(),
        [8]
    );
    // Entries other than the state dict stay pickle values.
    assert!(c
        .get("optimizer_type")
        .unwrap()
        .is_global("torch.optim.sgd", "SGD"));
    let extras = c.get("extras").unwrap();
    assert_eq!(extras.get("best_top1").and_then(Value::as_f64), Some(99.3));
    assert_eq!(
        extras.get("clipping_method").and_then(Value::as_str),
        Some("MAX_BIT_SHIFT")
    );
    // The masks of the compression schedule refer to the same tensors (memo sharing).
    let masks = c
        .get("compression_sched")
        .unwrap()
        .get("masks_dict")
        .unwrap();
    let shift = masks.get("conv1.output_shift").unwrap();
    assert!(matches!(shift, Value::Call { .. }), "{shift}");
    assert!(shift
        .to_string()
        .starts_with("torch._utils._rebuild_tensor_v2(persistent_id(("));
}

#[test]
fn legacy_checkpoint_in_detail() {
    check_detail(
        "ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar",
        &float32_rows("", EXTRASMALL_LEGACY).collect::<Vec<_>>(),
    );
    let c = load("ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar");
    let w = c.tensor("conv1.conv2d.weight").unwrap();
    assert_eq!(w.shape, [8, 1, 3, 3]);
    // The first storage record starts at byte 2051 (after the five pickles): an 8-byte count
    // (72) and then the float32 values.
    assert_eq!(
        &w.data[..9],
        &[31.0, -11.0, -33.0, 19.0, 15.0, -12.0, 4.0, 19.0, 38.0]
    );
}

#[test]
fn autoencoder_checkpoint_with_int64_tensors_in_detail() {
    check_detail(
        "ai8x-kat/checkpoints/ai85-autoencoder-samplemotordatalimerick-qat-q.pth.tar",
        &ai8x_state_dict(AUTOENCODER_ZIP, Some(AUTOENCODER_SHIFT_QUANTILE)),
    );
}

#[test]
fn unquantized_checkpoints_are_recognisable() {
    // test-mnist-80expansion-q4 holds float weights in two layers.
    let c = load("ai8x-kat/checkpoints/test-mnist-80expansion-q4.pth.tar");
    let err = c
        .tensor("conv3.conv2d.weight")
        .unwrap()
        .to_i64_exact()
        .unwrap_err();
    assert!(err.contains("not an integer"), "{err}");
    assert!(c
        .tensor("conv1.conv2d.weight")
        .unwrap()
        .to_i64_exact()
        .is_ok());
    // ai85-bayer2rgb-qat8-q holds a float network beside the quantized one.
    common::require("ai8x-kat/checkpoints/ai85-bayer2rgb-qat8-q.pth.tar");
    let c = load("ai8x-kat/checkpoints/ai85-bayer2rgb-qat8-q.pth.tar");
    assert!(c
        .tensor("conv_stem.op.weight")
        .unwrap()
        .to_i64_exact()
        .is_err());
    let bools: Vec<&str> = c
        .state_dict
        .iter()
        .filter(|(_, t)| t.dtype == DType::Bool)
        .map(|(k, _)| k.as_str())
        .collect();
    assert!(!bools.is_empty());
    for k in bools {
        let t = c.tensor(k).unwrap();
        assert!(t.data.iter().all(|&v| v == 0.0 || v == 1.0), "{k}");
    }
}

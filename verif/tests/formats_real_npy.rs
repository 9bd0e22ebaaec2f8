//! Every `.npy` file of the kit's data loads with the dtype, shape and values NumPy reports.
//!
//! The expected numbers were printed by NumPy 2.4 (`np.load(f)`: `a.dtype.str`, `a.shape`,
//! `a.ravel()[0]`, `a.ravel()[-1]`, `a.astype(np.int64).sum()`). None of the files is an
//! object array, but six sample-weight files hold several arrays one after another.

#[path = "formats_common/mod.rs"]
mod common;

use edgelearn_verif::formats::npy::{self, NpyData};
use std::collections::BTreeSet;

/// (path under the data directory, descr, shape, first, last, sum of all elements)
type NpyRow = (&'static str, &'static str, &'static [usize], i64, i64, i64);

/// The first array of every file.
const NPY_FILES: &[NpyRow] = &[
    (
        "ai8x-kat/aisegment-unet/input.npy",
        "|i1",
        &[48, 48, 48],
        118,
        -119,
        -2443691,
    ),
    (
        "ai8x-kat/autoencoder/input.npy",
        "<i8",
        &[256, 3],
        0,
        0,
        -72509,
    ),
    (
        "ai8x-kat/bayer2rgb/input.npy",
        "<i8",
        &[4, 45, 45],
        7,
        -47,
        -343489,
    ),
    (
        "ai8x-kat/camvid-unet/input.npy",
        "|i1",
        &[48, 48, 48],
        -94,
        -42,
        -5574065,
    ),
    (
        "ai8x-kat/cats-dogs/input.npy",
        "|i1",
        &[3, 128, 128],
        -19,
        -80,
        -1758867,
    ),
    (
        "ai8x-kat/cifar10-hwc-ai85/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/cifar10-nas/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/dotprod/input.npy",
        "<i8",
        &[64, 1, 1],
        -33,
        49,
        -198,
    ),
    (
        "ai8x-kat/facedet-tinierssd/input.npy",
        "|i1",
        &[3, 224, 168],
        -52,
        -99,
        -1473589,
    ),
    (
        "ai8x-kat/faceid-test/input.npy",
        "|i1",
        &[3, 160, 120],
        -49,
        -43,
        -2659410,
    ),
    (
        "ai8x-kat/kws20-hwc/input.npy",
        "<i8",
        &[128, 128],
        0,
        0,
        -105,
    ),
    (
        "ai8x-kat/kws20-v3-msnoise-mixed/input.npy",
        "<i8",
        &[128, 128],
        0,
        0,
        -105,
    ),
    (
        "ai8x-kat/kws20-v3/input.npy",
        "<i8",
        &[128, 128],
        0,
        0,
        -105,
    ),
    (
        "ai8x-kat/mnist-extrasmall/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/mnist/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/svhn-tinierssd/input.npy",
        "<i8",
        &[3, 74, 74],
        -64,
        -37,
        -1066975,
    ),
    (
        "ai8x-kat/t-80expansion-q4-32bit/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/t-80wide-q4/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/t-avgpool16-q4-round/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-avgpool16-q4/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-avgpool3x3s1-round/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/t-avgpool3x3s1/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/t-avgpool3x3s2p2-round/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-avgpool3x3s2p2/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-chan1024/input.npy",
        "|i1",
        &[1024, 10, 10],
        107,
        39,
        -88707,
    ),
    (
        "ai8x-kat/t-chan1024/weights_source.npy",
        "<i8",
        &[1, 3, 1024, 3, 3],
        64,
        -70,
        -18560,
    ),
    (
        "ai8x-kat/t-cifar-abs/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-cifar-bias-hwc/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-cifar-chw/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-cifar-hwc/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-cifar-mlp/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-conv1d-3-bias/bias_source.npy",
        "<i8",
        &[64],
        6,
        1,
        -238,
    ),
    (
        "ai8x-kat/t-conv1d-3-bias/input.npy",
        "<i8",
        &[3, 28, 1],
        -77,
        -14,
        -407,
    ),
    (
        "ai8x-kat/t-conv1d-3-bias/weights_source.npy",
        "<i8",
        &[1, 64, 3, 3],
        106,
        -81,
        375,
    ),
    (
        "ai8x-kat/t-conv1d-abs/input.npy",
        "<i8",
        &[1, 77, 1],
        -57,
        110,
        561,
    ),
    (
        "ai8x-kat/t-conv1d-abs/weights_source.npy",
        "<i8",
        &[1, 128, 1, 8],
        -97,
        51,
        -1935,
    ),
    (
        "ai8x-kat/t-conv1d-dilation4-pad1/input.npy",
        "<i8",
        &[5, 211, 1],
        15,
        32,
        1162,
    ),
    (
        "ai8x-kat/t-conv1d-dilation4-pad1/weights_source.npy",
        "<i8",
        &[1, 11, 5, 3],
        -32,
        -82,
        -9,
    ),
    (
        "ai8x-kat/t-conv1d-multilayer-q1248/input.npy",
        "<i8",
        &[3, 121, 1],
        120,
        63,
        1019,
    ),
    (
        "ai8x-kat/t-conv1d-multilayer-q1248/weights_source.npy",
        "<i8",
        &[3, 3, 9],
        66,
        -80,
        -853,
    ),
    (
        "ai8x-kat/t-conv1d-pool-3-wide/input.npy",
        "<i8",
        &[3, 28, 1],
        -77,
        -14,
        -407,
    ),
    (
        "ai8x-kat/t-conv1d-pool-3-wide/weights_source.npy",
        "<i8",
        &[1, 128, 3, 3],
        -107,
        -56,
        -4476,
    ),
    (
        "ai8x-kat/t-conv1d/input.npy",
        "<i8",
        &[3, 18, 1],
        -31,
        11,
        454,
    ),
    (
        "ai8x-kat/t-conv1d/weights_source.npy",
        "<i8",
        &[1, 5, 3, 9],
        -1,
        99,
        519,
    ),
    (
        "ai8x-kat/t-conv2dk1x1-b/input.npy",
        "<i8",
        &[5, 11, 11],
        107,
        5,
        -235,
    ),
    (
        "ai8x-kat/t-conv2dk1x1-b/weights_source.npy",
        "<i8",
        &[1, 2, 5, 1, 1],
        -29,
        44,
        174,
    ),
    (
        "ai8x-kat/t-eltwise-add-multipass/input.npy",
        "<i8",
        &[8, 12, 12],
        -124,
        -50,
        -2214,
    ),
    (
        "ai8x-kat/t-eltwise-add-multipass/weights_source.npy",
        "<i8",
        &[1, 4, 4, 1, 1],
        36,
        -16,
        235,
    ),
    (
        "ai8x-kat/t-eltwise-add/input.npy",
        "<i8",
        &[8, 12, 12],
        -124,
        -50,
        -2214,
    ),
    (
        "ai8x-kat/t-eltwise-add/weights_source.npy",
        "<i8",
        &[1, 4, 4, 1, 1],
        36,
        -16,
        235,
    ),
    (
        "ai8x-kat/t-eltwise-add5op31/input.npy",
        "<i8",
        &[155, 12, 12],
        28,
        3,
        -38937,
    ),
    (
        "ai8x-kat/t-eltwise-add5op31/weights_source.npy",
        "<i8",
        &[1, 31, 31, 1, 1],
        0,
        0,
        0,
    ),
    (
        "ai8x-kat/t-eltwise-add7-conv2d/input.npy",
        "<i8",
        &[14, 12, 12],
        -91,
        -14,
        -7214,
    ),
    (
        "ai8x-kat/t-eltwise-add7-conv2d/weights_source.npy",
        "<i8",
        &[1, 13, 7, 3, 3],
        47,
        -93,
        -3438,
    ),
    (
        "ai8x-kat/t-eltwise-or/input.npy",
        "<i8",
        &[8, 12, 12],
        -124,
        -50,
        -2214,
    ),
    (
        "ai8x-kat/t-eltwise-or/weights_source.npy",
        "<i8",
        &[1, 4, 4, 1, 1],
        36,
        -16,
        235,
    ),
    (
        "ai8x-kat/t-eltwise-pool-avg/input.npy",
        "<i8",
        &[16, 17, 17],
        -1,
        83,
        -2094,
    ),
    (
        "ai8x-kat/t-eltwise-pool-avg/weights_source.npy",
        "<i8",
        &[1, 8, 8, 1, 1],
        0,
        0,
        0,
    ),
    (
        "ai8x-kat/t-eltwise-poolafter-avg/input.npy",
        "<i8",
        &[16, 17, 17],
        -1,
        83,
        -2094,
    ),
    (
        "ai8x-kat/t-eltwise-poolafter-avg/weights_source.npy",
        "<i8",
        &[1, 8, 8, 1, 1],
        0,
        0,
        0,
    ),
    (
        "ai8x-kat/t-eltwise-sub/input.npy",
        "<i8",
        &[8, 12, 12],
        -124,
        -50,
        -2214,
    ),
    (
        "ai8x-kat/t-eltwise-sub/weights_source.npy",
        "<i8",
        &[1, 4, 4, 1, 1],
        36,
        -16,
        235,
    ),
    (
        "ai8x-kat/t-eltwise-xor/input.npy",
        "<i8",
        &[8, 12, 12],
        -124,
        -50,
        -2214,
    ),
    (
        "ai8x-kat/t-eltwise-xor/weights_source.npy",
        "<i8",
        &[1, 4, 4, 1, 1],
        36,
        -16,
        235,
    ),
    (
        "ai8x-kat/t-energy/input.npy",
        "|i1",
        &[64, 45, 45],
        48,
        62,
        -164805,
    ),
    (
        "ai8x-kat/t-fifostream-32-chw/input.npy",
        "<i8",
        &[3, 8, 32],
        -120,
        100,
        -5663,
    ),
    (
        "ai8x-kat/t-fifostream-32-hwc/input.npy",
        "<i8",
        &[3, 8, 32],
        -120,
        100,
        -5663,
    ),
    (
        "ai8x-kat/t-fifostream-cifar-hwc/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-fire/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-flatten-bias/bias_source.npy",
        "<i8",
        &[1],
        1,
        1,
        1,
    ),
    (
        "ai8x-kat/t-flatten-bias/input.npy",
        "<i8",
        &[3, 64, 64],
        -86,
        -86,
        -1056768,
    ),
    (
        "ai8x-kat/t-flatten-bias/weights_source.npy",
        "<i8",
        &[1, 3, 3, 3],
        16,
        16,
        432,
    ),
    (
        "ai8x-kat/t-fmnist-chw/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -66743,
    ),
    (
        "ai8x-kat/t-kws20-hwc/input.npy",
        "<i8",
        &[128, 128],
        0,
        0,
        -105,
    ),
    (
        "ai8x-kat/t-layers/input.npy",
        "<i8",
        &[3, 11, 11],
        -74,
        8,
        -1482,
    ),
    (
        "ai8x-kat/t-layers/weights_source.npy",
        "<i8",
        &[32, 3, 3, 3, 3],
        88,
        -77,
        -2961,
    ),
    (
        "ai8x-kat/t-mlp-multilayer208/input.npy",
        "<i8",
        &[208, 1, 1],
        49,
        30,
        375,
    ),
    (
        "ai8x-kat/t-mlpflatten192to10/input.npy",
        "<i8",
        &[12, 4, 4],
        -111,
        -14,
        491,
    ),
    (
        "ai8x-kat/t-mlpflatten192to10/weights_source.npy",
        "<i8",
        &[1, 10, 192, 1, 1],
        -98,
        -89,
        -3815,
    ),
    (
        "ai8x-kat/t-mlpflatten768to100-quant4/input.npy",
        "<i8",
        &[12, 8, 8],
        -6,
        5,
        -1552,
    ),
    (
        "ai8x-kat/t-mnist-extrasmall/input.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
    (
        "ai8x-kat/t-multilayer-eltwise/input.npy",
        "<i8",
        &[4, 20, 20],
        108,
        -118,
        -3432,
    ),
    (
        "ai8x-kat/t-multilayer-eltwise/weights_source.npy",
        "<i8",
        &[8, 4, 3, 3],
        38,
        -93,
        -2775,
    ),
    (
        "ai8x-kat/t-nonsquare-pool/input.npy",
        "<i8",
        &[5, 11, 7],
        72,
        29,
        1643,
    ),
    (
        "ai8x-kat/t-nonsquare-pool/weights_source.npy",
        "<i8",
        &[1, 3, 5, 3, 3],
        -87,
        109,
        -166,
    ),
    (
        "ai8x-kat/t-outputshift/input.npy",
        "<i8",
        &[3, 8, 32],
        -120,
        100,
        -5663,
    ),
    (
        "ai8x-kat/t-passthrough-multipass/input.npy",
        "<i8",
        &[127, 12, 12],
        79,
        57,
        -17150,
    ),
    (
        "ai8x-kat/t-passthrough-multipass/weights_source.npy",
        "<i8",
        &[1, 127, 127, 1, 1],
        0,
        0,
        0,
    ),
    (
        "ai8x-kat/t-passthrough-pool/input.npy",
        "<i8",
        &[3, 11, 11],
        -74,
        8,
        -1482,
    ),
    (
        "ai8x-kat/t-passthrough-pool/weights_source.npy",
        "<i8",
        &[32, 3, 3, 3, 3],
        88,
        -77,
        -2961,
    ),
    (
        "ai8x-kat/t-passthrough/input.npy",
        "<i8",
        &[3, 11, 11],
        -74,
        8,
        -1482,
    ),
    (
        "ai8x-kat/t-passthrough/weights_source.npy",
        "<i8",
        &[32, 3, 3, 3, 3],
        88,
        -77,
        -2961,
    ),
    (
        "ai8x-kat/t-pool-16x16s4wide/input.npy",
        "<i8",
        &[3, 65, 65],
        -33,
        -47,
        -24391,
    ),
    (
        "ai8x-kat/t-pool-16x16s4wide/weights_source.npy",
        "<i8",
        &[1, 32, 3, 3, 3],
        -125,
        -32,
        -4095,
    ),
    (
        "ai8x-kat/t-pool-2x3s2/input.npy",
        "<i8",
        &[5, 11, 7],
        4,
        -123,
        -2020,
    ),
    (
        "ai8x-kat/t-pool-2x3s2/weights_source.npy",
        "<i8",
        &[1, 13, 5, 3, 3],
        -94,
        26,
        2817,
    ),
    (
        "ai8x-kat/t-speechcom-chw/input.npy",
        "<i8",
        &[1, 64, 64],
        -24,
        -128,
        -146505,
    ),
    (
        "ai8x-kat/t-stream-cifar-hwc/input.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x-kat/t-tfrock-bias/bias_source.npy",
        "<i8",
        &[15],
        1,
        -2,
        -8,
    ),
    (
        "ai8x-kat/t-tfrock-bias/input.npy",
        "<i8",
        &[3, 64, 64],
        125,
        121,
        1049668,
    ),
    (
        "ai8x-kat/t-upsample-nonsquare-pad1A/input.npy",
        "<i8",
        &[3, 5, 7],
        53,
        -73,
        496,
    ),
    (
        "ai8x-kat/t-upsample-nonsquare-pad1A/weights_source.npy",
        "<i8",
        &[1, 4, 3, 3, 3],
        41,
        -47,
        1803,
    ),
    (
        "ai8x-kat/t-upsample/input.npy",
        "<i8",
        &[3, 4, 4],
        -41,
        73,
        -40,
    ),
    (
        "ai8x-kat/t-upsample/weights_source.npy",
        "<i8",
        &[1, 4, 3, 3, 3],
        41,
        -47,
        1803,
    ),
    (
        "ai8x-kat/t-upscale/input.npy",
        "<i8",
        &[3, 7, 9],
        42,
        -68,
        -366,
    ),
    (
        "ai8x-kat/t-upscale/weights_source.npy",
        "<i8",
        &[64, 3, 3, 3],
        -1,
        -1,
        1428,
    ),
    (
        "ai8x-kat/t-wide512in/input.npy",
        "|i1",
        &[512, 11, 11],
        -124,
        5,
        -72406,
    ),
    (
        "ai8x-kat/t-widein-bias-q2/bias_source.npy",
        "<i8",
        &[1],
        8,
        8,
        8,
    ),
    (
        "ai8x-kat/t-widein-bias-q2/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein-bias-q2/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-widein-bias/bias_source.npy",
        "<i8",
        &[1],
        8,
        8,
        8,
    ),
    (
        "ai8x-kat/t-widein-bias/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein-bias/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-widein-maxproc4/input.npy",
        "<i8",
        &[7, 11, 11],
        106,
        -78,
        -1531,
    ),
    (
        "ai8x-kat/t-widein-maxproc4/weights_source.npy",
        "<i8",
        &[1, 1, 7, 3, 3],
        -67,
        40,
        -471,
    ),
    (
        "ai8x-kat/t-widein-q1/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein-q1/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-widein-q2/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein-q2/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-widein-q4/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein-q4/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-widein/input.npy",
        "<i8",
        &[79, 11, 11],
        -2,
        -10,
        -15366,
    ),
    (
        "ai8x-kat/t-widein/weights_source.npy",
        "<i8",
        &[1, 1, 79, 3, 3],
        39,
        -77,
        -2240,
    ),
    (
        "ai8x-kat/t-wideout-q4/input.npy",
        "<i8",
        &[4, 13, 11],
        -87,
        -17,
        387,
    ),
    (
        "ai8x-kat/t-wideout-q4/weights_source.npy",
        "<i8",
        &[1, 126, 4, 3, 3],
        82,
        34,
        -4496,
    ),
    (
        "ai8x-kat/t-wideout/input.npy",
        "<i8",
        &[4, 13, 11],
        -87,
        -17,
        387,
    ),
    (
        "ai8x-kat/t-wideout/weights_source.npy",
        "<i8",
        &[1, 126, 4, 3, 3],
        82,
        34,
        -4496,
    ),
    (
        "ai8x/sample_cifar-10.npy",
        "<i8",
        &[3, 32, 32],
        31,
        -18,
        -59249,
    ),
    (
        "ai8x/sample_mnist.npy",
        "<i8",
        &[1, 28, 28],
        -128,
        -128,
        -81828,
    ),
];

/// One array of a multi-array file: (descr, shape, first, last, sum).
type ArrayRow = (&'static str, &'static [usize], i64, i64, i64);

/// Files holding several arrays one after another (read by repeated `np.load` on one open
/// file): (path, each array in order).
const MULTI_ARRAY_FILES: &[(&str, &[ArrayRow])] = &[
    (
        "ai8x-kat/t-conv1d-multilayer-q1248/weights_source.npy",
        &[
            ("<i8", &[3, 3, 9], 66, -80, -853),
            ("<i8", &[3, 3, 8], 17, 103, 836),
            ("<i8", &[3, 3, 7], 65, 56, -501),
            ("<i8", &[3, 3, 6], -100, 20, -317),
            ("<i8", &[3, 3, 5], 44, -75, 67),
            ("<i8", &[3, 3, 4], 95, 91, -245),
            ("<i8", &[3, 3, 3], 63, -94, 353),
            ("<i8", &[3, 3, 2], 13, -11, 133),
            ("<i8", &[3, 3, 1], 57, -99, -27),
        ],
    ),
    (
        "ai8x-kat/t-flatten-bias/bias_source.npy",
        &[("<i8", &[1], 1, 1, 1), ("<i8", &[3], 0, 5, 5)],
    ),
    (
        "ai8x-kat/t-flatten-bias/weights_source.npy",
        &[
            ("<i8", &[1, 3, 3, 3], 16, 16, 432),
            ("<i8", &[3, 49, 1, 1], 16, 16, 2352),
        ],
    ),
    (
        "ai8x-kat/t-multilayer-eltwise/weights_source.npy",
        &[
            ("<i8", &[8, 4, 3, 3], 38, -93, -2775),
            ("<i8", &[8, 8, 1, 1], 0, 0, 0),
            ("<i8", &[8, 8, 1, 1], 0, 0, 0),
        ],
    ),
    (
        "ai8x-kat/t-tfrock-bias/bias_source.npy",
        &[
            ("<i8", &[15], 1, -2, -8),
            ("<i8", &[30], 2, -2, -3),
            ("<i8", &[60], 1, -1, 3),
            ("<i8", &[30], -2, -1, -15),
            ("<i8", &[30], -1, 0, 14),
            ("<i8", &[30], 2, 1, 33),
            ("<i8", &[3], 1, 0, 1),
        ],
    ),
    (
        "ai8x-kat/t-upscale/weights_source.npy",
        &[
            ("<i8", &[64, 3, 3, 3], -1, -1, 1428),
            ("<i8", &[4, 64, 3, 3], -92, 18, -4187),
            ("<i8", &[3, 4, 3, 3], -102, 85, -201),
        ],
    ),
];

#[test]
fn every_real_npy_matches_numpy() {
    let dir = common::data_dir();
    let mut checked = 0;
    for &(rel, descr, shape, first, last, sum) in NPY_FILES {
        if common::present(rel).is_none() {
            continue;
        }
        checked += 1;
        let path = dir.join(rel);
        let a = npy::load_npy(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a.dtype, descr, "{rel}");
        assert_eq!(a.shape, shape, "{rel}");
        assert_eq!(a.numel(), shape.iter().product::<usize>(), "{rel}");
        assert!(
            matches!(a.data, NpyData::Int(_)),
            "{rel}: integer data expected"
        );
        let v = a.to_i64().unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(v.first(), Some(&first), "{rel}: first value");
        assert_eq!(v.last(), Some(&last), "{rel}: last value");
        assert_eq!(v.iter().sum::<i64>(), sum, "{rel}: sum");
        if descr == "|i1" {
            assert!(v.iter().all(|x| (-128..=127).contains(x)), "{rel}");
        }
        // Reading every array gives the same first array, and one array for single files.
        let all = npy::load_npy_all(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all[0], a, "{rel}");
        let multi = MULTI_ARRAY_FILES.iter().find(|m| m.0 == rel);
        assert_eq!(
            all.len(),
            multi.map_or(1, |m| m.1.len()),
            "{rel}: number of arrays"
        );
    }
    assert!(checked > 50, "only {checked} .npy files checked");
}

#[test]
fn multi_array_files_match_repeated_np_load() {
    let dir = common::data_dir();
    let mut checked = 0;
    for &(rel, expected) in MULTI_ARRAY_FILES {
        if common::present(rel).is_none() {
            continue;
        }
        checked += 1;
        let all = npy::load_npy_all(&dir.join(rel)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), expected.len(), "{rel}");
        for (i, (a, &(descr, shape, first, last, sum))) in all.iter().zip(expected).enumerate() {
            assert_eq!(a.dtype, descr, "{rel} array {i}");
            assert_eq!(a.shape, shape, "{rel} array {i}");
            let v = a.to_i64().unwrap();
            assert_eq!(v.first(), Some(&first), "{rel} array {i}");
            assert_eq!(v.last(), Some(&last), "{rel} array {i}");
            assert_eq!(v.iter().sum::<i64>(), sum, "{rel} array {i}");
        }
    }
    // The vendored subset holds 5 of the 6.
    assert!(checked >= 5, "only {checked} multi-array files checked");
}

#[test]
fn table_covers_every_npy_file() {
    let dir = common::data_dir();
    let mut found = BTreeSet::new();
    for p in common::files_with_suffix(&dir.join("ai8x"), ".npy") {
        found.insert(p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned());
    }
    let kat = dir.join("ai8x-kat");
    for case in std::fs::read_dir(&kat).unwrap() {
        let case = case.unwrap().path();
        if case.is_dir() {
            for p in common::files_with_suffix(&case, ".npy") {
                found.insert(p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let listed: BTreeSet<String> = NPY_FILES.iter().map(|e| e.0.to_string()).collect();
    if common::full_data() {
        assert_eq!(
            found, listed,
            "the data directory's .npy files and the table differ"
        );
    } else {
        assert!(
            found.len() > 50 && found.is_subset(&listed),
            "vendored .npy files missing from the table: {:?}",
            found.difference(&listed).collect::<Vec<_>>()
        );
    }
    assert_eq!(listed.len(), 129);
}

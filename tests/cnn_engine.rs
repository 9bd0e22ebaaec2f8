//! The MAX78000-style CNN engine golden model, end to end through `edgelearn cnn`: the
//! documents' known answers word for word, the real MNIST and CIFAR-10 networks from their
//! checkpoints, every vendored ai8x layer test (pinned), the memory layouts, and clear errors
//! for malformed descriptions, checkpoints and arrays (with a brief fuzz of the parsers).

use crate::common;
use common::cli::{data, edgelearn, ok, s, tmp};
use common::{kat_cases, KatCase};

use edgelearn_verif::cnn::{self, desc::NetworkDesc, Device, Network, RunOptions, Semantics};
use edgelearn_verif::formats::npy::{encode_npy_i64, parse_npy_all};
use edgelearn_verif::formats::torch;
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Output;

/// Asserts exit code 2 and a message containing every one of `needles`; returns stderr.
fn fails(out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
    err
}

fn write_npy(path: &Path, shape: &[usize], data: &[i64]) {
    std::fs::write(path, encode_npy_i64(shape, data)).unwrap();
}

/// `dir/name` holding `text`.
fn text_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `dir/name` holding the int64 array `data` of `shape`.
fn npy_file(dir: &Path, name: &str, shape: &[usize], data: &[i64]) -> PathBuf {
    let p = dir.join(name);
    write_npy(&p, shape, data);
    p
}

fn run_json(args: &[&str], dir: &Path) -> Json {
    let out_path = dir.join("out.json");
    ok(&cnn_run(
        &[args, &["--output", s(&out_path), "--force"]].concat(),
    ));
    serde_json::from_str(&std::fs::read_to_string(out_path).unwrap()).unwrap()
}

/// The ai8x MNIST network under `data/`: its description, checkpoint and sample input.
const MNIST: [&str; 3] = [
    "ai8x/mnist-chw-ai85.yaml",
    "ai8x/ai85-mnist-qat8-q.pth.tar",
    "ai8x/sample_mnist.npy",
];

/// The ai8x CIFAR-10 network under `data/`, as [`MNIST`].
const CIFAR10: [&str; 3] = [
    "ai8x/cifar10-hwc-ai85.yaml",
    "ai8x-kat/checkpoints/ai85-cifar10-qat8-q.pth.tar",
    "ai8x/sample_cifar-10.npy",
];

/// `--network NET --checkpoint WEIGHTS --input SAMPLE`.
fn net_args<'a>(network: &'a Path, weights: &'a Path, input: &'a Path) -> [&'a str; 6] {
    [
        "--network",
        s(network),
        "--checkpoint",
        s(weights),
        "--input",
        s(input),
    ]
}

/// `edgelearn cnn run ARGS` (without `--output`, the JSON goes to stdout).
fn cnn_run(args: &[&str]) -> Output {
    edgelearn(&[&["cnn", "run"], args].concat())
}

/// `edgelearn cnn check NETWORK --checkpoint WEIGHTS --input SAMPLE`.
fn cnn_check(network: &Path, weights: &Path, input: &Path) -> Output {
    edgelearn(&[
        "cnn",
        "check",
        s(network),
        "--checkpoint",
        s(weights),
        "--input",
        s(input),
    ])
}

/// `edgelearn cnn kat` of `net` into `out`; returns the arguments (to repeat the call).
fn kat_args<'a>(net: &[&'a str], out: &'a Path) -> Vec<&'a str> {
    let mut args = vec!["cnn", "kat"];
    args.extend_from_slice(net);
    args.extend(["--out", s(out)]);
    args
}

fn ints(j: &Json) -> Vec<i64> {
    j.as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect()
}

/// The Conv2D 1x1 HWC example of the documents (spec §6.4).
const DOC_INPUT: [[[i64; 2]; 2]; 5] = [
    [[-53, -11], [44, -116]],
    [[-42, -72], [-50, -46]],
    [[-22, -56], [34, 16]],
    [[51, 84], [-99, -2]],
    [[24, 41], [-31, 71]],
];

fn doc_input_flat(channels: usize) -> Vec<i64> {
    DOC_INPUT[..channels]
        .iter()
        .flat_map(|c| c.iter().flatten().copied())
        .collect()
}

fn doc_conv_case(dir: &Path, width: u32) -> [PathBuf; 3] {
    let yaml = text_file(
        dir,
        "conv1x1.yaml",
        &format!(
            "---\n# The ai8x documentation's Conv2D 1x1 example\narch: test\ndataset: doc\nlayers:\n  - processors: 0x000000000000001f\n    out_offset: 0x2000\n    op: conv2d\n    kernel_size: 1x1\n    pad: 0\n    data_format: HWC\n    activate: None\n    output_width: {width}\n"
        ),
    );
    let weights = npy_file(
        dir,
        "weights.npy",
        &[1, 2, 5, 1, 1],
        &[-29, -101, 67, -37, 19, -89, 121, 63, 116, 44],
    );
    let input = npy_file(dir, "input.npy", &[5, 2, 2], &doc_input_flat(5));
    [yaml, weights, input]
}

#[test]
fn doc_conv2d_1x1_known_answer_word_for_word() {
    let dir = tmp("doc-conv");
    let [yaml, weights, input] = doc_conv_case(&dir, 8);
    let net = net_args(&yaml, &weights, &input);
    let j = run_json(&net, &dir);
    assert_eq!(ints(&j["output"]), vec![22, 12, 71, 82, 41, 2, -128, 68]);
    assert_eq!(ints(&j["output_shape"]), vec![2, 2, 2]);
    assert_eq!(j["wide"], Json::Bool(false));

    let kat = dir.join("kat");
    let mut args = kat_args(&net, &kat);
    ok(&edgelearn(&args));
    // Spec §6.4 (erratum E1 corrected: 0x54c8b8f5).
    assert_eq!(
        std::fs::read_to_string(kat.join("sampledata.h")).unwrap(),
        "// This file was @generated automatically\n\n\
         #define SAMPLE_INPUT_0 { \\\n  0x33ead6cb, 0x54c8b8f5, 0x9d22ce2c, 0xfe10d28c \\\n}\n\
         #define SAMPLE_INPUT_4 { \\\n  0x00000018, 0x00000029, 0x000000e1, 0x00000047 \\\n}\n"
    );
    // The documents' four checks: 0x00002916, 0x0000020c, 0x00008047, 0x00004452.
    assert_eq!(
        std::fs::read_to_string(kat.join("sampleoutput.h")).unwrap(),
        "// This file was @generated automatically\n\n\
         #define SAMPLE_OUTPUT { \\\n  0x50402000, 0x0000ffff, 0x00000004, 0x00002916, 0x0000020c, 0x00008047, 0x00004452, 0x00000000 \\\n}\n"
    );
    let c = std::fs::read_to_string(kat.join("kat.c")).unwrap();
    assert!(
        c.contains("memcpy32((uint32_t *) 0x50400000, input_0, 4);"),
        "{c}"
    );
    assert!(
        c.contains("memcpy32((uint32_t *) 0x50408000, input_4, 4);"),
        "{c}"
    );
    assert!(c.contains("int check_output(void)"), "{c}");
    let j: Json =
        serde_json::from_str(&std::fs::read_to_string(kat.join("kat.json")).unwrap()).unwrap();
    assert_eq!(j["output"][0]["address"], "0x50402000");
    assert_eq!(j["output"][2]["value"], "0x00008047");
    // Nothing is overwritten without --force.
    fails(&edgelearn(&args), &["exists", "--force"]);
    args.push("--force");
    ok(&edgelearn(&args));
}

#[test]
fn doc_conv2d_1x1_with_32_bit_output_gives_raw_accumulators() {
    let dir = tmp("doc-conv32");
    let [yaml, weights, input] = doc_conv_case(&dir, 32);
    let net = net_args(&yaml, &weights, &input);
    let j = run_json(&net, &dir);
    // Spec §6.4: full-resolution sums, no shift, rounding or saturation.
    assert_eq!(
        ints(&j["output"]),
        vec![2874, 1510, 9126, 10505, 5221, 287, -20672, 8658]
    );
    assert_eq!(j["wide"], Json::Bool(true));
    let kat = dir.join("kat");
    ok(&edgelearn(&kat_args(&net, &kat)));
    // Four words per pixel and quad; lanes 0 and 1 hold the two channels.
    assert_eq!(
        std::fs::read_to_string(kat.join("sampleoutput.h")).unwrap(),
        "// This file was @generated automatically\n\n\
         #define SAMPLE_OUTPUT { \\\n  \
         0x50402000, 0xffffffff, 0x00000002, 0x00000b3a, 0x00001465, 0x50402010, 0xffffffff, 0x00000002, \\\n  \
         0x000005e6, 0x0000011f, 0x50402020, 0xffffffff, 0x00000002, 0x000023a6, 0xffffaf40, 0x50402030, \\\n  \
         0xffffffff, 0x00000002, 0x00002909, 0x000021d2, 0x00000000 \\\n}\n"
    );
}

#[test]
fn doc_mlp_known_answer_flattened_and_one_by_one() {
    let dir = tmp("doc-mlp");
    let weights = npy_file(
        &dir,
        "weights.npy",
        &[1, 2, 12],
        &[
            -29, -101, 67, -37, 19, -89, 121, 63, 116, 44, 51, 84, //
            -99, -2, 24, 41, -31, 71, 71, 82, 41, 2, -128, 68,
        ],
    );
    // 2x2x3 data flattened by the layer (spec §6.5, "2D" input).
    let yaml = text_file(
        &dir,
        "mlp.yaml",
        "arch: test\ndataset: doc\nlayers:\n  - processors: 0x7\n    out_offset: 0x2000\n    operation: MLP\n    flatten: true\n    activate: None\n",
    );
    let input = npy_file(&dir, "input.npy", &[3, 2, 2], &doc_input_flat(3));
    let net = net_args(&yaml, &weights, &input);
    let j = run_json(&net, &dir);
    assert_eq!(ints(&j["output"]), vec![36, -108]);
    let kat = dir.join("kat");
    ok(&edgelearn(&kat_args(&net, &kat)));
    let data = std::fs::read_to_string(kat.join("sampledata.h")).unwrap();
    assert!(
        data.contains("0x00ead6cb, 0x00c8b8f5, 0x0022ce2c, 0x0010d28c"),
        "{data}"
    );
    let out = std::fs::read_to_string(kat.join("sampleoutput.h")).unwrap();
    assert!(
        out.contains("0x50402000, 0x0000ffff, 0x00000001, 0x00009424, 0x00000000"),
        "{out}"
    );

    // The same 12 values as 12 channels of 1x1 data (spec §6.5, "1D" input).
    let yaml1 = text_file(
        &dir,
        "mlp1.yaml",
        "arch: test\ndataset: doc\nlayers:\n  - processors: 0xfff\n    out_offset: 0x2000\n    op: mlp\n    activate: None\n",
    );
    let input1 = npy_file(&dir, "input1.npy", &[12, 1, 1], &doc_input_flat(3));
    let kat1 = dir.join("kat1");
    ok(&edgelearn(&kat_args(
        &net_args(&yaml1, &weights, &input1),
        &kat1,
    )));
    let data = std::fs::read_to_string(kat1.join("sampledata.h")).unwrap();
    for (p, word) in [(0, "0x8c2cf5cb"), (4, "0xd2ceb8d6"), (8, "0x1022c8ea")] {
        assert!(
            data.contains(&format!("SAMPLE_INPUT_{p} {{ \\\n  {word} \\\n}}")),
            "{data}"
        );
    }
    let c = std::fs::read_to_string(kat1.join("kat.c")).unwrap();
    assert!(c.contains("0x50410000, input_8, 1"), "{c}");
    let out = std::fs::read_to_string(kat1.join("sampleoutput.h")).unwrap();
    assert!(out.contains("0x00009424"), "{out}");
}

/// The ai8x MNIST network's output on `data/ai8x/sample_mnist.npy` (a 7). Source: edgelearn's
/// own model; the documents and the vendored ai8x data hold no expected output for this sample,
/// so it was cross-checked byte for byte against an independent rebuild of ai8x's network
/// loader (docs/decisions.md D-CNN-VERIFY, D-PIN). The documents' known answers are pinned
/// word for word in the tests above.
const MNIST_OUTPUT: [i64; 10] = [
    -77992, 93377, 45484, 29850, -36248, -130974, -272399, 416616, -148783, 25073,
];

#[test]
fn mnist_network_runs_from_its_checkpoint() {
    let dir = tmp("mnist");
    let [yaml, ck, input] = MNIST.map(data);
    let net = net_args(&yaml, &ck, &input);
    // Without --output the JSON goes to stdout.
    let stdout = ok(&cnn_run(&net));
    let j: Json = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(ints(&j["output_shape"]), vec![10, 1, 1]);
    assert_eq!(ints(&j["output"]), MNIST_OUTPUT);
    assert_eq!(j["wide"], Json::Bool(true));
    // The sample is a 7.
    let best = (0..10).max_by_key(|&i| MNIST_OUTPUT[i]).unwrap();
    assert_eq!(best, 7);

    // Every layer's output as .npy, and --stop-after.
    let logs = dir.join("layers");
    let o_json = dir.join("o.json");
    let text = ok(&cnn_run(
        &[
            &net[..],
            &["--log-intermediate", s(&logs), "--output", s(&o_json)],
        ]
        .concat(),
    ));
    assert!(text.contains("-77992 93377"), "{text}");
    let shapes = [
        vec![60, 28, 28],
        vec![60, 16, 16],
        vec![56, 8, 8],
        vec![12, 4, 4],
        vec![10, 1, 1],
    ];
    let mut layer3 = Vec::new();
    for (i, shape) in shapes.iter().enumerate() {
        let bytes = std::fs::read(logs.join(format!("layer{i:02}.npy"))).unwrap();
        let a = parse_npy_all(&bytes, "layer").unwrap().remove(0);
        assert_eq!(&a.shape, shape, "layer {i}");
        let v = a.to_i64().unwrap();
        if i < 4 {
            // ReLU layers: 8-bit, non-negative.
            assert!(v.iter().all(|x| (0..=127).contains(x)), "layer {i}");
        }
        if i == 3 {
            layer3 = v;
        }
        // The same values as data-memory words: one word per pixel and quad (8-bit layers).
        let mem = std::fs::read_to_string(logs.join(format!("layer{i:02}.mem"))).unwrap();
        let words = mem.lines().filter(|l| !l.starts_with('#')).count();
        let quads = [15, 15, 14, 3, 0][i];
        if i < 4 {
            assert_eq!(words, shape[1] * shape[2] * quads, "layer {i}");
        }
    }
    let mut args = vec!["cnn", "bench", "--iterations", "3"];
    args.extend_from_slice(&net);
    let text = ok(&edgelearn(&args));
    assert!(
        text.contains("inferences/s") && text.contains("10751808 MACs"),
        "{text}"
    );
    let j = run_json(&[&net[..], &["--stop-after", "3"]].concat(), &dir);
    assert_eq!(ints(&j["output_shape"]), vec![12, 4, 4]);
    assert_eq!(ints(&j["output"]), layer3);
    assert_eq!(j["wide"], Json::Bool(false));
}

#[test]
fn cifar10_network_runs_from_its_checkpoint_and_a_mismatched_one_is_refused() {
    let dir = tmp("cifar");
    let [yaml, ck, input] = CIFAR10.map(data);
    let net = net_args(&yaml, &ck, &input);
    let j = run_json(&net, &dir);
    assert_eq!(
        ints(&j["output"]),
        vec![-233035, -160342, -118424, 292085, -221440, 92362, 97781, -217143, -89946, -307243]
    );
    let stdout = ok(&cnn_check(&yaml, &ck, &input));
    assert!(stdout.contains("flatten+linear"), "{stdout}");
    assert!(stdout.contains("MACs"), "{stdout}");

    // A checkpoint of another architecture is an error naming both (ai8x does the same).
    let other = dir.join("other.yaml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&yaml)
            .unwrap()
            .replace("arch: ai85net5", "arch: ai85nascifarnet"),
    )
    .unwrap();
    fails(
        &cnn_run(&net_args(&other, &ck, &input)),
        &["ai85nascifarnet", "ai85net5", "does not match", "`arch`"],
    );
}

/// Runs one vendored ai8x layer test through the library; returns the SHA-256 of its output
/// tensor and of its sampleoutput.h and sampledata.h.
fn kat_digest(case: &KatCase) -> String {
    let name = case.name.as_str();
    let mut dev = case.device.clone();
    // The two multi-pass element-wise/width tests were made with fewer processors per pass.
    match name {
        "t-eltwise-add-multipass" => dev = Device::with_max_proc(2),
        "t-widein-maxproc4" => dev = Device::with_max_proc(4),
        _ => {}
    }
    let net = Network::load(&case.yaml, &case.weights, case.bias.as_deref(), dev)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let input = cnn::weights::load_input(&case.input).unwrap();
    let inf = net
        .infer(&input, &case.opts, case.stop)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let k = net.kat(&input, &inf).unwrap();
    let mut h = Sha256::new();
    for v in &inf.output().data {
        h.update(v.to_le_bytes());
    }
    h.update(k.sampleoutput_h());
    h.update(k.sampledata_h());
    hex::encode(&h.finalize()[..8])
}

/// Digests of every vendored case. They were produced by this model after its outputs,
/// sampleoutput.h and sampledata.h were found identical, case by case, to those of an
/// independent re-implementation of the ai8x network loader (docs/decisions.md D-CNN-VERIFY);
/// they pin that state.
const KAT_PINS: &[(&str, &str)] = &[
    ("t-conv1d", "3a83e7b697249d34"),
    ("t-conv1d-3-bias", "6d3072410abb386c"),
    ("t-conv1d-abs", "c8e6e37ba39fac3b"),
    ("t-conv1d-dilation4-pad1", "9a44da2b53f24334"),
    ("t-conv1d-multilayer-q1248", "0966bd481129c3b1"),
    ("t-conv1d-pool-3-wide", "26cbfdcfad786f11"),
    ("t-conv2dk1x1-b", "a401305168ee4380"),
    ("t-eltwise-add", "2b47398d20774f3b"),
    ("t-eltwise-add-multipass", "85a693dcb107cc98"),
    ("t-eltwise-add5op31", "95eeab6f2fd9f577"),
    ("t-eltwise-add7-conv2d", "26ef8d071597015c"),
    ("t-eltwise-or", "7441836e7c44613d"),
    ("t-eltwise-pool-avg", "cecc5255c238ed31"),
    ("t-eltwise-poolafter-avg", "3246ebc1e071960a"),
    ("t-eltwise-sub", "37e8ce1655b6ab2e"),
    ("t-eltwise-xor", "c957a0501e9a0d94"),
    ("t-flatten-bias", "079094f83b566a8c"),
    ("t-layers", "e0fd0656e9789d1b"),
    ("t-mlpflatten192to10", "cdb6ee14851e5ea7"),
    // Read with --legacy-test (INDEX.tsv; D-CNN-LEGACY); 6b8d22a7a4cd034a without it.
    ("t-multilayer-eltwise", "22d0154af5f46bfa"),
    ("t-nonsquare-pool", "2b88107ac97557ee"),
    ("t-passthrough", "5ed1775e69bdfa4e"),
    ("t-passthrough-multipass", "a1d8e98108726f00"),
    ("t-passthrough-pool", "38bf343c33f5f34a"),
    ("t-pool-16x16s4wide", "8753266d99b1094d"),
    ("t-pool-2x3s2", "d533d2602e396a99"),
    ("t-upsample", "987617423e4dfbb1"),
    ("t-upsample-nonsquare-pad1A", "13c5fee5be8698de"),
    ("t-upscale", "2171c20c93281a81"),
    ("t-widein", "e88076bccec8be07"),
    ("t-widein-bias", "e11c422bbb4052e3"),
    ("t-widein-bias-q2", "258ee897dd734d8b"),
    ("t-widein-maxproc4", "b05aff3e1e0e80de"),
    ("t-widein-q1", "967c5fe257613157"),
    ("t-widein-q2", "36607c04a05365a8"),
    ("t-widein-q4", "59cfd4d51e7096bd"),
    ("t-wideout", "0e006d0b151204a8"),
    ("t-wideout-q4", "7f50816cc7aec372"),
    ("t-chan1024", "a3d6d54438444b9a"),
    ("t-fire", "8da79dceb580c736"),
    ("t-avgpool3x3s1", "c4b217dd1ee17782"),
    ("t-avgpool3x3s1-round", "a5f655c1b0add4df"),
    ("t-mnist-extrasmall", "7d295c9453f1cdd7"),
    ("t-80expansion-q4-32bit", "29e96f355a9bca2c"),
    ("t-cifar-abs", "56d3415a5de9f572"),
    ("t-cifar-mlp", "a8d6089f167650a9"),
    ("t-avgpool16-q4-round", "7f1cbb2f941058ae"),
    ("cifar10-hwc-ai85", "9b64aaeb52f5853d"),
    ("mnist-extrasmall", "5b98fd470fd7736e"),
    // The rest of ai8x-kat with weights at hand (issue 31): pinned by this model (the issue
    // reports izer's known answers equal to it on all of them); the streaming ones too.
    ("aisegment-unet", "67fd6465ac3e95d6"),
    ("autoencoder", "f5f1aec2404ca86e"),
    ("bayer2rgb", "dbc2dd1695f37a65"),
    ("camvid-unet", "ad38eb1096d1ffc9"),
    ("cats-dogs", "1aefbf5498d66f26"),
    ("cifar10-nas", "42b9b28dec6e9f91"),
    ("dotprod", "c7c02af1af968423"),
    ("facedet-tinierssd", "15c2e6fc6499b31a"),
    ("faceid-test", "f4d1c775351a73b7"),
    ("kws20-hwc", "13e260583c1bdede"),
    ("kws20-v3", "fc1f6e295d85c652"),
    ("kws20-v3-msnoise-mixed", "15a1858fcc97ec94"),
    ("mnist", "095a29b43f71d879"),
    ("t-80wide-q4", "994777fe6b65bb90"),
    ("t-avgpool16-q4", "bcd2f0fa321da05a"),
    ("t-avgpool3x3s2p2", "f6bbd261c64de86f"),
    ("t-avgpool3x3s2p2-round", "0612a847a0fdba9c"),
    ("t-cifar-bias-hwc", "443c7d39b7665930"),
    ("t-cifar-chw", "069fe1e22e0ac277"),
    ("t-cifar-hwc", "5e4347a7871f2fd8"),
    ("t-fifostream-cifar-hwc", "c1c03996aa7632ed"),
    ("t-fmnist-chw", "fee7c6bae27a81ac"),
    ("t-kws20-hwc", "13ab76d8845d077c"),
    ("t-speechcom-chw", "9e0f87c1c1f05173"),
    ("t-stream-cifar-hwc", "5e4347a7871f2fd8"),
];

#[test]
fn vendored_ai8x_layer_tests_are_pinned() {
    let got: Vec<(String, String)> = kat_cases()
        .iter()
        .map(|case| (case.name.clone(), kat_digest(case)))
        .collect();
    if std::env::var_os("EDGELEARN_PRINT_PINS").is_some() {
        for (c, d) in &got {
            println!("    (\"{c}\", \"{d}\"),");
        }
    }
    assert_eq!(got.len(), KAT_PINS.len(), "cases in INDEX.tsv vs pins");
    for ((case, digest), (pcase, pdigest)) in got.iter().zip(KAT_PINS) {
        assert_eq!(case, pcase);
        assert_eq!(
            digest, pdigest,
            "{case}: output or known-answer words changed"
        );
    }
}

#[test]
fn a_processor_map_narrower_than_its_channels_is_read_as_max_proc() {
    // t-widein-maxproc4: 7 channels on processors 0xf, made by ai8x with --max-proc 4.
    let dir = tmp("maxproc");
    let case = data("ai8x-kat/t-widein-maxproc4");
    let yaml = case.join("test-widein-maxproc4.yaml");
    let w = case.join("weights_source.npy");
    let input = case.join("input.npy");
    let net = net_args(&yaml, &w, &input);
    let mut args = vec!["cnn", "kat"];
    args.extend_from_slice(&net);
    let (a, b) = (dir.join("auto"), dir.join("explicit"));
    let out = edgelearn(&[&args[..], &["--out", s(&a)]].concat());
    ok(&out);
    let note = String::from_utf8_lossy(&out.stderr);
    assert!(note.contains("--max-proc 4"), "{note}");
    ok(&edgelearn(
        &[&args[..], &["--out", s(&b), "--max-proc", "4"]].concat(),
    ));
    for f in ["sampledata.h", "sampleoutput.h"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // Asking for the full device explicitly keeps the hardware rule.
    fails(
        &edgelearn(
            &[
                &args[..],
                &["--out", s(&dir.join("strict")), "--max-proc", "64"],
            ]
            .concat(),
        ),
        &["layer 0", "`processors`", "--max-proc 4"],
    );
}

#[test]
fn multi_pass_input_layout_of_the_documents() {
    // Spec §2.6 / §6.3: 192 channels on 64 processors: memory instance 0 holds channels
    // 0-3, 64-67 and 128-131 in consecutive words; instance 1 holds 4-7, 68-71, 132-135.
    let dev = Device::max78000();
    let text = "arch: test\ndataset: x\nlayers:\n  - processors: 0xffffffffffffffff\n    op: passthrough\n    out_offset: 0x2000\n";
    let desc = NetworkDesc::parse(text, "mp.yaml", &dev).unwrap();
    let weights = cnn::NetworkWeights {
        layers: vec![None],
        arch: None,
    };
    let plan = cnn::plan::resolve(&desc, &weights, [192, 1, 1], &dev, None).unwrap();
    let p = plan.layer(0);
    assert_eq!(p.in_passes, (3, 64));
    let input = cnn::Tensor::from_vec(192, 1, 1, (0..192).map(|c| c - 96).collect());
    let blocks = cnn::memory::input_blocks(&desc.layers[0], p, &input, &dev).unwrap();
    assert_eq!(blocks.len(), 16);
    let word = |c0: i64| -> u32 {
        (0..4)
            .map(|l| (((c0 + l - 96) & 0xff) as u32) << (8 * l))
            .sum()
    };
    assert_eq!(blocks[0].address, 0x5040_0000);
    assert_eq!(blocks[0].words, vec![word(0), word(64), word(128)]);
    assert_eq!(blocks[1].address, 0x5040_8000);
    assert_eq!(blocks[1].words, vec![word(4), word(68), word(132)]);
    assert_eq!(blocks[4].address, 0x5080_0000);
}

#[test]
fn document_semantics_differ_only_where_the_documents_do() {
    // Average pooling of signed data: the silicon truncates toward zero, the documents floor.
    let dev = Device::max78000();
    let dir = tmp("semantics");
    let yaml = dir.join("pool.yaml");
    std::fs::write(
        &yaml,
        "arch: test\ndataset: x\nlayers:\n  - processors: 0x1\n    op: passthrough\n    avg_pool: 2\n    pool_stride: 2\n    out_offset: 0x2000\n",
    )
    .unwrap();
    let input = dir.join("in.npy");
    // Windows: [-3,-4,0,0] (-1.75), [-1,-1,0,0] (-0.5), [1,1,0,0] (0.5), [3,3,2,2] (2.5).
    write_npy(
        &input,
        &[1, 4, 4],
        &[-3, -4, -1, -1, 0, 0, 0, 0, 1, 1, 3, 3, 0, 0, 2, 2],
    );
    let weights = dir.join("w.npy");
    write_npy(&weights, &[1, 1, 1, 1, 1], &[1]);
    let net = net_args(&yaml, &weights, &input);
    let out = |extra: &[&str]| ints(&run_json(&[&net[..], extra].concat(), &dir)["output"]);
    assert_eq!(out(&[]), vec![-1, 0, 0, 2]);
    assert_eq!(out(&["--avg-pool-rounding"]), vec![-2, -1, 1, 3]);
    assert_eq!(out(&["--semantics", "document"]), vec![-2, -1, 0, 2]);
    assert_eq!(
        out(&["--semantics", "document", "--avg-pool-rounding"]),
        vec![-2, 0, 1, 3]
    );
    let _ = dev;
    let _ = Semantics::Document;
}

// ---- Errors ------------------------------------------------------------------------------

fn mnist_yaml() -> String {
    std::fs::read_to_string(data(MNIST[0])).unwrap()
}

/// Runs `cnn check` on YAML text with the MNIST checkpoint and sample.
fn check_yaml(dir: &Path, name: &str, text: &str) -> Output {
    cnn_check(
        &text_file(dir, name, text),
        &data(MNIST[1]),
        &data(MNIST[2]),
    )
}

#[test]
fn malformed_descriptions_name_the_layer_and_key() {
    let dir = tmp("bad-yaml");
    let y = mnist_yaml();
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("arch: x\nlayers: [\n".into(), vec!["malformed YAML"]),
        ("- a\n- b\n".into(), vec!["must be a mapping"]),
        (
            y.replace("arch: ai85net5", "arhc: ai85net5"),
            vec!["unknown global key", "`arhc`"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 1\n    padd: 1", 1),
            vec!["layer 0", "`padd`", "unknown key"],
        ),
        (
            y.replacen("pad: 2", "pad: 3", 1),
            vec!["layer 1", "`pad`", ">= 3"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 1\n    kernel_size: 5x5", 1),
            vec!["layer 0", "`kernel_size`", "1x1 or 3x3"],
        ),
        (
            y.replacen(
                "processors: 0xfffffffffffffff0",
                "processors: 0xffffffffffffff00",
                1,
            ),
            vec![
                "layer 0",
                "`output_processors`",
                "60 processors",
                "next layer",
            ],
        ),
        (
            y.replacen("activate: ReLU", "activate: Sigmoid", 1),
            vec!["layer 0", "`activate`", "Sigmoid"],
        ),
        (
            y.replacen("max_pool: 2", "max_pool: 17", 1),
            vec!["layer 1", "`max_pool`", "maximum of 16"],
        ),
        (
            y.replacen("op: conv2d", "op: conv3d", 1),
            vec!["layer 0", "conv3d"],
        ),
        (
            y.replace("output_width: 32", "output_width: 16"),
            vec!["layer 4", "`output_width`", "8 or 32"],
        ),
        (
            format!("{y}\n  - processors: 0x1\n    processors: 0x3\n"),
            vec!["duplicate key `processors`"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 1\n    output_shift: 20", 1),
            vec!["layer 0", "`output_shift`", "[-15, +15]"],
        ),
        (
            format!(
                "{y}  - processors: 0x00000000000003ff\n    op: passthrough\n    activate: ReLU\n"
            ),
            vec!["layer 5", "`activate`", "must not use activation"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 0", 1)
                .replacen("op: conv2d", "op: passthrough", 1),
            vec!["layer 4", "conv4.op.weight", "3x3 kernels", "linear"],
        ),
        (
            format!("{y}\n  - processors: 0x1\n    processors: 0x3\n").replacen(
                "  - pad: 1",
                "  - pad: 1\n    pad: 2",
                1,
            ),
            vec!["duplicate key `pad`", ":10:"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 1\n    stride: 2", 1),
            vec!["layer 0", "`stride`"],
        ),
        (
            y.replacen("  - pad: 1", "  - pad: 1\n    in_sequences: [7]", 1),
            vec!["layer 0", "`in_sequences`"],
        ),
        (
            y.replacen("  - max_pool: 2", "  - max_pool: 2\n    streaming: true", 1),
            vec!["layer 1", "`streaming`", "layer 0 does not stream"],
        ),
    ];
    for (i, (text, needles)) in cases.iter().enumerate() {
        assert_ne!(text, &y, "case {i} does not change the description");
        let out = check_yaml(&dir, &format!("bad{i}.yaml"), text);
        assert_eq!(out.status.code(), Some(2), "case {i} was accepted:\n{text}");
        fails(&out, needles);
    }
    // A layer count the checkpoint cannot fill.
    let extra =
        format!("{y}\n  - processors: 0x00000000000003ff\n    op: linear\n    activate: None\n");
    fails(
        &check_yaml(
            &dir,
            "extra.yaml",
            &extra.replace("    output_width: 32\n", ""),
        ),
        &["5 weight tensors", "layer 5"],
    );
    // Without --checkpoint, check validates and prints the layers.
    let p = dir.join("ok.yaml");
    std::fs::write(&p, &y).unwrap();
    let text = ok(&edgelearn(&["cnn", "check", s(&p)]));
    assert!(text.contains("maxpool2x2/2+conv2d 3x3 p2 relu"), "{text}");
}

#[test]
fn bad_weights_and_inputs_are_clear_errors() {
    let dir = tmp("bad-files");
    let [yaml, ck, input] = MNIST.map(data);
    let run = |ck: &Path, input: &Path| cnn_run(&net_args(&yaml, ck, input));
    // Truncated checkpoint and input.
    let bytes = std::fs::read(&ck).unwrap();
    let cut = dir.join("cut.pth.tar");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    fails(&run(&cut, &input), &["cut.pth.tar"]);
    let ibytes = std::fs::read(&input).unwrap();
    let icut = dir.join("cut.npy");
    std::fs::write(&icut, &ibytes[..ibytes.len() - 100]).unwrap();
    fails(&run(&ck, &icut), &["cut.npy"]);
    // Missing files.
    fails(&run(&dir.join("none.pth.tar"), &input), &["none.pth.tar"]);
    fails(&run(&ck, &dir.join("none.npy")), &["none.npy"]);
    // Input values, dtype and shape.
    let big = dir.join("big.npy");
    write_npy(&big, &[1, 28, 28], &[200; 784]);
    fails(&run(&ck, &big), &["outside signed 8 bits"]);
    let flat = dir.join("flat.npy");
    write_npy(&flat, &[784], &[1; 784]);
    fails(&run(&ck, &flat), &["(C, H, W)"]);
    let wrong = dir.join("wrong.npy");
    write_npy(&wrong, &[3, 28, 28], &[1; 3 * 784]);
    fails(
        &run(&ck, &wrong),
        &["layer 0", "input dimensions do not match"],
    );
    // A weight file whose arrays do not fit the layers.
    let w = dir.join("w.npy");
    write_npy(&w, &[1, 2, 1, 3, 3], &[1; 18]);
    fails(&run(&w, &input), &["layer 1", "needs one more"]);
    // Weights wider than the YAML's quantization.
    let q = dir.join("q.yaml");
    std::fs::write(
        &q,
        std::fs::read_to_string(&yaml).unwrap().replacen(
            "  - pad: 1",
            "  - pad: 1\n    quantization: 2",
            1,
        ),
    )
    .unwrap();
    fails(&cnn_run(&net_args(&q, &ck, &input)), &["layer 0", "2-bit"]);
}

/// A small deterministic generator for the fuzz loops.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn fuzzed_descriptions_checkpoints_and_arrays_never_panic() {
    let dev = Device::max78000();
    let yaml = mnist_yaml();
    let ck_bytes = std::fs::read(data(MNIST[1])).unwrap();
    let ck = torch::parse_checkpoint(&ck_bytes, "mnist").unwrap();
    let input = cnn::weights::load_input(&data(MNIST[2])).unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let tokens = [
        "0",
        "1",
        "2",
        "3",
        "-1",
        "64",
        "1024",
        "0x0",
        "0xffffffffffffffff",
        "None",
        "[1, 2]",
        "[]",
        "{}",
        "x",
        "conv1d",
        "convtranspose2d",
        "passthrough",
        "add",
        "true",
        "17",
        "1x1",
        "~",
        "'3x3'",
        "[8, 7]",
        "-129",
    ];
    let mut accepted = 0;
    for i in 0..400 {
        // Mutate the YAML: replace a value, drop or duplicate a line, or flip a character.
        let mut lines: Vec<String> = yaml.lines().map(str::to_string).collect();
        for _ in 0..1 + rng.below(3) {
            let n = rng.below(lines.len());
            match rng.below(4) {
                0 => {
                    if let Some((k, _)) = lines[n].clone().split_once(": ") {
                        lines[n] = format!("{k}: {}", tokens[rng.below(tokens.len())]);
                    }
                }
                1 => {
                    lines.remove(n);
                }
                2 => {
                    let l = lines[n].clone();
                    lines.insert(n, l);
                }
                _ => {
                    let mut b = lines[n].clone().into_bytes();
                    if !b.is_empty() {
                        let k = rng.below(b.len());
                        b[k] = b" :-[]{}x0#\t'"[rng.below(12)];
                    }
                    lines[n] = String::from_utf8_lossy(&b).into_owned();
                }
            }
        }
        let text = lines.join("\n");
        let result = std::panic::catch_unwind(|| {
            let desc = NetworkDesc::parse(&text, "fuzz.yaml", &dev)?;
            let weights = cnn::weights::from_checkpoint(&desc, &ck)?;
            let net = Network {
                desc,
                weights,
                device: dev.clone(),
                infer_max_proc: true,
            };
            let inf = net.infer(&input, &RunOptions::default(), None)?;
            net.kat(&input, &inf)?;
            Ok::<_, cnn::CnnError>(())
        });
        match result {
            Ok(Ok(())) => accepted += 1,
            Ok(Err(e)) => assert!(!e.to_string().is_empty()),
            Err(_) => panic!("variant {i} panicked:\n{text}"),
        }
    }
    assert!(
        accepted > 10,
        "only {accepted} variants ran: the mutations are too harsh"
    );

    // Checkpoints: truncations and byte flips.
    let desc = NetworkDesc::parse(&yaml, "mnist.yaml", &dev).unwrap();
    for i in 0..60 {
        let mut b = ck_bytes.clone();
        if i % 2 == 0 {
            b.truncate(rng.below(b.len()));
        } else {
            for _ in 0..4 {
                let k = rng.below(b.len());
                b[k] = rng.next() as u8;
            }
        }
        let r = std::panic::catch_unwind(|| {
            torch::parse_checkpoint(&b, "fuzz.pth.tar")
                .map_err(cnn::CnnError::from)
                .and_then(|c| cnn::weights::from_checkpoint(&desc, &c))
                .map(|_| ())
        });
        assert!(r.is_ok(), "checkpoint variant {i} panicked");
    }

    // Sample inputs and sample weights: every cut of a small array file.
    let npy = encode_npy_i64(
        &[2, 1, 3, 3],
        &[1, -2, 3, -4, 5, -6, 7, -8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8],
    );
    for len in 0..npy.len() {
        let r = std::panic::catch_unwind(|| {
            if let Ok(arrays) = parse_npy_all(&npy[..len], "cut.npy") {
                for a in &arrays {
                    let _ = cnn::weights::input_from_array(a);
                }
                let _ = cnn::weights::from_sample_arrays(&desc, arrays);
            }
        });
        assert!(r.is_ok(), "npy cut to {len} bytes panicked");
    }
}

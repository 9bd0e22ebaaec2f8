//! Last-layer fine-tuning (issue 16, seed 003): the float mode teaches the ai8x MNIST
//! network a new class, the fixed mode stays within 5 points of it, the engine RTL and the
//! `cnn_fc_update` RTL give the golden run bit for bit, the kernel-memory codec is an exact
//! inverse, and the fine-tuned weights come out as a state dict `cnn run` reads.

use crate::common;

use common::cli::{argv, data, edgelearn, read_json, run_ok, s, tmp};
use edgelearn_verif::cnn::ops::Kernels;
use edgelearn_verif::cnn::{engine, finetune, weights, Device, Network, RunOptions};
use edgelearn_verif::datasets::mnist;
use proptest::prelude::*;
use serde_json::Value;
use std::path::Path;

fn mnist_net() -> Network {
    Network::load(
        &data("ai8x/mnist-chw-ai85.yaml"),
        &data("ai8x/ai85-mnist-qat8-q.pth.tar"),
        None,
        Device::max78000(),
    )
    .unwrap()
}

/// `cnn finetune` of the ai8x MNIST network from its checkpoint on the vendored MNIST data.
const FINETUNE_MNIST: &str = "cnn finetune --network data/ai8x/mnist-chw-ai85.yaml \
    --checkpoint data/ai8x/ai85-mnist-qat8-q.pth.tar --data data/mnist-10k";

/// `cnn finetune` on the golden backend with the settings but fewer original test
/// images; returns the report.
fn finetune_golden(dir: &Path, name: &str, extra: &[&str]) -> Value {
    let rep = dir.join(format!("{name}.json"));
    let line = format!(
        "{FINETUNE_MNIST} --new-class 0 --new-data mirrored9 --epochs 20 --original-images 400"
    );
    let mut args = argv(&line, &["--report", s(&rep)]);
    args.extend_from_slice(extra);
    run_ok(&args);
    read_json(&rep)
}

#[test]
fn float_mode_learns_the_new_class_and_reports_forgetting_and_the_fixed_mode_follows() {
    let dir = tmp("float");
    let out = dir.join("tuned.npz");
    let png = dir.join("tuned.png");
    let f = finetune_golden(
        &dir,
        "float",
        &["--lr", "0.5", "--out", s(&out), "--plot", s(&png)],
    );
    let epochs = f["epochs"].as_array().unwrap();
    assert_eq!(epochs.len(), 21, "epoch 0 and 20 epochs");
    // Before: the mirrored 9s are not class 0; after: >= 90 % top-1 within 20 epochs.
    assert!(epochs[0]["new_top1"].as_f64().unwrap() < 0.5);
    let reach = f["first_epoch_top1_90"].as_u64().expect("reaches 90 %");
    assert!(reach <= 20);
    let last = &epochs[20];
    assert!(last["new_top1"].as_f64().unwrap() >= 0.9);
    assert!(last["p_new"].as_f64().unwrap() > epochs[0]["p_new"].as_f64().unwrap());
    assert!(last["p_displaced"].as_f64().unwrap() < epochs[0]["p_displaced"].as_f64().unwrap());
    // Forgetting is measured on the classes that keep their meaning.
    let orig0 = epochs[0]["original_accuracy"].as_f64().unwrap();
    let orig = last["original_accuracy"].as_f64().unwrap();
    assert!(
        orig0 > 0.97 && orig > 0.5 && orig <= orig0,
        "{orig0} -> {orig}"
    );
    assert_eq!(f["updates"].as_u64(), Some(400));
    assert_eq!(f["codec_round_trips"].as_u64(), Some(400));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));

    // The weights: a state dict `cnn run` reads, and the known-answer pair.
    let sample = dir.join("tuned.sample.npy");
    let expected = read_json(&dir.join("tuned.expected.json"));
    let got_p = dir.join("run.json");
    run_ok(&argv(
        "cnn run --network data/ai8x/mnist-chw-ai85.yaml --checkpoint",
        &[s(&out), "--input", s(&sample), "--output", s(&got_p)],
    ));
    let got = read_json(&got_p);
    assert_eq!(got["output"], expected["output"]);
    let logits: Vec<i64> = got["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let top = (0..logits.len()).max_by_key(|&i| logits[i]).unwrap();
    assert_eq!(top, 0, "the tuned network calls a mirrored 9 class 0");

    // The fixed mode (integers only, lr 2^-1) within 5 points of the float mode.
    let x = finetune_golden(
        &dir,
        "fixed",
        &[
            "--arith",
            "fixed",
            "--lr",
            "0.5",
            "--rounding",
            "stochastic",
        ],
    );
    let fx = x["epochs"][20]["new_top1"].as_f64().unwrap();
    let fl = last["new_top1"].as_f64().unwrap();
    assert!(fx >= fl - 0.05, "fixed {fx} vs float {fl}");
    assert_eq!(x["arith"], "fixed");
    assert!(x["update"]["cycles"].as_u64().unwrap() > 1920);

    // Nothing the user gave is overwritten.
    let again = edgelearn(&argv(
        &format!("{FINETUNE_MNIST} --new-class 0 --report"),
        &[s(&dir.join("float.json"))],
    ));
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
}

#[test]
fn bad_settings_are_named() {
    let dir = tmp("bad");
    let rep = dir.join("r.json");
    let base = |extra: &[&str]| {
        let mut a: Vec<&str> = vec!["cnn", "finetune", "--report", s(&rep)];
        for (k, v) in [
            ("--network", "data/ai8x/mnist-chw-ai85.yaml"),
            ("--checkpoint", "data/ai8x/ai85-mnist-qat8-q.pth.tar"),
            ("--data", "data/mnist-10k"),
        ] {
            if !extra.contains(&k) {
                a.extend([k, v]);
            }
        }
        a.extend_from_slice(extra);
        let out = edgelearn(&a);
        assert!(!out.status.success(), "{extra:?} should fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = base(&["--new-class", "0", "--arith", "fixed", "--lr", "0.3"]);
    assert!(e.contains("--lr 0.3") && e.contains("2^-k"), "{e}");
    let e = base(&["--new-class", "10"]);
    assert!(
        e.contains("--new-class 10") && e.contains("10 outputs"),
        "{e}"
    );
    let e = base(&["--new-class", "0", "--data", "no/such/dir"]);
    assert!(e.contains("no/such/dir"), "{e}");
    // A network whose last layer gives 8-bit outputs, not the logits.
    let yaml = std::fs::read_to_string(data("ai8x/mnist-chw-ai85.yaml")).unwrap();
    assert!(yaml.contains("    output_width: 32\n"));
    let narrow = dir.join("narrow.yaml");
    std::fs::write(&narrow, yaml.replace("    output_width: 32\n", "")).unwrap();
    let e = base(&["--new-class", "0", "--network", s(&narrow)]);
    assert!(e.contains("layer 4") && e.contains("output_width"), "{e}");
}

/// The state dict written by `--out` reads back to the same integers.
#[test]
fn state_dict_npz_round_trip() {
    let net = mnist_net();
    let bytes = weights::state_dict_npz(&net.desc, &net.weights);
    let dir = tmp("npz");
    let p = dir.join("w.npz");
    std::fs::write(&p, &bytes).unwrap();
    let back = weights::load(&net.desc, &p, None).unwrap();
    for (a, b) in net.weights.layers.iter().zip(&back.layers) {
        let (a, b) = (a.as_ref().unwrap(), b.as_ref().unwrap());
        assert_eq!(
            (&a.kernels, &a.bias, a.bits, a.shift),
            (&b.kernels, &b.bias, b.bits, b.shift)
        );
    }
}

fn mnist_image(net: &Network) -> (edgelearn_verif::cnn::Inference, engine::EngineImage) {
    let input = edgelearn_verif::cnn::weights::load_input(&data("ai8x/sample_mnist.npy")).unwrap();
    let inf = net.infer(&input, &RunOptions::default(), None).unwrap();
    let img = finetune::engine_image(net, &inf, &input).unwrap();
    (inf, img)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Encode and decode of the kernel-memory layout are exact inverses, for the last
    /// layer and a convolution, with every 8-bit value including -128 and 127; encoding
    /// what was decoded gives the same words.
    #[test]
    fn kernel_memory_codec_is_an_exact_inverse(seed in any::<u64>(), layer in prop::sample::select(vec![1usize, 3, 4])) {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut net = mnist_net();
        let k0 = net.weights.layers[layer].as_ref().unwrap().kernels.clone();
        let w: Vec<i64> = (0..k0.w.len())
            .map(|i| match i % 97 { 0 => -128, 1 => 127, _ => rng.random_range(-128..=127) })
            .collect();
        net.weights.layers[layer].as_mut().unwrap().kernels.w = w.clone();
        let (_, img) = mnist_image(&net);
        let layout = img.layout(layer).unwrap();
        let k = layout.decode(&img.kernels);
        prop_assert_eq!((k.out_ch, k.in_ch, k.kh, k.kw), (k0.out_ch, k0.in_ch, k0.kh, k0.kw));
        prop_assert_eq!(&k.w, &w);
        // Re-encoding into zeroed columns gives the loader's words. The layer owns its
        // columns in the processors of its map only (others may hold another layer's).
        let mut mem: Vec<Vec<u128>> = img.kernels.iter().enumerate().map(|(q, c)| {
            let mut c = c.clone();
            if layout.processors >> q & 1 == 1 {
                for v in c.iter_mut().skip(layout.start).take(layout.words) { *v = 0; }
            }
            c
        }).collect();
        layout.encode(&Kernels { w: w.clone(), ..k }, &mut mem);
        prop_assert_eq!(&mem, &img.kernels);
    }
}

/// The frozen features of the golden engine are the network's own layer outputs, and its
/// last layer gives the network's 32-bit output.
#[test]
fn the_golden_engine_is_the_network() {
    let net = mnist_net();
    let (inf, _) = mnist_image(&net);
    let mut g = finetune::GoldenEngine::new(&net, &inf).unwrap();
    let input = edgelearn_verif::cnn::weights::load_input(&data("ai8x/sample_mnist.npy")).unwrap();
    use finetune::Engine;
    let x = g.features(&input).unwrap();
    assert_eq!(x.len(), 192);
    assert_eq!(g.last_layer(&x).unwrap(), inf.output().data);
}

/// Mirrored 9s from the vendored MNIST: 20 and 10 of them, as in the seed.
#[test]
fn the_new_class_is_mirrored_nines() {
    let ds = mnist::load(&data("mnist-10k")).unwrap();
    let d = finetune::Data::from_mnist(&ds.train, &ds.test, 0, 20, 10, 0).unwrap();
    assert_eq!((d.train.len(), d.test.len()), (20, 10));
    for s in &d.train {
        assert_eq!(ds.train.labels[s.index], 9);
        let px = ds.train.image(s.index);
        assert_eq!(
            s.input.at(0, 3, 0),
            finetune::mnist_input(&px[3 * 28 + 27..3 * 28 + 28], 1, 1).data[0]
        );
    }
}

/// `--backend verilator`: the engine RTL runs the frozen layers and every forward pass of
/// the last layer, the `cnn_fc_update` RTL every update; the figures and the weights equal
/// the golden run's bit for bit.
#[test]
fn rtl_backends_equal_the_golden_run() {
    let dir = tmp("rtl");
    let common = |backend: &str, name: &str| {
        let rep = dir.join(format!("{name}.json"));
        let out = dir.join(format!("{name}.npz"));
        let line = format!(
            "{FINETUNE_MNIST} --new-class 4 --epochs 2 --lr 0.25 --arith fixed \
             --rounding stochastic --seed 77 --train-images 5 --test-images 3 \
             --original-images 4 --backend {backend} --report"
        );
        run_ok(&argv(&line, &[s(&rep), "--out", s(&out)]));
        read_json(&rep)
    };
    let g = common("golden", "golden");
    let r = common("verilator", "rtl");
    assert_eq!(g["weights_sha256"], r["weights_sha256"]);
    assert_eq!(g["epochs"], r["epochs"]);
    assert!(r["engine"].as_str().unwrap().contains("RTL"));
    assert!(r["updater"].as_str().unwrap().contains("RTL"));
    assert!(g["epochs"][2]["mean_weight_change"].as_f64().unwrap() > 0.0);
}

/// The engine RTL's last-layer pass is checked against the golden layer with the weights
/// written: a kernel word corrupted inside the engine is named.
#[test]
fn a_corrupted_kernel_word_in_the_engine_is_caught() {
    use edgelearn_sim::dut::DutOptions;
    use edgelearn_sim::Backend;
    use edgelearn_verif::cnn::finetune::Engine;
    use edgelearn_verif::rtl::cnn::CnnBench;
    use edgelearn_verif::rtl::finetune::RtlEngine;
    let net = mnist_net();
    let (inf, img) = mnist_image(&net);
    let dut = common::simulator()
        .dut(
            Backend::Verilator,
            edgelearn_verif::rtl::designs::engine_design(&img.shape),
            &DutOptions::default(),
        )
        .unwrap();
    let mut e = RtlEngine::new(CnnBench::new(dut, img.shape).unwrap(), &net, &inf, &img).unwrap();
    let input = edgelearn_verif::cnn::weights::load_input(&data("ai8x/sample_mnist.npy")).unwrap();
    let x = e.features(&input).unwrap();
    let layout = img.layout(4).unwrap().clone();
    let bias = net.weights.layers[4]
        .as_ref()
        .unwrap()
        .bias
        .clone()
        .unwrap();
    e.write_last_layer(&layout, &img.kernels, &bias).unwrap();
    assert_eq!(e.last_layer(&x).unwrap(), inf.output().data);
    // One weight flipped behind the bench's back: output 0's weight on the first feature
    // that is not zero (channel r = processor r, pixel 9 k + t: column start + 10 k, field t).
    let i = x.iter().position(|&v| v != 0).unwrap();
    let (r, pix) = (i / 16, i % 16);
    let col = layout.start + 10 * (pix / 9);
    let bit = 8 * (pix % 9);
    let word = img.kernels[r][col] ^ (0x40u128 << bit);
    for part in 0..3 {
        e.bench()
            .write(
                edgelearn_hdl::cnn::host::kernel(r, col, part),
                (word >> (32 * part)) as u32,
            )
            .unwrap();
    }
    let err = e.last_layer(&x).unwrap_err().to_string();
    assert!(
        err.contains("forward pass 2")
            && err.contains("output 0")
            && err.contains("golden layer gives"),
        "{err}"
    );
}

//! The CNN engine in RTL (issue 15): the ai8x networks and layer tests at hand on the
//! engine (Verilator, in-process), every layer's data-memory words compared with the golden
//! model the moment the layer ends; the host port; Icarus's four states; the command line.

use crate::common;
use common::cli::{argv, data, read_json, run_exit, s, tmp};

use common::{kat_cases, replay_equal, simulator, KatCase};
use edgelearn_hdl::cnn::{host, EngineShape};
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::Backend;
use edgelearn_verif::cnn::{self, engine, Device, Network, RunOptions};
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, Load, SimReport};
use std::path::Path;

/// A network, its input and its golden inference.
struct Case {
    net: Network,
    input: cnn::Tensor,
    inf: cnn::Inference,
    opts: RunOptions,
}

impl Case {
    /// The engine image of this case (the loader's work) for an engine of `shape`.
    fn image(&self, shape: &EngineShape) -> cnn::Result<engine::EngineImage> {
        engine::build(
            &self.net.desc,
            &self.net.weights,
            &self.inf.plan,
            &self.input,
            &self.opts,
            shape,
        )
    }
}

/// A case on `dev` (the MAX78000, or with a kat case's `--overlap-data`).
fn case(
    yaml: &Path,
    weights: &Path,
    bias: Option<&Path>,
    input: &Path,
    opts: RunOptions,
    stop: Option<usize>,
    dev: Device,
) -> Case {
    let mut net = Network::load(yaml, weights, bias, dev).unwrap();
    net.infer_max_proc = true;
    let input = cnn::weights::load_input(input).unwrap();
    let inf = net.infer(&input, &opts, stop).unwrap();
    Case {
        net,
        input,
        inf,
        opts,
    }
}

/// A vendored ai8x layer test as a case.
fn kat_case(k: &KatCase) -> Case {
    case(
        &k.yaml,
        &k.weights,
        k.bias.as_deref(),
        &k.input,
        k.opts.clone(),
        k.stop,
        k.device.clone(),
    )
}

/// An ai8x network from its checkpoint, on its sample input, with the default options.
fn ai8x_network(yaml: &str, checkpoint: &str, sample: &str) -> Case {
    let (y, w, i) = (data(yaml), data(checkpoint), data(sample));
    case(
        &y,
        &w,
        None,
        &i,
        RunOptions::default(),
        None,
        Device::max78000(),
    )
}

fn mnist() -> Case {
    ai8x_network(
        "ai8x/mnist-chw-ai85.yaml",
        "ai8x/ai85-mnist-qat8-q.pth.tar",
        "ai8x/sample_mnist.npy",
    )
}

fn cifar10() -> Case {
    ai8x_network(
        "ai8x/cifar10-hwc-ai85.yaml",
        "ai8x-kat/checkpoints/ai85-cifar10-qat8-q.pth.tar",
        "ai8x/sample_cifar-10.npy",
    )
}

fn bench(shape: EngineShape) -> CnnBench {
    let dut = simulator()
        .dut(
            Backend::Verilator,
            edgelearn_verif::rtl::designs::engine_design(&shape),
            &DutOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    CnnBench::new(dut, shape).unwrap()
}

/// Runs `c` on a fresh engine: Err("not supported: ...") if the loader refuses it, the
/// first mismatch otherwise.
fn run(c: &Case, shape: EngineShape, how: Load) -> Result<SimReport, String> {
    let img = c.image(&shape).map_err(|e| format!("not supported: {e}"))?;
    // The plan's kernel words (what `cnn check` shows) are the loader's allocation.
    for a in &img.allocs {
        if c.net.weights.layers[a.layer].is_some()
            && c.net.desc.layers[a.layer].op != cnn::desc::Op::Passthrough
        {
            assert_eq!(
                a.words,
                c.inf.plan.layer(a.layer).kernel_words,
                "layer {}",
                a.layer
            );
        }
    }
    let mut b = bench(shape);
    let rep = simulate(&mut b, &c.net, &c.inf, &img, how).map_err(|e| e.to_string())?;
    if let Some(d) = rep.first_mismatch() {
        return Err(format!("mismatch: {d}"));
    }
    assert_eq!(&rep.output, c.inf.output(), "unloaded output");
    for (l, r) in rep.layers.iter().zip(&img.layers) {
        assert_eq!(
            l.cycles,
            engine::layer_cycles(r),
            "layer {}: cycles",
            l.layer
        );
    }
    Ok(rep)
}

/// A vendored case's outcome: its name, izer's latency estimate and the run.
struct Outcome {
    case: String,
    izer: u64,
    result: Result<SimReport, String>,
}

/// Every vendored ai8x network and layer test (INDEX.tsv).
fn every_case(shape: EngineShape) -> Vec<Outcome> {
    kat_cases()
        .iter()
        .map(|k| {
            let c = kat_case(k);
            Outcome {
                case: k.name.clone(),
                izer: cnn::latency::total_cycles(&c.net.desc, &c.inf.plan),
                result: run(&c, shape, Load::Backdoor),
            }
        })
        .collect()
}

#[test]
fn mnist_and_cifar10_are_bit_exact_on_every_layer() {
    for (name, c) in [("mnist", mnist()), ("cifar10", cifar10())] {
        let rep = run(&c, EngineShape::MAX78000, Load::Backdoor)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rep.layers.len(), 5);
        for l in &rep.layers {
            assert!(l.words > 0 && l.cycles > 0, "{name}: {l:?}");
            assert_eq!(&l.output, c.inf.result.outputs[l.layer].as_ref().unwrap());
        }
        assert_eq!(rep.cycles, rep.layers.iter().map(|l| l.cycles).sum::<u64>());
        println!("{name}: {} cycles", rep.cycles);
    }
}

/// Every case of `ai8x-kat` with weights at hand, the five streaming networks among them
/// (their input over the FIFOs' stream), bit-exact on every layer.
#[test]
fn every_vendored_layer_test_is_bit_exact() {
    let results = every_case(EngineShape::MAX78000);
    assert_eq!(results.len(), 74);
    for Outcome { case, izer, result } in &results {
        match result {
            Ok(rep) => println!("| {case} | bit-exact | {} | {izer} |", rep.cycles),
            Err(e) => panic!("{case}: {e}"),
        }
    }
}

/// Every layer of every case the engine runs that takes more cycles than izer's estimate
/// has its reason (docs/cnn-engine-rtl.md "Cycles against izer's estimate"): the engine's
/// per-layer overhead, the MAC waiting for windows the gather re-reads (no line buffer), the
/// MAC's start cycle per iteration, or a passthrough run on identity kernels. The engine's cycles are the cycle model's, which the
/// RTL runs equal (`run`).
#[test]
fn every_layer_above_izers_estimate_has_its_reason() {
    use engine::Excess;
    let shape = EngineShape::MAX78000;
    let (mut under, mut overhead, mut gather, mut starts, mut identity_n) = (0, 0, 0, 0, 0);
    let mut sliced = 0;
    for k in kat_cases() {
        let c = kat_case(&k);
        let img = c.image(&shape).unwrap();
        for r in &img.layers {
            let izer = cnn::latency::layer_cycles(&c.net.desc, &c.inf.plan, r.layer);
            let identity = c.net.desc.layers[r.layer].op == cnn::desc::Op::Passthrough;
            match engine::excess(r, izer, identity) {
                None => under += 1,
                Some(Excess::Overhead(_)) => overhead += 1,
                Some(Excess::Gather { .. }) => gather += 1,
                Some(Excess::Starts { .. }) => starts += 1,
                Some(Excess::Identity { .. }) => identity_n += 1,
                Some(Excess::Slices { .. }) => sliced += 1,
                Some(x @ Excess::Unexplained(_)) => {
                    panic!("{} layer {}: {x} (izer {izer})", k.name, r.layer)
                }
            }
        }
    }
    println!(
        "layers at or under izer's estimate {under}, above by the overhead {overhead}, \
         waiting for windows {gather}, by MAC start cycles {starts}, passthroughs on \
         identity kernels {identity_n}, streamed in one-row slices {sliced}"
    );
    assert!(under > 0 && overhead > 0 && gather > 0);
    // MNIST layer 3 (12 channels behind a 2x2 average pool): 291 cycles against 332 since
    // its windows slide (D-CNN-SLIDE; 470 before).
    let c = mnist();
    let img = c.image(&shape).unwrap();
    let izer = cnn::latency::layer_cycles(&c.net.desc, &c.inf.plan, 3);
    assert_eq!(izer, 332);
    assert_eq!(engine::layer_cycles(&img.layers[3]), 291);
    assert_eq!(engine::excess(&img.layers[3], izer, false), None);
}

#[test]
fn sixteen_processors_run_every_test_that_fits_them() {
    let results = every_case(EngineShape::with_processors(16));
    let mut exact = 0;
    for Outcome { case, result, .. } in &results {
        match result {
            Ok(_) => exact += 1,
            Err(e) if e.contains("the engine has 16") => {}
            Err(e) => panic!("{case}: {e}"),
        }
    }
    println!("{exact} of {} bit-exact on 16 processors", results.len());
    assert_eq!(exact, 28);
}

#[test]
fn a_wrong_kernel_word_is_found_and_named() {
    let c = mnist();
    let shape = EngineShape::MAX78000;
    let mut img = c.image(&shape).unwrap();
    // Layer 2's first kernel column (output channel 0) set to +127 in every processor.
    let col = img.allocs[2].start;
    for k in img.kernels.iter_mut() {
        k[col] = (1u128 << 72) / 255 * 0x7f;
    }
    let mut b = bench(shape);
    let rep = simulate(&mut b, &c.net, &c.inf, &img, Load::Backdoor).unwrap();
    assert!(rep.layers[0].mismatch.is_none() && rep.layers[1].mismatch.is_none());
    let d = rep.first_mismatch().expect("a mismatch");
    let text = d.to_string();
    assert!(
        text.contains("layer 2") && text.contains("data memory") && text.contains("expected"),
        "{text}"
    );
}

/// A small layer test that fits four processors and fills whole output words.
fn small_case() -> Case {
    let kat = data("ai8x-kat/t-conv1d");
    case(
        &kat.join("test-ai85-conv1d.yaml"),
        &kat.join("weights_source.npy"),
        None,
        &kat.join("input.npy"),
        RunOptions::default(),
        None,
        Device::max78000(),
    )
}

#[test]
fn front_door_load_and_host_read_back() {
    let c = small_case();
    let shape = EngineShape::with_processors(16);
    let front = run(&c, shape, Load::FrontDoor).unwrap();
    let back = run(&c, shape, Load::Backdoor).unwrap();
    assert_eq!(front.output, back.output);
    assert_eq!(front.cycles, back.cycles);
    // Registers and memories read back through the host port equal the backdoor's view.
    let img = c.image(&shape).unwrap();
    let mut b = bench(shape);
    b.load(&img, Load::FrontDoor).unwrap();
    assert_eq!(b.read(host::PROCESSORS).unwrap(), 16);
    assert_eq!(b.read(host::KERNEL_WORDS).unwrap(), 768);
    for (k, &w) in img.layers[0].encode().iter().enumerate() {
        assert_eq!(b.read(host::LAYER_REGS + k as u32).unwrap(), w);
    }
    let k0 = img.kernels[0][0];
    let parts: Vec<u128> = (0..3)
        .map(|i| b.read(host::kernel(0, 0, i)).unwrap() as u128)
        .collect();
    assert_eq!(parts[0] | parts[1] << 32 | parts[2] << 64, k0);
    // The whole configuration reads back; a word changed behind the host's back is named.
    b.verify_load(&img).unwrap();
    let w = img.kernels[3][2] ^ (1 << 70);
    b.dut()
        .load_mem(
            &edgelearn_hdl::cnn::memories::kernel(3),
            2,
            &[w as u64, (w >> 64) as u64],
        )
        .unwrap();
    let e = b.verify_load(&img).unwrap_err().to_string();
    assert!(
        e.contains("processor 3 kernel word 2 part 2") && e.contains("expected"),
        "{e}"
    );
    b.load(&img, Load::FrontDoor).unwrap();
    let n = b.run(img.layers.len(), 1_000_000, |_, _| Ok(())).unwrap();
    assert_eq!(n, back.cycles);
    let mem = b.data_memories().unwrap();
    for (inst, m) in mem.iter().enumerate() {
        for word in [0usize, 1, 0x400, 0x401] {
            assert_eq!(
                b.read_data(inst, word).unwrap(),
                m[word],
                "instance {inst} word {word}"
            );
        }
    }
}

/// The layer-register file bit-bashed through the host port, as a register test suite
/// does (UVM's bit-bash and aliasing sequences): every bit of every word of every layer holds
/// a 1 among 0s and a 0 among 1s, and no address aliases another (each pass writes all 512
/// words with the bit at a different place per address before reading any back). A stuck
/// bit or a decode that folds two addresses is named with the layer, the word and both
/// values. A network loaded afterwards still runs bit-exactly in the same cycles.
#[test]
fn every_layer_register_bit_holds_both_values_and_no_address_aliases() {
    let shape = EngineShape::with_processors(16);
    // The reference run first: one engine model at a time per process.
    let c = small_case();
    let img = c.image(&shape).unwrap();
    let want = run(&c, shape, Load::Backdoor).unwrap();
    let mut b = bench(shape);
    let words = (edgelearn_hdl::cnn::MAX_LAYERS * edgelearn_hdl::cnn::LAYER_WORDS) as u32;
    assert_eq!(words, edgelearn_hdl::cnn::engine::regs::LAYER_REGS_SIZE);
    for invert in [false, true] {
        for pass in 0..32u32 {
            let value = |a: u32| {
                let one = 1u32 << ((pass + a) % 32);
                if invert {
                    !one
                } else {
                    one
                }
            };
            for a in 0..words {
                b.write(host::LAYER_REGS + a, value(a)).unwrap();
            }
            for a in 0..words {
                let got = b.read(host::LAYER_REGS + a).unwrap();
                assert_eq!(
                    got,
                    value(a),
                    "layer {} word {}: wrote 0x{:08x}, read 0x{got:08x}",
                    a / 16,
                    a % 16,
                    value(a)
                );
            }
        }
    }
    let got = simulate(&mut b, &c.net, &c.inf, &img, Load::FrontDoor).unwrap();
    assert!(got.first_mismatch().is_none(), "{:?}", got.first_mismatch());
    assert_eq!((got.cycles, &got.output), (want.cycles, &want.output));
}

/// The same run, recorded on Verilator, replayed on Icarus: no output is ever X or Z
/// after reset, and every cycle agrees.
#[test]
fn icarus_replay_of_a_front_door_run_agrees_in_four_states() {
    let c = small_case();
    let shape = EngineShape::with_processors(8);
    let img = c.image(&shape).unwrap_or_else(|e| panic!("{e}"));
    replay_equal(
        || edgelearn_verif::rtl::designs::engine_design(&shape),
        Backend::Icarus,
        |dut: Box<dyn Dut>| {
            let mut b = CnnBench::new(dut, shape).unwrap();
            // The host clears the output words first (the bytes the engine does not write
            // are otherwise unknown to a four-state simulator, as in silicon).
            let ll = c.inf.plan.final_layer;
            let checks = cnn::memory::output_checks(
                &c.net.desc.layers[ll],
                c.inf.plan.layer(ll),
                c.inf.output(),
                &c.inf.plan.device,
            );
            let words: Vec<(usize, usize)> = checks
                .iter()
                .map(|k| engine::data_location(&shape, k.address).unwrap())
                .collect();
            for &(i, w) in &words {
                b.write(host::data(i, w), 0).unwrap();
            }
            let rep = simulate(&mut b, &c.net, &c.inf, &img, Load::FrontDoor).unwrap();
            assert!(rep.first_mismatch().is_none());
            assert_eq!(&rep.output, c.inf.output());
            // Read the output back through the host port (recorded, so compared).
            for (k, &(i, w)) in checks.iter().zip(&words) {
                assert_eq!(b.read_data(i, w).unwrap() & k.mask, k.value);
            }
        },
    );
}

// ---------------------------------------------------------------- command line

/// `edgelearn cnn COMMAND` of the ai8x MNIST network from its checkpoint on its sample,
/// then `more`, which must end with exit code `code`: its standard output and standard error.
fn cnn_mnist(command: &str, more: &[&str], code: i32) -> (String, String) {
    let y = data("ai8x/mnist-chw-ai85.yaml");
    let w = data("ai8x/ai85-mnist-qat8-q.pth.tar");
    let i = data("ai8x/sample_mnist.npy");
    let net = ["--network", s(&y), "--checkpoint", s(&w), "--input", s(&i)];
    run_exit(&[&["cnn", command], &net[..], more].concat(), code)
}

/// A layer above izer's estimate gets its reason under it and in the JSON: t-nonsquare-pool's
/// convolution behind a 2x2 max pool of stride 1 waits for windows (each sliding iteration
/// still reads 3 taps x 4 pooled pixels; izer's line buffer reads each pixel once).
#[test]
fn cli_sim_names_why_a_layer_is_above_izers_estimate() {
    let kat = data("ai8x-kat/t-nonsquare-pool");
    let out = tmp("cli-above").join("sim.json");
    let (_, err) = run_exit(
        &[
            "cnn",
            "sim",
            "--network",
            s(&kat.join("test-nonsquare-pool.yaml")),
            "--weights",
            s(&kat.join("weights_source.npy")),
            "--input",
            s(&kat.join("input.npy")),
            "--output",
            s(&out),
        ],
        0,
    );
    let l0 = &read_json(&out)["layer_cycles"][0];
    assert_eq!(
        (l0["cycles"].as_u64(), l0["izer_estimate"].as_u64()),
        (Some(798), Some(588))
    );
    let why = "+210: the MAC waited 544 cycles for windows (no line buffer)";
    assert!(l0["above_izer"].as_str().unwrap().contains(why), "{l0}");
    assert!(
        err.contains(&format!("above izer's estimate {why}")),
        "{err}"
    );
}

#[test]
fn cli_sim_prints_what_cnn_run_prints() {
    let (run, _) = cnn_mnist("run", &[], 0);
    let dir = tmp("cli");
    let out = dir.join("sim.json");
    let log = dir.join("layers");
    let (_, err) = cnn_mnist(
        "sim",
        &["--output", s(&out), "--log-intermediate", s(&log)],
        0,
    );
    assert!(
        err.contains("cycles per inference") && err.contains("equal to the golden model"),
        "{err}"
    );
    let a: serde_json::Value = serde_json::from_str(&run).unwrap();
    let b = read_json(&out);
    for k in ["output_shape", "output", "wide", "layer"] {
        assert_eq!(a[k], b[k], "{k}");
    }
    assert_eq!(b["bit_exact"], true);
    // Per layer: the cycles and izer's estimate. MNIST layer 3 (12 channels behind a 2x2
    // average pool) slides its windows (D-CNN-SLIDE): 291 cycles against izer's 332 (470
    // when it re-read every window); no MNIST layer is above izer's estimate.
    let l3 = &b["layer_cycles"][3];
    assert_eq!(
        (l3["cycles"].as_u64(), l3["izer_estimate"].as_u64()),
        (Some(291), Some(332))
    );
    assert!(l3["above_izer"].is_null());
    assert!(!err.contains("above izer's estimate"), "{err}");
    assert!(b["layer_cycles"][0]["above_izer"].is_null());
    // The engine's layers, as files, equal the model's (`cnn run --log-intermediate`).
    let glog = dir.join("golden");
    cnn_mnist("run", &["--log-intermediate", s(&glog)], 0);
    for l in 0..5 {
        for ext in ["npy", "mem"] {
            let f = format!("layer{l:02}.{ext}");
            assert_eq!(
                std::fs::read(log.join(&f)).unwrap(),
                std::fs::read(glog.join(&f)).unwrap(),
                "{f}"
            );
        }
    }
    // Nothing is overwritten without --force.
    cnn_mnist("sim", &["--output", s(&out)], 2);
}

#[test]
fn cli_load_writes_the_images_and_refuses_what_the_engine_cannot_run() {
    let dir = tmp("load");
    cnn_mnist("load", &["--out", s(&dir)], 0);
    let files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for f in [
        "layers.hex",
        "bias.hex",
        "image.json",
        "kernel_p00.hex",
        "kernel_p63.hex",
        "data_00.hex",
    ] {
        assert!(files.iter().any(|x| x == f), "{f} in {files:?}");
    }
    let layers = std::fs::read_to_string(dir.join("layers.hex")).unwrap();
    assert_eq!(
        layers.lines().filter(|l| !l.starts_with("//")).count(),
        5 * 16
    );
    let json = read_json(&dir.join("image.json"));
    // Layer 1 shares no processor with layer 0 (processor 0 alone): its kernels start at
    // column 0 too (the first column free in every processor of its map).
    assert_eq!(json["layers"][0]["kernel_start"], 0);
    assert_eq!(json["layers"][1]["kernel_start"], 0);
    // MNIST needs 60 processors; 12 is not a shape the engine is built in.
    let load_on = |p: &str| {
        let out = dir.join(format!("p{p}"));
        cnn_mnist("load", &["--out", s(&out), "--processors", p], 2).1
    };
    let e = load_on("16");
    assert!(
        e.contains("layer 0") && e.contains("output_processors") && e.contains("16"),
        "{e}"
    );
    let e = load_on("12");
    assert!(e.contains("--processors"), "{e}");
    // A re-view the data memory cannot give (only --legacy-test reads it as the silicon
    // does): layer and key named.
    let kat = data("ai8x-kat/t-multilayer-eltwise");
    let refused = |sim: &str, yaml: &Path| {
        run_exit(
            &argv(
                sim,
                &[
                    s(yaml),
                    "--checkpoint",
                    s(&kat.join("weights_source.npy")),
                    "--input",
                    s(&kat.join("input.npy")),
                ],
            ),
            2,
        )
        .1
    };
    let yaml = kat.join("test-multilayer-eltwise.yaml");
    let t = refused("cnn sim --network", &yaml);
    assert!(
        t.contains("layer 1") && t.contains("`in_dim`") && t.contains("--legacy-test"),
        "{t}"
    );
    // Under --legacy-test, a source written with a gap does not interleave its columns.
    let gapped = dir.join("gapped.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let text = text.replacen(
        "    activate: None",
        "    activate: None\n    write_gap: 1",
        1,
    );
    std::fs::write(&gapped, text).unwrap();
    let t = refused("cnn sim --legacy-test --network", &gapped);
    assert!(
        t.contains("layer 1") && t.contains("`in_sequences`") && t.contains("gap"),
        "{t}"
    );
    // Existing files are kept.
    cnn_mnist("load", &["--out", s(&dir)], 2);
}

/// The residual pattern (spec §2.11): two passthrough layers write the input interleaved
/// (`write_gap: 1`, offsets 4 bytes apart) and a third adds them; bit-exact. Moved by one
/// word, the second operand is not where the engine (and the silicon) reads it, and the
/// loader says so instead of running into a difference.
#[test]
fn an_element_wise_layer_reads_its_operands_interleaved_or_is_refused() {
    let dir = tmp("residual");
    let good = "arch: test\ndataset: test_layers\nlayers:\n\
        - {pad: 0, out_offset: 0x2000, processors: 0x7, data_format: HWC, operation: none, write_gap: 1}\n\
        - {pad: 0, in_offset: 0, in_sequences: [-1], out_offset: 0x2004, processors: 0x7, operation: none, write_gap: 1}\n\
        - {in_offset: 0x2000, in_sequences: [0, 1], processors: 0x7, operation: none, eltwise: add, operands: 2, out_offset: 0x1000}\n";
    let kat = data("ai8x-kat/t-passthrough");
    let sim = |name: &str, yaml: &str, code: i32| {
        let path = dir.join(name);
        std::fs::write(&path, yaml).unwrap();
        let out = dir.join(format!("{name}.json"));
        run_exit(
            &argv(
                "cnn sim --network",
                &[
                    s(&path),
                    "--checkpoint",
                    s(&kat.join("weights_source.npy")),
                    "--input",
                    s(&kat.join("input.npy")),
                    "--output",
                    s(&out),
                ],
            ),
            code,
        )
        .1
    };
    let t = sim("good.yaml", good, 0);
    assert!(t.matches("equal to the golden model").count() == 3, "{t}");
    let t = sim("bad.yaml", &good.replace("0x2004", "0x2008"), 2);
    assert!(
        t.contains("layer 2")
            && t.contains("`in_sequences`")
            && t.contains("operand 1 is layer 1, which writes at 0x2008"),
        "{t}"
    );
    let t = sim("gap.yaml", &good.replacen(", write_gap: 1}", "}", 1), 2);
    assert!(
        t.contains("operand 0 is layer 0") && t.contains("write_gap 0"),
        "{t}"
    );
}

/// A streaming network (izer's FIFO-streamed CIFAR test) with its input over the FIFOs'
/// stream: bit-exact whether the beats come back to back or with gaps; every layer's cycles
/// are the model's (a streaming layer's are its slices'), the run's grow with the gaps (the
/// schedule waits for the rows); STREAM and the schedule read back through the host port.
#[test]
fn a_streaming_network_runs_as_its_input_arrives() {
    use edgelearn_verif::rtl::cnn::FifoFeed;
    let k = kat_cases()
        .into_iter()
        .find(|k| k.name == "t-fifostream-cifar-hwc")
        .unwrap();
    let c = kat_case(&k);
    let shape = EngineShape::MAX78000;
    let img = c.image(&shape).unwrap();
    let st = img.stream.as_ref().expect("a streaming image");
    assert_eq!(
        (st.layers, st.fifos, st.schedule.len(), st.beats.len()),
        (4, 1, 32 + 16 + 8 + 4, 32 * 32)
    );
    assert!(
        img.data.is_empty(),
        "the input streams, nothing is preloaded"
    );
    let mut b = bench(shape);
    let mut reps = Vec::new();
    for gap in [0.0, 0.7] {
        b.set_feed(FifoFeed { gap, seed: 3 });
        let rep = simulate(&mut b, &c.net, &c.inf, &img, Load::Backdoor).unwrap();
        assert!(
            rep.first_mismatch().is_none(),
            "gap {gap}: {:?}",
            rep.first_mismatch()
        );
        assert_eq!(&rep.output, c.inf.output());
        for (l, r) in rep.layers.iter().zip(&img.layers) {
            assert_eq!(
                l.cycles,
                engine::layer_cycles(r),
                "gap {gap}, layer {}",
                l.layer
            );
            assert!(l.words > 0, "gap {gap}, layer {}", l.layer);
        }
        reps.push(rep);
    }
    let (fast, slow) = (&reps[0], &reps[1]);
    assert!(slow.input_done > fast.input_done && slow.cycles > fast.cycles);
    println!(
        "back to back: {} cycles, input in by {:?}; gaps 0.7: {} cycles, input in by {:?}",
        fast.cycles, fast.input_done, slow.cycles, slow.input_done
    );
}

/// A streaming layout the schedule cannot keep (a layer writing over the rows it still
/// reads) is refused before the run, naming the layer and `out_offset`; `--fifo-gap` on a
/// network that does not stream is an error too.
#[test]
fn a_streaming_layout_that_overwrites_its_input_is_refused() {
    let kat = data("ai8x-kat/t-stream-cifar-hwc");
    let yaml = std::fs::read_to_string(kat.join("test-stream-cifar-hwc.yaml")).unwrap();
    // Layer 1 writes where layer 0 writes (0x2000), over the rows layer 1 itself reads.
    let bad = yaml.replacen("    out_offset: 0\n", "    out_offset: 0x2000\n", 1);
    assert_ne!(bad, yaml);
    let dir = tmp("stream-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.yaml");
    std::fs::write(&path, bad).unwrap();
    let (_, e) = run_exit(
        &argv(
            "cnn load --network",
            &[
                s(&path),
                "--checkpoint",
                s(&data("ai8x-kat/checkpoints/test-cifar10.pth.tar")),
                "--input",
                s(&kat.join("input.npy")),
                "--out",
                s(&dir.join("img")),
            ],
        ),
        2,
    );
    assert!(
        e.contains("layer 0") && e.contains("`out_offset`") && e.contains("overwritten"),
        "{e}"
    );
    let (_, e) = cnn_mnist("sim", &["--fifo-gap", "0.5"], 2);
    assert!(
        e.contains("--fifo-gap") && e.contains("does not stream"),
        "{e}"
    );
}

/// Found by `cnn random` (seed 1, network 158): when every layer streams, the schedule can
/// end on a row of an earlier layer that no later row reads (here the fifth row of layer 0,
/// which layer 1's 2x2 stride-2 pool drops), and `LAYER` then names that layer, as the
/// engine ran it last. The bench expected the last layer and called a bit-exact run wrong.
#[test]
fn a_schedule_that_ends_on_an_earlier_layers_row_runs_and_reports_that_layer() {
    use edgelearn_verif::cnn::random::{Candidate, LayerSpec, NetSpec, RandOp, RandPool};
    let conv = |k, pad, out_ch, pool| LayerSpec {
        op: RandOp::Conv2d { k, pad },
        out_ch,
        pool,
        act: 1,
        bits: 8,
        bias: false,
        shift: 0,
        proc_start: 0,
        wide: false,
        eltwise: None,
        residual: None,
    };
    let pool = RandPool {
        avg: false,
        size: 2,
        stride: 2,
    };
    let spec = NetSpec {
        values_seed: 158,
        hwc: true,
        in_ch: 2,
        h: 7,
        w: 7,
        one_d: false,
        layers: vec![conv(3, 0, 4, None), conv(3, 1, 2, Some(pool))],
        stream: 2,
    };
    let shape = EngineShape::with_processors(16);
    let c = Candidate::check(&spec, &tmp("schedule-end"), "end", &shape).unwrap();
    let st = c.image.stream.as_ref().expect("a streaming image");
    let end = st.schedule.last().unwrap();
    assert!(end.end && (end.pos, end.row) == (0, 4), "{end:?}");
    let mut b = bench(shape);
    let rep = simulate(&mut b, &c.net, &c.inf, &c.image, Load::Backdoor).unwrap();
    assert!(rep.first_mismatch().is_none());
    assert_eq!(b.read(host::LAYER).unwrap(), 0);
}

/// 32-bit results the MAX78000 cannot use (issue 31, item 2; D-CNN-WIDE). A 32-bit
/// element-wise result is a 32-bit passthrough, which izer's backend refuses ("The
/// passthrough operator requires an output width of 8"), so the model refuses it naming the
/// layer and `output_width`. A layer reading a 32-bit output runs in the model, which passes
/// the unclipped values on as izer's simulator does (izer only warns), but the silicon's
/// processors read bytes, so the engine refuses it naming the reading layer and the key.
#[test]
fn a_32_bit_element_wise_result_and_a_read_of_a_32_bit_output_are_refused() {
    let dir = tmp("wide-refused");
    let widened = |name: &str, yaml: &str, after: &str| {
        let kat = data(&format!("ai8x-kat/{name}"));
        let text = std::fs::read_to_string(kat.join(yaml)).unwrap();
        let text = text.replacen(after, &format!("{after}    output_width: 32\n"), 1);
        assert!(text.contains("output_width: 32\n    processors"), "{name}");
        let y = dir.join(format!("{name}.yaml"));
        std::fs::write(&y, text).unwrap();
        (kat, y)
    };
    for (name, yaml) in [
        ("t-eltwise-xor", "test-eltwisexor.yaml"),
        ("t-eltwise-add", "test-eltwiseadd.yaml"),
    ] {
        let (kat, y) = widened(name, yaml, "    out_offset: 0x2000\n");
        let net = Network::load(
            &y,
            &kat.join("weights_source.npy"),
            None,
            Device::max78000(),
        )
        .unwrap();
        let input = cnn::weights::load_input(&kat.join("input.npy")).unwrap();
        let e = net
            .infer(&input, &RunOptions::default(), None)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("layer 0")
                && e.contains("output_width")
                && e.contains("requires an output width of 8"),
            "{name}: {e}"
        );
    }
    let (kat, y) = widened(
        "t-flatten-bias",
        "test-flatten-bias.yaml",
        "    out_offset: 0x0000\n",
    );
    let c = case(
        &y,
        &kat.join("weights_source.npy"),
        Some(&kat.join("bias_source.npy")),
        &kat.join("input.npy"),
        RunOptions::default(),
        None,
        Device::max78000(),
    );
    let e = run(&c, EngineShape::MAX78000, Load::Backdoor).unwrap_err();
    assert!(
        e.contains("layer 1")
            && e.contains("output_width")
            && e.contains("reads the 32-bit output of layer 0"),
        "{e}"
    );
}

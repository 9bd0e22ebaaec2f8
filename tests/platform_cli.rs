//! `edgelearn platform train` (issue 13) from the command line: the 100-image MNIST
//! regression checked against the golden model after every image, the same weights as
//! `edgelearn train`, the thesis network's Table 4.3 and 5-image epoch from the RTL's
//! counters, a divergence's VCD window, and errors.

mod common;

use common::cli::{edgelearn, root, s, tmp};
use std::process::Output;

fn ok(out: &Output) -> (String, String) {
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(out.status.success(), "stdout:\n{o}\nstderr:\n{e}");
    (o, e)
}

fn sha(stdout: &str) -> String {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("weights_sha256 "))
        .unwrap_or_else(|| panic!("no weights_sha256 in:\n{stdout}"))
        .to_string()
}

/// The regression of issue 13: 100 MNIST images on the MNIST configuration, every FC
/// core's LC outputs and class and both cores' weights compared after every image.
#[test]
fn mnist_platform_trains_100_images_bit_exactly_with_the_golden_model() {
    let d = tmp("mnist100");
    let report = d.join("r.json");
    let t = std::time::Instant::now();
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "100",
        "--test-images",
        "20",
        "--check-golden",
        "--report",
        s(&report),
        "--quiet",
    ]);
    let (stdout, stderr) = ok(&out);
    eprintln!(
        "{stderr}{stdout}100-image regression: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["bit_exact"], true);
    assert_eq!(r["train_images"], 100);
    assert_eq!(
        r["epoch_reports"][0]["runs"], 100,
        "one PL_TRAIN run per checked image"
    );
    // The MNIST configuration's cores: conv 1 x 28 x 28, FC0 N 1536, FC1 N 480.
    assert_eq!(
        r["core_cycles"]["measured"],
        serde_json::json!([21_079, 93_662, 30_038])
    );
    let golden = edgelearn(&[
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "100",
        "--test-images",
        "20",
        "--quiet",
    ]);
    let (gout, _) = ok(&golden);
    assert_eq!(
        sha(&stdout),
        sha(&gout),
        "same weights as `edgelearn train`"
    );
    assert_eq!(r["weights_sha256"].as_str().unwrap(), sha(&gout));
    // Train and test accuracy per core equal the golden model's.
    let gr = edgelearn(&[
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "100",
        "--test-images",
        "20",
        "--quiet",
        "--report",
        s(&d.join("g.json")),
    ]);
    ok(&gr);
    let g: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("g.json")).unwrap()).unwrap();
    for k in ["train_accuracy", "test_accuracy"] {
        assert_eq!(r["epoch_reports"][0][k], g["epochs"][0][k], "{k}");
    }
}

/// Weights read back under back-pressure on the bare platform: the FSM is idle while the
/// last words still wait in the output slice, and the bench must take them too.
#[test]
fn mnist_platform_reads_every_weight_back_under_backpressure() {
    let d = tmp("bp");
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "3",
        "--test-images",
        "0",
        "--check-golden",
        "--backpressure",
        "0.3",
        "--report",
        s(&d.join("r.json")),
        "--quiet",
    ]);
    let (stdout, _) = ok(&out);
    assert!(stdout.contains("bit-exact"), "{stdout}");
}

/// The FPGA top from the command line: every register access an AXI4-Lite transaction
/// (with random delays and back-pressure), the images and weights its AXI4-Stream ports;
/// bit-exact after every image and the same weights as `edgelearn train`.
#[test]
fn mnist_platform_trains_through_axi_from_the_command_line() {
    let d = tmp("axi");
    let report = d.join("r.json");
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "6",
        "--test-images",
        "4",
        "--check-golden",
        "--axi",
        "--backpressure",
        "0.3",
        "--report",
        s(&report),
        "--quiet",
    ]);
    let (stdout, stderr) = ok(&out);
    assert!(
        format!("{stdout}{stderr}").contains("lel_platform_axi_mnist"),
        "{stdout}{stderr}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["bit_exact"], true);
    let golden = edgelearn(&[
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "6",
        "--test-images",
        "4",
        "--quiet",
    ]);
    let (gout, _) = ok(&golden);
    assert_eq!(
        sha(&stdout),
        sha(&gout),
        "same weights as `edgelearn train`"
    );
}

/// Table 4.3 and the 5-image epoch (T:1358), measured by the RTL's counters, pipelined.
#[test]
fn thesis_platform_meets_table_4_3_and_the_5_image_epoch() {
    let d = tmp("thesis5");
    let report = d.join("r.json");
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/thesis-cifar10.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "5",
        "--test-images",
        "2",
        "--report",
        s(&report),
        "--quiet",
    ]);
    let (stdout, _) = ok(&out);
    assert!(
        stdout.contains("thesis: 757162 cycles for 5 images"),
        "{stdout}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        r["core_cycles"]["measured"],
        serde_json::json!([28_467, 145_718, 30_038]),
        "conv <= 28,471 (spec §7-20), FC0 and FC1 = Table 4.3"
    );
    let epoch = r["first_epoch_run_cycles"].as_u64().unwrap();
    assert!(epoch <= 757_162, "5-image epoch {epoch} > 757,162");
    // FC0 is the only bottleneck: conv's first image, then five FC0 images back to back.
    assert!(epoch >= 28_467 + 5 * 145_718, "{epoch}");
    assert_eq!(r["bit_exact"], true);
}

#[test]
fn vcd_windows_and_errors_are_named() {
    let d = tmp("errors");
    // A configuration the platform cannot chain.
    let bad = d.join("three.toml");
    let text = std::fs::read_to_string(root().join("configs/mnist.toml")).unwrap()
        + "\n[[fc]]\noutputs = 480\npieces = 4\nalpha_next = 3\nalpha_lc = 3\nalpha_e = 0\nlr_shift = [1]\n";
    std::fs::write(&bad, text).unwrap();
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        s(&bad),
        "--data",
        "data/mnist-10k",
        "--images",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fc") && err.contains("3 FC cores"), "{err}");
    // More images than the split holds.
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "9000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--images 9000"));
    // A window without a file, and a window that is not one.
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--vcd-window",
        "10..5",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // A VCD window of a short run: written, starting at the window.
    let vcd = d.join("w.vcd");
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "1",
        "--test-images",
        "0",
        "--vcd",
        s(&vcd),
        "--vcd-window",
        "100..300",
        "--vcd-depth",
        "1",
        "--quiet",
    ]);
    ok(&out);
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        text.contains("reg_rdata") && text.contains("#1000000"),
        "VCD starts at cycle 100"
    );
    assert!(!text.contains("#3010000"), "VCD ends at cycle 300");
    // The report is not overwritten without --force.
    let out = edgelearn(&[
        "platform",
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "1",
        "--vcd",
        s(&vcd),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
}

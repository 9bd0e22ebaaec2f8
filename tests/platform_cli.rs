//! `edgelearn platform train` (issue 13) from the command line: the 100-image MNIST
//! regression checked against the golden model after every image, the same weights as
//! `edgelearn train`, the thesis network's Table 4.3 and 5-image epoch from the RTL's
//! counters, a divergence's VCD window, and errors.

use crate::common;

use common::cli::{argv, read_json, root, run_exit, run_ok, s, tmp, weights_sha as sha};

/// `platform train` of the MNIST configuration on the vendored MNIST images.
const MNIST_PLATFORM: &str = "platform train --config configs/mnist.toml --data data/mnist-10k";

/// `edgelearn train` (the golden model) of the MNIST configuration on `images` training and
/// `test_images` test images, quiet, with `more` arguments: its standard output.
fn golden_train(images: u32, test_images: u32, more: &[&str]) -> String {
    let line = format!(
        "train --config configs/mnist.toml --data data/mnist-10k --images {images} \
         --test-images {test_images} --quiet"
    );
    run_ok(&argv(&line, more)).0
}

/// The regression of issue 13: 100 MNIST images on the MNIST configuration, every FC
/// core's LC outputs and class and both cores' weights compared after every image.
#[test]
fn mnist_platform_trains_100_images_bit_exactly_with_the_golden_model() {
    let d = tmp("mnist100");
    let report = d.join("r.json");
    let t = std::time::Instant::now();
    let (stdout, stderr) = run_ok(&argv(
        &format!("{MNIST_PLATFORM} --images 100 --test-images 20 --check-golden --quiet --report"),
        &[s(&report)],
    ));
    eprintln!(
        "{stderr}{stdout}100-image regression: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let r = read_json(&report);
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
    let gout = golden_train(100, 20, &[]);
    assert_eq!(
        sha(&stdout),
        sha(&gout),
        "same weights as `edgelearn train`"
    );
    assert_eq!(r["weights_sha256"].as_str().unwrap(), sha(&gout));
    // Train and test accuracy per core equal the golden model's.
    golden_train(100, 20, &["--report", s(&d.join("g.json"))]);
    let g = read_json(&d.join("g.json"));
    for k in ["train_accuracy", "test_accuracy"] {
        assert_eq!(r["epoch_reports"][0][k], g["epochs"][0][k], "{k}");
    }
}

/// The platform with 8-lane FC cores from the command line (issue 29): bit-exact after every
/// image under input gaps and read-back back-pressure, the cycles of the formula in L, and
/// the same weights as `edgelearn train --lanes 8`.
#[test]
fn mnist_platform_at_8_lanes_trains_bit_exactly_with_the_golden_model() {
    let d = tmp("lanes8");
    let report = d.join("r.json");
    let (stdout, _) = run_ok(&argv(
        &format!(
            "{MNIST_PLATFORM} --lanes 8 --images 4 --test-images 2 --check-golden \
             --input-gaps 0.2 --backpressure 0.3 --quiet --report"
        ),
        &[s(&report)],
    ));
    let r = read_json(&report);
    assert_eq!(r["bit_exact"], true);
    assert_eq!(r["design"], "lel_platform_mnist_l8");
    // FC0: N 1536, O 480, P 4 at 8 lanes, LS_LOAD at the 32-bit stream's rate (N/4 + 2);
    // a core starts on a whole image in its FIFO, so input gaps do not stretch the counts.
    let want = serde_json::json!([21_079, 47_522, 15_578]);
    assert_eq!(r["core_cycles"]["formula"], want);
    assert_eq!(r["core_cycles"]["measured"], want);
    let gout = golden_train(4, 2, &["--lanes", "8"]);
    assert_eq!(
        sha(&stdout),
        sha(&gout),
        "same weights as `edgelearn train --lanes 8`"
    );
    assert_ne!(
        sha(&stdout),
        sha(&golden_train(4, 2, &[])),
        "4 lanes train otherwise"
    );
}

/// Weights read back under back-pressure on the bare platform: the FSM is idle while the
/// last words still wait in the output slice, and the bench must take them too.
#[test]
fn mnist_platform_reads_every_weight_back_under_backpressure() {
    let d = tmp("bp");
    let (stdout, _) = run_ok(&argv(
        &format!(
            "{MNIST_PLATFORM} --images 3 --test-images 0 --check-golden --backpressure 0.3 \
             --quiet --report"
        ),
        &[s(&d.join("r.json"))],
    ));
    assert!(stdout.contains("bit-exact"), "{stdout}");
}

/// The FPGA top from the command line: every register access an AXI4-Lite transaction
/// (with random delays and back-pressure), the images and weights its AXI4-Stream ports;
/// bit-exact after every image and the same weights as `edgelearn train`.
#[test]
fn mnist_platform_trains_through_axi_from_the_command_line() {
    let d = tmp("axi");
    let report = d.join("r.json");
    let (stdout, stderr) = run_ok(&argv(
        &format!(
            "{MNIST_PLATFORM} --images 6 --test-images 4 --check-golden --axi --backpressure 0.3 \
             --quiet --report"
        ),
        &[s(&report)],
    ));
    assert!(
        format!("{stdout}{stderr}").contains("lel_platform_axi_mnist"),
        "{stdout}{stderr}"
    );
    assert_eq!(read_json(&report)["bit_exact"], true);
    assert_eq!(
        sha(&stdout),
        sha(&golden_train(6, 4, &[])),
        "same weights as `edgelearn train`"
    );
}

/// Table 4.3 and the 5-image epoch (T:1358), measured by the RTL's counters, pipelined.
#[test]
fn thesis_platform_meets_table_4_3_and_the_5_image_epoch() {
    let d = tmp("thesis5");
    let report = d.join("r.json");
    let (stdout, _) = run_ok(&argv(
        "platform train --config configs/thesis-cifar10.toml --data data/mnist-10k \
         --images 5 --test-images 2 --quiet --report",
        &[s(&report)],
    ));
    assert!(
        stdout.contains("thesis: 757162 cycles for 5 images"),
        "{stdout}"
    );
    let r = read_json(&report);
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
    let bad = d.join("three.toml");
    let text = std::fs::read_to_string(root().join("configs/mnist.toml")).unwrap()
        + "\n[[fc]]\noutputs = 480\npieces = 4\nalpha_next = 3\nalpha_lc = 3\nalpha_e = 0\nlr_shift = [1]\n";
    std::fs::write(&bad, text).unwrap();
    let narrow = d.join("narrow.toml");
    let text = std::fs::read_to_string(root().join("configs/mnist.toml"))
        .unwrap()
        .replace("out_channels = 24", "out_channels = 8");
    std::fs::write(&narrow, text).unwrap();
    for (what, args, needles) in [
        (
            "a conv core of other than the RTL's 24 channels (an error, not a panic)",
            argv(
                "platform train --data data/mnist-10k --images 1 --config",
                &[s(&narrow)],
            ),
            &["conv.out_channels", "8: the RTL conv core is built with 24"][..],
        ),
        (
            "a configuration the platform cannot chain",
            argv(
                "platform train --data data/mnist-10k --images 1 --config",
                &[s(&bad)],
            ),
            &["fc", "3 FC cores"][..],
        ),
        (
            "more images than the split holds",
            argv(MNIST_PLATFORM, &["--images", "9000"]),
            &["--images 9000"],
        ),
        (
            "a window without a file, and a window that is not one",
            argv(MNIST_PLATFORM, &["--vcd-window", "10..5"]),
            &[],
        ),
    ] {
        let (_, err) = run_exit(&args, 2);
        for n in needles {
            assert!(err.contains(n), "{what}: `{n}` not in {err}");
        }
    }
    // A VCD window of a short run: written, starting at the window.
    let vcd = d.join("w.vcd");
    run_ok(&argv(
        &format!(
            "{MNIST_PLATFORM} --images 1 --test-images 0 --vcd-window 100..300 --vcd-depth 1 \
             --quiet --vcd"
        ),
        &[s(&vcd)],
    ));
    let text = std::fs::read_to_string(&vcd).unwrap();
    assert!(
        text.contains("reg_rdata") && text.contains("#1000000"),
        "VCD starts at cycle 100"
    );
    assert!(!text.contains("#3010000"), "VCD ends at cycle 300");
    // The report is not overwritten without --force.
    let (_, err) = run_exit(
        &argv(MNIST_PLATFORM, &["--images", "1", "--vcd", s(&vcd)]),
        2,
    );
    assert!(err.contains("--force"), "{err}");
}

//! `edgelearn core run` (issue 12): a core alone on the first N training images from the
//! command line, its report, its weight dumps, and its errors.

use crate::common;
use edgelearn_verif::formats::npy::load_npy;

use common::cli::{argv, read_json, root, run_exit, run_ok, s, tmp};
use std::path::{Path, PathBuf};

#[test]
fn core_run_fc1_reports_cycles_bit_exactness_and_weights() {
    let d = tmp("fc1");
    let report = d.join("r.json");
    let dump = d.join("w");
    let (stdout, _) = run_ok(&argv(
        "core run fc1 --config configs/mnist.toml --data data/mnist-10k --images 3 \
         --check-golden --quiet --report",
        &[s(&report), "--dump-weights", s(&dump)],
    ));
    assert!(
        stdout.contains("LS_INF          15008      15008"),
        "{stdout}"
    );
    let r = read_json(&report);
    assert_eq!(r["bit_exact"], true);
    assert_eq!(r["init_cycles"], 14_403);
    assert_eq!(r["cycles_per_image"], 30_038.0);
    let per = r["per_image"].as_array().unwrap();
    assert_eq!(per.len(), 3);
    for im in per {
        assert_eq!(im["cycles"]["LS_WU"], 14_417);
        assert_eq!(im["bit_exact"], true);
        assert_eq!(im["weights_checked"], true);
    }
    let before = load_npy(&dump.join("fc1_weights_before.npy")).unwrap();
    let after = load_npy(&dump.join("fc1_weights_after.npy")).unwrap();
    assert_eq!(before.shape, vec![4, 120, 120]);
    let (b, a) = (before.to_i64().unwrap(), after.to_i64().unwrap());
    assert!(b != a && a.iter().all(|v| (-31..=31).contains(v)));
    assert_eq!(r["weights_sha256_after"], r["golden_weights_sha256_after"]);
    // Nothing is overwritten without --force.
    let (_, err) = run_exit(
        &argv(
            "core run fc1 --config configs/mnist.toml --data data/mnist-10k --quiet --report",
            &[s(&report)],
        ),
        2,
    );
    assert!(err.contains("not overwriting"), "{err}");
}

#[test]
fn core_run_conv_under_backpressure() {
    let (stdout, _) = run_ok(&argv(
        "core run conv --config configs/thesis-cifar10.toml --data data/mnist-10k --images 2 \
         --check-golden --backpressure 0.3 --input-gaps 0.1 --quiet",
        &[],
    ));
    assert!(
        stdout.contains("bit-exact: every pooled value of 2 images"),
        "{stdout}"
    );
}

/// `--lanes` (issue 29): MNIST's FC core 0 with 8 lanes from the command line, bit-exact with
/// the golden model at 8 lanes in the cycles of the formula in L; a lane count the RTL or
/// the shapes cannot take is an error naming the key.
#[test]
fn core_run_fc0_with_8_lanes() {
    let d = tmp("lanes");
    let report = d.join("r.json");
    let (stdout, _) = run_ok(&argv(
        "core run fc0 --config configs/mnist.toml --lanes 8 --data data/mnist-10k --images 2 \
         --check-golden --quiet --report",
        &[s(&report)],
    ));
    // N 1536, O 480, P 4, L 8: W = 23,040 words per piece.
    for row in [
        "LS_INIT         23043      23043",
        "LS_LOAD           194        194",
        "LS_INF          23588      23588",
        "LS_WU           23057      23057",
    ] {
        assert!(stdout.contains(row), "`{row}` not in {stdout}");
    }
    let r = read_json(&report);
    assert_eq!(r["design"], "lel_fc_core0_mnist_l8");
    assert_eq!(r["shape"]["lanes"], 8);
    assert_eq!(r["bit_exact"], true);
    for (line, needle) in [
        (
            "core run fc0 --lanes 3",
            "widths.lanes: 3: an FC core is built with [2, 4, 8] lanes",
        ),
        (
            "core run fc0 --lanes 16",
            "fc[0].outputs: 480 is not divisible by pieces x lanes = 4 x 16",
        ),
        (
            "core run fc0 --lanes 0",
            "widths.lanes: 0 is out of range 1..=64",
        ),
        (
            "core run conv --lanes 8",
            "widths.lanes: 8: the conv core is built with [4] lanes",
        ),
        (
            "platform train --lanes 2",
            "widths.lanes: 2: the platform is built with [4, 8] lanes",
        ),
        (
            "platform train --axi --lanes 2",
            "widths.lanes: 2: the platform is built with [4, 8] lanes",
        ),
    ] {
        let line = format!("{line} --config configs/mnist.toml --data data/mnist-10k --quiet");
        let args = argv(&line, &[]);
        let (_, err) = run_exit(&args, 2);
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// The shipped configuration `configs/NAME`, with `from` replaced by `to`, written into `dir`.
fn edited_config(dir: &Path, name: &str, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("configs").join(name)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path
}

/// Bad input: exit 2 with an error naming what is wrong, never a panic.
#[test]
fn core_run_errors_are_named() {
    let d = tmp("errors");
    let lanes = edited_config(&d, "thesis-cifar10.toml", "lanes = 4", "lanes = 3");
    let wide = edited_config(
        &d,
        "mnist.toml",
        "pieces = 4\nalpha_next = 2",
        "pieces = 8\nalpha_next = 2",
    );
    let mnist = "--config configs/mnist.toml --data data/mnist-10k";
    // (the command line, the paths ending it, what the error names)
    for (line, paths, needle) in [
        (
            format!("core run fc7 {mnist}"),
            vec![],
            "there is no FC core 7",
        ),
        (
            format!("core run dense {mnist}"),
            vec![],
            "give fc0, fc1, ... or conv",
        ),
        (
            format!("core run fc0 {mnist} --images 0"),
            vec![],
            "--images must be at least 1",
        ),
        (
            "core run fc0 --data data/mnist-10k --config".to_string(),
            vec![s(&lanes)],
            "widths.lanes",
        ),
        (
            "core run fc0 --data data/mnist-10k --config".to_string(),
            vec![s(&wide)],
            "fc[0]: pieces 8",
        ),
        (
            "core run fc0 --config configs/mnist.toml --data".to_string(),
            vec![s(&d)],
            "MNIST",
        ),
        (
            format!("core run fc0 {mnist} --images 9000"),
            vec![],
            "9000 images asked for",
        ),
        (
            format!("core run conv {mnist} --backpressure 2"),
            vec![],
            "probability",
        ),
    ] {
        let args = argv(&line, &paths);
        let (_, err) = run_exit(&args, 2);
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

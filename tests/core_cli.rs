//! `edgelearn core run` (issue 12): a core alone on the first N training images from the
//! command line, its report, its weight dumps, and its errors.

use edgelearn_verif::formats::npy::load_npy;
mod common;

use common::cli::{edgelearn, root, s, tmp};

#[test]
fn core_run_fc1_reports_cycles_bit_exactness_and_weights() {
    let d = tmp("fc1");
    let report = d.join("r.json");
    let dump = d.join("w");
    let out = edgelearn(&[
        "core",
        "run",
        "fc1",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "3",
        "--check-golden",
        "--report",
        s(&report),
        "--dump-weights",
        s(&dump),
        "--quiet",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("LS_INF          15008      15008"),
        "{stdout}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
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
    let again = edgelearn(&[
        "core",
        "run",
        "fc1",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--report",
        s(&report),
        "--quiet",
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("not overwriting"));
}

#[test]
fn core_run_conv_under_backpressure() {
    let out = edgelearn(&[
        "core",
        "run",
        "conv",
        "--config",
        "configs/thesis-cifar10.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "2",
        "--check-golden",
        "--backpressure",
        "0.3",
        "--input-gaps",
        "0.1",
        "--quiet",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("bit-exact: every pooled value of 2 images"),
        "{stdout}"
    );
}

/// Bad input: exit 2 with an error naming what is wrong, never a panic.
#[test]
fn core_run_errors_are_named() {
    let d = tmp("errors");
    let lanes = d.join("lanes.toml");
    std::fs::write(
        &lanes,
        std::fs::read_to_string(root().join("configs/thesis-cifar10.toml"))
            .unwrap()
            .replace("lanes = 4", "lanes = 2"),
    )
    .unwrap();
    let wide = d.join("wide.toml");
    std::fs::write(
        &wide,
        std::fs::read_to_string(root().join("configs/mnist.toml"))
            .unwrap()
            .replace("pieces = 4\nalpha_next = 2", "pieces = 8\nalpha_next = 2"),
    )
    .unwrap();
    for (args, needle) in [
        (
            vec![
                "core",
                "run",
                "fc7",
                "--config",
                "configs/mnist.toml",
                "--data",
                "data/mnist-10k",
            ],
            "there is no FC core 7",
        ),
        (
            vec![
                "core",
                "run",
                "dense",
                "--config",
                "configs/mnist.toml",
                "--data",
                "data/mnist-10k",
            ],
            "give fc0, fc1, ... or conv",
        ),
        (
            vec![
                "core",
                "run",
                "fc0",
                "--config",
                "configs/mnist.toml",
                "--data",
                "data/mnist-10k",
                "--images",
                "0",
            ],
            "--images must be at least 1",
        ),
        (
            vec![
                "core",
                "run",
                "fc0",
                "--config",
                s(&lanes),
                "--data",
                "data/mnist-10k",
            ],
            "widths.lanes",
        ),
        (
            vec![
                "core",
                "run",
                "fc0",
                "--config",
                s(&wide),
                "--data",
                "data/mnist-10k",
            ],
            "fc[0]: pieces 8",
        ),
        (
            vec![
                "core",
                "run",
                "fc0",
                "--config",
                "configs/mnist.toml",
                "--data",
                s(&d),
            ],
            "MNIST",
        ),
        (
            vec![
                "core",
                "run",
                "fc0",
                "--config",
                "configs/mnist.toml",
                "--data",
                "data/mnist-10k",
                "--images",
                "9000",
            ],
            "9000 images asked for",
        ),
        (
            vec![
                "core",
                "run",
                "conv",
                "--config",
                "configs/mnist.toml",
                "--data",
                "data/mnist-10k",
                "--backpressure",
                "2",
            ],
            "probability",
        ),
    ] {
        let out = edgelearn(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: `{needle}` not in {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

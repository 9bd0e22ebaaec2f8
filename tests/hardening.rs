//! Inputs that used to hang or crash the kit, and a truncated copy of every input format the
//! command line reads: each is a clear error (exit 2, `error:` naming the file, no panic),
//! answered at once. See: issue 10.

use crate::common;
use common::cli::{root, s, tmp};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs edgelearn; returns its output and wall time. Peak memory is bounded by `ulimit -v`
/// (1 GiB of address space) so a run-away allocation fails the test instead of the machine.
fn edgelearn(args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let mut line = String::from("ulimit -v 1048576; exec \"$0\"");
    for i in 0..args.len() {
        line += &format!(" \"${}\"", i + 1);
    }
    let out = Command::new("sh")
        .env("EDGELEARN_WORK_DIR", common::cli::work_dir())
        .arg("-c")
        .arg(line)
        .arg(common::cli::exe())
        .args(args)
        .output()
        .expect("run edgelearn");
    (out, t.elapsed())
}

/// A hang is what these bounds catch; the times themselves are in docs/BENCHMARKS.md.
const PROMPT: Duration = Duration::from_secs(10);

/// The command fails with exit 2 and a message holding every needle, without a panic.
fn rejects(what: &str, args: &[&str], needles: &[&str]) {
    let (out, took) = edgelearn(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: exit status; stderr:\n{err}"
    );
    assert!(
        err.lines().any(|l| l.starts_with("error: ")),
        "{what}: {err}"
    );
    assert!(!err.contains("panicked"), "{what}: {err}");
    for n in needles {
        assert!(err.contains(n), "{what}: expected `{n}` in:\n{err}");
    }
    assert!(took < PROMPT, "{what}: took {took:?}");
}

/// Writes the first `keep` bytes of `src` to `dir/name`.
fn truncated(src: &Path, dir: &Path, name: &str, keep: impl Fn(usize) -> usize) -> PathBuf {
    let bytes = std::fs::read(src).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, &bytes[..keep(bytes.len()).min(bytes.len() - 1)]).unwrap();
    p
}

/// The classic "billion laughs" in front of a real network description.
fn alias_bomb(levels: usize) -> String {
    let mut text = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n".to_string();
    for i in 1..levels {
        let refs = vec![format!("*a{}", i - 1); 9].join(", ");
        text += &format!("a{i}: &a{i} [{refs}]\n");
    }
    text
}

#[test]
fn r10_yaml_alias_bomb_is_refused_at_once() {
    let d = tmp("bomb");
    let net = std::fs::read_to_string(root().join("data/ai8x/mnist-chw-ai85.yaml")).unwrap();
    for levels in [8, 9, 12] {
        let yaml = d.join(format!("bomb{levels}.yaml"));
        std::fs::write(&yaml, alias_bomb(levels) + &net).unwrap();
        rejects(
            "alias bomb",
            &["cnn", "check", s(&yaml)],
            &[
                &format!("{}:5: ", s(&yaml)),
                "more than 50000 values (the limit",
            ],
        );
    }
}

#[test]
fn r10_every_input_format_truncated_is_a_clear_error() {
    let d = tmp("truncated");
    let data = |rel: &str| root().join("data").join(rel);
    let yaml = data("ai8x/mnist-chw-ai85.yaml");
    let ck = data("ai8x/ai85-mnist-qat8-q.pth.tar");
    let input = data("ai8x/sample_mnist.npy");

    // ai8x network description: cut inside the layer list.
    let y = truncated(&yaml, &d, "net.yaml", |n| n * 2 / 3);
    let (out, _) = edgelearn(&["cnn", "check", s(&y)]);
    // Cut at a line boundary a description can still be valid; cut inside a key it is not.
    if !out.status.success() {
        rejects("truncated YAML", &["cnn", "check", s(&y)], &[s(&y)]);
    }
    let y = truncated(&yaml, &d, "net2.yaml", |n| n / 2 + 3);
    rejects("truncated YAML", &["cnn", "check", s(&y)], &[s(&y)]);
    let cnn_run = |network: &Path, weights: &Path, sample: &Path| -> Vec<String> {
        [
            "cnn",
            "run",
            "--network",
            s(network),
            "--checkpoint",
            s(weights),
            "--input",
            s(sample),
        ]
        .iter()
        .map(|a| a.to_string())
        .collect()
    };
    let run = |what: &str, args: Vec<String>, needles: &[&str]| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        rejects(what, &a, needles);
    };
    // Checkpoints: zip, and legacy (pickles followed by raw storages).
    for (i, keep) in [(0, 10usize), (1, 4096), (2, 300_000)] {
        let c = truncated(&ck, &d, &format!("ck{i}.pth.tar"), |_| keep);
        run(
            "truncated zip checkpoint",
            cnn_run(&yaml, &c, &input),
            &[s(&c)],
        );
    }
    let legacy = data("ai8x-kat/checkpoints/test-mnist-extrasmallnet.pth.tar");
    let small = data("ai8x-kat/mnist-extrasmall/mnist-chw-extrasmall-ai85.yaml");
    let small_in = data("ai8x-kat/mnist-extrasmall/input.npy");
    for (i, frac) in [(0, 5usize), (1, 50), (2, 95)] {
        let c = truncated(&legacy, &d, &format!("legacy{i}.pth.tar"), |n| {
            n * frac / 100
        });
        run(
            "truncated legacy checkpoint",
            cnn_run(&small, &c, &small_in),
            &[s(&c)],
        );
    }
    // Sample input and sample weights (.npy, several arrays back to back).
    for (i, keep) in [(0, 6usize), (1, 60), (2, 200)] {
        let x = truncated(&input, &d, &format!("in{i}.npy"), |_| keep);
        run("truncated input .npy", cnn_run(&yaml, &ck, &x), &[s(&x)]);
    }
    let case = data("ai8x-kat/t-conv1d");
    let w = truncated(&case.join("weights_source.npy"), &d, "w.npy", |n| n - 7);
    let conv1d = case.join("test-ai85-conv1d.yaml");
    run(
        "truncated sample weights",
        cnn_run(&conv1d, &w, &case.join("input.npy")),
        &[s(&w)],
    );
    let npz = root().join("verif/tests/formats/fixtures/stored.npz");
    let z = truncated(&npz, &d, "w.npz", |n| n / 2);
    run(
        "truncated .npz",
        cnn_run(&conv1d, &z, &case.join("input.npy")),
        &[s(&z)],
    );

    // Platform configuration (TOML) and conv kernels file.
    let cfg = root().join("configs/mnist.toml");
    let t = truncated(&cfg, &d, "cfg.toml", |n| n - 20);
    rejects(
        "truncated TOML",
        &["train", "--config", s(&t), "--data", s(&data("mnist-10k"))],
        &[s(&t)],
    );
    let kernels = d.join("kernels.txt");
    std::fs::write(&kernels, "1, 2, 3, -4, 5").unwrap();
    let text = std::fs::read_to_string(&cfg).unwrap();
    let with_kernels = d.join("kernels.toml");
    std::fs::write(
        &with_kernels,
        text.replace(
            "kernels = \"random\"",
            &format!("kernels = \"{}\"", s(&kernels)),
        ),
    )
    .unwrap();
    rejects(
        "short kernel file",
        &[
            "train",
            "--config",
            s(&with_kernels),
            "--data",
            s(&data("mnist-10k")),
        ],
        &[s(&kernels), "216 needed"],
    );

    // MNIST IDX, gzipped and raw.
    let mnist = d.join("mnist");
    std::fs::create_dir_all(&mnist).unwrap();
    for f in [
        "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz",
        "t10k-labels-idx1-ubyte.gz",
    ] {
        std::fs::copy(data("mnist-10k").join(f), mnist.join(f)).unwrap();
    }
    let images = data("mnist-10k/train-images-idx3-ubyte.gz");
    let g = truncated(&images, &mnist, "train-images-idx3-ubyte.gz", |n| n / 3);
    rejects(
        "truncated gzipped IDX",
        &["train", "--config", s(&cfg), "--data", s(&mnist)],
        &[s(&g)],
    );
    std::fs::remove_file(&g).unwrap();
    let raw = mnist.join("train-images-idx3-ubyte");
    std::fs::write(
        &raw,
        [
            0u8, 0, 8, 3, 0, 0, 0x1f, 0x40, 0, 0, 0, 28, 0, 0, 0, 28, 1, 2,
        ],
    )
    .unwrap();
    rejects(
        "truncated raw IDX",
        &["train", "--config", s(&cfg), "--data", s(&mnist)],
        &[s(&raw), "truncated"],
    );

    // Stimulus CSV (cut inside a row), VCD (cut inside the header and inside a value), golden trace.
    let stim = d.join("m.csv");
    let (out, _) = edgelearn(&["stimulus", "lel_matmul", "--out", s(&stim)]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&stim).unwrap();
    let cut =
        text.find('\n').unwrap() + 1 + text[text.find('\n').unwrap() + 1..].find(',').unwrap();
    let st = d.join("cut.csv");
    std::fs::write(&st, &text[..cut]).unwrap();
    rejects(
        "truncated stimulus",
        &["sim", "lel_matmul", "--stimulus", s(&st)],
        &[s(&st)],
    );
    let vcd = d.join("m.vcd");
    let golden = d.join("g.json");
    let (out, _) = edgelearn(&[
        "sim",
        "lel_matmul",
        "--stimulus",
        s(&stim),
        "--cycles",
        "40",
        "--vcd",
        s(&vcd),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (out, _) = edgelearn(&[
        "golden",
        "lel_matmul",
        "--stimulus",
        s(&stim),
        "--out",
        s(&golden),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let vtext = std::fs::read_to_string(&vcd).unwrap();
    let header_cut = vtext.find("$enddefinitions").unwrap() - 20;
    let v1 = truncated(&vcd, &d, "head.vcd", |_| header_cut);
    rejects("VCD cut in its header", &["vcd", "list", s(&v1)], &[s(&v1)]);
    let body = vtext.rfind("\nb").unwrap() + 3;
    let v2 = truncated(&vcd, &d, "body.vcd", |_| body);
    rejects(
        "VCD cut inside a value",
        &["vcd", "show", s(&v2), "--signals", "data_out"],
        &[s(&v2)],
    );
    let gj = truncated(&golden, &d, "g.json", |n| n / 2);
    rejects(
        "truncated golden trace",
        &["vcd", "check", s(&vcd), "--golden", s(&gj)],
        &[s(&gj)],
    );
}

#[test]
fn r10_hung_tool_is_stopped_and_named() {
    // A `vvp` that never returns, first on PATH.
    let d = tmp("hang");
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("vvp");
    std::fs::write(&fake, "#!/bin/sh\nexec sleep 600\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let stim = d.join("m.csv");
    let (out, _) = edgelearn(&["stimulus", "lel_matmul", "--out", s(&stim)]);
    assert!(out.status.success());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let t = Instant::now();
    let out = Command::new(common::cli::exe())
        .env("PATH", path)
        .env("EDGELEARN_WORK_DIR", d.join("work"))
        .args([
            "--tool-timeout",
            "2",
            "sim",
            "lel_matmul",
            "--stimulus",
            s(&stim),
        ])
        .args(["--backend", "icarus", "--cycles", "50"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`vvp` did not finish within 2 s"), "{err}");
    assert!(
        err.contains("work directory") && err.contains(s(&d.join("work"))),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
}

//! `edgelearn cnn random`: constrained-random networks that the kit reads back, run on the
//! engine RTL against the golden model (100 of them), their regression file and cross
//! coverage; shrinking; refusals.

use crate::common::cli::{argv, run_exit, run_ok, s, tmp};
use edgelearn_hdl::cnn::EngineShape;
use edgelearn_verif::cnn::random::{self, Candidate, Cross, Limits, NetSpec, RandOp};

#[test]
fn a_hundred_random_networks_are_bit_exact_on_the_engine_rtl() {
    let d = tmp("random");
    let out = d.join("nets");
    let (stdout, _) = run_ok(&[
        "cnn",
        "random",
        "--seed",
        "7",
        "--count",
        "100",
        "--run",
        "--out",
        s(&out),
    ]);
    assert!(
        stdout.contains("On the engine RTL: 100 of 100 bit-exact"),
        "{stdout}"
    );
    // The cross: every operator the generator draws was drawn, and the holes are named.
    for v in [
        "op | conv2d: ",
        "conv1d: ",
        "passthrough: ",
        "linear: ",
        "convtranspose2d: ",
    ] {
        assert!(
            stdout.contains(v) && !stdout.contains(&format!("{v}0,")),
            "{v} in {stdout}"
        );
    }
    // Every element-wise operation and ConvTranspose2d too: no hole is left.
    assert!(
        stdout.contains("convtranspose2d: ") && stdout.contains("Never drawn (0): none"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("cross.md")).unwrap(),
        stdout
    );
    // Residual blocks are among them: two layers writing interleaved (`write_gap: 1`) and an
    // element-wise layer reading both (`in_sequences`), bit-exact like the rest.
    let residual = (0..100)
        .filter(|i| {
            let y = std::fs::read_to_string(out.join(format!("{i:04}/network.yaml"))).unwrap();
            y.contains("write_gap: 1") && y.contains("operands: 2") && y.contains("in_sequences: [")
        })
        .count();
    assert!(residual >= 10, "{residual} networks with a residual block");
    // Streaming networks too: the input over the FIFO, the first layers in one-row slices,
    // some of them writing a 64-word rolling buffer (at 0x1000) for the next.
    let yamls: Vec<String> = (0..100)
        .map(|i| std::fs::read_to_string(out.join(format!("{i:04}/network.yaml"))).unwrap())
        .collect();
    let streaming = yamls
        .iter()
        .filter(|y| y.contains("streaming: true"))
        .count();
    let rolling = yamls
        .iter()
        .filter(|y| y.contains("streaming: true") && y.contains("out_offset: 0x1000"))
        .count();
    assert!(
        streaming >= 10 && rolling >= 3,
        "{streaming} streaming, {rolling} rolling"
    );
    // Each network is three files a user could give `cnn sim`, and the regression lists them.
    for n in ["0000", "0099"] {
        for f in ["network.yaml", "weights.npz", "input.npy"] {
            assert!(out.join(n).join(f).is_file(), "{n}/{f}");
        }
    }
    let plan = out.join("regress.toml");
    let (list, _) = run_ok(&["regress", "list", s(&plan)]);
    let jobs = list
        .lines()
        .filter(|l| l.starts_with("cnn-random/s7/00"))
        .count();
    assert_eq!(jobs, 100, "{list}");
    let (sim, _) = run_ok(&argv(
        "cnn sim --processors 16",
        &[
            "--network",
            s(&out.join("0003/network.yaml")),
            "--checkpoint",
            s(&out.join("0003/weights.npz")),
            "--input",
            s(&out.join("0003/input.npy")),
        ],
    ));
    assert!(sim.contains("\"bit_exact\":true"), "{sim}");
}

#[test]
fn the_same_seed_writes_the_same_networks_and_outputs_are_not_overwritten() {
    let d = tmp("random-seed");
    let (a, b) = (d.join("a"), d.join("b"));
    for dir in [&a, &b] {
        run_ok(&argv("cnn random --seed 3 --count 5 --out", &[s(dir)]));
    }
    for n in ["0000", "0004"] {
        for f in ["network.yaml", "weights.npz", "input.npy"] {
            let (x, y) = (
                std::fs::read(a.join(n).join(f)).unwrap(),
                std::fs::read(b.join(n).join(f)).unwrap(),
            );
            assert_eq!(x, y, "{n}/{f}");
        }
    }
    let (_, e) = run_exit(&["cnn", "random", "--count", "2", "--out", s(&a)], 2);
    assert!(e.contains("--force"), "{e}");
    run_ok(&["cnn", "random", "--count", "2", "--out", s(&a), "--force"]);
    assert!(!a.join("0004").exists(), "--force writes the output again");
    std::fs::write(d.join("mine.txt"), "a user's file").unwrap();
    let (_, e) = run_exit(&["cnn", "random", "--count", "2", "--out", s(&d)], 2);
    assert!(e.contains("not a `cnn random` output"), "{e}");
    let c = d.join("c");
    let (_, e) = run_exit(&argv("cnn random --processors 5 --out", &[s(&c)]), 2);
    assert!(e.contains("--processors"), "{e}");
    let (_, e) = run_exit(&argv("cnn random --side 2 --out", &[s(&c)]), 2);
    assert!(e.contains("--side"), "{e}");
}

/// A failure planted in the predicate: "a layer averages pools and has more than one output
/// channel". Shrinking keeps it failing and ends where no smaller version fails.
#[test]
fn a_failing_network_shrinks_to_a_minimal_one() {
    let d = tmp("shrink");
    let shape = EngineShape::with_processors(16);
    let lim = Limits::default();
    let bad = |s: &NetSpec| {
        s.layers
            .iter()
            .any(|l| l.pool.is_some_and(|p| p.avg) && l.out_ch > 1 && l.op != RandOp::Passthrough)
    };
    let mut cross = Cross::default();
    let mut found = None;
    for i in 0..200 {
        let (c, _) =
            random::generate(11, i, &d.join("gen"), "g", &shape, &lim, &mut cross).unwrap();
        if bad(&c.spec) && c.spec.layers.len() >= 3 {
            found = Some(c.spec);
            break;
        }
    }
    let spec = found.expect("a network with the planted failure");
    let mut runs = 0;
    let mut fails = |c: &Candidate| {
        runs += 1;
        bad(&c.spec)
    };
    let (min, steps) = random::shrink(&spec, &d.join("shrink"), &shape, &mut fails);
    assert!(bad(&min) && steps > 0 && runs > steps);
    assert_eq!(min.layers.len(), 1, "{min:?}");
    let l = min.layers[0];
    assert!(
        l.out_ch == 2 && !l.bias && (min.h * min.w) <= spec.h * spec.w,
        "{min:?}"
    );
    // Minimal: no smaller valid version still fails.
    for s in random::shrink_steps(&min) {
        if Candidate::check(&s, &d.join("check"), "c", &shape).is_ok() {
            assert!(!bad(&s), "{s:?} is smaller and still fails");
        }
    }
}

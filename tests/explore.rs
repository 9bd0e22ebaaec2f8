//! `edgelearn explore` (issue 29) on the small MNIST network: RTL cycles per image from
//! the counters (bit-exact, equal to the formulas and to `edgelearn train --lanes L`),
//! XC7Z020 resources and fit, a lane count the configuration cannot take named with its
//! key, the Pareto front and plot, a rerun that reuses every finished step, and a user's
//! file that is not overwritten. (Place-and-route on the ECP5 takes minutes a point; its
//! sweep is in docs/BENCHMARKS.md, its flow tested in tests/synth.rs.)

use crate::common;

use common::cli::{argv, read_json, run_exit, run_ok, s, tmp, weights_sha as sha};

#[test]
fn explore_sweeps_lanes_and_reuses_finished_steps() {
    let d = tmp("explore");
    let (report, plot, work) = (d.join("r.json"), d.join("r.png"), d.join("work"));
    let line = "explore --config configs/mnist-small.toml --data data/mnist-10k --lanes 4,16 \
                --part xc7z020 --images 6 --jobs 2";
    let more = [
        "--work",
        s(&work),
        "--report",
        s(&report),
        "--plot",
        s(&plot),
    ];
    let t = std::time::Instant::now();
    let (stdout, stderr) = run_ok(&argv(line, &more));
    eprintln!("{stdout}first sweep: {:.1} s", t.elapsed().as_secs_f64());
    assert_eq!(stderr.matches(": running").count(), 6, "{stderr}");
    assert!(stdout.contains("| lanes | cycles/image |"), "{stdout}");
    let r = read_json(&report);
    assert_eq!(r["generator"], "edgelearn explore");
    let points = r["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    // (8 lanes and the read timings: `explore_sweeps_the_timing_options`, without synthesis.)
    for (p, lanes) in points.iter().zip([4]) {
        assert_eq!(p["lanes"], lanes);
        let rtl = &p["rtl"]["Ok"];
        assert_eq!(rtl["bit_exact"], true, "lanes {lanes}: {p}");
        assert_eq!(rtl["images"], 6);
        // The cores' counters equal the cycle formulas at every lane count.
        assert_eq!(rtl["core_cycles"], p["model_core_cycles"], "lanes {lanes}");
        assert_eq!(p["cycles_source"], "rtl");
        // The RTL's weights are `edgelearn train --lanes L`'s on the same images, and the
        // golden epoch's are `edgelearn train --lanes L`'s on the whole split.
        let train = format!(
            "train --config configs/mnist-small.toml --data data/mnist-10k --quiet --lanes {lanes}"
        );
        let few = run_ok(&argv(&train, &["--images", "6", "--test-images", "0"])).0;
        assert_eq!(rtl["weights_sha256"], sha(&few).as_str(), "lanes {lanes}");
        let epoch = run_ok(&argv(&train, &[])).0;
        assert_eq!(p["golden"]["Ok"]["weights_sha256"], sha(&epoch).as_str());
        assert_eq!(p["golden"]["Ok"]["train_images"], 8000);
        let x = &p["parts"]["xc7z020"]["Ok"];
        assert_eq!(x["fits"], true, "{x}");
        let used = |m: &str| {
            x["checks"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c[0] == m)
                .unwrap_or_else(|| panic!("no {m} in {x}"))[1]
                .as_f64()
                .unwrap()
        };
        assert!(
            used("DSP48E1") > 0.0 && used("BRAM36") > 0.0 && used("LUT") > 0.0,
            "{x}"
        );
        let ips = p["images_per_second"].as_f64().unwrap();
        let cpi = rtl["cycles_per_image"].as_f64().unwrap();
        assert!(
            (ips - 75e6 / cpi).abs() < 1e-6,
            "images/s at --freq without an Fmax"
        );
    }
    // 16 lanes: a weight-update pass of FC core 0 would outrun the LFSR's period.
    let p16 = &points[1];
    for step in [&p16["rtl"], &p16["golden"], &p16["parts"]["xc7z020"]] {
        let e = step["Err"].as_str().unwrap_or_else(|| panic!("{p16}"));
        assert!(
            e.contains("fc[0].pieces") && e.contains("--lanes 16"),
            "{e}"
        );
    }
    assert!(
        stdout.contains("lanes 16, RTL, golden model, xc7z020: "),
        "{stdout}"
    );
    let front = r["pareto"].as_array().unwrap();
    assert!(
        !front.is_empty() && front.iter().all(|l| l == "4"),
        "{front:?}"
    );
    let png = std::fs::read(&plot).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");

    // The same sweep again: every step reused, the same points.
    let (_, stderr) = run_ok(&argv(line, &more));
    assert_eq!(stderr.matches("(reused)").count(), 6, "{stderr}");
    assert!(!stderr.contains(": running"), "{stderr}");
    assert_eq!(read_json(&report)["points"], r["points"]);

    // A report path holding someone else's file is not overwritten.
    let theirs = d.join("theirs.json");
    std::fs::write(&theirs, "{}").unwrap();
    let (_, stderr) = run_exit(
        &argv(line, &["--work", s(&work), "--report", s(&theirs)]),
        2,
    );
    assert!(
        stderr.contains("was not written by edgelearn explore"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&theirs).unwrap(), "{}");
}

/// Both timing options at 4 and 8 lanes with a conv core of two channels at a time
/// (D-CONV-PARALLEL), without synthesis: registered reads take the formula's extra cycles
/// (one in INF, one per piece in WU) and end with the same weights; the conv core's
/// counters equal its formula with two channels at a time, and the weights are those of
/// one channel at a time (the first test's 4-lane point and `edgelearn train`).
#[test]
fn explore_sweeps_the_timing_options() {
    let d = tmp("explore-timing");
    let report = d.join("r.json");
    run_ok(&argv(
        "explore --config configs/mnist-small.toml --data data/mnist-10k --lanes 4,8 \
         --timing base,registered --conv-parallel 2 --part none --images 4 --jobs 2 --quiet",
        &["--work", s(&d.join("work")), "--report", s(&report)],
    ));
    let r = read_json(&report);
    let points = r["points"].as_array().unwrap();
    let labels: Vec<&str> = points
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["4 cp2", "8 cp2", "4 rr cp2", "8 rr cp2"]);
    let train = "train --config configs/mnist-small.toml --data data/mnist-10k --quiet \
                 --images 4 --test-images 0 --lanes 4";
    assert_eq!(
        points[0]["rtl"]["Ok"]["weights_sha256"],
        sha(&run_ok(&argv(train, &[])).0).as_str(),
        "two conv channels at a time: the weights of `edgelearn train`"
    );
    for p in points {
        assert_eq!(p["conv_parallel"], 2);
        assert!(p["design"].as_str().unwrap().ends_with("_cp2"), "{p}");
        assert_eq!(p["rtl"]["Ok"]["core_cycles"], p["model_core_cycles"], "{p}");
    }
    for (base, rr) in [(&points[0], &points[2]), (&points[1], &points[3])] {
        let (b, r) = (&base["rtl"]["Ok"], &rr["rtl"]["Ok"]);
        assert_eq!(b["bit_exact"], true);
        assert_eq!(r["bit_exact"], true);
        assert_eq!(
            b["weights_sha256"], r["weights_sha256"],
            "the same arithmetic"
        );
        assert_eq!(r["core_cycles"], rr["model_core_cycles"]);
        assert!(r["design"].as_str().unwrap().contains("_rr"), "{r}");
        // FC core 0 of the small network: two pieces, so INF + 1 and WU + 2.
        let fc0 = |p: &serde_json::Value| p["core_cycles"][1].as_u64().unwrap();
        assert_eq!(fc0(r), fc0(b) + 3);
        assert!(rr["parts"].as_object().unwrap().is_empty());
    }
}

#[test]
fn explore_refuses_bad_arguments_with_a_clear_error() {
    let d = tmp("explore-bad");
    let base = "explore --config configs/mnist-small.toml --data data/mnist-10k";
    let r = d.join("r.json");
    for (more, want) in [
        (
            &["--lanes", "0"][..],
            "--lanes: give lane counts of at least 1",
        ),
        (&["--part", "virtex7"], "unknown target `virtex7`"),
        (&["--part", "ice40-up5k"], "far larger than an iCE40 UP5K"),
        (
            &["--images", "9000"],
            "--images 9000: the training split has 8000 images",
        ),
        (&["--jobs", "0"], "--jobs must be at least 1"),
        (&["--timing", "fast"], "--timing fast: give base"),
        (
            &["--conv-parallel", "3"],
            "--conv-parallel 3: the conv core is built with [1, 2, 4]",
        ),
    ] {
        let mut args: Vec<&str> = more.to_vec();
        args.extend(["--report", s(&r)]);
        let (_, stderr) = run_exit(&argv(base, &args), 2);
        assert!(stderr.contains(want), "{more:?}: {stderr}");
    }
    assert!(!r.exists());
    // A work directory holding someone else's files is not written into.
    let theirs = d.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let (_, stderr) = run_exit(&argv(base, &["--work", s(&theirs), "--report", s(&r)]), 2);
    assert!(
        stderr.contains("is not an edgelearn explore work directory"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 1);
}

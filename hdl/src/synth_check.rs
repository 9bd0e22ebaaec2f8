//! Test-only: synthesize a block's Verilog with Yosys and lint it with Verilator.
//! Tools must be installed (`make test` installs them); a missing tool fails the test.

use crate::design::verilog_named;
use rust_hdl::prelude::*;
use std::process::Command;

/// Emit `block` as `name`, run `yosys synth -top name` and `verilator --lint-only`.
pub fn assert_synthesizable<B: Block>(name: &str, block: B) {
    check(name, block, "synth")
}

/// As [`assert_synthesizable`], with Yosys elaborating (`hierarchy`, `proc`) instead of
/// synthesizing: for tops whose generic synthesis takes minutes (memories become flip-flops).
pub fn assert_elaborates<B: Block>(name: &str, block: B) {
    check(name, block, "hierarchy -check; proc")
}

fn check<B: Block>(name: &str, mut block: B, yosys: &str) {
    block.connect_all();
    let v = verilog_named(name, &block).expect("structural check");
    // Under the target directory (the test binary is target/<profile>/deps/NAME), never the
    // system temp dir or the source tree.
    let exe = std::env::current_exe().expect("the test binary's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary lives under target/<profile>/deps");
    let dir = target
        .join("edgelearn")
        .join("synth-check")
        .join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.v"));
    std::fs::write(&file, &v).unwrap();
    let out = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {}; hierarchy -top {name}; {}; check -assert",
            file.display(),
            if yosys == "synth" {
                format!("synth -top {name}")
            } else {
                yosys.to_string()
            }
        ))
        .output()
        .expect("yosys must be installed (make test installs it)");
    assert!(
        out.status.success(),
        "yosys failed on {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The Verilator the kit uses (D-VERILATOR-VERSION): `$EDGELEARN_VERILATOR`, else PATH.
    let verilator = std::env::var("EDGELEARN_VERILATOR")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "verilator".to_string());
    let out = Command::new(verilator)
        .args(["--lint-only", "-Wall"])
        .args(crate::VERILATOR_LINT_WAIVERS)
        .args(["--top-module", name])
        .arg(&file)
        .output()
        .expect("verilator must be installed (make test installs it)");
    assert!(
        out.status.success(),
        "verilator lint failed on {name}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

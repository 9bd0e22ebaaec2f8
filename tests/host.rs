//! The host program (fpga/host/lel_host.c, the thesis's PS program) compiles with gcc
//! against the generated header, as a bare-metal build would, and does not without it (so
//! the header, not hard-coded offsets, is what it uses). The same sequence runs in Rust on
//! the Verilated platform through AXI in tests/platform_axi.rs.

use crate::common;

use common::cli::{root, tmp};
use std::process::Command;

fn gcc(extra: &[&str], out: &std::path::Path) -> std::process::Output {
    let host = root().join("fpga/host");
    Command::new("gcc")
        .args([
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-ffreestanding",
            "-c",
        ])
        .args(extra)
        .arg("-I")
        .arg(&host)
        .arg(host.join("lel_host.c"))
        .arg("-o")
        .arg(out)
        .output()
        .expect("gcc (make tools installs it)")
}

#[test]
fn the_host_program_compiles_against_the_generated_header() {
    let d = tmp("gcc");
    let obj = d.join("lel_host.o");
    let out = gcc(&[], &obj);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::metadata(&obj).unwrap().len() > 0);
    // With progress printing (a hosted printf), as a board build with xil_printf would.
    let out = gcc(
        &["-include", "stdio.h", "-DLEL_PRINTF=printf"],
        &d.join("p.o"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the header's definitions the program does not compile.
    let out = gcc(&["-DLEL_PLATFORM_REGS_H"], &d.join("no.o"));
    assert!(
        !out.status.success(),
        "compiled without the register header"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("LEL_PLATFORM_"));
}

//! The host program (fpga/host/lel_host.c, the thesis's PS program) compiles with gcc
//! against the generated header, as a bare-metal build would, and does not without it (so
//! the header, not hard-coded offsets, is what it uses); the header's `_RESET` macros give
//! the description's reset values. The same sequence runs in Rust on the Verilated platform
//! through AXI in tests/platform_axi.rs.

use crate::common;

use common::cli::{root, tmp};
use std::path::Path;
use std::process::Command;

/// gcc, strict C99 against the generated header in fpga/host, compiling `src` to `out`
/// with `extra` flags.
fn gcc_on(src: &Path, extra: &[&str], out: &Path) -> std::process::Output {
    Command::new("gcc")
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"])
        .args(extra)
        .arg("-I")
        .arg(root().join("fpga/host"))
        .arg(src)
        .arg("-o")
        .arg(out)
        .output()
        .expect("gcc (make tools installs it)")
}

/// The host program compiled (not linked) as a bare-metal build would, with `extra` flags.
fn gcc(extra: &[&str], out: &Path) -> std::process::Output {
    let flags: Vec<&str> = ["-ffreestanding", "-c"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    gcc_on(&root().join("fpga/host/lel_host.c"), &flags, out)
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

/// The header's `_RESET` macros, compiled and run, give the reset values the description
/// resolves for a design (`edgelearn_fpga::regmap`, the same as `edgelearn regs --design`):
/// plain constants, and the macros of the design's parameters (IN_LEVEL's depth, IMAGE_BEATS).
#[test]
fn the_headers_reset_macros_give_the_descriptions_values() {
    use edgelearn_fpga::regmap::{self, RegMap};
    let map = RegMap::load(&root().join(regmap::DESCRIPTION)).unwrap();
    let e = edgelearn_verif::rtl::designs::entry("lel_platform_axi_mnist").unwrap();
    let params =
        edgelearn_fpga::regcheck::design_parameters(&e.platform_config().unwrap()).unwrap();
    let mut body = String::new();
    let mut want = String::new();
    for r in &map.registers {
        let names: Vec<String> = r
            .reset_terms()
            .unwrap()
            .into_iter()
            .filter_map(|(_, _, v)| match v {
                regmap::ResetValue::Parameter(p) => Some(p),
                regmap::ResetValue::Number(_) => None,
            })
            .collect();
        let call = if names.is_empty() {
            format!("LEL_PLATFORM_{}_RESET", r.name)
        } else {
            let args: Vec<String> = names.iter().map(|p| format!("{}u", params[p])).collect();
            format!("LEL_PLATFORM_{}_RESET({})", r.name, args.join(", "))
        };
        body += &format!("    printf(\"{} %08x\\n\", (unsigned)({call}));\n", r.name);
        want += &format!("{} {:08x}\n", r.name, r.reset_value(&params).unwrap());
    }
    let d = tmp("resets");
    let src = d.join("resets.c");
    std::fs::write(
        &src,
        format!("#include <stdio.h>\n#include \"lel_platform_regs.h\"\nint main(void) {{\n{body}    return 0;\n}}\n"),
    )
    .unwrap();
    let exe = d.join("resets");
    let out = gcc_on(&src, &[], &exe);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
    assert!(want.contains("IN_LEVEL 01000000\n") && want.contains("IMAGE_BEATS 000000c4\n"));
}

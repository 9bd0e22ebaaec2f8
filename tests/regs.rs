//! The register map generated from hdl/regs/lel_platform.toml: the files in the repository
//! are what `edgelearn regs` generates now (Verilog decode, Rust module, C header, Markdown),
//! a stale file is reported, and nothing the user wrote is overwritten without --force.
//! That the RTL answers as the map says is checked through AXI in tests/platform_axi.rs.

mod common;

use common::cli::{edgelearn, root, s, tmp};
use edgelearn_fpga::regmap::{self, RegMap};

#[test]
fn the_generated_files_are_up_to_date() {
    let map = RegMap::load(&root().join(regmap::DESCRIPTION)).unwrap();
    let stale = regmap::stale(&map, &root()).unwrap();
    assert!(
        stale.is_empty(),
        "stale generated files {stale:?}: run `edgelearn regs`"
    );
    let out = edgelearn(&["regs", "--check", "--root", s(&root())]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_stale_file_is_named_and_a_users_file_is_kept() {
    let dir = tmp("regs", "stale");
    std::fs::create_dir_all(dir.join("hdl/regs")).unwrap();
    std::fs::copy(
        root().join(regmap::DESCRIPTION),
        dir.join(regmap::DESCRIPTION),
    )
    .unwrap();
    let out = edgelearn(&["regs", "--root", s(&dir)]);
    assert!(out.status.success());
    let check = edgelearn(&["regs", "--check", "--root", s(&dir)]);
    assert!(check.status.success());
    // The description changes: the check names every generated file.
    let desc = dir.join(regmap::DESCRIPTION);
    let text = std::fs::read_to_string(&desc).unwrap();
    std::fs::write(&desc, text.replace("offset = 0x07c", "offset = 0x3fc")).unwrap();
    let check = edgelearn(&["regs", "--check", "--root", s(&dir)]);
    assert_eq!(check.status.code(), Some(1));
    let said = String::from_utf8_lossy(&check.stdout);
    for f in [
        "platform_regs.v",
        "platform_regs.rs",
        "lel_platform_regs.h",
        "registers.md",
    ] {
        assert!(said.contains(f), "{f} not named in: {said}");
    }
    // A file the user wrote in a generated file's place is kept.
    std::fs::write(dir.join("docs/registers.md"), "my notes\n").unwrap();
    let out = edgelearn(&["regs", "--root", s(&dir)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    assert_eq!(
        std::fs::read_to_string(dir.join("docs/registers.md")).unwrap(),
        "my notes\n"
    );
    assert!(edgelearn(&["regs", "--root", s(&dir), "--force"])
        .status
        .success());
}

#[test]
fn a_broken_description_is_a_clear_error() {
    let dir = tmp("regs", "broken");
    std::fs::create_dir_all(dir.join("hdl/regs")).unwrap();
    let text = std::fs::read_to_string(root().join(regmap::DESCRIPTION)).unwrap();
    std::fs::write(
        dir.join(regmap::DESCRIPTION),
        text.replace("offset = 0x07c", "offset = 0x078"),
    )
    .unwrap();
    let out = edgelearn(&["regs", "--root", s(&dir)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("register ID: offset 0x78 overlaps"), "{err}");
    let out = edgelearn(&["regs", "--root", s(&dir.join("nowhere"))]);
    assert_eq!(out.status.code(), Some(2));
}

//! The register maps generated from hdl/regs/lel_platform.toml (Verilog decode, Rust module,
//! C header, Markdown) and hdl/regs/cnn_engine.toml (the engine's Rust module with the
//! loader's encoder, the rust-hdl layer-register decode, Markdown): the files in the
//! repository are what `edgelearn regs` generates now, a stale file is reported, and nothing
//! the user wrote is overwritten without --force; `regs --design` resolves the reset values
//! for a design and `regs --verify` checks its RTL against the description (and fails on a
//! description that disagrees with it). That the RTL answers as the maps say is checked in
//! tests/platform_axi.rs (every platform top) and through the engine's host port in
//! tests/cnn_rtl.rs (front-door load and read-back).

use crate::common;

use common::cli::{edgelearn, root, s, tmp};
use edgelearn_fpga::cnn_regs;
use edgelearn_fpga::regmap::{self, RegMap};

/// A repository root under `dir` with both descriptions.
fn with_descriptions(dir: &std::path::Path) {
    std::fs::create_dir_all(dir.join("hdl/regs")).unwrap();
    for d in [regmap::DESCRIPTION, cnn_regs::DESCRIPTION] {
        std::fs::copy(root().join(d), dir.join(d)).unwrap();
    }
}

#[test]
fn the_generated_files_are_up_to_date() {
    let map = RegMap::load(&root().join(regmap::DESCRIPTION)).unwrap();
    let mut stale = regmap::stale(&map, &root()).unwrap();
    let engine = cnn_regs::load(&root()).unwrap();
    stale.extend(cnn_regs::stale(&engine, &root()).unwrap());
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
    let dir = tmp("stale");
    with_descriptions(&dir);
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
    // The engine's description changes: its three files are named.
    let edesc = dir.join(cnn_regs::DESCRIPTION);
    let etext = std::fs::read_to_string(&edesc).unwrap();
    std::fs::write(&edesc, etext.replace("\"29:25\"", "\"30:25\"")).unwrap();
    let check = edgelearn(&["regs", "--check", "--root", s(&dir)]);
    assert_eq!(check.status.code(), Some(1));
    let said = String::from_utf8_lossy(&check.stdout);
    for f in [
        "engine/regs.rs",
        "layer_decode.rs",
        "cnn-engine-registers.md",
    ] {
        assert!(said.contains(f), "{f} not named in: {said}");
    }
    std::fs::write(&edesc, etext).unwrap();
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
    let dir = tmp("broken");
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
    // The engine's description: an overlap of two layer-register fields names them.
    let dir = tmp("broken-engine");
    with_descriptions(&dir);
    let edesc = dir.join(cnn_regs::DESCRIPTION);
    let etext = std::fs::read_to_string(&edesc).unwrap();
    std::fs::write(
        &edesc,
        etext.replace(
            "\"19:10\", description = \"Input columns.\"",
            "\"20:10\", description = \"Input columns.\"",
        ),
    )
    .unwrap();
    let out = edgelearn(&["regs", "--root", s(&dir)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("layer field IN_PASSES overlaps"), "{err}");
}

/// `edgelearn regs --design D` prints every register's reset value resolved for D (the
/// FIFO depths, IMAGE_BEATS and the weight words from its shapes); a design without the
/// map, or --verify without a design, is a clear error.
#[test]
fn reset_values_are_resolved_per_design() {
    let out = edgelearn(&["regs", "--design", "lel_platform_axi_mnist"]);
    let said = common::cli::ok(&out);
    for want in [
        "parameter IMAGE_BEATS  196",
        "parameter IN_DEPTH     256",
        "parameter FC0_WORDS    46080",
        "0x064     IN_LEVEL       ro     0x01000000",
        "0x070     IMAGE_BEATS    ro     0x000000c4",
        "0x07c     ID             ro     0x4c454c31",
        "0x080+4i  LR_TABLE[16]   rw     0x00000000",
    ] {
        assert!(said.contains(want), "{want:?} not in:\n{said}");
    }
    let said = common::cli::ok(&edgelearn(&[
        "regs",
        "--design",
        "lel_platform",
        "--lanes",
        "8",
    ]));
    assert!(said.starts_with("lel_platform_l8: "), "{said}");
    for (args, want) in [
        (
            &["regs", "--design", "lel_fc_core0"][..],
            "lel_fc_core0 has no register map",
        ),
        (&["regs", "--design", "lel_nope"][..], "lel_nope"),
        (&["regs", "--verify"][..], "--verify needs the design"),
        (
            &["regs", "--design", "lel_platform", "--lanes", "3"][..],
            "lanes",
        ),
    ] {
        let out = edgelearn(args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{args:?}: {text}");
        assert!(text.contains(want), "{args:?}: {want:?} not in {text}");
        assert!(!text.contains("panicked"), "{args:?}: {text}");
    }
}

/// `edgelearn regs --config C --verify` checks the RTL against the description alone and
/// passes; with the description's LR_LEN `max` taken out (a description that disagrees
/// with the RTL, as docs/registers.md once did), it fails naming LR_LEN, what was written,
/// what the description says and what the RTL answered.
#[test]
fn verify_checks_the_rtl_against_the_description() {
    let dir = tmp("verify");
    with_descriptions(&dir);
    let cfg = dir.join("tiny.toml");
    std::fs::write(&cfg, common::TINY_PLATFORM).unwrap();
    let args = |root: &std::path::Path| {
        edgelearn(&[
            "regs",
            "--root",
            s(root),
            "--config",
            s(&cfg),
            "--verify",
            "--backends",
            "verilator",
        ])
    };
    // The passing run also writes its waveform, which `vcd list` reads.
    let vcd = dir.join("regs.vcd");
    let said = common::cli::ok(&edgelearn(&[
        "regs",
        "--root",
        s(&dir),
        "--config",
        s(&cfg),
        "--verify",
        "--backends",
        "verilator",
        "--vcd",
        s(&vcd),
    ]));
    assert!(
        said.contains("verilator: 68 register words and 956 reserved")
            && said.contains("every register as described"),
        "{said}"
    );
    let listed = common::cli::ok(&edgelearn(&["vcd", "list", s(&vcd)]));
    assert!(listed.contains("s_axi_awaddr"), "{listed}");
    let out = edgelearn(&[
        "regs",
        "--config",
        s(&cfg),
        "--verify",
        "--backends",
        "icarus",
        "--vcd",
        s(&vcd),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--vcd needs verilator or native"));
    let desc = dir.join(regmap::DESCRIPTION);
    let text = std::fs::read_to_string(&desc).unwrap();
    std::fs::write(&desc, text.replace("max = 16, ", "")).unwrap();
    let out = args(&dir);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("divergences in LR_LEN\n"), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("LR_LEN (0x028) after writing 0xffffffff (strobes 1111) over "))
        .unwrap_or_else(|| panic!("no LR_LEN line for all ones in {said}"));
    assert!(
        line.ends_with("the description says OKAY 0x0000001f, the RTL answered OKAY 0x00000010"),
        "{line}"
    );
}

/// `edgelearn regs --design cnn_engine_p16 --verify` checks the engine's host port against
/// `hdl/regs/cnn_engine.toml`: every layer-register, schedule and bias word read back, and
/// the control registers' fields. A description whose STREAM.WIDTH is a bit narrower than
/// the RTL's fails, naming STREAM and the bit the RTL kept.
#[test]
fn verify_checks_the_engine_host_port_against_its_description() {
    let dir = tmp("verify-engine");
    with_descriptions(&dir);
    let run = || {
        edgelearn(&[
            "regs",
            "--root",
            s(&dir),
            "--design",
            "cnn_engine_p16",
            "--verify",
            "--backends",
            "verilator",
        ])
    };
    let said = common::cli::ok(&run());
    assert!(
        said.contains("0x100000   LAYER_REGS       512 words"),
        "{said}"
    );
    // 7 registers, 32 LAYER_CYCLES, 32 x 16 layer words, 2048 x 3 schedule words, 512 bias
    // bytes.
    assert!(
        said.contains("verilator: 7207 register words and 26 reserved")
            && said.contains("every register as described"),
        "{said}"
    );
    let desc = dir.join(cnn_regs::DESCRIPTION);
    let text = std::fs::read_to_string(&desc).unwrap();
    std::fs::write(&desc, text.replace("bits = \"17:8\"", "bits = \"16:8\"")).unwrap();
    let out = run();
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("divergences in STREAM\n"), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("STREAM (0x006) after writing 0xffffffff"))
        .unwrap_or_else(|| panic!("no STREAM line for all ones in {said}"));
    assert!(
        line.ends_with("the description says - 0x0001ffff, the RTL answered - 0x0003ffff"),
        "{line}"
    );
    let out = edgelearn(&["regs", "--design", "cnn_engine_p16", "--lanes", "8"]);
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && text.contains("lanes are the LEL platform's"),
        "{text}"
    );
}

//! `edgelearn vivado`: the generated Vivado scripts run to their end under a stand-in for
//! Vivado (fpga/vivado-stub.tcl on `tclsh`) that records every call and fails on any command
//! it does not know; the part, the sources, the constraints, the block design and the runs
//! are read from the record. Also the overwrite guard and the errors.

use crate::common;

use common::cli::{edgelearn, root, s, tmp};
use edgelearn_hdl::design::{Direction, PortSpec};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// One recorded call: the script it came from, the command, its arguments.
struct Call {
    script: String,
    cmd: String,
    args: Vec<String>,
}

/// The record of a stub run.
struct Log(Vec<Call>);

impl Log {
    /// Calls of `cmd` made by the script whose file name is `script`.
    fn of<'a>(&'a self, script: &'a str, cmd: &'a str) -> impl Iterator<Item = &'a Call> + 'a {
        self.0
            .iter()
            .filter(move |c| c.cmd == cmd && c.script.ends_with(script))
    }

    /// Whether some call of `cmd` by `script` has all of `args` among its arguments.
    fn has(&self, script: &str, cmd: &str, args: &[&str]) -> bool {
        self.of(script, cmd)
            .any(|c| args.iter().all(|a| c.args.iter().any(|x| x == a)))
    }

    /// Position of the first call of `cmd` by `script` with `args`.
    fn index(&self, script: &str, cmd: &str, args: &[&str]) -> Option<usize> {
        self.0.iter().position(|c| {
            c.cmd == cmd
                && c.script.ends_with(script)
                && args.iter().all(|a| c.args.iter().any(|x| x == a))
        })
    }
}

/// Runs `scripts` under the Vivado stub; the stub's output on failure.
fn run_stub(dir: &Path, scripts: &[&str]) -> Result<Log, String> {
    let log = dir.join("stub.log");
    let out = Command::new("tclsh")
        .arg(root().join("fpga/vivado-stub.tcl"))
        .arg(&log)
        .args(scripts.iter().map(|f| dir.join(f)))
        .current_dir(dir)
        .output()
        .expect("tclsh must be installed (`make tools` installs the Debian package tcl)");
    if !out.status.success() {
        return Err(text(&out));
    }
    let mut calls = Vec::new();
    let mut script = String::new();
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let mut f = line.split('\x1f').map(String::from);
        let cmd = f.next().unwrap();
        let args: Vec<String> = f.collect();
        match cmd.as_str() {
            "source" => script = args[0].clone(),
            "end" => script.clear(),
            _ => {}
        }
        calls.push(Call {
            script: script.clone(),
            cmd,
            args,
        });
    }
    assert_eq!(
        calls.last().map(|c| c.cmd.as_str()),
        Some("end"),
        "the stub did not reach the end"
    );
    Ok(Log(calls))
}

const SCRIPTS: &[&str] = &[
    "create_project.tcl",
    "package_ip.tcl",
    "constraints/pynq-z1.xdc",
];

/// The `.v` files that manifest.json in `src` lists.
fn manifest_sources(src: &Path) -> BTreeSet<PathBuf> {
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(src.join("manifest.json")).unwrap()).unwrap();
    m["blocks"]
        .as_object()
        .unwrap()
        .values()
        .map(|b| src.join(b["file"].as_str().unwrap()))
        .collect()
}

/// The files that `script` adds as design sources (add_files without `-fileset`).
fn added_sources(log: &Log, script: &str) -> BTreeSet<PathBuf> {
    log.of(script, "add_files")
        .filter(|c| !c.args.iter().any(|a| a == "-fileset"))
        .flat_map(|c| c.args.iter().filter(|a| !a.starts_with('-')))
        .map(PathBuf::from)
        .collect()
}

/// Everything the brief asks of both scripts, for a project of `top` in `dir`.
fn check_project(dir: &Path, top: &str, log: &Log) {
    let dir = std::fs::canonicalize(dir).unwrap();
    // The part, and the board part only behind its guard (no board files under the stub).
    assert!(log.has(
        "create_project.tcl",
        "create_project",
        &["-part", "xc7z020clg400-1"]
    ));
    assert!(log.has(
        "package_ip.tcl",
        "create_project",
        &["-part", "xc7z020clg400-1"]
    ));
    assert!(log.has("create_project.tcl", "get_board_parts", &["-quiet"]));
    assert!(!log.has("create_project.tcl", "set_property", &["board_part"]));
    // Exactly the emitted sources, in both scripts.
    let emitted = manifest_sources(&dir.join("src"));
    assert!(emitted.iter().all(|f| f.is_file()) && !emitted.is_empty());
    assert_eq!(added_sources(log, "create_project.tcl"), emitted);
    assert_eq!(added_sources(log, "package_ip.tcl"), emitted);
    // The constraints: the repository's file, copied, added as a constraint.
    let xdc = dir.join("constraints/pynq-z1.xdc");
    assert!(log.has(
        "create_project.tcl",
        "add_files",
        &["-fileset", "constrs_1", s(&xdc)]
    ));
    let copy = std::fs::read_to_string(&xdc).unwrap();
    let original = std::fs::read_to_string(root().join("constraints/pynq-z1.xdc")).unwrap();
    assert!(copy.starts_with("# Generated by edgelearn") && copy.ends_with(&original));
    // The block design.
    for vlnv in [
        "xilinx.com:ip:processing_system7:5.5",
        "xilinx.com:ip:axi_dma:7.1",
        "xilinx.com:ip:axi_interconnect:2.1",
        "xilinx.com:ip:smartconnect:1.0",
        "xilinx.com:ip:proc_sys_reset:5.0",
    ] {
        assert!(
            log.has("create_project.tcl", "create_bd_cell", &["-vlnv", vlnv]),
            "{vlnv}"
        );
    }
    assert!(log.has(
        "create_project.tcl",
        "create_bd_cell",
        &["-type", "module", "-reference", top, "platform"]
    ));
    let ps7 = log
        .of("create_project.tcl", "set_property")
        .find(|c| c.args.iter().any(|a| a.contains("PCW_UIPARAM_DDR_PARTNO")))
        .expect("the PS7 settings");
    for want in [
        "CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ 75",
        "CONFIG.PCW_USE_M_AXI_GP0 1",
        "CONFIG.PCW_USE_S_AXI_HP0 1",
        "CONFIG.PCW_UART0_PERIPHERAL_ENABLE 1",
    ] {
        assert!(ps7.args[1].contains(want), "{want} in {}", ps7.args[1]);
    }
    assert!(log.has(
        "create_project.tcl",
        "connect_bd_net",
        &["ps7/FCLK_CLK0", "platform/clock"]
    ));
    for step in ["validate_bd_design", "make_wrapper", "assign_bd_address"] {
        assert!(log.of("create_project.tcl", step).count() > 0, "{step}");
    }
    // The runs, up to the bitstream, in order.
    let synth = log
        .index("create_project.tcl", "launch_runs", &["synth_1"])
        .unwrap();
    let impl_ = log
        .index(
            "create_project.tcl",
            "launch_runs",
            &["impl_1", "-to_step", "write_bitstream"],
        )
        .expect("impl_1 to write_bitstream");
    let wait = log
        .index("create_project.tcl", "wait_on_run", &["impl_1"])
        .unwrap();
    let wrapper = log
        .index("create_project.tcl", "make_wrapper", &[])
        .unwrap();
    assert!(wrapper < synth && synth < impl_ && impl_ < wait);
    // The IP.
    assert!(log.has(
        "package_ip.tcl",
        "ipx::package_project",
        &["-vendor", "edgelearn", "-library", "lel"]
    ));
    assert!(log.has("package_ip.tcl", "ipx::save_core", &[]));
    // The XDC uses XDC commands only.
    for c in log
        .0
        .iter()
        .filter(|c| c.script.ends_with(".xdc") && c.cmd != "source")
    {
        assert!(
            [
                "set_property",
                "current_design",
                "create_clock",
                "get_ports"
            ]
            .contains(&c.cmd.as_str()),
            "`{}` in the XDC",
            c.cmd
        );
    }
    assert!(log.has(
        "pynq-z1.xdc",
        "set_property",
        &["BITSTREAM.GENERAL.COMPRESS"]
    ));
}

#[test]
fn the_platform_project_runs_to_the_bitstream_under_the_stub() {
    let d = tmp("platform");
    let out = edgelearn(&[
        "vivado",
        "--board",
        "pynq-z1",
        "--out",
        s(&d),
        "--top",
        "lel_platform",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // lel_platform has no AXI ports yet: they are named as unconnected.
    assert!(
        text(&out).contains("unconnected in the block design: s_tdata"),
        "{}",
        text(&out)
    );
    let log = run_stub(&d, SCRIPTS).unwrap();
    check_project(&d, "lel_platform", &log);
    assert!(log.has("create_project.tcl", "connect_bd_net", &["platform/reset"]));
    assert!(!log.has(
        "create_project.tcl",
        "connect_bd_intf_net",
        &["platform/s_axis"]
    ));
}

#[test]
fn a_small_block_gets_the_same_project() {
    let d = tmp("lfsr");
    let out = edgelearn(&[
        "vivado",
        "--out",
        s(&d),
        "--top",
        "lel_lfsr56",
        "--fclk-mhz",
        "75",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    check_project(&d, "lel_lfsr56", &run_stub(&d, SCRIPTS).unwrap());
}

/// The ports of `lel_platform_axi` as its brief gives them.
fn axi_ports() -> Vec<PortSpec> {
    let p = |name: &str, direction, width| PortSpec {
        name: name.into(),
        direction,
        width,
        signed: false,
        lanes: 1,
        lane_width: width,
        clock: name == "clock",
    };
    use Direction::{Input as I, Output as O};
    let mut v = vec![p("clock", I, 1), p("aresetn", I, 1)];
    for (n, d, w) in [
        ("awaddr", I, 12),
        ("awvalid", I, 1),
        ("awready", O, 1),
        ("wdata", I, 32),
        ("wstrb", I, 4),
        ("wvalid", I, 1),
        ("wready", O, 1),
        ("bresp", O, 2),
        ("bvalid", O, 1),
        ("bready", I, 1),
        ("araddr", I, 12),
        ("arvalid", I, 1),
        ("arready", O, 1),
        ("rdata", O, 32),
        ("rresp", O, 2),
        ("rvalid", O, 1),
        ("rready", I, 1),
    ] {
        v.push(p(&format!("s_axi_{n}"), d, w));
    }
    for (n, d, w) in [
        ("tdata", I, 32),
        ("tvalid", I, 1),
        ("tready", O, 1),
        ("tuser", I, 4),
        ("tlast", I, 1),
    ] {
        v.push(p(&format!("s_axis_{n}"), d, w));
        v.push(p(&format!("m_axis_{n}"), if d == I { O } else { I }, w));
    }
    v
}

/// The AXI top's scripts (through the library, with a stand-in module until the top is in
/// the registry) connect every interface and map the 4 KB register window.
#[test]
fn an_axi_top_is_wired_to_the_ps_and_the_dma() {
    use edgelearn_fpga::vivado::{Project, PYNQ_Z1};
    let d = tmp("axi");
    let src = d.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lel_platform_axi.v"),
        "module lel_platform_axi(input clock);\nendmodule\n",
    )
    .unwrap();
    std::fs::write(
        src.join("manifest.json"),
        r#"{"blocks": {"lel_platform_axi": {"file": "lel_platform_axi.v"}}}"#,
    )
    .unwrap();
    let p = Project::new(
        &PYNQ_Z1,
        "lel_platform_axi",
        &axi_ports(),
        vec!["lel_platform_axi.v".into()],
        75.0,
    )
    .unwrap();
    assert!(p.interfaces.unconnected.is_empty());
    edgelearn_sim::emit::write_generated(&d, &p.files(), false).unwrap();
    let log = run_stub(&d, SCRIPTS).unwrap();
    check_project(&d, "lel_platform_axi", &log);
    // The label (TUSER) rides in each 64-bit MM2S beat and is split off on the way.
    for pins in [
        ["ctrl_ic/M01_AXI", "platform/s_axi"],
        ["dma/M_AXIS_MM2S", "label_split/S_AXIS"],
        ["label_split/M_AXIS", "platform/s_axis"],
        ["platform/m_axis", "dma/S_AXIS_S2MM"],
    ] {
        assert!(
            log.has("create_project.tcl", "connect_bd_intf_net", &pins),
            "{pins:?}"
        );
    }
    assert!(log.has(
        "create_project.tcl",
        "connect_bd_net",
        &["rst_fclk0/peripheral_aresetn", "platform/aresetn"]
    ));
    assert!(log.has(
        "create_project.tcl",
        "assign_bd_address",
        &[
            "-offset",
            "0x43C00000",
            "-range",
            "4K",
            "platform/s_axi/reg0"
        ]
    ));
    assert!(log.has(
        "package_ip.tcl",
        "set_property",
        &["value", "s_axi:s_axis:m_axis"]
    ));
    assert!(log.has("package_ip.tcl", "set_property", &["value", "ACTIVE_LOW"]));
    assert!(log.has("package_ip.tcl", "ipx::add_memory_map", &["s_axi"]));
    assert!(log
        .of("package_ip.tcl", "set_property")
        .any(|c| c.args[1].contains("range 4096")));
}

/// The stub is strict: a misspelt command fails the run even inside `catch`, and so does a
/// source that is not there or a pin of a cell that was never created.
#[test]
fn the_stub_fails_on_what_vivado_would_refuse() {
    let d = tmp("strict");
    let out = edgelearn(&["vivado", "--out", s(&d), "--top", "lel_lfsr56"]);
    assert!(out.status.success(), "{}", text(&out));
    let script = std::fs::read_to_string(d.join("create_project.tcl")).unwrap();
    for (from, to, says) in [
        (
            "validate_bd_design\n",
            "validate_bd_desing\n",
            "validate_bd_desing",
        ),
        (
            "validate_bd_design\n",
            "catch {validat_bd_design}\n",
            "validat_bd_design",
        ),
        (
            "[get_bd_pins dma/axi_resetn]",
            "[get_bd_pins dmx/axi_resetn]",
            "no block-design cell `dmx`",
        ),
        ("src lel_lfsr56.v", "src lel_lfsr57.v", "no file"),
        (
            "-reference $top",
            "-reference lel_lfsr",
            "defined in no added source",
        ),
        ("launch_runs impl_1", "list impl_1", "impl_1 failed"),
    ] {
        assert!(script.contains(from), "{from}");
        std::fs::write(d.join("create_project.tcl"), script.replacen(from, to, 1)).unwrap();
        let e = run_stub(&d, &["create_project.tcl"])
            .err()
            .unwrap_or_else(|| panic!("{to} passed"));
        assert!(e.contains(says), "{to}: {e}");
    }
}

#[test]
fn a_users_file_is_kept_unless_forced() {
    let d = tmp("guard");
    std::fs::write(d.join("create_project.tcl"), "# my own script\n").unwrap();
    let out = edgelearn(&["vivado", "--out", s(&d), "--top", "lel_lfsr56"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("create_project.tcl"), "{}", text(&out));
    assert!(text(&out).contains("--force"), "{}", text(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("create_project.tcl")).unwrap(),
        "# my own script\n"
    );
    assert!(
        !d.join("src").exists(),
        "nothing is written when one file is refused"
    );
    // A user's file where the Verilog goes.
    let d2 = tmp("guard-src");
    std::fs::create_dir_all(d2.join("src")).unwrap();
    std::fs::write(d2.join("src/lel_lfsr56.v"), "module mine; endmodule\n").unwrap();
    let out = edgelearn(&["vivado", "--out", s(&d2), "--top", "lel_lfsr56"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("lel_lfsr56.v"), "{}", text(&out));
    // A second run over our own files needs no --force; a user's file needs it.
    let out = edgelearn(&["vivado", "--out", s(&d), "--top", "lel_lfsr56", "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = edgelearn(&["vivado", "--out", s(&d), "--top", "lel_lfsr56"]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn bad_boards_tops_and_clocks_are_clear_errors() {
    let d = tmp("errors");
    for (args, says) in [
        (
            vec!["--board", "zedboard"],
            "unknown board `zedboard`; known boards: pynq-z1",
        ),
        (vec!["--top", "no_such_top"], "lel_platform"),
        (
            vec!["--top", "lel_lfsr56", "--fclk-mhz", "400"],
            "outside 10..=250 MHz",
        ),
    ] {
        let mut a = vec!["vivado", "--out", s(&d)];
        a.extend(args);
        let out = edgelearn(&a);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains(says), "{says}: {}", text(&out));
        assert!(!text(&out).contains("panicked"));
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

/// The default top is `lel_platform_axi`: once it is in the registry, its project connects
/// every port; until then, the error names it.
#[test]
fn the_default_top_is_the_axi_platform() {
    let d = tmp("default");
    let out = edgelearn(&["vivado", "--out", s(&d)]);
    if edgelearn_verif::rtl::designs::names()
        .iter()
        .any(|n| n == "lel_platform_axi")
    {
        assert!(out.status.success(), "{}", text(&out));
        assert!(!text(&out).contains("unconnected"), "{}", text(&out));
        check_project(&d, "lel_platform_axi", &run_stub(&d, SCRIPTS).unwrap());
    } else {
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("lel_platform_axi"), "{}", text(&out));
    }
}

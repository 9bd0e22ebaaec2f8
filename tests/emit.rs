//! `edgelearn emit`: file and module naming, the manifest, compiling every emitted file
//! together, lint, synthesis, and the error cases.

use crate::common;
use common::cli::{exited, read_json, run_exit, run_ok, s, tmp};

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Command;

fn emit_all(dir: &Path) -> Json {
    run_ok(&["emit", "--all", "--out", s(dir)]);
    read_json(&dir.join("manifest.json"))
}

fn ports(manifest: &Json, block: &str) -> Vec<(String, String, u64, bool)> {
    manifest["blocks"][block]["ports"]
        .as_array()
        .unwrap_or_else(|| panic!("{block} missing from manifest"))
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["direction"].as_str().unwrap().to_string(),
                p["width"].as_u64().unwrap(),
                p["signed"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn p(name: &str, dir: &str, width: u64, signed: bool) -> (String, String, u64, bool) {
    (name.to_string(), dir.to_string(), width, signed)
}

#[test]
fn emit_all_names_modules_after_files_and_lists_ports() {
    let dir = tmp("all");
    let manifest = emit_all(&dir);
    let blocks = manifest["blocks"].as_object().unwrap();
    let names: Vec<String> = edgelearn_verif::rtl::designs::names();
    assert_eq!(blocks.len(), names.len());
    for name in &names {
        let text = std::fs::read_to_string(dir.join(format!("{name}.v"))).unwrap();
        let modules: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("module "))
            .map(|l| l.split('(').next().unwrap().trim())
            .collect();
        assert_eq!(modules[0], *name, "top module of {name}.v");
        assert!(!modules.contains(&"top"));
        for m in &modules[1..] {
            assert!(
                m.starts_with(&format!("{name}$")),
                "{name}.v: inner module {m} lacks the prefix"
            );
        }
        assert_eq!(blocks[name.as_str()]["top"], *name);
    }
    let i = "input";
    let o = "output";
    let lfsr = |w| {
        vec![
            p("clock", i, 1, false),
            p("reset", i, 1, false),
            p("seed", i, 17, false),
            p("prog", i, 1, false),
            p("instr", i, 1, false),
            p("out", o, w, false),
        ]
    };
    assert_eq!(ports(&manifest, "lel_lfsr56"), lfsr(56));
    assert_eq!(ports(&manifest, "lel_lfsr60"), lfsr(60));
    assert_eq!(
        ports(&manifest, "lel_tree_comparator"),
        vec![
            p("clock", i, 1, false),
            p("reset", i, 1, false),
            p("data_in", i, 72, true),
            p("instr", i, 1, false),
            p("valid_in", i, 1, false),
            p("data_out", o, 8, true),
            p("valid_out", o, 1, false),
        ]
    );
    assert_eq!(
        ports(&manifest, "lel_matmul"),
        vec![
            p("clock", i, 1, false),
            p("reset", i, 1, false),
            p("data_in", i, 8, true),
            p("weight", i, 24, true),
            p("instr", i, 1, false),
            p("alpha_fc", i, 3, false),
            p("alpha_lc", i, 3, false),
            p("valid_in", i, 1, false),
            p("output_to_fc", o, 32, true),
            p("output_to_lc", o, 32, true),
            p("relu_mask", o, 4, false),
            p("valid_out", o, 1, false),
            p("debug_acc", o, 96, true),
        ]
    );
    assert_eq!(manifest["blocks"]["lel_matmul"]["ports"][3]["lanes"], 4);
    // Clock, reset and the AXI4-Stream input of the FC and conv cores and of the platform.
    let stream_in = [
        p("clock", i, 1, false),
        p("reset", i, 1, false),
        p("s_tdata", i, 32, true),
        p("s_tvalid", i, 1, false),
        p("s_tready", o, 1, false),
        p("s_tuser", i, 4, false),
    ];
    // The FC and conv cores' documented ports (hdl/src/lel/fc_core.rs, conv_core.rs), on
    // which a bench outside this repository relies: the stream input, the stream output,
    // then each core's own.
    let core_stream_out = [
        p("m_tdata", o, 32, true),
        p("m_tvalid", o, 1, false),
        p("m_tready", i, 1, false),
        p("m_tuser", o, 4, false),
        p("m_tlast", o, 1, false),
    ];
    let fc = [
        &stream_in[..],
        &core_stream_out,
        &[
            p("model_cfg", i, 32, false),
            p("seeds", i, 34, false),
            p("instr", i, 3, false),
            p("layer_state", o, 4, false),
            p("lc_data_out", o, 230, true),
            p("lc_valid", o, 1, false),
            p("class_num", o, 4, false),
            p("classify_done", o, 1, false),
        ],
    ]
    .concat();
    for core in ["lel_fc_core0", "lel_fc_core1", "lel_fc_core0_mnist"] {
        assert_eq!(ports(&manifest, core), fc, "{core}");
    }
    let conv = [
        &stream_in[..],
        &core_stream_out,
        &[
            p("model_cfg", i, 32, false),
            p("instr", i, 3, false),
            p("conv_state", o, 4, false),
        ],
    ]
    .concat();
    for core in ["lel_conv_core", "lel_conv_core_mnist"] {
        assert_eq!(ports(&manifest, core), conv, "{core}");
    }
    // The platform's ports (hdl/src/lel/platform.rs; the register map is `platform::regs`):
    // the stream input with a `tlast`, an unsigned stream output, the register port.
    let platform = [
        &stream_in[..],
        &[
            p("s_tlast", i, 1, false),
            p("m_tdata", o, 32, false),
            p("m_tvalid", o, 1, false),
            p("m_tready", i, 1, false),
            p("m_tuser", o, 4, false),
            p("m_tlast", o, 1, false),
            p("reg_addr", i, 8, false),
            p("reg_wdata", i, 32, false),
            p("reg_we", i, 1, false),
            p("reg_rdata", o, 32, false),
        ],
    ]
    .concat();
    for top in ["lel_platform", "lel_platform_mnist"] {
        assert_eq!(ports(&manifest, top), platform, "{top}");
    }
    assert_eq!(
        manifest["blocks"]["lel_matmul"]["ports"][3]["lane_width"],
        6
    );
}

/// Runs an external tool, which must be installed and succeed (else a panic naming `what`,
/// with the tool's exit status and output).
fn tool_ok(what: &str, cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!(
            "{what}: cannot run {:?} (installed?): {e}",
            cmd.get_program()
        )
    });
    exited(&out, 0, what);
}

#[test]
fn emitted_files_compile_together_lint_and_synthesize() {
    let dir = tmp("tools");
    emit_all(&dir);
    let files: Vec<PathBuf> = edgelearn_verif::rtl::designs::names()
        .iter()
        .map(|n| dir.join(format!("{n}.v")))
        .collect();
    tool_ok(
        "icarus",
        Command::new("iverilog")
            .args(["-g2012", "-o", "/dev/null"])
            .args(&files),
    );
    let verilator = edgelearn_sim::tools::find("verilator").expect("verilator installed");
    tool_ok(
        "verilator",
        Command::new(&verilator)
            .args(["--lint-only", "-Wall", "-Wno-MULTITOP"])
            .args(edgelearn_hdl::VERILATOR_LINT_WAIVERS)
            .args(&files),
    );
    for name in edgelearn_verif::rtl::designs::names() {
        tool_ok(
            &format!("verilator lint {name}"),
            Command::new(&verilator)
                .args(["--lint-only", "-Wall"])
                .args(edgelearn_hdl::VERILATOR_LINT_WAIVERS)
                .args(["--top-module", &name])
                .arg(dir.join(format!("{name}.v"))),
        );
        // The cores are synthesized by `make resources` (synth_xilinx, minutes each) and as
        // small instances in their `_is_synthesizable` checks and netlist simulations
        // (tests/fc_core.rs, tests/conv_core.rs); here they are linted.
        if edgelearn_verif::rtl::designs::entry(&name)
            .unwrap()
            .kind
            .is_large()
        {
            continue;
        }
        // Yosys's coarse synthesis (elaboration, processes, memories kept as memories) and its
        // checks (no loops, no multiple or missing drivers): what an emitted file needs to be
        // synthesizable. The fine-grained mapping is the `_is_synthesizable` checks' and
        // `edgelearn synth`'s (tests/synth.rs); here it would cost minutes and catch nothing more.
        let script = format!(
            "read_verilog {}; synth -run :fine -top {name}; check -assert",
            dir.join(format!("{name}.v")).display()
        );
        tool_ok(
            &format!("yosys {name}"),
            Command::new("yosys").args(["-q", "-p", &script]),
        );
    }
}

#[test]
fn emit_unknown_block_lists_valid_names_and_exits_2() {
    let dir = tmp("unknown");
    let (_, err) = run_exit(
        &["emit", "lel_matmul", "no_such_block", "--out", s(&dir)],
        2,
    );
    assert!(err.contains("no_such_block"), "{err}");
    for n in edgelearn_verif::rtl::designs::names() {
        assert!(err.contains(&n), "valid names listed: {err}");
    }
    assert!(
        !dir.join("lel_matmul.v").exists(),
        "nothing is written when a name is wrong"
    );
}

#[test]
fn emit_into_unwritable_dir_is_a_clear_error() {
    let dir = tmp("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (_, err) = run_exit(&["emit", "lel_matmul", "--out", s(&file.join("sub"))], 2);
    assert!(
        err.contains("cannot emit into") && err.contains("a-file/sub"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn emit_does_not_overwrite_foreign_files_without_force() {
    let dir = tmp("foreign");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lel_matmul.v"), "// my own matmul\n").unwrap();
    let (_, err) = run_exit(&["emit", "lel_matmul", "--out", s(&dir)], 2);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("lel_matmul.v")).unwrap(),
        "// my own matmul\n"
    );
    run_ok(&["emit", "lel_matmul", "--force", "--out", s(&dir)]);
    // Re-emitting over edgelearn's own files needs no --force, and keeps other blocks listed.
    run_ok(&["emit", "lel_lfsr56", "--out", s(&dir)]);
    let m = read_json(&dir.join("manifest.json"));
    assert!(m["blocks"]["lel_matmul"].is_object() && m["blocks"]["lel_lfsr56"].is_object());
}

/// `edgelearn blocks --json` prints the registry with what each entry knows: a platform's
/// states, instructions, register map and sub-cores; a block's golden model.
#[test]
fn blocks_json_is_the_registry() {
    let (out, _) = run_ok(&["blocks", "--json"]);
    let all: Json = serde_json::from_str(&out).unwrap();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), edgelearn_verif::rtl::designs::names().len());
    let find = |n: &str| all.iter().find(|e| e["name"] == n).unwrap().clone();
    let p = find("lel_platform_mnist");
    assert_eq!(p["kind"], "platform");
    assert_eq!(p["config"], "mnist");
    assert_eq!(p["states"][0], "PL_IDLE");
    assert_eq!(p["register_map"], "hdl/regs/lel_platform.toml");
    assert_eq!(p["register_parameters"]["IMAGE_BEATS"], 196);
    assert_eq!(p["register_parameters"]["IN_DEPTH"], 256);
    assert!(p["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["name"] == "I_TRAIN" && i["code"] == edgelearn_hdl::lel::instr::TRAIN));
    assert_eq!(p["sub_cores"][2]["alone"], "lel_fc_core1");
    assert_eq!(p["sub_cores"][0]["module"], "lel_platform_mnist$core$conv");
    let m = find("lel_matmul");
    assert_eq!(m["kind"], "block");
    assert_eq!(m["golden_model"], true);
    assert!(m["register_parameters"].is_null());
    assert_eq!(m["states"].as_array().unwrap().len(), 0);
    assert_eq!(find("lel_fc_core1")["kind"], "fc_core");
    assert_eq!(find("lel_fc_core1")["fc_index"], 1);
    let e = find("cnn_engine");
    assert_eq!(e["kind"], "cnn_engine");
    assert_eq!(e["processors"], 64);
    assert_eq!(
        e["states"],
        serde_json::json!(["IDLE", "LOAD", "RUN", "DRAIN", "FETCH", "WAIT"])
    );
    assert_eq!(e["register_map"], "hdl/regs/cnn_engine.toml");
}

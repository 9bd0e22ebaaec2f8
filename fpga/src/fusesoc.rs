//! FuseSoC CAPI2 core files for emitted designs.
//!
//! [`core`] writes `NAME.core` for the emitted `NAME.v` beside it: the core
//! `edgelearn:lel:NAME:0.1.0`, one fileset `rtl` (the Verilog), and the targets
//!
//! | target | tool | what |
//! |---|---|---|
//! | `default` | - | the fileset and the toplevel, for cores that depend on this one |
//! | `sim_icarus` | icarus | compile with `iverilog -g2012` and run `vvp` (the design alone: no bench) |
//! | `sim_verilator` | verilator | `mode: binary` (Verilator 5's own `main`, no C++ bench), the flags of the simulation backends |
//! | `lint` | verilator | `mode: lint-only`, `-Wall` and the waivers of [`edgelearn_hdl::VERILATOR_LINT_WAIVERS`] |
//! | `synth` | yosys | `arch: xilinx` (`synth_xilinx`, the flow of `fpga/resources.sh`) |
//! | `synth_vivado` | vivado | part xc7z020clg400-1 (the PYNQ-Z1's) |
//!
//! Every file is parsed back with `yaml-rust2` and checked ([`validate`]) before it is
//! returned. Nothing here does IO.

use std::fmt::{self, Write as _};
use yaml_rust2::{Yaml, YamlLoader};

/// Version of every generated core.
pub const CORE_VERSION: &str = "0.1.0";

/// The targets of every core, in file order.
pub const TARGETS: &[&str] = &[
    "default",
    "sim_icarus",
    "sim_verilator",
    "lint",
    "synth",
    "synth_vivado",
];

/// Verilator flags of `sim_verilator`: those of the repository's simulation backends
/// (`sim`'s Verilator builds), without the build-only ones.
const VERILATOR_SIM_FLAGS: &[&str] = &[
    "--timing",
    "-Wno-fatal",
    "-Wno-lint",
    "-Wno-style",
    "--x-assign",
    "fast",
    "--x-initial",
    "fast",
];

/// What is wrong with a generated core (a bug in this module, or a name FuseSoC refuses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FusesocError {
    /// The design.
    pub design: String,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for FusesocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FuseSoC core of `{}`: {}", self.design, self.message)
    }
}

impl std::error::Error for FusesocError {}

/// The VLNV of `design`'s core: `edgelearn:lel:NAME:0.1.0`.
pub fn core_name(design: &str) -> String {
    format!("edgelearn:lel:{design}:{CORE_VERSION}")
}

/// A YAML double-quoted string.
fn quoted(s: &str) -> String {
    let mut q = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// A YAML flow sequence of quoted strings.
fn flow(items: &[&str]) -> String {
    let v: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", v.join(", "))
}

/// One target: its tool, the `rtl` fileset, the toplevel and the tool's options (YAML lines
/// at four spaces' indent under `tools: TOOL:`).
fn target(name: &str, tool: Option<&str>, top: &str, options: &[String]) -> String {
    let mut t = format!("  {name}:\n");
    if let Some(tool) = tool {
        let _ = writeln!(t, "    default_tool: {tool}");
    }
    let _ = writeln!(t, "    filesets: [rtl]\n    toplevel: {top}");
    if let Some(tool) = tool {
        let _ = writeln!(t, "    tools:\n      {tool}:");
        for o in options {
            let _ = writeln!(t, "        {o}");
        }
    }
    t
}

/// The targets section of `design`'s core.
fn targets(design: &str) -> String {
    let mut lint = vec!["-Wall"];
    lint.extend(edgelearn_hdl::VERILATOR_LINT_WAIVERS);
    [
        target("default", None, design, &[]),
        target(
            "sim_icarus",
            Some("icarus"),
            design,
            &[format!("iverilog_options: {}", flow(&["-g2012"]))],
        ),
        target(
            "sim_verilator",
            Some("verilator"),
            design,
            &[
                "mode: binary".into(),
                format!("verilator_options: {}", flow(VERILATOR_SIM_FLAGS)),
            ],
        ),
        target(
            "lint",
            Some("verilator"),
            design,
            &[
                "mode: lint-only".into(),
                format!("verilator_options: {}", flow(&lint)),
            ],
        ),
        target("synth", Some("yosys"), design, &["arch: xilinx".into()]),
        target(
            "synth_vivado",
            Some("vivado"),
            design,
            &[format!("part: {}", crate::vivado::PYNQ_Z1.part)],
        ),
    ]
    .concat()
}

/// `(NAME.core, text)` for the emitted `NAME.v` of `design` (its one-line `summary` as the
/// description), checked with [`validate`].
pub fn core(design: &str, summary: &str) -> Result<(String, String), FusesocError> {
    if design.is_empty()
        || !design
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(FusesocError {
            design: design.into(),
            message: "a core name takes letters, digits and `_` only".into(),
        });
    }
    let text = format!(
        "CAPI=2:\n\
         # Generated by edgelearn {}: FuseSoC core of `{design}`. Do not edit; rerun `edgelearn fusesoc`.\n\
         name: {}\n\
         description: {}\n\
         \n\
         filesets:\n\
         \x20 rtl:\n\
         \x20   files:\n\
         \x20     - {design}.v\n\
         \x20   file_type: verilogSource\n\
         \n\
         targets:\n{}",
        env!("CARGO_PKG_VERSION"),
        core_name(design),
        quoted(summary),
        targets(design)
    );
    validate(design, &text)?;
    Ok((format!("{design}.core"), text))
}

/// Checks a core file: the `CAPI=2:` first line, YAML that parses, the name, the `rtl`
/// fileset holding `DESIGN.v` as Verilog, and every target of [`TARGETS`] with the `rtl`
/// fileset, the toplevel `design` and (but `default`) a tool with its options.
pub fn validate(design: &str, text: &str) -> Result<(), FusesocError> {
    let err = |message: String| FusesocError {
        design: design.into(),
        message,
    };
    if text.lines().next() != Some("CAPI=2:") {
        return Err(err("the first line is not `CAPI=2:`".into()));
    }
    let docs = YamlLoader::load_from_str(text).map_err(|e| err(format!("not YAML: {e}")))?;
    let [doc] = docs.as_slice() else {
        return Err(err(format!("{} YAML documents, not one", docs.len())));
    };
    let want = |ok: bool, what: &str| if ok { Ok(()) } else { Err(err(what.into())) };
    want(
        doc["name"].as_str() == Some(core_name(design).as_str()),
        "name is not edgelearn:lel:NAME:VERSION",
    )?;
    let rtl = &doc["filesets"]["rtl"];
    want(
        rtl["file_type"].as_str() == Some("verilogSource")
            && rtl["files"].as_vec() == Some(&vec![Yaml::String(format!("{design}.v"))]),
        "fileset rtl is not [NAME.v] as verilogSource",
    )?;
    let targets = doc["targets"]
        .as_hash()
        .ok_or_else(|| err("no targets".into()))?;
    want(targets.len() == TARGETS.len(), "unexpected targets")?;
    for name in TARGETS {
        check_target(design, name, &doc["targets"][*name])
            .map_err(|m| err(format!("target {name}: {m}")))?;
    }
    Ok(())
}

fn check_target(design: &str, name: &str, t: &Yaml) -> Result<(), String> {
    if t.is_badvalue() {
        return Err("missing".into());
    }
    if t["toplevel"].as_str() != Some(design) {
        return Err("toplevel is not the design".into());
    }
    if t["filesets"].as_vec() != Some(&vec![Yaml::String("rtl".into())]) {
        return Err("filesets is not [rtl]".into());
    }
    if name == "default" {
        return Ok(());
    }
    let tool = t["default_tool"].as_str().ok_or("no default_tool")?;
    if t["tools"][tool].as_hash().is_none_or(|h| h.is_empty()) {
        return Err(format!("no options for {tool}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_parses_and_holds_every_target() {
        let (file, text) = core("lel_lfsr56", "unfolded \"x^17\" LFSR: §4.1.7").unwrap();
        assert_eq!(file, "lel_lfsr56.core");
        let doc = &YamlLoader::load_from_str(&text).unwrap()[0];
        assert_eq!(doc["name"].as_str(), Some("edgelearn:lel:lel_lfsr56:0.1.0"));
        assert_eq!(
            doc["description"].as_str(),
            Some("unfolded \"x^17\" LFSR: §4.1.7")
        );
        let t = &doc["targets"];
        assert_eq!(t["sim_icarus"]["default_tool"].as_str(), Some("icarus"));
        assert_eq!(
            t["sim_verilator"]["tools"]["verilator"]["mode"].as_str(),
            Some("binary")
        );
        let lint = &t["lint"]["tools"]["verilator"];
        assert_eq!(lint["mode"].as_str(), Some("lint-only"));
        let flags: Vec<&str> = lint["verilator_options"]
            .as_vec()
            .unwrap()
            .iter()
            .map(|y| y.as_str().unwrap())
            .collect();
        assert_eq!(flags[0], "-Wall");
        assert_eq!(&flags[1..], edgelearn_hdl::VERILATOR_LINT_WAIVERS);
        assert_eq!(
            t["synth"]["tools"]["yosys"]["arch"].as_str(),
            Some("xilinx")
        );
        assert_eq!(
            t["synth_vivado"]["tools"]["vivado"]["part"].as_str(),
            Some("xc7z020clg400-1")
        );
    }

    #[test]
    fn broken_cores_are_refused() {
        let (_, good) = core("lel_loss", "loss").unwrap();
        let e = validate("lel_loss", &good.replacen("CAPI=2:", "CAPI=1:", 1)).unwrap_err();
        assert!(e.message.contains("CAPI=2"), "{e}");
        let e = validate(
            "lel_loss",
            &good.replace("toplevel: lel_loss", "toplevel: x"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("toplevel"), "{e}");
        let e = validate("lel_loss", &good.replace("verilogSource", "vhdlSource")).unwrap_err();
        assert!(e.message.contains("fileset rtl"), "{e}");
        let e = validate(
            "lel_loss",
            &good.replace("    filesets: [rtl]\n", "    filesets: [rtl\n"),
        );
        assert!(e.unwrap_err().message.contains("not YAML"));
        let e = validate("lel_loss", &good.replace("        arch: xilinx\n", "")).unwrap_err();
        assert!(e.message.contains("target synth"), "{e}");
        assert!(core("bad name", "").is_err());
    }
}

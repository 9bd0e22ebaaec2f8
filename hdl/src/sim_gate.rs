//! SimGate: the clock of a block that the simulator may leave idle. In hardware (every
//! backend but edgelearn's in-process Verilator model) `gclock` is `clock`: a wire, no logic,
//! nothing for synthesis. In the in-process Verilator model (`EDGELEARN_SIM_CLOCKS` defined)
//! `gclock` is driven by the harness, which raises it together with `clock` except at the
//! edges where the block behind the gate cannot change: Verilator then skips that block's
//! sequential logic and every combinational statement that depends only on it
//! (docs/decisions.md D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | the clock of the parent |
//! | `busy` | in | 1 | the block may change with its inputs held (an FSM away from idle, a stream beat waiting, an enable) |
//! | `w0`..`w3` | in | A, B, C, D | every input of the block behind the gate, in four words (each up to 64 bits keeps the model's comparison free of wide arithmetic; an unused word is one bit tied to 0) |
//! | `gclock` | out | 1 | the clock of the block behind the gate |
//!
//! The rule the simulation model applies (an edge is skipped only when the block is at a
//! fixed point): the block is clocked at the next edge when `busy` is high, when a watch word
//! differs from its value one cycle earlier, or when it changed at any of the last
//! [`SIM_GATE_HOLD`] edges (a gate may take fewer, [`SimGate::hold`]). So a block is left
//! alone only after its inputs have been constant for that many cycles while it was not busy; its designer asserts (and the tests check, by
//! comparing gated with ungated runs cycle by cycle) that such a block no longer changes.
//! `sim_awake` (the decision) is computed from registers and from the watch words and `busy`,
//! so a design whose top-level inputs reach them combinationally is still gated correctly: the
//! harness evaluates poked inputs before it reads `sim_awake`.
//! Watched, checked when the Verilog is made ([`check_gate_watches`], run by
//! `design::verilog_named` for every design): every input of a gated block must be watched,
//! directly (the watch words or `busy` read it) or through what drives it (every signal it is
//! computed from, its `if`/`case` conditions included, is watched, a constant, the parent's
//! clock, or an output of the gated group itself). An input left out is a build error naming
//! it, unless the gate declares it [`SimGate::unwatched`] with the reason (an input that
//! changes only while `busy` is high, a write port on an ungated clock); a declaration that
//! no longer matches anything is an error too. The watch words' fields must not overlap or
//! pass the word's top (a change hidden behind another field, or shifted out, is missed).
//! Golden: a gate is a wire, so a gated run must equal the ungated one; the bench design
//! [`SimGateDemo`]'s model is `edgelearn_verif::golden::sim_gate`. Tests: `tests/sim_gate.rs`.

use rust_hdl::prelude::*;

/// Edges a gated block keeps its clock after its inputs last changed (the longest pipeline
/// or drain of a gated block while not busy must be shorter).
pub const SIM_GATE_HOLD: usize = 64;

/// The marker in the gate's Verilog by which [`sim_gates`] finds the instances.
const MARKER: &str = "// edgelearn:sim-gate";

/// The marker of the second line: the inputs declared [`SimGate::unwatched`].
const UNWATCHED: &str = "// edgelearn:sim-gate-unwatched";

/// The clock of a gated block: `clock` in hardware, the harness's in simulation.
///
/// The gated blocks are siblings of the gate (`drives` names them). Their parent connects
/// their clocks to `clock` as usual; the emitted Verilog then takes them from the gate
/// instead ([`patch_gate_clocks`]). rust-hdl's simulator keeps the direct
/// connection: there every assignment on the clock's path is one more settling round, so a
/// clock through the gate would reach the block's registers after the data they sample.
#[derive(Clone, Debug, LogicBlock)]
pub struct SimGate<const A: usize, const B: usize, const C: usize, const D: usize> {
    /// The parent's clock.
    pub clock: Signal<In, Clock>,
    /// The block may change with its inputs held.
    pub busy: Signal<In, Bit>,
    /// The block's inputs, first word.
    pub w0: Signal<In, Bits<A>>,
    /// Second word.
    pub w1: Signal<In, Bits<B>>,
    /// Third word.
    pub w2: Signal<In, Bits<C>>,
    /// Fourth word.
    pub w3: Signal<In, Bits<D>>,
    /// The block's clock (in the emitted Verilog).
    pub gclock: Signal<Out, Clock>,
    _drives: &'static [&'static str],
    _unwatched: &'static [(&'static str, &'static str)],
    _hold: usize,
}

impl<const A: usize, const B: usize, const C: usize, const D: usize> SimGate<A, B, C, D> {
    /// The gate of the sibling blocks (fields) `drives`.
    pub fn new(drives: &'static [&'static str]) -> Self {
        assert!(
            A >= 1 && B >= 1 && C >= 1 && D >= 1,
            "SimGate<{A}, {B}, {C}, {D}>: each watch word has at least one bit"
        );
        Self {
            clock: Default::default(),
            busy: Default::default(),
            w0: Default::default(),
            w1: Default::default(),
            w2: Default::default(),
            w3: Default::default(),
            gclock: Default::default(),
            _drives: drives,
            _unwatched: &[],
            _hold: SIM_GATE_HOLD,
        }
    }

    /// The same gate with a hold of `edges` instead of [`SIM_GATE_HOLD`]: for a block whose
    /// longest drain after its inputs stop changing is short (a few pipeline stages) and that
    /// is left alone between bursts shorter than the default hold.
    pub fn hold(mut self, edges: usize) -> Self {
        assert!(
            (1..=SIM_GATE_HOLD).contains(&edges),
            "SimGate::hold({edges}): 1..={SIM_GATE_HOLD} edges"
        );
        self._hold = edges;
        self
    }

    /// The same gate with inputs of its blocks that the watch words leave out on purpose:
    /// `(input, reason)`, the input as the parent's Verilog names it (`block$port`, or a
    /// prefix ending in `*`: `body$cfg_*`). [`check_gate_watches`] accepts them unwatched,
    /// and refuses a declaration that matches no unwatched input.
    pub fn unwatched(mut self, inputs: &'static [(&'static str, &'static str)]) -> Self {
        self._unwatched = inputs;
        self
    }
}

impl<const A: usize, const B: usize, const C: usize, const D: usize> Logic for SimGate<A, B, C, D> {
    fn update(&mut self) {
        // rust-hdl's simulator and every Verilog backend but the gated Verilator model.
        self.gclock.next = self.clock.val();
    }

    fn connect(&mut self) {
        self.gclock.connect();
    }

    fn hdl(&self) -> Verilog {
        let hold_bits = usize::BITS - self._hold.leading_zeros();
        Verilog::Custom(format!(
            "{MARKER} {drives}\n\
             {UNWATCHED} {unwatched}\n\
             `ifdef EDGELEARN_SIM_CLOCKS\n\
             // Simulation only: edgelearn's in-process Verilator harness drives sim_clock and\n\
             // raises it with `clock` when sim_awake is high (docs/decisions.md D-SIM-GATE).\n\
             wire sim_clock;\n\
             reg [{a1}:0] w0_q;\n\
             reg [{b1}:0] w1_q;\n\
             reg [{c1}:0] w2_q;\n\
             reg [{d1}:0] w3_q;\n\
             reg [{h1}:0] hold;\n\
             wire changed = (w0 != w0_q) | (w1 != w1_q) | (w2 != w2_q) | (w3 != w3_q);\n\
             wire sim_awake = busy | changed | (hold != {hold_bits}'d0);\n\
             always @(posedge clock) begin\n\
             \x20  w0_q <= w0;\n\
             \x20  w1_q <= w1;\n\
             \x20  w2_q <= w2;\n\
             \x20  w3_q <= w3;\n\
             \x20  hold <= changed ? {hold_bits}'d{hold} : (hold != {hold_bits}'d0 ? hold - {hold_bits}'d1 : {hold_bits}'d0);\n\
             end\n\
             always @(*) gclock = sim_clock;\n\
             `else\n\
             always @(*) gclock = clock;\n\
             `endif\n",
            drives = self._drives.join(" "),
            unwatched = self
                ._unwatched
                .iter()
                .map(|(i, _)| *i)
                .collect::<Vec<_>>()
                .join(" "),
            a1 = A - 1,
            b1 = B - 1,
            c1 = C - 1,
            d1 = D - 1,
            h1 = hold_bits - 1,
            hold = self._hold,
        ))
    }
}

/// A [`SimGate`] of a design: its instance path below the top module (`.`-separated) and
/// the sibling blocks whose clock it supplies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GateSite {
    /// Instance path of the gate, e.g. `core.gate_conv`.
    pub path: String,
    /// The gated siblings, e.g. `conv`.
    pub drives: Vec<String>,
    /// The inputs of the gated blocks declared unwatched ([`SimGate::unwatched`]).
    pub unwatched: Vec<String>,
}

/// Every [`SimGate`] in `block`, in visiting order.
pub fn sim_gates<B: Block>(block: &B) -> Vec<GateSite> {
    let mut found = Vec::new();
    crate::design::walk(block, &mut |v| {
        let crate::design::Visit::Scope { path, node } = v else {
            return;
        };
        let Verilog::Custom(text) = node.hdl() else {
            return;
        };
        let Some(rest) = text.strip_prefix(MARKER) else {
            return;
        };
        let words =
            |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_string).collect() };
        let mut lines = rest.lines();
        let drives = words(lines.next().unwrap_or(""));
        let unwatched = lines
            .next()
            .and_then(|l| l.strip_prefix(UNWATCHED))
            .map(words)
            .unwrap_or_default();
        // The first scope is the top module itself.
        found.push(GateSite {
            path: path[1..].join("."),
            drives,
            unwatched,
        });
    });
    found
}

/// The emitted Verilog of a design with its gated blocks clocked by their gates: in the
/// module holding gate `g` that drives block `b`, rust-hdl's `b$clock = clock;` becomes
/// `b$clock = g$gclock;` (a register, `DFF`, is a block too). `Err` names a gate whose
/// block's clock assignment is not there.
pub fn patch_gate_clocks(top: &str, verilog: &str, gates: &[GateSite]) -> Result<String, String> {
    let mut out = verilog.to_string();
    // A design that is a gate itself drives nothing of its own.
    for g in gates.iter().filter(|g| !g.path.is_empty()) {
        let (parent, leaf) = match g.path.rsplit_once('.') {
            Some((p, l)) => (format!("{top}${}", p.replace('.', "$")), l.to_string()),
            None => (top.to_string(), g.path.clone()),
        };
        let head = format!("\nmodule {parent}(");
        let start = out
            .find(&head)
            .ok_or_else(|| format!("gate {}: no module {parent}", g.path))?;
        let end = out[start..]
            .find("\nendmodule")
            .map(|e| start + e)
            .ok_or_else(|| format!("gate {}: module {parent} has no end", g.path))?;
        let mut lines: Vec<String> = out[start..end].split('\n').map(String::from).collect();
        for d in &g.drives {
            // The statement, however rust-hdl indents it: exactly one line that is it.
            let from = format!("{d}$clock = clock;");
            let at: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].trim() == from)
                .collect();
            let [i] = at[..] else {
                return Err(format!(
                    "gate {}: module {parent} does not assign `{from}` once",
                    g.path
                ));
            };
            let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
            lines[i] = format!("{indent}{d}$clock = {leaf}$gclock;");
        }
        out.replace_range(start..end, &lines.join("\n"));
    }
    Ok(out)
}

/// The statements of a module's combinational body: each assigned signal with every signal
/// it depends on (its right-hand sides and the conditions of the `if`s and `case`s around
/// them), and the module's constants. Reads rust-hdl's emitted layout: one statement,
/// `if (..) begin`, `else begin`, `case (..)` or `end` per line.
struct Statements {
    deps: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    constants: std::collections::BTreeSet<String>,
    /// Every declared signal's width (ports, `reg`s and `wire`s).
    widths: std::collections::BTreeMap<String, usize>,
    /// The right-hand side of each signal assigned exactly once.
    single: std::collections::BTreeMap<String, String>,
}

/// The width of a declaration line (`input wire  [12:0] g_item;`, `reg  busy;`), if it is
/// one: the name and its bits.
fn declaration(line: &str) -> Option<(String, usize)> {
    let rest = [
        "input wire ",
        "output reg ",
        "output wire ",
        "reg ",
        "wire ",
    ]
    .iter()
    .find_map(|k| line.strip_prefix(k))?
    .trim();
    let rest = rest.strip_suffix(';').or(rest.strip_suffix(','))?.trim();
    let (bits, name) = match rest.strip_prefix('[') {
        Some(r) => {
            let (range, name) = r.split_once(']')?;
            let (hi, lo) = range.split_once(':')?;
            let bits = hi.trim().parse::<usize>().ok()? + 1 - lo.trim().parse::<usize>().ok()?;
            (bits, name.trim())
        }
        None => (1, rest),
    };
    identifiers(name)
        .first()
        .filter(|n| n.as_str() == name)
        .map(|n| (n.clone(), bits))
}

/// The identifiers of a Verilog expression (number literals such as `17'h1ffff` skipped).
fn identifiers(expr: &str) -> Vec<String> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && word(b[i]) {
                i += 1;
            }
            out.push(expr[start..i].to_string());
        } else if b[i].is_ascii_digit() || b[i] == b'\'' {
            while i < b.len() && (word(b[i]) || b[i] == b'\'' || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

impl Statements {
    fn parse(body: &str) -> Statements {
        use std::collections::BTreeSet;
        let mut deps: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
        let mut constants = BTreeSet::new();
        let mut widths = std::collections::BTreeMap::new();
        let mut rhs_of: std::collections::BTreeMap<String, Vec<String>> = Default::default();
        // One frame per open `begin` / `case`: the conditions it is under.
        let mut frames: Vec<BTreeSet<String>> = Vec::new();
        // The conditions of the `if` chain whose branch closed last (an `else` adds to them).
        let mut chain: BTreeSet<String> = BTreeSet::new();
        let cond = |l: &str| -> BTreeSet<String> {
            let inner = l
                .split_once('(')
                .and_then(|(_, r)| r.rsplit_once(')'))
                .map_or("", |(c, _)| c);
            identifiers(inner).into_iter().collect()
        };
        for line in body.lines().map(str::trim) {
            if let Some((name, bits)) = declaration(line) {
                widths.insert(name, bits);
            } else if let Some(rest) = line.strip_prefix("localparam ") {
                if let Some(name) = identifiers(rest.split('=').next().unwrap_or("")).pop() {
                    constants.insert(name);
                }
            } else if line.starts_with("if (") {
                chain = cond(line);
                frames.push(chain.clone());
            } else if line.starts_with("else if (") {
                chain.extend(cond(line));
                frames.push(chain.clone());
            } else if line.starts_with("else") && line.ends_with("begin") {
                frames.push(chain.clone());
            } else if line.starts_with("case (") || line.starts_with("casez (") {
                frames.push(cond(line));
            } else if line == "end" || line == "endcase" {
                frames.pop();
            } else if line.ends_with("begin") {
                frames.push(BTreeSet::new());
            } else if let Some((lhs, rhs)) =
                line.strip_suffix(';').and_then(|l| l.split_once(" = "))
            {
                if lhs.contains(' ') || lhs.contains('<') {
                    continue;
                }
                rhs_of
                    .entry(lhs.to_string())
                    .or_default()
                    .push(rhs.to_string());
                let d = deps.entry(lhs.to_string()).or_default();
                d.extend(identifiers(rhs));
                for f in &frames {
                    d.extend(f.iter().cloned());
                }
            }
        }
        let single = rhs_of
            .into_iter()
            .filter(|(_, r)| r.len() == 1)
            .map(|(l, mut r)| (l, r.remove(0)))
            .collect();
        Statements {
            deps,
            constants,
            widths,
            single,
        }
    }

    /// The fields of watch word `word` (`g$w0`) as rust-hdl writes an OR of shifted, masked
    /// signals, `((a) & M) | (((b) & M) << 32'h8) | ..`: each field's text, first bit and
    /// width. `Err` names a field whose width cannot be told.
    fn fields(&self, word: &str) -> Result<Vec<(String, usize, usize)>, String> {
        let Some(rhs) = self.single.get(word) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for term in split_top(rhs, " | ") {
            let mut t = unwrap_parens(term.trim());
            let mut shift = 0;
            if let Some((inner, by)) = rsplit_top(t, " << ") {
                shift = literal(by.trim()).ok_or_else(|| format!("{word}: shift `{by}`"))?;
                t = unwrap_parens(inner.trim());
            }
            if let Some((inner, _mask)) = rsplit_top(t, " & ") {
                t = unwrap_parens(inner.trim());
            }
            if literal(t).is_some() {
                continue;
            }
            let width = if let Some(w) = self.widths.get(t) {
                *w
            } else if ["==", "!=", "<", ">"].iter().any(|op| t.contains(op)) {
                1
            } else {
                return Err(format!("{word}: cannot tell the width of `{t}`"));
            };
            out.push((t.to_string(), shift, width));
        }
        Ok(out)
    }
}

/// `text` split at `sep` outside parentheses.
fn split_top<'a>(text: &'a str, sep: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(sep) => {
                out.push(&text[start..i]);
                i += sep.len();
                start = i;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&text[start..]);
    out
}

/// `text` split at its last `sep` outside parentheses.
fn rsplit_top<'a>(text: &'a str, sep: &str) -> Option<(&'a str, &'a str)> {
    let parts = split_top(text, sep);
    let last = parts.last()?;
    (parts.len() > 1).then(|| (&text[..text.len() - last.len() - sep.len()], *last))
}

/// `text` without the parentheses around all of it.
fn unwrap_parens(mut text: &str) -> &str {
    while text.starts_with('(') && text.ends_with(')') {
        let inner = &text[1..text.len() - 1];
        // Only if the first `(` closes at the end: `(a) & (b)` stays.
        let mut depth = 0i32;
        if inner.chars().any(|c| {
            depth += match c {
                '(' => 1,
                ')' => -1,
                _ => 0,
            };
            depth < 0
        }) {
            break;
        }
        text = inner.trim();
    }
    text
}

/// The value of a sized Verilog literal (`32'h1f`, `1'b0`, `4'd3`).
fn literal(text: &str) -> Option<usize> {
    let (_, v) = text.split_once('\'')?;
    let (radix, digits) = match v.chars().next()? {
        'h' => (16, &v[1..]),
        'b' => (2, &v[1..]),
        'd' => (10, &v[1..]),
        'o' => (8, &v[1..]),
        _ => return None,
    };
    usize::from_str_radix(&digits.replace('_', ""), radix).ok()
}

/// The watch words of gate `leaf` packed without overlap and inside their widths: a field
/// shifted onto another, or past the word's top, would hide a change of the input it holds.
fn check_packing(st: &Statements, leaf: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for w in ["w0", "w1", "w2", "w3"] {
        let word = format!("{leaf}${w}");
        let fields = match st.fields(&word) {
            Ok(f) => f,
            Err(e) => {
                problems.push(format!("watch word {e}"));
                continue;
            }
        };
        let bits = st.widths.get(&word).copied().unwrap_or(64);
        let mut sorted = fields.clone();
        sorted.sort_by_key(|f| f.1);
        for (k, (name, at, width)) in sorted.iter().enumerate() {
            if at + width > bits {
                problems.push(format!(
                    "watch word {word}: `{name}` (bits {}..={}) does not fit its {bits} bits",
                    at,
                    at + width - 1
                ));
            }
            if let Some((next, next_at, _)) = sorted.get(k + 1) {
                if at + width > *next_at {
                    problems.push(format!(
                        "watch word {word}: `{name}` (bits {at}..={}) overlaps `{next}` (from bit {next_at})",
                        at + width - 1
                    ));
                }
            }
        }
    }
    problems
}

/// Check that the watch words of every gate in `verilog` (a design's plain emitted text,
/// one module per instance, as [`patch_gate_clocks`] gets it) cover every input of its gated
/// blocks (the module doc's rule). `Err` names each input left out and each stale
/// [`SimGate::unwatched`] declaration.
pub fn check_gate_watches(top: &str, verilog: &str, gates: &[GateSite]) -> Result<(), String> {
    use std::collections::BTreeSet;
    let mut problems = Vec::new();
    for g in gates.iter().filter(|g| !g.path.is_empty()) {
        let (parent, leaf) = match g.path.rsplit_once('.') {
            Some((p, l)) => (format!("{top}${}", p.replace('.', "$")), l.to_string()),
            None => (top.to_string(), g.path.clone()),
        };
        let head = format!("\nmodule {parent}(");
        let Some(start) = verilog.find(&head) else {
            problems.push(format!("gate {}: no module {parent}", g.path));
            continue;
        };
        let end = verilog[start..]
            .find("\nendmodule")
            .map_or(verilog.len(), |e| start + e);
        let st = Statements::parse(&verilog[start..end]);
        problems.extend(
            check_packing(&st, &leaf)
                .into_iter()
                .map(|p| format!("gate {}: {p}", g.path)),
        );
        let watched: BTreeSet<&str> = ["w0", "w1", "w2", "w3", "busy"]
            .iter()
            .filter_map(|w| st.deps.get(&format!("{leaf}${w}")))
            .flatten()
            .map(String::as_str)
            .collect();
        let in_group = |s: &str| {
            g.drives.iter().any(|d| {
                s.strip_prefix(d.as_str())
                    .is_some_and(|r| r.starts_with('$'))
            })
        };
        let mut seen = BTreeSet::new();
        let mut uncovered = Vec::new();
        for input in st
            .deps
            .keys()
            .filter(|s| in_group(s) && !s.ends_with("$clock"))
        {
            if !covered(input, &st, &watched, &in_group, &mut seen) {
                uncovered.push(input.clone());
            }
        }
        let matches = |pat: &str, s: &str| match pat.strip_suffix('*') {
            Some(prefix) => s.starts_with(prefix),
            None => s == pat,
        };
        for u in &uncovered {
            if !g.unwatched.iter().any(|p| matches(p, u)) {
                problems.push(format!(
                    "gate {}: input `{u}` of a gated block is not watched (add it to the watch \
                     words, or declare it unwatched with the reason)",
                    g.path
                ));
            }
        }
        for p in &g.unwatched {
            if !uncovered.iter().any(|u| matches(p, u)) {
                problems.push(format!(
                    "gate {}: `{p}` is declared unwatched but matches no unwatched input",
                    g.path
                ));
            }
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(problems.join("; ")),
    }
}

/// Whether `sig` is watched, a constant, the clock, an output of the gated group, or
/// computed only from such signals (`seen` breaks combinational cycles and remembers the
/// signals found covered).
fn covered(
    sig: &str,
    st: &Statements,
    watched: &std::collections::BTreeSet<&str>,
    in_group: &dyn Fn(&str) -> bool,
    seen: &mut std::collections::BTreeSet<String>,
) -> bool {
    if watched.contains(sig) || st.constants.contains(sig) || sig == "clock" || seen.contains(sig) {
        return true;
    }
    match st.deps.get(sig) {
        // Not assigned here: an output of a child (covered if the group's) or a port.
        None => in_group(sig),
        Some(deps) => {
            seen.insert(sig.to_string());
            let ok = deps.iter().all(|d| covered(d, st, watched, in_group, seen));
            if !ok {
                seen.remove(sig);
            }
            ok
        }
    }
}

/// The gate's bench design (`tests/sim_gate.rs`): a 16-bit counter that counts while `en` is
/// high and a 4-word RAM whose word 0 is on `word`, both behind one gate that watches `en`.
/// Built `honest`, the gate is busy while `en` is high (the counter moves with its input
/// held); built dishonest, it is never busy, so the gated model stops counting once `en` has
/// been steady for [`SIM_GATE_HOLD`] edges and a run differs from the ungated one, which is
/// what the gates' tests must notice. The RAM shows a backdoor write only when clocked.
#[derive(Clone, Debug, LogicBlock)]
pub struct SimGateDemo {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Count.
    pub en: Signal<In, Bit>,
    /// The counter.
    pub count: Signal<Out, Bits<16>>,
    /// Word 0 of the RAM (registered read).
    pub word: Signal<Out, Bits<8>>,
    gate: SimGate<1, 1, 1, 1>,
    cnt: DFF<Bits<16>>,
    ram: crate::mem::sdp_ram::SdpRam<2, 8>,
    honest_bit: Constant<Bit>,
}

impl SimGateDemo {
    /// The demo with an honest (`true`) or a dishonest gate.
    pub fn new(honest: bool) -> Self {
        Self {
            clock: Default::default(),
            en: Default::default(),
            count: Default::default(),
            word: Default::default(),
            gate: SimGate::new(&["cnt", "ram"]),
            cnt: Default::default(),
            ram: crate::mem::sdp_ram::SdpRam::new(4),
            honest_bit: Constant::new(honest),
        }
    }
}

impl Logic for SimGateDemo {
    #[hdl_gen]
    fn update(&mut self) {
        self.gate.clock.next = self.clock.val();
        self.cnt.clock.next = self.clock.val();
        self.ram.clock.next = self.clock.val();
        self.cnt.d.next = self.cnt.q.val();
        if self.en.val() {
            self.cnt.d.next = self.cnt.q.val() + 1;
        }
        self.ram.write_enable.next = false;
        self.ram.write_address.next = 0.into();
        self.ram.write_data.next = 0.into();
        self.ram.read_address.next = 0.into();
        self.gate.busy.next = self.en.val() & self.honest_bit.val();
        self.gate.w0.next = self.en.val().into();
        self.gate.w1.next = false.into();
        self.gate.w2.next = false.into();
        self.gate.w3.next = false.into();
        self.count.next = self.cnt.q.val();
        self.word.next = self.ram.read_data.val();
    }
}

crate::dut_io! {
    impl[] SimGateDemo {
        clock: yes,
        inputs: [en],
        outputs: [count, word],
        notes: [],
        memories: [ram],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_gate_is_synthesizable() {
        crate::synth_check::assert_synthesizable(
            "sim_gate",
            SimGate::<8, 2, 1, 1>::new(&["block"]),
        );
        crate::synth_check::assert_synthesizable("sim_gate_demo", SimGateDemo::new(true));
    }

    #[test]
    fn the_gated_blocks_take_the_gates_clock_in_the_emitted_verilog() {
        let mut d = SimGateDemo::new(true);
        d.connect_all();
        let v = crate::design::verilog_named("demo", &d).unwrap();
        assert!(v.contains("\n        cnt$clock = gate$gclock;\n"), "{v}");
        assert!(v.contains("\n        ram$clock = gate$gclock;\n"), "{v}");
        assert!(v.contains("\n        gate$clock = clock;\n"), "{v}");
        let sites = sim_gates(&d);
        assert_eq!(
            sites,
            vec![GateSite {
                path: "gate".into(),
                drives: vec!["cnt".into(), "ram".into()],
                unwatched: vec![],
            }]
        );
        // A gate naming a block its parent does not clock is an error, not a silent no-op.
        let wrong = vec![GateSite {
            path: "gate".into(),
            drives: vec!["nothing".into()],
            unwatched: vec![],
        }];
        let e = patch_gate_clocks("demo", &v, &wrong).unwrap_err();
        assert!(e.contains("nothing$clock"), "{e}");
    }

    /// A parent in rust-hdl's layout: `cnt` counts while `go`, `ram` is written with `x`.
    fn parent(condition: &str) -> String {
        watched(condition, "en")
    }

    /// The same parent with the watch word `w0` given.
    fn watched(condition: &str, w0: &str) -> String {
        format!(
            "\nmodule top(clock,en,go,x);\n    input wire  clock;\n    input wire  en;\n\
             \x20   input wire  go;\n    input wire  [7:0] x;\n    reg  [1:0] gate$w0;\n\
             \x20   reg  gate$w1;\n    localparam K = 16'h1;\n    always @(*) begin\n\
             \x20       gate$clock = clock;\n        cnt$clock = clock;\n\
             \x20       cnt$d = cnt$q;\n        if ({condition}) begin\n\
             \x20           cnt$d = cnt$q + K;\n        end\n        else begin\n\
             \x20           cnt$d = 16'h0;\n        end\n        ram$write_data = x;\n\
             \x20       gate$busy = en;\n        gate$w0 = {w0};\n        gate$w1 = 1'b0;\n\
             \x20   end\nendmodule\n"
        )
    }

    fn site(unwatched: &[&str]) -> Vec<GateSite> {
        vec![GateSite {
            path: "gate".into(),
            drives: vec!["cnt".into(), "ram".into()],
            unwatched: unwatched.iter().map(|s| s.to_string()).collect(),
        }]
    }

    #[test]
    fn a_forgotten_input_is_a_build_error_naming_it() {
        // `x` reaches the RAM's write data and nothing watches it.
        let e = check_gate_watches("top", &parent("en"), &site(&[])).unwrap_err();
        assert!(
            e.contains("`ram$write_data`") && !e.contains("cnt$d"),
            "{e}"
        );
        // Declared, with a reason in the design, it is accepted; a prefix works too.
        check_gate_watches("top", &parent("en"), &site(&["ram$write_data"])).unwrap();
        check_gate_watches("top", &parent("en"), &site(&["ram$write_*"])).unwrap();
        // A condition counts: `cnt$d` under `if (go)` depends on `go`, unwatched.
        let e = check_gate_watches("top", &parent("go"), &site(&["ram$*"])).unwrap_err();
        assert!(e.contains("`cnt$d`"), "{e}");
        // A declaration that matches nothing unwatched is stale.
        let e = check_gate_watches("top", &parent("en"), &site(&["ram$write_data", "cnt$d"]))
            .unwrap_err();
        assert!(e.contains("`cnt$d` is declared unwatched"), "{e}");
    }

    #[test]
    fn watch_words_are_packed_without_overlap_and_inside_their_width() {
        let ok = "((en) & 2'h3) | (((go) & 2'h3) << 32'h1)";
        check_gate_watches("top", &watched("en", ok), &site(&["ram$*"])).unwrap();
        // `go` shifted onto `en`: a change of one could hide behind the other.
        let onto = "((en) & 2'h3) | (((go) & 2'h3) << 32'h0)";
        let e = check_gate_watches("top", &watched("en", onto), &site(&["ram$*"])).unwrap_err();
        assert!(e.contains("overlaps"), "{e}");
        // Shifted past the word's two bits: its changes are never seen.
        let out = "((en) & 2'h3) | (((go) & 2'h3) << 32'h2)";
        let e = check_gate_watches("top", &watched("en", out), &site(&["ram$*"])).unwrap_err();
        assert!(
            e.contains("`go` (bits 2..=2) does not fit its 2 bits"),
            "{e}"
        );
        // A comparison is one bit; a field of unknown width is an error, not a pass.
        let cmp = "((en) & 2'h3) | ((((x == 8'h3)) & 2'h3) << 32'h1)";
        // (`x` watched covers the RAM's write data: nothing is left to declare.)
        check_gate_watches("top", &watched("en", cmp), &site(&[])).unwrap();
        let e =
            check_gate_watches("top", &watched("en", "en + go"), &site(&["ram$*"])).unwrap_err();
        assert!(e.contains("cannot tell the width"), "{e}");
    }

    #[test]
    fn identifiers_skip_number_literals() {
        assert_eq!(
            identifiers("((a$b) & 17'h1ffff) << 32'h8 | c_1 + 4'd3"),
            vec!["a$b", "c_1"]
        );
    }
}

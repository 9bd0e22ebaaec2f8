//! Reading VCD files (the `vcd` crate's parser) and FST files (`wellen`'s) into waveforms,
//! and comparing them with each other or with a golden trace at clock edges.
//!
//! Reads the dialects of Icarus, Verilator and rust-hdl: nested `$scope`s, `$var` of any
//! type (wire, reg, integer, parameter, real, string), scalar and vector changes with x and
//! z (short vectors are extended the VCD way: with 0 after a 0/1 MSB, else with the MSB),
//! any `$timescale`, `$dumpvars`/`$dumpall` blocks. A malformed file is an error with its
//! line number, never a panic.
//!
//! Sampling convention (docs/decisions.md D-CYCLE): the value of a signal at a clock edge
//! is its value after every change at the edge's timestamp, which for registered outputs is
//! the value the edge produced. Edge k of one file is aligned with edge k of the other.

use std::collections::HashMap;
use std::fmt;
use std::io::BufRead;
use std::path::Path;
use vcd::{Command, IdCode, ScopeItem, TimescaleUnit, Value as Bit};

/// A VCD that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VcdError {
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VcdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for VcdError {}

/// `f()`, or `None` if it panics, with the panic's message kept off stderr (a library's
/// panic on a corrupt file is reported as an error by the caller).
fn quietly<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> Option<T> {
    static HOOK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one = HOOK.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f).ok();
    std::panic::set_hook(previous);
    r
}

/// A sampled value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// Bits, MSB first, each `0`, `1`, `x` or `z`; as wide as the variable.
    Bits(String),
    /// A `real` variable.
    Real(f64),
    /// A string variable (rust-hdl writes enum states this way).
    Str(String),
}

impl Val {
    /// The value as an unsigned number, if it has no x or z bits.
    pub fn to_u128(&self) -> Option<u128> {
        match self {
            Val::Bits(b) if b.len() <= 128 && b.chars().all(|c| c == '0' || c == '1') => {
                u128::from_str_radix(b, 2).ok()
            }
            _ => None,
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Bits(b) if b.len() == 1 => f.write_str(b),
            Val::Bits(b) => {
                if b.chars().all(|c| c == '0' || c == '1') {
                    let n = num_bigint::BigUint::parse_bytes(b.as_bytes(), 2).unwrap_or_default();
                    write!(f, "0x{n:x}")
                } else {
                    write!(f, "b{b}")
                }
            }
            Val::Real(r) => write!(f, "{r}"),
            Val::Str(s) => write!(f, "\"{s}\""),
        }
    }
}

/// One variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signal {
    /// Dot-separated scope path and name, e.g. `lel_matmul_tb.dut.valid_out`.
    pub path: String,
    /// Width in bits.
    pub width: u32,
    /// `$var` type as written (wire, reg, integer, ...).
    pub var_type: String,
    /// Index of its change list (variables sharing an id code share it).
    changes: usize,
}

impl Signal {
    /// The last path component.
    pub fn leaf(&self) -> &str {
        self.path.rsplit('.').next().unwrap_or(&self.path)
    }
}

/// A whole waveform.
#[derive(Clone, Debug)]
pub struct Waveform {
    /// `$timescale`: magnitude and unit (e.g. `(1, "ps")`).
    pub timescale: Option<(u32, String)>,
    /// Last timestamp.
    pub end_time: u64,
    /// Every variable, in file order.
    pub signals: Vec<Signal>,
    changes: Vec<Vec<(u64, Val)>>,
}

fn unit_name(u: TimescaleUnit) -> &'static str {
    match u {
        TimescaleUnit::S => "s",
        TimescaleUnit::MS => "ms",
        TimescaleUnit::US => "us",
        TimescaleUnit::NS => "ns",
        TimescaleUnit::PS => "ps",
        TimescaleUnit::FS => "fs",
    }
}

/// Extend or cut a vector change to `width` bits the VCD way.
fn fit(bits: &str, width: usize) -> String {
    if bits.len() >= width {
        return bits[bits.len() - width..].to_string();
    }
    let pad = match bits.chars().next() {
        Some('x') => 'x',
        Some('z') => 'z',
        _ => '0',
    };
    std::iter::repeat_n(pad, width - bits.len())
        .chain(bits.chars())
        .collect()
}

fn bit_char(b: Bit) -> char {
    match b {
        Bit::V0 => '0',
        Bit::V1 => '1',
        Bit::X => 'x',
        Bit::Z => 'z',
    }
}

impl Waveform {
    /// Read a VCD or an FST file (an FST is told by its first byte, its header block's type
    /// 0, which no VCD starts with).
    pub fn read(path: &Path) -> Result<Waveform, VcdError> {
        let open_error = |e: std::io::Error| VcdError {
            line: None,
            message: format!("{}: {e}", path.display()),
        };
        let f = std::fs::File::open(path).map_err(open_error)?;
        let mut r = std::io::BufReader::new(f);
        if r.fill_buf().map_err(open_error)?.first() == Some(&0) {
            return Self::read_fst(path);
        }
        Self::parse(r)
    }

    /// Read an FST file (wellen's reader): the same signals, paths and changes a VCD of the
    /// run gives.
    pub fn read_fst(path: &Path) -> Result<Waveform, VcdError> {
        let bad = |m: String| VcdError {
            line: None,
            message: format!("not a readable FST: {}", m.trim().replace('\n', " ")),
        };
        // wellen's reader panics on some corrupt blocks; that is bad input, not a bug here.
        let mut w = quietly(|| wellen::simple::read(path))
            .ok_or_else(|| bad("a corrupt block".into()))?
            .map_err(|e| bad(e.to_string()))?;
        let h = w.hierarchy();
        let timescale = h.timescale().map(|t| {
            use wellen::TimescaleUnit as U;
            let unit = match t.unit {
                U::Seconds => "s",
                U::MilliSeconds => "ms",
                U::MicroSeconds => "us",
                U::NanoSeconds => "ns",
                U::PicoSeconds => "ps",
                U::FemtoSeconds => "fs",
                U::AttoSeconds => "as",
                U::ZeptoSeconds => "zs",
                U::Unknown => "s",
            };
            (t.factor, unit.to_string())
        });
        let mut signals = Vec::new();
        let mut refs: Vec<wellen::SignalRef> = Vec::new();
        let mut index: HashMap<wellen::SignalRef, usize> = HashMap::new();
        for v in h.all_vars() {
            let var = &h[v];
            let r = var.signal_ref();
            let n = refs.len();
            let changes = *index.entry(r).or_insert_with(|| {
                refs.push(r);
                n
            });
            // A vector's name may carry its range (` [5:0]`); the width says it. An array's
            // elements are variables `[i]` of a scope named after it: `mem[3]`, as in a VCD.
            let full = var.full_name(h).replace(".[", "[");
            let path = match full.rsplit_once('[') {
                Some((p, range)) if range.ends_with(']') && range.contains(':') => {
                    p.trim_end().to_string()
                }
                _ => full,
            };
            signals.push(Signal {
                path,
                width: var.length(h).unwrap_or(1),
                var_type: format!("{:?}", var.var_type()).to_lowercase(),
                changes,
            });
        }
        quietly(std::panic::AssertUnwindSafe(|| w.load_signals(&refs)))
            .ok_or_else(|| bad("a corrupt value block".into()))?;
        let times = w.time_table().to_vec();
        let mut changes: Vec<Vec<(u64, Val)>> = vec![vec![]; refs.len()];
        for (i, r) in refs.iter().enumerate() {
            let Some(sig) = w.get_signal(*r) else {
                continue;
            };
            for (t, v) in sig.iter_changes() {
                let t = times.get(t as usize).copied().unwrap_or(0);
                let val = match v {
                    wellen::SignalValueRef::BitVec(b) => Val::Bits(b.bit_string()),
                    wellen::SignalValueRef::String(s) => Val::Str(s.to_string()),
                    wellen::SignalValueRef::Real(r) => Val::Real(r),
                    wellen::SignalValueRef::Event => continue,
                };
                changes[i].push((t, val));
            }
        }
        Ok(Waveform {
            timescale,
            end_time: times.last().copied().unwrap_or(0),
            signals,
            changes,
        })
    }

    /// Parse VCD text.
    pub fn parse<R: BufRead>(reader: R) -> Result<Waveform, VcdError> {
        let mut p = vcd::Parser::new(reader);
        let err = |e: std::io::Error, line: u64| {
            let l = e
                .get_ref()
                .and_then(|r| r.downcast_ref::<vcd::ParseError>())
                .map(|pe| pe.line())
                .unwrap_or(line);
            VcdError {
                line: Some(l),
                message: e.to_string(),
            }
        };
        let header = p.parse_header().map_err(|e| {
            let l = p.line();
            err(e, l)
        })?;
        let mut signals = vec![];
        let mut ids: HashMap<IdCode, usize> = HashMap::new();
        let mut widths: Vec<u32> = vec![];
        fn walk(
            items: &[ScopeItem],
            prefix: &str,
            signals: &mut Vec<Signal>,
            ids: &mut HashMap<IdCode, usize>,
            widths: &mut Vec<u32>,
        ) {
            for it in items {
                match it {
                    ScopeItem::Scope(s) => {
                        let p = if prefix.is_empty() {
                            s.identifier.clone()
                        } else {
                            format!("{prefix}.{}", s.identifier)
                        };
                        walk(&s.items, &p, signals, ids, widths);
                    }
                    ScopeItem::Var(v) => {
                        let n = ids.len();
                        let idx = *ids.entry(v.code).or_insert(n);
                        if idx == widths.len() {
                            widths.push(v.size);
                        }
                        let mut name = v.reference.clone();
                        // A bit select names one bit of a vector; a range is just the width.
                        if let Some(vcd::ReferenceIndex::BitSelect(b)) = &v.index {
                            name.push_str(&format!("[{b}]"));
                        }
                        let path = if prefix.is_empty() {
                            name
                        } else {
                            format!("{prefix}.{name}")
                        };
                        signals.push(Signal {
                            path,
                            width: v.size,
                            var_type: v.var_type.to_string(),
                            changes: idx,
                        });
                    }
                    ScopeItem::Comment(_) => {}
                    _ => {}
                }
            }
        }
        walk(&header.items, "", &mut signals, &mut ids, &mut widths);
        let mut changes: Vec<Vec<(u64, Val)>> = vec![vec![]; widths.len()];
        let mut t = 0u64;
        let mut end = 0u64;
        loop {
            let line = p.line();
            let cmd = match p.next() {
                None => break,
                Some(Ok(c)) => c,
                Some(Err(e)) => return Err(err(e, line)),
            };
            let unknown = |id: &IdCode| VcdError {
                line: Some(line),
                message: format!("value change for undeclared identifier `{id}`"),
            };
            match cmd {
                Command::Timestamp(ts) => {
                    if ts < t {
                        return Err(VcdError {
                            line: Some(line),
                            message: format!("time goes backwards: #{ts} after #{t}"),
                        });
                    }
                    t = ts;
                    end = end.max(ts);
                }
                Command::ChangeScalar(id, v) => {
                    let i = *ids.get(&id).ok_or_else(|| unknown(&id))?;
                    let s = fit(&bit_char(v).to_string(), widths[i] as usize);
                    changes[i].push((t, Val::Bits(s)));
                }
                Command::ChangeVector(id, v) => {
                    let i = *ids.get(&id).ok_or_else(|| unknown(&id))?;
                    let s: String = v.iter().map(bit_char).collect();
                    changes[i].push((t, Val::Bits(fit(&s, widths[i] as usize))));
                }
                Command::ChangeReal(id, r) => {
                    let i = *ids.get(&id).ok_or_else(|| unknown(&id))?;
                    changes[i].push((t, Val::Real(r)));
                }
                Command::ChangeString(id, s) => {
                    let i = *ids.get(&id).ok_or_else(|| unknown(&id))?;
                    changes[i].push((t, Val::Str(s)));
                }
                _ => {}
            }
        }
        Ok(Waveform {
            timescale: header.timescale.map(|(n, u)| (n, unit_name(u).to_string())),
            end_time: end,
            signals,
            changes,
        })
    }

    /// Index of the signal with this exact path.
    pub fn find(&self, path: &str) -> Option<usize> {
        self.signals.iter().position(|s| s.path == path)
    }

    /// Resolve a user's name: an exact path, else a unique path ending in `.name`, else a
    /// unique leaf name.
    pub fn resolve(&self, name: &str) -> Result<usize, String> {
        if let Some(i) = self.find(name) {
            return Ok(i);
        }
        let suffix = format!(".{name}");
        let hits: Vec<usize> = (0..self.signals.len())
            .filter(|&i| self.signals[i].path.ends_with(&suffix))
            .collect();
        match hits.len() {
            1 => Ok(hits[0]),
            0 => Err(format!("no signal `{name}`")),
            _ => {
                // Prefer the shallowest.
                let depth = |i: usize| self.signals[i].path.matches('.').count();
                let min = hits.iter().map(|&i| depth(i)).min().unwrap_or(0);
                let top: Vec<usize> = hits.iter().copied().filter(|&i| depth(i) == min).collect();
                if top.len() == 1 {
                    Ok(top[0])
                } else {
                    Err(format!(
                        "`{name}` is ambiguous: {}",
                        top.iter()
                            .map(|&i| self.signals[i].path.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                }
            }
        }
    }

    /// The value of signal `i` at time `t` (after every change at `t`), `None` before its
    /// first change.
    pub fn value_at(&self, i: usize, t: u64) -> Option<&Val> {
        let ch = &self.changes[self.signals[i].changes];
        let k = ch.partition_point(|(ct, _)| *ct <= t);
        if k == 0 {
            None
        } else {
            Some(&ch[k - 1].1)
        }
    }

    /// The value changes of signal `i`.
    pub fn changes(&self, i: usize) -> &[(u64, Val)] {
        &self.changes[self.signals[i].changes]
    }

    /// Times of the 0 -> 1 transitions of a one-bit signal.
    pub fn rising_edges(&self, i: usize) -> Vec<u64> {
        let mut out = vec![];
        let mut prev: Option<&Val> = None;
        for (t, v) in self.changes(i) {
            let is_one = matches!(v, Val::Bits(b) if b.ends_with('1'));
            let was_one = matches!(prev, Some(Val::Bits(b)) if b.ends_with('1'));
            if is_one && !was_one && prev.is_some() {
                out.push(*t);
            }
            prev = Some(v);
        }
        out
    }

    /// The rising edges of signal `i` from `lo` to `hi` (inclusive): each edge's cycle
    /// number (counted from the file's first edge) and its time.
    pub fn edges_between(&self, i: usize, lo: u64, hi: u64) -> Vec<(usize, u64)> {
        self.rising_edges(i)
            .into_iter()
            .enumerate()
            .filter(|(_, t)| (lo..=hi).contains(t))
            .collect()
    }

    /// A default clock: a one-bit signal named `clock`, `clk` or `clk_i`, the shallowest.
    pub fn default_clock(&self) -> Option<usize> {
        for name in ["clock", "clk", "clk_i"] {
            if let Ok(i) = self.resolve(name) {
                if self.signals[i].width == 1 {
                    return Some(i);
                }
            }
        }
        None
    }
}

/// How signals of two waveforms are paired.
#[derive(Clone, Debug, Default)]
pub struct Matching {
    /// Only signals under this scope of A, named relative to it.
    pub scope_a: Option<String>,
    /// Only signals under this scope of B, named relative to it.
    pub scope_b: Option<String>,
    /// Pair by leaf name (names must be unique per side).
    pub leaf: bool,
}

fn relative(path: &str, scope: &Option<String>) -> Option<String> {
    match scope {
        None => Some(path.to_string()),
        Some(s) => path.strip_prefix(&format!("{s}.")).map(|r| r.to_string()),
    }
}

/// Pairs `(name, index in A, index in B)`; when exact names give no pair, leading scopes
/// are stripped from both sides until they do (so `TOP.tb.dut.x` meets `tb.dut.x`).
pub fn pair_signals(
    a: &Waveform,
    b: &Waveform,
    m: &Matching,
) -> Result<Vec<(String, usize, usize)>, String> {
    let key = |w: &Waveform, scope: &Option<String>| -> Vec<(String, usize)> {
        w.signals
            .iter()
            .enumerate()
            .filter_map(|(i, s)| relative(&s.path, scope).map(|r| (r, i)))
            .collect()
    };
    let ka = key(a, &m.scope_a);
    let kb = key(b, &m.scope_b);
    if m.leaf {
        let leaf = |v: &[(String, usize)]| -> Result<HashMap<String, usize>, String> {
            let mut h = HashMap::new();
            for (n, i) in v {
                let l = n.rsplit('.').next().unwrap_or(n).to_string();
                if h.insert(l.clone(), *i).is_some() {
                    return Err(format!(
                        "leaf name `{l}` occurs more than once; narrow it with a scope"
                    ));
                }
            }
            Ok(h)
        };
        let (ha, hb) = (leaf(&ka)?, leaf(&kb)?);
        let mut out: Vec<(String, usize, usize)> = ha
            .iter()
            .filter_map(|(n, &i)| hb.get(n).map(|&j| (n.clone(), i, j)))
            .collect();
        out.sort_by_key(|p| p.1);
        return Ok(out);
    }
    let max_depth = ka
        .iter()
        .chain(&kb)
        .map(|(n, _)| n.matches('.').count())
        .max()
        .unwrap_or(0);
    let strip = |n: &str, k: usize| -> Option<String> {
        n.splitn(k + 1, '.').nth(k).map(|s| s.to_string())
    };
    for da in 0..=max_depth {
        for db in 0..=max_depth {
            let hb: HashMap<String, usize> = kb
                .iter()
                .filter_map(|(n, i)| strip(n, db).map(|s| (s, *i)))
                .collect();
            let out: Vec<(String, usize, usize)> = ka
                .iter()
                .filter_map(|(n, i)| strip(n, da).and_then(|s| hb.get(&s).map(|&j| (s, *i, j))))
                .collect();
            if !out.is_empty() {
                return Ok(out);
            }
        }
    }
    Ok(vec![])
}

/// The result of comparing two waveforms.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffReport {
    /// Clock edges compared.
    pub edges: usize,
    /// Rising edges in A and in B.
    pub edges_a: usize,
    /// Rising edges in B.
    pub edges_b: usize,
    /// Signals compared.
    pub signals: Vec<String>,
    /// First divergence: `(signal, cycle, time in A, time in B, value in A, value in B)`.
    pub first: Option<(String, usize, u64, u64, String, String)>,
    /// Differing edges per signal, for the signals that differ.
    pub counts: Vec<(String, usize)>,
}

impl DiffReport {
    /// No difference, and both files have the same number of edges.
    pub fn equal(&self) -> bool {
        self.first.is_none() && self.edges_a == self.edges_b
    }
}

fn show(v: Option<&Val>) -> String {
    v.map(|v| v.to_string())
        .unwrap_or_else(|| "(no value yet)".into())
}

/// Compare `a` and `b` at the rising edges of `clock` (a name resolved in each file).
pub fn diff(
    a: &Waveform,
    b: &Waveform,
    clock: &str,
    only: &[String],
    m: &Matching,
) -> Result<DiffReport, String> {
    let ca = a.resolve(clock).map_err(|e| format!("A: {e}"))?;
    let cb = b.resolve(clock).map_err(|e| format!("B: {e}"))?;
    let (ea, eb) = (a.rising_edges(ca), b.rising_edges(cb));
    let mut pairs = pair_signals(a, b, m)?;
    pairs.retain(|(_, i, j)| *i != ca && *j != cb);
    if !only.is_empty() {
        for o in only {
            if !pairs
                .iter()
                .any(|(n, _, _)| n == o || n.ends_with(&format!(".{o}")))
            {
                return Err(format!("signal `{o}` is not in both files"));
            }
        }
        pairs.retain(|(n, _, _)| only.iter().any(|o| n == o || n.ends_with(&format!(".{o}"))));
    }
    if pairs.is_empty() {
        return Err(
            "the two files have no signals in common (try --leaf or --scope-a/--scope-b)".into(),
        );
    }
    let edges = ea.len().min(eb.len());
    let mut first: Option<(String, usize, u64, u64, String, String)> = None;
    let mut counts: Vec<(String, usize)> = vec![];
    for (name, i, j) in &pairs {
        let mut n = 0;
        for k in 0..edges {
            let (va, vb) = (a.value_at(*i, ea[k]), b.value_at(*j, eb[k]));
            if va != vb {
                n += 1;
                let better = match &first {
                    None => true,
                    Some((_, fk, ..)) => k < *fk,
                };
                if better {
                    first = Some((name.clone(), k, ea[k], eb[k], show(va), show(vb)));
                }
            }
        }
        if n > 0 {
            counts.push((name.clone(), n));
        }
    }
    Ok(DiffReport {
        edges,
        edges_a: ea.len(),
        edges_b: eb.len(),
        signals: pairs.into_iter().map(|p| p.0).collect(),
        first,
        counts,
    })
}

/// The result of checking a waveform against a golden trace.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckReport {
    /// The scope whose signals were checked.
    pub scope: String,
    /// Cycles checked (edges present in the waveform, at most the trace's length).
    pub cycles: usize,
    /// Values compared.
    pub compared: usize,
    /// First mismatch: `(port, cycle, time, expected, got)`.
    pub first: Option<(String, usize, u64, String, String)>,
    /// Mismatching values per port.
    pub counts: Vec<(String, usize)>,
    /// Cycles the trace defines but the waveform lacks.
    pub missing_cycles: usize,
}

/// Check `w` against `golden` at the rising edges of `clock` inside the DUT scope: `scope`
/// if given, else the shallowest scope that has every golden port.
pub fn check_golden(
    w: &Waveform,
    golden: &crate::trace::Expected,
    clock: &str,
    scope: Option<&str>,
) -> Result<CheckReport, String> {
    let names: Vec<&str> = golden.outputs.iter().map(|p| p.name.as_str()).collect();
    let scope = match scope {
        Some(s) => s.to_string(),
        None => {
            let mut scopes: Vec<&str> = w
                .signals
                .iter()
                .filter_map(|s| s.path.rsplit_once('.').map(|(sc, _)| sc))
                .collect();
            scopes.sort_by_key(|s| (s.matches('.').count(), s.to_string()));
            scopes.dedup();
            scopes
                .into_iter()
                .find(|sc| names.iter().all(|n| w.find(&format!("{sc}.{n}")).is_some()))
                .ok_or_else(|| {
                    format!(
                        "no scope holds every port of `{}` ({})",
                        golden.block,
                        names.join(", ")
                    )
                })?
                .to_string()
        }
    };
    let clk = w
        .find(&format!("{scope}.{clock}"))
        .or_else(|| w.resolve(clock).ok())
        .ok_or_else(|| format!("no clock `{clock}` in `{scope}`"))?;
    let edges = w.rising_edges(clk);
    let mut idx = vec![];
    for p in &golden.outputs {
        let i = w
            .find(&format!("{scope}.{}", p.name))
            .ok_or_else(|| format!("`{scope}` has no signal `{}`", p.name))?;
        if w.signals[i].width as usize != p.width {
            return Err(format!(
                "`{scope}.{}` is {} bits wide, the trace says {}",
                p.name, w.signals[i].width, p.width
            ));
        }
        idx.push(i);
    }
    let cycles = edges.len().min(golden.rows.len());
    let mut first = None;
    let mut counts = vec![0usize; idx.len()];
    let mut compared = 0;
    for (c, (&edge, row)) in edges.iter().zip(&golden.rows).enumerate() {
        for (k, (&i, want)) in idx.iter().zip(row).enumerate() {
            let Some(want) = want else { continue };
            compared += 1;
            let p = &golden.outputs[k];
            let bits = format!("{:0>width$}", want.to_str_radix(2), width = p.width);
            let got = w.value_at(i, edge);
            if got != Some(&Val::Bits(bits.clone())) {
                counts[k] += 1;
                if first.is_none() {
                    first = Some((
                        p.name.clone(),
                        c,
                        edge,
                        Val::Bits(bits).to_string(),
                        show(got),
                    ));
                }
            }
        }
    }
    let missing_cycles = golden.rows[cycles..]
        .iter()
        .filter(|r| r.iter().any(|v| v.is_some()))
        .count();
    Ok(CheckReport {
        scope,
        cycles,
        compared,
        first,
        counts: golden
            .outputs
            .iter()
            .zip(counts)
            .filter(|(_, n)| *n > 0)
            .map(|(p, n)| (p.name.clone(), n))
            .collect(),
        missing_cycles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "$timescale 1ns $end\n$scope module top $end\n$var wire 1 ! clk $end\n$var reg 4 \" q [3:0] $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\nbx \"\n$end\n#5\n1!\nb101 \"\n#10\n0!\n#15\n1!\nb1 \"\n";

    #[test]
    fn reads_scalars_vectors_and_extends_short_vectors() {
        let w = Waveform::parse(SMALL.as_bytes()).unwrap();
        assert_eq!(w.timescale, Some((1, "ns".into())));
        assert_eq!(w.end_time, 15);
        let q = w.resolve("q").unwrap();
        assert_eq!(w.signals[q].path, "top.q");
        assert_eq!(w.value_at(q, 0), Some(&Val::Bits("xxxx".into())));
        assert_eq!(w.value_at(q, 5), Some(&Val::Bits("0101".into())));
        assert_eq!(w.value_at(q, 16), Some(&Val::Bits("0001".into())));
        let clk = w.default_clock().unwrap();
        assert_eq!(w.rising_edges(clk), vec![5, 15]);
        assert_eq!(w.edges_between(clk, 6, 100), vec![(1, 15)]);
    }

    /// The dialects: Verilator's `TOP` scope and parameters, rust-hdl's string enums, reals,
    /// bit selects, `$dumpall`, a `fs` timescale, shared identifier codes.
    #[test]
    fn reads_other_dialects() {
        let text = "$version Verilator $end\n$timescale 10fs $end\n$scope module TOP $end\n$scope module tb $end\n\
            $var parameter 32 ( WIDTH [31:0] $end\n$var wire 1 ) clk $end\n$var string 1 * state $end\n\
            $var real 64 + level $end\n$var wire 1 , bus [3] $end\n$var wire 1 ) alias $end\n\
            $upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpall\nb00000000000000000000000000001000 (\n\
            0)\nsIdle *\nr0.5 +\nz,\n$end\n#10\n1)\nsRun *\nr1.5 +\n";
        let w = Waveform::parse(text.as_bytes()).unwrap();
        assert_eq!(w.timescale, Some((10, "fs".into())));
        let p = w.resolve("WIDTH").unwrap();
        assert_eq!(w.signals[p].var_type, "parameter");
        assert_eq!(w.value_at(p, 10).unwrap().to_u128(), Some(8));
        assert_eq!(
            w.value_at(w.resolve("state").unwrap(), 10),
            Some(&Val::Str("Run".into()))
        );
        assert_eq!(
            w.value_at(w.resolve("level").unwrap(), 0),
            Some(&Val::Real(0.5))
        );
        assert_eq!(
            w.value_at(w.resolve("bus[3]").unwrap(), 0),
            Some(&Val::Bits("z".into()))
        );
        assert_eq!(
            w.value_at(w.resolve("alias").unwrap(), 10),
            Some(&Val::Bits("1".into()))
        );
        assert_eq!(w.signals[w.resolve("clk").unwrap()].path, "TOP.tb.clk");
    }

    #[test]
    fn malformed_files_give_line_numbers_not_panics() {
        let bad = SMALL.replace("b101 \"", "b1o1 \"");
        let e = Waveform::parse(bad.as_bytes()).unwrap_err();
        assert!(e.line.is_some(), "{e}");
        let e = Waveform::parse(SMALL.replace("#15", "#3").as_bytes()).unwrap_err();
        assert!(e.message.contains("backwards"), "{e}");
        let e = Waveform::parse(SMALL.replace("1!\nb1 \"", "1!\nb1 %").as_bytes()).unwrap_err();
        assert!(e.message.contains("undeclared"), "{e}");
        // Every prefix and many single-byte corruptions: an error or a waveform, never a panic.
        let bytes = SMALL.as_bytes();
        for n in 0..bytes.len() {
            let _ = Waveform::parse(&bytes[..n]);
            for c in [b'$', b'#', b'x', b'\n', b' ', b'b', 0xff] {
                let mut v = bytes.to_vec();
                v[n] = c;
                let _ = Waveform::parse(&v[..]);
            }
        }
    }
}

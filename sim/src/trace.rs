//! Output values per cycle, the golden model's expectations, and their comparison.

use crate::value::{describe, Value};
use edgelearn_hdl::design::{Direction, PortSpec};
use num_bigint::BigUint;
use std::fmt;

/// What a backend produced: one row per cycle, one value per output port.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The block.
    pub block: String,
    /// The backend that produced it (`native`, `icarus`, `verilator`, `netlist`).
    pub backend: String,
    /// Output ports, in bench order.
    pub outputs: Vec<PortSpec>,
    /// One row per cycle.
    pub rows: Vec<Vec<Value>>,
}

/// What the golden model says: per cycle, per output, the value where the spec defines it.
#[derive(Clone, Debug)]
pub struct Expected {
    /// The block.
    pub block: String,
    /// Output ports, in bench order.
    pub outputs: Vec<PortSpec>,
    /// One row per cycle; `None` where the spec leaves the value undefined.
    pub rows: Vec<Vec<Option<BigUint>>>,
}

/// Output ports of a block, in bench order.
pub fn output_ports(ports: &[PortSpec]) -> Vec<PortSpec> {
    ports
        .iter()
        .filter(|p| p.direction == Direction::Output)
        .cloned()
        .collect()
}

impl Trace {
    /// Index of an output port.
    pub fn port_index(&self, port: &str) -> Option<usize> {
        self.outputs.iter().position(|p| p.name == port)
    }

    /// The value of `port` in cycle `c`.
    pub fn get(&self, c: usize, port: &str) -> Option<&Value> {
        self.port_index(port)
            .and_then(|i| self.rows.get(c).map(|r| &r[i]))
    }
}

impl Expected {
    /// An expectation with every value undefined, `cycles` long.
    pub fn new(block: &str, ports: &[PortSpec], cycles: usize) -> Self {
        let outputs = output_ports(ports);
        let n = outputs.len();
        Expected {
            block: block.to_string(),
            outputs,
            rows: vec![vec![None; n]; cycles],
        }
    }

    /// Define `port` in cycle `c`. Panics on an unknown port: expectations are written by
    /// the golden bindings, so that would be a bug in edgelearn, not bad input.
    pub fn set(&mut self, c: usize, port: &str, value: BigUint) {
        let i = self
            .outputs
            .iter()
            .position(|p| p.name == port)
            .unwrap_or_else(|| {
                panic!(
                    "{}: golden binding names unknown output `{port}`",
                    self.block
                )
            });
        self.rows[c][i] = Some(value);
    }

    /// Number of (cycle, port) values the spec defines.
    pub fn defined(&self) -> usize {
        self.rows
            .iter()
            .map(|r| r.iter().filter(|v| v.is_some()).count())
            .sum()
    }
}

/// The first difference between two runs, or between a run and the golden model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The block.
    pub block: String,
    /// What was compared (`golden vs icarus`, `native vs verilator`).
    pub what: String,
    /// The port.
    pub port: String,
    /// The cycle (trace row).
    pub cycle: usize,
    /// Expected value, rendered.
    pub expected: String,
    /// Observed value, rendered.
    pub got: String,
    /// Differences in total.
    pub count: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): port `{}` differs at cycle {}\n  expected: {}\n  got:      {}\n  ({} differing values in all)",
            self.block, self.what, self.port, self.cycle, self.expected, self.got, self.count
        )
    }
}

impl std::error::Error for Mismatch {}

/// Check a run against the golden model on every cycle and port the spec defines.
/// Returns the number of values compared.
pub fn check(expected: &Expected, got: &Trace) -> Result<usize, Box<Mismatch>> {
    let what = format!("golden vs {}", got.backend);
    let mut first: Option<Mismatch> = None;
    let mut count = 0;
    let mut compared = 0;
    if expected.rows.len() != got.rows.len() {
        return Err(Box::new(Mismatch {
            block: expected.block.clone(),
            what,
            port: "(trace length)".into(),
            cycle: expected.rows.len().min(got.rows.len()),
            expected: format!("{} cycles", expected.rows.len()),
            got: format!("{} cycles", got.rows.len()),
            count: 1,
        }));
    }
    for (c, (erow, grow)) in expected.rows.iter().zip(&got.rows).enumerate() {
        for (i, e) in erow.iter().enumerate() {
            let Some(e) = e else { continue };
            let p = &expected.outputs[i];
            let gi = got.port_index(&p.name);
            let g = gi.map(|gi| &grow[gi]);
            compared += 1;
            if g != Some(&Value::Known(e.clone())) {
                count += 1;
                if first.is_none() {
                    first = Some(Mismatch {
                        block: expected.block.clone(),
                        what: what.clone(),
                        port: p.name.clone(),
                        cycle: c,
                        expected: describe(&Value::Known(e.clone()), p.width, p.lanes, p.signed),
                        got: g
                            .map(|g| describe(g, p.width, p.lanes, p.signed))
                            .unwrap_or_else(|| "(port missing from trace)".into()),
                        count: 0,
                    });
                }
            }
        }
    }
    match first {
        Some(mut m) => {
            m.count = count;
            Err(Box::new(m))
        }
        None => Ok(compared),
    }
}

/// Require two runs to agree on every cycle and every port.
pub fn compare(a: &Trace, b: &Trace) -> Result<(), Box<Mismatch>> {
    let what = format!("{} vs {}", a.backend, b.backend);
    if a.rows.len() != b.rows.len() || a.outputs.len() != b.outputs.len() {
        return Err(Box::new(Mismatch {
            block: a.block.clone(),
            what,
            port: "(trace shape)".into(),
            cycle: a.rows.len().min(b.rows.len()),
            expected: format!("{} cycles x {} ports", a.rows.len(), a.outputs.len()),
            got: format!("{} cycles x {} ports", b.rows.len(), b.outputs.len()),
            count: 1,
        }));
    }
    let mut first: Option<Mismatch> = None;
    let mut count = 0;
    for (c, (ra, rb)) in a.rows.iter().zip(&b.rows).enumerate() {
        for (i, (va, vb)) in ra.iter().zip(rb).enumerate() {
            if va != vb {
                count += 1;
                if first.is_none() {
                    let p = &a.outputs[i];
                    first = Some(Mismatch {
                        block: a.block.clone(),
                        what: what.clone(),
                        port: p.name.clone(),
                        cycle: c,
                        expected: describe(va, p.width, p.lanes, p.signed),
                        got: describe(vb, p.width, p.lanes, p.signed),
                        count: 0,
                    });
                }
            }
        }
    }
    match first {
        Some(mut m) => {
            m.count = count;
            Err(Box::new(m))
        }
        None => Ok(()),
    }
}

/// The golden-trace file (JSON) written by `edgelearn golden` and read by `edgelearn vcd
/// check`: the expected value of every output port on every cycle where the spec defines it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GoldenFile {
    /// The block.
    pub block: String,
    /// The clock port; cycle c is the value right after its c-th rising edge (0-based).
    pub clock: String,
    /// Output ports.
    pub ports: Vec<PortSpec>,
    /// Per cycle, per port (in `ports` order): hex value, or `null` where undefined.
    pub cycles: Vec<Vec<Option<String>>>,
}

impl GoldenFile {
    /// From an expectation.
    pub fn from_expected(e: &Expected) -> GoldenFile {
        GoldenFile {
            block: e.block.clone(),
            clock: "clock".into(),
            ports: e.outputs.clone(),
            cycles: e
                .rows
                .iter()
                .map(|r| {
                    r.iter()
                        .map(|v| v.as_ref().map(|v| format!("0x{v:x}")))
                        .collect()
                })
                .collect(),
        }
    }

    /// Back to an expectation (hex values parsed; an unparsable value is an error).
    pub fn to_expected(&self) -> Result<Expected, String> {
        let mut rows = Vec::with_capacity(self.cycles.len());
        for (c, r) in self.cycles.iter().enumerate() {
            if r.len() != self.ports.len() {
                return Err(format!(
                    "cycle {c}: {} values for {} ports",
                    r.len(),
                    self.ports.len()
                ));
            }
            let mut row = vec![];
            for (v, p) in r.iter().zip(&self.ports) {
                row.push(match v {
                    None => None,
                    Some(s) => {
                        let h = s.strip_prefix("0x").unwrap_or(s);
                        Some(BigUint::parse_bytes(h.as_bytes(), 16).ok_or_else(|| {
                            format!("cycle {c}, port {}: `{s}` is not hex", p.name)
                        })?)
                    }
                });
            }
            rows.push(row);
        }
        Ok(Expected {
            block: self.block.clone(),
            outputs: self.ports.clone(),
            rows,
        })
    }

    /// As CSV: `cycle,port,...`, empty cells where undefined.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("cycle");
        for p in &self.ports {
            s.push(',');
            s.push_str(&p.name);
        }
        s.push('\n');
        for (c, r) in self.cycles.iter().enumerate() {
            s.push_str(&c.to_string());
            for v in r {
                s.push(',');
                if let Some(v) = v {
                    s.push_str(v);
                }
            }
            s.push('\n');
        }
        s
    }
}

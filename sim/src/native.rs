//! The rust-hdl backend: the block itself, stepped with rust-hdl's `simulate()`, with an
//! optional VCD laid out like the Verilog bench's (`<block>_tb.dut.<port>`).

use crate::error::{Error, ErrorKind, Result};
use crate::stimulus::Stimulus;
use crate::trace::{output_ports, Trace};
use crate::value::Value;
use edgelearn_hdl::design::{Design, NativeDesign};
use edgelearn_hdl::rust_hdl::prelude::{Atom, AtomKind, Block, Probe, VCDValue};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;

/// VCD time per half clock period, in picoseconds: the same 10 ns period and `1ps`
/// timescale as the Verilog bench (inputs at 10c ns, rising edge at 10c + 5 ns).
pub(crate) const HALF_PERIOD_PS: u64 = 5_000;

fn bits_of(v: &VCDValue, out: &mut String) {
    match v {
        VCDValue::Single(b) => out.push_str(&b.to_string()),
        VCDValue::Vector(bs) => bs.iter().for_each(|b| out.push_str(&b.to_string())),
        VCDValue::String(s) => out.push_str(s),
        VCDValue::Composite(parts) => parts.iter().for_each(|p| bits_of(p, out)),
    }
}

struct Var {
    atom: usize,
    code: vcd::IdCode,
    string: bool,
}

/// Writes the signals of a rust-hdl block as a VCD.
pub(crate) struct NativeVcd<W: Write> {
    pub(crate) w: vcd::Writer<W>,
    vars: Vec<Var>,
    by_atom: HashMap<usize, usize>,
    last: Vec<Option<String>>,
    error: Option<std::io::Error>,
}

struct HeaderProbe<'a, W: Write> {
    v: &'a mut NativeVcd<W>,
    depth: usize,
    max_depth: usize,
    tb: String,
}

impl<W: Write> HeaderProbe<'_, W> {
    fn io(&mut self, r: std::io::Result<()>) {
        if let Err(e) = r {
            self.v.error.get_or_insert(e);
        }
    }
}

impl<W: Write> Probe for HeaderProbe<'_, W> {
    fn visit_start_scope(&mut self, name: &str, _node: &dyn Block) {
        self.depth += 1;
        if self.depth == 1 {
            let tb = self.tb.clone();
            let r = self
                .v
                .w
                .add_module(&tb)
                .and_then(|_| self.v.w.add_module("dut"));
            self.io(r);
        } else if self.depth <= self.max_depth {
            let r = self.v.w.add_module(name);
            self.io(r);
        }
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth > self.max_depth
            || signal.kind() == AtomKind::Constant
            || self.v.by_atom.contains_key(&signal.id())
        {
            return;
        }
        let string = matches!(signal.vcd(), VCDValue::String(_));
        let width = if string {
            1
        } else {
            signal.bits().max(1) as u32
        };
        let var = if string {
            self.v.w.add_var(vcd::VarType::String, width, name, None)
        } else {
            self.v.w.add_wire(width, name)
        };
        match var {
            Ok(code) => {
                self.v.by_atom.insert(signal.id(), self.v.vars.len());
                self.v.vars.push(Var {
                    atom: signal.id(),
                    code,
                    string,
                });
                self.v.last.push(None);
            }
            Err(e) => {
                self.v.error.get_or_insert(e);
            }
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            let r = self.v.w.upscope().and_then(|_| self.v.w.upscope());
            self.io(r);
        } else if self.depth <= self.max_depth {
            let r = self.v.w.upscope();
            self.io(r);
        }
        self.depth -= 1;
    }
}

struct ValueProbe<'a, W: Write> {
    v: &'a mut NativeVcd<W>,
}

impl<W: Write> Probe for ValueProbe<'_, W> {
    fn visit_atom(&mut self, _name: &str, signal: &dyn Atom) {
        let Some(&k) = self.v.by_atom.get(&signal.id()) else {
            return;
        };
        let mut s = String::new();
        bits_of(&signal.vcd(), &mut s);
        if self.v.last[k].as_deref() == Some(s.as_str()) {
            return;
        }
        let var = &self.v.vars[k];
        debug_assert_eq!(var.atom, signal.id());
        let r = if var.string {
            self.v.w.change_string(var.code, &s)
        } else if s.len() == 1 {
            let b = match s.as_bytes()[0] {
                b'1' => vcd::Value::V1,
                b'0' => vcd::Value::V0,
                b'z' => vcd::Value::Z,
                _ => vcd::Value::X,
            };
            self.v.w.change_scalar(var.code, b)
        } else {
            let bits = s.bytes().map(|c| match c {
                b'1' => vcd::Value::V1,
                b'0' => vcd::Value::V0,
                b'z' => vcd::Value::Z,
                _ => vcd::Value::X,
            });
            self.v.w.change_vector(var.code, bits)
        };
        if let Err(e) = r {
            self.v.error.get_or_insert(e);
        }
        self.v.last[k] = Some(s);
    }
}

impl<W: Write> NativeVcd<W> {
    pub(crate) fn new(
        out: W,
        block: &dyn Block,
        tb: &str,
        depth: Option<usize>,
    ) -> std::io::Result<Self> {
        let mut v = NativeVcd {
            w: vcd::Writer::new(out),
            vars: vec![],
            by_atom: HashMap::new(),
            last: vec![],
            error: None,
        };
        v.w.timescale(1, vcd::TimescaleUnit::PS)?;
        let mut probe = HeaderProbe {
            v: &mut v,
            depth: 0,
            max_depth: depth.unwrap_or(usize::MAX),
            tb: tb.to_string(),
        };
        block.accept("dut", &mut probe);
        if let Some(e) = v.error.take() {
            return Err(e);
        }
        v.w.enddefinitions()?;
        Ok(v)
    }

    pub(crate) fn sample(&mut self, t: u64, block: &dyn Block) -> std::io::Result<()> {
        self.w.timestamp(t)?;
        block.accept("dut", &mut ValueProbe { v: self });
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The rust-hdl side of `design`, or an error for a design given as Verilog only.
pub fn native_of(design: &mut dyn Design) -> Result<&mut dyn NativeDesign> {
    let name = design.name().to_string();
    design
        .native()
        .ok_or_else(|| ErrorKind::VerilogOnly { block: name }.into())
}

/// Run `design` (a fresh instance) on `stim`; optionally write a VCD of the signals down
/// to `vcd_depth` scope levels (1: the block's ports; `None`: everything).
pub fn run(
    mut design: Box<dyn Design>,
    stim: &Stimulus,
    vcd: Option<&Path>,
    vcd_depth: Option<usize>,
) -> Result<Trace> {
    let outputs = output_ports(design.ports());
    let name = design.name().to_string();
    let tb = format!("{name}_tb");
    let design = native_of(&mut *design)?;
    let mut writer = match vcd {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| Error::io(p, e))?;
            Some(
                NativeVcd::new(BufWriter::new(f), design.block(), &tb, vcd_depth)
                    .map_err(|e| Error::io(p, e))?,
            )
        }
        None => None,
    };
    let vcd_err = |e: std::io::Error| Error::io(vcd.unwrap_or(Path::new("vcd")), e);
    let mut rows = Vec::with_capacity(stim.len());
    let has_clock = design.has_clock();
    for c in 0..stim.len() {
        design.set_clock(false);
        for (p, v) in stim.inputs.iter().zip(&stim.rows[c]) {
            design.set_input(&p.name, v)?;
        }
        design.settle()?;
        if let Some(w) = writer.as_mut() {
            w.sample(2 * HALF_PERIOD_PS * c as u64, design.block())
                .map_err(vcd_err)?;
        }
        if has_clock {
            design.set_clock(true);
            design.settle()?;
            if let Some(w) = writer.as_mut() {
                w.sample(
                    2 * HALF_PERIOD_PS * c as u64 + HALF_PERIOD_PS,
                    design.block(),
                )
                .map_err(vcd_err)?;
            }
        }
        let mut row = Vec::with_capacity(outputs.len());
        for p in &outputs {
            row.push(Value::Known(design.get_output(&p.name)?));
        }
        rows.push(row);
    }
    if let Some(mut w) = writer {
        // The clock falls with the next row's inputs, one half period after the last edge.
        design.set_clock(false);
        design.settle()?;
        w.sample(2 * HALF_PERIOD_PS * stim.len() as u64, design.block())
            .map_err(vcd_err)?;
        w.w.flush().map_err(vcd_err)?;
    }
    Ok(Trace {
        block: name,
        backend: "native".into(),
        outputs,
        rows,
    })
}

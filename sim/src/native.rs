//! The rust-hdl backend: the block itself, stepped with rust-hdl's `simulate()`.

use crate::error::{Error, Result};
use crate::stimulus::Stimulus;
use crate::trace::{output_ports, Trace};
use crate::value::Value;
use edgelearn_hdl::design::Design;
use edgelearn_hdl::rust_hdl::prelude::{write_vcd_change, write_vcd_dump, write_vcd_header};
use std::io::BufWriter;
use std::path::Path;

/// VCD time per half clock period, in picoseconds (rust-hdl writes `$timescale 1ps`):
/// the same 10 ns period as the Verilog bench.
const HALF_PERIOD_PS: u64 = 5_000;

/// Run `design` (a fresh instance) on `stim`; optionally write a VCD of every signal.
pub fn run(mut design: Box<dyn Design>, stim: &Stimulus, vcd: Option<&Path>) -> Result<Trace> {
    let outputs = output_ports(design.ports());
    let mut writer = match vcd {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| Error::io(p, e))?;
            Some(write_vcd_header(BufWriter::new(f), design.block()))
        }
        None => None,
    };
    let mut rows = Vec::with_capacity(stim.len());
    let has_clock = design.has_clock();
    for c in 0..stim.len() {
        design.set_clock(false);
        for (p, v) in stim.inputs.iter().zip(&stim.rows[c]) {
            design.set_input(&p.name, v)?;
        }
        design.settle()?;
        if let Some(mut w) = writer.take() {
            w.timestamp(2 * HALF_PERIOD_PS * c as u64)
                .map_err(|e| Error::io("vcd", e))?;
            writer = Some(if c == 0 {
                write_vcd_dump(w, design.block())
            } else {
                write_vcd_change(w, design.block())
            });
        }
        if has_clock {
            design.set_clock(true);
            design.settle()?;
            if let Some(mut w) = writer.take() {
                w.timestamp(2 * HALF_PERIOD_PS * c as u64 + HALF_PERIOD_PS)
                    .map_err(|e| Error::io("vcd", e))?;
                writer = Some(write_vcd_change(w, design.block()));
            }
        }
        let mut row = Vec::with_capacity(outputs.len());
        for p in &outputs {
            row.push(Value::Known(design.get_output(&p.name)?));
        }
        rows.push(row);
    }
    // Dropping the probe flushes its buffered file.
    drop(writer);
    Ok(Trace {
        block: design.name().to_string(),
        backend: "native".into(),
        outputs,
        rows,
    })
}

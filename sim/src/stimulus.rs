//! Per-cycle input values for one block, in the block's input-port order.
//!
//! Cycle convention (docs/decisions.md D-CYCLE): row c is applied while the clock is low,
//! the clock then rises (edge c), and the outputs sampled after that edge form trace row c.
//! So a register's input in row c shows on its output in trace row c.

use crate::error::{ErrorKind, Result};
use crate::value::{from_signed, mask, pack_lanes};
use edgelearn_hdl::design::{Direction, PortSpec};
use num_bigint::BigUint;

/// Input values per cycle.
#[derive(Clone, Debug)]
pub struct Stimulus {
    /// The block this stimulus drives.
    pub block: String,
    /// Input ports (clock excluded), in bench order.
    pub inputs: Vec<PortSpec>,
    /// One row per cycle, one value per input.
    pub rows: Vec<Vec<BigUint>>,
}

/// One cycle under construction; unset ports keep the previous row's value (0 at first).
pub struct Row<'a> {
    stim: &'a mut Stimulus,
    values: Vec<BigUint>,
}

impl Stimulus {
    /// An empty stimulus for a block with these ports.
    pub fn new(block: &str, ports: &[PortSpec]) -> Self {
        Stimulus {
            block: block.to_string(),
            inputs: ports
                .iter()
                .filter(|p| p.direction == Direction::Input && !p.clock)
                .cloned()
                .collect(),
            rows: Vec::new(),
        }
    }

    /// Number of cycles.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there are no cycles.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Index of an input port.
    pub fn port_index(&self, port: &str) -> Result<usize> {
        self.inputs
            .iter()
            .position(|p| p.name == port)
            .ok_or_else(|| {
                ErrorKind::Stimulus {
                    block: self.block.clone(),
                    message: format!(
                        "no input port `{port}`; inputs are: {}",
                        self.inputs
                            .iter()
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
                .into()
            })
    }

    /// Start a new cycle whose values default to the previous cycle's.
    pub fn row(&mut self) -> Row<'_> {
        let values = self
            .rows
            .last()
            .cloned()
            .unwrap_or_else(|| vec![BigUint::default(); self.inputs.len()]);
        Row { stim: self, values }
    }

    /// Append a complete row (values in input order), checking widths.
    pub fn push(&mut self, values: Vec<BigUint>) -> Result<()> {
        if values.len() != self.inputs.len() {
            return Err(ErrorKind::Stimulus {
                block: self.block.clone(),
                message: format!(
                    "row {} has {} values for {} inputs",
                    self.rows.len(),
                    values.len(),
                    self.inputs.len()
                ),
            }
            .into());
        }
        for (v, p) in values.iter().zip(&self.inputs) {
            if v.bits() as usize > p.width {
                return Err(ErrorKind::Stimulus {
                    block: self.block.clone(),
                    message: format!(
                        "row {}: value 0x{v:x} does not fit port `{}` ({} bits)",
                        self.rows.len(),
                        p.name,
                        p.width
                    ),
                }
                .into());
            }
        }
        self.rows.push(values);
        Ok(())
    }

    /// All inputs of a row concatenated `{in0, in1, ...}` (in0 in the top bits), as the
    /// bench's `$readmemh` word.
    pub fn packed_row(&self, c: usize) -> BigUint {
        let mut word = BigUint::default();
        for (v, p) in self.rows[c].iter().zip(&self.inputs) {
            word = (word << p.width) | v;
        }
        word
    }

    /// Total width of a packed row.
    pub fn row_width(&self) -> usize {
        self.inputs.iter().map(|p| p.width).sum::<usize>().max(1)
    }
}

impl Row<'_> {
    /// Set a port to an unsigned value (truncated to the port width).
    pub fn set(mut self, port: &str, value: impl Into<BigUint>) -> Result<Self> {
        let i = self.stim.port_index(port)?;
        self.values[i] = value.into() & mask(self.stim.inputs[i].width);
        Ok(self)
    }

    /// Set a port to a signed value (two's complement in the port width).
    pub fn set_signed(mut self, port: &str, value: i64) -> Result<Self> {
        let i = self.stim.port_index(port)?;
        self.values[i] = from_signed(value, self.stim.inputs[i].width);
        Ok(self)
    }

    /// Set a packed multi-lane port from its lane values (lane i at bits [w(i+1)-1 : w i]).
    pub fn set_lanes(mut self, port: &str, lanes: &[i64]) -> Result<Self> {
        let i = self.stim.port_index(port)?;
        let p = &self.stim.inputs[i];
        if lanes.len() != p.lanes {
            return Err(ErrorKind::Stimulus {
                block: self.stim.block.clone(),
                message: format!(
                    "port `{}` has {} lanes, got {}",
                    p.name,
                    p.lanes,
                    lanes.len()
                ),
            }
            .into());
        }
        self.values[i] = pack_lanes(lanes, p.lane_width);
        Ok(self)
    }

    /// Set a one-bit port.
    pub fn bit(self, port: &str, value: bool) -> Result<Self> {
        self.set(port, value as u8)
    }

    /// Append the row.
    pub fn push(self) -> Result<()> {
        let Row { stim, values } = self;
        stim.push(values)
    }
}

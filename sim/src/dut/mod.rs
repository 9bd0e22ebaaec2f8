//! Reactive testbenches: a design under test driven from Rust one clock edge at a time.
//!
//! [`Dut`] is the one testbench API of edgelearn. A bench resolves its ports once
//! ([`Dut::port`]), then pokes inputs, peeks outputs and steps the clock, reacting to what
//! the design does; memories are loaded and read through a backdoor ([`Dut::load_mem`],
//! [`Dut::read_mem`]) so a bench need not spend thousands of cycles filling a cache. Two
//! simulators implement it:
//! - [`verilator::VerilatorDut`]: the emitted Verilog compiled by Verilator into a shared
//!   library and loaded into this process (tens of millions of cycles per second);
//! - [`native::NativeDut`]: rust-hdl's own simulator on the block itself (short runs, designs
//!   under development).
//!
//! Cycle convention (docs/decisions.md D-CYCLE): values poked before [`Dut::step`] are applied
//! while the clock is low; `step` raises the clock (edge c) and the outputs peeked after it
//! are trace row c of the batch simulators. A peek after a poke sees the combinational effect
//! of the poke. Values are unsigned words: up to 64 bits with [`Dut::poke`] / [`Dut::peek`],
//! any width as little-endian 64-bit words with [`Dut::poke_words`] / [`Dut::peek_words`].

pub mod native;
pub mod record;
pub mod verilator;

use crate::error::{ErrorKind, Result};
use edgelearn_hdl::design::{Direction, MemorySpec, PortSpec};
use std::path::PathBuf;

/// A port of a [`Dut`], resolved once by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PortId(pub(crate) usize);

impl PortId {
    /// Index in [`Dut::ports`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// Options of a reactive simulation.
#[derive(Clone, Debug, Default)]
pub struct DutOptions {
    /// Write a VCD here.
    pub vcd: Option<PathBuf>,
    /// Scope levels in the VCD: 1 = the top module's ports only; `None` = every signal.
    pub vcd_depth: Option<usize>,
    /// Record only rising edges `start..end` (cycles counted from 0); Verilator only.
    pub vcd_window: Option<(u64, u64)>,
    /// Clock every block at every edge: the design's simulation gates off (Verilator only;
    /// the reference the gates are checked against, docs/decisions.md D-SIM-GATE).
    pub ungated: bool,
}

/// A design under test, stepped from Rust.
pub trait Dut {
    /// The design's name.
    fn name(&self) -> &str;
    /// Its ports, in declaration order ([`PortId::index`] indexes this).
    fn ports(&self) -> &[PortSpec];
    /// Its memories (backdoor names).
    fn memories(&self) -> &[MemorySpec];

    /// The port called `name`; an unknown name is an error listing the ports.
    fn port(&self, name: &str) -> Result<PortId> {
        find_port(self.name(), self.ports(), name)
    }

    /// Drive input `port` with `value` (ports up to 64 bits). A value wider than the port,
    /// an output, the clock or a wider port is an error.
    fn poke(&mut self, port: PortId, value: u64) -> Result<()>;
    /// Drive input `port` with little-endian 64-bit words (any width; missing words are 0).
    fn poke_words(&mut self, port: PortId, words: &[u64]) -> Result<()>;
    /// The value of `port` (ports up to 64 bits), with every poke so far taken into account;
    /// an input reads back the value driven on it.
    fn peek(&mut self, port: PortId) -> Result<u64>;
    /// The value of `port` as little-endian words into `out` (`ceil(width / 64)` of them are
    /// written; `out` must have room).
    fn peek_into(&mut self, port: PortId, out: &mut [u64]) -> Result<()>;
    /// The value of `port` as `ceil(width / 64)` little-endian words.
    fn peek_words(&mut self, port: PortId) -> Result<Vec<u64>> {
        let mut w = vec![0u64; self.ports()[port.0].width.div_ceil(64).max(1)];
        self.peek_into(port, &mut w)?;
        Ok(w)
    }

    /// One rising clock edge.
    fn step(&mut self) -> Result<()>;
    /// `n` rising edges with the inputs held.
    fn steps(&mut self, n: u64) -> Result<()> {
        for _ in 0..n {
            self.step()?;
        }
        Ok(())
    }
    /// Rising edges so far.
    fn cycle(&self) -> u64;

    /// Write `words` into memory `name` from word `offset` on, without clocking the design.
    /// A memory word wider than 64 bits takes `ceil(width / 64)` consecutive words.
    fn load_mem(&mut self, name: &str, offset: usize, words: &[u64]) -> Result<()>;
    /// Every word of memory `name` (the layout of [`Dut::load_mem`]).
    fn read_mem(&mut self, name: &str) -> Result<Vec<u64>>;

    /// Free-running phase: for each cycle, poke `inputs` from the next `inputs.len()` values
    /// of `stim`, step, and append the values of `outputs` to `out`. Ports up to 64 bits.
    fn run_batch(
        &mut self,
        inputs: &[PortId],
        outputs: &[PortId],
        stim: &[u64],
        out: &mut Vec<u64>,
    ) -> Result<()> {
        if inputs.is_empty() {
            return Err(self.misuse("run_batch needs at least one input port".into()));
        }
        for row in stim.chunks(inputs.len()) {
            for (&p, &v) in inputs.iter().zip(row) {
                self.poke(p, v)?;
            }
            self.step()?;
            for &p in outputs {
                out.push(self.peek(p)?);
            }
        }
        Ok(())
    }

    /// Flush and close the VCD (also done on drop, where errors cannot be reported).
    fn finish(&mut self) -> Result<()>;

    /// Simulation clock gates on (the default) or off: with them off every block is clocked
    /// at every edge, which is what every other backend does and the reference the gates are
    /// checked against (docs/decisions.md D-SIM-GATE). A backend without gates ignores it.
    fn set_sim_gating(&mut self, _on: bool) {}
    /// Each simulation gate (instance path) with the rising edges at which it clocked its
    /// block so far; empty for a backend or design without gates.
    fn sim_gate_ticks(&self) -> Vec<(String, u64)> {
        Vec::new()
    }

    /// An error about this design's testbench use.
    fn misuse(&self, message: String) -> crate::Error {
        ErrorKind::Dut {
            block: self.name().to_string(),
            message,
        }
        .into()
    }
}

/// Resolve a port name, or list the ports.
pub(crate) fn find_port(block: &str, ports: &[PortSpec], name: &str) -> Result<PortId> {
    ports
        .iter()
        .position(|p| p.name == name)
        .map(PortId)
        .ok_or_else(|| {
            ErrorKind::Dut {
                block: block.to_string(),
                message: format!(
                    "no port `{name}`; the ports are {}",
                    ports
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
            .into()
        })
}

/// Checks that `port` is a drivable input and `words` fit its width.
pub(crate) fn check_poke(block: &str, spec: &PortSpec, words: &[u64]) -> Result<()> {
    let fail = |message: String| -> Result<()> {
        Err(ErrorKind::Dut {
            block: block.to_string(),
            message,
        }
        .into())
    };
    if spec.direction != Direction::Input {
        return fail(format!("`{}` is an output; it cannot be poked", spec.name));
    }
    if spec.clock {
        return fail(format!("`{}` is the clock; step() drives it", spec.name));
    }
    let n = spec.width.div_ceil(64);
    for (i, &w) in words.iter().enumerate() {
        let bits = spec.width.saturating_sub(64 * i).min(64);
        let fits = if i >= n {
            w == 0
        } else {
            bits == 64 || w >> bits == 0
        };
        if !fits {
            return fail(format!(
                "value {} is wider than port `{}` ({} bits)",
                show_words(words),
                spec.name,
                spec.width
            ));
        }
    }
    Ok(())
}

/// Checks that `room` words hold `port`.
pub(crate) fn check_peek(block: &str, spec: &PortSpec, room: usize) -> Result<()> {
    if room < spec.width.div_ceil(64).max(1) {
        return Err(ErrorKind::Dut {
            block: block.to_string(),
            message: format!(
                "`{}` has {} bits; {room} words cannot hold it",
                spec.name, spec.width
            ),
        }
        .into());
    }
    Ok(())
}

/// Packs signed lanes of `w` bits (lane i at bits `[w(i+1)-1 : w i]`) into little-endian
/// 64-bit words, as the ports' packing convention says.
pub fn pack_words(values: &[i64], w: usize) -> Vec<u64> {
    let mut out = vec![0u64; (values.len() * w).div_ceil(64).max(1)];
    for (i, &v) in values.iter().enumerate() {
        for b in 0..w {
            if (v >> b.min(63)) & 1 != 0 {
                let bit = i * w + b;
                out[bit / 64] |= 1 << (bit % 64);
            }
        }
    }
    out
}

/// Unpacks `n` lanes of `w` bits from little-endian words, as two's complement when
/// `signed`.
pub fn unpack_words(words: &[u64], w: usize, n: usize, signed: bool) -> Vec<i64> {
    (0..n)
        .map(|i| {
            let mut v: u64 = 0;
            for b in 0..w.min(64) {
                let bit = i * w + b;
                if words
                    .get(bit / 64)
                    .is_some_and(|x| (x >> (bit % 64)) & 1 != 0)
                {
                    v |= 1 << b;
                }
            }
            if signed && w < 64 && (v >> (w - 1)) & 1 != 0 {
                (v | (u64::MAX << w)) as i64
            } else {
                v as i64
            }
        })
        .collect()
}

/// Little-endian words as one hex number.
pub fn show_words(words: &[u64]) -> String {
    let mut s = String::from("0x");
    let mut started = false;
    for &w in words.iter().rev() {
        if started {
            s += &format!("{w:016x}");
        } else if w != 0 {
            s += &format!("{w:x}");
            started = true;
        }
    }
    if !started {
        s.push('0');
    }
    s
}

/// Finds memory `name`, or lists the memories.
pub(crate) fn find_memory<'a>(
    block: &str,
    memories: &'a [MemorySpec],
    name: &str,
) -> Result<(usize, &'a MemorySpec)> {
    memories
        .iter()
        .enumerate()
        .find(|(_, m)| m.name == name)
        .ok_or_else(|| {
            let list = if memories.is_empty() {
                "the design declares no memories".to_string()
            } else {
                format!(
                    "the memories are {}",
                    memories
                        .iter()
                        .map(|m| m.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            ErrorKind::Dut {
                block: block.to_string(),
                message: format!("no memory `{name}`; {list}"),
            }
            .into()
        })
}

/// Checks a backdoor load: in range, and every word fits the memory's width.
pub(crate) fn check_load(block: &str, m: &MemorySpec, offset: usize, words: &[u64]) -> Result<()> {
    let per = m.words_per_entry();
    let fail = |message: String| -> Result<()> {
        Err(ErrorKind::Dut {
            block: block.to_string(),
            message,
        }
        .into())
    };
    if !words.len().is_multiple_of(per) {
        return fail(format!(
            "memory `{}` has {}-bit words ({per} x 64-bit words each); {} words do not divide",
            m.name,
            m.width,
            words.len()
        ));
    }
    let entries = words.len() / per;
    if offset.checked_add(entries).is_none_or(|end| end > m.depth) {
        return fail(format!(
            "memory `{}` has {} words; cannot load {entries} from word {offset}",
            m.name, m.depth
        ));
    }
    let top = m.width - 64 * (per - 1);
    for (i, e) in words.chunks(per).enumerate() {
        if top < 64 && e[per - 1] >> top != 0 {
            return fail(format!(
                "word {} ({}) is wider than memory `{}` ({} bits)",
                offset + i,
                show_words(e),
                m.name,
                m.width
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poke_checks_name_the_port_and_width() {
        let p = PortSpec::new("a", Direction::Input, 70);
        assert!(check_poke("b", &p, &[u64::MAX, 0x3f]).is_ok());
        let e = check_poke("b", &p, &[0, 0x40]).unwrap_err().to_string();
        assert!(
            e.contains("value 0x400000000000000000 is wider than port `a` (70 bits)"),
            "{e}"
        );
        assert!(check_poke("b", &p, &[0, 0, 1]).is_err());
        let q = PortSpec::new("q", Direction::Output, 8);
        assert!(check_poke("b", &q, &[1])
            .unwrap_err()
            .to_string()
            .contains("output"));
        assert!(check_poke("b", &PortSpec::clock(), &[1]).is_err());
        assert_eq!(show_words(&[0]), "0x0");
        let lanes = [-(1 << 22), (1 << 22) - 1, 0, -1, 5, -31, 31, -128, 127, 1];
        let w = pack_words(&lanes, 23);
        assert_eq!(w.len(), 4);
        assert_eq!(unpack_words(&w, 23, 10, true), lanes);
        assert_eq!(unpack_words(&pack_words(&[-1], 6), 6, 1, false), [63]);
        assert_eq!(show_words(&[1, 2]), "0x20000000000000001");
    }
}

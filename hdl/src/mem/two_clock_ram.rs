//! TwoClockRam: a simple dual-port RAM whose read port has its own clock and an enable, and
//! whose write port has byte-lane enables: the CNN engine's data memories (8192 x 32, four
//! lanes) and kernel memories (768 x 72, one lane). Written as the Xilinx simple dual-port
//! block-RAM template with byte-write enables, so synthesis maps it to RAMB36E1 / RAMB18E1.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `write_clock` | in | 1 | rising-edge clock of the write port |
//! | `write_enable` | in | B | lane `i` (bits `W/B (i+1) - 1 : W/B i`) of `write_data` is written |
//! | `write_address` | in | A | write address (writes at or beyond `depth` are ignored) |
//! | `write_data` | in | W | data |
//! | `read_clock` | in | 1 | rising-edge clock of the read port |
//! | `read_enable` | in | 1 | `read_data` loads `mem[read_address]` at this edge (else it holds) |
//! | `read_address` | in | A | read address |
//! | `read_data` | out | W | registered read; read-first when both ports hit one word at one edge |
//!
//! In hardware both clocks are the engine's clock. The read port's clock is separate so that
//! the processors reading it can sit behind a simulation gate ([`crate::sim_gate`]) while the
//! output stage writes through the ungated write port; the read enable makes the read
//! register hold, so a gated reader is at a fixed point while its memory is written. Contents
//! start at zero (an `initial` loop outside synthesis, as [`super::sdp_ram::SdpRam`]). The
//! array is the testbench backdoor's memory `mem`, W bits per word.
//! Golden: a `Vec` (the engine's bench reads and writes it). Tests: `tests/cnn_engine_blocks.rs`.

use crate::design::{join_path, HasMemories, MemoryAccess};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// RAM with a write clock, a read clock, lane write enables and a read enable.
#[derive(Clone, Debug, LogicBlock)]
pub struct TwoClockRam<const A: usize, const W: usize, const B: usize> {
    /// Write-port clock.
    pub write_clock: Signal<In, Clock>,
    /// Per-lane write strobes.
    pub write_enable: Signal<In, Bits<B>>,
    /// Write address.
    pub write_address: Signal<In, Bits<A>>,
    /// Write data.
    pub write_data: Signal<In, Bits<W>>,
    /// Read-port clock.
    pub read_clock: Signal<In, Clock>,
    /// Read strobe.
    pub read_enable: Signal<In, Bit>,
    /// Read address.
    pub read_address: Signal<In, Bits<A>>,
    /// Registered read data.
    pub read_data: Signal<Out, Bits<W>>,
    _depth: usize,
    _mem: Vec<Bits<W>>,
}

impl<const A: usize, const W: usize, const B: usize> TwoClockRam<A, W, B> {
    /// A zeroed RAM of `depth` words (`1 <= depth <= 2^A`).
    pub fn new(depth: usize) -> Self {
        assert!(
            depth >= 1 && A <= 24 && depth <= (1usize << A),
            "TwoClockRam<{A}, {W}, {B}>: depth {depth} must be in 1..=2^{A} (A <= 24)"
        );
        assert!(
            B >= 1 && W.is_multiple_of(B),
            "TwoClockRam<{A}, {W}, {B}>: the width must be a multiple of the lanes"
        );
        Self {
            write_clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            read_clock: Default::default(),
            read_enable: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            _depth: depth,
            _mem: vec![Bits::<W>::default(); depth],
        }
    }

    /// Number of words.
    pub fn depth(&self) -> usize {
        self._depth
    }
}

impl<const A: usize, const W: usize, const B: usize> Logic for TwoClockRam<A, W, B> {
    fn update(&mut self) {
        // Read first: both edges arrive in the same settling pass (the parents assign both
        // clocks from one clock in one pass).
        if self.read_clock.pos_edge() && self.read_enable.val() {
            let ra = self.read_address.val().index();
            self.read_data.next = if ra < self._depth {
                self._mem[ra]
            } else {
                Bits::<W>::default()
            };
        }
        if self.write_clock.pos_edge() {
            let wa = self.write_address.val().index();
            let en = self.write_enable.val();
            if wa < self._depth && en.any() {
                let lane = W / B;
                let mut word = self._mem[wa];
                let data = self.write_data.val();
                for i in 0..B {
                    if en.get_bit(i) {
                        for k in i * lane..(i + 1) * lane {
                            word = word.replace_bit(k, data.get_bit(k));
                        }
                    }
                }
                self._mem[wa] = word;
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let lane = W / B;
        let mut writes = String::new();
        for i in 0..B {
            let (hi, lo) = ((i + 1) * lane - 1, i * lane);
            // A one-bit port is declared without a range.
            let en = if B == 1 {
                "write_enable".to_string()
            } else {
                format!("write_enable[{i}]")
            };
            writes += &format!(
                "      if ({en}) mem[write_address][{hi}:{lo}] <= write_data[{hi}:{lo}];\n"
            );
        }
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}] /*verilator public_flat_rw*/;
initial read_data = {W}'d0;
`ifndef SYNTHESIS
integer i;
initial for (i = 0; i < {depth}; i = i + 1) mem[i] = {W}'d0;
`endif

always @(posedge write_clock) begin
   if ((write_enable != {B}'d0) && (write_address < {depth})) begin
{writes}   end
end
always @(posedge read_clock) begin
   if (read_enable) read_data <= mem[read_address];
end
",
            msb = W - 1,
            last = self._depth - 1,
            depth = self._depth,
            B = B,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "two_clock_ram_write".into(),
                clock: "write_clock".into(),
                inputs: vec![
                    "write_enable".into(),
                    "write_address".into(),
                    "write_data".into(),
                ],
                outputs: vec![],
            },
            TimingInfo {
                name: "two_clock_ram_read".into(),
                clock: "read_clock".into(),
                inputs: vec!["read_enable".into(), "read_address".into()],
                outputs: vec!["read_data".into()],
            },
        ]
    }
}

impl<const A: usize, const W: usize, const B: usize> MemoryAccess for TwoClockRam<A, W, B> {
    fn width(&self) -> usize {
        W
    }
    fn depth(&self) -> usize {
        self._depth
    }
    fn read_word(&self, index: usize) -> BigUint {
        self._mem[index].into()
    }
    fn write_word(&mut self, index: usize, value: &BigUint) {
        self._mem[index] = super::word_of::<W>(value);
    }
}

impl<const A: usize, const W: usize, const B: usize> HasMemories for TwoClockRam<A, W, B> {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        f(join_path(path, "mem"), self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clock_ram_is_synthesizable() {
        crate::synth_check::assert_synthesizable("two_clock_ram", TwoClockRam::<4, 32, 4>::new(12));
    }
}

//! SdpRam: a simple dual-port RAM (one write port, one synchronous read port, one clock)
//! of any depth, written as the Xilinx block-RAM template so Yosys maps it to RAMB18E1 /
//! RAMB36E1 (spec lel-platform.md §3.8: the thesis uses Xilinx's BRAM template, T:1091).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `write_enable` | in | 1 | write `write_data` at `write_address` |
//! | `write_address` | in | A | write address (writes at or beyond `depth` are ignored) |
//! | `write_data` | in | W | data |
//! | `read_address` | in | A | read address |
//! | `read_data` | out | W | `mem[read_address]` one edge later; read-first on a collision |
//!
//! Contents start at zero, so no X is read from an unwritten word: simulators run an
//! `initial` loop; synthesis skips it (`ifndef SYNTHESIS`: Yosys takes minutes over an
//! 18,000-word loop) and relies on block RAM powering up to its INIT value, which is zero.
//! A read at or beyond `depth` returns an unspecified value; callers register an in-range
//! flag next to it (see `CacheX4`).
//! The array is the testbench backdoor's memory `mem` of this instance ([`MemoryAccess`]):
//! marked `/*verilator public_flat_rw*/` so the in-process Verilator model can reach it.
//! Golden: a `Vec` (`edgelearn_verif::golden::cache_x4`). Tests: `tests/cache_x4.rs`.

use crate::design::{join_path, HasMemories, MemoryAccess};
use num_bigint::BigUint;
use rust_hdl::prelude::*;

/// Simple dual-port RAM of `depth` words of W bits, A-bit addresses.
#[derive(Clone, Debug, LogicBlock)]
pub struct SdpRam<const A: usize, const W: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Write strobe.
    pub write_enable: Signal<In, Bit>,
    /// Write address.
    pub write_address: Signal<In, Bits<A>>,
    /// Write data.
    pub write_data: Signal<In, Bits<W>>,
    /// Read address.
    pub read_address: Signal<In, Bits<A>>,
    /// Registered read data.
    pub read_data: Signal<Out, Bits<W>>,
    _depth: usize,
    _mem: Vec<Bits<W>>,
}

impl<const A: usize, const W: usize> SdpRam<A, W> {
    /// A zeroed RAM of `depth` words (`1 <= depth <= 2^A`).
    pub fn new(depth: usize) -> Self {
        assert!(
            depth >= 1 && A <= 24 && depth <= (1usize << A),
            "SdpRam<{A}, {W}>: depth {depth} must be in 1..=2^{A} (A <= 24)"
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
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

impl<const A: usize, const W: usize> Logic for SdpRam<A, W> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let ra = self.read_address.val().index();
            self.read_data.next = if ra < self._depth {
                self._mem[ra]
            } else {
                Bits::<W>::default()
            };
            let wa = self.write_address.val().index();
            if self.write_enable.val() && wa < self._depth {
                self._mem[wa] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}] /*verilator public_flat_rw*/;
initial read_data = {W}'d0;
`ifndef SYNTHESIS
integer i;
initial for (i = 0; i < {depth}; i = i + 1) mem[i] = {W}'d0;
`endif

always @(posedge clock) begin
   if (write_enable && (write_address < {depth})) mem[write_address] <= write_data;
   read_data <= mem[read_address];
end
",
            msb = W - 1,
            last = self._depth - 1,
            depth = self._depth,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "sdp_ram".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "read_address".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

impl<const A: usize, const W: usize> MemoryAccess for SdpRam<A, W> {
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

impl<const A: usize, const W: usize> HasMemories for SdpRam<A, W> {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        f(join_path(path, "mem"), self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdp_ram_is_synthesizable() {
        crate::synth_check::assert_synthesizable("sdp_ram", SdpRam::<8, 32>::new(150));
    }
}

//! BankFile: B banks of N words of W bits, one word written per cycle, one whole bank read
//! (combinationally, packed): a small register file in distributed RAM (LUTs or flip-flops),
//! written as the simple template synthesis maps (an array per bank, one indexed write,
//! constant-index reads). The CNN engine's processors keep their two windows of nine values
//! in one ([`crate::cnn::engine::window_buf`]).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `write_enable` | in | 1 | write `write_data` into word `write_index` of bank `write_bank` at this edge |
//! | `write_bank` | in | SB | the bank written (a bank >= B writes nothing) |
//! | `write_index` | in | SI | the word written (an index >= N writes nothing) |
//! | `write_data` | in | W | the word |
//! | `read_bank` | in | SB | the bank read (a bank >= B reads 0) |
//! | `read_data` | out | N x W | bank `read_bank`, word k in bits `W (k+1) - 1 : W k`; combinational |
//!
//! Words start at zero. No testbench backdoor (the banks are separate arrays). Indexed writes go to the arrays directly (one store per cycle, not a
//! comparison per word), which is also what the simulators evaluate cheaply. Parameters:
//! `NW = N x W` (stable Rust cannot compute it), SB and SI the index widths.
//! Golden: `B` arrays (`edgelearn_verif::golden::cnn_engine::WindowPair` for the windows).
//! Tests: `tests/cnn_engine_blocks.rs`.

use rust_hdl::prelude::*;

/// Banked register file.
#[derive(Clone, Debug, LogicBlock)]
pub struct BankFile<
    const B: usize,
    const N: usize,
    const W: usize,
    const NW: usize,
    const SB: usize,
    const SI: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Write strobe.
    pub write_enable: Signal<In, Bit>,
    /// Bank written.
    pub write_bank: Signal<In, Bits<SB>>,
    /// Word written.
    pub write_index: Signal<In, Bits<SI>>,
    /// Data written.
    pub write_data: Signal<In, Bits<W>>,
    /// Bank read.
    pub read_bank: Signal<In, Bits<SB>>,
    /// The bank, packed.
    pub read_data: Signal<Out, Bits<NW>>,
    _words: Vec<Bits<W>>,
}

impl<
        const B: usize,
        const N: usize,
        const W: usize,
        const NW: usize,
        const SB: usize,
        const SI: usize,
    > Default for BankFile<B, N, W, NW, SB, SI>
{
    fn default() -> Self {
        assert!(
            B >= 1 && N >= 1 && NW == N * W && B <= 1 << SB && N <= 1 << SI && W <= 64,
            "BankFile<{B}, {N}, {W}, {NW}, {SB}, {SI}>: need NW = N W, B <= 2^SB, N <= 2^SI, W <= 64"
        );
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_bank: Default::default(),
            write_index: Default::default(),
            write_data: Default::default(),
            read_bank: Default::default(),
            read_data: Default::default(),
            _words: vec![Bits::<W>::default(); B * N],
        }
    }
}

impl<
        const B: usize,
        const N: usize,
        const W: usize,
        const NW: usize,
        const SB: usize,
        const SI: usize,
    > BankFile<B, N, W, NW, SB, SI>
{
    fn packed(&self, bank: usize) -> Bits<NW> {
        let mut v = Bits::<NW>::default();
        if bank < B {
            for k in 0..N {
                let w = self._words[bank * N + k];
                for b in 0..W {
                    v = v.replace_bit(k * W + b, w.get_bit(b));
                }
            }
        }
        v
    }
}

impl<
        const B: usize,
        const N: usize,
        const W: usize,
        const NW: usize,
        const SB: usize,
        const SI: usize,
    > Logic for BankFile<B, N, W, NW, SB, SI>
{
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write_enable.val() {
            let (b, i) = (
                self.write_bank.val().index(),
                self.write_index.val().index(),
            );
            if b < B && i < N {
                self._words[b * N + i] = self.write_data.val();
            }
        }
        self.read_data.next = self.packed(self.read_bank.val().index());
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::new();
        for b in 0..B {
            v += &format!("reg [{}:0] bank{b} [0:{}];\n", W - 1, N - 1);
        }
        v += "`ifndef SYNTHESIS\ninteger i;\ninitial begin\n";
        for b in 0..B {
            v += &format!("   for (i = 0; i < {N}; i = i + 1) bank{b}[i] = {W}'d0;\n");
        }
        v += "end\n`endif\n\nalways @(posedge clock) begin\n   if (write_enable";
        v += &format!(" && (write_index < {N})) begin\n");
        for b in 0..B {
            v += &format!(
                "      if (write_bank == {SB}'d{b}) bank{b}[write_index] <= write_data;\n"
            );
        }
        v += "   end\nend\n\nalways @(*) begin\n   case (read_bank)\n";
        for b in 0..B {
            let words: Vec<String> = (0..N).rev().map(|k| format!("bank{b}[{k}]")).collect();
            v += &format!("      {SB}'d{b}: read_data = {{{}}};\n", words.join(", "));
        }
        v += &format!("      default: read_data = {NW}'d0;\n   endcase\nend\n");
        Verilog::Custom(v)
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "bank_file".into(),
            clock: "clock".into(),
            inputs: vec![
                "write_enable".into(),
                "write_bank".into(),
                "write_index".into(),
                "write_data".into(),
            ],
            outputs: vec![],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_file_is_synthesizable() {
        crate::synth_check::assert_synthesizable(
            "bank_file",
            BankFile::<2, 9, 8, 72, 1, 4>::default(),
        );
    }
}

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
//! | `shift` | in | 1 | at this edge word k of bank `shift_to` takes word k + 1 of bank `shift_from` (k < N - 1) |
//! | `shift_from`, `shift_to` | in | SB, SB | the banks of the shift (a bank >= B: no shift) |
//! | `read_bank` | in | SB | the bank read (a bank >= B reads 0) |
//! | `read_data` | out | N x W | bank `read_bank`, word k in bits `W (k+1) - 1 : W k`; combinational |
//!
//! An indexed write at the same edge as a shift wins over it (the CNN engine's window
//! slide: the columns an output pixel shares with its left neighbour move over, the new
//! column is written by the gather). Words start at zero. No testbench backdoor (the banks are separate arrays). Indexed writes go to the arrays directly (one store per cycle, not a
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
    /// Shift strobe.
    pub shift: Signal<In, Bit>,
    /// Bank shifted from.
    pub shift_from: Signal<In, Bits<SB>>,
    /// Bank shifted into.
    pub shift_to: Signal<In, Bits<SB>>,
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
            shift: Default::default(),
            shift_from: Default::default(),
            shift_to: Default::default(),
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
        if self.clock.pos_edge() && self.shift.val() {
            let (f, t) = (self.shift_from.val().index(), self.shift_to.val().index());
            if f < B && t < B {
                let from: Vec<Bits<W>> = self._words[f * N..(f + 1) * N].to_vec();
                self._words[t * N..t * N + N - 1].copy_from_slice(&from[1..]);
            }
        }
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
        v += "end\n`endif\n\nalways @(posedge clock) begin\n";
        for t in 0..B {
            for f in 0..B {
                v += &format!(
                    "   if (shift && (shift_from == {SB}'d{f}) && (shift_to == {SB}'d{t})) begin\n"
                );
                for k in 0..N - 1 {
                    v += &format!("      bank{t}[{k}] <= bank{f}[{}];\n", k + 1);
                }
                v += "   end\n";
            }
        }
        v += "   if (write_enable";
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
                "shift".into(),
                "shift_from".into(),
                "shift_to".into(),
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

//! Pow2Rom: the base-2 exponential of `cnn_fc_update`'s softmax (issue 16, step 4 of
//! `edgelearn_verif::cnn::fc_update`): `E = POW2[u & 255] >> (u >> 8)` through the 256-entry
//! table `POW2[f] = round(2^15 * 2^(-f/256))` (`POW2[0] = 32768`, `POW2[255] = 16428`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `u` | in | 13 | the exponent in Q.8, 0 ..= 5902 (`u >> 8` up to 23) |
//! | `exp` | out | 16 | `E` (unsigned, 0 ..= 32768) |
//!
//! Combinational: a `case` over the 256 constants, generated at construction by
//! [`pow2_table`], then the shift (Yosys maps the case to logic or a ROM; every output is
//! defined, so Icarus sees no X). The shift lives here, not in the parent, so that the
//! parent's one `always` block reads only this block's output: Verilator otherwise reports
//! the parent's block as a combinational loop through the table (UNOPTFLAT). `hdl` cannot depend on `verif`, so the table is computed here too;
//! `tests/cnn_fc_update.rs` asserts it equals `edgelearn_verif::cnn::fc_update::pow2_table`.
//! Golden: `edgelearn_verif::cnn::fc_update::pow2_table`. Tests: `tests/cnn_fc_update.rs`.

use rust_hdl::prelude::*;

/// Entries of the table.
pub const POW2_ENTRIES: usize = 256;

/// `POW2[f] = round(2^15 * 2^(-f/256))`, f = 0..255.
pub fn pow2_table() -> [u32; POW2_ENTRIES] {
    let mut t = [0u32; POW2_ENTRIES];
    for (f, v) in t.iter_mut().enumerate() {
        *v = (32768.0 * (-(f as f64) / 256.0).exp2()).round() as u32;
    }
    t
}

/// The POW2 table and its shift, combinational.
#[derive(Clone, Debug, LogicBlock)]
pub struct Pow2Rom {
    /// Exponent, Q.8.
    pub u: Signal<In, Bits<13>>,
    /// `POW2[u & 255] >> (u >> 8)`.
    pub exp: Signal<Out, Bits<16>>,
    _table: Vec<u64>,
}

impl Default for Pow2Rom {
    fn default() -> Self {
        Self {
            u: Default::default(),
            exp: Default::default(),
            _table: pow2_table().iter().map(|&v| v as u64).collect(),
        }
    }
}

impl Logic for Pow2Rom {
    fn update(&mut self) {
        let u = self.u.val().index();
        self.exp.next = Bits::<16>::from(self._table[u & 255] >> (u >> 8));
    }

    fn connect(&mut self) {
        self.exp.connect();
    }

    fn hdl(&self) -> Verilog {
        let cases: String = pow2_table()
            .iter()
            .enumerate()
            .map(|(f, v)| format!("   8'd{f}: pow2 = 16'd{v};\n"))
            .collect();
        Verilog::Custom(format!(
            "\
reg [15:0] pow2;
always @(*) begin
   case (u[7:0])
{cases}   default: pow2 = 16'd0;
   endcase
   exp = pow2 >> u[12:8];
end
"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow2_rom_is_synthesizable() {
        crate::synth_check::assert_synthesizable("pow2_rom", Pow2Rom::default());
    }

    #[test]
    fn shifts_past_16_give_0() {
        let mut r = Pow2Rom::default();
        for (u, want) in [
            (0u64, 32768u64),
            (128, 23170),
            (256, 16384),
            (4095, 0),
            (5902, 0),
        ] {
            r.u.next = u.into();
            r.u.update_all();
            r.update();
            assert_eq!(r.exp.next, Bits::<16>::from(want), "u {u}");
        }
    }

    #[test]
    fn table_ends() {
        let t = pow2_table();
        assert_eq!((t[0], t[128], t[255]), (32768, 23170, 16428));
    }
}

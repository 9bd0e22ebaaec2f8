//! The FC core's forward matmul group (hdl `lel::mm_group::MmGroup`): the matmul's cycle
//! model ([`super::matmul::Matmul`]) with the core's operand isolation: outside LS_INF the
//! matmul sees zero operands and no rows. Trace convention (docs/decisions.md D-CYCLE):
//! [`MmGroup::step`] is the edge and returns the outputs after it.

use super::matmul::{Matmul, MatmulConfig, MatmulIn, MatmulOut};

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct MmGroupIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LS_INF.
    pub en: bool,
    /// A row.
    pub valid: bool,
    /// Its activation (int8).
    pub act: i64,
    /// Its weights (int6 lanes).
    pub weight: Vec<i64>,
    /// The next core's scale.
    pub alpha_fc: u32,
    /// The local classifier's scale.
    pub alpha_lc: u32,
}

/// Cycle model of the group.
#[derive(Clone, Debug)]
pub struct MmGroup {
    lanes: usize,
    mm: Matmul,
}

impl MmGroup {
    /// The group as it powers up, of the thesis's widths with `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        MmGroup {
            lanes,
            mm: Matmul::new(MatmulConfig {
                lanes,
                ..MatmulConfig::THESIS
            }),
        }
    }

    /// One clock edge: the outputs after it (`result` only with `valid_out`).
    pub fn step(&mut self, i: &MmGroupIn) -> MatmulOut {
        self.mm.step(&MatmulIn {
            reset: i.reset,
            data_in: if i.en { i.act } else { 0 },
            weight: if i.en {
                i.weight.clone()
            } else {
                vec![0; self.lanes]
            },
            instr: i.en,
            alpha_fc: i.alpha_fc,
            alpha_lc: i.alpha_lc,
            valid_in: i.valid && i.en,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::matmul::matmul_outputs;

    #[test]
    fn rows_outside_ls_inf_are_not_taken() {
        let mut g = MmGroup::new(4);
        g.step(&MmGroupIn {
            reset: true,
            ..Default::default()
        });
        let row = |en, act| MmGroupIn {
            en,
            valid: true,
            act,
            weight: vec![31, -32, 1, 0],
            alpha_fc: 1,
            alpha_lc: 2,
            ..Default::default()
        };
        g.step(&row(true, 127));
        g.step(&row(false, -128)); // ends the burst; not a row
        let out = g.step(&row(false, -128));
        let want = matmul_outputs(&MatmulConfig::THESIS, &[127 * 31, -127 * 32, 127, 0], 1, 2);
        assert_eq!(out.result, Some(want));
    }
}

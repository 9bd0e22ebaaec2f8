//! Golden model of the stochastic weight update (thesis §4.1.6, eq 3.14; spec §2.4, §7-11,
//! §7-12): `g = x * e`, `p = |g| >> lr_shift`, update when `rnd < p`,
//! `w <- sat_sym(w + sign(g), 6)`.

use super::arith::sat_sym;

/// The updated weight of one lane.
pub fn weight_update(w: i64, x: i64, e: i64, lr_shift: u32, rnd: u64) -> i64 {
    weight_update_bits(w, x, e, lr_shift, rnd, 6)
}

/// The updated `bits`-bit weight of one lane.
#[inline(always)]
pub fn weight_update_bits(w: i64, x: i64, e: i64, lr_shift: u32, rnd: u64, bits: u32) -> i64 {
    let g = x * e;
    let p = g.unsigned_abs() >> lr_shift;
    if rnd < p {
        sat_sym(w + g.signum(), bits)
    } else {
        w
    }
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WeightUpdateIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Weights per lane.
    pub weight_in: Vec<i64>,
    /// Activation.
    pub data_in: i64,
    /// Errors per lane.
    pub err: Vec<i64>,
    /// Learning-rate shift.
    pub lr_shift: u32,
    /// Random numbers per lane.
    pub rnd: Vec<u64>,
    /// Enable.
    pub instr: bool,
}

/// Cycle model: two registers; rows without `instr` pass through unchanged.
#[derive(Clone, Debug)]
pub struct WeightUpdate {
    stage: Option<Vec<i64>>,
    out: Vec<i64>,
}

impl WeightUpdate {
    /// Block after power-up (`weight_out` zero).
    pub fn new(lanes: usize) -> Self {
        WeightUpdate {
            stage: Some(vec![0; lanes]),
            out: vec![0; lanes],
        }
    }

    /// One clock edge: `weight_out` after it.
    pub fn step(&mut self, i: &WeightUpdateIn) -> Vec<i64> {
        let lanes = self.out.len();
        if let Some(s) = self.stage.take() {
            self.out = s;
        }
        let row: Vec<i64> = (0..lanes)
            .map(|l| {
                if i.instr && !i.reset {
                    weight_update(i.weight_in[l], i.data_in, i.err[l], i.lr_shift, i.rnd[l])
                } else {
                    i.weight_in[l]
                }
            })
            .collect();
        self.stage = Some(row);
        if i.reset {
            self.out = vec![0; lanes];
        }
        self.out.clone()
    }
}

//! The bench of `cnn_fc_update` (issue 16, item 3): a whole-layer update driven through the
//! block's ports the way a host does, beside `crate::cnn::fc_update::update_layer`.
//!
//! Host protocol (`edgelearn_hdl::cnn::fc_update`): the O outputs of the layer as beats
//! (`acc_valid`, `acc_in`, with `label` and `logit_shift`), then idle cycles until
//! `err_ready`; the error vector read through `err_idx` / `err_out` (combinational: no cycle
//! spent); then the O (N + 1) rows back to back (for o: N weights, then the bias with
//! x = 128), each updated weight taken from `w_out` when `w_valid`. The bench keeps its own
//! copy of the LFSR ([`SerialLfsr`]), seeded with the block's, so consecutive updates compare
//! with `update_layer` chained on the same random sequence.

use super::{Divergence, Result, RtlError};
use crate::cnn::fc_update::{update_layer, Rounding, UpdateParams, BIAS_INPUT, MAX_OUTPUTS};
use crate::golden::cnn_fc_update::error_latency;
use crate::golden::lfsr::SerialLfsr;
use edgelearn_sim::dut::{Dut, PortId};

struct Ports {
    reset: PortId,
    seed: PortId,
    seed_load: PortId,
    acc_valid: PortId,
    acc_in: PortId,
    label: PortId,
    logit_shift: PortId,
    err_ready: PortId,
    err_idx: PortId,
    err_out: PortId,
    row_valid: PortId,
    row_out: PortId,
    row_w: PortId,
    row_x: PortId,
    lr_shift: PortId,
    stochastic: PortId,
    w_out: PortId,
    w_valid: PortId,
}

/// One whole-layer update on the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateReport {
    /// The error vector read from the block (Q1.12).
    pub err: Vec<i64>,
    /// Cycles from the first beat to the last updated weight (D-CYCLE count; equal to
    /// `crate::golden::cnn_fc_update::layer_cycles`).
    pub cycles: u64,
    /// Cycles from the last beat to `err_ready` (D-CYCLE count).
    pub error_cycles: u64,
    /// The first difference from `update_layer`: state `error` (what `e`) or `update`
    /// (what `weight` or `bias`), `image` the update's number since the bench was made.
    pub mismatch: Option<Box<Divergence>>,
}

/// `cnn_fc_update` under test.
pub struct FcUpdateBench {
    dut: Box<dyn Dut>,
    p: Ports,
    outs: usize,
    lfsr: SerialLfsr,
    updates: usize,
}

fn sext(v: u64, bits: u32) -> i64 {
    ((v << (64 - bits)) as i64) >> (64 - bits)
}

fn mask(v: i64, bits: u32) -> u64 {
    (v as u64) & ((1u64 << bits) - 1)
}

impl FcUpdateBench {
    /// A bench around `dut` (a `cnn_fc_update` design of `outs` outputs), reset: the block's
    /// LFSR is in its reset state (that of seed 1) until [`FcUpdateBench::seed`].
    pub fn new(dut: Box<dyn Dut>, outs: usize) -> Result<Self> {
        if !(2..=MAX_OUTPUTS).contains(&outs) {
            return Err(RtlError::Other(format!(
                "cnn_fc_update: {outs} outputs; the block has 2..=16"
            )));
        }
        let d = &*dut;
        let p = Ports {
            reset: d.port("reset")?,
            seed: d.port("seed")?,
            seed_load: d.port("seed_load")?,
            acc_valid: d.port("acc_valid")?,
            acc_in: d.port("acc_in")?,
            label: d.port("label")?,
            logit_shift: d.port("logit_shift")?,
            err_ready: d.port("err_ready")?,
            err_idx: d.port("err_idx")?,
            err_out: d.port("err_out")?,
            row_valid: d.port("row_valid")?,
            row_out: d.port("row_out")?,
            row_w: d.port("row_w")?,
            row_x: d.port("row_x")?,
            lr_shift: d.port("lr_shift")?,
            stochastic: d.port("stochastic")?,
            w_out: d.port("w_out")?,
            w_valid: d.port("w_valid")?,
        };
        let mut b = FcUpdateBench {
            dut,
            p,
            outs,
            lfsr: SerialLfsr::new(1),
            updates: 0,
        };
        b.reset()?;
        Ok(b)
    }

    /// The simulator under the bench (pokes through it are not mirrored by the bench).
    pub fn dut(&mut self) -> &mut dyn Dut {
        &mut *self.dut
    }

    /// The bench's copy of the block's LFSR.
    pub fn lfsr(&self) -> SerialLfsr {
        self.lfsr
    }

    /// Two cycles of reset: idle, error vector 0, LFSR state 1.
    pub fn reset(&mut self) -> Result<()> {
        self.dut.poke(self.p.reset, 1)?;
        self.dut.steps(2)?;
        self.dut.poke(self.p.reset, 0)?;
        self.lfsr = SerialLfsr::new(1);
        Ok(())
    }

    /// Load the LFSR seed (17 bits; 0 loads 1) in one cycle.
    pub fn seed(&mut self, seed: u32) -> Result<()> {
        self.dut.poke(self.p.seed, (seed & 0x1_ffff) as u64)?;
        self.dut.poke(self.p.seed_load, 1)?;
        self.dut.step()?;
        self.dut.poke(self.p.seed_load, 0)?;
        self.lfsr = SerialLfsr::new(seed);
        Ok(())
    }

    /// Updates a whole layer in place on the block: `w` is O x N (output-major), `b` has O
    /// values, `x` the N inputs, `acc` the O outputs they gave, `label` < O. `w` and `b` get
    /// the block's weights; the report has the block's error vector, the cycles and the
    /// first difference from `update_layer` (run on copies with the bench's LFSR, which then
    /// carries on).
    pub fn update_layer(
        &mut self,
        w: &mut [i64],
        b: &mut [i64],
        x: &[i64],
        acc: &[i64],
        label: usize,
        params: &UpdateParams,
    ) -> Result<UpdateReport> {
        self.check_inputs(w, b, x, acc, label, params)?;
        let (o_n, n) = (self.outs, x.len());
        let (mut gw, mut gb) = (w.to_vec(), b.to_vec());
        let mut lfsr = self.lfsr;
        let want_err = update_layer(&mut gw, &mut gb, x, acc, label, params, &mut lfsr);
        self.lfsr = lfsr;
        let image = self.updates;
        self.updates += 1;
        let start = self.dut.cycle();
        // Beats.
        self.dut.poke(self.p.label, label as u64)?;
        self.dut
            .poke(self.p.logit_shift, params.logit_shift as u64)?;
        self.dut.poke(self.p.acc_valid, 1)?;
        for &a in acc {
            self.dut.poke(self.p.acc_in, mask(a, 32))?;
            self.dut.step()?;
        }
        self.dut.poke(self.p.acc_valid, 0)?;
        let last_beat = self.dut.cycle() - 1;
        // The error phase.
        let limit = 4 * error_latency(o_n) as u64;
        while self.dut.peek(self.p.err_ready)? == 0 {
            if self.dut.cycle() - last_beat > limit {
                return Err(RtlError::Stuck {
                    block: self.dut.name().to_string(),
                    waiting_for: "err_ready".into(),
                    state: "busy".into(),
                    cycles: limit,
                });
            }
            self.dut.step()?;
        }
        let error_cycles = self.dut.cycle() - last_beat;
        let mut err = Vec::with_capacity(o_n);
        for o in 0..o_n {
            self.dut.poke(self.p.err_idx, o as u64)?;
            err.push(sext(self.dut.peek(self.p.err_out)?, 14));
        }
        let mut mismatch = first_diff(&want_err, &err).map(|(index, e, g)| Divergence {
            block: self.dut.name().to_string(),
            image,
            state: "error".into(),
            what: "e".into(),
            index,
            expected: e.to_string(),
            got: g.to_string(),
        });
        // Rows.
        self.dut.poke(self.p.lr_shift, params.lr_shift as u64)?;
        self.dut.poke(
            self.p.stochastic,
            (params.rounding == Rounding::Stochastic) as u64,
        )?;
        self.dut.poke(self.p.row_valid, 1)?;
        let rows = o_n * (n + 1);
        let mut got = Vec::with_capacity(rows);
        for o in 0..o_n {
            self.dut.poke(self.p.row_out, o as u64)?;
            for i in 0..=n {
                let (wv, xv) = if i < n {
                    (w[o * n + i], x[i])
                } else {
                    (b[o], BIAS_INPUT)
                };
                self.dut.poke(self.p.row_w, mask(wv, 8))?;
                self.dut.poke(self.p.row_x, mask(xv, 9))?;
                self.dut.step()?;
                self.take(&mut got)?;
            }
        }
        self.dut.poke(self.p.row_valid, 0)?;
        let mut drain = 0;
        while got.len() < rows {
            if drain == 4 {
                return Err(RtlError::Stuck {
                    block: self.dut.name().to_string(),
                    waiting_for: format!("w_valid ({} of {rows} weights)", got.len()),
                    state: "rows".into(),
                    cycles: drain,
                });
            }
            self.dut.step()?;
            self.take(&mut got)?;
            drain += 1;
        }
        let cycles = self.dut.cycle() - start;
        for o in 0..o_n {
            w[o * n..(o + 1) * n].copy_from_slice(&got[o * (n + 1)..o * (n + 1) + n]);
            b[o] = got[o * (n + 1) + n];
        }
        if mismatch.is_none() {
            let d = first_diff(&gw, w)
                .map(|d| ("weight", d))
                .or_else(|| first_diff(&gb, b).map(|d| ("bias", d)));
            mismatch = d.map(|(what, (index, e, g))| Divergence {
                block: self.dut.name().to_string(),
                image,
                state: "update".into(),
                what: what.into(),
                index,
                expected: e.to_string(),
                got: g.to_string(),
            });
        }
        Ok(UpdateReport {
            err,
            cycles,
            error_cycles,
            mismatch: mismatch.map(Box::new),
        })
    }

    fn take(&mut self, got: &mut Vec<i64>) -> Result<()> {
        if self.dut.peek(self.p.w_valid)? == 1 {
            got.push(sext(self.dut.peek(self.p.w_out)?, 8));
        }
        Ok(())
    }

    fn check_inputs(
        &self,
        w: &[i64],
        b: &[i64],
        x: &[i64],
        acc: &[i64],
        label: usize,
        p: &UpdateParams,
    ) -> Result<()> {
        let o_n = self.outs;
        let bad = |m: String| Err(RtlError::Other(format!("cnn_fc_update bench: {m}")));
        if b.len() != o_n || acc.len() != o_n || w.len() != o_n * x.len() || x.is_empty() {
            return bad(format!(
                "{} biases, {} outputs, {} weights, {} inputs for a block of {o_n} outputs",
                b.len(),
                acc.len(),
                w.len(),
                x.len()
            ));
        }
        if label >= o_n || p.lr_shift > 7 || p.logit_shift > 31 {
            return bad(format!(
                "label {label} (< {o_n}), lr_shift {} (<= 7), logit_shift {} (<= 31)",
                p.lr_shift, p.logit_shift
            ));
        }
        let fits = |v: &[i64], bits: u32| {
            v.iter()
                .all(|&a| (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&a))
        };
        if !fits(w, 8) || !fits(b, 8) || !fits(x, 9) || !fits(acc, 32) {
            return bad("weights and biases must be int8, inputs 9-bit, outputs i32".into());
        }
        Ok(())
    }
}

fn first_diff(want: &[i64], got: &[i64]) -> Option<(usize, i64, i64)> {
    want.iter()
        .zip(got)
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(k, (a, b))| (k, *a, *b))
}

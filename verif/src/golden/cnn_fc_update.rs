//! Cycle model of `cnn_fc_update` (issue 16, item 3): the softmax error vector and the row
//! weight update of a fully connected last layer, with the block's documented timing
//! (`edgelearn_hdl::cnn::fc_update`). The arithmetic is [`crate::cnn::fc_update`] and nothing
//! else (`softmax_error`, `update_value`), the random bits [`SerialLfsr`].
//!
//! Timing (D-CYCLE count, "latency L" = trace row - stimulus row + 1):
//! - a beat (`acc_valid`) is taken while idle or collecting; the first one raises `busy` and
//!   clears `err_ready`; the OUTS-th is the last, and `label`, `logit_shift` are taken with it;
//! - the last beat at edge c: `e[o]` is written at edge `c + OUTS + 17 + o`, and `err_ready`
//!   rises (with `busy` falling) after edge `c + 2 OUTS + 16` ([`error_latency`] =
//!   `2 OUTS + 17`); beats in between are ignored;
//! - a row taken at edge c (`row_valid` while `err_ready`) steps the LFSR 16 bits at that edge
//!   (a `seed_load` at the same edge wins: the row keeps the previous bits), and its weight is
//!   on `w_out` with `w_valid` after edge c + 1 ([`ROW_LATENCY`] = 2);
//! - `err_out` is `e[err_idx]` after the edge, for the `err_idx` of the same cycle (0 for an
//!   index >= OUTS); a row's `row_out` >= OUTS gives `e = 0`;
//! - reset: idle, `e` all 0, `err_ready`, `w_valid` low, `w_out` 0, LFSR state 1 and bits 0.
//!   At power-up the LFSR state is 0 (it then gives zeros until seeded or reset).

use crate::cnn::fc_update::{softmax_error, update_value, Rounding, ERR_ONE, RND_BITS};
use crate::golden::lfsr::SerialLfsr;

/// Cycles of the restoring division (one quotient bit each).
pub const RECIP_STEPS: usize = 16;
/// Row latency: a row presented in cycle c is on `w_out` after edge c + 1.
pub const ROW_LATENCY: usize = 2;

/// Edges from the last beat's edge to the one after which `err_ready` is high:
/// OUTS exponentials, 16 division steps, OUTS probabilities.
pub fn error_phase_edges(outs: usize) -> usize {
    2 * outs + RECIP_STEPS
}

/// Latency from the last beat to `err_ready` in the D-CYCLE count: `2 OUTS + 17`.
pub fn error_latency(outs: usize) -> usize {
    error_phase_edges(outs) + 1
}

/// Cycles of a whole-layer update of `outs` outputs and `inputs` inputs driven back to
/// back (the beats, the error phase, `outs (inputs + 1)` rows, the last row's latency):
/// from the first beat presented to the last weight on `w_out`, D-CYCLE count,
/// `3 outs + 17 + outs (inputs + 1)`; 1,977 for 10 x 192.
pub fn layer_cycles(outs: usize, inputs: usize) -> u64 {
    let rows = outs * (inputs + 1);
    (outs + error_phase_edges(outs) + rows + ROW_LATENCY - 1) as u64
}

/// The error vector the block computes: `softmax_error`, except that a label >= the number
/// of outputs matches no output (every `e_o` is then `p_o >> 3`).
pub fn error_vector(acc: &[i64], label: usize, logit_shift: u32) -> Vec<i64> {
    if label < acc.len() {
        softmax_error(acc, label, logit_shift)
    } else {
        let mut e = softmax_error(acc, 0, logit_shift);
        e[0] += ERR_ONE;
        e
    }
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcUpdateIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LFSR seed (17 bits).
    pub seed: u32,
    /// Load the seed.
    pub seed_load: bool,
    /// One logit beat.
    pub acc_valid: bool,
    /// The logit (i32 range).
    pub acc_in: i64,
    /// Target class (0..15).
    pub label: usize,
    /// Logit shift (0..31).
    pub logit_shift: u32,
    /// Error read index (0..15).
    pub err_idx: usize,
    /// One update row.
    pub row_valid: bool,
    /// Its output index (0..15).
    pub row_out: usize,
    /// Weight (int8).
    pub row_w: i64,
    /// Input (9-bit signed).
    pub row_x: i64,
    /// Learning-rate shift (0..7).
    pub lr_shift: u32,
    /// Stochastic rounding.
    pub stochastic: bool,
}

/// A row the block finished: what it computed from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RowDone {
    /// Weight in.
    pub w: i64,
    /// Input.
    pub x: i64,
    /// Its error `e_o`.
    pub e: i64,
    /// Learning-rate shift.
    pub lr_shift: u32,
    /// Rounding.
    pub rounding: Rounding,
    /// The LFSR bits it used.
    pub rnd: u32,
    /// Weight out.
    pub w_new: i64,
}

/// Outputs after one edge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcUpdateOut {
    /// Error phase in progress.
    pub busy: bool,
    /// The error vector is valid.
    pub err_ready: bool,
    /// `e[err_idx]`.
    pub err_out: i64,
    /// The last updated weight.
    pub w_out: i64,
    /// `w_out` is new.
    pub w_valid: bool,
    /// The row behind `w_out` when `w_valid`.
    pub row: Option<RowDone>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    Collect,
    /// Edges done since the last beat's edge.
    Compute(usize),
}

#[derive(Copy, Clone, Debug)]
struct Row {
    w: i64,
    x: i64,
    e: i64,
    lr_shift: u32,
    rounding: Rounding,
}

/// The block's state.
#[derive(Clone, Debug)]
pub struct FcUpdate {
    outs: usize,
    phase: Phase,
    beats: Vec<i64>,
    pending: Vec<i64>,
    err: Vec<i64>,
    ready: bool,
    lfsr: SerialLfsr,
    rnd: u32,
    s1: Option<Row>,
    w_out: i64,
    done: Option<RowDone>,
}

impl FcUpdate {
    /// The block of `outs` outputs at power-up.
    pub fn new(outs: usize) -> Self {
        assert!((2..=16).contains(&outs), "cnn_fc_update: 2..=16 outputs");
        FcUpdate {
            outs,
            phase: Phase::Idle,
            beats: Vec::with_capacity(outs),
            pending: vec![0; outs],
            err: vec![0; outs],
            ready: false,
            lfsr: SerialLfsr::from_raw(0),
            rnd: 0,
            s1: None,
            w_out: 0,
            done: None,
        }
    }

    /// The LFSR as it stands (for a bench that continues from here).
    pub fn lfsr(&self) -> SerialLfsr {
        self.lfsr
    }

    fn err_at(&self, idx: usize) -> i64 {
        self.err.get(idx).copied().unwrap_or(0)
    }

    /// One clock edge; the outputs after it (`err_out` for this cycle's `err_idx`).
    pub fn step(&mut self, i: &FcUpdateIn) -> FcUpdateOut {
        if i.reset {
            *self = FcUpdate {
                lfsr: SerialLfsr::new(1),
                ..FcUpdate::new(self.outs)
            };
            return self.outputs(i);
        }
        // Stage 2 of the row pipeline, with the LFSR bits of the row's own edge.
        self.done = self.s1.take().map(|r| RowDone {
            w: r.w,
            x: r.x,
            e: r.e,
            lr_shift: r.lr_shift,
            rounding: r.rounding,
            rnd: self.rnd,
            w_new: update_value(r.w, r.x, r.e, r.lr_shift, r.rounding, self.rnd),
        });
        if let Some(d) = self.done {
            self.w_out = d.w_new;
        }
        // Stage 1 and the LFSR.
        let accept = i.row_valid && self.ready;
        if accept {
            self.s1 = Some(Row {
                w: i.row_w,
                x: i.row_x,
                e: self.err_at(i.row_out),
                lr_shift: i.lr_shift,
                rounding: if i.stochastic {
                    Rounding::Stochastic
                } else {
                    Rounding::Nearest
                },
            });
        }
        if i.seed_load {
            self.lfsr = SerialLfsr::new(i.seed);
        } else if accept {
            self.rnd = self.lfsr.next_bits(RND_BITS as usize) as u32;
        }
        // The error phase.
        let outs = self.outs;
        match self.phase {
            Phase::Compute(t) => {
                let t = t + 1;
                if t > outs + RECIP_STEPS {
                    let o = t - outs - RECIP_STEPS - 1;
                    self.err[o] = self.pending[o];
                }
                if t == error_phase_edges(outs) {
                    self.ready = true;
                    self.phase = Phase::Idle;
                } else {
                    self.phase = Phase::Compute(t);
                }
            }
            Phase::Idle | Phase::Collect => {
                if i.acc_valid {
                    self.beats.push(i.acc_in);
                    self.ready = false;
                    self.phase = Phase::Collect;
                    if self.beats.len() == outs {
                        self.pending = error_vector(&self.beats, i.label, i.logit_shift);
                        self.beats.clear();
                        self.phase = Phase::Compute(0);
                    }
                }
            }
        }
        self.outputs(i)
    }

    fn outputs(&self, i: &FcUpdateIn) -> FcUpdateOut {
        FcUpdateOut {
            busy: self.phase != Phase::Idle,
            err_ready: self.ready,
            err_out: self.err_at(i.err_idx),
            w_out: self.w_out,
            w_valid: self.done.is_some(),
            row: self.done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cnn::fc_update::{forward, update_layer, UpdateParams, BIAS_INPUT};

    fn idle() -> FcUpdateIn {
        FcUpdateIn::default()
    }

    /// Drive a whole layer update back to back; returns (errors read, weights out, cycles
    /// from the first beat to the last weight).
    fn drive(
        m: &mut FcUpdate,
        w: &[i64],
        b: &[i64],
        x: &[i64],
        label: usize,
        p: &UpdateParams,
    ) -> (Vec<i64>, Vec<i64>, usize) {
        let (o_n, n) = (b.len(), x.len());
        let acc = forward(w, b, x);
        let mut c = 0;
        for (o, &a) in acc.iter().enumerate() {
            let out = m.step(&FcUpdateIn {
                acc_valid: true,
                acc_in: a,
                label,
                logit_shift: p.logit_shift,
                ..idle()
            });
            c += 1;
            assert!(out.busy, "beat {o}");
        }
        while !m.step(&idle()).err_ready {
            c += 1;
            assert!(c < 1000);
        }
        c += 1;
        assert_eq!(c, o_n + error_phase_edges(o_n));
        let err: Vec<i64> = (0..o_n)
            .map(|o| {
                m.outputs(&FcUpdateIn {
                    err_idx: o,
                    ..idle()
                })
                .err_out
            })
            .collect();
        let mut got = vec![];
        let rows: Vec<(usize, i64, i64)> = (0..o_n)
            .flat_map(|o| {
                (0..=n).map(move |i| {
                    if i < n {
                        (o, w[o * n + i], x[i])
                    } else {
                        (o, b[o], BIAS_INPUT)
                    }
                })
            })
            .collect();
        for &(o, wv, xv) in rows.iter() {
            let out = m.step(&FcUpdateIn {
                row_valid: true,
                row_out: o,
                row_w: wv,
                row_x: xv,
                lr_shift: p.lr_shift,
                stochastic: p.rounding == Rounding::Stochastic,
                ..idle()
            });
            c += 1;
            if out.w_valid {
                got.push(out.w_out);
            }
        }
        let out = m.step(&idle());
        c += 1;
        assert!(out.w_valid);
        got.push(out.w_out);
        (err, got, c)
    }

    #[test]
    fn the_model_is_update_layer_in_order_and_counts_cycles() {
        let (o_n, n) = (10, 24);
        let x: Vec<i64> = (0..n as i64).map(|i| (i * 53) % 128).collect();
        let w: Vec<i64> = (0..(o_n * n) as i64).map(|k| (k * 29) % 81 - 40).collect();
        let b: Vec<i64> = (0..o_n as i64).map(|o| o * 7 - 30).collect();
        let mut m = FcUpdate::new(o_n);
        m.step(&FcUpdateIn {
            reset: true,
            ..idle()
        });
        m.step(&FcUpdateIn {
            seed: 0x1_5a5a,
            seed_load: true,
            ..idle()
        });
        let mut lfsr = SerialLfsr::new(0x1_5a5a);
        let (mut gw, mut gb) = (w.clone(), b.clone());
        for (label, rounding, lr_shift) in [
            (3, Rounding::Stochastic, 2),
            (9, Rounding::Nearest, 0),
            (0, Rounding::Stochastic, 7),
        ] {
            let p = UpdateParams {
                lr_shift,
                rounding,
                logit_shift: 6,
            };
            let acc = forward(&gw, &gb, &x);
            let (w0, b0) = (gw.clone(), gb.clone());
            let want_err = update_layer(&mut gw, &mut gb, &x, &acc, label, &p, &mut lfsr);
            let (err, got, cycles) = drive(&mut m, &w0, &b0, &x, label, &p);
            assert_eq!(err, want_err);
            let want: Vec<i64> = (0..o_n)
                .flat_map(|o| gw[o * n..(o + 1) * n].iter().copied().chain([gb[o]]))
                .collect();
            assert_eq!(got, want);
            assert_eq!(cycles as u64, layer_cycles(o_n, n));
            assert_eq!(m.lfsr(), lfsr);
        }
        assert_eq!(layer_cycles(10, 192), 1977);
    }

    #[test]
    fn a_label_beyond_the_outputs_matches_none() {
        let acc = [5000, 0, -3000];
        let e = error_vector(&acc, 7, 6);
        let p = crate::cnn::fc_update::softmax_trace(&acc, 0, 6).prob;
        assert_eq!(e, p.iter().map(|v| v >> 3).collect::<Vec<_>>());
    }

    #[test]
    fn rows_wait_for_err_ready_and_reset_clears() {
        let mut m = FcUpdate::new(2);
        let row = FcUpdateIn {
            row_valid: true,
            row_w: 5,
            row_x: 3,
            ..idle()
        };
        for _ in 0..4 {
            assert!(!m.step(&row).w_valid);
        }
        m.step(&FcUpdateIn {
            acc_valid: true,
            acc_in: i32::MAX as i64,
            ..idle()
        });
        let o = m.step(&FcUpdateIn {
            acc_valid: true,
            acc_in: i32::MIN as i64,
            label: 1,
            logit_shift: 0,
            ..idle()
        });
        assert!(o.busy && !o.err_ready);
        for _ in 0..error_phase_edges(2) - 1 {
            assert!(!m.step(&idle()).err_ready);
        }
        let o = m.step(&FcUpdateIn {
            err_idx: 1,
            ..idle()
        });
        assert!(o.err_ready && !o.busy);
        assert_eq!(o.err_out, -ERR_ONE);
        m.step(&FcUpdateIn {
            row_out: 1,
            row_x: 127,
            row_w: 100,
            ..row
        });
        let o = m.step(&idle());
        assert_eq!((o.w_valid, o.w_out), (true, 127));
        let o = m.step(&FcUpdateIn {
            reset: true,
            err_idx: 1,
            ..idle()
        });
        assert_eq!(o, FcUpdateOut::default());
    }
}

//! Runs a resolved network on one input, layer by layer, exactly as the accelerator computes
//! (spec §1.17): gather, operand split, element-wise (pool last), re-view to `in_dim`,
//! pooling, element-wise (pool first), the convolution, the output stage.

use super::desc::{Eltwise, NetworkDesc, Op, PoolKind};
use super::error::{CnnError, Result};
use super::ops::{self, AvgRounding, ShiftOverflow, Tensor};
use super::plan::Plan;
use super::weights::NetworkWeights;

/// Which reading of the arithmetic to follow where the documents and the silicon differ
/// (spec §8; docs/decisions.md D-CNN-SEMANTICS).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Semantics {
    /// What the MAX78000 computes (and ai8x's network loader simulates): average pooling
    /// truncates toward zero (rounds half away from zero with `--avg-pool-rounding`), 1-D
    /// average pooling always truncates, large left shifts saturate.
    #[default]
    Silicon,
    /// The documents' reading: average pooling uses `floor` (`floor(x + 1/2)` with rounding),
    /// and the shifted accumulator is a 32-bit register that wraps before saturation.
    Document,
}

/// Options of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Round average pooling (ai8x `--avg-pool-rounding`).
    pub avg_pool_rounding: bool,
    /// Documents or silicon.
    pub semantics: Semantics,
    /// ai8x `--legacy-test`: operands of element-wise layers after the first are interleaved
    /// column by column instead of being channel blocks.
    pub legacy_test: bool,
}

/// Every layer's output (the tensors ai8x keeps in its simulation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// Output of each layer that ran, by layer index.
    pub outputs: Vec<Option<Tensor>>,
    /// The final layer.
    pub final_layer: usize,
}

impl RunResult {
    /// The final layer's output.
    pub fn output(&self) -> &Tensor {
        self.outputs[self.final_layer]
            .as_ref()
            .expect("final layer ran")
    }
}

/// Runs `net` on `input`.
pub fn run(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    plan: &Plan,
    input: &Tensor,
    opts: &RunOptions,
) -> Result<RunResult> {
    let n = net.layers.len();
    let mut outputs: Vec<Option<Tensor>> = vec![None; n];
    let mut prev: Option<usize> = None;
    let (rounding_2d, rounding_1d, overflow) = match (opts.semantics, opts.avg_pool_rounding) {
        (Semantics::Silicon, false) => (
            AvgRounding::Trunc,
            AvgRounding::Trunc,
            ShiftOverflow::Saturate,
        ),
        (Semantics::Silicon, true) => (
            AvgRounding::HalfAway,
            AvgRounding::Trunc,
            ShiftOverflow::Saturate,
        ),
        (Semantics::Document, false) => (
            AvgRounding::Floor,
            AvgRounding::Floor,
            ShiftOverflow::Wrap32,
        ),
        (Semantics::Document, true) => (
            AvgRounding::HalfUp,
            AvgRounding::HalfUp,
            ShiftOverflow::Wrap32,
        ),
    };
    for &ll in &plan.order {
        let l = &net.layers[ll];
        let p = plan.layer(ll);
        let lerr = |m: String| CnnError::layer(ll, m).at_line(l.line);
        let source = |s: isize| -> &Tensor {
            if s < 0 {
                input
            } else {
                outputs[s as usize].as_ref().expect("source layer ran")
            }
        };
        // 1. Gather.
        let data: Tensor = match &l.in_sequences {
            Some(seqs) if seqs.len() > 1 => {
                let parts: Vec<&Tensor> = seqs.iter().map(|&s| source(s)).collect();
                match Tensor::concat_channels(&parts) {
                    Some(t) => t,
                    None => {
                        // Different sizes: pixels of each source one after another.
                        let c = parts[0].c;
                        if parts.iter().any(|t| t.c != c) {
                            return Err(lerr(format!(
                                "cannot concatenate the outputs of layers {seqs:?}: they differ in both channels and size"
                            )));
                        }
                        let total: usize = parts.iter().map(|t| t.h * t.w).sum();
                        let mut data = Vec::with_capacity(c * total);
                        for ch in 0..c {
                            for t in &parts {
                                let plane = t.h * t.w;
                                data.extend_from_slice(&t.data[ch * plane..(ch + 1) * plane]);
                            }
                        }
                        Tensor::from_vec(c, total, 1, data)
                    }
                }
            }
            Some(seqs) => source(seqs[0]).clone(),
            None => match prev {
                None => input.clone(),
                Some(pl) => outputs[pl].clone().expect("previous layer ran"),
            },
        };
        // 2. Operands.
        let ops_n = l.operands;
        let mut operands: Vec<Tensor> = if ops_n > 1 {
            if opts.legacy_test && ll != plan.order[0] {
                (0..ops_n).map(|i| data.columns_strided(i, ops_n)).collect()
            } else {
                if !data.c.is_multiple_of(ops_n) {
                    return Err(lerr(format!(
                        "{} input channels cannot be split into {ops_n} element-wise operands",
                        data.c
                    )));
                }
                let c = data.c / ops_n;
                (0..ops_n)
                    .map(|i| data.channels(i * c, (i + 1) * c))
                    .collect()
            }
        } else {
            vec![data]
        };
        let wide_eltwise = l.op == Op::Passthrough && l.output_width == 32;
        let elt = l.eltwise.unwrap_or(Eltwise::Add);
        if ops_n > 1 && !l.pool_first {
            operands = vec![ops::eltwise(&operands, elt, wide_eltwise)];
        }
        // 3. Re-view to the layer's input dimensions.
        for o in operands.iter_mut() {
            *o = o.reshaped(p.in_dim[0], p.in_dim[1]).ok_or_else(|| {
                lerr(format!(
                    "{} values cannot be viewed as {}x{} (`in_dim`)",
                    o.data.len(),
                    p.in_dim[0],
                    p.in_dim[1]
                ))
            })?;
        }
        // 4. Pooling.
        let pool_kind = l.pool.unwrap_or(PoolKind::Max);
        let rounding = if p.one_d { rounding_1d } else { rounding_2d };
        let pooling = l.pool_size != [1, 1] || l.pool_stride != [1, 1];
        if pooling {
            let count = if p.one_d { 1 } else { operands.len() };
            for o in operands.iter_mut().take(count) {
                *o = ops::pool2d(o, pool_kind, l.pool_size, l.pool_stride, rounding);
            }
        }
        {
            let o = &operands[0];
            if o.c != p.in_ch || [o.h, o.w] != p.pooled {
                return Err(lerr(format!(
                    "input dimensions do not match: expected {}x{}x{}, got {}x{}x{} (check `in_channels`, `in_dim` and the sample input)",
                    p.in_ch, p.pooled[0], p.pooled[1], o.c, o.h, o.w
                )));
            }
        }
        // 5. Element-wise, pool first.
        let x = if ops_n > 1 && l.pool_first {
            ops::eltwise(&operands, elt, wide_eltwise)
        } else {
            operands.swap_remove(0)
        };
        // 6. The operation.
        let out = match l.op {
            Op::Passthrough => x,
            _ => {
                let w = weights.layers[ll]
                    .as_ref()
                    .ok_or_else(|| lerr("the layer has no weights".into()))?;
                let k = &w.kernels;
                let bias = w.bias.as_deref();
                let x = if l.flatten {
                    let len = x.data.len();
                    Tensor::from_vec(len, 1, 1, x.data)
                } else {
                    x
                };
                if k.in_ch != x.c {
                    return Err(lerr(format!(
                        "the weights expect {} input channels, the data has {}",
                        k.in_ch, x.c
                    )));
                }
                let acc = match l.op {
                    Op::Conv2d | Op::Linear => ops::conv2d(&x, k, l.pad, [0, 0], bias),
                    Op::Conv1d => ops::conv1d(&x, k, l.pad[0], l.dilation[0], bias),
                    Op::ConvTranspose2d => ops::conv_transpose2d(&x, k, l.pad, l.output_pad, bias),
                    Op::Passthrough => unreachable!(),
                };
                if l.output_width == 32 {
                    acc
                } else {
                    let shift = w.shift;
                    let data = acc
                        .data
                        .iter()
                        .map(|&a| ops::output8(a, shift, l.activation, overflow))
                        .collect();
                    Tensor::from_vec(acc.c, acc.h, acc.w, data)
                }
            }
        };
        if (out.h, out.w) != (p.out_dim[0], p.out_dim[1]) || out.c != p.out_ch {
            return Err(lerr(format!(
                "internal shape mismatch: computed {}x{}x{}, planned {}x{}x{}",
                out.c, out.h, out.w, p.out_ch, p.out_dim[0], p.out_dim[1]
            )));
        }
        outputs[ll] = Some(out);
        prev = Some(ll);
    }
    Ok(RunResult {
        outputs,
        final_layer: plan.final_layer,
    })
}

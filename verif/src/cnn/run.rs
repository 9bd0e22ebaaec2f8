//! Runs a resolved network on one input, layer by layer, exactly as the accelerator computes
//! (spec §1.17): gather, operand split, element-wise (pool last), re-view to `in_dim`,
//! pooling, element-wise (pool first), the convolution, the output stage.

use super::desc::{Eltwise, LayerDesc, NetworkDesc, Op, PoolKind};
use super::error::{CnnError, Result};
use super::ops::{self, AvgRounding, ShiftOverflow, Tensor};
use super::plan::{LayerPlan, Plan};
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
    let arith = Arithmetic::of(opts);
    for &ll in &plan.order {
        let step = LayerStep {
            ll,
            l: &net.layers[ll],
            p: plan.layer(ll),
        };
        let data = step.gather(input, &outputs, prev)?;
        let first = ll == plan.order[0];
        let x = step.input_operand(data, opts, first, &arith)?;
        let out = step.operate(x, weights, arith.overflow)?;
        step.check_output(&out)?;
        outputs[ll] = Some(out);
        prev = Some(ll);
    }
    Ok(RunResult {
        outputs,
        final_layer: plan.final_layer,
    })
}

/// The rounding of average pooling (2-D and 1-D) and the left-shift overflow a run
/// follows.
struct Arithmetic {
    rounding_2d: AvgRounding,
    rounding_1d: AvgRounding,
    overflow: ShiftOverflow,
}

impl Arithmetic {
    /// The arithmetic of `opts`' semantics and rounding option.
    fn of(opts: &RunOptions) -> Self {
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
        Arithmetic {
            rounding_2d,
            rounding_1d,
            overflow,
        }
    }
}

/// One layer of a run: its index, description and plan.
struct LayerStep<'a> {
    ll: usize,
    l: &'a LayerDesc,
    p: &'a LayerPlan,
}

impl LayerStep<'_> {
    /// An error about the layer, at its line in the description.
    fn err(&self, m: String) -> CnnError {
        CnnError::layer(self.ll, m).at_line(self.l.line)
    }

    /// Step 1, gather: the layer's input from its sources (the run's input, or the outputs of
    /// earlier layers; by default the previous layer's), concatenated by channel, or pixel
    /// after pixel when the sources differ in size.
    fn gather(
        &self,
        input: &Tensor,
        outputs: &[Option<Tensor>],
        prev: Option<usize>,
    ) -> Result<Tensor> {
        let source = |s: isize| -> &Tensor {
            if s < 0 {
                input
            } else {
                outputs[s as usize].as_ref().expect("source layer ran")
            }
        };
        Ok(match &self.l.in_sequences {
            Some(seqs) if seqs.len() > 1 => {
                let parts: Vec<&Tensor> = seqs.iter().map(|&s| source(s)).collect();
                match Tensor::concat_channels(&parts) {
                    Some(t) => t,
                    None => {
                        // Different sizes: pixels of each source one after another.
                        let c = parts[0].c;
                        if parts.iter().any(|t| t.c != c) {
                            return Err(self.err(format!(
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
        })
    }

    /// Step 2, operands: the gathered data split into the element-wise operands (channel
    /// blocks, or interleaved columns with `--legacy-test` after the first layer).
    fn split_operands(&self, data: Tensor, opts: &RunOptions, first: bool) -> Result<Vec<Tensor>> {
        let ops_n = self.l.operands;
        if ops_n <= 1 {
            return Ok(vec![data]);
        }
        if opts.legacy_test && !first {
            return Ok((0..ops_n).map(|i| data.columns_strided(i, ops_n)).collect());
        }
        if !data.c.is_multiple_of(ops_n) {
            return Err(self.err(format!(
                "{} input channels cannot be split into {ops_n} element-wise operands",
                data.c
            )));
        }
        let c = data.c / ops_n;
        Ok((0..ops_n)
            .map(|i| data.channels(i * c, (i + 1) * c))
            .collect())
    }

    /// Steps 2 to 5: the operands, element-wise (pool last), the re-view to `in_dim`,
    /// pooling, a check of the pooled dimensions and element-wise (pool first). Returns
    /// what the operation reads.
    fn input_operand(
        &self,
        data: Tensor,
        opts: &RunOptions,
        first: bool,
        arith: &Arithmetic,
    ) -> Result<Tensor> {
        let (l, p) = (self.l, self.p);
        let ops_n = l.operands;
        let mut operands = self.split_operands(data, opts, first)?;
        let elt = l.eltwise.unwrap_or(Eltwise::Add);
        if ops_n > 1 && !l.pool_first {
            operands = vec![ops::eltwise(&operands, elt)];
        }
        // 3. Re-view to the layer's input dimensions.
        for o in operands.iter_mut() {
            if !o.reshape(p.in_dim[0], p.in_dim[1]) {
                return Err(self.err(format!(
                    "{} values cannot be viewed as {}x{} (`in_dim`)",
                    o.data.len(),
                    p.in_dim[0],
                    p.in_dim[1]
                )));
            }
        }
        // 4. Pooling.
        let pool_kind = l.pool.unwrap_or(PoolKind::Max);
        let rounding = if p.one_d {
            arith.rounding_1d
        } else {
            arith.rounding_2d
        };
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
                return Err(self.err(format!(
                    "input dimensions do not match: expected {}x{}x{}, got {}x{}x{} (check `in_channels`, `in_dim` and the sample input)",
                    p.in_ch, p.pooled[0], p.pooled[1], o.c, o.h, o.w
                )));
            }
        }
        // 5. Element-wise, pool first.
        Ok(if ops_n > 1 && l.pool_first {
            ops::eltwise(&operands, elt)
        } else {
            operands.swap_remove(0)
        })
    }

    /// Step 6, the operation: the convolution (flattened input for a flattening layer) and the
    /// output stage (shift, activation, 8-bit saturation unless the output is 32-bit); a
    /// passthrough returns `x`.
    fn operate(
        &self,
        x: Tensor,
        weights: &NetworkWeights,
        overflow: ShiftOverflow,
    ) -> Result<Tensor> {
        let l = self.l;
        if l.op == Op::Passthrough {
            return Ok(x);
        }
        let w = weights.layers[self.ll]
            .as_ref()
            .ok_or_else(|| self.err("the layer has no weights".into()))?;
        let k = &w.kernels;
        let bias = w.bias.as_deref();
        let x = if l.flatten {
            let len = x.data.len();
            Tensor::from_vec(len, 1, 1, x.data)
        } else {
            x
        };
        if k.in_ch != x.c {
            return Err(self.err(format!(
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
            return Ok(acc);
        }
        let mut acc = acc;
        ops::output8_all(&mut acc.data, w.shift, l.activation, overflow);
        Ok(acc)
    }

    /// The computed output has the planned shape.
    fn check_output(&self, out: &Tensor) -> Result<()> {
        let p = self.p;
        if (out.h, out.w) != (p.out_dim[0], p.out_dim[1]) || out.c != p.out_ch {
            return Err(self.err(format!(
                "internal shape mismatch: computed {}x{}x{}, planned {}x{}x{}",
                out.c, out.h, out.w, p.out_ch, p.out_dim[0], p.out_dim[1]
            )));
        }
        Ok(())
    }
}

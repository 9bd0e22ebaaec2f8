//! Resolution of a network against its weights and input shape: layer order, channel counts,
//! shapes, passes and processor maps, memory use, and every hardware limit (spec §2) checked
//! with an error that names the layer and the key.

use super::desc::{Activation, DataFormat, NetworkDesc, Op};
use super::device::Device;
use super::error::{CnnError, Result};
use super::ops::pooled_len;
use super::weights::NetworkWeights;

/// One resolved layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerPlan {
    /// Layer index.
    pub index: usize,
    /// Input channels per operand (per pixel for a flattening layer).
    pub in_ch: usize,
    /// Output channels.
    pub out_ch: usize,
    /// Input rows and columns (after an `in_dim` re-view).
    pub in_dim: [usize; 2],
    /// Rows and columns after pooling.
    pub pooled: [usize; 2],
    /// Output rows and columns.
    pub out_dim: [usize; 2],
    /// Input processors.
    pub in_map: u64,
    /// Output processors.
    pub out_map: u64,
    /// Input passes and processors per pass.
    pub in_passes: (usize, usize),
    /// Output passes and processors per pass.
    pub out_passes: (usize, usize),
    /// Weight bits (None without weights).
    pub bits: Option<u32>,
    /// Total output shift (None without weights).
    pub shift: Option<i32>,
    /// In-offset (bytes) the layer reads from.
    pub in_offset: u32,
    /// Whether the output is 1-D (a Conv1d layer).
    pub one_d: bool,
    /// Whether the known-answer test checks this layer's output.
    pub checked: bool,
    /// Multiply-accumulates per inference.
    pub macs: u64,
    /// Estimated 72-bit kernel words per input processor.
    pub kernel_words: usize,
    /// Bias bytes.
    pub bias_bytes: usize,
    /// Input bytes per data-memory instance.
    pub in_bytes: usize,
    /// Output bytes per data-memory instance.
    pub out_bytes: usize,
}

/// A resolved network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Resolved layers by index (`None` for layers after the final one).
    pub layers: Vec<Option<LayerPlan>>,
    /// Execution order.
    pub order: Vec<usize>,
    /// The final (terminating) layer.
    pub final_layer: usize,
    /// Input channels, rows, columns of the sample.
    pub input: [usize; 3],
    /// The device the plan is for (its processors per pass may be fewer than 64, see
    /// [`super::Network::plan`]).
    pub device: Device,
    /// Notes for the user (e.g. an assumed `--max-proc`).
    pub notes: Vec<String>,
}

impl Plan {
    /// The plan of layer `i` (which must be part of the run).
    pub fn layer(&self, i: usize) -> &LayerPlan {
        self.layers[i].as_ref().expect("layer in plan")
    }
}

fn popcount(m: u64) -> usize {
    m.count_ones() as usize
}

/// Resolves `net` with `weights` for an input of `input` = `[C, H, W]` channels and size.
pub fn resolve(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    input: [usize; 3],
    dev: &Device,
    stop_after: Option<usize>,
) -> Result<Plan> {
    let n = net.layers.len();
    if let Some(s) = stop_after {
        if s >= n {
            return Err(CnnError::new(format!(
                "--stop-after {s}: the network has layers 0 to {}",
                n - 1
            )));
        }
    }
    let err =
        |i: usize, key: &str, m: String| CnnError::layer_key(i, key, m).at_line(net.layers[i].line);
    let lerr = |i: usize, m: String| CnnError::layer(i, m).at_line(net.layers[i].line);

    // Channel counts and maps, in sequence order.
    let mut c_in = vec![0usize; n];
    let mut c_out = vec![0usize; n];
    for (i, w) in weights.layers.iter().enumerate().take(n) {
        if let Some(w) = w {
            c_in[i] = w.kernels.in_ch;
            c_out[i] = w.kernels.out_ch;
        }
    }
    let mut out_map: Vec<Option<u64>> = net.layers.iter().map(|l| l.output_processors).collect();
    let mut order = Vec::new();
    let mut ll = 0usize;
    let mut prev: Option<usize> = None;
    let final_layer;
    loop {
        let l = &net.layers[ll];
        if l.op.has_weights() && weights.layers[ll].is_none() {
            return Err(lerr(ll, "the layer has no weights".into()));
        }
        if let Some(seqs) = &l.in_sequences {
            let ch = |s: isize| -> Result<usize> {
                if s < 0 {
                    Ok(input[0])
                } else if order.contains(&(s as usize)) {
                    Ok(c_out[s as usize])
                } else {
                    Err(err(
                        ll,
                        "in_sequences",
                        format!("layer {s} has not run before layer {ll}"),
                    ))
                }
            };
            if l.eltwise.is_some() {
                let first = ch(seqs[0])?;
                for &s in &seqs[1..] {
                    if ch(s)? != first {
                        return Err(err(
                            ll,
                            "in_sequences",
                            format!(
                                "the element-wise inputs {seqs:?} have non-matching channel counts"
                            ),
                        ));
                    }
                }
                c_in[ll] = first;
            } else {
                let mut sum = 0;
                for &s in seqs {
                    sum += ch(s)?;
                }
                c_in[ll] = sum;
            }
        }
        if c_in[ll] == 0 {
            c_in[ll] = match prev {
                None => input[0] / l.operands,
                Some(p) => c_out[p],
            };
        }
        if let Some(c) = l.in_channels {
            c_in[ll] = c;
        }
        if c_out[ll] == 0 {
            c_out[ll] = c_in[ll];
        }
        if let Some(c) = l.out_channels {
            c_out[ll] = c;
        }
        let mut next = l
            .next_sequence
            .unwrap_or(if ll + 1 < n { ll as isize + 1 } else { -1 });
        if out_map[ll].is_none() && next >= 0 && (next as usize) < n {
            out_map[ll] = Some(net.layers[next as usize].processors);
        }
        if stop_after == Some(ll) {
            next = -1;
        }
        order.push(ll);
        if next < 0 {
            final_layer = ll;
            break;
        }
        prev = Some(ll);
        ll = next as usize;
    }
    let (_, fo_t) = dev.passes(c_out[final_layer]);
    if let Some(m) = net.output_map {
        out_map[final_layer] = Some(m);
    } else if out_map[final_layer].is_none() {
        out_map[final_layer] = Some(if fo_t >= 64 {
            u64::MAX
        } else {
            (1u64 << fo_t) - 1
        });
    }

    // Shapes and limits.
    let mut plans: Vec<Option<LayerPlan>> = vec![None; n];
    let mut out_dims: Vec<[usize; 2]> = vec![[0, 0]; n];
    let mut prev: Option<usize> = None;
    let mut prev_out_offset = 0u32;
    for &ll in &order {
        let l = &net.layers[ll];
        let w = weights.layers[ll].as_ref();
        // Input dimensions.
        let source_dim = |s: isize| -> [usize; 2] {
            if s < 0 {
                [input[1], input[2]]
            } else {
                out_dims[s as usize]
            }
        };
        let in_dim = match (l.in_dim, &l.in_sequences) {
            (Some(d), _) => d,
            (None, Some(seqs)) => {
                let d0 = source_dim(seqs[0]);
                if seqs.iter().any(|&s| source_dim(s) != d0) {
                    return Err(err(
                        ll,
                        "in_sequences",
                        format!(
                            "cannot concatenate outputs of different dimensions without `in_dim`: {:?}",
                            seqs.iter().map(|&s| source_dim(s)).collect::<Vec<_>>()
                        ),
                    ));
                }
                d0
            }
            (None, None) => match prev {
                None => [input[1], input[2]],
                Some(p) => out_dims[p],
            },
        };
        let one_d = l.op == Op::Conv1d;
        if one_d && in_dim[1] != 1 {
            return Err(err(
                ll,
                "in_dim",
                format!(
                    "Conv1d needs 1-D input, but the input is {}x{}; re-view it with `in_dim: [{}, 1]`",
                    in_dim[0],
                    in_dim[1],
                    in_dim[0] * in_dim[1]
                ),
            ));
        }
        for (d, key) in [(in_dim[0], "in_dim"), (in_dim[1], "in_dim")] {
            if d > dev.max_row_col {
                return Err(err(
                    ll,
                    key,
                    format!(
                        "input dimension {d} exceeds the system maximum of {}",
                        dev.max_row_col
                    ),
                ));
            }
        }
        // Pooling.
        if l.pool.is_some() {
            let key = if l.pool == Some(super::desc::PoolKind::Max) {
                "max_pool"
            } else {
                "avg_pool"
            };
            for d in 0..2 {
                if l.pool_size[d] > dev.max_pool {
                    return Err(err(
                        ll,
                        key,
                        format!(
                            "pool size {} exceeds the maximum of {}",
                            l.pool_size[d], dev.max_pool
                        ),
                    ));
                }
            }
        }
        for d in 0..2 {
            if l.pool_stride[d] > dev.max_pool {
                return Err(err(
                    ll,
                    "pool_stride",
                    format!(
                        "pool stride {} exceeds the maximum of {}",
                        l.pool_stride[d], dev.max_pool
                    ),
                ));
            }
        }
        if !one_d && l.pool_stride[0] != l.pool_stride[1] {
            return Err(err(
                ll,
                "pool_stride",
                format!("{} does not support non-square pooling stride", l.op.name()),
            ));
        }
        let pooled = [
            pooled_len(in_dim[0], l.pool_size[0], l.pool_stride[0]),
            pooled_len(in_dim[1], l.pool_size[1], l.pool_stride[1]),
        ];
        if pooled[0] == 0 || pooled[1] == 0 {
            return Err(lerr(
                ll,
                format!(
                    "pooling results in a zero data dimension (input {}x{}, result {}x{})",
                    in_dim[0], in_dim[1], pooled[0], pooled[1]
                ),
            ));
        }
        // Padding.
        match l.op {
            Op::Passthrough | Op::Linear => {
                if l.pad != [0, 0] {
                    return Err(err(
                        ll,
                        "pad",
                        "padding can only be used with a convolution operation".into(),
                    ));
                }
            }
            _ => {
                if l.pad[0] > 2 {
                    return Err(err(
                        ll,
                        "pad",
                        format!(
                            "{} does not support `pad` >= 3 (found {})",
                            l.op.name(),
                            l.pad[0]
                        ),
                    ));
                }
                if l.op != Op::ConvTranspose2d && l.pad[0] >= l.kernel_size[0] {
                    return Err(err(
                        ll,
                        "pad",
                        format!(
                            "pad size ({}) is greater than or equal to the kernel size ({})",
                            l.pad[0], l.kernel_size[0]
                        ),
                    ));
                }
            }
        }
        // Output dimensions and channels.
        let mut in_ch = c_in[ll];
        let out_dim = if l.flatten {
            if l.op != Op::Linear && l.op != Op::Conv2d {
                return Err(err(
                    ll,
                    "flatten",
                    format!("`flatten` is not compatible with {}", l.op.name()),
                ));
            }
            if l.pool.is_some() {
                return Err(err(
                    ll,
                    "flatten",
                    "`flatten` is not compatible with pooling".into(),
                ));
            }
            if pooled[0] * pooled[1] > 256 {
                return Err(err(
                    ll,
                    "flatten",
                    format!(
                        "`flatten` exceeds the supported input dimensions ({}x{} > 256)",
                        pooled[0], pooled[1]
                    ),
                ));
            }
            let px = pooled[0] * pooled[1];
            if !in_ch.is_multiple_of(px) {
                return Err(lerr(
                    ll,
                    format!(
                        "the weights have {in_ch} inputs, which is not a multiple of the {}x{} flattened pixels",
                        pooled[0], pooled[1]
                    ),
                ));
            }
            in_ch /= px;
            [1, 1]
        } else {
            match l.op {
                Op::ConvTranspose2d => {
                    let f = |p: usize, d: usize| {
                        ((p - 1) * 2 + (l.kernel_size[d] - 1) + l.output_pad[d] + 1)
                            .saturating_sub(2 * l.pad[d])
                    };
                    [f(pooled[0], 0), f(pooled[1], 1)]
                }
                Op::Conv1d => {
                    let span = l.dilation[0] * (l.kernel_size[0] - 1) + 1;
                    [(pooled[0] + 2 * l.pad[0] + 1).saturating_sub(span), 1]
                }
                _ => [
                    (pooled[0] + 2 * l.pad[0] + 1).saturating_sub(l.kernel_size[0]),
                    (pooled[1] + 2 * l.pad[1] + 1).saturating_sub(l.kernel_size[1]),
                ],
            }
        };
        if out_dim[0] == 0 || out_dim[1] == 0 {
            return Err(lerr(ll, "the output dimension is zero".into()));
        }
        if out_dim[0] > dev.max_row_col || out_dim[1] > dev.max_row_col {
            return Err(lerr(
                ll,
                format!(
                    "output dimension {}x{} exceeds the system maximum of {}",
                    out_dim[0], out_dim[1], dev.max_row_col
                ),
            ));
        }
        let out_ch = c_out[ll];
        for (c, key) in [(in_ch, "in_channels"), (out_ch, "out_channels")] {
            if c == 0 || c > dev.max_channels {
                return Err(err(
                    ll,
                    key,
                    format!(
                        "{c} channels; the device supports 1 to {}",
                        dev.max_channels
                    ),
                ));
            }
        }
        // Passthrough rules.
        if l.op == Op::Passthrough {
            if l.activation != Activation::None {
                return Err(err(
                    ll,
                    "activate",
                    "pass-through layers must not use activation".into(),
                ));
            }
            if l.output_shift.unwrap_or(0) != 0 {
                return Err(err(
                    ll,
                    "output_shift",
                    "`output_shift` must be zero for passthrough layers".into(),
                ));
            }
            if l.eltwise.is_none() && l.output_width != 8 {
                return Err(err(
                    ll,
                    "output_width",
                    "the passthrough operator requires an output width of 8".into(),
                ));
            }
        }
        if ll == final_layer && l.output_width == 32 && l.activation != Activation::None {
            return Err(err(
                ll,
                "output_width",
                "`output_width` must be 8 when activation is used".into(),
            ));
        }
        if l.eltwise.is_some() && l.op == Op::Conv1d {
            return Err(err(
                ll,
                "eltwise",
                "element-wise operations cannot be combined with Conv1d".into(),
            ));
        }
        if l.eltwise.is_some() && !l.pool_first && l.operands > 2 {
            return Err(err(
                ll,
                "operands",
                "\"pool last\" (`pool_first: false`) supports at most 2 element-wise operands on this device".into(),
            ));
        }
        // Output shift.
        let (bits, shift) = match w {
            Some(w) => {
                if !(-15..=15).contains(&w.shift) {
                    let implicit = 8 - w.bits as i32;
                    return Err(err(
                        ll,
                        "output_shift",
                        format!(
                            "{}-bit weights support an output_shift range of [{}, +{}]; the value is {}",
                            w.bits,
                            -15 - implicit,
                            15 - implicit,
                            w.shift - implicit
                        ),
                    ));
                }
                (Some(w.bits), Some(w.shift))
            }
            None => (None, None),
        };
        // Processors and passes.
        let in_passes = dev.passes(in_ch);
        let omap = out_map[ll].unwrap_or(0);
        let out_passes = dev.passes(out_ch);
        if in_passes.0 > dev.max_passes {
            return Err(lerr(
                ll,
                format!(
                    "input expansion of {} passes exceeds the device limit of {}",
                    in_passes.0, dev.max_passes
                ),
            ));
        }
        if popcount(l.processors) != in_passes.1 {
            let kind = if popcount(l.processors) < in_passes.1 && l.processors != 0 {
                super::error::ErrorKind::ProcessorShortfall {
                    have: popcount(l.processors),
                }
            } else {
                super::error::ErrorKind::Other
            };
            return Err(CnnError {
                kind,
                ..err(
                ll,
                "processors",
                format!(
                    "{in_ch} input channels using {} pass(es) and {} operand(s) need {} processors per pass, but the map 0x{:016x} has {} bits{}",
                    in_passes.0,
                    l.operands,
                    in_passes.1,
                    l.processors,
                    popcount(l.processors),
                    if popcount(l.processors) < in_passes.1 && popcount(l.processors) > 0 {
                        format!(
                            " (to spread the channels over passes of {} processors, use --max-proc {})",
                            popcount(l.processors),
                            popcount(l.processors)
                        )
                    } else {
                        String::new()
                    }
                ),
            )
            });
        }
        if l.processors >> dev.max_proc.min(63) > 0 && dev.max_proc < 64 {
            return Err(err(
                ll,
                "processors",
                format!("the device has only {} processors", dev.max_proc),
            ));
        }
        if popcount(omap) != out_passes.1 {
            let key = if ll == final_layer && net.output_map.is_some() {
                "output_map"
            } else {
                "output_processors"
            };
            return Err(err(
                ll,
                key,
                format!(
                    "{out_ch} output channels using {} pass(es) need {} processors per pass, but the output map 0x{omap:016x} has {} bits{}",
                    out_passes.0,
                    out_passes.1,
                    popcount(omap),
                    if l.output_processors.is_none() && ll != final_layer {
                        " (by default a layer writes to the next layer's `processors`)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if ll == 0 && l.data_format == DataFormat::Chw {
            let mut seen = 0u64;
            for p in 0..64 {
                if l.processors >> p & 1 == 1 {
                    let inst = 1u64 << (p / 4);
                    if seen & inst != 0 {
                        return Err(err(
                            ll,
                            "processors",
                            "CHW input format, but several channels share one memory instance; use one processor per group of 4 (e.g. 0x0000000100010001)".into(),
                        ));
                    }
                    seen |= inst;
                }
            }
        }
        // Streaming: at most 8 layers, all from the first on, and the first reads the FIFOs.
        if l.streaming {
            let position = order.iter().position(|&x| x == ll).unwrap_or(0);
            if let Some(&before) = order[..position]
                .iter()
                .find(|&&x| !net.layers[x].streaming)
            {
                return Err(err(
                    ll,
                    "streaming",
                    format!("streaming layers must follow streaming layers, but layer {before} does not stream"),
                ));
            }
            if position >= 8 {
                return Err(err(
                    ll,
                    "streaming",
                    "the device supports at most 8 streaming layers".into(),
                ));
            }
            if position == 0 {
                let max = if l.data_format == DataFormat::Chw {
                    4
                } else {
                    16
                };
                if in_ch * l.operands > max {
                    return Err(err(
                        ll,
                        "streaming",
                        format!(
                            "a streaming first layer reads the FIFOs, which carry at most {max} {} input channels, not {}",
                            if max == 4 { "CHW" } else { "HWC" },
                            in_ch * l.operands
                        ),
                    ));
                }
            }
        }
        // Memory use.
        let in_offset = l
            .in_offset
            .unwrap_or(if prev.is_none() { 0 } else { prev_out_offset });
        let in_bytes = if ll == 0 && l.data_format == DataFormat::Chw {
            (in_dim[0] * in_dim[1] * in_passes.0).next_multiple_of(4)
        } else {
            4 * in_dim[0] * in_dim[1] * in_passes.0 * l.operands
        };
        // Streaming layers work on a rolling window (and a streaming first layer reads its input
        // from the FIFOs), so their whole frame need not fit.
        if !l.streaming && in_bytes + in_offset as usize > dev.instance_bytes {
            return Err(err(
                ll,
                "in_offset",
                format!(
                    "the input ({in_bytes} bytes per memory instance) at offset 0x{in_offset:04x} exceeds the data memory instance size of {}",
                    dev.instance_bytes
                ),
            ));
        }
        let out_bytes = out_dim[0] * out_dim[1] * out_passes.0 * 4 * (l.output_width as usize / 8);
        if !l.streaming && out_bytes + l.out_offset as usize > dev.instance_bytes {
            return Err(err(
                ll,
                "out_offset",
                format!(
                    "the output ({out_bytes} bytes per memory instance) at offset 0x{:04x} exceeds the data memory instance size of {}",
                    l.out_offset, dev.instance_bytes
                ),
            ));
        }
        if l.out_offset as usize >= 4 * dev.instance_bytes {
            return Err(err(
                ll,
                "out_offset",
                format!(
                    "0x{:x} is outside 0 to 0x{:x}",
                    l.out_offset,
                    4 * dev.instance_bytes
                ),
            ));
        }
        let (macs, kernel_words, bias_bytes) = match w {
            None => (0, 0, 0),
            Some(w) => {
                let k = &w.kernels;
                let per_out = (k.in_ch * k.kh * k.kw) as u64;
                let pixels = (out_dim[0] * out_dim[1]) as u64;
                let macs = k.out_ch as u64 * per_out * pixels;
                let kbits = k.kh * k.kw * w.bits as usize;
                let per_word = (72 / kbits).max(1);
                let flat_factor = if l.flatten { pooled[0] * pooled[1] } else { 1 };
                let words = (out_ch * in_passes.0 * flat_factor).div_ceil(per_word);
                (macs, words, w.bias.as_ref().map_or(0, |b| b.len()))
            }
        };
        plans[ll] = Some(LayerPlan {
            index: ll,
            in_ch,
            out_ch,
            in_dim,
            pooled,
            out_dim,
            in_map: l.processors,
            out_map: omap,
            in_passes,
            out_passes,
            bits,
            shift,
            in_offset,
            one_d,
            checked: ll == final_layer || l.output,
            macs,
            kernel_words,
            bias_bytes,
            in_bytes,
            out_bytes,
        });
        out_dims[ll] = out_dim;
        prev = Some(ll);
        prev_out_offset = l.out_offset;
    }
    Ok(Plan {
        layers: plans,
        order,
        final_layer,
        input,
        device: dev.clone(),
        notes: Vec::new(),
    })
}

//! Resolution of a network against its weights and input shape: layer order, channel counts,
//! shapes, passes and processor maps, memory use, and every hardware limit (spec §2) checked
//! with an error that names the layer and the key.
//!
//! [`resolve`] is a driver over phases, each a small function documented with what it checks
//! and the spec section (max78000-cnn-engine.md §2, §3) it follows. First, for the whole
//! network, `check_stop_after` and `order_and_channels` (layer order, channel counts, output
//! processors). Then, layer by layer in execution order (`resolve_layer`): `input_dim` and
//! `check_input_dim`, `pooling`, `check_padding`, `flatten_channels`, `output_dim`,
//! `check_channels`, `check_passthrough`, `check_output_width`, `check_eltwise`,
//! `output_shift`, `input_passes`, `output_passes`, `check_chw_processors`,
//! `check_streaming`, `input_memory`, `output_memory`, and `weight_use`. The order is part of
//! the behaviour: the error reported is that of the first phase that fails.

use super::desc::{Activation, DataFormat, LayerDesc, NetworkDesc, Op, PoolKind};
use super::device::Device;
use super::error::{CnnError, ErrorKind, Result};
use super::ops::pooled_len;
use super::weights::{LayerWeights, NetworkWeights};

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
    /// 72-bit kernel words per processor in the engine's allocation (docs/cnn-engine-rtl.md).
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
///
/// The phases (see the module documentation) run in a fixed order, so that the error reported
/// is always that of the first broken rule.
pub fn resolve(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    input: [usize; 3],
    dev: &Device,
    stop_after: Option<usize>,
) -> Result<Plan> {
    check_stop_after(net, stop_after)?;
    let seq = order_and_channels(net, weights, input, dev, stop_after)?;
    let mut layers: Vec<Option<LayerPlan>> = vec![None; net.layers.len()];
    for (pos, &ll) in seq.order.iter().enumerate() {
        layers[ll] = Some(resolve_layer(net, weights, input, dev, &seq, pos, &layers)?);
    }
    Ok(Plan {
        layers,
        order: seq.order,
        final_layer: seq.final_layer,
        input,
        device: dev.clone(),
        notes: Vec::new(),
    })
}

/// Resolves the layer at position `pos` of the execution order, whose predecessors in that
/// order are resolved in `done`: its shapes, channels, passes, processor maps and memory use,
/// with every rule checked in this order.
fn resolve_layer(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    input: [usize; 3],
    dev: &Device,
    seq: &Sequence,
    pos: usize,
    done: &[Option<LayerPlan>],
) -> Result<LayerPlan> {
    let ll = seq.order[pos];
    let layer = Layer::new(net, ll);
    let l = layer.desc;
    let w = weights.layers[ll].as_ref();
    let prev = pos.checked_sub(1).map(|p| seq.order[p]);
    let is_final = ll == seq.final_layer;
    let out_dim_of = |s: usize| done[s].as_ref().map_or([0, 0], |p| p.out_dim);

    // Shapes and channels.
    let in_dim = input_dim(layer, input, prev, out_dim_of)?;
    check_input_dim(layer, in_dim, dev)?;
    let pooled = pooling(layer, in_dim, dev)?;
    check_padding(layer)?;
    let in_ch = flatten_channels(layer, pooled, seq.c_in[ll])?;
    let out_dim = output_dim(layer, pooled, dev)?;
    let out_ch = seq.c_out[ll];
    check_channels(layer, in_ch, out_ch, dev)?;
    // Operation rules.
    check_passthrough(layer)?;
    check_output_width(layer, is_final)?;
    check_eltwise(layer)?;
    let (bits, shift) = output_shift(layer, w)?;
    // Processors and passes.
    let in_passes = input_passes(layer, in_ch, dev)?;
    let out_map = seq.out_map[ll].unwrap_or(0);
    let map_key = if is_final && net.output_map.is_some() {
        "output_map"
    } else {
        "output_processors"
    };
    let out_passes = output_passes(layer, out_ch, out_map, map_key, is_final, dev)?;
    check_chw_processors(layer)?;
    check_streaming(net, layer, &seq.order[..pos], in_ch)?;
    // Memory.
    let prev_out_offset = prev.map(|p| net.layers[p].out_offset);
    let (in_offset, in_bytes) = input_memory(layer, prev_out_offset, in_dim, in_passes, dev)?;
    let out_bytes = output_memory(layer, out_dim, out_passes, dev)?;
    // (izer keeps no record of a streaming layer's output, so it checks nothing against it.)
    if !prev.is_some_and(|p| net.layers[p].streaming) {
        check_overlap(layer, (in_offset, in_bytes), (out_map, out_bytes), dev)?;
    }
    let cost = weight_use(l, w, pooled, out_dim, out_ch, in_passes);
    Ok(LayerPlan {
        index: ll,
        in_ch,
        out_ch,
        in_dim,
        pooled,
        out_dim,
        in_map: l.processors,
        out_map,
        in_passes,
        out_passes,
        bits,
        shift,
        in_offset,
        one_d: l.op == Op::Conv1d,
        checked: is_final || l.output,
        macs: cost.macs,
        kernel_words: cost.kernel_words,
        bias_bytes: cost.bias_bytes,
        in_bytes,
        out_bytes,
    })
}

/// Layer `index` of a description, as the phases see it: its settings, and where its errors
/// point (layer index, key, line).
#[derive(Clone, Copy)]
struct Layer<'a> {
    /// The layer index.
    index: usize,
    /// Its description.
    desc: &'a LayerDesc,
}

impl<'a> Layer<'a> {
    /// Layer `index` of `net`.
    fn new(net: &'a NetworkDesc, index: usize) -> Self {
        Layer {
            index,
            desc: &net.layers[index],
        }
    }

    /// An error about key `key` of this layer, at its line.
    fn key_err(self, key: &str, message: impl Into<String>) -> CnnError {
        CnnError::layer_key(self.index, key, message).at_line(self.desc.line)
    }

    /// An error about this layer as a whole, at its line.
    fn err(self, message: impl Into<String>) -> CnnError {
        CnnError::layer(self.index, message).at_line(self.desc.line)
    }
}

/// The outcome of [`order_and_channels`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sequence {
    /// Execution order.
    order: Vec<usize>,
    /// The final (terminating) layer.
    final_layer: usize,
    /// Input channels per layer (per operand, before flattening; 0 for layers that do not run).
    c_in: Vec<usize>,
    /// Output channels per layer (0 for layers that do not run).
    c_out: Vec<usize>,
    /// Output processors per layer (`None` where neither given nor defaulted).
    out_map: Vec<Option<u64>>,
}

/// Checks `--stop-after` (a command-line option, not a spec rule): it must name a layer of
/// the network. The error names no layer.
fn check_stop_after(net: &NetworkDesc, stop_after: Option<usize>) -> Result<()> {
    let n = net.layers.len();
    match stop_after {
        Some(s) if s >= n => Err(CnnError::new(format!(
            "--stop-after {s}: the network has layers 0 to {}",
            n - 1
        ))),
        _ => Ok(()),
    }
}

/// For the whole network, before any shape: follows the layers from layer 0 along `next_sequence`
/// ([`next_layer`], spec §3.2 `sequence`, `next_sequence`) to the final layer (the last one,
/// one whose `next_sequence` stops, or the `--stop-after` layer), and fixes every layer's
/// channel counts ([`input_channels`], [`output_channels`]) and output processors (spec
/// §2.11: `output_processors`, else the next layer's `processors`; for the final layer
/// [`final_output_map`]).
///
/// Fails when a layer whose operation needs weights has none (spec §3: the checkpoint holds
/// the weights of the YAML's layers), and as [`sequence_channels`] does.
fn order_and_channels(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    input: [usize; 3],
    dev: &Device,
    stop_after: Option<usize>,
) -> Result<Sequence> {
    let n = net.layers.len();
    let mut seq = Sequence {
        order: Vec::new(),
        final_layer: 0,
        c_in: vec![0; n],
        c_out: vec![0; n],
        out_map: net.layers.iter().map(|l| l.output_processors).collect(),
    };
    let mut ll = 0usize;
    let mut prev: Option<usize> = None;
    loop {
        let layer = Layer::new(net, ll);
        if layer.desc.op.has_weights() && weights.layers[ll].is_none() {
            return Err(layer.err("the layer has no weights"));
        }
        let w = weights.layers.get(ll).and_then(Option::as_ref);
        seq.c_in[ll] = input_channels(layer, w, input[0], prev, &seq)?;
        seq.c_out[ll] = output_channels(layer.desc, w, seq.c_in[ll]);
        let next = next_layer(net, ll);
        if seq.out_map[ll].is_none() && next >= 0 && (next as usize) < n {
            seq.out_map[ll] = Some(net.layers[next as usize].processors);
        }
        seq.order.push(ll);
        if next < 0 || stop_after == Some(ll) {
            seq.final_layer = ll;
            break;
        }
        prev = Some(ll);
        ll = next as usize;
    }
    let fl = seq.final_layer;
    seq.out_map[fl] = Some(final_output_map(
        net.output_map,
        seq.out_map[fl],
        seq.c_out[fl],
        dev,
    ));
    Ok(seq)
}

/// The layer that runs after layer `ll` (spec §3.2 `next_sequence`): its `next_sequence`,
/// else the next layer of the file; negative when `ll` is the last.
fn next_layer(net: &NetworkDesc, ll: usize) -> isize {
    net.layers[ll]
        .next_sequence
        .unwrap_or(if ll + 1 < net.layers.len() {
            ll as isize + 1
        } else {
            -1
        })
}

/// Input channels (per operand) of a layer (spec §3.2 `in_channels`, `in_sequences`): those
/// of its `in_sequences` ([`sequence_channels`]), else its weights' input channels, else the
/// previous layer's output channels (for the first layer, the sample's channels divided
/// among the operands); `in_channels` overrides them all.
fn input_channels(
    layer: Layer,
    w: Option<&LayerWeights>,
    sample_ch: usize,
    prev: Option<usize>,
    seq: &Sequence,
) -> Result<usize> {
    let l = layer.desc;
    let mut c = w.map_or(0, |w| w.kernels.in_ch);
    if let Some(seqs) = &l.in_sequences {
        c = sequence_channels(layer, seqs, sample_ch, seq)?;
    }
    if c == 0 {
        c = match prev {
            None => sample_ch / l.operands,
            Some(p) => seq.c_out[p],
        };
    }
    Ok(l.in_channels.unwrap_or(c))
}

/// Channels a layer receives through `in_sequences` (spec §2.11, §3.2 `in_sequences`; -1 is
/// the sample): every source must have run before the layer (be in `seq.order`); an
/// element-wise operation needs the same count from every source and gets that count, a
/// concatenation gets the sum.
fn sequence_channels(
    layer: Layer,
    seqs: &[isize],
    sample_ch: usize,
    seq: &Sequence,
) -> Result<usize> {
    let ll = layer.index;
    let ch = |s: isize| -> Result<usize> {
        if s < 0 {
            Ok(sample_ch)
        } else if seq.order.contains(&(s as usize)) {
            Ok(seq.c_out[s as usize])
        } else {
            Err(layer.key_err(
                "in_sequences",
                format!("layer {s} has not run before layer {ll}"),
            ))
        }
    };
    if layer.desc.eltwise.is_some() {
        let first = ch(seqs[0])?;
        for &s in &seqs[1..] {
            if ch(s)? != first {
                return Err(layer.key_err(
                    "in_sequences",
                    format!("the element-wise inputs {seqs:?} have non-matching channel counts"),
                ));
            }
        }
        Ok(first)
    } else {
        let mut sum = 0;
        for &s in seqs {
            sum += ch(s)?;
        }
        Ok(sum)
    }
}

/// Output channels of a layer (spec §3.2 `out_channels`): its weights' output channels, else
/// (none, or 0) its input channels `c_in`; `out_channels` overrides both.
fn output_channels(l: &LayerDesc, w: Option<&LayerWeights>, c_in: usize) -> usize {
    let c = match w.map_or(0, |w| w.kernels.out_ch) {
        0 => c_in,
        c => c,
    };
    l.out_channels.unwrap_or(c)
}

/// The output processors of the final layer (spec §2.11, §3.1 `output_map`): the global
/// `output_map`, else the layer's own (`own`: `output_processors`, or the processors of the
/// layer after a `--stop-after` layer), else as many processors from 0 as one pass of its
/// `out_ch` output channels needs.
fn final_output_map(global: Option<u64>, own: Option<u64>, out_ch: usize, dev: &Device) -> u64 {
    let (_, per_pass) = dev.passes(out_ch);
    let from_zero = if per_pass >= 64 {
        u64::MAX
    } else {
        (1u64 << per_pass) - 1
    };
    global.or(own).unwrap_or(from_zero)
}

/// Input rows and columns of a layer (spec §3.2 `in_dim`, `in_sequences`; §2.11): `in_dim`
/// when given; else the output size of its `in_sequences`, which must all be the same (a
/// concatenation of different sizes needs `in_dim`); else the output size of the previous
/// layer `prev` (of the sample for the first layer). `out_dim_of` gives the output size of a
/// layer that has run.
fn input_dim(
    layer: Layer,
    input: [usize; 3],
    prev: Option<usize>,
    out_dim_of: impl Fn(usize) -> [usize; 2],
) -> Result<[usize; 2]> {
    let l = layer.desc;
    let source_dim = |s: isize| -> [usize; 2] {
        if s < 0 {
            [input[1], input[2]]
        } else {
            out_dim_of(s as usize)
        }
    };
    match (l.in_dim, &l.in_sequences) {
        (Some(d), _) => Ok(d),
        (None, Some(seqs)) => {
            let d0 = source_dim(seqs[0]);
            if seqs.iter().any(|&s| source_dim(s) != d0) {
                return Err(layer.key_err(
                    "in_sequences",
                    format!(
                        "cannot concatenate outputs of different dimensions without `in_dim`: {:?}",
                        seqs.iter().map(|&s| source_dim(s)).collect::<Vec<_>>()
                    ),
                ));
            }
            Ok(d0)
        }
        (None, None) => Ok(match prev {
            None => [input[1], input[2]],
            Some(p) => out_dim_of(p),
        }),
    }
}

/// Checks the input size (key `in_dim`): a Conv1d layer needs 1-D (`[L, 1]`) input (spec
/// §1.15, §3.2 `in_dim`: changing between 1-D and 2-D needs `in_dim`), and neither rows nor
/// columns may exceed the device maximum (spec §2.8).
fn check_input_dim(layer: Layer, in_dim: [usize; 2], dev: &Device) -> Result<()> {
    if layer.desc.op == Op::Conv1d && in_dim[1] != 1 {
        return Err(layer.key_err(
            "in_dim",
            format!(
                "Conv1d needs 1-D input, but the input is {}x{}; re-view it with `in_dim: [{}, 1]`",
                in_dim[0],
                in_dim[1],
                in_dim[0] * in_dim[1]
            ),
        ));
    }
    for d in in_dim {
        if d > dev.max_row_col {
            return Err(layer.key_err(
                "in_dim",
                format!(
                    "input dimension {d} exceeds the system maximum of {}",
                    dev.max_row_col
                ),
            ));
        }
    }
    Ok(())
}

/// Pooling (spec §2.8 pool kernels and pool stride, §3.2 `max_pool`, `avg_pool`,
/// `pool_stride`, §3.3 item 11): pool size (key `max_pool`/`avg_pool`) and stride (key
/// `pool_stride`) at most the device maximum, the stride equal in both dimensions (except for
/// Conv1d, whose data is 1-D). Returns the pooled rows and columns, which must not be zero.
fn pooling(layer: Layer, in_dim: [usize; 2], dev: &Device) -> Result<[usize; 2]> {
    let l = layer.desc;
    if let Some(kind) = l.pool {
        let key = if kind == PoolKind::Max {
            "max_pool"
        } else {
            "avg_pool"
        };
        for size in l.pool_size {
            if size > dev.max_pool {
                return Err(layer.key_err(
                    key,
                    format!("pool size {size} exceeds the maximum of {}", dev.max_pool),
                ));
            }
        }
    }
    for stride in l.pool_stride {
        if stride > dev.max_pool {
            return Err(layer.key_err(
                "pool_stride",
                format!(
                    "pool stride {stride} exceeds the maximum of {}",
                    dev.max_pool
                ),
            ));
        }
    }
    if l.op != Op::Conv1d && l.pool_stride[0] != l.pool_stride[1] {
        return Err(layer.key_err(
            "pool_stride",
            format!("{} does not support non-square pooling stride", l.op.name()),
        ));
    }
    let pooled = [
        pooled_len(in_dim[0], l.pool_size[0], l.pool_stride[0]),
        pooled_len(in_dim[1], l.pool_size[1], l.pool_stride[1]),
    ];
    if pooled[0] == 0 || pooled[1] == 0 {
        return Err(layer.err(format!(
            "pooling results in a zero data dimension (input {}x{}, result {}x{})",
            in_dim[0], in_dim[1], pooled[0], pooled[1]
        )));
    }
    Ok(pooled)
}

/// Checks `pad` (spec §2.8 kernel rows, §1.14, §3.2 `pad`, §3.3 item 10): no padding for
/// passthrough and linear layers; for convolutions at most 2, and (except ConvTranspose2d)
/// less than the kernel size.
fn check_padding(layer: Layer) -> Result<()> {
    let l = layer.desc;
    match l.op {
        Op::Passthrough | Op::Linear => {
            if l.pad != [0, 0] {
                return Err(layer.key_err(
                    "pad",
                    "padding can only be used with a convolution operation",
                ));
            }
        }
        _ => {
            if l.pad[0] > 2 {
                return Err(layer.key_err(
                    "pad",
                    format!(
                        "{} does not support `pad` >= 3 (found {})",
                        l.op.name(),
                        l.pad[0]
                    ),
                ));
            }
            if l.op != Op::ConvTranspose2d && l.pad[0] >= l.kernel_size[0] {
                return Err(layer.key_err(
                    "pad",
                    format!(
                        "pad size ({}) is greater than or equal to the kernel size ({})",
                        l.pad[0], l.kernel_size[0]
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Input channels per pixel after `flatten` (spec §2.9, §2.8 flatten row, §3.3 item 12): a
/// flattening layer (key `flatten`) must be Linear or Conv2d, without pooling, on at most 256
/// pooled pixels, and the weights' `c_in` inputs must be a whole number of channels per
/// pixel; that number is returned. Without `flatten`, `c_in`.
fn flatten_channels(layer: Layer, pooled: [usize; 2], c_in: usize) -> Result<usize> {
    let l = layer.desc;
    if !l.flatten {
        return Ok(c_in);
    }
    if l.op != Op::Linear && l.op != Op::Conv2d {
        return Err(layer.key_err(
            "flatten",
            format!("`flatten` is not compatible with {}", l.op.name()),
        ));
    }
    if l.pool.is_some() {
        return Err(layer.key_err("flatten", "`flatten` is not compatible with pooling"));
    }
    if pooled[0] * pooled[1] > 256 {
        return Err(layer.key_err(
            "flatten",
            format!(
                "`flatten` exceeds the supported input dimensions ({}x{} > 256)",
                pooled[0], pooled[1]
            ),
        ));
    }
    let px = pooled[0] * pooled[1];
    if !c_in.is_multiple_of(px) {
        return Err(layer.err(format!(
            "the weights have {c_in} inputs, which is not a multiple of the {}x{} flattened pixels",
            pooled[0], pooled[1]
        )));
    }
    Ok(c_in / px)
}

/// Output rows and columns (spec §1.15, §2.8 rows/columns): 1x1 for a flattening layer;
/// `(H - 1) * 2 + k + output_pad - 2 * pad` for ConvTranspose2d; `H + 2 * pad + 1 - span` with
/// the dilated kernel span for Conv1d (1 column); `H + 2 * pad + 1 - k` otherwise, on the
/// pooled size. The result must not be zero nor exceed the device maximum.
fn output_dim(layer: Layer, pooled: [usize; 2], dev: &Device) -> Result<[usize; 2]> {
    let l = layer.desc;
    let out_dim = if l.flatten {
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
        return Err(layer.err("the output dimension is zero"));
    }
    if out_dim[0] > dev.max_row_col || out_dim[1] > dev.max_row_col {
        return Err(layer.err(format!(
            "output dimension {}x{} exceeds the system maximum of {}",
            out_dim[0], out_dim[1], dev.max_row_col
        )));
    }
    Ok(out_dim)
}

/// Checks the channel counts (spec §2.8 input/output channels per layer, §2.6): 1 to the
/// device maximum (1024) each, keys `in_channels` and `out_channels`.
fn check_channels(layer: Layer, in_ch: usize, out_ch: usize, dev: &Device) -> Result<()> {
    for (c, key) in [(in_ch, "in_channels"), (out_ch, "out_channels")] {
        if c == 0 || c > dev.max_channels {
            return Err(layer.key_err(
                key,
                format!(
                    "{c} channels; the device supports 1 to {}",
                    dev.max_channels
                ),
            ));
        }
    }
    Ok(())
}

/// Checks the rules of passthrough layers (spec §1.14, §1.9, §3.2 `output_shift`, §3.3
/// item 7): no activation (key `activate`), no `output_shift`, and 8-bit output (key
/// `output_width`), element-wise or not, as izer's backend refuses it (D-CNN-WIDE).
fn check_passthrough(layer: Layer) -> Result<()> {
    let l = layer.desc;
    if l.op != Op::Passthrough {
        return Ok(());
    }
    if l.activation != Activation::None {
        return Err(layer.key_err("activate", "pass-through layers must not use activation"));
    }
    if l.output_shift.unwrap_or(0) != 0 {
        return Err(layer.key_err(
            "output_shift",
            "`output_shift` must be zero for passthrough layers",
        ));
    }
    if l.output_width != 8 {
        return Err(layer.key_err(
            "output_width",
            "the passthrough operator requires an output width of 8",
        ));
    }
    Ok(())
}

/// Checks `output_width` of the final layer (spec §1.10, §3.2 `output_width`, §3.3 item 8):
/// 32-bit output cannot be combined with an activation.
fn check_output_width(layer: Layer, is_final: bool) -> Result<()> {
    let l = layer.desc;
    if is_final && l.output_width == 32 && l.activation != Activation::None {
        return Err(layer.key_err(
            "output_width",
            "`output_width` must be 8 when activation is used",
        ));
    }
    Ok(())
}

/// Checks element-wise operations (spec §3.3 item 5, §3.2 `pool_first`, `operands`): not
/// with Conv1d (key `eltwise`), and "pool last" takes at most 2 operands on this device (key
/// `operands`).
fn check_eltwise(layer: Layer) -> Result<()> {
    let l = layer.desc;
    if l.eltwise.is_some() && l.op == Op::Conv1d {
        return Err(layer.key_err(
            "eltwise",
            "element-wise operations cannot be combined with Conv1d",
        ));
    }
    if l.eltwise.is_some() && !l.pool_first && l.operands > 2 {
        return Err(layer.key_err(
            "operands",
            "\"pool last\" (`pool_first: false`) supports at most 2 element-wise operands on this device",
        ));
    }
    Ok(())
}

/// Weight bits and total output shift of a layer with weights (`None`s without) (spec §1.9,
/// §2.8 total output shift, §3.3 item 7): the total shift `output_shift + 8 - bits` must be
/// in [-15, +15]; the error (key `output_shift`) gives the range of `output_shift` itself.
fn output_shift(layer: Layer, w: Option<&LayerWeights>) -> Result<(Option<u32>, Option<i32>)> {
    let Some(w) = w else {
        return Ok((None, None));
    };
    if !(-15..=15).contains(&w.shift) {
        let implicit = 8 - w.bits as i32;
        return Err(layer.key_err(
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
    Ok((Some(w.bits), Some(w.shift)))
}

/// Input passes and processors per pass for `in_ch` channels (spec §2.6, §2.8 channels,
/// §3.2 `processors`, §3.3 item 2): at most the device's passes; the `processors` map must
/// have exactly the processors one pass needs (fewer is
/// [`ErrorKind::ProcessorShortfall`], which [`super::Network::plan`] may read as
/// `--max-proc`), and no processor beyond the device's.
fn input_passes(layer: Layer, in_ch: usize, dev: &Device) -> Result<(usize, usize)> {
    let l = layer.desc;
    let in_passes = dev.passes(in_ch);
    if in_passes.0 > dev.max_passes {
        return Err(layer.err(format!(
            "input expansion of {} passes exceeds the device limit of {}",
            in_passes.0, dev.max_passes
        )));
    }
    let have = popcount(l.processors);
    if have != in_passes.1 {
        let kind = if have < in_passes.1 && l.processors != 0 {
            ErrorKind::ProcessorShortfall { have }
        } else {
            ErrorKind::Other
        };
        let hint = if have < in_passes.1 && have > 0 {
            format!(
                " (to spread the channels over passes of {have} processors, use --max-proc {have})"
            )
        } else {
            String::new()
        };
        return Err(CnnError {
            kind,
            ..layer.key_err(
                "processors",
                format!(
                    "{in_ch} input channels using {} pass(es) and {} operand(s) need {} processors per pass, but the map 0x{:016x} has {have} bits{hint}",
                    in_passes.0, l.operands, in_passes.1, l.processors
                ),
            )
        });
    }
    if l.processors >> dev.max_proc.min(63) > 0 && dev.max_proc < 64 {
        return Err(layer.key_err(
            "processors",
            format!("the device has only {} processors", dev.max_proc),
        ));
    }
    Ok(in_passes)
}

/// Output passes and processors per pass for `out_ch` channels (spec §2.6, §2.11): the output
/// map `out_map` must have exactly the processors one pass needs. The error names `map_key`
/// (`output_map` when the global key set the final layer's map, else `output_processors`).
fn output_passes(
    layer: Layer,
    out_ch: usize,
    out_map: u64,
    map_key: &str,
    is_final: bool,
    dev: &Device,
) -> Result<(usize, usize)> {
    let out_passes = dev.passes(out_ch);
    if popcount(out_map) != out_passes.1 {
        return Err(layer.key_err(
            map_key,
            format!(
                "{out_ch} output channels using {} pass(es) need {} processors per pass, but the output map 0x{out_map:016x} has {} bits{}",
                out_passes.0,
                out_passes.1,
                popcount(out_map),
                if layer.desc.output_processors.is_none() && !is_final {
                    " (by default a layer writes to the next layer's `processors`)"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(out_passes)
}

/// Checks a CHW first layer (spec §2.5, §3.2 `processors`, §3.3 item 2): its processors must
/// sit in different data-memory instances (one per group of 4), key `processors`.
fn check_chw_processors(layer: Layer) -> Result<()> {
    let l = layer.desc;
    if layer.index != 0 || l.data_format != DataFormat::Chw {
        return Ok(());
    }
    let mut seen = 0u64;
    for p in 0..64 {
        if l.processors >> p & 1 == 1 {
            let inst = 1u64 << (p / 4);
            if seen & inst != 0 {
                return Err(layer.key_err(
                    "processors",
                    "CHW input format, but several channels share one memory instance; use one processor per group of 4 (e.g. 0x0000000100010001)",
                ));
            }
            seen |= inst;
        }
    }
    Ok(())
}

/// Checks `streaming` (spec §2.10, §2.8 streaming layers and FIFOs, §3.3 item 13): every
/// layer that ran `before` a streaming layer must stream too, at most 8 layers stream, and a
/// streaming first layer reads the FIFOs, which carry at most 4 CHW or 16 HWC input channels
/// (`in_ch` times the operands).
fn check_streaming(net: &NetworkDesc, layer: Layer, before: &[usize], in_ch: usize) -> Result<()> {
    let l = layer.desc;
    if !l.streaming {
        return Ok(());
    }
    if let Some(&x) = before.iter().find(|&&x| !net.layers[x].streaming) {
        return Err(layer.key_err(
            "streaming",
            format!("streaming layers must follow streaming layers, but layer {x} does not stream"),
        ));
    }
    if before.len() >= 8 {
        return Err(layer.key_err(
            "streaming",
            "the device supports at most 8 streaming layers",
        ));
    }
    if before.is_empty() {
        let max = if l.data_format == DataFormat::Chw {
            4
        } else {
            16
        };
        if in_ch * l.operands > max {
            return Err(layer.key_err(
                "streaming",
                format!(
                    "a streaming first layer reads the FIFOs, which carry at most {max} {} input channels, not {}",
                    if max == 4 { "CHW" } else { "HWC" },
                    in_ch * l.operands
                ),
            ));
        }
    }
    Ok(())
}

/// Where the layer reads and how much (spec §2.3, §2.7, §3.2 `in_offset`, §3.3 item 14):
/// `in_offset`, else the previous layer's `out_offset` (`prev_out_offset`, 0 for the first
/// layer), and the input bytes per data-memory instance (CHW first layer: 4 pixels a word;
/// else a word per pixel, pass and operand). Unless streaming, the input must fit the
/// instance from that offset (key `in_offset`). Returns (offset, bytes).
fn input_memory(
    layer: Layer,
    prev_out_offset: Option<u32>,
    in_dim: [usize; 2],
    in_passes: (usize, usize),
    dev: &Device,
) -> Result<(u32, usize)> {
    let l = layer.desc;
    let in_offset = l.in_offset.unwrap_or(prev_out_offset.unwrap_or(0));
    let in_bytes = if layer.index == 0 && l.data_format == DataFormat::Chw {
        (in_dim[0] * in_dim[1] * in_passes.0).next_multiple_of(4)
    } else {
        4 * in_dim[0] * in_dim[1] * in_passes.0 * l.operands
    };
    // Streaming layers work on a rolling window (and a streaming first layer reads its input
    // from the FIFOs), so their whole frame need not fit.
    if !l.streaming && in_bytes + in_offset as usize > dev.instance_bytes {
        return Err(layer.key_err(
            "in_offset",
            format!(
                "the input ({in_bytes} bytes per memory instance) at offset 0x{in_offset:04x} exceeds the data memory instance size of {}",
                dev.instance_bytes
            ),
        ));
    }
    Ok((in_offset, in_bytes))
}

/// The output bytes per data-memory instance (spec §2.3, §2.7, §2.11, §3.2 `out_offset`,
/// §3.3 item 14): a word per pixel and pass (four for 32-bit output). Unless streaming, the
/// output must fit the instance from `out_offset`, and `out_offset` must lie within the data
/// memory (key `out_offset`).
fn output_memory(
    layer: Layer,
    out_dim: [usize; 2],
    out_passes: (usize, usize),
    dev: &Device,
) -> Result<usize> {
    let l = layer.desc;
    let out_bytes = out_dim[0] * out_dim[1] * out_passes.0 * 4 * (l.output_width as usize / 8);
    if !l.streaming && out_bytes + l.out_offset as usize > dev.instance_bytes {
        return Err(layer.key_err(
            "out_offset",
            format!(
                "the output ({out_bytes} bytes per memory instance) at offset 0x{:04x} exceeds the data memory instance size of {}",
                l.out_offset, dev.instance_bytes
            ),
        ));
    }
    if l.out_offset as usize >= 4 * dev.instance_bytes {
        return Err(layer.key_err(
            "out_offset",
            format!(
                "0x{:x} is outside 0 to 0x{:x}",
                l.out_offset,
                4 * dev.instance_bytes
            ),
        ));
    }
    Ok(out_bytes)
}

/// The data-memory instances (bit k: instance k) that the processors of `map` use, `per`
/// processors to an instance.
pub(crate) fn instances(map: u64, per: usize) -> u64 {
    (0..64)
        .filter(|p| map >> p & 1 == 1)
        .fold(0, |m, p| m | 1 << (p / per))
}

/// The layer's output must not overlap its own input in a data-memory instance both use
/// (spec §2.7, item 17: the output would overwrite input not yet read), unless the device
/// allows it (ai8x `--overlap-data`) or the layer streams. Key `out_offset`. As izer's
/// check (`unload.py`, `check_overwrite`), any output word on an input word is refused,
/// whether or not that input was already read.
fn check_overlap(
    layer: Layer,
    (in_offset, in_bytes): (u32, usize),
    (out_map, out_bytes): (u64, usize),
    dev: &Device,
) -> Result<()> {
    let l = layer.desc;
    if dev.overlap_data || l.streaming {
        return Ok(());
    }
    let per = dev.procs_per_instance;
    let shared = instances(l.processors, per) & instances(out_map, per);
    let (i0, i1) = (in_offset as usize, in_offset as usize + in_bytes);
    let (o0, o1) = (l.out_offset as usize, l.out_offset as usize + out_bytes);
    if shared == 0 || o1 <= i0 || i1 <= o0 {
        return Ok(());
    }
    Err(layer.key_err(
        "out_offset",
        format!(
            "the output (0x{o0:04x} to 0x{o1:04x}) overlaps the layer's own input (0x{i0:04x} to 0x{i1:04x}) in data memory instance {}, and would overwrite words of that input; move it (ai8x's ping-pong: 0 and 0x2000 in turn), or allow it with --overlap-data",
            shared.trailing_zeros()
        ),
    ))
}

/// Multiply-accumulates and weight and bias memory of a layer (see [`weight_use`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct WeightUse {
    /// Multiply-accumulates per inference.
    macs: u64,
    /// 72-bit kernel words per processor in the engine's allocation (docs/cnn-engine-rtl.md).
    kernel_words: usize,
    /// Bias bytes.
    bias_bytes: usize,
}

/// Kernel chunks per input channel of a flattening layer over `pooled` pixels: nine
/// flattened inputs per kernel (docs/cnn-engine-rtl.md).
pub fn flatten_chunks(pooled: [usize; 2]) -> usize {
    (pooled[0] * pooled[1]).div_ceil(9)
}

/// The engine's kernel packing (spec §2.2, D-CNN-RTL): `kernels` kernels of `taps` weights of
/// `bits` bits each in one processor, a kernel never straddling two 72-bit words. Returns
/// kernels per word and words.
pub fn kernel_packing(taps: usize, bits: usize, kernels: usize) -> (usize, usize) {
    let per_word = (72 / (taps * bits)).max(1);
    (per_word, kernels.div_ceil(per_word))
}

/// What a layer's weights `w` cost (spec §2.2; zero without weights): its MACs (every
/// output value takes `in_ch * kh * kw` products); its 72-bit kernel words per processor in
/// the engine's allocation ([`kernel_packing`] of one kernel per output channel, input pass
/// and flatten chunk; docs/cnn-engine-rtl.md); and its bias bytes. Never fails.
fn weight_use(
    l: &LayerDesc,
    w: Option<&LayerWeights>,
    pooled: [usize; 2],
    out_dim: [usize; 2],
    out_ch: usize,
    in_passes: (usize, usize),
) -> WeightUse {
    let Some(w) = w else {
        return WeightUse::default();
    };
    let k = &w.kernels;
    let per_out = (k.in_ch * k.kh * k.kw) as u64;
    let pixels = (out_dim[0] * out_dim[1]) as u64;
    let (taps, chunks) = if l.flatten {
        (9, flatten_chunks(pooled))
    } else {
        (k.kh * k.kw, 1)
    };
    let (_, words) = kernel_packing(taps, w.bits as usize, out_ch * in_passes.0 * chunks);
    WeightUse {
        macs: k.out_ch as u64 * per_out * pixels,
        kernel_words: words,
        bias_bytes: w.bias.as_ref().map_or(0, |b| b.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cnn::ops::Kernels;
    use std::fmt::Debug;

    /// A network from its layers, each given as `key: value` items separated by `; `.
    fn net(layers: &[&str]) -> NetworkDesc {
        let mut text = String::from("arch: test\ndataset: x\nlayers:\n");
        for l in layers {
            for (k, item) in l.split("; ").enumerate() {
                text.push_str(if k == 0 { "  - " } else { "    " });
                text.push_str(item);
                text.push('\n');
            }
        }
        NetworkDesc::parse(&text, "t.yaml", &Device::max78000()).unwrap()
    }

    /// Zero 8-bit weights of `out_ch` x `in_ch` kernels of `kh` x `kw`, without bias.
    fn lw(out_ch: usize, in_ch: usize, kh: usize, kw: usize) -> LayerWeights {
        LayerWeights {
            kernels: Kernels {
                out_ch,
                in_ch,
                kh,
                kw,
                w: vec![0; out_ch * in_ch * kh * kw],
            },
            bias: None,
            bits: 8,
            shift: 0,
            source: "test".into(),
        }
    }

    fn weights(layers: Vec<Option<LayerWeights>>) -> NetworkWeights {
        NetworkWeights { layers, arch: None }
    }

    /// Asserts that `r` is an error about `layer` (index and line), with `key`, whose message
    /// contains `text`; returns it.
    #[track_caller]
    fn expect_err<T: Debug>(r: Result<T>, layer: Layer, key: Option<&str>, text: &str) -> CnnError {
        let e = r.unwrap_err();
        assert_eq!(e.layer, Some(layer.index), "{e}");
        assert_eq!(e.line, Some(layer.desc.line), "{e}");
        assert_eq!(e.key.as_deref(), key, "{e}");
        assert!(e.message.contains(text), "`{text}` not in: {e}");
        e
    }

    /// Conv2d 1x1 (3 -> 16), a passthrough, and a 1x1 layer on both their outputs (32 -> 10).
    fn three_layers() -> (NetworkDesc, NetworkWeights) {
        let n = net(&[
            "processors: 0x7; kernel_size: 1x1; pad: 0",
            "processors: 0xffff; op: passthrough",
            "processors: 0xffffffff; in_sequences: [0, 1]; kernel_size: 1x1; pad: 0",
        ]);
        let w = weights(vec![Some(lw(16, 3, 1, 1)), None, Some(lw(10, 32, 1, 1))]);
        (n, w)
    }

    #[test]
    fn stop_after_must_name_a_layer() {
        let (n, _) = three_layers();
        assert!(check_stop_after(&n, None).is_ok());
        assert!(check_stop_after(&n, Some(2)).is_ok());
        let e = check_stop_after(&n, Some(3)).unwrap_err();
        assert_eq!(e.message, "--stop-after 3: the network has layers 0 to 2");
        assert_eq!((e.layer, e.key), (None, None));
    }

    #[test]
    fn order_channels_and_output_maps() {
        let (n, w) = three_layers();
        let dev = Device::max78000();
        let seq = order_and_channels(&n, &w, [3, 8, 8], &dev, None).unwrap();
        assert_eq!(
            seq,
            Sequence {
                order: vec![0, 1, 2],
                final_layer: 2,
                c_in: vec![3, 16, 32],
                c_out: vec![16, 16, 10],
                out_map: vec![Some(0xffff), Some(0xffff_ffff), Some(0x3ff)],
            }
        );
        // Stopping early: the stop layer keeps the next layer's processors as its output map.
        let seq = order_and_channels(&n, &w, [3, 8, 8], &dev, Some(0)).unwrap();
        assert_eq!((seq.order, seq.final_layer), (vec![0], 0));
        assert_eq!(seq.out_map[0], Some(0xffff));
        // The global `output_map` and the channel overrides win.
        let mut n = n;
        n.output_map = Some(0xffc00);
        n.layers[1].out_channels = Some(20);
        n.layers[2].in_channels = Some(36);
        let seq = order_and_channels(&n, &w, [3, 8, 8], &dev, None).unwrap();
        assert_eq!(seq.c_in, vec![3, 16, 36]);
        assert_eq!(seq.c_out, vec![16, 20, 10]);
        assert_eq!(seq.out_map[2], Some(0xffc00));
        // A first element-wise layer splits the sample's channels among its operands.
        let n = net(&["processors: 0x3; op: add"]);
        let seq = order_and_channels(&n, &weights(vec![None]), [4, 2, 2], &dev, None).unwrap();
        assert_eq!((seq.c_in[0], seq.c_out[0]), (2, 2));
    }

    #[test]
    fn order_and_channels_errors() {
        let dev = Device::max78000();
        let n = net(&["processors: 0x7"]);
        let r = order_and_channels(&n, &weights(vec![None]), [3, 8, 8], &dev, None);
        expect_err(r, Layer::new(&n, 0), None, "the layer has no weights");

        let n = net(&[
            "processors: 0x1; op: passthrough; in_sequences: [1]",
            "processors: 0x1; op: passthrough",
        ]);
        let r = order_and_channels(&n, &weights(vec![None, None]), [1, 8, 8], &dev, None);
        let e = expect_err(r, Layer::new(&n, 0), Some("in_sequences"), "");
        assert_eq!(e.message, "layer 1 has not run before layer 0");

        let n = net(&[
            "processors: 0x7; kernel_size: 1x1; pad: 0",
            "processors: 0xffff; op: add; in_sequences: [-1, 0]",
        ]);
        let w = weights(vec![Some(lw(16, 3, 1, 1)), None]);
        let r = order_and_channels(&n, &w, [3, 8, 8], &dev, None);
        let e = expect_err(r, Layer::new(&n, 1), Some("in_sequences"), "");
        assert_eq!(
            e.message,
            "the element-wise inputs [-1, 0] have non-matching channel counts"
        );
    }

    #[test]
    fn the_final_output_map_defaults_to_processors_from_0() {
        let dev = Device::max78000();
        assert_eq!(final_output_map(None, None, 10, &dev), 0x3ff);
        assert_eq!(final_output_map(None, None, 64, &dev), u64::MAX);
        assert_eq!(final_output_map(None, None, 120, &dev), (1 << 60) - 1);
        assert_eq!(final_output_map(None, Some(0xf0), 4, &dev), 0xf0);
        assert_eq!(final_output_map(Some(0xf00), Some(0xf0), 4, &dev), 0xf00);
    }

    #[test]
    fn input_dimensions() {
        let (n, _) = three_layers();
        let input = [3, 8, 8];
        assert_eq!(
            input_dim(Layer::new(&n, 0), input, None, |_| [0, 0]),
            Ok([8, 8])
        );
        assert_eq!(
            input_dim(Layer::new(&n, 1), input, Some(0), |_| [4, 2]),
            Ok([4, 2])
        );
        assert_eq!(
            input_dim(Layer::new(&n, 2), input, Some(1), |_| [6, 6]),
            Ok([6, 6])
        );
        let mut m = n.clone();
        m.layers[2].in_dim = Some([36, 1]);
        assert_eq!(
            input_dim(Layer::new(&m, 2), input, Some(1), |_| [6, 6]),
            Ok([36, 1])
        );
        // Concatenating the sample (8x8) with a 4x4 output needs `in_dim`.
        m.layers[2].in_dim = None;
        m.layers[2].in_sequences = Some(vec![-1, 0]);
        let r = input_dim(Layer::new(&m, 2), input, Some(1), |_| [4, 4]);
        let e = expect_err(r, Layer::new(&m, 2), Some("in_sequences"), "");
        assert_eq!(
            e.message,
            "cannot concatenate outputs of different dimensions without `in_dim`: [[8, 8], [4, 4]]"
        );
    }

    #[test]
    fn input_dimension_limits() {
        let dev = Device::max78000();
        let n = net(&["processors: 0x1; op: conv1d; kernel_size: 3"]);
        let l = Layer::new(&n, 0);
        assert!(check_input_dim(l, [16, 1], &dev).is_ok());
        let e = expect_err(check_input_dim(l, [4, 4], &dev), l, Some("in_dim"), "");
        assert_eq!(
            e.message,
            "Conv1d needs 1-D input, but the input is 4x4; re-view it with `in_dim: [16, 1]`"
        );
        let n = net(&["processors: 0x1"]);
        let l = Layer::new(&n, 0);
        assert!(check_input_dim(l, [1024, 1024], &dev).is_ok());
        let r = check_input_dim(l, [8, 1025], &dev);
        let e = expect_err(r, l, Some("in_dim"), "");
        assert_eq!(
            e.message,
            "input dimension 1025 exceeds the system maximum of 1024"
        );
    }

    #[test]
    fn pooled_sizes() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1; op: passthrough; max_pool: 2; pool_stride: 2",
            "processors: 0x1; op: passthrough; avg_pool: [2, 3]; pool_stride: 2",
            "processors: 0x1; op: conv1d; kernel_size: 3; max_pool: 2; pool_stride: 2",
            "processors: 0x1; op: passthrough",
        ]);
        assert_eq!(pooling(Layer::new(&n, 0), [8, 8], &dev), Ok([4, 4]));
        assert_eq!(pooling(Layer::new(&n, 1), [8, 9], &dev), Ok([4, 4]));
        // Conv1d data is 1-D: its pool stride is [2, 1].
        assert_eq!(pooling(Layer::new(&n, 2), [16, 1], &dev), Ok([8, 1]));
        assert_eq!(pooling(Layer::new(&n, 3), [5, 7], &dev), Ok([5, 7]));
    }

    #[test]
    fn pooling_errors() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1; op: passthrough; max_pool: 17",
            "processors: 0x1; op: passthrough; avg_pool: [2, 17]",
            "processors: 0x1; op: passthrough; max_pool: 2; pool_stride: 17",
            "processors: 0x1; op: passthrough; max_pool: 2; pool_stride: [1, 2]",
            "processors: 0x1; op: passthrough; max_pool: 4; pool_stride: 4",
        ]);
        let at = |i| Layer::new(&n, i);
        let e = expect_err(pooling(at(0), [32, 32], &dev), at(0), Some("max_pool"), "");
        assert_eq!(e.message, "pool size 17 exceeds the maximum of 16");
        expect_err(
            pooling(at(1), [32, 32], &dev),
            at(1),
            Some("avg_pool"),
            "pool size 17 exceeds the maximum of 16",
        );
        let e = expect_err(
            pooling(at(2), [32, 32], &dev),
            at(2),
            Some("pool_stride"),
            "",
        );
        assert_eq!(e.message, "pool stride 17 exceeds the maximum of 16");
        let e = expect_err(
            pooling(at(3), [32, 32], &dev),
            at(3),
            Some("pool_stride"),
            "",
        );
        assert_eq!(
            e.message,
            "passthrough does not support non-square pooling stride"
        );
        let e = expect_err(pooling(at(4), [2, 2], &dev), at(4), None, "");
        assert_eq!(
            e.message,
            "pooling results in a zero data dimension (input 2x2, result 0x0)"
        );
    }

    #[test]
    fn padding_rules() {
        let n = net(&[
            "processors: 0x1",
            "processors: 0x1; kernel_size: 1x1; pad: 0",
            "processors: 0x1; op: convtranspose2d; pad: 2",
            "processors: 0x1; op: passthrough",
            "processors: 0x1; op: passthrough; pad: 1",
            "processors: 0x1; op: linear; pad: 1",
            "processors: 0x1; pad: 3",
            "processors: 0x1; kernel_size: 1x1; pad: 1",
        ]);
        let at = |i| Layer::new(&n, i);
        for i in 0..4 {
            assert!(check_padding(at(i)).is_ok(), "layer {i}");
        }
        for i in [4, 5] {
            let e = expect_err(check_padding(at(i)), at(i), Some("pad"), "");
            assert_eq!(
                e.message,
                "padding can only be used with a convolution operation"
            );
        }
        let e = expect_err(check_padding(at(6)), at(6), Some("pad"), "");
        assert_eq!(e.message, "conv2d does not support `pad` >= 3 (found 3)");
        let e = expect_err(check_padding(at(7)), at(7), Some("pad"), "");
        assert_eq!(
            e.message,
            "pad size (1) is greater than or equal to the kernel size (1)"
        );
    }

    #[test]
    fn flattening() {
        let n = net(&[
            "processors: 0xfff; op: linear; flatten: true",
            "processors: 0xfff; op: linear",
            "processors: 0x1; op: conv1d; kernel_size: 1; pad: 0; flatten: true",
            "processors: 0x1; op: linear; flatten: true; max_pool: 2",
        ]);
        let at = |i| Layer::new(&n, i);
        // 12 channels of 4x4 pixels are 192 inputs.
        assert_eq!(flatten_channels(at(0), [4, 4], 192), Ok(12));
        assert_eq!(flatten_channels(at(1), [4, 4], 192), Ok(192));
        let r = flatten_channels(at(2), [4, 1], 4);
        let e = expect_err(r, at(2), Some("flatten"), "");
        assert_eq!(e.message, "`flatten` is not compatible with conv1d");
        let r = flatten_channels(at(3), [2, 2], 4);
        let e = expect_err(r, at(3), Some("flatten"), "");
        assert_eq!(e.message, "`flatten` is not compatible with pooling");
        let r = flatten_channels(at(0), [17, 16], 272);
        let e = expect_err(r, at(0), Some("flatten"), "");
        assert_eq!(
            e.message,
            "`flatten` exceeds the supported input dimensions (17x16 > 256)"
        );
        let e = expect_err(flatten_channels(at(0), [3, 3], 100), at(0), None, "");
        assert_eq!(
            e.message,
            "the weights have 100 inputs, which is not a multiple of the 3x3 flattened pixels"
        );
    }

    #[test]
    fn output_dimensions() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1",
            "processors: 0x1; pad: 0",
            "processors: 0x1; op: convtranspose2d",
            "processors: 0x1; op: conv1d; kernel_size: 3; pad: 0; dilation: 2",
            "processors: 0xfff; op: linear; flatten: true",
            "processors: 0x1; op: passthrough",
        ]);
        let at = |i| Layer::new(&n, i);
        assert_eq!(output_dim(at(0), [8, 8], &dev), Ok([8, 8]));
        assert_eq!(output_dim(at(1), [8, 6], &dev), Ok([6, 4]));
        assert_eq!(output_dim(at(2), [3, 3], &dev), Ok([6, 6]));
        // A kernel of 3 with dilation 2 spans 5.
        assert_eq!(output_dim(at(3), [16, 1], &dev), Ok([12, 1]));
        assert_eq!(output_dim(at(4), [4, 4], &dev), Ok([1, 1]));
        assert_eq!(output_dim(at(5), [5, 7], &dev), Ok([5, 7]));
        let e = expect_err(output_dim(at(1), [2, 2], &dev), at(1), None, "");
        assert_eq!(e.message, "the output dimension is zero");
        let e = expect_err(output_dim(at(2), [600, 600], &dev), at(2), None, "");
        assert_eq!(
            e.message,
            "output dimension 1200x1200 exceeds the system maximum of 1024"
        );
    }

    #[test]
    fn channel_limits() {
        let dev = Device::max78000();
        let n = net(&["processors: 0x1"]);
        let l = Layer::new(&n, 0);
        assert!(check_channels(l, 1, 1024, &dev).is_ok());
        let e = expect_err(check_channels(l, 0, 16, &dev), l, Some("in_channels"), "");
        assert_eq!(e.message, "0 channels; the device supports 1 to 1024");
        let e = expect_err(
            check_channels(l, 3, 1025, &dev),
            l,
            Some("out_channels"),
            "",
        );
        assert_eq!(e.message, "1025 channels; the device supports 1 to 1024");
    }

    #[test]
    fn passthrough_rules() {
        let n = net(&[
            "processors: 0x1; op: passthrough",
            "processors: 0x1; activate: ReLU; output_shift: 2",
            "processors: 0x1; op: add",
            "processors: 0x1; op: passthrough; activate: ReLU",
            "processors: 0x1; op: passthrough; output_shift: 1",
            "processors: 0x1; op: passthrough; output_width: 32",
            "processors: 0x1; op: xor; output_width: 32",
        ]);
        let at = |i| Layer::new(&n, i);
        for i in 0..3 {
            assert!(check_passthrough(at(i)).is_ok(), "layer {i}");
        }
        let e = expect_err(check_passthrough(at(3)), at(3), Some("activate"), "");
        assert_eq!(e.message, "pass-through layers must not use activation");
        let e = expect_err(check_passthrough(at(4)), at(4), Some("output_shift"), "");
        assert_eq!(
            e.message,
            "`output_shift` must be zero for passthrough layers"
        );
        for i in 5..7 {
            let e = expect_err(check_passthrough(at(i)), at(i), Some("output_width"), "");
            assert_eq!(
                e.message,
                "the passthrough operator requires an output width of 8"
            );
        }
    }

    #[test]
    fn wide_output_has_no_activation() {
        let n = net(&[
            "processors: 0x1; output_width: 32",
            "processors: 0x1; output_width: 32; activate: ReLU",
        ]);
        let at = |i| Layer::new(&n, i);
        assert!(check_output_width(at(0), true).is_ok());
        // Only the final layer is checked.
        assert!(check_output_width(at(1), false).is_ok());
        let e = expect_err(
            check_output_width(at(1), true),
            at(1),
            Some("output_width"),
            "",
        );
        assert_eq!(
            e.message,
            "`output_width` must be 8 when activation is used"
        );
    }

    #[test]
    fn element_wise_rules() {
        let n = net(&[
            "processors: 0x1; op: add; max_pool: 2; pool_first: false",
            "processors: 0x1; eltwise: add; operands: 3",
            "processors: 0x1; op: conv1d; kernel_size: 3; eltwise: add",
            "processors: 0x1; op: add; operands: 3; max_pool: 2; pool_first: false",
        ]);
        let at = |i| Layer::new(&n, i);
        assert!(check_eltwise(at(0)).is_ok());
        assert!(check_eltwise(at(1)).is_ok());
        let e = expect_err(check_eltwise(at(2)), at(2), Some("eltwise"), "");
        assert_eq!(
            e.message,
            "element-wise operations cannot be combined with Conv1d"
        );
        expect_err(
            check_eltwise(at(3)),
            at(3),
            Some("operands"),
            "\"pool last\" (`pool_first: false`) supports at most 2 element-wise operands",
        );
    }

    #[test]
    fn output_shift_range() {
        let n = net(&["processors: 0x1"]);
        let l = Layer::new(&n, 0);
        assert_eq!(output_shift(l, None), Ok((None, None)));
        let mut w = lw(1, 1, 3, 3);
        w.shift = -15;
        assert_eq!(output_shift(l, Some(&w)), Ok((Some(8), Some(-15))));
        // 4-bit weights: `output_shift` 12 plus the implicit 4 is 16.
        w.bits = 4;
        w.shift = 16;
        let e = expect_err(output_shift(l, Some(&w)), l, Some("output_shift"), "");
        assert_eq!(
            e.message,
            "4-bit weights support an output_shift range of [-19, +11]; the value is 12"
        );
    }

    #[test]
    fn input_passes_and_processors() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x0fffffffffffffff",
            "processors: 0xf",
            "processors: 0x10",
        ]);
        let at = |i| Layer::new(&n, i);
        // 120 channels: 2 passes of 60 processors.
        assert_eq!(input_passes(at(0), 120, &dev), Ok((2, 60)));
        assert_eq!(input_passes(at(1), 4, &dev), Ok((1, 4)));
        let e = expect_err(input_passes(at(0), 1025, &dev), at(0), None, "");
        assert_eq!(
            e.message,
            "input expansion of 17 passes exceeds the device limit of 16"
        );
        // Too few processors: the caller may read the map as `--max-proc`.
        let e = expect_err(input_passes(at(1), 8, &dev), at(1), Some("processors"), "");
        assert_eq!(e.kind, ErrorKind::ProcessorShortfall { have: 4 });
        assert_eq!(
            e.message,
            "8 input channels using 1 pass(es) and 1 operand(s) need 8 processors per pass, but the map 0x000000000000000f has 4 bits (to spread the channels over passes of 4 processors, use --max-proc 4)"
        );
        let e = expect_err(input_passes(at(1), 2, &dev), at(1), Some("processors"), "");
        assert_eq!(e.kind, ErrorKind::Other);
        assert!(e.message.ends_with("has 4 bits"), "{e}");
        let small = Device::with_max_proc(4);
        let e = expect_err(
            input_passes(at(2), 1, &small),
            at(2),
            Some("processors"),
            "",
        );
        assert_eq!(e.message, "the device has only 4 processors");
    }

    #[test]
    fn output_passes_and_maps() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1",
            "processors: 0x1; output_processors: 0xff",
        ]);
        let at = |i| Layer::new(&n, i);
        assert_eq!(
            output_passes(at(0), 10, 0x3ff, "output_processors", false, &dev),
            Ok((1, 10))
        );
        assert_eq!(
            output_passes(at(0), 128, u64::MAX, "output_processors", false, &dev),
            Ok((2, 64))
        );
        let r = output_passes(at(0), 10, 0xff, "output_processors", false, &dev);
        let e = expect_err(r, at(0), Some("output_processors"), "");
        assert_eq!(
            e.message,
            "10 output channels using 1 pass(es) need 10 processors per pass, but the output map 0x00000000000000ff has 8 bits (by default a layer writes to the next layer's `processors`)"
        );
        let r = output_passes(at(1), 10, 0xff, "output_map", true, &dev);
        let e = expect_err(r, at(1), Some("output_map"), "");
        assert!(e.message.ends_with("has 8 bits"), "{e}");
    }

    #[test]
    fn chw_input_uses_one_processor_per_memory_instance() {
        for (map, ok) in [
            ("0x0000000100010001", true),
            ("0x111", true),
            ("0x3", false),
        ] {
            let n = net(&[&format!("processors: {map}; data_format: CHW")]);
            let l = Layer::new(&n, 0);
            if ok {
                assert!(check_chw_processors(l).is_ok(), "{map}");
            } else {
                expect_err(
                    check_chw_processors(l),
                    l,
                    Some("processors"),
                    "CHW input format, but several channels share one memory instance",
                );
            }
        }
        // HWC input may share instances.
        let n = net(&["processors: 0x3"]);
        assert!(check_chw_processors(Layer::new(&n, 0)).is_ok());
    }

    #[test]
    fn streaming_rules() {
        let stream = "processors: 0x1; op: passthrough; streaming: true";
        let n = net(&[stream; 9]);
        let at = |i| Layer::new(&n, i);
        let order: Vec<usize> = (0..9).collect();
        for i in 0..8 {
            assert!(
                check_streaming(&n, at(i), &order[..i], 1).is_ok(),
                "layer {i}"
            );
        }
        let e = expect_err(
            check_streaming(&n, at(8), &order[..8], 1),
            at(8),
            Some("streaming"),
            "",
        );
        assert_eq!(e.message, "the device supports at most 8 streaming layers");
        // FIFOs: 16 HWC channels (operands count), 4 CHW channels.
        assert!(check_streaming(&n, at(0), &[], 16).is_ok());
        let e = expect_err(
            check_streaming(&n, at(0), &[], 17),
            at(0),
            Some("streaming"),
            "",
        );
        assert_eq!(
            e.message,
            "a streaming first layer reads the FIFOs, which carry at most 16 HWC input channels, not 17"
        );
        let n = net(&[
            "processors: 0x1111; data_format: CHW; streaming: true",
            "processors: 0x1; op: passthrough",
            stream,
        ]);
        let at = |i| Layer::new(&n, i);
        expect_err(
            check_streaming(&n, at(0), &[], 5),
            at(0),
            Some("streaming"),
            "carry at most 4 CHW input channels, not 5",
        );
        // A layer that does not stream is not checked; one after it may not stream.
        assert!(check_streaming(&n, at(1), &[0], 1).is_ok());
        let e = expect_err(
            check_streaming(&n, at(2), &[0, 1], 1),
            at(2),
            Some("streaming"),
            "",
        );
        assert_eq!(
            e.message,
            "streaming layers must follow streaming layers, but layer 1 does not stream"
        );
    }

    #[test]
    fn an_output_covering_its_own_input_is_refused_unless_allowed() {
        let n = net(&[
            "processors: 0xf; out_offset: 0x0100",
            "processors: 0xf0; out_offset: 0x0100",
            "processors: 0xf; streaming: true",
        ]);
        let at = |i| Layer::new(&n, i);
        let dev = Device::max78000();
        // Input 0x0000-0x0200 and output 0x0100-0x0300 in instance 0: refused, both ranges
        // and the instance named.
        let r = check_overlap(at(0), (0, 0x200), (0xf, 0x200), &dev);
        let e = expect_err(r, at(0), Some("out_offset"), "");
        assert!(
            e.message.starts_with(
                "the output (0x0100 to 0x0300) overlaps the layer's own input (0x0000 to 0x0200) in data memory instance 0"
            ) && e.message.contains("--overlap-data"),
            "{}",
            e.message
        );
        // Touching is not overlapping; another instance is not the same memory; the flag
        // and streaming turn the check off.
        assert_eq!(check_overlap(at(0), (0, 0x100), (0xf, 0x200), &dev), Ok(()));
        assert_eq!(
            check_overlap(at(0), (0, 0x200), (0xf0, 0x200), &dev),
            Ok(())
        );
        assert_eq!(
            check_overlap(at(1), (0, 0x200), (0xf00, 0x200), &dev),
            Ok(())
        );
        let free = Device {
            overlap_data: true,
            ..Device::max78000()
        };
        assert_eq!(
            check_overlap(at(0), (0, 0x200), (0xf, 0x200), &free),
            Ok(())
        );
        assert_eq!(check_overlap(at(2), (0, 0x200), (0xf, 0x200), &dev), Ok(()));
    }

    #[test]
    fn input_memory_use() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1",
            "processors: 0x1; op: add; in_offset: 0x1000",
            "processors: 0x1; streaming: true",
        ]);
        let at = |i| Layer::new(&n, i);
        // HWC: a word per pixel (and pass, and operand).
        assert_eq!(
            input_memory(at(0), None, [8, 8], (1, 3), &dev),
            Ok((0, 256))
        );
        assert_eq!(
            input_memory(at(0), Some(0x4000), [8, 8], (2, 64), &dev),
            Ok((0x4000, 512))
        );
        assert_eq!(
            input_memory(at(1), Some(0x4000), [8, 8], (1, 1), &dev),
            Ok((0x1000, 512))
        );
        // CHW: four pixels a word.
        let chw = net(&["processors: 0x1; data_format: CHW"]);
        let l = Layer::new(&chw, 0);
        assert_eq!(input_memory(l, None, [28, 28], (1, 1), &dev), Ok((0, 784)));
        assert_eq!(
            input_memory(l, None, [181, 181], (1, 1), &dev),
            Ok((0, 32764))
        );
        // 91x91 HWC pixels do not fit 32 KiB; streaming layers need not hold the frame.
        let r = input_memory(at(0), None, [91, 91], (1, 1), &dev);
        let e = expect_err(r, at(0), Some("in_offset"), "");
        assert_eq!(
            e.message,
            "the input (33124 bytes per memory instance) at offset 0x0000 exceeds the data memory instance size of 32768"
        );
        assert_eq!(
            input_memory(at(2), None, [91, 91], (1, 1), &dev),
            Ok((0, 33124))
        );
    }

    #[test]
    fn output_memory_use() {
        let dev = Device::max78000();
        let n = net(&[
            "processors: 0x1; out_offset: 0x7f00",
            "processors: 0x1; output_width: 32",
            "processors: 0x1; out_offset: 0x7f04",
            "processors: 0x1; out_offset: 0x20000; streaming: true",
        ]);
        let at = |i| Layer::new(&n, i);
        assert_eq!(output_memory(at(0), [8, 8], (1, 16), &dev), Ok(256));
        // 32-bit output: a word per channel.
        assert_eq!(output_memory(at(1), [8, 8], (2, 64), &dev), Ok(2048));
        let e = expect_err(
            output_memory(at(2), [8, 8], (1, 16), &dev),
            at(2),
            Some("out_offset"),
            "",
        );
        assert_eq!(
            e.message,
            "the output (256 bytes per memory instance) at offset 0x7f04 exceeds the data memory instance size of 32768"
        );
        let e = expect_err(
            output_memory(at(3), [8, 8], (1, 16), &dev),
            at(3),
            Some("out_offset"),
            "",
        );
        assert_eq!(e.message, "0x20000 is outside 0 to 0x20000");
    }

    #[test]
    fn weight_memory_estimate() {
        let n = net(&[
            "processors: 0x7",
            "processors: 0x7; kernel_size: 1x1; pad: 0",
            "processors: 0xfff; op: linear; flatten: true",
        ]);
        let mut w = lw(16, 3, 3, 3);
        w.bias = Some(vec![0; 16]);
        // 3x3 8-bit kernels fill a 72-bit word each.
        let u = weight_use(&n.layers[0], Some(&w), [8, 8], [8, 8], 16, (1, 3));
        assert_eq!(
            u,
            WeightUse {
                macs: 16 * 27 * 64,
                kernel_words: 16,
                bias_bytes: 16,
            }
        );
        // Nine 1x1 8-bit kernels share a word; 1-bit 3x3 kernels, eight.
        let u = weight_use(
            &n.layers[1],
            Some(&lw(16, 3, 1, 1)),
            [8, 8],
            [8, 8],
            16,
            (1, 3),
        );
        assert_eq!((u.macs, u.kernel_words, u.bias_bytes), (16 * 3 * 64, 2, 0));
        w.bits = 1;
        let u = weight_use(&n.layers[0], Some(&w), [8, 8], [8, 8], 16, (1, 3));
        assert_eq!(u.kernel_words, 2);
        // Flattening 12 channels of 4x4: two chunks of nine inputs, 20 kernels per processor.
        let u = weight_use(
            &n.layers[2],
            Some(&lw(10, 192, 1, 1)),
            [4, 4],
            [1, 1],
            10,
            (1, 12),
        );
        assert_eq!((u.macs, u.kernel_words), (1920, 20));
        let u = weight_use(&n.layers[0], None, [8, 8], [8, 8], 16, (1, 16));
        assert_eq!(u, WeightUse::default());
    }

    #[test]
    fn resolve_drives_the_phases() {
        let n = net(&[
            "processors: 0x7; out_offset: 0x2000",
            "processors: 0xffff; op: passthrough; max_pool: 2; pool_stride: 2; out_offset: 0x4000",
        ]);
        let w = weights(vec![Some(lw(16, 3, 3, 3)), None]);
        let dev = Device::max78000();
        let plan = resolve(&n, &w, [3, 8, 8], &dev, None).unwrap();
        assert_eq!((plan.order.clone(), plan.final_layer), (vec![0, 1], 1));
        assert_eq!(
            plan.layer(0),
            &LayerPlan {
                index: 0,
                in_ch: 3,
                out_ch: 16,
                in_dim: [8, 8],
                pooled: [8, 8],
                out_dim: [8, 8],
                in_map: 0x7,
                out_map: 0xffff,
                in_passes: (1, 3),
                out_passes: (1, 16),
                bits: Some(8),
                shift: Some(0),
                in_offset: 0,
                one_d: false,
                checked: false,
                macs: 16 * 27 * 64,
                kernel_words: 16,
                bias_bytes: 0,
                in_bytes: 256,
                out_bytes: 256,
            }
        );
        let p = plan.layer(1);
        assert_eq!((p.in_dim, p.pooled, p.out_dim), ([8, 8], [4, 4], [4, 4]));
        assert_eq!((p.out_map, p.bits, p.checked), (0xffff, None, true));
        assert_eq!((p.in_offset, p.in_bytes, p.out_bytes), (0x2000, 256, 64));
        // Stopping after layer 0 makes it the checked final layer.
        let plan = resolve(&n, &w, [3, 8, 8], &dev, Some(0)).unwrap();
        assert_eq!(plan.layers[1], None);
        assert!(plan.layer(0).checked);

        // Errors keep the layer's line; the first broken rule is reported.
        let mut bad = n.clone();
        bad.layers[1].pad = [3, 3];
        bad.layers[1].activation = Activation::Relu;
        let e = resolve(&bad, &w, [3, 8, 8], &dev, None).unwrap_err();
        assert_eq!(
            (e.layer, e.key.as_deref(), e.line),
            (Some(1), Some("pad"), Some(6))
        );
        let w8 = weights(vec![Some(lw(16, 8, 3, 3)), None]);
        let e = resolve(&n, &w8, [8, 8, 8], &dev, None).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ProcessorShortfall { have: 3 });
        assert_eq!((e.layer, e.line), (Some(0), Some(4)));
        let e = resolve(&n, &w, [3, 8, 8], &dev, Some(2)).unwrap_err();
        assert_eq!(e.layer, None);
    }
}

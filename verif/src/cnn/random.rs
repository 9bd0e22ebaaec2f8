//! Constrained-random networks for the CNN engine (`edgelearn cnn random`, docs/decisions.md
//! D-CNN-RANDOM): valid ai8x networks (YAML, weights as an `.npz` state dict the loader
//! reads, an input sample) inside an engine's limits, chosen to fill the functional-coverage
//! cross of operator x kernel x padding x pooling x weight bits x input format x flatten x
//! output width x processors, and shrunk to a minimal case when one diverges.
//!
//! A network is a [`NetSpec`]: the choices, from which the files follow deterministically.
//! Validity is not re-derived here: a candidate is kept only when the kit itself reads it
//! back (description, weights, input), runs it on the golden model and builds its engine
//! image for the target shape ([`Candidate::check`]); anything else is drawn again.

use super::error::{CnnError, Result};
use super::{engine, weights, Device, Inference, Network, RunOptions, Tensor};
use crate::formats::npy;
use edgelearn_hdl::cnn::EngineShape;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A layer's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RandOp {
    /// `conv2d`, square kernel `k` (1 or 3), padding `pad`.
    Conv2d {
        /// Kernel size.
        k: usize,
        /// Padding.
        pad: usize,
    },
    /// `conv1d`, kernel `k` (1..=9), padding `pad`.
    Conv1d {
        /// Kernel length.
        k: usize,
        /// Padding.
        pad: usize,
    },
    /// `convtranspose2d`: 3x3 kernel, stride 2, output padding 1 (the hardware's), padding
    /// `pad`: `2H + 2 - 2 pad` rows out of `H`.
    ConvTranspose2d {
        /// Padding.
        pad: usize,
    },
    /// `passthrough` (no weights; channels unchanged).
    Passthrough,
    /// `mlp` (`flatten: true` when its input is not 1 x 1).
    Linear,
}

/// An element-wise operation of the first layer's operands (ai8x `eltwise`, `operands`):
/// the input sample holds `operands` groups of the layer's input channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandElt {
    /// `add`, `sub`, `xor` or `or`.
    pub op: &'static str,
    /// Operands (2..=4).
    pub operands: usize,
}

/// The element-wise operations drawn.
pub const ELTWISE_OPS: [&str; 4] = ["add", "sub", "xor", "or"];

/// A layer's part in a residual block (spec §2.11's pattern), three layers in a row after
/// the layer that writes the block's input X: `Skip` passes X through, writing every other
/// word at 0x4000; `Branch` convolves X (same channels and size), writing the words between
/// (0x4004); `Sum` adds, subtracts, xors or ors the two (`in_sequences` of both, two
/// operands), reading them interleaved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Res {
    /// The passthrough of X.
    Skip,
    /// The convolution of X.
    Branch,
    /// The element-wise layer of the two.
    Sum,
}

/// Streaming layers at most: the engine's sequencer keeps a cycle account per streaming layer.
const MAX_STREAM: usize = edgelearn_hdl::cnn::engine::layer_seq::MAX_STREAM_LAYERS;

/// Byte offset of a residual block's interleaved operands.
const RES_OFFSET: u32 = 0x4000;

/// Byte offset of the first streaming layer's rolling buffer (the next ones 0x100 apart).
const STREAM_OFFSET: u32 = 0x1000;

/// Pooling before the operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RandPool {
    /// Average (else max) pooling.
    pub avg: bool,
    /// Pool size.
    pub size: usize,
    /// Pool stride.
    pub stride: usize,
}

/// One layer's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerSpec {
    /// Operator.
    pub op: RandOp,
    /// Output channels (the input's for passthrough).
    pub out_ch: usize,
    /// Pooling, if any.
    pub pool: Option<RandPool>,
    /// `activate`: 0 None, 1 ReLU, 2 Abs.
    pub act: u8,
    /// Weight bits (1, 2, 4, 8).
    pub bits: u32,
    /// Whether the layer has biases.
    pub bias: bool,
    /// Added to the layer's `output_shift`, which is otherwise chosen from its fan-in so
    /// that outputs mostly stay inside the 8-bit range ([`NetSpec::output_shift`]).
    pub shift: i32,
    /// First input processor.
    pub proc_start: usize,
    /// 32-bit output (the last layer only, without activation).
    pub wide: bool,
    /// An element-wise operation before the operator (the first layer, HWC input; or the
    /// `Sum` of a residual block).
    pub eltwise: Option<RandElt>,
    /// Its part in a residual block, if any.
    pub residual: Option<Res>,
}

/// A whole network's choices; the files follow from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetSpec {
    /// Seed of the weight and input values.
    pub values_seed: u64,
    /// Input data format of the first layer.
    pub hwc: bool,
    /// Input channels.
    pub in_ch: usize,
    /// Input rows (the length of 1-D data).
    pub h: usize,
    /// Input columns (1 for 1-D data).
    pub w: usize,
    /// 1-D data (`C x L`, `h` the length).
    pub one_d: bool,
    /// The layers.
    pub layers: Vec<LayerSpec>,
    /// The first this many layers stream (`streaming: true`; the input over the FIFOs).
    pub stream: usize,
}

const ACTIVATIONS: [&str; 3] = ["None", "ReLU", "Abs"];

impl NetSpec {
    /// Whether the input is 1-D (`C x L`: the network is made of `conv1d` layers and
    /// pass-throughs).
    pub fn one_d(&self) -> bool {
        self.one_d
    }

    /// The shape `[c, h, w]` into each layer and out of the last.
    pub fn shapes(&self) -> Vec<[usize; 3]> {
        let mut s = vec![[self.in_ch, self.h, self.w]];
        for l in &self.layers {
            let [c, mut h, mut w] = *s.last().unwrap();
            if let Some(p) = l.pool {
                h = (h.saturating_sub(p.size)) / p.stride + 1;
                if !self.one_d() {
                    w = (w.saturating_sub(p.size)) / p.stride + 1;
                }
            }
            let next = match l.op {
                RandOp::Conv2d { k, pad } => [
                    l.out_ch,
                    (h + 2 * pad + 1).saturating_sub(k),
                    (w + 2 * pad + 1).saturating_sub(k),
                ],
                RandOp::Conv1d { k, pad } => [l.out_ch, (h + 2 * pad + 1).saturating_sub(k), 1],
                RandOp::ConvTranspose2d { pad } => [
                    l.out_ch,
                    (2 * h + 2).saturating_sub(2 * pad),
                    (2 * w + 2).saturating_sub(2 * pad),
                ],
                RandOp::Passthrough => [c, h, w],
                RandOp::Linear => [l.out_ch, 1, 1],
            };
            s.push(next);
        }
        s
    }

    /// The network description (ai8x YAML).
    pub fn yaml(&self, name: &str) -> String {
        let shapes = self.shapes();
        let mut y = format!(
            "---\n# A constrained-random network (edgelearn cnn random): {name}\n\narch: random\ndataset: random\n\nlayers:\n"
        );
        for (i, l) in self.layers.iter().enumerate() {
            let [c, h, w] = shapes[i];
            let procs = processors(c, l.proc_start, i == 0 && !self.hwc);
            y += &format!("  - processors: 0x{procs:016x}\n");
            // Layers write at 0x2000 and 0 in turn (a layer's output never covers its
            // input); a residual block's operands interleave at 0x4000.
            let plain = |i: usize| if i.is_multiple_of(2) { 0x2000u32 } else { 0 };
            let out = match l.residual {
                Some(Res::Skip) => RES_OFFSET,
                Some(Res::Branch) => RES_OFFSET + 4,
                // A streaming layer but the last writes a small rolling buffer (64 words).
                _ if i + 1 < self.stream => STREAM_OFFSET + 0x100 * i as u32,
                _ => plain(i),
            };
            y += &format!("    out_offset: 0x{out:04x}\n");
            match l.residual {
                Some(Res::Skip) => y += "    write_gap: 1\n",
                Some(Res::Branch) => {
                    // X: the output of the layer before the block (or the input, at 0).
                    let (src, at) = match i.checked_sub(2) {
                        Some(j) => (j as isize, plain(j)),
                        None => (-1, 0),
                    };
                    y += &format!(
                        "    write_gap: 1\n    in_sequences: [{src}]\n    in_offset: 0x{at:04x}\n"
                    );
                }
                Some(Res::Sum) => {
                    y += &format!(
                        "    in_sequences: [{}, {}]\n    in_offset: 0x{RES_OFFSET:04x}\n",
                        i - 2,
                        i - 1
                    )
                }
                None => {}
            }
            match l.op {
                RandOp::Conv2d { k, pad } => {
                    y += &format!("    op: conv2d\n    kernel_size: {k}x{k}\n    pad: {pad}\n")
                }
                RandOp::Conv1d { k, pad } => {
                    y += &format!("    op: conv1d\n    kernel_size: {k}\n    pad: {pad}\n")
                }
                RandOp::ConvTranspose2d { pad } => {
                    y += &format!("    op: convtranspose2d\n    kernel_size: 3x3\n    pad: {pad}\n")
                }
                RandOp::Passthrough => y += "    op: passthrough\n",
                RandOp::Linear => {
                    y += "    op: mlp\n";
                    if h * w > 1 {
                        y += "    flatten: true\n";
                    }
                }
            }
            if let Some(p) = l.pool {
                let kind = if p.avg { "avg_pool" } else { "max_pool" };
                y += &format!("    {kind}: {}\n    pool_stride: {}\n", p.size, p.stride);
            }
            y += &format!("    activate: {}\n", ACTIVATIONS[l.act as usize]);
            if l.op != RandOp::Passthrough {
                y += &format!("    quantization: {}\n", l.bits);
            }
            if l.wide {
                y += "    output_width: 32\n";
            }
            if let Some(e) = l.eltwise {
                y += &format!("    eltwise: {}\n    operands: {}\n", e.op, e.operands);
            }
            if i < self.stream {
                y += "    streaming: true\n";
            }
            if i == 0 {
                y += &format!(
                    "    data_format: {}\n",
                    if self.hwc { "HWC" } else { "CHW" }
                );
            }
        }
        y
    }

    /// Channels of the input sample: the first layer's input channels times its operands.
    pub fn sample_channels(&self) -> usize {
        let operands = self
            .layers
            .first()
            .and_then(|l| l.eltwise)
            .map_or(1, |e| e.operands);
        self.in_ch * operands
    }

    /// The `output_shift` of layer `i`: about `-log2(0.8 sqrt(fan-in))`, so that a sum of
    /// `fan-in` random products lands mostly inside the 8-bit output range instead of
    /// saturating, plus the layer's `shift`.
    pub fn output_shift(&self, i: usize) -> i32 {
        let [c, h, w] = self.shapes()[i];
        let l = &self.layers[i];
        let fan_in = match l.op {
            RandOp::Conv2d { k, .. } => c * k * k,
            RandOp::Conv1d { k, .. } => c * k,
            // A quarter of the stuffed input's taps are pixels.
            RandOp::ConvTranspose2d { .. } => (c * 9).div_ceil(4),
            RandOp::Linear => c * h * w,
            RandOp::Passthrough => 1,
        };
        let base = -(0.8 * (fan_in as f64).sqrt()).log2().round().max(0.0) as i32;
        (base + l.shift).clamp(-15, 15)
    }

    /// The weights as a state dict (`layerNN.op.weight`, `.bias`, `layerNN.weight_bits`,
    /// `layerNN.output_shift`), PyTorch layouts, and the input sample, both from
    /// `values_seed`.
    pub fn files(&self) -> (Vec<u8>, Vec<u8>) {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.values_seed);
        let shapes = self.shapes();
        let mut members = Vec::new();
        for (i, l) in self.layers.iter().enumerate() {
            let [c, h, w] = shapes[i];
            let shape = match l.op {
                RandOp::Passthrough => continue,
                RandOp::Conv2d { k, .. } => vec![l.out_ch, c, k, k],
                RandOp::Conv1d { k, .. } => vec![l.out_ch, c, k],
                // PyTorch's ConvTranspose2d layout: (in, out, kh, kw).
                RandOp::ConvTranspose2d { .. } => vec![c, l.out_ch, 3, 3],
                RandOp::Linear => vec![l.out_ch, c * h * w],
            };
            let half = 1i64 << (l.bits - 1);
            let n: usize = shape.iter().product();
            let data: Vec<i64> = (0..n).map(|_| rng.random_range(-half..half)).collect();
            let p = format!("layer{i:02}");
            members.push((format!("{p}.op.weight"), npy::encode_npy_i64(&shape, &data)));
            if l.bias {
                let b: Vec<i64> = (0..l.out_ch)
                    .map(|_| rng.random_range(-128i64..128) * half)
                    .collect();
                members.push((format!("{p}.op.bias"), npy::encode_npy_i64(&[l.out_ch], &b)));
            }
            members.push((
                format!("{p}.weight_bits"),
                npy::encode_npy_i64(&[1], &[l.bits as i64]),
            ));
            let shift = self.output_shift(i) as i64;
            members.push((
                format!("{p}.output_shift"),
                npy::encode_npy_i64(&[1], &[shift]),
            ));
        }
        let [_, h, w] = shapes[0];
        let c = self.sample_channels();
        let data: Vec<i64> = (0..c * h * w)
            .map(|_| rng.random_range(-128i64..128))
            .collect();
        let input = match self.one_d() {
            true => npy::encode_npy_i64(&[c, h], &data),
            false => npy::encode_npy_i64(&[c, h, w], &data),
        };
        (npy::encode_npz(&members), input)
    }

    /// The cross-coverage bins of its layers (see [`Cross`]).
    pub fn bins(&self) -> Vec<String> {
        let shapes = self.shapes();
        self.layers
            .iter()
            .enumerate()
            .map(|(i, l)| layer_bin(l, i == 0, self.hwc, shapes[i]))
            .collect()
    }
}

/// The processors of a layer's `c` input channels from `start`: consecutive, or for CHW
/// input one per memory instance (every fourth processor: CHW channels may not share one).
pub fn processors(c: usize, start: usize, chw: bool) -> u64 {
    let step = if chw { 4 } else { 1 };
    (0..c).map(|j| 1u64 << (start + step * j)).sum()
}

/// The cross bin of one layer: operator, kernel, padding, pooling kind, size and stride,
/// element-wise operation, weight bits, input format (the network input's for the first
/// layer, `hidden` after it), flatten, output width, processors.
fn layer_bin(l: &LayerSpec, first: bool, hwc: bool, [c, h, w]: [usize; 3]) -> String {
    let (op, k, pad) = match l.op {
        RandOp::Conv2d { k, pad } => ("conv2d", k, pad),
        RandOp::Conv1d { k, pad } => ("conv1d", k, pad),
        RandOp::ConvTranspose2d { pad } => ("convtranspose2d", 3, pad),
        RandOp::Passthrough => ("passthrough", 0, 0),
        RandOp::Linear => ("linear", 0, 0),
    };
    let pool = match l.pool {
        None => "none pool_size=1 pool_stride=1".to_string(),
        Some(p) => format!(
            "{} pool_size={} pool_stride={}",
            if p.avg { "avg" } else { "max" },
            p.size,
            p.stride
        ),
    };
    let flatten = l.op == RandOp::Linear && h * w > 1;
    let procs = match c {
        1 => "1",
        2..=4 => "2-4",
        5..=8 => "5-8",
        _ => "9-16",
    };
    format!(
        "op={op} k={k} pad={pad} pool={pool} eltwise={} bits={} format={} flatten={} width={} procs={procs}",
        l.eltwise.map_or("none", |e| e.op),
        if l.op == RandOp::Passthrough { 8 } else { l.bits },
        match (first, hwc) {
            (false, _) => "hidden",
            (true, true) => "HWC",
            (true, false) => "CHW",
        },
        flatten as u8,
        if l.wide { 32 } else { 8 },
    )
}

/// The functional-coverage cross of the networks generated: how often each bin, and each
/// value of each dimension, was drawn.
#[derive(Clone, Debug, Default)]
pub struct Cross {
    /// Full cross bins.
    pub bins: BTreeMap<String, usize>,
    /// `dimension=value` marginals.
    pub values: BTreeMap<String, usize>,
}

/// Every value of every dimension the cross has, and whether the generator draws it; the
/// ones it does not are the engine's holes the report names.
pub const DIMENSIONS: &[(&str, &[&str])] = &[
    (
        "op",
        &[
            "conv2d",
            "conv1d",
            "passthrough",
            "linear",
            "convtranspose2d",
        ],
    ),
    ("k", &["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]),
    ("pad", &["0", "1", "2"]),
    ("pool", &["none", "max", "avg"]),
    ("pool_size", &["1", "2", "3"]),
    ("pool_stride", &["1", "2", "3"]),
    ("eltwise", &["none", "add", "sub", "xor", "or"]),
    ("bits", &["1", "2", "4", "8"]),
    ("format", &["HWC", "CHW", "hidden"]),
    ("flatten", &["0", "1"]),
    ("width", &["8", "32"]),
    ("procs", &["1", "2-4", "5-8", "9-16"]),
];

impl Cross {
    /// Count a network.
    pub fn add(&mut self, spec: &NetSpec) {
        for b in spec.bins() {
            for kv in b.split(' ') {
                *self.values.entry(kv.to_string()).or_default() += 1;
            }
            *self.bins.entry(b).or_default() += 1;
        }
    }

    /// How new a network would be: bins never seen, then marginal values never seen, then
    /// the rarest.
    fn novelty(&self, spec: &NetSpec) -> (usize, usize, std::cmp::Reverse<usize>) {
        let bins = spec.bins();
        let new_bins = bins.iter().filter(|b| !self.bins.contains_key(*b)).count();
        let mut new_values = 0;
        let mut rarest = usize::MAX;
        for b in &bins {
            for kv in b.split(' ') {
                let n = self.values.get(kv).copied().unwrap_or(0);
                new_values += (n == 0) as usize;
                rarest = rarest.min(n);
            }
        }
        (new_values, new_bins, std::cmp::Reverse(rarest))
    }

    /// `dimension=value` never drawn.
    pub fn holes(&self) -> Vec<String> {
        DIMENSIONS
            .iter()
            .flat_map(|(d, vs)| vs.iter().map(move |v| format!("{d}={v}")))
            .filter(|kv| !self.values.contains_key(kv))
            .collect()
    }
}

/// The generator's limits: an engine's processors, at most this many layers and this input.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Engine processors (channels per layer at most this, and 16).
    pub processors: usize,
    /// Layers at most.
    pub layers: usize,
    /// Input rows and columns at most.
    pub side: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            processors: 16,
            layers: 4,
            side: 12,
        }
    }
}

fn draw_layer(
    rng: &mut Xoshiro256PlusPlus,
    one_d: bool,
    in_ch: usize,
    first_chw: bool,
    last: bool,
    lim: &Limits,
) -> LayerSpec {
    let max_ch = lim.processors.min(16);
    let op = match (one_d, rng.random_range(0..10)) {
        (true, 0) => RandOp::Passthrough,
        (true, _) => {
            let k = rng.random_range(1..=9);
            RandOp::Conv1d {
                k,
                pad: rng.random_range(0..=(k - 1).min(2)),
            }
        }
        (false, 0) => RandOp::Passthrough,
        (false, 1) if last => RandOp::Linear,
        (false, _) => {
            let k = if rng.random_bool(0.3) { 1 } else { 3 };
            RandOp::Conv2d {
                k,
                pad: rng.random_range(0..=if k == 1 { 0 } else { 2 }),
            }
        }
    };
    let pool = (op != RandOp::Linear && rng.random_bool(0.4)).then(|| RandPool {
        avg: rng.random_bool(0.5),
        size: rng.random_range(1..=3),
        stride: rng.random_range(1..=3),
    });
    let out_ch = match op {
        RandOp::Passthrough => in_ch,
        _ => rng.random_range(1..=max_ch),
    };
    let wide = last && op != RandOp::Passthrough && rng.random_bool(0.3);
    LayerSpec {
        op,
        out_ch,
        pool,
        act: if wide || op == RandOp::Passthrough {
            0
        } else {
            rng.random_range(0..3)
        },
        bits: [1, 2, 4, 8][rng.random_range(0..4)],
        bias: rng.random_bool(0.5),
        shift: rng.random_range(-1..=1),
        proc_start: match first_chw {
            true => rng.random_range(0..=(max_ch - 1 - 4 * (in_ch - 1)).min(3)),
            false => rng.random_range(0..=max_ch - in_ch),
        },
        wide,
        eltwise: None,
        residual: None,
    }
}

/// Draw a network (not yet checked).
pub fn draw(seed: u64, lim: &Limits) -> NetSpec {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let one_d = rng.random_bool(0.25);
    let hwc = !one_d && rng.random_bool(0.5);
    // CHW input: one channel per memory instance (four processors each).
    let max_in = match hwc {
        true => lim.processors.min(16),
        false => (lim.processors.min(16) / 4).max(1),
    };
    let in_ch = rng.random_range(1..=max_in);
    let side = lim.side.max(3);
    let (h, w) = match one_d {
        true => (rng.random_range(3..=side * 2), 1),
        false => (rng.random_range(3..=side), rng.random_range(3..=side)),
    };
    let n = rng.random_range(1..=lim.layers.max(1));
    let mut layers = Vec::new();
    let mut ch = in_ch;
    for i in 0..n {
        let mut l = draw_layer(&mut rng, one_d, ch, i == 0 && !hwc, i + 1 == n, lim);
        if l.op == RandOp::Passthrough
            && i + 1 == n
            && layers
                .iter()
                .all(|l: &LayerSpec| l.op == RandOp::Passthrough)
        {
            // A network of pass-throughs has no weights to load: give it a 1 x 1 convolution.
            l.op = if one_d {
                RandOp::Conv1d { k: 1, pad: 0 }
            } else {
                RandOp::Conv2d { k: 1, pad: 0 }
            };
            l.bits = 8;
        }
        ch = l.out_ch;
        layers.push(l);
    }
    // 3x3 convolutions made transposed (upsampling), from a stream of their own as well.
    let mut up = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x0c07_7a05_0000_0002);
    for l in &mut layers {
        if let RandOp::Conv2d { k: 3, pad } = l.op {
            if up.random_bool(0.2) {
                l.op = RandOp::ConvTranspose2d { pad };
            }
        }
    }
    // An element-wise first layer on HWC input, from a stream of its own (the other choices
    // stay those of the seed without it): its operands fill at most the processors.
    let mut elt = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0xe1e7_a15e_0000_0001);
    let max_operands = (lim.processors.min(16) / in_ch).min(4);
    if hwc && max_operands >= 2 && layers[0].op != RandOp::Linear && elt.random_bool(0.3) {
        layers[0].eltwise = Some(RandElt {
            op: ELTWISE_OPS[elt.random_range(0..ELTWISE_OPS.len())],
            operands: elt.random_range(2..=max_operands),
        });
    }
    // A residual block after one of the layers, from a stream of its own too.
    let mut res = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7e51_d0a1_0000_0003);
    if !one_d && res.random_bool(0.25) {
        let at = res.random_range(1..=layers.len());
        let before: &LayerSpec = &layers[at - 1];
        if !before.wide {
            let c = before.out_ch;
            let k = if res.random_bool(0.5) { 3 } else { 1 };
            let start = res.random_range(0..=lim.processors.min(16) - c);
            let base = LayerSpec {
                op: RandOp::Passthrough,
                out_ch: c,
                pool: None,
                act: 0,
                bits: 8,
                bias: false,
                shift: 0,
                proc_start: start,
                wide: false,
                eltwise: None,
                residual: Some(Res::Skip),
            };
            let branch = LayerSpec {
                op: RandOp::Conv2d { k, pad: k / 2 },
                act: res.random_range(0..3),
                bits: [1, 2, 4, 8][res.random_range(0..4)],
                bias: res.random_bool(0.5),
                shift: res.random_range(-1..=1),
                residual: Some(Res::Branch),
                ..base
            };
            let sum = LayerSpec {
                eltwise: Some(RandElt {
                    op: ELTWISE_OPS[res.random_range(0..ELTWISE_OPS.len())],
                    operands: 2,
                }),
                residual: Some(Res::Sum),
                ..base
            };
            layers.splice(at..at, [base, branch, sum]);
        }
    }
    // The first layers streaming (the input over FIFO 0), from a stream of its own.
    let mut st = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5743_ea11_0000_0004);
    let mut stream = 0;
    let mut in_ch = in_ch;
    if hwc && layers[0].eltwise.is_none() && st.random_bool(0.4) {
        let can = layers
            .iter()
            .take_while(|l| streams(l))
            .count()
            .min(MAX_STREAM);
        if can > 0 {
            stream = st.random_range(1..=can);
            layers[0].proc_start = 0;
            // FIFO 0 carries four channels: a pass-through's channels follow.
            in_ch = in_ch.min(4);
            let mut c = in_ch;
            for l in layers.iter_mut() {
                if l.op == RandOp::Passthrough || l.residual == Some(Res::Branch) {
                    l.out_ch = c;
                }
                c = l.out_ch;
            }
        }
    }
    NetSpec {
        values_seed: rng.random(),
        one_d,
        hwc,
        in_ch,
        h,
        w,
        layers,
        stream,
    }
}

/// Whether a layer can stream on the engine: a 2-D convolution or a passthrough, 8-bit
/// output, no element-wise operands, not part of a residual block.
fn streams(l: &LayerSpec) -> bool {
    matches!(l.op, RandOp::Conv2d { .. } | RandOp::Passthrough)
        && l.residual.is_none()
        && !l.wide
        && l.eltwise.is_none()
}

/// A network written out and read back by the kit: its files, the network, its input and
/// the golden inference.
pub struct Candidate {
    /// The choices.
    pub spec: NetSpec,
    /// `network.yaml`.
    pub yaml: PathBuf,
    /// `weights.npz`.
    pub weights: PathBuf,
    /// `input.npy`.
    pub input: PathBuf,
    /// The network as loaded.
    pub net: Network,
    /// The input as loaded.
    pub tensor: Tensor,
    /// The golden inference.
    pub inf: Inference,
    /// The engine image for the shape it was checked against.
    pub image: engine::EngineImage,
}

impl Candidate {
    /// Write `spec` into `dir` and read it back as a user's files are read: an error when
    /// the kit refuses it (the description, the weights, the golden run or the engine's
    /// limits for `shape`).
    pub fn check(spec: &NetSpec, dir: &Path, name: &str, shape: &EngineShape) -> Result<Candidate> {
        let io = |p: &Path| {
            let p = p.display().to_string();
            move |e: std::io::Error| CnnError::new(format!("cannot write {p}: {e}"))
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let (yaml, weights_path, input) = (
            dir.join("network.yaml"),
            dir.join("weights.npz"),
            dir.join("input.npy"),
        );
        let (npz, sample) = spec.files();
        std::fs::write(&yaml, spec.yaml(name)).map_err(io(&yaml))?;
        std::fs::write(&weights_path, npz).map_err(io(&weights_path))?;
        std::fs::write(&input, sample).map_err(io(&input))?;
        let net = Network::load(&yaml, &weights_path, None, Device::max78000())?;
        let tensor = weights::load_input(&input)?;
        let opts = RunOptions::default();
        let inf = net.infer(&tensor, &opts, None)?;
        if let Some(why) = overwrites_streamed_input(&net, &inf.plan) {
            return Err(CnnError::new(why));
        }
        let image = engine::build(&net.desc, &net.weights, &inf.plan, &tensor, &opts, shape)?;
        Ok(Candidate {
            spec: spec.clone(),
            yaml,
            weights: weights_path,
            input,
            net,
            tensor,
            inf,
            image,
        })
    }
}

/// The first layer that reads a streaming layer's output and writes its own output over that
/// input in a data-memory instance both use. izer checks nothing against a streaming layer's
/// output and the kit accepts what izer accepts (`plan.rs`), and real networks rely on it
/// (ai8x's facedet-tinierssd writes behind its read position); but an output that outruns
/// the read (a 32-bit output four times its input's size, say) overwrites input the engine
/// has yet to read, and the golden model, which reads the input as it was, disagrees. Such
/// a network is the user's error, not the engine's, so the generator does not draw one
/// (docs/decisions.md D-CNN-RANDOM).
fn overwrites_streamed_input(net: &Network, plan: &super::plan::Plan) -> Option<String> {
    let per = net.device.procs_per_instance;
    let instances = |map: u64| super::plan::instances(map, per);
    let mut prev: Option<usize> = None;
    for &i in &plan.order {
        let Some(l) = plan.layers[i].as_ref() else {
            continue;
        };
        if prev.is_some_and(|p| net.desc.layers[p].streaming) {
            let (i0, i1) = (l.in_offset as usize, l.in_offset as usize + l.in_bytes);
            let o0 = net.desc.layers[i].out_offset as usize;
            let o1 = o0 + l.out_bytes;
            if instances(l.in_map) & instances(l.out_map) != 0 && o0 < i1 && i0 < o1 {
                return Some(format!(
                    "layer {i}: its output (0x{o0:04x} to 0x{o1:04x}) lands on its input (0x{i0:04x} to 0x{i1:04x}), the output of a streaming layer"
                ));
            }
        }
        prev = Some(i);
    }
    None
}

/// How many draws a network may take before the generator gives up on it.
pub const MAX_DRAWS: usize = 400;

/// Networks per choice: the generator draws this many valid candidates and keeps the one
/// that adds most to the cross.
pub const CHOICES: usize = 4;

/// Generate the `index`-th network of run `seed` into `dir`: up to [`CHOICES`] valid
/// candidates, the one newest to `cross` kept (and counted). The draws the kit refused are
/// returned with it.
pub fn generate(
    seed: u64,
    index: usize,
    dir: &Path,
    name: &str,
    shape: &EngineShape,
    lim: &Limits,
    cross: &mut Cross,
) -> Result<(Candidate, usize)> {
    let mut valid: Vec<NetSpec> = Vec::new();
    let mut refused = 0;
    let base = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (index as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let scratch = dir.join(".draw");
    for k in 0..MAX_DRAWS {
        if valid.len() == CHOICES {
            break;
        }
        let spec = draw(base.wrapping_add(k as u64), lim);
        match Candidate::check(&spec, &scratch, name, shape) {
            Ok(_) => valid.push(spec),
            Err(_) => refused += 1,
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let best = valid
        .into_iter()
        .max_by_key(|s| cross.novelty(s))
        .ok_or_else(|| {
            CnnError::new(format!(
                "no valid network in {MAX_DRAWS} draws (seed {seed}, network {index})"
            ))
        })?;
    let c = Candidate::check(&best, dir, name, shape)?;
    cross.add(&best);
    Ok((c, refused))
}

/// Smaller versions of `spec`, most reduction first: fewer layers (the last, or the first
/// with the input taking its output's shape), fewer input channels, fewer rows and
/// columns, no residual block, no pooling, no bias, no element-wise operation, a transposed
/// convolution made a plain one, 8-bit weights.
pub fn shrink_steps(spec: &NetSpec) -> Vec<NetSpec> {
    let mut v = Vec::new();
    let n = spec.layers.len();
    if n > 1 {
        for keep in 1..n {
            let mut s = spec.clone();
            s.layers.truncate(keep);
            s.stream = s.stream.min(keep);
            if let Some(l) = s.layers.last_mut() {
                l.wide = false;
            }
            v.push(s);
        }
        let mut s = spec.clone();
        s.layers.remove(0);
        s.stream = match s.stream.saturating_sub(1) {
            k if k > 0 && c_fits_fifo(spec.shapes()[1][0]) => {
                s.layers[0].proc_start = 0;
                k
            }
            _ => 0,
        };
        let [c, h, w] = spec.shapes()[1];
        s.in_ch = c;
        s.h = h.max(1);
        s.w = w.max(1);
        s.hwc = !spec.one_d();
        v.push(s);
    }
    if spec.stream > 0 {
        v.push(NetSpec {
            stream: 0,
            ..spec.clone()
        });
    }
    if spec.in_ch > 1
        && spec
            .layers
            .first()
            .is_some_and(|l| l.op != RandOp::Passthrough)
    {
        let mut s = spec.clone();
        s.in_ch = spec.in_ch.div_ceil(2);
        v.push(s);
    }
    for (dh, dw) in [(2, 0), (0, 2), (1, 0), (0, 1)] {
        let mut s = spec.clone();
        s.h = spec.h.saturating_sub(dh).max(1);
        s.w = spec.w.saturating_sub(dw).max(1);
        if (s.h, s.w) != (spec.h, spec.w) {
            v.push(s);
        }
    }
    // A residual block goes as a whole.
    for i in 0..n {
        if spec.layers[i].residual == Some(Res::Skip) && i + 3 <= n {
            let mut s = spec.clone();
            s.layers.drain(i..i + 3);
            v.push(s);
        }
    }
    for i in 0..n {
        let l = &spec.layers[i];
        let mut simpler = Vec::new();
        if l.pool.is_some() {
            simpler.push(LayerSpec { pool: None, ..*l });
        }
        if l.bias {
            simpler.push(LayerSpec { bias: false, ..*l });
        }
        if l.eltwise.is_some() && l.residual.is_none() {
            simpler.push(LayerSpec {
                eltwise: None,
                ..*l
            });
        }
        if let RandOp::ConvTranspose2d { pad } = l.op {
            simpler.push(LayerSpec {
                op: RandOp::Conv2d { k: 3, pad },
                ..*l
            });
        }
        if l.out_ch > 1 && l.op != RandOp::Passthrough && l.residual.is_none() {
            simpler.push(LayerSpec {
                out_ch: l.out_ch.div_ceil(2),
                ..*l
            });
        }
        for l2 in simpler {
            let mut s = spec.clone();
            s.layers[i] = l2;
            // A passthrough after a layer whose channels changed takes the new count, and
            // so does a residual block's convolution (its output is added to its input).
            for j in i + 1..n {
                if s.layers[j].op == RandOp::Passthrough
                    || s.layers[j].residual == Some(Res::Branch)
                {
                    s.layers[j].out_ch = s.layers[j - 1].out_ch;
                }
            }
            v.push(s);
        }
    }
    v
}

/// Whether `c` input channels fit the first FIFO (processors 0-3, HWC).
fn c_fits_fifo(c: usize) -> bool {
    c <= 4
}

/// Shrink a failing network: take the first smaller version that is still valid and still
/// fails (`fails`), again and again, until no smaller version fails. Returns the minimal
/// spec and the steps taken.
pub fn shrink(
    spec: &NetSpec,
    dir: &Path,
    shape: &EngineShape,
    fails: &mut dyn FnMut(&Candidate) -> bool,
) -> (NetSpec, usize) {
    let mut cur = spec.clone();
    let mut steps = 0;
    'outer: loop {
        for s in shrink_steps(&cur) {
            let Ok(c) = Candidate::check(&s, dir, "shrinking", shape) else {
                continue;
            };
            if fails(&c) {
                cur = s;
                steps += 1;
                continue 'outer;
            }
        }
        return (cur, steps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drawn network whose layer after a streaming one writes over that layer's output
    /// (its own input) is refused, though izer and the loader accept it: the engine would
    /// overwrite input it has not read (found by `cnn random --side 512`, seed 4).
    #[test]
    fn an_output_over_a_streamed_input_is_not_drawn() {
        let shape = EngineShape::with_processors(16);
        let lim = Limits {
            side: 64,
            layers: 2,
            ..Limits::default()
        };
        let dir = std::env::temp_dir().join(format!("edgelearn-random-{}", std::process::id()));
        let refused = (0..2000u64).find_map(|seed| {
            let spec = draw(seed, &lim);
            if spec.stream == 0 {
                return None;
            }
            match Candidate::check(&spec, &dir, "t", &shape) {
                Err(e) if e.to_string().contains("the output of a streaming layer") => Some(e),
                _ => None,
            }
        });
        let _ = std::fs::remove_dir_all(&dir);
        let e = refused.expect("a draw whose output lands on its streamed input");
        assert!(e.to_string().contains("lands on its input"), "{e}");
    }

    /// `Limits::side` bounds the drawn input: 2-D inputs stay within it in both dimensions,
    /// 1-D ones within twice it, and a larger limit draws larger maps than the default.
    #[test]
    fn the_side_limit_bounds_and_widens_the_input() {
        let widest = |side: usize| {
            let lim = Limits {
                side,
                ..Limits::default()
            };
            (0..100)
                .map(|seed| {
                    let spec = draw(seed, &lim);
                    let [_, h, w] = spec.shapes()[0];
                    let most = if spec.one_d() { 2 * side } else { side };
                    assert!(h <= most && w <= most, "seed {seed}: {h} x {w} over {side}");
                    h.max(w)
                })
                .max()
                .unwrap()
        };
        let (small, large) = (widest(12), widest(64));
        assert!(large > 24 && large > small, "{small} {large}");
    }

    /// A seed whose network has a residual block: its three layers are in order, the block
    /// keeps its input's shape, and shrinking can drop the block as a whole but never leaves
    /// the element-wise layer without its two operands.
    #[test]
    fn a_residual_block_keeps_its_shape_and_shrinks_as_a_whole() {
        let lim = Limits::default();
        let spec = (0..200)
            .map(|s| draw(s, &lim))
            .find(|s| s.layers.iter().any(|l| l.residual.is_some()))
            .expect("a network with a residual block");
        let at = spec
            .layers
            .iter()
            .position(|l| l.residual == Some(Res::Skip))
            .unwrap();
        let roles: Vec<_> = spec.layers[at..at + 3].iter().map(|l| l.residual).collect();
        assert_eq!(roles, [Some(Res::Skip), Some(Res::Branch), Some(Res::Sum)]);
        let shapes = spec.shapes();
        assert_eq!(
            shapes[at],
            shapes[at + 3],
            "the block keeps its input's shape"
        );
        let y = spec.yaml("t");
        assert!(
            y.contains(&format!("in_sequences: [{at}, {}]", at + 1)),
            "{y}"
        );
        let steps = shrink_steps(&spec);
        assert!(steps.iter().any(|s| s.layers.len() + 3 == spec.layers.len()
            && s.layers.iter().all(|l| l.residual.is_none())));
        for s in &steps {
            assert!(
                s.layers
                    .iter()
                    .all(|l| l.residual != Some(Res::Sum)
                        || l.eltwise.is_some_and(|e| e.operands == 2)),
                "{s:?}"
            );
        }
    }
}

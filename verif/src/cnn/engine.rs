//! The engine loader: a resolved network ([`super::plan`]) turned into what the engine RTL
//! holds (docs/cnn-engine-rtl.md): layer registers, kernel-memory words per processor,
//! bias bytes and the input's data-memory words. Our counterpart of ai8x's network loader.
//!
//! Kernel memory (spec §2.2): every layer owns the columns `start .. start + words` in every
//! processor, `start` a multiple of 4 after the previous layer's. A processor holds, for
//! each input pass `e`, chunk `k` and output channel `o`, the kernel of its input channel in
//! that pass: kernel number `s = (e * chunks + k) * out_ch + o`, packed `per_word` to a
//! 72-bit word (`per_word = 72 / (taps * bits)`, a kernel never straddles two words), tap
//! `t`'s weight in bits `(s % per_word) * taps * bits + t * bits`. A chunk is one kernel:
//! 1 for convolutions, `ceil(H * W / 9)` for a flattening layer (nine flattened inputs per
//! kernel). Passthrough and element-wise-only layers run as 1x1 convolutions with identity
//! kernels and total shift 7 (docs/decisions.md D-CNN-RTL).

use super::desc::{Activation, DataFormat, Eltwise, LayerDesc, NetworkDesc, Op, PoolKind};
use super::error::{CnnError, Result};
use super::memory;
use super::ops::{Kernels, Tensor};
use super::plan::{flatten_chunks, kernel_packing, Plan};
use super::run::{RunOptions, Semantics};
use super::weights::NetworkWeights;
use edgelearn_hdl::cnn::engine::regs::LayerFields;
use edgelearn_hdl::cnn::{EngineShape, LAYER_WORDS, MAX_LAYERS, MAX_OUT_CHANNELS};

/// Dividends of the average-pooling division are below this (17 bits).
const AVG_DIVIDEND_BITS: u32 = 17;

/// The magic multiplier and shift that divide every 17-bit dividend by `d` exactly:
/// `n / d == (n * m) >> sh` for all `n < 2^17` (Granlund and Montgomery).
pub fn avg_magic(d: u32) -> (u32, u32) {
    assert!((1..=512).contains(&d), "divisor {d}");
    let l = 32 - (d - 1).leading_zeros(); // ceil(log2 d)
    let sh = AVG_DIVIDEND_BITS + l;
    let m = ((1u64 << sh) / d as u64 + 1) as u32;
    (m, sh)
}

/// The configuration registers of one engine layer: the YAML layer it runs and its
/// fields ([`LayerFields`], generated with their encoder from `hdl/regs/cnn_engine.toml`,
/// docs/cnn-engine-registers.md). Derefs to the fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LayerRegs {
    /// The YAML layer this runs.
    pub layer: usize,
    /// The register fields.
    pub regs: LayerFields,
}

impl std::ops::Deref for LayerRegs {
    type Target = LayerFields;
    fn deref(&self) -> &LayerFields {
        &self.regs
    }
}

impl std::ops::DerefMut for LayerRegs {
    fn deref_mut(&mut self) -> &mut LayerFields {
        &mut self.regs
    }
}

impl LayerRegs {
    /// The 16 register words (the generated encoder).
    pub fn encode(&self) -> [u32; LAYER_WORDS] {
        self.regs.encode()
    }
}

/// Where a layer's kernels are in kernel memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelAlloc {
    /// The YAML layer.
    pub layer: usize,
    /// First column (a multiple of 4).
    pub start: usize,
    /// Columns used.
    pub words: usize,
    /// Kernels per 72-bit word.
    pub per_word: usize,
    /// Kernels per processor.
    pub kernels: usize,
    /// Where every weight is.
    pub layout: KernelLayout,
}

/// Where each weight of one layer sits in the engine's kernel memories (D-CNN-RTL; the
/// analogue of the MAX78000's processor-ordered `weights.c`, seed 003 Fig. 3b). Kernel
/// `s = (pass * chunks + chunk) * out_ch + o` of processor `q` (the `r`-th enabled one,
/// holding input channel `pass * in_thresh + r`) is field `s % per_word` of column
/// `start + s / per_word`; tap `t` of it is `bits` bits at `(s % per_word) * taps * bits +
/// t * bits`. A flatten layer's chunk `k`, tap `t` is pixel `9 k + t` of the channel.
/// [`KernelLayout::encode`] and [`KernelLayout::decode`] are exact inverses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelLayout {
    /// First column.
    pub start: usize,
    /// Columns.
    pub words: usize,
    /// Kernels per 72-bit word.
    pub per_word: usize,
    /// Bits per weight.
    pub bits: usize,
    /// Weights per kernel.
    pub taps: usize,
    /// Kernel width (taps per row).
    pub kw: usize,
    /// Flatten chunks per channel (1 unless flattening).
    pub chunks: usize,
    /// Input passes.
    pub in_passes: usize,
    /// Channels per pass.
    pub in_thresh: usize,
    /// Input channels.
    pub in_ch: usize,
    /// Output channels.
    pub out_ch: usize,
    /// Pixels per channel (flatten).
    pub hw: usize,
    /// Flattening.
    pub flatten: bool,
    /// Identity kernels (passthrough).
    pub identity: bool,
    /// Processor map.
    pub processors: u64,
}

impl KernelLayout {
    /// Calls `f(processor, column, bit, kernel index)` for every weight the layer holds;
    /// the kernel index is `(o, i, ky, kx)` into the layer's [`Kernels`] (`i` the flattened
    /// input for flatten layers). Fields past the pixels of a flatten chunk and processors
    /// without an input channel hold zero and are not visited.
    fn visit(&self, mut f: impl FnMut(usize, usize, usize, (usize, usize, usize, usize))) {
        let slot = self.taps * self.bits;
        let enabled = (0..64).filter(|&q| self.processors >> q & 1 == 1);
        for (rank, proc) in enabled.enumerate() {
            if rank >= self.in_thresh {
                continue;
            }
            for e in 0..self.in_passes {
                let c = e * self.in_thresh + rank;
                if c >= self.in_ch {
                    continue;
                }
                for k in 0..self.chunks {
                    for o in 0..self.out_ch {
                        let s = (e * self.chunks + k) * self.out_ch + o;
                        let word = self.start + s / self.per_word;
                        let base = (s % self.per_word) * slot;
                        for t in 0..self.taps {
                            let idx = if self.flatten {
                                let pix = 9 * k + t;
                                if pix >= self.hw {
                                    continue;
                                }
                                (o, c * self.hw + pix, 0, 0)
                            } else {
                                (o, c, t / self.kw, t % self.kw)
                            };
                            f(proc, word, base + t * self.bits, idx);
                        }
                    }
                }
            }
        }
    }

    /// The shape of the layer's [`Kernels`].
    pub fn kernel_shape(&self) -> (usize, usize, usize, usize) {
        if self.flatten {
            (self.out_ch, self.in_ch * self.hw, 1, 1)
        } else {
            (self.out_ch, self.in_ch, self.taps / self.kw, self.kw)
        }
    }

    /// Writes `k` into the layer's columns of `mem` (per processor, 72-bit words; the
    /// columns must exist). Fields of the layer are overwritten, others kept.
    pub fn encode(&self, k: &Kernels, mem: &mut [Vec<u128>]) {
        let mask = (1u128 << self.bits) - 1;
        self.visit(|q, word, bit, (o, i, y, x)| {
            let v = (k.at(o, i, y, x) as u128) & mask;
            let col = &mut mem[q][word];
            *col = (*col & !(mask << bit)) | (v << bit);
        });
    }

    fn encode_identity(&self, mem: &mut [Vec<u128>]) {
        self.visit(|q, word, bit, (o, i, y, x)| {
            if o == i && y == 0 && x == 0 {
                mem[q][word] |= 1u128 << bit;
            }
        });
    }

    /// Reads the layer's kernels back from `mem` (two's-complement fields of `bits` bits).
    pub fn decode(&self, mem: &[Vec<u128>]) -> Kernels {
        let (out_ch, in_ch, kh, kw) = self.kernel_shape();
        let mut k = Kernels {
            out_ch,
            in_ch,
            kh,
            kw,
            w: vec![0; out_ch * in_ch * kh * kw],
        };
        let mask = (1u128 << self.bits) - 1;
        let sign = 1i64 << (self.bits - 1);
        self.visit(|q, word, bit, (o, i, y, x)| {
            let raw = ((mem[q][word] >> bit) & mask) as i64;
            k.w[((o * in_ch + i) * kh + y) * kw + x] = (raw ^ sign) - sign;
        });
        k
    }
}

impl EngineImage {
    /// The kernel layout of YAML layer `layer`, if it has kernels in the image.
    pub fn layout(&self, layer: usize) -> Option<&KernelLayout> {
        self.allocs
            .iter()
            .find(|a| a.layer == layer)
            .map(|a| &a.layout)
    }
}

/// Everything the engine holds before it runs one inference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineImage {
    /// The engine it is for.
    pub shape: EngineShape,
    /// Layer registers in run order.
    pub layers: Vec<LayerRegs>,
    /// Kernel allocation per layer in run order.
    pub allocs: Vec<KernelAlloc>,
    /// Kernel words per processor (72 bits each), columns `0 .. kernel_columns()`.
    pub kernels: Vec<Vec<u128>>,
    /// Bias bytes from index 0.
    pub bias: Vec<u8>,
    /// Input data-memory words: `(instance, word, value)`.
    pub data: Vec<(usize, usize, u32)>,
}

impl EngineImage {
    /// Kernel columns in use (the same in every processor).
    pub fn kernel_columns(&self) -> usize {
        self.kernels.first().map_or(0, |k| k.len())
    }

    /// The image as files (name, text), in the formats of docs/cnn-engine-rtl.md: Verilog
    /// `$readmemh` files, one per memory (`layers.hex`, `bias.hex`, `kernel_pNN.hex`,
    /// `data_NN.hex` with `@word` addresses), and `image.json` describing them.
    pub fn files(&self) -> Vec<(String, String)> {
        let head = |what: &str| format!("// Generated by edgelearn (cnn load): {what}\n");
        let mut out = Vec::new();
        let mut layers =
            head("layer registers, 16 words per layer in run order ($readmemh into lreg)");
        for l in &self.layers {
            layers.push_str(&format!("// layer {}\n", l.layer));
            for w in l.encode() {
                layers.push_str(&format!("{w:08x}\n"));
            }
        }
        out.push(("layers.hex".to_string(), layers));
        let mut bias = head("bias bytes from index 0 ($readmemh into bmem)");
        for b in &self.bias {
            bias.push_str(&format!("{b:02x}\n"));
        }
        out.push(("bias.hex".to_string(), bias));
        for (p, words) in self.kernels.iter().enumerate() {
            let mut k = head(&format!(
                "kernel memory of processor {p}, 72-bit words from column 0"
            ));
            for w in words {
                k.push_str(&format!("{w:018x}\n"));
            }
            out.push((format!("kernel_p{p:02}.hex"), k));
        }
        let mut by_inst: Vec<Vec<(usize, u32)>> = vec![Vec::new(); self.shape.instances()];
        for &(i, w, v) in &self.data {
            by_inst[i].push((w, v));
        }
        for (i, words) in by_inst.iter_mut().enumerate() {
            if words.is_empty() {
                continue;
            }
            words.sort();
            let mut d = head(&format!(
                "input words of data-memory instance {i} (@word address)"
            ));
            let mut next = usize::MAX;
            for &(w, v) in words.iter() {
                if w != next {
                    d.push_str(&format!("@{w:04x}\n"));
                }
                d.push_str(&format!("{v:08x}\n"));
                next = w + 1;
            }
            out.push((format!("data_{i:02}.hex"), d));
        }
        let layers_json: Vec<serde_json::Value> = self
            .layers
            .iter()
            .zip(&self.allocs)
            .map(|(l, a)| {
                serde_json::json!({
                    "layer": l.layer,
                    "registers": l.encode().iter().map(|w| format!("0x{w:08x}")).collect::<Vec<_>>(),
                    "kernel_start": a.start,
                    "kernel_words": a.words,
                    "kernels_per_word": a.per_word,
                    "kernels_per_processor": a.kernels,
                    "bias_start": l.bias_start,
                    "bias": l.bias,
                })
            })
            .collect();
        let json = serde_json::json!({
            "format": "edgelearn cnn engine image 1",
            "processors": self.shape.processors,
            "kernel_depth": self.shape.kernel_words,
            "kernel_columns": self.kernel_columns(),
            "bias_bytes": self.bias.len(),
            "input_words": self.data.len(),
            "layers": layers_json,
        });
        out.push((
            "image.json".to_string(),
            serde_json::to_string_pretty(&json).expect("json") + "\n",
        ));
        out
    }
}

/// The cycles the engine spends on a layer, from its registers (docs/cnn-engine-rtl.md).
/// The gather and the MAC overlap on two windows: iteration `i` (pixel, pass, chunk)
/// gathers `n_i` items (one per tap in the padding, `operands x pool area` per tap inside)
/// once the previous gather is done and its window's iteration `i - 2` has left the MAC; the
/// MAC starts four cycles after the last item (the window is then complete) and once the
/// previous MAC is done, takes a cycle to start and issues one output channel per cycle.
/// The layer ends 11 cycles after its last MAC issue (register load, pipeline drain).
pub fn layer_cycles(r: &LayerRegs) -> u64 {
    let inside = (r.operands * r.pool_h * r.pool_w) as u64;
    let hw = r.pooled_h * r.pooled_w;
    let o = r.out_ch as u64;
    // (gather end, MAC end) of the last two iterations
    let (mut g_prev, mut m_prev, mut m_prev2) = (None::<u64>, None::<u64>, None::<u64>);
    for oy in 0..r.out_h {
        for ox in 0..r.out_w {
            for _e in 0..r.in_passes {
                for k in 0..r.chunks {
                    let mut items = 0u64;
                    for t in 0..r.taps {
                        let (ty, tx) = (t / r.kw, t % r.kw);
                        let valid = match r.mode {
                            1 => 9 * k + t < hw,
                            2 => {
                                let (ys, xs) = (oy + ty, ox + tx);
                                ys >= r.pad_y
                                    && xs >= r.pad_x
                                    && (ys - r.pad_y).is_multiple_of(2)
                                    && (xs - r.pad_x).is_multiple_of(2)
                                    && (ys - r.pad_y) / 2 < r.pooled_h
                                    && (xs - r.pad_x) / 2 < r.pooled_w
                            }
                            _ => {
                                let (yb, xb) = (oy + ty * r.dil, ox + tx);
                                yb >= r.pad_y
                                    && xb >= r.pad_x
                                    && yb - r.pad_y < r.pooled_h
                                    && xb - r.pad_x < r.pooled_w
                            }
                        };
                        items += if valid { inside } else { 1 };
                    }
                    let gs = [g_prev.map(|g| g + 1), m_prev2.map(|m| m + 1)]
                        .into_iter()
                        .flatten()
                        .max()
                        .unwrap_or(0);
                    let ge = gs + items - 1;
                    let st = [Some(ge + 4), m_prev.map(|m| m + 1)]
                        .into_iter()
                        .flatten()
                        .max()
                        .expect("some");
                    let me = st + o;
                    g_prev = Some(ge);
                    m_prev2 = m_prev;
                    m_prev = Some(me);
                }
            }
        }
    }
    m_prev.unwrap_or(0) + 11
}

/// A data-memory byte address (as the golden model's checks give it) as `(instance, word)`.
pub fn data_location(shape: &EngineShape, address: u32) -> Option<(usize, usize)> {
    let a = address.checked_sub(0x5040_0000)?;
    let group = (a / 0x40_0000) as usize;
    let within = a % 0x40_0000;
    if within >= 4 * 0x8000 {
        return None;
    }
    let inst = group * 4 + (within / 0x8000) as usize;
    if inst >= shape.instances() {
        return None;
    }
    Some((inst, (within % 0x8000) as usize / 4))
}

/// Builds the engine image of `plan` for `input`. A network the engine cannot run is an
/// error naming the layer and the key.
pub fn build(
    net: &NetworkDesc,
    weights: &NetworkWeights,
    plan: &Plan,
    input: &Tensor,
    opts: &RunOptions,
    shape: &EngineShape,
) -> Result<EngineImage> {
    if let Err(e) = shape.check() {
        return Err(CnnError::new(format!("the engine: {e}")));
    }
    if opts.semantics == Semantics::Document {
        return Err(CnnError::new(
            "the engine computes what the silicon computes; `--semantics document` is a model-only reading",
        ));
    }
    if opts.legacy_test {
        return Err(CnnError::new(
            "--legacy-test (column-interleaved operands) is a model-only option",
        ));
    }
    if plan.order.len() > MAX_LAYERS {
        return Err(CnnError::new(format!(
            "{} layers; the engine's sequencer runs at most {MAX_LAYERS}",
            plan.order.len()
        )));
    }
    let lerr = |ll: usize, key: &str, m: String| {
        CnnError::layer_key(ll, key, m).at_line(net.layers[ll].line)
    };
    let mut layers = Vec::new();
    let mut allocs = Vec::new();
    let p_n = shape.processors;
    let mut kernels: Vec<Vec<u128>> = vec![Vec::new(); p_n];
    let mut bias: Vec<u8> = Vec::new();
    let mut next_col = 0usize;
    let mut wide_layers: Vec<usize> = Vec::new();
    for (pos, &ll) in plan.order.iter().enumerate() {
        let l = &net.layers[ll];
        let p = plan.layer(ll);
        let w = weights.layers[ll].as_ref();
        // What the engine cannot run (yet).
        if l.streaming {
            return Err(lerr(
                ll,
                "streaming",
                "the engine has no input FIFOs yet; streaming layers cannot run".into(),
            ));
        }
        if l.op == Op::Passthrough && l.output_width == 32 {
            return Err(lerr(
                ll,
                "output_width",
                "a 32-bit element-wise or passthrough result (unsaturated) is not supported by the engine".into(),
            ));
        }
        let sources: Vec<isize> = match &l.in_sequences {
            Some(s) => s.clone(),
            None if pos == 0 => vec![-1],
            None => vec![plan.order[pos - 1] as isize],
        };
        if let Some(&s) = sources
            .iter()
            .find(|&&s| s >= 0 && wide_layers.contains(&(s as usize)))
        {
            return Err(lerr(
                ll,
                "output_width",
                format!("the layer reads the 32-bit output of layer {s}; the engine's processors read 8-bit data"),
            ));
        }
        let src_pixels = match sources[0] {
            s if s < 0 => plan.input[1] * plan.input[2],
            s => {
                let d = plan.layer(s as usize).out_dim;
                d[0] * d[1]
            }
        };
        if p.in_dim[0] * p.in_dim[1] != src_pixels {
            return Err(lerr(
                ll,
                "in_dim",
                format!(
                    "`in_dim` {}x{} re-views {src_pixels} pixels as {} and so changes the channel count; the model splits the channels logically, but a processor reads only its own channel's bytes in data memory",
                    p.in_dim[0],
                    p.in_dim[1],
                    p.in_dim[0] * p.in_dim[1]
                ),
            ));
        }
        for (m, key) in [
            (l.processors, "processors"),
            (p.out_map, "output_processors"),
        ] {
            if p_n < 64 && m >> p_n != 0 {
                return Err(lerr(
                    ll,
                    key,
                    format!(
                        "the map 0x{m:016x} uses processor {}; the engine has {p_n}",
                        63 - m.leading_zeros()
                    ),
                ));
            }
        }
        if p.out_ch > MAX_OUT_CHANNELS {
            return Err(lerr(
                ll,
                "out_channels",
                format!(
                    "{} output channels; the engine accumulates at most {MAX_OUT_CHANNELS}",
                    p.out_ch
                ),
            ));
        }
        for (v, key) in [(p.in_offset, "in_offset"), (l.out_offset, "out_offset")] {
            if !v.is_multiple_of(4) {
                return Err(lerr(ll, key, format!("0x{v:x} is not a multiple of 4")));
            }
        }
        let chw = pos == 0 && l.data_format == DataFormat::Chw;
        // Operation, taps and kernels.
        let hw = p.pooled[0] * p.pooled[1];
        let (mode, kh, kw, taps, chunks, pad, dil) = if l.flatten {
            (1, 1, 9, 9, flatten_chunks(p.pooled), [0, 0], 1)
        } else {
            match l.op {
                Op::Conv2d => {
                    let k = l.kernel_size;
                    if !(k == [1, 1] || k == [3, 3]) {
                        return Err(lerr(
                            ll,
                            "kernel_size",
                            format!("{}x{} kernels; the engine runs 1x1 and 3x3", k[0], k[1]),
                        ));
                    }
                    (0, k[0], k[1], k[0] * k[1], 1, l.pad, 1)
                }
                Op::Conv1d => {
                    let k = l.kernel_size[0];
                    if k > 9 || l.dilation[0] > 31 {
                        return Err(lerr(
                            ll,
                            "kernel_size",
                            format!("kernel {k}, dilation {}; the engine runs kernels 1..9 and dilation up to 31", l.dilation[0]),
                        ));
                    }
                    (0, k, 1, k, 1, [l.pad[0], 0], l.dilation[0])
                }
                Op::Linear | Op::Passthrough => (0, 1, 1, 1, 1, [0, 0], 1),
                Op::ConvTranspose2d => {
                    let k = l.kernel_size;
                    if k != [3, 3] {
                        return Err(lerr(
                            ll,
                            "kernel_size",
                            "transposed convolutions are 3x3".into(),
                        ));
                    }
                    if l.output_pad[0] > 1 || l.output_pad[1] > 1 {
                        return Err(lerr(
                            ll,
                            "output_padding",
                            "the engine supports output padding 0 or 1".into(),
                        ));
                    }
                    (2, 3, 3, 9, 1, [2 - l.pad[0].min(2), 2 - l.pad[1].min(2)], 1)
                }
            }
        };
        if chunks > 31 {
            return Err(lerr(ll, "flatten", format!("{hw} flattened pixels need {chunks} kernels per channel; the engine counts up to 31")));
        }
        let identity = l.op == Op::Passthrough;
        let bits = if identity {
            8
        } else {
            w.map_or(8, |w| w.bits) as usize
        };
        let shift = if identity {
            7
        } else {
            w.map_or(0, |w| w.shift)
        };
        let (in_passes, in_thresh) = p.in_passes;
        let out_ch = p.out_ch;
        // Kernel memory.
        let slot = taps * bits;
        let count = in_passes * chunks * out_ch;
        let (per_word, words) = kernel_packing(taps, bits, count);
        let start = next_col.next_multiple_of(4);
        if start + words > shape.kernel_words {
            return Err(lerr(
                ll,
                "processors",
                format!(
                    "kernel memory exceeded: the layer needs columns {start}..{} ({count} kernels of {slot} bits per processor), the engine has {}",
                    start + words,
                    shape.kernel_words
                ),
            ));
        }
        next_col = start + words;
        let layout = KernelLayout {
            start,
            words,
            per_word,
            bits,
            taps,
            kw,
            chunks,
            in_passes,
            in_thresh,
            in_ch: p.in_ch,
            out_ch,
            hw,
            flatten: l.flatten,
            identity,
            processors: l.processors,
        };
        for col in kernels.iter_mut() {
            col.resize(next_col, 0);
        }
        match w.filter(|_| !identity) {
            Some(w) => layout.encode(&w.kernels, &mut kernels),
            None => layout.encode_identity(&mut kernels),
        }
        allocs.push(KernelAlloc {
            layer: ll,
            start,
            words,
            per_word,
            kernels: count,
            layout,
        });
        // Bias.
        let bias_start = bias.len();
        let has_bias = !identity && w.is_some_and(|w| w.bias.is_some());
        if has_bias {
            for &b in w.and_then(|w| w.bias.as_ref()).expect("bias") {
                bias.push(b as u8);
            }
            if bias.len() > shape.bias_bytes() {
                return Err(lerr(
                    ll,
                    "bias",
                    format!(
                        "bias memory exceeded: {} bytes, the engine has {}",
                        bias.len(),
                        shape.bias_bytes()
                    ),
                ));
            }
        }
        // Pooling and the element-wise operation.
        let pooling = l.pool_size != [1, 1] || l.pool_stride != [1, 1];
        let (pool_h, pool_w, stride) = if pooling {
            (l.pool_size[0], l.pool_size[1], l.pool_stride)
        } else {
            (1, 1, [1, 1])
        };
        let pool_avg = pooling && l.pool == Some(PoolKind::Avg);
        let avg_round = pool_avg && opts.avg_pool_rounding && !p.one_d;
        let area = (pool_h * pool_w) as u32;
        let (avg_m, avg_sh) = avg_magic(if avg_round { 2 * area } else { area });
        let elt = if l.operands > 1 {
            match l.eltwise.unwrap_or(Eltwise::Add) {
                Eltwise::Add => 2,
                Eltwise::Sub => 3,
                Eltwise::Or => 4,
                Eltwise::Xor => 5,
            }
        } else {
            0
        };
        let r = 7 - shift;
        let wide = l.output_width == 32;
        if wide {
            wide_layers.push(ll);
        }
        if p.in_dim[0] > 1023 || p.in_dim[1] > 1023 {
            return Err(lerr(
                ll,
                "in_dim",
                "the engine counts rows and columns up to 1023".into(),
            ));
        }
        let regs = LayerFields {
            mode,
            chw,
            bias: has_bias,
            wide,
            act: match l.activation {
                Activation::None => 0,
                Activation::Relu => 1,
                Activation::Abs => 2,
            },
            elt,
            pool_first: l.pool_first,
            pool_avg,
            avg_round,
            bits: bits as u32,
            rshift: r.max(0) as u32,
            lshift: (-r).max(0) as u32,
            in_h: p.in_dim[0] as u32,
            in_w: p.in_dim[1] as u32,
            in_passes: in_passes as u32,
            operands: l.operands as u32,
            in_base: p.in_offset / 4,
            out_base: l.out_offset / 4,
            pool_h: pool_h as u32,
            pool_w: pool_w as u32,
            stride_y: stride[0] as u32,
            stride_x: stride[1] as u32,
            pooled_h: p.pooled[0] as u32,
            pooled_w: p.pooled[1] as u32,
            kh: kh as u32,
            kw: kw as u32,
            dil: dil as u32,
            pad_y: pad[0] as u32,
            pad_x: pad[1] as u32,
            out_h: p.out_dim[0] as u32,
            out_w: p.out_dim[1] as u32,
            chunks: chunks as u32,
            taps: taps as u32,
            out_ch: out_ch as u32,
            kstart: start as u32,
            per_word: per_word as u32,
            slot: slot as u32,
            bias_start: bias_start as u32,
            out_passes: p.out_passes.0 as u32,
            out_thresh: p.out_passes.1 as u32,
            avg_m,
            avg_sh,
            avg_d: area,
            gap: l.write_gap + 1,
            in_map: l.processors,
            out_map: p.out_map,
        };
        if let Err((key, value, bits)) = regs.check() {
            return Err(lerr(
                ll,
                key,
                format!("{value} does not fit the engine's {bits}-bit layer-register field"),
            ));
        }
        layers.push(LayerRegs { layer: ll, regs });
    }
    // The input.
    let first = plan.order[0];
    let blocks = memory::input_blocks(&net.layers[first], plan.layer(first), input, &plan.device)?;
    let mut data = Vec::new();
    for b in &blocks {
        for (i, &v) in b.words.iter().enumerate() {
            let a = b.address + 4 * i as u32;
            let (inst, word) = data_location(shape, a).ok_or_else(|| {
                lerr(
                    first,
                    "processors",
                    format!("input word at 0x{a:08x} is outside the engine's data memories"),
                )
            })?;
            if word >= edgelearn_hdl::cnn::DATA_WORDS {
                return Err(lerr(
                    first,
                    "in_offset",
                    "the input does not fit its data-memory instance".into(),
                ));
            }
            data.push((inst, word, v));
        }
    }
    Ok(EngineImage {
        shape: *shape,
        layers,
        allocs,
        kernels,
        bias,
        data,
    })
}

/// Where channel `c`, pixel `q` of layer `l`'s output is in data memory: byte address, and
/// the byte lane of an 8-bit output (`None` for a 32-bit word). The rule of
/// [`memory::output_checks`] for one value.
pub fn output_location(
    l: &LayerDesc,
    p: &super::plan::LayerPlan,
    c: usize,
    q: usize,
    dev: &super::Device,
) -> (u32, Option<usize>) {
    let (expand, thresh) = p.out_passes;
    let e = c / thresh;
    let proc = super::device::nth_set_bit(p.out_map, c % thresh).unwrap_or(0);
    let quad = proc & !3;
    let lane = proc % 4;
    let gap = l.write_gap + 1;
    let base = dev.data_base
        + l.out_offset
        + 4 * ((((quad % 16) as u32) * 2048) | (((quad / 16) as u32) * 0x10_0000));
    if l.output_width == 32 {
        let a = base + 4 * ((q as u32 * expand as u32 * 4 + e as u32 * 4) * gap) + 4 * lane as u32;
        (a, None)
    } else {
        let a = base + 4 * ((q as u32 * expand as u32 + e as u32) * gap);
        (a, Some(lane))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn avg_magic_divides_every_dividend_exactly() {
        for d in 1..=512u32 {
            let (m, sh) = avg_magic(d);
            assert!(m < 1 << 18, "d {d}: m {m}");
            assert!(sh < 32);
            for n in 0..(2 * 32768 + 512u64) {
                assert_eq!((n * m as u64) >> sh, n / d as u64, "d {d} n {n}");
            }
        }
    }

    #[test]
    fn register_fields_do_not_overlap() {
        let full = LayerFields {
            mode: 3,
            chw: true,
            bias: true,
            wide: true,
            act: 3,
            elt: 7,
            pool_first: true,
            pool_avg: true,
            avg_round: true,
            bits: 15,
            rshift: 31,
            lshift: 15,
            in_h: 1023,
            in_w: 1023,
            in_passes: 31,
            operands: 31,
            in_base: (1 << 14) - 1,
            out_base: (1 << 16) - 1,
            pool_h: 31,
            pool_w: 31,
            stride_y: 31,
            stride_x: 31,
            pooled_h: 1023,
            pooled_w: 1023,
            kh: 15,
            kw: 15,
            dil: 31,
            pad_y: 3,
            pad_x: 3,
            out_h: 1023,
            out_w: 1023,
            chunks: 31,
            taps: 15,
            out_ch: 2047,
            kstart: 1023,
            per_word: 127,
            slot: 127,
            bias_start: 4095,
            out_passes: 31,
            out_thresh: 127,
            avg_m: (1 << 18) - 1,
            avg_sh: 31,
            avg_d: 511,
            gap: 65535,
            ..LayerFields::default()
        };
        assert_eq!(full.check(), Ok(()));
        let w = full.encode();
        // Every field at its maximum fills exactly its bits: the sum of widths per word.
        let ones: Vec<u32> = w.iter().map(|x| x.count_ones()).collect();
        assert_eq!(&ones[..10], &[26, 30, 30, 30, 27, 29, 28, 31, 23, 25]);
        // The generated decoder inverts the encoder.
        let with_maps = LayerFields {
            in_map: 0x8000_0000_0000_0001,
            out_map: u64::MAX,
            ..full
        };
        assert_eq!(LayerFields::decode(&with_maps.encode()), with_maps);
        // A value too wide for its field is named.
        let wide = LayerFields {
            gap: 65536,
            ..with_maps
        };
        assert_eq!(wide.check(), Err(("gap", 65536, 16)));
    }

    #[test]
    fn data_locations() {
        let s = EngineShape::MAX78000;
        assert_eq!(data_location(&s, 0x5040_0000), Some((0, 0)));
        assert_eq!(data_location(&s, 0x5040_8004), Some((1, 1)));
        assert_eq!(data_location(&s, 0x5080_0000), Some((4, 0)));
        assert_eq!(data_location(&s, 0x5101_8000 + 4 * 8191), Some((15, 8191)));
        assert_eq!(
            data_location(&EngineShape::with_processors(16), 0x5080_0000),
            None
        );
    }
}

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
use super::plan::{flatten_chunks, kernel_packing, LayerPlan, Plan};
use super::run::{RunOptions, Semantics};
use super::weights::{LayerWeights, NetworkWeights};
use crate::golden::cnn_engine::Slide;
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
    /// A streaming layer's schedule entries: the output row of each, in run order (empty:
    /// the layer runs whole).
    pub slices: Vec<u32>,
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
    /// Input data-memory words: `(instance, word, value)` (none when the input streams).
    pub data: Vec<(usize, usize, u32)>,
    /// The streaming part of the run, when its first layers stream.
    pub stream: Option<super::stream::Stream>,
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
        if let Some(st) = &self.stream {
            let mut sched = head(&format!(
                "streaming schedule, three words per entry (host SCHEDULE + 4 i + k); STREAM = 0x{:08x}",
                st.register()
            ));
            for e in &st.schedule {
                for w in e.words() {
                    sched.push_str(&format!("{w:08x}\n"));
                }
            }
            out.push(("schedule.hex".to_string(), sched));
            let mut beats = head(&format!(
                "the input stream, one beat per line ({} FIFO(s), izer's --fifo order)",
                st.fifos
            ));
            for b in &st.beats {
                beats.push_str(&format!("{b:08x}\n"));
            }
            out.push(("fifo.hex".to_string(), beats));
        }
        let stream = self.stream.as_ref().map(|st| {
            serde_json::json!({
                "register": format!("0x{:08x}", st.register()),
                "layers": st.layers,
                "fifos": st.fifos,
                "chw": st.chw,
                "width": st.width,
                "entries": st.schedule.len(),
                "beats": st.beats.len(),
            })
        });
        let json = serde_json::json!({
            "format": "edgelearn cnn engine image 1",
            "stream": stream,
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
/// The layer ends [`LAYER_TAIL`] cycles after its last MAC issue (register load, pipeline
/// drain).
/// A streaming layer's cycles are the sum of its schedule entries', each a run of one row.
pub fn layer_cycles(r: &LayerRegs) -> u64 {
    sliced(r, false)
}

/// [`cycles_of`] over the whole layer, or summed over its schedule entries' rows.
fn sliced(r: &LayerRegs, ideal_gather: bool) -> u64 {
    if r.slices.is_empty() {
        return cycles_of(r, ideal_gather, None);
    }
    r.slices
        .iter()
        .map(|&row| cycles_of(r, ideal_gather, Some(row)))
        .sum()
}

/// The cycles after a layer's last MAC issue: register load and pipeline drain.
pub const LAYER_TAIL: u64 = 11;

/// [`layer_cycles`] with a gather that fills each window in one cycle, as a line buffer
/// holding every window would: the MAC's own time, its start cycles and the fixed ones.
pub fn mac_bound_cycles(r: &LayerRegs) -> u64 {
    if r.slices.is_empty() {
        cycles_of(r, true, None)
    } else {
        r.slices
            .iter()
            .map(|&row| cycles_of(r, true, Some(row)))
            .sum()
    }
}

/// Why the engine spends more cycles on a layer than izer's estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Excess {
    /// Within the engine's per-layer cycles (register load, window fill, pipeline drain:
    /// at most [`LAYER_FIXED`]), which izer counts once per network.
    Overhead(u64),
    /// The MAC waited `stall` cycles for its windows: the gather reads every window again
    /// (no line buffer), and with an ideal gather the layer would be within the overhead.
    Gather {
        /// Cycles above izer's estimate.
        excess: u64,
        /// Cycles the MAC waited for windows.
        stall: u64,
    },
    /// The MAC starts each iteration (output pixel, pass, chunk) with a cycle of its own,
    /// `starts` in all, where izer counts none; with the gather's stalls and the overhead
    /// that is the whole excess.
    Starts {
        /// Cycles above izer's estimate.
        excess: u64,
        /// MAC start cycles.
        starts: u64,
        /// Cycles the MAC waited for windows.
        stall: u64,
    },
    /// A passthrough or element-wise-only layer runs as a 1x1 convolution with identity
    /// kernels (D-CNN-RTL): `mac` cycles of one output channel each, where the silicon
    /// moves the data without the MAC.
    Identity {
        /// Cycles above izer's estimate.
        excess: u64,
        /// Cycles the MAC issued output channels.
        mac: u64,
    },
    /// A streaming layer runs one output row per schedule entry, each entry with the
    /// per-layer cycles of its own (at most [`LAYER_FIXED`] each) and its MAC starts.
    Slices {
        /// Cycles above izer's estimate.
        excess: u64,
        /// Schedule entries.
        slices: u64,
    },
    /// None of the above accounts for it.
    Unexplained(u64),
}

/// The most cycles a layer spends outside its iterations: the first window's fill (an
/// item, then four cycles to the MAC), the MAC's first start, and [`LAYER_TAIL`].
pub const LAYER_FIXED: u64 = 5 + 1 + LAYER_TAIL;

/// The iterations (output pixel, pass, chunk) of a layer: the MAC starts once per each.
pub fn iterations(r: &LayerRegs) -> u64 {
    [r.out_h, r.out_w, r.in_passes, r.chunks]
        .iter()
        .map(|&v| u64::from(v))
        .product()
}

/// Why layer `r` takes more cycles than izer's estimate `izer`; `None` when it does not.
/// `identity`: the layer is a passthrough or element-wise-only layer (identity kernels).
pub fn excess(r: &LayerRegs, izer: u64, identity: bool) -> Option<Excess> {
    let cycles = layer_cycles(r);
    let excess = cycles.checked_sub(izer).filter(|&e| e > 0)?;
    let stall = cycles - mac_bound_cycles(r);
    let starts = iterations(r);
    let mac = starts * u64::from(r.out_ch);
    let slices = r.slices.len() as u64;
    Some(
        if slices > 0 && excess <= stall + starts + slices * LAYER_FIXED {
            Excess::Slices { excess, slices }
        } else if excess <= LAYER_FIXED {
            Excess::Overhead(excess)
        } else if excess <= stall + LAYER_FIXED {
            Excess::Gather { excess, stall }
        } else if excess <= stall + starts + LAYER_FIXED {
            Excess::Starts {
                excess,
                starts,
                stall,
            }
        } else if identity && excess <= stall + starts + mac + LAYER_FIXED {
            Excess::Identity { excess, mac }
        } else {
            Excess::Unexplained(excess)
        },
    )
}

impl std::fmt::Display for Excess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Excess::Overhead(e) => write!(f, "+{e}: per-layer overhead"),
            Excess::Gather { excess, stall } => {
                write!(
                    f,
                    "+{excess}: the MAC waited {stall} cycles for windows (no line buffer)"
                )
            }
            Excess::Starts {
                excess,
                starts,
                stall,
            } => write!(
                f,
                "+{excess}: {starts} MAC start cycles, {stall} cycles waiting for windows"
            ),
            Excess::Identity { excess, mac } => write!(
                f,
                "+{excess}: a passthrough on identity kernels, {mac} cycles of one output channel each"
            ),
            Excess::Slices { excess, slices } => write!(
                f,
                "+{excess}: streamed in {slices} one-row slices, each started and drained on its own"
            ),
            Excess::Unexplained(e) => write!(f, "+{e}: unexplained"),
        }
    }
}

/// [`layer_cycles`], or with an ideal gather ([`mac_bound_cycles`]).
fn cycles_of(r: &LayerRegs, ideal_gather: bool, row: Option<u32>) -> u64 {
    let inside = (r.operands * r.pool_h * r.pool_w) as u64;
    let hw = r.pooled_h * r.pooled_w;
    let o = r.out_ch as u64;
    // (gather end, MAC end) of the last two iterations
    let (mut g_prev, mut m_prev, mut m_prev2) = (None::<u64>, None::<u64>, None::<u64>);
    let rows = row.map_or(0..r.out_h, |y| y..y + 1);
    // A sliding iteration gathers only the taps its neighbour does not share (D-CNN-SLIDE).
    let slide = Slide::of(r.mode, r.in_passes, r.chunks, r.kw, r.taps, r.out_w, r.dil);
    let first = row.unwrap_or(0);
    for oy in rows {
        for ox in 0..r.out_w {
            for _e in 0..r.in_passes {
                for k in 0..r.chunks {
                    let mut items = 0u64;
                    let sliding = slide.at(oy, ox, first);
                    for t in (0..r.taps).filter(|&t| slide.gathers(sliding, t, r.taps)) {
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
                    if ideal_gather {
                        items = 1;
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
    m_prev.unwrap_or(0) + LAYER_TAIL
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
    check_engine_run(plan, opts, shape)?;
    let mut loader = Loader {
        net,
        weights,
        plan,
        opts,
        shape,
        layers: Vec::new(),
        allocs: Vec::new(),
        kernels: vec![Vec::new(); shape.processors],
        bias: Vec::new(),
        next_col: 0,
        proc_next: [0; 64],
        wide_layers: Vec::new(),
    };
    for (pos, &ll) in plan.order.iter().enumerate() {
        loader.add_layer(pos, ll)?;
    }
    let stream = super::stream::setup(net, plan, &mut loader.layers, input, shape)?;
    let data = match &stream {
        Some(s) => {
            for e in &s.schedule {
                loader.layers[e.pos].slices.push(e.row);
            }
            Vec::new()
        }
        None => input_words(net, plan, input, shape)?,
    };
    Ok(EngineImage {
        shape: *shape,
        stream,
        layers: loader.layers,
        allocs: loader.allocs,
        kernels: loader.kernels,
        bias: loader.bias,
        data,
    })
}

/// The checks of the whole run before any layer: a valid engine shape, the silicon
/// semantics and at most [`MAX_LAYERS`] layers.
fn check_engine_run(plan: &Plan, opts: &RunOptions, shape: &EngineShape) -> Result<()> {
    if let Err(e) = shape.check() {
        return Err(CnnError::new(format!("the engine: {e}")));
    }
    if opts.semantics == Semantics::Document {
        return Err(CnnError::new(
            "the engine computes what the silicon computes; `--semantics document` is a model-only reading",
        ));
    }
    if plan.order.len() > MAX_LAYERS {
        return Err(CnnError::new(format!(
            "{} layers; the engine's sequencer runs at most {MAX_LAYERS}",
            plan.order.len()
        )));
    }
    Ok(())
}

/// An error about `key` of YAML layer `ll`, at the layer's line in the description.
fn layer_error(net: &NetworkDesc, ll: usize, key: &str, m: String) -> CnnError {
    CnnError::layer_key(ll, key, m).at_line(net.layers[ll].line)
}

/// What [`build`] accumulates while it loads the layers in run order.
struct Loader<'a> {
    net: &'a NetworkDesc,
    weights: &'a NetworkWeights,
    plan: &'a Plan,
    opts: &'a RunOptions,
    shape: &'a EngineShape,
    /// Layer registers so far.
    layers: Vec<LayerRegs>,
    /// Kernel allocations so far.
    allocs: Vec<KernelAlloc>,
    /// Kernel words per processor.
    kernels: Vec<Vec<u128>>,
    /// Bias bytes so far.
    bias: Vec<u8>,
    /// The first kernel column after the layers so far.
    next_col: usize,
    /// Per processor, the first kernel column after the layers so far that use it.
    proc_next: [usize; 64],
    /// Layers with 32-bit outputs so far.
    wide_layers: Vec<usize>,
}

/// How the engine runs a layer's operation: register mode, kernel shape, taps, flatten
/// chunks per channel, padding and dilation.
struct OpGeometry {
    mode: u32,
    kh: usize,
    kw: usize,
    taps: usize,
    chunks: usize,
    pad: [usize; 2],
    dil: usize,
}

/// A layer's values, beyond its description and plan, that its registers hold.
struct LayerSetup {
    /// The operation's geometry.
    geom: OpGeometry,
    /// The input is in CHW format (first layer only).
    chw: bool,
    /// Bits per weight.
    bits: usize,
    /// Total output shift.
    shift: i32,
    /// First kernel column.
    kstart: usize,
    /// Kernels per 72-bit word.
    per_word: usize,
    /// First bias byte.
    bias_start: usize,
    /// The layer adds a bias.
    has_bias: bool,
}

/// The pooling fields of a layer's registers.
struct Pooling {
    pool_h: usize,
    pool_w: usize,
    stride: [usize; 2],
    avg: bool,
    avg_round: bool,
    /// Pooling area (the average's divisor).
    area: u32,
    avg_m: u32,
    avg_sh: u32,
}

impl Loader<'_> {
    /// An error about `key` of YAML layer `ll`.
    fn err(&self, ll: usize, key: &str, m: String) -> CnnError {
        layer_error(self.net, ll, key, m)
    }

    /// Loads YAML layer `ll`, the `pos`-th in run order: checks it, places its kernels and
    /// bias, and encodes its registers.
    fn add_layer(&mut self, pos: usize, ll: usize) -> Result<()> {
        let (net, plan) = (self.net, self.plan);
        let l = &net.layers[ll];
        let p = plan.layer(ll);
        let w = self.weights.layers[ll].as_ref();
        self.check_layer(pos, ll)?;
        let chw = pos == 0 && l.data_format == DataFormat::Chw;
        let geom = self.op_geometry(ll)?;
        let identity = l.op == Op::Passthrough;
        // Identity kernels hold 0 or 1: 2-bit weights (36 1x1 kernels a word) take a
        // quarter of the kernel memory 8-bit ones would, with the same products.
        let bits = if identity {
            2
        } else {
            w.map_or(8, |w| w.bits) as usize
        };
        let shift = if identity {
            7
        } else {
            w.map_or(0, |w| w.shift)
        };
        let (kstart, per_word) = self.place_kernels(ll, &geom, bits, w)?;
        let (bias_start, has_bias) = self.place_bias(ll, w, identity)?;
        let pool = pooling(l, p, self.opts);
        if l.output_width == 32 {
            self.wide_layers.push(ll);
        }
        if p.in_dim[0] > 1023 || p.in_dim[1] > 1023 {
            return Err(self.err(
                ll,
                "in_dim",
                "the engine counts rows and columns up to 1023".into(),
            ));
        }
        let setup = LayerSetup {
            geom,
            chw,
            bits,
            shift,
            kstart,
            per_word,
            bias_start,
            has_bias,
        };
        let regs = layer_fields(l, p, &setup, &pool);
        if let Err((key, value, bits)) = regs.check() {
            return Err(self.err(
                ll,
                key,
                format!("{value} does not fit the engine's {bits}-bit layer-register field"),
            ));
        }
        self.layers.push(LayerRegs {
            layer: ll,
            regs,
            slices: Vec::new(),
        });
        Ok(())
    }

    /// What the engine cannot run: reads of a 32-bit output (D-CNN-WIDE), a re-view that
    /// changes the channel count, processors the engine lacks, too many output channels and
    /// unaligned offsets.
    fn check_layer(&self, pos: usize, ll: usize) -> Result<()> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let p_n = self.shape.processors;
        self.check_sources(pos, ll)?;
        for (m, key) in [
            (l.processors, "processors"),
            (p.out_map, "output_processors"),
        ] {
            if p_n < 64 && m >> p_n != 0 {
                return Err(self.err(
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
            return Err(self.err(
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
                return Err(self.err(ll, key, format!("0x{v:x} is not a multiple of 4")));
            }
        }
        Ok(())
    }

    /// The layer's sources: none may be a 32-bit output, and the first one's pixels must
    /// be the layer's input pixels (`in_dim` may not change the channel count), except
    /// where `--legacy-test` reads the operands as interleaved columns ([`Self::check_legacy`]).
    fn check_sources(&self, pos: usize, ll: usize) -> Result<()> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let plan = self.plan;
        let sources = self.sources(pos, ll);
        if let Some(&s) = sources
            .iter()
            .find(|&&s| s >= 0 && self.wide_layers.contains(&(s as usize)))
        {
            return Err(self.err(
                ll,
                "output_width",
                format!("the layer reads the 32-bit output of layer {s}, which the MAX78000 cannot: its processors read bytes, while izer's model passes the unclipped 32-bit values on (izer warns that `output_width` should be 8 for intermediate layers)"),
            ));
        }
        if self.opts.legacy_test && pos > 0 && l.operands > 1 {
            return self.check_legacy(ll, &sources);
        }
        let src_pixels = match sources[0] {
            s if s < 0 => plan.input[1] * plan.input[2],
            s => {
                let d = plan.layer(s as usize).out_dim;
                d[0] * d[1]
            }
        };
        let pixels = p.in_dim[0] * p.in_dim[1];
        if pixels != src_pixels {
            let hint = if l.operands > 1 && pixels * l.operands == src_pixels {
                format!(
                    "; the engine, like the silicon, reads the {} operands as interleaved words, which is the `--legacy-test` reading",
                    l.operands
                )
            } else {
                String::new()
            };
            return Err(self.err(
                ll,
                "in_dim",
                format!(
                    "`in_dim` {}x{} re-views {src_pixels} pixels as {pixels} and so changes the channel count; the model splits the channels logically, but a processor reads only its own channel's bytes in data memory{hint}",
                    p.in_dim[0], p.in_dim[1],
                ),
            ));
        }
        if pos > 0 && l.operands > 1 {
            return self.check_operands(ll, &sources);
        }
        Ok(())
    }

    /// An element-wise layer after the first (spec §2.11, the residual pattern): the silicon
    /// reads operand `k` of pixel `p` at word `(p passes + e) n + k` from the input offset,
    /// so the model's operands (the sources' channels, one source each) are what it reads
    /// only when source `k` writes there: `out_offset = in_offset + 4k`, `write_gap = n - 1`,
    /// on the layer's own processors. Anything else runs, on the silicon as here, on other
    /// values than the model's, and is refused naming the source to change.
    fn check_operands(&self, ll: usize, sources: &[isize]) -> Result<()> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let n = l.operands;
        let why = |m: String| {
            Err(self.err(
                ll,
                "in_sequences",
                format!("{m}; the engine, like the silicon, reads operand k of an element-wise layer after the first at in_offset + 4k, one word in {n}, so operand k's layer must write there: out_offset = in_offset + 4k, write_gap = {}", n - 1),
            ))
        };
        if sources.len() != n || sources.iter().any(|&s| s < 0) {
            return why(format!(
                "{n} operands from {} source(s) ({sources:?})",
                sources.len()
            ));
        }
        for (k, &s) in sources.iter().enumerate() {
            let src = &self.net.layers[s as usize];
            let want = p.in_offset + 4 * k as u32;
            if src.out_offset != want || src.write_gap as usize != n - 1 {
                return why(format!(
                    "operand {k} is layer {s}, which writes at 0x{:04x} with write_gap {} (needed: 0x{want:04x}, {})",
                    src.out_offset,
                    src.write_gap,
                    n - 1
                ));
            }
            if self.plan.layer(s as usize).out_map != l.processors {
                return why(format!(
                    "operand {k} is layer {s}, whose output processors 0x{:016x} are not the layer's processors 0x{:016x}",
                    self.plan.layer(s as usize).out_map,
                    l.processors
                ));
            }
        }
        Ok(())
    }

    /// The layers YAML layer `ll`, the `pos`-th in run order, reads (-1: the input).
    fn sources(&self, pos: usize, ll: usize) -> Vec<isize> {
        match &self.net.layers[ll].in_sequences {
            Some(s) => s.clone(),
            None if pos == 0 => vec![-1],
            None => vec![self.plan.order[pos - 1] as isize],
        }
    }

    /// An element-wise layer after the first under `--legacy-test` (D-CNN-LEGACY): operand
    /// `o` is the source's columns `o, o + n, ...`, which is what the engine reads when
    /// the operands' words interleave pixel by pixel: one 8-bit source layer written
    /// word after word (no `write_gap`, one pass) at the layer's input offset, its width a
    /// multiple of the operand count, and its pixels those of the operands together.
    fn check_legacy(&self, ll: usize, sources: &[isize]) -> Result<()> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let n = l.operands;
        let why = |key: &str, m: String| {
            Err(self.err(
                ll,
                key,
                format!("{m}; under --legacy-test the engine reads the {n} operands as the interleaved columns of one source layer"),
            ))
        };
        let &[s] = sources else {
            return why(
                "in_sequences",
                format!("the layer reads {} sources", sources.len()),
            );
        };
        if s < 0 {
            return why("in_sequences", "the layer reads the network input".into());
        }
        let (src, sp) = (&self.net.layers[s as usize], self.plan.layer(s as usize));
        if src.write_gap != 0 || sp.out_passes.0 != 1 || p.in_passes.0 != 1 {
            return why(
                "in_sequences",
                format!(
                    "layer {s} writes with a gap or in several passes, or the layer reads several"
                ),
            );
        }
        if p.in_offset != src.out_offset {
            return why(
                "in_offset",
                format!(
                    "0x{:x} is not layer {s}'s `out_offset` 0x{:x}",
                    p.in_offset, src.out_offset
                ),
            );
        }
        let [h, w] = sp.out_dim;
        if !w.is_multiple_of(n) || p.in_dim[0] * p.in_dim[1] * n != h * w {
            return why(
                "in_dim",
                format!(
                    "`in_dim` {}x{} is not layer {s}'s {h}x{w} output split into {n} column sets",
                    p.in_dim[0], p.in_dim[1]
                ),
            );
        }
        Ok(())
    }

    /// The operation's mode, taps and kernels; an error for kernels the engine does not
    /// run and for flattening layers that need more than 31 kernels per channel.
    fn op_geometry(&self, ll: usize) -> Result<OpGeometry> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let hw = p.pooled[0] * p.pooled[1];
        let g = |mode, kh, kw, taps, chunks, pad, dil| OpGeometry {
            mode,
            kh,
            kw,
            taps,
            chunks,
            pad,
            dil,
        };
        let geom = if l.flatten {
            g(1, 1, 9, 9, flatten_chunks(p.pooled), [0, 0], 1)
        } else {
            match l.op {
                Op::Conv2d => {
                    let k = l.kernel_size;
                    if !(k == [1, 1] || k == [3, 3]) {
                        return Err(self.err(
                            ll,
                            "kernel_size",
                            format!("{}x{} kernels; the engine runs 1x1 and 3x3", k[0], k[1]),
                        ));
                    }
                    g(0, k[0], k[1], k[0] * k[1], 1, l.pad, 1)
                }
                Op::Conv1d => {
                    let k = l.kernel_size[0];
                    if k > 9 || l.dilation[0] > 31 {
                        return Err(self.err(
                            ll,
                            "kernel_size",
                            format!("kernel {k}, dilation {}; the engine runs kernels 1..9 and dilation up to 31", l.dilation[0]),
                        ));
                    }
                    g(0, k, 1, k, 1, [l.pad[0], 0], l.dilation[0])
                }
                Op::Linear | Op::Passthrough => g(0, 1, 1, 1, 1, [0, 0], 1),
                Op::ConvTranspose2d => {
                    let k = l.kernel_size;
                    if k != [3, 3] {
                        return Err(self.err(
                            ll,
                            "kernel_size",
                            "transposed convolutions are 3x3".into(),
                        ));
                    }
                    if l.output_pad[0] > 1 || l.output_pad[1] > 1 {
                        return Err(self.err(
                            ll,
                            "output_padding",
                            "the engine supports output padding 0 or 1".into(),
                        ));
                    }
                    g(2, 3, 3, 9, 1, [2 - l.pad[0].min(2), 2 - l.pad[1].min(2)], 1)
                }
            }
        };
        if geom.chunks > 31 {
            let chunks = geom.chunks;
            return Err(self.err(ll, "flatten", format!("{hw} flattened pixels need {chunks} kernels per channel; the engine counts up to 31")));
        }
        Ok(geom)
    }

    /// Allocates the layer's kernel columns after the previous layer's (from a multiple of
    /// 4), writes its kernels (identity kernels for a passthrough or a layer without
    /// weights) and records the allocation. Returns the first column and kernels per word.
    fn place_kernels(
        &mut self,
        ll: usize,
        geom: &OpGeometry,
        bits: usize,
        w: Option<&LayerWeights>,
    ) -> Result<(usize, usize)> {
        let l = &self.net.layers[ll];
        let p = self.plan.layer(ll);
        let identity = l.op == Op::Passthrough;
        let (in_passes, in_thresh) = p.in_passes;
        let out_ch = p.out_ch;
        let taps = geom.taps;
        let slot = taps * bits;
        let count = in_passes * geom.chunks * out_ch;
        let (per_word, words) = kernel_packing(taps, bits, count);
        // The first column (a multiple of 4) free in every processor of the layer's map;
        // the other processors' columns are another layer's business (their windows are 0).
        let start = (0..64)
            .filter(|&q| l.processors >> q & 1 == 1)
            .map(|q| self.proc_next[q])
            .max()
            .unwrap_or(0)
            .next_multiple_of(4);
        if start + words > self.shape.kernel_words {
            return Err(self.err(
                ll,
                "processors",
                format!(
                    "kernel memory exceeded: the layer needs columns {start}..{} ({count} kernels of {slot} bits per processor), the engine has {}",
                    start + words,
                    self.shape.kernel_words
                ),
            ));
        }
        self.next_col = self.next_col.max(start + words);
        for q in (0..64).filter(|&q| l.processors >> q & 1 == 1) {
            self.proc_next[q] = start + words;
        }
        let layout = KernelLayout {
            start,
            words,
            per_word,
            bits,
            taps,
            kw: geom.kw,
            chunks: geom.chunks,
            in_passes,
            in_thresh,
            in_ch: p.in_ch,
            out_ch,
            hw: p.pooled[0] * p.pooled[1],
            flatten: l.flatten,
            identity,
            processors: l.processors,
        };
        for col in self.kernels.iter_mut() {
            col.resize(self.next_col, 0);
        }
        match w.filter(|_| !identity) {
            Some(w) => layout.encode(&w.kernels, &mut self.kernels),
            None => layout.encode_identity(&mut self.kernels),
        }
        self.allocs.push(KernelAlloc {
            layer: ll,
            start,
            words,
            per_word,
            kernels: count,
            layout,
        });
        Ok((start, per_word))
    }

    /// Appends the layer's bias bytes (if it has a bias) and checks they fit bias memory.
    /// Returns the first bias byte and whether the layer has a bias.
    fn place_bias(
        &mut self,
        ll: usize,
        w: Option<&LayerWeights>,
        identity: bool,
    ) -> Result<(usize, bool)> {
        let bias_start = self.bias.len();
        let has_bias = !identity && w.is_some_and(|w| w.bias.is_some());
        if has_bias {
            for &b in w.and_then(|w| w.bias.as_ref()).expect("bias") {
                self.bias.push(b as u8);
            }
            if self.bias.len() > self.shape.bias_bytes() {
                return Err(self.err(
                    ll,
                    "bias",
                    format!(
                        "bias memory exceeded: {} bytes, the engine has {}",
                        self.bias.len(),
                        self.shape.bias_bytes()
                    ),
                ));
            }
        }
        Ok((bias_start, has_bias))
    }
}

/// The layer's pooling: window, stride, and the average's divisor as a magic multiplier
/// and shift ([`avg_magic`]; twice the area when rounding).
fn pooling(l: &LayerDesc, p: &LayerPlan, opts: &RunOptions) -> Pooling {
    let pooling = l.pool_size != [1, 1] || l.pool_stride != [1, 1];
    let (pool_h, pool_w, stride) = if pooling {
        (l.pool_size[0], l.pool_size[1], l.pool_stride)
    } else {
        (1, 1, [1, 1])
    };
    let avg = pooling && l.pool == Some(PoolKind::Avg);
    let avg_round = avg && opts.avg_pool_rounding && !p.one_d;
    let area = (pool_h * pool_w) as u32;
    let (avg_m, avg_sh) = avg_magic(if avg_round { 2 * area } else { area });
    Pooling {
        pool_h,
        pool_w,
        stride,
        avg,
        avg_round,
        area,
        avg_m,
        avg_sh,
    }
}

/// The element-wise operation's register code (0 for a single operand).
fn eltwise_code(l: &LayerDesc) -> u32 {
    if l.operands > 1 {
        match l.eltwise.unwrap_or(Eltwise::Add) {
            Eltwise::Add => 2,
            Eltwise::Sub => 3,
            Eltwise::Or => 4,
            Eltwise::Xor => 5,
        }
    } else {
        0
    }
}

/// The register fields of a layer (unchecked).
fn layer_fields(l: &LayerDesc, p: &LayerPlan, s: &LayerSetup, pool: &Pooling) -> LayerFields {
    let g = &s.geom;
    let r = 7 - s.shift;
    LayerFields {
        mode: g.mode,
        chw: s.chw,
        bias: s.has_bias,
        wide: l.output_width == 32,
        act: match l.activation {
            Activation::None => 0,
            Activation::Relu => 1,
            Activation::Abs => 2,
        },
        elt: eltwise_code(l),
        pool_first: l.pool_first,
        pool_avg: pool.avg,
        avg_round: pool.avg_round,
        bits: s.bits as u32,
        rshift: r.max(0) as u32,
        lshift: (-r).max(0) as u32,
        in_h: p.in_dim[0] as u32,
        in_w: p.in_dim[1] as u32,
        in_passes: p.in_passes.0 as u32,
        operands: l.operands as u32,
        in_base: p.in_offset / 4,
        out_base: l.out_offset / 4,
        pool_h: pool.pool_h as u32,
        pool_w: pool.pool_w as u32,
        stride_y: pool.stride[0] as u32,
        stride_x: pool.stride[1] as u32,
        pooled_h: p.pooled[0] as u32,
        pooled_w: p.pooled[1] as u32,
        kh: g.kh as u32,
        kw: g.kw as u32,
        dil: g.dil as u32,
        pad_y: g.pad[0] as u32,
        pad_x: g.pad[1] as u32,
        out_h: p.out_dim[0] as u32,
        out_w: p.out_dim[1] as u32,
        chunks: g.chunks as u32,
        taps: g.taps as u32,
        out_ch: p.out_ch as u32,
        kstart: s.kstart as u32,
        per_word: s.per_word as u32,
        slot: (g.taps * s.bits) as u32,
        bias_start: s.bias_start as u32,
        out_passes: p.out_passes.0 as u32,
        out_thresh: p.out_passes.1 as u32,
        avg_m: pool.avg_m,
        avg_sh: pool.avg_sh,
        avg_d: pool.area,
        gap: l.write_gap + 1,
        in_map: l.processors,
        out_map: p.out_map,
        in_roll: 0,
        out_roll: 0,
        linebuf: false,
    }
}

/// The input's data-memory words `(instance, word, value)`, from the first layer's input
/// blocks; an error for a word outside the engine's data memories.
fn input_words(
    net: &NetworkDesc,
    plan: &Plan,
    input: &Tensor,
    shape: &EngineShape,
) -> Result<Vec<(usize, usize, u32)>> {
    let first = plan.order[0];
    let blocks = memory::input_blocks(&net.layers[first], plan.layer(first), input, &plan.device)?;
    let mut data = Vec::new();
    for b in &blocks {
        for (i, &v) in b.words.iter().enumerate() {
            let a = b.address + 4 * i as u32;
            let (inst, word) = data_location(shape, a).ok_or_else(|| {
                layer_error(
                    net,
                    first,
                    "processors",
                    format!("input word at 0x{a:08x} is outside the engine's data memories"),
                )
            })?;
            if word >= edgelearn_hdl::cnn::DATA_WORDS {
                return Err(layer_error(
                    net,
                    first,
                    "in_offset",
                    "the input does not fit its data-memory instance".into(),
                ));
            }
            data.push((inst, word, v));
        }
    }
    Ok(data)
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

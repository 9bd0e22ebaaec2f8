//! Weights and biases of a network, from an ai8x quantized checkpoint (`*-q.pth.tar`) or from
//! sample-weight arrays (`.npy` / `.npz`, as ai8x's layer tests use), turned into the integers
//! the accelerator holds: kernels in `[-2^(q-1), 2^(q-1) - 1]`, 8-bit biases, and the total
//! output shift of every layer.
//!
//! The rules follow the ai8x network loader (spec §1.2, §1.3, §1.9, §4):
//! * checkpoint `*.weight` tensors map, in file order, to the YAML layers that have weights
//!   (passthrough and element-wise-only layers take none); surplus tensors are ignored;
//! * weight values are truncated to integers without scaling;
//! * the weight width is the YAML `quantization`, else the checkpoint's `weight_bits`, else 8
//!   (1 if every weight is 0); weights outside that width are an error;
//! * a checkpoint bias `b` becomes `floor(b / 2^(weight_bits - 1))` (8-bit), added to the
//!   accumulator as `b * 128`; sample biases are used as they are;
//! * the total output shift is `output_shift` (YAML, else checkpoint, else 0) + `8 - bits`;
//! * ConvTranspose2d checkpoint kernels are flipped and their in/out axes swapped.

use super::desc::{LayerDesc, NetworkDesc, Op};
use super::error::{CnnError, Result};
use super::ops::Kernels;
use crate::formats::npy::{self, NpyArray};
use crate::formats::torch::{self, Checkpoint};
use std::path::Path;

/// The weights of one layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerWeights {
    /// Kernels as the hardware correlates them.
    pub kernels: Kernels,
    /// 8-bit biases per output channel (added as `b * 128`).
    pub bias: Option<Vec<i64>>,
    /// Weight width in bits (1, 2, 4, 8).
    pub bits: u32,
    /// Total output shift (`output_shift + 8 - bits`), before the range check.
    pub shift: i32,
    /// Where the weights came from (checkpoint key or array index).
    pub source: String,
}

/// The weights of every layer (None for layers without weights).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkWeights {
    /// Per YAML layer.
    pub layers: Vec<Option<LayerWeights>>,
    /// The checkpoint's `arch`, if it came from a checkpoint.
    pub arch: Option<String>,
}

/// Reads weights for `net` from `path`: a PyTorch checkpoint, or `.npy`/`.npz` sample weights.
/// `bias` is an optional sample-bias file (`.npy` with one array per layer with weights).
pub fn load(net: &NetworkDesc, path: &Path, bias: Option<&Path>) -> Result<NetworkWeights> {
    let shown = path.display().to_string();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let mut w = if name.ends_with(".npy") {
        let arrays = npy::load_npy_all(path)?;
        from_sample_arrays(net, arrays).map_err(|e| e.in_file(&shown))?
    } else if name.ends_with(".npz") {
        let mut arrays = npy::load_npz(path)?;
        if arrays.iter().any(|(k, _)| k.ends_with(".weight")) {
            // A state dict saved as .npz (what `cnn finetune --out` writes).
            let ck = state_dict_checkpoint(arrays);
            from_checkpoint(net, &ck).map_err(|e| e.in_file(&shown))?
        } else {
            arrays.sort_by_key(|a| natural_key(&a.0));
            from_sample_arrays(net, arrays.into_iter().map(|(_, a)| a).collect())
                .map_err(|e| e.in_file(&shown))?
        }
    } else {
        let ck = torch::load_checkpoint(path)?;
        from_checkpoint(net, &ck).map_err(|e| e.in_file(&shown))?
    };
    if let Some(bpath) = bias {
        let bshown = bpath.display().to_string();
        let arrays = npy::load_npy_all(bpath)?;
        apply_sample_bias(net, &mut w, arrays).map_err(|e| e.in_file(&bshown))?;
    }
    Ok(w)
}

/// An `.npz` state dict (members named like checkpoint tensors: `conv1.op.weight`,
/// `fc.op.bias`, `fc.output_shift`, ...) read as a checkpoint without `arch`.
fn state_dict_checkpoint(arrays: Vec<(String, NpyArray)>) -> Checkpoint {
    let state_dict = arrays
        .into_iter()
        .map(|(k, a)| {
            let t = torch::Tensor {
                shape: a.shape.clone(),
                dtype: torch::DType::Float64,
                data: a.to_f64(),
            };
            (k, t)
        })
        .collect();
    Checkpoint {
        entries: vec![],
        state_dict,
        arch: None,
        epoch: None,
    }
}

/// The weights as an `.npz` state dict that [`load`] reads back to the same integers: per
/// layer with weights, in layer order, `NAME.weight` (int64, PyTorch layout: `(out, in)`,
/// `(out, in, k)`, `(out, in, kh, kw)`, or `(in, out, kh, kw)` unflipped for
/// ConvTranspose2d), `NAME.bias` (the 8-bit bias times `2^(bits-1)`, as a quantized
/// checkpoint stores it), `NAME.weight_bits` and `NAME.output_shift`. NAME is the checkpoint
/// key the layer came from (`fc.op`), or `layerNN.op` for sample weights.
pub fn state_dict_npz(net: &NetworkDesc, w: &NetworkWeights) -> Vec<u8> {
    let mut members = Vec::new();
    for (ll, lw) in w.layers.iter().enumerate() {
        let Some(lw) = lw else { continue };
        if !consumes_weights(net, ll) {
            continue;
        }
        let prefix = lw
            .source
            .strip_suffix(".weight")
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| format!("layer{ll:02}.op"));
        let scalar_base = match prefix.rsplit_once('.') {
            Some((base, _)) => base.to_string(),
            None => prefix.clone(),
        };
        let k = &lw.kernels;
        let (shape, data) = match net.layers[ll].op {
            Op::Linear => (vec![k.out_ch, k.in_ch], k.w.clone()),
            Op::Conv1d => (vec![k.out_ch, k.in_ch, k.kh], k.w.clone()),
            Op::ConvTranspose2d => {
                let t = unflip_swap(k);
                (vec![t.out_ch, t.in_ch, t.kh, t.kw], t.w)
            }
            _ if k.kh == 1 && k.kw == 1 && net.layers[ll].kernel_size == [1, 1] => {
                (vec![k.out_ch, k.in_ch, 1, 1], k.w.clone())
            }
            _ => (vec![k.out_ch, k.in_ch, k.kh, k.kw], k.w.clone()),
        };
        members.push((
            format!("{prefix}.weight"),
            npy::encode_npy_i64(&shape, &data),
        ));
        if let Some(b) = &lw.bias {
            let scale = 1i64 << (lw.bits - 1);
            let v: Vec<i64> = b.iter().map(|v| v * scale).collect();
            members.push((
                format!("{prefix}.bias"),
                npy::encode_npy_i64(&[v.len()], &v),
            ));
        }
        let output_shift = lw.shift as i64 - 8 + lw.bits as i64;
        members.push((
            format!("{scalar_base}.weight_bits"),
            npy::encode_npy_i64(&[1], &[lw.bits as i64]),
        ));
        members.push((
            format!("{scalar_base}.output_shift"),
            npy::encode_npy_i64(&[1], &[output_shift]),
        ));
    }
    npy::encode_npz(&members)
}

/// The inverse of [`flip_swap`]: correlation kernels `(out, in, kh, kw)` back to PyTorch
/// ConvTranspose2d weights `(in, out, kh, kw)`, stored in a [`Kernels`] whose `out_ch` is
/// the PyTorch first axis.
fn unflip_swap(k: &Kernels) -> Kernels {
    let (cout, cin) = (k.out_ch, k.in_ch);
    let mut w = vec![0; k.w.len()];
    for o in 0..cout {
        for i in 0..cin {
            for y in 0..k.kh {
                for x in 0..k.kw {
                    let src = ((o * cin + i) * k.kh + y) * k.kw + x;
                    let dst = ((i * cout + o) * k.kh + (k.kh - 1 - y)) * k.kw + (k.kw - 1 - x);
                    w[dst] = k.w[src];
                }
            }
        }
    }
    Kernels {
        out_ch: cin,
        in_ch: cout,
        kh: k.kh,
        kw: k.kw,
        w,
    }
}

fn natural_key(s: &str) -> (String, u64) {
    let digits: String = s
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let stem = s[..s.len() - digits.len()].to_string();
    (stem, digits.parse().unwrap_or(0))
}

/// Whether layer `i` takes weights from the weight file.
fn consumes_weights(net: &NetworkDesc, i: usize) -> bool {
    let l = &net.layers[i];
    l.op.has_weights() && l.weight_source.is_none()
}

fn bits_range(bits: u32) -> (i64, i64) {
    (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
}

/// Builds the weights from a checkpoint (ai8x `checkpoint.py` rules).
pub fn from_checkpoint(net: &NetworkDesc, ck: &Checkpoint) -> Result<NetworkWeights> {
    check_checkpoint(net, ck)?;
    let n = net.layers.len();
    let mut layers: Vec<Option<LayerWeights>> = vec![None; n];
    let mut seq = 0usize;
    let mut used = 0usize;
    for (key, tensor) in &ck.state_dict {
        while seq < n && !consumes_weights(net, seq) {
            seq += 1;
        }
        let parts: Vec<&str> = key.rsplitn(3, '.').collect();
        let (layer_name, this_op, param) = match parts.as_slice() {
            [p, o, l] => (l.to_string(), Some(o.to_string()), *p),
            [p, l] => (l.to_string(), None, *p),
            _ => continue,
        };
        if param != "weight" || seq >= n {
            continue;
        }
        let t = CheckpointTensor {
            ck,
            ll: seq,
            l: &net.layers[seq],
            key,
            tensor,
            layer_name,
            this_op,
        };
        layers[seq] = Some(t.layer_weights()?);
        used += 1;
        seq += 1;
    }
    check_all_weighted(net, used)?;
    share_weights(net, &mut layers)?;
    Ok(NetworkWeights {
        layers,
        arch: ck.arch.clone(),
    })
}

/// The checkpoint holds tensors, and its `arch` (if any) is the description's (if any).
fn check_checkpoint(net: &NetworkDesc, ck: &Checkpoint) -> Result<()> {
    if ck.state_dict.is_empty() {
        return Err(CnnError::new(
            "the checkpoint has no `state_dict` (or it holds no tensors)",
        ));
    }
    if !net.arch.is_empty() {
        match &ck.arch {
            Some(a) if !a.eq_ignore_ascii_case(&net.arch) => {
                return Err(CnnError::new(format!(
                    "network architecture of the description ({}) does not match the architecture of the checkpoint ({a}); use the checkpoint trained for this network",
                    net.arch
                ))
                .with_key("arch"))
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every layer that takes weights got a tensor: `used` of them did, in layer order.
fn check_all_weighted(net: &NetworkDesc, used: usize) -> Result<()> {
    let n = net.layers.len();
    let wanted = (0..n).filter(|&i| consumes_weights(net, i)).count();
    if used < wanted {
        let missing = (0..n)
            .filter(|&i| consumes_weights(net, i))
            .nth(used)
            .unwrap_or(0);
        return Err(CnnError::new(format!(
            "the network has {wanted} layers with weights, but the checkpoint holds only {used} weight tensors (layer {missing} gets none)"
        )));
    }
    Ok(())
}

/// A checkpoint `*.weight` tensor and the YAML layer it maps to.
struct CheckpointTensor<'a> {
    ck: &'a Checkpoint,
    /// The layer's index.
    ll: usize,
    /// The layer.
    l: &'a LayerDesc,
    /// The tensor's key (`conv1.op.weight`).
    key: &'a str,
    tensor: &'a torch::Tensor,
    /// The key before the operation and parameter (`conv1`).
    layer_name: String,
    /// The operation in the key (`op`), if the key has three parts.
    this_op: Option<String>,
}

impl CheckpointTensor<'_> {
    /// An error about the layer, naming the tensor's key.
    fn at(&self, m: String) -> CnnError {
        CnnError::layer(self.ll, m).with_key(self.key)
    }

    /// The layer's weights: integer kernels, weight width, total shift and 8-bit bias.
    fn layer_weights(&self) -> Result<LayerWeights> {
        let l = self.l;
        let tensor = self.tensor;
        if tensor.shape.len() <= 1 {
            let hint = if self.this_op.as_deref() == Some("bn") {
                " (fold the BatchNorm layers into the convolutions before quantizing)"
            } else {
                ""
            };
            return Err(self.at(format!(
                "1-dimensional weights of shape {:?}{hint}",
                tensor.shape
            )));
        }
        let w = self.integer_weights()?;
        let ckpt_bits = self.scalar("weight_bits")?;
        let ckpt_shift = self.scalar("output_shift")?;
        let bits = self.weight_bits(&w, ckpt_bits)?;
        let shift = l.output_shift.map(i64::from).or(ckpt_shift).unwrap_or(0) + 8 - bits as i64;
        let shift =
            i32::try_from(shift).map_err(|_| self.at("output shift out of range".into()))?;
        let bias_name = match &self.this_op {
            Some(o) => format!("{}.{o}.bias", self.layer_name),
            None => format!("{}.bias", self.layer_name),
        };
        let bias = self.bias(&bias_name, ckpt_bits)?;
        let kernels = self.kernels(w)?;
        if let Some(b) = &bias {
            if b.len() != kernels.out_ch {
                return Err(CnnError::layer(
                    self.ll,
                    format!(
                        "`{bias_name}` has {} values for {} output channels",
                        b.len(),
                        kernels.out_ch
                    ),
                ));
            }
        }
        Ok(LayerWeights {
            kernels,
            bias,
            bits,
            shift,
            source: self.key.to_string(),
        })
    }

    /// The weights as integers: float -> int64 truncates toward zero, without scaling (as
    /// numpy's astype does); an error for a value that is not finite or too large.
    fn integer_weights(&self) -> Result<Vec<i64>> {
        let mut w: Vec<i64> = Vec::with_capacity(self.tensor.data.len());
        for (i, &v) in self.tensor.data.iter().enumerate() {
            if !v.is_finite() || v.abs() >= 9.2e18 {
                return Err(self.at(format!("element {i} is {v}, not a weight")));
            }
            w.push(v.trunc() as i64);
        }
        Ok(w)
    }

    /// The layer's checkpoint scalar `LAYER.suffix` (truncated), if present: one number,
    /// or a tensor whose values are all the same.
    fn scalar(&self, suffix: &str) -> Result<Option<i64>> {
        let name = format!("{}.{suffix}", self.layer_name);
        match self.ck.tensor(&name) {
            None => Ok(None),
            Some(t) if t.data.len() == 1 && t.data[0].is_finite() => {
                Ok(Some(t.data[0].trunc() as i64))
            }
            Some(t) if !t.data.is_empty() && t.data.iter().all(|v| *v == t.data[0]) => {
                Ok(Some(t.data[0].trunc() as i64))
            }
            Some(t) => Err(self.at(format!(
                "`{name}` must hold one number, not shape {:?}",
                t.shape
            ))),
        }
    }

    /// The weight width: YAML `quantization`, else 1 if every weight is 0, else the
    /// checkpoint's `weight_bits` (8 if absent or 0); an error if the weights do not fit.
    fn weight_bits(&self, w: &[i64], ckpt_bits: Option<i64>) -> Result<u32> {
        let l = self.l;
        let (wmin, wmax) = (
            w.iter().copied().min().unwrap_or(0),
            w.iter().copied().max().unwrap_or(0),
        );
        let bits = match l.quantization {
            Some(q) => q,
            None if w.iter().all(|&v| v == 0) => 1,
            None => match ckpt_bits {
                None | Some(0) => 8,
                Some(b @ (1 | 2 | 4 | 8)) => b as u32,
                Some(b) => {
                    return Err(self.at(format!(
                        "`{}.weight_bits` is {b}; the device supports 1, 2, 4 or 8",
                        self.layer_name
                    )))
                }
            },
        };
        let (lo, hi) = bits_range(bits);
        if wmin < lo || wmax > hi {
            return Err(self.at(format!(
                "weights span [{wmin}, {wmax}], which does not fit {bits}-bit quantization [{lo}, {hi}]{}",
                if l.quantization.is_some() {
                    " (YAML `quantization`)"
                } else {
                    ""
                }
            )));
        }
        Ok(bits)
    }

    /// The 8-bit bias from checkpoint tensor `bias_name`, if present:
    /// `floor(b / 2^(weight_bits - 1))`; an error for a value outside [-128, 127].
    fn bias(&self, bias_name: &str, ckpt_bits: Option<i64>) -> Result<Option<Vec<i64>>> {
        let Some(t) = self.ck.tensor(bias_name) else {
            return Ok(None);
        };
        let wb = match ckpt_bits {
            None | Some(0) => 8,
            Some(b) => b.clamp(1, 8),
        };
        let div = (1i64 << (wb - 1)) as f64;
        let mut b = Vec::with_capacity(t.data.len());
        for &v in &t.data {
            let q = (v / div).floor();
            if !(-128.0..=127.0).contains(&q) {
                return Err(CnnError::layer(
                    self.ll,
                    format!(
                        "bias value {v} of `{bias_name}` is {q} after scaling by 1/{div}, outside the 8-bit range [-128, 127]"
                    ),
                ));
            }
            b.push(q as i64);
        }
        Ok(Some(b))
    }

    /// The kernels `w` in the tensor's shape, which must fit the layer: 2-D for linear (or
    /// 1x1), 3-D for conv1d, 4-D for conv2d (ConvTranspose2d flipped and swapped).
    fn kernels(&self, w: Vec<i64>) -> Result<Kernels> {
        let l = self.l;
        let shape = &self.tensor.shape;
        Ok(match shape.len() {
            2 => {
                if l.op != Op::Linear && l.kernel_size != [1, 1] {
                    return Err(self.at(format!(
                        "2-D (fully connected) weights {:?} for a layer with kernel {}x{}; set `op: linear` or `kernel_size: 1x1`",
                        shape, l.kernel_size[0], l.kernel_size[1]
                    )));
                }
                Kernels {
                    out_ch: shape[0],
                    in_ch: shape[1],
                    kh: 1,
                    kw: 1,
                    w,
                }
            }
            3 => {
                if l.op != Op::Conv1d || shape[2] != l.kernel_size[0] {
                    return Err(self.at(format!(
                        "1-D convolution weights {:?} need `op: conv1d` with `kernel_size: {}` (the layer has {} with kernel {})",
                        shape,
                        shape[2],
                        l.op.name(),
                        l.kernel_size[0]
                    )));
                }
                Kernels {
                    out_ch: shape[0],
                    in_ch: shape[1],
                    kh: shape[2],
                    kw: 1,
                    w,
                }
            }
            4 => {
                let (kh, kw) = (shape[2], shape[3]);
                if [kh, kw] != l.kernel_size || matches!(l.op, Op::Conv1d) {
                    return Err(self.at(format!(
                        "weights {:?} have {kh}x{kw} kernels, but the layer is {} with kernel_size {}x{}",
                        shape,
                        l.op.name(),
                        l.kernel_size[0],
                        l.kernel_size[1]
                    )));
                }
                let k = Kernels {
                    out_ch: shape[0],
                    in_ch: shape[1],
                    kh,
                    kw,
                    w,
                };
                if l.op == Op::ConvTranspose2d {
                    flip_swap(&k)
                } else {
                    k
                }
            }
            _ => {
                return Err(self.at(format!(
                "weights of shape {:?}: expected 2 (linear), 3 (conv1d) or 4 (conv2d) dimensions",
                shape
            )))
            }
        })
    }
}

/// PyTorch ConvTranspose2d weights `(in, out, kh, kw)` → correlation kernels `(out, in, kh, kw)`
/// flipped in both spatial axes.
fn flip_swap(k: &Kernels) -> Kernels {
    let (cin, cout) = (k.out_ch, k.in_ch); // PyTorch order: first axis is `in`
    let mut w = vec![0; k.w.len()];
    for i in 0..cin {
        for o in 0..cout {
            for y in 0..k.kh {
                for x in 0..k.kw {
                    let src = ((i * cout + o) * k.kh + y) * k.kw + x;
                    let dst = ((o * cin + i) * k.kh + (k.kh - 1 - y)) * k.kw + (k.kw - 1 - x);
                    w[dst] = k.w[src];
                }
            }
        }
    }
    Kernels {
        out_ch: cout,
        in_ch: cin,
        kh: k.kh,
        kw: k.kw,
        w,
    }
}

fn share_weights(net: &NetworkDesc, layers: &mut [Option<LayerWeights>]) -> Result<()> {
    for i in 0..net.layers.len() {
        if let Some(src) = net.layers[i].weight_source {
            let w = layers[src].clone().ok_or_else(|| {
                CnnError::layer_key(
                    i,
                    "weight_source",
                    format!("layer {src} has no weights to share"),
                )
            })?;
            layers[i] = Some(w);
        }
    }
    Ok(())
}

fn fls(x: i64) -> i64 {
    if x == 0 {
        -1
    } else {
        63 - x.leading_zeros() as i64
    }
}

/// The sample-weight arrays as `(shape, values)` per layer with weights: the arrays in
/// order, or, for one array, its slices along the first axis (which indexes the layers).
fn sample_layer_arrays(arrays: &[NpyArray]) -> Result<Vec<(Vec<usize>, Vec<i64>)>> {
    if arrays.len() == 1 {
        let a = &arrays[0];
        let vals = a
            .to_i64()
            .map_err(|m| CnnError::new(format!("sample weights: {m}")))?;
        if a.shape.len() < 3 {
            return Err(CnnError::new(format!(
                "a single sample-weight array must be shaped (layers, out, in, k...), not {:?}",
                a.shape
            )));
        }
        let sub: usize = a.shape[1..].iter().product();
        Ok((0..a.shape[0])
            .map(|i| (a.shape[1..].to_vec(), vals[i * sub..(i + 1) * sub].to_vec()))
            .collect())
    } else {
        arrays
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.to_i64()
                    .map(|v| (a.shape.clone(), v))
                    .map_err(|m| CnnError::new(format!("sample-weight array {i}: {m}")))
            })
            .collect::<Result<_>>()
    }
}

/// Builds the weights from sample-weight arrays (ai8x `sampleweight.py` rules): one array per
/// layer with weights, or a single array whose first axis indexes the layers. Values wider than
/// the layer's `quantization` are shifted right (floor) to fit, as ai8x does.
pub fn from_sample_arrays(net: &NetworkDesc, arrays: Vec<NpyArray>) -> Result<NetworkWeights> {
    if arrays.is_empty() {
        return Err(CnnError::new("the weight file holds no arrays"));
    }
    let per_layer = sample_layer_arrays(&arrays)?;
    let n = net.layers.len();
    let mut layers: Vec<Option<LayerWeights>> = vec![None; n];
    let mut next = 0usize;
    #[allow(clippy::needless_range_loop)] // `ll` is also the layer index in messages
    for ll in 0..n {
        if !consumes_weights(net, ll) {
            continue;
        }
        let l = &net.layers[ll];
        let Some((shape, mut w)) = per_layer.get(next).cloned() else {
            return Err(CnnError::layer(
                ll,
                format!(
                    "the weight file holds {} layer arrays, but layer {ll} needs one more",
                    per_layer.len()
                ),
            ));
        };
        let at = |m: String| CnnError::layer(ll, m).with_key(&format!("array {next}"));
        let quant = l.quantization.unwrap_or(8);
        let mut max_w = w.iter().copied().max().unwrap_or(0);
        let mut min_w = w.iter().copied().min().unwrap_or(0);
        if max_w < 0 {
            max_w += 1;
        }
        if min_w < 0 {
            min_w += 1;
        }
        let current = fls(min_w.abs()).max(fls(max_w.abs())) + 2;
        if current > 8 {
            return Err(at("the weights include values wider than 8 bits".into()));
        }
        if current > quant as i64 {
            let s = current - quant as i64;
            for v in &mut w {
                *v >>= s;
            }
        }
        let shift = l.output_shift.unwrap_or(0) + 8 - quant as i32;
        let kernels = match shape.len() {
            2 => Kernels {
                out_ch: shape[0],
                in_ch: shape[1],
                kh: 1,
                kw: 1,
                w,
            },
            3 => Kernels {
                out_ch: shape[0],
                in_ch: shape[1],
                kh: shape[2],
                kw: 1,
                w,
            },
            4 => Kernels {
                out_ch: shape[0],
                in_ch: shape[1],
                kh: shape[2],
                kw: shape[3],
                w,
            },
            _ => {
                return Err(at(format!(
                "weights of shape {shape:?}: expected (out, in), (out, in, k) or (out, in, kh, kw)"
            )))
            }
        };
        let want = l.kernel_size;
        let ok = match l.op {
            Op::Conv1d => kernels.kw == 1 && kernels.kh == want[0],
            _ => [kernels.kh, kernels.kw] == want,
        };
        if !ok {
            return Err(at(format!(
                "weights of shape {shape:?} do not match {} with kernel_size {}x{}",
                l.op.name(),
                want[0],
                want[1]
            )));
        }
        layers[ll] = Some(LayerWeights {
            kernels,
            bias: None,
            bits: quant,
            shift,
            source: format!("array {next}"),
        });
        next += 1;
    }
    share_weights(net, &mut layers)?;
    Ok(NetworkWeights { layers, arch: None })
}

/// Adds sample biases: one array per layer with weights, used as they are (`acc += b * 128`).
pub fn apply_sample_bias(
    net: &NetworkDesc,
    w: &mut NetworkWeights,
    arrays: Vec<NpyArray>,
) -> Result<()> {
    let mut it = arrays.into_iter().enumerate();
    for ll in 0..net.layers.len() {
        if !consumes_weights(net, ll) {
            continue;
        }
        let Some((i, a)) = it.next() else { break };
        let vals = a
            .to_i64()
            .map_err(|m| CnnError::new(format!("bias array {i}: {m}")))?;
        let Some(lw) = w.layers[ll].as_mut() else {
            continue;
        };
        if vals.len() != lw.kernels.out_ch {
            return Err(CnnError::layer(
                ll,
                format!(
                    "bias array {i} has {} values for {} output channels",
                    vals.len(),
                    lw.kernels.out_ch
                ),
            ));
        }
        if let Some(v) = vals.iter().find(|v| !(-128..=127).contains(*v)) {
            return Err(CnnError::layer(
                ll,
                format!("bias array {i} holds {v}, outside the 8-bit range [-128, 127]"),
            ));
        }
        lw.bias = Some(vals);
    }
    share_weights(net, &mut w.layers)
}

/// Reads the network input: an integer `.npy` shaped `(C, H, W)`, or `(C, L)` for 1-D data
/// (viewed as `(C, L, 1)`), with every value in [-128, 127]. Any integer dtype is accepted.
pub fn load_input(path: &Path) -> Result<super::ops::Tensor> {
    let shown = path.display().to_string();
    let a = npy::load_npy(path)?;
    input_from_array(&a).map_err(|e| e.in_file(&shown))
}

/// See [`load_input`].
pub fn input_from_array(a: &NpyArray) -> Result<super::ops::Tensor> {
    if matches!(a.data, npy::NpyData::Float(_)) {
        return Err(CnnError::new(format!(
            "the sample input has dtype {}; it must hold integers (int8 to int64)",
            a.dtype
        )));
    }
    let vals = a
        .to_i64()
        .map_err(|m| CnnError::new(format!("sample input: {m}")))?;
    let (c, h, w) = match a.shape.as_slice() {
        [c, h, w] => (*c, *h, *w),
        [c, l] => (*c, *l, 1),
        other => {
            return Err(CnnError::new(format!(
                "the sample input has shape {other:?}; it must be (C, H, W), or (C, L) for 1-D data"
            )))
        }
    };
    if c == 0 || h == 0 || w == 0 {
        return Err(CnnError::new(format!(
            "the sample input has an empty dimension: {:?}",
            a.shape
        )));
    }
    if let (Some(lo), Some(hi)) = (vals.iter().min(), vals.iter().max()) {
        if *lo < -128 || *hi > 127 {
            return Err(CnnError::new(format!(
                "the sample input holds values outside signed 8 bits (min {lo}, max {hi})"
            )));
        }
    }
    Ok(super::ops::Tensor::from_vec(c, h, w, vals))
}

//! Network descriptions: ai8x YAML as ai8x users write it, read into [`NetworkDesc`].
//!
//! Every global and per-layer key of the ai8x network loader is accepted, with its aliases
//! (`op`/`operation`/`operator`/`convolution`, `activate`/`activation`, `groups`/`conv_groups`,
//! `in_skip`/`read_gap`, `bias_group`/`bias_quadrant`) and its defaults (`op: conv2d`, `pad: 1`
//! for convolutions and 0 otherwise, `pool_stride: 1`, kernel 3x3 for Conv2d and 9 for Conv1d,
//! stride 2 and output padding 1 for ConvTranspose2d, `output_width: 8`, `data_format: HWC`).
//! Structural checks that need only the YAML (values of each key, MAX78000 feature limits)
//! happen here; checks that need channel counts and shapes happen in [`super::plan`].
//! Every error names the layer index and the key, and the line of the file.

use super::device::Device;
use super::error::{CnnError, Result};
use super::yamltree::{self, Node, Value};
use std::path::Path;

/// The main operation of a layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// No operation (pooling only, element-wise only, or a copy).
    Passthrough,
    /// 2-D convolution, 1x1 or 3x3.
    Conv2d,
    /// 1-D convolution, kernel 1..9.
    Conv1d,
    /// Transposed 2-D convolution, 3x3, stride 2.
    ConvTranspose2d,
    /// Fully connected (a 1x1 convolution on 1x1 data).
    Linear,
}

impl Op {
    /// The name shown in tables.
    pub fn name(self) -> &'static str {
        match self {
            Op::Passthrough => "passthrough",
            Op::Conv2d => "conv2d",
            Op::Conv1d => "conv1d",
            Op::ConvTranspose2d => "convtranspose2d",
            Op::Linear => "linear",
        }
    }

    /// Whether the operation has weights.
    pub fn has_weights(self) -> bool {
        self != Op::Passthrough
    }
}

/// An element-wise operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Eltwise {
    /// Sum.
    Add,
    /// `x0 - x1 - x2 ...`.
    Sub,
    /// Bitwise OR.
    Or,
    /// Bitwise XOR.
    Xor,
}

impl Eltwise {
    /// The name shown in tables.
    pub fn name(self) -> &'static str {
        match self {
            Eltwise::Add => "add",
            Eltwise::Sub => "sub",
            Eltwise::Or => "or",
            Eltwise::Xor => "xor",
        }
    }
}

/// The activation after the output stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Activation {
    /// None: values stay in [-128, 127].
    None,
    /// Clip to [0, 127].
    Relu,
    /// `min(|y|, 127)`.
    Abs,
}

/// The kind of pooling.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PoolKind {
    /// Maximum of the window.
    Max,
    /// Average of the window.
    Avg,
}

/// The memory layout of the first layer's input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// Channels of one pixel share a word (one byte lane per processor).
    Hwc,
    /// Four pixels of one channel share a word.
    Chw,
}

/// A layer source: the network input or another layer's output.
pub type LayerRef = isize;

/// One layer as described in the YAML, after aliases and defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct LayerDesc {
    /// Line of the layer in the YAML file.
    pub line: usize,
    /// `name`.
    pub name: Option<String>,
    /// `processors`: input processor mask.
    pub processors: u64,
    /// `output_processors`.
    pub output_processors: Option<u64>,
    /// `op`.
    pub op: Op,
    /// `eltwise`, or the element-wise `op`.
    pub eltwise: Option<Eltwise>,
    /// `operands` (1 without element-wise operation).
    pub operands: usize,
    /// `max_pool` / `avg_pool`.
    pub pool: Option<PoolKind>,
    /// Pool size `[h, w]` (`[1, 1]` without pooling).
    pub pool_size: [usize; 2],
    /// `pool_stride`.
    pub pool_stride: [usize; 2],
    /// `pool_first`.
    pub pool_first: bool,
    /// `pad`.
    pub pad: [usize; 2],
    /// `kernel_size` as `[h, w]` (`[k, 1]` for Conv1d).
    pub kernel_size: [usize; 2],
    /// `stride`.
    pub stride: [usize; 2],
    /// `dilation`.
    pub dilation: [usize; 2],
    /// `output_pad`.
    pub output_pad: [usize; 2],
    /// `quantization` (weight bits), when given.
    pub quantization: Option<u32>,
    /// `output_shift`, when given (without the implicit `8 - bits`).
    pub output_shift: Option<i32>,
    /// `activate`.
    pub activation: Activation,
    /// `output_width`: 8 or 32.
    pub output_width: u32,
    /// `data_format`.
    pub data_format: DataFormat,
    /// `in_channels`.
    pub in_channels: Option<usize>,
    /// `out_channels`.
    pub out_channels: Option<usize>,
    /// `in_dim`.
    pub in_dim: Option<[usize; 2]>,
    /// `in_offset` (bytes).
    pub in_offset: Option<u32>,
    /// `out_offset` (bytes).
    pub out_offset: u32,
    /// `write_gap` (words).
    pub write_gap: u32,
    /// `flatten`.
    pub flatten: bool,
    /// `streaming` (does not change values).
    pub streaming: bool,
    /// `output`: this layer's output is also checked by the known-answer test.
    pub output: bool,
    /// `in_sequences` (-1 is the network input).
    pub in_sequences: Option<Vec<LayerRef>>,
    /// `next_sequence` (-1 stops).
    pub next_sequence: Option<LayerRef>,
    /// `weight_source`.
    pub weight_source: Option<usize>,
}

/// A whole network description.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkDesc {
    /// The file it was read from (for messages).
    pub file: String,
    /// `arch`.
    pub arch: String,
    /// `dataset`.
    pub dataset: String,
    /// `bias`: name of the sample-bias file of test networks.
    pub bias: Option<String>,
    /// `weights`: name of the sample-weight file of test networks.
    pub weights: Option<String>,
    /// `output_map`: output processors of the final layer.
    pub output_map: Option<u64>,
    /// The layers, in sequence order.
    pub layers: Vec<LayerDesc>,
}

impl NetworkDesc {
    /// Reads and validates a network file.
    pub fn load(path: &Path, dev: &Device) -> Result<NetworkDesc> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path)
            .map_err(|e| CnnError::new(format!("cannot read network file: {e}")).in_file(&shown))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| CnnError::new("network file is not UTF-8 text").in_file(&shown))?;
        NetworkDesc::parse(&text, &shown, dev)
    }

    /// Parses and validates network YAML; `file` names it in messages.
    pub fn parse(text: &str, file: &str, dev: &Device) -> Result<NetworkDesc> {
        parse_network(text, dev)
            .map_err(|e| e.in_file(file))
            .map(|mut n| {
                n.file = file.to_string();
                n
            })
    }

    /// The index of the layer with `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.layers
            .iter()
            .position(|l| l.name.as_deref() == Some(name))
    }
}

const GLOBAL_KEYS: &[&str] = &[
    "arch",
    "dataset",
    "layers",
    "bias",
    "weights",
    "unload",
    "output_map",
    "snoop",
];

const LAYER_KEYS: &[&str] = &[
    "max_pool",
    "avg_pool",
    "convolution",
    "conv_groups",
    "dilation",
    "groups",
    "in_channels",
    "in_dim",
    "in_sequences",
    "in_skip",
    "in_channel_skip",
    "in_offset",
    "kernel_size",
    "pool_stride",
    "out_channels",
    "out_offset",
    "activate",
    "activation",
    "data_format",
    "eltwise",
    "flatten",
    "op",
    "operands",
    "operation",
    "operator",
    "output_processors",
    "output_width",
    "output_shift",
    "pool_first",
    "processors",
    "pad",
    "quantization",
    "next_sequence",
    "snoop_sequence",
    "simulated_sequence",
    "sequence",
    "streaming",
    "stride",
    "write_gap",
    "bypass",
    "bias_group",
    "bias_quadrant",
    "calcx4",
    "readahead",
    "name",
    "pool_dilation",
    "output_pad",
    "tcalc",
    "read_gap",
    "output",
    "weight_source",
];

/// A name reference that is resolved once all layers are known.
#[derive(Clone, Debug)]
enum Ref {
    Index(isize),
    Name(String, usize),
}

/// A layer as read from the YAML, before its references to other layers are resolved.
struct Raw {
    seq: usize,
    desc: LayerDesc,
    in_sequences: Option<Vec<Ref>>,
    next_sequence: Option<Ref>,
    weight_source: Option<Ref>,
}

/// The global keys of a network description, read and checked.
struct Globals<'a> {
    arch: String,
    dataset: String,
    bias: Option<String>,
    weights: Option<String>,
    output_map: Option<u64>,
    /// The items of `layers` (at least one).
    layers: &'a [Node],
}

/// Parses and validates network YAML: the globals, then the layers, then the references
/// between layers.
fn parse_network(text: &str, dev: &Device) -> Result<NetworkDesc> {
    let root = yamltree::parse(text)?;
    let globals = parse_globals(&root)?;
    let raws = parse_layers(globals.layers, dev)?;
    let names = unique_names(&raws)?;
    let layers = raws
        .iter()
        .enumerate()
        .map(|(i, raw)| resolve_layer(raw, i, &names))
        .collect::<Result<Vec<_>>>()?;
    Ok(NetworkDesc {
        file: String::new(),
        arch: globals.arch,
        dataset: globals.dataset,
        bias: globals.bias,
        weights: globals.weights,
        output_map: globals.output_map,
        layers,
    })
}

/// The top-level mapping: checks that the root is a mapping, that every key is a known
/// global key and that `arch`, `dataset` and `layers` are present.
fn global_map(root: &Node) -> Result<&[(String, Node)]> {
    let Value::Map(globals) = &root.value else {
        return Err(CnnError::new(format!(
            "a network description must be a mapping with `arch`, `dataset` and `layers`, not {}",
            root.kind()
        ))
        .at_line(root.line));
    };
    let unknown: Vec<&str> = globals
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !GLOBAL_KEYS.contains(k))
        .collect();
    if !unknown.is_empty() {
        let line = globals
            .iter()
            .find(|(k, _)| !GLOBAL_KEYS.contains(&k.as_str()))
            .map_or(0, |(_, n)| n.line);
        return Err(CnnError::new(format!(
            "unknown global key(s) {}; allowed: {}",
            quote_list(&unknown),
            GLOBAL_KEYS.join(", ")
        ))
        .at_line(line));
    }
    for required in ["arch", "dataset", "layers"] {
        if !globals.iter().any(|(n, _)| n == required) {
            return Err(CnnError::new(format!(
                "the network description has no `{required}` (required: arch, dataset, layers)"
            ))
            .with_key(required));
        }
    }
    Ok(globals)
}

/// The global keys: `arch`, `dataset`, `bias`, `weights`, `output_map`, the unsupported
/// `snoop`, and `layers`, which must be a non-empty list.
fn parse_globals(root: &Node) -> Result<Globals<'_>> {
    let globals = global_map(root)?;
    let get = |k: &str| globals.iter().find(|(n, _)| n == k).map(|(_, v)| v);
    let arch = scalar_string(get("arch").unwrap(), "arch")?;
    let dataset = scalar_string(get("dataset").unwrap(), "dataset")?;
    let bias = get("bias").map(|n| scalar_string(n, "bias")).transpose()?;
    let weights = get("weights")
        .map(|n| scalar_string(n, "weights"))
        .transpose()?;
    let output_map = get("output_map")
        .map(|n| proc_mask(n).map_err(|m| CnnError::new(m).with_key("output_map").at_line(n.line)))
        .transpose()?;
    if let Some(n) = get("snoop") {
        return Err(CnnError::new("`snoop` is not supported on this device")
            .with_key("snoop")
            .at_line(n.line));
    }
    let layers_node = get("layers").unwrap();
    let Value::Seq(items) = &layers_node.value else {
        return Err(CnnError::new(format!(
            "`layers` must be a list of layer mappings, not {}",
            layers_node.kind()
        ))
        .with_key("layers")
        .at_line(layers_node.line));
    };
    if items.is_empty() {
        return Err(CnnError::new("`layers` is empty")
            .with_key("layers")
            .at_line(layers_node.line));
    }
    Ok(Globals {
        arch,
        dataset,
        bias,
        weights,
        output_map,
        layers: items,
    })
}

/// The layers with their `sequence` numbers (within the device's layer count, each used
/// once), sorted by sequence number; holes in the numbering are removed (ai8x contracts
/// the lists).
fn parse_layers(items: &[Node], dev: &Device) -> Result<Vec<Raw>> {
    let mut raws: Vec<Raw> = Vec::new();
    let mut next_seq = 0usize;
    for (pos, item) in items.iter().enumerate() {
        let raw = parse_layer(item, pos, next_seq)?;
        if raw.seq >= dev.max_layers {
            return Err(CnnError::layer_key(
                pos,
                "sequence",
                format!("this device supports up to {} layers", dev.max_layers),
            )
            .at_line(item.line));
        }
        if raws.iter().any(|r| r.seq == raw.seq) {
            return Err(CnnError::layer_key(
                pos,
                "sequence",
                format!("layer {} was already specified", raw.seq),
            )
            .at_line(item.line));
        }
        next_seq = raw.seq + 1;
        raws.push(raw);
    }
    raws.sort_by_key(|r| r.seq);
    Ok(raws)
}

/// The layer names in sequence order; a name given to two layers is an error.
fn unique_names(raws: &[Raw]) -> Result<Vec<Option<String>>> {
    let names: Vec<Option<String>> = raws.iter().map(|r| r.desc.name.clone()).collect();
    for (i, n) in names.iter().enumerate() {
        if let Some(n) = n {
            if names[..i].iter().any(|m| m.as_deref() == Some(n)) {
                return Err(
                    CnnError::layer_key(i, "name", format!("duplicate layer name `{n}`"))
                        .at_line(raws[i].desc.line),
                );
            }
        }
    }
    Ok(names)
}

/// The layer index a reference of `key` in layer `layer` names (-1 for the input or stop).
fn resolve_ref(names: &[Option<String>], r: &Ref, layer: usize, key: &str) -> Result<isize> {
    match r {
        Ref::Index(i) => Ok(*i),
        Ref::Name(n, line) => names
            .iter()
            .position(|m| m.as_deref() == Some(n.as_str()))
            .map(|i| i as isize)
            .ok_or_else(|| {
                CnnError::layer_key(layer, key, format!("there is no layer named `{n}`"))
                    .at_line(*line)
            }),
    }
}

/// Layer `i` with its references resolved and checked: `in_sequences` name existing
/// layers or the input, `next_sequence` is the next layer or stop, `weight_source` is
/// another layer; and `data_format: CHW` is only on the first layer.
fn resolve_layer(raw: &Raw, i: usize, names: &[Option<String>]) -> Result<LayerDesc> {
    let count = names.len();
    let mut d = raw.desc.clone();
    if let Some(seqs) = &raw.in_sequences {
        let mut v = Vec::new();
        for r in seqs {
            let idx = resolve_ref(names, r, i, "in_sequences")?;
            if idx < -1 || idx >= count as isize {
                return Err(CnnError::layer_key(
                    i,
                    "in_sequences",
                    format!("layer {idx} does not exist (the network has {count} layers; -1 is the input)"),
                )
                .at_line(d.line));
            }
            v.push(idx);
        }
        d.in_sequences = Some(v);
    }
    if let Some(r) = &raw.next_sequence {
        let idx = resolve_ref(names, r, i, "next_sequence")?;
        if idx != -1 && idx != i as isize + 1 {
            return Err(CnnError::layer_key(
                i,
                "next_sequence",
                format!(
                    "non-sequential layer order ({i} -> {idx}) is not supported on this device"
                ),
            )
            .at_line(d.line));
        }
        d.next_sequence = Some(idx);
    }
    if let Some(r) = &raw.weight_source {
        let idx = resolve_ref(names, r, i, "weight_source")?;
        if idx < 0 || idx >= count as isize || idx as usize == i {
            return Err(CnnError::layer_key(
                i,
                "weight_source",
                format!("`weight_source` must name another layer, not {idx}"),
            )
            .at_line(d.line));
        }
        d.weight_source = Some(idx as usize);
    }
    if d.data_format == DataFormat::Chw && i != 0 {
        return Err(CnnError::layer_key(
            i,
            "data_format",
            "`data_format: CHW` can only be configured for the first layer",
        )
        .at_line(d.line));
    }
    Ok(d)
}

fn quote_list(v: &[&str]) -> String {
    v.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn scalar_string(n: &Node, key: &str) -> Result<String> {
    match &n.value {
        Value::Str(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        Value::Float(x) => Ok(x.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(
            CnnError::new(format!("`{key}` must be a name, not {}", n.kind()))
                .with_key(key)
                .at_line(n.line),
        ),
    }
}

/// A processor mask: an integer, or a hex string such as `0xffff.ffff.ffff.ffff`.
fn proc_mask(n: &Node) -> std::result::Result<u64, String> {
    let v: i128 = match &n.value {
        Value::Int(i) => *i,
        Value::Str(s) => {
            let clean: String = s.chars().filter(|&c| c != '.' && c != '_').collect();
            let hex = clean
                .strip_prefix("0x")
                .or_else(|| clean.strip_prefix("0X"))
                .unwrap_or(&clean);
            i128::from_str_radix(hex, 16)
                .map_err(|_| format!("\"{s}\" is not a hexadecimal processor mask"))?
        }
        _ => {
            return Err(format!(
                "must be an integer from 1 to 2**64-1, not {}",
                n.kind()
            ))
        }
    };
    if v < 1 || v > u64::MAX as i128 {
        return Err(format!(
            "must be an integer from 1 to 2**64-1 (0x1 to 0xffffffffffffffff), not {}",
            n.show()
        ));
    }
    Ok(v as u64)
}

struct LayerCtx<'a> {
    pos: usize,
    map: &'a [(String, Node)],
    line: usize,
}

impl LayerCtx<'_> {
    fn get(&self, key: &str) -> Option<&Node> {
        self.map.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of whichever of `keys` (aliases) is present; two present is an error.
    fn alias(&self, keys: &[&'static str]) -> Result<Option<(&'static str, &Node)>> {
        let mut found: Option<(&'static str, &Node)> = None;
        for &k in keys {
            if let Some(n) = self.get(k) {
                if let Some((first, _)) = found {
                    return Err(self.err(
                        k,
                        n,
                        format!("duplicate key: `{first}` and `{k}` are the same setting"),
                    ));
                }
                found = Some((k, n));
            }
        }
        Ok(found)
    }

    fn err(&self, key: &str, n: &Node, msg: impl Into<String>) -> CnnError {
        CnnError::layer_key(self.pos, key, msg).at_line(n.line)
    }

    fn int(&self, key: &str, n: &Node) -> Result<i64> {
        match &n.value {
            Value::Int(i) if i64::try_from(*i).is_ok() => Ok(*i as i64),
            _ => Err(self.err(key, n, format!("must be an integer, not {}", n.show()))),
        }
    }

    fn uint(&self, key: &str, n: &Node, max: i64) -> Result<usize> {
        let v = self.int(key, n)?;
        if v < 0 || v > max {
            return Err(self.err(key, n, format!("must be 0..{max}, not {v}")));
        }
        Ok(v as usize)
    }

    fn boolean(&self, key: &str, n: &Node) -> Result<bool> {
        // ai8x applies Python's bool(): any non-zero number or non-empty string is true.
        Ok(match &n.value {
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Null => false,
            Value::Str(s) => !s.is_empty(),
            _ => return Err(self.err(key, n, format!("must be true or false, not {}", n.show()))),
        })
    }

    /// A boolean key that is false when absent.
    fn flag(&self, key: &str) -> Result<bool> {
        self.get(key)
            .map(|n| self.boolean(key, n))
            .transpose()
            .map(|v| v.unwrap_or(false))
    }

    /// An int `v` as `[v, v]`, or a list of one or two ints.
    fn pair(&self, key: &str, n: &Node, max: i64) -> Result<[usize; 2]> {
        match &n.value {
            Value::Int(_) => {
                let v = self.uint(key, n, max)?;
                Ok([v, v])
            }
            Value::Seq(items) if items.len() == 2 => Ok([
                self.uint(key, &items[0], max)?,
                self.uint(key, &items[1], max)?,
            ]),
            Value::Seq(items) if items.len() == 1 => {
                let v = self.uint(key, &items[0], max)?;
                Ok([v, v])
            }
            _ => Err(self.err(
                key,
                n,
                format!("must be an integer or a list [h, w], not {}", n.show()),
            )),
        }
    }

    fn string_lower(&self, key: &str, n: &Node) -> Result<String> {
        match &n.value {
            Value::Str(s) => Ok(s.to_lowercase()),
            Value::Int(i) => Ok(i.to_string()),
            Value::Null => Ok("none".into()),
            Value::Bool(b) => Ok(b.to_string()),
            _ => Err(self.err(key, n, format!("must be a name, not {}", n.show()))),
        }
    }

    fn layer_ref(&self, key: &str, n: &Node) -> Result<Ref> {
        match &n.value {
            Value::Int(i) if i64::try_from(*i).is_ok() => Ok(Ref::Index(*i as isize)),
            Value::Str(s) if s == "input" => Ok(Ref::Index(-1)),
            Value::Str(s) if s == "stop" => Ok(Ref::Index(-1)),
            Value::Str(s) => Ok(Ref::Name(s.clone(), n.line)),
            _ => Err(self.err(
                key,
                n,
                format!("must be a layer index or a layer name, not {}", n.show()),
            )),
        }
    }
}

/// One layer: its keys in the order ai8x reads them, then the cross-key checks.
fn parse_layer(item: &Node, pos: usize, default_seq: usize) -> Result<Raw> {
    let Value::Map(map) = &item.value else {
        return Err(CnnError::layer(
            pos,
            format!("a layer must be a mapping of keys, not {}", item.kind()),
        )
        .at_line(item.line));
    };
    let cx = LayerCtx {
        pos,
        map,
        line: item.line,
    };
    check_layer_keys(&cx)?;
    let seq = match cx.get("sequence") {
        Some(n) => cx.uint("sequence", n, 1 << 20)?,
        None => default_seq,
    };
    let (processors, output_processors) = parse_processors(&cx)?;
    let mut pooling = parse_pooling(&cx)?;
    let data = parse_data_keys(&cx)?;
    let activation = parse_activation(&cx)?;
    let (op, op_eltwise) = parse_op(&cx)?;
    let pad = parse_pad(&cx, op)?;
    let elt = parse_eltwise(&cx, op_eltwise, pooling.pool)?;
    let data_format = parse_data_format(&cx)?;
    let output_width = parse_output_width(&cx)?;
    let mut conv = parse_conv_geometry(&cx, op, pad)?;
    let flags = parse_flags(&cx)?;
    check_unsupported_keys(&cx)?;
    let write_gap = cx
        .get("write_gap")
        .map(|n| cx.uint("write_gap", n, 1 << 16).map(|v| v as u32))
        .transpose()?
        .unwrap_or(0);
    let name = parse_name(&cx)?;
    let refs = parse_refs(&cx, seq)?;

    // Conv1d works on [L, 1] data.
    if op == Op::Conv1d {
        conv.pad[1] = 0;
        pooling.size[1] = 1;
        pooling.stride[1] = 1;
        conv.stride[1] = 1;
        conv.dilation[1] = 1;
    }
    check_pool_stride(&cx, op, pooling.pool, conv.stride)?;

    Ok(Raw {
        seq,
        desc: LayerDesc {
            line: item.line,
            name,
            processors,
            output_processors,
            op,
            eltwise: elt.eltwise,
            operands: elt.operands,
            pool: pooling.pool,
            pool_size: pooling.size,
            pool_stride: pooling.stride,
            pool_first: elt.pool_first,
            pad: conv.pad,
            kernel_size: conv.kernel_size,
            stride: conv.stride,
            dilation: conv.dilation,
            output_pad: conv.output_pad,
            quantization: data.quantization,
            output_shift: data.output_shift,
            activation,
            output_width,
            data_format,
            in_channels: data.in_channels,
            out_channels: data.out_channels,
            in_dim: data.in_dim,
            in_offset: data.in_offset,
            out_offset: data.out_offset,
            write_gap,
            flatten: flags.flatten,
            streaming: flags.streaming,
            output: flags.output,
            in_sequences: None,
            next_sequence: None,
            weight_source: None,
        },
        in_sequences: refs.in_sequences,
        next_sequence: refs.next_sequence,
        weight_source: refs.weight_source,
    })
}

/// Checks that every key of the layer is a known ai8x layer key; the error is at the
/// first unknown key and lists them all.
fn check_layer_keys(cx: &LayerCtx) -> Result<()> {
    let unknown: Vec<&str> = cx
        .map
        .iter()
        .map(|(k, _)| k.as_str())
        .filter(|k| !LAYER_KEYS.contains(k))
        .collect();
    if let Some(first) = unknown.first() {
        let n = cx.get(first).unwrap();
        return Err(cx.err(
            first,
            n,
            format!(
                "unknown key(s) {} in a layer; allowed keys: {}",
                quote_list(&unknown),
                LAYER_KEYS.join(", ")
            ),
        ));
    }
    Ok(())
}

/// `processors` (required) and `output_processors`.
fn parse_processors(cx: &LayerCtx) -> Result<(u64, Option<u64>)> {
    let processors = match cx.get("processors") {
        Some(n) => proc_mask(n).map_err(|m| cx.err("processors", n, m))?,
        None => {
            return Err(
                CnnError::layer_key(cx.pos, "processors", "`processors` is missing")
                    .at_line(cx.line),
            )
        }
    };
    let output_processors = cx
        .get("output_processors")
        .map(|n| proc_mask(n).map_err(|m| cx.err("output_processors", n, m)))
        .transpose()?;
    Ok((processors, output_processors))
}

/// The pooling keys of a layer.
struct Pooling {
    /// `max_pool` / `avg_pool`.
    pool: Option<PoolKind>,
    /// The pool size (`[1, 1]` without pooling).
    size: [usize; 2],
    /// `pool_stride`.
    stride: [usize; 2],
}

/// `avg_pool` / `max_pool` (`max_pool` wins when both are given), `pool_stride`, and
/// `pool_dilation`, which must be 1 and requires pooling.
fn parse_pooling(cx: &LayerCtx) -> Result<Pooling> {
    let mut pool = None;
    let mut size = [1, 1];
    // ai8x: `max_pool` wins when both are given.
    for (key, kind) in [("avg_pool", PoolKind::Avg), ("max_pool", PoolKind::Max)] {
        if let Some(n) = cx.get(key) {
            pool = Some(kind);
            size = cx.pair(key, n, 1 << 16)?;
            if size.contains(&0) {
                return Err(cx.err(key, n, "pool size must be at least 1"));
            }
        }
    }
    let stride = match cx.get("pool_stride") {
        Some(n) => {
            let s = cx.pair("pool_stride", n, 1 << 16)?;
            if s[0] == 0 || s[1] == 0 {
                return Err(cx.err("pool_stride", n, "pool stride must be at least 1"));
            }
            s
        }
        None => [1, 1],
    };
    if let Some(n) = cx.get("pool_dilation") {
        let d = cx.pair("pool_dilation", n, 1 << 16)?;
        if pool.is_none() {
            return Err(cx.err("pool_dilation", n, "`pool_dilation` requires pooling"));
        }
        if d != [1, 1] {
            return Err(cx.err(
                "pool_dilation",
                n,
                "pool dilation other than 1 is not supported on this device",
            ));
        }
    }
    Ok(Pooling { pool, size, stride })
}

/// The keys about the layer's data: weight bits, shift, channel counts, input size and
/// the memory offsets.
struct DataKeys {
    quantization: Option<u32>,
    output_shift: Option<i32>,
    in_channels: Option<usize>,
    out_channels: Option<usize>,
    in_dim: Option<[usize; 2]>,
    in_offset: Option<u32>,
    out_offset: u32,
}

/// `quantization`, `output_shift`, `in_channels`, `out_channels`, `in_dim`, the read gaps
/// (`in_skip` / `read_gap`, `in_channel_skip`, which must be 0), `in_offset` and
/// `out_offset`.
fn parse_data_keys(cx: &LayerCtx) -> Result<DataKeys> {
    let quantization = parse_quantization(cx)?;
    let output_shift = cx
        .get("output_shift")
        .map(|n| {
            let v = cx.int("output_shift", n)?;
            i32::try_from(v).map_err(|_| cx.err("output_shift", n, "out of range"))
        })
        .transpose()?;
    let in_channels = cx
        .get("in_channels")
        .map(|n| cx.uint("in_channels", n, 1 << 20))
        .transpose()?;
    let out_channels = cx
        .get("out_channels")
        .map(|n| cx.uint("out_channels", n, 1 << 20))
        .transpose()?;
    let in_dim = parse_in_dim(cx)?;
    check_read_gaps(cx)?;
    let in_offset = cx
        .get("in_offset")
        .map(|n| cx.uint("in_offset", n, u32::MAX as i64).map(|v| v as u32))
        .transpose()?;
    let out_offset = cx
        .get("out_offset")
        .map(|n| cx.uint("out_offset", n, u32::MAX as i64).map(|v| v as u32))
        .transpose()?
        .unwrap_or(0);
    Ok(DataKeys {
        quantization,
        output_shift,
        in_channels,
        out_channels,
        in_dim,
        in_offset,
        out_offset,
    })
}

/// `quantization`: 1, 2, 4 or 8 weight bits (binary weights are refused).
fn parse_quantization(cx: &LayerCtx) -> Result<Option<u32>> {
    let Some(n) = cx.get("quantization") else {
        return Ok(None);
    };
    match &n.value {
        Value::Int(q) if [1, 2, 4, 8].contains(q) => Ok(Some(*q as u32)),
        Value::Str(s) if matches!(s.to_lowercase().as_str(), "bin" | "binary") => Err(cx.err(
            "quantization",
            n,
            "binary weights (-1/+1) are not supported on this device",
        )),
        _ => Err(cx.err(
            "quantization",
            n,
            format!("must be 1, 2, 4, 8 or bin/binary, not {}", n.show()),
        )),
    }
}

/// `in_dim`: an integer `l` (as `[l, 1]`) or a list of one or two integers, none 0.
fn parse_in_dim(cx: &LayerCtx) -> Result<Option<[usize; 2]>> {
    let Some(n) = cx.get("in_dim") else {
        return Ok(None);
    };
    let d = match &n.value {
        Value::Int(_) => [cx.uint("in_dim", n, 1 << 20)?, 1],
        Value::Seq(v) if v.len() == 1 => [cx.uint("in_dim", &v[0], 1 << 20)?, 1],
        Value::Seq(v) if v.len() == 2 => [
            cx.uint("in_dim", &v[0], 1 << 20)?,
            cx.uint("in_dim", &v[1], 1 << 20)?,
        ],
        _ => {
            return Err(cx.err(
                "in_dim",
                n,
                "`in_dim` must be an integer or list not exceeding two dimensions",
            ))
        }
    };
    if d[0] == 0 || d[1] == 0 {
        return Err(
            CnnError::layer_key(cx.pos, "in_dim", "dimensions must be at least 1").at_line(cx.line),
        );
    }
    Ok(Some(d))
}

/// `in_skip` / `read_gap` and `in_channel_skip`: accepted only as 0.
fn check_read_gaps(cx: &LayerCtx) -> Result<()> {
    if let Some((k, n)) = cx.alias(&["in_skip", "read_gap"])? {
        if cx.int(k, n)? != 0 {
            return Err(cx.err(k, n, "`read_gap` must be 0 for this device"));
        }
    }
    if let Some(n) = cx.get("in_channel_skip") {
        if cx.int("in_channel_skip", n)? != 0 {
            return Err(cx.err(
                "in_channel_skip",
                n,
                "`in_channel_skip` is only used with ai8x's --reshape-inputs, which this model does not implement",
            ));
        }
    }
    Ok(())
}

/// `activate` / `activation`: ReLU, Abs or None (the default).
fn parse_activation(cx: &LayerCtx) -> Result<Activation> {
    Ok(match cx.alias(&["activate", "activation"])? {
        None => Activation::None,
        Some((k, n)) => match cx.string_lower(k, n)?.as_str() {
            "relu" => Activation::Relu,
            "abs" => Activation::Abs,
            "none" => Activation::None,
            _ => {
                return Err(cx.err(
                    k,
                    n,
                    format!("unknown value {}; use ReLU, Abs or None", n.show()),
                ))
            }
        },
    })
}

/// `op` / `operation` / `operator` / `convolution` (default Conv2d): the operation, and
/// the element-wise operation when the value names one (the operation is then
/// passthrough).
fn parse_op(cx: &LayerCtx) -> Result<(Op, Option<Eltwise>)> {
    let Some((k, n)) = cx.alias(&["convolution", "operation", "operator", "op"])? else {
        return Ok((Op::Conv2d, None));
    };
    Ok(match cx.string_lower(k, n)?.as_str() {
        "conv1d" => (Op::Conv1d, None),
        "conv2d" => (Op::Conv2d, None),
        "convtranspose2d" => (Op::ConvTranspose2d, None),
        "none" | "passthrough" => (Op::Passthrough, None),
        "linear" | "fc" | "mlp" => (Op::Linear, None),
        "add" => (Op::Passthrough, Some(Eltwise::Add)),
        "sub" => (Op::Passthrough, Some(Eltwise::Sub)),
        "or" | "bitwiseor" | "bitwise_or" => (Op::Passthrough, Some(Eltwise::Or)),
        "xor" | "bitwisexor" | "bitwise_xor" => (Op::Passthrough, Some(Eltwise::Xor)),
        _ => {
            return Err(cx.err(
                k,
                n,
                format!(
                    "unknown value {}; use conv1d, conv2d, convtranspose2d, linear (fc, mlp), passthrough (none), add, sub, or, xor",
                    n.show()
                ),
            ))
        }
    })
}

/// `pad` (default 1 for convolutions, 0 otherwise).
fn parse_pad(cx: &LayerCtx, op: Op) -> Result<[usize; 2]> {
    if let Some(n) = cx.get("pad") {
        let v = cx.uint("pad", n, 1 << 16)?;
        return Ok([v, v]);
    }
    Ok(match op {
        Op::Conv2d | Op::Conv1d | Op::ConvTranspose2d => [1, 1],
        _ => [0, 0],
    })
}

/// The element-wise keys of a layer.
struct EltwiseKeys {
    /// `eltwise`, or the element-wise `op`.
    eltwise: Option<Eltwise>,
    /// `operands` (2 by default with an element-wise operation, 1 without).
    operands: usize,
    /// `pool_first`.
    pool_first: bool,
}

/// `eltwise` (which overrides an element-wise `op`), `pool_first` and `operands`;
/// `operands` requires an element-wise operation and `pool_first: False` requires both
/// pooling and an element-wise operation.
fn parse_eltwise(
    cx: &LayerCtx,
    op_eltwise: Option<Eltwise>,
    pool: Option<PoolKind>,
) -> Result<EltwiseKeys> {
    let mut eltwise = op_eltwise;
    let mut operands = if eltwise.is_some() { 2 } else { 1 };
    if let Some(n) = cx.get("eltwise") {
        eltwise = Some(match cx.string_lower("eltwise", n)?.as_str() {
            "add" => Eltwise::Add,
            "sub" => Eltwise::Sub,
            "or" => Eltwise::Or,
            "xor" => Eltwise::Xor,
            _ => {
                return Err(cx.err(
                    "eltwise",
                    n,
                    format!("unknown value {}; use add, sub, or, xor", n.show()),
                ))
            }
        });
        operands = 2;
    }
    let pool_first = match cx.get("pool_first") {
        Some(n) => cx.boolean("pool_first", n)?,
        None => true,
    };
    if let Some(n) = cx.get("operands") {
        let v = cx.int("operands", n)?;
        if eltwise.is_none() {
            return Err(cx.err(
                "operands",
                n,
                "`operands` can only be used with element-wise operations",
            ));
        }
        if !(2..=16).contains(&v) {
            return Err(cx.err(
                "operands",
                n,
                format!("`operands` has to be 2..16, not {v}"),
            ));
        }
        operands = v as usize;
    }
    if !pool_first && (pool.is_none() || eltwise.is_none()) {
        return Err(CnnError::layer_key(
            cx.pos,
            "pool_first",
            "`pool_first: False` requires both pooling and element-wise operations",
        )
        .at_line(cx.line));
    }
    Ok(EltwiseKeys {
        eltwise,
        operands,
        pool_first,
    })
}

/// `data_format`: HWC (little, the default) or CHW (big).
fn parse_data_format(cx: &LayerCtx) -> Result<DataFormat> {
    let Some(n) = cx.get("data_format") else {
        return Ok(DataFormat::Hwc);
    };
    match cx.string_lower("data_format", n)?.as_str() {
        "chw" | "big" => Ok(DataFormat::Chw),
        "hwc" | "little" => Ok(DataFormat::Hwc),
        _ => Err(cx.err(
            "data_format",
            n,
            format!("unknown value {}; use HWC or CHW", n.show()),
        )),
    }
}

/// `output_width`: 8 (the default) or 32.
fn parse_output_width(cx: &LayerCtx) -> Result<u32> {
    let Some(n) = cx.get("output_width") else {
        return Ok(8);
    };
    match cx.int("output_width", n)? {
        8 => Ok(8),
        32 => Ok(32),
        v => Err(cx.err(
            "output_width",
            n,
            format!("`output_width` must be 8 or 32, not {v}"),
        )),
    }
}

/// The geometry of the layer's operation.
struct ConvGeometry {
    /// `pad`.
    pad: [usize; 2],
    /// `kernel_size` as `[h, w]`.
    kernel_size: [usize; 2],
    /// `stride`.
    stride: [usize; 2],
    /// `dilation`.
    dilation: [usize; 2],
    /// `output_pad`.
    output_pad: [usize; 2],
}

/// `kernel_size`, `stride`, `dilation` and `output_pad` for `op`, with the `pad` already
/// read.
fn parse_conv_geometry(cx: &LayerCtx, op: Op, pad: [usize; 2]) -> Result<ConvGeometry> {
    let kernel_size = parse_kernel_size(cx, op)?;
    let stride = parse_stride(cx, op)?;
    let dilation = parse_dilation(cx, op)?;
    let output_pad = parse_output_pad(cx, op)?;
    Ok(ConvGeometry {
        pad,
        kernel_size,
        stride,
        dilation,
        output_pad,
    })
}

/// `kernel_size` for `op`: 1x1 or 3x3 for Conv2d, 3x3 for ConvTranspose2d, 1 to 9 for
/// Conv1d (as `[k, 1]`), 1x1 for Linear; ignored for passthrough. The default is 3x3 for
/// Conv2d and ConvTranspose2d, 9 for Conv1d and 1x1 otherwise.
fn parse_kernel_size(cx: &LayerCtx, op: Op) -> Result<[usize; 2]> {
    let Some(n) = cx.get("kernel_size") else {
        return Ok(match op {
            Op::Conv2d | Op::ConvTranspose2d => [3, 3],
            Op::Conv1d => [9, 1],
            _ => [1, 1],
        });
    };
    let text = match &n.value {
        Value::Int(i) => i.to_string(),
        Value::Str(s) => s.to_lowercase(),
        _ => String::new(),
    };
    let square = |t: &str| -> Option<usize> {
        let (a, b) = t.split_once('x')?;
        let (a, b) = (
            a.trim().parse::<usize>().ok()?,
            b.trim().parse::<usize>().ok()?,
        );
        (a == b).then_some(a)
    };
    Ok(match op {
        Op::Conv2d => match square(&text).or_else(|| text.parse().ok()) {
            Some(k @ (1 | 3)) => [k, k],
            _ => {
                return Err(cx.err(
                    "kernel_size",
                    n,
                    format!("unsupported value {} for Conv2d; use 1x1 or 3x3", n.show()),
                ))
            }
        },
        Op::ConvTranspose2d => match square(&text).or_else(|| text.parse().ok()) {
            Some(3) => [3, 3],
            _ => {
                return Err(cx.err(
                    "kernel_size",
                    n,
                    format!(
                        "unsupported value {} for ConvTranspose2d; use 3x3",
                        n.show()
                    ),
                ))
            }
        },
        Op::Conv1d => match text.parse::<usize>() {
            Ok(k @ 1..=9) => [k, 1],
            _ => {
                return Err(cx.err(
                    "kernel_size",
                    n,
                    format!("unsupported value {} for Conv1d; use 1 to 9", n.show()),
                ))
            }
        },
        Op::Linear => match square(&text).or_else(|| text.parse().ok()) {
            Some(1) => [1, 1],
            _ => {
                return Err(cx.err(
                    "kernel_size",
                    n,
                    "cannot configure `kernel_size` for fully connected layers (it is 1x1)",
                ))
            }
        },
        Op::Passthrough => [1, 1],
    })
}

/// `stride`: equal in both dimensions, 2 for ConvTranspose2d (always, given or not) and
/// 1 for every other operation.
fn parse_stride(cx: &LayerCtx, op: Op) -> Result<[usize; 2]> {
    let mut stride = [1, 1];
    if let Some(n) = cx.get("stride") {
        let s = cx.pair("stride", n, 1 << 16)?;
        if s[0] != s[1] {
            return Err(cx.err(
                "stride",
                n,
                "`stride` values must be equal in both dimensions",
            ));
        }
        match op {
            Op::ConvTranspose2d if s[0] != 2 => {
                return Err(cx.err(
                    "stride",
                    n,
                    "cannot set `stride` to a value other than 2 for ConvTranspose2d",
                ))
            }
            Op::ConvTranspose2d => {}
            _ if s[0] != 1 => {
                return Err(cx.err(
                    "stride",
                    n,
                    format!(
                        "{} does not support stride other than 1 on this device (use pooling with pool_stride, e.g. a 1x1 max_pool)",
                        op.name()
                    ),
                ))
            }
            _ => {}
        }
        stride = s;
    }
    if op == Op::ConvTranspose2d {
        stride = [2, 2];
    }
    Ok(stride)
}

/// `dilation`: only with a convolution operator, at least 1, and other than 1 only for
/// Conv1d.
fn parse_dilation(cx: &LayerCtx, op: Op) -> Result<[usize; 2]> {
    let Some(n) = cx.get("dilation") else {
        return Ok([1, 1]);
    };
    if !matches!(
        op,
        Op::Conv1d | Op::Conv2d | Op::ConvTranspose2d | Op::Linear
    ) {
        return Err(cx.err("dilation", n, "`dilation` requires a convolution operator"));
    }
    let dilation = cx.pair("dilation", n, 1023)?;
    if dilation[0] == 0 || dilation[1] == 0 {
        return Err(cx.err("dilation", n, "dilation must be at least 1"));
    }
    if op != Op::Conv1d && dilation != [1, 1] {
        return Err(cx.err(
            "dilation",
            n,
            "only Conv1d supports dilation other than 1 on this device",
        ));
    }
    Ok(dilation)
}

/// `output_pad`: 1 for ConvTranspose2d (the default there) and 0 for everything else.
fn parse_output_pad(cx: &LayerCtx, op: Op) -> Result<[usize; 2]> {
    let Some(n) = cx.get("output_pad") else {
        return Ok(if op == Op::ConvTranspose2d {
            [1, 1]
        } else {
            [0, 0]
        });
    };
    let v = cx.uint("output_pad", n, 16)?;
    if op == Op::ConvTranspose2d && v != 1 {
        return Err(cx.err(
            "output_pad",
            n,
            format!("output padding {v} is not supported on this device (ConvTranspose2d needs 1)"),
        ));
    }
    if op != Op::ConvTranspose2d && v != 0 {
        return Err(cx.err(
            "output_pad",
            n,
            "output padding must be 0 for this operator",
        ));
    }
    Ok([v, v])
}

/// The boolean keys of a layer.
struct Flags {
    flatten: bool,
    streaming: bool,
    output: bool,
}

/// `flatten`, `streaming` and `output` (all false by default), and the flags of features
/// this device does not have (`calcx4`, `readahead`, `bypass`, `tcalc`), which must be
/// false.
fn parse_flags(cx: &LayerCtx) -> Result<Flags> {
    let flags = Flags {
        flatten: cx.flag("flatten")?,
        streaming: cx.flag("streaming")?,
        output: cx.flag("output")?,
    };
    for k in ["calcx4", "readahead", "bypass", "tcalc"] {
        if cx.flag(k)? {
            let n = cx.get(k).unwrap();
            return Err(cx.err(k, n, format!("`{k}` is not supported on this device")));
        }
    }
    Ok(flags)
}

/// `snoop_sequence` (refused), `conv_groups` / `groups` (must be 1) and `bias_group` /
/// `bias_quadrant` (a group 0..3 or a list of them; placement only, values are
/// unaffected).
fn check_unsupported_keys(cx: &LayerCtx) -> Result<()> {
    if let Some(n) = cx.get("snoop_sequence") {
        return Err(cx.err(
            "snoop_sequence",
            n,
            "snooping is not supported on this device",
        ));
    }
    if let Some((k, n)) = cx.alias(&["conv_groups", "groups"])? {
        let g = cx.int(k, n)?;
        if g != 1 {
            return Err(cx.err(
                k,
                n,
                format!("convolution groups ({g}) > 1 are not supported on this device"),
            ));
        }
    }
    if let Some((k, n)) = cx.alias(&["bias_group", "bias_quadrant"])? {
        // Placement of the bias in the bias memories only; values are unaffected.
        match &n.value {
            Value::Int(_) => {
                cx.uint(k, n, 3)?;
            }
            Value::Seq(v) => {
                for x in v {
                    cx.uint(k, x, 3)?;
                }
            }
            _ => return Err(cx.err(k, n, "must be a group number 0..3 or a list of them")),
        }
    }
    Ok(())
}

/// `name`: a scalar other than the reserved `stop` and `input`.
fn parse_name(cx: &LayerCtx) -> Result<Option<String>> {
    let Some(n) = cx.get("name") else {
        return Ok(None);
    };
    let s = scalar_string(n, "name").map_err(|e| CnnError {
        layer: Some(cx.pos),
        ..e
    })?;
    if s == "stop" || s == "input" {
        return Err(cx.err("name", n, format!("`{s}` is a reserved name")));
    }
    Ok(Some(s))
}

/// The references of a layer to other layers, resolved once all layers are known.
struct LayerRefs {
    in_sequences: Option<Vec<Ref>>,
    next_sequence: Option<Ref>,
    weight_source: Option<Ref>,
}

/// `in_sequences` (one reference or a non-empty list), `next_sequence`,
/// `simulated_sequence` (accepted only when it names the normal order: the layer after
/// `seq`, or stop) and `weight_source`.
fn parse_refs(cx: &LayerCtx, seq: usize) -> Result<LayerRefs> {
    let in_sequences = match cx.get("in_sequences") {
        None => None,
        Some(n) => Some(match &n.value {
            Value::Seq(items) => {
                if items.is_empty() {
                    return Err(cx.err("in_sequences", n, "`in_sequences` is empty"));
                }
                items
                    .iter()
                    .map(|x| cx.layer_ref("in_sequences", x))
                    .collect::<Result<Vec<_>>>()?
            }
            _ => vec![cx.layer_ref("in_sequences", n)?],
        }),
    };
    let next_sequence = cx
        .get("next_sequence")
        .map(|n| cx.layer_ref("next_sequence", n))
        .transpose()?;
    if let Some(n) = cx.get("simulated_sequence") {
        // Only the normal order is supported; accept the value that names it.
        let r = cx.layer_ref("simulated_sequence", n)?;
        if !matches!(r, Ref::Index(-1)) && !matches!(r, Ref::Index(i) if i == seq as isize + 1) {
            return Err(cx.err(
                "simulated_sequence",
                n,
                "a simulated sequence other than the next layer is not supported on this device",
            ));
        }
    }
    let weight_source = cx
        .get("weight_source")
        .map(|n| cx.layer_ref("weight_source", n))
        .transpose()?;
    Ok(LayerRefs {
        in_sequences,
        next_sequence,
        weight_source,
    })
}

/// Pooling cannot be combined with a stride other than 1 (ConvTranspose2d's stride 2 is
/// part of the operation).
fn check_pool_stride(
    cx: &LayerCtx,
    op: Op,
    pool: Option<PoolKind>,
    stride: [usize; 2],
) -> Result<()> {
    if pool.is_some() && stride != [1, 1] && op != Op::ConvTranspose2d {
        return Err(CnnError::layer_key(
            cx.pos,
            "stride",
            "cannot set `stride` to a non-default value when pooling",
        )
        .at_line(cx.line));
    }
    Ok(())
}

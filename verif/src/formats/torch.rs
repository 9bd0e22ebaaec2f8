//! PyTorch checkpoints written by `torch.save`, read without Python or libtorch.
//!
//! Two layouts are supported:
//!
//! * the **zip** format (PyTorch 1.6 and later): a zip archive with `<prefix>/data.pkl` (the
//!   pickled object), one member `<prefix>/data/<key>` per tensor storage, and optionally
//!   `<prefix>/byteorder` (`little` or `big`) and `<prefix>/version`;
//! * the **legacy** format (before 1.6, or `_use_new_zipfile_serialization=False`): five
//!   pickles one after another (magic number, protocol version 1001, system info, the object,
//!   the list of storage keys), followed by each storage as an 8-byte element count and its raw
//!   elements. The byte order comes from the system info's `little_endian` flag.
//!
//! Tensors are rebuilt from `torch._utils._rebuild_tensor_v2` (also `_rebuild_tensor`,
//! `_rebuild_tensor_v3` and `_rebuild_parameter`), with their storage offset and strides
//! applied, into [`Tensor`]s holding `f64` values in C (row-major) order. Only the tensors of
//! the state dict are decoded; tensors elsewhere (optimizer state, extras) stay as
//! [`Value`]s that refer to their storage.

use super::error::FormatError;
use super::pickle::{self, Limits, Value};
use std::collections::HashMap;
use std::fmt;
use std::io::{Cursor, Read};
use std::path::Path;

/// The element type of a tensor (the type of its storage).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.float32` (`FloatStorage`).
    Float32,
    /// `torch.float64` (`DoubleStorage`).
    Float64,
    /// `torch.float16` (`HalfStorage`).
    Float16,
    /// `torch.bfloat16` (`BFloat16Storage`).
    BFloat16,
    /// `torch.int64` (`LongStorage`).
    Int64,
    /// `torch.int32` (`IntStorage`).
    Int32,
    /// `torch.int16` (`ShortStorage`).
    Int16,
    /// `torch.int8` (`CharStorage`).
    Int8,
    /// `torch.uint8` (`ByteStorage`, and the bytes of an `UntypedStorage`).
    UInt8,
    /// `torch.bool` (`BoolStorage`).
    Bool,
}

impl DType {
    /// Size of one element in bytes.
    pub fn element_size(self) -> usize {
        match self {
            DType::Float64 | DType::Int64 => 8,
            DType::Float32 | DType::Int32 => 4,
            DType::Float16 | DType::BFloat16 | DType::Int16 => 2,
            DType::Int8 | DType::UInt8 | DType::Bool => 1,
        }
    }

    /// The PyTorch name, e.g. `"float32"`.
    pub fn name(self) -> &'static str {
        match self {
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Int64 => "int64",
            DType::Int32 => "int32",
            DType::Int16 => "int16",
            DType::Int8 => "int8",
            DType::UInt8 => "uint8",
            DType::Bool => "bool",
        }
    }

    /// Whether the values are integers (or booleans).
    pub fn is_integer(self) -> bool {
        !matches!(
            self,
            DType::Float32 | DType::Float64 | DType::Float16 | DType::BFloat16
        )
    }

    /// The type of a storage class such as `FloatStorage` (the attribute name in module
    /// `torch`); `UntypedStorage` is bytes.
    pub fn from_storage_name(name: &str) -> Option<DType> {
        Some(match name {
            "FloatStorage" => DType::Float32,
            "DoubleStorage" => DType::Float64,
            "HalfStorage" => DType::Float16,
            "BFloat16Storage" => DType::BFloat16,
            "LongStorage" => DType::Int64,
            "IntStorage" => DType::Int32,
            "ShortStorage" => DType::Int16,
            "CharStorage" => DType::Int8,
            "ByteStorage" | "UntypedStorage" | "_UntypedStorage" => DType::UInt8,
            "BoolStorage" => DType::Bool,
            _ => return None,
        })
    }

    /// The type named by a `torch.<name>` dtype global, e.g. `float32`, `float` or `long`.
    pub fn from_torch_name(name: &str) -> Option<DType> {
        Some(match name {
            "float32" | "float" => DType::Float32,
            "float64" | "double" => DType::Float64,
            "float16" | "half" => DType::Float16,
            "bfloat16" => DType::BFloat16,
            "int64" | "long" => DType::Int64,
            "int32" | "int" => DType::Int32,
            "int16" | "short" => DType::Int16,
            "int8" => DType::Int8,
            "uint8" => DType::UInt8,
            "bool" => DType::Bool,
            _ => return None,
        })
    }

    /// Decodes one element; `bytes` holds exactly [`DType::element_size`] bytes.
    fn decode(self, bytes: &[u8], big_endian: bool) -> Option<f64> {
        fn arr<const N: usize>(bytes: &[u8], big_endian: bool) -> Option<[u8; N]> {
            let mut a = <[u8; N]>::try_from(bytes).ok()?;
            if big_endian {
                a.reverse();
            }
            Some(a)
        }
        Some(match self {
            DType::Float32 => f64::from(f32::from_le_bytes(arr(bytes, big_endian)?)),
            DType::Float64 => f64::from_le_bytes(arr(bytes, big_endian)?),
            DType::Float16 => f16_to_f64(u16::from_le_bytes(arr(bytes, big_endian)?)),
            DType::BFloat16 => {
                let bits = u16::from_le_bytes(arr(bytes, big_endian)?);
                f64::from(f32::from_bits(u32::from(bits) << 16))
            }
            DType::Int64 => i64::from_le_bytes(arr(bytes, big_endian)?) as f64,
            DType::Int32 => f64::from(i32::from_le_bytes(arr(bytes, big_endian)?)),
            DType::Int16 => f64::from(i16::from_le_bytes(arr(bytes, big_endian)?)),
            DType::Int8 => f64::from(i8::from_le_bytes(arr(bytes, false)?)),
            DType::UInt8 => f64::from(*bytes.first()?),
            DType::Bool => {
                if *bytes.first()? != 0 {
                    1.0
                } else {
                    0.0
                }
            }
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// IEEE 754 half precision to `f64` (exact).
pub(crate) fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// A tensor of a state dict, with its values in C (row-major) order.
///
/// Every value of the integer types up to 2^53 in magnitude, and every value of the float
/// types, is held exactly by the `f64`s (int64 values beyond 2^53 are rounded).
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// The size of each dimension (empty for a scalar).
    pub shape: Vec<usize>,
    /// The element type it was stored with.
    pub dtype: DType,
    /// The values, `shape.iter().product()` of them, in C order.
    pub data: Vec<f64>,
}

impl Tensor {
    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.data.len()
    }

    /// The values as integers; fails (naming the first offending element) if any value is not
    /// an integer in the `i64` range, e.g. the weights of a checkpoint that is not quantized.
    pub fn to_i64_exact(&self) -> Result<Vec<i64>, String> {
        self.data
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                // 2^63 is exactly representable; every f64 below it in magnitude that is
                // integral converts exactly.
                if v.is_finite() && v.fract() == 0.0 && v >= -(2f64.powi(63)) && v < 2f64.powi(63) {
                    Ok(v as i64)
                } else {
                    Err(format!(
                        "element {i} of a {} tensor of shape {:?} is {v}, not an integer",
                        self.dtype, self.shape
                    ))
                }
            })
            .collect()
    }
}

/// The contents of a checkpoint file.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// The entries of the top-level dict, in file order (tensors inside them are left as
    /// pickle values).
    pub entries: Vec<(String, Value)>,
    /// The state dict (the `'state_dict'` entry, or the top-level dict itself when it maps
    /// names to tensors), in file order.
    pub state_dict: Vec<(String, Tensor)>,
    /// The `'arch'` entry, when it is a string.
    pub arch: Option<String>,
    /// The `'epoch'` entry, when it is an integer.
    pub epoch: Option<i64>,
}

impl Checkpoint {
    /// The top-level entry named `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The state-dict tensor named `name`.
    pub fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.state_dict
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t)
    }
}

/// Reads a checkpoint written by `torch.save` (zip or legacy format).
pub fn load_checkpoint(path: &Path) -> Result<Checkpoint, FormatError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| FormatError::new(&shown, format!("cannot read file: {e}")))?;
    parse_checkpoint(&bytes, &shown)
}

/// Reads a checkpoint from memory; `path_for_errors` names it in error messages.
pub fn parse_checkpoint(bytes: &[u8], path_for_errors: &str) -> Result<Checkpoint, FormatError> {
    let err = |m: String| FormatError::new(path_for_errors, m);
    if bytes.starts_with(b"PK\x03\x04") {
        parse_zip(bytes, path_for_errors)
    } else if matches!(bytes.first(), Some(0x80 | b'L')) {
        // A legacy file starts with a pickle of the magic number: protocol 2 and later begin
        // with PROTO (0x80), protocols 0 and 1 with the text opcode LONG ('L').
        parse_legacy(bytes, path_for_errors)
    } else if bytes.get(257..262) == Some(b"ustar") {
        Err(err(
            "this is the tar-based checkpoint format of PyTorch before 0.1.10, which is not \
             supported"
                .to_string(),
        ))
    } else if bytes.is_empty() {
        Err(err("the file is empty".to_string()))
    } else {
        let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
        Err(err(format!(
            "not a PyTorch checkpoint: it starts with bytes {} instead of a zip signature \
             (50 4b 03 04) or a pickle (80 ..)",
            head.join(" ")
        )))
    }
}

/// Upper bound for the size of data decompressed from a zip member (an input of n bytes may
/// not expand into more than 64 n + 1 MiB).
fn zip_member_cap(input_len: usize) -> u64 {
    u64::try_from(input_len)
        .unwrap_or(u64::MAX)
        .saturating_mul(64)
        .saturating_add(1 << 20)
}

/// Reads the zip member `name`; `Ok(None)` if the archive has no such member.
pub(crate) fn read_zip_member<R: Read + std::io::Seek>(
    archive: &mut zip::ZipArchive<R>,
    name: &str,
    cap: u64,
) -> Result<Option<Vec<u8>>, String> {
    let mut file = match archive.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(format!("cannot open zip member {name}: {e}")),
    };
    let size = file.size();
    if size > cap {
        return Err(format!(
            "zip member {name} claims {size} bytes, more than this file can hold ({cap})"
        ));
    }
    let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 26));
    (&mut file)
        .take(size.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(|e| format!("cannot read zip member {name}: {e}"))?;
    if u64::try_from(buf.len()).ok() != Some(size) {
        return Err(format!(
            "zip member {name} holds {} bytes but its header says {size}",
            buf.len()
        ));
    }
    Ok(Some(buf))
}

fn parse_zip(bytes: &[u8], path: &str) -> Result<Checkpoint, FormatError> {
    let err = |m: String| FormatError::new(path, m);
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| err(format!("not a readable zip archive: {e}")))?;
    // The pickle is `<prefix>/data.pkl`; torch names the prefix after the file (or `archive`).
    let pkl_name = archive
        .file_names()
        .filter_map(Result::ok)
        .find(|name| {
            name.strip_suffix("data.pkl")
                .is_some_and(|p| p.ends_with('/') && p.matches('/').count() == 1)
        })
        .map(|name| name.into_owned());
    let pkl_name = pkl_name.ok_or_else(|| {
        err("zip archive has no <prefix>/data.pkl member: not a PyTorch checkpoint".to_string())
    })?;
    let prefix = pkl_name
        .strip_suffix("data.pkl")
        .unwrap_or_default()
        .to_string();
    let cap = zip_member_cap(bytes.len());
    let pkl = read_zip_member(&mut archive, &pkl_name, cap)
        .map_err(err)?
        .ok_or_else(|| err(format!("cannot find {pkl_name}")))?;
    let big_endian = match read_zip_member(&mut archive, &format!("{prefix}byteorder"), 64) {
        Ok(None) => false,
        Ok(Some(b)) => match String::from_utf8_lossy(&b).trim() {
            "little" => false,
            "big" => true,
            other => {
                return Err(err(format!(
                    "{prefix}byteorder says {other:?}, expected \"little\" or \"big\""
                )));
            }
        },
        Err(m) => return Err(err(m)),
    };
    let root = pickle::parse(&pkl, path).map_err(|e| err(format!("{pkl_name}: {}", e.message)))?;
    let mut storages = Storages::Zip {
        archive,
        prefix,
        cap,
        cache: HashMap::new(),
    };
    build_checkpoint(root, &mut storages, big_endian).map_err(err)
}

/// The magic number that starts a legacy checkpoint, as a Python integer.
const LEGACY_MAGIC: &str = "119547037146038801333356";
/// The protocol version of legacy checkpoints.
const LEGACY_PROTOCOL: i64 = 1001;

fn parse_legacy(bytes: &[u8], path: &str) -> Result<Checkpoint, FormatError> {
    let err = |m: String| FormatError::new(path, m);
    let limits = Limits::default();
    let mut pos = 0usize;
    let mut next_pickle = |what: &str| -> Result<Value, FormatError> {
        let rest = bytes.get(pos..).unwrap_or(&[]);
        let (value, used) = pickle::parse_prefix(rest, path, &limits).map_err(|e| {
            err(format!(
                "legacy checkpoint: cannot read the {what} pickle (which starts at byte {pos}): {}",
                e.message
            ))
        })?;
        pos += used;
        Ok(value)
    };
    let magic = next_pickle("magic number")?;
    if magic.summary(64) != LEGACY_MAGIC {
        return Err(err(format!(
            "not a PyTorch checkpoint: the file starts with a pickle of {} instead of the \
             PyTorch magic number",
            magic.summary(60)
        )));
    }
    let protocol = next_pickle("protocol version")?;
    if protocol.as_int() != Some(LEGACY_PROTOCOL) {
        return Err(err(format!(
            "legacy checkpoint protocol version {} is not supported (expected {LEGACY_PROTOCOL})",
            protocol.summary(40)
        )));
    }
    let sys_info = next_pickle("system information")?;
    let big_endian = sys_info.get("little_endian").and_then(Value::as_bool) == Some(false);
    let root = next_pickle("checkpoint object")?;
    let keys = next_pickle("storage key list")?;

    // Element types of the storages, from their persistent ids anywhere in the object.
    let mut types = HashMap::new();
    collect_storage_types(&root, &mut types);
    let keys = keys.as_seq().ok_or_else(|| {
        err(format!(
            "legacy checkpoint: the storage key list is a {}, not a list",
            keys.kind()
        ))
    })?;
    let mut raw: HashMap<String, &[u8]> = HashMap::new();
    for key in keys {
        let key = storage_key(key).map_err(err)?;
        let &(dtype, numel) = types.get(&key).ok_or_else(|| {
            err(format!(
                "legacy checkpoint: storage {key} is listed but no tensor refers to it"
            ))
        })?;
        let header: [u8; 8] = bytes
            .get(pos..pos.saturating_add(8))
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                err(format!(
                    "legacy checkpoint truncated: storage {key} (at byte {pos}) is missing"
                ))
            })?;
        let count = if big_endian {
            u64::from_be_bytes(header)
        } else {
            u64::from_le_bytes(header)
        };
        pos += 8;
        if count != numel {
            return Err(err(format!(
                "legacy checkpoint: storage {key} has {count} elements in the file but {numel} \
                 in the pickle"
            )));
        }
        let len = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(dtype.element_size()))
            .filter(|&l| l <= bytes.len().saturating_sub(pos))
            .ok_or_else(|| {
                err(format!(
                    "legacy checkpoint truncated: storage {key} needs {count} {dtype} elements \
                     but only {} bytes remain",
                    bytes.len().saturating_sub(pos)
                ))
            })?;
        let data = bytes.get(pos..pos + len).unwrap_or_default();
        pos += len;
        raw.insert(key, data);
    }
    let mut storages = Storages::Legacy { raw };
    build_checkpoint(root, &mut storages, big_endian).map_err(err)
}

/// Records `(type, numel)` for every `('storage', ...)` persistent id in `value`.
fn collect_storage_types(value: &Value, out: &mut HashMap<String, (DType, u64)>) {
    match value {
        Value::PersistentId(pid) => {
            if let Ok(s) = StorageRef::from_pid(pid) {
                out.entry(s.key).or_insert((s.dtype, s.numel));
            }
        }
        Value::List(items) | Value::Tuple(items) | Value::Set(items) => {
            for v in items {
                collect_storage_types(v, out);
            }
        }
        Value::Dict(pairs) => {
            for (k, v) in pairs {
                collect_storage_types(k, out);
                collect_storage_types(v, out);
            }
        }
        Value::Call { callable, args } => {
            collect_storage_types(callable, out);
            collect_storage_types(args, out);
        }
        Value::Build { object, state } => {
            collect_storage_types(object, out);
            collect_storage_types(state, out);
        }
        _ => {}
    }
}

/// A storage key: a string (or, in some writers, an integer).
fn storage_key(v: &Value) -> Result<String, String> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        Value::Int(i) => Ok(i.to_string()),
        other => Err(format!("storage key {} is not a string", other.summary(40))),
    }
}

/// Where tensor storages come from.
enum Storages<'a> {
    /// Members `<prefix>data/<key>` of a zip checkpoint, read on first use.
    Zip {
        archive: zip::ZipArchive<Cursor<&'a [u8]>>,
        prefix: String,
        cap: u64,
        cache: HashMap<String, Vec<u8>>,
    },
    /// Raw storages of a legacy checkpoint.
    Legacy { raw: HashMap<String, &'a [u8]> },
}

impl Storages<'_> {
    /// The bytes of a storage of `nbytes` bytes.
    fn get(&mut self, key: &str, nbytes: u64) -> Result<&[u8], String> {
        match self {
            Storages::Zip {
                archive,
                prefix,
                cap,
                cache,
            } => {
                if !cache.contains_key(key) {
                    let name = format!("{prefix}data/{key}");
                    if nbytes > *cap {
                        return Err(format!(
                            "storage {key} claims {nbytes} bytes, more than this file can hold"
                        ));
                    }
                    let data = read_zip_member(archive, &name, *cap)?.ok_or_else(|| {
                        format!("storage {key} is missing: the archive has no member {name}")
                    })?;
                    if (data.len() as u64) < nbytes {
                        return Err(format!(
                            "storage {key} ({name}) holds {} bytes but needs {nbytes}",
                            data.len()
                        ));
                    }
                    cache.insert(key.to_string(), data);
                }
                let data = cache
                    .get(key)
                    .ok_or_else(|| format!("storage {key} could not be cached"))?;
                let n = usize::try_from(nbytes)
                    .unwrap_or(usize::MAX)
                    .min(data.len());
                Ok(data.get(..n).unwrap_or_default())
            }
            Storages::Legacy { raw } => raw
                .get(key)
                .copied()
                .ok_or_else(|| format!("storage {key} is not in the file's list of storages")),
        }
    }
}

/// A persistent id `('storage', torch.<T>Storage, key, location, numel[, view_metadata])`.
struct StorageRef {
    key: String,
    dtype: DType,
    /// Elements of `dtype` in the (root) storage.
    numel: u64,
    /// For a legacy view: offset of the view in the root storage, in elements.
    view_offset: u64,
}

impl StorageRef {
    fn from_pid(pid: &Value) -> Result<StorageRef, String> {
        let items = pid
            .as_seq()
            .ok_or_else(|| format!("persistent id {} is not a tuple", pid.summary(80)))?;
        let [tag, stype, key, _location, numel, rest @ ..] = items else {
            return Err(format!(
                "persistent id {} is not ('storage', type, key, location, numel)",
                pid.summary(120)
            ));
        };
        if tag.as_str() != Some("storage") {
            return Err(format!(
                "persistent id {} is not a tensor storage",
                pid.summary(120)
            ));
        }
        let dtype = match stype.as_global() {
            Some((module, name)) if module.starts_with("torch") => {
                DType::from_storage_name(name)
                    .ok_or_else(|| format!("storage type {module}.{name} is not supported"))?
            }
            _ => {
                return Err(format!(
                    "storage type {} is not a torch storage class",
                    stype.summary(80)
                ));
            }
        };
        let key = storage_key(key)?;
        let numel = numel
            .as_int()
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| format!("storage {key} has a bad size {}", numel.summary(40)))?;
        let mut view_offset = 0;
        if let Some(view) = rest.first() {
            match view {
                Value::None => {}
                Value::Tuple(v) => {
                    let offset = v
                        .get(1)
                        .and_then(Value::as_int)
                        .and_then(|o| u64::try_from(o).ok())
                        .ok_or_else(|| {
                            format!("storage {key} has a bad view {}", view.summary(80))
                        })?;
                    view_offset = offset;
                }
                other => {
                    return Err(format!(
                        "storage {key} has a bad view {}",
                        other.summary(80)
                    ));
                }
            }
        }
        Ok(StorageRef {
            key,
            dtype,
            numel,
            view_offset,
        })
    }
}

/// A tensor expression: a storage and how to view it.
struct TensorRef {
    storage: StorageRef,
    /// The element type of the view (a `_rebuild_tensor_v3` dtype may reinterpret bytes).
    dtype: DType,
    offset: u64,
    size: Vec<usize>,
    stride: Vec<usize>,
}

fn usize_list(v: &Value, what: &str) -> Result<Vec<usize>, String> {
    let items = v
        .as_seq()
        .ok_or_else(|| format!("tensor {what} {} is not a tuple", v.summary(60)))?;
    items
        .iter()
        .map(|x| {
            x.as_int()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| format!("tensor {what} {} has a bad entry", v.summary(60)))
        })
        .collect()
}

impl TensorRef {
    /// Interprets a pickled tensor expression.
    fn from_value(v: &Value) -> Result<TensorRef, String> {
        let not_tensor = || format!("{} is not a tensor", v.summary(120));
        match v {
            Value::Build { object, .. } => TensorRef::from_value(object),
            Value::Call { callable, args } => {
                let (module, name) = callable.as_global().ok_or_else(not_tensor)?;
                let args = args.as_seq().ok_or_else(not_tensor)?;
                match (module, name) {
                    ("torch._utils", "_rebuild_parameter" | "_rebuild_parameter_with_state") => {
                        TensorRef::from_value(args.first().ok_or_else(not_tensor)?)
                    }
                    (
                        "torch._utils",
                        "_rebuild_tensor" | "_rebuild_tensor_v2" | "_rebuild_tensor_v3",
                    ) => {
                        let [storage, offset, size, stride, rest @ ..] = args else {
                            return Err(format!("{name} has too few arguments"));
                        };
                        let Value::PersistentId(pid) = storage else {
                            return Err(format!(
                                "{name}: the storage {} is not a persistent id",
                                storage.summary(80)
                            ));
                        };
                        let storage = StorageRef::from_pid(pid)?;
                        let mut dtype = storage.dtype;
                        if name == "_rebuild_tensor_v3" {
                            let d = rest.get(2).ok_or("_rebuild_tensor_v3 has no dtype")?;
                            dtype = match d.as_global() {
                                Some(("torch", n)) => DType::from_torch_name(n),
                                _ => None,
                            }
                            .ok_or_else(|| format!("dtype {} is not supported", d.summary(40)))?;
                        }
                        let offset = offset
                            .as_int()
                            .and_then(|o| u64::try_from(o).ok())
                            .ok_or_else(|| format!("bad storage offset {}", offset.summary(40)))?;
                        let size = usize_list(size, "size")?;
                        let stride = usize_list(stride, "stride")?;
                        if size.len() != stride.len() {
                            return Err(format!(
                                "tensor size {size:?} and stride {stride:?} differ in length"
                            ));
                        }
                        Ok(TensorRef {
                            storage,
                            dtype,
                            offset,
                            size,
                            stride,
                        })
                    }
                    ("torch._utils", n) if n.starts_with("_rebuild_") => Err(format!(
                        "tensors rebuilt with torch._utils.{n} (quantized, sparse or other \
                         special tensors) are not supported"
                    )),
                    _ => Err(not_tensor()),
                }
            }
            _ => Err(not_tensor()),
        }
    }

    fn decode(&self, storages: &mut Storages<'_>, big_endian: bool) -> Result<Tensor, String> {
        let st = &self.storage;
        let storage_bytes = st
            .numel
            .checked_mul(st.dtype.element_size() as u64)
            .ok_or_else(|| format!("storage {} size overflows", st.key))?;
        let bytes = storages.get(&st.key, storage_bytes)?;
        // A legacy view starts `view_offset` elements (of the storage type) into the root.
        let view_start = usize::try_from(st.view_offset)
            .ok()
            .and_then(|o| o.checked_mul(st.dtype.element_size()))
            .filter(|&o| o <= bytes.len())
            .ok_or_else(|| format!("storage {} view offset is out of range", st.key))?;
        let bytes = bytes.get(view_start..).unwrap_or_default();
        let data = gather(
            bytes,
            self.dtype,
            big_endian,
            self.offset,
            &self.size,
            &self.stride,
        )
        .map_err(|m| format!("storage {}: {m}", st.key))?;
        Ok(Tensor {
            shape: self.size.clone(),
            dtype: self.dtype,
            data,
        })
    }
}

/// How many more elements than its storage holds a tensor view may have (stride-0 views).
const MAX_EXTRA_VIEW_ELEMENTS: usize = 1 << 20;

/// Reads the strided view `(offset, size, stride)` of a storage in C order.
fn gather(
    bytes: &[u8],
    dtype: DType,
    big_endian: bool,
    offset: u64,
    size: &[usize],
    stride: &[usize],
) -> Result<Vec<f64>, String> {
    let esize = dtype.element_size();
    let available = bytes.len() / esize;
    let describe = || format!("offset {offset}, shape {size:?}, stride {stride:?}");
    if size.len() != stride.len() {
        return Err(format!(
            "tensor view ({}): shape and stride differ in length",
            describe()
        ));
    }
    let numel = size
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s))
        .ok_or_else(|| format!("tensor shape {size:?} has too many elements"))?;
    if numel == 0 {
        return Ok(Vec::new());
    }
    // Strides of dimensions of size 1 never matter; zero them so they cannot overflow.
    let stride: Vec<usize> = size
        .iter()
        .zip(stride)
        .map(|(&n, &s)| if n == 1 { 0 } else { s })
        .collect();
    let offset = usize::try_from(offset).map_err(|_| format!("bad view ({})", describe()))?;
    let last = size
        .iter()
        .zip(&stride)
        .try_fold(offset, |acc, (&n, &s)| {
            (n - 1).checked_mul(s).and_then(|x| acc.checked_add(x))
        })
        .ok_or_else(|| format!("tensor view ({}) overflows", describe()))?;
    if last >= available {
        return Err(format!(
            "tensor view ({}) reaches element {last} but the storage holds only {available} \
             {dtype} elements",
            describe()
        ));
    }
    if numel > available.saturating_add(MAX_EXTRA_VIEW_ELEMENTS) {
        return Err(format!(
            "tensor view ({}) has {numel} elements, far more than its storage ({available})",
            describe()
        ));
    }
    let read = |i: usize| -> Result<f64, String> {
        let start = i * esize;
        bytes
            .get(start..start + esize)
            .and_then(|b| dtype.decode(b, big_endian))
            .ok_or_else(|| format!("element {i} is outside the storage"))
    };
    let mut out = Vec::with_capacity(numel);
    let ndim = size.len();
    let mut index = vec![0usize; ndim];
    let mut pos = offset;
    for _ in 0..numel {
        out.push(read(pos)?);
        // Advance the C-order odometer; `pos` stays within [offset, last] + one stride.
        for d in (0..ndim).rev() {
            index[d] += 1;
            pos += stride[d];
            if index[d] < size[d] {
                break;
            }
            pos -= stride[d] * size[d];
            index[d] = 0;
        }
    }
    Ok(out)
}

/// Turns the unpickled top-level object into a [`Checkpoint`].
fn build_checkpoint(
    root: Value,
    storages: &mut Storages<'_>,
    big_endian: bool,
) -> Result<Checkpoint, String> {
    let pairs = root.as_dict().ok_or_else(|| {
        format!(
            "the checkpoint holds a {} ({}), not a dict",
            root.kind(),
            root.summary(80)
        )
    })?;
    let entries: Vec<(String, Value)> = pairs
        .iter()
        .map(|(k, v)| {
            let key = match k {
                Value::Str(s) => s.clone(),
                other => other.summary(80),
            };
            (key, v.clone())
        })
        .collect();
    let state_pairs: &[(Value, Value)] = match root.get("state_dict") {
        Some(sd) => sd.as_dict().ok_or_else(|| {
            format!(
                "the 'state_dict' entry is a {} ({}), not a dict",
                sd.kind(),
                sd.summary(80)
            )
        })?,
        None => {
            let all_tensors =
                !pairs.is_empty() && pairs.iter().all(|(_, v)| TensorRef::from_value(v).is_ok());
            if !all_tensors {
                let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).take(20).collect();
                return Err(format!(
                    "the checkpoint has no 'state_dict' entry and is not itself a dict of \
                     tensors (its keys: {})",
                    keys.join(", ")
                ));
            }
            pairs
        }
    };
    let mut state_dict = Vec::with_capacity(state_pairs.len());
    for (k, v) in state_pairs {
        let name = k
            .as_str()
            .ok_or_else(|| format!("state_dict key {} is not a string", k.summary(60)))?;
        let tensor = TensorRef::from_value(v)
            .and_then(|t| t.decode(storages, big_endian))
            .map_err(|m| format!("state_dict entry '{name}': {m}"))?;
        state_dict.push((name.to_string(), tensor));
    }
    let arch = root.get("arch").and_then(Value::as_str).map(str::to_string);
    let epoch = root.get("epoch").and_then(Value::as_int);
    Ok(Checkpoint {
        entries,
        state_dict,
        arch,
        epoch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
    }

    #[test]
    fn strided_gather() {
        let bytes: Vec<u8> = (0u8..12).collect();
        // Transpose of a 3x4 matrix stored at offset 0.
        let t = gather(&bytes, DType::UInt8, false, 0, &[4, 3], &[1, 4]).unwrap();
        assert_eq!(t, vec![0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]);
        // Offset and a stride-0 (broadcast) dimension.
        let t = gather(&bytes, DType::UInt8, false, 5, &[2, 3], &[0, 2]).unwrap();
        assert_eq!(t, vec![5., 7., 9., 5., 7., 9.]);
        // Scalar.
        assert_eq!(
            gather(&bytes, DType::UInt8, false, 11, &[], &[]).unwrap(),
            vec![11.]
        );
        // Size-1 dimension with a huge stride is harmless.
        let t = gather(&bytes, DType::UInt8, false, 1, &[1, 2], &[usize::MAX, 1]).unwrap();
        assert_eq!(t, vec![1., 2.]);
        // Out of range.
        assert!(gather(&bytes, DType::UInt8, false, 10, &[3], &[1]).is_err());
        assert!(gather(&bytes, DType::Int32, false, 0, &[4], &[1]).is_err());
        assert!(gather(&bytes, DType::UInt8, false, 0, &[usize::MAX, 2], &[0, 0]).is_err());
    }

    #[test]
    fn integer_check() {
        let t = Tensor {
            shape: vec![3],
            dtype: DType::Float32,
            data: vec![1.0, -128.0, 127.0],
        };
        assert_eq!(t.to_i64_exact().unwrap(), vec![1, -128, 127]);
        let t = Tensor {
            shape: vec![2],
            dtype: DType::Float32,
            data: vec![1.0, 0.5],
        };
        assert!(t.to_i64_exact().unwrap_err().contains("element 1"));
    }
}

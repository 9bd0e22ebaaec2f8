//! NumPy `.npy` files (format versions 1.0, 2.0 and 3.0) and `.npz` archives.
//!
//! An `.npy` file is the magic `\x93NUMPY`, a version, a header length (2 bytes in version 1,
//! 4 bytes in versions 2 and 3), a header that is a Python dict literal such as
//! `{'descr': '<i8', 'fortran_order': False, 'shape': (1, 28, 28), }`, and the raw elements.
//! An `.npz` file is a zip archive (stored or deflated) of `.npy` files.
//!
//! Several arrays may also be written one after another into one `.npy` file (by calling
//! `np.save` repeatedly on one open file, as the ai8x sample-weight files are made);
//! [`load_npy_all`] reads all of them, [`load_npy`] only the first, as `np.load` does.
//!
//! Supported element types are booleans (`|b1`), signed and unsigned integers of 1, 2, 4 and
//! 8 bytes and floats of 2, 4 and 8 bytes, in either byte order. Object arrays (`|O`, which
//! hold pickled Python objects) and structured dtypes are rejected with an error. Data in
//! Fortran order is returned in C order.

use super::error::FormatError;
use std::io::Cursor;
use std::path::Path;

/// An array read from an `.npy` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    /// The size of each dimension (empty for a 0-d array).
    pub shape: Vec<usize>,
    /// The NumPy type descriptor from the header, e.g. `"<i8"` or `"|i1"`.
    pub dtype: String,
    /// The elements, in C (row-major) order.
    pub data: NpyData,
}

/// The elements of an [`NpyArray`], widened to 64 bits.
#[derive(Debug, Clone, PartialEq)]
pub enum NpyData {
    /// Signed integers (`i1`, `i2`, `i4`, `i8`).
    Int(Vec<i64>),
    /// Unsigned integers (`u1`, `u2`, `u4`, `u8`).
    UInt(Vec<u64>),
    /// Floats (`f2`, `f4`, `f8`), exactly.
    Float(Vec<f64>),
    /// Booleans (`b1`).
    Bool(Vec<bool>),
}

impl NpyData {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            NpyData::Int(v) => v.len(),
            NpyData::UInt(v) => v.len(),
            NpyData::Float(v) => v.len(),
            NpyData::Bool(v) => v.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl NpyArray {
    /// The number of elements.
    pub fn numel(&self) -> usize {
        self.data.len()
    }

    /// The elements as `i64`: integers and booleans always, unsigned integers if they fit,
    /// floats only if every one is integral (and within range).
    pub fn to_i64(&self) -> Result<Vec<i64>, String> {
        match &self.data {
            NpyData::Int(v) => Ok(v.clone()),
            NpyData::Bool(v) => Ok(v.iter().map(|&b| i64::from(b)).collect()),
            NpyData::UInt(v) => v
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    i64::try_from(x).map_err(|_| format!("element {i} ({x}) does not fit in i64"))
                })
                .collect(),
            NpyData::Float(v) => v
                .iter()
                .enumerate()
                .map(|(i, &x)| {
                    if x.is_finite()
                        && x.fract() == 0.0
                        && x >= -(2f64.powi(63))
                        && x < 2f64.powi(63)
                    {
                        Ok(x as i64)
                    } else {
                        Err(format!("element {i} ({x}) is not an integer"))
                    }
                })
                .collect(),
        }
    }

    /// The elements as `f64` (64-bit integers beyond 2^53 in magnitude are rounded).
    pub fn to_f64(&self) -> Vec<f64> {
        match &self.data {
            NpyData::Int(v) => v.iter().map(|&x| x as f64).collect(),
            NpyData::UInt(v) => v.iter().map(|&x| x as f64).collect(),
            NpyData::Float(v) => v.clone(),
            NpyData::Bool(v) => v.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
        }
    }
}

/// Encodes `data` (C order) as a version-1.0 `.npy` file of little-endian int64 with `shape`.
pub fn encode_npy_i64(shape: &[usize], data: &[i64]) -> Vec<u8> {
    encode_npy(
        shape,
        "<i8",
        data.iter().flat_map(|v| v.to_le_bytes()).collect(),
    )
}

/// Encodes `data` (C order) as a version-1.0 `.npy` file of int8 with `shape`.
pub fn encode_npy_i8(shape: &[usize], data: &[i8]) -> Vec<u8> {
    encode_npy(shape, "|i1", data.iter().map(|&v| v as u8).collect())
}

fn encode_npy(shape: &[usize], descr: &str, body: Vec<u8>) -> Vec<u8> {
    let dims = match shape.len() {
        1 => format!("({},)", shape[0]),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // Magic (6) + version (2) + length (2) + header + newline is a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + body.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads an `.npy` file: its first (normally only) array, as `np.load` does; bytes after the
/// first array are ignored (see [`load_npy_all`]).
pub fn load_npy(path: &Path) -> Result<NpyArray, FormatError> {
    let shown = path.display().to_string();
    parse_npy(&read_file(path, &shown)?, &shown)
}

/// Reads every array of an `.npy` file that holds several arrays written one after another
/// (as repeated `np.save` calls on one open file produce, and repeated `np.load` calls on one
/// open file read). A file of one array gives a vector of one. Anything after the last
/// complete array that is not another array is an error.
pub fn load_npy_all(path: &Path) -> Result<Vec<NpyArray>, FormatError> {
    let shown = path.display().to_string();
    parse_npy_all(&read_file(path, &shown)?, &shown)
}

fn read_file(path: &Path, shown: &str) -> Result<Vec<u8>, FormatError> {
    std::fs::read(path).map_err(|e| FormatError::new(shown, format!("cannot read file: {e}")))
}

/// Encodes `.npz` archive bytes: each `(name, npy bytes)` as the stored (uncompressed) zip
/// member `name.npy`, in the order given (as `numpy.savez` writes them).
pub fn encode_npz(members: &[(String, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .last_modified_time(zip::DateTime::default());
    for (name, bytes) in members {
        zip.start_file(format!("{name}.npy"), opts)
            .and_then(|_| zip.write_all(bytes).map_err(Into::into))
            .expect("writing to memory cannot fail");
    }
    zip.finish()
        .expect("writing to memory cannot fail")
        .into_inner()
}

/// Reads an `.npz` archive: each `.npy` member as `(name without ".npy", array)`, in archive
/// order. Members whose names do not end in `.npy` are skipped.
pub fn load_npz(path: &Path) -> Result<Vec<(String, NpyArray)>, FormatError> {
    let shown = path.display().to_string();
    parse_npz(&read_file(path, &shown)?, &shown)
}

/// Reads an `.npz` archive from memory; `path_for_errors` names it in error messages.
pub fn parse_npz(
    bytes: &[u8],
    path_for_errors: &str,
) -> Result<Vec<(String, NpyArray)>, FormatError> {
    let err = |m: String| FormatError::new(path_for_errors, m);
    if !bytes.starts_with(b"PK") {
        return Err(err(
            "not an .npz file: it does not start with a zip signature".to_string(),
        ));
    }
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| err(format!("not a readable zip archive: {e}")))?;
    let names: Vec<String> = archive
        .file_names()
        .enumerate()
        .map(|(i, name)| {
            name.map(|n| n.into_owned())
                .map_err(|e| err(format!("zip entry {i} has a bad name: {e}")))
        })
        .collect::<Result<_, _>>()?;
    let cap = u64::try_from(bytes.len())
        .unwrap_or(u64::MAX)
        .saturating_mul(1100)
        .saturating_add(1 << 20);
    let mut out = Vec::new();
    for name in names {
        let Some(key) = name.strip_suffix(".npy") else {
            continue;
        };
        let data = super::torch::read_zip_member(&mut archive, &name, cap)
            .map_err(err)?
            .ok_or_else(|| err(format!("zip member {name} disappeared")))?;
        let array = parse_npy(&data, &format!("{path_for_errors}:{name}"))?;
        out.push((key.to_string(), array));
    }
    Ok(out)
}

/// The element types this module decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    UInt,
    Float,
    Bool,
}

/// Parses the first array of an `.npy` file held in memory (see [`load_npy`]);
/// `path_for_errors` names it in error messages.
pub fn parse_npy(bytes: &[u8], path_for_errors: &str) -> Result<NpyArray, FormatError> {
    parse_one(bytes)
        .map(|(array, _)| array)
        .map_err(|m| FormatError::new(path_for_errors, m))
}

/// Parses every array of an `.npy` file held in memory (see [`load_npy_all`]).
pub fn parse_npy_all(bytes: &[u8], path_for_errors: &str) -> Result<Vec<NpyArray>, FormatError> {
    let mut arrays = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() || arrays.is_empty() {
        let rest = bytes.get(pos..).unwrap_or_default();
        let (array, used) = parse_one(rest).map_err(|m| {
            let m = if arrays.is_empty() {
                m
            } else {
                format!("array {} (at byte {pos}): {m}", arrays.len())
            };
            FormatError::new(path_for_errors, m)
        })?;
        arrays.push(array);
        pos += used;
    }
    Ok(arrays)
}

#[cfg(test)]
fn parse_npy_inner(bytes: &[u8]) -> Result<NpyArray, String> {
    parse_one(bytes).map(|(array, _)| array)
}

/// Parses one array at the start of `bytes`; also returns the bytes it took.
fn parse_one(bytes: &[u8]) -> Result<(NpyArray, usize), String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    if !bytes.starts_with(MAGIC) {
        if bytes.is_empty() {
            return Err("the file is empty".to_string());
        }
        let head: Vec<String> = bytes.iter().take(6).map(|b| format!("{b:02x}")).collect();
        return Err(format!(
            "not an .npy file: it starts with bytes {} instead of \\x93NUMPY",
            head.join(" ")
        ));
    }
    let (major, minor) = match bytes.get(6..8) {
        Some(&[major, minor]) => (major, minor),
        _ => return Err("truncated .npy file: no format version".to_string()),
    };
    let (header_len, header_start): (usize, usize) = match major {
        1 => {
            let b: [u8; 2] = bytes
                .get(8..10)
                .and_then(|b| b.try_into().ok())
                .ok_or("truncated .npy file: no header length")?;
            (usize::from(u16::from_le_bytes(b)), 10)
        }
        2 | 3 => {
            let b: [u8; 4] = bytes
                .get(8..12)
                .and_then(|b| b.try_into().ok())
                .ok_or("truncated .npy file: no header length")?;
            let n = usize::try_from(u32::from_le_bytes(b)).unwrap_or(usize::MAX);
            (n, 12)
        }
        _ => {
            return Err(format!(
                ".npy format version {major}.{minor} is not supported (only 1.0, 2.0, 3.0)"
            ));
        }
    };
    let data_start = header_start
        .checked_add(header_len)
        .filter(|&end| end <= bytes.len())
        .ok_or_else(|| {
            format!(
                "truncated .npy file: the header needs {header_len} bytes but only {} remain",
                bytes.len().saturating_sub(header_start)
            )
        })?;
    let header_bytes = bytes.get(header_start..data_start).unwrap_or_default();
    let header: String = if major == 3 {
        String::from_utf8(header_bytes.to_vec())
            .map_err(|_| "the .npy header is not valid UTF-8".to_string())?
    } else {
        header_bytes.iter().map(|&b| char::from(b)).collect()
    };
    let (descr, fortran_order, shape) = parse_header(&header)?;
    let (kind, esize, big_endian) = parse_descr(&descr)?;

    let numel = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .ok_or_else(|| format!("shape {shape:?} has too many elements"))?;
    let nbytes = numel
        .checked_mul(esize)
        .ok_or_else(|| format!("shape {shape:?} is too large"))?;
    let body = bytes.get(data_start..).unwrap_or_default();
    let raw = body.get(..nbytes).ok_or_else(|| {
        format!(
            "truncated .npy file: shape {shape:?} of {descr} needs {nbytes} data bytes but \
             only {} are present",
            body.len()
        )
    })?;
    let chunks = raw.chunks_exact(esize);
    let mut data = match kind {
        Kind::Int => NpyData::Int(chunks.map(|c| read_int(c, big_endian)).collect()),
        Kind::UInt => NpyData::UInt(chunks.map(|c| read_uint(c, big_endian)).collect()),
        Kind::Float => NpyData::Float(chunks.map(|c| read_float(c, big_endian)).collect()),
        Kind::Bool => NpyData::Bool(chunks.map(|c| c.iter().any(|&b| b != 0)).collect()),
    };
    if fortran_order && shape.len() > 1 {
        data = match data {
            NpyData::Int(v) => NpyData::Int(fortran_to_c(&v, &shape)),
            NpyData::UInt(v) => NpyData::UInt(fortran_to_c(&v, &shape)),
            NpyData::Float(v) => NpyData::Float(fortran_to_c(&v, &shape)),
            NpyData::Bool(v) => NpyData::Bool(fortran_to_c(&v, &shape)),
        };
    }
    Ok((
        NpyArray {
            shape,
            dtype: descr,
            data,
        },
        data_start + nbytes,
    ))
}

/// The element bytes as a `u64`, in the given byte order (`c` has 1 to 8 bytes).
fn read_bits(c: &[u8], big_endian: bool) -> u64 {
    let fold = |acc: u64, &b: &u8| (acc << 8) | u64::from(b);
    if big_endian {
        c.iter().fold(0, fold)
    } else {
        c.iter().rev().fold(0, fold)
    }
}

fn read_int(c: &[u8], big_endian: bool) -> i64 {
    let bits = read_bits(c, big_endian);
    let unused = 64 - 8 * c.len().clamp(1, 8) as u32;
    // Sign-extend from the element's width.
    ((bits << unused) as i64) >> unused
}

fn read_uint(c: &[u8], big_endian: bool) -> u64 {
    read_bits(c, big_endian)
}

fn read_float(c: &[u8], big_endian: bool) -> f64 {
    let bits = read_bits(c, big_endian);
    match c.len() {
        2 => super::torch::f16_to_f64((bits & 0xffff) as u16),
        4 => f64::from(f32::from_bits((bits & 0xffff_ffff) as u32)),
        _ => f64::from_bits(bits),
    }
}

/// Reorders elements stored in Fortran (column-major) order into C order.
fn fortran_to_c<T: Copy>(data: &[T], shape: &[usize]) -> Vec<T> {
    let ndim = shape.len();
    // Column-major strides; they cannot overflow because their product is `data.len()`.
    let mut fstride = vec![1usize; ndim];
    for d in 1..ndim {
        fstride[d] = fstride[d - 1] * shape[d - 1];
    }
    let mut out = Vec::with_capacity(data.len());
    let mut index = vec![0usize; ndim];
    let mut pos = 0usize;
    for _ in 0..data.len() {
        if let Some(&v) = data.get(pos) {
            out.push(v);
        }
        for d in (0..ndim).rev() {
            index[d] += 1;
            pos += fstride[d];
            if index[d] < shape[d] {
                break;
            }
            pos -= fstride[d] * shape[d];
            index[d] = 0;
        }
    }
    out
}

/// Splits a descriptor such as `<i8` into its kind, element size and byte order.
fn parse_descr(descr: &str) -> Result<(Kind, usize, bool), String> {
    let (big_endian, rest) = match descr.as_bytes().first() {
        Some(b'<' | b'=' | b'|') => (false, descr.get(1..).unwrap_or("")),
        Some(b'>') => (true, descr.get(1..).unwrap_or("")),
        _ => (false, descr),
    };
    let unsupported = || {
        format!("dtype {descr:?} is not supported (supported: bool, int8-64, uint8-64, float16-64)")
    };
    let kind = match rest.as_bytes().first() {
        Some(b'i') => Kind::Int,
        Some(b'u') => Kind::UInt,
        Some(b'f') => Kind::Float,
        Some(b'b') => Kind::Bool,
        Some(b'O') => {
            return Err(format!(
                "dtype {descr:?} is an object array (pickled Python objects), which is not \
                 supported"
            ));
        }
        _ => return Err(unsupported()),
    };
    let size: usize = rest
        .get(1..)
        .unwrap_or("")
        .parse()
        .map_err(|_| unsupported())?;
    let ok = match kind {
        Kind::Int | Kind::UInt => matches!(size, 1 | 2 | 4 | 8),
        Kind::Float => matches!(size, 2 | 4 | 8),
        Kind::Bool => size == 1,
    };
    if !ok {
        return Err(unsupported());
    }
    Ok((kind, size, big_endian))
}

/// A Python literal in an `.npy` header.
#[derive(Debug, Clone, PartialEq)]
enum Lit {
    Str(String),
    Int(i64),
    Bool(bool),
    None,
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

/// Extracts `descr`, `fortran_order` and `shape` from the header dict literal.
fn parse_header(header: &str) -> Result<(String, bool, Vec<usize>), String> {
    let mut p = LitParser {
        s: header.as_bytes(),
        pos: 0,
    };
    let lit = p
        .value(0)
        .map_err(|m| format!("bad .npy header {header:?}: {m}"))?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(format!(
            "bad .npy header {header:?}: unexpected text after the dict"
        ));
    }
    let Lit::Dict(pairs) = lit else {
        return Err(format!("bad .npy header {header:?}: not a dict"));
    };
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _)| *k == Lit::Str(key.to_string()))
            .map(|(_, v)| v)
            .ok_or_else(|| format!("the .npy header {header:?} has no '{key}'"))
    };
    let descr = match get("descr")? {
        Lit::Str(s) => s.clone(),
        Lit::Seq(_) => {
            return Err("structured (record) dtypes are not supported".to_string());
        }
        _ => return Err(format!("bad 'descr' in the .npy header {header:?}")),
    };
    let fortran_order = match get("fortran_order")? {
        Lit::Bool(b) => *b,
        _ => return Err(format!("bad 'fortran_order' in the .npy header {header:?}")),
    };
    let shape = match get("shape")? {
        Lit::Seq(items) => items
            .iter()
            .map(|x| match x {
                Lit::Int(n) => usize::try_from(*n).ok(),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| format!("bad 'shape' in the .npy header {header:?}"))?,
        _ => return Err(format!("bad 'shape' in the .npy header {header:?}")),
    };
    Ok((descr, fortran_order, shape))
}

/// A small parser for the Python literals found in `.npy` headers.
struct LitParser<'a> {
    s: &'a [u8],
    pos: usize,
}

/// Deepest nesting accepted in a header literal.
const MAX_LITERAL_DEPTH: usize = 32;

impl LitParser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Lit, String> {
        if depth > MAX_LITERAL_DEPTH {
            return Err("nested too deeply".to_string());
        }
        self.skip_ws();
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut pairs = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Lit::Dict(pairs));
                    }
                    let k = self.value(depth + 1)?;
                    self.skip_ws();
                    if self.peek() != Some(b':') {
                        return Err(format!("expected ':' at offset {}", self.pos));
                    }
                    self.pos += 1;
                    let v = self.value(depth + 1)?;
                    pairs.push((k, v));
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {}
                        _ => return Err(format!("expected ',' or '}}' at offset {}", self.pos)),
                    }
                }
            }
            Some(open @ (b'(' | b'[')) => {
                let close = if open == b'(' { b')' } else { b']' };
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        return Ok(Lit::Seq(items));
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(c) if c == close => {}
                        _ => return Err(format!("expected ',' at offset {}", self.pos)),
                    }
                }
            }
            Some(q @ (b'\'' | b'"')) => {
                self.pos += 1;
                let mut out = Vec::new();
                loop {
                    match self.peek() {
                        None => return Err("unterminated string".to_string()),
                        Some(c) if c == q => {
                            self.pos += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let escaped = self
                                .s
                                .get(self.pos + 1)
                                .copied()
                                .ok_or("unterminated string")?;
                            out.push(escaped);
                            self.pos += 2;
                        }
                        Some(c) => {
                            out.push(c);
                            self.pos += 1;
                        }
                    }
                }
                Ok(Lit::Str(String::from_utf8_lossy(&out).into_owned()))
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let start = self.pos;
                self.pos += 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(self.s.get(start..self.pos).unwrap_or_default())
                    .unwrap_or("");
                let n: i64 = text
                    .parse()
                    .map_err(|_| format!("bad integer {text:?} at offset {start}"))?;
                // Python 2 long suffix, e.g. (3L, 4L).
                if matches!(self.peek(), Some(b'L' | b'l')) {
                    self.pos += 1;
                }
                Ok(Lit::Int(n))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    self.pos += 1;
                }
                match self.s.get(start..self.pos).unwrap_or_default() {
                    b"True" => Ok(Lit::Bool(true)),
                    b"False" => Ok(Lit::Bool(false)),
                    b"None" => Ok(Lit::None),
                    other => Err(format!(
                        "unexpected name {:?} at offset {start}",
                        String::from_utf8_lossy(other)
                    )),
                }
            }
            Some(c) => Err(format!(
                "unexpected character {:?} at offset {}",
                char::from(c),
                self.pos
            )),
            None => Err("unexpected end of header".to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!(
            "{{'descr': '{descr}', 'fortran_order': {}, 'shape': {shape}, }}",
            if fortran { "True" } else { "False" }
        );
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn header_literals() {
        let (d, f, s) =
            parse_header("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 28, 28), }  \n")
                .unwrap();
        assert_eq!((d.as_str(), f, s), ("<i8", false, vec![1, 28, 28]));
        let (_, _, s) =
            parse_header("{\"shape\": (3L,), \"fortran_order\": True, \"descr\": \"|u1\"}")
                .unwrap();
        assert_eq!(s, vec![3]);
        let (_, _, s) =
            parse_header("{'descr': '<f4', 'fortran_order': False, 'shape': ()}").unwrap();
        assert!(s.is_empty());
        assert!(
            parse_header("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': ()}").is_err()
        );
        assert!(parse_header("{'descr': '<i4', 'shape': (-1,), 'fortran_order': False}").is_err());
        assert!(parse_header(&"[".repeat(100)).is_err());
    }

    #[test]
    fn dtypes_and_orders() {
        let a = parse_npy_inner(&npy(">i2", false, "(2,)", &[0xff, 0xfe, 0x01, 0x00])).unwrap();
        assert_eq!(a.data, NpyData::Int(vec![-2, 256]));
        let a = parse_npy_inner(&npy("<u2", false, "(2,)", &[0xff, 0xfe, 0x01, 0x00])).unwrap();
        assert_eq!(a.data, NpyData::UInt(vec![0xfeff, 1]));
        let a = parse_npy_inner(&npy("|b1", false, "(3,)", &[0, 1, 0])).unwrap();
        assert_eq!(a.data, NpyData::Bool(vec![false, true, false]));
        let a = parse_npy_inner(&npy("<f2", false, "()", &[0x00, 0x3c])).unwrap();
        assert_eq!(a.data, NpyData::Float(vec![1.0]));
        // Fortran order: a 2x3 matrix [[0,1,2],[3,4,5]] stored column by column.
        let a = parse_npy_inner(&npy("|i1", true, "(2, 3)", &[0, 3, 1, 4, 2, 5])).unwrap();
        assert_eq!(a.data, NpyData::Int(vec![0, 1, 2, 3, 4, 5]));
        assert_eq!(a.to_i64().unwrap(), vec![0, 1, 2, 3, 4, 5]);
        assert!(parse_npy_inner(&npy("|O", false, "(1,)", &[0; 8])).is_err());
        assert!(parse_npy_inner(&npy("<c16", false, "(1,)", &[0; 16])).is_err());
        assert!(parse_npy_inner(&npy("<i4", false, "(2,)", &[0; 7])).is_err());
    }
}

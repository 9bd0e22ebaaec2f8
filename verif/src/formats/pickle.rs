//! A Python pickle *data* interpreter.
//!
//! This reads the pickle streams that `torch.save` and `numpy.save` produce (protocols 0 to 5)
//! and turns them into a [`Value`] tree. It never imports a module or calls a function: a class
//! or function reference becomes [`Value::Global`], a call becomes [`Value::Call`], a
//! `__setstate__` becomes [`Value::Build`] and a persistent id stays a
//! [`Value::PersistentId`], so that the caller decides what each of them means.
//!
//! A few calls are evaluated because they only build plain containers, and the rest of a file
//! then mutates those containers with `SETITEMS`/`APPENDS`:
//!
//! * `collections.OrderedDict()` becomes an empty [`Value::Dict`];
//! * `builtins.set(items)` and `builtins.frozenset(items)` become a [`Value::Set`];
//! * `_codecs.encode(text, 'latin1')`, `builtins.bytes(...)` and `builtins.bytearray(...)`
//!   (how protocols 0 to 2 store `bytes`) become [`Value::Bytes`].
//!
//! Text is decoded as UTF-8; invalid sequences (such as the lone surrogates Python allows)
//! become U+FFFD. Protocol-0/1 byte strings (`STRING`, `BINSTRING`) become [`Value::Str`]
//! when they are valid UTF-8 (as `torch.load` decodes them) and [`Value::Bytes`] otherwise.
//!
//! Pickle objects are shared by reference through the memo. The interpreter keeps that
//! sharing while it runs (so a dict that is stored in the memo and filled afterwards is seen
//! filled everywhere) and expands it into a tree at the end. [`Limits`] bound the depth of that
//! tree and its size in memory, so that cyclic or exponentially shared ("billion laughs")
//! inputs fail with an error instead of exhausting the stack or memory.

use super::error::FormatError;
use std::collections::HashMap;
use std::fmt::{self, Write as _};

/// A value decoded from a pickle stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Python `None`.
    None,
    /// Python `True` / `False`.
    Bool(bool),
    /// An integer that fits in 64 bits.
    Int(i64),
    /// An integer that does not fit in 64 bits, as little-endian two's-complement bytes (the
    /// layout of the `LONG1`/`LONG4` opcodes).
    BigInt(Vec<u8>),
    /// A Python float.
    Float(f64),
    /// A Python `str` (also protocol-0/1 byte strings that are valid UTF-8).
    Str(String),
    /// A Python `bytes` or `bytearray`.
    Bytes(Vec<u8>),
    /// A Python list.
    List(Vec<Value>),
    /// A Python tuple.
    Tuple(Vec<Value>),
    /// A Python dict (or `collections.OrderedDict`), in insertion order.
    Dict(Vec<(Value, Value)>),
    /// A Python set or frozenset, in stream order.
    Set(Vec<Value>),
    /// A reference to a module attribute (a class or function), e.g. `torch.FloatStorage`.
    Global {
        /// The module, e.g. `torch._utils`.
        module: String,
        /// The attribute name, e.g. `_rebuild_tensor_v2`.
        name: String,
    },
    /// A call that was not evaluated: `REDUCE`, `NEWOBJ`, `OBJ` or `INST`. `args` is normally a
    /// [`Value::Tuple`]. `NEWOBJ_EX` with keyword arguments is represented, as Python itself
    /// does for older protocols, as a call of `copyreg.__newobj_ex__(cls, args, kwargs)`.
    Call {
        /// What is called (usually a [`Value::Global`]).
        callable: Box<Value>,
        /// The arguments (usually a [`Value::Tuple`]).
        args: Box<Value>,
    },
    /// An object whose state was set with `BUILD` (`__setstate__` or `__dict__.update`).
    Build {
        /// The object before its state was set.
        object: Box<Value>,
        /// The state passed to it.
        state: Box<Value>,
    },
    /// A persistent id (`PERSID`/`BINPERSID`): a reference to data stored outside the pickle,
    /// such as a PyTorch tensor storage.
    PersistentId(Box<Value>),
}

impl Value {
    /// The string, if this is a [`Value::Str`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, if this is a [`Value::Int`].
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The boolean, if this is a [`Value::Bool`].
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number as `f64`, if this is a [`Value::Float`] or a [`Value::Int`].
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }

    /// The items, if this is a [`Value::Tuple`] or a [`Value::List`].
    pub fn as_seq(&self) -> Option<&[Value]> {
        match self {
            Value::Tuple(items) | Value::List(items) => Some(items),
            _ => None,
        }
    }

    /// The key/value pairs, if this is a [`Value::Dict`], or a [`Value::Build`] of a dict
    /// (a dict subclass such as an `OrderedDict` that carries attributes).
    pub fn as_dict(&self) -> Option<&[(Value, Value)]> {
        match self {
            Value::Dict(items) => Some(items),
            Value::Build { object, .. } => object.as_dict(),
            _ => None,
        }
    }

    /// Looks up a string key in a dict (see [`Value::as_dict`]).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_dict()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The `(module, name)` pair, if this is a [`Value::Global`].
    pub fn as_global(&self) -> Option<(&str, &str)> {
        match self {
            Value::Global { module, name } => Some((module, name)),
            _ => None,
        }
    }

    /// Whether this is the global `module.name`.
    pub fn is_global(&self, module: &str, name: &str) -> bool {
        self.as_global() == Some((module, name))
    }

    /// A short name of the variant, for error messages (`"dict"`, `"tuple"`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) | Value::BigInt(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::Bytes(_) => "bytes",
            Value::List(_) => "list",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::Set(_) => "set",
            Value::Global { .. } => "global",
            Value::Call { .. } => "call",
            Value::Build { .. } => "object with state",
            Value::PersistentId(_) => "persistent id",
        }
    }

    /// The Python-like representation of this value (see its `Display`), cut to at most about
    /// `max_chars` characters with a trailing `...` when longer. Cheap even for huge values.
    pub fn summary(&self, max_chars: usize) -> String {
        let mut w = LimitedWriter {
            out: String::new(),
            limit: max_chars,
        };
        if write!(w, "{self}").is_err() {
            w.out.push_str("...");
        }
        w.out
    }
}

/// A `fmt::Write` that fails once `limit` bytes have been written.
struct LimitedWriter {
    out: String,
    limit: usize,
}

impl fmt::Write for LimitedWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.limit.saturating_sub(self.out.len());
        if s.len() <= room {
            self.out.push_str(s);
            Ok(())
        } else {
            let mut cut = room;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.out.push_str(&s[..cut]);
            Err(fmt::Error)
        }
    }
}

fn write_seq(f: &mut fmt::Formatter<'_>, items: &[Value]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

fn write_quoted(
    f: &mut fmt::Formatter<'_>,
    prefix: &str,
    bytes_or_chars: Quoted<'_>,
) -> fmt::Result {
    f.write_str(prefix)?;
    f.write_char('\'')?;
    match bytes_or_chars {
        Quoted::Str(s) => {
            for c in s.chars() {
                match c {
                    '\\' => f.write_str("\\\\")?,
                    '\'' => f.write_str("\\'")?,
                    '\n' => f.write_str("\\n")?,
                    '\r' => f.write_str("\\r")?,
                    '\t' => f.write_str("\\t")?,
                    c if (c as u32) < 0x20 || c as u32 == 0x7f => write!(f, "\\x{:02x}", c as u32)?,
                    c => f.write_char(c)?,
                }
            }
        }
        Quoted::Bytes(b) => {
            for &c in b {
                match c {
                    b'\\' => f.write_str("\\\\")?,
                    b'\'' => f.write_str("\\'")?,
                    b'\n' => f.write_str("\\n")?,
                    b'\r' => f.write_str("\\r")?,
                    b'\t' => f.write_str("\\t")?,
                    0x20..=0x7e => f.write_char(char::from(c))?,
                    c => write!(f, "\\x{c:02x}")?,
                }
            }
        }
    }
    f.write_char('\'')
}

enum Quoted<'a> {
    Str(&'a str),
    Bytes(&'a [u8]),
}

impl fmt::Display for Value {
    /// Formats the value much as Python's `repr` would; calls are shown as
    /// `module.name(args...)`, `BUILD` as `object.__setstate__(state)` and persistent ids as
    /// `persistent_id(...)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::None => f.write_str("None"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Int(i) => write!(f, "{i}"),
            Value::BigInt(bytes) => f.write_str(&bigint_to_decimal(bytes)),
            Value::Float(x) => {
                if x.is_nan() {
                    f.write_str("nan")
                } else if x.is_infinite() {
                    f.write_str(if *x > 0.0 { "inf" } else { "-inf" })
                } else {
                    write!(f, "{x:?}")
                }
            }
            Value::Str(s) => write_quoted(f, "", Quoted::Str(s)),
            Value::Bytes(b) => write_quoted(f, "b", Quoted::Bytes(b)),
            Value::List(items) => {
                f.write_char('[')?;
                write_seq(f, items)?;
                f.write_char(']')
            }
            Value::Tuple(items) => {
                f.write_char('(')?;
                write_seq(f, items)?;
                if items.len() == 1 {
                    f.write_char(',')?;
                }
                f.write_char(')')
            }
            Value::Dict(items) => {
                f.write_char('{')?;
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_char('}')
            }
            Value::Set(items) => {
                if items.is_empty() {
                    return f.write_str("set()");
                }
                f.write_char('{')?;
                write_seq(f, items)?;
                f.write_char('}')
            }
            Value::Global { module, name } => write!(f, "{module}.{name}"),
            Value::Call { callable, args } => {
                write!(f, "{callable}(")?;
                match args.as_ref() {
                    Value::Tuple(items) => write_seq(f, items)?,
                    other => write!(f, "*{other}")?,
                }
                f.write_char(')')
            }
            Value::Build { object, state } => write!(f, "{object}.__setstate__({state})"),
            Value::PersistentId(pid) => write!(f, "persistent_id({pid})"),
        }
    }
}

/// Renders little-endian two's-complement bytes as a decimal number (for display only;
/// numbers longer than 256 bytes are described instead of converted).
fn bigint_to_decimal(bytes: &[u8]) -> String {
    if bytes.len() > 256 {
        return format!("<integer of {} bytes>", bytes.len());
    }
    let negative = bytes.last().is_some_and(|b| b & 0x80 != 0);
    // Magnitude, little endian.
    let mut mag: Vec<u8> = bytes.to_vec();
    if negative {
        let mut carry = true;
        for b in &mut mag {
            let (v, c) = (!*b).overflowing_add(u8::from(carry));
            *b = v;
            carry = c;
        }
    }
    // Repeated division by 10, most significant byte first.
    let mut digits = Vec::new();
    loop {
        let mut rem: u32 = 0;
        let mut all_zero = true;
        for b in mag.iter_mut().rev() {
            let cur = (rem << 8) | u32::from(*b);
            // cur / 10 < 256 because rem < 10.
            *b = u8::try_from(cur / 10).unwrap_or(u8::MAX);
            rem = cur % 10;
            if *b != 0 {
                all_zero = false;
            }
        }
        digits.push(char::from(b'0' + u8::try_from(rem).unwrap_or(0)));
        if all_zero {
            break;
        }
    }
    let mut s = String::with_capacity(digits.len() + 1);
    if negative {
        s.push('-');
    }
    s.extend(digits.iter().rev());
    s
}

/// Bounds on the values an untrusted pickle may produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of containers, calls and objects allowed in the result. A cyclic
    /// structure also fails with this limit.
    pub max_depth: usize,
    /// Most memory (approximately, in bytes) the resulting [`Value`] tree may take. The
    /// effective limit is also never more than 256 times the input length plus 1 MiB, so that
    /// shared references cannot multiply a small input into a huge tree.
    pub max_output_bytes: usize,
}

impl Default for Limits {
    /// Depth 256 and at most 1 GiB of output.
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_output_bytes: 1 << 30,
        }
    }
}

/// Decodes the pickle at the start of `data` with the default [`Limits`]. Bytes after the
/// `STOP` opcode are ignored, as Python does. `source` names the data in error messages.
pub fn parse(data: &[u8], source: &str) -> Result<Value, FormatError> {
    parse_prefix(data, source, &Limits::default()).map(|(value, _)| value)
}

/// Decodes the pickle at the start of `data` and also returns the number of bytes it took
/// (up to and including `STOP`), so that several pickles written one after another (as the
/// legacy PyTorch format does) can be read in turn.
pub fn parse_prefix(
    data: &[u8],
    source: &str,
    limits: &Limits,
) -> Result<(Value, usize), FormatError> {
    let mut machine = Machine::new(data);
    let (root, end) = machine.run().map_err(|m| FormatError::new(source, m))?;
    let cap = data
        .len()
        .saturating_mul(256)
        .saturating_add(1 << 20)
        .min(limits.max_output_bytes);
    let mut resolver = Resolver {
        arena: &machine.arena,
        budget: cap,
        max_depth: limits.max_depth,
    };
    let value = resolver
        .resolve(root, 0)
        .map_err(|m| FormatError::new(source, format!("pickle too large or too deep: {m}")))?;
    Ok((value, end))
}

/// Index of a node in the interpreter's arena.
type H = usize;

/// A value while the interpreter runs: like [`Value`], but children are arena handles so that
/// objects keep their identity (memo sharing, in-place mutation).
#[derive(Debug)]
enum Node {
    None,
    Bool(bool),
    Int(i64),
    BigInt(Vec<u8>),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<H>),
    Tuple(Vec<H>),
    Dict(Vec<(H, H)>),
    Set(Vec<H>),
    Global { module: String, name: String },
    Call { callable: H, args: H },
    Build { object: H, state: H },
    PersistentId(H),
}

const H_NONE: H = 0;
const H_TRUE: H = 1;
const H_FALSE: H = 2;
const H_EMPTY_TUPLE: H = 3;
/// Handles below this are shared immutable constants.
const N_CONSTANTS: H = 4;

/// Largest number of decimal digits accepted in a text integer (Python's own default limit).
const MAX_DECIMAL_DIGITS: usize = 4300;

struct Machine<'a> {
    data: &'a [u8],
    pos: usize,
    arena: Vec<Node>,
    stack: Vec<H>,
    marks: Vec<usize>,
    memo: HashMap<u64, H>,
}

fn opcode_name(op: u8) -> &'static str {
    match op {
        b'(' => "MARK",
        b'.' => "STOP",
        b'0' => "POP",
        b'1' => "POP_MARK",
        b'2' => "DUP",
        b'F' => "FLOAT",
        b'I' => "INT",
        b'J' => "BININT",
        b'K' => "BININT1",
        b'L' => "LONG",
        b'M' => "BININT2",
        b'N' => "NONE",
        b'P' => "PERSID",
        b'Q' => "BINPERSID",
        b'R' => "REDUCE",
        b'S' => "STRING",
        b'T' => "BINSTRING",
        b'U' => "SHORT_BINSTRING",
        b'V' => "UNICODE",
        b'X' => "BINUNICODE",
        b'a' => "APPEND",
        b'b' => "BUILD",
        b'c' => "GLOBAL",
        b'd' => "DICT",
        b'}' => "EMPTY_DICT",
        b'e' => "APPENDS",
        b'g' => "GET",
        b'h' => "BINGET",
        b'i' => "INST",
        b'j' => "LONG_BINGET",
        b'l' => "LIST",
        b']' => "EMPTY_LIST",
        b'o' => "OBJ",
        b'p' => "PUT",
        b'q' => "BINPUT",
        b'r' => "LONG_BINPUT",
        b's' => "SETITEM",
        b't' => "TUPLE",
        b')' => "EMPTY_TUPLE",
        b'u' => "SETITEMS",
        b'G' => "BINFLOAT",
        b'B' => "BINBYTES",
        b'C' => "SHORT_BINBYTES",
        0x80 => "PROTO",
        0x81 => "NEWOBJ",
        0x82 => "EXT1",
        0x83 => "EXT2",
        0x84 => "EXT4",
        0x85 => "TUPLE1",
        0x86 => "TUPLE2",
        0x87 => "TUPLE3",
        0x88 => "NEWTRUE",
        0x89 => "NEWFALSE",
        0x8a => "LONG1",
        0x8b => "LONG4",
        0x8c => "SHORT_BINUNICODE",
        0x8d => "BINUNICODE8",
        0x8e => "BINBYTES8",
        0x8f => "EMPTY_SET",
        0x90 => "ADDITEMS",
        0x91 => "FROZENSET",
        0x92 => "NEWOBJ_EX",
        0x93 => "STACK_GLOBAL",
        0x94 => "MEMOIZE",
        0x95 => "FRAME",
        0x96 => "BYTEARRAY8",
        0x97 => "NEXT_BUFFER",
        0x98 => "READONLY_BUFFER",
        _ => "unknown",
    }
}

impl<'a> Machine<'a> {
    fn new(data: &'a [u8]) -> Self {
        Machine {
            data,
            pos: 0,
            arena: vec![
                Node::None,
                Node::Bool(true),
                Node::Bool(false),
                Node::Tuple(Vec::new()),
            ],
            stack: Vec::new(),
            marks: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// Runs until `STOP`; returns the result handle and the position just after `STOP`.
    fn run(&mut self) -> Result<(H, usize), String> {
        if self.data.is_empty() {
            return Err("empty pickle data".to_string());
        }
        loop {
            let at = self.pos;
            let Some(&op) = self.data.get(at) else {
                return Err(format!(
                    "pickle data truncated: no STOP opcode before the end ({} bytes)",
                    self.data.len()
                ));
            };
            self.pos += 1;
            match self.step(op) {
                Ok(true) => {
                    let top = self
                        .pop()
                        .map_err(|m| format!("malformed pickle at byte {at} (opcode STOP): {m}"))?;
                    return Ok((top, self.pos));
                }
                Ok(false) => {}
                Err(m) => {
                    return Err(format!(
                        "malformed pickle at byte {at} (opcode {} 0x{op:02x}): {m}",
                        opcode_name(op)
                    ));
                }
            }
        }
    }

    // ---- input ----

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let data: &'a [u8] = self.data;
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                format!(
                    "needs {n} more bytes but only {} remain (truncated data?)",
                    data.len().saturating_sub(self.pos)
                )
            })?;
        let out = data.get(self.pos..end).ok_or("internal range error")?;
        self.pos = end;
        Ok(out)
    }

    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let bytes = self.take(N)?;
        <[u8; N]>::try_from(bytes).map_err(|_| "internal length error".to_string())
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take_array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take_array()?))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take_array()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take_array()?))
    }

    /// A length prefix checked against the remaining input.
    fn len_from(&self, n: u64) -> Result<usize, String> {
        let remaining = self.data.len().saturating_sub(self.pos);
        match usize::try_from(n) {
            Ok(n) if n <= remaining => Ok(n),
            _ => Err(format!(
                "length {n} is larger than the {remaining} bytes that remain (truncated data?)"
            )),
        }
    }

    /// A newline-terminated line, without the newline.
    fn line(&mut self) -> Result<&'a [u8], String> {
        let data: &'a [u8] = self.data;
        let rest = data.get(self.pos..).unwrap_or(&[]);
        let nl = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("text argument is not terminated by a newline (truncated data?)")?;
        let line = rest.get(..nl).unwrap_or(&[]);
        self.pos += nl + 1;
        Ok(line)
    }

    fn line_str(&mut self) -> Result<String, String> {
        let line = self.line()?;
        Ok(String::from_utf8_lossy(line).into_owned())
    }

    // ---- stack ----

    fn alloc(&mut self, node: Node) -> H {
        self.arena.push(node);
        self.arena.len() - 1
    }

    fn push(&mut self, h: H) {
        self.stack.push(h);
    }

    fn push_node(&mut self, node: Node) {
        let h = self.alloc(node);
        self.push(h);
    }

    fn frame_base(&self) -> usize {
        self.marks.last().copied().unwrap_or(0)
    }

    fn pop(&mut self) -> Result<H, String> {
        if self.stack.len() <= self.frame_base() {
            return Err("stack underflow (an opcode needs a value that is not there)".to_string());
        }
        self.stack
            .pop()
            .ok_or_else(|| "stack underflow".to_string())
    }

    fn top(&self) -> Result<H, String> {
        if self.stack.len() <= self.frame_base() {
            return Err("stack underflow (an opcode needs a value that is not there)".to_string());
        }
        self.stack
            .last()
            .copied()
            .ok_or_else(|| "stack underflow".to_string())
    }

    fn pop_mark(&mut self) -> Result<Vec<H>, String> {
        let mark = self
            .marks
            .pop()
            .ok_or("no MARK on the stack for an opcode that needs one")?;
        if mark > self.stack.len() {
            return Err("MARK points past the stack".to_string());
        }
        Ok(self.stack.split_off(mark))
    }

    fn node(&self, h: H) -> Result<&Node, String> {
        self.arena
            .get(h)
            .ok_or_else(|| format!("internal error: bad handle {h}"))
    }

    fn node_mut(&mut self, h: H) -> Result<&mut Node, String> {
        self.arena
            .get_mut(h)
            .ok_or_else(|| format!("internal error: bad handle {h}"))
    }

    fn kind(&self, h: H) -> &'static str {
        match self.arena.get(h) {
            Some(Node::None) => "None",
            Some(Node::Bool(_)) => "bool",
            Some(Node::Int(_) | Node::BigInt(_)) => "int",
            Some(Node::Float(_)) => "float",
            Some(Node::Str(_)) => "str",
            Some(Node::Bytes(_)) => "bytes",
            Some(Node::List(_)) => "list",
            Some(Node::Tuple(_)) => "tuple",
            Some(Node::Dict(_)) => "dict",
            Some(Node::Set(_)) => "set",
            Some(Node::Global { .. }) => "global",
            Some(Node::Call { .. }) => "object built by a call",
            Some(Node::Build { .. }) => "object with state",
            Some(Node::PersistentId(_)) => "persistent id",
            None => "nothing",
        }
    }

    /// Follows `BUILD` wrappers to the object they wrap (e.g. a dict subclass with attributes).
    fn unwrap_build(&self, mut h: H) -> H {
        // Every Build points to a node allocated after it was wrapped... or before; bound the
        // walk by the arena size so that no input can make it loop forever.
        for _ in 0..self.arena.len() {
            match self.arena.get(h) {
                Some(Node::Build { object, .. }) => h = *object,
                _ => break,
            }
        }
        h
    }

    fn memo_key(&self, line: &[u8]) -> Result<u64, String> {
        std::str::from_utf8(line)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| {
                format!(
                    "memo index {:?} is not a non-negative integer",
                    String::from_utf8_lossy(line)
                )
            })
    }

    fn memo_get(&mut self, key: u64) -> Result<(), String> {
        let h = *self
            .memo
            .get(&key)
            .ok_or_else(|| format!("memo entry {key} was never stored"))?;
        self.push(h);
        Ok(())
    }

    fn memo_put(&mut self, key: u64) -> Result<(), String> {
        let h = self.top()?;
        self.memo.insert(key, h);
        Ok(())
    }

    fn str_of(&self, h: H) -> Option<&str> {
        match self.arena.get(h) {
            Some(Node::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn global_of(&self, h: H) -> Option<(&str, &str)> {
        match self.arena.get(h) {
            Some(Node::Global { module, name }) => Some((module, name)),
            _ => None,
        }
    }

    fn tuple_items(&self, h: H) -> Option<&[H]> {
        match self.arena.get(h) {
            Some(Node::Tuple(items)) => Some(items),
            _ => None,
        }
    }

    /// The node for `callable(*args)`: plain containers are built, anything else is kept as a
    /// call.
    fn call(&mut self, callable: H, args: H) -> Node {
        if let (Some((module, name)), Some(items)) =
            (self.global_of(callable), self.tuple_items(args))
        {
            let builtins = module == "builtins" || module == "__builtin__";
            match (module, name, items) {
                ("collections", "OrderedDict", []) => return Node::Dict(Vec::new()),
                (_, "set" | "frozenset", []) if builtins => return Node::Set(Vec::new()),
                (_, "bytes" | "bytearray", []) if builtins => return Node::Bytes(Vec::new()),
                (_, "bytes" | "bytearray", [b]) if builtins => {
                    if let Some(Node::Bytes(v)) = self.arena.get(*b) {
                        return Node::Bytes(v.clone());
                    }
                }
                (_, "set" | "frozenset", [seq]) if builtins => {
                    if let Some(Node::List(v) | Node::Tuple(v) | Node::Set(v)) =
                        self.arena.get(*seq)
                    {
                        return Node::Set(v.clone());
                    }
                }
                ("_codecs", "encode", [text, encoding]) => {
                    let enc = self.str_of(*encoding);
                    if matches!(enc, Some("latin1" | "latin-1" | "latin_1" | "iso-8859-1")) {
                        if let Some(t) = self.str_of(*text) {
                            let bytes: Option<Vec<u8>> =
                                t.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect();
                            if let Some(bytes) = bytes {
                                return Node::Bytes(bytes);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Node::Call { callable, args }
    }

    /// Executes one opcode; returns `true` on `STOP`.
    fn step(&mut self, op: u8) -> Result<bool, String> {
        match op {
            b'.' => return Ok(true),
            0x80 => {
                let proto = self.u8()?;
                if proto > 5 {
                    return Err(format!("unsupported pickle protocol {proto} (at most 5)"));
                }
            }
            0x95 => {
                // FRAME: a length hint only.
                self.u64()?;
            }
            b'(' => self.marks.push(self.stack.len()),
            b'0' => {
                if self.stack.len() > self.frame_base() {
                    self.stack.pop();
                } else {
                    self.pop_mark()?;
                }
            }
            b'1' => {
                self.pop_mark()?;
            }
            b'2' => {
                let h = self.top()?;
                self.push(h);
            }
            b'N' => self.push(H_NONE),
            0x88 => self.push(H_TRUE),
            0x89 => self.push(H_FALSE),
            b'I' => {
                let line = self.line()?;
                match line {
                    b"00" => self.push(H_FALSE),
                    b"01" => self.push(H_TRUE),
                    _ => {
                        let node = parse_decimal(line)?;
                        self.push_node(node);
                    }
                }
            }
            b'L' => {
                let mut line = self.line()?;
                if let Some(stripped) = line.strip_suffix(b"L") {
                    line = stripped;
                }
                let node = parse_decimal(line)?;
                self.push_node(node);
            }
            b'J' => {
                let v = i32::from_le_bytes(self.take_array()?);
                self.push_node(Node::Int(i64::from(v)));
            }
            b'K' => {
                let v = self.u8()?;
                self.push_node(Node::Int(i64::from(v)));
            }
            b'M' => {
                let v = self.u16()?;
                self.push_node(Node::Int(i64::from(v)));
            }
            0x8a => {
                let n = usize::from(self.u8()?);
                let bytes = self.take(n)?;
                let node = long_from_le(bytes);
                self.push_node(node);
            }
            0x8b => {
                let n = self.u32()?;
                let n = self.len_from(u64::from(n))?;
                let bytes = self.take(n)?;
                let node = long_from_le(bytes);
                self.push_node(node);
            }
            b'F' => {
                let line = self.line()?;
                let text = std::str::from_utf8(line).unwrap_or("").trim();
                let v: f64 = text
                    .parse()
                    .map_err(|_| format!("{:?} is not a float", String::from_utf8_lossy(line)))?;
                self.push_node(Node::Float(v));
            }
            b'G' => {
                let v = f64::from_be_bytes(self.take_array()?);
                self.push_node(Node::Float(v));
            }
            b'S' => {
                let line = self.line()?;
                let bytes = decode_python_string_literal(line)?;
                self.push_node(bytes_or_str(bytes));
            }
            b'T' => {
                let n = self.u32()?;
                let n = self.len_from(u64::from(n))?;
                let bytes = self.take(n)?.to_vec();
                self.push_node(bytes_or_str(bytes));
            }
            b'U' => {
                let n = usize::from(self.u8()?);
                let bytes = self.take(n)?.to_vec();
                self.push_node(bytes_or_str(bytes));
            }
            b'V' => {
                let line = self.line()?;
                let s = decode_raw_unicode_escape(line);
                self.push_node(Node::Str(s));
            }
            b'X' => {
                let n = self.u32()?;
                self.read_unicode(u64::from(n))?;
            }
            0x8c => {
                let n = self.u8()?;
                self.read_unicode(u64::from(n))?;
            }
            0x8d => {
                let n = self.u64()?;
                self.read_unicode(n)?;
            }
            b'B' => {
                let n = self.u32()?;
                self.read_bytes(u64::from(n))?;
            }
            b'C' => {
                let n = self.u8()?;
                self.read_bytes(u64::from(n))?;
            }
            0x8e | 0x96 => {
                let n = self.u64()?;
                self.read_bytes(n)?;
            }
            0x97 => {
                return Err(
                    "out-of-band buffers (pickle protocol 5 NEXT_BUFFER) are not supported"
                        .to_string(),
                );
            }
            0x98 => {
                self.top()?;
            }
            b']' => self.push_node(Node::List(Vec::new())),
            b')' => self.push(H_EMPTY_TUPLE),
            b'}' => self.push_node(Node::Dict(Vec::new())),
            0x8f => self.push_node(Node::Set(Vec::new())),
            b'l' => {
                let items = self.pop_mark()?;
                self.push_node(Node::List(items));
            }
            b't' => {
                let items = self.pop_mark()?;
                self.push_node(Node::Tuple(items));
            }
            0x85..=0x87 => {
                let n = usize::from(op - 0x84);
                let mut items = vec![0; n];
                for slot in items.iter_mut().rev() {
                    *slot = self.pop()?;
                }
                self.push_node(Node::Tuple(items));
            }
            b'd' => {
                let items = self.pop_mark()?;
                let pairs = pairs_of(&items)?;
                self.push_node(Node::Dict(pairs));
            }
            0x91 => {
                let items = self.pop_mark()?;
                self.push_node(Node::Set(items));
            }
            b'a' => {
                let value = self.pop()?;
                self.extend_list(vec![value])?;
            }
            b'e' => {
                let items = self.pop_mark()?;
                self.extend_list(items)?;
            }
            b's' => {
                let value = self.pop()?;
                let key = self.pop()?;
                self.extend_dict(vec![(key, value)])?;
            }
            b'u' => {
                let items = self.pop_mark()?;
                let pairs = pairs_of(&items)?;
                self.extend_dict(pairs)?;
            }
            0x90 => {
                let items = self.pop_mark()?;
                let target = self.top()?;
                let target = self.unwrap_build(target);
                let kind = self.kind(target);
                match self.node_mut(target)? {
                    Node::Set(v) => v.extend(items),
                    _ => return Err(format!("ADDITEMS needs a set, found {kind}")),
                }
            }
            b'c' => {
                let module = self.line_str()?;
                let name = self.line_str()?;
                self.push_node(Node::Global { module, name });
            }
            0x93 => {
                let name = self.pop()?;
                let module = self.pop()?;
                match (self.str_of(module), self.str_of(name)) {
                    (Some(m), Some(n)) => {
                        let node = Node::Global {
                            module: m.to_string(),
                            name: n.to_string(),
                        };
                        self.push_node(node);
                    }
                    _ => {
                        return Err(format!(
                            "STACK_GLOBAL needs two strings, found {} and {}",
                            self.kind(module),
                            self.kind(name)
                        ));
                    }
                }
            }
            b'R' => {
                let args = self.pop()?;
                let callable = self.pop()?;
                let node = self.call(callable, args);
                self.push_node(node);
            }
            0x81 => {
                let args = self.pop()?;
                let cls = self.pop()?;
                let node = self.call(cls, args);
                self.push_node(node);
            }
            0x92 => {
                let kwargs = self.pop()?;
                let args = self.pop()?;
                let cls = self.pop()?;
                let no_kwargs = matches!(self.node(kwargs)?, Node::Dict(v) if v.is_empty());
                let node = if no_kwargs {
                    self.call(cls, args)
                } else {
                    let callable = self.alloc(Node::Global {
                        module: "copyreg".to_string(),
                        name: "__newobj_ex__".to_string(),
                    });
                    let args = self.alloc(Node::Tuple(vec![cls, args, kwargs]));
                    Node::Call { callable, args }
                };
                self.push_node(node);
            }
            b'o' => {
                let items = self.pop_mark()?;
                let (&cls, rest) = items
                    .split_first()
                    .ok_or("OBJ needs a class after the MARK")?;
                let args = self.alloc(Node::Tuple(rest.to_vec()));
                let node = self.call(cls, args);
                self.push_node(node);
            }
            b'i' => {
                let module = self.line_str()?;
                let name = self.line_str()?;
                let items = self.pop_mark()?;
                let cls = self.alloc(Node::Global { module, name });
                let args = self.alloc(Node::Tuple(items));
                let node = self.call(cls, args);
                self.push_node(node);
            }
            b'b' => {
                let state = self.pop()?;
                let object = self.top()?;
                if object < N_CONSTANTS {
                    // Shared constants keep no identity worth preserving.
                    self.stack.pop();
                    self.push_node(Node::Build { object, state });
                } else {
                    let old = std::mem::replace(self.node_mut(object)?, Node::None);
                    let moved = self.alloc(old);
                    *self.node_mut(object)? = Node::Build {
                        object: moved,
                        state,
                    };
                }
            }
            b'P' => {
                let line = self.line()?;
                let pid = self.alloc(bytes_or_str(line.to_vec()));
                self.push_node(Node::PersistentId(pid));
            }
            b'Q' => {
                let pid = self.pop()?;
                self.push_node(Node::PersistentId(pid));
            }
            b'p' => {
                let line = self.line()?;
                let key = self.memo_key(line)?;
                self.memo_put(key)?;
            }
            b'q' => {
                let key = self.u8()?;
                self.memo_put(u64::from(key))?;
            }
            b'r' => {
                let key = self.u32()?;
                self.memo_put(u64::from(key))?;
            }
            0x94 => {
                let key = u64::try_from(self.memo.len()).unwrap_or(u64::MAX);
                self.memo_put(key)?;
            }
            b'g' => {
                let line = self.line()?;
                let key = self.memo_key(line)?;
                self.memo_get(key)?;
            }
            b'h' => {
                let key = self.u8()?;
                self.memo_get(u64::from(key))?;
            }
            b'j' => {
                let key = self.u32()?;
                self.memo_get(u64::from(key))?;
            }
            0x82..=0x84 => {
                return Err(
                    "extension-registry opcodes (copyreg.add_extension) are not supported"
                        .to_string(),
                );
            }
            _ => return Err(format!("unknown opcode 0x{op:02x}")),
        }
        Ok(false)
    }

    fn read_unicode(&mut self, n: u64) -> Result<(), String> {
        let n = self.len_from(n)?;
        let bytes = self.take(n)?;
        let s = String::from_utf8_lossy(bytes).into_owned();
        self.push_node(Node::Str(s));
        Ok(())
    }

    fn read_bytes(&mut self, n: u64) -> Result<(), String> {
        let n = self.len_from(n)?;
        let bytes = self.take(n)?.to_vec();
        self.push_node(Node::Bytes(bytes));
        Ok(())
    }

    fn extend_list(&mut self, items: Vec<H>) -> Result<(), String> {
        let target = self.top()?;
        let target = self.unwrap_build(target);
        let kind = self.kind(target);
        match self.node_mut(target)? {
            Node::List(v) => {
                v.extend(items);
                Ok(())
            }
            _ => Err(format!("APPEND/APPENDS needs a list, found {kind}")),
        }
    }

    fn extend_dict(&mut self, pairs: Vec<(H, H)>) -> Result<(), String> {
        let target = self.top()?;
        let target = self.unwrap_build(target);
        let kind = self.kind(target);
        match self.node_mut(target)? {
            Node::Dict(v) => {
                v.extend(pairs);
                Ok(())
            }
            _ => Err(format!(
                "SETITEM/SETITEMS needs a dict, found {kind} (dict subclasses other than \
                 collections.OrderedDict are not supported)"
            )),
        }
    }
}

fn pairs_of(items: &[H]) -> Result<Vec<(H, H)>, String> {
    if !items.len().is_multiple_of(2) {
        return Err(format!(
            "odd number of items ({}) for dict keys and values",
            items.len()
        ));
    }
    Ok(items.chunks_exact(2).map(|c| (c[0], c[1])).collect())
}

fn bytes_or_str(bytes: Vec<u8>) -> Node {
    match String::from_utf8(bytes) {
        Ok(s) => Node::Str(s),
        Err(e) => Node::Bytes(e.into_bytes()),
    }
}

/// An integer from little-endian two's-complement bytes (`LONG1`/`LONG4`).
fn long_from_le(bytes: &[u8]) -> Node {
    let negative = bytes.last().is_some_and(|b| b & 0x80 != 0);
    let fill = if negative { 0xff } else { 0x00 };
    if bytes.len() <= 8 {
        let mut buf = [fill; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        return Node::Int(i64::from_le_bytes(buf));
    }
    // Longer encodings may still hold a 64-bit value with redundant sign bytes.
    let (low, high) = bytes.split_at(8);
    let low_negative = low[7] & 0x80 != 0;
    if high.iter().all(|&b| b == fill) && low_negative == negative {
        let mut buf = [0u8; 8];
        buf.copy_from_slice(low);
        return Node::Int(i64::from_le_bytes(buf));
    }
    Node::BigInt(bytes.to_vec())
}

/// A decimal integer from the text opcodes `INT` and `LONG`.
fn parse_decimal(text: &[u8]) -> Result<Node, String> {
    let shown = || String::from_utf8_lossy(text).into_owned();
    let s = std::str::from_utf8(text)
        .map_err(|_| format!("{:?} is not an integer", shown()))?
        .trim();
    if let Ok(v) = s.parse::<i64>() {
        return Ok(Node::Int(v));
    }
    let (negative, digits) = match s.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(format!("{:?} is not an integer", shown()));
    }
    if digits.len() > MAX_DECIMAL_DIGITS {
        return Err(format!(
            "integer with {} digits exceeds the limit of {MAX_DECIMAL_DIGITS}",
            digits.len()
        ));
    }
    // Magnitude in base 256, little endian.
    let mut mag: Vec<u8> = vec![0];
    for &d in digits {
        let mut carry = u32::from(d - b'0');
        for b in &mut mag {
            let v = u32::from(*b) * 10 + carry;
            *b = (v & 0xff) as u8;
            carry = v >> 8;
        }
        while carry > 0 {
            mag.push((carry & 0xff) as u8);
            carry >>= 8;
        }
    }
    mag.push(0); // room for the sign bit
    if negative {
        let mut carry = true;
        for b in &mut mag {
            let (v, c) = (!*b).overflowing_add(u8::from(carry));
            *b = v;
            carry = c;
        }
    }
    Ok(long_from_le(&mag))
}

/// Decodes a Python 2 `repr` of a byte string (`STRING`): `'abc\n'` or `"abc"`.
fn decode_python_string_literal(line: &[u8]) -> Result<Vec<u8>, String> {
    let inner = match line {
        [q @ (b'\'' | b'"'), inner @ .., last] if last == q => inner,
        _ => {
            return Err(format!(
                "STRING argument {:?} is not a quoted string",
                String::from_utf8_lossy(line)
            ));
        }
    };
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while let Some(&c) = inner.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = inner.get(i) else {
            return Err("STRING argument ends with a lone backslash".to_string());
        };
        i += 1;
        match e {
            b'\\' | b'\'' | b'"' => out.push(e),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'x' => {
                let hex = inner
                    .get(i..i + 2)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or("bad \\x escape in STRING argument")?;
                out.push(hex);
                i += 2;
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match inner.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

/// Decodes Python's `raw-unicode-escape` (`UNICODE`): Latin-1 text with `\uXXXX` and
/// `\UXXXXXXXX` escapes.
fn decode_raw_unicode_escape(line: &[u8]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while let Some(&c) = line.get(i) {
        if c == b'\\' {
            let width = match line.get(i + 1) {
                Some(b'u') => 4,
                Some(b'U') => 8,
                _ => 0,
            };
            if width > 0 {
                let code = line
                    .get(i + 2..i + 2 + width)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u32::from_str_radix(h, 16).ok());
                if let Some(code) = code {
                    out.push(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                    i += 2 + width;
                    continue;
                }
            }
        }
        out.push(char::from(c));
        i += 1;
    }
    out
}

/// Expands the arena graph into a [`Value`] tree within a depth and memory budget.
struct Resolver<'a> {
    arena: &'a [Node],
    budget: usize,
    max_depth: usize,
}

impl Resolver<'_> {
    fn charge(&mut self, payload: usize) -> Result<(), String> {
        let cost = std::mem::size_of::<Value>().saturating_add(payload);
        self.budget = self.budget.checked_sub(cost).ok_or_else(|| {
            "the decoded values would exceed the memory limit (too much shared data)".to_string()
        })?;
        Ok(())
    }

    fn resolve(&mut self, h: H, depth: usize) -> Result<Value, String> {
        if depth > self.max_depth {
            return Err(format!(
                "values nested deeper than {} levels (or a cyclic reference)",
                self.max_depth
            ));
        }
        let node = self
            .arena
            .get(h)
            .ok_or_else(|| format!("internal error: bad handle {h}"))?;
        let d = depth + 1;
        let value = match node {
            Node::None => {
                self.charge(0)?;
                Value::None
            }
            Node::Bool(b) => {
                self.charge(0)?;
                Value::Bool(*b)
            }
            Node::Int(i) => {
                self.charge(0)?;
                Value::Int(*i)
            }
            Node::Float(x) => {
                self.charge(0)?;
                Value::Float(*x)
            }
            Node::BigInt(b) => {
                self.charge(b.len())?;
                Value::BigInt(b.clone())
            }
            Node::Str(s) => {
                self.charge(s.len())?;
                Value::Str(s.clone())
            }
            Node::Bytes(b) => {
                self.charge(b.len())?;
                Value::Bytes(b.clone())
            }
            Node::Global { module, name } => {
                self.charge(module.len() + name.len())?;
                Value::Global {
                    module: module.clone(),
                    name: name.clone(),
                }
            }
            Node::List(items) => {
                self.charge(0)?;
                Value::List(self.resolve_all(items, d)?)
            }
            Node::Tuple(items) => {
                self.charge(0)?;
                Value::Tuple(self.resolve_all(items, d)?)
            }
            Node::Set(items) => {
                self.charge(0)?;
                Value::Set(self.resolve_all(items, d)?)
            }
            Node::Dict(pairs) => {
                self.charge(0)?;
                let mut out = Vec::with_capacity(pairs.len().min(1 << 16));
                for &(k, v) in pairs {
                    let k = self.resolve(k, d)?;
                    let v = self.resolve(v, d)?;
                    out.push((k, v));
                }
                Value::Dict(out)
            }
            Node::Call { callable, args } => {
                self.charge(0)?;
                Value::Call {
                    callable: Box::new(self.resolve(*callable, d)?),
                    args: Box::new(self.resolve(*args, d)?),
                }
            }
            Node::Build { object, state } => {
                self.charge(0)?;
                Value::Build {
                    object: Box::new(self.resolve(*object, d)?),
                    state: Box::new(self.resolve(*state, d)?),
                }
            }
            Node::PersistentId(pid) => {
                self.charge(0)?;
                Value::PersistentId(Box::new(self.resolve(*pid, d)?))
            }
        };
        Ok(value)
    }

    fn resolve_all(&mut self, items: &[H], depth: usize) -> Result<Vec<Value>, String> {
        let mut out = Vec::with_capacity(items.len().min(1 << 16));
        for &h in items {
            out.push(self.resolve(h, depth)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(data: &[u8]) -> Result<Value, FormatError> {
        parse(data, "test")
    }

    #[test]
    fn scalars_and_containers() {
        // Protocol 2: {'a': [1, -2, 3.5], 'b': (True, None)}
        let data = b"\x80\x02}q\x00(X\x01\x00\x00\x00aq\x01]q\x02(K\x01J\xfe\xff\xff\xffG@\x0c\x00\x00\x00\x00\x00\x00eX\x01\x00\x00\x00bq\x03\x88N\x86q\x04u.";
        let v = p(data).unwrap();
        assert_eq!(
            v,
            Value::Dict(vec![
                (
                    Value::Str("a".into()),
                    Value::List(vec![Value::Int(1), Value::Int(-2), Value::Float(3.5)])
                ),
                (
                    Value::Str("b".into()),
                    Value::Tuple(vec![Value::Bool(true), Value::None])
                ),
            ])
        );
        assert_eq!(v.to_string(), "{'a': [1, -2, 3.5], 'b': (True, None)}");
    }

    #[test]
    fn protocol0_text_opcodes() {
        // pickle.dumps({'x': 12345678901234567890123, 'y': 'h\xe9', 'z': 1.25, 'w': True}, 0)
        let data = b"(dp0\nVx\np1\nL12345678901234567890123L\nsVy\np2\nVh\xe9\np3\nsVz\np4\nF1.25\nsVw\np5\nI01\ns.";
        let v = p(data).unwrap();
        assert_eq!(v.get("x").unwrap().to_string(), "12345678901234567890123");
        assert_eq!(v.get("y").unwrap().as_str(), Some("h\u{e9}"));
        assert_eq!(v.get("z").unwrap().as_f64(), Some(1.25));
        assert_eq!(v.get("w").unwrap().as_bool(), Some(true));
        // Negative big integers.
        let v = p(b"L-12345678901234567890123L\n.").unwrap();
        assert_eq!(v.to_string(), "-12345678901234567890123");
        let v = p(b"I-42\n.").unwrap();
        assert_eq!(v, Value::Int(-42));
    }

    #[test]
    fn memo_sharing_sees_later_mutation() {
        // d = {}; [d, d] with d filled after being memoized.
        // EMPTY_LIST MARK EMPTY_DICT BINPUT 0 MARK 'k' 1 SETITEMS BINGET 0 APPENDS STOP
        let data = b"](}q\x00(U\x01kK\x01uh\x00e.";
        let v = p(data).unwrap();
        assert_eq!(v.to_string(), "[{'k': 1}, {'k': 1}]");
    }

    #[test]
    fn ordered_dict_and_calls() {
        let data =
            b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00a\x8a\x01\x05s\
              cfoo\nBar\nK\x01\x85R}b.";
        let v = p(data).unwrap();
        assert_eq!(v.to_string(), "foo.Bar(1).__setstate__({})");
        let data = b"\x80\x02ccollections\nOrderedDict\n)RX\x01\x00\x00\x00a\x8a\x01\x05s.";
        assert_eq!(p(data).unwrap().to_string(), "{'a': 5}");
    }

    #[test]
    fn long1_magic_number() {
        let data = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.";
        let v = p(data).unwrap();
        assert_eq!(v.to_string(), "119547037146038801333356");
    }

    #[test]
    fn errors_do_not_panic() {
        for data in [
            &b""[..],
            b"\x80",
            b"\x80\x09N.",
            b"K",
            b"(",
            b"t.",
            b"h\x05.",
            b"X\xff\xff\xff\xff",
            b"\x8e\xff\xff\xff\xff\xff\xff\xff\xff",
            b"a.",
            b"N}s.",
            b"\xff",
            b"(N.",
            b"N0.",
        ] {
            let r = p(data);
            if data == b"(N." {
                // Python returns the value above the mark too.
                assert!(r.is_ok());
            } else {
                let err = r.unwrap_err();
                assert_eq!(err.path, "test");
                assert!(!err.message.is_empty());
            }
        }
    }

    #[test]
    fn deep_nesting_fails_cleanly() {
        // 100000 nested lists: ] ] ] ... then APPEND x N.
        let n = 100_000;
        let mut data = vec![b']'; n];
        data.extend(std::iter::repeat_n(b'a', n - 1));
        data.push(b'.');
        let err = p(&data).unwrap_err();
        assert!(err.message.contains("deeper"), "{err}");
    }

    #[test]
    fn exponential_sharing_fails_cleanly() {
        // x = []; repeat 64 times: x = (x, x)
        let mut data = vec![b']'];
        for _ in 0..64 {
            data.extend_from_slice(b"2\x86");
        }
        data.push(b'.');
        let err = p(&data).unwrap_err();
        assert!(err.message.contains("memory limit"), "{err}");
    }
}

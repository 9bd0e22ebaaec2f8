//! The register map generated from one description, the way OpenTitan's reggen does it:
//! a TOML file ([`RegMap`], `hdl/regs/lel_platform.toml`) from which `edgelearn regs`
//! writes the RTL address decode (Verilog), the Rust module of the RTL and the benches, the
//! C header of host programs and the Markdown map ([`generate`]). `tests/regs.rs`
//! regenerates all four and compares them with the files in the repository, so the
//! hardware, the host and the documentation cannot drift apart.
//!
//! Semantics the generated files share (docs/registers.md states them for users): offsets
//! are byte offsets on the AXI4-Lite port; `rw` registers read and write, `ro` registers
//! answer a write SLVERR and keep their value, `wo` registers read 0 (OKAY); every address
//! the description does not list is reserved and answers SLVERR (reads return 0).

pub use crate::regs_files::MapError;

type Result<T> = std::result::Result<T, MapError>;

/// Return a [`MapError`] with a formatted message.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err(MapError(format!($($arg)*)))
    };
}
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The description file, relative to the repository root.
pub const DESCRIPTION: &str = "hdl/regs/lel_platform.toml";

pub use crate::regs_files::{Access, Generated};

/// A named value of a field.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Value {
    /// Name (upper case).
    pub name: String,
    /// Value.
    pub value: u32,
    /// What it means.
    pub description: String,
}

/// A field of a register.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// Name (upper case).
    pub name: String,
    /// `"msb:lsb"` or `"bit"`.
    pub bits: String,
    /// What it holds.
    pub description: String,
    /// Named values.
    #[serde(default)]
    pub values: Vec<Value>,
    /// Its value after reset (0 when absent).
    #[serde(default)]
    pub reset: Option<ResetValue>,
    /// The largest value it stores: a write above it stores this.
    #[serde(default)]
    pub max: Option<u32>,
}

/// A reset value: a number, or the name of a [`Parameter`] of the design.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum ResetValue {
    /// A number.
    Number(u32),
    /// A parameter's name.
    Parameter(String),
}

impl ResetValue {
    /// The number, or the parameter's value from `params`.
    fn resolve(&self, params: &BTreeMap<String, u32>) -> Result<u32> {
        match self {
            ResetValue::Number(n) => Ok(*n),
            ResetValue::Parameter(p) => params
                .get(p)
                .copied()
                .ok_or_else(|| MapError(format!("parameter {p} is not given"))),
        }
    }
}

/// A number of the design that its configuration's shapes fix (a FIFO depth, an image's
/// beats), named in reset values and resolved per design.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameter {
    /// Name (upper case).
    pub name: String,
    /// What it is: the formula in the configuration's shapes.
    pub description: String,
}

impl Field {
    /// `(lsb, width)` of [`Field::bits`].
    pub fn range(&self) -> Result<(u32, u32)> {
        let num = |s: &str| -> Result<u32> {
            s.trim().parse::<u32>().map_err(|_| {
                MapError(format!(
                    "field {}: bits \"{}\" is not msb:lsb",
                    self.name, self.bits
                ))
            })
        };
        let (msb, lsb) = match self.bits.split_once(':') {
            Some((m, l)) => (num(m)?, num(l)?),
            None => (num(&self.bits)?, num(&self.bits)?),
        };
        if lsb > msb || msb > 31 {
            bail!(
                "field {}: bits \"{}\" must be msb:lsb with 31 >= msb >= lsb",
                self.name,
                self.bits
            );
        }
        Ok((lsb, msb - lsb + 1))
    }

    /// The field's bits in a 32-bit word.
    pub fn mask(&self) -> Result<u32> {
        let (lsb, width) = self.range()?;
        Ok(((1u64 << width) - 1) as u32 * (1u32 << lsb))
    }
}

/// A register, or an array of `count` registers 4 bytes apart.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// Name (upper case).
    pub name: String,
    /// Byte offset on the AXI4-Lite port.
    pub offset: u32,
    /// Access.
    pub access: Access,
    /// What it holds.
    pub description: String,
    /// Registers in the array (1: a single register).
    #[serde(default = "one")]
    pub count: u32,
    /// A constant the register always reads.
    #[serde(default)]
    pub value: Option<u32>,
    /// Its value after reset (else [`Register::value`], or its fields' `reset`s).
    #[serde(default)]
    pub reset: Option<ResetValue>,
    /// Fields; none means one 32-bit value.
    #[serde(default)]
    pub fields: Vec<Field>,
}

fn one() -> u32 {
    1
}

impl Register {
    /// The bits a write can change (every field, or the whole word without fields).
    pub fn write_mask(&self) -> Result<u32> {
        if self.fields.is_empty() {
            return Ok(u32::MAX);
        }
        self.fields.iter().try_fold(0, |m, f| Ok(m | f.mask()?))
    }

    /// The platform's word address (offset / 4).
    pub fn word(&self) -> u32 {
        self.offset / 4
    }

    /// The reset value as `(lsb, width, value)` terms: the register's `reset` or `value`
    /// (one 32-bit term), or its fields' `reset`s (the other bits 0).
    pub fn reset_terms(&self) -> Result<Vec<(u32, u32, ResetValue)>> {
        let on_fields: Vec<_> = self
            .fields
            .iter()
            .filter_map(|f| f.reset.clone().map(|v| (f, v)))
            .collect();
        match (&self.reset, self.value, on_fields.is_empty()) {
            (Some(r), None, true) => Ok(vec![(0, 32, r.clone())]),
            (None, Some(v), true) => Ok(vec![(0, 32, ResetValue::Number(v))]),
            (None, None, false) => on_fields
                .into_iter()
                .map(|(f, v)| f.range().map(|(lsb, w)| (lsb, w, v)))
                .collect(),
            (None, None, true) => bail!(
                "register {}: no reset value (give `reset` on the register or on its fields)",
                self.name
            ),
            _ => bail!(
                "register {}: give one reset value: `reset` on the register, on its fields, or a constant `value`",
                self.name
            ),
        }
    }

    /// The value after reset in a design whose parameters are `params`.
    pub fn reset_value(&self, params: &BTreeMap<String, u32>) -> Result<u32> {
        self.reset_terms()?
            .into_iter()
            .try_fold(0u32, |w, (lsb, width, v)| {
                let v = v
                    .resolve(params)
                    .map_err(|e| e.within(format!("register {}", self.name)))?;
                if width < 32 && v >> width != 0 {
                    bail!(
                        "register {}: reset value {v} does not fit its {width} bits",
                        self.name
                    );
                }
                Ok(w | (v << lsb))
            })
    }

    /// The reset value as the documentation writes it: `0x00000000`, `IMAGE_BEATS`,
    /// `IN_DEPTH << 16`.
    pub fn reset_text(&self) -> Result<String> {
        let terms = self.reset_terms()?;
        let fixed: u32 = terms
            .iter()
            .map(|(lsb, _, v)| match v {
                ResetValue::Number(n) => n << lsb,
                ResetValue::Parameter(_) => 0,
            })
            .fold(0, |a, b| a | b);
        let mut parts: Vec<String> = terms
            .iter()
            .filter_map(|(lsb, _, v)| match v {
                ResetValue::Parameter(p) if *lsb == 0 => Some(p.clone()),
                ResetValue::Parameter(p) => Some(format!("{p} << {lsb}")),
                ResetValue::Number(_) => None,
            })
            .collect();
        if fixed != 0 || parts.is_empty() {
            parts.insert(0, format!("0x{fixed:08x}"));
        }
        Ok(parts.join(" | "))
    }

    /// The fields with a maximum: `(lsb, width, max)`.
    pub fn maxima(&self) -> Result<Vec<(u32, u32, u32)>> {
        self.fields
            .iter()
            .filter_map(|f| f.max.map(|m| f.range().map(|(lsb, w)| (lsb, w, m))))
            .collect()
    }

    /// What the register holds after `word` is written to it: the writable bits, each
    /// field with a maximum cut to it.
    pub fn stored(&self, word: u32) -> Result<u32> {
        let mut w = word & self.write_mask()?;
        for (lsb, width, max) in self.maxima()? {
            // The same cut as the generated tables' `Register::stored`.
            let f = edgelearn_hdl::regfile::Field { lsb, width };
            w = f.put(w, f.get(w).min(max));
        }
        Ok(w)
    }
}

/// A named number of the design that is not a register.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constant {
    /// Name (upper case).
    pub name: String,
    /// Value.
    pub value: u32,
    /// What it is.
    pub description: String,
}

/// The description.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegMap {
    /// Block name (lower case): the prefix of the Verilog module and the C macros.
    pub name: String,
    /// Title of the Markdown map.
    pub title: String,
    /// What the block is.
    pub description: String,
    /// Byte-address bits of the AXI4-Lite port.
    pub address_bits: u32,
    /// Named numbers.
    #[serde(default, rename = "constant")]
    pub constants: Vec<Constant>,
    /// The design's numbers that reset values name.
    #[serde(default, rename = "parameter")]
    pub parameters: Vec<Parameter>,
    /// Registers, by offset.
    #[serde(rename = "register")]
    pub registers: Vec<Register>,
}

fn is_ident(s: &str, upper: bool) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && s.chars().all(|ch| {
            ch == '_'
                || ch.is_ascii_digit()
                || (ch.is_ascii_alphabetic() && ch.is_ascii_uppercase() == upper)
        })
}

impl RegMap {
    /// Parse and check a description; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let map: RegMap = toml::from_str(text).map_err(|e| {
            MapError(e.to_string()).within(format!("{origin}: not a register description"))
        })?;
        map.check()
            .map_err(|e| e.within(format!("{origin}: invalid register description")))?;
        Ok(map)
    }

    /// Read and check the description at `path`.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| MapError(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Names, alignment, the address space, overlaps of registers and of fields.
    pub fn check(&self) -> Result<()> {
        if !is_ident(&self.name, false) {
            bail!("name \"{}\" must be a lower-case identifier", self.name);
        }
        if !(3..=16).contains(&self.address_bits) {
            bail!("address_bits {} must be 3..=16", self.address_bits);
        }
        let mut names = BTreeSet::new();
        for c in &self.constants {
            if !is_ident(&c.name, true) || !names.insert(c.name.clone()) {
                bail!(
                    "constant {}: the name must be a unique upper-case identifier",
                    c.name
                );
            }
        }
        let mut params = BTreeSet::new();
        for p in &self.parameters {
            // Parameters have names of their own: IMAGE_BEATS is a register and the
            // parameter it reads.
            if !is_ident(&p.name, true) || !params.insert(p.name.clone()) {
                bail!(
                    "parameter {}: the name must be a unique upper-case identifier",
                    p.name
                );
            }
        }
        let mut used = BTreeSet::new();
        let mut taken = BTreeSet::new();
        for r in &self.registers {
            if !is_ident(&r.name, true) || !names.insert(r.name.clone()) {
                bail!(
                    "register {}: the name must be a unique upper-case identifier",
                    r.name
                );
            }
            if r.offset % 4 != 0 {
                bail!(
                    "register {}: offset {:#x} is not a multiple of 4",
                    r.name,
                    r.offset
                );
            }
            if r.count == 0 {
                bail!("register {}: count must be at least 1", r.name);
            }
            let end = r.offset as u64 + 4 * r.count as u64;
            if end > 1u64 << self.address_bits || r.word() + r.count > 256 {
                bail!(
                    "register {}: offset {:#x} + {} words leaves the {}-bit address space (or the 256-word register port)",
                    r.name,
                    r.offset,
                    r.count,
                    self.address_bits
                );
            }
            for w in r.word()..r.word() + r.count {
                if !taken.insert(w) {
                    bail!(
                        "register {}: offset {:#x} overlaps another register",
                        r.name,
                        4 * w
                    );
                }
            }
            let mut bits = 0u32;
            let mut fnames = BTreeSet::new();
            for f in &r.fields {
                if !is_ident(&f.name, true) || !fnames.insert(f.name.clone()) {
                    bail!(
                        "register {}: field {} must be a unique upper-case identifier",
                        r.name,
                        f.name
                    );
                }
                let m = f
                    .mask()
                    .map_err(|e| e.within(format!("register {}", r.name)))?;
                if bits & m != 0 {
                    bail!(
                        "register {}: field {} overlaps another field",
                        r.name,
                        f.name
                    );
                }
                bits |= m;
                let (_, width) = f.range()?;
                if let Some(max) = f.max {
                    if r.access != Access::Rw || (width < 32 && max >> width != 0) {
                        bail!(
                            "register {}: field {} has max {max}: only fields of rw registers have one, and it must fit {width} bits",
                            r.name,
                            f.name
                        );
                    }
                }
                for v in &f.values {
                    if !is_ident(&v.name, true) || (width < 32 && v.value >> width != 0) {
                        bail!(
                            "register {}: value {} of field {} must be an upper-case identifier that fits {width} bits",
                            r.name,
                            v.name,
                            f.name
                        );
                    }
                }
            }
            let zero = r
                .reset_terms()?
                .iter()
                .all(|(_, _, v)| *v == ResetValue::Number(0));
            if r.access == Access::Wo && !zero {
                bail!(
                    "register {}: a write-only register reads 0, so its reset value is 0",
                    r.name
                );
            }
            let room = if r.fields.is_empty() { u32::MAX } else { bits };
            for (lsb, width, v) in r.reset_terms()? {
                match v {
                    ResetValue::Number(n) => {
                        let wide = (width < 32 && n >> width != 0) || (n << lsb) & !room != 0;
                        if wide {
                            bail!(
                                "register {}: reset value {n:#x} sets bits outside its fields",
                                r.name
                            );
                        }
                    }
                    ResetValue::Parameter(p) => {
                        if !params.contains(&p) {
                            bail!(
                                "register {}: reset names {p}, which is not a [[parameter]]",
                                r.name
                            );
                        }
                        used.insert(p);
                    }
                }
            }
        }
        if let Some(p) = params.difference(&used).next() {
            bail!("parameter {p}: no register's reset value names it");
        }
        Ok(())
    }

    /// Check that `params` gives every parameter of the description and no other.
    pub fn check_parameters(&self, params: &BTreeMap<String, u32>) -> Result<()> {
        for p in &self.parameters {
            if !params.contains_key(&p.name) {
                bail!("parameter {} is not given", p.name);
            }
        }
        if let Some(k) = params
            .keys()
            .find(|k| !self.parameters.iter().any(|p| &p.name == *k))
        {
            bail!("parameter {k} is not in the description");
        }
        Ok(())
    }

    /// Registers with their array index expanded: `(register, index, word address)`.
    fn words(&self) -> Vec<(&Register, u32, u32)> {
        let mut w: Vec<_> = self
            .registers
            .iter()
            .flat_map(|r| (0..r.count).map(move |i| (r, i, r.word() + i)))
            .collect();
        w.sort_by_key(|x| x.2);
        w
    }
}

/// The four files generated from `map`: Verilog decode, Rust module, C header, Markdown.
pub fn generate(map: &RegMap) -> Result<Vec<Generated>> {
    Ok(vec![
        Generated {
            path: PathBuf::from(format!(
                "hdl/src/lel/{}_regs.v",
                map.name.trim_start_matches("lel_")
            )),
            text: verilog(map),
        },
        Generated {
            path: PathBuf::from(format!(
                "hdl/src/lel/{}_regs.rs",
                map.name.trim_start_matches("lel_")
            )),
            text: rust(map)?,
        },
        Generated {
            path: PathBuf::from(format!("fpga/host/{}_regs.h", map.name)),
            text: c_header(map)?,
        },
        Generated {
            path: PathBuf::from("docs/registers.md"),
            text: markdown(map)?,
        },
    ])
}

/// The files under `root` that differ from what `map` generates (missing ones included).
pub fn stale(map: &RegMap, root: &Path) -> Result<Vec<PathBuf>> {
    Ok(crate::regs_files::stale(&generate(map)?, root))
}

fn banner(comment: &str) -> String {
    crate::regs_files::banner(comment, DESCRIPTION)
}

/// The address decode: which byte addresses are readable and writable.
fn verilog(map: &RegMap) -> String {
    let ab = map.address_bits;
    let mut v = banner("//");
    let _ = writeln!(v, "// {}: {}", map.title, map.description);
    let _ = writeln!(
        v,
        "// rd_ok: a read answers OKAY (wo registers read 0); wr_ok: a write answers OKAY and\n// is performed. Other addresses are reserved: SLVERR."
    );
    let _ = writeln!(v, "module {}_regs_decode (", map.name);
    let _ = writeln!(v, "    input  wire [{}:0] addr,", ab - 1);
    let _ = writeln!(v, "    output reg         rd_ok,");
    let _ = writeln!(v, "    output reg         wr_ok");
    let _ = writeln!(v, ");");
    let _ = writeln!(v, "   always @(*) begin");
    let _ = writeln!(v, "      case (addr[{}:2])", ab - 1);
    for (r, i, w) in map.words() {
        let (rd, wr) = match r.access {
            Access::Rw => (1, 1),
            Access::Ro => (1, 0),
            Access::Wo => (1, 1),
        };
        let idx = if r.count > 1 {
            format!("[{i}]")
        } else {
            String::new()
        };
        let _ = writeln!(
            v,
            "        {}'d{w}: begin rd_ok = 1'b{rd}; wr_ok = 1'b{wr}; end  // {:#05x} {}{idx} ({})",
            ab - 2,
            4 * w,
            r.name,
            r.access.name()
        );
    }
    let _ = writeln!(v, "        default: begin rd_ok = 1'b0; wr_ok = 1'b0; end");
    let _ = writeln!(v, "      endcase");
    let _ = writeln!(v, "   end");
    let _ = writeln!(v, "endmodule");
    v
}

fn doc_lines(out: &mut String, indent: &str, text: &str) {
    let _ = writeln!(out, "{indent}/// {text}");
}

fn rust(map: &RegMap) -> Result<String> {
    let mut s = banner("//");
    let _ = writeln!(s, "//! {}: {}", map.title, map.description);
    let _ = writeln!(
        s,
        "//!\n//! Register constants are word addresses of the platform's register port (byte offset / 4).\n"
    );
    s += RUST_PRELUDE;
    let _ = writeln!(
        s,
        "\n/// Byte-address bits of the AXI4-Lite port.\npub const ADDRESS_BITS: u32 = {};",
        map.address_bits
    );
    for c in &map.constants {
        s += "\n";
        doc_lines(&mut s, "", &c.description);
        let _ = writeln!(s, "pub const {}: u32 = {};", c.name, c.value);
    }
    s += "\n/// The design's parameters that reset values name (resolved per design):\n///\n";
    for p in &map.parameters {
        let _ = writeln!(s, "/// - `{}`: {}", p.name, p.description);
    }
    s += "pub const PARAMETERS: &[&str] = &[";
    s += &map
        .parameters
        .iter()
        .map(|p| format!("\"{}\"", p.name))
        .collect::<Vec<_>>()
        .join(", ");
    s += "];\n";
    for r in &map.registers {
        s += "\n";
        let arr = if r.count > 1 {
            format!(" x {}", r.count)
        } else {
            String::new()
        };
        doc_lines(
            &mut s,
            "",
            &format!(
                "{} ({}, byte offset {:#05x}{arr}): {}",
                r.name,
                r.access.name(),
                r.offset,
                r.description
            ),
        );
        let _ = writeln!(s, "pub const {}: u8 = {:#04x};", r.name, r.word());
        if r.count > 1 {
            let _ = writeln!(
                s,
                "/// Registers in the {} array.\npub const {}_COUNT: usize = {};",
                r.name, r.name, r.count
            );
        }
        if let Some(v) = r.value {
            let _ = writeln!(
                s,
                "/// The value {} always reads.\npub const {}_VALUE: u32 = {v:#010x};",
                r.name, r.name
            );
        }
        let _ = writeln!(
            s,
            "/// {} after reset: {}.\npub const {}_RESET: Reset = {};",
            r.name,
            r.reset_text()?,
            r.name,
            rust_reset(r)?
        );
        for f in &r.fields {
            let (lsb, width) = f.range()?;
            doc_lines(
                &mut s,
                "",
                &format!("{}[{}]: {}", r.name, f.bits, f.description),
            );
            let _ = writeln!(
                s,
                "pub const {}_{}: Field = Field {{ lsb: {lsb}, width: {width} }};",
                r.name, f.name
            );
            if let Some(max) = f.max {
                let _ = writeln!(
                    s,
                    "/// The most {}.{} stores: a write above it stores it.\npub const {}_{}_MAX: u32 = {max};",
                    r.name, f.name, r.name, f.name
                );
            }
            for v in &f.values {
                doc_lines(
                    &mut s,
                    "",
                    &format!("{}.{}: {}", r.name, f.name, v.description),
                );
                let _ = writeln!(
                    s,
                    "pub const {}_{}_{}: u32 = {};",
                    r.name, f.name, v.name, v.value
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n/// Every register, by offset.\npub const REGISTERS: &[Register] = &["
    );
    for r in &map.registers {
        let access = match r.access {
            Access::Rw => "Rw",
            Access::Ro => "Ro",
            Access::Wo => "Wo",
        };
        let max: Vec<String> = r
            .fields
            .iter()
            .filter(|f| f.max.is_some())
            .map(|f| format!("({0}_{1}, {0}_{1}_MAX)", r.name, f.name))
            .collect();
        let _ = writeln!(
            s,
            "    Register {{ name: \"{}\", word: {:#04x}, count: {}, access: Access::{access}, write_mask: {:#010x}, reset: {}_RESET, max: &[{}] }},",
            r.name,
            r.word(),
            r.count,
            r.write_mask()?,
            r.name,
            max.join(", ")
        );
    }
    s += "];\n";
    Ok(s)
}

/// A register's `Reset` as Rust: the fixed bits, and each parameter with its field.
fn rust_reset(r: &Register) -> Result<String> {
    let mut value = 0u32;
    let mut params = Vec::new();
    for (lsb, width, v) in r.reset_terms()? {
        match v {
            ResetValue::Number(n) => value |= n << lsb,
            ResetValue::Parameter(p) => {
                let field = r
                    .fields
                    .iter()
                    .find(|f| f.range().ok() == Some((lsb, width)) && width < 32)
                    .map(|f| format!("{}_{}", r.name, f.name))
                    .unwrap_or_else(|| format!("Field {{ lsb: {lsb}, width: {width} }}"));
                params.push(format!("(\"{p}\", {field})"));
            }
        }
    }
    Ok(if params.is_empty() {
        format!("Reset::fixed({value:#010x})")
    } else {
        format!(
            "Reset {{ value: {value:#010x}, params: &[{}] }}",
            params.join(", ")
        )
    })
}

const RUST_PRELUDE: &str = r#"pub use crate::regfile::{Access, Field, Register, Reset};

/// The register at word address `word` and its index in its array; `None`: reserved.
pub fn lookup(word: u32) -> Option<(&'static Register, u32)> {
    crate::regfile::lookup(REGISTERS, word)
}

/// The register at AXI4-Lite byte address `addr` (the low two bits ignored); `None`:
/// reserved (outside the address space included).
pub fn at_byte(addr: u32) -> Option<(&'static Register, u32)> {
    crate::regfile::at_byte(REGISTERS, ADDRESS_BITS, addr)
}
"#;

fn c_header(map: &RegMap) -> Result<String> {
    let p = map.name.to_uppercase();
    let guard = format!("{p}_REGS_H");
    let mut h = format!("/* {}", banner("").trim_start());
    h.pop();
    h += " */\n";
    let _ = writeln!(h, "/* {}: {} */", map.title, map.description);
    let _ = writeln!(
        h,
        "/* Offsets are byte offsets from the AXI4-Lite base address. _MASK is in place;\n * _SHIFT moves a field value to it. Reserved addresses answer SLVERR. */"
    );
    let _ = writeln!(h, "#ifndef {guard}\n#define {guard}\n");
    let _ = writeln!(h, "#define {p}_ADDRESS_BITS {}u", map.address_bits);
    for c in &map.constants {
        let _ = writeln!(
            h,
            "/* {} */\n#define {p}_{} {}u",
            c.description, c.name, c.value
        );
    }
    if !map.parameters.is_empty() {
        h += "\n/* The design's parameters, the arguments of the _RESET macros that take them\n * (`edgelearn regs --design NAME` resolves them for a design):";
        for q in &map.parameters {
            let _ = write!(h, "\n *   {}: {}", q.name, q.description);
        }
        h += " */\n";
    }
    for r in &map.registers {
        let _ = writeln!(
            h,
            "\n/* {} ({}): {} */",
            r.name,
            r.access.name(),
            r.description
        );
        if r.count > 1 {
            let _ = writeln!(
                h,
                "#define {p}_{}_OFFSET(i) (0x{:03x}u + 4u * (i))",
                r.name, r.offset
            );
            let _ = writeln!(h, "#define {p}_{}_COUNT {}u", r.name, r.count);
        } else {
            let _ = writeln!(h, "#define {p}_{}_OFFSET 0x{:03x}u", r.name, r.offset);
        }
        if let Some(v) = r.value {
            let _ = writeln!(h, "#define {p}_{}_VALUE 0x{v:08x}u", r.name);
        }
        let _ = writeln!(h, "#define {p}_{}_RESET{}", r.name, c_reset(r)?);
        for f in &r.fields {
            let (lsb, _) = f.range()?;
            if let Some(max) = f.max {
                let _ = writeln!(h, "#define {p}_{}_{}_MAX {max}u", r.name, f.name);
            }
            let _ = writeln!(h, "#define {p}_{}_{}_SHIFT {lsb}u", r.name, f.name);
            let _ = writeln!(
                h,
                "#define {p}_{}_{}_MASK 0x{:08x}u",
                r.name,
                f.name,
                f.mask()?
            );
            for v in &f.values {
                let _ = writeln!(
                    h,
                    "#define {p}_{}_{}_{} {}u",
                    r.name, f.name, v.name, v.value
                );
            }
        }
    }
    let _ = writeln!(h, "\n#endif /* {guard} */");
    Ok(h)
}

/// A register's `_RESET` macro after its name: ` 0x00000000u`, or with parameters
/// `(IN_DEPTH) ((IN_DEPTH) << 16)`.
fn c_reset(r: &Register) -> Result<String> {
    let terms = r.reset_terms()?;
    let mut fixed = 0u32;
    let mut names = Vec::new();
    let mut parts = Vec::new();
    for (lsb, _, v) in terms {
        match v {
            ResetValue::Number(n) => fixed |= n << lsb,
            ResetValue::Parameter(q) => {
                parts.push(if lsb == 0 {
                    format!("(unsigned)({q})")
                } else {
                    format!("((unsigned)({q}) << {lsb})")
                });
                names.push(q);
            }
        }
    }
    if names.is_empty() {
        return Ok(format!(" 0x{fixed:08x}u"));
    }
    if fixed != 0 {
        parts.insert(0, format!("0x{fixed:08x}u"));
    }
    Ok(format!("({}) ({})", names.join(", "), parts.join(" | ")))
}

fn markdown(map: &RegMap) -> Result<String> {
    let mut m = format!("<!-- {} -->\n", banner("").trim());
    let _ = writeln!(m, "# {} registers\n\n{}\n", map.title, map.description);
    let _ = writeln!(
        m,
        "AXI4-Lite, {}-bit byte addresses, 32-bit data. `rw`: read and write; `ro`: read only, a write \
         answers SLVERR and changes nothing; `wo`: write only, reads 0. Every other address is \
         reserved and answers SLVERR (reads return 0). A write honours the byte strobes (the \
         bytes not strobed keep their value); a write with no strobe changes nothing and answers \
         OKAY. The platform's own register port takes word addresses (offset / 4).\n",
        map.address_bits
    );
    if !map.constants.is_empty() {
        m += "| constant | value | meaning |\n|---|---|---|\n";
        for c in &map.constants {
            let _ = writeln!(m, "| `{}` | {} | {} |", c.name, c.value, c.description);
        }
        m += "\n";
    }
    if !map.parameters.is_empty() {
        m += "Reset values name these parameters of the design, fixed by its configuration's \
              shapes; `edgelearn regs --design NAME` prints every reset value resolved for a \
              design (`lel_platform_axi`, `lel_platform_axi_mnist`, ...).\n\n\
              | parameter | what it is |\n|---|---|\n";
        for q in &map.parameters {
            let _ = writeln!(m, "| `{}` | {} |", q.name, q.description);
        }
        m += "\n";
    }
    m += "| offset | register | access | reset | description |\n|---|---|---|---|---|\n";
    for r in &map.registers {
        let off = if r.count > 1 {
            format!("0x{:03x} + 4i, i < {}", r.offset, r.count)
        } else {
            format!("0x{:03x}", r.offset)
        };
        let _ = writeln!(
            m,
            "| {off} | [`{}`](#{}) | {} | `{}` | {} |",
            r.name,
            r.name.to_lowercase(),
            r.access.name(),
            r.reset_text()?.replace('|', "\\|"),
            r.description
        );
    }
    for r in &map.registers {
        let _ = writeln!(m, "\n## {}\n\n{}", r.name, r.description);
        if let Some(v) = r.value {
            let _ = writeln!(m, "\nAlways reads `0x{v:08x}`.");
        } else {
            let _ = writeln!(m, "\nReset: `{}`.", r.reset_text()?);
        }
        if r.fields.is_empty() {
            continue;
        }
        m += "\n| bits | field | description |\n|---|---|---|\n";
        for f in &r.fields {
            let mut d = f.description.clone();
            for v in &f.values {
                let _ = write!(d, " {} = `{}`: {}", v.value, v.name, v.description);
            }
            if let Some(max) = f.max {
                let _ = write!(d, " A write above {max} stores {max}.");
            }
            let _ = writeln!(m, "| [{}] | `{}` | {} |", f.bits, f.name, d);
        }
    }
    Ok(m)
}

/// Write the generated files under `root`; returns the paths written (only changed ones).
/// A file there that this generator did not write is kept unless `force` is set.
pub fn write(map: &RegMap, root: &Path, force: bool) -> Result<Vec<PathBuf>> {
    crate::regs_files::write(generate(map)?, root, force)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
name = "blk"
title = "Block"
description = "A block."
address_bits = 8
[[register]]
name = "CTRL"
offset = 0
access = "wo"
reset = 0
description = "Go."
fields = [{ name = "GO", bits = "0", description = "Start.", values = [{ name = "YES", value = 1, description = "y" }] }]
[[register]]
name = "TAB"
offset = 8
count = 2
access = "rw"
reset = 0x100
description = "Table."
fields = [{ name = "A", bits = "2:0", max = 5, description = "a" }, { name = "B", bits = "9:8", description = "b" }]
[[parameter]]
name = "DEPTH"
description = "A depth."
[[register]]
name = "LEVEL"
offset = 16
access = "ro"
description = "Level."
fields = [{ name = "HELD", bits = "7:0", description = "h" }, { name = "D", bits = "15:8", reset = "DEPTH", description = "d" }]
"#;

    fn small() -> RegMap {
        RegMap::parse(SMALL, "small").unwrap()
    }

    #[test]
    fn fields_and_masks() {
        let m = small();
        assert_eq!(m.registers[1].write_mask().unwrap(), 0x307);
        assert_eq!(m.registers[0].write_mask().unwrap(), 1);
        assert_eq!(
            m.words().iter().map(|w| w.2).collect::<Vec<_>>(),
            [0, 2, 3, 4]
        );
        // A write keeps the writable bits, field A at most 5.
        assert_eq!(m.registers[1].stored(0xffff_ffff).unwrap(), 0x305);
        assert_eq!(m.registers[1].stored(0x0000_0204).unwrap(), 0x204);
    }

    #[test]
    fn reset_values_resolve_per_design() {
        let m = small();
        let p = BTreeMap::from([("DEPTH".to_string(), 9)]);
        assert_eq!(m.registers[1].reset_value(&p).unwrap(), 0x100);
        assert_eq!(m.registers[2].reset_value(&p).unwrap(), 0x900);
        assert_eq!(m.registers[2].reset_text().unwrap(), "DEPTH << 8");
        assert_eq!(m.registers[1].reset_text().unwrap(), "0x00000100");
        let wide = BTreeMap::from([("DEPTH".to_string(), 300)]);
        let e = m.registers[2].reset_value(&wide).unwrap_err();
        assert!(
            format!("{e:#}").contains("300 does not fit its 8 bits"),
            "{e:#}"
        );
        let e = m.registers[2].reset_value(&BTreeMap::new()).unwrap_err();
        assert!(
            format!("{e:#}").contains("LEVEL: parameter DEPTH is not given"),
            "{e:#}"
        );
        assert!(m.check_parameters(&p).is_ok());
        let h = c_header(&m).unwrap();
        assert!(
            h.contains("#define BLK_LEVEL_RESET(DEPTH) (((unsigned)(DEPTH) << 8))"),
            "{h}"
        );
        assert!(h.contains("#define BLK_TAB_RESET 0x00000100u"));
        assert!(h.contains("#define BLK_TAB_A_MAX 5u"));
        let md = markdown(&m).unwrap();
        assert!(md.contains("| 0x010 | [`LEVEL`](#level) | ro | `DEPTH << 8` | Level. |"));
        assert!(md.contains("A write above 5 stores 5."));
        let rs = rust(&m).unwrap();
        assert!(rs.contains(
            "pub const LEVEL_RESET: Reset = Reset { value: 0x00000000, params: &[(\"DEPTH\", LEVEL_D)] };"
        ));
    }

    #[test]
    fn verilog_decodes_every_word_and_nothing_else() {
        let v = verilog(&small());
        assert!(v.contains("module blk_regs_decode ("));
        assert!(v.contains("6'd0: begin rd_ok = 1'b1; wr_ok = 1'b1; end"));
        assert!(v.contains("6'd3: begin rd_ok = 1'b1; wr_ok = 1'b1; end"));
        assert!(!v.contains("6'd1:"));
    }

    #[test]
    fn header_and_markdown_name_the_fields() {
        let m = small();
        let h = c_header(&m).unwrap();
        assert!(h.contains("#define BLK_TAB_OFFSET(i) (0x008u + 4u * (i))"));
        assert!(h.contains("#define BLK_TAB_B_MASK 0x00000300u"));
        assert!(h.contains("#define BLK_CTRL_GO_YES 1u"));
        let md = markdown(&m).unwrap();
        assert!(md.contains("| 0x008 + 4i, i < 2 | [`TAB`](#tab) | rw | `0x00000100` | Table. |"));
    }

    #[test]
    fn bad_descriptions_are_named() {
        let bad = |from: &str, to: &str| {
            let e = RegMap::parse(&SMALL.replace(from, to), "x").unwrap_err();
            format!("{e:#}")
        };
        assert!(bad("offset = 8", "offset = 6").contains("TAB: offset 0x6 is not a multiple of 4"));
        assert!(bad("offset = 8", "offset = 0").contains("overlaps another register"));
        assert!(bad("\"9:8\"", "\"2:1\"").contains("field B overlaps"));
        assert!(bad("\"9:8\"", "\"40:8\"").contains("msb:lsb"));
        assert!(bad("offset = 8", "offset = 252").contains("leaves the 8-bit address space"));
        assert!(bad("access = \"rw\"", "access = \"rx\"").contains("not a register description"));
        assert!(bad("value = 1", "value = 2").contains("fits 1 bits"));
        let e = bad("reset = 0\n", "");
        assert!(e.contains("CTRL: no reset value"), "{e}");
        assert!(bad("reset = 0x100", "reset = 0x1000").contains("outside its fields"));
        assert!(bad("reset = \"DEPTH\"", "reset = \"DEEP\"")
            .contains("DEEP, which is not a [[parameter]]"));
        assert!(bad("name = \"DEPTH\"", "name = \"UNUSED\"").contains("DEPTH, which is not"));
        assert!(bad("max = 5", "max = 8").contains("field A has max 8"));
        assert!(bad("reset = 0\n", "reset = 1\n").contains("write-only register reads 0"));
        assert!(
            bad("reset = 0x100\n", "reset = 0x100\nvalue = 3\n").contains("give one reset value")
        );
    }
}

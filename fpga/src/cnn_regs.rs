//! The CNN engine's host map and layer registers from one description
//! (`hdl/regs/cnn_engine.toml`, [`EngineMap`]), as [`super::regmap`] does for the LEL
//! platform: `edgelearn regs` writes the engine's Rust module (host addresses, field
//! positions, `LayerFields` with the loader's encoder and its decoder), the rust-hdl block
//! that decodes a layer's register words into its fields (the RTL), and the Markdown map
//! ([`generate`]). `tests/regs.rs` regenerates them and compares them with the repository,
//! so the loader, the RTL and the documentation cannot drift apart.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The description file, relative to the repository root.
pub const DESCRIPTION: &str = "hdl/regs/cnn_engine.toml";

pub use crate::regs_files::{Access, Generated, MapError, MARK};

type Result<T> = std::result::Result<T, MapError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(MapError(msg.into()))
}

/// A named value of a field.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Value {
    /// Name (upper case).
    pub name: String,
    /// Value.
    pub value: u64,
    /// What it means.
    pub description: String,
}

/// A field: `bits` is "msb:lsb" or "bit".
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// Name (upper case).
    pub name: String,
    /// Bits.
    pub bits: String,
    /// Access, if it differs from its register's.
    #[serde(default)]
    pub access: Option<Access>,
    /// What it is.
    pub description: String,
    /// Named values.
    #[serde(default)]
    pub values: Vec<Value>,
}

impl Field {
    /// `(lsb, width)`.
    pub fn range(&self) -> Result<(u32, u32)> {
        let parse = |s: &str| s.trim().parse::<u32>().ok();
        let (msb, lsb) = match self.bits.split_once(':') {
            Some((m, l)) => (parse(m), parse(l)),
            None => (parse(&self.bits), parse(&self.bits)),
        };
        match (msb, lsb) {
            (Some(m), Some(l)) if m >= l && m < 64 => Ok((l, m - l + 1)),
            _ => err(format!(
                "field {}: bits \"{}\" must be \"msb:lsb\" or \"bit\" with msb < 64",
                self.name, self.bits
            )),
        }
    }
}

/// A control or status register of the host port.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// Name (upper case).
    pub name: String,
    /// Word address.
    pub address: u32,
    /// Registers in the array (1: a single register).
    #[serde(default = "one")]
    pub count: u32,
    /// Access.
    pub access: Access,
    /// What it is.
    pub description: String,
    /// Fields (none: the whole word).
    #[serde(default)]
    pub fields: Vec<Field>,
}

fn one() -> u32 {
    1
}

/// A memory region of the host port.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    /// Name (upper case).
    pub name: String,
    /// First word address.
    pub address: u32,
    /// Words of the address space it spans.
    pub words: u32,
    /// Its layout.
    pub description: String,
}

/// A word of the layer registers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerWord {
    /// Word index.
    pub index: usize,
    /// What it holds.
    pub description: String,
    /// Fields.
    pub fields: Vec<Field>,
}

/// The layer registers.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// Words per layer.
    pub words: usize,
    /// What they are.
    pub description: String,
    /// The words that hold fields.
    #[serde(rename = "word")]
    pub word: Vec<LayerWord>,
}

/// The description.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineMap {
    /// Block name (lower case).
    pub name: String,
    /// Title.
    pub title: String,
    /// What the block is.
    pub description: String,
    /// Word-address bits of the host port.
    pub address_bits: u32,
    /// Registers.
    #[serde(rename = "register")]
    pub registers: Vec<Register>,
    /// Memory regions.
    #[serde(rename = "region")]
    pub regions: Vec<Region>,
    /// Layer registers.
    pub layer: Layer,
}

fn is_upper_ident(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars()
            .all(|c| c == '_' || c.is_ascii_digit() || c.is_ascii_uppercase())
}

/// A layer field placed: word, lsb, width.
#[derive(Clone, Debug)]
pub struct Placed<'a> {
    /// The field.
    pub field: &'a Field,
    /// Its first word.
    pub word: usize,
    /// First bit in that word.
    pub lsb: u32,
    /// Bits.
    pub width: u32,
}

impl EngineMap {
    /// Parse and check a description; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self> {
        let map: EngineMap = toml::from_str(text)
            .map_err(|e| MapError(format!("{origin}: not a CNN engine map: {e}")))?;
        map.check()
            .map_err(|e| MapError(format!("{origin}: {e}")))?;
        Ok(map)
    }

    /// Names, the address space, overlaps, fields within words.
    pub fn check(&self) -> Result<()> {
        let span = 1u64 << self.address_bits;
        let mut names = BTreeSet::new();
        let mut spans: Vec<(u64, u64, String)> = Vec::new();
        for r in &self.registers {
            if !is_upper_ident(&r.name) || !names.insert(r.name.clone()) {
                return err(format!(
                    "register {}: the name must be a unique upper-case identifier",
                    r.name
                ));
            }
            spans.push((
                r.address as u64,
                r.address as u64 + r.count as u64,
                r.name.clone(),
            ));
            let mut used = 0u64;
            for f in &r.fields {
                let (lsb, width) = f.range()?;
                if lsb + width > 32 {
                    return err(format!(
                        "register {}: field {} leaves the word",
                        r.name, f.name
                    ));
                }
                let mask = ((1u64 << width) - 1) << lsb;
                let readable = f.access.unwrap_or(r.access) != Access::Wo;
                // A write-only field may share bits with a read-only one (CTRL's START/BUSY).
                if readable && used & mask != 0 {
                    return err(format!("register {}: field {} overlaps", r.name, f.name));
                }
                if readable {
                    used |= mask;
                }
            }
        }
        for g in &self.regions {
            if !is_upper_ident(&g.name) || !names.insert(g.name.clone()) {
                return err(format!(
                    "region {}: the name must be a unique upper-case identifier",
                    g.name
                ));
            }
            spans.push((
                g.address as u64,
                g.address as u64 + g.words as u64,
                g.name.clone(),
            ));
        }
        spans.sort();
        for w in spans.windows(2) {
            if w[1].0 < w[0].1 {
                return err(format!("{} overlaps {}", w[1].2, w[0].2));
            }
        }
        if let Some(last) = spans.last() {
            if last.1 > span {
                return err(format!(
                    "{} leaves the {}-bit address space",
                    last.2, self.address_bits
                ));
            }
        }
        let mut used = vec![0u64; self.layer.words + 2];
        let mut fnames = BTreeSet::new();
        for p in self.placed()? {
            if !is_upper_ident(&p.field.name) || !fnames.insert(p.field.name.clone()) {
                return err(format!(
                    "layer field {}: the name must be a unique upper-case identifier",
                    p.field.name
                ));
            }
            let words = (p.lsb + p.width).div_ceil(32) as usize;
            if p.word + words > self.layer.words {
                return err(format!(
                    "layer field {} leaves the layer's words",
                    p.field.name
                ));
            }
            if p.width <= 32 && p.lsb + p.width > 32 {
                return err(format!("layer field {} leaves its word", p.field.name));
            }
            if p.width > 32 && p.lsb != 0 {
                return err(format!(
                    "layer field {}: a field wider than 32 bits starts at bit 0",
                    p.field.name
                ));
            }
            for k in 0..words {
                let lo = (p.lsb as u64).saturating_sub(32 * k as u64);
                let hi = ((p.lsb + p.width) as u64)
                    .saturating_sub(32 * k as u64)
                    .min(32);
                let mask = if hi > lo {
                    ((1u64 << (hi - lo)) - 1) << lo
                } else {
                    0
                };
                if used[p.word + k] & mask != 0 {
                    return err(format!("layer field {} overlaps", p.field.name));
                }
                used[p.word + k] |= mask;
            }
            for v in &p.field.values {
                if p.width < 64 && v.value >> p.width != 0 {
                    return err(format!(
                        "layer field {}: value {} does not fit {} bits",
                        p.field.name, v.name, p.width
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every layer field with its place, in word order.
    pub fn placed(&self) -> Result<Vec<Placed<'_>>> {
        let mut out = Vec::new();
        for w in &self.layer.word {
            for f in &w.fields {
                let (lsb, width) = f.range()?;
                out.push(Placed {
                    field: f,
                    word: w.index,
                    lsb,
                    width,
                });
            }
        }
        Ok(out)
    }

    /// Words the RTL decodes (one past the last word holding a field).
    pub fn decoded_words(&self) -> Result<usize> {
        Ok(self
            .placed()?
            .iter()
            .map(|p| p.word + (p.lsb + p.width).div_ceil(32) as usize)
            .max()
            .unwrap_or(0))
    }
}

fn banner(comment: &str) -> String {
    crate::regs_files::banner(comment, DESCRIPTION)
}

/// The three files generated from `map`.
pub fn generate(map: &EngineMap) -> Result<Vec<Generated>> {
    Ok(vec![
        Generated {
            path: PathBuf::from("hdl/src/cnn/engine/regs.rs"),
            text: rust(map)?,
        },
        Generated {
            path: PathBuf::from("hdl/src/cnn/engine/layer_decode.rs"),
            text: decode_block(map)?,
        },
        Generated {
            path: PathBuf::from("docs/cnn-engine-registers.md"),
            text: markdown(map)?,
        },
    ])
}

/// Read and check the description under `root`.
pub fn load(root: &std::path::Path) -> Result<EngineMap> {
    let path = root.join(DESCRIPTION);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| MapError(format!("cannot read {}: {e}", path.display())))?;
    EngineMap::parse(&text, DESCRIPTION)
}

/// The files under `root` that differ from what `map` generates (missing ones included).
pub fn stale(map: &EngineMap, root: &std::path::Path) -> Result<Vec<PathBuf>> {
    Ok(crate::regs_files::stale(&generate(map)?, root))
}

/// Write the generated files under `root`; returns the paths written (only changed ones).
/// A file there that this generator did not write is kept unless `force` is set.
pub fn write(map: &EngineMap, root: &std::path::Path, force: bool) -> Result<Vec<PathBuf>> {
    crate::regs_files::write(generate(map)?, root, force)
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn rust_type(width: u32) -> &'static str {
    match width {
        1 => "bool",
        2..=32 => "u32",
        _ => "u64",
    }
}

fn rust(map: &EngineMap) -> Result<String> {
    let mut s = banner("//");
    let _ = writeln!(s, "//! {}: {}", map.title, map.description);
    let _ = writeln!(
        s,
        "//!\n//! Host-port word addresses, the layer registers' fields and [`LayerFields`], the\n//! loader's encoder (docs/cnn-engine-registers.md).\n"
    );
    s += RUST_PRELUDE;
    let _ = writeln!(
        s,
        "\n/// Word-address bits of the host port.\npub const ADDRESS_BITS: u32 = {};",
        map.address_bits
    );
    s += &rust_host_map(map)?;
    let placed = map.placed()?;
    s += &rust_layer_fields(&placed)?;
    s += &rust_layer_struct(&placed);
    Ok(s)
}

/// The host port's registers and regions as constants.
fn rust_host_map(map: &EngineMap) -> Result<String> {
    let mut s = String::new();
    for r in &map.registers {
        let _ = writeln!(
            s,
            "\n/// {} ({}{}): {}",
            r.name,
            r.access.name(),
            if r.count > 1 {
                format!(", {} registers", r.count)
            } else {
                String::new()
            },
            r.description
        );
        let _ = writeln!(s, "pub const {}: u32 = {:#08x};", r.name, r.address);
        if r.count > 1 {
            let _ = writeln!(
                s,
                "/// Registers in the {} array.\npub const {}_COUNT: usize = {};",
                r.name, r.name, r.count
            );
        }
        for f in &r.fields {
            let (lsb, width) = f.range()?;
            let _ = writeln!(
                s,
                "/// {}[{}] ({}): {}\npub const {}_{}: RegField = RegField {{ lsb: {lsb}, width: {width} }};",
                r.name,
                f.bits,
                f.access.unwrap_or(r.access).name(),
                f.description,
                r.name,
                f.name
            );
        }
    }
    for g in &map.regions {
        let _ = writeln!(
            s,
            "\n/// {}: {}\npub const {}: u32 = {:#08x};\n/// Words of the {} region's address space.\npub const {}_SIZE: u32 = {};",
            g.name, g.description, g.name, g.address, g.name, g.name, g.words
        );
    }
    let _ = writeln!(
        s,
        "\n/// Words of configuration per layer. {}\npub const LAYER_WORDS: usize = {};",
        map.layer.description, map.layer.words
    );
    let _ = writeln!(
        s,
        "/// Layer-register words the RTL decodes.\npub const DECODED_WORDS: usize = {};",
        map.decoded_words()?
    );
    Ok(s)
}

/// The `layer` module: every field's position and named values.
fn rust_layer_fields(placed: &[Placed]) -> Result<String> {
    let mut s = String::new();
    s += "\n/// The layer registers' fields.\npub mod layer {\n    use super::Field;\n";
    for p in placed {
        let _ = writeln!(
            s,
            "\n    /// Word {} [{}]: {}\n    pub const {}: Field = Field {{ word: {}, lsb: {}, width: {} }};",
            p.word, p.field.bits, p.field.description, p.field.name, p.word, p.lsb, p.width
        );
        for v in &p.field.values {
            let _ = writeln!(
                s,
                "    /// {}: {}\n    pub const {}_{}: u32 = {};",
                p.field.name, v.description, p.field.name, v.name, v.value
            );
        }
    }
    s += "}\n";
    Ok(s)
}

/// `LayerFields`: the struct, its encoder (the loader's), decoder and range check.
fn rust_layer_struct(placed: &[Placed]) -> String {
    let mut s = String::new();
    s += "\n/// One layer's registers, decoded: what the loader encodes and the RTL decodes.\n";
    s += "#[derive(Clone, Debug, Default, PartialEq, Eq)]\npub struct LayerFields {\n";
    for p in placed {
        let _ = writeln!(
            s,
            "    /// {} (word {} [{}]): {}\n    pub {}: {},",
            p.field.name,
            p.word,
            p.field.bits,
            p.field.description,
            lower(&p.field.name),
            rust_type(p.width)
        );
    }
    s += "}\n\nimpl LayerFields {\n";
    s += "    /// The register words. Every field must fit its width ([`LayerFields::check`]).\n";
    s += "    pub fn encode(&self) -> [u32; LAYER_WORDS] {\n        let mut w = [0u32; LAYER_WORDS];\n";
    for p in placed {
        let name = lower(&p.field.name);
        let shifted = |v: String, by: u32| {
            if by == 0 {
                v
            } else {
                format!("{v} << {by}")
            }
        };
        match p.width {
            1 => {
                let _ = writeln!(
                    s,
                    "        w[{}] |= {};",
                    p.word,
                    shifted(format!("u32::from(self.{name})"), p.lsb)
                );
            }
            2..=32 => {
                let _ = writeln!(
                    s,
                    "        w[{}] |= {};",
                    p.word,
                    shifted(format!("self.{name}"), p.lsb)
                );
            }
            _ => {
                let words = p.width.div_ceil(32);
                for k in 0..words {
                    let v = if k == 0 {
                        format!("self.{name} as u32")
                    } else {
                        format!("(self.{name} >> {}) as u32", 32 * k)
                    };
                    let _ = writeln!(s, "        w[{}] |= {v};", p.word + k as usize);
                }
            }
        }
    }
    s += "        w\n    }\n\n";
    s += "    /// The fields of the register words `w`.\n    pub fn decode(w: &[u32; LAYER_WORDS]) -> Self {\n        Self {\n";
    for p in placed {
        let name = lower(&p.field.name);
        let expr = match p.width {
            1 => format!("w[{}] & {:#x} != 0", p.word, 1u64 << p.lsb),
            2..=32 if p.lsb == 0 => format!("w[{}] & {:#x}", p.word, (1u64 << p.width) - 1),
            2..=32 => format!(
                "(w[{}] >> {}) & {:#x}",
                p.word,
                p.lsb,
                (1u64 << p.width) - 1
            ),
            _ => format!("w[{}] as u64 | (w[{}] as u64) << 32", p.word, p.word + 1),
        };
        let _ = writeln!(s, "            {name}: {expr},");
    }
    s += "        }\n    }\n\n";
    s += "    /// The first field whose value does not fit its bits: `(field, value, bits)`.\n";
    s += "    pub fn check(&self) -> Result<(), (&'static str, u64, u32)> {\n";
    for p in placed {
        if p.width == 1 || p.width >= 32 {
            continue;
        }
        let name = lower(&p.field.name);
        let _ = writeln!(
            s,
            "        if self.{name} >> {} != 0 {{\n            return Err((\"{name}\", u64::from(self.{name}), {}));\n        }}",
            p.width, p.width
        );
    }
    s += "        Ok(())\n    }\n}\n";
    s
}

const RUST_PRELUDE: &str = r#"pub use crate::regfile::{Field as RegField, WordField as Field};
"#;

fn decode_block(map: &EngineMap) -> Result<String> {
    let placed = map.placed()?;
    let mut s = banner("//");
    let _ = writeln!(
        s,
        "//! LayerDecode: a layer's register words into its fields (the RTL side of\n//! {DESCRIPTION}; the loader's side is [`super::regs::LayerFields`]).\n//!\n//! | port | dir | width | meaning |\n//! |---|---|---|---|\n//! | `words` | in | {} x 32 | the layer's register words 0..{} |",
        map.decoded_words()?,
        map.decoded_words()? - 1
    );
    for p in &placed {
        let _ = writeln!(
            s,
            "//! | `{}` | out | {} | word {} [{}]: {} |",
            lower(&p.field.name),
            p.width,
            p.word,
            p.field.bits,
            p.field.description
        );
    }
    s += "//!\n//! Combinational wiring (bit slices). Golden: `LayerFields::decode`. Tests: `tests/cnn_engine_blocks.rs`.\n\n";
    s += "use super::regs::DECODED_WORDS;\nuse rust_hdl::prelude::*;\n\n";
    s += "/// The layer registers' decode.\n#[derive(Clone, Debug, Default, LogicBlock)]\npub struct LayerDecode {\n";
    s += "    /// The layer's register words.\n    pub words: [Signal<In, Bits<32>>; DECODED_WORDS],\n";
    for p in &placed {
        let ty = if p.width == 1 {
            "Bit".to_string()
        } else {
            format!("Bits<{}>", p.width)
        };
        let _ = writeln!(
            s,
            "    /// {}\n    pub {}: Signal<Out, {ty}>,",
            p.field.description,
            lower(&p.field.name)
        );
    }
    for p in placed.iter().filter(|p| p.width > 32) {
        let name = lower(&p.field.name);
        let _ = writeln!(
            s,
            "    {name}_lo: Signal<Local, Bits<32>>,\n    {name}_hi: Signal<Local, Bits<32>>,"
        );
    }
    s += "}\n\nimpl Logic for LayerDecode {\n    #[hdl_gen]\n    fn update(&mut self) {\n";
    for p in &placed {
        let name = lower(&p.field.name);
        let line = match p.width {
            1 => format!("self.{name}.next = self.words[{}].val().get_bit({});", p.word, p.lsb),
            2..=32 => format!(
                "self.{name}.next = self.words[{}].val().get_bits::<{}>({});",
                p.word, p.width, p.lsb
            ),
            _ => format!(
                "self.{name}_lo.next = self.words[{}].val();\n        self.{name}_hi.next = self.words[{}].val();\n        self.{name}.next = bit_cast::<{w}, 32>(self.{name}_lo.val())\n            | (bit_cast::<{w}, 32>(self.{name}_hi.val()) << 32);",
                p.word,
                p.word + 1,
                w = p.width
            ),
        };
        let _ = writeln!(s, "        {line}");
    }
    s += "    }\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn layer_decode_is_synthesizable() {\n        crate::synth_check::assert_synthesizable(\"layer_decode\", LayerDecode::default());\n    }\n}\n";
    Ok(s)
}

fn markdown(map: &EngineMap) -> Result<String> {
    let mut m = banner("<!--");
    m.truncate(m.trim_end().len());
    m += " -->\n";
    let _ = writeln!(m, "# {} registers\n\n{}\n", map.title, map.description);
    let _ = writeln!(
        m,
        "Word addresses of the host port (`host_addr`, {} bits; the region in bits 23:20). \
         Writes are taken while the engine is idle (the start excepted: it is taken in IDLE); \
         a read answers on `host_rdata` one cycle after `host_re`. The Rust constants are \
         `edgelearn_hdl::cnn::engine::regs`.\n",
        map.address_bits
    );
    m += "## Host map\n\n| address | name | access | what |\n|---|---|---|---|\n";
    for r in &map.registers {
        let addr = if r.count > 1 {
            format!("{:#08x} + l, l < {}", r.address, r.count)
        } else {
            format!("{:#08x}", r.address)
        };
        let _ = writeln!(
            m,
            "| {addr} | `{}` | {} | {} |",
            r.name,
            r.access.name(),
            r.description
        );
    }
    for g in &map.regions {
        let _ = writeln!(
            m,
            "| {:#08x} .. {:#08x} | `{}` | rw | {} |",
            g.address,
            g.address + g.words - 1,
            g.name,
            g.description
        );
    }
    for r in map.registers.iter().filter(|r| !r.fields.is_empty()) {
        let _ = writeln!(
            m,
            "\n### `{}`\n\n| bits | field | access | what |\n|---|---|---|---|",
            r.name
        );
        for f in &r.fields {
            let _ = writeln!(
                m,
                "| [{}] | `{}` | {} | {} |",
                f.bits,
                f.name,
                f.access.unwrap_or(r.access).name(),
                f.description
            );
        }
    }
    let _ = writeln!(
        m,
        "\n## Layer registers\n\n{} words per layer at `LAYER_REGS + {} layer + word`. {}\n\n| word | bits | field | what |\n|---|---|---|---|",
        map.layer.words, map.layer.words, map.layer.description
    );
    for p in map.placed()? {
        let mut what = p.field.description.clone();
        for v in &p.field.values {
            let _ = write!(what, " {} `{}`: {}", v.value, v.name, v.description);
        }
        let word = if p.width > 32 {
            format!("{}, {}", p.word, p.word + 1)
        } else {
            p.word.to_string()
        };
        let _ = writeln!(
            m,
            "| {word} | [{}] | `{}` | {what} |",
            p.field.bits, p.field.name
        );
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> EngineMap {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(root.join(DESCRIPTION)).unwrap();
        EngineMap::parse(&text, DESCRIPTION).unwrap()
    }

    #[test]
    fn the_description_places_every_field() {
        let m = map();
        assert_eq!(m.decoded_words().unwrap(), 15);
        let p = m.placed().unwrap();
        let in_map = p.iter().find(|p| p.field.name == "IN_MAP").unwrap();
        assert_eq!((in_map.word, in_map.lsb, in_map.width), (10, 0, 64));
    }

    #[test]
    fn bad_descriptions_are_named() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(root.join(DESCRIPTION)).unwrap();
        let bad = |from: &str, to: &str| {
            assert!(text.contains(from), "{from}");
            EngineMap::parse(&text.replacen(from, to, 1), "x")
                .unwrap_err()
                .0
        };
        assert!(bad(
            "\"9:0\", description = \"Input rows.\"",
            "\"19:0\", description = \"Input rows.\""
        )
        .contains("layer field IN_W overlaps"));
        assert!(bad("address = 0x000005", "address = 0x000004").contains("overlaps"));
        assert!(bad("\"30:24\"", "\"32:24\"").contains("OUT_THRESH"));
        assert!(bad("name = \"GAP\"", "name = \"gap\"").contains("upper-case"));
        assert!(bad("access = \"ro\"", "access = \"rx\"").contains("not a CNN engine map"));
    }
}

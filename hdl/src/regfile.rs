//! The types the generated register maps share (`edgelearn regs`): a register's access, a
//! field of a word, a register, a field of the CNN engine's layer registers, and the
//! address lookups. Written once here; each generated module (`lel::platform_regs`,
//! `cnn::engine::regs`) re-exports them with its own tables.

/// How a register may be accessed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read and write.
    Rw,
    /// Read only: a write answers SLVERR and changes nothing.
    Ro,
    /// Write only: reads 0.
    Wo,
}

/// A field of a register: `width` bits from `lsb`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Lowest bit.
    pub lsb: u32,
    /// Bits.
    pub width: u32,
}

impl Field {
    /// The field's bits in a word.
    pub const fn mask(self) -> u32 {
        (((1u64 << self.width) - 1) << self.lsb) as u32
    }

    /// The field's value in `word`.
    pub const fn get(self, word: u32) -> u32 {
        (word & self.mask()) >> self.lsb
    }

    /// `word` with the field set to `value` (cut to the field's width).
    pub const fn put(self, word: u32, value: u32) -> u32 {
        (word & !self.mask()) | ((value << self.lsb) & self.mask())
    }
}

/// A register (or an array of `count` registers, one word apart).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Register {
    /// Name.
    pub name: &'static str,
    /// Word address of the first.
    pub word: u8,
    /// Registers in the array.
    pub count: u8,
    /// Access.
    pub access: Access,
    /// The bits a write changes.
    pub write_mask: u32,
    /// Its value after reset.
    pub reset: Reset,
    /// Fields that store at most a value: a write above it stores it.
    pub max: &'static [(Field, u32)],
}

impl Register {
    /// What the register holds after `word` is written to it: the writable bits, each
    /// field with a maximum cut to it.
    pub fn stored(&self, word: u32) -> u32 {
        self.max
            .iter()
            .fold(word & self.write_mask, |w, &(f, max)| {
                f.put(w, f.get(w).min(max))
            })
    }
}

/// A register's value after reset: `value`, with each named parameter of the design (its
/// configuration's shapes fix it, e.g. a FIFO depth) in its field.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reset {
    /// The fixed bits.
    pub value: u32,
    /// Parameters and the fields they fill.
    pub params: &'static [(&'static str, Field)],
}

impl Reset {
    /// A reset value without parameters.
    pub const fn fixed(value: u32) -> Self {
        Self { value, params: &[] }
    }

    /// The value for a design whose parameters `param` gives; the error names a parameter
    /// it does not give or one too wide for its field.
    pub fn resolve(&self, param: impl Fn(&str) -> Option<u32>) -> Result<u32, String> {
        self.params.iter().try_fold(self.value, |w, &(name, f)| {
            let v = param(name).ok_or_else(|| format!("parameter {name} is not given"))?;
            if f.width < 32 && v >> f.width != 0 {
                return Err(format!(
                    "parameter {name} = {v} does not fit its {}-bit field",
                    f.width
                ));
            }
            Ok(f.put(w, v))
        })
    }
}

/// A field of the CNN engine's layer registers: `width` bits from bit `lsb` of word `word`
/// (a field wider than 32 bits continues in the next word).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WordField {
    /// Layer-register word.
    pub word: usize,
    /// First bit.
    pub lsb: u32,
    /// Bits.
    pub width: u32,
}

/// The register of `registers` at word address `word` and its index in its array; `None`:
/// reserved.
pub fn lookup(registers: &'static [Register], word: u32) -> Option<(&'static Register, u32)> {
    registers.iter().find_map(|r| {
        let w = r.word as u32;
        (w..w + r.count as u32)
            .contains(&word)
            .then(|| (r, word - w))
    })
}

/// The register of `registers` at byte address `addr` of a port of `address_bits` (the low
/// two bits ignored); `None`: reserved (outside the address space included).
pub fn at_byte(
    registers: &'static [Register],
    address_bits: u32,
    addr: u32,
) -> Option<(&'static Register, u32)> {
    if addr >> address_bits != 0 {
        return None;
    }
    lookup(registers, addr >> 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &[Register] = &[
        Register {
            name: "A",
            word: 0,
            count: 1,
            access: Access::Rw,
            write_mask: 0xff,
            reset: Reset::fixed(0),
            max: &[(Field { lsb: 4, width: 4 }, 9)],
        },
        Register {
            name: "T",
            word: 4,
            count: 3,
            access: Access::Ro,
            write_mask: 0,
            reset: Reset {
                value: 1,
                params: &[("P", Field { lsb: 8, width: 4 })],
            },
            max: &[],
        },
    ];

    #[test]
    fn fields_and_lookups() {
        let f = Field { lsb: 4, width: 3 };
        assert_eq!(f.mask(), 0x70);
        assert_eq!(f.get(0xff), 7);
        assert_eq!(f.put(0, 0xf), 0x70);
        assert_eq!(lookup(MAP, 5).map(|(r, i)| (r.name, i)), Some(("T", 1)));
        assert_eq!(lookup(MAP, 2), None);
        assert_eq!(
            at_byte(MAP, 8, 0x18).map(|(r, i)| (r.name, i)),
            Some(("T", 2))
        );
        assert_eq!(at_byte(MAP, 8, 0x100), None);
    }

    #[test]
    fn stored_words_and_reset_values() {
        assert_eq!(MAP[0].stored(0xffff_ffff), 0x9f);
        assert_eq!(MAP[0].stored(0x0000_0185), 0x85);
        let p = |n: &str| (n == "P").then_some(0xc);
        assert_eq!(MAP[1].reset.resolve(p), Ok(0xc01));
        assert!(MAP[1]
            .reset
            .resolve(|_| Some(16))
            .unwrap_err()
            .contains("P = 16"));
        assert!(MAP[1]
            .reset
            .resolve(|_| None)
            .unwrap_err()
            .contains("P is not given"));
    }
}

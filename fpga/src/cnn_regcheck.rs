//! The CNN engine's host port checked against its description ([`EngineMap`],
//! `hdl/regs/cnn_engine.toml`), as [`crate::regcheck`] checks the LEL platform's register
//! file: what a driver writer expects from docs/cnn-engine-registers.md, asked of the RTL
//! through the host port (`host_we`, `host_re`, `host_addr`, `host_wdata`, `host_rdata`; no
//! responses, no strobes). The registers, their access and their fields come from the
//! description; the engine's shape gives what the description leaves to it (PROCESSORS,
//! KERNEL_WORDS, the bias bytes stored).
//!
//! The checks, in order ([`check`]):
//!
//! 1. **reset**: CTRL reads idle and not done, NLAYERS 1, STREAM 0, LAYER 0, CYCLES 0,
//!    PROCESSORS and KERNEL_WORDS the engine's shape.
//! 2. **registers**: each `rw` register takes patterns, their complement, all ones, zero and
//!    every field's largest value, read back cut to its fields; CTRL is written with every
//!    bit but START (no run starts) and still reads idle; `ro` registers (CYCLES, LAYER,
//!    PROCESSORS, KERNEL_WORDS, every LAYER_CYCLES word) keep their value through a write of
//!    its complement; the unused words of the register region read 0 before and after a
//!    write.
//! 3. **regions read back while idle** (LAYER_REGS: every word of the 32 layers; SCHEDULE:
//!    words 0-2 of every entry; BIAS: the engine's bytes, bits 7:0): a pattern of its own
//!    in every word, then every word read back (no two words alias); then all ones and all
//!    zeros the same way.
//! 4. **rest**: NLAYERS and STREAM back to their reset values, read again.
//!
//! The data and kernel memories are checked by the front-door load and read-back of every
//! network (`cnn sim --front-door`, `CnnBench::verify_load`).

use crate::cnn_regs::{Access, EngineMap, Register};
use crate::regcheck::{
    on_backend, pattern, CheckError, CheckOptions, DesignCheck, Divergence, Report,
};
use edgelearn_hdl::cnn::{EngineShape, LAYER_WORDS, MAX_LAYERS};
use edgelearn_sim::dut::Dut;
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::rtl::cnn::CnnBench;
use edgelearn_verif::rtl::designs;

/// Schedule words of an entry that hold data (word 3 of the four addresses is unused).
const SCHEDULE_ENTRY_WORDS: u32 = 3;

/// The host port as the check sees it.
pub trait HostBus {
    /// Read the word at word address `addr`.
    fn read(&mut self, addr: u32) -> Result<u32, String>;
    /// Write `data` at word address `addr`.
    fn write(&mut self, addr: u32, data: u32) -> Result<(), String>;
}

impl HostBus for CnnBench {
    fn read(&mut self, addr: u32) -> Result<u32, String> {
        CnnBench::read(self, addr).map_err(|e| e.to_string())
    }

    fn write(&mut self, addr: u32, data: u32) -> Result<(), String> {
        CnnBench::write(self, addr, data).map_err(|e| e.to_string())
    }
}

/// A word the check reads back: its name, address and the bits it stores.
struct Word {
    name: String,
    addr: u32,
    mask: u32,
}

struct Checker<'b> {
    bus: &'b mut dyn HostBus,
    report: Report,
}

impl Checker<'_> {
    fn read(&mut self, addr: u32) -> Result<u32, CheckError> {
        self.report.accesses += 1;
        self.bus.read(addr).map_err(CheckError)
    }

    fn write(&mut self, addr: u32, data: u32) -> Result<(), CheckError> {
        self.report.accesses += 1;
        self.bus.write(addr, data).map_err(CheckError)
    }

    fn expect(
        &mut self,
        name: &str,
        addr: u32,
        check: String,
        want: u32,
    ) -> Result<(), CheckError> {
        let got = self.read(addr)?;
        if got != want {
            self.report.divergences.push(Divergence {
                register: name.to_string(),
                addr,
                check,
                expected: (None, want),
                got: (None, got),
            });
        }
        Ok(())
    }

    /// Write `data` to `w`, read it back cut to its bits.
    fn rw_step(&mut self, w: &Word, data: u32) -> Result<(), CheckError> {
        self.write(w.addr, data)?;
        let check = format!("after writing {data:#010x}");
        self.expect(&w.name, w.addr, check, data & w.mask)
    }

    /// Every word written with `value(word)`, then every word read back.
    fn sweep(
        &mut self,
        words: &[Word],
        what: &str,
        value: impl Fn(&Word) -> u32,
    ) -> Result<(), CheckError> {
        for w in words {
            self.write(w.addr, value(w))?;
        }
        for w in words {
            let check = format!(
                "after {what} in every word of its region ({:#010x} here)",
                value(w)
            );
            self.expect(&w.name, w.addr, check, value(w) & w.mask)?;
        }
        Ok(())
    }
}

/// The bits a register stores: its readable fields (the whole word without fields).
fn readable_mask(r: &Register) -> Result<u32, CheckError> {
    if r.fields.is_empty() {
        return Ok(u32::MAX);
    }
    let mut m = 0u32;
    for f in &r.fields {
        if f.access.unwrap_or(r.access) == Access::Wo {
            continue;
        }
        let (lsb, width) = f.range()?;
        m |= (((1u64 << width) - 1) << lsb) as u32;
    }
    Ok(m)
}

fn register<'m>(map: &'m EngineMap, name: &str) -> Result<&'m Register, CheckError> {
    map.registers
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| {
            CheckError(format!(
                "{}: no register {name}",
                crate::cnn_regs::DESCRIPTION
            ))
        })
}

/// The words of region `name` that hold data, each storing `mask`.
fn region_words(map: &EngineMap, name: &str, shape: &EngineShape) -> Result<Vec<Word>, CheckError> {
    let g = map.regions.iter().find(|g| g.name == name).ok_or_else(|| {
        CheckError(format!(
            "{}: no region {name}",
            crate::cnn_regs::DESCRIPTION
        ))
    })?;
    let (offsets, mask): (Vec<u32>, u32) = match name {
        "LAYER_REGS" => ((0..(MAX_LAYERS * LAYER_WORDS) as u32).collect(), u32::MAX),
        "SCHEDULE" => (
            (0..g.words)
                .filter(|w| w % 4 < SCHEDULE_ENTRY_WORDS)
                .collect(),
            u32::MAX,
        ),
        "BIAS" => ((0..shape.bias_bytes() as u32).collect(), 0xff),
        _ => {
            return Err(CheckError(format!(
                "region {name} is not read back by this check"
            )))
        }
    };
    if let Some(&last) = offsets.last() {
        if last >= g.words {
            return Err(CheckError(format!(
                "region {name}: word {last} lies outside its {} words",
                g.words
            )));
        }
    }
    Ok(offsets
        .into_iter()
        .map(|o| Word {
            name: match name {
                "LAYER_REGS" => {
                    let w = LAYER_WORDS as u32;
                    format!("LAYER_REGS layer {} word {}", o / w, o % w)
                }
                "SCHEDULE" => format!("SCHEDULE entry {} word {}", o / 4, o % 4),
                _ => format!("{name}[{o}]"),
            },
            addr: g.address + o,
            mask,
        })
        .collect())
}

/// Check the host port behind `bus` against `map` for an engine of `shape`, right after
/// reset. Every divergence is collected; an error means the check could not run.
pub fn check(
    map: &EngineMap,
    shape: &EngineShape,
    bus: &mut dyn HostBus,
) -> Result<Report, CheckError> {
    let mut c = Checker {
        bus,
        report: Report::default(),
    };
    // 1. Reset.
    let reset = [
        ("CTRL", 0),
        ("NLAYERS", 1),
        ("STREAM", 0),
        ("LAYER", 0),
        ("CYCLES", 0),
        ("PROCESSORS", shape.processors as u32),
        ("KERNEL_WORDS", shape.kernel_words as u32),
    ];
    for (name, v) in reset {
        let r = register(map, name)?;
        c.expect(name, r.address, "after reset".into(), v)?;
    }
    // 2. Registers.
    let mut used = Vec::new();
    for r in &map.registers {
        let mask = readable_mask(r)?;
        for i in 0..r.count {
            let w = Word {
                name: match r.count {
                    1 => r.name.clone(),
                    _ => format!("{}[{i}]", r.name),
                },
                addr: r.address + i,
                mask,
            };
            used.push(w.addr);
            let start = r
                .fields
                .iter()
                .any(|f| f.access.unwrap_or(r.access) == Access::Wo);
            match r.access {
                // CTRL: every bit but START; the engine stays idle.
                Access::Rw if start => {
                    let before = c.read(w.addr)?;
                    c.write(w.addr, !1)?;
                    let check = "after a write of 0xfffffffe (no start)".to_string();
                    c.expect(&w.name, w.addr, check, before)?;
                }
                Access::Rw => {
                    let p = pattern(w.addr, 1);
                    for data in [p, !p, u32::MAX, 0] {
                        c.rw_step(&w, data)?;
                    }
                    for f in &r.fields {
                        let (lsb, width) = f.range()?;
                        c.rw_step(&w, (((1u64 << width) - 1) << lsb) as u32)?;
                    }
                }
                Access::Ro | Access::Wo => {
                    let before = c.read(w.addr)?;
                    c.write(w.addr, !before)?;
                    let check = format!("after a write of {:#010x} (read-only)", !before);
                    c.expect(&w.name, w.addr, check, before)?;
                }
            }
            c.report.words += 1;
        }
    }
    // The unused words below the first region: read 0, before and after a write.
    let first_region = map.regions.iter().map(|g| g.address).min().unwrap_or(0);
    let last_used = used.iter().copied().max().unwrap_or(0);
    for a in (0..=last_used + 1).filter(|a| !used.contains(a) && *a < first_region) {
        c.expect("reserved", a, "read".into(), 0)?;
        c.write(a, pattern(a, 2))?;
        let check = format!("after a write of {:#010x}", pattern(a, 2));
        c.expect("reserved", a, check, 0)?;
        c.report.reserved += 1;
    }
    // 3. Regions.
    for name in ["LAYER_REGS", "SCHEDULE", "BIAS"] {
        let words = region_words(map, name, shape)?;
        c.report.words += words.len();
        c.sweep(&words, "a pattern of its own", |w| pattern(w.addr, 3))?;
        c.sweep(&words, "all ones", |_| u32::MAX)?;
        c.sweep(&words, "zero", |_| 0)?;
    }
    // 4. At rest.
    for (name, v) in [("NLAYERS", 1), ("STREAM", 0)] {
        let r = register(map, name)?;
        c.write(r.address, v)?;
        c.expect(name, r.address, "written back to its reset value".into(), v)?;
    }
    Ok(c.report)
}

/// Check the host port of the CNN engine of `shape` against `map` on `backend`: on
/// Verilator and rust-hdl's simulator by the bench, on Icarus and the Yosys netlist by
/// replaying Verilator's run and comparing every output on every cycle.
pub fn check_design(
    map: &EngineMap,
    sim: &Simulator,
    shape: &EngineShape,
    backend: Backend,
    opts: &CheckOptions,
) -> Result<DesignCheck, CheckError> {
    shape.check().map_err(CheckError)?;
    let err = |e: &dyn std::fmt::Display| CheckError(e.to_string());
    let run = |dut: Box<dyn Dut>| -> Result<(Report, u64), CheckError> {
        let mut b = CnnBench::new(dut, *shape).map_err(|e| err(&e))?;
        let r = check(map, shape, &mut b)?;
        let cycles = b.dut().cycle();
        b.dut().finish().map_err(|e| err(&e))?;
        Ok((r, cycles))
    };
    let first = designs::engine_design(shape);
    let build = || designs::engine_design(shape);
    let (report, cycles) = on_backend(sim, backend, first, build, opts, run)?;
    Ok(DesignCheck {
        backend,
        report,
        cycles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgelearn_hdl::cnn::engine::regs;
    use std::collections::BTreeMap;

    /// The host port as the description says, in memory: a bus that a check passes on,
    /// and that fails it when one word aliases another or a field keeps a bit too many.
    struct Model {
        words: BTreeMap<u32, u32>,
        shape: EngineShape,
        alias: Option<(u32, u32)>,
        stream_mask: u32,
    }

    impl Model {
        fn new(shape: EngineShape) -> Self {
            let mut words = BTreeMap::new();
            words.insert(regs::NLAYERS, 1);
            Model {
                words,
                shape,
                alias: None,
                stream_mask: 0x3_ffff,
            }
        }
    }

    impl HostBus for Model {
        fn read(&mut self, addr: u32) -> Result<u32, String> {
            let addr = match self.alias {
                Some((a, b)) if addr == a => b,
                _ => addr,
            };
            Ok(match addr {
                regs::PROCESSORS => self.shape.processors as u32,
                regs::KERNEL_WORDS => self.shape.kernel_words as u32,
                a => self.words.get(&a).copied().unwrap_or(0),
            })
        }

        fn write(&mut self, addr: u32, data: u32) -> Result<(), String> {
            let addr = match self.alias {
                Some((a, b)) if addr == a => b,
                _ => addr,
            };
            let v = match addr {
                regs::NLAYERS => data & 0x3f,
                regs::STREAM => data & self.stream_mask,
                a if a >> 20 == regs::LAYER_REGS >> 20 || a >> 20 == regs::SCHEDULE >> 20 => data,
                a if a >> 20 == regs::BIAS >> 20 => data & 0xff,
                _ => return Ok(()),
            };
            self.words.insert(addr, v);
            Ok(())
        }
    }

    fn map() -> EngineMap {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        crate::cnn_regs::load(&root).unwrap()
    }

    #[test]
    fn a_port_as_described_passes_and_each_seeded_fault_is_named() {
        let shape = EngineShape::with_processors(4);
        let mut good = Model::new(shape);
        let r = check(&map(), &shape, &mut good).unwrap();
        assert!(r.divergences.is_empty(), "{:?}", r.divergences.first());
        // 32 layers x 16 words, 2048 entries x 3 words, 128 bias bytes, the registers.
        assert!(r.words > 512 + 6144 + 128);
        // STREAM keeping a bit above WIDTH.
        let mut wide = Model::new(shape);
        wide.stream_mask = 0x7_ffff;
        let r = check(&map(), &shape, &mut wide).unwrap();
        assert_eq!(r.failing(), ["STREAM"]);
        // Layer 3's word 2 decoded onto layer 1's.
        let mut aliased = Model::new(shape);
        aliased.alias = Some((regs::LAYER_REGS + 3 * 16 + 2, regs::LAYER_REGS + 16 + 2));
        let r = check(&map(), &shape, &mut aliased).unwrap();
        let d = &r.divergences[0];
        assert_eq!(d.register, "LAYER_REGS layer 1 word 2", "{d}");
        assert!(d.check.contains("a pattern of its own"), "{d}");
    }
}

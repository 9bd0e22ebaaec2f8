//! The register map checked against the RTL with nothing but its description
//! ([`RegMap`], `hdl/regs/lel_platform.toml`): what a host programmer expects from
//! docs/registers.md, asked of the hardware through its register bus. No generated file and
//! no knowledge of the design beyond the description and the values of its parameters (the
//! numbers its configuration fixes, [`RegMap::parameters`]) is used, so a register that
//! behaves otherwise than its description says (LR_LEN storing 17 where the map says it
//! stores at most 16) fails here whichever side is wrong.
//!
//! The checks, in order ([`check`]):
//!
//! 1. **reset**: every word of every register reads its reset value (OKAY); every reserved
//!    word of the address space reads 0 with SLVERR.
//! 2. **aliasing**: a different pattern written to every `rw` word, then each read back: it
//!    holds its own (its writable bits, fields cut to their `max`), not another's.
//! 3. **per register**: `rw` words take patterns, all ones, zero, every field's `max + 1`,
//!    byte strobes 0101 and no strobe, each read back as the description says; `ro` words
//!    answer a write SLVERR and keep their value; `wo` words take their reset value (a write
//!    acts: CTRL's 0 is no instruction) and read 0; reserved words answer a write SLVERR and
//!    still read 0.
//! 4. **rest**: every `rw` word written back to its reset value, then every register reads
//!    its reset value again (nothing written left a trace elsewhere).
//!
//! On the platform's own register port (word addresses, no responses, no strobes) the same
//! checks run without the responses and strobes.

use crate::regmap::{Access, RegMap, Register};
use crate::regs_files::MapError;
use edgelearn_sim::axi::AxiOp;
use edgelearn_sim::dut::record::replay;
use edgelearn_sim::dut::{Dut, DutOptions};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::{Backend, Simulator};
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::network::LelNetwork;
use edgelearn_verif::rtl::designs::{self, Kind};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::PlatformBench;
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// AXI4-Lite OKAY.
pub const OKAY: u8 = 0;
/// AXI4-Lite SLVERR.
pub const SLVERR: u8 = 2;

/// The bus the registers are reached through.
pub trait RegBus {
    /// AXI4-Lite (responses and byte strobes); `false`: a word port without either.
    fn is_axi(&self) -> bool;
    /// Byte-address bits the bus reaches.
    fn address_bits(&self) -> u32;
    /// Read the word at byte address `addr`: the response (`None` without responses) and
    /// the data.
    fn read(&mut self, addr: u32) -> Result<(Option<u8>, u32), String>;
    /// Write `data` at byte address `addr` with byte strobes `strb`; the response.
    fn write(&mut self, addr: u32, data: u32, strb: u8) -> Result<Option<u8>, String>;
}

/// Which reserved words a check reads and writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Reserved {
    /// Every one in the address space.
    #[default]
    All,
    /// Where a decode goes wrong: the first and last word of every gap between registers,
    /// and every reserved word that differs from the first or last register word in one
    /// address bit (an address bit the decode ignores aliases there).
    Sample,
}

/// The reserved words of `space` bytes that `which` selects, given the register words.
fn reserved_words(words: &[u32], space: u64, which: Reserved) -> Vec<u32> {
    let is_reserved = |a: u32| (a as u64) < space && words.binary_search(&a).is_err();
    let all: Vec<u32> = (0..space as u32)
        .step_by(4)
        .filter(|&a| is_reserved(a))
        .collect();
    if which == Reserved::All {
        return all;
    }
    let mut pick = std::collections::BTreeSet::new();
    for (k, &a) in all.iter().enumerate() {
        let gap_start = k == 0 || all[k - 1] + 4 != a;
        let gap_end = k + 1 == all.len() || all[k + 1] != a + 4;
        if gap_start || gap_end {
            pick.insert(a);
        }
    }
    let bits = 64 - (space.max(4) - 1).leading_zeros();
    for &w in [words.first(), words.last()].iter().flatten() {
        for b in 2..bits {
            let a = w ^ (1 << b);
            if is_reserved(a) {
                pick.insert(a);
            }
        }
    }
    pick.into_iter().collect()
}

/// An answer that is not what the description says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The register (`LR_TABLE[3]`) or `reserved`.
    pub register: String,
    /// Its address on the bus: a byte address on the platform's, a word address on the
    /// CNN engine's host port.
    pub addr: u32,
    /// The check and what was done (`after writing 0xffffffff, strobes 1111`).
    pub check: String,
    /// `(response, data)` the description says (`None`: either).
    pub expected: (Option<u8>, u32),
    /// `(response, data)` the bus gave.
    pub got: (Option<u8>, u32),
}

fn resp_name(r: Option<u8>) -> &'static str {
    match r {
        Some(OKAY) => "OKAY",
        Some(SLVERR) => "SLVERR",
        Some(_) => "DECERR/EXOKAY",
        None => "-",
    }
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({:#05x}) {}: the description says {} {:#010x}, the RTL answered {} {:#010x}",
            self.register,
            self.addr,
            self.check,
            resp_name(self.expected.0),
            self.expected.1,
            resp_name(self.got.0),
            self.got.1
        )
    }
}

/// What a check did and found.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Bus accesses made.
    pub accesses: usize,
    /// Register words checked (array entries each).
    pub words: usize,
    /// Reserved words checked.
    pub reserved: usize,
    /// Every divergence, in the order found.
    pub divergences: Vec<Divergence>,
}

impl Report {
    /// Registers (by name) with at least one divergence.
    pub fn failing(&self) -> Vec<&str> {
        let mut v: Vec<&str> = Vec::new();
        for d in &self.divergences {
            let name = d.register.split('[').next().unwrap_or(&d.register);
            if !v.contains(&name) {
                v.push(name);
            }
        }
        v
    }
}

/// The check failed to run (the bus broke down, or the parameters do not fit the map).
#[derive(Debug)]
pub struct CheckError(pub String);

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

impl From<MapError> for CheckError {
    fn from(e: MapError) -> Self {
        CheckError(format!("{e:#}"))
    }
}

/// One register word of the map.
struct Word<'a> {
    reg: &'a Register,
    name: String,
    addr: u32,
    reset: u32,
}

/// Every register word with its reset value for a design whose parameters are `params`.
fn words<'a>(map: &'a RegMap, params: &BTreeMap<String, u32>) -> Result<Vec<Word<'a>>, CheckError> {
    map.check_parameters(params)?;
    let mut v = Vec::new();
    for r in &map.registers {
        let reset = r.reset_value(params)?;
        for i in 0..r.count {
            v.push(Word {
                reg: r,
                name: if r.count > 1 {
                    format!("{}[{i}]", r.name)
                } else {
                    r.name.clone()
                },
                addr: r.offset + 4 * i,
                reset,
            });
        }
    }
    v.sort_by_key(|w| w.addr);
    Ok(v)
}

/// The bytes of `new` strobed by `strb` over `old`.
fn merge(old: u32, new: u32, strb: u8) -> u32 {
    (0..4).fold(old, |w, b| {
        if strb >> b & 1 == 1 {
            let m = 0xffu32 << (8 * b);
            (w & !m) | (new & m)
        } else {
            w
        }
    })
}

/// A pattern for word `addr`, round `k`: distinct across words and rounds.
pub(crate) fn pattern(addr: u32, k: u32) -> u32 {
    let x = (addr.wrapping_mul(0x9e37_79b1) ^ k.wrapping_mul(0x85eb_ca6b)).rotate_left(13);
    x ^ (x >> 16) ^ 0xa5c3_5a3c
}

struct Checker<'b> {
    bus: &'b mut dyn RegBus,
    axi: bool,
    report: Report,
}

impl Checker<'_> {
    fn read(&mut self, addr: u32) -> Result<(Option<u8>, u32), CheckError> {
        self.report.accesses += 1;
        let (r, d) = self.bus.read(addr).map_err(CheckError)?;
        Ok((if self.axi { r } else { None }, d))
    }

    fn write(&mut self, addr: u32, data: u32, strb: u8) -> Result<Option<u8>, CheckError> {
        self.report.accesses += 1;
        let r = self.bus.write(addr, data, strb).map_err(CheckError)?;
        Ok(if self.axi { r } else { None })
    }

    /// Compare an answer; `want.0` is ignored without responses.
    fn expect(
        &mut self,
        name: &str,
        addr: u32,
        check: String,
        want: (Option<u8>, u32),
        got: (Option<u8>, u32),
    ) {
        let want = (if self.axi { want.0 } else { None }, want.1);
        if want != got {
            self.report.divergences.push(Divergence {
                register: name.to_string(),
                addr,
                check,
                expected: want,
                got,
            });
        }
    }

    fn expect_read(
        &mut self,
        name: &str,
        addr: u32,
        check: String,
        want: (u8, u32),
    ) -> Result<(), CheckError> {
        let got = self.read(addr)?;
        self.expect(name, addr, check, (Some(want.0), want.1), got);
        Ok(())
    }

    fn expect_write(
        &mut self,
        name: &str,
        addr: u32,
        data: u32,
        strb: u8,
        want: u8,
    ) -> Result<(), CheckError> {
        let got = self.write(addr, data, strb)?;
        if self.axi && got != Some(want) {
            self.report.divergences.push(Divergence {
                register: name.to_string(),
                addr,
                check: format!("write of {data:#010x}, strobes {strb:04b}: the response"),
                expected: (Some(want), 0),
                got: (got, 0),
            });
        }
        Ok(())
    }

    /// Write `data` with `strb` to a `rw` word holding `held`; check OKAY and the read-back.
    /// Returns what it holds now (by the description).
    fn rw_step(&mut self, w: &Word, held: u32, data: u32, strb: u8) -> Result<u32, CheckError> {
        let strb = if self.axi { strb } else { 0xf };
        let want = w.reg.stored(merge(held, data, strb))?;
        self.expect_write(&w.name, w.addr, data, strb, OKAY)?;
        self.expect_read(
            &w.name,
            w.addr,
            format!("after writing {data:#010x} (strobes {strb:04b}) over {held:#010x}"),
            (OKAY, want),
        )?;
        Ok(want)
    }
}

/// Check the registers behind `bus` against `map` for a design whose parameters are
/// `params`, starting right after reset. Every divergence is collected; an error means the
/// check could not run.
pub fn check(
    map: &RegMap,
    params: &BTreeMap<String, u32>,
    bus: &mut dyn RegBus,
    which: Reserved,
) -> Result<Report, CheckError> {
    let words = words(map, params)?;
    let axi = bus.is_axi();
    let space = 1u64 << map.address_bits.min(bus.address_bits());
    let mut c = Checker {
        bus,
        axi,
        report: Report::default(),
    };
    let addrs: Vec<u32> = words.iter().map(|w| w.addr).collect();
    let reserved = reserved_words(&addrs, space, which);
    c.report.words = words.len();
    c.report.reserved = reserved.len();
    // 1. Reset values; reserved words.
    for w in &words {
        let what = match w.reg.access {
            Access::Wo => "after reset (write-only: reads 0)".to_string(),
            _ => "after reset".to_string(),
        };
        c.expect_read(&w.name, w.addr, what, (OKAY, w.reset))?;
    }
    if axi {
        for &a in &reserved {
            c.expect_read("reserved", a, "read".into(), (SLVERR, 0))?;
        }
    }
    // 2. Aliasing: a pattern of its own in every rw word, then all read back.
    let rw: Vec<&Word> = words
        .iter()
        .filter(|w| w.reg.access == Access::Rw)
        .collect();
    let mut held = BTreeMap::new();
    for w in &rw {
        let p = pattern(w.addr, 0);
        c.expect_write(&w.name, w.addr, p, 0xf, OKAY)?;
        held.insert(w.addr, w.reg.stored(p)?);
    }
    for w in &rw {
        let want = held[&w.addr];
        let check = format!(
            "after a pattern in every rw word ({:#010x} here)",
            pattern(w.addr, 0)
        );
        c.expect_read(&w.name, w.addr, check, (OKAY, want))?;
    }
    // 3. Register by register.
    for w in &words {
        match w.reg.access {
            Access::Rw => {
                let mut h = held[&w.addr];
                for data in [pattern(w.addr, 1), !pattern(w.addr, 1), u32::MAX, 0] {
                    h = c.rw_step(w, h, data, 0xf)?;
                }
                for (lsb, width, max) in w.reg.maxima()? {
                    if width < 32 && (max + 1) >> width == 0 {
                        h = c.rw_step(w, h, (max + 1) << lsb, 0xf)?;
                    }
                    h = c.rw_step(w, h, max << lsb, 0xf)?;
                }
                if axi {
                    h = c.rw_step(w, h, 0x1122_3344, 0xf)?;
                    h = c.rw_step(w, h, 0xaabb_ccdd, 0b0101)?;
                    c.rw_step(w, h, 0xffff_ffff, 0)?;
                }
            }
            Access::Ro => {
                let before = c.read(w.addr)?;
                let data = !before.1;
                c.expect_write(&w.name, w.addr, data, 0xf, SLVERR)?;
                let check = format!("after a refused write of {data:#010x}");
                c.expect_read(&w.name, w.addr, check, (OKAY, before.1))?;
            }
            Access::Wo => {
                c.expect_write(&w.name, w.addr, w.reset, 0xf, OKAY)?;
                let check = format!("after writing {:#010x} (write-only: reads 0)", w.reset);
                c.expect_read(&w.name, w.addr, check, (OKAY, 0))?;
            }
        }
    }
    if axi {
        for &a in &reserved {
            let p = pattern(a, 2);
            c.expect_write("reserved", a, p, 0xf, SLVERR)?;
            c.expect_read(
                "reserved",
                a,
                format!("after a write of {p:#010x}"),
                (SLVERR, 0),
            )?;
        }
    }
    // 4. At rest again: rw words back to their reset values, every word reads it.
    for w in &rw {
        c.expect_write(&w.name, w.addr, w.reset, 0xf, OKAY)?;
    }
    for w in &words {
        c.expect_read(
            &w.name,
            w.addr,
            "after every rw word is written back to its reset value".into(),
            (OKAY, w.reset),
        )?;
    }
    Ok(c.report)
}

/// The LEL platform bench as a register bus: AXI4-Lite on the `lel_platform_axi*` tops,
/// the word register port (no responses, no strobes) on the bare `lel_platform*`.
impl RegBus for PlatformBench {
    fn is_axi(&self) -> bool {
        PlatformBench::is_axi(self)
    }

    fn address_bits(&self) -> u32 {
        if PlatformBench::is_axi(self) {
            32
        } else {
            10
        }
    }

    fn read(&mut self, addr: u32) -> Result<(Option<u8>, u32), String> {
        if PlatformBench::is_axi(self) {
            let d = self
                .axi(AxiOp::Read { addr: addr as u64 })
                .map_err(|e| e.to_string())?;
            Ok((Some(d.resp as u8), d.data as u32))
        } else {
            let v = self.read_reg((addr / 4) as u8).map_err(|e| e.to_string())?;
            Ok((None, v))
        }
    }

    fn write(&mut self, addr: u32, data: u32, strb: u8) -> Result<Option<u8>, String> {
        if PlatformBench::is_axi(self) {
            let op = AxiOp::Write {
                addr: addr as u64,
                data: data as u64,
                strb: strb as u64,
            };
            let d = self.axi(op).map_err(|e| e.to_string())?;
            Ok(Some(d.resp as u8))
        } else {
            self.write_reg((addr / 4) as u8, data)
                .map_err(|e| e.to_string())?;
            Ok(None)
        }
    }
}

/// A platform design's register-map parameters, from its configuration's shapes.
pub fn design_parameters(cfg: &PlatformConfig) -> Result<BTreeMap<String, u32>, CheckError> {
    let shape = designs::platform_shape(cfg).map_err(|e| CheckError(e.to_string()))?;
    Ok(shape
        .register_parameters()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect())
}

/// What [`check_design`] did on one backend.
#[derive(Clone, Debug)]
pub struct DesignCheck {
    /// The backend.
    pub backend: Backend,
    /// The check's report (on Icarus and the netlist: Verilator's, replayed output by output).
    pub report: Report,
    /// Cycles simulated.
    pub cycles: u64,
}

/// How [`check_design`] runs.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Seed of the AXI4-Lite master's random pauses.
    pub seed: u64,
    /// The reserved words tried.
    pub reserved: Reserved,
    /// Write a VCD of the run here (Verilator and rust-hdl's simulator).
    pub vcd: Option<PathBuf>,
}

/// Check the registers of platform design `name` of `kind` (the AXI top or the bare
/// platform), built from `cfg`, against `map` on `backend`: on Verilator
/// and rust-hdl's simulator by the reactive bench, on Icarus and the Yosys netlist by
/// replaying Verilator's run and comparing every output on every cycle. The AXI4-Lite
/// master pauses at random.
pub fn check_design(
    map: &RegMap,
    sim: &Simulator,
    (name, kind): (&str, Kind),
    cfg: &PlatformConfig,
    backend: Backend,
    opts: &CheckOptions,
) -> Result<DesignCheck, CheckError> {
    let (seed, which) = (opts.seed, opts.reserved);
    let params = design_parameters(cfg)?;
    let try_build = || match kind {
        Kind::PlatformAxi => designs::platform_axi_design(name, cfg),
        Kind::Platform => designs::platform_design(name, cfg),
        _ => Err(edgelearn_verif::rtl::RtlError::Other(format!(
            "{name} is not an LEL platform: it has no register map of this description"
        ))),
    };
    // The first build reports its errors; a replay builds again (it cannot fail then).
    let first = try_build().map_err(|e| CheckError(e.to_string()))?;
    let build = || try_build().expect("the design was built once already");
    let net = LelNetwork::new(cfg).map_err(|e| CheckError(e.to_string()))?;
    let shape = designs::platform_shape(cfg).map_err(|e| CheckError(e.to_string()))?;
    // Back-pressure on the (idle) output stream makes the AXI4-Lite master pause at random.
    let traffic = Traffic {
        gaps: Gaps::None,
        backpressure: Backpressure::Random(0.4),
        seed,
    };
    let run = |dut: Box<dyn Dut>| -> Result<(Report, u64), CheckError> {
        let fc = [net.cores[0].p.clone(), net.cores[1].p.clone()];
        let mut b = PlatformBench::new(dut, shape.clone(), fc, &traffic)
            .map_err(|e| CheckError(e.to_string()))?;
        b.reset().map_err(|e| CheckError(e.to_string()))?;
        let r = check(map, &params, &mut b, which)?;
        let cycles = b.dut().cycle();
        b.dut().finish().map_err(|e| CheckError(e.to_string()))?;
        Ok((r, cycles))
    };
    let (report, cycles) = on_backend(sim, backend, first, build, opts, run)?;
    Ok(DesignCheck {
        backend,
        report,
        cycles,
    })
}

/// Run a register check, `run`, on `backend`: on Verilator and rust-hdl's simulator
/// directly on `first` (with the VCD of `opts`), on Icarus and the Yosys netlist by
/// replaying Verilator's run of `build()` and comparing every output on every cycle.
pub(crate) fn on_backend(
    sim: &Simulator,
    backend: Backend,
    first: Box<dyn edgelearn_hdl::design::Design>,
    build: impl Fn() -> Box<dyn edgelearn_hdl::design::Design>,
    opts: &CheckOptions,
    run: impl FnOnce(Box<dyn Dut>) -> Result<(Report, u64), CheckError>,
) -> Result<(Report, u64), CheckError> {
    match backend {
        Backend::Verilator | Backend::Native => {
            let dut_opts = DutOptions {
                vcd: opts.vcd.clone(),
                ..Default::default()
            };
            let dut = sim
                .dut(backend, first, &dut_opts)
                .map_err(|e| CheckError(e.to_string()))?;
            run(dut)
        }
        Backend::Icarus | Backend::Netlist if opts.vcd.is_some() => Err(CheckError(format!(
            "a VCD of the register check is written on verilator or native, not {backend}"
        ))),
        Backend::Icarus | Backend::Netlist => {
            replay(sim, build, backend, run)
                .map_err(|e| CheckError(format!("{backend} replay of the register check: {e}")))?
                .value
        }
        Backend::VerilatorBench => Err(CheckError(
            "verilator-bench runs stimulus files only; check on verilator".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = r#"
name = "blk"
title = "Block"
description = "A block."
address_bits = 6
[[parameter]]
name = "DEPTH"
description = "a depth"
[[register]]
name = "GO"
offset = 0
access = "wo"
reset = 0
description = "Go."
[[register]]
name = "LEN"
offset = 4
access = "rw"
reset = 0
description = "Length."
fields = [{ name = "N", bits = "4:0", max = 16, description = "n" }]
[[register]]
name = "LEVEL"
offset = 8
access = "ro"
description = "Level."
fields = [{ name = "HELD", bits = "7:0", description = "h" }, { name = "D", bits = "15:8", reset = "DEPTH", description = "d" }]
[[register]]
name = "TAB"
offset = 16
count = 2
access = "rw"
reset = 0
description = "Table."
"#;

    /// A register file that behaves as `MAP` says, with `bug` to break it.
    struct Model {
        axi: bool,
        mem: [u32; 16],
        bug: Option<&'static str>,
    }

    impl Model {
        fn new(axi: bool, bug: Option<&'static str>) -> Self {
            let mut mem = [0; 16];
            mem[2] = 12 << 8;
            Self { axi, mem, bug }
        }
    }

    impl RegBus for Model {
        fn is_axi(&self) -> bool {
            self.axi
        }
        fn address_bits(&self) -> u32 {
            6
        }
        fn read(&mut self, addr: u32) -> Result<(Option<u8>, u32), String> {
            let w = (addr / 4) as usize;
            Ok(match w {
                0 => (Some(OKAY), 0),
                1 | 2 | 4 | 5 => (Some(OKAY), self.mem[w]),
                _ => (Some(SLVERR), 0),
            })
        }
        fn write(&mut self, addr: u32, data: u32, strb: u8) -> Result<Option<u8>, String> {
            let w = (addr / 4) as usize;
            let m = merge(self.mem[w], data, strb);
            Ok(match w {
                0 => Some(OKAY),
                1 => {
                    let n = m & 31;
                    self.mem[1] = if self.bug == Some("no max") {
                        n
                    } else {
                        n.min(16)
                    };
                    Some(OKAY)
                }
                4 | 5 => {
                    self.mem[w] = m;
                    if self.bug == Some("alias") && w == 5 {
                        self.mem[4] = m;
                    }
                    Some(OKAY)
                }
                2 if self.bug == Some("ro writable") => {
                    self.mem[2] = m;
                    Some(OKAY)
                }
                _ => Some(SLVERR),
            })
        }
    }

    fn run(axi: bool, bug: Option<&'static str>, depth: u32) -> Report {
        let map = RegMap::parse(MAP, "test").unwrap();
        let params = BTreeMap::from([("DEPTH".to_string(), depth)]);
        check(&map, &params, &mut Model::new(axi, bug), Reserved::All).unwrap()
    }

    #[test]
    fn a_faithful_register_file_passes() {
        for axi in [true, false] {
            let r = run(axi, None, 12);
            assert!(r.divergences.is_empty(), "{:?}", r.divergences);
            assert_eq!((r.words, r.reserved), (5, 11));
        }
    }

    #[test]
    fn each_seeded_bug_is_named() {
        let r = run(true, Some("no max"), 12);
        assert_eq!(r.failing(), ["LEN"]);
        let d = r
            .divergences
            .iter()
            .find(|d| {
                d.check
                    .starts_with("after writing 0xffffffff (strobes 1111)")
            })
            .unwrap();
        assert_eq!((d.expected.1, d.got.1), (16, 0x1f), "{d}");
        assert!(
            d.to_string().starts_with("LEN (0x004) after writing"),
            "{d}"
        );
        assert_eq!(run(true, Some("alias"), 12).failing()[0], "TAB");
        let r = run(true, Some("ro writable"), 12);
        assert_eq!(r.failing(), ["LEVEL"]);
        assert!(r.divergences[0].check.contains("the response"));
        // A wrong parameter shows as LEVEL's reset value.
        let r = run(true, None, 13);
        assert_eq!(r.failing(), ["LEVEL"]);
        assert_eq!(r.divergences[0].expected.1, 13 << 8);
    }

    #[test]
    fn sampled_reserved_words_are_gap_edges_and_one_bit_aliases() {
        // Registers at 0x000..0x00c and 0x020; a 256-byte space.
        let regs = [0x000, 0x004, 0x008, 0x00c, 0x020];
        let s = reserved_words(&regs, 256, Reserved::Sample);
        assert_eq!(
            s,
            [0x010, 0x01c, 0x024, 0x028, 0x030, 0x040, 0x060, 0x080, 0x0a0, 0x0fc]
        );
        assert_eq!(reserved_words(&regs, 256, Reserved::All).len(), 64 - 5);
    }

    #[test]
    fn parameters_must_match_the_description() {
        let map = RegMap::parse(MAP, "test").unwrap();
        let e = check(
            &map,
            &BTreeMap::new(),
            &mut Model::new(true, None),
            Reserved::All,
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("parameter DEPTH is not given"),
            "{e}"
        );
        let p = BTreeMap::from([("DEPTH".into(), 1), ("X".into(), 2)]);
        let e = check(&map, &p, &mut Model::new(true, None), Reserved::All).unwrap_err();
        assert!(e.to_string().contains("X is not in the description"), "{e}");
    }
}

//! The LEL platform behind AXI (`lel_platform_axi*`): the AXI4-Lite slave alone against a
//! register file (every word of the window, strobes, OKAY / SLVERR) on rust-hdl, Verilator,
//! Icarus and the Yosys netlist; every register of the platform as hdl/regs/lel_platform.toml
//! alone says (`edgelearn_fpga::regcheck`: reset values, access, writable bits, LR_LEN's
//! maximum, byte strobes, aliasing, reserved addresses, OKAY / SLVERR), under a master with
//! random pauses, on the tiny tops at 4 and 8 lanes and the shipped tops, on Verilator,
//! rust-hdl's simulator and Icarus, and through the bare platforms' register port; and the
//! host's sequence (the thesis's PS program, §4.4; fpga/host/lel_host.c in C) training a few
//! images bit-exactly, driven only through AXI4-Lite and AXI4-Stream.

use crate::common;

use common::{replay_equal, simulator};
use edgelearn_fpga::regcheck;
use edgelearn_fpga::regmap::{self, RegMap};
use edgelearn_hdl::design::Design;
use edgelearn_hdl::design::Instance;
use edgelearn_hdl::lel::platform_axi::AxiLiteRegs;
use edgelearn_hdl::lel::platform_regs as regs;
use edgelearn_sim::axi::{AxiLiteMaster, AxiLitePorts, AxiOp, AxiTiming};
use edgelearn_sim::dut::{Dut, DutOptions, PortId};
use edgelearn_sim::tb::{self, Agent};
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::fc_core::FcParams;
use edgelearn_verif::lel::network::{lfsr_seeds, LelNetwork};
use edgelearn_verif::rtl::designs::{configured_name, platform_axi_design, platform_shape, Kind};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::{
    check_weights, configure, test_run, train_epoch, PlatformBench, PlatformCheck,
};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn tiny() -> PlatformConfig {
    common::tiny_platform()
}

fn design_of(cfg: &PlatformConfig) -> Box<dyn Design> {
    platform_axi_design("lel_platform_axi_tiny", cfg).unwrap()
}

/// The tiny platform with FC cores of 8 lanes (FC core 0 of 32 outputs in 2 pieces).
fn tiny_l8() -> PlatformConfig {
    let mut cfg = tiny();
    cfg.fc[0].outputs = 32;
    cfg.fc[0].pieces = 2;
    cfg.with_lanes(8).unwrap()
}

/// Random gaps on the image stream, back-pressure on the read-back stream and (through
/// the bench) random AXI4-Lite delays and back-pressure.
fn rough() -> Traffic {
    Traffic {
        gaps: Gaps::Anywhere(0.3),
        backpressure: Backpressure::Random(0.4),
        seed: 11,
    }
}

fn bench_of(
    dut: Box<dyn Dut>,
    traffic: &Traffic,
    cfg: &PlatformConfig,
) -> (PlatformBench, LelNetwork) {
    let cfg = cfg.clone();
    let net = LelNetwork::new(&cfg).unwrap();
    let fc: [FcParams; 2] = [net.cores[0].p.clone(), net.cores[1].p.clone()];
    let mut b = PlatformBench::new(dut, platform_shape(&cfg).unwrap(), fc, traffic).unwrap();
    assert!(b.is_axi());
    b.reset().unwrap();
    (b, net)
}

const OKAY: u64 = 0;
const SLVERR: u64 = 2;

/// The register map's description, as a host programmer reads it.
fn description() -> RegMap {
    RegMap::load(&common::cli::root().join(regmap::DESCRIPTION)).unwrap()
}

/// Check platform `name` (from `cfg`: the AXI top, or the bare platform's register port)
/// against the description alone on `backends`, each with the reserved words it tries;
/// every divergence fails, named.
fn registers_as_described(
    (name, kind): (&str, Kind),
    cfg: &PlatformConfig,
    backends: &[(Backend, regcheck::Reserved)],
) {
    let map = description();
    let axi = kind == Kind::PlatformAxi;
    for &(backend, which) in backends {
        let t = std::time::Instant::now();
        let opts = regcheck::CheckOptions {
            seed: 5,
            reserved: which,
            vcd: None,
        };
        let c = regcheck::check_design(&map, &simulator(), (name, kind), cfg, backend, &opts)
            .unwrap_or_else(|e| panic!("{name} on {backend}: {e}"));
        let r = &c.report;
        let said: Vec<String> = r.divergences.iter().map(|d| d.to_string()).collect();
        assert!(said.is_empty(), "{name} on {backend}:\n{}", said.join("\n"));
        // Every register word, and on AXI4-Lite every reserved word of the 4 KB window
        // (on the register port they are not accessed: it has no responses).
        assert_eq!(r.words, 68, "{name}");
        let all = if axi { 1024 - 68 } else { 256 - 68 };
        match which {
            regcheck::Reserved::All => assert_eq!(r.reserved, all, "{name}"),
            regcheck::Reserved::Sample => assert!((3..40).contains(&r.reserved), "{name}"),
        }
        eprintln!(
            "{name} on {backend}: {} accesses, {} cycles, {:.1} s",
            r.accesses,
            c.cycles,
            t.elapsed().as_secs_f64()
        );
    }
}

/// Every register through AXI4-Lite as hdl/regs/lel_platform.toml alone says
/// (`edgelearn_fpga::regcheck`): reset values (the FIFO depths, IMAGE_BEATS and the weight
/// words resolved from the shapes), access, writable bits, LR_LEN's maximum, byte strobes,
/// no aliasing, every reserved word; with random AXI4-Lite pauses, on Verilator, and on
/// rust-hdl's simulator with the reserved words where a decode goes wrong (the whole window
/// is 20,000 cycles, 20 s there).
#[test]
fn every_register_answers_as_the_description_says() {
    let cfg = tiny();
    registers_as_described(
        (&configured_name(Kind::PlatformAxi, &cfg), Kind::PlatformAxi),
        &cfg,
        &[(Backend::Verilator, ALL), (Backend::Native, SAMPLE)],
    );
}

/// The same at 8 lanes (other parameters; Icarus, four-state, replaying Verilator's run
/// output by output), and on the bare platform's register port.
#[test]
fn every_register_answers_as_described_at_8_lanes_and_on_the_register_port() {
    let cfg = tiny_l8();
    let both = [(Backend::Verilator, ALL), (Backend::Icarus, SAMPLE)];
    let name = configured_name(Kind::PlatformAxi, &cfg);
    registers_as_described((&name, Kind::PlatformAxi), &cfg, &both);
    let cfg = tiny();
    let name = configured_name(Kind::Platform, &cfg);
    registers_as_described((&name, Kind::Platform), &cfg, &[(Backend::Verilator, ALL)]);
}

/// Both shipped AXI tops, the thesis's (`lel_platform_axi`) and MNIST's
/// (`lel_platform_axi_mnist`), as an FPGA user gets them: every reserved word on Verilator;
/// on Icarus a replay with the reserved words where a decode goes wrong (gap edges and
/// one-bit aliases; the whole window takes Icarus half a minute a top). And the bare
/// platforms (`lel_platform`, `lel_platform_mnist`) through their register port.
#[test]
fn the_shipped_platforms_answer_as_the_description_says() {
    let entries = edgelearn_verif::rtl::designs::entries();
    let platforms: Vec<_> = entries
        .iter()
        .filter(|e| matches!(e.kind, Kind::Platform | Kind::PlatformAxi))
        .collect();
    let names: Vec<&str> = platforms.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), 4, "the shipped platforms: {names:?}");
    for e in platforms {
        let cfg = e.platform_config().unwrap();
        let backends: &[_] = if e.kind == Kind::PlatformAxi {
            &[(Backend::Verilator, ALL), (Backend::Icarus, SAMPLE)]
        } else {
            &[(Backend::Verilator, ALL)]
        };
        registers_as_described((&e.name, e.kind), &cfg, backends);
    }
}

const ALL: regcheck::Reserved = regcheck::Reserved::All;
const SAMPLE: regcheck::Reserved = regcheck::Reserved::Sample;

/// The register file behind `AxiLiteRegs`'s register port: `reg_rdata` is the word at
/// `reg_addr` (a flip-flop of the slave, so it is known before the edge), and a `reg_we`
/// seen before an edge writes `reg_wdata` at it.
struct RegFile {
    addr: PortId,
    rdata: PortId,
    wdata: PortId,
    we: PortId,
    mem: Vec<u32>,
    write: Option<(usize, u32)>,
}

impl Agent for RegFile {
    fn drive(&mut self, dut: &mut dyn Dut) -> edgelearn_sim::Result<()> {
        let a = dut.peek(self.addr)? as usize;
        dut.poke(self.rdata, self.mem[a] as u64)
    }
    fn sample(&mut self, dut: &mut dyn Dut) -> edgelearn_sim::Result<()> {
        self.write = (dut.peek(self.we)? != 0)
            .then(|| {
                Ok::<_, edgelearn_sim::Error>((
                    dut.peek(self.addr)? as usize,
                    dut.peek(self.wdata)? as u32,
                ))
            })
            .transpose()?;
        Ok(())
    }
    fn commit(&mut self, _cycle: u64) -> edgelearn_sim::Result<()> {
        if let Some((a, v)) = self.write.take() {
            self.mem[a] = v;
        }
        Ok(())
    }
}

fn slave_design() -> Box<dyn Design> {
    Box::new(Instance::new("axi_lite_regs", AxiLiteRegs::default()))
}

/// The slave alone against a register file: every word of the window read, written with all
/// strobes and with strobes 0101, and read again; each answer and the register file compared
/// with what the map says. Returns the accesses made.
fn drive_axi_slave(mut dut: Box<dyn Dut>, timing: AxiTiming) -> usize {
    let d = &mut *dut;
    let mut m = AxiLiteMaster::new(d, AxiLitePorts::new(d, "").unwrap(), timing, 5);
    let mut rf = RegFile {
        addr: d.port("reg_addr").unwrap(),
        rdata: d.port("reg_rdata").unwrap(),
        wdata: d.port("reg_wdata").unwrap(),
        we: d.port("reg_we").unwrap(),
        mem: (0..256u32)
            .map(|w| w.wrapping_mul(0x0101_0101) ^ 0x5a00_00a5)
            .collect(),
        write: None,
    };
    rf.mem[regs::CTRL as usize] = 0;
    let reset = d.port("reset").unwrap();
    d.poke(reset, 1).unwrap();
    tb::cycle(d, &mut [&mut m, &mut rf]).unwrap();
    d.poke(reset, 0).unwrap();
    let mut n = 0;
    let mut go = |d: &mut dyn Dut, m: &mut AxiLiteMaster, rf: &mut RegFile, op: AxiOp| {
        m.push(op);
        n += 1;
        for _ in 0..100 {
            tb::cycle(d, &mut [&mut *m, &mut *rf]).unwrap_or_else(|e| panic!("{e}"));
            if let Some(done) = m.pop() {
                return (done.resp, done.data);
            }
        }
        panic!("no answer to {op:?}");
    };
    for a in (0..(1u64 << regs::ADDRESS_BITS)).step_by(4) {
        let map = regs::at_byte(a as u32).map(|(r, _)| r.access);
        let w = (a as usize >> 2) & 0xff;
        let before = rf.mem[w];
        let want_read = match map {
            Some(_) => (OKAY, before as u64),
            None => (SLVERR, 0),
        };
        assert_eq!(
            go(d, &mut m, &mut rf, AxiOp::Read { addr: a }),
            want_read,
            "read {a:#05x}"
        );
        let writable = matches!(map, Some(regs::Access::Rw) | Some(regs::Access::Wo));
        let data = 0xc3a5_5a3c ^ a;
        let resp = go(
            d,
            &mut m,
            &mut rf,
            AxiOp::Write {
                addr: a,
                data,
                strb: 0xf,
            },
        )
        .0;
        assert_eq!(resp, if writable { OKAY } else { SLVERR }, "write {a:#05x}");
        let full = if writable { data as u32 } else { before };
        assert_eq!(rf.mem[w], full, "register {w:#x} after a write to {a:#05x}");
        let resp = go(
            d,
            &mut m,
            &mut rf,
            AxiOp::Write {
                addr: a,
                data: !data & 0xffff_ffff,
                strb: 0b0101,
            },
        )
        .0;
        assert_eq!(resp, if writable { OKAY } else { SLVERR });
        let merged = if writable {
            (full & 0xff00_ff00) | (!data as u32 & 0x00ff_00ff)
        } else {
            before
        };
        assert_eq!(
            rf.mem[w], merged,
            "register {w:#x} after strobes 0101 at {a:#05x}"
        );
    }
    n
}

#[test]
fn the_axi_lite_slave_alone_answers_as_the_map_says_on_every_backend() {
    let sim = simulator();
    for backend in [Backend::Verilator, Backend::Native] {
        let dut = sim
            .dut(backend, slave_design(), &DutOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let n = drive_axi_slave(dut, AxiTiming::RANDOM);
        eprintln!("{backend}: {n} accesses");
    }
    // The same stimulus on Icarus (four-state) and the Yosys netlist, output by output.
    for backend in [Backend::Icarus, Backend::Netlist] {
        replay_equal(slave_design, backend, |dut| {
            drive_axi_slave(dut, AxiTiming::RANDOM);
        });
    }
}

/// The host's sequence (fpga/host/lel_host.c): configuration and the learning-rate table,
/// seeds and PL_INIT, epochs of PL_TRAIN with polling, the weights read back, a PL_INF
/// test run; every register access through AXI4-Lite, images and weights through
/// AXI4-Stream, compared with the golden network image by image.
#[test]
fn the_host_sequence_trains_bit_exactly_through_axi_only() {
    host_sequence(&tiny());
}

/// The same with FC cores of 8 lanes behind the same AXI ports and registers.
#[test]
fn the_host_sequence_trains_bit_exactly_through_axi_at_8_lanes() {
    host_sequence(&tiny_l8());
}

fn host_sequence(cfg: &PlatformConfig) {
    let dut = simulator()
        .dut(Backend::Verilator, design_of(cfg), &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let (mut b, mut net) = bench_of(dut, &rough(), cfg);
    let seeds = lfsr_seeds(cfg);
    configure(&mut b, &net, 1).unwrap();
    b.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])
        .unwrap();
    let initial = [net.cores[0].w.clone(), net.cores[1].w.clone()];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let px = cfg.input.channels * cfg.input.height * cfg.input.width;
    let x: Vec<Vec<i32>> = (0..10)
        .map(|_| (0..px).map(|_| rng.random_range(0..128)).collect())
        .collect();
    let y: Vec<u32> = (0..10).map(|_| rng.random_range(0..10)).collect();
    let check = PlatformCheck {
        outputs: true,
        weights_every: Some(3),
    };
    for epoch in 1..=2 {
        configure(&mut b, &net, epoch).unwrap();
        let order: Vec<usize> = (0..6).collect();
        train_epoch(&mut b, &mut net, &x, &y, &order, epoch, check, &mut |_| {})
            .unwrap_or_else(|e| panic!("epoch {epoch}: {e}"));
    }
    check_weights(&mut b, &net, 11).unwrap_or_else(|e| panic!("{e}"));
    let stats = test_run(&mut b, &net, &x[6..], &y[6..], check, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.images, 4);
    let moved: usize = (0..2)
        .map(|k| {
            initial[k]
                .iter()
                .zip(&net.cores[k].w)
                .filter(|(a, b)| a != b)
                .count()
        })
        .sum();
    assert!(moved > 0, "no weight changed in 12 training images");
    eprintln!(
        "AXI-only: 12 images trained, 4 inferred, {moved} weights moved, {} cycles",
        b.dut().cycle()
    );
}

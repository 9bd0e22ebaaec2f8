//! A reactive bench for the LEL platform (`lel_platform*`, or the FPGA top
//! `lel_platform_axi*`), driving it the way the thesis's PS program does (spec
//! lel-platform.md §4.4): registers through the register port (or AXI4-Lite, through an
//! [`AxiLiteMaster`] with seeded delays and back-pressure, every answer checked OKAY),
//! weights and images through the input stream, weights back through the output stream, with
//! a stream source (seeded gaps), a sink (seeded back-pressure) and a protocol monitor.
//!
//! Speed (issue 13): while nothing moves on the streams the bench steps the model in chunks
//! inside Verilator (`Dut::steps`) with `s_tvalid` and `m_tready` low, and looks at the
//! result counters between chunks; per-cycle Rust work is only spent while a stream moves
//! (an image into the input FIFO, weights in or out). A chunk is shorter than the gap
//! between two results of one core, so no result is missed (checked: a counter that moves
//! by two is an error).
//!
//! [`train_epoch`] and [`test_run`] run the platform beside the golden network
//! ([`crate::lel::network::LelNetwork`]) and stop at the first divergence, naming the core,
//! the image, the state, the index, the expected and the got value.

// `for x in 0..2` walks the FC cores: x indexes several per-core arrays at once and names
// the core in messages, which an iterator chain would hide.
#![allow(clippy::needless_range_loop)]

use super::fc::Traffic;
use super::{Divergence, Result, RtlError};
use crate::lel::codec::{
    beats_to_words, decode_fc_weights, encode_fc_weights, encode_image, words_to_beats,
};
use crate::lel::fc_core::FcParams;
use crate::lel::network::LelNetwork;
use edgelearn_hdl::lel::platform::{regs, PlState, PlatformShape};
use edgelearn_sim::axi::{AxiDone, AxiLiteMaster, AxiLitePorts, AxiOp, AxiTiming};
use edgelearn_sim::dut::{Dut, PortId};
use edgelearn_sim::tb::{self, ProtocolMonitor, StreamPorts, StreamSink, StreamSource};
use serde::Serialize;

/// The spec's name of a PL state code (`PL_*`, from the RTL's state enum).
pub fn pl_name(code: u32) -> String {
    PlState::name(code as u64)
}

/// The block name of core `k` inside the platform: 0 conv, 1 FC0, 2 FC1.
pub const CORE_NAMES: [&str; 3] = ["conv", "fc0", "fc1"];

/// One FC core's result for one image, read from the registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoreResult {
    /// FC core (0, 1).
    pub core: usize,
    /// Image index within the run (0-based).
    pub image: usize,
    /// `class_num`.
    pub class: usize,
    /// The label the core latched.
    pub label: u32,
    /// `lc_data_out` (Q12).
    pub lc: Vec<i64>,
}

/// Counters of one PL_TRAIN / PL_INF run, read from the registers.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct RunStats {
    /// Images.
    pub images: usize,
    /// RUN_CYCLES: PL_TRAIN (PL_INF) entry to its return to PL_IDLE.
    pub cycles: u64,
    /// Cycles of the last image of the conv core, FC0 and FC1 (CONV/FC0/FC1_CYCLES).
    pub core_cycles: [u64; 3],
    /// FCx_CORRECT.
    pub correct: [u64; 2],
    /// Simulated cycles of the whole call (streams and register accesses included).
    pub sim_cycles: u64,
}

struct Ports {
    /// `reset`, or `aresetn` (active low) on the AXI top.
    reset: PortId,
    reset_low: bool,
    s_tvalid: PortId,
    m_tready: PortId,
}

/// How the bench reaches the registers: the platform's register port (`lel_platform*`:
/// reads without a clock, writes in two cycles) or AXI4-Lite (`lel_platform_axi*`: every
/// access a bus transaction, each answer checked to be OKAY).
enum RegBus {
    Port {
        addr: PortId,
        wdata: PortId,
        we: PortId,
        rdata: PortId,
    },
    Axi(Box<AxiLiteMaster>),
}

/// Cycles an AXI4-Lite access may take before the bench calls the design stuck.
const AXI_PATIENCE: u64 = 1000;

/// The bench of one platform.
pub struct PlatformBench {
    dut: Box<dyn Dut>,
    block: String,
    shape: PlatformShape,
    fc: [FcParams; 2],
    ports: Ports,
    bus: RegBus,
    src: StreamSource,
    sink: StreamSink,
    mon: ProtocolMonitor,
    chunk: u64,
    batch_read: bool,
    m_ports: [PortId; 4],
    eager_input: bool,
}

impl PlatformBench {
    /// A bench around `dut` (an `lel_platform*` design) of `shape`, whose FC cores are `fc`.
    pub fn new(
        dut: Box<dyn Dut>,
        shape: PlatformShape,
        fc: [FcParams; 2],
        traffic: &Traffic,
    ) -> Result<Self> {
        let d = &*dut;
        // The AXI top (`lel_platform_axi*`) or the bare platform, told by their ports.
        let axi = d.port("s_axi_awaddr").is_ok();
        let (sp, mp) = if axi {
            ("s_axis_t", "m_axis_t")
        } else {
            ("s_t", "m_t")
        };
        let n = |p: &str, f: &str| format!("{p}{f}");
        let ports = Ports {
            reset: d.port(if axi { "aresetn" } else { "reset" })?,
            reset_low: axi,
            s_tvalid: d.port(&n(sp, "valid"))?,
            m_tready: d.port(&n(mp, "ready"))?,
        };
        let bus = if axi {
            let timing = if traffic.backpressure == edgelearn_sim::tb::Backpressure::None {
                AxiTiming::EAGER
            } else {
                AxiTiming::RANDOM
            };
            let m = AxiLiteMaster::new(
                d,
                AxiLitePorts::new(d, "s_axi_")?,
                timing,
                traffic.seed ^ 0xa1,
            );
            RegBus::Axi(Box::new(m))
        } else {
            RegBus::Port {
                addr: d.port("reg_addr")?,
                wdata: d.port("reg_wdata")?,
                we: d.port("reg_we")?,
                rdata: d.port("reg_rdata")?,
            }
        };
        let s = StreamPorts::new(
            d,
            "s",
            &n(sp, "valid"),
            Some(&n(sp, "ready")),
            &[&n(sp, "data"), &n(sp, "user"), &n(sp, "last")],
        )?;
        let m = StreamPorts::new(
            d,
            "m",
            &n(mp, "valid"),
            Some(&n(mp, "ready")),
            &[&n(mp, "data"), &n(mp, "user"), &n(mp, "last")],
        )?;
        let mon = ProtocolMonitor::new(d, vec![s.clone(), m.clone()]);
        let src = StreamSource::new(s, traffic.gaps, traffic.seed);
        let sink = StreamSink::new(m, traffic.backpressure, traffic.seed ^ 0x5eed);
        // A core's results are at least its LC-forward pass apart (O rows after W words).
        let spacing = (0..2)
            .map(|x| shape.fc_words(x) as u64 + fc[x].outputs as u64)
            .min()
            .unwrap_or(1);
        let chunk = (spacing / 4).clamp(8, 2048);
        let block = d.name().to_string();
        let m_ports = [
            d.port(&n(mp, "valid"))?,
            d.port(&n(mp, "data"))?,
            d.port(&n(mp, "user"))?,
            d.port(&n(mp, "last"))?,
        ];
        Ok(PlatformBench {
            batch_read: traffic.backpressure == edgelearn_sim::tb::Backpressure::None,
            m_ports,
            dut,
            block,
            shape,
            fc,
            ports,
            bus,
            src,
            sink,
            mon,
            chunk,
            eager_input: false,
        })
    }

    /// The design's name.
    pub fn block(&self) -> &str {
        &self.block
    }

    /// The simulator.
    pub fn dut(&mut self) -> &mut dyn Dut {
        &mut *self.dut
    }

    /// The shape.
    pub fn shape(&self) -> &PlatformShape {
        &self.shape
    }

    /// Cycles each bulk step takes.
    pub fn chunk(&self) -> u64 {
        self.chunk
    }

    /// One clock cycle with the stream agents and the monitor.
    pub fn cycle(&mut self) -> Result<()> {
        match &mut self.bus {
            RegBus::Axi(m) => tb::cycle(
                &mut *self.dut,
                &mut [&mut self.src, &mut self.sink, &mut self.mon, &mut **m],
            )?,
            RegBus::Port { .. } => tb::cycle(
                &mut *self.dut,
                &mut [&mut self.src, &mut self.sink, &mut self.mon],
            )?,
        }
        Ok(())
    }

    /// Whether the registers are reached through AXI4-Lite.
    pub fn is_axi(&self) -> bool {
        matches!(self.bus, RegBus::Axi(_))
    }

    /// One AXI4-Lite access, cycle by cycle with the stream agents, to its response (an
    /// error on the register port's platform, or when no response comes).
    pub fn axi(&mut self, op: AxiOp) -> Result<AxiDone> {
        let RegBus::Axi(m) = &mut self.bus else {
            return Err(RtlError::Other(format!(
                "{}: has no AXI4-Lite port (use an lel_platform_axi design)",
                self.block
            )));
        };
        m.push(op);
        let start = self.dut.cycle();
        loop {
            self.cycle()?;
            if let RegBus::Axi(m) = &mut self.bus {
                if let Some(done) = m.pop() {
                    return Ok(done);
                }
            }
            if self.dut.cycle() - start > AXI_PATIENCE {
                return Err(RtlError::Other(format!(
                    "{}: no AXI4-Lite response to {op:?} within {AXI_PATIENCE} cycles",
                    self.block
                )));
            }
        }
    }

    /// An AXI4-Lite access to register `r` that must answer OKAY.
    fn axi_okay(&mut self, r: u8, op: AxiOp) -> Result<u32> {
        let done = self.axi(op)?;
        if done.resp != 0 {
            return Err(RtlError::Other(format!(
                "{}: {op:?} of register {:#05x} answered {} (SLVERR 2), OKAY expected",
                self.block,
                r as u32 * 4,
                done.resp
            )));
        }
        Ok(done.data as u32)
    }

    /// `n` cycles inside the simulator with both streams quiet (the source must be idle).
    fn bulk(&mut self, n: u64) -> Result<()> {
        debug_assert!(self.src.is_idle());
        self.dut.poke(self.ports.s_tvalid, 0)?;
        self.dut.poke(self.ports.m_tready, 0)?;
        self.dut.steps(n)?;
        self.mon.forget();
        Ok(())
    }

    /// Register `r` (word address; no side effects). Through the register port without a
    /// clock; through AXI4-Lite a read transaction.
    pub fn read_reg(&mut self, r: u8) -> Result<u32> {
        match self.bus {
            RegBus::Port { addr, rdata, .. } => {
                self.dut.poke(addr, r as u64)?;
                Ok(self.dut.peek(rdata)? as u32)
            }
            RegBus::Axi(_) => self.axi_okay(r, AxiOp::Read { addr: r as u64 * 4 }),
        }
    }

    /// Write `v` to register `r` and return with the write done. The register port takes
    /// it at one edge and the register (or the FSM, for CTRL) at the next (two cycles); on
    /// AXI4-Lite the write response comes once the register holds it.
    pub fn write_reg(&mut self, r: u8, v: u32) -> Result<()> {
        match self.bus {
            RegBus::Port {
                addr, wdata, we, ..
            } => {
                self.dut.poke(addr, r as u64)?;
                self.dut.poke(wdata, v as u64)?;
                self.dut.poke(we, 1)?;
                self.cycle()?;
                self.dut.poke(we, 0)?;
                self.cycle()
            }
            RegBus::Axi(_) => {
                let op = AxiOp::Write {
                    addr: r as u64 * 4,
                    data: v as u64,
                    strb: 0xf,
                };
                self.axi_okay(r, op).map(|_| ())
            }
        }
    }

    /// Every readable register of the map (`hdl/regs/lel_platform.toml`), an array's words
    /// as `NAME[i]`, with its value now: what a driver's register dump shows.
    pub fn registers(&mut self) -> Result<Vec<(String, u32)>> {
        let mut out = Vec::new();
        for r in regs::REGISTERS {
            if r.access == edgelearn_hdl::regfile::Access::Wo {
                continue;
            }
            for i in 0..r.count {
                let name = match r.count {
                    1 => r.name.to_string(),
                    _ => format!("{}[{i}]", r.name),
                };
                out.push((name, self.read_reg(r.word + i)?));
            }
        }
        Ok(out)
    }

    /// Feed each image of a run as soon as the one before it is sent, as a DMA streaming
    /// the whole run does: the input FIFO fills and holds the stream back (`s_tready` low)
    /// until the conv core takes the image. Off by default: the next image starts only when
    /// IN_LEVEL shows room for all of it, so the stream never waits and the bench steps
    /// idle stretches in bulk.
    pub fn set_eager_input(&mut self, on: bool) {
        self.eager_input = on;
    }

    /// Cycles the input stream waited on the platform (valid, not ready) so far.
    pub fn input_stalls(&self) -> u64 {
        self.src.stalls()
    }

    /// STATUS: (PL, conv, FC0, FC1) state codes.
    pub fn states(&mut self) -> Result<[u32; 4]> {
        let s = self.read_reg(regs::STATUS)?;
        Ok([s & 15, (s >> 4) & 15, (s >> 8) & 15, (s >> 12) & 15])
    }

    fn stuck(&mut self, what: &str, cycles: u64) -> RtlError {
        let st = self.states().unwrap_or([99; 4]);
        RtlError::Stuck {
            block: self.block.clone(),
            waiting_for: what.to_string(),
            state: format!(
                "{} (conv {}, FC0 {}, FC1 {})",
                pl_name(st[0]),
                st[1],
                st[2],
                st[3]
            ),
            cycles,
        }
    }

    /// Synchronous reset: `reset` high for one cycle (the platform registers it and resets at
    /// the next edge); the streams are abandoned; registers read 0.
    pub fn reset(&mut self) -> Result<()> {
        self.src.abort();
        self.mon.forget();
        if let RegBus::Axi(m) = &mut self.bus {
            m.abort();
        }
        let low = self.ports.reset_low as u64;
        self.dut.poke(self.ports.reset, 1 ^ low)?;
        self.cycle()?;
        self.dut.poke(self.ports.reset, low)?;
        self.mon.forget();
        self.cycle()?;
        self.sink.take();
        Ok(())
    }

    /// Cycle (per cycle while a stream moves, in chunks otherwise) until PL_IDLE.
    fn until_idle(&mut self, what: &str, limit: u64) -> Result<()> {
        let start = self.dut.cycle();
        loop {
            if self.states()?[0] == 0 && self.src.is_idle() {
                return Ok(());
            }
            if self.dut.cycle() - start > limit {
                let n = self.dut.cycle() - start;
                return Err(self.stuck(what, n));
            }
            self.cycle()?;
        }
    }

    /// PL_INIT: seeds (`(lc, wu)` per FC core), then FC0's and FC1's weights (`[k][j][i]`).
    pub fn init(&mut self, w: [&[i32]; 2], seeds: [(u32, u32); 2]) -> Result<()> {
        for (x, (lc, wu)) in seeds.iter().enumerate() {
            let base = if x == 0 {
                regs::SEED_LC0
            } else {
                regs::SEED_LC1
            };
            self.write_reg(base, lc & 0x1ffff)?;
            self.write_reg(base + 1, wu & 0x1ffff)?;
        }
        for x in 0..2 {
            let beats = encode_fc_weights(&self.fc[x], w[x])?;
            let words = beats_to_words(&beats, self.fc[x].lanes);
            self.src
                .push_packet(words.into_iter().map(|b| vec![b, 0, 0]));
        }
        self.write_reg(regs::CTRL, 1)?;
        let words = (self.shape.fc_words(0) + self.shape.fc_words(1)) as u64;
        self.until_idle("the end of PL_INIT", 100 * words + 10_000)
    }

    /// PL_READ: both FC cores' weights (`[k][j][i]`), read back through the output stream.
    /// Without back-pressure the words are taken in batches inside the simulator
    /// (`Dut::run_batch`, `m_tready` high); with it, cycle by cycle through the sink.
    pub fn read_weights(&mut self) -> Result<[Vec<i32>; 2]> {
        self.sink.take();
        self.write_reg(regs::CTRL, 5)?;
        let words = (self.shape.fc_words(0) + self.shape.fc_words(1)) as u64;
        let got = if self.batch_read {
            let outs = [
                self.m_ports[0],
                self.m_ports[1],
                self.m_ports[2],
                self.m_ports[3],
            ];
            let mut got: Vec<Vec<u64>> = Vec::with_capacity(words as usize);
            let mut buf = Vec::new();
            let start = self.dut.cycle();
            while (got.len() as u64) < words {
                if self.dut.cycle() - start > 100 * words + 10_000 {
                    let n = self.dut.cycle() - start;
                    return Err(self.stuck("the words of PL_READ", n));
                }
                let n = (words - got.len() as u64).clamp(64, 8192) as usize;
                buf.clear();
                self.dut
                    .run_batch(&[self.ports.m_tready], &outs, &vec![1; n], &mut buf)?;
                for row in buf.chunks(4) {
                    if row[0] != 0 {
                        got.push(vec![row[1], row[2], row[3]]);
                    }
                }
            }
            self.dut.poke(self.ports.m_tready, 0)?;
            self.mon.forget();
            self.until_idle("the end of PL_READ", 10_000)?;
            got
        } else {
            self.until_idle("the end of PL_READ", 100 * words + 10_000)?;
            // The FSM is idle once the core sent its last word; under back-pressure up to two
            // words still wait in the output slice (D-PLATFORM-PORTS) and must be taken.
            let start = self.dut.cycle();
            while (self.sink.received().len() as u64) < words {
                if self.dut.cycle() - start > 1000 {
                    let n = self.dut.cycle() - start;
                    return Err(self.stuck("the last words of PL_READ in the output slice", n));
                }
                self.cycle()?;
            }
            self.sink.take()
        };
        let mut out: [Vec<i32>; 2] = [vec![], vec![]];
        let mut at = 0;
        for x in 0..2 {
            let n = self.shape.fc_words(x);
            let part = got.get(at..at + n).ok_or_else(|| {
                RtlError::Other(format!(
                    "{}: PL_READ gave {} words, {} expected",
                    self.block,
                    got.len(),
                    self.shape.fc_words(0) + self.shape.fc_words(1)
                ))
            })?;
            for (i, b) in part.iter().enumerate() {
                if b[1] != x as u64 || (b[2] != 0) != (i + 1 == n) {
                    return Err(RtlError::Other(format!(
                        "{}: PL_READ word {i} of FC core {x}: m_tuser {} and m_tlast {}",
                        self.block, b[1], b[2]
                    )));
                }
            }
            let words: Vec<u64> = part.iter().map(|b| b[0]).collect();
            let beats = words_to_beats(&words, self.fc[x].lanes);
            out[x] = decode_fc_weights(&self.fc[x], &beats)?;
            at += n;
        }
        if at != got.len() {
            return Err(RtlError::Other(format!(
                "{}: PL_READ gave {} words, {at} expected",
                self.block,
                got.len()
            )));
        }
        Ok(out)
    }

    fn queue_image(&mut self, img: &[i32], label: u32) -> Result<()> {
        let c = &self.shape.conv;
        let beats = encode_image(img, (c.in_channels, c.height, c.width), 4)?;
        self.src
            .push_packet(beats.into_iter().map(|b| vec![b, label as u64, 0]));
        Ok(())
    }

    fn read_result(&mut self, x: usize, image: usize) -> Result<CoreResult> {
        let cls = self.read_reg(if x == 0 {
            regs::FC0_CLASS
        } else {
            regs::FC1_CLASS
        })?;
        let base = if x == 0 { regs::FC0_LC } else { regs::FC1_LC };
        let lc = (0..self.fc[x].classes as u8)
            .map(|o| Ok(self.read_reg(base + o)? as i32 as i64))
            .collect::<Result<Vec<_>>>()?;
        Ok(CoreResult {
            core: x,
            image,
            class: (cls & 15) as usize,
            label: (cls >> 4) & 15,
            lc,
        })
    }

    /// One PL_TRAIN (`train`) or PL_INF run over `images` (prepared, with labels), calling
    /// `on_result` with every FC core's result in order; an error from it stops the run.
    pub fn run(
        &mut self,
        images: &[(&[i32], u32)],
        train: bool,
        on_result: &mut dyn FnMut(&CoreResult) -> Result<()>,
    ) -> Result<RunStats> {
        let start = self.dut.cycle();
        let n = images.len();
        self.write_reg(if train { regs::N_TRAIN } else { regs::N_TEST }, n as u32)?;
        let beats = self.shape.image_beats() as u32;
        let mut pushed = 0;
        if n > 0 {
            // The first image waits in the input FIFO, as the DMA's first burst would.
            self.queue_image(images[0].0, images[0].1)?;
            pushed = 1;
            while !self.src.is_idle() {
                self.cycle()?;
            }
        }
        self.write_reg(regs::CTRL, if train { 2 } else { 3 })?;
        let mut seen = [0usize; 2];
        let mut last_progress = self.dut.cycle();
        let words = (self.shape.fc_words(0) + self.shape.fc_words(1)) as u64;
        let patience = 20 * words + 100 * beats as u64 + 100_000;
        loop {
            if pushed < n && self.src.is_idle() {
                let lvl = self.read_reg(regs::IN_LEVEL)?;
                if self.eager_input || (lvl >> 16) - (lvl & 0xffff) >= beats {
                    self.queue_image(images[pushed].0, images[pushed].1)?;
                    pushed += 1;
                }
            }
            if self.src.is_idle() {
                let k = self.chunk;
                self.bulk(k)?;
            } else {
                self.cycle()?;
            }
            for x in 0..2 {
                let r = self.read_reg(if x == 0 {
                    regs::FC0_RESULTS
                } else {
                    regs::FC1_RESULTS
                })? as usize;
                if r > seen[x] + 1 {
                    return Err(RtlError::Other(format!(
                        "{}: FC core {x} gave {} results within one bench chunk of {} cycles; the bench cannot tell their outputs apart",
                        self.block,
                        r - seen[x],
                        self.chunk
                    )));
                }
                if r == seen[x] + 1 {
                    let res = self.read_result(x, seen[x])?;
                    seen[x] += 1;
                    last_progress = self.dut.cycle();
                    on_result(&res)?;
                }
            }
            if self.states()?[0] == 0 {
                break;
            }
            if self.dut.cycle() - last_progress > patience {
                let c = self.dut.cycle() - last_progress;
                return Err(self.stuck("the next result", c));
            }
        }
        if seen != [n, n] {
            return Err(RtlError::Other(format!(
                "{}: the run ended with {:?} results of {n} images",
                self.block, seen
            )));
        }
        Ok(RunStats {
            images: n,
            cycles: self.read_reg(regs::RUN_CYCLES)? as u64,
            core_cycles: [
                self.read_reg(regs::CONV_CYCLES)? as u64,
                self.read_reg(regs::FC0_CYCLES)? as u64,
                self.read_reg(regs::FC1_CYCLES)? as u64,
            ],
            correct: [
                self.read_reg(regs::FC0_CORRECT)? as u64,
                self.read_reg(regs::FC1_CORRECT)? as u64,
            ],
            sim_cycles: self.dut.cycle() - start,
        })
    }

    /// Start PL_TRAIN on `images` (fed as [`Self::run`] feeds them) and stop it (I_STOP) so
    /// that the core in STATUS slot `slot` (1 conv, 2 FC0, 3 FC1) leaves `state` for IDLE;
    /// then every core must be idle and the FIFOs empty. A stop takes a few cycles to reach
    /// the cores, so a state that lasts fewer cycles (LS_LOSS lasts one) is missed by a stop
    /// written when STATUS shows it: the run is then repeated with CTRL written that many
    /// cycles earlier (the run from CTRL to the first image's states does not depend on the
    /// stream traffic: the image is in the input FIFO before CTRL). Returns the cycles from
    /// the run's start to the stop's write; an error names `what` when no attempt stops the
    /// core from that state or a stop leaves work behind.
    pub fn stop_in(
        &mut self,
        images: &[(&[i32], u32)],
        slot: usize,
        state: u32,
        what: &str,
    ) -> Result<u64> {
        let mut planned: Option<u64> = None;
        let mut tried = Vec::new();
        for _ in 0..3 {
            let a = self.stop_attempt(images, slot, state, planned, what)?;
            if a.from == state {
                return Ok(a.write);
            }
            tried.push(format!("CTRL at cycle {}: from state {}", a.write, a.from));
            // The stop's latency in this attempt; the state was first seen at `seen`.
            let (Some(idle), Some(seen)) = (a.idle, a.seen) else {
                break;
            };
            let latency = idle.saturating_sub(a.write);
            planned = Some((seen + 1).saturating_sub(latency));
        }
        Err(RtlError::Other(format!(
            "{}: stop sweep: no I_STOP left {what} for IDLE ({})",
            self.block,
            tried.join("; ")
        )))
    }

    /// One attempt of [`Self::stop_in`]: the run, CTRL = I_STOP at cycle `planned` of it or
    /// when STATUS first shows `state`, the stop's effect watched.
    fn stop_attempt(
        &mut self,
        images: &[(&[i32], u32)],
        slot: usize,
        state: u32,
        planned: Option<u64>,
        what: &str,
    ) -> Result<StopAttempt> {
        let n = images.len();
        self.write_reg(regs::N_TRAIN, n as u32)?;
        let beats = self.shape.image_beats() as u32;
        let mut pushed = 0;
        if let Some((img, label)) = images.first() {
            self.queue_image(img, *label)?;
            pushed = 1;
            while !self.src.is_idle() {
                self.cycle()?;
            }
        }
        self.write_reg(regs::CTRL, 2)?;
        let start = self.dut.cycle();
        let words = (self.shape.fc_words(0) + self.shape.fc_words(1)) as u64;
        let patience = n as u64 * (20 * words + 100 * beats as u64) + 100_000;
        let mut seen = None;
        let mut prev;
        loop {
            let st = self.states()?;
            let c = self.dut.cycle() - start;
            prev = st[slot];
            if st[slot] == state && seen.is_none() {
                seen = Some(c);
            }
            match planned {
                Some(p) if c >= p => break,
                None if seen.is_some() => break,
                _ => {}
            }
            if st[0] == 0 || c > patience {
                return Err(RtlError::Other(format!(
                    "{}: stop sweep: the training run of {n} images never had {what} ({c} cycles)",
                    self.block
                )));
            }
            if pushed < n && self.src.is_idle() {
                let lvl = self.read_reg(regs::IN_LEVEL)?;
                if (lvl >> 16) - (lvl & 0xffff) >= beats {
                    self.queue_image(images[pushed].0, images[pushed].1)?;
                    pushed += 1;
                }
            }
            self.cycle()?;
        }
        // I_STOP, watching the core go to IDLE.
        let write = self.dut.cycle() - start;
        self.src.abort();
        self.mon.forget();
        self.write_reg(regs::CTRL, 4)?;
        self.mon.forget();
        let (mut idle, mut from) = (None, prev);
        for _ in 0..regs::FLUSH_CYCLES + 2 {
            let s = self.states()?[slot];
            if s == 0 && idle.is_none() {
                idle = Some(self.dut.cycle() - start);
                from = prev;
            }
            prev = s;
            self.cycle()?;
        }
        self.sink.take();
        let states = self.states()?;
        let mut levels = [0u32; 3];
        for (l, r) in levels
            .iter_mut()
            .zip([regs::IN_LEVEL, regs::MID_LEVEL, regs::OUT_LEVEL])
        {
            *l = self.read_reg(r)? & 0xffff;
        }
        if states != [0; 4] || levels != [0; 3] {
            return Err(RtlError::Other(format!(
                "{}: I_STOP with {what} (cycle {write} of the run) left states {states:?} \
                 (PL, conv, FC0, FC1; 0 is IDLE) and FIFO levels {levels:?} (in, mid, out)",
                self.block
            )));
        }
        Ok(StopAttempt {
            write,
            from,
            seen,
            idle,
        })
    }

    /// Write CTRL = I_STOP, then let the FIFOs flush; the streams are abandoned.
    pub fn stop(&mut self) -> Result<()> {
        self.src.abort();
        self.mon.forget();
        self.write_reg(regs::CTRL, 4)?;
        self.mon.forget();
        for _ in 0..regs::FLUSH_CYCLES + 2 {
            self.cycle()?;
        }
        self.sink.take();
        Ok(())
    }
}

/// One I_STOP of [`stop_sweep`]: the core, the state it was stopped in, and the cycles from
/// CTRL's write to the stop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StopPoint {
    /// `conv`, `fc0` or `fc1`.
    pub core: &'static str,
    /// The state's name (`LS_WU`).
    pub state: &'static str,
    /// Cycles into the run.
    pub cycle: u64,
}

/// One attempt of [`PlatformBench::stop_in`], in cycles from the run's start.
struct StopAttempt {
    /// CTRL = I_STOP written.
    write: u64,
    /// The state the core left for IDLE.
    from: u32,
    /// The target state first seen (before the write).
    seen: Option<u64>,
    /// The core first seen IDLE after the write.
    idle: Option<u64>,
}

/// Every state I_STOP can interrupt, per core as STATUS gives them (conv, FC0, FC1): the
/// states of the spec FSMs that return to IDLE and go on to another state too (a state
/// whose only way on is IDLE, as FIN, finishes instead). Taken from the FSMs' declared
/// transitions, so a new state is swept without a change here.
pub fn stop_targets() -> Vec<(usize, &'static str, usize, &'static str)> {
    use edgelearn_hdl::lel::conv_core::ConvState;
    use edgelearn_hdl::lel::fc_fsm::FcState;
    // STATUS slot, core, state names, declared transitions.
    type Core = (
        usize,
        &'static str,
        &'static [&'static str],
        &'static [(usize, usize)],
    );
    let cores: [Core; 3] = [
        (1, "conv", ConvState::NAMES, ConvState::ARCS),
        (2, "fc0", FcState::NAMES, FcState::ARCS),
        (3, "fc1", FcState::NAMES, FcState::ARCS),
    ];
    let mut out = Vec::new();
    for (slot, core, names, arcs) in cores {
        for (s, name) in names.iter().enumerate().skip(1) {
            let next: Vec<usize> = arcs.iter().filter(|a| a.0 == s).map(|a| a.1).collect();
            if next.contains(&0) && next.iter().any(|&n| n != 0) {
                out.push((slot, core, s, *name));
            }
        }
    }
    out
}

/// I_STOP from every state of every core ([`stop_targets`]): for each, a training run of
/// `images` is started and stopped at the first cycle STATUS shows that core in that state;
/// then every core must be idle and the three FIFOs empty. The weights and LFSRs are left
/// as the stop found them: INIT (after a reset) before training again.
pub fn stop_sweep(bench: &mut PlatformBench, images: &[(&[i32], u32)]) -> Result<Vec<StopPoint>> {
    let mut out = Vec::new();
    for (slot, core, state, name) in stop_targets() {
        let cycle = bench.stop_in(images, slot, state as u32, &format!("{core} in {name}"))?;
        out.push(StopPoint {
            core,
            state: name,
            cycle,
        });
    }
    Ok(out)
}

/// The platform's configuration registers for the golden network `net` in `epoch`
/// (1-based): model_cfg (LR fields 0; they come from the table), the learning-rate table
/// (the configuration's per-epoch shifts, the last repeating) and EPOCH.
pub fn configure(bench: &mut PlatformBench, net: &LelNetwork, epoch: usize) -> Result<()> {
    use crate::lel::codec::{platform_model_cfg, FcCfg};
    let cfg = &net.cfg;
    let fcs: Vec<FcCfg> = cfg
        .fc
        .iter()
        .map(|f| FcCfg {
            alpha_next: f.alpha_next,
            alpha_e: f.alpha_e,
            lr_shift: 0,
            alpha_lc: f.alpha_lc,
        })
        .collect();
    let word = platform_model_cfg(cfg.conv.alpha, &fcs)?;
    let len = cfg.fc.iter().map(|f| f.lr_shift.len()).max().unwrap_or(1);
    if len > regs::LR_TABLE_COUNT {
        return Err(RtlError::Config {
            key: "fc.lr_shift".into(),
            message: format!(
                "{len} per-epoch learning rates; the platform's table holds {} (the last repeats)",
                regs::LR_TABLE_COUNT
            ),
        });
    }
    for (x, f) in cfg.fc.iter().enumerate() {
        if let Some(&s) = f.lr_shift.iter().find(|&&s| s > 7) {
            return Err(RtlError::Config {
                key: format!("fc[{x}].lr_shift"),
                message: format!("{s}: model_cfg's LR_SHIFT field has 3 bits (0..=7)"),
            });
        }
    }
    bench.write_reg(regs::MODEL_CFG, word)?;
    for e in 0..len {
        let v = net.lr_shift(0, e + 1) | (net.lr_shift(1, e + 1) << 3);
        bench.write_reg(regs::LR_TABLE + e as u8, v)?;
    }
    bench.write_reg(regs::LR_LEN, len as u32)?;
    bench.write_reg(regs::EPOCH, epoch.max(1) as u32 - 1)?;
    Ok(())
}

/// How [`train_epoch`] and [`test_run`] check against the golden model.
#[derive(Copy, Clone, Debug)]
pub struct PlatformCheck {
    /// Compare every FC core's LC outputs and class of every image.
    pub outputs: bool,
    /// Read both cores' weights back and compare them after every this many training
    /// images (the epoch is run as PL_TRAIN runs of this many images); `None`: one run.
    pub weights_every: Option<usize>,
}

/// What an epoch did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EpochRun {
    /// Every PL_TRAIN run's counters.
    pub runs: Vec<RunStats>,
    /// Right classes per FC core (before each image's update).
    pub correct: [u64; 2],
    /// Images.
    pub images: usize,
}

fn divergence(
    block: &str,
    core: usize,
    image: usize,
    state: &str,
    what: String,
    (index, expected, got): (usize, String, String),
) -> RtlError {
    RtlError::Divergence(Box::new(Divergence {
        block: format!("{block} {}", CORE_NAMES[core + 1]),
        image,
        state: state.to_string(),
        what,
        index,
        expected,
        got,
    }))
}

fn compare_result(
    block: &str,
    r: &CoreResult,
    want: &(Vec<i64>, usize, u32),
    image: usize,
    dataset: usize,
    state: &str,
) -> Result<()> {
    let at = |what: &str| format!("{what} (dataset image {dataset})");
    if r.label != want.2 {
        return Err(divergence(
            block,
            r.core,
            image,
            "LS_LOAD",
            at("label"),
            (0, want.2.to_string(), r.label.to_string()),
        ));
    }
    if let Some(d) = super::fc::first_difference(&want.0, &r.lc) {
        return Err(divergence(
            block,
            r.core,
            image,
            state,
            at("lc_data_out"),
            d,
        ));
    }
    if r.class != want.1 {
        return Err(divergence(
            block,
            r.core,
            image,
            state,
            at("class_num"),
            (0, want.1.to_string(), r.class.to_string()),
        ));
    }
    Ok(())
}

/// Compare both cores' weights read back with the golden network's after training image
/// `image` (the divergence is named LS_WU).
pub fn check_weights(bench: &mut PlatformBench, net: &LelNetwork, image: usize) -> Result<()> {
    check_weights_in(bench, net, image, "LS_WU")
}

fn check_weights_in(
    bench: &mut PlatformBench,
    net: &LelNetwork,
    image: usize,
    state: &str,
) -> Result<()> {
    let got = bench.read_weights()?;
    for x in 0..2 {
        if let Some((index, expected, g)) = super::fc::first_difference(&net.cores[x].w, &got[x]) {
            let p = &net.cores[x].p;
            let (f, gg) = (p.inputs / p.pieces, p.outputs / p.pieces);
            let (k, j, i) = (index / (gg * f), (index / f) % gg, index % f);
            return Err(divergence(
                bench.block(),
                x,
                image,
                state,
                format!("weight (sub-layer {k}, output {j}, input {i}) read back after the image"),
                (index, expected, g),
            ));
        }
    }
    Ok(())
}

/// Train one epoch (1-based `epoch`) on the platform beside `net`, in `order` (indices into
/// `inputs`/`labels`), stopping at the first divergence; `progress(done)` after each image.
#[allow(clippy::too_many_arguments)]
pub fn train_epoch(
    bench: &mut PlatformBench,
    net: &mut LelNetwork,
    inputs: &[Vec<i32>],
    labels: &[u32],
    order: &[usize],
    epoch: usize,
    check: PlatformCheck,
    progress: &mut dyn FnMut(usize),
) -> Result<EpochRun> {
    bench.write_reg(regs::EPOCH, epoch.max(1) as u32 - 1)?;
    let k = check.weights_every.unwrap_or(order.len()).max(1);
    let mut out = EpochRun {
        images: order.len(),
        ..Default::default()
    };
    for (c, part) in order.chunks(k).enumerate() {
        let base = c * k;
        let imgs: Vec<(&[i32], u32)> = part
            .iter()
            .map(|&i| (inputs[i].as_slice(), labels[i]))
            .collect();
        // Golden results per image of this run, computed as the first core's result comes.
        let mut want: Vec<[(Vec<i64>, usize, u32); 2]> = Vec::new();
        let name = bench.block().to_string();
        let stats = {
            let mut on = |r: &CoreResult| -> Result<()> {
                while want.len() <= r.image {
                    let j = want.len();
                    let i = part[j];
                    let mut a = net.conv.forward(&inputs[i]);
                    let mut row: [(Vec<i64>, usize, u32); 2] = Default::default();
                    for (x, slot) in row.iter_mut().enumerate() {
                        let lr = net.lr_shift(x, epoch);
                        let fwd = net.cores[x].train(&a, labels[i], lr);
                        *slot = (fwd.lc, fwd.class, labels[i]);
                        a = fwd.out_fc;
                    }
                    want.push(row);
                }
                if r.core == 1 {
                    progress(base + r.image + 1);
                }
                if check.outputs {
                    let w = &want[r.image];
                    compare_result(
                        &name,
                        r,
                        &w[r.core],
                        base + r.image,
                        part[r.image],
                        "LS_INF",
                    )?;
                }
                Ok(())
            };
            bench.run(&imgs, true, &mut on)?
        };
        if want.len() != part.len() {
            return Err(RtlError::Other(format!(
                "{}: {} of {} images gave results",
                bench.block(),
                want.len(),
                part.len()
            )));
        }
        out.correct[0] += stats.correct[0];
        out.correct[1] += stats.correct[1];
        out.runs.push(stats);
        if check.weights_every.is_some() {
            check_weights(bench, net, base + part.len() - 1)?;
        }
    }
    Ok(out)
}

/// Infer `inputs` on the platform (PL_INF) beside `net`; the weights must not change.
pub fn test_run(
    bench: &mut PlatformBench,
    net: &LelNetwork,
    inputs: &[Vec<i32>],
    labels: &[u32],
    check: PlatformCheck,
    progress: &mut dyn FnMut(usize),
) -> Result<RunStats> {
    let imgs: Vec<(&[i32], u32)> = inputs
        .iter()
        .zip(labels)
        .map(|(a, &l)| (a.as_slice(), l))
        .collect();
    let name = bench.block().to_string();
    let mut want: Vec<[(Vec<i64>, usize, u32); 2]> = Vec::new();
    let mut on = |r: &CoreResult| -> Result<()> {
        while want.len() <= r.image {
            let j = want.len();
            let mut a = net.conv.forward(&inputs[j]);
            let mut row: [(Vec<i64>, usize, u32); 2] = Default::default();
            for (x, slot) in row.iter_mut().enumerate() {
                let fwd = net.cores[x].forward(&a);
                *slot = (fwd.lc, fwd.class, labels[j]);
                a = fwd.out_fc;
            }
            want.push(row);
        }
        if r.core == 1 {
            progress(r.image + 1);
        }
        if check.outputs {
            compare_result(&name, r, &want[r.image][r.core], r.image, r.image, "LS_INF")?;
        }
        Ok(())
    };
    let stats = bench.run(&imgs, false, &mut on)?;
    if check.outputs {
        // Inference must leave the weights as they were.
        check_weights_in(bench, net, inputs.len().saturating_sub(1), "LS_INF")?;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stop_sweep_interrupts_every_working_state_of_every_core() {
        let t: Vec<(&str, &str)> = super::stop_targets()
            .into_iter()
            .map(|(_, core, _, state)| (core, state))
            .collect();
        let fc = ["LS_LOAD", "LS_INF", "LS_LOSS", "LS_BK", "LS_WU"];
        let mut want = vec![
            ("conv", "CS_LOAD"),
            ("conv", "CS_CONV"),
            ("conv", "CS_POOL"),
        ];
        for core in ["fc0", "fc1"] {
            want.extend(fc.iter().map(|s| (core, *s)));
        }
        assert_eq!(t, want);
    }
}

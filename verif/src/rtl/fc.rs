//! A reactive bench for an FC core (`lel_fc_core*`), driving it the way a host does: through
//! `instr`, `seeds`, `model_cfg` and the two streams (spec lel-platform.md §4.2, §7-18), with
//! a stream source (seeded gaps), a sink (seeded back-pressure) and a protocol monitor on
//! both streams. It measures the cycles of every `LS_*` state from `layer_state`.
//!
//! Host protocol (docs/decisions.md D-FCCORE): `instr` is a level. INIT: drive `seeds`, set
//! I_INIT until the core leaves LS_IDLE, then I_IDLE; stream the weights; the core returns to
//! LS_IDLE. An image: set `model_cfg` and I_TRAIN (or I_INF) until LS_FIN, stream the
//! activations with the label on `s_tuser`, take `mm_data_out` on the output stream, then
//! I_IDLE for a cycle (FIN -> IDLE); `lc_data_out` pulses `lc_valid`, `class_num` follows with
//! `classify_done`. READ: I_READ until the core leaves LS_IDLE, then I_IDLE; the weight words
//! arrive on the output stream; the core returns to LS_IDLE. I_STOP for one cycle: LS_IDLE.

use super::{Divergence, Result, RtlError};
use crate::lel::codec::{decode_fc_weights, encode_fc_weights, pack_bytes, unpack_bytes, FcCfg};
use crate::lel::fc_core::{FcCore, FcParams};
use edgelearn_hdl::lel::fc_core::FcState;
use edgelearn_sim::dut::{unpack_words, Dut, PortId};
use edgelearn_sim::tb::{
    self, Backpressure, Gaps, ProtocolMonitor, StreamPorts, StreamSink, StreamSource,
};
use serde::Serialize;
use std::collections::BTreeMap;

/// `instr` codes (spec §4.6, I_READ ours), from the register map.
pub use edgelearn_hdl::lel::instr;

/// The spec's name of a `layer_state` code (`LS_*`, from the RTL's state enum).
pub fn ls_name(code: u64) -> String {
    FcState::name(code)
}

/// How the bench moves the streams.
#[derive(Copy, Clone, Debug)]
pub struct Traffic {
    /// Idle cycles of the input stream.
    pub gaps: Gaps,
    /// Back-pressure on the output stream.
    pub backpressure: Backpressure,
    /// Seed of both.
    pub seed: u64,
}

impl Default for Traffic {
    /// A beat every cycle, always ready: the cycle counts of Table 4.1.
    fn default() -> Self {
        Traffic {
            gaps: Gaps::None,
            backpressure: Backpressure::None,
            seed: 1,
        }
    }
}

/// Cycles per state, in the order the states were visited.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StateCycles(pub Vec<(String, u64)>);

impl StateCycles {
    /// Total cycles of `state` (by name), over every visit.
    pub fn get(&self, state: &str) -> u64 {
        self.0
            .iter()
            .filter(|(s, _)| s == state)
            .map(|(_, c)| c)
            .sum()
    }

    /// Cycles of every state visited, by name.
    pub fn by_state(&self) -> BTreeMap<String, u64> {
        let mut m = BTreeMap::new();
        for (s, c) in &self.0 {
            *m.entry(s.clone()).or_insert(0) += c;
        }
        m
    }

    /// All cycles.
    pub fn total(&self) -> u64 {
        self.0.iter().map(|(_, c)| c).sum()
    }
}

/// What one image produced on the core's ports.
#[derive(Clone, Debug)]
pub struct ImageRun {
    /// `mm_data_out`, the quantized outputs to the next core, in output order.
    pub mm_out: Vec<i32>,
    /// `m_tuser` of every output beat.
    pub mm_user: Vec<u64>,
    /// `m_tlast` of every output beat.
    pub mm_last: Vec<bool>,
    /// `lc_data_out` (signed).
    pub lc: Vec<i64>,
    /// `class_num`.
    pub class: usize,
    /// Cycles per state (LOAD .. FIN).
    pub cycles: StateCycles,
}

struct Ports {
    reset: PortId,
    instr: PortId,
    model_cfg: PortId,
    seeds: PortId,
    layer_state: PortId,
    lc_data_out: PortId,
    lc_valid: PortId,
    class_num: PortId,
    classify_done: PortId,
}

#[derive(Copy, Clone, PartialEq)]
enum ClassWait {
    Idle,
    Low,
    High,
}

/// The bench of one FC core.
pub struct FcBench {
    dut: Box<dyn Dut>,
    block: String,
    p: FcParams,
    ports: Ports,
    src: StreamSource,
    sink: StreamSink,
    mon: ProtocolMonitor,
    state: u64,
    run: u64,
    visits: Vec<(u64, u64)>,
    lc: Option<Vec<i64>>,
    class: Option<usize>,
    class_wait: ClassWait,
    lc_buf: Vec<u64>,
}

impl FcBench {
    /// A bench around `dut` (an `lel_fc_core*` design) whose shape is `p`'s.
    pub fn new(dut: Box<dyn Dut>, p: FcParams, traffic: &Traffic) -> Result<Self> {
        let d = &*dut;
        let ports = Ports {
            reset: d.port("reset")?,
            instr: d.port("instr")?,
            model_cfg: d.port("model_cfg")?,
            seeds: d.port("seeds")?,
            layer_state: d.port("layer_state")?,
            lc_data_out: d.port("lc_data_out")?,
            lc_valid: d.port("lc_valid")?,
            class_num: d.port("class_num")?,
            classify_done: d.port("classify_done")?,
        };
        let s = StreamPorts::new(
            d,
            "s",
            "s_tvalid",
            Some("s_tready"),
            &["s_tdata", "s_tuser"],
        )?;
        let m = StreamPorts::new(
            d,
            "m",
            "m_tvalid",
            Some("m_tready"),
            &["m_tdata", "m_tuser", "m_tlast"],
        )?;
        let mon = ProtocolMonitor::new(d, vec![s.clone(), m.clone()]);
        let src = StreamSource::new(s, traffic.gaps, traffic.seed);
        let sink = StreamSink::new(m, traffic.backpressure, traffic.seed ^ 0x5eed);
        let block = d.name().to_string();
        let lc_words = (p.classes * 23).div_ceil(64);
        Ok(FcBench {
            dut,
            block,
            p,
            ports,
            src,
            sink,
            mon,
            state: 0,
            run: 0,
            visits: Vec::new(),
            lc: None,
            class: None,
            class_wait: ClassWait::Idle,
            lc_buf: vec![0; lc_words],
        })
    }

    /// The design's name.
    pub fn block(&self) -> &str {
        &self.block
    }

    /// The simulator (for a VCD, the memory backdoor, cycle counts).
    pub fn dut(&mut self) -> &mut dyn Dut {
        &mut *self.dut
    }

    /// Change the streams' traffic.
    pub fn set_backpressure(&mut self, b: Backpressure) {
        self.sink.set_pressure(b);
    }

    /// The state after the last edge.
    pub fn state(&self) -> u64 {
        self.state
    }

    /// One clock cycle with the stream agents and the monitor.
    pub fn cycle(&mut self) -> Result<()> {
        tb::cycle(
            &mut *self.dut,
            &mut [&mut self.src, &mut self.sink, &mut self.mon],
        )?;
        let s = self.dut.peek(self.ports.layer_state)?;
        if s == self.state {
            self.run += 1;
        } else {
            if self.run > 0 {
                self.visits.push((self.state, self.run));
            }
            self.state = s;
            self.run = 1;
        }
        if self.dut.peek(self.ports.lc_valid)? != 0 {
            self.dut
                .peek_into(self.ports.lc_data_out, &mut self.lc_buf)?;
            self.lc = Some(unpack_words(&self.lc_buf, 23, self.p.classes, true));
            self.class = None;
            self.class_wait = ClassWait::Low;
        }
        let done = self.dut.peek(self.ports.classify_done)? != 0;
        match self.class_wait {
            ClassWait::Low if !done => self.class_wait = ClassWait::High,
            ClassWait::High if done => {
                self.class = Some(self.dut.peek(self.ports.class_num)? as usize);
                self.class_wait = ClassWait::Idle;
            }
            _ => {}
        }
        Ok(())
    }

    fn stuck(&self, waiting_for: &str, cycles: u64) -> RtlError {
        RtlError::Stuck {
            block: self.block.clone(),
            waiting_for: waiting_for.to_string(),
            state: ls_name(self.state),
            cycles,
        }
    }

    /// Cycle until `done(self)`, at most `limit` cycles.
    fn until(&mut self, what: &str, limit: u64, done: impl Fn(&Self) -> bool) -> Result<()> {
        let mut n = 0;
        while !done(self) {
            if n == limit {
                return Err(self.stuck(what, n));
            }
            self.cycle()?;
            n += 1;
        }
        Ok(())
    }

    /// Generous cycle limit of one phase (ten times the worst case without back-pressure
    /// plus slack for gaps and stalls).
    fn limit(&self) -> u64 {
        let words = (self.p.inputs * self.p.outputs / self.p.pieces / self.p.lanes) as u64;
        100 * (words + 4096)
    }

    /// Completed state visits since the last call, LS_IDLE left out (the current run is
    /// not included).
    fn take_visits(&mut self) -> StateCycles {
        StateCycles(
            std::mem::take(&mut self.visits)
                .into_iter()
                .filter(|&(s, _)| s != 0)
                .map(|(s, c)| (ls_name(s), c))
                .collect(),
        )
    }

    /// Synchronous reset for one cycle; the streams are abandoned.
    pub fn reset(&mut self) -> Result<()> {
        self.src.abort();
        self.mon.forget();
        self.dut.poke(self.ports.instr, instr::IDLE)?;
        self.dut.poke(self.ports.reset, 1)?;
        self.cycle()?;
        self.dut.poke(self.ports.reset, 0)?;
        self.mon.forget();
        self.cycle()?;
        self.sink.take();
        self.take_visits();
        self.lc = None;
        self.class = None;
        self.class_wait = ClassWait::Idle;
        Ok(())
    }

    /// LS_INIT with weights `w` (`[k][j][i]`) and the two LFSR seeds; the INIT state's cycles.
    pub fn init(&mut self, w: &[i32], seed_lc: u32, seed_wu: u32) -> Result<StateCycles> {
        let beats = encode_fc_weights(&self.p, w)?;
        self.until("LS_IDLE before INIT", self.limit(), |b| {
            b.state == FcState::Idle.code()
        })?;
        self.take_visits();
        self.src.push_packet(beats.into_iter().map(|b| vec![b, 0]));
        let seeds = (seed_lc as u64 & 0x1ffff) | ((seed_wu as u64 & 0x1ffff) << 17);
        self.dut.poke(self.ports.seeds, seeds)?;
        self.dut.poke(self.ports.instr, instr::INIT)?;
        self.until("LS_INIT", 16, |b| b.state == FcState::Init.code())?;
        self.dut.poke(self.ports.instr, instr::IDLE)?;
        let lim = self.limit();
        self.until("the end of LS_INIT", lim, |b| {
            b.state == FcState::Idle.code()
        })?;
        if !self.src.is_idle() {
            return Err(RtlError::Other(format!(
                "{}: LS_INIT ended with {} weight words not taken",
                self.block,
                self.src.pending()
            )));
        }
        Ok(self.take_visits())
    }

    /// One image through LOAD .. FIN (`train`: I_TRAIN, else I_INF), its outputs and cycles.
    pub fn image(&mut self, a: &[i32], label: u32, cfg: FcCfg, train: bool) -> Result<ImageRun> {
        let beats = pack_bytes(a, self.p.lanes)?;
        if beats.len() * self.p.lanes != self.p.inputs {
            return Err(RtlError::Other(format!(
                "{}: {} activations given, the core has {} inputs",
                self.block,
                a.len(),
                self.p.inputs
            )));
        }
        self.until("LS_IDLE before an image", self.limit(), |b| {
            b.state == FcState::Idle.code()
        })?;
        self.take_visits();
        self.sink.take();
        self.lc = None;
        self.class = None;
        self.class_wait = ClassWait::Idle;
        self.src
            .push_packet(beats.into_iter().map(|b| vec![b, label as u64]));
        self.dut.poke(self.ports.model_cfg, cfg.word() as u64)?;
        let code = if train { instr::TRAIN } else { instr::INF };
        self.dut.poke(self.ports.instr, code)?;
        let lim = self.limit();
        self.until("LS_FIN", 4 * lim, |b| b.state == FcState::Fin.code())?;
        self.dut.poke(self.ports.instr, instr::IDLE)?;
        self.until("LS_IDLE after LS_FIN", 16, |b| {
            b.state == FcState::Idle.code()
        })?;
        let cycles = self.take_visits();
        let out_beats = self.p.outputs / self.p.lanes;
        self.until("every mm_data_out beat and the class", lim, |b| {
            b.sink.received().len() >= out_beats && b.class.is_some()
        })?;
        let got = self.sink.take();
        let lc = self.lc.take().ok_or_else(|| {
            RtlError::Other(format!(
                "{}: no lc_valid pulse during the image",
                self.block
            ))
        })?;
        Ok(ImageRun {
            mm_out: unpack_bytes(&got.iter().map(|b| b[0]).collect::<Vec<_>>(), self.p.lanes),
            mm_user: got.iter().map(|b| b[1]).collect(),
            mm_last: got.iter().map(|b| b[2] != 0).collect(),
            lc,
            class: self.class.take().unwrap_or(usize::MAX),
            cycles,
        })
    }

    /// I_READ: every weight, decoded (`[k][j][i]`), and the READ state's cycles.
    pub fn read_weights(&mut self) -> Result<(Vec<i32>, StateCycles)> {
        self.until("LS_IDLE before READ", self.limit(), |b| {
            b.state == FcState::Idle.code()
        })?;
        self.take_visits();
        self.sink.take();
        self.dut.poke(self.ports.instr, instr::READ)?;
        self.until("LS_READ", 16, |b| b.state == FcState::Read.code())?;
        self.dut.poke(self.ports.instr, instr::IDLE)?;
        let lim = self.limit();
        self.until("the end of LS_READ", 4 * lim, |b| {
            b.state == FcState::Idle.code()
        })?;
        let got = self.sink.take();
        let n = got.len();
        for (i, b) in got.iter().enumerate() {
            if (b[2] != 0) != (i + 1 == n) {
                return Err(RtlError::Other(format!(
                    "{}: READ word {i} of {n} has m_tlast = {}",
                    self.block, b[2]
                )));
            }
        }
        let words: Vec<u64> = got.iter().map(|b| b[0]).collect();
        let w = decode_fc_weights(&self.p, &words)?;
        Ok((w, self.take_visits()))
    }

    /// I_STOP for one cycle: the cycles until LS_IDLE (1). The input stream is abandoned and
    /// output beats already in the FIFO are drained and dropped.
    pub fn stop(&mut self) -> Result<u64> {
        self.dut.poke(self.ports.instr, instr::STOP)?;
        let mut n = 0;
        while self.state != FcState::Idle.code() || n == 0 {
            if n == 8 {
                return Err(self.stuck("LS_IDLE after I_STOP", n));
            }
            self.cycle()?;
            n += 1;
        }
        self.dut.poke(self.ports.instr, instr::IDLE)?;
        self.src.abort();
        self.mon.forget();
        let mut quiet = 0;
        let mut waited = 0;
        while quiet < 16 {
            self.cycle()?;
            waited += 1;
            quiet = if self.sink.received().is_empty() {
                quiet + 1
            } else {
                0
            };
            self.sink.take();
            if waited > self.limit() {
                return Err(self.stuck("the output stream to drain after I_STOP", waited));
            }
        }
        self.take_visits();
        Ok(n)
    }

    /// Cycle until the core is in `state` (a `layer_state` code), at most `limit` cycles
    /// (for tests that interrupt a state).
    pub fn run_until_state(&mut self, state: u64, limit: u64) -> Result<()> {
        self.until(&ls_name(state), limit, |b| b.state == state)
    }

    /// Start an image without waiting for it (for tests that interrupt it).
    pub fn start_image(&mut self, a: &[i32], label: u32, cfg: FcCfg, train: bool) -> Result<()> {
        let beats = pack_bytes(a, self.p.lanes)?;
        self.src
            .push_packet(beats.into_iter().map(|b| vec![b, label as u64]));
        self.dut.poke(self.ports.model_cfg, cfg.word() as u64)?;
        self.dut.poke(
            self.ports.instr,
            if train { instr::TRAIN } else { instr::INF },
        )?;
        Ok(())
    }

    /// Start INIT without waiting for it (for tests that interrupt it).
    pub fn start_init(&mut self, w: &[i32], seed_lc: u32, seed_wu: u32) -> Result<()> {
        let beats = encode_fc_weights(&self.p, w)?;
        self.src.push_packet(beats.into_iter().map(|b| vec![b, 0]));
        let seeds = (seed_lc as u64 & 0x1ffff) | ((seed_wu as u64 & 0x1ffff) << 17);
        self.dut.poke(self.ports.seeds, seeds)?;
        self.dut.poke(self.ports.instr, instr::INIT)?;
        Ok(())
    }

    /// Drive `instr` directly.
    pub fn set_instr(&mut self, code: u64) -> Result<()> {
        Ok(self.dut.poke(self.ports.instr, code)?)
    }
}

/// One image's report.
#[derive(Clone, Debug, Serialize)]
pub struct FcImageReport {
    /// Image index (0-based).
    pub image: usize,
    /// Label.
    pub label: u32,
    /// Cycles per state.
    pub cycles: BTreeMap<String, u64>,
    /// Cycles from LS_LOAD to LS_FIN.
    pub total_cycles: u64,
    /// Class predicted by the RTL.
    pub class: usize,
    /// `Some(true)` when every output, LC value and class (and the weights, when read back)
    /// was compared with the golden model's and equal; `None` when nothing was compared (a
    /// difference stops the run with a [`Divergence`]).
    pub bit_exact: Option<bool>,
    /// Whether the weights were read back after this image.
    pub weights_checked: bool,
}

/// Compare `got` with `want`, naming the first difference.
pub fn first_difference<T: PartialEq + std::fmt::Display>(
    want: &[T],
    got: &[T],
) -> Option<(usize, String, String)> {
    if want.len() != got.len() {
        return Some((
            want.len().min(got.len()),
            format!("{} values", want.len()),
            format!("{} values", got.len()),
        ));
    }
    want.iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .map(|i| (i, want[i].to_string(), got[i].to_string()))
}

/// How `run_fc_core` checks.
#[derive(Clone, Debug)]
pub struct FcCheck {
    /// Compare outputs, LC values and classes with the golden model after every image.
    pub outputs: bool,
    /// Read the weights back (I_READ) after these image counts (1-based: 1 = after the
    /// first image) and compare them.
    pub weights_after: Vec<usize>,
    /// Train (I_TRAIN) or only infer (I_INF: the weights must not change).
    pub train: bool,
}

/// Train (or infer) `samples` on the bench's core beside the golden core `golden`, image by
/// image, stopping at the first divergence. `golden` must be the core INIT was given.
pub fn run_fc_core(
    bench: &mut FcBench,
    golden: &mut FcCore,
    samples: &[super::inputs::Sample],
    cfg: FcCfg,
    check: &FcCheck,
    progress: &mut dyn FnMut(&FcImageReport),
) -> Result<Vec<FcImageReport>> {
    let mut reports = Vec::with_capacity(samples.len());
    let block = bench.block().to_string();
    for (i, s) in samples.iter().enumerate() {
        let fwd = golden.forward(&s.input);
        let run = bench.image(&s.input, s.label, cfg, check.train)?;
        let diverge = |state: &str, what: &str, (index, expected, got): (usize, String, String)| {
            RtlError::Divergence(Box::new(Divergence {
                block: block.clone(),
                image: i,
                state: state.to_string(),
                what: what.to_string(),
                index,
                expected,
                got,
            }))
        };
        if check.outputs {
            if let Some(d) = first_difference(&fwd.out_fc, &run.mm_out) {
                return Err(diverge("LS_INF", "mm_data_out", d));
            }
            let users = vec![s.label as u64; run.mm_user.len()];
            if let Some(d) = first_difference(&users, &run.mm_user) {
                return Err(diverge("LS_INF", "m_tuser", d));
            }
            let lasts: Vec<u64> = (0..run.mm_last.len())
                .map(|k| (k + 1 == run.mm_last.len()) as u64)
                .collect();
            let got_last: Vec<u64> = run.mm_last.iter().map(|&b| b as u64).collect();
            if let Some(d) = first_difference(&lasts, &got_last) {
                return Err(diverge("LS_INF", "m_tlast", d));
            }
            if let Some(d) = first_difference(&fwd.lc, &run.lc) {
                return Err(diverge("LS_INF", "lc_data_out", d));
            }
            if fwd.class != run.class {
                return Err(diverge(
                    "LS_INF",
                    "class_num",
                    (0, fwd.class.to_string(), run.class.to_string()),
                ));
            }
        }
        if check.train {
            let err = golden.backward(&fwd, s.label);
            golden.update(&s.input, &err, cfg.lr_shift);
        }
        let weights_checked = check.weights_after.contains(&(i + 1));
        if weights_checked {
            let (w, _) = bench.read_weights()?;
            if let Some((index, expected, got)) = first_difference(&golden.w, &w) {
                let p = &golden.p;
                let (f, g) = (p.inputs / p.pieces, p.outputs / p.pieces);
                let (k, j, ii) = (index / (g * f), (index / f) % g, index % f);
                return Err(diverge(
                    if check.train { "LS_WU" } else { "LS_INF" },
                    &format!("weight (sub-layer {k}, output {j}, input {ii})"),
                    (index, expected, got),
                ));
            }
        }
        let r = FcImageReport {
            image: i,
            label: s.label,
            cycles: run.cycles.by_state(),
            total_cycles: run.cycles.total(),
            class: run.class,
            bit_exact: check.outputs.then_some(true),
            weights_checked,
        };
        progress(&r);
        reports.push(r);
    }
    Ok(reports)
}

//! A reactive bench for the conv core (`lel_conv_core*`): images in through the input
//! stream, pooled values out through the output stream, cycles per `CS_*` state from
//! `conv_state` (spec lel-platform.md §4.3). Host protocol as the FC core's
//! (docs/decisions.md D-CONVCORE): I_TRAIN (or I_INF) until CS_FIN, then I_IDLE.

use super::fc::{first_difference, StateCycles, Traffic};
use super::inputs::Sample;
use super::{Divergence, Result, RtlError};
use crate::lel::codec::{encode_image, unpack_bytes};
use crate::lel::conv::ConvBlock;
use edgelearn_hdl::lel::conv_core::ConvState;
use edgelearn_sim::dut::{Dut, PortId};
use edgelearn_sim::tb::{self, ProtocolMonitor, StreamPorts, StreamSink, StreamSource};
use serde::Serialize;
use std::collections::BTreeMap;

/// The spec's name of a `conv_state` code (`CS_*`, from the RTL's state enum).
pub fn cs_name(code: u64) -> String {
    ConvState::name(code)
}

/// What one image produced.
#[derive(Clone, Debug)]
pub struct ConvRun {
    /// Pooled values, channel-major.
    pub pooled: Vec<i32>,
    /// `m_tuser` of every beat.
    pub user: Vec<u64>,
    /// `m_tlast` of every beat.
    pub last: Vec<bool>,
    /// Cycles per state, in visiting order (CONV and POOL once per channel).
    pub cycles: StateCycles,
}

/// The bench of one conv core.
pub struct ConvBench {
    dut: Box<dyn Dut>,
    block: String,
    input: (usize, usize, usize),
    outputs: usize,
    reset: PortId,
    instr: PortId,
    model_cfg: PortId,
    conv_state: PortId,
    src: StreamSource,
    sink: StreamSink,
    mon: ProtocolMonitor,
    state: u64,
    run: u64,
    visits: Vec<(u64, u64)>,
}

impl ConvBench {
    /// A bench around `dut` for images of `input` = (channels, rows, columns) giving
    /// `outputs` pooled values.
    pub fn new(
        dut: Box<dyn Dut>,
        input: (usize, usize, usize),
        outputs: usize,
        traffic: &Traffic,
    ) -> Result<Self> {
        let d = &*dut;
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
        Ok(ConvBench {
            block: d.name().to_string(),
            reset: d.port("reset")?,
            instr: d.port("instr")?,
            model_cfg: d.port("model_cfg")?,
            conv_state: d.port("conv_state")?,
            mon: ProtocolMonitor::new(d, vec![s.clone(), m.clone()]),
            src: StreamSource::new(s, traffic.gaps, traffic.seed),
            sink: StreamSink::new(m, traffic.backpressure, traffic.seed ^ 0x5eed),
            dut,
            input,
            outputs,
            state: 0,
            run: 0,
            visits: Vec::new(),
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

    /// The state after the last edge.
    pub fn state(&self) -> u64 {
        self.state
    }

    /// One cycle.
    pub fn cycle(&mut self) -> Result<()> {
        tb::cycle(
            &mut *self.dut,
            &mut [&mut self.src, &mut self.sink, &mut self.mon],
        )?;
        let s = self.dut.peek(self.conv_state)?;
        if s == self.state {
            self.run += 1;
        } else {
            if self.run > 0 {
                self.visits.push((self.state, self.run));
            }
            self.state = s;
            self.run = 1;
        }
        Ok(())
    }

    fn until(&mut self, what: &str, limit: u64, done: impl Fn(&Self) -> bool) -> Result<()> {
        let mut n = 0;
        while !done(self) {
            if n == limit {
                return Err(RtlError::Stuck {
                    block: self.block.clone(),
                    waiting_for: what.to_string(),
                    state: cs_name(self.state),
                    cycles: n,
                });
            }
            self.cycle()?;
            n += 1;
        }
        Ok(())
    }

    fn limit(&self) -> u64 {
        let (c, h, w) = self.input;
        200 * (c * h * w + 24 * h * w) as u64 + 100_000
    }

    fn take_visits(&mut self) -> StateCycles {
        StateCycles(
            std::mem::take(&mut self.visits)
                .into_iter()
                .filter(|&(s, _)| s != 0)
                .map(|(s, c)| (cs_name(s), c))
                .collect(),
        )
    }

    /// Synchronous reset for one cycle; the streams are abandoned.
    pub fn reset(&mut self) -> Result<()> {
        self.src.abort();
        self.mon.forget();
        self.dut.poke(self.instr, 0)?;
        self.dut.poke(self.reset, 1)?;
        self.cycle()?;
        self.dut.poke(self.reset, 0)?;
        self.mon.forget();
        self.cycle()?;
        self.sink.take();
        self.take_visits();
        Ok(())
    }

    /// One image (prepared `[c][y][x]` pixels) with `conv_alpha` in `model_cfg`.
    pub fn image(&mut self, img: &[i32], label: u32, conv_alpha: u32) -> Result<ConvRun> {
        let beats = encode_image(img, self.input, 4)?;
        self.until("CS_IDLE before an image", self.limit(), |b| {
            b.state == ConvState::Idle.code()
        })?;
        self.take_visits();
        self.sink.take();
        self.src
            .push_packet(beats.into_iter().map(|b| vec![b, label as u64]));
        self.dut.poke(self.model_cfg, (conv_alpha & 7) as u64)?;
        self.dut.poke(self.instr, 2)?;
        let lim = self.limit();
        self.until("CS_FIN", lim, |b| b.state == ConvState::Fin.code())?;
        self.dut.poke(self.instr, 0)?;
        self.until("CS_IDLE after CS_FIN", 16, |b| {
            b.state == ConvState::Idle.code()
        })?;
        let cycles = self.take_visits();
        let beats = self.outputs / 4;
        self.until("every pooled beat", lim, |b| {
            b.sink.received().len() >= beats
        })?;
        let got = self.sink.take();
        Ok(ConvRun {
            pooled: unpack_bytes(&got.iter().map(|b| b[0]).collect::<Vec<_>>(), 4),
            user: got.iter().map(|b| b[1]).collect(),
            last: got.iter().map(|b| b[2] != 0).collect(),
            cycles,
        })
    }

    /// I_STOP for one cycle; the cycles until CS_IDLE.
    pub fn stop(&mut self) -> Result<u64> {
        self.dut.poke(self.instr, 4)?;
        let mut n = 0;
        while self.state != 0 || n == 0 {
            if n == 8 {
                return Err(RtlError::Stuck {
                    block: self.block.clone(),
                    waiting_for: "CS_IDLE after I_STOP".into(),
                    state: cs_name(self.state),
                    cycles: n,
                });
            }
            self.cycle()?;
            n += 1;
        }
        self.dut.poke(self.instr, 0)?;
        self.src.abort();
        self.mon.forget();
        for _ in 0..64 {
            self.cycle()?;
        }
        self.sink.take();
        self.take_visits();
        Ok(n)
    }

    /// Start an image without waiting (for tests that interrupt it).
    pub fn start_image(&mut self, img: &[i32], label: u32, conv_alpha: u32) -> Result<()> {
        let beats = encode_image(img, self.input, 4)?;
        self.src
            .push_packet(beats.into_iter().map(|b| vec![b, label as u64]));
        self.dut.poke(self.model_cfg, (conv_alpha & 7) as u64)?;
        self.dut.poke(self.instr, 2)?;
        Ok(())
    }

    /// Cycle until `conv_state` is `state`.
    pub fn run_until_state(&mut self, state: u64, limit: u64) -> Result<()> {
        self.until(&cs_name(state), limit, |b| b.state == state)
    }
}

/// One image's report.
#[derive(Clone, Debug, Serialize)]
pub struct ConvImageReport {
    /// Image index.
    pub image: usize,
    /// Label.
    pub label: u32,
    /// Cycles per state (CONV and POOL summed over the channels).
    pub cycles: BTreeMap<String, u64>,
    /// Cycles of CS_CONV per channel (all equal), or per group of channels convolved at
    /// once (`rtl.conv_parallel`).
    pub conv_per_channel: u64,
    /// Cycles of CS_POOL per channel (all equal).
    pub pool_per_channel: u64,
    /// Cycles from CS_LOAD to CS_FIN.
    pub total_cycles: u64,
    /// `Some(true)` when every pooled value, label and last flag was compared with the golden
    /// model's and equal; `None` when nothing was compared.
    pub bit_exact: Option<bool>,
}

/// Run `samples` through the bench's conv core beside the golden block, stopping at the
/// first divergence.
pub fn run_conv_core(
    bench: &mut ConvBench,
    golden: &ConvBlock,
    samples: &[Sample],
    check: bool,
    progress: &mut dyn FnMut(&ConvImageReport),
) -> Result<Vec<ConvImageReport>> {
    let mut out = Vec::with_capacity(samples.len());
    let block = bench.block().to_string();
    for (i, s) in samples.iter().enumerate() {
        let run = bench.image(&s.input, s.label, golden.alpha)?;
        let diverge = |what: &str, (index, expected, got): (usize, String, String)| {
            RtlError::Divergence(Box::new(Divergence {
                block: block.clone(),
                image: i,
                state: "CS_POOL".into(),
                what: what.into(),
                index,
                expected,
                got,
            }))
        };
        if check {
            let want = golden.forward(&s.input);
            if let Some(d) = first_difference(&want, &run.pooled) {
                return Err(diverge("pooled", d));
            }
            let users = vec![s.label as u64; run.user.len()];
            if let Some(d) = first_difference(&users, &run.user) {
                return Err(diverge("m_tuser", d));
            }
            let lasts: Vec<u64> = (0..run.last.len())
                .map(|k| (k + 1 == run.last.len()) as u64)
                .collect();
            let got: Vec<u64> = run.last.iter().map(|&b| b as u64).collect();
            if let Some(d) = first_difference(&lasts, &got) {
                return Err(diverge("m_tlast", d));
            }
        }
        let per = |name: &str| {
            let v: Vec<u64> = run
                .cycles
                .0
                .iter()
                .filter(|(s, _)| s == name)
                .map(|(_, c)| *c)
                .collect();
            if v.iter().all(|&c| c == v[0]) {
                v[0]
            } else {
                u64::MAX
            }
        };
        // A core of P channels at a time visits CS_CONV and CS_POOL once per group of P
        // (D-CONV-PARALLEL), pooling its P channels in one visit.
        let groups = run.cycles.0.iter().filter(|(s, _)| s == "CS_CONV").count() as u64;
        let parallel = (golden.channels as u64 / groups.max(1)).max(1);
        let pool_visit = per("CS_POOL");
        let r = ConvImageReport {
            image: i,
            label: s.label,
            cycles: run.cycles.by_state(),
            conv_per_channel: per("CS_CONV"),
            pool_per_channel: if pool_visit % parallel == 0 {
                pool_visit / parallel
            } else {
                u64::MAX
            },
            total_cycles: run.cycles.total(),
            bit_exact: check.then_some(true),
        };
        progress(&r);
        out.push(r);
    }
    Ok(out)
}

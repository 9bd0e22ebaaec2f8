//! Reactive bench parts for stream interfaces, over any [`Dut`]: a stream source and sink
//! with seeded random gaps and back-pressure, a protocol monitor, and a transaction
//! scoreboard.
//!
//! Streams follow AXI-Stream (spec lel-platform.md §4.1): a beat moves at a rising edge where
//! valid and ready are both high; valid must not wait for ready; while valid is high and
//! ready low, valid stays high and the data stays stable. A stream without a ready port
//! (the thesis's burst interfaces, `valid_out` pulses) takes every valid beat.
//!
//! One cycle of a bench is [`cycle`]: every part drives its inputs, then every part samples
//! what it needs (a peek after the pokes sees their combinational effect), then the clock
//! rises, then every part commits what moved at that edge. A protocol violation is
//! [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) (stream, port, cycle, rule); a wrong
//! transaction is [`ErrorKind::Mismatch`](crate::ErrorKind::Mismatch) (stream, transaction
//! index, field, expected, got).

use crate::dut::{show_words, Dut, PortId};
use crate::error::{ErrorKind, Result};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// One beat: the values of a stream's data ports, each as `ceil(width / 64)` words, in
/// port order.
pub type Beat = Vec<u64>;

/// The ports of one stream.
#[derive(Clone, Debug)]
pub struct StreamPorts {
    /// Name for messages (e.g. `s` or `m`).
    pub name: String,
    /// Valid.
    pub valid: PortId,
    /// Ready (`None`: always ready).
    pub ready: Option<PortId>,
    /// Data ports (name, id, 64-bit words).
    pub data: Vec<(String, PortId, usize)>,
}

impl StreamPorts {
    /// Resolve a stream's ports by name.
    pub fn new(
        dut: &dyn Dut,
        name: &str,
        valid: &str,
        ready: Option<&str>,
        data: &[&str],
    ) -> Result<Self> {
        let data = data
            .iter()
            .map(|d| {
                let id = dut.port(d)?;
                let words = dut.ports()[id.index()].width.div_ceil(64).max(1);
                Ok((d.to_string(), id, words))
            })
            .collect::<Result<_>>()?;
        Ok(StreamPorts {
            name: name.to_string(),
            valid: dut.port(valid)?,
            ready: ready.map(|r| dut.port(r)).transpose()?,
            data,
        })
    }

    /// Words in one beat.
    pub fn beat_words(&self) -> usize {
        self.data.iter().map(|d| d.2).sum()
    }

    fn poke_beat(&self, dut: &mut dyn Dut, beat: &[u64]) -> Result<()> {
        let mut k = 0;
        for (_, id, n) in &self.data {
            if *n == 1 {
                dut.poke(*id, beat[k])?;
            } else {
                dut.poke_words(*id, &beat[k..k + n])?;
            }
            k += n;
        }
        Ok(())
    }

    fn peek_beat(&self, dut: &mut dyn Dut, out: &mut Beat) -> Result<()> {
        out.resize(self.beat_words(), 0);
        let mut k = 0;
        for (_, id, n) in &self.data {
            dut.peek_into(*id, &mut out[k..k + n])?;
            k += n;
        }
        Ok(())
    }

    /// The value of data port `field` within a beat.
    pub fn field<'b>(&self, beat: &'b [u64], field: &str) -> Option<&'b [u64]> {
        let mut k = 0;
        for (name, _, n) in &self.data {
            if name == field {
                return beat.get(k..k + n);
            }
            k += n;
        }
        None
    }
}

/// A part of a reactive bench, called once per cycle in three phases.
pub trait Agent {
    /// Before the edge: poke this part's inputs.
    fn drive(&mut self, dut: &mut dyn Dut) -> Result<()>;
    /// Before the edge, after every part drove: peek what this part needs.
    fn sample(&mut self, dut: &mut dyn Dut) -> Result<()>;
    /// After the edge (rising edge `cycle`, counted from 0): take what moved.
    fn commit(&mut self, cycle: u64) -> Result<()>;
}

/// One cycle: every agent drives, every agent samples, the clock rises, every agent commits.
pub fn cycle(dut: &mut dyn Dut, agents: &mut [&mut dyn Agent]) -> Result<()> {
    for a in agents.iter_mut() {
        a.drive(dut)?;
    }
    for a in agents.iter_mut() {
        a.sample(dut)?;
    }
    let c = dut.cycle();
    dut.step()?;
    for a in agents.iter_mut() {
        a.commit(c)?;
    }
    Ok(())
}

/// Where a source may leave idle cycles.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Gaps {
    /// Never: a beat is offered whenever one is queued.
    None,
    /// Before any beat, with this probability per cycle.
    Anywhere(f64),
    /// Only between packets (a packet's beats are contiguous, as the thesis's bursts must
    /// be): `min..=max` idle cycles, uniformly.
    BetweenPackets {
        /// Fewest idle cycles.
        min: u32,
        /// Most idle cycles.
        max: u32,
    },
}

/// Drives a stream into the design: queued beats, seeded random gaps, AXI rules kept (once
/// valid, the beat holds until it moves).
pub struct StreamSource {
    ports: StreamPorts,
    queue: VecDeque<(Beat, bool)>,
    current: Option<(Beat, bool)>,
    gaps: Gaps,
    idle_left: u32,
    rng: Xoshiro256PlusPlus,
    ready: bool,
    sent: usize,
    stalls: u64,
    idle_beat: Beat,
}

impl StreamSource {
    /// A source on `ports` with `gaps`, seeded.
    pub fn new(ports: StreamPorts, gaps: Gaps, seed: u64) -> Self {
        let idle_beat = vec![0; ports.beat_words()];
        StreamSource {
            ports,
            queue: VecDeque::new(),
            current: None,
            gaps,
            idle_left: 0,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            ready: false,
            sent: 0,
            stalls: 0,
            idle_beat,
        }
    }

    /// Queue one packet (its beats contiguous under [`Gaps::BetweenPackets`]).
    pub fn push_packet(&mut self, beats: impl IntoIterator<Item = Beat>) {
        let beats: Vec<Beat> = beats.into_iter().collect();
        let n = beats.len();
        for (i, b) in beats.into_iter().enumerate() {
            self.queue.push_back((b, i + 1 == n));
        }
    }

    /// Queue beats with no packet structure.
    pub fn push(&mut self, beat: Beat) {
        self.queue.push_back((beat, true));
    }

    /// Beats that moved.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// Cycles a beat waited on the port (valid, not ready): the design's back-pressure.
    pub fn stalls(&self) -> u64 {
        self.stalls
    }

    /// Nothing queued or in flight.
    pub fn is_idle(&self) -> bool {
        self.current.is_none() && self.queue.is_empty()
    }

    /// Beats queued or in flight.
    pub fn pending(&self) -> usize {
        self.queue.len() + self.current.is_some() as usize
    }

    /// Drop every queued beat and the one on the port: the host abandons the transfer (as
    /// after an I_STOP or a reset). Tell the [`ProtocolMonitor`] with
    /// [`ProtocolMonitor::forget`], since a beat withdrawn this way breaks the hold rule on
    /// purpose.
    pub fn abort(&mut self) {
        self.queue.clear();
        self.current = None;
        self.idle_left = 0;
    }
}

impl Agent for StreamSource {
    fn drive(&mut self, dut: &mut dyn Dut) -> Result<()> {
        if self.current.is_none() && !self.queue.is_empty() {
            let take = match self.gaps {
                Gaps::None => true,
                Gaps::Anywhere(p) => !self.rng.random_bool(p.clamp(0.0, 1.0)),
                Gaps::BetweenPackets { .. } => self.idle_left == 0,
            };
            if take {
                self.current = self.queue.pop_front();
            } else {
                self.idle_left = self.idle_left.saturating_sub(1);
            }
        }
        match &self.current {
            Some((beat, _)) => {
                dut.poke(self.ports.valid, 1)?;
                self.ports.poke_beat(dut, beat)
            }
            None => {
                dut.poke(self.ports.valid, 0)?;
                // Data while idle is don't-care; zeros keep waveforms readable.
                self.ports.poke_beat(dut, &self.idle_beat)
            }
        }
    }

    fn sample(&mut self, dut: &mut dyn Dut) -> Result<()> {
        self.ready = match self.ports.ready {
            Some(r) => dut.peek(r)? != 0,
            None => true,
        };
        Ok(())
    }

    fn commit(&mut self, _cycle: u64) -> Result<()> {
        if !self.ready && self.current.is_some() {
            self.stalls += 1;
        }
        if self.ready {
            if let Some((_, last)) = self.current.take() {
                self.sent += 1;
                if last {
                    if let Gaps::BetweenPackets { min, max } = self.gaps {
                        self.idle_left = self.rng.random_range(min..=max.max(min));
                    }
                }
            }
        }
        Ok(())
    }
}

/// How a sink drives ready.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Backpressure {
    /// Always ready.
    None,
    /// Ready with this probability each cycle.
    Random(f64),
    /// Ready only after valid has been high for a cycle, and then with this probability:
    /// a design whose valid waits for ready never sends (the bench's watchdog reports it).
    AfterValid(f64),
}

/// Takes a stream out of the design, with seeded random back-pressure.
pub struct StreamSink {
    ports: StreamPorts,
    pressure: Backpressure,
    rng: Xoshiro256PlusPlus,
    ready: bool,
    valid: bool,
    seen_valid: bool,
    beat: Beat,
    received: Vec<Beat>,
    last_cycle: Option<u64>,
}

impl StreamSink {
    /// A sink on `ports` with `pressure`, seeded.
    pub fn new(ports: StreamPorts, pressure: Backpressure, seed: u64) -> Self {
        StreamSink {
            ports,
            pressure,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            ready: true,
            valid: false,
            seen_valid: false,
            beat: Vec::new(),
            received: Vec::new(),
            last_cycle: None,
        }
    }

    /// Beats received so far.
    pub fn received(&self) -> &[Beat] {
        &self.received
    }

    /// Take the beats received so far.
    pub fn take(&mut self) -> Vec<Beat> {
        std::mem::take(&mut self.received)
    }

    /// The rising edge of the last beat received.
    pub fn last_cycle(&self) -> Option<u64> {
        self.last_cycle
    }

    /// The stream's ports.
    pub fn ports(&self) -> &StreamPorts {
        &self.ports
    }

    /// Change the back-pressure.
    pub fn set_pressure(&mut self, pressure: Backpressure) {
        self.pressure = pressure;
    }
}

impl Agent for StreamSink {
    fn drive(&mut self, dut: &mut dyn Dut) -> Result<()> {
        self.ready = self.ports.ready.is_none()
            || match self.pressure {
                Backpressure::None => true,
                Backpressure::Random(p) => self.rng.random_bool(p.clamp(0.0, 1.0)),
                Backpressure::AfterValid(p) => {
                    self.seen_valid && self.rng.random_bool(p.clamp(0.0, 1.0))
                }
            };
        if let Some(r) = self.ports.ready {
            dut.poke(r, self.ready as u64)?;
        }
        Ok(())
    }

    fn sample(&mut self, dut: &mut dyn Dut) -> Result<()> {
        self.valid = dut.peek(self.ports.valid)? != 0;
        if self.valid && self.ready {
            self.ports.peek_beat(dut, &mut self.beat)?;
        }
        Ok(())
    }

    fn commit(&mut self, cycle: u64) -> Result<()> {
        if self.valid && self.ready {
            self.received.push(std::mem::take(&mut self.beat));
            self.last_cycle = Some(cycle);
            self.seen_valid = false;
        } else {
            self.seen_valid = self.valid;
        }
        Ok(())
    }
}

/// Checks the AXI-Stream rules on streams, every cycle.
pub struct ProtocolMonitor {
    block: String,
    streams: Vec<StreamPorts>,
    /// Per stream: valid, ready and data at the previous edge.
    prev: Vec<Option<(bool, bool, Beat)>>,
    now: Vec<(bool, bool, Beat)>,
    transfers: Vec<u64>,
}

impl ProtocolMonitor {
    /// A monitor of `streams` on `dut`.
    pub fn new(dut: &dyn Dut, streams: Vec<StreamPorts>) -> Self {
        let n = streams.len();
        ProtocolMonitor {
            block: dut.name().to_string(),
            streams,
            prev: vec![None; n],
            now: vec![(false, false, Vec::new()); n],
            transfers: vec![0; n],
        }
    }

    /// Beats moved on stream `i`.
    pub fn transfers(&self, i: usize) -> u64 {
        self.transfers[i]
    }

    /// Forget the last cycle of every stream: a transfer abandoned on purpose (see
    /// [`StreamSource::abort`]) is not a protocol violation.
    pub fn forget(&mut self) {
        self.prev.iter_mut().for_each(|p| *p = None);
    }
}

impl Agent for ProtocolMonitor {
    fn drive(&mut self, _dut: &mut dyn Dut) -> Result<()> {
        Ok(())
    }

    fn sample(&mut self, dut: &mut dyn Dut) -> Result<()> {
        for (s, now) in self.streams.iter().zip(self.now.iter_mut()) {
            let valid = dut.peek(s.valid)? != 0;
            let ready = match s.ready {
                Some(r) => dut.peek(r)? != 0,
                None => true,
            };
            s.peek_beat(dut, &mut now.2)?;
            now.0 = valid;
            now.1 = ready;
        }
        Ok(())
    }

    fn commit(&mut self, cycle: u64) -> Result<()> {
        for (i, s) in self.streams.iter().enumerate() {
            let (valid, ready, beat) = &self.now[i];
            if let Some((pv, pr, pbeat)) = &self.prev[i] {
                if *pv && !*pr {
                    let fail = |port: &str, rule: &str| -> Result<()> {
                        Err(ErrorKind::Protocol {
                            block: self.block.clone(),
                            stream: s.name.clone(),
                            port: port.to_string(),
                            cycle,
                            rule: rule.to_string(),
                        }
                        .into())
                    };
                    if !*valid {
                        return fail(
                            "valid",
                            "valid fell while the beat was stalled (valid high, ready low); \
                             it must hold until the beat moves",
                        );
                    }
                    let mut k = 0;
                    for (name, _, n) in &s.data {
                        if beat[k..k + n] != pbeat[k..k + n] {
                            return fail(
                                name,
                                &format!(
                                    "data changed from {} to {} while the beat was stalled",
                                    show_words(&pbeat[k..k + n]),
                                    show_words(&beat[k..k + n])
                                ),
                            );
                        }
                        k += n;
                    }
                }
            }
            if *valid && *ready {
                self.transfers[i] += 1;
            }
            self.prev[i] = Some(self.now[i].clone());
        }
        Ok(())
    }
}

/// Expected transactions of one stream, in order; each received one is checked against the
/// next expected.
pub struct Scoreboard {
    block: String,
    stream: String,
    fields: Vec<(String, usize)>,
    expected: VecDeque<Beat>,
    checked: usize,
}

impl Scoreboard {
    /// A scoreboard for `ports`' data fields.
    pub fn new(block: &str, ports: &StreamPorts) -> Self {
        Scoreboard {
            block: block.to_string(),
            stream: ports.name.clone(),
            fields: ports.data.iter().map(|(n, _, w)| (n.clone(), *w)).collect(),
            expected: VecDeque::new(),
            checked: 0,
        }
    }

    /// Expect a transaction.
    pub fn expect(&mut self, beat: Beat) {
        self.expected.push_back(beat);
    }

    /// Transactions checked so far.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Transactions still expected.
    pub fn pending(&self) -> usize {
        self.expected.len()
    }

    /// Check a received transaction against the next expected one. `mask` leaves fields
    /// out of the comparison (by name).
    pub fn check(&mut self, got: &[u64], ignore: &[&str]) -> Result<()> {
        let index = self.checked;
        let Some(want) = self.expected.pop_front() else {
            return Err(ErrorKind::Mismatch {
                block: self.block.clone(),
                stream: self.stream.clone(),
                index,
                field: "(transaction)".into(),
                expected: "nothing more".into(),
                got: show_words(got),
            }
            .into());
        };
        let mut k = 0;
        for (name, n) in &self.fields {
            if !ignore.contains(&name.as_str()) && want[k..k + n] != got[k..k + n] {
                return Err(ErrorKind::Mismatch {
                    block: self.block.clone(),
                    stream: self.stream.clone(),
                    index,
                    field: name.clone(),
                    expected: show_words(&want[k..k + n]),
                    got: show_words(&got[k..k + n]),
                }
                .into());
            }
            k += n;
        }
        self.checked += 1;
        Ok(())
    }

    /// Every expected transaction was received.
    pub fn finish(&self) -> Result<()> {
        if let Some(next) = self.expected.front() {
            return Err(ErrorKind::Mismatch {
                block: self.block.clone(),
                stream: self.stream.clone(),
                index: self.checked,
                field: "(transaction)".into(),
                expected: format!("{} more ({} first)", self.expected.len(), show_words(next)),
                got: "nothing".into(),
            }
            .into());
        }
        Ok(())
    }
}

/// Fails when a stream makes no progress for too long: with a sink in
/// [`Backpressure::AfterValid`], a design whose valid waits for ready stops here.
pub struct Watchdog {
    block: String,
    stream: String,
    port: String,
    limit: u64,
    last: u64,
    count: usize,
}

impl Watchdog {
    /// A watchdog on `ports` allowing `limit` cycles without a beat.
    pub fn new(dut: &dyn Dut, ports: &StreamPorts, limit: u64) -> Self {
        Watchdog {
            block: dut.name().to_string(),
            stream: ports.name.clone(),
            port: dut.ports()[ports.valid.index()].name.clone(),
            limit,
            last: dut.cycle(),
            count: 0,
        }
    }

    /// Call every cycle with the number of beats moved so far.
    pub fn check(&mut self, cycle: u64, moved: usize) -> Result<()> {
        if moved != self.count {
            self.count = moved;
            self.last = cycle;
        } else if cycle.saturating_sub(self.last) > self.limit {
            return Err(ErrorKind::Protocol {
                block: self.block.clone(),
                stream: self.stream.clone(),
                port: self.port.clone(),
                cycle,
                rule: format!(
                    "no beat for {} cycles while one was expected; valid must not wait for ready",
                    self.limit
                ),
            }
            .into());
        }
        Ok(())
    }
}

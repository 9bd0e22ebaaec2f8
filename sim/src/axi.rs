//! An AXI4-Lite master bus-functional model for reactive benches ([`AxiLiteMaster`]): it
//! plays queued reads and writes on a design's `PREFIX*` ports (`s_axi_awaddr`, ...) with
//! seeded random delays on every valid and random back-pressure on `bready` / `rready`, and
//! checks the slave's side of the protocol every cycle: a response is offered only for an
//! outstanding access, and `bvalid` / `rvalid` with their payload hold until taken.

use crate::dut::{Dut, PortId};
use crate::error::{ErrorKind, Result};
use crate::tb::Agent;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// The ports of one AXI4-Lite slave interface.
#[derive(Clone, Debug)]
pub struct AxiLitePorts {
    name: String,
    awaddr: PortId,
    awvalid: PortId,
    awready: PortId,
    wdata: PortId,
    wstrb: PortId,
    wvalid: PortId,
    wready: PortId,
    bresp: PortId,
    bvalid: PortId,
    bready: PortId,
    araddr: PortId,
    arvalid: PortId,
    arready: PortId,
    rdata: PortId,
    rresp: PortId,
    rvalid: PortId,
    rready: PortId,
}

impl AxiLitePorts {
    /// The interface whose ports are called `PREFIXawaddr`, ... (e.g. `s_axi_`).
    pub fn new(dut: &dyn Dut, prefix: &str) -> Result<Self> {
        let p = |n: &str| dut.port(&format!("{prefix}{n}"));
        Ok(AxiLitePorts {
            name: prefix.trim_end_matches('_').to_string(),
            awaddr: p("awaddr")?,
            awvalid: p("awvalid")?,
            awready: p("awready")?,
            wdata: p("wdata")?,
            wstrb: p("wstrb")?,
            wvalid: p("wvalid")?,
            wready: p("wready")?,
            bresp: p("bresp")?,
            bvalid: p("bvalid")?,
            bready: p("bready")?,
            araddr: p("araddr")?,
            arvalid: p("arvalid")?,
            arready: p("arready")?,
            rdata: p("rdata")?,
            rresp: p("rresp")?,
            rvalid: p("rvalid")?,
            rready: p("rready")?,
        })
    }
}

/// One access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AxiOp {
    /// Write `data` with byte strobes `strb` to byte address `addr`.
    Write {
        /// Byte address.
        addr: u64,
        /// Data.
        data: u64,
        /// Byte strobes.
        strb: u64,
    },
    /// Read byte address `addr`.
    Read {
        /// Byte address.
        addr: u64,
    },
}

/// A finished access.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AxiDone {
    /// The access.
    pub op: AxiOp,
    /// BRESP or RRESP.
    pub resp: u64,
    /// RDATA (0 for a write).
    pub data: u64,
    /// Rising edge at which the response was taken.
    pub cycle: u64,
}

/// How hard the master makes it for the slave.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AxiTiming {
    /// Most idle cycles before raising each valid (independently for AW and W).
    pub max_delay: u32,
    /// Probability that `bready` / `rready` is low in a cycle.
    pub backpressure: f64,
}

impl AxiTiming {
    /// Every valid at once, every response taken at once.
    pub const EAGER: AxiTiming = AxiTiming {
        max_delay: 0,
        backpressure: 0.0,
    };
    /// Delays of up to 3 cycles and half the cycles back-pressured.
    pub const RANDOM: AxiTiming = AxiTiming {
        max_delay: 3,
        backpressure: 0.5,
    };
}

#[derive(Clone, Debug, Default)]
struct Now {
    awready: bool,
    wready: bool,
    arready: bool,
    bvalid: bool,
    bresp: u64,
    rvalid: bool,
    rresp: u64,
    rdata: u64,
}

/// The access in flight: the op, cycles left before each valid rises, what has moved.
#[derive(Clone, Debug)]
struct Flight {
    op: AxiOp,
    delay: [u32; 2],
    sent: [bool; 2],
}

/// AXI4-Lite master agent (module docs).
pub struct AxiLiteMaster {
    block: String,
    ports: AxiLitePorts,
    timing: AxiTiming,
    rng: Xoshiro256PlusPlus,
    queue: VecDeque<AxiOp>,
    flight: Option<Flight>,
    done: VecDeque<AxiDone>,
    ready: bool,
    now: Now,
    /// Response offered and not taken at the last edge: (bvalid, bresp, rvalid, rresp, rdata).
    stalled: Option<(bool, u64, bool, u64, u64)>,
}

impl AxiLiteMaster {
    /// A master on `ports` of `dut` with `timing`, seeded.
    pub fn new(dut: &dyn Dut, ports: AxiLitePorts, timing: AxiTiming, seed: u64) -> Self {
        AxiLiteMaster {
            block: dut.name().to_string(),
            ports,
            timing,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            queue: VecDeque::new(),
            flight: None,
            done: VecDeque::new(),
            ready: false,
            now: Now::default(),
            stalled: None,
        }
    }

    /// Queue an access.
    pub fn push(&mut self, op: AxiOp) {
        self.queue.push_back(op);
    }

    /// The oldest finished access.
    pub fn pop(&mut self) -> Option<AxiDone> {
        self.done.pop_front()
    }

    /// Nothing queued or in flight.
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty() && self.flight.is_none()
    }

    /// Drop what is queued or in flight (the design is being reset).
    pub fn abort(&mut self) {
        self.queue.clear();
        self.flight = None;
        self.stalled = None;
    }

    fn delay(&mut self) -> u32 {
        if self.timing.max_delay == 0 {
            0
        } else {
            self.rng.random_range(0..=self.timing.max_delay)
        }
    }

    fn violation(&self, port: &str, cycle: u64, rule: &str) -> crate::Error {
        ErrorKind::Protocol {
            block: self.block.clone(),
            stream: self.ports.name.clone(),
            port: port.to_string(),
            cycle,
            rule: rule.to_string(),
        }
        .into()
    }
}

impl Agent for AxiLiteMaster {
    fn drive(&mut self, dut: &mut dyn Dut) -> Result<()> {
        if self.flight.is_none() {
            if let Some(op) = self.queue.pop_front() {
                // A read has no W channel: its second handshake is done from the start.
                let read = matches!(op, AxiOp::Read { .. });
                let delay = [self.delay(), if read { 0 } else { self.delay() }];
                self.flight = Some(Flight {
                    op,
                    delay,
                    sent: [false, read],
                });
            }
        }
        let p = self.ports.clone();
        let (mut aw, mut w, mut ar) = (false, false, false);
        if let Some(f) = &self.flight {
            match f.op {
                AxiOp::Write { addr, data, strb } => {
                    aw = !f.sent[0] && f.delay[0] == 0;
                    w = !f.sent[1] && f.delay[1] == 0;
                    dut.poke(p.awaddr, if aw { addr } else { 0 })?;
                    dut.poke(p.wdata, if w { data } else { 0 })?;
                    dut.poke(p.wstrb, if w { strb } else { 0 })?;
                }
                AxiOp::Read { addr } => {
                    ar = !f.sent[0] && f.delay[0] == 0;
                    dut.poke(p.araddr, if ar { addr } else { 0 })?;
                }
            }
        }
        dut.poke(p.awvalid, aw as u64)?;
        dut.poke(p.wvalid, w as u64)?;
        dut.poke(p.arvalid, ar as u64)?;
        self.ready = !self.rng.random_bool(self.timing.backpressure);
        dut.poke(p.bready, self.ready as u64)?;
        dut.poke(p.rready, self.ready as u64)?;
        Ok(())
    }

    fn sample(&mut self, dut: &mut dyn Dut) -> Result<()> {
        let p = &self.ports;
        self.now = Now {
            awready: dut.peek(p.awready)? != 0,
            wready: dut.peek(p.wready)? != 0,
            arready: dut.peek(p.arready)? != 0,
            bvalid: dut.peek(p.bvalid)? != 0,
            bresp: dut.peek(p.bresp)?,
            rvalid: dut.peek(p.rvalid)? != 0,
            rresp: dut.peek(p.rresp)?,
            rdata: dut.peek(p.rdata)?,
        };
        Ok(())
    }

    fn commit(&mut self, cycle: u64) -> Result<()> {
        let n = self.now.clone();
        if let Some((bv, br, rv, rr, rd)) = self.stalled {
            if bv && (!n.bvalid || n.bresp != br) {
                return Err(self.violation(
                    "bvalid",
                    cycle,
                    "the write response changed or fell before bready took it",
                ));
            }
            if rv && (!n.rvalid || n.rresp != rr || n.rdata != rd) {
                return Err(self.violation(
                    "rvalid",
                    cycle,
                    "the read response changed or fell before rready took it",
                ));
            }
        }
        self.stalled = ((n.bvalid || n.rvalid) && !self.ready)
            .then_some((n.bvalid, n.bresp, n.rvalid, n.rresp, n.rdata));
        let Some(f) = self.flight.as_mut() else {
            if n.bvalid || n.rvalid {
                return Err(self.violation(
                    if n.bvalid { "bvalid" } else { "rvalid" },
                    cycle,
                    "a response with no access outstanding",
                ));
            }
            return Ok(());
        };
        let write = matches!(f.op, AxiOp::Write { .. });
        for k in 0..2 {
            if f.delay[k] > 0 {
                f.delay[k] -= 1;
            } else if !f.sent[k] {
                let took = match (write, k) {
                    (true, 0) => n.awready,
                    (true, _) => n.wready,
                    (false, _) => n.arready,
                };
                f.sent[k] = took;
            }
        }
        let sent = f.sent[0] && f.sent[1];
        let (valid, other, resp, data) = if write {
            (n.bvalid, n.rvalid, n.bresp, 0)
        } else {
            (n.rvalid, n.bvalid, n.rresp, n.rdata)
        };
        if other {
            return Err(self.violation(
                if write { "rvalid" } else { "bvalid" },
                cycle,
                "a response of the other kind than the access outstanding",
            ));
        }
        if valid && !sent {
            return Err(self.violation(
                if write { "bvalid" } else { "rvalid" },
                cycle,
                "a response before the address (and data) were taken",
            ));
        }
        if valid && self.ready {
            let op = f.op;
            self.done.push_back(AxiDone {
                op,
                resp,
                data,
                cycle,
            });
            self.flight = None;
        }
        Ok(())
    }
}

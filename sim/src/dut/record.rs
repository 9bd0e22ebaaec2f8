//! [`Recorder`]: a [`Dut`] that records what a reactive bench drove, cycle by cycle, as a
//! [`Stimulus`], and what the design answered as a [`Trace`]. The stimulus replays the same
//! run on a simulator that only takes precomputed stimuli (Icarus, whose four-state values
//! show an X that the two-state Verilator model hides), and the trace is what that replay
//! must reproduce.

use super::{Dut, PortId};
use crate::error::Result;
use crate::stimulus::Stimulus;
use crate::trace::{output_ports, Trace};
use crate::value::Value;
use edgelearn_hdl::design::{Direction, MemorySpec, PortSpec};
use num_bigint::BigUint;
use std::cell::RefCell;
use std::rc::Rc;

#[derive(Default)]
struct Log {
    stim: Option<Stimulus>,
    trace: Option<Trace>,
}

/// The recording of a [`Recorder`], readable after (or during) the run.
#[derive(Clone)]
pub struct Recording(Rc<RefCell<Log>>);

impl Recording {
    /// The inputs of every cycle so far.
    pub fn stimulus(&self) -> Stimulus {
        self.0.borrow().stim.clone().expect("recording")
    }

    /// The outputs after every cycle so far.
    pub fn trace(&self) -> Trace {
        self.0.borrow().trace.clone().expect("recording")
    }
}

/// Wraps a [`Dut`], recording inputs and outputs of every cycle.
pub struct Recorder {
    inner: Box<dyn Dut>,
    log: Rc<RefCell<Log>>,
    /// Port index -> stimulus input index.
    input_of: Vec<Option<usize>>,
    outputs: Vec<PortId>,
    current: Vec<BigUint>,
}

impl Recorder {
    /// Record `inner`; the [`Recording`] reads the result.
    pub fn new(inner: Box<dyn Dut>) -> (Self, Recording) {
        let ports = inner.ports().to_vec();
        let stim = Stimulus::new(inner.name(), &ports);
        let mut input_of = vec![None; ports.len()];
        for (k, p) in stim.inputs.iter().enumerate() {
            let i = ports.iter().position(|q| q.name == p.name).expect("port");
            input_of[i] = Some(k);
        }
        let outputs: Vec<PortId> = ports
            .iter()
            .enumerate()
            .filter(|(_, p)| p.direction == Direction::Output)
            .map(|(i, _)| PortId(i))
            .collect();
        let trace = Trace {
            block: inner.name().to_string(),
            backend: "recorded".into(),
            outputs: output_ports(&ports),
            rows: Vec::new(),
        };
        let current = vec![BigUint::default(); stim.inputs.len()];
        let log = Rc::new(RefCell::new(Log {
            stim: Some(stim),
            trace: Some(trace),
        }));
        (
            Recorder {
                inner,
                log: log.clone(),
                input_of,
                outputs,
                current,
            },
            Recording(log),
        )
    }

    fn set(&mut self, port: PortId, words: &[u64]) {
        if let Some(k) = self.input_of[port.0] {
            let digits: Vec<u32> = words
                .iter()
                .flat_map(|&w| [w as u32, (w >> 32) as u32])
                .collect();
            self.current[k] = BigUint::from_slice(&digits);
        }
    }
}

impl Dut for Recorder {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn ports(&self) -> &[PortSpec] {
        self.inner.ports()
    }
    fn memories(&self) -> &[MemorySpec] {
        self.inner.memories()
    }
    fn poke(&mut self, port: PortId, value: u64) -> Result<()> {
        self.inner.poke(port, value)?;
        self.set(port, &[value]);
        Ok(())
    }
    fn poke_words(&mut self, port: PortId, words: &[u64]) -> Result<()> {
        self.inner.poke_words(port, words)?;
        self.set(port, words);
        Ok(())
    }
    fn peek(&mut self, port: PortId) -> Result<u64> {
        self.inner.peek(port)
    }
    fn peek_into(&mut self, port: PortId, out: &mut [u64]) -> Result<()> {
        self.inner.peek_into(port, out)
    }
    fn step(&mut self) -> Result<()> {
        self.inner.step()?;
        let mut row = Vec::with_capacity(self.outputs.len());
        for &o in &self.outputs {
            let w = self.inner.peek_words(o)?;
            let digits: Vec<u32> = w
                .iter()
                .flat_map(|&x| [x as u32, (x >> 32) as u32])
                .collect();
            row.push(Value::Known(BigUint::from_slice(&digits)));
        }
        let mut log = self.log.borrow_mut();
        log.stim
            .as_mut()
            .expect("recording")
            .rows
            .push(self.current.clone());
        log.trace.as_mut().expect("recording").rows.push(row);
        Ok(())
    }
    fn cycle(&self) -> u64 {
        self.inner.cycle()
    }
    fn load_mem(&mut self, name: &str, offset: usize, words: &[u64]) -> Result<()> {
        // A backdoor load cannot be replayed from a stimulus.
        Err(self.misuse(format!(
            "load_mem(`{name}`, {offset}, {} words) cannot be recorded; drive the front door",
            words.len()
        )))
    }
    fn read_mem(&mut self, name: &str) -> Result<Vec<u64>> {
        self.inner.read_mem(name)
    }
    fn finish(&mut self) -> Result<()> {
        self.inner.finish()
    }

    fn set_sim_gating(&mut self, on: bool) {
        self.inner.set_sim_gating(on)
    }

    fn sim_gate_ticks(&self) -> Vec<(String, u64)> {
        self.inner.sim_gate_ticks()
    }
}

/// What [`replay`] returns: the bench's result, the cycles replayed and the replay's time.
#[derive(Clone, Debug)]
pub struct Replayed<T> {
    /// What the bench returned.
    pub value: T,
    /// Cycles recorded and replayed.
    pub cycles: usize,
    /// Seconds the replay took (its build included).
    pub seconds: f64,
}

/// Run the reactive bench `drive` on the in-process Verilator model of `design`, recording
/// every cycle, then replay the recorded inputs on `backend` (Icarus, four-state; or the
/// Yosys netlist) and require every output to agree on every cycle after the first (the
/// state before any edge, X on Icarus). The bench's checks ran on Verilator; the replay
/// shows the other backend answers the same.
pub fn replay<T>(
    sim: &crate::Simulator,
    design: impl Fn() -> Box<dyn edgelearn_hdl::design::Design>,
    backend: crate::Backend,
    drive: impl FnOnce(Box<dyn Dut>) -> T,
) -> std::result::Result<Replayed<T>, Box<dyn std::error::Error + Send + Sync>> {
    let dut = sim.dut(
        crate::Backend::Verilator,
        design(),
        &super::DutOptions::default(),
    )?;
    let (rec, recording) = Recorder::new(dut);
    let value = drive(Box::new(rec));
    let stim = recording.stimulus();
    let mut want = recording.trace();
    let t = std::time::Instant::now();
    let mut got = sim
        .run(backend, design(), &stim, &crate::RunOptions::default())?
        .trace;
    got.rows.remove(0);
    want.rows.remove(0);
    want.backend = "verilator".into();
    crate::trace::compare(&want, &got)?;
    Ok(Replayed {
        value,
        cycles: stim.len(),
        seconds: t.elapsed().as_secs_f64(),
    })
}

//! The rust-hdl CNN engine against the hand-written Verilog engine it replaced
//! (`tests/reference/cnn_engine_ref.v`, issue 15, kept as an independent reference): the same
//! host traffic drives both in lockstep on Verilator, the reference one cycle later (the
//! rust-hdl engine registers its inputs first, D-CNN-RTL-HDL), and every output port is
//! compared on every cycle (`host_rdata` where it is defined, two cycles after a read), every
//! data memory at the end of every layer. The reference has no input FIFOs (streaming,
//! issue 31): their stream is the new engine's alone, and the networks here do not stream;
//! nor does it slide windows (D-CNN-SLIDE, issue 31), so the layer here is one that does not.

use crate::common;
use common::cli::data;

use edgelearn_hdl::cnn::{EngineShape, DATA_WORDS, LAYER_WORDS, MAX_LAYERS};
use edgelearn_hdl::design::{Direction, MemorySpec, PortSpec, VerilogDesign};
use edgelearn_sim::dut::{Dut, DutOptions, PortId};
use edgelearn_sim::{Backend, PortSpec as SimPort};
use edgelearn_verif::cnn::{self, engine, Device, Network, RunOptions};
use edgelearn_verif::rtl::cnn::{simulate, CnnBench, Load};
use std::path::Path;

const SOURCE: &str = include_str!("reference/cnn_engine_ref.v");

/// The reference engine of `shape` (its memories under their old names).
fn reference(shape: &EngineShape) -> VerilogDesign {
    let name = format!("{}_ref", edgelearn_verif::rtl::designs::engine_name(shape));
    let v = SOURCE
        .replace("@TOP@", &name)
        .replace("@P@", &shape.processors.to_string())
        .replace("@KDEPTH@", &shape.kernel_words.to_string());
    let ports = vec![
        PortSpec::clock(),
        PortSpec::new("reset", Direction::Input, 1),
        PortSpec::new("host_we", Direction::Input, 1),
        PortSpec::new("host_re", Direction::Input, 1),
        PortSpec::new("host_addr", Direction::Input, 24),
        PortSpec::new("host_wdata", Direction::Input, 32),
        PortSpec::new("host_rdata", Direction::Output, 32),
        PortSpec::new("busy", Direction::Output, 1),
        PortSpec::new("done", Direction::Output, 1),
        PortSpec::new("layer_done", Direction::Output, 1),
        PortSpec::new("layer", Direction::Output, 5),
    ];
    let mut d = VerilogDesign::new(&name, ports, v)
        .with_memory("lreg", 32, MAX_LAYERS * LAYER_WORDS)
        .with_memory("bmem", 8, shape.bias_bytes());
    for i in 0..shape.instances() {
        d = d.with_memory(&format!("g_dm[{i}].u_dmem.mem"), 32, DATA_WORDS);
    }
    for p in 0..shape.processors {
        d = d.with_memory(
            &format!("g_proc[{p}].u_proc.u_kmem.mem"),
            72,
            shape.kernel_words,
        );
    }
    d
}

/// Two engines stepped together: pokes go to both, the new engine answers, and every step
/// compares the outputs.
struct Lockstep {
    new: Box<dyn Dut>,
    old: Box<dyn Dut>,
    ports: Vec<SimPort>,
    re: PortId,
    /// Reads two and one cycles ago.
    reads: [bool; 2],
    /// The inputs as poked now, and as they were a cycle ago (what the reference takes).
    now: Vec<(PortId, u64)>,
    before: Vec<(PortId, u64)>,
    compared: u64,
}

impl Lockstep {
    fn compare(&mut self) -> edgelearn_sim::Result<()> {
        for p in self.ports.clone() {
            if p.direction != Direction::Output {
                continue;
            }
            if p.name == "host_rdata" && !self.reads[0] {
                continue;
            }
            // The input FIFOs' stream (issue 31) is the rust-hdl engine's alone.
            let Ok(old_id) = self.old.port(&p.name) else {
                continue;
            };
            let id = self.new.port(&p.name)?;
            let (a, b) = (self.new.peek(id)?, self.old.peek(old_id)?);
            assert_eq!(
                a,
                b,
                "cycle {}: port {} is {a:#x} on the rust-hdl engine, {b:#x} on the reference",
                self.new.cycle(),
                p.name
            );
            self.compared += 1;
        }
        Ok(())
    }
}

impl Dut for Lockstep {
    fn name(&self) -> &str {
        self.new.name()
    }
    fn ports(&self) -> &[SimPort] {
        &self.ports
    }
    fn memories(&self) -> &[MemorySpec] {
        self.new.memories()
    }
    fn poke(&mut self, port: PortId, value: u64) -> edgelearn_sim::Result<()> {
        self.now.retain(|(p, _)| *p != port);
        self.now.push((port, value));
        self.new.poke(port, value)
    }
    fn poke_words(&mut self, port: PortId, words: &[u64]) -> edgelearn_sim::Result<()> {
        assert!(words.len() == 1, "the engine's inputs are at most 32 bits");
        self.poke(port, words[0])
    }
    fn peek(&mut self, port: PortId) -> edgelearn_sim::Result<u64> {
        self.new.peek(port)
    }
    fn peek_into(&mut self, port: PortId, out: &mut [u64]) -> edgelearn_sim::Result<()> {
        self.new.peek_into(port, out)
    }
    fn step(&mut self) -> edgelearn_sim::Result<()> {
        let reading = self.new.peek(self.re)? == 1;
        for &(p, v) in &self.before {
            if let Ok(q) = self.old.port(&self.ports[p.index()].name) {
                self.old.poke(q, v)?;
            }
        }
        self.old.step()?;
        self.new.step()?;
        self.before = self.now.clone();
        self.reads = [self.reads[1], reading];
        self.compare()
    }
    fn cycle(&self) -> u64 {
        self.new.cycle()
    }
    fn load_mem(&mut self, name: &str, offset: usize, words: &[u64]) -> edgelearn_sim::Result<()> {
        self.new.load_mem(name, offset, words)
    }
    fn read_mem(&mut self, name: &str) -> edgelearn_sim::Result<Vec<u64>> {
        // A data memory: the reference's must hold the same words.
        let got = self.new.read_mem(name)?;
        if let Some(i) = name
            .strip_prefix("quads$")
            .and_then(|r| r.strip_suffix(".gather.dmem.mem"))
            .and_then(|i| i.parse::<usize>().ok())
        {
            let want = self.old.read_mem(&format!("g_dm[{i}].u_dmem.mem"))?;
            if let Some(w) = (0..got.len()).find(|&w| got[w] != want[w]) {
                panic!(
                    "cycle {}: data memory {i} word {w:#x} is {:#x} on the rust-hdl engine, {:#x} on the reference",
                    self.new.cycle(),
                    got[w],
                    want[w]
                );
            }
        }
        Ok(got)
    }
    fn finish(&mut self) -> edgelearn_sim::Result<()> {
        self.old.finish()?;
        self.new.finish()
    }
}

/// Runs `yaml` on both engines of `shape` through the host port; returns the cycles and
/// the outputs compared.
fn lockstep(yaml: &Path, weights: &Path, input: &Path, shape: EngineShape) -> (u64, u64) {
    let mut net = Network::load(yaml, weights, None, Device::max78000()).unwrap();
    net.infer_max_proc = true;
    let input_t = cnn::weights::load_input(input).unwrap();
    let opts = RunOptions::default();
    let inf = net.infer(&input_t, &opts, None).unwrap();
    let img = engine::build(&net.desc, &net.weights, &inf.plan, &input_t, &opts, &shape).unwrap();
    let sim = common::simulator();
    let new = sim
        .dut(
            Backend::Verilator,
            edgelearn_verif::rtl::designs::engine_design(&shape),
            &DutOptions::default(),
        )
        .unwrap();
    let old = sim
        .dut(
            Backend::Verilator,
            Box::new(reference(&shape)),
            &DutOptions::default(),
        )
        .unwrap();
    // The reference's ports are the new engine's; the new one has the FIFOs' stream too.
    for p in old.ports() {
        assert!(new.ports().contains(p), "{p:?}");
    }
    let extra: Vec<&str> = new
        .ports()
        .iter()
        .filter(|p| !old.ports().contains(p))
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(extra, ["fifo_tdata", "fifo_tvalid", "fifo_tready"]);
    let ports = new.ports().to_vec();
    let re = new.port("host_re").unwrap();
    let l = Lockstep {
        new,
        old,
        ports,
        re,
        reads: [false; 2],
        now: Vec::new(),
        before: Vec::new(),
        compared: 0,
    };
    let mut bench = CnnBench::new(Box::new(l), shape).unwrap();
    let rep = simulate(&mut bench, &net, &inf, &img, Load::FrontDoor).unwrap();
    assert!(rep.first_mismatch().is_none(), "{:?}", rep.first_mismatch());
    (rep.cycles, bench.dut().cycle())
}

/// A Conv1d layer of dilation 4: its windows do not slide (D-CNN-SLIDE), so the engine
/// still spends the reference's cycles on it. (Where windows slide, the engine gathers
/// fewer items than the reference and the two part ways in time; the sliding layers are
/// checked against the golden model and its cycle model, `tests/cnn_rtl.rs`.)
#[test]
fn conv1d_layer_test_equals_the_reference_on_every_cycle() {
    let kat = data("ai8x-kat/t-conv1d-dilation4-pad1");
    let (cycles, steps) = lockstep(
        &kat.join("test-conv1d-dilation4-pad1.yaml"),
        &kat.join("weights_source.npy"),
        &kat.join("input.npy"),
        EngineShape::with_processors(16),
    );
    assert!(cycles > 0 && steps > cycles);
}

#[test]
#[ignore]
fn speed_probe_reference_vs_new() {
    let yaml = data("ai8x/mnist-chw-ai85.yaml");
    let ck = data("ai8x/ai85-mnist-qat8-q.pth.tar");
    let inp = data("ai8x/sample_mnist.npy");
    let mut net = Network::load(&yaml, &ck, None, Device::max78000()).unwrap();
    net.infer_max_proc = true;
    let input_t = cnn::weights::load_input(&inp).unwrap();
    let opts = RunOptions::default();
    let inf = net.infer(&input_t, &opts, None).unwrap();
    let shape = EngineShape::MAX78000;
    let img = engine::build(&net.desc, &net.weights, &inf.plan, &input_t, &opts, &shape).unwrap();
    let sim = common::simulator();
    for which in ["reference", "new"] {
        let d: Box<dyn edgelearn_hdl::design::Design> = if which == "new" {
            edgelearn_verif::rtl::designs::engine_design(&shape)
        } else {
            Box::new(reference(&shape))
        };
        let dut = sim
            .dut(Backend::Verilator, d, &DutOptions::default())
            .unwrap();
        let mut bench = CnnBench::new(dut, shape).unwrap();
        bench.load(&img, Load::FrontDoor).unwrap();
        let t = std::time::Instant::now();
        let mut cycles = 0;
        for _ in 0..10 {
            cycles += bench
                .run(img.layers.len(), 10_000_000, |_, _| Ok(()))
                .unwrap();
        }
        eprintln!(
            "{which}: {:.2} M cycles/s",
            cycles as f64 / t.elapsed().as_secs_f64() / 1e6
        );
    }
}

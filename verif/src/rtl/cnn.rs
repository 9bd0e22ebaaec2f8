//! The CNN engine's bench: the engine image ([`crate::cnn::engine`]) loaded through the
//! memory backdoor or the host port, the layer sequencer started, every layer's output
//! compared, word for word, with the golden model's data-memory words the moment the layer
//! ends, the output unloaded the way a host reads it.

use super::{Divergence, Result, RtlError};
use crate::cnn::engine::{data_location, output_location, EngineImage};
use crate::cnn::{memory, Inference, Network, Tensor};
use edgelearn_hdl::cnn::{host, memories, EngineShape, DATA_WORDS, LAYER_WORDS};
use edgelearn_sim::dut::{Dut, PortId};

/// How the image gets into the engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Load {
    /// Straight into the memories (Verilator's scope table).
    Backdoor,
    /// Through the host port, word by word, as a host processor would.
    FrontDoor,
}

struct Ports {
    fifo_tvalid: PortId,
    reset: PortId,
    we: PortId,
    re: PortId,
    addr: PortId,
    wdata: PortId,
    rdata: PortId,
    done: PortId,
    layer_done: PortId,
}

/// The engine under test.
pub struct CnnBench {
    dut: Box<dyn Dut>,
    shape: EngineShape,
    p: Ports,
    feed: FifoFeed,
}

/// How the bench feeds a streaming network's input stream (`fifo_t*`, AXI-Stream): a beat
/// is offered after an idle cycle with probability `gap` (seeded), and held until taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FifoFeed {
    /// Probability of an idle cycle before each beat (0: back to back).
    pub gap: f64,
    /// Seed of the gaps.
    pub seed: u64,
}

impl Default for FifoFeed {
    fn default() -> Self {
        FifoFeed { gap: 0.0, seed: 1 }
    }
}

/// One layer's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerReport {
    /// The YAML layer.
    pub layer: usize,
    /// Cycles the engine spent on it (its own counter).
    pub cycles: u64,
    /// Data-memory words compared.
    pub words: usize,
    /// The first word that differs from the golden model, if any.
    pub mismatch: Option<Box<Divergence>>,
    /// The layer's output as the engine wrote it (read from data memory).
    pub output: Tensor,
    /// The engine's data-memory words where the golden model has the layer's words.
    pub memory: Vec<memory::Check>,
}

/// A finished inference on the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimReport {
    /// Cycles from start to done.
    pub cycles: u64,
    /// Per layer, in run order.
    pub layers: Vec<LayerReport>,
    /// The final layer's output, unloaded from data memory.
    pub output: Tensor,
    /// A streaming run: the cycle (from the start) the last input beat moved.
    pub input_done: Option<u64>,
}

impl SimReport {
    /// The first mismatch of the run.
    pub fn first_mismatch(&self) -> Option<&Divergence> {
        self.layers.iter().find_map(|l| l.mismatch.as_deref())
    }
}

impl CnnBench {
    /// A bench around `dut` (a [`edgelearn_hdl::cnn::engine`] design of `shape`), reset.
    pub fn new(dut: Box<dyn Dut>, shape: EngineShape) -> Result<Self> {
        let d = &*dut;
        let p = Ports {
            reset: d.port("reset")?,
            we: d.port("host_we")?,
            re: d.port("host_re")?,
            addr: d.port("host_addr")?,
            wdata: d.port("host_wdata")?,
            rdata: d.port("host_rdata")?,
            done: d.port("done")?,
            layer_done: d.port("layer_done")?,
            fifo_tvalid: d.port("fifo_tvalid")?,
        };
        let mut b = CnnBench {
            dut,
            shape,
            p,
            feed: FifoFeed::default(),
        };
        b.reset()?;
        Ok(b)
    }

    /// Resets the engine (its memories keep their words): after a run that went wrong, so
    /// the next one starts from IDLE.
    pub fn reset(&mut self) -> Result<()> {
        self.dut.poke(self.p.reset, 1)?;
        self.dut.steps(2)?;
        self.dut.poke(self.p.reset, 0)?;
        self.dut.step()?;
        Ok(())
    }

    /// How a streaming network's input stream is fed.
    pub fn set_feed(&mut self, feed: FifoFeed) {
        self.feed = feed;
    }

    /// The simulator under the bench.
    pub fn dut(&mut self) -> &mut dyn Dut {
        &mut *self.dut
    }

    /// One host write (it lands at the next edge after this one: the port stage).
    pub fn write(&mut self, addr: u32, data: u32) -> Result<()> {
        self.dut.poke(self.p.addr, addr as u64)?;
        self.dut.poke(self.p.wdata, data as u64)?;
        self.dut.poke(self.p.we, 1)?;
        self.dut.step()?;
        self.dut.poke(self.p.we, 0)?;
        Ok(())
    }

    /// One host read: the word is on `host_rdata` two cycles after `host_re` (the engine's
    /// port stage registers the strobe, then the memory or register is read).
    pub fn read(&mut self, addr: u32) -> Result<u32> {
        self.dut.poke(self.p.addr, addr as u64)?;
        self.dut.poke(self.p.re, 1)?;
        self.dut.step()?;
        self.dut.poke(self.p.re, 0)?;
        self.dut.step()?;
        Ok(self.dut.peek(self.p.rdata)? as u32)
    }

    /// Loads `img`.
    pub fn load(&mut self, img: &EngineImage, how: Load) -> Result<()> {
        if img.shape != self.shape {
            return Err(RtlError::Other(format!(
                "the image is for {} processors and {} kernel words, the engine has {} and {}",
                img.shape.processors,
                img.shape.kernel_words,
                self.shape.processors,
                self.shape.kernel_words
            )));
        }
        match how {
            Load::Backdoor => {
                // One memory per register word, indexed by layer.
                let words: Vec<[u32; LAYER_WORDS]> =
                    img.layers.iter().map(|l| l.encode()).collect();
                for k in 0..LAYER_WORDS {
                    let column: Vec<u64> = words.iter().map(|w| w[k] as u64).collect();
                    self.dut.load_mem(&memories::layer_word(k), 0, &column)?;
                }
                if !img.bias.is_empty() {
                    let b: Vec<u64> = img.bias.iter().map(|&v| v as u64).collect();
                    self.dut.load_mem(memories::BIAS, 0, &b)?;
                }
                for (p, words) in img.kernels.iter().enumerate() {
                    let w: Vec<u64> = words
                        .iter()
                        .flat_map(|&k| [k as u64, (k >> 64) as u64])
                        .collect();
                    self.dut.load_mem(&memories::kernel(p), 0, &w)?;
                }
                for &(inst, word, v) in &img.data {
                    self.dut
                        .load_mem(&memories::data(inst), word, &[v as u64])?;
                }
            }
            Load::FrontDoor => {
                for (i, l) in img.layers.iter().enumerate() {
                    for (k, &w) in l.encode().iter().enumerate() {
                        self.write(host::LAYER_REGS + (i * LAYER_WORDS + k) as u32, w)?;
                    }
                }
                for (i, &b) in img.bias.iter().enumerate() {
                    self.write(host::BIAS + i as u32, b as u32)?;
                }
                for (p, words) in img.kernels.iter().enumerate() {
                    for (w, &k) in words.iter().enumerate() {
                        for part in 0..3 {
                            self.write(host::kernel(p, w, part), (k >> (32 * part)) as u32)?;
                        }
                    }
                }
                for &(inst, word, v) in &img.data {
                    self.write(host::data(inst, word), v)?;
                }
            }
        }
        // Streaming: the STREAM register and the schedule, through the host port.
        let reg = img.stream.as_ref().map_or(0, |s| s.register());
        self.write(host::STREAM, reg)?;
        for (i, e) in img.stream.iter().flat_map(|s| &s.schedule).enumerate() {
            for (k, w) in e.words().into_iter().enumerate() {
                self.write(host::SCHEDULE + 4 * i as u32 + k as u32, w)?;
            }
        }
        Ok(())
    }

    /// Reads `img`'s configuration back through the host port, as a driver checks what it
    /// loaded: every layer register, bias byte and part of every kernel word, and the
    /// engine's shape registers; the first word that differs is an error naming it.
    pub fn verify_load(&mut self, img: &EngineImage) -> Result<()> {
        let check = |b: &mut Self, what: String, addr: u32, want: u32| -> Result<()> {
            let got = b.read(addr)?;
            match got == want {
                true => Ok(()),
                false => Err(RtlError::Other(format!(
                    "{}: read back {what} (host address {addr:#08x}): expected {want:#010x}, got {got:#010x}",
                    b.dut.name()
                ))),
            }
        };
        let (p, k) = (self.shape.processors as u32, self.shape.kernel_words as u32);
        check(self, "PROCESSORS".into(), host::PROCESSORS, p)?;
        check(self, "KERNEL_WORDS".into(), host::KERNEL_WORDS, k)?;
        for (i, l) in img.layers.iter().enumerate() {
            for (w, &v) in l.encode().iter().enumerate() {
                let a = host::LAYER_REGS + (i * LAYER_WORDS + w) as u32;
                check(self, format!("layer {i} register word {w}"), a, v)?;
            }
        }
        for (i, &b) in img.bias.iter().enumerate() {
            check(self, format!("bias {i}"), host::BIAS + i as u32, b as u32)?;
        }
        let reg = img.stream.as_ref().map_or(0, |s| s.register());
        check(self, "STREAM".into(), host::STREAM, reg)?;
        for (i, e) in img.stream.iter().flat_map(|s| &s.schedule).enumerate() {
            for (k, w) in e.words().into_iter().enumerate() {
                let a = host::SCHEDULE + 4 * i as u32 + k as u32;
                check(self, format!("schedule entry {i} word {k}"), a, w)?;
            }
        }
        for (q, words) in img.kernels.iter().enumerate() {
            for (w, &kw) in words.iter().enumerate() {
                for part in 0..3 {
                    let want = (kw >> (32 * part)) as u32 & if part == 2 { 0xff } else { u32::MAX };
                    check(
                        self,
                        format!("processor {q} kernel word {w} part {part}"),
                        host::kernel(q, w, part),
                        want,
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Every data-memory instance's words (backdoor).
    pub fn data_memories(&mut self) -> Result<Vec<Vec<u32>>> {
        (0..self.shape.instances())
            .map(|i| {
                Ok(self
                    .dut
                    .read_mem(&memories::data(i))?
                    .into_iter()
                    .map(|w| w as u32)
                    .collect())
            })
            .collect()
    }

    /// Data-memory word `word` of instance `inst`, through the host port.
    pub fn read_data(&mut self, inst: usize, word: usize) -> Result<u32> {
        self.read(host::data(inst, word))
    }

    /// Starts `layers` layers and runs until `done`; `on_layer(k, bench)` is called when the
    /// `k`-th layer has written its last word. Returns the cycles counted by the engine.
    pub fn run(
        &mut self,
        layers: usize,
        max_cycles: u64,
        on_layer: impl FnMut(usize, &mut CnnBench) -> Result<()>,
    ) -> Result<u64> {
        self.run_streaming(layers, layers - 1, layers, &[], max_cycles, on_layer)
            .map(|(c, _)| c)
    }

    /// [`Self::run`] for a run whose layers end `ends` times (a streaming layer once per
    /// schedule entry), the input stream `beats` fed as [`FifoFeed`] says. `last_layer` is the
    /// layer that runs last, which `LAYER` shows after the run: the last layer, or when
    /// every layer streams the END entry's (the schedule may end on a row of an earlier
    /// layer that no later row reads, such as the last row a stride-2 pool drops).
    /// Returns the engine's cycles and the cycle the last beat moved.
    pub fn run_streaming(
        &mut self,
        layers: usize,
        last_layer: usize,
        ends: usize,
        beats: &[u32],
        max_cycles: u64,
        mut on_layer: impl FnMut(usize, &mut CnnBench) -> Result<()>,
    ) -> Result<(u64, Option<u64>)> {
        use edgelearn_sim::tb::{self, Gaps, ProtocolMonitor, StreamPorts, StreamSource};
        let ports = StreamPorts::new(
            &*self.dut,
            "fifo",
            "fifo_tvalid",
            Some("fifo_tready"),
            &["fifo_tdata"],
        )?;
        let gaps = match self.feed.gap {
            g if g > 0.0 => Gaps::Anywhere(g),
            _ => Gaps::None,
        };
        let mut monitor = ProtocolMonitor::new(&*self.dut, vec![ports.clone()]);
        let mut feed = StreamSource::new(ports, gaps, self.feed.seed);
        for &b in beats {
            feed.push(vec![u64::from(b)]);
        }
        let mut last = None;
        let mut idle = false;
        self.write(host::NLAYERS, layers as u32)?;
        self.write(host::CTRL, 1)?;
        let start = self.dut.cycle();
        // The start lands one edge after the port took it, and clears `done` of a last run.
        while self.dut.peek(self.p.done)? == 1 {
            if self.dut.cycle() - start > 4 {
                return Err(RtlError::Stuck {
                    block: self.dut.name().to_string(),
                    waiting_for: "the start".into(),
                    state: "done".into(),
                    cycles: 4,
                });
            }
            self.dut.step()?;
        }
        let mut k = 0usize;
        loop {
            if self.dut.peek(self.p.layer_done)? == 1 {
                on_layer(k, self)?;
                k += 1;
            }
            if self.dut.peek(self.p.done)? == 1 {
                break;
            }
            if self.dut.cycle() - start > max_cycles {
                return Err(RtlError::Stuck {
                    block: self.dut.name().to_string(),
                    waiting_for: "done".into(),
                    state: format!("layer {k}, input beat {} of {}", feed.sent(), beats.len()),
                    cycles: max_cycles,
                });
            }
            let sent = feed.sent();
            if sent < beats.len() {
                tb::cycle(&mut *self.dut, &mut [&mut feed, &mut monitor])?;
                if feed.sent() > sent {
                    last = Some(self.dut.cycle());
                }
            } else {
                // Every beat has moved: the stream stays idle and the engine runs alone
                // (most runs have no stream at all, and the agents' per-cycle peeks would
                // double their simulation time).
                if !idle {
                    self.dut.poke(self.p.fifo_tvalid, 0)?;
                    idle = true;
                }
                self.dut.step()?;
            }
        }
        self.dut.poke(self.p.fifo_tvalid, 0)?;
        if k != ends {
            return Err(RtlError::Other(format!(
                "the engine finished after {k} layer ends, {ends} were expected"
            )));
        }
        if feed.sent() != beats.len() {
            return Err(RtlError::Other(format!(
                "the engine finished having taken {} of the {} input beats",
                feed.sent(),
                beats.len()
            )));
        }
        // The status a driver polls: CTRL done and not busy, LAYER the last layer, NLAYERS
        // as written.
        let status = [
            ("CTRL", host::CTRL, 0b10),
            ("LAYER", host::LAYER, last_layer as u32),
            ("NLAYERS", host::NLAYERS, layers as u32),
        ];
        for (name, addr, want) in status {
            let got = self.read(addr)?;
            if got != want {
                return Err(RtlError::Other(format!(
                    "{}: {name} after the run of {layers} layers: expected {want:#x}, got {got:#x}",
                    self.dut.name()
                )));
            }
        }
        Ok((
            self.read(host::CYCLES)? as u64,
            last.map(|c: u64| c - start),
        ))
    }

    /// The cycles of each of the first `layers` layers of the last run.
    pub fn layer_cycles(&mut self, layers: usize) -> Result<Vec<u64>> {
        (0..layers)
            .map(|l| Ok(self.read(host::LAYER_CYCLES + l as u32)? as u64))
            .collect()
    }
}

/// The engine's words at the places of layer `ll`'s golden words (same addresses and masks,
/// the engine's values), for `--log-intermediate`.
pub fn layer_words(
    net: &Network,
    inf: &Inference,
    shape: &EngineShape,
    ll: usize,
    mem: &[Vec<u32>],
) -> Vec<memory::Check> {
    let p = inf.plan.layer(ll);
    let out = inf.result.outputs[ll].as_ref().expect("layer ran");
    memory::output_checks(&net.desc.layers[ll], p, out, &inf.plan.device)
        .into_iter()
        .map(|c| memory::Check {
            value: data_location(shape, c.address)
                .filter(|&(_, w)| w < DATA_WORDS)
                .map_or(0, |(i, w)| mem[i][w] & c.mask),
            ..c
        })
        .collect()
}

/// Compares the data memories `mem` with the golden output of YAML layer `ll`: the number
/// of words compared and the first mismatch.
pub fn compare_layer(
    net: &Network,
    inf: &Inference,
    shape: &EngineShape,
    ll: usize,
    mem: &[Vec<u32>],
) -> (usize, Option<Box<Divergence>>) {
    let p = inf.plan.layer(ll);
    let out = inf.result.outputs[ll].as_ref().expect("layer ran");
    let checks = memory::output_checks(&net.desc.layers[ll], p, out, &inf.plan.device);
    let block = crate::rtl::designs::engine_name(shape);
    for c in &checks {
        let mismatch = |got: String| {
            Some(Box::new(Divergence {
                block: block.clone(),
                image: 0,
                state: format!("layer {ll}"),
                what: format!(
                    "data-memory word at 0x{:08x} (mask 0x{:08x})",
                    c.address, c.mask
                ),
                index: 0,
                expected: format!("0x{:08x}", c.value),
                got,
            }))
        };
        match data_location(shape, c.address) {
            None => {
                return (
                    checks.len(),
                    mismatch("an address outside the engine".into()),
                )
            }
            Some((inst, word)) => {
                let v = mem[inst][word] & c.mask;
                if v != c.value {
                    let mut d = mismatch(format!("0x{v:08x}")).expect("mismatch");
                    d.what = format!(
                        "data memory {inst}, word 0x{word:04x} (0x{:08x}, mask 0x{:08x})",
                        c.address, c.mask
                    );
                    d.index = word;
                    return (checks.len(), Some(d));
                }
            }
        }
    }
    (checks.len(), None)
}

/// Reads layer `ll`'s output out of the data memories `mem`.
pub fn unload(
    net: &Network,
    inf: &Inference,
    shape: &EngineShape,
    ll: usize,
    mem: &[Vec<u32>],
) -> Tensor {
    let p = inf.plan.layer(ll);
    let l = &net.desc.layers[ll];
    let (c_n, h, w) = (p.out_ch, p.out_dim[0], p.out_dim[1]);
    let mut out = Tensor::zeros(c_n, h, w);
    for c in 0..c_n {
        for q in 0..h * w {
            let (addr, lane) = output_location(l, p, c, q, &inf.plan.device);
            let v = match data_location(shape, addr) {
                Some((inst, word)) if word < DATA_WORDS => mem[inst][word],
                _ => 0,
            };
            out.data[c * h * w + q] = match lane {
                Some(b) => ((v >> (8 * b)) as u8) as i8 as i64,
                None => v as i32 as i64,
            };
        }
    }
    out
}

/// A layer as the bench saw it: words compared, the first mismatch, its output, its words.
type Seen = (usize, Option<Box<Divergence>>, Tensor, Vec<memory::Check>);

/// Runs one inference of `inf` on the engine: load `img` (`how`) and read its configuration
/// back through the host port ([`CnnBench::verify_load`]), run, compare every layer with the
/// golden model, unload the output.
pub fn simulate(
    bench: &mut CnnBench,
    net: &Network,
    inf: &Inference,
    img: &EngineImage,
    how: Load,
) -> Result<SimReport> {
    bench.load(img, how)?;
    bench.verify_load(img)?;
    let shape = bench.shape;
    let n = img.layers.len();
    let mut results: Vec<Seen> = Vec::new();
    let budget = 200_000_000;
    let (entries, streamed, beats) = match &img.stream {
        Some(st) => (st.schedule.len(), st.layers, &st.beats[..]),
        None => (0, 0, &[][..]),
    };
    let ends = entries + n - streamed;
    let last = match img.stream.as_ref().and_then(|st| st.schedule.last()) {
        Some(end) if streamed == n => end.pos,
        _ => n - 1,
    };
    let (cycles, input_done) = bench.run_streaming(n, last, ends, beats, budget, |k, b| {
        // A schedule entry's end: nothing to compare until the last one, when every
        // streaming layer has written what it writes.
        if k + 1 < entries {
            return Ok(());
        }
        let mem = b.data_memories()?;
        if k + 1 == entries {
            results.extend(compare_streamed(net, inf, img, &shape, &mem));
            return Ok(());
        }
        let ll = img.layers[k + streamed - entries].layer;
        let (words, mismatch) = compare_layer(net, inf, &shape, ll, &mem);
        results.push((
            words,
            mismatch,
            unload(net, inf, &shape, ll, &mem),
            layer_words(net, inf, &shape, ll, &mem),
        ));
        Ok(())
    })?;
    let lc = bench.layer_cycles(n)?;
    let layers = img
        .layers
        .iter()
        .zip(results)
        .zip(lc)
        .map(
            |((l, (words, mismatch, output, memory)), cycles)| LayerReport {
                layer: l.layer,
                cycles,
                words,
                mismatch,
                output,
                memory,
            },
        )
        .collect::<Vec<_>>();
    let output = layers
        .last()
        .map(|l: &LayerReport| l.output.clone())
        .unwrap_or_else(|| Tensor::zeros(0, 0, 0));
    Ok(SimReport {
        cycles,
        layers,
        output,
        input_done,
    })
}

/// The streaming layers' results when the schedule has ended: the words the schedule's
/// entries wrote, replayed from the golden outputs in the schedule's order (a rolling
/// buffer keeps its last rows), compared byte lane by byte lane with the data memories;
/// the last streaming layer's whole frame as [`compare_layer`] compares a layer.
fn compare_streamed(
    net: &Network,
    inf: &Inference,
    img: &EngineImage,
    shape: &EngineShape,
    mem: &[Vec<u32>],
) -> Vec<Seen> {
    use std::collections::BTreeMap;
    let st = img.stream.as_ref().expect("a streaming image");
    // (instance, word, lane) -> (layer position, value), the last write wins.
    let mut want: BTreeMap<(usize, usize, usize), (usize, u8)> = BTreeMap::new();
    for e in &st.schedule {
        let r = &img.layers[e.pos];
        let p = inf.plan.layer(r.layer);
        let out = inf.result.outputs[r.layer].as_ref().expect("layer ran");
        let procs: Vec<usize> = (0..64).filter(|b| p.out_map >> b & 1 == 1).collect();
        let thresh = p.out_passes.1.max(1);
        let mask = if r.out_roll == 0 {
            u32::MAX
        } else {
            (1 << r.out_roll) - 1
        };
        let (h, w) = (p.out_dim[0], p.out_dim[1]);
        for c in 0..p.out_ch {
            let proc = procs[c % thresh];
            let pass = (c / thresh) as u32;
            for x in 0..w {
                let q = e.row as usize * w + x;
                let off = (q as u32 * r.out_passes + pass) * r.gap;
                let word = (r.out_base + (off & mask)) as usize % DATA_WORDS;
                let v = out.data[c * h * w + q] as u8;
                want.insert((proc / 4, word, proc % 4), (e.pos, v));
            }
        }
    }
    let block = crate::rtl::designs::engine_name(shape);
    let mut per_layer: Vec<(usize, Option<Box<Divergence>>)> = vec![(0, None); st.layers];
    for (&(inst, word, lane), &(pos, v)) in &want {
        let got = (mem[inst][word] >> (8 * lane)) as u8;
        let slot = &mut per_layer[pos];
        slot.0 += 1;
        if got != v && slot.1.is_none() {
            slot.1 = Some(Box::new(Divergence {
                block: block.clone(),
                image: 0,
                state: format!("layer {} (streamed)", img.layers[pos].layer),
                what: format!("data memory {inst}, word 0x{word:04x}, byte lane {lane}"),
                index: word,
                expected: format!("0x{v:02x}"),
                got: format!("0x{got:02x}"),
            }));
        }
    }
    let last = st.layers - 1;
    per_layer
        .into_iter()
        .enumerate()
        .map(|(pos, (words, mismatch))| {
            let ll = img.layers[pos].layer;
            if pos == last {
                let (w2, m2) = compare_layer(net, inf, shape, ll, mem);
                return (
                    words + w2,
                    mismatch.or(m2),
                    unload(net, inf, shape, ll, mem),
                    layer_words(net, inf, shape, ll, mem),
                );
            }
            let p = inf.plan.layer(ll);
            (
                words,
                mismatch,
                Tensor::zeros(p.out_ch, p.out_dim[0], p.out_dim[1]),
                Vec::new(),
            )
        })
        .collect()
}

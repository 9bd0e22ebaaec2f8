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
        };
        let mut b = CnnBench { dut, shape, p };
        b.dut.poke(b.p.reset, 1)?;
        b.dut.steps(2)?;
        b.dut.poke(b.p.reset, 0)?;
        b.dut.step()?;
        Ok(b)
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
        mut on_layer: impl FnMut(usize, &mut CnnBench) -> Result<()>,
    ) -> Result<u64> {
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
                    state: format!("layer {k}"),
                    cycles: max_cycles,
                });
            }
            self.dut.step()?;
        }
        if k != layers {
            return Err(RtlError::Other(format!(
                "the engine finished after {k} layers, {layers} were started"
            )));
        }
        // The status a driver polls: CTRL done and not busy, LAYER the last layer, NLAYERS
        // as written.
        let status = [
            ("CTRL", host::CTRL, 0b10),
            ("LAYER", host::LAYER, layers as u32 - 1),
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
        Ok(self.read(host::CYCLES)? as u64)
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
    type Seen = (usize, Option<Box<Divergence>>, Tensor, Vec<memory::Check>);
    let mut results: Vec<Seen> = Vec::new();
    let budget = 200_000_000;
    let cycles = bench.run(n, budget, |k, b| {
        let mem = b.data_memories()?;
        let ll = img.layers[k].layer;
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
    })
}
